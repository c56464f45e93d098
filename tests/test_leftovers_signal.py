"""tf.signal.mdct / inverse_mdct against TensorFlow's values (recorded by
tools/tf_leftovers_fixtures.py), and fftnd, ifftnd, rfftnd, irfftnd: their
TensorFlow 2.21 kernels exist for GPUs only, so they are checked against
NumPy's n-dimensional transforms and rillflow's own fft2d/fft3d."""
import json
import os

import numpy as np
import pytest

import rillflow as tf

with open(os.path.join(os.path.dirname(__file__), "data", "tf_leftovers.json")) as _f:
    DATA = json.load(_f)


def _close(got, key, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(DATA[key]), rtol=rtol, atol=atol)


def test_mdct_matches_tensorflow():
    x = np.asarray(DATA["mdct_x"], np.float32)
    x64 = np.asarray(DATA["mdct_x64"])
    m = tf.signal.mdct(x, 16)
    assert m.dtype == tf.float32 and m.shape == (2, 4, 8)
    _close(m, "mdct_vorbis")
    m2 = tf.signal.mdct(x, 12, window_fn=None, norm="ortho", pad_end=True)
    _close(m2, "mdct_none_ortho_pad")
    k = tf.signal.mdct(x64, 8, window_fn=tf.signal.kaiser_bessel_derived_window)
    assert k.dtype == tf.float64
    _close(k, "mdct_kbd64", rtol=1e-12, atol=1e-12)
    _close(tf.signal.inverse_mdct(m), "imdct_vorbis")
    _close(tf.signal.inverse_mdct(tf.signal.mdct(x, 12, window_fn=None, norm="ortho"),
                                  window_fn=None, norm="ortho"), "imdct_none_ortho")


def test_mdct_gradient_and_function():
    x64 = tf.constant(np.asarray(DATA["mdct_x64"]))
    with tf.GradientTape() as tape:
        tape.watch(x64)
        y = tf.reduce_sum(tf.signal.mdct(x64, 8) ** 2)
    _close(tape.gradient(y, x64), "mdct_grad64", rtol=1e-10, atol=1e-10)
    f = tf.function(lambda v: tf.signal.inverse_mdct(tf.signal.mdct(v, 16)))
    _close(f(np.asarray(DATA["mdct_x"], np.float32)), "imdct_vorbis")


def test_mdct_bad_frame_length():
    with pytest.raises(ValueError, match="multiple of 4"):
        tf.signal.mdct(np.zeros(20, np.float32), 10)


RNG = np.random.default_rng(3)
X = (RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))).astype(np.complex64)
R = RNG.standard_normal((2, 3, 4)).astype(np.float32)


@pytest.mark.parametrize("norm", [None, "backward", "forward", "ortho"])
def test_fftnd_family_matches_numpy(norm):
    npnorm = norm or "backward"
    y = tf.signal.fftnd(X, norm=norm)
    assert y.dtype == tf.complex64 and y.shape == (2, 3, 4)
    np.testing.assert_allclose(y, np.fft.fftn(X, norm=npnorm), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tf.signal.ifftnd(X, norm=norm), np.fft.ifftn(X, norm=npnorm),
                               rtol=1e-4, atol=1e-5)
    spec = tf.signal.rfftnd(R, norm=norm)
    assert spec.dtype == tf.complex64 and spec.shape == (2, 3, 3)
    np.testing.assert_allclose(spec, np.fft.rfftn(R, norm=npnorm), rtol=1e-4, atol=1e-4)
    back = tf.signal.irfftnd(spec, fft_length=[2, 3, 4], norm=norm)
    assert back.dtype == tf.float32
    np.testing.assert_allclose(back, R, rtol=1e-4, atol=1e-5)


def test_fftnd_axes_and_lengths():
    got = tf.signal.fftnd(X, fft_length=[5, 6], axes=[1, 2])
    np.testing.assert_allclose(got, np.fft.fftn(X, s=[5, 6], axes=[1, 2]), rtol=1e-4,
                               atol=1e-4)
    got = tf.signal.fftnd(X, fft_length=[2, 3], axes=[-2, -1])
    np.testing.assert_allclose(got, np.fft.fftn(X, s=[2, 3], axes=[1, 2]), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(tf.signal.fftnd(X, fft_length=[3, 4], axes=[1, 2]),
                               tf.signal.fft2d(X), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tf.signal.rfftnd(R, fft_length=[3, 6], axes=[1, 2]),
                               np.fft.rfftn(R, s=[3, 6], axes=[1, 2]), rtol=1e-4, atol=1e-4)
    assert tf.signal.irfftnd(tf.signal.rfftnd(R)).shape == (2, 3, 4)
    f = tf.function(lambda t: tf.signal.rfftnd(t, fft_length=[3, 6], axes=[-2, -1]))
    assert f(R).shape == (2, 3, 4)
    np.testing.assert_allclose(tf.fftnd(X, [2, 3, 4], [0, 1, 2]), np.fft.fftn(X), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(tf.raw_ops.IFFTND(input=X, fft_length=[3, 4], axes=[1, 2]),
                               np.fft.ifftn(X, axes=[1, 2]), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs,message", [
    (dict(axes=[0, 2], fft_length=[2, 4]), "axes must be successive and ascending"),
    (dict(axes=[0, 1], fft_length=[2, 3]), "The last axis to perform transform on must be -1"),
    (dict(axes=[1, 2]), r"fft_length must have shape \[2\], but got: 3"),
])
def test_fftnd_errors(kwargs, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.signal.fftnd(X, **kwargs)


def test_rfftnd_dtype_error():
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64"):
        tf.signal.rfftnd(tf.constant(X))
