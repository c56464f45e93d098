"""Eigen's packet pow compiled by Numba: pow.py's `pow_packet`, one element
at a time, with the same float operations in the same order (each rounds
once: no fast-math, so LLVM forms no fused multiply-add). Imported only by
jit_kernels.py, which checks that Numba is there. Module-level functions, so
Numba's disk cache serves later processes.

NumPy's NaN-propagating minimum/maximum/clip become comparisons that NaN
fails; lanes where they would see a NaN are overwritten by pow's special
cases, as in the NumPy code.

TensorFlow's flush-to-zero/denormals-are-zero (pow.py, ftz.py): x and y are
flushed on entry (y == 1 still hands back x's own bits) and the one product
that can round to a subnormal, the last scaling of `_pow_abs`, is flushed.
"""
import numba
import numpy as np

from . import erf as _erf
from . import pow as _p
from .jit_exp_log import flush

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

_F32, _F64, _U32, _I32, _I64 = np.float32, np.float64, np.uint32, np.int32, np.int64
_SIGN = _U32(0x80000000)

_ONE, _ZERO, _HALF, _TWO = _p._ONE, _p._ZERO, _p._HALF, _p._TWO
_INF, _NAN = _p._INF, _p._NAN
_SQRT_HALF, _LN2, _HUGE_Y = _p._SQRT_HALF, _p._LN2, _p._HUGE_Y
_BELOW_HALF_BITS = _U32(0x3EFFFFFF)
_HALF_BITS = _U32(0x3F000000)
_C0_HI, _C0_LO, _C1_HI, _C1_LO = _p._C0_HI, _p._C0_LO, _p._C1_HI, _p._C1_LO
_L0, _L1, _L2, _L3, _L4, _L5, _L6, _L7, _L8 = _p._LOG2_C
_MIN_NORMAL = _F32(1.17549435e-38)
_TWO_24 = _F32(2.0 ** 24)
_R_LO, _R_HI = _F32(-151.0), _F32(129.0)
_MINUS_ONE = _F32(-1.0)
# Eigen's float exp (erf._exp_f32).
_EXP_HI, _EXP_LO, _LOG2E = _erf._EXP_HI, _erf._EXP_LO, _erf._LOG2E
_LN2_HI, _LN2_LO = _erf._LN2_HI, _erf._LN2_LO
_E2, _E3, _E4, _E5, _E6 = _erf._EXP_P
_TWO_M64 = _erf._TWO_M64


@_inline
def _bits(v):
    return _F32(v).view(_U32)


@_inline
def _float(b):
    return _U32(b).view(_F32)


@_inline
def _two_prod(x, y):
    p = _F64(x) * _F64(y)
    hi = _F32(p)
    return hi, _F32(p - _F64(hi))


@_inline
def _fast_two_sum(x, y):
    s = x + y
    return s, y - (s - x)


@_inline
def _dw_times_f(xh, xl, y):
    ch, cl1 = _two_prod(xh, y)
    cl2 = xl * y
    th, tl1 = _fast_two_sum(ch, cl2)
    return _fast_two_sum(th, tl1 + cl1)


@_inline
def _dw_plus_dw(xh, xl, yh, yl):
    rh, rl = _fast_two_sum(xh, yh)
    return _fast_two_sum(rh, (yl + rl) + xl)


@_inline
def _round_half_away(a):
    bias = _float((_bits(a) & _SIGN) | _BELOW_HALF_BITS)
    return np.trunc(bias + a)


@_inline
def _exp_f32(x_in):
    x = _EXP_HI if x_in > _EXP_HI else x_in
    m = np.floor(x * _LOG2E + _HALF)
    r = m * _LN2_HI + x
    r = m * _LN2_LO + r
    r2 = r * r
    p_even = r2 * _E6 + _E4
    p_odd = r2 * _E5 + _E3
    p_even = r2 * p_even + _E2
    y = r * p_odd + p_even
    y = r2 * y + (r + _ONE)
    k = _I64(-190) if m < _F32(-190.0) else (_I64(127) if m > _F32(127.0) else _I64(m))
    k1 = k if k > 60 else k + 64
    y = y * _float((k1 + 127) << 23)
    y2 = y * _TWO_M64
    y = y if k > 60 else y2
    # Selects, not early returns, so that loops over pow vectorize.
    y = x_in if y < x_in else y
    y = _ZERO if x_in < _EXP_LO else y
    return x_in if x_in != x_in else y


@_inline
def _pow_abs(ax, y):
    """pow._pow_abs for one element: |x|**y."""
    denormal = ax < _MIN_NORMAL
    a = ax * _TWO_24 if denormal else ax
    b = _bits(a)
    m = _float((b & _U32(0x807FFFFF)) | _HALF_BITS)
    e = _F32(_I64((b >> _U32(23)) & _U32(0xFF)) - (150 if denormal else 126))
    if m < _SQRT_HALF:
        m = _TWO * m
        e = e - _ONE
    # Eigen's accurate_log2 on [sqrt(1/2), sqrt(2)).
    t = m - _ONE
    p = _L0 * t + _L1
    p = p * t + _L2
    p = p * t + _L3
    p = p * t + _L4
    p = p * t + _L5
    p = p * t + _L6
    p = p * t + _L7
    p = p * t + _L8
    ph, pl = _two_prod(t, p)
    ph, pl = _dw_plus_dw(_C1_HI, _C1_LO, ph, pl)
    ph, pl = _dw_times_f(ph, pl, t)
    ph, pl = _dw_plus_dw(_C0_HI, _C0_LO, ph, pl)
    rh, rl = _dw_times_f(ph, pl, t)
    f1h, f1l = _two_prod(e, y)
    f2h, f2l = _dw_times_f(rh, rl, y)
    fh, fl = _dw_plus_dw(f1h, f1l, f2h, f2l)
    n = _round_half_away(fh)
    r = (fh - n) + fl
    nr = _round_half_away(r)
    r = r - nr
    n = n + nr
    if r < _R_LO:
        r = _R_LO
    elif r > _R_HI:
        r = _R_HI
    ph, pl = _two_prod(_LN2, r)
    e_r = _exp_f32(ph) * (_ONE + pl)
    # pow._ldexp: three exact scalings by 2**(e >> 2), then one rounding.
    k = _I64(-278) if n < _F32(-278.0) else (_I64(278) if n > _F32(278.0) else _I64(n))
    kb = k >> 2
    c = _float((kb + 127) << 23)
    out = ((e_r * c) * c) * c
    out = flush(out * _float((k - 3 * kb + 127) << 23))    # FTZ
    return n if n != n else out


@_inline
def _pow(x, y):
    """pow._pow_block for one element: |x|**y, then the special cases as
    selects in pow._special_cases' order (no branches: loops vectorize)."""
    x_bits = x
    x = flush(x)        # DAZ: subnormal operands read as +-0
    y = flush(y)
    ax = abs(x)
    out = _pow_abs(ax, y)
    x_neg = x < _ZERO
    x_zero = x == _ZERO
    ay = abs(y)
    y_inf = ay == _INF
    y_neg = y < _ZERO
    y_int = (np.floor(y) == y) & (ay != _INF)
    y_half = y * _HALF
    y_odd_int = y_int & (_round_half_away(y_half) != y_half)
    out = _NAN if x_neg & (not y_int) else out
    out = (_INF if y_neg else _ZERO) if x_zero else out
    out = -out if ((_bits(x) >> _U32(31)) != _U32(0)) & y_odd_int else out
    huge = _INF if (y_neg & x_zero) | (y_neg != (ax > _ONE)) else _ZERO
    huge = _ONE if x == _MINUS_ONE else huge
    out = huge if ay >= _HUGE_Y else out
    inf = _ZERO if y_neg else _INF
    inf = -inf if x_neg & y_odd_int else inf
    out = inf if ax == _INF else out
    out = _NAN if (x != x) | (y != y) else out
    out = _ONE if (x == _ONE) | (y == _ZERO) else out
    return x_bits if y == _ONE else out


@_jit
def pow_f32(x, y, out):
    """out[i] = Eigen's packet pow(x[i], y[i]) (1-D contiguous float32 arrays)."""
    for i in range(x.size):
        out[i] = _pow(x[i], y[i])


@_jit
def pow_f32_scalar_y(x, y, out):
    """out[i] = Eigen's packet pow(x[i], y) for a float32 y (x**2 and the like)."""
    for i in range(x.size):
        out[i] = _pow(x[i], y)


@_jit
def pow_f32_scalar_x(x, y, out):
    """out[i] = Eigen's packet pow(x, y[i]) for a float32 x."""
    for i in range(y.size):
        out[i] = _pow(x, y[i])
