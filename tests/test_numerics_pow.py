"""pow, tan and glibc's scalar tails (sin, cos, atan2, erfc's expf, powf)
against TensorFlow 2.21's CPU results (tests/data/tf_numerics_pow.npz,
recorded by tools/tf_numerics_fixtures_pow.py), bit for bit.

The inputs include subnormals and results near the underflow threshold:
TensorFlow's threads flush them to zero, and so do rillflow's kernels
(ops/kernels/ftz.py); only the graph rewrites to Square and Sqrt, which are
IEEE in rillflow, leave such elements out.
"""
import os

import numpy as np
import pytest

import rillflow as tf
from test_numerics_trig import _check

_DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_numerics_pow.npz"))
_ODD = 1003
UNARY = {"tan": tf.tan, "sin": tf.sin, "cos": tf.cos, "erfc": tf.math.erfc}


def _const_tag(c):
    return str(c).replace("-", "m").replace(".", "p")


def test_pow_eager_bitwise():
    a, b = _DATA["pow_a"], _DATA["pow_b"]
    _check(tf.pow(tf.constant(a), tf.constant(b)).numpy(), _DATA["pow_y"], a, b)
    _check((tf.constant(a) ** tf.constant(b)).numpy(), _DATA["pow_y"], a, b)


def test_pow_in_function_bitwise():
    a, b = _DATA["pow_a"], _DATA["pow_b"]
    got = tf.function(tf.pow)(tf.constant(a), tf.constant(b)).numpy()
    _check(got, _DATA["pow_fn_y"], a, b)
    got = tf.function(lambda u, v: tf.pow(u, v) * 1.0)(tf.constant(a), tf.constant(b)).numpy()
    _check(got, _DATA["pow_fn_y"], a, b)


@pytest.mark.parametrize("c", [2.0, 3.0, 0.5, -0.5, 2.5, -3.0])
def test_pow_constant_exponent(c):
    # Eagerly the Pow kernel; in tf.function what TensorFlow's graphs give: its
    # graph optimizer turns exponents 2, 3, 0.5 and -0.5 into Square,
    # x * Square(x), Sqrt and Rsqrt (recorded as pow_fn_c*_y), with or without
    # rillflow's own optimizations.
    from rillflow.compiler import codegen
    a = _DATA["pow_a"]
    tag = _const_tag(c)
    _check(tf.pow(tf.constant(a), c).numpy(), _DATA["pow_c%s_y" % tag], a)
    want = _DATA["pow_fn_c%s_y" % tag]
    # Square, x * Square(x) and Sqrt are IEEE in rillflow (TensorFlow flushes
    # their subnormals); Rsqrt and Pow are the exact kernels.
    ieee = c in (2.0, 3.0, 0.5)
    for optimize in (True, False):
        saved, codegen.options.optimize = codegen.options.optimize, optimize
        try:
            _check(tf.function(lambda t: tf.pow(t, c))(tf.constant(a)).numpy(), want, a,
                   ieee_elsewhere=ieee)
            _check(tf.function(lambda t: t ** c)(tf.constant(a)).numpy(), want, a,
                   ieee_elsewhere=ieee)
        finally:
            codegen.options.optimize = saved
    if c not in (2.0, 3.0, 0.5, -0.5):
        np.testing.assert_array_equal(want.view(np.uint32),
                                      _DATA["pow_c%s_y" % tag].view(np.uint32))


@pytest.mark.parametrize("tag,dtype", [("f16", tf.float16), ("bf16", tf.bfloat16)])
def test_pow_half_types(tag, dtype):
    a, b = (tf.cast(tf.constant(_DATA[k]), dtype) for k in ("pow_a", "pow_b"))
    got = tf.cast(tf.pow(a, b), tf.float32).numpy()
    want = _DATA["pow_%s_y" % tag].view(dtype.as_numpy_dtype).astype(np.float32)
    _check(got, want, tf.cast(a, tf.float32).numpy(), tf.cast(b, tf.float32).numpy())


def test_pow_scalar_and_tail():
    a, b = _DATA["pow_a"], _DATA["pow_b"]
    n = len(_DATA["pow_scalar"])
    got = np.array([tf.pow(tf.constant(u), tf.constant(v)).numpy() for u, v in zip(a[:n], b[:n])],
                   np.float32)
    _check(got, _DATA["pow_scalar"], a[:n], b[:n])
    got = tf.pow(tf.constant(a[:_ODD]), tf.constant(b[:_ODD])).numpy()
    _check(got, _DATA["pow_odd_y"], a[:_ODD], b[:_ODD])
    got = tf.function(tf.pow)(tf.constant(a[:_ODD]), tf.constant(b[:_ODD])).numpy()
    _check(got, _DATA["pow_odd_y"], a[:_ODD], b[:_ODD])


def test_tan_bitwise():
    x = _DATA["tan_x"]
    _check(tf.tan(tf.constant(x)).numpy(), _DATA["tan_y"], x)
    _check(tf.function(tf.tan)(tf.constant(x)).numpy(), _DATA["tan_y"], x)
    for tag, dtype in (("f16", tf.float16), ("bf16", tf.bfloat16)):
        xh = tf.cast(tf.constant(x), dtype)
        want = _DATA["tan_%s_y" % tag].view(dtype.as_numpy_dtype).astype(np.float32)
        _check(tf.cast(tf.tan(xh), tf.float32).numpy(), want, tf.cast(xh, tf.float32).numpy())


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_tail_bitwise(name):
    x = _DATA[name + "_x"]
    fn = UNARY[name]
    _check(fn(tf.constant(x[:_ODD])).numpy(), _DATA[name + "_odd_y"], x[:_ODD])
    got = tf.function(lambda t: fn(t) * 1.0)(tf.constant(x[:_ODD])).numpy()
    _check(got, _DATA[name + "_odd_y"], x[:_ODD])
    n = len(_DATA[name + "_scalar"])
    got = np.array([fn(tf.constant(v)).numpy() for v in x[:n]], np.float32)
    _check(got, _DATA[name + "_scalar"], x[:n])


def test_atan2_tail_bitwise():
    a, b = _DATA["atan2_a"], _DATA["atan2_b"]
    got = tf.math.atan2(tf.constant(a[:_ODD]), tf.constant(b[:_ODD])).numpy()
    _check(got, _DATA["atan2_odd_y"], a[:_ODD], b[:_ODD])
    n = len(_DATA["atan2_scalar"])
    got = np.array([tf.math.atan2(tf.constant(u), tf.constant(v)).numpy()
                    for u, v in zip(a[:n], b[:n])], np.float32)
    _check(got, _DATA["atan2_scalar"], a[:n], b[:n])


def test_pow_other_dtypes_unchanged():
    x = np.array([1.5, 2.0, -3.0])
    got = tf.pow(tf.constant(x), tf.constant(2.5, tf.float64)).numpy()
    np.testing.assert_array_equal(got[:2], np.power(x[:2], 2.5))
    assert np.isnan(got[2])  # a negative base to a non-integer power
    np.testing.assert_array_equal(tf.pow(tf.constant([2, 3]), tf.constant([3, 2])).numpy(), [8, 9])
    z = np.array([1 + 2j])
    np.testing.assert_allclose(tf.pow(tf.constant(z), tf.constant(z)).numpy(), z ** z)


def test_pow_gradient():
    x = tf.constant(np.array([0.5, 1.5, 3.0], np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.pow(x, 2.5) + tf.tan(x * 0.3))
    g = tape.gradient(y, x).numpy()
    xv = x.numpy().astype(np.float64)
    np.testing.assert_allclose(g, 2.5 * xv ** 1.5 + 0.3 / np.cos(0.3 * xv) ** 2, rtol=2e-5)
