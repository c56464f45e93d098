"""Scatter, split, pad, repeat, unique and roll (rillflow/ops/core/scatter_ops.py,
split_pad_ops.py, repeat_unique_roll_ops.py)."""
import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match, eq, ph

IAE = tf.errors.InvalidArgumentError


def message(fn):
    """The message of the InvalidArgumentError `fn()` raises."""
    with pytest.raises(IAE) as e:
        fn()
    return e.value.message


# --- scatter_nd --------------------------------------------------------------

def test_scatter_nd_values():
    eq(tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5]), [0, 4, 0, 2, 0], tf.float32)
    eq(tf.scatter_nd([[0, 1], [1, 0]], [5, 6], [2, 2]), [[0, 5], [6, 0]], tf.int32)
    eq(tf.scatter_nd([[0], [1]], [[1, 2], [3, 4]], [3, 2]), [[1, 2], [3, 4], [0, 0]])
    eq(tf.scatter_nd(tf.constant([[1]], tf.int64), [1.0], tf.constant([5], tf.int64)),
       [0, 1, 0, 0, 0])
    eq(tf.scatter_nd([[1]], [1.0], tf.constant([5], tf.int64)), [0, 1, 0, 0, 0])
    eq(tf.scatter_nd([[1]], [True], [3]), [False, True, False], tf.bool)
    eq(tf.scatter_nd([[1]], ["a"], [3]), [b"", b"a", b""], tf.string)
    eq(tf.scatter_nd([[0], [0]], [1 + 1j, 2j], [2]), [1 + 3j, 0], tf.complex128)
    eq(tf.scatter_nd([[0], [0]], tf.constant([200, 100], tf.uint8), [2]), [44, 0], tf.uint8)
    eq(tf.scatter_nd([[0]], tf.constant([1.5], tf.float16), [2]), [1.5, 0], tf.float16)
    eq(tf.scatter_nd(tf.zeros([0, 1], tf.int32), tf.zeros([0]), [3]), [0, 0, 0])
    eq(tf.scatter_nd(tf.zeros([0, 1], tf.int32), tf.zeros([0]), [0]), np.zeros(0))
    eq(tf.scatter_nd([[[0], [2]]], [[7, 8]], [3]), [7, 0, 8])
    eq(tf.scatter_nd([[9], [1]], [1.0, 2.0], [5], bad_indices_policy="IGNORE"), [0, 2, 0, 0, 0])


@pytest.mark.parametrize("args, msg", [
    (([[5]], [1.0], [5]), "indices[0] = [5] does not index into shape [5]"),
    (([[-1]], [1.0], [5]), "indices[0] = [-1] does not index into shape [5]"),
    (([[0, 5]], [1.0], [2, 2]), "indices[0] = [0, 5] does not index into shape [2,2]"),
    (([[0, 1], [3, 1]], [1.0, 2.0], [2, 2]), "indices[1] = [3, 1] does not index into shape "
                                             "[2,2]"),
    (([[1]], [1.0, 2.0], [5]), "Dimensions [0,1) of indices[shape=[1,1]] must match dimensions "
                               "[0,1) of updates[shape=[2]]"),
    (([[1]], [1.0], [5, 2]), "Dimensions [1,2) of input[shape=[5,2]] must match dimensions "
                             "[1,1) of updates[shape=[1]]"),
    (([1], [7], [3]), "Dimensions [1,1) of input[shape=[3]] must match dimensions [0,1) of "
                      "updates[shape=[1]]"),
    (([[0, 0, 0]], [7], [3, 3]), "Dimensions [3,2) of input[shape=[3,3]] must match dimensions "
                                 "[1,1) of updates[shape=[1]]"),
    (([[1]], [[1.0], [2.0]], [5]), "Dimensions [0,1) of indices[shape=[1,1]] must match "
                                   "dimensions [0,1) of updates[shape=[2,1]]"),
    ((5, [1.0], [2]), "Indices shape must have rank at least one. Found:[]"),
    (([[1]], [1.0], [[5]]), "Shape must be a vector"),
    (([[1]], [1.0], [-5]), "Dimension -5 must be >= 0"),
    (([[1]], [1.0], []), "Indices and updates specified for empty output shape"),
    (([[1]], [1.0], [0]), "Indices and updates specified for empty output.  indices shape: "
                          "[1,1]"),
])
def test_scatter_nd_errors(args, msg):
    assert message(lambda: tf.scatter_nd(*args)) == msg + " [Op:ScatterNd]"


def test_scatter_nd_index_dtypes():
    with pytest.raises(IAE, match="Value for attr 'Tindices' of float is not in the list"):
        tf.scatter_nd([[1.0]], [1.0], [5])
    with pytest.raises(TypeError, match=r"Cannot convert \[3.0\] to EagerTensor of dtype int32"):
        tf.scatter_nd([[1]], [1.0], [3.0])


def test_scatter_nd_static_shapes():
    with tf.Graph().as_default():
        s = tf.scatter_nd([[1], [2]], ph([2, 3]), [5, 3])
        assert s.shape.as_list() == [5, 3] and s.op.type == "ScatterNd"
        assert tf.scatter_nd(ph([None, 1], tf.int32), ph([None, 3]), [5, 3]).shape == (5, 3)
        assert tf.scatter_nd([[1], [2]], ph([2, 3]), ph([None], tf.int32)).shape.rank is None
        assert tf.scatter_nd([[1], [2]], ph([2, 3]),
                             tf.stack([ph([], tf.int32), 3])).shape.as_list() == [None, 3]
        with pytest.raises(ValueError, match=r"Dimensions \[1,2\) of input\[shape=\[5,4\]\] = "
                                             r"\[4\] must match dimensions \[1,2\) of "
                                             r"updates\[shape=\[2,3\]\] = \[3\]: Dimension 0 in "
                                             r"both shapes must be equal, but are 4 and 3"):
            tf.scatter_nd([[1], [2]], ph([2, 3]), [5, 4])
        with pytest.raises(ValueError, match=r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] = "
                                             r"\[2\] must match dimensions \[0,1\) of "
                                             r"updates\[shape=\[3,3\]\] = \[3\]"):
            tf.scatter_nd([[1], [2]], ph([3, 3]), [5, 3])


# --- tensor_scatter_nd_* -----------------------------------------------------

def test_tensor_scatter_values():
    eq(tf.tensor_scatter_nd_update([1, 2, 3, 4], [[1], [1]], [10, 20]), [1, 20, 3, 4],
       tf.int32)
    eq(tf.tensor_scatter_nd_update([1, 2, 3], [[0], [0], [0]], [7, 8, 9]), [9, 2, 3])
    eq(tf.tensor_scatter_nd_update([[1, 2], [3, 4]], [[1]], [[10, 20]]), [[1, 2], [10, 20]])
    eq(tf.tensor_scatter_nd_update(tf.zeros([2, 3]), [[0, 1]], [5.0]),
       [[0, 5, 0], [0, 0, 0]])
    eq(tf.tensor_scatter_nd_update(tf.zeros([2, 3]), [[[0], [1]]],
                                   [[[1.0, 1, 1], [2, 2, 2]]]), [[1, 1, 1], [2, 2, 2]])
    eq(tf.tensor_scatter_nd_update([1.0, 2.0], [[1]], [10]), [1.0, 10.0], tf.float32)
    eq(tf.tensor_scatter_nd_update(["a", "b"], [[1]], ["z"]), [b"a", b"z"], tf.string)
    eq(tf.tensor_scatter_nd_update([True, False], [[1]], [True]), [True, True], tf.bool)
    eq(tf.tensor_scatter_nd_add([1, 2, 3, 4], [[1], [1]], [10, 20]), [1, 32, 3, 4])
    eq(tf.tensor_scatter_nd_add(tf.constant([1], tf.uint8), [[0], [0]],
                                tf.constant([200, 100], tf.uint8)), [45], tf.uint8)
    eq(tf.tensor_scatter_nd_add(tf.constant([1.0, 2.0], tf.float64), [[0]], [1]), [2.0, 2.0],
       tf.float64)
    eq(tf.tensor_scatter_nd_sub([1, 2, 3, 4], [[1], [1]], [10, 20]), [1, -28, 3, 4])
    eq(tf.tensor_scatter_nd_max([1, 2, 3, 4], [[1], [1], [3]], [10, 20, 1]), [1, 20, 3, 4])
    eq(tf.tensor_scatter_nd_min([1, 2, 3, 4], [[1], [1], [3]], [10, -20, 1]), [1, -20, 3, 1])
    # An existing value is kept unless an update beats it: NaN updates are
    # ignored, NaN entries stay.
    eq(tf.tensor_scatter_nd_max(tf.constant([1.0, np.nan]), [[0], [1]], [np.nan, 2.0]),
       [1.0, np.nan])
    eq(tf.tensor_scatter_nd_add([1, 2, 3], [[5], [0]], [1, 1], bad_indices_policy="IGNORE"),
       [2, 2, 3])


def test_tensor_scatter_errors():
    assert message(lambda: tf.tensor_scatter_nd_update([1, 2, 3, 4], [[4]], [10])) == \
        "indices[0] = [4] does not index into shape [4] [Op:TensorScatterUpdate]"
    assert message(lambda: tf.tensor_scatter_nd_update(tf.zeros([2, 2]), [[[0, 5]]], [[1.0]])) \
        == "indices[0,0] = [0, 5] does not index into shape [2,2] [Op:TensorScatterUpdate]"
    cases = [
        (([1.0, 2.0], [[1]], [10, 11]), "Outer dimensions of indices and update must match. "
                                        "Indices shape: [1,1], updates shape:[2]"),
        ((tf.zeros([2, 3]), [[0, 1, 2]], [5.0]), "Inner dimensions of output shape must match "
                                                 "inner dimensions of updates shape. Output: "
                                                 "[2,3] updates: [1]"),
        ((tf.zeros([2, 3]), [[1]], [[1.0, 2.0]]), "The inner 1 dimensions of output.shape=[2,3] "
                                                  "must match the inner 1 dimensions of "
                                                  "updates.shape=[1,2]"),
        (([1, 2, 3], [[1]], 5), "Updates shape must have rank at least one. Found:[]"),
        ((tf.zeros([2]), 1, [1.0]), "Indices shape must have rank at least one. Found:[]"),
        ((tf.zeros([0]), [[1]], [1.0]), "Indices and updates specified for empty output shape"),
        ((tf.zeros([2]), tf.zeros([1, 0], tf.int32), [[7.0, 8.0]]),
         "Indices and updates specified for empty output shape"),
        (([[1, 2], [3, 4]], [1], [10, 20]), "Dimensions [0,1) of indices[shape=[1]] = 1 must "
                                            "match dimensions [0,1) of updates[shape=[2]] = 2"),
    ]
    for args, msg in cases:
        assert message(lambda: tf.tensor_scatter_nd_update(*args)) == \
            msg + " [Op:TensorScatterUpdate]"
    with pytest.raises(TypeError, match=r"Cannot convert \[10.0\] to EagerTensor of dtype int32"):
        tf.tensor_scatter_nd_update([1, 2, 3, 4], [[1]], [10.0])
    with pytest.raises(IAE, match=r"cannot compute TensorScatterAdd as input #2\(zero-based\) "
                                  r"was expected to be a double tensor but is a float tensor"):
        tf.tensor_scatter_nd_add(tf.constant([1.0, 2.0], tf.float64), [[0]], tf.constant([1.0]))
    with pytest.raises(tf.errors.NotFoundError, match="TensorScatterAdd"):
        tf.tensor_scatter_nd_add(["a", "b"], [[1]], ["z"])
    with pytest.raises(IAE, match="Value for attr 'Tindices' of uint8"):
        tf.tensor_scatter_nd_update(tf.zeros([2]), tf.constant([[1]], tf.uint8), [1.0])


def test_tensor_scatter_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 4])
        for fn, op in ((tf.tensor_scatter_nd_update, "TensorScatterUpdate"),
                       (tf.tensor_scatter_nd_add, "TensorScatterAdd"),
                       (tf.tensor_scatter_nd_sub, "TensorScatterSub"),
                       (tf.tensor_scatter_nd_max, "TensorScatterMax"),
                       (tf.tensor_scatter_nd_min, "TensorScatterMin")):
            t = fn(x, [[1], [2]], ph([2, 4]))
            assert t.shape.as_list() == [None, 4] and t.op.type == op
        assert tf.tensor_scatter_nd_add(x, [[1, 1]], ph([1])).shape.as_list() == [None, 4]
        assert tf.tensor_scatter_nd_max(ph(None), [[1, 1]], ph([1])).shape.rank is None
        with pytest.raises(ValueError, match=r"Dimensions \[1,2\) of input\[shape=\[\?,4\]\]"):
            tf.tensor_scatter_nd_update(x, [[1], [2]], ph([2, 5]))
        with pytest.raises(TypeError, match="Input 'updates' of 'TensorScatterUpdate' Op has "
                                            "type int32 that does not match type float32 of "
                                            "argument 'tensor'."):
            tf.tensor_scatter_nd_update(x, [[1], [2]], ph([2, 4], tf.int32))


# --- split -------------------------------------------------------------------

def _r12():
    return tf.reshape(tf.constant(np.arange(12, dtype=np.int32)), [3, 4])


def test_split_values():
    x = _r12()
    a, b = tf.split(x, 2, axis=1)
    eq(a, [[0, 1], [4, 5], [8, 9]], tf.int32)
    eq(b, [[2, 3], [6, 7], [10, 11]])
    assert [t.shape for t in tf.split(x, 3)] == [(1, 4)] * 3
    eq(tf.split(x, 2, axis=-1)[0], [[0, 1], [4, 5], [8, 9]])
    eq(tf.split(x, 2, axis=tf.constant(1))[1], [[2, 3], [6, 7], [10, 11]])
    for sizes in ([1, 3], [1, -1], tf.constant([1, 3]), tf.constant([1, 3], tf.int64)):
        p, q = tf.split(x, sizes, axis=1)
        eq(p, [[0], [4], [8]])
        eq(q, [[1, 2, 3], [5, 6, 7], [9, 10, 11]])
    assert [t.shape for t in tf.split(x, [2, 2, -1], axis=1)] == [(3, 2), (3, 2), (3, 0)]
    assert [t.shape for t in tf.split(x, [0, 4], axis=1)] == [(3, 0), (3, 4)]
    eq(tf.split(x, [4], axis=1)[0], x.numpy())
    eq(tf.split(x, 1)[0], x.numpy())
    eq(tf.split(x, np.int64(3))[2], [[8, 9, 10, 11]])
    a, b = tf.split(tf.constant(["a", "b"]), 2)
    eq(b, [b"b"], tf.string)


def test_split_errors():
    x = _r12()
    assert message(lambda: tf.split(x, 2)) == (
        "Number of ways to split should evenly divide the split dimension, but got split_dim 0 "
        "(size = 3) and num_split 2 [Op:Split]")
    assert message(lambda: tf.split(x, 2, axis=2)) == \
        "-input rank(-2) <= split_dim < input rank (2), but got 2 [Op:Split]"
    assert message(lambda: tf.split(tf.constant(5), 1)) == \
        "-input rank(-0) <= split_dim < input rank (0), but got 0 [Op:Split]"
    determined = ("Determined shape must either match input shape along split_dim exactly if "
                  "fully specified, or be less than the size of the input along split_dim if not "
                  "fully specified.  Got: {} [Op:SplitV]")
    assert message(lambda: tf.split(x, [1, 2], axis=1)) == determined.format(3)
    assert message(lambda: tf.split(x, [5, -1], axis=1)) == determined.format(5)
    assert message(lambda: tf.split(x, [-1, -1], axis=1)) == \
        "There can only be one -1 in the input. [Op:SplitV]"
    assert message(lambda: tf.split(x, [1, -2, 5], axis=1)) == \
        "Split size at index 1 must be >= 0. Got: -2 [Op:SplitV]"
    assert message(lambda: tf.split(x, [[1, 3]], axis=1, num=2)) == (
        "size of the split_tensor must be 1-D and have the same elements as outputs got 2 -D "
        "and 2 elements [Op:SplitV]")
    assert message(lambda: tf.split(x, 0)).startswith(
        "Value for attr 'num_split' of 0 must be at least minimum 1")
    with pytest.raises(IAE, match="Value for attr 'Tlen' of float"):
        tf.split(x, [1.5, 2.5], axis=1)
    with pytest.raises(IAE, match="Value for attr 'Tlen' of float"):
        tf.split(x, [], axis=1)
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported as the "
                                         "num_or_size_splits argument to split. Argument "
                                         "provided: 2.0"):
        tf.split(x, 2.0)
    with pytest.raises(TypeError, match="Cannot convert 1.0 to EagerTensor of dtype int32"):
        tf.split(x, 2, axis=1.0)


def test_split_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 4])
        parts = tf.split(x, 2, axis=1)
        assert [p.shape.as_list() for p in parts] == [[None, 2]] * 2
        assert parts[0].op.type == "Split" and parts[0].op is parts[1].op
        assert [p.shape.as_list() for p in tf.split(x, 2, axis=0)] == [[None, 4]] * 2
        v = tf.split(x, [1, -1], axis=1)
        assert [p.shape.as_list() for p in v] == [[None, 1], [None, 3]]
        assert v[0].op.type == "SplitV"
        assert [p.shape.as_list() for p in tf.split(x, ph([None], tf.int32), axis=1, num=3)] \
            == [[None, None]] * 3
        assert [p.shape.as_list() for p in tf.split(x, 2, axis=ph([], tf.int32))] == \
            [[None, None]] * 2
        assert [p.shape.rank for p in tf.split(ph(None), 2, axis=1)] == [None, None]
        with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 3 but "
                                             "is 4"):
            tf.split(x, 3, axis=1)
        with pytest.raises(ValueError, match=r"can't split axis of size 4 into pieces of size "
                                             r"\[1,2\]"):
            tf.split(x, [1, 2], axis=1)
        with pytest.raises(ValueError, match="Split size at index 1 must be >= 0. Got: -1"):
            tf.split(ph([3, 4]), [4, -1], axis=0)
        with pytest.raises(ValueError, match=r"Cannot infer argument `num` from shape \(None,\)"):
            tf.split(x, ph([None], tf.int32), axis=1)


# --- pad ---------------------------------------------------------------------

def test_pad_values():
    x = tf.reshape(tf.constant(np.arange(6, dtype=np.int32)), [2, 3])
    eq(tf.pad(x, [[1, 0], [0, 2]]), [[0, 0, 0, 0, 0], [0, 1, 2, 0, 0], [3, 4, 5, 0, 0]],
       tf.int32)
    eq(tf.pad(x, [[1, 0], [0, 2]], constant_values=9),
       [[9, 9, 9, 9, 9], [0, 1, 2, 9, 9], [3, 4, 5, 9, 9]])
    eq(tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT"),
       [[5, 4, 3, 4, 5, 4, 3], [2, 1, 0, 1, 2, 1, 0], [5, 4, 3, 4, 5, 4, 3],
        [2, 1, 0, 1, 2, 1, 0]])
    eq(tf.pad(x, [[1, 1], [2, 2]], mode="symmetric"),
       [[1, 0, 0, 1, 2, 2, 1], [1, 0, 0, 1, 2, 2, 1], [4, 3, 3, 4, 5, 5, 4],
        [4, 3, 3, 4, 5, 5, 4]])
    eq(tf.pad(x, [[2, 2], [0, 0]], mode="SYMMETRIC"),
       [[3, 4, 5], [0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5], [0, 1, 2]])
    eq(tf.pad(x, [[1, 0], [0, 0]], mode="REFLECT", constant_values=3),
       [[3, 4, 5], [0, 1, 2], [3, 4, 5]])
    eq(tf.pad(tf.constant([1.0, 2.0]), [[1, 1]], constant_values=1), [1, 1, 2, 1], tf.float32)
    eq(tf.pad(tf.constant(["a"]), [[1, 1]]), [b"", b"a", b""], tf.string)
    eq(tf.pad(tf.constant(["a"]), [[1, 1]], constant_values="z"), [b"z", b"a", b"z"])
    eq(tf.pad(tf.constant([True]), [[1, 0]]), [False, True], tf.bool)
    eq(tf.pad(x, tf.constant([[1, 0], [0, 0]], tf.int64)), [[0, 0, 0], [0, 1, 2], [3, 4, 5]])
    eq(tf.pad(tf.constant(3), tf.zeros([0, 2], tf.int32)), 3)
    eq(tf.pad(x, [[1, 0], [0, 0]], constant_values=tf.constant(2)),
       [[2, 2, 2], [0, 1, 2], [3, 4, 5]])
    eq(tf.pad(x, [[1, 0], [0, 0]], constant_values=0.0), [[0, 0, 0], [0, 1, 2], [3, 4, 5]])


def test_pad_errors():
    x = tf.reshape(tf.constant(np.arange(6, dtype=np.int32)), [2, 3])
    cases = [
        (([[2, 2], [0, 0]], "REFLECT"), "paddings must be less than the dimension size: 2, 2 not "
                                        "less than 2 [Op:MirrorPad]"),
        (([[3, 0], [0, 0]], "SYMMETRIC"), "paddings must be no greater than the dimension size: "
                                          "3, 0 greater than 2 [Op:MirrorPad]"),
        (([[1, 0]], "CONSTANT"), "The first dimension of paddings must be the rank of inputs"
                                 "[1,2] [2,3] [Op:Pad]"),
        (([[-1, 0], [0, 0]], "CONSTANT"), "Paddings must be non-negative: -1 0 [Op:Pad]"),
        (([1, 0], "CONSTANT"), "paddings must be a matrix with 2 columns: [2] [Op:Pad]"),
    ]
    for (paddings, mode), msg in cases:
        assert message(lambda: tf.pad(x, paddings, mode=mode)) == msg
    assert message(lambda: tf.pad(tf.constant(3), [])) == \
        "paddings must be a matrix with 2 columns: [0] [Op:Pad]"
    assert message(lambda: tf.pad(x, [[1, 0], [0, 0]], constant_values=[1])) == \
        "constant_values must be a scalar. Found: [1] [Op:PadV2]"
    with pytest.raises(ValueError, match='Value of argument `mode` expected to be one of '
                                         '"CONSTANT", "REFLECT", or "SYMMETRIC". Received `mode` '
                                         '= FOO'):
        tf.pad(x, [[1, 0], [0, 0]], mode="FOO")
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.pad(x, [[1, 0], [0, 0]], constant_values=1.5)
    with pytest.raises(IAE, match="Value for attr 'Tpaddings' of float"):
        tf.pad(x, [[1.0, 0], [0, 0]])
    with pytest.raises(IAE, match=r"cannot compute PadV2 as input #2\(zero-based\) was expected "
                                  r"to be a int32 tensor but is a float tensor"):
        tf.pad(x, [[1, 0], [0, 0]], constant_values=tf.constant(2.0))


def test_pad_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 4])
        p = tf.pad(x, [[1, 2], [3, 4]])
        assert p.shape.as_list() == [None, 11] and p.op.type == "Pad"
        v2 = tf.pad(x, [[1, 2], [3, 4]], constant_values=1.0)
        assert v2.shape.as_list() == [None, 11] and v2.op.type == "PadV2"
        m = tf.pad(x, [[1, 2], [3, 4]], mode="REFLECT")
        assert m.shape.as_list() == [None, 11] and m.op.type == "MirrorPad"
        assert tf.pad(ph([3, 4]), [[1, 2], [3, 4]], mode="SYMMETRIC").shape == (6, 11)
        assert tf.pad(x, ph([2, 2], tf.int32)).shape.as_list() == [None, None]
        assert tf.pad(ph(None), [[1, 2], [3, 4]]).shape.as_list() == [None, None]
        assert tf.pad(ph(None), ph([None, 2], tf.int32)).shape.rank is None
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.pad(x, [[1, 2]])


# --- repeat ------------------------------------------------------------------

def test_repeat_values():
    x = tf.reshape(tf.constant(np.arange(6, dtype=np.int32)), [2, 3])
    eq(tf.repeat(x, 2), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5], tf.int32)
    eq(tf.repeat(x, 2, axis=0), [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]])
    eq(tf.repeat(x, [1, 2, 0], axis=1), [[0, 1, 1], [3, 4, 4]])
    eq(tf.repeat(x, [1, 2, 3, 4, 5, 6]), np.repeat(np.arange(6), np.arange(1, 7)))
    eq(tf.repeat(x, 2, axis=-1), [[0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5]])
    eq(tf.repeat(x, [2], axis=1), [[0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5]])
    eq(tf.repeat(3, 3), [3, 3, 3])
    eq(tf.repeat(tf.constant(3), 2, axis=0), [3, 3])
    eq(tf.repeat(x, tf.constant(2, tf.int64), axis=0), [[0, 1, 2], [0, 1, 2], [3, 4, 5],
                                                          [3, 4, 5]])
    eq(tf.repeat(x, tf.constant([1, 2], tf.int64), axis=0), [[0, 1, 2], [3, 4, 5], [3, 4, 5]])
    eq(tf.repeat(["a", "b"], 2), [b"a", b"a", b"b", b"b"], tf.string)
    assert tf.repeat(x, 0, axis=0).shape == (0, 3)


def test_repeat_errors():
    x = tf.reshape(tf.constant(np.arange(6, dtype=np.int32)), [2, 3])
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        tf.repeat(x, [1, 2], axis=1)
    with pytest.raises(ValueError, match="Dimensions 6 and 2 are not compatible"):
        tf.repeat(x, [1, 2], axis=None)
    with pytest.raises(ValueError, match="axis=2 out of bounds: expected -2<=axis<2"):
        tf.repeat(x, 2, axis=2)
    with pytest.raises(ValueError, match=r"Shape \(1, 2\) must have rank at most 1"):
        tf.repeat([1, 2], [[1, 2]])
    with pytest.raises(TypeError, match=r"Argument `tensor` \(name: repeats\) must be of type "
                                        r"integer. Received `tensor` = 1.5 of dtype: "
                                        r"<dtype: 'float32'>"):
        tf.repeat(x, 1.5)
    with pytest.raises(TypeError, match="Argument `axis` must be an int. Received `axis` = 1.0 "
                                        "of type float"):
        tf.repeat(x, [1, 2, 0], axis=1.0)
    with pytest.raises(IAE, match="non-negative"):
        tf.repeat(x, -1)


def test_repeat_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 4])
        assert tf.repeat(x, 2, axis=1).shape.as_list() == [None, 8]
        assert tf.repeat(x, 2, axis=0).shape.as_list() == [None, 4]
        assert tf.repeat(x, [1, 2, 3, 4], axis=1).shape.as_list() == [None, 10]
        assert tf.repeat(x, 2).shape.as_list() == [None]
        assert tf.repeat(x, ph([], tf.int32), axis=1).shape.as_list() == [None, None]
        assert tf.repeat(ph([3, 4]), [1, 2, 3], axis=0).shape.as_list() == [6, 4]
        with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
            tf.repeat(ph([3, 4]), [1, 2], axis=0)


# --- unique ------------------------------------------------------------------

def test_unique():
    y, idx = tf.unique([1, 1, 3, 2, 3])
    eq(y, [1, 3, 2], tf.int32)
    eq(idx, [0, 0, 1, 2, 1], tf.int32)
    u = tf.unique([1.0, np.nan, np.nan])
    eq(u.y, [1.0, np.nan, np.nan], tf.float32)
    eq(u.idx, [0, 1, 2])
    u = tf.unique(["b", "a", "b"])
    eq(u.y, [b"b", b"a"], tf.string)
    eq(u.idx, [0, 1, 0])
    eq(tf.unique([1, 2], out_idx=tf.int64).idx, [0, 1], tf.int64)
    eq(tf.unique([True, False, True]).y, [True, False], tf.bool)
    eq(tf.unique(tf.constant([2, 1], tf.int8)).y, [2, 1], tf.int8)
    u = tf.unique([])
    assert u.y.shape == (0,) and u.y.dtype == tf.float32 and u.idx.shape == (0,)
    u = tf.unique([1])
    assert type(u).__name__ == "Unique" and u._fields == ("y", "idx")
    assert str(u) == ("Unique(y=<tf.Tensor: shape=(1,), dtype=int32, numpy=array([1], "
                      "dtype=int32)>, idx=<tf.Tensor: shape=(1,), dtype=int32, "
                      "numpy=array([0], dtype=int32)>)")
    c = tf.unique_with_counts([1, 1, 3, 2, 3])
    assert type(c).__name__ == "UniqueWithCounts" and c._fields == ("y", "idx", "count")
    eq(c.y, [1, 3, 2])
    eq(c.idx, [0, 0, 1, 2, 1])
    eq(c.count, [2, 2, 1], tf.int32)
    c = tf.unique_with_counts([1, 2], out_idx=tf.int64)
    assert c.idx.dtype == tf.int64 and c.count.dtype == tf.int64
    assert message(lambda: tf.unique([[1, 2]])) == "unique expects a 1D vector. [Op:Unique]"
    assert message(lambda: tf.unique(5)) == "unique expects a 1D vector. [Op:Unique]"
    with pytest.raises(IAE, match="Value for attr 'out_idx' of float"):
        tf.unique([1, 2], out_idx=tf.float32)


def test_unique_graph_and_no_gradient():
    with tf.Graph().as_default():
        y, idx = tf.unique(ph([5]))
        assert y.shape.as_list() == [None] and idx.shape.as_list() == [5]
        assert y.op.type == "Unique" and idx.dtype == tf.int32
        c = tf.unique_with_counts(ph([None]))
        assert [t.shape.as_list() for t in c] == [[None]] * 3
        assert c.y.op.type == "UniqueWithCounts"
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.unique(ph([None, 4]))
    x = tf.constant([1.0, 2.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.unique(x).y
    with pytest.raises(LookupError, match="Unique"):
        tape.gradient(y, x)


# --- roll --------------------------------------------------------------------

def test_roll():
    x = tf.reshape(tf.constant(np.arange(6, dtype=np.int32)), [2, 3])
    eq(tf.roll([1, 2, 3, 4, 5], 2, 0), [4, 5, 1, 2, 3], tf.int32)
    eq(tf.roll([1, 2, 3, 4, 5], -7, 0), [3, 4, 5, 1, 2])
    eq(tf.roll(x, [1, 1], [0, 1]), [[5, 3, 4], [2, 0, 1]])
    eq(tf.roll(x, [1, 2], [1, 1]), [[0, 1, 2], [3, 4, 5]])
    eq(tf.roll(x, 1, -1), [[2, 0, 1], [5, 3, 4]])
    eq(tf.roll(x, tf.constant(1, tf.int64), 0), [[3, 4, 5], [0, 1, 2]])
    assert tf.roll(tf.zeros([0, 2]), 1, 0).shape == (0, 2)
    assert message(lambda: tf.roll(x, 1, 2)) == "axis 2 is out of range [Op:Roll]"
    assert message(lambda: tf.roll(x, [1, 2], [1])) == \
        "shift and axis must have the same size [Op:Roll]"
    assert message(lambda: tf.roll(x, [[1]], [[1]])) == \
        "shift must be a scalar or a 1-D vector. Found: [1,1] [Op:Roll]"
    assert message(lambda: tf.roll(tf.constant(3), 1, 0)) == \
        "input must be 1-D or higher [Op:Roll]"
    with pytest.raises(IAE, match="Value for attr 'Tshift' of float"):
        tf.roll(x, 1.5, 0)
    with tf.Graph().as_default():
        r = tf.roll(ph([None, 4]), 1, 0)
        assert r.shape.as_list() == [None, 4] and r.op.type == "Roll"
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are "
                                             "2 and 1"):
            tf.roll(ph([None, 4]), [1, 2], [0])


# --- gradients ---------------------------------------------------------------

def _r(*shape):
    return tf.constant(np.asarray(np.random.RandomState(len(shape) + sum(shape)).randn(*shape),
                                  dtype=np.float64))


GRADIENT_CASES = {
    "scatter_nd": (lambda u: tf.scatter_nd([[1], [3], [1]], u, [5, 2]), [(3, 2)]),
    "tensor_scatter_nd_update": (lambda t, u: tf.tensor_scatter_nd_update(t, [[1], [3]], u),
                                 [(5, 2), (2, 2)]),
    "tensor_scatter_nd_add": (lambda t, u: tf.tensor_scatter_nd_add(t, [[1], [1]], u),
                              [(5,), (2,)]),
    "tensor_scatter_nd_sub": (lambda t, u: tf.tensor_scatter_nd_sub(t, [[1, 0], [1, 1]], u),
                              [(3, 2), (2,)]),
    "tensor_scatter_nd_max": (lambda t, u: tf.tensor_scatter_nd_max(t, [[1], [2]], u),
                              [(4,), (2,)]),
    "tensor_scatter_nd_min": (lambda t, u: tf.tensor_scatter_nd_min(t, [[1], [2]], u),
                              [(4,), (2,)]),
    "split": (lambda a: tf.split(a, 3, axis=1)[1] * 2.0 + tf.split(a, 3, axis=1)[2], [(2, 6)]),
    "split_sizes": (lambda a: tf.split(a, [1, -1], axis=0)[1] * 2.0, [(3, 2)]),
    "pad": (lambda a: tf.pad(a, [[1, 0], [2, 1]]), [(2, 3)]),
    "pad_constant_values": (lambda a, c: tf.pad(a, [[1, 0], [2, 1]], constant_values=c),
                            [(2, 3), ()]),
    "pad_reflect": (lambda a: tf.pad(a, [[1, 1], [2, 2]], mode="REFLECT"), [(3, 4)]),
    "pad_symmetric": (lambda a: tf.pad(a, [[2, 1], [3, 2]], mode="SYMMETRIC"), [(3, 4)]),
    "repeat": (lambda a: tf.repeat(a, 3, axis=1), [(2, 3)]),
    "repeat_per_element": (lambda a: tf.repeat(a, [1, 0, 2], axis=1), [(2, 3)]),
    "repeat_flat": (lambda a: tf.repeat(a, 2), [(2, 3)]),
    "roll": (lambda a: tf.roll(a, [1, -2], [0, 1]), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradients_match_finite_differences(name):
    f, shapes = GRADIENT_CASES[name]
    assert_gradients_match(f, [_r(*s) for s in shapes], rtol=1e-6, atol=1e-7)


def test_scatter_max_gradient_splits_ties():
    x = tf.constant([1.0, 2.0, 1.0, 3.0])
    w = tf.constant([1.0, 10.0, 100.0, 1000.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tensor_scatter_nd_max(x, [[0], [0], [1]], [5.0, 5.0, 2.0])
        z = tf.reduce_sum(y * w)
    eq(tape.gradient(z, x), [0.0, 5.0, 100.0, 1000.0])


def test_repeat_gradient_counts_copies():
    x = tf.constant([1.0, 2.0, 1.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.repeat(x, [1, 2, 0, 1])
    eq(tape.gradient(y, x), [1.0, 2.0, 0.0, 1.0])


def test_gradients_build_in_graphs_with_partial_shapes():
    cases = [
        lambda x: tf.tensor_scatter_nd_update(x, [[0]], tf.ones([1, 4])),
        lambda x: tf.tensor_scatter_nd_max(x, [[0]], tf.ones([1, 4])),
        lambda x: tf.split(x, 2, axis=1)[0],
        lambda x: tf.split(x, [1, -1], axis=1, num=2)[1],
        lambda x: tf.pad(x, [[1, 0], [2, 1]]),
        lambda x: tf.pad(x, ph([2, 2], tf.int32)),
        lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=2.0),
        lambda x: tf.pad(x, [[1, 0], [2, 1]], mode="REFLECT"),
        lambda x: tf.repeat(x, 2, axis=0),
        lambda x: tf.repeat(x, [1, 2, 0, 1], axis=1),
        lambda x: tf.repeat(x, ph([None], tf.int32), axis=0),
        lambda x: tf.roll(x, 1, 0),
    ]
    for f in cases:
        with tf.Graph().as_default():
            x = ph([None, 4])
            g = tf.gradients(f(x), x)[0]
            assert g.shape.as_list() == [None, 4] and g.dtype == tf.float32
