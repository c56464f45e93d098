"""FusedBatchNormV3 and its gradient: values against the composed ops
(moments + batch_normalization, differentiated by the tape), TensorFlow's
outputs, reserve spaces, running averages, errors and dtypes (checked
against TensorFlow 2.21)."""
import numpy as np
import pytest

import rillflow as tf

RNG = np.random.default_rng(7)


def _composed(x, scale, offset, eps, axes):
    mean, var = tf.nn.moments(x, axes, keepdims=True)
    y = tf.nn.batch_normalization(x, mean, var, offset, scale, eps)
    return y, tf.reshape(mean, [-1]), tf.reshape(var, [-1])


@pytest.mark.parametrize("fmt", ["NHWC", "NCHW", "NDHWC"])
def test_training_matches_the_composed_ops_with_gradients(fmt):
    shape = {"NHWC": (3, 4, 5, 6), "NCHW": (3, 6, 4, 5), "NDHWC": (2, 3, 4, 2, 6)}[fmt]
    axes = [0, 2, 3] if fmt == "NCHW" else [a for a in range(len(shape) - 1)]
    x = tf.constant(RNG.standard_normal(shape).astype(np.float32) * 3 + 1)
    scale = tf.constant(RNG.standard_normal(6).astype(np.float32))
    offset = tf.constant(RNG.standard_normal(6).astype(np.float32))
    w = tf.constant(RNG.standard_normal(shape).astype(np.float32))
    eps = 0.001
    bshape = [1, 6, 1, 1] if fmt == "NCHW" else [6]

    def fused():
        with tf.GradientTape() as t:
            t.watch([x, scale, offset])
            y, m, v = tf.compat.v1.nn.fused_batch_norm(x, scale, offset, epsilon=eps,
                                                       data_format=fmt)
            loss = tf.reduce_sum(y * w)
        return [y, m, v] + t.gradient(loss, [x, scale, offset])

    def composed():
        with tf.GradientTape() as t:
            t.watch([x, scale, offset])
            y, m, v = _composed(x, tf.reshape(scale, bshape), tf.reshape(offset, bshape),
                                eps, axes)
            loss = tf.reduce_sum(y * w)
        n = x.shape.num_elements() // 6
        return [y, m, v * n / (n - 1)] + t.gradient(loss, [x, scale, offset])

    want = composed()
    for got in (fused(), tf.function(fused)()):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-5, atol=2e-5)


def test_outputs_reserve_spaces_and_running_average():
    x = np.random.default_rng(0).standard_normal((2, 3, 3, 4)).astype(np.float32)
    scale, offset = np.array([1., 2., .5, -1.], np.float32), np.array([0., 1., -1., .5],
                                                                       np.float32)
    r = tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=[], variance=[],
                                    epsilon=0.001, is_training=True)
    mean, biased = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))
    np.testing.assert_allclose(r.batch_mean, mean, rtol=1e-5)
    np.testing.assert_allclose(r.batch_variance, biased * 18 / 17, rtol=1e-5)
    np.testing.assert_allclose(r.reserve_space_1, mean, rtol=1e-5)
    np.testing.assert_allclose(r.reserve_space_2, biased, rtol=1e-5)
    assert r.reserve_space_3.shape == (0,)
    np.testing.assert_allclose(r.y, (x - mean) / np.sqrt(biased + 0.001) * scale + offset,
                               rtol=1e-5, atol=1e-6)
    r = tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=[1.] * 4,
                                    variance=[2.] * 4, epsilon=0.001, is_training=True,
                                    exponential_avg_factor=0.1)
    np.testing.assert_allclose(r.batch_mean, 0.9 + 0.1 * mean, rtol=1e-6)
    np.testing.assert_allclose(r.batch_variance, 1.8 + 0.1 * biased * 18 / 17, rtol=1e-6)
    # Values TensorFlow 2.21 printed for this input.
    np.testing.assert_allclose(r.batch_variance, [1.878645, 1.8907392, 1.9118465, 1.8784709],
                               rtol=1e-6)


def test_inference_and_its_gradient():
    x = tf.constant(RNG.standard_normal((2, 3, 3, 4)).astype(np.float32))
    scale, offset = tf.constant([1., 2., .5, -1.]), tf.constant([0., 1., -1., .5])
    mean, var = tf.constant([1., 1., 1., 1.]), tf.constant([2., 2., 2., 2.])
    with tf.GradientTape() as t:
        t.watch([x, scale, offset, mean, var])
        y, m, v = tf.compat.v1.nn.fused_batch_norm(x, scale, offset, mean, var,
                                                   is_training=False)
        loss = tf.reduce_sum(y * tf.sin(y))
    grads = t.gradient(loss, [x, scale, offset, mean, var])
    inv = 1 / np.sqrt(2 + 0.001)
    want = (x.numpy() - 1) * inv * scale.numpy() + offset.numpy()
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-6)
    assert m.numpy().tolist() == [1, 1, 1, 1] and v.numpy().tolist() == [2, 2, 2, 2]
    dy = np.sin(want) + want * np.cos(want)
    np.testing.assert_allclose(grads[0].numpy(), dy * scale.numpy() * inv, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(grads[1].numpy(), (dy * (x.numpy() - 1) * inv).sum((0, 1, 2)),
                               rtol=1e-4)
    np.testing.assert_allclose(grads[2].numpy(), dy.sum((0, 1, 2)), rtol=1e-4)
    assert grads[3] is None and grads[4] is None


def test_statistics_outputs_carry_no_gradient():
    x = tf.constant(RNG.standard_normal((2, 2, 2, 3)).astype(np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        _, m, v = tf.compat.v1.nn.fused_batch_norm(x, tf.ones([3]), tf.zeros([3]))
    assert t.gradient(tf.reduce_sum(m) + tf.reduce_sum(v), x) is None


def test_errors_and_dtypes():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input must be 4-dimensional\[2,3\] \[Op:FusedBatchNormV3\]"):
        tf.compat.v1.nn.fused_batch_norm(tf.zeros([2, 3]), tf.ones([4]), tf.zeros([4]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="scale must have the same number of elements as the channels of "
                             "x, got 3 and 4"):
        tf.compat.v1.nn.fused_batch_norm(tf.zeros([1, 2, 2, 4]), tf.ones([3]), tf.zeros([4]))
    with pytest.raises(ValueError, match="when is_training is False"):
        tf.compat.v1.nn.fused_batch_norm(tf.zeros([1, 2, 2, 4]), tf.ones([4]), tf.zeros([4]),
                                         is_training=False)
    xh = tf.cast(tf.constant(RNG.standard_normal((2, 2, 2, 4)).astype(np.float32)),
                 tf.float16)
    y, m, v = tf.compat.v1.nn.fused_batch_norm(xh, tf.ones([4]), tf.zeros([4]))
    assert (y.dtype, m.dtype, v.dtype) == (tf.float16, tf.float32, tf.float32)
