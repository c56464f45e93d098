"""TensorFlow's CPU sin, cos, tan, asin, acos, atan and atan2, bit for bit.

TensorFlow's CPU kernels are Eigen expressions. Eigen evaluates an elementwise
op on packets of 8 float32 (AVX) with its own vectorized approximations, and
the last `size % 8` elements of the flat output one at a time with the C
library's scalar function. So in TensorFlow `tf.sin(x)[-1]` can differ from
`tf.sin(x[-1:])`; `x86_estimates.packet_then_scalar` reproduces that split.

- sin, cos: range reduction by 2/pi in four float32 steps (no fused
  multiply-add in the released wheels: each step rounds its product and its
  sum), Payne-Hanek reduction in 64-bit integers from |x| >= 25966 (sin) /
  18838 (cos), and a degree 9 (sin) or 8 (cos) polynomial on the reduced
  argument, chosen and signed by the quadrant.
- atan2: y / x (with exact +-1 where |x| == |y|, signed zeros where both are
  zero), Eigen's atan on that (a rational approximation on [-1, 1], 1/|t|
  through the `rcpps` estimate and a Newton step above), plus +-pi for x < 0.
- atan: Eigen's atan above on the packets, the C library's atanf on the
  tail (libm.py); asin, acos: Eigen's polynomials (times sqrt(1 - |x|) for
  acos, with a half-angle reduction above 1/2 for asin) on the packets, the
  C library's asinf/acosf on the tail.
- tan: Eigen has no vectorized tan, so TensorFlow calls glibc's tanf on every
  element (`glibc_float.tanf`).

The scalar tail goes through glibc (sinf, cosf, atan2f) in TensorFlow, and
here through `glibc_float`'s reimplementations of them, bit for bit.

Every operation in the packet paths is an IEEE float32 +, -, *, / or a bit
operation, so the results do not depend on NumPy's SIMD code paths.
TensorFlow's threads flush subnormals (ftz.py): sin of a subnormal is +-0 in
the packets (glibc's sinf returns tiny inputs untouched: no arithmetic), and
atan2 reads subnormal operands as zeros and flushes tiny results.
"""
import math

import numpy as np

from . import exp_log_f64 as _f64
from . import ftz, glibc_float, glibc_scalar, libm, x86_estimates
from .chunked import chunked
from .tanh_kernel import horner
from .x86_estimates import PACKET, packet_then_scalar

_F32 = np.dtype(np.float32)
_U32 = np.uint32
_SIGN = _U32(0x80000000)


def _f(*values):
    return [np.float32(v) for v in values]


# --- sin and cos -----------------------------------------------------------------------------

_TWO_OVER_PI, _ROUNDING_MAGIC = _f(0.636619746685028076171875, 12582912.0)
# pi/2 split in four parts (0xbfc90000, 0xb9fdc000, 0x342ee000, 0x2e74b9ee), negated.
_P1, _P2, _P3, _P4 = _f(-1.5703125, -0.000483989715576171875,
                        1.62865035235881805419921875e-07,
                        5.5644315544167710640977020375430583953857421875e-11)
_SIN_HUGE, _COS_HUGE = _f(25966.0, 18838.0)
_COS_C = _f(2.4372266125283204019069671630859375e-05, -0.00138865201734006404876708984375,
            0.041666619479656219482421875, -0.5, 1.0)
_SIN_C = _f(-0.0001959234114083702898469196984621021329076029360294342041015625,
            0.0083326873655616851693794799871284340042620897293090820312500000,
            -0.1666666203982298255503735617821803316473960876464843750000000000)

# 2/pi in bits, grouped so that three 32-bit words read at an offset chosen by
# the exponent hold the 96 bits that matter for an input of that exponent.
_TWO_OVER_PI_BITS = np.array([
    0x00000028, 0x000028be, 0x0028be60, 0x28be60db, 0xbe60db93, 0x60db9391, 0xdb939105,
    0x9391054a, 0x91054a7f, 0x054a7f09, 0x4a7f09d5, 0x7f09d5f4, 0x09d5f47d, 0xd5f47d4d,
    0xf47d4d37, 0x7d4d3770, 0x4d377036, 0x377036d8, 0x7036d8a5, 0x36d8a566, 0xd8a5664f,
    0xa5664f10, 0x664f10e4, 0x4f10e410, 0x10e41000, 0xe4100000], np.uint64)
_PIO2_2M62 = np.float64(3.4061215800865545e-19)   # pi/2 * 2**-62
_M32 = np.uint64(0xFFFFFFFF)


def _reduce_huge(ax):
    """Payne-Hanek: (x - q*pi/2 as float32, q mod 4) for finite |x| >= 2**14."""
    xi = ax.view(_U32).astype(np.uint64)
    e = (xi >> np.uint64(23)) - np.uint64(118)
    m = ((xi & np.uint64(0x7FFFFF)) | np.uint64(0x800000)) << (e & np.uint64(7))
    i = (e >> np.uint64(3)).astype(np.intp)
    t = _TWO_OVER_PI_BITS
    # x * 2/pi as a 2.62 fixed-point number, modulo 4 (unsigned wrap-around).
    p = m * t[i + 7]
    p = m * t[i + 3] + (p >> np.uint64(32))
    p = (((m * t[i - 1]) & _M32) << np.uint64(32)) + p
    q = (p + np.uint64(1 << 61)) >> np.uint64(62)
    p = p - (q << np.uint64(62))
    r = (p.view(np.int64).astype(np.float64) * _PIO2_2M62).astype(np.float32)
    return r, q.astype(np.int32)


def _sincos_f32(x, sine):
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        if sine and ftz.any_below(ax):
            # DAZ: a subnormal x reads as +-0 in the multiplies below, so its
            # sine is +-0 (x's sign bit, read as bits, signs it). cos of a
            # subnormal is 1 either way.
            x = ftz.daz(x)
            ax = np.abs(x)
        y_round = ax * _TWO_OVER_PI + _ROUNDING_MAGIC
        # The low bits of (y + 2**23) are round(y): the quadrant.
        quadrant = y_round.view(np.int32)
        y = y_round - _ROUNDING_MAGIC
        r = y * _P1 + ax
        r = y * _P2 + r
        r = y * _P3 + r
        r = y * _P4 + r
        huge = (ax >= (_SIN_HUGE if sine else _COS_HUGE)) & (ax != np.inf)
        if huge.any():
            r = np.array(r, copy=True)
            quadrant = np.array(quadrant, copy=True)
            r[huge], quadrant[huge] = _reduce_huge(ax[huge])
        r2 = r * r
        c = r2 * _COS_C[0] + _COS_C[1]
        for k in _COS_C[2:]:
            c = c * r2 + k
        s = r2 * _SIN_C[0] + _SIN_C[1]
        s = s * r2 + _SIN_C[2]
        s = (s * r2) * r + r
    even = (quadrant & 1) == 0
    if sine:
        result = np.where(even, s, c)
        sign = (x.view(_U32) ^ (quadrant.astype(_U32) << _U32(30))) & _SIGN
    else:
        result = np.where(even, c, s)
        sign = ((quadrant + 1).astype(_U32) << _U32(30)) & _SIGN
    return (result.view(_U32) ^ sign).view(np.float32)


def _sin_packet(x):
    return chunked(_sincos_f32, x, sine=True)


def _cos_packet(x):
    return chunked(_sincos_f32, x, sine=False)


def _tan_packet(x):
    return chunked(glibc_float.tanf, x)


# The C library's functions for the tail (glibc_scalar: one element at a time
# in Python for the few elements a tail or a 0-d tensor has).
_sin_scalar = glibc_scalar.sinf
_cos_scalar = glibc_scalar.cosf
_tan_scalar = glibc_scalar.tanf


# --- atan and atan2 --------------------------------------------------------------------------

_ATAN_P = _f(1.12026982009410858154296875e-01, 7.296695709228515625e-01, 8.109951019287109375e-01)
_ATAN_Q = _f(1.00917108356952667236328125e-02, 2.8318560123443603515625e-01, 1.0,
             8.109951019287109375e-01)
_HALF_PI, _PI, _ONE = _f(np.pi / 2, np.pi, 1.0)
_TWO_TINY = np.float32(2.0 ** -125)


def _atan_f32(t):
    """Eigen's float32 atan: a [2/3] rational in t**2 on [0, 1], pi/2 - atan(1/t) above."""
    at = np.abs(t)
    large = at > _ONE
    u = np.where(large, x86_estimates.reciprocal(at), at)
    u2 = u * u
    p = (u2 * _ATAN_P[0] + _ATAN_P[1]) * u2 + _ATAN_P[2]
    q = ((u2 * _ATAN_Q[0] + _ATAN_Q[1]) * u2 + _ATAN_Q[2]) * u2 + _ATAN_Q[3]
    r = u * (p / q)
    r = np.where(large, _HALF_PI - r, r)
    return (r.view(_U32) ^ (t.view(_U32) & _SIGN)).view(np.float32)


def _atan2_packet(y, x):
    return chunked(_atan2_block, y, x)


def _atan2_block(y, x):
    with np.errstate(all="ignore"):
        yb = np.ascontiguousarray(y).view(_U32)
        xb = np.ascontiguousarray(x).view(_U32)
        result_sign = (yb ^ xb) & _SIGN
        ax, ay = np.abs(x), np.abs(y)
        if ftz.any_below(ax) or ftz.any_below(ay):
            # DAZ: the division and the comparison read subnormals as +-0
            # (two subnormals compare equal: t = +-1); the zero test below
            # reads the bits, as Eigen's does (checked against TensorFlow).
            x, y = ftz.daz(x), ftz.daz(y)
            ax, ay = np.abs(x), np.abs(y)
        t = y / x
        # |x| == |y| (also both infinite): exactly +-1; both zero: a signed zero.
        t = np.where(ax == ay, (_ONE.view(_U32) | result_sign).view(np.float32), t)
        t = np.where(((xb | yb) & ~_SIGN) == 0, result_sign.view(np.float32), t)
        # +-pi (y's sign) for x with its sign bit set, else +-0.
        shift = (np.where(xb & _SIGN, _PI.view(_U32), _U32(0)) | (yb & _SIGN)).view(np.float32)
        out = _atan_f32(t) + shift
        # FTZ: atan(t) ~ t is subnormal only for |t| < 2**-125 (and then the
        # sum with a zero shift keeps it); flushing the quotient t too would
        # give the same bits, flushing the result is enough.
        if ftz.any_below(np.abs(t), _TWO_TINY):
            ftz.flush(out)
        return out


_atan2_scalar = glibc_scalar.atan2f


# Eigen's patan_reduced<double>: atan(x) = x P(x^2) / Q(x^2) on [-1, 1].
_ATAN_P64 = (2.6667153866462208e-05, 3.0917513112462781e-03, 5.2574296781008604e-02,
             3.0409318473444424e-01, 7.5365702534987022e-01, 8.2704055405494614e-01,
             3.3004361289279920e-01)
_ATAN_Q64 = (2.7311202462436667e-04, 1.0899150928962708e-02, 1.1548932646420353e-01,
             4.9716458728465573e-01, 1.0, 9.3705509168587852e-01, 3.3004361289279920e-01)
_SIGN64 = np.int64(-0x8000000000000000)


def _atan_f64(t):
    """Eigen's generic_atan of float64 packets: 1/|t| above 1 (a division:
    doubles have no estimate), the [6/6] rational, pi/2 minus it, t's sign."""
    at = np.abs(t)
    large = 1.0 < at
    u = np.where(large, 1.0 / at, at)
    u2 = u * u
    p = u * (horner(u2, _ATAN_P64) / horner(u2, _ATAN_Q64))
    r = np.where(large, np.pi / 2 - p, p)
    return (r.view(np.int64) ^ (t.view(np.int64) & _SIGN64)).view(np.float64)


def atan2_packets_f64(y, x):
    """Eigen's patan2 of float64 packets (complex128 log's angle): atan(y / x)
    plus pi or 0 by x's sign bit (with y's sign), +-1 for |x| == |y|, a
    signed zero for two zeros."""
    yb, xb = y.view(np.int64), x.view(np.int64)
    ysign = yb & _SIGN64
    rsign = ysign ^ (xb & _SIGN64)
    shift = (np.where(xb < 0, np.float64(np.pi).view(np.int64), np.int64(0)) | ysign).view(
        np.float64)
    xd, yd = _f64.ftz(np.array(x)), _f64.ftz(np.array(y))   # (denormals-are-zero)
    t = yd / xd
    t = np.where(np.abs(xd) == np.abs(yd), (np.float64(1).view(np.int64) | rsign).view(
        np.float64), t)
    t = np.where((xb | yb).view(np.float64) == 0.0, rsign.view(np.float64), t)
    return _f64.ftz(_atan_f64(t) + shift)


def _atan2_f64(y, x):
    """TensorFlow's float64 atan2: Eigen's packets of 4 on the whole packets
    of the flat (broadcast) output, the C library's atan2 on the rest."""
    y, x = np.broadcast_arrays(np.asarray(y, np.float64), np.asarray(x, np.float64))
    yf, xf = np.ascontiguousarray(y).reshape(-1), np.ascontiguousarray(x).reshape(-1)
    head = yf.size - yf.size % _f64.PACKET_F64
    out = np.empty(yf.size, np.float64)
    with np.errstate(all="ignore"):
        out[:head] = atan2_packets_f64(yf[:head], xf[:head])
    z = _f64._daz1      # (its operands and result under TensorFlow's flush-to-zero)
    out[head:] = [z(math.atan2(z(a), z(b))) for a, b in zip(yf[head:].tolist(),
                                                             xf[head:].tolist())]
    return out.reshape(y.shape)


def _atan_packet(x):
    """Eigen's float32 atan on whole packets: subnormal inputs read as +-0
    (denormals-are-zero: the result is a signed zero)."""
    with np.errstate(all="ignore"):
        return _atan_f32(ftz.daz(x))


def _atan_scalar(x):
    """The C library's atanf, as Eigen's scalar path calls it (the tail)."""
    return libm.call("atan", np.asarray(x, _F32))


# --- asin and acos ---------------------------------------------------------------------------

# pacos_float: acos(x) / sqrt(1 - x) by a degree 6 polynomial in |x| (even and
# odd terms in x**2 by Horner's rule, then joined), times sqrt(1 - |x|);
# pi minus that for negative x. Coefficients p6 ... p0.
_ACOS_P = _f(2.36423197202384471893310546875e-3, -1.1368644423782825469970703125e-2,
             2.717843465507030487060546875e-2, -4.8969544470310211181640625e-2,
             8.8804088532924652099609375e-2, -0.214591205120086669921875,
             1.57079637050628662109375)
# pasin_float: asin(x) / x by a degree 8 even polynomial on [0, 1/2]; above,
# asin(x) = pi/2 - 2 asin(sqrt((1 - x) / 2)). Coefficients p9 ... p1.
_ASIN_P = _f(5.08838854730129241943359375e-2, 3.95139865577220916748046875e-2,
             7.550220191478729248046875e-2, 0.16664917767047882080078125,
             1.00000011920928955078125)
_HALF, _TWO = _f(0.5, 2.0)


def _acos_packet(x):
    """Eigen's float32 acos on whole packets (NaN beyond +-1)."""
    with np.errstate(all="ignore"):
        x = ftz.daz(x)        # the packets read subnormals as +-0
        p6, p5, p4, p3, p2, p1, p0 = _ACOS_P
        ax = np.abs(x)
        x2 = x * x
        p = horner(x2, (p5, p3, p1))        # the odd terms, times |x|
        p *= ax
        p += horner(x2, (p6, p4, p2, p0))
        r = np.sqrt(_ONE - ax)
        r *= p
        return np.where(np.signbit(x), _PI - r, r)


def _asin_packet(x):
    """Eigen's float32 asin on whole packets (NaN beyond +-1)."""
    with np.errstate(all="ignore"):
        x = ftz.daz(x)        # the packets read subnormals as +-0
        ax = np.abs(x)
        large = ax > _HALF
        u = np.where(large, np.sqrt(_HALF - _HALF * ax), ax)
        p = horner(u * u, _ASIN_P)
        p *= u
        p = np.where(large, _HALF_PI - _TWO * p, p)
        p = (p.view(_U32) ^ (x.view(_U32) & _SIGN)).view(np.float32)
        return np.where(ax > _ONE, np.float32(np.nan), p)


def _asin_scalar(x):
    return libm.call("asin", np.asarray(x, _F32))


def _acos_scalar(x):
    return libm.call("acos", np.asarray(x, _F32))


# --- public kernels --------------------------------------------------------------------------

def _unary(packet, scalar, fallback, half_scalar=False):
    """The kernel: float32 by packets and a scalar tail; float16 and bfloat16
    through float32, by the packets too, or with `half_scalar` by the scalar
    function on every element (Eigen has no half-precision packet code for
    asin, acos and atan: TensorFlow calls the C library for each)."""
    def kernel(x):
        dt = x.dtype
        if dt == _F32:
            return packet_then_scalar(packet, scalar, x)
        if dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16":
            if half_scalar:
                return np.asarray(scalar(x.astype(np.float32)), np.float32).astype(dt)
            return packet_then_scalar(packet, scalar, x.astype(np.float32)).astype(dt)
        return fallback(x)
    return kernel


sin_kernel = _unary(_sin_packet, _sin_scalar, np.sin)
sin_kernel.__doc__ = "Elementwise sin with TensorFlow's CPU bits for float32/16 and bfloat16."
cos_kernel = _unary(_cos_packet, _cos_scalar, np.cos)
cos_kernel.__doc__ = "Elementwise cos with TensorFlow's CPU bits for float32/16 and bfloat16."
tan_kernel = _unary(_tan_packet, _tan_scalar, np.tan)
tan_kernel.__doc__ = ("Elementwise tan with TensorFlow's CPU bits (glibc's tanf) for float32/16, "
                      "bfloat16.")
asin_kernel = _unary(_asin_packet, _asin_scalar, np.arcsin, half_scalar=True)
asin_kernel.__doc__ = ("Elementwise asin with TensorFlow's CPU bits for float32/16 and bfloat16 "
                       "(Eigen's packets, the C library's asinf for the tail).")
acos_kernel = _unary(_acos_packet, _acos_scalar, np.arccos, half_scalar=True)
acos_kernel.__doc__ = ("Elementwise acos with TensorFlow's CPU bits for float32/16 and bfloat16 "
                       "(Eigen's packets, the C library's acosf for the tail).")
atan_kernel = _unary(_atan_packet, _atan_scalar, np.arctan, half_scalar=True)
atan_kernel.__doc__ = ("Elementwise atan with TensorFlow's CPU bits for float32/16 and bfloat16 "
                       "(Eigen's packets, the C library's atanf for the tail).")


def atan2_kernel(y, x):
    """Elementwise atan2(y, x) with TensorFlow's CPU bits for float32/16, bfloat16 and
    float64."""
    dt = y.dtype
    if dt == _F32:
        return packet_then_scalar(_atan2_packet, _atan2_scalar, y, x)
    if dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16":
        # Eigen has no float16/bfloat16 packet for atan2: TensorFlow calls
        # glibc's atan2f on every element (a differential run against
        # TensorFlow 2.21 shows it: the packet code is 1 ulp off in a few).
        return chunked(_atan2_scalar, y.astype(np.float32), x.astype(np.float32)).astype(dt)
    if dt == np.float64 and x.dtype == np.float64:
        return _atan2_f64(y, x)
    return np.arctan2(y, x)
