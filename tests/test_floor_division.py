"""FloorDiv and FloorMod of floats as TensorFlow computes them, signed zeros
included: eagerly, under tf.function and lowered to XLA (the expected values
were read from TensorFlow 2.21, eager and jit_compile=True alike)."""
import importlib.util

import numpy as np
import pytest

import rillflow as tf

A = np.array([0.0, -0.0, 0.0, -0.3, 7.5, -7.5], np.float32)
B = np.array([-3.25, 17.5, 5.0, 5.0, -2.0, 2.0], np.float32)
# TensorFlow: fmod moved by y where its sign is not y's; a zero keeps x's sign.
FLOORMOD = np.array([0.0, -0.0, 0.0, 4.7, -0.5, 0.5], np.float32)
FLOORDIV = np.array([-0.0, -0.0, 0.0, -1.0, -4.0, -4.0], np.float32)


def _same(actual, expected):
    actual = np.asarray(actual)
    np.testing.assert_allclose(actual, expected, rtol=1e-6)
    np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_floormod_and_floordiv_keep_tensorflows_signed_zeros(mode):
    mod, div = tf.math.floormod, tf.math.floordiv
    if mode == "function":
        mod, div = tf.function(mod), tf.function(div)
    a, b = tf.constant(A), tf.constant(B)
    _same(mod(a, b), FLOORMOD)
    _same(div(a, b), FLOORDIV)
    # One element at a time (NumPy scalars through the kernels).
    _same([tf.math.floormod(tf.constant(x), tf.constant(y)).numpy() for x, y in zip(A, B)],
          FLOORMOD)


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs the xla extra")
def test_floordiv_lowered_keeps_the_sign_of_a_zero_quotient():
    # 1 / floordiv(-0.0, 5) is -inf in TensorFlow, eager and XLA alike (the
    # lowering through jnp.floor_divide gave +inf).
    f = tf.function(lambda a, b: (tf.math.floordiv(a, b), tf.math.floormod(a, b),
                                  tf.math.xdivy(tf.ones_like(a), tf.math.floordiv(a, b))),
                    jit_compile=True)
    div, mod, inv = f(tf.constant(A), tf.constant(B))
    _same(div, FLOORDIV)
    _same(mod, FLOORMOD)
    assert np.asarray(inv)[1] == -np.inf and np.asarray(inv)[0] == -np.inf
