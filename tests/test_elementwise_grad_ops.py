"""TensorFlow's elementwise gradient ops (ops/core/elementwise_grad_ops.py) and
`Inv`, against TensorFlow 2.21's results (tests/data/tf_hyperbolic.npz, from
tools/tf_hyperbolic_fixtures.py): bit for bit but for SqrtGrad, within a few
ulps."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_hyperbolic.npz"))
Y, DY = DATA["grad_y"], DATA["grad_dy"]


@pytest.mark.parametrize("name", ["TanhGrad", "SigmoidGrad", "ReciprocalGrad", "InvGrad",
                                  "RsqrtGrad"])
def test_output_gradient_ops_are_tensorflows(name):
    got = getattr(tf.raw_ops, name)(y=tf.constant(Y), dy=tf.constant(DY)).numpy()
    np.testing.assert_array_equal(got.view(np.int32), DATA["grad_" + name].view(np.int32))


@pytest.mark.parametrize("name", ["SoftplusGrad", "SoftsignGrad"])
def test_feature_gradient_ops_are_tensorflows(name):
    got = getattr(tf.raw_ops, name)(gradients=tf.constant(DY), features=tf.constant(Y)).numpy()
    np.testing.assert_array_equal(got.view(np.int32), DATA["grad_" + name].view(np.int32))


def test_sqrt_gradient_is_within_a_few_ulps():
    yp = np.abs(Y) + np.float32(0.01)
    got = tf.raw_ops.SqrtGrad(y=tf.constant(yp), dy=tf.constant(DY)).numpy()
    np.testing.assert_allclose(got, DATA["grad_SqrtGrad"], rtol=4e-7)


# TensorFlow 2.21's values: y**3 is never formed (it overflowed at 1e-30), 0
# where the upstream gradient is 0 even at x = 0 (y = inf), and -0 at x = inf
# in these short tensors (Eigen's scalar form; its packets give +0).
RSQRT_X = [1e-30, 0.0, 0.0, 4.0, 4.0, np.inf, 1e-20]
RSQRT_G = [1e-20, 0.0, 1.0, 0.0, -0.0, 2.0, 1e30]
RSQRT_WANT = [-4.999999781011763e+24, 0.0, -np.inf, 0.0, 0.0, -0.0, -np.inf]


def _sign_exact(got, want):
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_rsqrt_gradient_is_tensorflows_at_the_edges():
    x = tf.constant(RSQRT_X, tf.float32)
    g = tf.constant(RSQRT_G, tf.float32)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.math.rsqrt(x)
    _sign_exact(t.gradient(y, x, output_gradients=g).numpy(), np.float32(RSQRT_WANT))
    f = tf.function(lambda x, g: tf.raw_ops.RsqrtGrad(y=tf.math.rsqrt(x), dy=g))
    _sign_exact(f(x, g).numpy(), np.float32(RSQRT_WANT))
    # The zero at x = inf (y = 0) is +0 in full 32-byte packets, -0 after
    # them (TensorFlow: 13 float32 -> 8 and 5, 21 -> 16 and 5; float64 12 and 1).
    for n, dtype, packet in ((13, tf.float32, 8), (16, tf.float32, 16), (21, tf.float32, 16),
                             (13, tf.float64, 12)):
        got = tf.raw_ops.RsqrtGrad(y=tf.zeros([n], dtype), dy=tf.fill([n], tf.constant(2, dtype)))
        np.testing.assert_array_equal(np.signbit(got.numpy()), [False] * packet + [True] * (n - packet))


def test_rsqrt_second_derivatives_are_tensorflows():
    x = tf.constant([0.25, 2.0, 9.0, 1e-3], tf.float32)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.math.rsqrt(x)
        g = t1.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [-4.0, -0.1767766773700714, -0.018518520519137383,
                                           -15811.3837890625], rtol=1e-6)
    np.testing.assert_allclose(t2.gradient(g, x).numpy(), [24.0, 0.13258250057697296,
                                                           0.00308642047457397, 23717072.0],
                               rtol=1e-6)
    y = tf.constant([0.5, 2.0, 3.0])
    dy = tf.constant([1.0, -2.0, 0.5])
    with tf.GradientTape() as t:
        t.watch([y, dy])
        z = tf.raw_ops.RsqrtGrad(y=y, dy=dy)
    gy, gdy = t.gradient(z, [y, dy], output_gradients=tf.constant([1.0, 3.0, -1.0]))
    np.testing.assert_allclose(gy.numpy(), [-0.375, 36.0, 6.75])
    np.testing.assert_allclose(gdy.numpy(), [-0.0625, -12.0, 13.5])


def test_rsqrt_gradient_under_xla_is_tensorflows_xla_kernel():
    pytest.importorskip("jax")

    @tf.function(jit_compile=True)
    def h(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.math.rsqrt(x) * tf.constant([1.0, 0.0, 2.0, 1.0]))
        return t.gradient(y, x)
    # TensorFlow's XLA kernel is y**3 * (dy / -2): NaN for x = 0 with dy = 0.
    got = h(tf.constant([0.25, 0.0, 1e-30, 4.0])).numpy()
    np.testing.assert_array_equal(got, np.float32([-4.0, np.nan, -np.inf, -0.0625]))


def test_inv_is_reciprocal_under_its_old_name():
    np.testing.assert_array_equal(tf.raw_ops.Inv(x=tf.constant(Y)).numpy().view(np.int32),
                                  DATA["grad_Inv"].view(np.int32))
    with pytest.raises(tf.errors.NotFoundError, match=r"Inv\[T=DT_INT32\]"):
        tf.raw_ops.Inv(x=tf.constant([2, 4]))


def test_mismatched_inputs_are_refused_as_tensorflow_does():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input #1.*expected to be a float"):
        tf.raw_ops.TanhGrad(y=tf.constant([1.0]), dy=tf.constant([1.0], tf.float64))
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
        tf.raw_ops.SigmoidGrad(y=tf.constant([1.0, 2.0]), dy=tf.constant([1.0, 2.0, 3.0]))


def test_the_ops_run_in_graphs():
    f = tf.function(lambda y, dy: tf.raw_ops.TanhGrad(y=y, dy=dy) + 0.0)
    np.testing.assert_array_equal(f(tf.constant(Y), tf.constant(DY)).numpy(),
                                  DATA["grad_TanhGrad"] + np.float32(0.0))
