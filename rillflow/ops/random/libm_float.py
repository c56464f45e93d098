"""The C library's `logf` and `sincosf`, bit for bit, for whole arrays.

TensorFlow's Box-Muller transform calls the C library on each float
(`logf`, `sincosf`); on Linux that is glibc, whose float functions evaluate
a short double-precision polynomial and round it to float. They are not
correctly rounded (about 1% of results differ from the exactly rounded
value), so NumPy's own log/sin/cos do not reproduce them. This module
evaluates the same polynomials with the same constants, in float64:

- the fast pass computes every value without fused multiply-adds;
- glibc's x86-64 build (FMA variant) and AArch64 fuse `a * b + c`, which
  can change the double result in its last bits, and so the float result
  only where the double lies next to a rounding midpoint between two
  floats; those few values are computed again with an exact emulation of
  the fused multiply-add (`_fma`).

For the inputs Box-Muller gives them (every float in [1e-7, 1) for logf,
[0, 2*pi) for sincosf) this was checked against glibc 2.36 on all 2**23
inputs. Constants are glibc's (from Arm's optimized-routines, MIT).
"""
import math

import numpy as np

from ..kernels import glibc_float as _gf

# --- exact fused multiply-add in float64 ------------------------------------------

_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitter for 53-bit doubles


def _split(a):
    t = _SPLIT * a
    hi = t - (t - a)
    return hi, a - hi


def _fma(a, b, c):
    """a * b + c with one rounding (Dekker's exact product, then an exact
    sum of three terms rounded once; correct except in double-rounding
    ties that never decide a float result)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def _plain_fma(a, b, c):
    return a * b + c


_LOW29 = np.uint64((1 << 29) - 1)


def _near_midpoint(y, small=0.0):
    """Where rounding the double `y` to float might go the other way for a
    result a few double ulps away, so the fused computation decides: the 29
    mantissa bits a float drops are within 2**12 double ulps of one half
    (or |y| < `small`, where an absolute error of the fast pass matters)."""
    # |low - 2**28| < 4096 for low = bits mod 2**29, as one unsigned test:
    # (bits - (2**28 - 4095)) mod 2**29 < 8191.
    t = y.view(np.uint64) - _MID_LO
    t &= _LOW29
    near = t < _MID_SPAN
    if small:
        near |= np.abs(y) < small
    return near


_MID_LO = np.uint64((1 << 28) - 4095)
_MID_SPAN = np.uint64(8191)


# --- logf ---------------------------------------------------------------------------

# (1/c, log(c)) for the 16 subintervals of [0x3f330000, 2*0x3f330000].
_LOGF_TAB = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2", "0x1.571ed4aaf883dp+0",
    "-0x1.2bef0a7c06ddbp-2", "0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2",
    "0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3", "0x1.30d190c8864a5p+0",
    "-0x1.6574f0ac07758p-3", "0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3",
    "0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4", "0x1.12358f08ae5bap+0",
    "-0x1.1973c5a611cccp-4", "0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5",
    "0x1p+0", "0x0p+0", "0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5",
    "0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4", "0x1.b2036576afce6p-1",
    "0x1.526e57720db08p-3", "0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3",
    "0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2", "0x1.767dcf5534862p-1",
    "0x1.4043057b6ee09p-2")]).reshape(16, 2)
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_A = [float.fromhex(h) for h in
           ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")]
_LOGF_OFF = np.uint32(0x3f330000)


def _logf_double(x, fma):
    ix = x.view(np.uint32)
    tmp = ix - _LOGF_OFF
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = (tmp.view(np.int32) >> np.int32(23)).astype(np.float64)
    iz = ix - (tmp & np.uint32(0xFF800000))
    invc = _LOGF_TAB[i, 0]
    logc = _LOGF_TAB[i, 1]
    z = iz.view(np.float32).astype(np.float64)
    r = fma(z, invc, -1.0)
    y0 = fma(k, _LN2, logc)
    r2 = r * r
    y = fma(_LOGF_A[1], r, _LOGF_A[2])
    y = fma(_LOGF_A[0], r2, y)
    return fma(y, r2, y0 + r)


def _logf_fast(x):
    """_logf_double(x, _plain_fma) with fewer passes and temporaries: the
    same roundings (IEEE addition and multiplication commute, and
    a * b + (-1) is a * b - 1), computed in place."""
    ix = x.view(np.uint32)
    tmp = ix - _LOGF_OFF
    i = tmp >> np.uint32(19)
    i &= np.uint32(15)
    k = (tmp.view(np.int32) >> np.int32(23)).astype(np.float64)
    tmp &= np.uint32(0xFF800000)
    np.subtract(ix, tmp, out=tmp)
    tab = _LOGF_TAB[i]
    r = tmp.view(np.float32).astype(np.float64)
    r *= tab[:, 0]
    r -= 1.0
    k *= _LN2
    k += tab[:, 1]          # y0 = k * ln2 + logc
    r2 = r * r
    y = _LOGF_A[1] * r
    y += _LOGF_A[2]
    y += _LOGF_A[0] * r2
    y *= r2
    r += k                  # y0 + r
    y += r
    return y


def logf(x):
    """glibc's logf of a float32 array of positive normal floats."""
    x = np.ascontiguousarray(x, np.float32)
    y = _logf_fast(x)
    redo = np.flatnonzero(_near_midpoint(y))
    if redo.size:
        y[redo] = _logf_double(x[redo], _fma)
    out = y.astype(np.float32)
    out[x == np.float32(1)] = 0  # glibc returns +0 for exactly 1
    return out


# --- sincosf --------------------------------------------------------------------------

# glibc's reduction constants and polynomials, shared with the tensor
# kernels' sinf/cosf (one copy of the numbers).
_HPI_INV = float(_gf._HPI_INV)   # 2/pi * 2**24
_HPI = float(_gf._HPI)           # pi/2
_C = [float(c) for c in _gf._COS_C]
_S = [float(c) for c in _gf._SIN_S]
_TINY_TOP = (np.float32(2.0 ** -12).view(np.uint32) >> 20) & 0x7ff


def _sincosf_double(y, fma):
    """Double sin and cos before rounding, for float32 y in [0, 120).

    glibc reduces y by the nearest multiple n of pi/2 and evaluates the sine
    and cosine polynomials of the remainder, swapped and negated by
    quadrant; its negated coefficient table gives exactly the negated
    result, so the signs are applied afterwards here."""
    x = y.astype(np.float64)
    # n = round(x * 2/pi) computed as glibc does without a rounding intrinsic.
    n = ((x * _HPI_INV).astype(np.int32) + 0x800000) >> 24
    xr = fma(n.astype(np.float64) * -1.0, _HPI, x)
    x2 = xr * xr
    x3 = x2 * xr
    x4 = x2 * x2
    c2 = fma(x2, _C[4], _C[3])
    s1 = fma(x2, _S[2], _S[1])
    c1 = fma(x2, _C[1], _C[0])
    x5 = x3 * x2
    x6 = x4 * x2
    sp = fma(x5, s1, fma(x3, _S[0], xr))
    cp = fma(x6, c2, fma(x4, _C[2], c1))
    q = n & 3
    odd = (q & 1).astype(bool)
    sin = np.where(odd, cp, sp)
    cos = np.where(odd, sp, cp)
    # Quadrant signs: sin (+, +, -, -) and cos (+, -, -, +) for q = 0..3.
    sin *= (1 - 2 * (q >> 1)).astype(np.float64)
    cos *= (1 - 2 * (((q + 1) >> 1) & 1)).astype(np.float64)
    return sin, cos


def _sincosf_fast(y):
    """_sincosf_double(y, _plain_fma) with fewer passes and temporaries:
    the same roundings ((-n) * pi/2 + x is x - n * pi/2; products and sums
    commute; the quadrant signs are negations)."""
    x = y.astype(np.float64)
    n = (x * _HPI_INV).astype(np.int32)
    n += 0x800000
    n >>= 24
    xr = n.astype(np.float64)
    xr *= _HPI
    np.subtract(x, xr, out=xr)
    x2 = xr * xr
    x3 = x2 * xr
    x4 = x2 * x2
    x5 = x3 * x2
    x6 = x4 * x2
    sp = x3 * _S[0]
    sp += xr                 # fma(x3, S0, xr)
    t = x2 * _S[2]
    t += _S[1]               # s1
    t *= x5
    sp += t                  # fma(x5, s1, ...)
    cp = x2 * _C[1]
    cp += _C[0]              # c1
    x4 *= _C[2]
    cp += x4                 # fma(x4, C2, c1)
    x2 *= _C[4]
    x2 += _C[3]              # c2
    x2 *= x6
    cp += x2                 # fma(x6, c2, ...)
    odd = (n & 1).astype(bool)
    sin = np.where(odd, cp, sp)
    cos = np.where(odd, sp, cp)
    # Quadrant signs: sin (+, +, -, -) and cos (+, -, -, +) for q = 0..3.
    np.negative(sin, out=sin, where=(n & 2).astype(bool))
    n += 1
    np.negative(cos, out=cos, where=(n & 2).astype(bool))
    return sin, cos


def sincosf(y):
    """glibc's sincosf of a float32 array of values in [0, 120): (sin, cos)."""
    y = np.ascontiguousarray(y, np.float32)
    s, c = _sincosf_fast(y)
    # The unfused reduction errs by up to 2**-51 absolutely: small results
    # are redone too.
    redo = np.flatnonzero(_near_midpoint(s, 2.0 ** -8) | _near_midpoint(c, 2.0 ** -8))
    if redo.size:
        s[redo], c[redo] = _sincosf_double(y[redo], _fma)
    sin, cos = s.astype(np.float32), c.astype(np.float32)
    # Below 2**-12 glibc returns (y, 1) without the polynomial.
    tiny = ((y.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7ff)) < _TINY_TOP
    if tiny.any():
        sin[tiny] = y[tiny]
        cos[tiny] = 1
    return sin, cos


# --- double precision ----------------------------------------------------------------

def log_sin_cos64(u, v):
    """The C library's log(u), sin(v), cos(v) for float64 arrays.

    glibc's double log is not correctly rounded and NumPy's SIMD log is a
    different approximation, so these go through Python's math module,
    which calls the C library itself.
    """
    lg = np.fromiter(map(math.log, u.tolist()), np.float64, count=u.size)
    vl = v.tolist()
    sn = np.fromiter(map(math.sin, vl), np.float64, count=v.size)
    cs = np.fromiter(map(math.cos, vl), np.float64, count=v.size)
    return lg, sn, cs
