"""tf.IndexedSlices: sparse gradients of gathers, their aggregation and
densification, and the variable updates that consume them. Expected values
and texts are those TensorFlow 2.21 gives for the same code."""
import warnings

import numpy as np
import pytest

import rillflow as tf


def _var():
    return tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]))


def _grad(f, src, watch=None, **kw):
    with tf.GradientTape() as t:
        if watch is not None:
            t.watch(watch)
        y = f()
    return t.gradient(y, src, **kw)


def _summary(g):
    if isinstance(g, tf.IndexedSlices):
        return ("IS", tuple(g.values.shape), g.indices.numpy().tolist(), g.indices.dtype.name,
                g.dense_shape.numpy().tolist(), g.dense_shape.dtype.name)
    return ("dense", tuple(g.shape))


# --- the class ----------------------------------------------------------------

def test_printed_form_of_a_gradient():
    v = _var()
    g = _grad(lambda: tf.reduce_sum(tf.gather(v, [1, 3, 1]) * 2.0), v)
    assert type(g) is tf.IndexedSlices
    assert str(g) == (
        "IndexedSlices(indices=tf.Tensor([1 3 1], shape=(3,), dtype=int32), values=tf.Tensor(\n"
        "[[2. 2. 2.]\n [2. 2. 2.]\n [2. 2. 2.]], shape=(3, 3), dtype=float32), "
        "dense_shape=tf.Tensor([4 3], shape=(2,), dtype=int32))")
    assert repr(g).startswith("<rillflow.framework.indexed_slices.IndexedSlices object at ")
    assert g.dtype is tf.float32 and g.shape == tf.TensorShape([4, 3])
    assert g.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    for attr in ("name", "op", "graph"):
        with pytest.raises(AttributeError, match=f"Tensor.{attr} is undefined when eager"):
            getattr(g, attr)
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(),
                                  [[0, 0, 0], [4, 4, 4], [0, 0, 0], [2, 2, 2]])


def test_components_are_kept_as_given():
    s = tf.IndexedSlices([[1.0, 2.0]], [0])
    assert str(s) == "IndexedSlices(indices=[0], values=[[1.0, 2.0]])"
    assert s.dense_shape is None and s.shape == tf.TensorShape(None)


def test_conversion_errors():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([0]))
    with pytest.raises(ValueError) as e:
        tf.reduce_sum(s)
    assert str(e.value) == (
        "Tensor conversion requested for IndexedSlices for argument `value` without "
        "dense_shape: IndexedSlices(indices=tf.Tensor([0], shape=(1,), dtype=int32), "
        "values=tf.Tensor([[1. 2.]], shape=(1, 2), dtype=float32))")
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([0]), tf.constant([3, 2]))
    with pytest.raises(ValueError, match=r"^Incompatible tensor conversion requested to "
                       r"`dtype` int32 for IndexedSlices \(IndexedSlices\(indices="):
        tf.convert_to_tensor(s, dtype=tf.int32)
    assert tf.convert_to_tensor(s, dtype=tf.float32).shape == (3, 2)


def test_operators():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([0]), tf.constant([3, 2]))
    n = -s
    assert isinstance(n, tf.IndexedSlices)
    np.testing.assert_array_equal(n.values.numpy(), [[-1., -2.]])
    assert n.indices is s.indices and n.dense_shape is s.dense_shape
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: "
                                        r"'IndexedSlices' and 'IndexedSlices'"):
        s + s
    with pytest.raises(TypeError, match=r"for \*: 'IndexedSlices' and 'int'"):
        s * 2
    with pytest.raises(TypeError, match="object of type 'IndexedSlices' has no len"):
        len(s)
    assert bool(s) and s == s and hash(s) == hash(s)
    assert tf.is_tensor(s) and not isinstance(s, tf.Tensor)


def test_spec():
    assert repr(tf.IndexedSlicesSpec()) == (
        "IndexedSlicesSpec(TensorShape(None), tf.float32, tf.int64, None, TensorShape([None]))")
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([0]), tf.constant([3, 2]))
    spec = tf.type_spec_from_value(s)
    assert repr(spec) == ("IndexedSlicesSpec(TensorShape([3, 2]), tf.float32, tf.int32, "
                          "tf.int32, TensorShape([1]))")
    assert spec == s._type_spec and spec.value_type is tf.IndexedSlices
    assert repr(spec._component_specs) == (
        "(TensorSpec(shape=(1, 2), dtype=tf.float32, name=None), TensorSpec(shape=(1,), "
        "dtype=tf.int32, name=None), TensorSpec(shape=(2,), dtype=tf.int32, name=None))")
    assert repr(tf.IndexedSlicesSpec([None, 2])._component_specs) == (
        "(TensorSpec(shape=(None, 2), dtype=tf.float32, name=None), TensorSpec(shape=(None,), "
        "dtype=tf.int64, name=None))")
    sup = tf.IndexedSlicesSpec([5, 2]).most_specific_common_supertype(
        [tf.IndexedSlicesSpec([4, 2])])
    assert repr(sup) == ("IndexedSlicesSpec(TensorShape([None, 2]), tf.float32, tf.int64, "
                         "None, TensorShape([None]))")
    assert not tf.IndexedSlicesSpec([None, 2]).is_compatible_with(s)   # int64 indices
    assert tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32, tf.int32).is_compatible_with(s)
    assert tf.IndexedSlicesSpec([5, 2]) == tf.IndexedSlicesSpec([5, 2])
    assert hash(tf.IndexedSlicesSpec([5, 2])) == hash(tf.IndexedSlicesSpec([5, 2]))


def test_nest_expand_composites():
    s = tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([0]), tf.constant([3, 2]))
    assert tf.nest.flatten(s) == [s]
    flat = tf.nest.flatten({"a": s, "b": 1}, expand_composites=True)
    assert len(flat) == 4 and flat[0] is s.values and flat[2] is s.dense_shape and flat[3] == 1
    r = tf.nest.pack_sequence_as({"a": s, "b": 1}, [tf.constant([[5., 5.]]), tf.constant([1]),
                                                    tf.constant([4, 2]), 7],
                                 expand_composites=True)
    assert isinstance(r["a"], tf.IndexedSlices) and r["b"] == 7
    assert r["a"].indices.numpy().tolist() == [1]
    m = tf.nest.map_structure(lambda t: t * 2, s, expand_composites=True)
    assert m.dense_shape.numpy().tolist() == [6, 4]
    no_shape = tf.IndexedSlices(tf.constant([[1.]]), tf.constant([0]))
    assert len(tf.nest.flatten(no_shape, expand_composites=True)) == 2


# --- which gradients are sparse ----------------------------------------------

V = _var()
X = tf.constant(V)
IDS = tf.constant([[1, 3], [1, 0]])

_CASES = [
    ("var gather", lambda: tf.reduce_sum(tf.gather(V, IDS)), V,
     ("IS", (4, 3), [1, 3, 1, 0], "int32", [4, 3], "int32")),
    ("embedding_lookup", lambda: tf.reduce_sum(tf.nn.embedding_lookup(V, IDS)), V,
     ("IS", (4, 3), [1, 3, 1, 0], "int32", [4, 3], "int32")),
    ("sparse_read", lambda: tf.reduce_sum(V.sparse_read(IDS)), V,
     ("IS", (4, 3), [1, 3, 1, 0], "int32", [4, 3], "int32")),
    ("tensor gather", lambda: tf.reduce_sum(tf.gather(X, IDS)), X,
     ("IS", (4, 3), [1, 3, 1, 0], "int32", [4, 3], "int32")),
    ("axis 1", lambda: tf.reduce_sum(tf.gather(V, [0, 2], axis=1)), V, ("dense", (4, 3))),
    ("tensor axis 1", lambda: tf.reduce_sum(tf.gather(X, [0, 2], axis=1)), X,
     ("dense", (4, 3))),
    ("axis -2", lambda: tf.reduce_sum(tf.gather(V, [0, 2], axis=-2)), V, ("dense", (4, 3))),
    ("batch_dims", lambda: tf.reduce_sum(tf.gather(V, [[0], [1], [2], [0]], axis=1,
                                                   batch_dims=1)), V, ("dense", (4, 3))),
    ("axis tensor 0", lambda: tf.reduce_sum(tf.gather(V, [0, 2], axis=tf.constant(0))), V,
     ("IS", (2, 3), [0, 2], "int32", [4, 3], "int32")),
    ("two gathers", lambda: tf.reduce_sum(tf.gather(V, [0, 2])) +
     tf.reduce_sum(tf.gather(V, [1])), V, ("IS", (3, 3), [0, 2, 1], "int32", [4, 3], "int32")),
    ("gather and dense", lambda: tf.reduce_sum(tf.gather(V, [0, 2])) + tf.reduce_sum(V), V,
     ("dense", (4, 3))),
    ("gather of mul", lambda: tf.reduce_sum(tf.gather(V * 2.0, [0, 2])), V, ("dense", (4, 3))),
    ("gather of identity", lambda: tf.reduce_sum(tf.gather(tf.identity(X), [0, 2])), X,
     ("IS", (2, 3), [0, 2], "int32", [4, 3], "int32")),
    ("gather of cast", lambda: tf.reduce_sum(tf.gather(tf.cast(X, tf.float64), [0, 2])), X,
     ("IS", (2, 3), [0, 2], "int32", [4, 3], "int32")),
    ("gather of read", lambda: tf.reduce_sum(tf.gather(V.read_value(), [0, 2])), V,
     ("IS", (2, 3), [0, 2], "int32", [4, 3], "int32")),
    ("gather of gather", lambda: tf.reduce_sum(tf.gather(tf.gather(V, [0, 2, 3]), [0, 2])), V,
     ("IS", (3, 3), [0, 2, 3], "int32", [4, 3], "int32")),
    ("int64 ids", lambda: tf.reduce_sum(tf.gather(V, tf.constant([0, 2], tf.int64))), V,
     ("IS", (2, 3), [0, 2], "int64", [4, 3], "int32")),
    ("int32 and int64 ids", lambda: tf.reduce_sum(tf.gather(V, tf.constant([0, 2], tf.int64)))
     + tf.reduce_sum(tf.gather(V, [1])), V, ("IS", (3, 3), [0, 2, 1], "int64", [4, 3], "int32")),
    ("scalar id", lambda: tf.reduce_sum(tf.gather(V, 2)), V,
     ("IS", (1, 3), [2], "int32", [4, 3], "int32")),
    ("list of targets", lambda: [tf.gather(V, [0]), tf.gather(V, [1])], V,
     ("IS", (2, 3), [1, 0], "int32", [4, 3], "int32")),
    ("add keeps it sparse", lambda: tf.reduce_sum(tf.gather(V + 0., [1])), V,
     ("IS", (1, 3), [1], "int32", [4, 3], "int32")),
    ("stack densifies", lambda: tf.reduce_sum(tf.gather(tf.stack([X, X]), [1])), X,
     ("dense", (4, 3))),
    ("reshape densifies", lambda: tf.reduce_sum(tf.gather(tf.reshape(X, [12]), [1])), X,
     ("dense", (4, 3))),
]


@pytest.mark.parametrize("name,f,src,expected", _CASES, ids=[c[0] for c in _CASES])
def test_gradient_kind(name, f, src, expected):
    watch = src if src is X else None
    assert _summary(_grad(f, src, watch)) == expected


def test_unconnected_zero_and_output_gradients():
    g = _grad(lambda: tf.reduce_sum(tf.gather(V, [0, 2])), [V, X], X,
              unconnected_gradients="zero")
    assert isinstance(g[0], tf.IndexedSlices) and not isinstance(g[1], tf.IndexedSlices)
    g = _grad(lambda: tf.gather(V, [0, 2]), V, output_gradients=tf.ones([2, 3]))
    assert _summary(g) == ("IS", (2, 3), [0, 2], "int32", [4, 3], "int32")
    # An IndexedSlices output gradient is densified first.
    x = tf.constant([[1., 2.], [3., 4.]])
    og = tf.IndexedSlices(tf.constant([[1., 1.]]), tf.constant([0]), tf.constant([1, 2]))
    g = _grad(lambda: tf.gather(x, [1]), x, x, output_gradients=og)
    assert g.indices.numpy().tolist() == [1] and g.values.numpy().tolist() == [[1., 1.]]
    assert _grad(lambda: tf.reduce_sum(tf.gather(tf.stop_gradient(V), [1])), V) is None


def test_concat_splits_sparse_gradient():
    a = tf.Variable([[1., 2.], [3., 4.]])
    b = tf.Variable([[5., 6.]])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.gather(tf.concat([a, b], 0), [2, 0, 2]) *
                          tf.constant([[1.], [2.], [3.]]))
    ga, gb = t.gradient(y, [a, b])
    assert ga.indices.numpy().tolist() == [0] and ga.values.numpy().tolist() == [[2., 2.]]
    assert ga.dense_shape.numpy().tolist() == [2, 2]
    assert gb.indices.numpy().tolist() == [0, 0]
    assert gb.values.numpy().tolist() == [[1., 1.], [3., 3.]]
    assert gb.dense_shape.numpy().tolist() == [1, 2]
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.gather(tf.concat([a, a], 1), [1]))
    g = t.gradient(y, a)
    assert g.indices.numpy().tolist() == [1, 1] and g.values.numpy().tolist() == [[1., 1.]] * 2


def test_concat_splits_sparse_gradient_in_a_graph():
    # The graph path of the split (a regression: it imported gather from a module
    # without it, an ImportError in every tf.function). TensorFlow 2.21 gives the same.
    a = tf.Variable([[1., 2.], [3., 4.]])
    b = tf.Variable([[5., 6.]])

    @tf.function
    def f():
        with tf.GradientTape() as t:
            y = tf.gather(tf.concat([a, b], 0), [0, 2, 2])
        ga, gb = t.gradient(y, [a, b])
        return ga.indices, ga.values, gb.indices, gb.values, tf.convert_to_tensor(gb)

    ia, va, ib, vb, dense_b = f()
    assert ia.numpy().tolist() == [0] and va.numpy().tolist() == [[1., 1.]]
    assert ib.numpy().tolist() == [0, 0] and vb.numpy().tolist() == [[1., 1.], [1., 1.]]
    assert dense_b.numpy().tolist() == [[2., 2.]]


def test_persistent_tape_inside_its_context():
    a = tf.Variable([[1., 2.], [3., 4.]])
    with tf.GradientTape(persistent=True) as t:
        y = tf.reduce_sum(tf.gather(a, [1, 1]) ** 2)
        g = t.gradient(y, a)
    assert g.indices.numpy().tolist() == [1, 1]
    assert g.values.numpy().tolist() == [[6., 8.], [6., 8.]]


# TensorFlow's order of the concatenated rows (its tape's order), eagerly and
# in a tf.function.
_W = tf.Variable(tf.reshape(tf.range(20, dtype=tf.float32), [5, 4]))


def _order1():
    a = tf.gather(_W, [0, 1])
    b = tf.gather(_W, [2])
    c = tf.gather(_W, [3, 4, 3])
    return tf.reduce_sum(a * 2.0) + tf.reduce_sum(tf.exp(b * 0.01) ** 2) + tf.reduce_mean(c)


def _order2():
    e = tf.nn.embedding_lookup(_W, [[1, 2], [3, 1]])
    return tf.reduce_sum(tf.tanh(tf.reduce_sum(e, axis=1))) + tf.reduce_sum(tf.gather(_W, [4]))


def _order3():
    x, y, z = tf.gather(_W, [0]), tf.gather(_W, [1]), tf.gather(_W, [2])
    return tf.reduce_sum(x + y) * tf.reduce_sum(z) + tf.reduce_sum(tf.gather(_W, [3]))


def _order4():
    return [tf.gather(_W, [0]), tf.gather(_W, [1]) * 2.0, tf.gather(_W, [2])]


@pytest.mark.parametrize("f,indices,first_values", [
    (_order1, [3, 4, 3, 0, 1, 2], [0.0833] * 4),
    (_order2, [4, 1, 2, 3, 1], [1.0] * 4),
    (_order3, [3, 2, 0, 1], [1.0] * 4),
    (_order4, [2, 0, 1], [1.0] * 4),
])
@pytest.mark.parametrize("in_function", [False, True])
def test_rows_in_tensorflow_order(f, indices, first_values, in_function):
    def step():
        with tf.GradientTape() as t:
            y = f()
        return t.gradient(y, _W)
    g = tf.function(step)() if in_function else step()
    assert g.indices.numpy().tolist() == indices
    np.testing.assert_allclose(g.values.numpy()[0], first_values, rtol=1e-3)


# --- tf.function ----------------------------------------------------------------

def test_gradient_in_function_and_returned():
    v = _var()
    seen = {}

    @tf.function
    def f(ids):
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.gather(v, ids))
        g = t.gradient(y, v)
        seen["g"] = g
        seen["dense"] = tf.convert_to_tensor(g)
        return g

    r = f(tf.constant([1, 3, 1]))
    g = seen["g"]
    assert isinstance(g, tf.IndexedSlices) and isinstance(g.values, tf.Tensor)
    assert g.shape == tf.TensorShape([4, 3]) and g.values.shape == (3, 3)
    assert g.op is g.values.op and g.graph is g.values.graph and g.name == g.values.name
    assert seen["dense"].shape == (4, 3)
    assert isinstance(r, tf.IndexedSlices)
    assert _summary(r) == ("IS", (3, 3), [1, 3, 1], "int32", [4, 3], "int32")
    cf = f.get_concrete_function(tf.constant([1, 3, 1]))
    assert [t.name for t in cf.outputs] == ["Identity:0", "Identity_1:0", "Identity_2:0"]


def test_densify_in_graph_of_unknown_shape():
    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.gather(x, [0, 0]))
        g = t.gradient(y, x)
        assert g.shape.as_list() == [None, 2]
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # TensorFlow 2.21 does not warn here
            d = tf.convert_to_tensor(g)
        assert d.shape.as_list() == [None, 2]
        return d

    np.testing.assert_array_equal(f(tf.ones([3, 2])).numpy(), [[2, 2], [0, 0], [0, 0]])


def test_gradient_through_function_calls():
    v = tf.Variable(tf.reshape(tf.range(8, dtype=tf.float32), [4, 2]))

    @tf.function
    def inner(ids):
        return tf.reduce_sum(tf.gather(v, ids) ** 2)

    @tf.function
    def outer(ids):
        with tf.GradientTape() as t:
            y = inner(ids)
        return t.gradient(y, v)

    g = outer(tf.constant([1, 3]))
    assert g.indices.numpy().tolist() == [1, 3]
    assert g.values.numpy().tolist() == [[4., 6.], [12., 14.]]
    with tf.GradientTape() as t:
        y = inner(tf.constant([0, 0]))
    g = t.gradient(y, v)
    assert g.indices.numpy().tolist() == [0, 0]
    assert g.values.numpy().tolist() == [[0., 2.], [0., 2.]]
    x = tf.ones([5, 2])

    @tf.function
    def on_tensor(x, ids):
        return tf.reduce_sum(tf.gather(x, ids) ** 2)

    with tf.GradientTape() as t:
        t.watch(x)
        y = on_tensor(x, tf.constant([1, 3, 1]))
    assert _summary(t.gradient(y, x)) == ("IS", (3, 2), [1, 3, 1], "int32", [5, 2], "int32")


# --- consumers ------------------------------------------------------------------

def _slices():
    return tf.IndexedSlices(tf.constant([[1., 2.]]), tf.constant([0]), tf.constant([3, 2]))


def test_ops_on_indexed_slices():
    s = _slices()
    assert isinstance(tf.identity(s), tf.IndexedSlices)
    c = tf.cast(s, tf.float64)
    assert isinstance(c, tf.IndexedSlices) and c.values.dtype is tf.float64
    assert float(tf.reduce_sum(s)) == 3.0
    np.testing.assert_array_equal(tf.add_n([s, s]).numpy(), [[2, 4], [0, 0], [0, 0]])
    one = tf.add_n([s])
    assert isinstance(one, tf.Tensor) and one.shape == (3, 2)
    np.testing.assert_array_equal(tf.math.add_n([s, tf.ones([3, 2])]).numpy(),
                                  [[2, 3], [1, 1], [1, 1]])
    dup = tf.IndexedSlices(tf.constant([[1., 1.], [2., 2.]]), tf.constant([1, 1]),
                           tf.constant([3, 2]))
    np.testing.assert_array_equal(tf.convert_to_tensor(dup).numpy(), [[0, 0], [3, 3], [0, 0]])


def test_clipping():
    s = _slices()
    c = tf.clip_by_norm(s, 1.0)
    assert isinstance(c, tf.IndexedSlices)
    np.testing.assert_allclose(c.values.numpy(), [[0.4472136, 0.8944272]], rtol=1e-6)
    np.testing.assert_allclose(float(tf.linalg.global_norm([s, tf.ones([2])])), 2.6457512,
                               rtol=1e-6)
    (cs, ct), norm = tf.clip_by_global_norm([s, tf.ones([2])], 1.0)
    assert isinstance(cs, tf.IndexedSlices) and cs.indices is s.indices
    np.testing.assert_allclose(ct.numpy(), [0.3779645, 0.3779645], rtol=1e-6)
    np.testing.assert_allclose(float(norm), 2.6457512, rtol=1e-6)
    # Repeated rows count separately, as TensorFlow's norm of the values does.
    dup = tf.IndexedSlices(tf.constant([[3.], [4.]]), tf.constant([0, 0]), tf.constant([1, 1]))
    assert float(tf.linalg.global_norm([dup])) == 5.0


def test_assign_densifies():
    s = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([1, 1]), tf.constant([4, 3]))
    v = _var()
    v.assign_sub(s)
    assert v.numpy()[1].tolist() == [1., 2., 3.]
    v = _var()
    v.assign_add(s)
    assert v.numpy()[1].tolist() == [5., 6., 7.]
    v = _var()
    v.assign(s)
    assert v.numpy().tolist() == [[0.] * 3, [2.] * 3, [0.] * 3, [0.] * 3]


_ROWS = tf.IndexedSlices(tf.constant([[5., 5., 5.], [7., 7., 7.]]), tf.constant([1, 1]))


@pytest.mark.parametrize("method,row", [
    ("scatter_sub", [-9.0, -8.0, -7.0]),
    ("scatter_add", [15.0, 16.0, 17.0]),
    ("scatter_update", [7.0, 7.0, 7.0]),
    ("scatter_max", [7.0, 7.0, 7.0]),
    ("scatter_min", [3.0, 4.0, 5.0]),
    ("scatter_mul", [105.0, 140.0, 175.0]),
    ("scatter_div", [3 / 35, 4 / 35, 5 / 35]),
])
def test_scatter_methods(method, row):
    v = _var()
    r = getattr(v, method)(_ROWS)
    np.testing.assert_allclose(v.numpy()[1], row, rtol=1e-6)
    assert v.numpy()[[0, 2, 3]].tolist() == [[0, 1, 2], [6, 7, 8], [9, 10, 11]]
    assert repr(r).startswith("<tf.Variable 'UnreadVariable' shape=(4, 3) dtype=float32, numpy=")


def test_scatter_argument_forms():
    v = _var()
    v.scatter_add(tf.IndexedSlices(tf.ones([1, 2, 3]), tf.constant([[1, 2]])))
    assert v.numpy()[1:3].tolist() == [[4, 5, 6], [7, 8, 9]]
    v = _var()
    v.scatter_add(tf.IndexedSlices(tf.constant(1.), tf.constant([2, 3])))   # broadcast
    assert v.numpy()[2:].tolist() == [[7, 8, 9], [10, 11, 12]]
    v = _var()
    v.scatter_add(tf.IndexedSlices(tf.ones([3]), tf.constant(2)))
    v.scatter_add(tf.IndexedSlices(tf.ones([1, 3]), tf.constant([2], tf.int64)))
    v.scatter_add(tf.IndexedSlices([[1., 1., 1.]], [2]))
    assert v.numpy()[2].tolist() == [9, 10, 11]
    v.scatter_add(tf.IndexedSlices(tf.ones([0, 3]), tf.constant([], tf.int32)))
    assert v.numpy()[2].tolist() == [9, 10, 11]
    vi = tf.Variable([[1, 2], [3, 4]])
    vi.scatter_div(tf.IndexedSlices(tf.constant([[2, 3]]), tf.constant([1])))
    assert vi.numpy().tolist() == [[1, 2], [1, 1]]
    vb = tf.Variable([True, False])
    vb.scatter_update(tf.IndexedSlices(tf.constant([True]), tf.constant([1])))
    assert vb.numpy().tolist() == [True, True]
    vs = tf.Variable(["a", "b"])
    vs.scatter_update(tf.IndexedSlices(tf.constant(["z"]), tf.constant([1])))
    assert vs.numpy().tolist() == [b"a", b"z"]


def test_scatter_errors():
    v = _var()
    for bad in (tf.ones([4, 3]), [1.0], None):
        with pytest.raises(TypeError, match=r"^Argument `sparse_delta` must be a "
                                            r"`tf.IndexedSlices`. Received arg: "):
            v.scatter_sub(bad)
    with pytest.raises(TypeError, match=r"Received arg: \[1. 1. 1.\]$"):
        v.batch_scatter_update(tf.ones([3]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[0\] = 7 is not in \[0, 4\) \[Op:ResourceScatterSub\]$"):
        v.scatter_sub(tf.IndexedSlices(tf.ones([1, 3]), tf.constant([7])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[0\] = -1 is not in \[0, 4\)"):
        v.scatter_sub(tf.IndexedSlices(tf.ones([1, 3]), tf.constant([-1])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^The shape of indices \(\[1\]\) must be a prefix of the shape of "
                             r"updates \(\[2,3\]\) \[Op:ResourceScatterSub\]$"):
        v.scatter_sub(tf.IndexedSlices(tf.ones([2, 3]), tf.constant([1])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Must have updates.shape = indices.shape \+ params.shape\[1:\] or "
                             r"updates.shape = \[\], got updates.shape \[1,3,1\], indices.shape "
                             r"\[1\], params.shape \[4,3\] \[Op:ResourceScatterSub\]$"):
        v.scatter_sub(tf.IndexedSlices(tf.ones([1, 3, 1]), tf.constant([1])))
    with pytest.raises(ValueError, match="^Tensor conversion requested dtype float32 for "
                                         "Tensor with dtype int32"):
        v.scatter_sub(tf.IndexedSlices(tf.constant([[5, 5, 5]]), tf.constant([1])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^Value for attr 'Tindices' of float is not in the list"):
        v.scatter_sub(tf.IndexedSlices(tf.ones([1, 3]), tf.constant([1.])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^updates must not contain 0 \[Op:ResourceScatterDiv\]$"):
        v.scatter_div(tf.IndexedSlices(tf.zeros([1, 3]), tf.constant([2])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^Value for attr 'dtype' of bool is not in the list"):
        tf.Variable([True]).scatter_add(tf.IndexedSlices(tf.constant([True]), tf.constant([0])))
    assert v.numpy().tolist() == _var().numpy().tolist()   # nothing changed


def test_scatter_keeps_earlier_reads():
    v = tf.Variable(np.zeros((5, 2), np.float32))
    s = tf.IndexedSlices(tf.ones([1, 2]), tf.constant([1]))
    r = v.read_value()
    a = v.numpy()
    v.scatter_add(s)
    v.scatter_add(s)
    assert r.numpy()[1].tolist() == [0, 0] and a[1].tolist() == [0, 0]
    assert v.numpy()[1].tolist() == [2, 2]

    @tf.function
    def f():
        before = v.read_value()
        v.scatter_add(s)
        return before, v.read_value()

    before, after = f()
    assert before.numpy()[1].tolist() == [2, 2] and after.numpy()[1].tolist() == [3, 3]


def test_scatter_in_function():
    v = _var()

    @tf.function
    def bad_index():
        return v.scatter_sub(tf.IndexedSlices(tf.ones([1, 3]), tf.constant([7])))

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 7 is not in"):
        bad_index()

    @tf.function
    def bad_shape():
        return v.scatter_sub(tf.IndexedSlices(tf.ones([2, 3]), tf.constant([1])))

    # In TensorFlow's "in user code:" message (a shape error while tracing).
    with pytest.raises(ValueError, match="(?m)^    ValueError: Dimension 0 in both shapes must "
                                         r"be equal, but are 2 and 1. Shapes are \[2,3\] and "
                                         r"\[1,3\]."):
        bad_shape()

    @tf.function
    def ok(x):
        return v.scatter_sub(tf.IndexedSlices(x, tf.constant([1])))

    ok(tf.ones([1, 3]))
    assert v.numpy()[1].tolist() == [2, 3, 4]


def test_batch_scatter_update_and_v1():
    v = _var()
    v.batch_scatter_update(tf.IndexedSlices(tf.constant([[5., 5., 5.]]), tf.constant([1])))
    assert v.numpy()[1].tolist() == [5, 5, 5]
    v3 = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [2, 2, 3]))
    v3.batch_scatter_update(tf.IndexedSlices(tf.constant([[[9., 9., 9.]], [[8., 8., 8.]]]),
                                             tf.constant([[1], [0]])))
    assert v3.numpy().tolist() == [[[0, 1, 2], [9, 9, 9]], [[8, 8, 8], [9, 10, 11]]]
    v = _var()
    tf.compat.v1.scatter_sub(v, [1, 2], tf.ones([2, 3]))
    assert v.numpy()[1:3].tolist() == [[2, 3, 4], [5, 6, 7]]
    v = _var()
    tf.compat.v1.scatter_update(v, [1, 2], tf.ones([2, 3]))
    tf.compat.v1.scatter_nd_update(v, [[3]], tf.ones([1, 3]))
    assert v.numpy()[1:].tolist() == [[1, 1, 1]] * 3
    v = _var()
    tf.compat.v1.batch_scatter_update(v, [[1], [2], [0], [0]], tf.ones([4, 1]))
    assert v.numpy().tolist() == [[0, 1, 2], [3, 4, 1], [1, 7, 8], [1, 10, 11]]


@pytest.mark.parametrize("in_function", [False, True])
def test_sparse_sgd_matches_dense(in_function):
    rng = np.random.default_rng(0)
    init = rng.standard_normal((50, 4)).astype(np.float32)
    ids = tf.constant(rng.integers(0, 50, 16).astype(np.int32))
    sparse_v, dense_v = tf.Variable(init), tf.Variable(init)

    def step():
        for v, sparse in ((sparse_v, True), (dense_v, False)):
            with tf.GradientTape() as t:
                loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(v, ids)))
            g = t.gradient(loss, v)
            if sparse:
                v.scatter_sub(tf.IndexedSlices(0.1 * g.values, g.indices, g.dense_shape))
            else:
                v.assign_sub(0.1 * tf.convert_to_tensor(g))

    run = tf.function(step) if in_function else step
    for _ in range(3):
        run()
    np.testing.assert_allclose(sparse_v.numpy(), dense_v.numpy(), rtol=1e-6)
    assert not np.allclose(sparse_v.numpy(), init)


def test_cond_casts_mismatched_indexed_slices_indices_to_int64():
    # TensorFlow 2.21's tf.cond: int32 indices in one branch and int64 in the
    # other give int64 indices from both (Keras' sparse optimizer helpers rely
    # on it).
    @tf.function
    def f(p):
        a = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 2], tf.int32), tf.constant([4, 3]))
        b = tf.IndexedSlices(tf.zeros([1, 3]), tf.constant([1], tf.int64), tf.constant([4, 3]))
        r = tf.cond(p, lambda: a, lambda: b)
        return r.values, r.indices, r.dense_shape
    for p, rows, idx in ((True, [[1.0] * 3] * 2, [0, 2]), (False, [[0.0] * 3], [1])):
        v, i, d = f(tf.constant(p))
        assert v.numpy().tolist() == rows and i.numpy().tolist() == idx
        assert i.dtype == tf.int64 and d.dtype == tf.int32


def test_gather_nd_with_one_index_component_has_a_sparse_gradient():
    # As TensorFlow 2.21 (values recorded there): indices of shape [N, 1] give
    # IndexedSlices whose dense_shape has the indices' dtype; others stay dense.
    p = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather_nd(p, [[2], [0], [2]]) * w)
    g = tape.gradient(y, p)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [2, 0, 2])
    np.testing.assert_array_equal(g.values.numpy(), w.numpy())
    assert g.dense_shape.dtype == tf.int32 and list(g.dense_shape.numpy()) == [3, 2]

    @tf.function
    def f():
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather_nd(p, tf.constant([[2], [0]], tf.int64)) * w[:2])
        g = tape.gradient(y, p)
        return tf.convert_to_tensor(g), g.dense_shape
    dense, shape = f()
    np.testing.assert_array_equal(dense.numpy(), [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]])
    assert shape.dtype == tf.int64
    p2 = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(p2)
        y = tf.reduce_sum(tf.gather_nd(p2, [[[1]]]))
    assert not isinstance(tape.gradient(y, p2), tf.IndexedSlices)
