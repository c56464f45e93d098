"""Convolutions TensorFlow's CPU kernels refuse and XLA computes, under
tf.function(jit_compile=True): grouped convolutions and channels-first
layouts (Keras' TensorFlow backend relies on them). Expected values: the
same convolution by a route the CPU kernels take (per-group convolutions,
channels-last layouts), whose values are checked against TensorFlow's in
the other convolution tests."""
import numpy as np
import pytest

import rillflow as tf


def _grouped_reference(x, f, strides, padding, dilations):
    groups = x.shape[-1] // f.shape[-2]
    xs = np.split(x, groups, axis=-1)
    fs = np.split(f, groups, axis=-1)
    return np.concatenate([tf.nn.convolution(a, b, strides, padding, dilations=dilations).numpy()
                           for a, b in zip(xs, fs)], axis=-1)


@pytest.mark.parametrize("xs,fs,strides,padding,dil", [
    ((2, 9, 6), (3, 2, 9), 1, "VALID", 1),
    ((2, 7, 7, 4), (3, 3, 2, 6), (1, 2), "SAME", 1),
    ((2, 8, 8, 6), (2, 2, 2, 9), 1, "VALID", 2),
    ((1, 5, 5, 5, 4), (2, 2, 2, 2, 6), 1, "SAME", 1),
])
def test_grouped_convolution_under_jit_compile(xs, fs, strides, padding, dil):
    rng = np.random.RandomState(len(xs))
    x = rng.rand(*xs).astype("float32")
    f = rng.rand(*fs).astype("float32")

    @tf.function(jit_compile=True)
    def conv(x, f):
        return tf.nn.convolution(x, f, strides, padding, dilations=dil)
    np.testing.assert_allclose(conv(x, f).numpy(), _grouped_reference(x, f, strides, padding, dil),
                               rtol=1e-6)


def test_grouped_convolution_refused_without_jit_compile():
    x = np.ones((1, 4, 4, 4), np.float32)
    f = np.ones((2, 2, 2, 6), np.float32)
    with pytest.raises(tf.errors.UnimplementedError, match="Grouped convolutions"):
        tf.nn.convolution(x, f)

    @tf.function
    def conv(x, f):
        return tf.nn.convolution(x, f)
    with pytest.raises(ValueError, match="Grouped convolutions are not supported on the CPU"):
        conv(x, f)


def test_group_depth_errors_in_tensorflows_words():
    @tf.function(jit_compile=True)
    def conv(x, f):
        return tf.nn.convolution(x, f)
    with pytest.raises(ValueError, match=r"Depth of output \(8\) is not a multiple of the "
                                         r"number of groups \(3\)"):
        conv(np.ones((2, 9, 6), np.float32), np.ones((3, 2, 8), np.float32))
    with pytest.raises(ValueError, match=r"Depth of input \(5\) is not a multiple of input "
                                         r"depth of filter \(2\)"):
        conv(np.ones((2, 6, 6, 5), np.float32), np.ones((3, 3, 2, 4), np.float32))


@pytest.mark.parametrize("fmt,xs,fs,strides,dil", [
    ("NCHW", (2, 4, 7, 7), (2, 2, 4, 5), 1, (2, 1)),
    ("NCDHW", (1, 4, 5, 5, 5), (2, 2, 2, 2, 6), 1, 1),    # grouped too
    ("NCW", (2, 6, 9), (3, 3, 4), 2, 1),                  # grouped too
])
def test_channels_first_under_jit_compile_with_gradients(fmt, xs, fs, strides, dil):
    rng = np.random.RandomState(3)
    x = rng.rand(*xs).astype("float32")
    f = rng.rand(*fs).astype("float32")
    n = len(xs) - 2
    to_last = [0] + list(range(2, n + 2)) + [1]
    to_first = [0, n + 1] + list(range(1, n + 1))

    @tf.function(jit_compile=True)
    def step(x, f):
        with tf.GradientTape() as tape:
            tape.watch([x, f])
            y = tf.nn.convolution(x, f, strides, "SAME", data_format=fmt, dilations=dil)
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, [x, f])

    @tf.function(jit_compile=True)  # channels-last: the grouped path tested above
    def reference(x, f):
        with tf.GradientTape() as tape:
            tape.watch([x, f])
            y = tf.nn.convolution(tf.transpose(x, to_last), f, strides, "SAME", dilations=dil)
            loss = tf.reduce_sum(y * y)
        return tf.transpose(y, to_first), tape.gradient(loss, [x, f])

    x, f = tf.constant(x), tf.constant(f)
    (y, (gx, gf)), (ry, (rgx, rgf)) = step(x, f), reference(x, f)
    np.testing.assert_allclose(y.numpy(), ry.numpy(), rtol=1e-6)
    np.testing.assert_allclose(gx.numpy(), rgx.numpy(), rtol=1e-5)
    np.testing.assert_allclose(gf.numpy(), rgf.numpy(), rtol=1e-5)
