"""Composite tensors (SparseTensor, RaggedTensor) in tf.data: as elements of
sources, map, batch / unbatch, iteration eagerly and in tf.function, and as
the state of reduce / scan (and so of AutoGraph's dataset loops). Every
expected value, spec and message was printed by TensorFlow 2.21 (only the
class names in messages are rillflow's own)."""
import numpy as np
import pytest

import rillflow as tf

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def sparse3x3():
    return tf.SparseTensor(indices=[[0, 0], [1, 1]], values=[1, 2], dense_shape=[3, 3])


def plain(x):
    """A composite or tensor as nested Python values: ('S', indices, values,
    dense_shape), ('R', rows) or ('T', value)."""
    if isinstance(x, tf.SparseTensor):
        return ("S", x.indices.numpy().tolist(), x.values.numpy().tolist(),
                x.dense_shape.numpy().tolist())
    if isinstance(x, tf.RaggedTensor):
        return ("R", x.to_list())
    if isinstance(x, tuple):
        return tuple(plain(y) for y in x)
    return ("T", x.numpy().tolist())


def elements(ds):
    return [plain(x) for x in ds]


# --- reduce / scan / AutoGraph loops with composite state ----------------------------------

def test_reduce_sparse_state_whose_rank_grows():
    r = tf.data.Dataset.range(2).reduce(sparse3x3(), lambda s, _: tf.sparse.expand_dims(s))
    assert plain(r) == ("S", [[0, 0, 0, 0], [1, 1, 0, 0]], [1, 2], [3, 3, 1, 1])
    assert r.shape == tf.TensorShape([3, 3, 1, 1])


def test_autograph_dataset_loop_with_sparse_loop_variable():
    @tf.function
    def f(ds):
        v = tf.SparseTensor(indices=[[0, 0], [1, 1]], values=[1, 2], dense_shape=[3, 3])
        for _ in ds:
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(v, tf.TensorShape(None))])
            v = tf.sparse.expand_dims(v)
        return v

    ints = lambda n: tf.data.Dataset.range(n).map(lambda x: tf.cast(x, tf.int32))  # noqa: E731
    assert plain(f(ints(2))) == ("S", [[0, 0, 0, 0], [1, 1, 0, 0]], [1, 2], [3, 3, 1, 1])
    assert plain(f(ints(0))) == ("S", [[0, 0], [1, 1]], [1, 2], [3, 3])


def test_autograph_dataset_loop_with_break_and_sparse_state():
    @tf.function
    def f(d):
        v = tf.SparseTensor(indices=[[0, 0], [1, 1]], values=[1, 2], dense_shape=[3, 3])
        for x in d:
            if x > 1:
                break
            v = tf.sparse.add(v, v)
        return v
    assert plain(f(tf.data.Dataset.range(5))) == ("S", [[0, 0], [1, 1]], [4, 8], [3, 3])


def test_reduce_in_function_relaxes_the_state_spec():
    ds = tf.data.Dataset.range(2)
    shapes = {}

    @tf.function
    def g():
        grown = ds.reduce(sparse3x3(), lambda s, _: tf.sparse.concat(0, [s, s]))
        deeper = ds.reduce(sparse3x3(), lambda s, _: tf.sparse.expand_dims(s))
        same = ds.reduce(sparse3x3(), lambda s, _: s)
        for k, r in (("grown", grown), ("deeper", deeper), ("same", same)):
            shapes[k] = (r.shape, r.indices.shape, r.values.shape, r.dense_shape.shape)
        return grown

    assert plain(g()) == ("S", [[0, 0], [1, 1], [3, 0], [4, 1], [6, 0], [7, 1], [9, 0],
                                [10, 1]], [1, 2, 1, 2, 1, 2, 1, 2], [12, 3])
    S = tf.TensorShape
    assert shapes["grown"] == (S([None, 3]), S([None, 2]), S([None]), S([2]))
    assert shapes["deeper"] == (S(None), S([None, None]), S([None]), S([None]))
    assert shapes["same"] == (S([3, 3]), S([None, 2]), S([None]), S([2]))


def test_scan_with_sparse_state():
    ds = tf.data.Dataset.range(2)
    assert repr(ds.scan(sparse3x3(), lambda s, e: (tf.sparse.expand_dims(s), s)).element_spec) \
        == "SparseTensorSpec(TensorShape(None), tf.int32)"
    grown = ds.scan(sparse3x3(), lambda s, e: (tf.sparse.concat(0, [s, s]), s))
    assert repr(grown.element_spec) == "SparseTensorSpec(TensorShape([None, 3]), tf.int32)"
    assert elements(grown) == [("S", [[0, 0], [1, 1]], [1, 2], [3, 3]),
                               ("S", [[0, 0], [1, 1], [3, 0], [4, 1]], [1, 2, 1, 2], [6, 3])]
    assert tf.data.Dataset.range(3).scan(sparse3x3(), lambda s, e: (tf.sparse.expand_dims(s),
                                                                    e)).element_spec == \
        tf.TensorSpec([], tf.int64)
    out = tf.data.Dataset.range(3).scan(sparse3x3(), lambda s, e: (s, s))
    assert repr(out.element_spec) == "SparseTensorSpec(TensorShape([3, 3]), tf.int32)"
    assert elements(out) == [("S", [[0, 0], [1, 1]], [1, 2], [3, 3])] * 3


def test_mismatched_composite_state_errors():
    ds = tf.data.Dataset.range(2)
    v = sparse3x3()
    sp_cls, t_cls = tf.SparseTensor, tf.Tensor
    with pytest.raises(TypeError) as e:
        ds.reduce(v, lambda s, _: tf.constant(1))
    assert str(e.value) == ("The element classes for the new state must match the initial "
                            f"state. Expected {sp_cls} but got {t_cls}.")
    with pytest.raises(TypeError) as e:
        ds.reduce(tf.constant(1), lambda s, _: v)
    assert str(e.value) == ("The element classes for the new state must match the initial "
                            f"state. Expected {t_cls} but got {sp_cls}.")
    with pytest.raises(TypeError) as e:
        ds.reduce((v, 1), lambda s, _: (tf.constant(1), s[1]))
    assert str(e.value) == ("The element classes for the new state must match the initial "
                            f"state. Expected ({sp_cls}, {t_cls}) but got ({t_cls}, {t_cls}).")
    with pytest.raises(TypeError) as e:
        ds.scan(v, lambda s, _: (tf.constant(1), 1))
    assert str(e.value) == ("Invalid `scan_func`. The element classes for the new state must "
                            f"match the initial state. Expected {sp_cls}, got {t_cls}.")
    with pytest.raises(TypeError, match=r"^The element types for the new state must match the "
                       r"initial state. Expected <dtype: 'int32'> but got <dtype: 'float32'>.$"):
        ds.reduce(v, lambda s, _: tf.SparseTensor([[0, 0]], [1.0], [3, 3]))
    with pytest.raises(TypeError, match=r"^Invalid `scan_func`. The element types for the new "
                       r"state must match the initial state. Expected <dtype: 'int32'>, got "
                       r"<dtype: 'float32'>.$"):
        ds.scan(v, lambda s, _: (tf.SparseTensor([[0, 0]], [1.0], [3, 3]), 1))
    # TensorFlow names the dtypes of the whole state.
    with pytest.raises(TypeError, match=r"^The element types for the new state must match the "
                       r"initial state. Expected \(tf.int32, tf.int32\) but got "
                       r"\(tf.int32, tf.float32\).$"):
        ds.reduce((v, 1), lambda s, _: (s[0], 1.0))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^The number of components of the initial state and the reduce "
                       r"function output does not match. \(initial_state=2, output=1\).$"):
        ds.reduce((v, 1), lambda s, _: s[0])
    # The new state may be nested differently (a list for a tuple).
    r = ds.reduce((v, 1), lambda s, _: [s[0], s[1]])
    assert plain(r) == (("S", [[0, 0], [1, 1]], [1, 2], [3, 3]), ("T", 1))


def test_ragged_state_relaxes_its_shape():
    # TensorFlow 2.21 fails here (issubclass() on a RaggedTensorSpec); rillflow
    # relaxes the state's spec as it does for a SparseTensor.
    ds = tf.data.Dataset.range(2)
    r = ds.reduce(tf.ragged.constant([[1]]), lambda s, _: tf.ragged.constant([[1, 2]]))
    assert plain(r) == ("R", [[1, 2]])
    scanned = ds.scan(tf.ragged.constant([[1]]),
                      lambda s, _: (tf.ragged.constant([[1, 2], [3]]), s))
    assert repr(scanned.element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert elements(scanned) == [("R", [[1]]), ("R", [[1, 2], [3]])]


# --- sources, map and iteration ------------------------------------------------------------

def test_from_tensors_and_from_tensor_slices_of_sparse():
    d = tf.data.Dataset.from_tensors(sparse3x3())
    assert repr(d) == ("<_TensorDataset element_spec=SparseTensorSpec(TensorShape([3, 3]), "
                       "tf.int32)>")
    assert elements(d) == [("S", [[0, 0], [1, 1]], [1, 2], [3, 3])]
    s = tf.data.Dataset.from_tensor_slices(sparse3x3())
    assert repr(s) == ("<_TensorSliceDataset element_spec=SparseTensorSpec(TensorShape([3]), "
                       "tf.int32)>")
    assert elements(s) == [("S", [[0]], [1], [3]), ("S", [[1]], [2], [3]), ("S", [], [], [3])]
    assert s.cardinality().numpy() == 3
    assert plain(d.get_single_element()) == ("S", [[0, 0], [1, 1]], [1, 2], [3, 3])


def test_from_tensor_slices_of_structures_with_sparse():
    pair = tf.data.Dataset.from_tensor_slices((sparse3x3(), tf.constant([1, 2, 3])))
    assert repr(pair.element_spec) == ("(SparseTensorSpec(TensorShape([3]), tf.int32), "
                                       "TensorSpec(shape=(), dtype=tf.int32, name=None))")
    assert elements(pair)[1] == (("S", [[1]], [2], [3]), ("T", 2))
    with pytest.raises(ValueError, match=r"^Dimensions 3 and 2 are not compatible$"):
        tf.data.Dataset.from_tensor_slices((sparse3x3(), tf.constant([1, 2])))
    d = tf.data.Dataset.from_tensor_slices({"a": sparse3x3(), "b": tf.range(3)}).map(lambda x: x)
    assert repr(d.element_spec) == ("{'a': SparseTensorSpec(TensorShape([3]), tf.int32), "
                                    "'b': TensorSpec(shape=(), dtype=tf.int32, name=None)}")


def test_slicing_validates_sparse_indices():
    cases = [([[0, 1], [0, 1]], "indices[1] = [0,1] is repeated"),
             ([[0, 1], [5, 1]], "indices[1] = [5,1] is out of bounds: need 0 <= index < [3,2]"),
             ([[1, 1], [0, 1]], "indices[1] = [0,1] is out of order. Many sparse ops require "
                                "sorted indices.\n    Use `tf.sparse.reorder` to create a "
                                "correctly ordered copy.\n\n")]
    for indices, message in cases:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.data.Dataset.from_tensor_slices(tf.SparseTensor(indices, [1, 2], [3, 2]))
        assert e.value.message.startswith(message)
    # Batching does not check the order.
    unordered = tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [3, 2])
    assert elements(tf.data.Dataset.from_tensors(unordered).batch(1)) == [
        ("S", [[0, 0, 1], [0, 0, 0]], [1, 2], [1, 3, 2])]


def test_map_filter_and_friends_over_sparse_elements():
    m = tf.data.Dataset.range(3).map(lambda x: tf.SparseTensor([[x]], [x], [5]))
    assert repr(m.element_spec) == "SparseTensorSpec(TensorShape([5]), tf.int64)"
    assert elements(m) == [("S", [[i]], [i], [5]) for i in range(3)]
    s = tf.data.Dataset.from_tensor_slices(sparse3x3())
    assert elements(s.filter(lambda x: tf.reduce_sum(x.values) > 1)) == [("S", [[1]], [2], [3])]
    assert elements(s.take_while(lambda x: tf.size(x.values) > 0)) == [
        ("S", [[0]], [1], [3]), ("S", [[1]], [2], [3])]
    assert elements(s.map(tf.sparse.to_dense)) == [("T", [1, 0, 0]), ("T", [0, 2, 0]),
                                                   ("T", [0, 0, 0])]
    assert elements(s.map(lambda x: x, num_parallel_calls=2)) == elements(s)
    assert elements(tf.data.Dataset.zip((s, tf.data.Dataset.range(5)))) == [
        (("S", [[0]], [1], [3]), ("T", 0)), (("S", [[1]], [2], [3]), ("T", 1)),
        (("S", [], [], [3]), ("T", 2))]
    assert elements(s.enumerate())[2] == (("T", 2), ("S", [], [], [3]))
    assert elements(tf.data.Dataset.range(2).interleave(lambda i: s)) == [
        e for e in elements(s) for _ in range(2)]
    chosen = tf.data.Dataset.choose_from_datasets(
        [s, s], tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 0], tf.int64)))
    assert elements(chosen) == [("S", [[0]], [1], [3]), ("S", [[0]], [1], [3]),
                                ("S", [[1]], [2], [3])]
    assert len(list(s.shuffle(3).repeat(2).take(5).prefetch(1).cache())) == 5
    assert repr(s.ignore_errors().element_spec) == "SparseTensorSpec(TensorShape([3]), tf.int32)"
    assert [elements(w) for w in s.window(2)] == [
        [("S", [[0]], [1], [3]), ("S", [[1]], [2], [3])], [("S", [], [], [3])]]
    assert repr(s.window(2).element_spec) == \
        "DatasetSpec(SparseTensorSpec(TensorShape([3]), tf.int32), TensorShape([]))"
    assert elements(s.window(2).flat_map(lambda w: w)) == elements(s)
    grouped = s.group_by_window(lambda x: tf.constant(0, tf.int64), lambda k, w: w.batch(2),
                                window_size=2)
    assert elements(grouped) == [("S", [[0, 0], [1, 1]], [1, 2], [2, 3]),
                                 ("S", [], [], [1, 3])]
    opt = tf.experimental.Optional.from_value(sparse3x3())
    assert plain(opt.get_value()) == ("S", [[0, 0], [1, 1]], [1, 2], [3, 3])


def test_combining_sparse_element_specs():
    a = tf.data.Dataset.from_tensors(sparse3x3())
    deeper = tf.data.Dataset.from_tensors(tf.sparse.expand_dims(sparse3x3()))
    longer = tf.data.Dataset.from_tensors(tf.sparse.concat(0, [sparse3x3(), sparse3x3()]))
    assert repr(a.concatenate(deeper).element_spec) == \
        "SparseTensorSpec(TensorShape(None), tf.int32)"
    assert repr(a.concatenate(longer).element_spec) == \
        "SparseTensorSpec(TensorShape([None, 3]), tf.int32)"
    with pytest.raises(TypeError) as e:
        a.concatenate(tf.data.Dataset.from_tensors(tf.constant([[1]])))
    assert str(e.value) == ("Incompatible dataset elements:\n  SparseTensorSpec(TensorShape("
                            "[3, 3]), tf.int32) vs.   TensorSpec(shape=(1, 1), dtype=tf.int32, "
                            "name=None)")


def test_unsupported_transformations_of_sparse_elements():
    d = tf.data.Dataset.from_tensors(sparse3x3())
    with pytest.raises(TypeError) as e:
        d.padded_batch(2)
    assert str(e.value) == ("`padded_batch` is only supported for datasets that produce tensor "
                            "elements but type spec of elements in the input dataset is not a "
                            "subclass of TensorSpec: `SparseTensorSpec(TensorShape([3, 3]), "
                            "tf.int32)`.")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        d.unique()
    assert e.value.message == ("UniqueDataset only supports inputs with a single `tf.int32`, "
                               "`tf.int64`, or `tf.string` component. [Op:UniqueDataset]")


def test_as_numpy_iterator_gives_dense_and_ragged_values():
    got = list(tf.data.Dataset.from_tensor_slices(sparse3x3()).as_numpy_iterator())
    assert [x.tolist() for x in got] == [[1, 0, 0], [0, 2, 0], [0, 0, 0]]
    r = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])
    got = list(tf.data.Dataset.from_tensor_slices(r).as_numpy_iterator())
    assert [x.tolist() for x in got] == [[1, 2], [3], [], [4, 5, 6]]
    (whole,) = tf.data.Dataset.from_tensors(r).as_numpy_iterator()
    assert whole.dtype == object and [x.tolist() for x in whole] == [[1, 2], [3], [], [4, 5, 6]]


def test_sparse_elements_inside_functions():
    v = sparse3x3()

    @tf.function
    def total(d):
        t = tf.constant(0)
        for s in d:
            t += tf.reduce_sum(s.values)
        return t

    @tf.function
    def total_iter(d):
        t = tf.constant(0)
        for s in iter(d):
            t += tf.reduce_sum(s.values)
        return t

    slices = tf.data.Dataset.from_tensor_slices(v)
    assert total(slices).numpy() == 3
    assert total(slices.batch(2)).numpy() == 3
    assert total_iter(slices).numpy() == 3
    seen = {}

    @tf.function
    def first(d):
        a = next(iter(d))
        seen["shapes"] = (a.shape, a.indices.shape)
        return a
    assert plain(first(slices)) == ("S", [[0]], [1], [3])
    assert seen["shapes"] == (tf.TensorShape([3]), tf.TensorShape([None, 1]))

    @tf.function
    def optional(d):
        return iter(d).get_next_as_optional().get_value()
    assert plain(optional(slices)) == ("S", [[0]], [1], [3])

    @tf.function
    def built_inside(x):
        d = tf.data.Dataset.from_tensor_slices(tf.sparse.from_dense(x)).batch(2)
        seen["spec"] = d.element_spec
        return d.reduce(tf.constant(0, tf.int32), lambda s, e: s + tf.reduce_sum(e.values))
    assert built_inside(tf.constant([[1, 0], [0, 2], [3, 0]])).numpy() == 6
    assert repr(seen["spec"]) == "SparseTensorSpec(TensorShape([None, 2]), tf.int32)"


# --- batch and unbatch -------------------------------------------------------------------------

def test_batch_and_unbatch_sparse():
    s = tf.data.Dataset.from_tensor_slices(sparse3x3())
    b = s.batch(2)
    assert repr(b.element_spec) == "SparseTensorSpec(TensorShape([None, 3]), tf.int32)"
    assert elements(b) == [("S", [[0, 0], [1, 1]], [1, 2], [2, 3]), ("S", [], [], [1, 3])]
    assert elements(s.batch(2, num_parallel_calls=2)) == elements(b)
    assert elements(s.batch(2, drop_remainder=True)) == [("S", [[0, 0], [1, 1]], [1, 2], [2, 3])]
    u = b.unbatch()
    assert repr(u.element_spec) == "SparseTensorSpec(TensorShape([3]), tf.int32)"
    assert elements(u) == elements(s)
    assert repr(b.rebatch(1).element_spec) == "SparseTensorSpec(TensorShape([None, 3]), tf.int32)"
    assert elements(b.rebatch(1)) == [("S", [[0, 0]], [1], [1, 3]), ("S", [[0, 1]], [2], [1, 3]),
                                      ("S", [], [], [1, 3])]
    m = tf.data.Dataset.range(3).map(lambda x: tf.SparseTensor([[x]], [x], [5]))
    assert repr(m.batch(2).element_spec) == "SparseTensorSpec(TensorShape([None, 5]), tf.int64)"
    assert repr(m.batch(2, drop_remainder=True).element_spec) == \
        "SparseTensorSpec(TensorShape([2, 5]), tf.int64)"
    assert elements(m.batch(2)) == [("S", [[0, 0], [1, 1]], [0, 1], [2, 5]),
                                    ("S", [[0, 2]], [2], [1, 5])]
    assert elements(s.batch(2).map(tf.sparse.to_dense)) == [("T", [[1, 0, 0], [0, 2, 0]]),
                                                            ("T", [[0, 0, 0]])]


def test_batch_sparse_of_different_shapes_strings_and_floats():
    v = sparse3x3()
    mixed = tf.data.Dataset.from_tensors(v).concatenate(
        tf.data.Dataset.from_tensors(tf.sparse.concat(0, [v, v])))
    assert elements(mixed.batch(2)) == [
        ("S", [[0, 0, 0], [0, 1, 1], [1, 0, 0], [1, 1, 1], [1, 3, 0], [1, 4, 1]],
         [1, 2, 1, 2, 1, 2], [2, 6, 3])]
    strings = tf.SparseTensor([[0, 1], [2, 0]], ["a", "b"], [3, 2])
    assert elements(tf.data.Dataset.from_tensor_slices(strings).batch(2)) == [
        ("S", [[0, 1]], [b"a"], [2, 2]), ("S", [[0, 0]], [b"b"], [1, 2])]
    floats = tf.SparseTensor([[0, 1, 1], [1, 0, 0]], [1.5, 2.5], [2, 2, 2])
    assert elements(tf.data.Dataset.from_tensors(floats).unbatch().batch(2)) == [
        ("S", [[0, 1, 1], [1, 0, 0]], [1.5, 2.5], [2, 2, 2])]
    ranks = tf.data.Dataset.from_tensors(v).concatenate(
        tf.data.Dataset.from_tensors(tf.sparse.expand_dims(v)))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        list(ranks.batch(2))
    assert e.value.message.startswith(
        "Inconsistent shape across SparseTensors: rank prior to SparseTensor[1] was: 2 but rank "
        "of SparseTensor[1] is: 3")


# --- ragged elements ----------------------------------------------------------------------------

def test_ragged_sources_and_specs():
    r = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])
    d = tf.data.Dataset.from_tensors(r)
    assert repr(d.element_spec) == \
        "RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, tf.int64)"
    assert elements(d) == [("R", [[1, 2], [3], [], [4, 5, 6]])]
    s = tf.data.Dataset.from_tensor_slices(r)
    assert repr(s.element_spec) == "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    # Rows of ragged rank 0 are plain tensors.
    assert elements(s) == [("T", [1, 2]), ("T", [3]), ("T", []), ("T", [4, 5, 6])]
    assert repr(s.map(lambda x: x * 2).element_spec) == \
        "TensorSpec(shape=(None,), dtype=tf.int32, name=None)"
    assert elements(s.map(lambda x: x * 2)) == [("T", [2, 4]), ("T", [6]), ("T", []),
                                                ("T", [8, 10, 12])]
    assert repr(s.window(2).element_spec) == ("DatasetSpec(RaggedTensorSpec(TensorShape([None])"
                                              ", tf.int32, 0, tf.int64), TensorShape([]))")


def test_batch_and_unbatch_ragged():
    r = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])
    s = tf.data.Dataset.from_tensor_slices(r)
    assert repr(s.batch(2).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert repr(s.batch(2, drop_remainder=True).element_spec) == \
        "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)"
    assert elements(s.batch(3)) == [("R", [[1, 2], [3], []]), ("R", [[4, 5, 6]])]
    assert repr(s.batch(2).unbatch().element_spec) == \
        "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    assert elements(s.batch(3).unbatch()) == elements(s)
    assert elements(tf.data.Dataset.from_tensors(r).unbatch()) == elements(s)
    flat = tf.data.Dataset.from_tensors(r).unbatch().unbatch()
    assert repr(flat.element_spec) == "RaggedTensorSpec(TensorShape([]), tf.int32, -1, tf.int64)"
    assert elements(flat) == [("T", i) for i in range(1, 7)]
    assert repr(flat.batch(4).element_spec) == \
        "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    assert elements(flat.batch(4)) == [("T", [1, 2, 3, 4]), ("T", [5, 6])]
    assert elements(s.batch(2).map(lambda x: x.row_lengths())) == [("T", [2, 1]), ("T", [0, 3])]


def test_batch_ragged_of_ragged_rank_two_inner_dims_and_int32_splits():
    r2 = tf.ragged.constant([[[1, 2], [3]], [[4]], [[], [5, 6, 7]]])
    s = tf.data.Dataset.from_tensor_slices(r2)
    assert repr(s.element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert elements(s) == [("R", [[1, 2], [3]]), ("R", [[4]]), ("R", [[], [5, 6, 7]])]
    assert repr(s.batch(2).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None, None]), tf.int32, 2, tf.int64)"
    assert elements(s.batch(2)) == [("R", [[[1, 2], [3]], [[4]]]), ("R", [[[], [5, 6, 7]]])]
    assert elements(s.batch(2).unbatch()) == elements(s)
    inner = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
    assert repr(tf.data.Dataset.from_tensors(inner).element_spec) == \
        "RaggedTensorSpec(TensorShape([2, None, 2]), tf.int32, 1, tf.int64)"
    si = tf.data.Dataset.from_tensor_slices(inner)
    assert repr(si.element_spec) == \
        "RaggedTensorSpec(TensorShape([None, 2]), tf.int32, 0, tf.int64)"
    assert repr(si.batch(2).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None, 2]), tf.int32, 1, tf.int64)"
    assert elements(si.batch(2)) == [("R", [[[1, 2]], [[3, 4], [5, 6]]])]
    i32 = tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32)
    b = tf.data.Dataset.from_tensor_slices(i32).batch(2)
    assert repr(b.element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int32)"
    (got,) = b
    assert got.row_splits.dtype == tf.int32 and got.to_list() == [[1, 2], [3]]


def test_combining_ragged_element_specs():
    r = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])
    a = tf.data.Dataset.from_tensors(r)
    assert repr(a.concatenate(tf.data.Dataset.from_tensors(r[:2])).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    other = tf.data.Dataset.from_tensors(tf.ragged.constant([[1, 2], [3]],
                                                            row_splits_dtype=tf.int32))
    with pytest.raises(TypeError) as e:
        a.concatenate(other)
    assert str(e.value) == (
        "Incompatible dataset elements:\n  RaggedTensorSpec(TensorShape([4, None]), tf.int32, 1, "
        "tf.int64) vs.   RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int32)")


# --- from_generator ------------------------------------------------------------------------------

def _sparse_gen():
    yield tf.SparseTensor([[0]], [1], [3])
    yield tf.SparseTensor([[1], [2]], [2, 3], [3])


def test_from_generator_with_sparse_signature():
    d = tf.data.Dataset.from_generator(_sparse_gen,
                                       output_signature=tf.SparseTensorSpec([3], tf.int32))
    assert repr(d.element_spec) == "SparseTensorSpec(TensorShape([3]), tf.int32)"
    assert elements(d) == [("S", [[0]], [1], [3]), ("S", [[1], [2]], [2, 3], [3])]
    assert elements(d.batch(2)) == [("S", [[0, 0], [1, 1], [1, 2]], [1, 2, 3], [2, 3])]
    pairs = tf.data.Dataset.from_generator(
        lambda: iter([(tf.SparseTensor([[0]], [1], [3]), 5)]),
        output_signature=(tf.SparseTensorSpec([3], tf.int32), tf.TensorSpec([], tf.int32)))
    assert elements(pairs) == [(("S", [[0]], [1], [3]), ("T", 5))]
    values = tf.data.Dataset.from_generator(
        lambda: iter([tf.compat.v1.SparseTensorValue([[0]], [1], [3])]),
        output_signature=tf.SparseTensorSpec([3], tf.int32))
    assert elements(values) == [("S", [[0]], [1], [3])]


def test_from_generator_sparse_mismatches():
    for spec, wrong in ((tf.SparseTensorSpec([3], tf.int64),
                         "SparseTensorSpec(TensorShape([3]), tf.int64)"),
                        (tf.SparseTensorSpec([4], tf.int32),
                         "SparseTensorSpec(TensorShape([4]), tf.int32)")):
        d = tf.data.Dataset.from_generator(_sparse_gen, output_signature=spec)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            list(d)
        assert e.value.message.startswith(
            "TypeError: `generator` yielded an element of SparseTensorSpec(TensorShape([3]), "
            f"tf.int32) where an element of {wrong} was expected.")
    d = tf.data.Dataset.from_generator(lambda: iter([1]),
                                       output_signature=tf.SparseTensorSpec([3], tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        list(d)
    assert e.value.message.startswith(
        "TypeError: `generator` yielded an element that did not match the expected structure. "
        "The expected structure was SparseTensorSpec(TensorShape([3]), tf.int32), but the "
        "yielded element was 1.")


def test_from_generator_with_ragged_signature():
    def gen():
        yield tf.ragged.constant([[1], [2, 3]])
        yield tf.ragged.constant([[1, 4, 5]])
    d = tf.data.Dataset.from_generator(gen, output_signature=tf.RaggedTensorSpec([None, None],
                                                                                  tf.int32))
    assert repr(d.element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert elements(d) == [("R", [[1], [2, 3]]), ("R", [[1, 4, 5]])]
    assert elements(d.batch(2)) == [("R", [[[1], [2, 3]], [[1, 4, 5]]])]
    rows = tf.data.Dataset.from_generator(
        lambda: iter([[1, 2], [3]]), output_signature=tf.RaggedTensorSpec([None], tf.int32, 0))
    assert elements(rows) == [("T", [1, 2]), ("T", [3])]


def test_dense_paths_unchanged_by_composites():
    # The chunked map and batch fast paths still serve plain tensors.
    d = tf.data.Dataset.range(10).map(lambda x: x * 2).batch(4)
    assert [x.tolist() for x in d.as_numpy_iterator()] == [[0, 2, 4, 6], [8, 10, 12, 14],
                                                           [16, 18]]
    assert np.array_equal(next(iter(tf.data.Dataset.from_tensor_slices(np.arange(6)).batch(6))),
                          np.arange(6))


def test_unbatch_batch_size_checks():
    # Static: the tensor components' leading dimensions (composites' are
    # known only at run time, as in TensorFlow).
    mixed = (tf.constant([1, 2, 3]), tf.constant([7, 8]))
    with pytest.raises(ValueError, match=r"^`unbatch\(\)` is only supported for datasets of "
                       r"elements whose components have a matching leading dimension. "
                       r"Encountered both 3 and 2.$"):
        tf.data.Dataset.from_tensors(mixed).unbatch()
    with pytest.raises(ValueError, match=r"^Invalid `input_dataset.` The batch dimension of "
                       r"component 0 is 3, while the batch dimension of component i is "
                       r"\[3 2\].$"):
        tf.data.Dataset.from_tensors(mixed).rebatch(1)
    unknown = tf.data.Dataset.from_generator(
        lambda: iter([([1, 2, 3], [7, 8, 9], [1, 2])]),
        output_signature=(tf.TensorSpec(None, tf.int32), tf.TensorSpec([None], tf.int32),
                          tf.TensorSpec([None], tf.int32)))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        list(unknown.unbatch())
    assert e.value.message.startswith("Input element must have the same batch size in each "
                                      "component. Component 0 had size 3 but component 2 had "
                                      "size, 2.")
    for first in (tf.constant([7, 8]), tf.ragged.constant([[1], [2]])):
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            list(tf.data.Dataset.from_tensors((first, sparse3x3())).unbatch())
        assert e.value.message.startswith("Input element must have the same batch size in "
                                          "each component. Component 0 had size 2 but "
                                          "component 1 had size, 3.")
    ok = tf.data.Dataset.from_tensors((tf.ragged.constant([[1], [2]]), tf.constant([1, 2, 3])))
    assert repr(ok.unbatch().element_spec) == (
        "(RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64), "
        "TensorSpec(shape=(), dtype=tf.int32, name=None))")


def test_mixed_composite_elements_unbatch_and_batch():
    r = tf.ragged.constant([[1, 2], [3], []])
    mix = tf.data.Dataset.from_tensors((sparse3x3(), r, tf.constant([7, 8, 9])))
    assert repr(mix.element_spec) == (
        "(SparseTensorSpec(TensorShape([3, 3]), tf.int32), RaggedTensorSpec(TensorShape([3, "
        "None]), tf.int32, 1, tf.int64), TensorSpec(shape=(3,), dtype=tf.int32, name=None))")
    got = [(tf.sparse.to_dense(a).numpy().tolist(), b.to_list(), c.numpy().tolist())
           for a, b, c in mix.unbatch().batch(2)]
    assert got == [([[1, 0, 0], [0, 2, 0]], [[1, 2], [3]], [7, 8]), ([[0, 0, 0]], [[]], [9])]
    d = tf.data.Dataset.range(2).map(lambda x: {"s": tf.SparseTensor([[x]], [x], [2]), "d": x})
    assert repr(d.batch(2).element_spec) == (
        "{'s': SparseTensorSpec(TensorShape([None, 2]), tf.int64), "
        "'d': TensorSpec(shape=(None,), dtype=tf.int64, name=None)}")
    state = tf.data.Dataset.range(2).reduce(
        {"s": sparse3x3(), "n": 0},
        lambda st, e: {"s": tf.sparse.add(st["s"], st["s"]), "n": st["n"] + 1})
    assert plain(state["s"]) == ("S", [[0, 0], [1, 1]], [4, 8], [3, 3])
    assert state["n"].numpy() == 2
    empty = tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [2, 2])
    assert elements(tf.data.Dataset.from_tensors(empty).repeat(2).batch(2)) == [
        ("S", [], [], [2, 2, 2])]
    scalars = tf.SparseTensor(tf.zeros([1, 0], tf.int64), [5.0], tf.zeros([0], tf.int64))
    assert elements(tf.data.Dataset.from_tensors(scalars).repeat(2).batch(2)) == [
        ("S", [[0], [1]], [5.0, 5.0], [2])]
    unknown_rank = tf.data.Dataset.from_generator(
        lambda: iter([tf.SparseTensor([[0]], [1], [3])]),
        output_signature=tf.SparseTensorSpec(None, tf.int32)).batch(2)
    assert repr(unknown_rank.element_spec) == "SparseTensorSpec(TensorShape(None), tf.int32)"
    assert elements(unknown_rank) == [("S", [[0, 0]], [1], [1, 3])]
    assert repr(tf.data.Dataset.from_tensors(tf.IndexedSlices(
        tf.constant([[1., 2.]]), tf.constant([0]), tf.constant([3, 2]))).element_spec) == \
        ("IndexedSlicesSpec(TensorShape([3, 2]), tf.float32, tf.int32, tf.int32, "
         "TensorShape([1]))")


def test_ragged_batch():
    d = tf.data.Dataset.range(5).map(lambda x: tf.range(x))
    assert repr(d.ragged_batch(2).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int64)"
    assert [x.to_list() for x in d.ragged_batch(2)] == [[[], [0]], [[0, 1], [0, 1, 2]],
                                                        [[0, 1, 2, 3]]]
    i32 = d.ragged_batch(2, drop_remainder=True, row_splits_dtype=tf.int32)
    assert repr(i32.element_spec) == \
        "RaggedTensorSpec(TensorShape([2, None]), tf.int64, 1, tf.int32)"
    assert [x.row_splits.dtype for x in i32] == [tf.int32, tf.int32]
    rows = tf.data.Dataset.range(3).map(lambda x: tf.fill([x, 2], x))
    assert repr(rows.ragged_batch(2).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None, 2]), tf.int64, 1, tf.int64)"
    assert [x.to_list() for x in rows.ragged_batch(2)] == [[[], [[1, 1]]], [[[2, 2], [2, 2]]]]
    cols = tf.data.Dataset.range(3).map(lambda x: tf.fill([2, x], x))
    assert repr(cols.ragged_batch(2).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, 2, None]), tf.int64, 2, tf.int64)"
    assert [x.to_list() for x in cols.ragged_batch(2)] == [[[[], []], [[1], [1]]],
                                                           [[[2, 2], [2, 2]]]]
    mixed = tf.data.Dataset.range(3).map(lambda x: (x, tf.range(x), tf.constant([1, 2])))
    assert repr(mixed.ragged_batch(2).element_spec) == (
        "(TensorSpec(shape=(None,), dtype=tf.int64, name=None), RaggedTensorSpec(TensorShape("
        "[None, None]), tf.int64, 1, tf.int64), TensorSpec(shape=(None, 2), dtype=tf.int32, "
        "name=None))")
    assert repr(tf.data.experimental.dense_to_ragged_batch(2)(d).element_spec) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int64)"


def test_sparse_batch():
    d = tf.data.Dataset.range(5).map(lambda x: tf.range(x))
    assert repr(d.sparse_batch(2, [5]).element_spec) == \
        "SparseTensorSpec(TensorShape([None, 5]), tf.int64)"
    assert elements(d.sparse_batch(2, [5])) == [
        ("S", [[1, 0]], [0], [2, 5]),
        ("S", [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], [0, 1, 0, 1, 2], [2, 5]),
        ("S", [[0, 0], [0, 1], [0, 2], [0, 3]], [0, 1, 2, 3], [1, 5])]
    with pytest.raises(tf.errors.DataLossError) as e:
        list(d.sparse_batch(2, [3]))
    assert e.value.message.startswith("Input element had shape ([4]) that is larger than the "
                                      "row shape ([3]).")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        list(d.sparse_batch(2, [5, 5]))
    assert e.value.message.startswith("Input element had shape ([0]) that is incompatible "
                                      "with the row shape ([5,5]).")
    assert repr(tf.data.experimental.dense_to_sparse_batch(2, [5])(d).element_spec) == \
        "SparseTensorSpec(TensorShape([None, 5]), tf.int64)"


def test_ragged_and_sparse_batches_inside_a_function():
    @tf.function
    def f():
        d = tf.data.Dataset.range(5).map(lambda x: tf.range(x))
        a = d.ragged_batch(2).reduce(tf.constant(0, tf.int64),
                                     lambda s, r: s + tf.reduce_sum(r.flat_values))
        b = d.sparse_batch(2, [5]).reduce(tf.constant(0, tf.int64),
                                          lambda s, r: s + tf.reduce_sum(r.values))
        r = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])
        c = tf.data.Dataset.from_tensor_slices(r).batch(3).reduce(
            tf.constant(0), lambda s, x: s + tf.reduce_sum(x.flat_values))
        n = tf.data.Dataset.from_tensors(r).unbatch().reduce(tf.constant(0),
                                                             lambda s, x: s + tf.size(x))
        return a, b, c, n
    assert [int(x) for x in f()] == [10, 10, 21, 6]
