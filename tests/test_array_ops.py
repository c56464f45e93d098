"""Array creation and shape ops (rillflow/ops/core/shape_ops.py, constant_ops.py,
join_ops.py, dim_ops.py, broadcast_ops.py): values, dtypes, errors, graph-mode static
shapes and gradients."""
import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match, eq, ph

IAE = tf.errors.InvalidArgumentError


# --- constant ----------------------------------------------------------------

def test_constant_dtypes_and_casts():
    eq(tf.constant([1, 2]), [1, 2], tf.int32)
    eq(tf.constant([1, 2], dtype=tf.float64), [1.0, 2.0], tf.float64)
    eq(tf.constant(np.array([1.5, 2.5]), dtype=tf.int32), [1, 2], tf.int32)
    eq(tf.constant(300, dtype=tf.uint8), 44, tf.uint8)
    eq(tf.constant(True, dtype=tf.int32), 1, tf.int32)
    assert tf.constant(1, dtype="float16").dtype == tf.float16
    assert tf.constant(1, dtype=np.float64).dtype == tf.float64
    assert tf.constant([1, 2.5]).dtype == tf.float32


def test_constant_shape_fills_or_reshapes():
    eq(tf.constant(7, shape=[2, 3]), np.full((2, 3), 7), tf.int32)
    eq(tf.constant([7], shape=[2, 3]), np.full((2, 3), 7))
    eq(tf.constant([1, 2, 3, 4], shape=[2, 2]), [[1, 2], [3, 4]])
    eq(tf.constant([[1, 2]], shape=[2]), [1, 2])
    eq(tf.constant(1, shape=[]), 1)
    t = tf.constant([], shape=[0, 3])
    assert t.shape == (0, 3) and t.dtype == tf.float32
    eq(tf.constant(["a", "b"], shape=[2, 1]), [[b"a"], [b"b"]], tf.string)
    eq(tf.constant(tf.constant(1.0), shape=[3]), [1.0, 1.0, 1.0])
    eq(tf.constant(tf.constant([1.0, 2.0]), shape=[2, 1]), [[1.0], [2.0]])


def test_constant_type_errors():
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.constant(1.5, dtype=tf.int32)
    with pytest.raises(TypeError, match=r"Eager execution of tf.constant with unsupported shape. "
                                        r"Tensor \[1 2 3\] \(converted from \[1, 2, 3\]\) has 3 "
                                        r"elements, but got `shape` \(2, 2\) with 4 elements\)."):
        tf.constant([1, 2, 3], shape=[2, 2])
    with pytest.raises(TypeError, match=r"got `shape` \(3, None\) with None elements"):
        tf.constant([1, 2, 3, 4, 5, 6], shape=(3, None))
    with pytest.raises(TypeError, match=r"Expected tensor \[1 2\] with dtype tf.float64, but got "
                                        r"dtype tf.int32."):
        tf.constant(tf.constant([1, 2]), dtype=tf.float64)
    with pytest.raises(TypeError, match="has 2 elements, but got `shape` \\(3,\\)"):
        tf.constant(tf.constant([1.0, 2.0]), shape=[3])
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        tf.constant([1, 2], shape=(2, -1))
    with pytest.raises(ValueError, match="non-rectangular"):
        tf.constant([[1, 2], [3]])


def test_constant_in_graph():
    with tf.Graph().as_default():
        c = tf.constant([[1, 2]], name="abc")
        assert c.name == "abc:0" and c.op.type == "Const"
        assert c.shape == (1, 2) and c.dtype == tf.int32
        with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2, 2\), but got \(3,\)"):
            tf.constant([1, 2, 3], shape=[2, 2])
        with pytest.raises(TypeError, match="Expected any non-tensor type"):
            tf.constant(ph([2]))


# --- reshape -----------------------------------------------------------------

def test_reshape_values_and_minus_one():
    r6 = tf.constant(np.arange(6, dtype=np.int32))
    eq(tf.reshape(r6, [3, -1]), [[0, 1], [2, 3], [4, 5]], tf.int32)
    eq(tf.reshape(r6, tf.TensorShape([3, 2])), np.arange(6).reshape(3, 2))
    eq(tf.reshape(r6, np.array([3, 2], dtype=np.int64)), np.arange(6).reshape(3, 2))
    eq(tf.reshape(5, [1, 1]), [[5]])
    eq(tf.reshape([5], []), 5)
    eq(tf.reshape([1], 1), [1])
    assert tf.reshape(tf.constant([], dtype=tf.int32), [-1, 3]).shape == (0, 3)
    # TensorFlow's rules for -1 with zero-sized shapes.
    assert tf.reshape(tf.constant([], dtype=tf.int32), [-1, 0]).shape == (1, 0)
    assert tf.reshape(tf.constant([], dtype=tf.int32), [0, -1]).shape == (0, 1)
    assert tf.reshape(tf.zeros([0, 3]), [2, -1]).shape == (2, 0)
    assert tf.reshape(tf.zeros([0, 3]), [0, -1, 2]).shape == (0, 1, 2)
    eq(tf.reshape(tf.constant(["a", "b"]), [2, 1]), [[b"a"], [b"b"]], tf.string)


@pytest.mark.parametrize("shape, msg", [
    ([-1, 4], "Input to reshape is a tensor with 6 values, but the requested shape requires a "
              "multiple of 4 [Op:Reshape]"),
    ([-1, -1], "Only one input size may be -1, not both 0 and 1 [Op:Reshape]"),
    ([4], "Input to reshape is a tensor with 6 values, but the requested shape has 4 "
          "[Op:Reshape]"),
    ([-2, 3], "Size 0 must be non-negative, not -2 [Op:Reshape]"),
    ([0, -1], "Input to reshape is a tensor with 6 values, but the requested shape has 0 "
              "[Op:Reshape]"),
    ([[2, 3]], "sizes input must be 1-D, not [1,2] [Op:Reshape]"),
])
def test_reshape_eager_errors(shape, msg):
    with pytest.raises(IAE) as e:
        tf.reshape(tf.zeros([2, 3]), shape)
    assert e.value.message == msg


def test_reshape_shape_dtype_must_be_integer():
    with pytest.raises(IAE, match="Value for attr 'Tshape' of float is not in the list of "
                                  "allowed values: int32, int64"):
        tf.reshape(tf.zeros([2, 3]), [2.0, 3])
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Value passed to parameter 'shape' has DataType "
                                            "float32 not in list of allowed values: int32, int64"):
            tf.reshape(ph([None, 3]), tf.constant([3.0, 1.0]))


def test_reshape_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 3])
        assert tf.reshape(x, [4, 6]).shape.as_list() == [4, 6]
        assert tf.reshape(x, [-1, 6]).shape.as_list() == [None, 6]
        assert tf.reshape(x, [-1]).shape.as_list() == [None]
        assert tf.reshape(x, ph([None], tf.int32)).shape.rank is None
        assert tf.reshape(x, ph([3], tf.int32)).shape.as_list() == [None, None, None]
        assert tf.reshape(ph(None), [2, -1]).shape.as_list() == [2, None]
        assert tf.reshape(x, tf.stack([2, tf.constant(3), -1])).shape.as_list() == [2, 3, None]
        assert tf.reshape(x, tf.stack([2, ph([], tf.int32), -1])).shape.as_list() == \
            [2, None, None]
        assert tf.reshape(x, tf.shape(x)).shape.as_list() == [None, 3]
        assert tf.reshape(x, [-1, -1]).shape.as_list() == [None, None]
        assert tf.reshape(ph([2, 3]), [3, -1]).shape.as_list() == [3, 2]
        assert tf.reshape(ph([0, None]), [-1]).shape.as_list() == [0]
        assert tf.reshape(ph([2, 0]), [-1, 5]).shape.as_list() == [0, 5]
        r = tf.reshape(x, [-1])
        assert r.op.type == "Reshape" and r.dtype == tf.float32
        with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 3 but "
                                             "is 20"):
            tf.reshape(x, [4, 5])
        with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 6 elements to shape "
                                             r"\[7\] \(7 elements\)"):
            tf.reshape(ph([2, 3]), [7])
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.reshape(ph([2, 3]), [[6]])


# --- shape, size, rank -------------------------------------------------------

def test_shape_size_rank_eager():
    a = tf.constant([[1, 2], [3, 4]])
    eq(tf.shape(a), [2, 2], tf.int32)
    eq(tf.shape(a, out_type=tf.int64), [2, 2], tf.int64)
    eq(tf.shape(5.0), np.zeros(0), tf.int32)
    eq(tf.shape([[1, 2, 3]]), [1, 3])
    eq(tf.shape(tf.Variable([1.0, 2.0])), [2])
    eq(tf.size(a), 4, tf.int32)
    eq(tf.size(a, out_type=tf.int64), 4, tf.int64)
    eq(tf.size(tf.zeros([2, 0])), 0)
    eq(tf.size(a, out_type=tf.float32), 4.0, tf.float32)
    eq(tf.rank(a), 2, tf.int32)
    eq(tf.rank([[1]]), 2)
    s = tf.shape_n([a, tf.constant([[1, 2, 3]])])
    eq(s[0], [2, 2])
    eq(s[1], [1, 3])
    with pytest.raises(IAE, match="Value for attr 'out_type' of float is not in the list of "
                                  "allowed values: int32, int64"):
        tf.shape(a, out_type=tf.float32)
    with pytest.raises(IAE, match="cannot compute ShapeN as input #1"):
        tf.shape_n([a, tf.constant(1.0)])


def test_shape_size_rank_are_constants_when_known_in_graphs():
    with tf.Graph().as_default():
        known = ph([2, 3])
        s = tf.shape(known)
        assert s.op.type == "Const" and s.shape == (2,) and s.dtype == tf.int32
        assert tf.size(known).op.type == "Const"
        assert tf.rank(known).op.type == "Const"
        partial = ph([None, 3])
        s = tf.shape(partial, out_type=tf.int64)
        assert s.op.type == "Shape" and s.shape.as_list() == [2] and s.dtype == tf.int64
        n = tf.size(partial)
        assert n.op.type == "Size" and n.shape == () and n.dtype == tf.int32
        assert tf.rank(partial).op.type == "Const"
        unknown = ph(None)
        assert tf.shape(unknown).shape.as_list() == [None]
        r = tf.rank(unknown)
        assert r.op.type == "Rank" and r.shape == ()


# --- stack / unstack ---------------------------------------------------------

def test_stack_values_and_dtypes():
    a = tf.constant([[1, 2], [3, 4]])
    eq(tf.stack([a, a], axis=1), np.stack([a.numpy()] * 2, axis=1), tf.int32)
    eq(tf.stack([a, a], axis=-3), np.stack([a.numpy()] * 2, axis=0))
    eq(tf.stack([1, 2.5]), [1.0, 2.5], tf.float32)
    eq(tf.stack([tf.constant(1.0), 2]), [1.0, 2.0], tf.float32)
    eq(tf.stack([1, tf.constant(2.0)]), [1.0, 2.0], tf.float32)
    eq(tf.stack([[1, 2], tf.constant([3.0, 4.0])], axis=1), [[1, 3], [2, 4]], tf.float32)
    eq(tf.stack(["a", "bc"]), [b"a", b"bc"], tf.string)
    assert tf.stack([]).shape == (0,) and tf.stack([]).dtype == tf.float32
    eq(tf.stack(a), a.numpy())


def test_stack_errors():
    a = tf.constant([[1, 2], [3, 4]])
    with pytest.raises(IAE) as e:
        tf.stack([a, tf.constant([[5, 6]])])
    assert e.value.message == ("Shapes of all inputs must match: values[0].shape = [2,2] != "
                               "values[1].shape = [1,2] [Op:Pack]")
    with pytest.raises(IAE, match=r"cannot compute Pack as input #1\(zero-based\) was expected "
                                  r"to be a int32 tensor but is a float tensor \[Op:Pack\]"):
        tf.stack([tf.constant(1), tf.constant(2.0)], axis=0)
    with pytest.raises(TypeError, match=r"Cannot convert \[1.5, 2\] to EagerTensor of dtype "
                                        r"int32"):
        tf.stack([[1.5, 2], tf.constant([3, 4])], axis=1)
    with pytest.raises(ValueError, match=r"Argument `axis` = 3 not in range \[-3, 3\)"):
        tf.stack([a, a], axis=3)


def test_stack_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 3])
        s = tf.stack([x, x], axis=1)
        assert s.shape.as_list() == [None, 2, 3] and s.op.type == "Pack"
        assert tf.stack([x, ph([2, None])], axis=-1).shape.as_list() == [2, 3, 2]
        assert tf.stack([x, ph(None)]).shape.as_list() == [2, None, 3]
        assert tf.stack([ph(None)], axis=3).shape.rank is None
        with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal, but are "
                                             r"3 and 4. Shapes are \[\?,3\] and \[2,4\]"):
            tf.stack([x, ph([2, 4])])
        with pytest.raises(TypeError, match="Tensors in list passed to 'values' of 'Pack' Op "
                                            r"have types \[float32, int32\] that don't all "
                                            "match"):
            tf.stack([x, ph([None, 3], tf.int32)])


def test_unstack():
    a = tf.constant([[1, 2, 3], [4, 5, 6]])
    rows = tf.unstack(a)
    assert len(rows) == 2
    eq(rows[1], [4, 5, 6], tf.int32)
    cols = tf.unstack(a, axis=-1)
    assert len(cols) == 3
    eq(cols[2], [3, 6])
    s = tf.unstack(tf.constant(["a", "bc"]))
    eq(s[1], b"bc", tf.string)
    assert tf.unstack(tf.zeros([0, 3])) == []
    with pytest.raises(IAE) as e:
        tf.unstack(a, num=3)
    assert e.value.message == "Input shape axis 0 must equal 3, got shape [2,3] [Op:Unpack]"
    with pytest.raises(ValueError, match=r"Argument `axis` = 2 not in range \[-2, 2\)"):
        tf.unstack(a, axis=2)
    with pytest.raises(ValueError, match=r"Argument `axis` = 0 not in range \[0, 0\)"):
        tf.unstack(tf.constant(1))
    with tf.Graph().as_default():
        x = ph([None, 3])
        assert [t.shape.as_list() for t in tf.unstack(x, axis=1)] == [[None]] * 3
        assert [t.shape.as_list() for t in tf.unstack(x, num=2)] == [[3], [3]]
        assert [t.shape.rank for t in tf.unstack(ph(None), num=2, axis=1)] == [None, None]
        with pytest.raises(ValueError, match=r"Cannot infer argument `num` from shape "
                                             r"\(None, 3\)"):
            tf.unstack(x)
        with pytest.raises(ValueError, match="Dimension must be 3 but is 2"):
            tf.unstack(ph([2, 3]), num=3)


# --- concat ------------------------------------------------------------------

def test_concat_values_and_dtypes():
    a = tf.constant([[1, 2], [3, 4]])
    b = tf.constant([[5, 6]])
    eq(tf.concat([a, b], 0), [[1, 2], [3, 4], [5, 6]], tf.int32)
    eq(tf.concat([a, b], -2), [[1, 2], [3, 4], [5, 6]])
    eq(tf.concat([a, a], 1), [[1, 2, 1, 2], [3, 4, 3, 4]])
    eq(tf.concat([[1], [2]], tf.constant(0, tf.int64)), [1, 2])
    eq(tf.concat([[1, 2], tf.constant([3.0])], 0), [1.0, 2.0, 3.0], tf.float32)
    eq(tf.concat([tf.constant([1.0, 2.0]), [3]], 0), [1.0, 2.0, 3.0], tf.float32)
    eq(tf.concat([[b"a"], [b"b"]], 0), [b"a", b"b"], tf.string)
    eq(tf.concat([tf.zeros([2, 0]), tf.ones([2, 1])], 1), [[1.0], [1.0]])
    eq(tf.concat(a, 0), a.numpy())
    eq(tf.concat([a], 5), a.numpy())


def test_concat_errors():
    a = tf.constant([[1, 2], [3, 4]])
    cases = [
        (([a, tf.constant([[5, 6]])], 1),
         "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [2,2] vs. shape[1] = "
         "[1,2] [Op:ConcatV2]"),
        (([a, a], 2), "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but "
                      "got 2 [Op:ConcatV2]"),
        (([a, tf.constant([1, 2])], 0), "ConcatOp : Ranks of all input tensors should match: "
                                        "shape[0] = [2,2] vs. shape[1] = [2] [Op:ConcatV2]"),
        (([tf.constant(1), tf.constant(2)], 0), "ConcatOp : Can't concatenate scalars (use "
                                                "tf.stack instead) [Op:ConcatV2]"),
        (([a, tf.constant([[1.0, 2.0]])], 0), "cannot compute ConcatV2 as input #1(zero-based) "
                                              "was expected to be a int32 tensor but is a float "
                                              "tensor [Op:ConcatV2]"),
    ]
    for args, msg in cases:
        with pytest.raises(IAE) as e:
            tf.concat(*args)
        assert e.value.message == msg
    with pytest.raises(TypeError, match=r"Cannot convert \[3.5\] to EagerTensor of dtype int32"):
        tf.concat([[1, 2], [3.5]], 0)
    with pytest.raises(IAE, match="Value for attr 'Tidx' of float"):
        tf.concat([[1], [2]], 0.0)
    with pytest.raises(ValueError, match="List argument 'values' to 'ConcatV2' Op with length 0"):
        tf.concat([], 0)


def test_concat_static_shapes():
    with tf.Graph().as_default():
        x = ph([None, 3])
        c = tf.concat([x, ph([2, None])], 0)
        assert c.shape.as_list() == [None, 3] and c.op.type == "ConcatV2"
        assert tf.concat([x, ph([2, None])], 1).shape.as_list() == [2, None]
        assert tf.concat([ph([2, 3]), ph([4, 3])], 0).shape.as_list() == [6, 3]
        assert tf.concat([x, ph(None)], 0).shape.as_list() == [None, 3]
        assert tf.concat([x, x], ph([], tf.int32)).shape.as_list() == [None, None]
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are "
                                             r"3 and 4. Shapes are \[3\] and \[4\]"):
            tf.concat([x, ph([2, 4])], 0)
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            tf.concat([x, ph([2])], 0)
        with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
            tf.concat([x, x], 2)
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.concat([x, x], [0])
        with pytest.raises(TypeError, match="'ConcatV2' Op have types"):
            tf.concat([x, ph([None, 3], tf.int32)], 0)


# --- expand_dims / squeeze ---------------------------------------------------

def test_expand_dims():
    a = tf.constant([[1, 2], [3, 4]])
    assert tf.expand_dims(a, 0).shape == (1, 2, 2)
    assert tf.expand_dims(a, -1).shape == (2, 2, 1)
    assert tf.expand_dims(a, [1]).shape == (2, 1, 2)
    assert tf.expand_dims(a, tf.constant(2, tf.int64)).shape == (2, 2, 1)
    eq(tf.expand_dims("a", 0), [b"a"], tf.string)
    for axis in (3, -4):
        with pytest.raises(IAE) as e:
            tf.expand_dims(a, axis)
        assert e.value.message == (f"Tried to expand dim index {axis} for tensor with 2 "
                                   "dimensions. [Op:ExpandDims]")
    with pytest.raises(IAE, match="'dim' must be a tensor with a single value"):
        tf.expand_dims(a, [1, 2])
    with pytest.raises(TypeError, match="Cannot convert 0.5 to EagerTensor of dtype int32"):
        tf.expand_dims(a, 0.5)
    with tf.Graph().as_default():
        assert tf.expand_dims(ph([None, 3]), 1).shape.as_list() == [None, 1, 3]
        assert tf.expand_dims(ph([None, 3]), -1).shape.as_list() == [None, 3, 1]
        assert tf.expand_dims(ph([None, 3]), ph([], tf.int32)).shape.rank is None
        assert tf.expand_dims(ph(None), 0).shape.rank is None
        with pytest.raises(ValueError, match=r"dim 5 not in the interval \[-3, 2\]"):
            tf.expand_dims(ph([2, 3]), 5)
        with pytest.raises(ValueError, match="'dim' input must be a tensor with a single value"):
            tf.expand_dims(ph([2, 3]), [0, 1])


def test_squeeze():
    z = tf.zeros([1, 2, 1])
    assert tf.squeeze(z).shape == (2,)
    assert tf.squeeze(z, axis=0).shape == (2, 1)
    assert tf.squeeze(z, axis=[-1]).shape == (1, 2)
    assert tf.squeeze(z, axis=(0, 2)).shape == (2,)
    assert tf.squeeze(tf.zeros([1, 2]), axis=[0, 0]).shape == (2,)
    assert tf.squeeze(tf.zeros([1, 1])).shape == ()
    with pytest.raises(IAE) as e:
        tf.squeeze(z, axis=1)
    assert e.value.message == "Can not squeeze dim[1], expected a dimension of 1, got 2 " \
                              "[Op:Squeeze]"
    with pytest.raises(IAE) as e:
        tf.squeeze(z, axis=3)
    assert e.value.message == "Tried to squeeze dim index 3 for tensor with 3 dimensions. " \
                              "[Op:Squeeze]"
    with tf.Graph().as_default():
        assert tf.squeeze(ph([1, None, 1])).shape.rank is None
        assert tf.squeeze(ph([1, None, 1]), [0]).shape.as_list() == [None, 1]
        assert tf.squeeze(ph([1, None, 1]), [1]).shape.as_list() == [1, 1]
        assert tf.squeeze(ph([1, 3, 1])).shape.as_list() == [3]
        assert tf.squeeze(ph(None), [1]).shape.rank is None
        with pytest.raises(ValueError, match="Can not squeeze dim\\[1\\], expected a dimension "
                                             "of 1, got 2"):
            tf.squeeze(ph([1, 2, 1]), [1])
        with pytest.raises(ValueError, match=r"squeeze_dims\[0\] not in \[-2,2\)"):
            tf.squeeze(ph([1, 3]), [2])


# --- transpose / tile / broadcast_to -----------------------------------------

def test_transpose():
    a = tf.constant([[1, 2, 3]])
    eq(tf.transpose(a), [[1], [2], [3]], tf.int32)
    assert tf.transpose(tf.zeros([2, 3, 4]), [1, 0, 2]).shape == (3, 2, 4)
    assert tf.transpose(tf.zeros([2, 3]), [-1, 0]).shape == (3, 2)
    assert tf.transpose(tf.zeros([2, 3]), tf.constant([1, 0], tf.int64)).shape == (3, 2)
    eq(tf.transpose(tf.constant(5)), 5)
    c = tf.constant([[1 + 2j, 3j]])
    eq(tf.transpose(c, conjugate=True), [[1 - 2j], [-3j]], tf.complex128)
    eq(tf.transpose(c), [[1 + 2j], [3j]])
    eq(tf.transpose(a, conjugate=True), [[1], [2], [3]])
    eq(tf.transpose(tf.constant([["a", "b"]])), [[b"a"], [b"b"]])
    for perm, msg in (([0, 0], "1 is missing from {0,0}. [Op:Transpose]"),
                      ([0, 1, 2], "transpose expects a vector of size 2. But input(1) is a "
                                  "vector of size 3 [Op:Transpose]"),
                      ([0, 2], "2 is out of range [0 .. 2) [Op:Transpose]")):
        with pytest.raises(IAE) as e:
            tf.transpose(tf.zeros([2, 2]), perm)
        assert e.value.message == msg
    with tf.Graph().as_default():
        x = ph([None, 3])
        t = tf.transpose(x)
        assert t.shape.as_list() == [3, None] and t.op.type == "Transpose"
        assert tf.transpose(x, ph([2], tf.int32)).shape.as_list() == [None, None]
        assert tf.transpose(ph(None)).shape.rank is None
        assert tf.transpose(ph([2, 3], tf.complex64), conjugate=True).op.type == \
            "ConjugateTranspose"
        with pytest.raises(ValueError, match="perm dim 2 is out of range of input rank 2"):
            tf.transpose(ph([2, 3]), [0, 2])
        with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
            tf.transpose(ph([2, 3]), [0, 1, 2])


def test_tile():
    a = tf.constant([[1, 2], [3, 4]])
    eq(tf.tile(a, [1, 2]), [[1, 2, 1, 2], [3, 4, 3, 4]], tf.int32)
    eq(tf.tile([1, 2], tf.constant([2], tf.int64)), [1, 2, 1, 2])
    eq(tf.tile(tf.constant(3), []), 3)
    eq(tf.tile(tf.constant(["a"]), [2]), [b"a", b"a"])
    assert tf.tile(a, [0, 1]).shape == (0, 2)
    for mult, msg in (([2], "Expected multiples argument to be a vector of length 2 but got "
                            "length 1 [Op:Tile]"),
                      ([-1, 1], "Expected multiples[0] >= 0, but got -1 [Op:Tile]"),
                      ([[2, 1]], "Expected multiples to be 1-D, but got shape [1,2] [Op:Tile]")):
        with pytest.raises(IAE) as e:
            tf.tile(a, mult)
        assert e.value.message == msg
    with pytest.raises(IAE, match="Value for attr 'Tmultiples' of float"):
        tf.tile([1, 2], [2.0])
    with tf.Graph().as_default():
        x = ph([None, 3])
        assert tf.tile(x, [2, 3]).shape.as_list() == [None, 9]
        assert tf.tile(x, ph([None], tf.int32)).shape.as_list() == [None, None]
        assert tf.tile(ph(None), [2, 3]).shape.as_list() == [None, None]
        assert tf.tile(ph([None, 2]), [ph([], tf.int32), 3]).shape.as_list() == [None, 6]
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            tf.tile(x, [2])


def test_broadcast_to():
    eq(tf.broadcast_to(tf.constant([1, 2]), [3, 2]), [[1, 2]] * 3, tf.int32)
    eq(tf.broadcast_to([[1], [2]], [2, 3]), [[1, 1, 1], [2, 2, 2]])
    eq(tf.broadcast_to(1, []), 1)
    eq(tf.broadcast_to("a", [2]), [b"a", b"a"])
    eq(tf.broadcast_to([1, 2], tf.constant([2, 2], tf.int64)), [[1, 2], [1, 2]])
    for target, msg in (([3, 3], "Incompatible shapes: [2] vs. [3,3] [Op:BroadcastTo]"),
                        ([2, 0], "Incompatible shapes: [2] vs. [2,0] [Op:BroadcastTo]"),
                        ([-1, 2], "Dimension -1 must be >= 0 [Op:BroadcastTo]")):
        with pytest.raises(IAE) as e:
            tf.broadcast_to(tf.constant([1, 2]), target)
        assert e.value.message == msg
    with pytest.raises(IAE, match=r"Rank of input \(2\) must be no greater than rank of output "
                                  r"shape \(1\)."):
        tf.broadcast_to(tf.constant([[1, 2]]), [2])
    with tf.Graph().as_default():
        x = ph([None, 3])
        assert tf.broadcast_to(x, [4, 3]).shape.as_list() == [4, 3]
        assert tf.broadcast_to(x, ph([None], tf.int32)).shape.rank is None
        assert tf.broadcast_to(x, ph([3], tf.int32)).shape.as_list() == [None, None, 3]
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.broadcast_to(x, [4, 4])
        with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
            tf.broadcast_to(ph([2, 3]), [3])


def test_broadcast_shape_helpers():
    s = tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3]))
    assert s.as_list() == [2, 3]
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([None])).as_list() \
        == [2, None]
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting. Two shapes are "
                                         r"compatible if .* Received: \(2, 2\) and \(3,\)."):
        tf.broadcast_static_shape(tf.TensorShape([2, 2]), tf.TensorShape([3]))
    eq(tf.broadcast_dynamic_shape([2, 1], [3]), [2, 3], tf.int32)
    eq(tf.broadcast_dynamic_shape(tf.constant([2, 1], tf.int64), tf.constant([3], tf.int64)),
       [2, 3], tf.int64)
    with pytest.raises(IAE) as e:
        tf.broadcast_dynamic_shape([2, 2], [3])
    assert e.value.message == "Incompatible shapes: [2,2] vs. [3] [Op:BroadcastArgs]"
    with tf.Graph().as_default():
        assert tf.broadcast_dynamic_shape(ph([2], tf.int32), ph([3], tf.int32)).shape == (3,)
        assert tf.broadcast_dynamic_shape(ph([None], tf.int32), [1, 2]).shape.as_list() == [None]
    bga = tf.raw_ops.BroadcastGradientArgs
    for s0, s1, r0, r1 in (([2, 1, 3], [3], [1], [0, 1]), ([1], [1], [], []),
                           ([2, 3], [1, 3], [], [0]), ([], [2, 1], [0, 1], [1]),
                           ([1, 1], [1], [0, 1], [0, 1]), ([5, 1, 1], [5, 1, 1], [], [])):
        a, b = bga(s0=s0, s1=s1)
        eq(a, r0, tf.int32)
        eq(b, r1, tf.int32)
    a, b = bga(s0=tf.constant([2, 1], tf.int64), s1=[3])
    eq(a, [1], tf.int64)
    with pytest.raises(IAE, match=r"Incompatible shapes: \[2,3\] vs. \[3,3\]"):
        bga(s0=[2, 3], s1=[3, 3])


# --- where -------------------------------------------------------------------

def test_where_coordinates():
    eq(tf.where([True, False, True]), [[0], [2]], tf.int64)
    eq(tf.where([[True, False], [False, True]]), [[0, 0], [1, 1]], tf.int64)
    eq(tf.where(tf.constant([1, 0, 3])), [[0], [2]])
    eq(tf.where(tf.constant([[1.5, 0.0], [0.0, 2.0]])), [[0, 0], [1, 1]])
    assert tf.where(tf.zeros([2, 0, 2]) > 0).shape == (0, 3)
    with pytest.raises(IAE, match="WhereOp : Unhandled input dimensions: 0"):
        tf.where(True)
    with pytest.raises(IAE, match="Value for attr 'T' of string is not in the list"):
        tf.where(["a", ""])
    with tf.Graph().as_default():
        w = tf.where(ph([None, 2], tf.bool))
        assert w.shape.as_list() == [None, 2] and w.dtype == tf.int64 and w.op.type == "Where"
        assert tf.where(ph(None, tf.bool)).shape.as_list() == [None, None]
        with pytest.raises(TypeError, match="Value passed to parameter 'input' has DataType "
                                            "string"):
            tf.where(ph([2], tf.string))


def test_where_select():
    eq(tf.where([True, False], [1, 2], [3, 4]), [1, 4], tf.int32)
    eq(tf.where([True, False], 1.0, [3.0, 4.0]), [1.0, 4.0], tf.float32)
    eq(tf.where([[True], [False]], [1, 2], 0), [[1, 2], [0, 0]])
    eq(tf.where([[True, False]], [[1], [2]], [3]), [[1, 3], [2, 3]])
    eq(tf.where([True, False], [1, 2], tf.constant([3.0, 4.0])), [1.0, 4.0], tf.float32)
    eq(tf.where([True, False], [1.5, 2], [3, 4]), [1.5, 4.0], tf.float32)
    eq(tf.where(np.array([1, 0]), [1, 2], [3, 4]), [1, 4])
    eq(tf.where(tf.constant(True), 1, 2), 1)
    eq(tf.where([True, False], ["a", "b"], "c"), [b"a", b"c"], tf.string)
    with pytest.raises(TypeError, match=r"Cannot convert \[3.5, 4\] to EagerTensor of dtype "
                                        r"int32"):
        tf.where([True, False], [1, 2], [3.5, 4])
    with pytest.raises(TypeError, match=r"Cannot convert \[1, 0\] to EagerTensor of dtype bool"):
        tf.where([1, 0], [1, 2], [3, 4])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype bool for Tensor "
                                         "with dtype int32"):
        tf.where(tf.constant([1, 0]), [1, 2], [3, 4])
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None."):
        tf.where([True, False], [1, 2])
    with pytest.raises(IAE) as e:
        tf.where([True, False, True], [1, 2], [3, 4])
    assert e.value.message == "condition [3], then [2], and else [2] must be broadcastable " \
                              "[Op:SelectV2]"
    with pytest.raises(IAE, match=r"cannot compute SelectV2 as input #2\(zero-based\) was "
                                  r"expected to be a int32 tensor but is a float tensor"):
        tf.where([True, False], tf.constant([1, 2]), tf.constant([3.0, 4.0]))
    with tf.Graph().as_default():
        s = tf.where(ph([None, 1], tf.bool), ph([None, 3]), ph([5, 1]))
        assert s.shape.as_list() == [5, 3] and s.op.type == "SelectV2"
        assert tf.where(ph([None], tf.bool), ph(None), 1.0).shape.rank is None
        with pytest.raises(TypeError, match="Input 'e' of 'SelectV2' Op has type int32 that "
                                            "does not match type float32 of argument 't'."):
            tf.where(ph([3], tf.bool), ph([3]), ph([3], tf.int32))
        with pytest.raises(TypeError, match="Input 'condition' of 'SelectV2' Op has type int32 "
                                            "that does not match expected type of bool."):
            tf.where(ph([3], tf.int32), ph([3]), ph([3]))


# --- zeros / ones / fill / *_like --------------------------------------------

def test_zeros_ones_fill():
    eq(tf.zeros([2, 3]), np.zeros((2, 3)), tf.float32)
    eq(tf.zeros([2], dtype=tf.int64), [0, 0], tf.int64)
    eq(tf.zeros(3), [0, 0, 0])
    eq(tf.zeros((), tf.bool), False, tf.bool)
    eq(tf.zeros([2], tf.string), [b"", b""], tf.string)
    eq(tf.ones([2], tf.bool), [True, True], tf.bool)
    eq(tf.ones((2,), tf.complex128), [1 + 0j, 1 + 0j], tf.complex128)
    eq(tf.ones(tf.constant([2, 1])), [[1.0], [1.0]])
    eq(tf.zeros(tf.constant([2, 3], tf.int64), tf.int32), np.zeros((2, 3)), tf.int32)
    eq(tf.zeros(tf.TensorShape([2, 3])), np.zeros((2, 3)))
    eq(tf.zeros([2, tf.constant(3)]), np.zeros((2, 3)))
    eq(tf.fill([2, 2], 9), [[9, 9], [9, 9]], tf.int32)
    eq(tf.fill([2, 2], 9.0), [[9.0, 9.0], [9.0, 9.0]], tf.float32)
    eq(tf.fill([2], "ab"), [b"ab", b"ab"], tf.string)
    eq(tf.fill([2], True), [True, True], tf.bool)
    eq(tf.fill(3, 1), [1, 1, 1])
    eq(tf.fill([2, 2], [1]), [[1, 1], [1, 1]])
    eq(tf.fill(tf.constant([2]), tf.constant(1, tf.int64)), [1, 1], tf.int64)


def test_zeros_ones_fill_errors():
    with pytest.raises(IAE) as e:
        tf.zeros([-1])
    assert e.value.message == "Dimension -1 must be >= 0 [Op:Fill]"
    with pytest.raises(TypeError, match=r"Cannot convert \[2.5\] to EagerTensor of dtype int32"):
        tf.zeros([2.5])
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.ones([2], tf.string)
    with pytest.raises(IAE, match=r"dims must represent a vector, got shape \[1,2\]"):
        tf.fill([[2, 2]], 1)
    with pytest.raises(IAE, match="Value for attr 'index_type' of float"):
        tf.fill([2.0, 2], 1)
    with pytest.raises(IAE, match="Dimension -2 must be >= 0"):
        tf.fill([-2, 2], 1)


def test_like_ops():
    a = tf.constant([[1, 2], [3, 4]])
    eq(tf.zeros_like(a), np.zeros((2, 2)), tf.int32)
    eq(tf.zeros_like(a, dtype=tf.float32), np.zeros((2, 2)), tf.float32)
    eq(tf.ones_like([1.5, 2]), [1.0, 1.0], tf.float32)
    eq(tf.ones_like(a, tf.bool), np.ones((2, 2), bool), tf.bool)
    eq(tf.zeros_like(tf.constant([True])), [False], tf.bool)
    eq(tf.zeros_like(tf.constant(["a"])), [b""], tf.string)
    eq(tf.zeros_like([[1, 2]], tf.string), [[b"", b""]], tf.string)
    eq(tf.zeros_like(tf.Variable([1.0, 2.0])), [0.0, 0.0], tf.float32)
    eq(tf.ones_like(3, dtype=tf.float64), 1.0, tf.float64)
    eq(tf.zeros_like(tf.constant([1 + 2j])), [0j], tf.complex128)
    with pytest.raises(IAE, match="Value for attr 'T' of string is not in the list of allowed "
                                  "values"):
        tf.ones_like(tf.constant(["a"]))
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype string"):
        tf.ones_like([[1, 2]], tf.string)


def test_creation_in_graphs():
    with tf.Graph().as_default():
        z = tf.zeros([20])
        assert z.op.type == "Const" and z.shape == (20,)
        big = tf.zeros([2000])
        assert big.op.type == "Fill" and big.shape == (2000,)
        assert tf.ones([2, 2], tf.int64).dtype == tf.int64
        iv = ph([None], tf.int32)
        assert tf.fill([2, 3], 1.0).shape == (2, 3)
        assert tf.fill(iv, 1.0).shape.rank is None
        assert tf.fill(ph([3], tf.int32), 1.0).shape.as_list() == [None] * 3
        assert tf.zeros(iv).shape.rank is None
        assert tf.zeros([2, ph([], tf.int32)]).shape.as_list() == [2, None]
        x = ph([None, 3])
        assert tf.zeros(tf.shape(x)).shape.as_list() == [None, 3]
        zl = tf.zeros_like(x)
        assert zl.shape.as_list() == [None, 3] and zl.op.type == "ZerosLike"
        ol = tf.ones_like(x, dtype=tf.int32)
        assert ol.shape.as_list() == [None, 3] and ol.dtype == tf.int32
        with pytest.raises(ValueError, match="Fill dimensions must be >= 0"):
            tf.zeros([-1])
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.fill([2, 3], [1.0])


# --- identity / stop_gradient ------------------------------------------------

def test_identity_family():
    a = tf.constant([1.0, 2.0])
    eq(tf.identity(a), [1.0, 2.0], tf.float32)
    eq(tf.identity([1.0, 2.0]), [1.0, 2.0])
    eq(tf.identity(tf.Variable(1.0)), 1.0, tf.float32)
    eq(tf.stop_gradient([1.0, 2.0]), [1.0, 2.0])
    outs = tf.identity_n([tf.constant(1), 2.0])
    eq(outs[0], 1, tf.int32)
    eq(outs[1], 2.0, tf.float32)
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.stop_gradient(x * x) + x
    assert float(tape.gradient(y, x)) == 1.0
    with tf.Graph().as_default():
        p = ph([None, 3])
        i = tf.identity(p)
        assert i.op.type == "Identity" and i.shape.as_list() == [None, 3]
        s = tf.stop_gradient(p)
        assert s.op.type == "StopGradient" and s.shape.as_list() == [None, 3]


# --- gradients ---------------------------------------------------------------

def _r(*shape, seed=0):
    return tf.constant(np.asarray(np.random.RandomState(seed + len(shape)).randn(*shape),
                                  dtype=np.float64))


GRADIENT_CASES = {
    "reshape": (lambda x: tf.reshape(x, [3, -1]), [(2, 3)]),
    "stack": (lambda a, b: tf.stack([a, b], axis=1), [(2, 3), (2, 3)]),
    "unstack": (lambda a: tf.unstack(a, axis=1)[1] * 2.0, [(2, 3)]),
    "concat": (lambda a, b: tf.concat([a, b], 1), [(2, 3), (2, 1)]),
    "concat_negative_axis": (lambda a, b: tf.concat([a, b], -2), [(2, 3), (1, 3)]),
    "expand_dims": (lambda a: tf.expand_dims(a, 1), [(2, 3)]),
    "squeeze": (lambda a: tf.squeeze(a, [0]), [(1, 3)]),
    "transpose": (lambda a: tf.transpose(a, [2, 0, 1]), [(2, 3, 4)]),
    "transpose_default": (lambda a: tf.transpose(a), [(2, 3, 4)]),
    "tile": (lambda a: tf.tile(a, [2, 3]), [(2, 3)]),
    "broadcast_to": (lambda a: tf.broadcast_to(a, [2, 4, 3]), [(4, 1)]),
    "where": (lambda a, b: tf.where(tf.constant([[True, False, True]]), a, b), [(2, 3), (3,)]),
    "fill": (lambda v: tf.fill([2, 3], v), [()]),
    "identity": (lambda a: tf.identity(a) * 3.0, [(2,)]),
    "identity_n": (lambda a, b: tf.identity_n([a, b])[1] * 3.0 + tf.identity_n([a, b])[0],
                   [(2,), (2,)]),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradients_match_finite_differences(name):
    f, shapes = GRADIENT_CASES[name]
    assert_gradients_match(f, [_r(*s) for s in shapes], rtol=1e-6, atol=1e-7)


def test_conjugate_transpose_gradient():
    x = tf.constant(np.array([[1 + 2j, 3 - 1j]]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.transpose(x, conjugate=True)
    g = tape.gradient(y, x, output_gradients=tf.constant(np.array([[1j], [2.0 + 0j]])))
    eq(g, [[-1j, 2.0 + 0j]])


def test_gradients_build_in_graphs_with_partial_shapes():
    cases = [
        lambda x: tf.reshape(x, [-1]),
        lambda x: tf.stack([x, x], axis=1),
        lambda x: tf.concat([x, x], 1),
        lambda x: tf.concat([x, x], ph([], tf.int32)),
        lambda x: tf.transpose(x),
        lambda x: tf.transpose(x, ph([2], tf.int32)),
        lambda x: tf.tile(x, [2, 3]),
        lambda x: tf.expand_dims(x, 0),
        lambda x: tf.where(x > 0, x, x * 2.0),
        lambda x: tf.broadcast_to(tf.expand_dims(x, 0), tf.stack([2, tf.shape(x)[0], 4])),
    ]
    for f in cases:
        with tf.Graph().as_default():
            x = ph([None, 4])
            g = tf.gradients(f(x), x)[0]
            assert g.shape.is_compatible_with([None, 4])
            assert g.dtype == tf.float32
    with tf.Graph().as_default():
        x = ph([None, 4])
        assert tf.gradients(tf.tile(x, [2, 3]), x)[0].shape.as_list() == [None, 4]


def test_dimension_lists_holding_float_tensors_truncate_as_tensorflow():
    # TensorFlow 2.21: a list of dimensions with float tensors among them is
    # converted to int32 (truncating), eagerly and in graphs; a float tensor
    # or a list of Python floats is refused.
    k = tf.constant([2.7, 3.0])
    assert tf.reshape(tf.ones([6]), (k[0], k[1])).shape == (2, 3)
    assert tf.zeros((k[1], 2)).shape == (3, 2)
    assert tf.tile(tf.ones([2]), [k[1]]).shape == (6,)

    @tf.function
    def f(k):
        return tf.reshape(tf.ones([6]), (k[0], k[1], 1))
    assert f(k).shape == (2, 3, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tshape"):
        tf.reshape(tf.ones([6]), tf.constant([2.0, 3.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tshape"):
        tf.reshape(tf.ones([6]), [2.0, 3.0])


def test_where_large_condition_with_smaller_branches():
    # Found by a rillflow-vs-TensorFlow differential of random op DAGs: the
    # bitwise select of large tensors computed x ^ y at the branches' shape
    # and failed when the condition was larger (where(vector, 1.0, 2.0)),
    # or when the result was empty (TensorFlow 2.21 gives (0, 1, 65536)).
    c = np.arange(70000) % 3 == 0
    got = tf.where(tf.constant(c), tf.constant(1.0), tf.constant(2.0)).numpy()
    np.testing.assert_array_equal(got, np.where(c, np.float32(1), np.float32(2)))
    got = tf.where(tf.constant(np.ones(65536, bool)), tf.zeros((0, 1, 1)), 1.5)
    assert got.shape == (0, 1, 65536)
    rows = np.arange(70000)[:, None] % 2 == 0
    got = tf.where(tf.constant(rows), tf.constant([[1.0, -0.0, 3.0]]), tf.constant(-1.0)).numpy()
    np.testing.assert_array_equal(got.view(np.int32), np.where(
        rows, np.float32([[1.0, -0.0, 3.0]]), np.float32(-1.0)).view(np.int32))


def test_truncate_div_mod_errors_and_gradient_as_tensorflow():
    # TensorFlow 2.21 (found by the rillflow-vs-TensorFlow DAG differential):
    # integer TruncateDiv/TruncateMod by zero raise InternalError from its
    # generic binary-op path (Div and FloorDiv: InvalidArgumentError), and
    # TruncateMod has no gradient (TruncateDiv's is None).
    for f in (tf.truncatediv, tf.truncatemod):
        with pytest.raises(tf.errors.InternalError, match="only integer div and mod"):
            f(tf.constant([3]), tf.constant([0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        tf.math.floordiv(tf.constant([3]), tf.constant([0]))
    np.testing.assert_array_equal(tf.truncatediv(tf.constant([7, -7]), tf.constant([2, 2])),
                                  [3, -3])
    x, y = tf.constant([5.5, -3.2]), tf.constant([2.0, 1.5])
    with tf.GradientTape(persistent=True) as t:
        t.watch([x, y])
        m, d = tf.truncatemod(x, y), tf.truncatediv(x, y)
    assert t.gradient(d, [x, y]) == [None, None]
    with pytest.raises(LookupError, match="gradient registry has no entry for: TruncateMod"):
        t.gradient(m, [x, y])


def test_integer_division_of_an_empty_result_by_zero_is_fine():
    # TensorFlow 2.21 checks divisors only as it divides: an empty result
    # (a zero divisor broadcast against an empty x) raises nothing.
    e = tf.zeros((1, 1, 0), tf.int32)
    y = tf.constant([[[-5], [0], [3]]])
    for f in (tf.truncatediv, tf.truncatemod, tf.math.floordiv, tf.math.floormod,
              lambda a, b: tf.raw_ops.Div(x=a, y=b)):
        assert f(e, y).shape == (1, 3, 0)


def test_truncatemod_types_as_tensorflow():
    # TensorFlow 2.21: the op takes int32, int64, bfloat16, half, float and
    # double; there is no CPU kernel for half and bfloat16.
    for dt in (np.int8, np.uint32):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="not in the list of allowed values: int32, int64, bfloat16, "
                                 "half, float, double"):
            tf.truncatemod(tf.constant(np.array([5, 7], dt)), tf.constant(np.array([2, 3], dt)))
    for dt in (tf.float16, tf.bfloat16):
        with pytest.raises(tf.errors.NotFoundError, match="Could not find device for node"):
            tf.truncatemod(tf.constant([5.0, 7.0], dt), tf.constant([2.0, 3.0], dt))
    np.testing.assert_array_equal(tf.truncatemod(tf.constant([5.5, -7.0]),
                                                 tf.constant([2.0, 3.0])), [1.5, -1.0])
