"""With the `signal` extra (SciPy), FFTs round as TensorFlow's do: the
same bits for these sizes (without it, NumPy's double-precision FFT differs
in the last bits). Expected digests are of TensorFlow 2.21's outputs."""
import hashlib

import numpy as np
import pytest

pytest.importorskip("scipy")

import rillflow as tf  # noqa: E402


def _digest(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:8]


@pytest.mark.parametrize("length,digest", [(8, "c0ad97e7"), (30, "a9cad1b6"),
                                           (127, "0e5e9203"), (256, "53291d5e")])
def test_complex64_fft_has_tensorflows_bits(length, digest):
    n = np.arange(length)
    x = (np.sin(n * 0.37) + 1j * np.cos(n * 0.11)).astype(np.complex64)
    assert _digest(tf.signal.fft(tf.constant(x)).numpy()) == digest
    f = tf.function(tf.signal.fft)
    assert _digest(f(tf.constant(x)).numpy()) == digest


def test_float32_rfft_of_1000_has_tensorflows_bits():
    x = np.sin(np.arange(1000) * 0.37).astype(np.float32)
    assert _digest(tf.signal.rfft(tf.constant(x)).numpy()) == "722cd4ec"
