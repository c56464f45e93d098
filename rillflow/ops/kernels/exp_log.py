"""TensorFlow's CPU exp, expm1, log, log1p and sigmoid, bit for bit.

TensorFlow's CPU kernels hand these to Eigen, which evaluates a tensor in
packets of 8 float32 lanes (the x86-64 wheel is built for AVX) with its own
approximations: a range reduction and a polynomial (exp), a rational
function on the mantissa (log), Kahan's formulas on top of those (expm1,
log1p), and a second exp variant for the logistic function. The wheel has
no fused multiply-add, so every multiply and add rounds on its own. The
elements left over after the last full packet (the last `size % 8`) take
Eigen's scalar path instead, which calls the C library (`expf`, `logf`,
`expm1f`, `log1pf`): in a tensor of 7 elements all seven come from libm,
in one of 8 none do. NumPy's own routines agree with neither.

This module runs the packet path's float32 operations in the same order
with NumPy ufuncs, which round exactly as IEEE requires on every CPU (only
+ - * /, comparisons, floor and bit manipulation are used), and calls the
platform's C library for the scalar tail, as TensorFlow does; where there
is no C library to load (Windows), the tail is computed in float64 and
rounded, which differs from a libm in rare near-halfway cases.

TensorFlow also runs its kernels with the CPU's flush-to-zero and
denormals-are-zero modes: subnormal results become zero (exp(-88) is 0),
subnormal operands count as zero in arithmetic (log of a subnormal is
-inf in the packet path). Both are reproduced where they change a result.

float16 and bfloat16 go through the float32 computation and round once,
as Eigen's half and bfloat16 packets do (except sigmoid, which rounds each
step; see `sigmoid`). float64 has its own module, exp_log_f64.py.
"""
import ctypes
import math

import numpy as np

from . import exp_log_f64 as _f64
from . import libm

PACKET = 8                      # float32 lanes per AVX packet
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_TINY = np.float32(2.0 ** -126)  # smallest normal float32
_TINY_F = 2.0 ** -126


def _c(v):
    # float32 0-d arrays: keeps every operation in float32, also for 0-d
    # operands under NumPy 1's value-based casting.
    return np.array(v, np.float32)


_ZERO, _HALF, _ONE, _MONE = _c(0.0), _c(0.5), _c(1.0), _c(-1.0)
_INF, _NINF = _c(np.inf), _c(-np.inf)
_NAN = _c(np.nan)

# pexp_float: clamp, m = floor(x*log2(e) + 1/2), r = x - m*ln2 in two
# parts (Cody-Waite), exp(r) by a degree-6 polynomial split in even and odd
# terms, then y * 2**m.
_EXP_HI, _EXP_LO = _c(88.723), _c(-104.0)
_LOG2EF = _c(1.44269504088896341)
_C1, _C2 = _c(-0.693359375), _c(2.12194440e-4)
_P2, _P3, _P4 = _c(0.49999988079071044921875), _c(0.16666518151760101318359375), \
    _c(4.166965186595916748046875e-2)
_P5, _P6 = _c(8.36894474923610687255859375e-3), _c(1.37449637986719608306884765625e-3)

# plog_float: mantissa in [sqrt(1/2), sqrt(2)) minus 1, then x*P(x)/Q(x)
# (P, Q by Horner's rule) plus e*ln2.
_SQRTHF = _c(0.707106781186547524)
_LA = [_c(0.18256296349849254), _c(1.0000000190281063), _c(1.0000000190281136)]
_LB = [_c(0.049616247954120038), _c(0.59923249590823520), _c(1.4999999999999927), _c(1.0)]
_LN2 = _c(0.693147180559945309417232121458)

# The logistic function's own exp: of x/2, a degree-5 polynomial, squared.
_SIG_HI = _c(16.6355324)
_S2, _S3 = _c(0.49999141693115234375), _c(0.16666877269744873046875)
_S4, _S5 = _c(4.1898667812347412109375e-2), _c(8.33471305668354034423828125e-3)

_MANT_MASK = np.uint32(0x807FFFFF)   # sign and mantissa bits
_HALF_BITS = np.uint32(0x3F000000)   # exponent field of 0.5


def _pow2(k):
    """2.0**k as float32 for int32 k in [-126, 127] (exact, built from bits)."""
    k += 127
    k <<= 23
    return k.view(np.float32)


def _flush(y):
    """Flush-to-zero: TensorFlow's kernels write +-0 for subnormal results."""
    if y.size < PACKET:
        # A tail or a short tensor: four ufunc calls would cost more than
        # the kernel itself; a subnormal is rare, so look first in Python.
        if not any(0.0 < abs(v) < _TINY_F for v in y.ravel().tolist()):
            return y
    # Subnormals and zeros are the values whose exponent bits are 0.
    bits = y.view(np.uint32)
    tiny = np.less(bits & np.uint32(0x7F800000), np.uint32(0x00800000))
    if tiny.any():
        bits[tiny] &= np.uint32(0x80000000)     # keeps the sign
    return y


# --- the packet path ------------------------------------------------------------

def exp_packets(x):
    """Eigen's float32 exp (pexp_float) of a 1-D float32 array, elementwise,
    with TensorFlow's flush-to-zero; the array is not modified."""
    xc = np.minimum(x, _EXP_HI)          # NaN stays NaN
    m = xc * _LOG2EF
    m += _HALF
    np.floor(m, out=m)
    r = m * _C1
    r += xc
    t = m * _C2
    r += t
    r2 = r * r
    y = r2 * _P6                         # even terms: (r2*p6 + p4)*r2 + p2
    y += _P4
    y *= r2
    y += _P2
    np.multiply(r2, _P5, out=t)          # odd terms: r2*p5 + p3
    t += _P3
    t *= r
    y += t                               # r*odd + even
    y *= r2
    np.add(r, _ONE, out=xc)
    y += xc                              # r2*(...) + (r + 1)
    _scale(y, m)
    np.maximum(y, x, out=y)              # +inf stays +inf, NaN stays NaN
    y[np.less(x, _EXP_LO)] = _ZERO       # includes -inf (whose y is NaN)
    return _flush(y)


def _scale(y, m):
    # y * 2**m, rounded once: m is in [-150, 128] (its NaNs are clamped away;
    # y is NaN there anyway), so two normal factors 2**(m//2) and
    # 2**(m - m//2) make the first product exact and round in the second,
    # as Eigen's ldexp does.
    np.fmax(m, -150, out=m)
    np.fmin(m, 128, out=m)
    k = m.astype(np.int32)
    k1 = k >> 1
    k -= k1
    y *= _pow2(k1)
    y *= _pow2(k)
    return y


def log_packets(x):
    """Eigen's float32 log (plog_float) of a 1-D float32 array, elementwise,
    with TensorFlow's denormals-are-zero; the array is not modified."""
    bits = x.view(np.uint32)
    # frexp: mantissa in [0.5, 1) with the input's sign, exponent unbiased.
    mant = ((bits & _MANT_MASK) | _HALF_BITS).view(np.float32)
    e = ((bits >> 23) & 0xFF).astype(np.float32)
    e -= _c(126.0)
    small = np.less(mant, _SQRTHF)       # shift to [sqrt(1/2), sqrt(2)) - 1
    xm = mant - _ONE
    e -= small.astype(np.float32)
    mant *= small                        # the mantissa where small, else 0
    xm += mant
    p = xm * _LA[0]
    p += _LA[1]
    p *= xm
    p += _LA[2]
    p *= xm
    q = _horner_log_q(xm)
    p /= q
    e *= _LN2
    e += p
    # Special inputs: zeros and subnormals (denormals-are-zero) give -inf,
    # +inf itself, negatives and NaN give NaN.
    zero = np.less(np.abs(x), _TINY)
    np.putmask(e, np.equal(x, _INF), _INF)
    np.putmask(e, ~(np.greater_equal(x, _ZERO) | zero), _NAN)
    np.putmask(e, zero, _NINF)
    return e


def _horner_log_q(xm):
    q = xm * _LB[0]
    q += _LB[1]
    q *= xm
    q += _LB[2]
    q *= xm
    q += _LB[3]
    return q


def expm1_packets(x):
    """Eigen's float32 expm1 (Kahan's formula on pexp and plog)."""
    u = exp_packets(x)
    um1 = u - _ONE
    logu = log_packets(u)
    out = x / logu
    out *= um1
    np.putmask(out, np.equal(logu, u), u)        # exp(x) = +inf
    np.putmask(out, np.equal(um1, _MONE), _MONE)
    np.putmask(out, np.equal(u, _ONE), x)
    return out


def log1p_packets(x):
    """Eigen's float32 log1p (Kahan's formula on plog)."""
    xp1 = x + _ONE
    log1 = log_packets(xp1)
    keep = np.equal(xp1, _ONE) | np.equal(xp1, log1)
    den = xp1 - _ONE
    out = log1 / den
    out *= x
    np.putmask(out, keep, x)
    # Tiny x come back as x itself, but TensorFlow's kernel gives +-0 for
    # subnormal x (checked against TensorFlow 2.21; expm1 keeps them).
    return _flush(out)


def sigmoid_packets(x):
    """Eigen's float32 logistic function: exp(x) as exp(x/2)**2 with its own
    polynomial, then e / (1 + e); zero below -104."""
    h = np.minimum(x, _SIG_HI)
    h *= _HALF
    m = h * _LOG2EF
    m += _HALF
    np.floor(m, out=m)
    r = m * _C1
    r += h
    t = m * _C2
    r += t
    r2 = r * r
    p = r2 * _S4                         # even: r2*p4 + p2
    p += _S2
    np.multiply(r2, _S5, out=t)          # odd: r2*p5 + p3
    t += _S3
    t *= r
    p += t
    p *= r2
    np.add(r, _ONE, out=h)
    p += h
    # ldexp_fast: 2**m from the biased exponent clamped to [0, 255]; m is
    # in [-75, 12] here, NaN gives the factor 0 (and p is NaN anyway).
    np.fmax(m, -127, out=m)
    np.fmin(m, 128, out=m)
    p *= _pow2(m.astype(np.int32))
    p *= p
    _flush(p)
    den = p + _ONE
    p /= den
    _flush(p)
    p[np.less(x, _EXP_LO)] = _ZERO
    return p


# --- the scalar tail: the C library, as Eigen's scalar path calls it ------------

def _load_libm():
    funcs = {}
    for fn in ("expf", "logf", "expm1f", "log1pf"):
        funcs[fn] = libm.c_function(fn, ctypes.c_float)
        if funcs[fn] is None:
            return None
    return funcs


_LIBM = _load_libm()
_F64_FALLBACK = {"expf": np.exp, "logf": np.log, "expm1f": np.expm1, "log1pf": np.log1p}


def _libm(fn, x, flush=False):
    """The C library's float function `fn` of each element of the short
    float32 array `x` (at most PACKET - 1 elements per tensor or row),
    with subnormal results flushed to +-0 if `flush`."""
    if _LIBM is None:
        with np.errstate(all="ignore"):
            out = _F64_FALLBACK[fn](x.astype(np.float64)).astype(np.float32)
        return _flush(out) if flush else out
    f = _LIBM[fn]
    vals = [f(v) for v in x.ravel().tolist()]
    if flush:
        # In Python: the results are float32 values, so the test is exact,
        # and cheaper than _flush's ufunc calls on a few elements.
        vals = [math.copysign(0.0, v) if abs(v) < _TINY_F else v for v in vals]
    return np.array(vals, np.float32).reshape(x.shape)


def exp_scalar(x):
    """Eigen's scalar exp (libm expf) under flush-to-zero."""
    return _libm("expf", x, True)


# glibc's logf scales a subnormal by 2**23 first, which denormals-are-zero
# turns into 0: every positive subnormal gets this value (TensorFlow 2.21).
_LOGF_SUBNORMAL = np.array(3268407732, np.uint32).view(np.float32)[()]


def log_scalar(x):
    """Eigen's scalar log: libm logf, with glibc's result for subnormals
    under denormals-are-zero (negative ones are NaN, as any negative)."""
    out = _libm("logf", x)
    if x.size < PACKET and not any(0.0 < abs(v) < _TINY_F for v in x.ravel().tolist()):
        return out      # a tail without subnormals: skips four ufunc calls
    sub = np.less(np.abs(x), _TINY) & np.not_equal(x, _ZERO)
    if sub.any():
        out[sub & np.greater(x, _ZERO)] = _LOGF_SUBNORMAL
        out[sub & np.less(x, _ZERO)] = _NAN
    return out


def expm1_scalar(x):
    """Eigen's scalar expm1 (libm expm1f)."""
    return _libm("expm1f", x, True)


def log1p_scalar(x):
    """Eigen's scalar log1p (libm log1pf)."""
    return _libm("log1pf", x)


def sigmoid_scalar(x):
    """Eigen's scalar logistic function for float32: e = expf(min(x, hi)),
    then e / (1 + e), all under flush-to-zero."""
    e = exp_scalar(np.minimum(x, _SIG_HI))
    den = e + _ONE
    e /= den
    return _flush(e)


# --- whole tensors ------------------------------------------------------------------

def split_apply(x, packets, scalar):
    """Applies `packets` to the elements of float32 `x` (any shape) that fill
    whole packets in row-major order and `scalar` to the rest, as Eigen's
    executor does; returns a new float32 array of x's shape."""
    flat = np.ascontiguousarray(x).reshape(-1)
    n = flat.size
    head = n - n % PACKET
    if head == n and n <= _CHUNK:
        out = packets(flat)
    elif head == 0:
        out = scalar(flat)
    else:
        out = np.empty(n, np.float32)
        # Chunks that stay in cache: the twenty-odd passes of a kernel then
        # cost arithmetic rather than memory traffic (3x faster on 1M).
        for lo in range(0, head, _CHUNK):
            hi = min(head, lo + _CHUNK)
            out[lo:hi] = packets(flat[lo:hi])
        if head < n:
            out[head:] = scalar(flat[head:])
    return out.reshape(np.shape(x))


_CHUNK = 1 << 14    # a multiple of PACKET


def _make(packets, scalar, f64, other, name):
    def kernel(x):
        dt = x.dtype
        if dt == _F32:
            out = split_apply(x, packets, scalar)
        elif dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16":
            # Eigen's half and bfloat16 packets convert to float32 and back.
            out = split_apply(np.asarray(x, np.float32), packets, scalar).astype(dt)
        elif dt == _F64:
            return f64(x)
        else:
            return other(x)
        return out if isinstance(x, np.ndarray) else out[()]
    kernel.__name__ = name
    kernel.__doc__ = ("Elementwise %s of a NumPy array (or scalar) with TensorFlow's CPU "
                      "bits for float32, float64, float16 and bfloat16." % name[:-7])
    return kernel


exp_kernel = _make(exp_packets, exp_scalar, _f64.exp, np.exp, "exp_kernel")
expm1_kernel = _make(expm1_packets, expm1_scalar, _f64.expm1, np.expm1, "expm1_kernel")
log_kernel = _make(log_packets, log_scalar, _f64.log, np.log, "log_kernel")
log1p_kernel = _make(log1p_packets, log1p_scalar, _f64.log1p, np.log1p, "log1p_kernel")


def _is_half(dt):
    return dt.kind == "f" and dt.itemsize == 2 or dt.name == "bfloat16"


def _sigmoid_other(x):
    # NumPy's, for complex types (the Sigmoid op's kernel sends them to
    # complex_arith.sigmoid, TensorFlow's bits).
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def sigmoid_kernel(x):
    """Elementwise logistic function of a NumPy array (or scalar) with
    TensorFlow's CPU bits for float32, float16 and bfloat16.

    float32 has its own Eigen kernel (sigmoid_packets). float16 and bfloat16
    use Eigen's generic one, e = exp(x), then e / (1 + e), each step
    rounded to the 16-bit type, with e = inf giving 1."""
    dt = x.dtype
    if dt == _F32:
        out = split_apply(x, sigmoid_packets, sigmoid_scalar)
    elif _is_half(dt):
        e = exp_kernel(np.asarray(x, dt))
        one = np.ones((), dt)
        den = (e.astype(np.float32) + _ONE).astype(dt)
        out = (e.astype(np.float32) / den.astype(np.float32)).astype(dt)
        np.putmask(out, np.isposinf(e), one)
    elif dt == _F64:
        return _f64.sigmoid(x)
    else:
        return _sigmoid_other(x)
    return out if isinstance(x, np.ndarray) else out[()]


def _softplus_threshold(dt):
    # log(epsilon) + 2 in the type itself, as TensorFlow's functor computes
    # it (numext::log rounds the float32 logf of epsilon to the type).
    # Eigen's epsilon: 2**-23 for float32, 2**-7 for bfloat16, and for
    # float16 2**-13 (its bits 0x0800; not float16's machine epsilon).
    eps = {4: 2.0 ** -23}.get(dt.itemsize, 2.0 ** -7 if dt.name == "bfloat16" else 2.0 ** -13)
    lg = np.array(np.log(np.float64(eps)), np.float32).astype(dt)
    return (lg.astype(np.float32) + _c(2.0)).astype(dt)


_THRESHOLDS = {}


def softplus_kernel(x):
    """Elementwise softplus of a NumPy array (or scalar) with TensorFlow's
    CPU bits for float32, float16 and bfloat16: x above -t, exp(x) below t,
    else log1p(exp(x)) with Eigen's exp and log1p (t = log(eps) + 2)."""
    dt = x.dtype
    if dt == _F64:
        return _f64.softplus(x)
    if not (dt == _F32 or _is_half(dt)):
        with np.errstate(over="ignore"):
            return np.logaddexp(np.zeros((), dt), x)
    t = _THRESHOLDS.get(dt)
    if t is None:
        t = _THRESHOLDS[dt] = _softplus_threshold(dt)
    a = np.asarray(x)
    e = exp_kernel(a)
    out = log1p_kernel(e)
    np.copyto(out, e, where=np.less(a, t))
    np.copyto(out, a, where=np.greater(a, -t))
    return out if isinstance(x, np.ndarray) else out[()]
