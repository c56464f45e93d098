"""tf.ragged.constant, RaggedTensorSpec, RaggedTensors as tf.function
arguments and results, row access in graphs, and AutoGraph loops over rows.
Expected values and messages are TensorFlow 2.21's."""
import numpy as np
import pytest

import rillflow as tf

R = tf.ragged.constant


def splits(r):
    return [s.numpy().tolist() for s in r.nested_row_splits]


@pytest.mark.parametrize("args, kw, text, dtype, ragged_rank, shape, row_splits, values_shape", [
    ([[1, 2], [3]], {}, "[[1, 2], [3]]", tf.int32, 1, [2, None], [[0, 2, 3]], [3]),
    ([[1, 2], [3, 4]], {}, "[[1, 2],\n [3, 4]]", tf.int32, 1, [2, None], [[0, 2, 4]], [4]),
    ([[[1, 2]], [[3, 4], [5, 6]]], {}, "[[[1, 2]], [[3, 4],\n            [5, 6]]]", tf.int32, 2,
     [2, None, None], [[0, 1, 3], [0, 2, 4, 6]], [6]),
    ([[[1, 2]], [[3, 4], [5, 6]]], {"ragged_rank": 1}, None, tf.int32, 1, [2, None, 2],
     [[0, 1, 3]], [3, 2]),
    ([[[1, 2]], [[3, 4], [5, 6]]], {"inner_shape": (2,)}, None, tf.int32, 1, [2, None, 2],
     [[0, 1, 3]], [3, 2]),
    ([[[]], []], {}, "[[[]], []]", tf.float32, 2, [2, None, None], [[0, 1, 1], [0, 0]], [0]),
    ([[[]], []], {"ragged_rank": 1}, None, tf.float32, 1, [2, None, 0], [[0, 1, 1]], [1, 0]),
    ([[[]], []], {"ragged_rank": 3}, None, tf.float32, 3, [2, None, None, None],
     [[0, 1, 1], [0, 0], [0]], [0]),
    ([[], [[1]]], {}, "[[], [[1]]]", tf.int32, 2, [2, None, None], [[0, 0, 1], [0, 1]], [1]),
    ([[]], {}, "[[]]", tf.float32, 1, [1, None], [[0, 0]], [0]),
    ([[]], {"dtype": tf.string}, "[[]]", tf.string, 1, [1, None], [[0, 0]], [0]),
    ([[True], [False, True]], {}, "[[True], [False, True]]", tf.bool, 1, [2, None],
     [[0, 1, 3]], [3]),
    ([[1.5, 2]], {"dtype": tf.float64}, "[[1.5, 2.0]]", tf.float64, 1, [1, None], [[0, 2]],
     [2]),
    ([[1.5, 2.25], [3.0]], {}, "[[1.5, 2.25], [3.0]]", tf.float32, 1, [2, None], [[0, 2, 3]],
     [3]),
    ([[b"a", "b"], []], {}, "[[b'a', b'b'], []]", tf.string, 1, [2, None], [[0, 2, 2]], [2]),
    (((1, 2), (3,)), {}, "[[1, 2], [3]]", tf.int32, 1, [2, None], [[0, 2, 3]], [3]),
    ([np.array([1, 2]), np.array([3])], {}, "[[1, 2], [3]]", tf.int32, 1, [2, None],
     [[0, 2, 3]], [3]),
])
def test_constant(args, kw, text, dtype, ragged_rank, shape, row_splits, values_shape):
    r = R(args, **kw)
    assert isinstance(r, tf.RaggedTensor)
    if text is not None:
        assert repr(r) == f"<tf.RaggedTensor {text}>" == str(r)
    assert r.dtype == dtype and r.ragged_rank == ragged_rank
    assert r.shape.as_list() == shape
    assert splits(r) == row_splits
    assert r.flat_values.shape.as_list() == values_shape
    assert r.row_splits.dtype == tf.int64


def test_constant_row_splits_dtype_and_plain_tensors():
    r = R([[1, 2]], dtype=tf.float32, row_splits_dtype=tf.int32)
    assert r.row_splits.dtype == tf.int32 and r.dtype == tf.float32
    t = R([])
    assert not isinstance(t, tf.RaggedTensor) and t.dtype == tf.float32 and t.shape == [0]
    t = R(3)
    assert t.dtype == tf.int32 and t.numpy() == 3
    np.testing.assert_array_equal(R([1, 2]).numpy(), [1, 2])
    assert tf.is_tensor(R([[1]]))


@pytest.mark.parametrize("args, kw, error, message", [
    ([[[1, 2]], [[3, 4], [5, 6]]], {"ragged_rank": 2, "inner_shape": (2,)}, ValueError,
     "Invalid pylist=[[[1, 2]], [[3, 4], [5, 6]]]: incompatible with ragged_rank=2 and "
     "dim(inner_shape)=1"),
    ([[[1, 2]], [[3], [5, 6]]], {"ragged_rank": 1}, ValueError,
     "inner values have inconsistent shape"),
    ([[[1]], [2]], {}, ValueError, "all scalar values must have the same nesting depth"),
    ([[1], [2]], {"ragged_rank": -1}, ValueError, "Invalid ragged_rank=-1: must be nonnegative"),
    (5, {"ragged_rank": 1}, ValueError, "Invalid pylist=5: incompatible with ragged_rank=1"),
    (5, {"inner_shape": (2,)}, ValueError,
     "Invalid pylist=5: incompatible with dim(inner_shape)=1"),
    ([1, 2], {"ragged_rank": 1}, ValueError,
     "pylist has scalar values depth 1, but ragged_rank=1 requires scalar value depth greater "
     "than 1"),
    ([[1, 2], [3]], {"ragged_rank": 2}, ValueError,
     "pylist has scalar values depth 2, but ragged_rank=2 requires scalar value depth greater "
     "than 2"),
    ([[1, 2.5]], {"dtype": tf.int32}, TypeError, "Cannot convert [1, 2.5] to EagerTensor of "
     "dtype int32"),
])
def test_constant_errors(args, kw, error, message):
    with pytest.raises(error) as info:
        R(args, **kw)
    assert str(info.value) == message


def test_constant_of_a_ragged_tensor():
    with pytest.raises(TypeError, match="^pylist may not be a RaggedTensor or "
                       "RaggedTensorValue.$"):
        R(R([[1]]))


def test_rows_and_numpy():
    r = R([[1, 2], [3]])
    np.testing.assert_array_equal(r[-1].numpy(), [3])
    np.testing.assert_array_equal(r[tf.constant(0)].numpy(), [1, 2])
    assert r[1:].to_list() == [[3]]
    assert [row.numpy().tolist() for row in r] == [[1, 2], [3]]
    n = r.numpy()
    assert n.dtype == object and [x.tolist() for x in n] == [[1, 2], [3]]
    n = R([[1, 2], [3, 4]]).numpy()     # rows of one length: one array
    assert n.dtype == np.int32 and n.tolist() == [[1, 2], [3, 4]]
    np.testing.assert_array_equal(R([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)[1].numpy(),
                                  [[3, 4], [5, 6]])


def test_spec():
    assert repr(tf.RaggedTensorSpec([2, None], tf.int32)) == \
        "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64)"
    assert repr(tf.RaggedTensorSpec([2, None, 3], tf.int32, 1)) == \
        "RaggedTensorSpec(TensorShape([2, None, 3]), tf.int32, 1, tf.int64)"
    assert repr(tf.RaggedTensorSpec(None, tf.int32, 1)) == \
        "RaggedTensorSpec(TensorShape(None), tf.int32, 1, tf.int64)"
    with pytest.raises(ValueError, match="^Must specify ragged_rank or a shape with a known "
                       "rank.$"):
        tf.RaggedTensorSpec(None, tf.int32)


def test_function_argument_and_result():
    seen = []

    @tf.function
    def f(m):
        seen.append((str(m), m.shape.as_list(), m[0].shape.as_list()))
        return m

    out = f(R([[1, 2], [3]]))
    assert isinstance(out, tf.RaggedTensor) and out.to_list() == [[1, 2], [3]]
    assert seen == [('tf.RaggedTensor(values=Tensor("m:0", shape=(None,), dtype=int32), '
                     'row_splits=Tensor("m_1:0", shape=(3,), dtype=int64))', [2, None], [None])]
    assert f(R([[4], [5, 6]])).to_list() == [[4], [5, 6]]
    assert len(seen) == 1      # same RaggedTensorSpec: no retrace
    cf = f.get_concrete_function(R([[1, 2], [3]]))
    assert repr(cf.structured_input_signature) == \
        "((RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int64),), {})"


def nested_for_loops(m):
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True, element_shape=())
    for i in m:
        s = 0
        for j in i:
            s = s * 10 + j
        ta = ta.write(ta.size(), s)
    return ta.stack()


@pytest.mark.parametrize("rows, expected", [
    ([[]], [0]), ([[], [1]], [0, 1]), ([[], [1], [1, 2]], [0, 1, 12])])
def test_autograph_loops_over_rows(rows, expected):
    m = R(rows, dtype=tf.int32)
    for f in (nested_for_loops, tf.function(nested_for_loops)):
        out = f(m)
        assert out.dtype == tf.int32
        np.testing.assert_array_equal(out.numpy(), expected)


def test_autograph_loop_over_rows_with_break():
    @tf.function
    def f(m):
        n = 0
        for row in m:
            if tf.size(row) > 1:
                break
            n += 1
        return n

    assert f(R([[1], [], [2, 3], [4]])).numpy() == 2
