"""range, linspace, eye, one_hot, meshgrid, invert_permutation, sequence_mask.
Expected values, dtypes, messages and static shapes were taken from
TensorFlow 2.21."""
import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match
from rillflow.framework.execute import placeholder


def _ph(dtype, shape):
    return placeholder(dtype, tf.TensorShape(shape))


# --- range -------------------------------------------------------------------

def test_range_values_and_dtypes():
    r = tf.range(5)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [0, 1, 2, 3, 4]
    assert tf.range(1, 5, 2).numpy().tolist() == [1, 3]
    assert tf.range(5, 1, -1).numpy().tolist() == [5, 4, 3, 2]
    assert tf.range(5, 0, -2).numpy().tolist() == [5, 3, 1]
    assert tf.range(0).shape == (0,)
    assert tf.range(start=2, limit=5).numpy().tolist() == [2, 3, 4]
    f = tf.range(1., 5)
    assert f.dtype == tf.float32 and f.numpy().tolist() == [1., 2., 3., 4.]
    assert tf.range(5, dtype=tf.float64).dtype == tf.float64
    assert tf.range(0, 10, 3.5).numpy().tolist() == [0., 3.5, 7.]
    assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
    assert tf.range(np.int64(3)).dtype == tf.int64
    assert tf.range(np.float64(3)).dtype == tf.float64
    assert tf.range(tf.constant(3, tf.int64), 5.).dtype == tf.float32
    assert tf.range(3, tf.constant(5., tf.float64)).numpy().tolist() == [3., 4.]
    assert tf.range(tf.constant(3), dtype=tf.float32).dtype == tf.float32
    assert tf.range(tf.constant(3), dtype=tf.int64).dtype == tf.int64


def test_range_float_values_are_start_plus_i_delta():
    r = tf.range(0, 1, 0.3)
    assert repr(r) == ("<tf.Tensor: shape=(4,), dtype=float32, numpy=array([0.        , 0.3       ,"
                       " 0.6       , 0.90000004], dtype=float32)>")
    r = tf.range(0., 100., 0.1).numpy()
    assert len(r) == 1000
    np.testing.assert_array_equal(r, np.arange(1000).astype(np.float32) * np.float32(0.1))


def test_range_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Requires start <= limit when delta > 0: 5/1 \[Op:Range\]"):
        tf.range(5, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires delta != 0: 0"):
        tf.range(1, 5, 0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Requires start >= limit when delta < 0: 1/5"):
        tf.range(1, 5, -1)
    with pytest.raises(TypeError, match="Cannot convert 3.5 to EagerTensor of dtype int32"):
        tf.range(3.5, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Tidx' of uint8"):
        tf.range(3, dtype=tf.uint8)


def test_range_in_graphs():
    with tf.Graph().as_default() as g:
        a = tf.range(5)
        assert a.name == "range:0" and a.op.type == "Range" and a.shape.as_list() == [5]
        assert [t.name for t in a.op.inputs] == ["range/start:0", "range/limit:0",
                                                  "range/delta:0"]
        p = _ph(tf.int32, [])
        b = tf.range(p)
        assert b.name == "range_1:0" and b.shape.as_list() == [None]
        assert tf.range(1, 10, 3).shape.as_list() == [3]
        assert tf.range(0., 1., 0.3).shape.as_list() == [4]
        assert tf.range(p, 10, 3).shape.as_list() == [None]
        with pytest.raises(ValueError, match="Requires start <= limit when delta > 0: 5/1"):
            tf.range(5, 1)
        assert tf.range(3).name == "range_6:0"  # the failed range_5 keeps its name
        assert "range_2/start" in [n.name for n in g.as_graph_def().node]


# --- linspace ------------------------------------------------------------------

def test_linspace_values():
    r = tf.linspace(0., 1., 5)
    assert r.dtype == tf.float32 and r.numpy().tolist() == [0., .25, .5, .75, 1.]
    assert repr(tf.linspace(0., 1., 4)) == (
        "<tf.Tensor: shape=(4,), dtype=float32, numpy=array([0.        , 0.33333334, 0.6666667 "
        ", 1.        ], dtype=float32)>")
    assert tf.linspace(0, 1, 5).dtype == tf.float64
    assert tf.linspace(0., 1., 1).numpy().tolist() == [0.]
    assert tf.linspace(0., 1., 0).shape == (0,)
    assert tf.linspace(1., 0., 4).numpy().tolist() == pytest.approx([1., 2 / 3, 1 / 3, 0.])
    assert tf.linspace(tf.constant(0., tf.float16), 1., 3).dtype == tf.float16
    np.testing.assert_array_equal(tf.linspace([0., 1.], [1., 3.], 3).numpy(),
                                  [[0., 1.], [.5, 2.], [1., 3.]])
    np.testing.assert_array_equal(tf.linspace([0., 1.], [2., 3.], 3, axis=-1).numpy(),
                                  [[0., 1., 2.], [1., 2., 3.]])
    assert tf.linspace([[0.], [1.]], [2., 3., 4.], 2, axis=1).shape == (2, 2, 3)
    # The last value is exactly `stop`, the others start + i * step in float32.
    for a, b, n in [(0.1, 0.7, 7), (0.3, 1.9, 13), (-2.1, 5.3, 33)]:
        a32, b32 = np.float32(a), np.float32(b)
        want = a32 + np.arange(n).astype(np.float32) * ((b32 - a32) / np.float32(n - 1))
        want[-1] = b32
        np.testing.assert_array_equal(tf.linspace(a, b, n).numpy(), want)
    assert tf.compat.v1.lin_space is tf.linspace


def test_linspace_errors():
    with pytest.raises(TypeError, match=r"Argument `tensor` \(name: num\) must be of type integer"
                                        r". Received `tensor` = 2.5 of dtype: <dtype: 'float32'>"):
        tf.linspace(0., 1., 2.5)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype float32 for Tensor "
                                         "with dtype float64"):
        tf.linspace(0., tf.constant(1., tf.float64), 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.linspace([0., 1.], [2., 3., 4.], 3)


def test_linspace_graph_shapes_and_gradient():
    with tf.Graph().as_default():
        p = _ph(tf.int32, [])
        pf = _ph(tf.float32, [None])
        out = tf.linspace(0., 1., 5)
        assert out.shape.as_list() == [5] and out.op.type == "LinSpace"
        assert tf.linspace(0., 1., p).shape.as_list() == [None]
        assert tf.linspace(pf, 1., 3).shape.as_list() == [3, None]
        assert tf.linspace(pf, 1., 3, axis=-1).shape.as_list() == [None, 3]
    s = tf.constant([0., 1.], tf.float64)
    e = tf.constant(4., tf.float64)
    with tf.GradientTape() as tape:
        tape.watch([s, e])
        y = tf.reduce_sum(tf.linspace(s, e, 4) * tf.constant([[1.], [2.], [3.], [5.]],
                                                             tf.float64))
    gs, ge = tape.gradient(y, [s, e])
    np.testing.assert_allclose(gs.numpy(), [10 / 3, 10 / 3])
    np.testing.assert_allclose(ge.numpy(), 15.333333333333332)
    assert_gradients_match(lambda a, b: tf.linspace(a, b, 5, axis=-1), [s, e])


# --- eye ---------------------------------------------------------------------

def test_eye_values():
    np.testing.assert_array_equal(tf.eye(3).numpy(), np.eye(3, dtype=np.float32))
    e = tf.eye(2, 3, dtype=tf.int32)
    assert e.dtype == tf.int32 and e.numpy().tolist() == [[1, 0, 0], [0, 1, 0]]
    assert tf.eye(2, batch_shape=[2]).shape == (2, 2, 2)
    np.testing.assert_array_equal(tf.eye(2, num_columns=1, batch_shape=[1, 2]).numpy(),
                                  [[[[1.], [0.]], [[1.], [0.]]]])
    assert tf.eye(0).shape == (0, 0)
    assert str(tf.eye(2, dtype=tf.bool)) == ("tf.Tensor(\n[[ True False]\n [False  True]], "
                                             "shape=(2, 2), dtype=bool)")
    assert tf.eye(2, dtype=tf.complex64).dtype == tf.complex64
    assert tf.eye(tf.constant(2)).shape == (2, 2)
    assert tf.linalg.eye is tf.eye
    with pytest.raises(TypeError, match="must be positive integer values. Received: "
                                        "num_rows=2.5, num_columns=2.5"):
        tf.eye(2.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
        tf.eye(-1)


def test_eye_graph_shapes():
    with tf.Graph().as_default():
        p = _ph(tf.int32, [])
        e = tf.eye(3)
        assert e.shape.as_list() == [3, 3] and e.name == "eye/diag:0"
        assert tf.eye(p).shape.as_list() == [None, None]
        assert tf.eye(p, 4).shape.as_list() == [None, 4]
        assert tf.eye(3, batch_shape=[2]).shape.as_list() == [2, 3, 3]
        assert tf.eye(3, batch_shape=[p]).shape.as_list() == [None, 3, 3]
        assert tf.eye(p, dtype=tf.int32).dtype == tf.int32


# --- one_hot -----------------------------------------------------------------

def test_one_hot_values_and_dtypes():
    r = tf.one_hot([0, 2, -1, 5], 3)
    assert r.dtype == tf.float32
    assert r.numpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert str(tf.one_hot([0, 2], 3)) == ("tf.Tensor(\n[[1. 0. 0.]\n [0. 0. 1.]], shape=(2, 3), "
                                          "dtype=float32)")
    assert tf.one_hot([0, 2], 3, dtype=tf.int32).dtype == tf.int32
    r = tf.one_hot([0, 2], 3, on_value=5, off_value=-1)
    assert r.dtype == tf.int32 and r.numpy().tolist() == [[5, -1, -1], [-1, -1, 5]]
    assert tf.one_hot([0, 2], 3, on_value=5.).numpy().tolist() == [[5, 0, 0], [0, 0, 5]]
    assert tf.one_hot([1], 2, on_value=5, dtype=tf.float64).dtype == tf.float64
    assert tf.one_hot([1], 2, off_value=5).numpy().tolist() == [[5, 1]]
    assert tf.one_hot([0, 2], 3, on_value=tf.constant(5, tf.int64)).dtype == tf.int64
    assert tf.one_hot([1], 3, on_value=True, off_value=False).numpy().tolist() == \
        [[False, True, False]]
    s = tf.one_hot([1], 3, dtype=tf.string, on_value="a", off_value="b")
    assert s.numpy().tolist() == [[b"b", b"a", b"b"]]
    assert tf.one_hot(1, 3).numpy().tolist() == [0, 1, 0]
    assert tf.one_hot(tf.constant([1], tf.uint8), 3).shape == (1, 3)
    assert tf.one_hot([1], 0).shape == (1, 0)
    assert tf.one_hot([], 3).shape == (0, 3)
    assert tf.one_hot([1], np.int64(2)).shape == (1, 2)
    assert tf.one_hot([1], 2, dtype=tf.uint8).dtype == tf.uint8


def test_one_hot_axis():
    idx = [[0, 2], [1, 1]]
    want = np.eye(3, dtype=np.float32)[np.array(idx)]
    np.testing.assert_array_equal(tf.one_hot(idx, 3, axis=0).numpy(), np.moveaxis(want, -1, 0))
    np.testing.assert_array_equal(tf.one_hot(idx, 3, axis=1).numpy(), np.moveaxis(want, -1, 1))
    np.testing.assert_array_equal(tf.one_hot(idx, 3, axis=-1).numpy(), want)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected axis to be -1 or between \[0, 3\).  But received: 3"):
        tf.one_hot(idx, 3, axis=3)


def test_one_hot_errors():
    with pytest.raises(TypeError, match="dtype <dtype: 'int32'> of on_value does not match dtype "
                                        "<dtype: 'float32'> of off_value"):
        tf.one_hot([0], 3, on_value=5, off_value=1.)
    with pytest.raises(TypeError, match="dtype <dtype: 'float32'> of on_value does not match "
                                        "dtype parameter <dtype: 'int32'>"):
        tf.one_hot([1], 3, on_value=1.5, dtype=tf.int32)
    with pytest.raises(TypeError, match="dtype <dtype: 'float32'> of off_value does not match "
                                        "dtype parameter <dtype: 'int32'>"):
        tf.one_hot([1], 2, off_value=5., dtype=tf.int32)
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype bool"):
        tf.one_hot([1], 3, dtype=tf.bool)
    with pytest.raises(TypeError, match="Cannot convert 0 to EagerTensor of dtype string"):
        tf.one_hot([1], 2, on_value="x")
    with pytest.raises(tf.errors.InvalidArgumentError, match="'TI' of float"):
        tf.one_hot([1.], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="depth must be non-negative, got: -1"):
        tf.one_hot([1], -1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"depth must be a scalar, but got: "
                                                             r"\[1\]"):
        tf.one_hot([1], [3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"on_value must be a scalar, but "
                                                             r"got: \[2\]"):
        tf.one_hot([1], 2, on_value=[1, 2])
    with pytest.raises(TypeError, match="Cannot convert 3.0 to EagerTensor of dtype int32"):
        tf.one_hot([1], 3.)
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor "
                                         "with dtype int64"):
        tf.one_hot([1], tf.constant(3, tf.int64))


def test_one_hot_graph_shapes():
    with tf.Graph().as_default() as g:
        p = _ph(tf.int32, [None, 2])
        d = _ph(tf.int32, [])
        out = tf.one_hot(p, 3)
        assert out.shape.as_list() == [None, 2, 3] and out.name == "one_hot:0"
        assert out.op.type == "OneHot" and out.op.get_attr("axis") == -1
        assert [t.name for t in out.op.inputs] == ["Placeholder:0", "one_hot/depth:0",
                                                    "one_hot/on_value:0", "one_hot/off_value:0"]
        assert tf.one_hot(p, d).shape.as_list() == [None, 2, None]
        assert tf.one_hot(p, 3, axis=0).shape.as_list() == [3, None, 2]
        assert tf.one_hot(_ph(tf.int32, None), 3).shape.rank is None
        with pytest.raises(ValueError, match="axis must be >= -1"):
            tf.one_hot(p, 3, axis=-3)
        with pytest.raises(TypeError, match="DataType float32 not in list of allowed values"):
            tf.one_hot(_ph(tf.float32, [2]), 3)
        assert g.get_operation_by_name("one_hot_1").type == "OneHot"


def test_one_hot_has_no_gradient():
    x = tf.constant(2.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.one_hot([1], 2, on_value=x))
    assert tape.gradient(y, x) is None


# --- meshgrid ----------------------------------------------------------------

def test_meshgrid():
    a, b = tf.meshgrid([1, 2, 3], [4, 5])
    assert a.dtype == tf.int32 and a.numpy().tolist() == [[1, 2, 3], [1, 2, 3]]
    assert b.numpy().tolist() == [[4, 4, 4], [5, 5, 5]]
    a, b = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert a.numpy().tolist() == [[1, 1], [2, 2], [3, 3]]
    assert b.numpy().tolist() == [[4, 5], [4, 5], [4, 5]]
    outs = tf.meshgrid([1, 2], [3, 4], [5, 6, 7])
    for got, want in zip(outs, np.meshgrid([1, 2], [3, 4], [5, 6, 7])):
        assert got.shape == (2, 2, 3)
        np.testing.assert_array_equal(got.numpy(), want)
    assert [t.numpy().tolist() for t in tf.meshgrid([1, 2, 3])] == [[1, 2, 3]]
    assert tf.meshgrid() == []
    assert tf.meshgrid([[1, 2]], [3, 4])[0].shape == (2, 2)
    assert tf.meshgrid(1, [3, 4])[1].numpy().tolist() == [[3], [4]]
    with pytest.raises(ValueError, match="Argument `indexing` parameter must be either 'xy' or "
                                         "'ij', got 'foo'"):
        tf.meshgrid([1, 2], [3, 4], indexing="foo")
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot compute Mul as input "
                                                             "#1\\(zero-based\\) was expected to "
                                                             "be a float tensor"):
        tf.meshgrid([1, 2, 3], [4., 5])


def test_meshgrid_graph_and_gradient():
    with tf.Graph().as_default():
        p = _ph(tf.int32, [None])
        outs = tf.meshgrid(p, [1, 2, 3], indexing="xy")
        assert [o.shape.as_list() for o in outs] == [[3, None], [3, None]]
        assert outs[0].name == "meshgrid/mul:0"
    a = tf.constant([1., 2., 3.], tf.float64)
    b = tf.constant([4., 5.], tf.float64)
    assert_gradients_match(lambda a, b: tf.meshgrid(a, b)[0] * tf.meshgrid(a, b)[1], [a, b])


# --- invert_permutation ------------------------------------------------------

def test_invert_permutation():
    ip = tf.math.invert_permutation
    r = ip([3, 4, 0, 2, 1])
    assert r.dtype == tf.int32 and r.numpy().tolist() == [2, 4, 3, 0, 1]
    assert ip(tf.constant([1, 0], tf.int64)).dtype == tf.int64
    assert ip(tf.constant([], tf.int32)).shape == (0,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="1 is duplicated in the input."):
        ip([1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="5 is not between 0 and 2"):
        ip([1, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="-1 is not between 0 and 2"):
        ip([-1, 0])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="invert_permutation expects a 1D vector."):
        ip([[1, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'T' of float"):
        ip([1., 0.])
    assert not hasattr(tf, "invert_permutation")
    with tf.Graph().as_default():
        assert ip(_ph(tf.int32, [None])).shape.as_list() == [None]
        assert ip(_ph(tf.int32, [5])).shape.as_list() == [5]
        assert ip(_ph(tf.int32, None)).shape.as_list() == [None]
        assert ip(_ph(tf.int32, [5])).op.type == "InvertPermutation"
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            ip(_ph(tf.int32, [5, 2]))
        with pytest.raises(TypeError, match="DataType float32 not in list of allowed values: "
                                            "int32, int64"):
            ip(_ph(tf.float32, [2]))


# --- sequence_mask -----------------------------------------------------------

def test_sequence_mask():
    m = tf.sequence_mask([1, 3, 2], 5)
    assert m.dtype == tf.bool
    assert m.numpy().tolist() == [[True, False, False, False, False],
                                  [True, True, True, False, False],
                                  [True, True, False, False, False]]
    assert tf.sequence_mask([[1, 3], [2, 0]]).shape == (2, 2, 3)
    assert str(tf.sequence_mask([1, 3], 4, dtype=tf.float32)) == (
        "tf.Tensor(\n[[1. 0. 0. 0.]\n [1. 1. 1. 0.]], shape=(2, 4), dtype=float32)")
    assert tf.sequence_mask(3, 5).numpy().tolist() == [True, True, True, False, False]
    assert tf.sequence_mask([1, -1], 2).numpy().tolist() == [[True, False], [False, False]]
    assert tf.sequence_mask([1, 3], 2).numpy().tolist() == [[True, False], [True, True]]
    assert tf.sequence_mask(tf.constant([1, 3], tf.int64), 4).shape == (2, 4)
    assert tf.sequence_mask([1.5, 3.], 4).numpy().tolist()[0] == [True, False, False, False]
    assert tf.sequence_mask([1, 3], 4.).numpy().tolist()[1] == [True, True, True, False]
    assert tf.sequence_mask([1, 3], 4, dtype=tf.int64).dtype == tf.int64
    assert tf.sequence_mask([]).shape == (0, 0)
    with pytest.raises(ValueError, match=r"Argument `maxlen` must be scalar for sequence_mask, "
                                         r"received `maxlen` = \[4\] with shape '\(1,\)' instead"):
        tf.sequence_mask([1, 3], [4])


def test_sequence_mask_graph_shapes():
    with tf.Graph().as_default():
        p = _ph(tf.int32, [None])
        out = tf.sequence_mask(p, 5)
        assert out.shape.as_list() == [None, 5] and out.name == "SequenceMask/Less:0"
        assert tf.sequence_mask([1, 2], 5).shape.as_list() == [2, 5]
        assert tf.sequence_mask(_ph(tf.int32, [3, None]), 5).shape.as_list() == [3, None, 5]
        assert tf.sequence_mask(_ph(tf.int32, None), 5).shape.rank is None


# The first element of a list decides a float dtype, as in TensorFlow 2.21
# (dtypes recorded there): a NumPy float keeps its precision, a Python number
# gives float32, NumPy integers count as Python integers.
@pytest.mark.parametrize("value,dtype", [
    ([np.float64(0)], "float64"), ([np.float64(1.5), 2.0], "float64"),
    ([2.0, np.float64(1)], "float32"), ([np.float16(1), 2.0], "float16"),
    ([1, np.float64(2.5)], "float32"), ([[1.0], [np.float64(2)]], "float32"),
    ([np.float64(1), np.float32(2)], "float64"), ([np.float32(1), np.float64(2)], "float32"),
    ((np.float64(1),), "float64"), ([np.array(1.0)], "float64"),
    ([np.array([1.0], np.float16), [2.0]], "float16"), ([np.float64(1), 2 ** 40], "float64"),
    ([np.int64(3)], "int32"), ([np.int32(1), 2], "int32"), ([np.int64(2 ** 40)], "int64"),
])
def test_list_dtype_follows_its_first_numpy_float(value, dtype):
    assert tf.constant(value).dtype.name == dtype
    assert tf.convert_to_tensor(value).dtype.name == dtype


# Bools after a number convert to it; numbers after a bool are an error (the
# first element decides, as in TensorFlow 2.21: values recorded there).
@pytest.mark.parametrize("value,expected", [
    ([1, True], ("int32", [1, 1])), ([1.5, True], ("float32", [1.5, 1.0])),
    ([np.float32(1), True], ("float32", [1.0, 1.0])), ([[1, 2], [True, False]],
                                                       ("int32", [[1, 2], [1, 0]])),
    ([np.array(1.0), True], ("float64", [1.0, 1.0])), ([True, False], ("bool", [True, False])),
])
def test_bools_after_a_number_convert_to_its_dtype(value, expected):
    t = tf.constant(value)
    assert (t.dtype.name, t.numpy().tolist()) == expected


@pytest.mark.parametrize("value", [[True, 1], [True, 1.5], [True, np.float32(1)],
                                   [True, np.array(2.0)]])
def test_numbers_after_a_bool_are_mixed_types(value):
    with pytest.raises(ValueError, match="Can't convert Python sequence with mixed types"):
        tf.constant(value)
