"""sin, cos, tan, atan2, pow, rsqrt, erf and erfc against TensorFlow 2.21's CPU
results (tests/data/tf_numerics_trig.npz, recorded by
tools/tf_numerics_fixtures_trig.py), bit for bit.

The inputs include subnormals and inputs whose intermediates or results are
subnormal: TensorFlow's threads flush them to zero, and so do rillflow's
kernels (ops/kernels/ftz.py), so every element is compared.
"""
import os

import numpy as np
import pytest

import rillflow as tf

_DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_numerics_trig.npz"))
_FLT_MIN = np.float32(1.1754944e-38)

UNARY = {"sin": tf.sin, "cos": tf.cos, "rsqrt": tf.math.rsqrt, "erf": tf.math.erf,
         "erfc": tf.math.erfc}
BINARY = {"atan2": tf.math.atan2}


def _subnormal(v):
    v = np.asarray(v, np.float32)
    return (v != 0) & (np.abs(v) < _FLT_MIN)


def _mismatches(got, want, *inputs, ieee_elsewhere=False):
    got = np.asarray(got, np.float32)
    want = np.asarray(want, np.float32)
    bad = got.view(np.uint32) != want.view(np.uint32)
    bad &= ~(np.isnan(got) & np.isnan(want))
    if ieee_elsewhere:
        # Ops outside the exact kernels (Square, Sqrt, Mul in rewritten
        # graphs) keep IEEE subnormals where TensorFlow flushes them.
        skip = _subnormal(got) & (want == 0)
        for v in inputs:
            skip |= _subnormal(v)
        bad &= ~skip
    return np.nonzero(bad)[0]


def _check(got, want, *inputs, ieee_elsewhere=False):
    bad = _mismatches(got, want, *inputs, ieee_elsewhere=ieee_elsewhere)
    detail = [(tuple(float(v[i]) for v in inputs), float(got[i]), float(want[i]))
              for i in bad[:5]]
    assert bad.size == 0, "%d mismatches, e.g. %s" % (bad.size, detail)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32_eager_bitwise(name):
    x = _DATA[name + "_x"]
    _check(UNARY[name](tf.constant(x)).numpy(), _DATA[name + "_y"], x)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32_in_function_bitwise(name):
    x = _DATA[name + "_x"]
    fn = UNARY[name]
    got = tf.function(lambda t: fn(t) * 1.0)(tf.constant(x)).numpy()
    _check(got, _DATA[name + "_y"], x)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float32_bitwise(name):
    a, b = _DATA[name + "_a"], _DATA[name + "_b"]
    fn = BINARY[name]
    _check(fn(tf.constant(a), tf.constant(b)).numpy(), _DATA[name + "_y"], a, b)
    _check(tf.function(fn)(tf.constant(a), tf.constant(b)).numpy(), _DATA[name + "_y"], a, b)
    _check(fn(tf.constant(a), tf.constant(np.float32(2.5))).numpy(), _DATA[name + "_bcast_y"], a)


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(BINARY))
@pytest.mark.parametrize("tag,dtype", [("f16", tf.float16), ("bf16", tf.bfloat16)])
def test_half_types_bitwise(name, tag, dtype):
    if name in UNARY:
        inputs = [_DATA[name + "_x"]]
        fn = UNARY[name]
    else:
        inputs = [_DATA[name + "_a"], _DATA[name + "_b"]]
        fn = BINARY[name]
    args = [tf.cast(tf.constant(v), dtype) for v in inputs]
    got = tf.cast(fn(*args), tf.float32).numpy()
    want = _DATA["%s_%s_y" % (name, tag)].view(dtype.as_numpy_dtype).astype(np.float32)
    _check(got, want, *[tf.cast(a, tf.float32).numpy() for a in args])


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("tag,dtype", [("f16", tf.float16), ("bf16", tf.bfloat16)])
def test_half_types_scalar_path(name, tag, dtype):
    # 0-d half tensors take Eigen's scalar path: for rsqrt 1 / sqrt(x) as two
    # operations of the type, where the packets round one float32 rsqrt.
    xs = tf.cast(tf.constant(_DATA[name + "_x"][:len(_DATA[name + "_scalar"])]), dtype).numpy()
    got = np.array([tf.cast(UNARY[name](tf.constant(v)), tf.float32).numpy() for v in xs],
                   np.float32)
    want = _DATA["%s_%s_scalar" % (name, tag)].view(dtype.as_numpy_dtype).astype(np.float32)
    _check(got, want, xs.astype(np.float32))


@pytest.mark.parametrize("name", ["rsqrt", "erf"])
def test_scalar_path_exact(name):
    # 0-d tensors take Eigen's scalar path: 1/sqrt(x) for rsqrt, the same
    # rational approximation for erf.
    xs = _DATA[name + "_x"][: len(_DATA[name + "_scalar"])]
    got = np.array([UNARY[name](tf.constant(v)).numpy() for v in xs], np.float32)
    _check(got, _DATA[name + "_scalar"], xs)


@pytest.mark.parametrize("name", ["sin", "cos", "erfc", "tan"])
def test_scalar_path_glibc_exact(name):
    # TensorFlow calls glibc's sinf/cosf/tanf (and expf inside erfc) here;
    # rillflow.ops.kernels.glibc_float redoes them bit for bit.
    fn = UNARY.get(name) or tf.tan
    xs = _DATA[name + "_x"][: len(_DATA[name + "_scalar"])]
    got = np.array([fn(tf.constant(v)).numpy() for v in xs], np.float32)
    _check(got, _DATA[name + "_scalar"], xs)


def test_tan_bitwise():
    x = _DATA["tan_x"]
    _check(tf.tan(tf.constant(x)).numpy(), _DATA["tan_y"], x)


def test_odd_size_tail():
    # The last size % 8 elements take the scalar path in TensorFlow.
    x = _DATA["rsqrt_x"][:1003]
    _check(tf.math.rsqrt(tf.constant(x)).numpy(), _DATA["rsqrt_odd_y"], x)
    x = _DATA["sin_x"][:1003]
    _check(tf.sin(tf.constant(x)).numpy(), _DATA["sin_odd_y"], x)


def test_atan2_scalar_path_exact():
    a, b = _DATA["atan2_a"], _DATA["atan2_b"]
    n = len(_DATA["atan2_scalar"])
    got = np.array([tf.math.atan2(tf.constant(u), tf.constant(v)).numpy()
                    for u, v in zip(a[:n], b[:n])], np.float32)
    _check(got, _DATA["atan2_scalar"], a[:n], b[:n])


def test_pow_bitwise():
    a, b = _DATA["pow_a"], _DATA["pow_b"]
    _check(tf.pow(tf.constant(a), tf.constant(b)).numpy(), _DATA["pow_y"], a, b)
    _check(tf.pow(tf.constant(a), tf.constant(np.float32(2.5))).numpy(), _DATA["pow_bcast_y"], a)
    n = len(_DATA["pow_scalar"])
    got = np.array([tf.pow(tf.constant(u), tf.constant(v)).numpy() for u, v in zip(a[:n], b[:n])],
                   np.float32)
    _check(got, _DATA["pow_scalar"], a[:n], b[:n])
    for tag, dtype in (("f16", tf.float16), ("bf16", tf.bfloat16)):
        ah, bh = tf.cast(tf.constant(a), dtype), tf.cast(tf.constant(b), dtype)
        want = _DATA["pow_%s_y" % tag].view(dtype.as_numpy_dtype).astype(np.float32)
        _check(tf.cast(tf.pow(ah, bh), tf.float32).numpy(), want,
               tf.cast(ah, tf.float32).numpy(), tf.cast(bh, tf.float32).numpy())


def test_float64_and_complex_unchanged():
    x = np.linspace(-3, 3, 13)
    np.testing.assert_array_equal(tf.sin(tf.constant(x)).numpy(), np.sin(x))
    np.testing.assert_array_equal(tf.cos(tf.constant(x)).numpy(), np.cos(x))
    np.testing.assert_allclose(tf.math.erf(tf.constant(x)).numpy(),
                               [__import__("math").erf(v) for v in x], rtol=1e-15)
    z = np.array([1 + 2j, -0.5 + 0.25j])
    np.testing.assert_allclose(tf.sin(tf.constant(z)).numpy(), np.sin(z))


def test_gradients():
    x = tf.constant(np.linspace(-2, 2, 9, dtype=np.float32) + 0.1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.sin(x) + tf.cos(x) + tf.math.erf(x) + tf.math.erfc(x)
                          + tf.math.atan2(x, 2.0) + tf.math.rsqrt(tf.abs(x)))
    g = tape.gradient(y, x).numpy()
    xv = x.numpy().astype(np.float64)
    want = (np.cos(xv) - np.sin(xv) + 2.0 / (xv * xv + 4.0)
            - 0.5 * np.sign(xv) * np.abs(xv) ** -1.5)
    np.testing.assert_allclose(g, want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("fn,dtype,a,b,want", [
    # TensorFlow 2.21's results, where Eigen's float32 packet code would be 1 ulp off:
    # for float16 and bfloat16 TensorFlow calls glibc's atan2f/powf on every element.
    (tf.math.atan2, tf.float16, 1.5234375, -7.1835938, 2.9316406),
    (tf.math.atan2, tf.float16, 0.8227539, -3.695488e-06, 1.5703125),
    (tf.math.atan2, tf.bfloat16, -18.25, -0.34765625, -1.5859375),
    (tf.pow, tf.bfloat16, 3.03125, -0.79296875, 0.41601562)])
def test_half_atan2_and_pow_are_glibc_everywhere(fn, dtype, a, b, want):
    for n in (1, 8, 40000):   # 0-d-like, a full packet, cache-sized blocks
        x = tf.cast(tf.fill([n], a), dtype)
        y = tf.cast(tf.fill([n], b), dtype)
        got = tf.cast(fn(x, y), tf.float32).numpy()
        np.testing.assert_array_equal(got, np.float32(want))


# TensorFlow 2.21's bits for subnormal cases (recorded with tensors of 8
# elements, all packet code, and 0-d tensors, all glibc / Eigen's scalar
# path): DAZ reads subnormal operands as zeros, FTZ flushes results, but
# selects and glibc's integer tests see the bits.
_S, _S2 = np.float32(3e-39), np.float32(-1e-39)
_FTZ_CASES = [   # (op, inputs, packet bits, scalar bits)
    (tf.pow, (_S, 1.0), 0x0020AAC8, 0x0),
    (tf.pow, (-_S, 1.0), 0x8020AAC8, 0x80000000),
    (tf.pow, (-2.0, _S), 0x3F800000, 0xFFC00000),
    (tf.pow, (-_S, -3.0), 0xFF800000, 0xFF800000),
    (tf.pow, (-_S, 2.5), 0x0, 0xFFC00000),
    (tf.math.atan2, (_S, 1.0), 0x0, 0x0020AAC8),
    (tf.math.atan2, (_S, _S2), 0x4016CBE4, 0x7FC00000),
    (tf.math.atan2, (1e-30, 1e-39), 0x3FC90FDB, 0x3FC90FDB),
    (tf.math.rsqrt, (-_S,), 0xFF800000, 0xFF800000),
    (tf.tan, (-_S,), 0x8020AAC8, 0x8020AAC8),
    (tf.sin, (-_S,), 0x80000000, 0x8020AAC8),
    (tf.math.erf, (-_S,), 0x80000000, 0x80000000),
]


@pytest.mark.parametrize("fn,args,packet,scalar", _FTZ_CASES)
def test_subnormal_rules(fn, args, packet, scalar):
    def same(got, want):   # same bits, or both NaN (payloads aside)
        want = np.uint32(want)
        return (got.view(np.uint32) == want).all() or (
            np.isnan(got).all() and np.isnan(want.view(np.float32)))
    for n, want in ((8, packet), (40000, packet), (1, scalar), (15, None)):
        got = fn(*[tf.constant(np.full(n, a, np.float32)) for a in args]).numpy()
        if want is None:    # a packet, then a tail of 7
            assert same(got[:8], packet) and same(got[8:], scalar), got
        else:
            assert same(got, want), (n, got[:1])
    assert same(fn(*[tf.constant(np.float32(a)) for a in args]).numpy(), scalar)
