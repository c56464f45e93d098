"""TensorFlow's elementwise gradient ops (ops/core/elementwise_grad_ops.py) and
`Inv`, against TensorFlow 2.21's results (tests/data/tf_hyperbolic.npz, from
tools/tf_hyperbolic_fixtures.py): bit for bit but for SqrtGrad and RsqrtGrad,
within a few ulps."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_hyperbolic.npz"))
Y, DY = DATA["grad_y"], DATA["grad_dy"]


@pytest.mark.parametrize("name", ["TanhGrad", "SigmoidGrad", "ReciprocalGrad", "InvGrad"])
def test_output_gradient_ops_are_tensorflows(name):
    got = getattr(tf.raw_ops, name)(y=tf.constant(Y), dy=tf.constant(DY)).numpy()
    np.testing.assert_array_equal(got.view(np.int32), DATA["grad_" + name].view(np.int32))


@pytest.mark.parametrize("name", ["SoftplusGrad", "SoftsignGrad"])
def test_feature_gradient_ops_are_tensorflows(name):
    got = getattr(tf.raw_ops, name)(gradients=tf.constant(DY), features=tf.constant(Y)).numpy()
    np.testing.assert_array_equal(got.view(np.int32), DATA["grad_" + name].view(np.int32))


def test_sqrt_and_rsqrt_gradients_are_within_a_few_ulps():
    yp = np.abs(Y) + np.float32(0.01)
    got = tf.raw_ops.SqrtGrad(y=tf.constant(yp), dy=tf.constant(DY)).numpy()
    np.testing.assert_allclose(got, DATA["grad_SqrtGrad"], rtol=4e-7)
    got = tf.raw_ops.RsqrtGrad(y=tf.constant(Y), dy=tf.constant(DY)).numpy()
    np.testing.assert_allclose(got, DATA["grad_RsqrtGrad"], rtol=4e-7, atol=1e-6)


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
