"""TensorFlow's sin, cos, tan and atan2 compiled by Numba: trig.py's packet
code and glibc_float.py's tanf, one element at a time, with the same float
operations in the same order (each rounds once: no fast-math, no fused
multiply-add, which LLVM only forms under fast-math flags Numba does not set
without `fastmath=True`). Imported only by jit_kernels.py, which checks that
Numba is there. Module-level functions, so Numba's disk cache serves later
processes.

The packet loops are straight-line code with selects over a counted loop,
each in a function of its own, which LLVM vectorizes (a branch, a call or a
loop nested in a block loop keeps it scalar); the rare inputs that need
other steps (sin/cos of huge |x|, inf, NaN) are counted in a vectorized pass
and redone one at a time afterwards.

Numba widens integer arithmetic to 64 bits, so the 32-bit wrap-arounds of the
NumPy code are redone with masks and explicit conversions; NumPy's
NaN-propagating minimum/maximum become comparisons that NaN fails.

TensorFlow's flush-to-zero/denormals-are-zero (trig.py, ftz.py): the main
loops run in IEEE arithmetic and or a flag for subnormal inputs (and atan2's
results) as they go; only where it is set are those elements redone: sin of
a subnormal is +-0 (DAZ reads x as zero); atan2's elements with a subnormal operand or result (an IEEE
result is subnormal wherever TensorFlow's flushed one would differ) are
redone with the flushes after the main loop; glibc's tanf has no arithmetic
on tiny inputs.
"""
import numba
import numpy as np

from . import glibc_float as _g
from . import trig as _t
from . import x86_estimates as _x
from .jit_exp_log import flush, subnormal, zero_subnormals

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

_F32, _F64, _U32, _U64, _I32, _I64 = (np.float32, np.float64, np.uint32, np.uint64,
                                      np.int32, np.int64)
_SIGN = _U32(0x80000000)
_ABS = _U32(0x7FFFFFFF)


@_inline
def _bits(v):
    return _F32(v).view(_U32)


@_inline
def _float(b):
    return _U32(b).view(_F32)


# --- sin and cos (Eigen's packet code, trig._sincos_f32) -------------------------------------

_TWO_OVER_PI, _MAGIC = _t._TWO_OVER_PI, _t._ROUNDING_MAGIC
_P1, _P2, _P3, _P4 = _t._P1, _t._P2, _t._P3, _t._P4
_SIN_HUGE, _COS_HUGE = _t._SIN_HUGE, _t._COS_HUGE
_C0, _C1, _C2, _C3, _C4 = _t._COS_C
_S0, _S1, _S2 = _t._SIN_C
_TOP_BITS = _t._TWO_OVER_PI_BITS.copy()
_PIO2_2M62 = _t._PIO2_2M62
_M32 = _U64(0xFFFFFFFF)
_INF32 = _F32(np.inf)


@_inline
def _reduce_huge(ax):
    xi = _U64(_bits(ax))
    e = (xi >> _U64(23)) - _U64(118)
    m = ((xi & _U64(0x7FFFFF)) | _U64(0x800000)) << (e & _U64(7))
    i = _I64(e >> _U64(3))
    p = m * _TOP_BITS[i + 7]
    p = m * _TOP_BITS[i + 3] + (p >> _U64(32))
    p = (((m * _TOP_BITS[i - 1]) & _M32) << _U64(32)) + p
    q = (p + _U64(1 << 61)) >> _U64(62)
    p = p - (q << _U64(62))
    r = _F32(_F64(_U64(p).view(_I64)) * _PIO2_2M62)
    return r, _I64(q)


@_inline
def _sincos(x, sine):
    ax = abs(x)
    y_round = ax * _TWO_OVER_PI
    y_round = y_round + _MAGIC
    quadrant = _I64(_bits(y_round))
    y = y_round - _MAGIC
    r = y * _P1
    r = r + ax
    t = y * _P2
    r = t + r
    t = y * _P3
    r = t + r
    t = y * _P4
    r = t + r
    if ax >= (_SIN_HUGE if sine else _COS_HUGE) and ax != _INF32:
        r, quadrant = _reduce_huge(ax)
    r2 = r * r
    c = r2 * _C0
    c = c + _C1
    c = c * r2
    c = c + _C2
    c = c * r2
    c = c + _C3
    c = c * r2
    c = c + _C4
    s = r2 * _S0
    s = s + _S1
    s = s * r2
    s = s + _S2
    s = s * r2
    s = s * r
    s = s + r
    even = (quadrant & 1) == 0
    if sine:
        result = s if even else c
        sign = (_bits(x) ^ _U32((quadrant & 2) << 30)) & _SIGN
    else:
        result = c if even else s
        sign = _U32(((quadrant + 1) & 2) << 30)
    return _float(_bits(result) ^ sign)


@_inline
def _sincos_fast(x, sine):
    """_sincos without the Payne-Hanek branch: the same operations, right for
    |x| below _SIN_HUGE / _COS_HUGE (others are redone by `_fix_huge`).
    Straight-line code with selects, so LLVM vectorizes the loops over it."""
    ax = abs(x)
    y_round = ax * _TWO_OVER_PI
    y_round = y_round + _MAGIC
    qb = _bits(y_round)
    y = y_round - _MAGIC
    r = y * _P1
    r = r + ax
    t = y * _P2
    r = t + r
    t = y * _P3
    r = t + r
    t = y * _P4
    r = t + r
    r2 = r * r
    c = r2 * _C0
    c = c + _C1
    c = c * r2
    c = c + _C2
    c = c * r2
    c = c + _C3
    c = c * r2
    c = c + _C4
    s = r2 * _S0
    s = s + _S1
    s = s * r2
    s = s + _S2
    s = s * r2
    s = s * r
    s = s + r
    even = (qb & _U32(1)) == _U32(0)
    if sine:
        result = s if even else c
        sign = (_bits(x) ^ (qb << _U32(30))) & _SIGN
    else:
        result = c if even else s
        sign = ((qb + _U32(1)) << _U32(30)) & _SIGN
    return _float(_bits(result) ^ sign)


@_jit
def _sin_fast(x, out):
    # Returns whether any x is subnormal (a flag or-ed in the loop: ~1%,
    # where flushing every result cost ~15%).
    special = False
    for i in range(x.size):
        v = x[i]
        out[i] = _sincos_fast(v, True)
        special |= subnormal(v)
    return special


@_jit
def _cos_fast(x, out):
    for i in range(x.size):
        out[i] = _sincos_fast(x[i], False)


@_jit
def count_at_least(x, limit):
    """How many |x[i]| are not below `limit` (NaN counts): a vectorized pass
    that says whether a slow path has any work."""
    c = 0
    for i in range(x.size):
        c += not (abs(x[i]) < limit)
    return c


# Blocks whose elements the slow path scans one at a time; a block without
# any (one vectorized count says so) is skipped.
FIX_BLOCK = 256


@_jit
def _fix_huge(x, out, sine):
    limit = _SIN_HUGE if sine else _COS_HUGE
    n = x.size
    for lo in range(0, n, FIX_BLOCK):
        hi = min(lo + FIX_BLOCK, n)
        if count_at_least(x[lo:hi], limit):
            for i in range(lo, hi):
                if not (abs(x[i]) < limit):
                    out[i] = _sincos_slow(x[i], sine)


@_jit
def _sincos_slow(x, sine):
    # Not inlined: a call keeps the scan loop above scalar (and short).
    return _sincos(x, sine)


@_jit
def sin_f32(x, out):
    """out[i] = Eigen's packet sin of x[i] (1-D contiguous float32 arrays):
    a vectorized loop for |x| < _SIN_HUGE, then the Payne-Hanek reduction
    for the (usually no) elements at or above it, inf and NaN."""
    if _sin_fast(x, out):
        zero_subnormals(x, out)     # DAZ: sin of a subnormal is +-0
    if count_at_least(x, _SIN_HUGE):
        _fix_huge(x, out, True)


@_jit
def cos_f32(x, out):
    """out[i] = Eigen's packet cos of x[i] (1-D contiguous float32 arrays),
    as sin_f32."""
    _cos_fast(x, out)
    if count_at_least(x, _COS_HUGE):
        _fix_huge(x, out, False)


# --- atan2 (trig._atan2_packet, with x86_estimates.reciprocal) -------------------------------

_RCP_BITS = _x._RCP_BITS.view(np.uint32).copy()
_ONE = _F32(1.0)
_AP0, _AP1, _AP2 = _t._ATAN_P
_AQ0, _AQ1, _AQ2, _AQ3 = _t._ATAN_Q
_HALF_PI, _PI = _t._HALF_PI, _t._PI
_PI_BITS = _U32(_bits.py_func(_PI))
_ONE_BITS = _U32(0x3F800000)


@_inline
def _reciprocal(a):
    """x86_estimates.reciprocal of one float32: the rcpps estimate, a Newton step.
    Selects, no branches, and a table index that is never negative (a uint
    mask): LLVM vectorizes loops over it into gathers."""
    b = _bits(a)
    e = (b >> _U32(23)) & _U32(0xFF)
    sign = b & _SIGN
    est = _U32(_RCP_BITS[(b >> _U32(11)) & _U32(0xFFF)]) - ((e - _U32(127)) << _U32(23))
    est = est | sign
    est = sign if e >= _U32(253) else est
    est = (_U32(0x7F800000) | sign) if e == _U32(0) else est
    est = (b | _U32(0x400000)) if (e == _U32(255)) & ((b & _U32(0x7FFFFF)) != _U32(0)) else est
    x = _float(est)
    t = a * x
    t = _ONE - t
    y = x * t
    y = y + x
    return y if t == t else x


@_inline
def _atan(t):
    at = abs(t)
    large = at > _ONE
    # Both sides computed, then selected: no branch in the loop.
    u = _reciprocal(at)
    u = u if large else at
    u2 = u * u
    p = u2 * _AP0
    p = p + _AP1
    p = p * u2
    p = p + _AP2
    q = u2 * _AQ0
    q = q + _AQ1
    q = q * u2
    q = q + _AQ2
    q = q * u2
    q = q + _AQ3
    r = p / q
    r = u * r
    h = _HALF_PI - r
    r = h if large else r
    return _float(_bits(r) ^ (_bits(t) & _SIGN))


@_inline
def _atan2(yv, xv, ftz):
    """trig._atan2_block for one element; with `ftz`, TensorFlow's flushes:
    DAZ on the operands of the division and the comparison (the zero test
    reads bits), FTZ on the result."""
    yb, xb = _bits(yv), _bits(xv)
    result_sign = (yb ^ xb) & _SIGN
    if ftz:
        yv = flush(yv)
        xv = flush(xv)
    t = yv / xv
    t = _float(_ONE_BITS | result_sign) if abs(xv) == abs(yv) else t
    t = _float(result_sign) if ((xb | yb) & _ABS) == _U32(0) else t
    shift = _float(((_PI_BITS if xb & _SIGN else _U32(0))) | (yb & _SIGN))
    r = _atan(t) + shift
    return flush(r) if ftz else r


_subnormal = subnormal


@_jit
def count_subnormal(y, x, out):
    """How many elements have a subnormal y, x or out: a vectorized pass."""
    c = 0
    for i in range(y.size):
        c += _subnormal(y[i]) | _subnormal(x[i]) | _subnormal(out[i])
    return c


@_jit
def _atan2_plain(y, x, out):
    # Whether any y, x or result is subnormal: a flag or-ed in the loop
    # costs ~1% (a count, or flushing every element, ~20%).
    special = False
    for i in range(y.size):
        yv, xv = y[i], x[i]
        r = _atan2(yv, xv, False)
        out[i] = r
        special |= _subnormal(yv) | _subnormal(xv) | _subnormal(r)
    return special


@_jit
def _atan2_ftz(yv, xv):
    # Not inlined: a call keeps the scan loop below scalar (and short).
    return _atan2(yv, xv, True)


@_jit
def _fix_subnormal(y, x, out):
    n = y.size
    for lo in range(0, n, FIX_BLOCK):
        hi = min(lo + FIX_BLOCK, n)
        if count_subnormal(y[lo:hi], x[lo:hi], out[lo:hi]):
            for i in range(lo, hi):
                if _subnormal(y[i]) | _subnormal(x[i]) | _subnormal(out[i]):
                    out[i] = _atan2_ftz(y[i], x[i])


@_jit
def atan2_f32(y, x, out):
    """out[i] = Eigen's packet atan2(y[i], x[i]) (1-D contiguous float32
    arrays): a vectorized loop in IEEE arithmetic, then, for the elements
    whose y, x or result is subnormal (usually none), TensorFlow's
    flush-to-zero/denormals-are-zero version, block by block."""
    if _atan2_plain(y, x, out):
        _fix_subnormal(y, x, out)


# --- tan (glibc_float.tanf) ------------------------------------------------------------------

_HPI_INV, _HPI, _PI63 = _g._HPI_INV, _g._HPI, _g._PI63
_INV_PIO4 = _g._INV_PIO4.copy()
_T0, _T1, _T2, _T3, _T4, _T5, _T6, _T7, _T8, _T9, _T10, _T11, _T12 = _g._T
_PIO4_F, _PIO4LO_F = _g._PIO4_F, _g._PIO4LO_F
_TWO = _F32(2.0)
_ZERO = _F32(0.0)
_NEAR = _F32(2.0 ** -13)


@_inline
def _reduce_large(bits):
    """glibc_float._reduce_large for one float32's bits: (x mod pi/2, quadrant)."""
    b = _U64(bits)
    arr = _I64((b >> _U64(26)) & _U64(15))
    shift = (b >> _U64(23)) & _U64(7)
    m = ((b & _U64(0xFFFFFF)) | _U64(0x800000)) << shift
    res0 = (m * _INV_PIO4[arr]) & _M32
    res1 = m * _INV_PIO4[arr + 4]
    res2 = m * _INV_PIO4[arr + 8]
    res0 = ((res2 >> _U64(32)) | (res0 << _U64(32))) + res1
    n = (res0 + _U64(1 << 61)) >> _U64(62)
    res0 = res0 - (n << _U64(62))
    return _F64(_U64(res0).view(_I64)) * _PI63, _I64(n)


@_inline
def _kernel_tanf(x, y, iy):
    """glibc_float._kernel_tanf for one element (iy = 1: tan, -1: -1/tan)."""
    hx = _I64(np.int32(_bits(x)))
    ix = hx & 0x7FFFFFFF
    sign_f = _F32(-1.0) if hx < 0 else _ONE
    iy_f = _F32(iy)
    big = ix >= 0x3f2ca140
    if big and hx < 0:
        x = -x
        y = -y
    xb = (_PIO4_F - x) + (_PIO4LO_F - y)
    if big:
        x = xb
        y = _ZERO
    z = x * x
    w = z * z
    r = _T1 + w * (_T3 + w * (_T5 + w * (_T7 + w * (_T9 + w * _T11))))
    v = z * (_T2 + w * (_T4 + w * (_T6 + w * (_T8 + w * (_T10 + w * _T12)))))
    s = z * x
    r = y + z * (s * (r + v) + y)
    r = r + _T0 * s
    w = x + r
    if big:
        out = sign_f * (iy_f - _TWO * (x - (w * w / (w + iy_f) - r)))
        if abs(xb) < _NEAR:
            out = (sign_f * iy_f) * (_ONE - (_TWO * iy_f) * xb)
        return out
    if ix < 0x39000000:
        if iy == 1:
            return x
        if ix == 0:
            return _ONE / abs(x)
        return -_ONE / x
    if iy == 1:
        return w
    zh = _float(_bits(w) & _U32(0xFFFFF000))
    v = r - (zh - x)
    a = -_ONE / w
    t = _float(_bits(a) & _U32(0xFFFFF000))
    s = _ONE + t * zh
    return t + a * (s + t * v)


@_inline
def _tanf(x):
    bits = _bits(x)
    ab = bits & _ABS
    if ab >= _U32(0x7F800000):
        return x - x
    if ab <= _U32(0x3f490fda):
        return _kernel_tanf(x, _ZERO, 1)
    if ((bits >> _U32(20)) & _U32(0x7FF)) < _U32(0x42F):
        dx = _F64(x)
        r = dx * _HPI_INV
        n = (_I64(np.int32(r)) + 0x800000) >> 24
        d = dx - _F64(n) * _HPI
    else:
        d, n = _reduce_large(bits)
        if bits >> _U32(31):
            d = -d
    y0 = _F32(d)
    y1 = _F32(d - _F64(y0))
    return _kernel_tanf(y0, y1, 1 - ((n & 1) << 1))


@_jit
def tan_f32(x, out):
    """out[i] = glibc's tanf of x[i] (1-D contiguous float32 arrays)."""
    for i in range(x.size):
        out[i] = _tanf(x[i])
