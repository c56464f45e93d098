"""The compiler's fusion of elementwise chains (rillflow/compiler/fusion.py)
keeps every value available to the plans outside a fused group that read it."""
import numpy as np

import rillflow as tf
from rillflow.compiler import fusion

N = fusion.FUSE_MIN_ELEMENTS


def test_value_read_between_members_of_a_chain():
    # Square feeds a reduction and then the chain y * 3 + 1: the reduction
    # ran before the fused plan (placed at the chain's end) and found no value.
    x_n = np.linspace(-1, 1, N, dtype=np.float32)

    @tf.function
    def f(x):
        y = tf.square(x)
        return tf.reduce_mean(y), y * 3.0 + 1.0
    mean, z = f(tf.constant(x_n))
    np.testing.assert_allclose(mean.numpy(), np.mean(x_n * x_n), rtol=1e-5)
    np.testing.assert_array_equal(z.numpy(), x_n * x_n * np.float32(3) + np.float32(1))


def test_chain_through_an_outside_reader():
    # y -> mean (not fusable) -> y * mean: joining y and y * mean would make
    # the group depend on itself through the reduction.
    x_n = np.linspace(0, 2, N, dtype=np.float32)

    @tf.function
    def f(x):
        y = tf.exp(x) - 1.0
        m = tf.reduce_max(y)
        return tf.sqrt(y * m + 2.0)
    want = np.sqrt((np.exp(x_n) - np.float32(1)) * np.max(np.exp(x_n) - np.float32(1))
                   + np.float32(2))
    np.testing.assert_allclose(f(tf.constant(x_n)).numpy(), want, rtol=1e-6)


def test_mean_squared_error_gradient():
    # The attention benchmark's loss: tf.square feeds the mean and, on the
    # tape, the gradient's elementwise chain.
    x_n = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)
    t_n = np.random.default_rng(1).standard_normal((256, 256)).astype(np.float32)

    @tf.function
    def f(x, t):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_mean(tf.square(x - t))
        return loss, tape.gradient(loss, x)
    loss, g = f(tf.constant(x_n), tf.constant(t_n))
    np.testing.assert_allclose(loss.numpy(), np.mean((x_n - t_n) ** 2), rtol=1e-5)
    np.testing.assert_allclose(g.numpy(), 2 * (x_n - t_n) / x_n.size, rtol=1e-5, atol=1e-9)
