"""conv2d, max_pool2d, avg_pool2d and their gradients (to second order):
shapes, padding rules and values as TensorFlow 2.21 gives them (the
expected numbers below come from it)."""
import re

import numpy as np
import pytest

import rillflow as tf

X = tf.constant(np.arange(2 * 5 * 5 * 2, dtype=np.float32).reshape(2, 5, 5, 2) / 10)
F = tf.constant(np.arange(3 * 3 * 2 * 3, dtype=np.float32).reshape(3, 3, 2, 3) / 20 - 0.5)


@pytest.mark.parametrize("padding,stride,shape,total", [
    ("SAME", 1, (2, 5, 5, 3), 8888.4902), ("SAME", 2, (2, 3, 3, 3), 2403.4500),
    ("VALID", 1, (2, 3, 3, 3), 4595.1299), ("VALID", 2, (2, 2, 2, 3), 2042.2800)])
def test_conv2d_padding_and_strides(padding, stride, shape, total):
    y = tf.nn.conv2d(X, F, stride, padding)
    assert y.shape == shape and y.dtype == tf.float32
    assert float(tf.reduce_sum(y)) == pytest.approx(total, rel=1e-6)
    g = tf.function(lambda x: tf.nn.conv2d(x, F, stride, padding))
    np.testing.assert_allclose(g(X).numpy(), y.numpy(), rtol=1e-6)


def test_conv2d_explicit_padding_dilation_and_errors():
    assert tf.nn.conv2d(X, F, 1, [[0, 0], [1, 0], [2, 1], [0, 0]]).shape == (2, 4, 6, 3)
    assert tf.nn.conv2d(X, F, 1, "SAME", dilations=2).shape == (2, 5, 5, 3)
    ones = tf.constant(np.ones((1, 3, 3, 1)))
    assert tf.nn.conv2d(ones, tf.constant(np.ones((2, 2, 1, 1))), 1, "VALID").dtype == tf.float64
    with pytest.raises(tf.errors.InvalidArgumentError, match="number of groups: 3 vs 2"):
        tf.nn.conv2d(X, F[:, :, :1], 1, "SAME")
    with pytest.raises(tf.errors.InvalidArgumentError, match="allowed values"):
        tf.nn.conv2d(X, F, 1, "FULL")
    with pytest.raises(ValueError, match="allowed values"):
        tf.function(lambda x: tf.nn.conv2d(x, F, 1, "FULL"))(X)


def test_pooling():
    assert tf.nn.max_pool2d(X, 2, 2, "SAME").shape == (2, 3, 3, 2)
    assert float(tf.reduce_sum(tf.nn.max_pool2d(X, 2, 2, "SAME"))) == pytest.approx(207.0)
    assert tf.nn.max_pool(X, [1, 2, 2, 1], [1, 1, 1, 1], "VALID").shape == (2, 4, 4, 2)
    # SAME average pooling divides by the real elements of each window.
    np.testing.assert_allclose(tf.nn.avg_pool2d(X, 3, 2, "SAME").numpy()[0, :, :, 0],
                               [[0.6, 0.9, 1.2], [2.1, 2.4, 2.7], [3.6, 3.9, 4.2]], rtol=1e-6)


def test_pooling_gradients():
    with tf.GradientTape(persistent=True) as t:
        t.watch(X)
        m = tf.reduce_sum(tf.nn.max_pool2d(X * X, 3, 2, "SAME"))
        a = tf.reduce_sum(tf.nn.avg_pool2d(X * X, 3, 2, "SAME") ** 2)
    np.testing.assert_allclose(t.gradient(m, X).numpy()[0, :, :, 0], [
        [0, 0, 0, 0, 0], [0, 2.4, 0, 3.2, 3.6], [0, 0, 0, 0, 0], [0, 6.4, 0, 7.2, 7.6],
        [0, 8.4, 0, 9.2, 9.6]], rtol=1e-6)
    np.testing.assert_allclose(t.gradient(a, X).numpy()[0, 0, :, 1],
                               [0.075, 0.48033336, 0.42555556, 1.9607779, 1.755], rtol=1e-5)
    ties = tf.constant([[[[1.0], [3.0], [3.0], [2.0]]]])
    with tf.GradientTape() as t:
        t.watch(ties)
        y = tf.nn.max_pool2d(ties, [1, 3], 1, "VALID")
    # Each window's gradient goes to its first maximum.
    np.testing.assert_array_equal(t.gradient(y, ties).numpy().ravel(), [0, 2, 0, 0])


def test_a_small_cnn_trains_as_in_tensorflow():
    rng = np.random.RandomState(0)
    x = tf.constant(rng.rand(4, 8, 8, 1).astype(np.float32))
    y = tf.constant([0, 1, 2, 1])
    k1 = tf.Variable(rng.randn(3, 3, 1, 4).astype(np.float32) * 0.3)
    w = tf.Variable(rng.randn(16 * 4, 3).astype(np.float32) * 0.1)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as t:
            h = tf.nn.relu(tf.nn.conv2d(x, k1, 1, "SAME"))
            h = tf.nn.max_pool2d(h, 2, 2, "VALID")
            h = tf.nn.avg_pool2d(h, 3, 1, "SAME")
            logits = tf.matmul(tf.reshape(h, [-1, 64]), w)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        g = t.gradient(loss, [k1, w])
        k1.assign_sub(0.5 * g[0])
        w.assign_sub(0.5 * g[1])
        return loss
    for _ in range(5):
        loss = step(x, y)
    assert float(loss) == pytest.approx(1.0148, abs=1e-4)
    np.testing.assert_allclose(k1.numpy()[:, :, 0, 0], [[0.492, 0.225, -0.077],
                                                        [0.137, -0.386, 0.566],
                                                        [-0.162, 0.013, -0.522]], atol=1e-3)


def _second_order(conv, x, f):
    """Gradients with respect to x and f of sum(gx**2) + sum(gf), where gx
    and gf are the gradients of sum(conv(x, f)**2)."""
    with tf.GradientTape() as t2:
        t2.watch([x, f])
        with tf.GradientTape() as t1:
            t1.watch([x, f])
            z = tf.reduce_sum(conv(x, f) ** 2)
        gx, gf = t1.gradient(z, [x, f])
        s = tf.reduce_sum(gx * gx) + tf.reduce_sum(gf)
    return t2.gradient(s, [x, f])


def test_second_order_gradients():
    rng = np.random.RandomState(0)
    rng.rand(4, 8, 8, 1), rng.randn(3, 3, 1, 4), rng.randn(64, 3)   # as in the CNN test
    xx = tf.constant(rng.rand(1, 5, 5, 2).astype(np.float32))
    f = tf.constant(rng.randn(2, 2, 2, 2).astype(np.float32))
    hx, hf = _second_order(lambda a, b: tf.nn.conv2d(a, b, 2, "SAME"), xx, f)
    np.testing.assert_allclose(hx.numpy().ravel()[:6],
                               [64.073, -28.121, 200.225, 383.777, 74.737, 54.703], atol=2e-3)
    np.testing.assert_allclose(hf.numpy().ravel()[:6],
                               [-563.766, 160.095, -998.442, 365.976, -740.702, 133.582],
                               atol=5e-3)
    with tf.GradientTape() as t2:
        t2.watch(xx)
        with tf.GradientTape() as t1:
            t1.watch(xx)
            z = tf.reduce_sum(tf.nn.max_pool2d(xx * xx, 2, 1, "SAME") *
                              tf.nn.avg_pool2d(xx, 2, 2, "VALID")[0, 0, 0, 0])
        gx = t1.gradient(z, xx)
        s = tf.reduce_sum(gx * gx)
    np.testing.assert_allclose(t2.gradient(s, xx).numpy().ravel()[:8],
                               [157.089, 0, 207.778, 0, 0, 0, 0, 0], atol=2e-3)


def test_conv1d_and_conv2d_transpose():
    x = tf.constant(np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) / 10)
    f = tf.constant(np.arange(3 * 3 * 4, dtype=np.float32).reshape(3, 3, 4) / 20 - 0.5)
    for padding, shape, total in (("SAME", (2, 4, 4), 187.7), ("VALID", (2, 3, 4), 194.85)):
        y = tf.nn.conv1d(x, f, 2, padding)
        assert y.shape == shape and float(tf.reduce_sum(y)) == pytest.approx(total, rel=1e-5)
    assert tf.nn.conv1d(x, f, 1, "SAME", dilations=2).shape == (2, 7, 4)
    xi = tf.constant(np.arange(18, dtype=np.float32).reshape(1, 3, 3, 2))
    ft = tf.constant(np.arange(72, dtype=np.float32).reshape(3, 3, 4, 2) / 10)
    for stride, padding, shape, total in ((2, "SAME", [1, 6, 6, 4], 10956.8),
                                          (2, "VALID", [1, 7, 7, 4], 19569.6),
                                          (1, "SAME", [1, 3, 3, 4], 10046.4)):
        y = tf.nn.conv2d_transpose(xi, ft, shape, stride, padding)
        assert y.shape == tuple(shape)
        assert float(tf.reduce_sum(y)) == pytest.approx(total, rel=1e-5)
    with tf.GradientTape() as t:
        t.watch([xi, ft])
        y = tf.reduce_sum(tf.nn.conv2d_transpose(xi, ft, [1, 6, 6, 4], 2, "SAME") ** 2)
    gx, gf = t.gradient(y, [xi, ft])
    assert float(tf.reduce_sum(gx)) == pytest.approx(350146.56, rel=1e-5)
    assert float(tf.reduce_sum(gf)) == pytest.approx(1046668.81, rel=1e-5)
    g = tf.function(lambda v: tf.nn.conv2d_transpose(v, ft, [1, 6, 6, 4], 2))
    assert g.get_concrete_function(xi).output_shapes == tf.TensorShape([1, 6, 6, 4])


def test_depthwise_and_separable_convolutions():
    x = tf.constant(np.arange(2 * 5 * 5 * 3, dtype=np.float32).reshape(2, 5, 5, 3) / 10)
    f = tf.constant(np.arange(3 * 3 * 3 * 2, dtype=np.float32).reshape(3, 3, 3, 2) / 20 - 0.4)
    for stride, padding, shape, total in ((1, "SAME", (2, 5, 5, 6), 14887.535),
                                          (2, "VALID", (2, 2, 2, 6), 3394.62),
                                          (2, "SAME", (2, 3, 3, 6), 4055.975)):
        y = tf.nn.depthwise_conv2d(x, f, [1, stride, stride, 1], padding)
        assert y.shape == shape
        assert float(tf.reduce_sum(y)) == pytest.approx(total, rel=1e-5)
    np.testing.assert_allclose(tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME").numpy()[0, 0, 0],
                               [6.48, 6.66, 7.44, 7.64, 8.48, 8.70], rtol=1e-5)
    with tf.GradientTape() as t:
        t.watch([x, f])
        y = tf.reduce_sum(tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "SAME") ** 2)
    gx, gf = t.gradient(y, [x, f])
    assert float(tf.reduce_sum(gx)) == pytest.approx(47972.668, rel=1e-5)
    assert float(tf.reduce_sum(gf)) == pytest.approx(445434.844, rel=1e-5)
    pw = tf.constant(np.ones((1, 1, 6, 4), np.float32) / 6)
    sep = tf.nn.separable_conv2d(x, f, pw, [1, 1, 1, 1], "SAME")
    assert sep.shape == (2, 5, 5, 4)
    assert float(tf.reduce_sum(sep)) == pytest.approx(9925.023, rel=1e-5)
    g = tf.function(lambda v: tf.nn.depthwise_conv2d(v, f, [1, 2, 2, 1], "SAME"))
    assert g.get_concrete_function(tf.TensorSpec([None, 5, 5, 3])).output_shapes.as_list() == \
        [None, 3, 3, 6]


def test_depthwise_second_order_gradients():
    rng = np.random.RandomState(1)
    x = tf.constant(rng.rand(1, 4, 4, 2).astype(np.float32))
    f = tf.constant(rng.randn(2, 2, 2, 2).astype(np.float32))
    hx, hf = _second_order(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 2, 2, 1], "SAME"),
                           x, f)
    np.testing.assert_allclose(hx.numpy().ravel()[:5], [-3.447, 51.536, -5.682, -38.865, 1.322],
                               atol=2e-3)
    np.testing.assert_allclose(hf.numpy().ravel()[:5], [6.206, 7.627, -91.626, 98.024, 4.889],
                               atol=2e-3)


def test_one_dimensional_pooling():
    x = tf.constant(np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) % 5)
    assert tf.nn.max_pool1d(x, 2, 2, "VALID").numpy()[0].tolist() == \
        [[3, 4, 2], [4, 2, 3], [2, 3, 4]]
    np.testing.assert_allclose(tf.nn.avg_pool1d(x, 3, 2, "SAME").numpy()[0],
                               [[1.5, 2.5, 1.0], [2.6667, 2.0, 1.3333], [2.0, 1.3333, 2.3333],
                                [1.5, 2.5, 1.0]], atol=1e-4)
    assert tf.nn.max_pool(x, 3, 1, "SAME").shape == (2, 7, 3)
    assert tf.nn.avg_pool(x, [2], [2], "VALID").shape == (2, 3, 3)


# The gradient ops check their operands as TensorFlow's CPU kernels do (messages of
# TensorFlow 2.21's Eigen kernels, TF_ENABLE_ONEDNN_OPTS=0; its oneDNN kernels abort
# with an unspecific message instead). Before, inconsistent depths gave a result.
_BAD_BACKPROP = [
    ((1, 5, 5, 3), "filter and out_backprop must have the same out_depth"),
    ((1, 4, 5, 4), "Size of out_backprop doesn't match computed: actual = 4, computed = 5 "
                   "spatial_dim: 1 input: 5 filter: 3 output: 4 stride: 1 dilation: 1"),
    ((2, 5, 5, 4), "input and out_backprop must have the same batch size. Input batch: 1, "
                   "outbackprop batch: 2, batch_dim: 0"),
]


@pytest.mark.parametrize("dy_shape,message", _BAD_BACKPROP)
def test_conv2d_backprop_ops_check_their_operands(dy_shape, message):
    dy = np.ones(dy_shape, np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Conv2DCustomBackpropInput: " + re.escape(message)):
        tf.raw_ops.Conv2DBackpropInput(input_sizes=[1, 5, 5, 2],
                                       filter=np.ones((3, 3, 2, 4), np.float32),
                                       out_backprop=dy, strides=[1, 1, 1, 1], padding="SAME")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Conv2DCustomBackpropFilter: " + re.escape(message)):
        tf.raw_ops.Conv2DBackpropFilter(input=np.ones((1, 5, 5, 2), np.float32),
                                        filter_sizes=[3, 3, 2, 4], out_backprop=dy,
                                        strides=[1, 1, 1, 1], padding="SAME")


def test_conv2d_backprop_filter_checks_input_depth():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Conv2DCustomBackpropFilter: input depth must be evenly "
                             "divisible by filter depth"):
        tf.raw_ops.Conv2DBackpropFilter(input=np.ones((1, 5, 5, 2), np.float32),
                                        filter_sizes=[3, 3, 3, 4],
                                        out_backprop=np.ones((1, 5, 5, 4), np.float32),
                                        strides=[1, 1, 1, 1], padding="SAME")
