"""tf.sparse.SparseTensor and tf.sparse ops: values, printed forms and errors
as TensorFlow 2.21 gives them (hard-coded), eagerly, in tf.function, and
their gradients."""
import numpy as np
import pytest

import rillflow as tf


def _st(indices, values, shape):
    return tf.SparseTensor(indices, values, shape)


def _parts(sp):
    return sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist()


def test_class_components_and_print():
    sp = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    assert tf.sparse.SparseTensor is tf.SparseTensor
    assert (sp.indices.dtype, sp.values.dtype, sp.dense_shape.dtype, sp.dtype) == \
        (tf.int64, tf.int32, tf.int64, tf.int32)
    assert repr(sp.shape) == "TensorShape([3, 4])" and sp.get_shape() == sp.shape
    text = ("SparseTensor(indices=tf.Tensor(\n[[0 0]\n [1 2]], shape=(2, 2), dtype=int64), "
            "values=tf.Tensor([1 2], shape=(2,), dtype=int32), dense_shape=tf.Tensor([3 4], "
            "shape=(2,), dtype=int64))")
    assert str(sp) == text and repr(sp) == text
    assert tf.is_tensor(sp) and not isinstance(sp, tf.Tensor)
    assert _parts(sp.with_values(sp.values * 10)) == ([[0, 0], [1, 2]], [10, 20], [3, 4])


def test_constructor_errors():
    cases = [(([[0, 0]], [1, 2], [3, 4]), ValueError, "Dimensions 1 and 2 are not compatible"),
             (([0, 0], [1], [3, 4]), ValueError, "Shape (2,) must have rank 2"),
             (([[0.5, 0]], [1], [3, 4]), TypeError,
              "Cannot convert [[0.5, 0]] to EagerTensor of dtype int64"),
             (([[0, 0]], [[1]], [3, 4]), ValueError, "Shape (1, 1) must have rank 1"),
             (([[0, 0, 0]], [1], [3, 4]), ValueError, "Dimensions 3 and 2 are not compatible")]
    for args, cls, msg in cases:
        with pytest.raises(cls) as e:
            tf.SparseTensor(*args)
        assert str(e.value) == msg


def test_spec():
    s = tf.SparseTensorSpec([3, None], tf.float32)
    assert repr(s) == "SparseTensorSpec(TensorShape([3, None]), tf.float32)"
    assert repr(tf.SparseTensorSpec()) == "SparseTensorSpec(TensorShape(None), tf.float32)"
    assert s.shape.as_list() == [3, None] and s.dtype == tf.float32
    assert s.value_type is tf.SparseTensor
    assert s.is_compatible_with(_st([[0, 0]], [1.], [3, 4]))
    assert not s.is_compatible_with(_st([[0, 0]], [1], [3, 4]))
    assert not s.is_compatible_with(_st([[0, 0]], [1.], [2, 4]))
    assert s == tf.SparseTensorSpec([3, None], tf.float32)
    assert hash(s) == hash(tf.SparseTensorSpec([3, None], tf.float32))
    assert s != tf.SparseTensorSpec([3, 4], tf.float32)
    sp = _st([[0, 0], [1, 2]], [1, 2], [3, 4])
    assert repr(sp._type_spec) == "SparseTensorSpec(TensorShape([3, 4]), tf.int32)"


def test_nest_expand_composites():
    sp = _st([[0, 0], [1, 2]], [1, 2], [3, 4])
    flat = tf.nest.flatten(sp, expand_composites=True)
    assert [t.numpy().tolist() for t in flat] == [[[0, 0], [1, 2]], [1, 2], [3, 4]]
    assert tf.nest.flatten(sp)[0] is sp
    back = tf.nest.pack_sequence_as(sp, [flat[0], flat[1] * 2, flat[2]], expand_composites=True)
    assert isinstance(back, tf.SparseTensor) and _parts(back)[1] == [2, 4]


def test_from_dense_and_to_dense():
    f = tf.sparse.from_dense(tf.constant([[1, 0, 0], [0, 0, 2.5]]))
    assert _parts(f) == ([[0, 0], [1, 2]], [1.0, 2.5], [2, 3])
    assert str(tf.sparse.from_dense(tf.constant(["a", ""]))) == (
        "SparseTensor(indices=tf.Tensor([[0]], shape=(1, 1), dtype=int64), values=tf.Tensor("
        "[b'a'], shape=(1,), dtype=string), dense_shape=tf.Tensor([2], shape=(1,), "
        "dtype=int64))")
    sp = _st([[0, 0], [1, 2]], [1, 2], [3, 4])
    assert str(tf.sparse.to_dense(sp, default_value=-1)) == (
        "tf.Tensor(\n[[ 1 -1 -1 -1]\n [-1 -1  2 -1]\n [-1 -1 -1 -1]], shape=(3, 4), "
        "dtype=int32)")
    assert tf.sparse.to_dense(sp).numpy().tolist() == [[1, 0, 0, 0], [0, 0, 2, 0],
                                                       [0, 0, 0, 0]]
    unordered = _st([[1, 0], [0, 0]], [1, 2], [3, 4])
    assert tf.sparse.to_dense(unordered, validate_indices=False).numpy()[:2, 0].tolist() == \
        [2, 1]


@pytest.mark.parametrize("sp,msg", [
    (([[5, 0]], [1], [3, 4]), "indices[0] = [5,0] is out of bounds: need 0 <= index < [3,4] "
                              "[Op:SparseToDense]"),
    (([[1, 0], [0, 0]], [1, 2], [3, 4]),
     "indices[1] = [0,0] is out of order. Many sparse ops require sorted indices.\n    Use "
     "`tf.sparse.reorder` to create a correctly ordered copy.\n\n [Op:SparseToDense]"),
    (([[1, 0], [1, 0]], [1, 2], [3, 4]), "indices[1] = [1,0] is repeated [Op:SparseToDense]"),
    (([[-1, 0]], [1], [3, 4]), "indices[0] = [-1,0] is out of bounds: need 0 <= index < [3,4] "
                               "[Op:SparseToDense]"),
])
def test_to_dense_validation(sp, msg):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.to_dense(_st(*sp))
    assert str(e.value) == msg


def test_conversion_errors():
    sp = _st([[0, 0]], [1], [3, 4])
    with pytest.raises(ValueError, match=r"^Attempt to convert a value \(SparseTensor\(indices="):
        tf.convert_to_tensor(sp)
    with pytest.raises(TypeError, match="^Input must be a SparseTensor.$"):
        tf.sparse.to_dense([1, 2])


def test_reorder_reshape():
    sp = _st([[1, 2], [0, 0], [2, 1]], [3., 1., 2.], [3, 4])
    r = tf.sparse.reorder(sp)
    assert _parts(r) == ([[0, 0], [1, 2], [2, 1]], [1., 3., 2.], [3, 4])
    assert _parts(tf.sparse.reshape(r, [4, 3])) == ([[0, 0], [2, 0], [3, 0]], [1., 3., 2.],
                                                    [4, 3])
    assert _parts(tf.sparse.reshape(r, [-1, 2])) == ([[0, 0], [3, 0], [4, 1]], [1., 3., 2.],
                                                     [6, 2])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.reshape(r, [5, 5])
    assert str(e.value) == ("Input to reshape is a tensor with 12 dense values, but the "
                            "requested shape has 25. input_shape=[3,4] output_shape=[5,5] "
                            "[Op:SparseReshape]")


def test_add():
    a = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    b = _st([[0, 0], [2, 3]], [10., 20.], [3, 4])
    assert _parts(tf.sparse.add(a, b)) == ([[0, 0], [1, 2], [2, 3]], [11., 2., 20.], [3, 4])
    dense = [[2., 1., 1., 1.], [1., 1., 3., 1.], [1., 1., 1., 1.]]
    assert tf.sparse.add(a, tf.ones([3, 4])).numpy().tolist() == dense
    assert tf.sparse.add(tf.ones([3, 4]), a).numpy().tolist() == dense
    neg = _st([[0, 0]], [-1.], [3, 4])
    assert _parts(tf.sparse.add(a, neg)) == ([[0, 0], [1, 2]], [0., 2.], [3, 4])
    assert _parts(tf.sparse.add(a, neg, threshold=0.5)) == ([[1, 2]], [2.], [3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.add(_st([[0, 0]], [1.], [3, 4]), _st([[0, 0]], [1.], [3, 5]))
    assert str(e.value) == ("Operands' shapes do not match: got 4 and 5 for dimension 1 "
                            "[Op:SparseAdd]")


def test_reduce_sum():
    a = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    assert str(tf.sparse.reduce_sum(a)) == "tf.Tensor(3.0, shape=(), dtype=float32)"
    assert tf.sparse.reduce_sum(a, axis=0).numpy().tolist() == [1., 0., 2., 0.]
    assert str(tf.sparse.reduce_sum(a, axis=1, keepdims=True)) == (
        "tf.Tensor(\n[[1.]\n [2.]\n [0.]], shape=(3, 1), dtype=float32)")
    assert tf.sparse.reduce_sum(a, axis=-1).numpy().tolist() == [1., 2., 0.]
    assert _parts(tf.sparse.reduce_sum(a, axis=1, output_is_sparse=True)) == \
        ([[0], [1]], [1., 2.], [3])
    assert str(tf.sparse.reduce_sum(a, output_is_sparse=True)) == (
        "SparseTensor(indices=tf.Tensor([], shape=(1, 0), dtype=int64), values=tf.Tensor([3.], "
        "shape=(1,), dtype=float32), dense_shape=tf.Tensor([], shape=(0,), dtype=int64))")


def test_sparse_dense_matmul():
    a = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    m = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
    assert tf.sparse.sparse_dense_matmul(a, m).numpy().tolist() == [[1., 2.], [10., 12.],
                                                                    [0., 0.]]
    assert tf.sparse.sparse_dense_matmul(a, tf.ones([3, 2]), adjoint_a=True).numpy().tolist() \
        == [[1., 1.], [0., 0.], [2., 2.], [0., 0.]]
    assert tf.sparse.sparse_dense_matmul(a, tf.ones([2, 4]), adjoint_b=True).numpy().tolist() \
        == [[1., 1.], [2., 2.], [0., 0.]]
    assert tf.sparse.sparse_dense_matmul(tf.ones([2, 3]), a).numpy().tolist() == \
        [[1., 0., 2., 0.], [1., 0., 2., 0.]]
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.sparse_dense_matmul(a, tf.ones([3, 2]))
    assert str(e.value) == ("Cannot multiply A and B because inner dimension does not match: "
                            "4 vs. 3.  Did you forget a transpose?  Dimensions of A: [3, 4).  "
                            "Dimensions of B: [3,2] [Op:SparseTensorDenseMatMul]")


def test_retain_slice_concat_transpose():
    a = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    b = _st([[0, 0], [2, 3]], [10., 20.], [3, 4])
    assert _parts(tf.sparse.retain(a, [True, False])) == ([[0, 0]], [1.], [3, 4])
    assert _parts(tf.sparse.slice(a, [0, 1], [2, 3])) == ([[1, 1]], [2.], [2, 3])
    assert _parts(tf.sparse.slice(a, [1, 0], [5, 5])) == ([[0, 2]], [2.], [2, 4])
    assert _parts(tf.sparse.concat(0, [a, b])) == ([[0, 0], [1, 2], [3, 0], [5, 3]],
                                                   [1., 2., 10., 20.], [6, 4])
    assert _parts(tf.sparse.concat(1, [a, b])) == ([[0, 0], [0, 4], [1, 2], [2, 7]],
                                                   [1., 10., 2., 20.], [3, 8])
    c = _st([[0, 0]], [5.], [3, 2])
    assert _parts(tf.sparse.concat(1, [a, c], expand_nonconcat_dims=True)) == \
        ([[0, 0], [0, 4], [1, 2]], [1., 5., 2.], [3, 6])
    assert _parts(tf.sparse.transpose(a)) == ([[0, 0], [2, 1]], [1., 2.], [4, 3])
    assert _parts(tf.sparse.transpose(a, [1, 0])) == ([[0, 0], [2, 1]], [1., 2.], [4, 3])


def test_to_indicator_fill_empty_rows():
    ids = _st([[0, 0], [0, 1], [1, 0]], [0, 3, 2], [2, 2])
    assert tf.sparse.to_indicator(ids, 4).numpy().tolist() == [[True, False, False, True],
                                                               [False, False, True, False]]
    a = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    filled, empty = tf.sparse.fill_empty_rows(a, -1.)
    assert _parts(filled) == ([[0, 0], [1, 2], [2, 0]], [1., 2., -1.], [3, 4])
    assert empty.numpy().tolist() == [False, False, True]


def test_gradients():
    idx = tf.constant([[0, 0], [1, 2], [2, 1]], tf.int64)
    v = tf.constant([1., 2., 3.])
    m = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
    with tf.GradientTape(persistent=True) as t:
        t.watch(v)
        t.watch(m)
        sp = tf.SparseTensor(idx, v, [3, 4])
        l1 = tf.reduce_sum(tf.sparse.to_dense(sp) * tf.reshape(tf.range(12.), [3, 4]))
        mm = tf.sparse.sparse_dense_matmul(sp, m)
        l2 = tf.reduce_sum(mm * mm)
        mt = tf.sparse.sparse_dense_matmul(sp, tf.transpose(m[:3]), adjoint_a=True,
                                           adjoint_b=True)
        l2b = tf.reduce_sum(mt * mt)
        l3 = tf.reduce_sum(tf.sparse.reduce_sum(sp, axis=1) * [1., 2., 3.])
        ad = tf.sparse.add(sp, tf.SparseTensor([[0, 0], [2, 3]], v[:2] * 2, [3, 4]))
        l4 = tf.reduce_sum(ad.values * tf.range(4.))
        ad2 = tf.sparse.add(sp, tf.ones([3, 4]))
        l5 = tf.reduce_sum(ad2 * ad2)
        ro = tf.sparse.reorder(tf.SparseTensor([[2, 1], [0, 0], [1, 2]], v, [3, 4]))
        l6 = tf.reduce_sum(ro.values * [1., 10., 100.])
    g = lambda l: [None if x is None else x.numpy().tolist() for x in t.gradient(l, [v, m])]
    assert g(l1) == [[0., 6., 9.], None]
    assert g(l2) == [[10., 244., 150.], [[2., 4.], [54., 72.], [40., 48.], [0., 0.]]]
    assert g(l2b) == [[10., 100., 366.], [[2., 4.], [24., 32.], [90., 108.], [0., 0.]]]
    assert g(l3) == [[1., 2., 3.], None]
    assert g(l4) == [[0., 7., 2.], None]
    assert g(l5) == [[4., 6., 8.], None]
    assert g(l6) == [[100., 1., 10.], None]


def test_function_arguments_and_retracing():
    traces = []

    @tf.function
    def f(sp):
        traces.append((str(sp), sp.shape.as_list()))
        return tf.sparse.to_dense(sp)

    a = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    assert f(a).numpy().tolist() == [[1., 0., 0., 0.], [0., 0., 2., 0.], [0., 0., 0., 0.]]
    assert traces[0] == ('SparseTensor(indices=Tensor("sp:0", shape=(None, 2), dtype=int64), '
                         'values=Tensor("sp_1:0", shape=(None,), dtype=float32), dense_shape='
                         'Tensor("sp_2:0", shape=(2,), dtype=int64))', [3, 4])
    f(_st([[0, 0]], [5.], [3, 4]))
    assert len(traces) == 1            # same spec: no retrace (nnz is not part of it)
    f(_st([[0, 0]], [5.], [2, 4]))
    assert len(traces) == 2            # the dense shape is
    f(_st([[0, 0]], [5], [2, 4]))
    assert len(traces) == 3            # and the dtype
    cf = f.get_concrete_function(tf.SparseTensorSpec([None, 4], tf.float32))
    assert traces[-1][1] == [None, 4]
    assert repr(cf.structured_input_signature) == \
        "((SparseTensorSpec(TensorShape([None, 4]), tf.float32),), {})"
    assert [t.name for t in cf.inputs] == ["sp:0", "sp_1:0", "sp_2:0"]


def test_function_returns_sparse_and_graph_attributes():
    seen = {}

    @tf.function
    def g(x):
        s = tf.sparse.from_dense(x)
        seen["shape"] = (s.shape.as_list(), s.indices.shape.as_list())
        seen["op"] = (s.op.name, s.op.type, s.graph is not None)
        seen["reshape"] = tf.sparse.reshape(tf.sparse.reorder(s), [-1]).shape.as_list()
        return s

    out = g(tf.constant([[1., 0.], [0., 3.]]))
    assert isinstance(out, tf.SparseTensor)
    assert _parts(out) == ([[0, 0], [1, 1]], [1., 3.], [2, 2])
    assert seen == {"shape": ([2, 2], [None, 2]), "op": ("dense_to_sparse/GatherNd", "GatherNd",
                                                         True), "reshape": [4]}
    cf = g.get_concrete_function(tf.TensorSpec([None, 2]))
    assert seen["reshape"] == [None]
    assert [t.shape.as_list() for t in cf.outputs] == [[None, 2], [None], [2]]


def test_input_signature_and_function_gradient():
    @tf.function(input_signature=[tf.SparseTensorSpec([None, 3], tf.int32)])
    def h(sp):
        return tf.sparse.reduce_sum(sp, axis=1)

    assert h(_st([[0, 0], [1, 2]], [1, 2], [2, 3])).numpy().tolist() == [1, 2]
    with pytest.raises(TypeError, match=r"^Binding inputs to tf.function failed due to `Can "
                       r"not cast TensorSpec\(shape=\(2,\), dtype=tf.float32, name=None\) to "
                       r"TensorSpec\(shape=\(None,\), dtype=tf.int32, name=None\)`"):
        h(_st([[0, 0], [1, 2]], [1., 2.], [2, 3]))

    idx = tf.constant([[0, 0], [1, 2], [2, 1]], tf.int64)

    @tf.function
    def grad(v, m):
        with tf.GradientTape() as t:
            t.watch(v)
            loss = tf.reduce_sum(tf.sparse.sparse_dense_matmul(tf.SparseTensor(idx, v, [3, 4]),
                                                               m))
        return t.gradient(loss, v)

    m = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
    assert grad(tf.constant([1., 2., 3.]), m).numpy().tolist() == [3., 11., 7.]


# --- tf.io.VarLenFeature ----------------------------------------------------------------

def _example(**d):
    feats = {}
    for k, v in d.items():
        if isinstance(v[0], float):
            feats[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif isinstance(v[0], int):
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        else:
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
    return tf.train.Example(features=tf.train.Features(feature=feats)).SerializeToString()


_RECS = [_example(a=[1, 2, 3], s=[b"x"], f=[1.5]), _example(f=[2.5]),
         _example(a=[7], s=[b"y", b"z"], f=[0.])]
_SPEC = {"a": tf.io.VarLenFeature(tf.int64), "s": tf.io.VarLenFeature(tf.string),
         "f": tf.io.FixedLenFeature([1], tf.float32)}


def test_parse_example_var_len():
    out = tf.io.parse_example(_RECS, _SPEC)
    assert _parts(out["a"]) == ([[0, 0], [0, 1], [0, 2], [2, 0]], [1, 2, 3, 7], [3, 3])
    assert out["a"].dtype == tf.int64
    assert str(out["s"]) == (
        "SparseTensor(indices=tf.Tensor(\n[[0 0]\n [2 0]\n [2 1]], shape=(3, 2), dtype=int64), "
        "values=tf.Tensor([b'x' b'y' b'z'], shape=(3,), dtype=string), dense_shape=tf.Tensor("
        "[3 2], shape=(2,), dtype=int64))")
    assert out["f"].numpy().tolist() == [[1.5], [2.5], [0.]]
    one = tf.io.parse_single_example(_RECS[0], _SPEC)
    assert _parts(one["a"]) == ([[0], [1], [2]], [1, 2, 3], [3])
    assert str(tf.io.parse_single_example(_RECS[1], _SPEC)["a"]) == (
        "SparseTensor(indices=tf.Tensor([], shape=(0, 1), dtype=int64), values=tf.Tensor([], "
        "shape=(0,), dtype=int64), dense_shape=tf.Tensor([0], shape=(1,), dtype=int64))")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.parse_example(_RECS, {"a": tf.io.VarLenFeature(tf.float32)})
    assert str(e.value) == ("Name: <unknown>, Key: a, Index: 0.  Data types don't match. "
                            "Expected type: float, Actual type: int64 [Op:ParseExampleV2]")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.io.parse_single_example(_RECS[0], {"a": tf.io.VarLenFeature(tf.float32)})
    assert str(e.value) == ("Key: a.  Data types don't match. Expected type: float, Actual "
                            "type: int64 [Op:ParseExampleV2]")


def test_parse_example_var_len_in_function():
    seen = []

    @tf.function
    def g(r):
        o = tf.io.parse_example(r, _SPEC)
        o1 = tf.io.parse_single_example(r[0], _SPEC)
        seen.extend([str(o["a"]), o["a"].shape.as_list(), str(o1["s"]), o1["s"].shape.as_list()])
        return o["a"]

    assert _parts(g(tf.constant(_RECS))) == ([[0, 0], [0, 1], [0, 2], [2, 0]], [1, 2, 3, 7],
                                             [3, 3])
    assert seen == [
        'SparseTensor(indices=Tensor("ParseExample/ParseExampleV2:0", shape=(None, 2), '
        'dtype=int64), values=Tensor("ParseExample/ParseExampleV2:2", shape=(None,), '
        'dtype=int64), dense_shape=Tensor("ParseExample/ParseExampleV2:4", shape=(2,), '
        'dtype=int64))', [None, None],
        'SparseTensor(indices=Tensor("ParseSingleExample/ParseExample/ParseExampleV2:1", '
        'shape=(None, 1), dtype=int64), values=Tensor("ParseSingleExample/ParseExample/'
        'ParseExampleV2:3", shape=(None,), dtype=string), dense_shape=Tensor('
        '"ParseSingleExample/ParseExample/ParseExampleV2:5", shape=(1,), dtype=int64))', [None]]


# --- map_values, expand_dims, eye, reduce_max, maximum, minimum, softmax, split ------------

def test_more_sparse_ops():
    sp = _st([[0, 0], [1, 2]], [1., -2.], [3, 4])
    assert _parts(tf.sparse.map_values(tf.multiply, sp, 3.)) == ([[0, 0], [1, 2]], [3., -6.],
                                                                  [3, 4])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.map_values(tf.add, sp, _st([[0, 0]], [1.], [3, 4]))
    assert str(e.value) == ("Mismatched indices!\nCondition x == y did not hold.\nFirst 3 "
                            "elements of x:\n[0 0 1]\nFirst 2 elements of y:\n[0 0]")
    assert _parts(tf.sparse.expand_dims(sp, 0)) == ([[0, 0, 0], [0, 1, 2]], [1., -2.], [1, 3, 4])
    assert tf.sparse.expand_dims(sp, -1).shape.as_list() == [3, 4, 1]
    assert _parts(tf.sparse.eye(2, 3, dtype=tf.int32)) == ([[0, 0], [1, 1]], [1, 1], [2, 3])
    assert str(tf.sparse.reduce_max(sp, 1)) == \
        "tf.Tensor([ 1. -2.  0.], shape=(3,), dtype=float32)"
    assert str(tf.sparse.reduce_max(sp)) == "tf.Tensor(1.0, shape=(), dtype=float32)"
    other = _st([[0, 0], [1, 1]], [5., -1.], [3, 4])
    assert _parts(tf.sparse.maximum(sp, other)) == ([[0, 0], [1, 1], [1, 2]], [5., 0., 0.],
                                                    [3, 4])
    assert _parts(tf.sparse.minimum(sp, other)) == ([[0, 0], [1, 1], [1, 2]], [1., -1., -2.],
                                                    [3, 4])
    soft = tf.sparse.softmax(_st([[0, 0], [0, 2], [1, 1]], [1., 2., 3.], [2, 3]))
    assert str(soft.values) == \
        "tf.Tensor([0.26894143 0.7310586  1.        ], shape=(3,), dtype=float32)"
    parts = tf.sparse.split(sp_input=sp, num_split=2, axis=1)
    assert [_parts(p) for p in parts] == [([[0, 0]], [1.], [3, 2]), ([[1, 0]], [-2.], [3, 2])]


def test_static_shapes_in_function():
    seen = []

    @tf.function
    def f(sp, x):
        seen.append(tf.sparse.to_dense(sp).shape)
        seen.append(tf.sparse.sparse_dense_matmul(sp, x).shape)
        seen.append(tf.sparse.reduce_sum(sp, axis=1).shape)
        seen.append(tf.sparse.add(sp, sp).shape)
        seen.append(tf.sparse.transpose(sp).shape)
        seen.append(tf.sparse.concat(0, [sp, sp]).shape)
        seen.append(tf.sparse.retain(sp, [True]).shape)
        return 0

    f(_st([[0, 0]], [1.], [3, 4]), tf.ones([4, 2]))
    assert [str(s) for s in seen] == ["(None, None)", "(None, 2)", "<unknown>", "(3, 4)",
                                      "(4, 3)", "(6, 4)", "(None, None)"]


def test_operators_with_dense():
    sp = _st([[0, 0], [1, 2]], [1., -2.], [3, 4])
    assert _parts(sp * 2) == ([[0, 0], [1, 2]], [2., -4.], [3, 4])
    assert _parts(sp / 2.) == ([[0, 0], [1, 2]], [0.5, -1.], [3, 4])
    assert _parts(sp * tf.constant([1., 2., 3., 4.])) == ([[0, 0], [1, 2]], [1., -6.], [3, 4])
    assert str((_st([[0], [1]], [7, 9], [2]) / 2).values) == \
        "tf.Tensor([3.5 4.5], shape=(2,), dtype=float64)"
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \+: "
                                        r"'SparseTensor' and 'int'$"):
        sp + 1
    with pytest.raises(TypeError, match="^bad operand type for unary -: 'SparseTensor'$"):
        -sp


def test_more_gradients():
    v = tf.constant([1., 2., 3.])
    idx = tf.constant([[0, 0], [1, 2], [2, 1]], tf.int64)
    d = tf.reshape(tf.range(1., 13.), [3, 4])
    r = tf.constant([1., 2., 4., 8.])
    weights = lambda out: tf.cast(tf.range(tf.size(out)) + 1, tf.float32)
    with tf.GradientTape(persistent=True) as t:
        t.watch(v)
        t.watch(d)
        t.watch(r)
        s = tf.SparseTensor(idx, v, [3, 4])
        l_mul = tf.reduce_sum((s * d).values * [1., 2., 3.])
        l_div = tf.reduce_sum((s / r).values * [1., 2., 3.])
        sl = tf.sparse.slice(s, [1, 0], [2, 4]).values
        l_slice = tf.reduce_sum(sl * weights(sl))
        fl = tf.sparse.fill_empty_rows(s, 5.)[0].values
        l_fill = tf.reduce_sum(fl * weights(fl))
        tr = tf.sparse.transpose(s).values
        l_tr = tf.reduce_sum(tr * weights(tr))
        cc = tf.sparse.concat(0, [s, s]).values
        l_cc = tf.reduce_sum(cc * weights(cc))
        sm = tf.sparse.softmax(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], v, [2, 2])).values
        l_sm = tf.reduce_sum(sm * [1., 2., 3.])
    as_list = lambda gs: [None if g is None else
                          np.round(g.numpy().astype(np.float64), 6).tolist() for g in gs]
    assert as_list(t.gradient(l_mul, [v, d])) == [
        [1., 14., 30.], [[1., 0., 0., 0.], [0., 0., 4., 0.], [0., 9., 0., 0.]]]
    assert as_list(t.gradient(l_div, [v, r])) == [[1., 0.5, 1.5], [-1., -2.25, -0.25, 0.]]
    assert as_list([t.gradient(l_slice, v)]) == [[0., 1., 2.]]
    assert as_list([t.gradient(l_fill, v)]) == [[1., 2., 3.]]
    assert as_list([t.gradient(l_tr, v)]) == [[1., 3., 2.]]
    assert t.gradient(l_cc, v) is None
    assert as_list([t.gradient(l_sm, v)]) == [[-0.196612, 0.196612, 0.]]


def test_shape_size_rank_cast_identity_cond():
    a = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    b = _st([[2, 3]], [5.], [3, 4])
    assert str(tf.shape(a)) == "tf.Tensor([3 4], shape=(2,), dtype=int32)"
    assert str(tf.rank(a)) == "tf.Tensor(2, shape=(), dtype=int32)"
    assert str(tf.size(a)) == "tf.Tensor(12, shape=(), dtype=int32)"
    assert str(tf.cast(a, tf.int32).values) == "tf.Tensor([1 2], shape=(2,), dtype=int32)"
    assert _parts(tf.identity(a)) == _parts(a)

    @tf.function
    def f(p, a, b):
        r = tf.cond(p, lambda: a, lambda: b)
        assert isinstance(r, tf.SparseTensor) and r.shape.as_list() == [3, 4]
        return r

    assert _parts(f(tf.constant(True), a, b)) == _parts(a)
    assert _parts(f(tf.constant(False), a, b)) == ([[2, 3]], [5.], [3, 4])


def test_reduce_retracing_and_supertype_traces():
    shapes = []

    @tf.function(reduce_retracing=True)
    def f(sp):
        shapes.append(sp.shape.as_list())
        return tf.sparse.reduce_sum(sp)

    for dense_shape in ([3, 4], [2, 4], [5, 4], [5, 7]):
        f(_st([[0, 0]], [1.], dense_shape))
    assert shapes == [[3, 4], [None, 4], [None, None]]

    seen = []

    @tf.function
    def g(sp):
        seen.append(sp.shape.as_list())
        return tf.sparse.reduce_sum(sp)

    cf = g.get_concrete_function(tf.SparseTensorSpec([None, 4], tf.float32))
    assert g(_st([[0, 0]], [2.], [3, 4])).numpy() == 2.0
    assert seen == [[None, 4]]         # the [None, 4] trace serves a [3, 4] argument
    assert str(cf) == (
        "ConcreteFunction Input Parameters:\n  sp (POSITIONAL_OR_KEYWORD): SparseTensorSpec("
        "TensorShape([None, 4]), tf.float32)\nOutput Type:\n  TensorSpec(shape=<unknown>, "
        "dtype=tf.float32, name=None)\nCaptures:\n  None")

    @tf.function
    def h(x):
        return tf.sparse.from_dense(x)

    assert "Output Type:\n  SparseTensorSpec(TensorShape([None, 3]), tf.float32)\n" in \
        str(h.get_concrete_function(tf.TensorSpec([None, 3])))


def test_segment_reductions_and_reset_shape():
    c = tf.constant([[1., 2, 3, 4], [-1, -2, -3, -4], [5, 6, 7, 8]])
    assert str(tf.sparse.segment_sum(c, tf.constant([0, 1]), tf.constant([0, 0]))) == \
        "tf.Tensor([[0. 0. 0. 0.]], shape=(1, 4), dtype=float32)"
    assert tf.sparse.segment_sum(c, tf.constant([0, 1, 2]), tf.constant([0, 1, 1]),
                                 num_segments=4).numpy().tolist() == \
        [[1., 2., 3., 4.], [4., 4., 4., 4.], [0.] * 4, [0.] * 4]
    assert tf.sparse.segment_mean(c, tf.constant([0, 2]), tf.constant([0, 2])).numpy().tolist() \
        == [[1., 2., 3., 4.], [0.] * 4, [5., 6., 7., 8.]]
    assert str(tf.sparse.segment_sqrt_n(c, tf.constant([0, 2]), tf.constant([0, 0]))) == \
        "tf.Tensor([[4.2426405 5.656854  7.071068  8.485281 ]], shape=(1, 4), dtype=float32)"
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sparse.segment_sum(c, tf.constant([0, 5]), tf.constant([0, 0]))
    assert str(e.value) == "Bad: indices[1] == 5 out of range [0, 3) [Op:SparseSegmentSum]"
    with tf.GradientTape() as t:
        t.watch(c)
        y = tf.sparse.segment_mean(c, tf.constant([0, 2, 2]), tf.constant([0, 0, 1]))
    assert t.gradient(y, c).numpy().tolist() == [[0.5] * 4, [0.] * 4, [1.5] * 4]

    sp = _st([[0, 0], [1, 2]], [1., 2.], [3, 4])
    assert _parts(tf.sparse.reset_shape(sp))[2] == [2, 3]
    assert _parts(tf.sparse.reset_shape(sp, [5, 6]))[2] == [5, 6]
    with pytest.raises(ValueError) as e:
        tf.sparse.reset_shape(sp, [1, 6])
    assert str(e.value) == ("Requested new_shape should have dimension sizes >= "
                            "sp_input.shape.  Found new_shape ([3 4]), sp_input.shape ([1 6]).")
    assert tf.compat.v1.sparse_tensor_to_dense(sp).numpy().tolist() == \
        tf.compat.v1.sparse.to_dense(sp).numpy().tolist() == tf.sparse.to_dense(sp).numpy().tolist()
    assert not hasattr(tf.sparse, "SparseTensorSpec") and not hasattr(tf.sparse, "matmul")


def test_empty_and_higher_rank_and_kernel_errors():
    e = tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0]), [3, 4])
    assert str(e) == ("SparseTensor(indices=tf.Tensor([], shape=(0, 2), dtype=int64), values="
                      "tf.Tensor([], shape=(0,), dtype=float32), dense_shape=tf.Tensor([3 4], "
                      "shape=(2,), dtype=int64))")
    assert tf.sparse.to_dense(e).numpy().tolist() == [[0.] * 4] * 3
    assert _parts(tf.sparse.add(e, e)) == ([], [], [3, 4])
    assert tf.sparse.concat(0, [e, e]).dense_shape.numpy().tolist() == [6, 4]
    s = _st([[0], [2]], ["a", "b"], [3])
    assert tf.sparse.to_dense(s, default_value="z").numpy().tolist() == [b"a", b"z", b"b"]
    b = _st([[0, 0, 1], [1, 1, 0]], [1., 2.], [2, 2, 2])
    assert tf.sparse.reduce_sum(b, [0, 2]).numpy().tolist() == [1., 2.]
    assert _parts(tf.sparse.transpose(b, [2, 0, 1])) == ([[0, 1, 1], [1, 0, 0]], [2., 1.],
                                                         [2, 2, 2])
    cases = [
        (lambda: tf.sparse.sparse_dense_matmul(b, tf.ones([2, 2])),
         "Tensor 'a_shape' must have 2 elements [Op:SparseTensorDenseMatMul]"),
        (lambda: tf.sparse.reduce_sum(b, 3),
         "Invalid reduction dimension 3, for input with 3 dimensions. [Op:SparseReduceSum]"),
        (lambda: tf.sparse.concat(0, [e, _st([[0, 0]], [1.], [3, 5])]),
         "Input shapes must match: expected 4 for dimension 1 but got 5 at position 1 "
         "[Op:SparseConcat]"),
        (lambda: tf.sparse.add(e, tf.ones([3, 5])),
         "Dimension 1 does not equal (no broadcasting is supported): sparse side 4 vs dense "
         "side 5 [Op:SparseTensorDenseAdd]"),
    ]
    for fn, msg in cases:
        with pytest.raises(tf.errors.InvalidArgumentError) as err:
            fn()
        assert str(err.value) == msg


def test_tf_print(capfd):
    sp = _st([[0, 0], [1, 2]], [1, 2], [3, 4])
    tf.print(sp)
    tf.print("x", [sp])

    @tf.function
    def f(s):
        tf.print({"a": s, "b": [1, 2]}, summarize=2)
        return 0

    f(tf.sparse.from_dense(tf.reshape(tf.range(1., 13.), [3, 4])))
    assert capfd.readouterr().err == (
        "'SparseTensor(indices=[[0 0]\n [1 2]], values=[1 2], shape=[3 4])'\n"
        "x ['SparseTensor(indices=[[0 0]\n [1 2]], values=[1 2], shape=[3 4])']\n"
        "{'a': 'SparseTensor(indices=[[0 0]\n [0 1]\n ...\n [2 2]\n [2 3]], values=[1 2 ... "
        "11 12], shape=[3 4])', 'b': [1, 2]}\n")
