"""tf.reverse_sequence, tf.nn.depth_to_space and tf.nn.space_to_depth:
values and gradients against TensorFlow 2.21 (tests/data/tf_ctc.npz, from
tools/tf_ctc_fixtures.py), against NumPy loops, in tf.function, and
TensorFlow's errors (NCHW fails on the CPU as in TensorFlow)."""
import json
import os

import numpy as np
import pytest

import rillflow as tf

F = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_ctc.npz"))
META = json.loads(str(F["meta"]))


def cases(kind):
    return [pytest.param(m, id=m["key"]) for m in META if m["kind"] == kind]


def value_and_grad(fn, x, g):
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = fn(xt)
    return y.numpy(), tape.gradient(y, xt, output_gradients=tf.constant(g)).numpy()


@pytest.mark.parametrize("m", cases("rs"))
def test_reverse_sequence_matches_tensorflow(m):
    k = m["key"]
    fn = lambda x: tf.reverse_sequence(x, F[k + "_lens"], seq_axis=m["seq_axis"],  # noqa: E731
                                       batch_axis=m["batch_axis"])
    y = fn(F[k + "_x"])
    assert y.dtype == F[k + "_x"].dtype
    np.testing.assert_array_equal(y.numpy(), F[k + "_y"])
    np.testing.assert_array_equal(tf.function(fn)(F[k + "_x"]).numpy(), F[k + "_y"])
    if k + "_g" in F:
        _, dx = value_and_grad(fn, F[k + "_x"], F[k + "_g"])
        np.testing.assert_array_equal(dx, F[k + "_dx"])


def test_reverse_sequence_against_loops_and_v1_names():
    x = np.arange(60).reshape(3, 4, 5)
    lens = np.array([1, 4, 2, 0, 3])
    want = x.copy()
    for b, n in enumerate(lens):
        want[:, :n, b] = x[:, :n, b][:, ::-1]
    got = tf.reverse_sequence(x, lens, seq_axis=1, batch_axis=2)
    np.testing.assert_array_equal(got.numpy(), want)
    got = tf.compat.v1.reverse_sequence(x, lens, seq_dim=1, batch_dim=2)
    np.testing.assert_array_equal(got.numpy(), want)
    s = tf.reverse_sequence([["a", "b", "c"]], [2], seq_axis=1)
    assert s.numpy().tolist() == [[b"b", b"a", b"c"]]


@pytest.mark.parametrize("fn,cls,msg", [
    (lambda x: tf.reverse_sequence(x, [2, 4], seq_axis=1), tf.errors.InvalidArgumentError,
     "seq_lens(1) > input.dims(1) [Op:ReverseSequence]"),
    (lambda x: tf.reverse_sequence(x, [2, -1], seq_axis=1), tf.errors.InvalidArgumentError,
     "seq_lens(1) < 0"),
    (lambda x: tf.reverse_sequence(x, [2, 3], seq_axis=-1), tf.errors.InvalidArgumentError,
     "Invalid seq_dim -1"),
    (lambda x: tf.reverse_sequence(x, [2, 3], seq_axis=1, batch_axis=1),
     tf.errors.InvalidArgumentError, "batch_dim == seq_dim == 1"),
    (lambda x: tf.reverse_sequence(x, [2, 3, 1], seq_axis=1), tf.errors.InvalidArgumentError,
     "Length of seq_lengths != input.dims(0), (3 vs. 2)"),
    (lambda x: tf.reverse_sequence(x, [2, 3], seq_axis=3), tf.errors.InvalidArgumentError,
     "seq_dim must be < input rank ( 3 vs. 3)"),
    (lambda x: tf.reverse_sequence(x, [[2, 3]], seq_axis=1), tf.errors.InvalidArgumentError,
     "seq_lengths must be 1-dim, not 2"),
    (lambda x: tf.reverse_sequence(x, [2., 3.], seq_axis=1), tf.errors.InvalidArgumentError,
     "Value for attr 'Tlen' of float is not in the list of allowed values: int32, int64"),
    (lambda x: tf.reverse_sequence(x, [2, 3]), TypeError,
     "Expected int for argument 'seq_dim' not None."),
    (lambda x: tf.compat.v1.reverse_sequence(x, [2, 3], seq_axis=1, seq_dim=1), ValueError,
     "Cannot specify both 'seq_dim' and 'seq_axis'."),
])
def test_reverse_sequence_errors(fn, cls, msg):
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(cls) as e:
        fn(x)
    assert msg in str(e.value)


def test_reverse_sequence_graph_shapes_and_errors():
    @tf.function(input_signature=[tf.TensorSpec([None, 3, None]),
                                  tf.TensorSpec([None], tf.int32)])
    def f(x, lens):
        y = tf.reverse_sequence(x, lens, seq_axis=1)
        assert y.shape.as_list() == [None, 3, None]
        return y
    assert f(np.zeros((2, 3, 4), np.float32), [1, 2]).shape == (2, 3, 4)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.function(lambda x: tf.reverse_sequence(x, [1, 2, 3], seq_axis=1))(
            np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="seq_dim must be < input rank: 5 vs. 3"):
        tf.function(lambda x: tf.reverse_sequence(x, [1, 2], seq_axis=5))(
            np.zeros((2, 3, 4), np.float32))


# --- depth_to_space, space_to_depth --------------------------------------------------

@pytest.mark.parametrize("m", cases("d2s") + cases("s2d"))
def test_pixel_shuffles_match_tensorflow(m):
    k = m["key"]
    op = tf.nn.depth_to_space if m["kind"] == "d2s" else tf.nn.space_to_depth
    fn = lambda x: op(x, m["block_size"])  # noqa: E731
    y, dx = value_and_grad(fn, F[k + "_x"], F[k + "_g"])
    np.testing.assert_array_equal(y, F[k + "_y"])
    np.testing.assert_array_equal(dx, F[k + "_dx"])
    np.testing.assert_array_equal(tf.function(fn)(F[k + "_x"]).numpy(), F[k + "_y"])


def test_depth_to_space_against_loops_and_inverse():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, (2, 3, 2, 18))
    b = 3
    y = tf.nn.depth_to_space(x, b).numpy()
    assert y.shape == (2, 9, 6, 2)
    for i, j in np.ndindex(b, b):
        first = (i * b + j) * 2
        np.testing.assert_array_equal(y[:, i::b, j::b, :], x[..., first:first + 2])
    np.testing.assert_array_equal(tf.nn.space_to_depth(y, b).numpy(), x)
    np.testing.assert_array_equal(tf.compat.v1.space_to_depth(y, b).numpy(), x)
    np.testing.assert_array_equal(tf.compat.v1.nn.depth_to_space(x, b).numpy(), y)
    s = tf.nn.depth_to_space(np.array([[[["a", "b", "c", "d"]]]]), 2)
    assert s.numpy().ravel().tolist() == [b"a", b"b", b"c", b"d"]


@pytest.mark.parametrize("fn,cls,msg", [
    (lambda x: tf.nn.depth_to_space(x, 3), tf.errors.InvalidArgumentError,
     "Input depth dimension 8 should be divisible by: 9 [Op:DepthToSpace]"),
    (lambda x: tf.nn.depth_to_space(x[0], 2), tf.errors.InvalidArgumentError,
     "Input rank should be: 4 instead of: 3"),
    (lambda x: tf.nn.space_to_depth(x, 2), tf.errors.InvalidArgumentError,
     "Image width 3 and height 2 should be divisible by block_size: 2"),
    (lambda x: tf.nn.space_to_depth(x[0], 2), tf.errors.InvalidArgumentError,
     "Input rank should be 4 instead of 3"),
    (lambda x: tf.nn.depth_to_space(x, 1), tf.errors.InvalidArgumentError,
     "Value for attr 'block_size' of 1 must be at least minimum 2"),
    (lambda x: tf.nn.depth_to_space(x, 2, data_format="NHCW"), tf.errors.InvalidArgumentError,
     "Value for attr 'data_format' of \"NHCW\" is not in the list of allowed values"),
    # TensorFlow's CPU kernels are NHWC only.
    (lambda x: tf.nn.depth_to_space(x, 2, data_format="NCHW"), tf.errors.NotFoundError,
     "Could not find device for node: {{node DepthToSpace}} = DepthToSpace[T=DT_FLOAT, "
     "block_size=2, data_format=\"NCHW\"]"),
    (lambda x: tf.nn.space_to_depth(x, 2, data_format="NCHW"), tf.errors.NotFoundError,
     "Could not find device for node: {{node SpaceToDepth}}"),
])
def test_pixel_shuffle_errors(fn, cls, msg):
    x = np.zeros((2, 2, 3, 8), np.float32)
    with pytest.raises(cls) as e:
        fn(x)
    assert msg in str(e.value)


def test_pixel_shuffle_graph_shapes_and_errors():
    @tf.function(input_signature=[tf.TensorSpec([None, None, 3, 8])])
    def f(x):
        y = tf.nn.depth_to_space(x, 2)
        assert y.shape.as_list() == [None, None, 6, 2]
        z = tf.nn.space_to_depth(y, 2)
        assert z.shape.as_list() == [None, None, 3, 8]
        return z
    x = np.arange(96, dtype=np.float32).reshape(2, 2, 3, 8)
    np.testing.assert_array_equal(f(x).numpy(), x)
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 9 but is 8"):
        tf.function(lambda a: tf.nn.depth_to_space(a, 3))(x)
    with pytest.raises(ValueError, match="Attr 'block_size' of 'SpaceToDepth' Op passed 1 less "
                       "than minimum 2."):
        tf.function(lambda a: tf.nn.space_to_depth(a, 1))(x)
    # NCHW builds (its shapes are inferred) and fails when it runs.
    g = tf.function(lambda a: tf.nn.depth_to_space(a, 2, data_format="NCHW"))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="No OpKernel was registered to support Op 'DepthToSpace'"):
        g(np.zeros((1, 4, 2, 2), np.float32))
