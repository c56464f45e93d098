"""Indexing: Tensor.__getitem__, slice, strided_slice, gather, gather_nd,
boolean_mask, reverse. Expected values, messages and static shapes were
taken from TensorFlow 2.21."""
import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match
from rillflow.framework.execute import placeholder

X = np.arange(24, dtype=np.int32).reshape(2, 3, 4)

# Index expressions (the text inside `x[...]`) and the static shape
# TensorFlow infers for a placeholder of shape [None, 3, None].
TABLE = {
    "0": [3, None], "-1": [3, None], "1, 2": [None], "-1, -2, -3": [], "1, 2, 3": [],
    ":": [None, 3, None], "1:": [None, 3, None], ":1": [None, 3, None],
    "-2:": [None, 3, None], ":-1": [None, 3, None], "::2": [None, 3, None],
    "::-1": [None, 3, None], "::-2": [None, 3, None], "1::-1": [None, 3, None],
    "-1:-3:-1": [None, 3, None], "5:": [None, 3, None], "-10:10": [None, 3, None],
    "10:-10:-1": [None, 3, None], "2:0": [None, 3, None], "0:0": [None, 3, None],
    ":, 1": [None, None], ":, -1, ::3": [None, None], ":, 1:, 2:3": [None, 2, None],
    "1, ::-1, 1::2": [3, None], "0, :, -1": [3],
    "...": [None, 3, None], "..., 0": [None, 3], "0, ...": [3, None],
    "..., 1:": [None, 3, None], "0, ..., 1": [3], ":, ..., :": [None, 3, None],
    "None": [1, None, 3, None], "None, 0": [1, 3, None], "0, None": [1, 3, None],
    "..., None": [None, 3, None, 1], "None, ..., None": [1, None, 3, None, 1],
    ":, None, :": [None, 1, 3, None], "0, None, ..., None, 1": [1, 3, 1],
    "None, None, 1, None": [1, 1, 1, 3, None], "1, 2, 3, None": [1], "1, 2, 3, ...": [],
    "..., None, 1:, None, ::-2": [None, 1, 2, 1, None],
}


def _index(obj, expr):
    return eval("obj[%s]" % expr, {"obj": obj})  # noqa: S307 - test table


@pytest.mark.parametrize("expr", list(TABLE))
def test_getitem_matches_numpy(expr):
    got = _index(tf.constant(X), expr)
    want = _index(X, expr)
    assert got.dtype == tf.int32
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_getitem_static_shapes_of_partial_placeholder():
    with tf.Graph().as_default():
        p = placeholder(tf.float32, tf.TensorShape([None, 3, None]))
        full = placeholder(tf.float32, tf.TensorShape([2, 3, 4]))
        for expr, dims in TABLE.items():
            out = _index(p, expr)
            assert out.shape.as_list() == dims, expr
            assert out.dtype == tf.float32
            assert _index(full, expr).shape.as_list() == list(_index(X, expr).shape), expr


def test_getitem_with_tensor_indices_and_bounds():
    x = tf.constant(X)
    np.testing.assert_array_equal(x[tf.constant(1)].numpy(), X[1])
    np.testing.assert_array_equal(x[tf.constant(1, tf.int64)].numpy(), X[1])
    np.testing.assert_array_equal(x[:, tf.constant(-1)].numpy(), X[:, -1])
    np.testing.assert_array_equal(x[tf.constant(0):tf.constant(2, tf.int64), ::tf.constant(-1)]
                                  .numpy(), X[0:2, ::-1])
    np.testing.assert_array_equal(x[np.int64(1), np.array(2)].numpy(), X[1, 2])
    # A list key is a tuple of indices; Python bools are ints inside one.
    np.testing.assert_array_equal(x[[0, 1]].numpy(), X[0, 1])
    np.testing.assert_array_equal(x[0, True].numpy(), X[0, 1])
    np.testing.assert_array_equal(x[[]].numpy(), X)


def test_getitem_static_shapes_with_unknown_indices():
    with tf.Graph().as_default():
        p = placeholder(tf.float32, tf.TensorShape([None, 3, None]))
        i = placeholder(tf.int32, tf.TensorShape([]))
        j = placeholder(tf.int64, tf.TensorShape([]))
        expected = {"i": [3, None], "i, 1": [None], ":i": [None, 3, None],
                    "i:": [None, 3, None], "1:i": [None, 3, None], "i, i:2": [None, None],
                    "..., i": [None, 3], "None, i": [1, 3, None], "j": [3, None],
                    "i:j": [None, 3, None]}
        for expr, dims in expected.items():
            out = eval("p[%s]" % expr)  # noqa: S307
            assert out.shape.as_list() == dims, expr
        assert p[::i].shape.rank is None  # unknown strides: unknown rank
        x = placeholder(tf.float32, tf.TensorShape([5, 10]))
        assert x[:i].shape.as_list() == [None, 10]
        assert x[1:i, 2:4].shape.as_list() == [None, None]
        u = placeholder(tf.float32, tf.TensorShape(None))
        assert u[0].shape.rank is None and u[None, 1:3].shape.rank is None


def test_getitem_graph_op_and_attrs():
    with tf.Graph().as_default() as g:
        p = placeholder(tf.float32, tf.TensorShape([None, 3, 4]))
        i = placeholder(tf.int32, tf.TensorShape([]))
        y = p[1:3, i]
        assert y.op.type == "StridedSlice"
        assert y.name == "strided_slice:0"
        assert [y.op.get_attr(m) for m in ("begin_mask", "end_mask", "ellipsis_mask",
                                           "new_axis_mask", "shrink_axis_mask")] == [0, 0, 0, 0, 2]
        assert y.op.get_attr("Index") == tf.int32
        z = p[..., None, ::2]
        assert [z.op.get_attr(m) for m in ("begin_mask", "end_mask", "ellipsis_mask",
                                           "new_axis_mask", "shrink_axis_mask")] == [4, 4, 1, 2, 0]
        assert z.name == "strided_slice_1:0"
        names = [n.name for n in g.as_graph_def().node]
        assert "strided_slice_1/stack" in names and "strided_slice_1/stack_2" in names
        assert p[tf.constant(1, tf.int64)].op.get_attr("Index") == tf.int64


def test_getitem_out_of_range_errors():
    x = tf.constant(X)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^slice index 5 of dimension 0 out of bounds\. \[Op:StridedSlice\]"):
        x[5]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="slice index -1 of dimension 0 out of bounds"):
        x[-3]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="slice index 4 of dimension 2 out of bounds"):
        x[0, 0, 4]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Index out of range using input dim 3; input has only 3 dims"):
        x[0, 0, 0, 0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Attempting to slice scalar input"):
        tf.constant(5.)[0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Multiple ellipses"):
        x[..., ...]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"strides\[0\] must be non-zero"):
        x[1:2:0]
    with tf.Graph().as_default():
        p = placeholder(tf.float32, tf.TensorShape([5, 10, None]))
        with pytest.raises(ValueError, match="slice index 7 of dimension 0 out of bounds"):
            p[7]
        with pytest.raises(ValueError, match="slice index 10 of dimension 1 out of bounds"):
            p[:, 10]
        assert p[:, :, 1000].shape.as_list() == [5, 10]  # unknown dimension: no check
        with pytest.raises(ValueError, match="Index out of range using input dim 3"):
            p[0, 0, 0, 0]


def test_getitem_rejects_other_index_types():
    x = tf.constant(X)
    msg = r"Only integers, slices \(`:`\), ellipsis \(`...`\), tf.newaxis \(`None`\) and scalar"
    for bad in (1.0, "a", np.array([0, 1]), tf.constant([0, 1]), tf.constant(1.0),
                tf.constant(1, tf.uint8), {}, slice(1.0, 2)):
        with pytest.raises(TypeError, match=msg):
            x[bad]
    with pytest.raises(TypeError, match=r"got array\(\[0, 1\]\)"):
        x[np.array([0, 1])]


def test_getitem_boolean_key_is_boolean_mask():
    x = tf.constant(X)
    np.testing.assert_array_equal(x[x > 20].numpy(), [21, 22, 23])
    np.testing.assert_array_equal(x[np.array([True, False])].numpy(), X[:1])
    np.testing.assert_array_equal(x[tf.constant([False, True])].numpy(), X[1:])
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        x[True]
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Index' of bool"):
        x[[True, False]]


def test_getitem_printed_forms_and_strings():
    x = tf.constant(X)
    assert str(x[0]) == ("tf.Tensor(\n[[ 0  1  2  3]\n [ 4  5  6  7]\n [ 8  9 10 11]], "
                         "shape=(3, 4), dtype=int32)")
    assert repr(x[1, ::-2, None, 1:3]) == (
        "<tf.Tensor: shape=(2, 1, 2), dtype=int32, numpy=\narray([[[21, 22]],\n\n"
        "       [[13, 14]]], dtype=int32)>")
    assert str(tf.constant(["a", "bc"])[1]) == "tf.Tensor(b'bc', shape=(), dtype=string)"
    assert repr(tf.constant(5)[...]) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"


def test_slices_do_not_alias_their_source():
    x = tf.constant(X)
    y = x[0]
    y.numpy()[0, 0] = 100
    assert x.numpy()[0, 0, 0] == 0


def test_getitem_of_variable():
    v = tf.Variable([[1., 2.], [3., 4.]])
    np.testing.assert_array_equal(v[:, 1].numpy(), [2., 4.])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v[0] * 3.)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[3., 3.], [0., 0.]])


# --- gradients ----------------------------------------------------------------

_R = np.random.RandomState(0).randn(2, 3, 4)


@pytest.mark.parametrize("fn", [
    lambda t: t[1, ::-2, None, 1:3],
    lambda t: t[..., 0] * 2.0,
    lambda t: t[-1:, 10:-10:-1],
    lambda t: t[tf.constant(1), :, tf.constant(-1)],
    lambda t: tf.strided_slice(t, [0, 1], [2, 3], [1, 1], shrink_axis_mask=2),
    lambda t: tf.slice(t, [0, 1, 1], [-1, 2, 2]),
    lambda t: tf.gather(t, [2, 0, 2], axis=1),
    lambda t: tf.gather(t, [[0, 0], [1, 2]], axis=1, batch_dims=1),
    lambda t: tf.gather_nd(t, [[0, 1], [1, 2], [0, 1]]),
    lambda t: tf.gather_nd(t, [[[1]], [[1]]], batch_dims=1),
    lambda t: tf.boolean_mask(t, [[True, False, True], [False, False, True]]),
    lambda t: tf.boolean_mask(t, [True, False, True, True], axis=2),
    lambda t: tf.reverse(t, [0, 2]),
])
def test_gradients_match_finite_differences(fn):
    assert_gradients_match(fn, [tf.constant(_R)])


def test_gather_gradient_adds_repeated_indices():
    p = tf.constant([1., 2., 3.])
    with tf.GradientTape() as tape:
        tape.watch(p)
        y = tf.reduce_sum(tf.gather(p, [2, 0, 2]))
    g = tape.gradient(y, p)
    assert isinstance(g, tf.IndexedSlices)   # as in TensorFlow: sparse along axis 0
    np.testing.assert_array_equal(tf.convert_to_tensor(g).numpy(), [1., 0., 2.])


def test_second_order_gradient_of_slice():
    t = tf.constant(_R)
    with tf.GradientTape() as outer:
        outer.watch(t)
        with tf.GradientTape() as inner:
            inner.watch(t)
            y = tf.reduce_sum(t[0, 1:] ** 3)
        g = inner.gradient(y, t)
    h = outer.gradient(g, t).numpy()
    np.testing.assert_allclose(h[0, 1:], 6 * _R[0, 1:])
    assert not h[1].any() and not h[0, 0].any()


def test_gradients_build_in_graphs_with_partial_shapes():
    with tf.Graph().as_default():
        p = placeholder(tf.float32, tf.TensorShape([None, 3, 4]))
        with tf.GradientTape() as tape:
            tape.watch(p)
            y = (p[:, 1] + tf.gather(p, [0, 0], axis=1)[:, 0] + tf.reverse(p, [1])[:, 0]
                 + tf.slice(p, [0, 1, 0], [-1, 1, -1])[:, 0])
        g = tape.gradient(y, p)
        assert g.shape.as_list() == [None, 3, 4] and g.dtype == tf.float32


# --- strided_slice and slice --------------------------------------------------

def test_strided_slice_masks():
    x = tf.constant(X)
    np.testing.assert_array_equal(tf.strided_slice(x, [0, 1], [2, 3]).numpy(), X[0:2, 1:3])
    np.testing.assert_array_equal(
        tf.strided_slice(x, [0, -1], [2, 3], [1, 1], shrink_axis_mask=2).numpy(), X[0:2, -1])
    np.testing.assert_array_equal(
        tf.strided_slice(x, [0, 1], [2, 3], [1, 1], shrink_axis_mask=2, new_axis_mask=2).numpy(),
        X[0:2, None])
    np.testing.assert_array_equal(
        tf.strided_slice(x, [0, 1], [2, 3], [1, 1], ellipsis_mask=1).numpy(), X[..., 1:3])
    np.testing.assert_array_equal(
        tf.strided_slice(x, [1, 2], [0, 0], [-1, -1], begin_mask=1, end_mask=3).numpy(),
        X[::-1, ::-1])
    assert tf.strided_slice(x, [0, 1], [2, 3], [1, -1]).shape == (2, 0, 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="only stride 1 allowed"):
        tf.strided_slice(x, [0, 1], [2, 3], [1, -1], shrink_axis_mask=2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"1D equal size tensors, but got shapes \[2\], \[2\], and \[1\]"):
        tf.strided_slice(x, [0, 1], [2, 3], [1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Index' of float"):
        tf.strided_slice(x, [0, 1, 0.], [2, 3, 1], [1, 1, 1])


def test_strided_slice_graph_shapes():
    with tf.Graph().as_default():
        p = placeholder(tf.float32, tf.TensorShape([5, 10, None]))
        b = placeholder(tf.int32, tf.TensorShape([3]))
        assert tf.strided_slice(p, b, b, [1, 1, 1]).shape.as_list() == [None, None, None]
        assert tf.strided_slice(p, b, b, [1, 1, 1], shrink_axis_mask=2).shape.as_list() == \
            [None, None]
        assert tf.strided_slice(p, b, b, [1, 1, 1], new_axis_mask=2).shape.as_list() == \
            [None, 1, None, None]
        assert tf.strided_slice(p, b, b, [1, 1, 1], begin_mask=7, end_mask=7).shape.as_list() \
            == [5, 10, None]
        b2 = placeholder(tf.int32, tf.TensorShape([None]))
        assert tf.strided_slice(p, b2, b2, b2).shape.rank is None
        out = tf.strided_slice(p, [0, 0], [1, 0], [1, 1], shrink_axis_mask=3)
        assert out.shape.as_list() == [None] and out.op.name == "StridedSlice_5"
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are "
                                             "2 and 3"):
            tf.strided_slice(p, [0, 0], [1, 0], [1, 1, 1])


def test_slice_values_and_errors():
    x = tf.constant(X)
    np.testing.assert_array_equal(tf.slice(x, [0, 1, 1], [1, -1, 2]).numpy(), X[0:1, 1:, 1:3])
    assert tf.slice(x, [2, 0, 0], [0, 1, 1]).shape == (0, 1, 1)
    np.testing.assert_array_equal(tf.slice(x, tf.constant([0, 0, 0], tf.int64), [1, 1, 1]),
                                  [[[0]]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected size\[1\] in \[0, 2\], but got 3"):
        tf.slice(x, [0, 1, 1], [1, 3, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected begin\[1\] in \[0, 3\], but got -1"):
        tf.slice(x, [0, -1, 1], [1, 1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="1-D tensors of size 3, but got shapes \\[2\\] and \\[2\\]"):
        tf.slice(x, [0, 1], [1, 1])


def test_slice_graph_shapes():
    with tf.Graph().as_default():
        y = placeholder(tf.float32, tf.TensorShape([None, 3, 4]))
        i = placeholder(tf.int32, tf.TensorShape([None]))
        out = tf.slice(y, [0, 1, 1], [-1, 1, 2])
        assert out.shape.as_list() == [None, 1, 2] and out.op.type == "Slice"
        assert tf.slice(y, i, [2, 3, 2]).shape.as_list() == [2, 3, 2]
        assert tf.slice(y, [0, 0, 0], i).shape.as_list() == [None, None, None]
        assert tf.slice(y, [0, 1, 0], [-1, -1, -1]).shape.as_list() == [None, 2, 4]
        u = placeholder(tf.float32, tf.TensorShape(None))
        assert tf.slice(u, [0, 1, 0], [1, 2, 3]).shape.as_list() == [1, 2, 3]
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3"):
            tf.slice(y, [0, 1], [2, 3])


# --- gather / gather_nd -------------------------------------------------------

P = np.array([[1., 2.], [3., 4.], [5., 6.]], dtype=np.float32)


def test_gather_values():
    p = tf.constant(P)
    np.testing.assert_array_equal(tf.gather(p, [2, 0]).numpy(), P[[2, 0]])
    assert tf.gather(p, [[2, 0]]).shape == (1, 2, 2)
    np.testing.assert_array_equal(tf.gather(p, 1).numpy(), [3., 4.])
    np.testing.assert_array_equal(tf.gather(p, [1, 0], axis=-1).numpy(), P[:, [1, 0]])
    np.testing.assert_array_equal(tf.gather(p, tf.constant([1, 0], tf.int16)).numpy(), P[[1, 0]])
    pb = tf.reshape(tf.range(24), [2, 3, 4])
    np.testing.assert_array_equal(
        tf.gather(pb, [[0, 1, 2], [2, 1, 0]], batch_dims=1, axis=2).numpy(),
        [[[0, 1, 2], [4, 5, 6], [8, 9, 10]], [[14, 13, 12], [18, 17, 16], [22, 21, 20]]])
    np.testing.assert_array_equal(tf.gather([[1, 2], [3, 4]], [[0, 1], [1, 0]], batch_dims=1),
                                  [[1, 2], [4, 3]])
    # A constant axis 0 ignores batch_dims, as in TensorFlow.
    assert tf.gather([[1, 2], [3, 4]], [[0, 1], [1, 0]], batch_dims=1, axis=0).shape == (2, 2, 2)
    assert tf.gather(["a", "b"], [1]).numpy().tolist() == [b"b"]
    assert repr(tf.gather(tf.constant([[1.5, 2.], [3., 4.]]), [1, 1])) == (
        "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[3., 4.],\n       [3., 4.]], "
        "dtype=float32)>")


def test_gather_errors():
    p = tf.constant(P)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[1\] = 7 is not in \[0, 3\) \[Op:GatherV2\]"):
        tf.gather(p, [1, 7])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = -1 is not in"):
        tf.gather(p, [1, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1,1\] = 7 is not in "
                                                            r"\[0, 4\)"):
        tf.gather(tf.zeros([2, 3, 4]), [[0, 1], [2, 7]], axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Shape must be at least rank 3 but is rank 2"):
        tf.gather(p, [1, 0], axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected batch_dims in the range \[-2, 2\], but got 3"):
        tf.gather(tf.zeros([2, 3, 4]), [[0, 1], [1, 0]], batch_dims=3, axis=2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Tindices' of float"):
        tf.gather(p, [1., 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="params must be at least 1 dim"):
        tf.gather(5., [0])


def test_gather_graph_shapes():
    with tf.Graph().as_default():
        y = placeholder(tf.float32, tf.TensorShape([None, 3, 4]))
        i = placeholder(tf.int32, tf.TensorShape([None]))
        i2 = placeholder(tf.int32, tf.TensorShape([None, 2]))
        out = tf.gather(y, i)
        assert out.shape.as_list() == [None, 3, 4] and out.name == "GatherV2:0"
        assert tf.gather(y, i, axis=1).shape.as_list() == [None, None, 4]
        assert tf.gather(y, i2, axis=2).shape.as_list() == [None, 3, None, 2]
        assert tf.gather(y, 1, axis=2).shape.as_list() == [None, 3]
        assert tf.gather(y, i, axis=placeholder(tf.int32, tf.TensorShape([]))).shape.as_list() \
            == [None, None, None]
        assert tf.gather(y, i2, batch_dims=1).shape.as_list() == [None, 2, 4]
        assert tf.gather(y, [7]).shape.as_list() == [1, 3, 4]
        assert tf.gather(placeholder(tf.float32, tf.TensorShape(None)), i).shape.rank is None
        with pytest.raises(ValueError, match="Shape must be at least rank 4 but is rank 3"):
            tf.gather(y, [1, 2], axis=3)
        with pytest.raises(TypeError, match="DataType float32 not in list of allowed values: "
                                            "int16, int32, int64"):
            tf.gather(y, [1., 2.])


def test_gather_nd_values_and_errors():
    p = tf.constant(P)
    np.testing.assert_array_equal(tf.gather_nd(p, [[0, 1], [2, 0]]).numpy(), [2., 5.])
    np.testing.assert_array_equal(tf.gather_nd(p, [[0], [2]]).numpy(), P[[0, 2]])
    np.testing.assert_array_equal(tf.gather_nd(p, [1]).numpy(), [3., 4.])
    assert tf.gather_nd(p, tf.zeros([2, 0], tf.int32)).shape == (2, 3, 2)
    assert tf.gather_nd(p, tf.zeros([0, 2], tf.int32)).shape == (0,)
    np.testing.assert_array_equal(tf.gather_nd([[1, 2], [3, 4]], [[1], [0]], batch_dims=1),
                                  [2, 3])
    np.testing.assert_array_equal(
        tf.gather_nd([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[1]], [[0]]], batch_dims=1),
        [[[3, 4]], [[5, 6]]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[0\] = \[0, 5\] does not index into param shape \[3,2\]"):
        tf.gather_nd(p, [[0, 5]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[0,0\] = \[0, 1, 5\] does not index into param shape"):
        tf.gather_nd(tf.zeros([2, 3, 4]), [[[0, 1, 5]]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="index innermost dimension length must be <= params rank; saw: 3 "
                             "vs. 2"):
        tf.gather_nd(p, [[0, 1, 0]])
    with pytest.raises(ValueError, match=r"`batch_dims` = 2 must be less than rank\(`indices`\)"):
        tf.gather_nd(tf.zeros([2, 3, 4]), [[0], [1]], batch_dims=2)


def test_gather_nd_graph_shapes():
    with tf.Graph().as_default():
        y = placeholder(tf.float32, tf.TensorShape([None, 3, 4]))
        out = tf.gather_nd(y, placeholder(tf.int32, tf.TensorShape([None, 2])))
        assert out.shape.as_list() == [None, 4] and out.op.type == "GatherNd"
        assert tf.gather_nd(y, placeholder(tf.int32, tf.TensorShape([5, None]))).shape.rank \
            is None
        assert tf.gather_nd(y, placeholder(tf.int32, tf.TensorShape([7, 2, 1]))).shape.as_list() \
            == [7, 2, 3, 4]
        assert tf.gather_nd(y, placeholder(tf.int32, tf.TensorShape([None, 2, 1])),
                            batch_dims=1).shape.as_list() == [None, 2, 4]
        with pytest.raises(ValueError, match=r"indices.shape\[-1\] must be <= params.rank, but "
                                             r"saw indices shape: \[5,4\] and params shape: "
                                             r"\[\?,3,4\]"):
            tf.gather_nd(y, placeholder(tf.int32, tf.TensorShape([5, 4])))


# --- boolean_mask / reverse ---------------------------------------------------

def test_boolean_mask():
    x = tf.constant(X)
    np.testing.assert_array_equal(tf.boolean_mask(x, [True, False]).numpy(), X[:1])
    np.testing.assert_array_equal(
        tf.boolean_mask(x, [[True, False, True], [False, False, True]]).numpy(),
        X[np.array([[True, False, True], [False, False, True]])])
    np.testing.assert_array_equal(tf.boolean_mask(x, [True, False, True], axis=1).numpy(),
                                  X[:, [0, 2]])
    np.testing.assert_array_equal(tf.boolean_mask(x, [1, 0]).numpy(), X[:1])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are incompatible"):
        tf.boolean_mask(x, [True, False, True])
    # TensorFlow compares shape[axis:axis + k], which is empty for axis=-1.
    with pytest.raises(ValueError, match=r"Shapes \(\) and \(4,\) are incompatible"):
        tf.boolean_mask(x, [True, False, True, True], axis=-1)


def test_boolean_mask_graph_shapes():
    with tf.Graph().as_default():
        y = placeholder(tf.float32, tf.TensorShape([None, 3, 4]))
        out = tf.boolean_mask(y, placeholder(tf.bool, tf.TensorShape([None])))
        assert out.shape.as_list() == [None, 3, 4] and out.name == "boolean_mask/GatherV2:0"
        assert tf.boolean_mask(y, placeholder(tf.bool, tf.TensorShape([None, 3]))).shape \
            .as_list() == [None, 4]
        assert tf.boolean_mask(y, placeholder(tf.bool, tf.TensorShape([3])), axis=1).shape \
            .as_list() == [None, None, 4]
        with pytest.raises(ValueError, match="Number of mask dimensions must be specified"):
            tf.boolean_mask(y, placeholder(tf.bool, tf.TensorShape(None)))
        with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(4,\) are incompatible"):
            tf.boolean_mask(y, placeholder(tf.bool, tf.TensorShape([4])), axis=1)


def test_reverse():
    x = tf.constant(X)
    np.testing.assert_array_equal(tf.reverse(x, [1]).numpy(), X[:, ::-1])
    np.testing.assert_array_equal(tf.reverse(x, [0, -1]).numpy(), X[::-1, :, ::-1])
    np.testing.assert_array_equal(tf.reverse(x, []).numpy(), X)
    np.testing.assert_array_equal(tf.reverse(x, tf.constant([1], tf.int64)).numpy(), X[:, ::-1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"'axis'\[0\] = 3 is out of valid range \[0, 2"):
        tf.reverse(x, [3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="axis 1 specified more than once"):
        tf.reverse(x, [1, -2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'dims' must be 1-dimension, not 0"):
        tf.reverse(x, 1)
    with tf.Graph().as_default():
        y = placeholder(tf.float32, tf.TensorShape([None, 3, 4]))
        out = tf.reverse(y, [1])
        assert out.shape.as_list() == [None, 3, 4] and out.op.type == "ReverseV2"
        with pytest.raises(ValueError, match=r"'axis'\[0\] = 5 is out of valid range"):
            tf.reverse(y, [5])
