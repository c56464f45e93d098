"""TensorFlow's float32 erf, erfc and rsqrt compiled by Numba: erf.py's and
x86_estimates.py's operations, in their order, one float32 rounding each,
one loop over the elements. Imported only by jit_kernels.py.

As in jit_exp_log.py, NumPy's array idioms are spelled out per element
with NumPy's NaN behaviour (np.minimum(a, b) returns a NaN b, ...), and
only the branch np.where would select is computed. The x86 estimate
tables are x86_estimates' own arrays. erfc's scalar tail (the last
size % 8 elements) is erf._erfc_scalar compiled, with jit_glibc's glibc
expf (the reimplementation, not the C library's, whose bits could differ).

TensorFlow's flush-to-zero/denormals-are-zero (ftz.py) at the few operations
that can meet a subnormal: erf of a subnormal x (its x * x flushes too, but
only the polynomials' constant terms, which swamp it, see that), erfc's exp(-x**2) and z * r (x above ~9.2),
the sqrt of the rsqrt tail.
"""
import numpy as np

from . import erf as _erf
from . import x86_estimates as _x86
from .jit_exp_log import PACKET, as_bits, flush, from_bits, jit, lane, subnormal, zero_subnormals
from .jit_glibc import _expf

_f = np.float32
_ERF_P = tuple(_f(c) for c in _erf._ERF_P)
_ERF_Q = tuple(_f(c) for c in _erf._ERF_Q)
_SIXTEEN, _ONE, _MONE, _TWO, _ZERO = _f(16.0), _f(1.0), _f(-1.0), _f(2.0), _f(0.0)
_EXP_HI, _EXP_LO, _LOG2E, _HALF = _erf._EXP_HI, _erf._EXP_LO, _erf._LOG2E, _erf._HALF
_LN2_HI, _LN2_LO, _TWO_M64 = _erf._LN2_HI, _erf._LN2_LO, _erf._TWO_M64
_EP2, _EP3, _EP4, _EP5, _EP6 = _erf._EXP_P
_CLAMP, _FLT_MIN, _SPLIT = _erf._ERFC_CLAMP, _erf._FLT_MIN, _erf._SPLIT
_SM0, _SM1, _SM2, _SM3, _SM4, _SM5 = _erf._ERFC_SMALL
_NU0, _NU1, _NU2, _NU3 = _erf._ERFC_NUM
_DE0, _DE1, _DE2, _DE3, _DE4 = _erf._ERFC_DEN
_RCP_BITS = np.ascontiguousarray(_x86._RCP_BITS).astype(np.int64)
_RSQRT_BITS = np.ascontiguousarray(_x86._RSQRT_BITS).astype(np.int64)
_MHALF = _f(-0.5)


@lane
def erf_1(x):
    """erf._erf_f32 for one element (packets and tail alike)."""
    x2 = x * x
    if _SIXTEEN < x2:          # np.minimum(16, x*x): a NaN x*x stays
        x2 = _SIXTEEN
    p = x2 * _ERF_P[0] + _ERF_P[1]
    p = p * x2 + _ERF_P[2]
    p = p * x2 + _ERF_P[3]
    p = p * x2 + _ERF_P[4]
    p = p * x2 + _ERF_P[5]
    p = x * p
    q = x2 * _ERF_Q[0] + _ERF_Q[1]
    q = q * x2 + _ERF_Q[2]
    q = q * x2 + _ERF_Q[3]
    q = q * x2 + _ERF_Q[4]
    q = q * x2 + _ERF_Q[5]
    r = p / q
    if r > _ONE:
        r = _ONE
    if r < _MONE:
        r = _MONE
    return r


@jit
def erf_f32(x, out):
    """out = erf.erf_kernel(x) for 1-D contiguous float32 arrays."""
    special = False
    for i in range(x.size):
        v = x[i]
        out[i] = erf_1(v)
        special |= subnormal(v)
    if special:
        # DAZ: x * P reads a subnormal x as +-0 (x * 1.128 can be normal):
        # erf is +-0. Out of the loop, which stays vectorized.
        zero_subnormals(x, out)


@lane
def _exp_erfc(x_in, ftz):
    """erf._exp_f32 for one element of its domain, -121 <= x_in <= -1
    (with `ftz`, a subnormal result flushed)."""
    x = _EXP_HI if x_in > _EXP_HI else x_in
    m = np.floor(x * _LOG2E + _HALF)
    r = m * _LN2_HI + x
    r = m * _LN2_LO + r
    r2 = r * r
    p_even = r2 * _EP6 + _EP4
    p_odd = r2 * _EP5 + _EP3
    p_even = r2 * p_even + _EP2
    y = r * p_odd + p_even
    y = r2 * y + (r + _ONE)
    if m < _f(-190.0):
        m = _f(-190.0)
    if m > _f(127.0):
        m = _f(127.0)
    k = np.int32(m)
    big = k > 60
    k1 = k if big else k + 64
    y = y * from_bits((k1 + 127) << 23)
    if not big:
        y = y * _TWO_M64
        if ftz:
            y = flush(y)       # FTZ: exp(-x**2) below 2**-126 is 0
    if x_in > y:
        y = x_in
    if x_in < _EXP_LO:
        return _ZERO
    return y


@lane
def _rcp_normal(a):
    """reciprocal(a) for a positive normal a below 2**125 (erfc's x**2 in
    (1, 121]): no special cases, no branch."""
    bits = as_bits(a)
    e = (bits >> 23) & 0xFF
    x = from_bits(_RCP_BITS[(bits >> 11) & 0xFFF] - ((e - 127) << 23))
    t = a * x
    t = _ONE - t
    y = x * t
    return y + x


@lane
def _erfc_packet(x_in, ftz):
    """erf._erfc_packet for one element (without `ftz`, IEEE subnormals:
    right for x_in < 9)."""
    return _erfc_1(x_in, False, ftz)


@lane
def _erfc_scalar(x_in):
    """erf._erfc_scalar for one element: glibc's expf and a true division."""
    return _erfc_1(x_in, True, True)


@lane
def _erfc_1(x_in, scalar, ftz):
    """erf._erfc_f32 for one element. Both branches are computed and one
    is selected, as np.where does: no branch, so the loop vectorizes (the
    other branch's values are discarded, and its table index stays in
    range)."""
    x = -_CLAMP if x_in < -_CLAMP else x_in    # np.maximum: a NaN x_in stays
    if x > _CLAMP:
        x = _CLAMP
    x2 = x * x
    p = x2 * _SM0 + _SM1
    p = p * x2 + _SM2
    p = p * x2 + _SM3
    p = p * x2 + _SM4
    p = p * x2 + _SM5
    small = x * p + _ONE
    e = _expf(-x2) if scalar else _exp_erfc(-x2, ftz)
    gamma = _SPLIT * x                          # erf._square_low
    hi = (x - gamma) + gamma
    lo = x - hi
    d = hi * hi + (-x2)
    d = hi * lo + d
    d = lo * hi + d
    d = lo * lo + d
    t = e * d
    t = _ZERO if abs(t) < _FLT_MIN else t
    z = e - t
    q2 = _ONE / x2 if scalar else _rcp_normal(x2)
    num = q2 * _NU0 + _NU1
    num = num * q2 + _NU2
    num = num * q2 + _NU3
    den = q2 * _DE0 + _DE1
    den = den * q2 + _DE2
    den = den * q2 + _DE3
    den = den * q2 + _DE4
    r = num / (x * den)
    zr = z * r
    if ftz:
        zr = flush(zr)
    large = zr + (_TWO if x < _ZERO else _ZERO)
    return large if _ONE < x2 else small


_UNDER = _f(9.0)    # below it neither exp(-x**2) nor erfc is subnormal


@jit
def erfc_head(x, out, n):
    """out[:n] = erf._erfc_packet(x[:n]): IEEE arithmetic in the vectorized
    loop, then TensorFlow's flushes for the (usually no) x above 9."""
    if _erfc_loop(x, out, n):
        _erfc_fix(x, out, n)


@jit
def _erfc_loop(x, out, n):
    # A function of its own, with an or-ed flag: LLVM vectorizes it.
    special = False
    for i in range(n):
        v = x[i]
        out[i] = _erfc_packet(v, False)
        special |= v > _UNDER
    return special


@jit
def _count_above(x, limit):
    # A vectorized count (NaN is not above).
    c = 0
    for i in range(x.size):
        c += x[i] > limit
    return c


@jit
def _erfc_fix(x, out, n):
    # Blocks of 256 without any x > 9 (one vectorized count says so) are
    # skipped; the others are scanned one element at a time.
    for lo in range(0, n, 256):
        hi = min(lo + 256, n)
        if _count_above(x[lo:hi], _UNDER):
            for i in range(lo, hi):
                if x[i] > _UNDER:
                    out[i] = _erfc_ftz(x[i])


@jit
def _erfc_ftz(v):
    # Not inlined: a call keeps the scan above a short scalar loop (inlined,
    # LLVM computes the whole erfc for every element).
    return _erfc_packet(v, True)


@jit
def erfc_f32(x, out):
    """out = erf.erfc_kernel(x) for 1-D contiguous float32 arrays."""
    n = x.size
    head = n - n % PACKET
    erfc_head(x, out, head)
    for i in range(head, n):
        out[i] = _erfc_scalar(x[i])


@lane
def _rsqrt_special(a, bits):
    # rsqrt_estimate's special cases: NaN, +inf, zeros and subnormals,
    # negatives (x86_estimates.rsqrt_estimate's np.where chain, in order).
    e = (bits >> 23) & 0xFF
    if e == 255 and (bits & 0x7FFFFF) != 0:
        return from_bits(bits | 0x400000)
    if bits == 0x7F800000:
        return _ZERO
    if e == 0:
        return from_bits(0x7F800000 | (bits & 0x80000000))
    return from_bits(0xFFC00000)


@jit
def _rsqrt_fix(x, out, n):
    # Redoes the special elements of out[:n] out of line, keeping the main
    # loop free of branches, so that it vectorizes.
    for i in range(n):
        a = x[i]
        bits = as_bits(a)
        if ((bits - 0x00800000) & 0xFFFFFFFF) >= 0x7F000000:
            out[i] = _rsqrt_special(a, bits)


@lane
def _rsqrt_packet(a):
    """x86_estimates.rsqrt for a positive normal a: the estimate (its
    table, 2**-j for exponent 2j or 2j + 1) and a Newton step."""
    bits = as_bits(a)
    e = (bits >> 23) & 0xFF
    idx = ((bits >> 11) & 0xFFF) | ((~e & 1) << 12)
    y0 = from_bits(_RSQRT_BITS[idx] - (((e - 127) >> 1) << 23))
    h = a * y0
    h = h * y0
    h = h + _MONE
    y = y0 * _MHALF
    y = y * h
    y = y + y0
    return y


@jit
def _rsqrt_head(x, out, n):
    special = False
    for i in range(n):
        out[i] = _rsqrt_packet(x[i])
        special |= ((as_bits(x[i]) - 0x00800000) & 0xFFFFFFFF) >= 0x7F000000
    return special


@jit
def rsqrt_f32(x, out):
    """out = x86_estimates.rsqrt_kernel(x): packets, then a division by the
    correctly rounded sqrt for the last size % 8 (all of a short tensor).
    A special input (not a positive normal number) keeps its estimate: the
    Newton step gives NaN for all of them (or, for negative subnormals, the
    estimate itself)."""
    n = x.size
    head = n - n % PACKET if n >= PACKET else 0
    if _rsqrt_head(x, out, head):
        _rsqrt_fix(x, out, head)
    for i in range(head, n):
        out[i] = _ONE / np.sqrt(flush(x[i]))     # DAZ: +-inf for a subnormal


KERNELS = {"erf": erf_f32, "erfc": erfc_f32, "rsqrt": rsqrt_f32}
