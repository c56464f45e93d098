"""pow_f64.py's packets compiled by Numba: each element runs the same
operations in the same order as the NumPy code (one float64 rounding each,
no fast-math, so no contracted multiply-adds), one loop over the elements
that fill whole packets; pow_f64 computes the last size % 4 with the C
library. Imported only by jit_kernels.py's loader thread.
"""
import math

import numba
import numpy as np

from . import pow_f64 as _p
from .jit_exp_log_f64 import _bits, _daz, _from_bits, _ftz, _pow2, exp_p

jit = numba.njit(cache=True, nogil=True, error_model="numpy")
lane = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

_SPLITTER, _BELOW_HALF, _HUGE_Y = _p._SPLITTER, float(_p._BELOW_HALF), float(_p._HUGE_Y)
_LN2, _SQRT_HALF = _p._LN2, _p._SQRT_HALF
_Q12, _Q10, _Q8, _Q6, _Q4, _Q2, _Q0 = _p._Q12, _p._Q10, _p._Q8, _p._Q6, _p._Q4, _p._Q2, _p._Q0
_C_HI, _C_LO, _2LOG2E_HI, _2LOG2E_LO = _p._C_HI, _p._C_LO, _p._2LOG2E_HI, _p._2LOG2E_LO
_INF = math.inf


@lane
def _two_prod(x, y):
    g = _SPLITTER * x
    xh = (x - g) + g
    xl = x - xh
    g = _SPLITTER * y
    yh = (y - g) + g
    yl = y - yh
    hi = x * y
    lo = xh * yh + -hi
    lo = xh * yl + lo
    lo = xl * yh + lo
    lo = xl * yl + lo
    return hi, lo


@lane
def _fast_two_sum(x, y):
    s = x + y
    return s, y - (s - x)


@lane
def _dw_times_f(xh, xl, y):
    ch, cl1 = _two_prod(xh, y)
    th, tl1 = _fast_two_sum(ch, xl * y)
    return _fast_two_sum(th, tl1 + cl1)


@lane
def _dw_plus_dw(xh, xl, yh, yl):
    rh, rl = _fast_two_sum(xh, yh)
    return _fast_two_sum(rh, (yl + rl) + xl)


@lane
def _dw_times_dw(xh, xl, yh, yl):
    hh, hl = _dw_times_f(xh, xl, yh)
    lh, ll = _dw_times_f(xh, xl, yl)
    return _dw_plus_dw(hh, hl, lh, ll)


@lane
def _round_half_away(a):
    return np.trunc(math.copysign(_BELOW_HALF, a) + a)


@lane
def _log2_dw(x):
    th, tl = _dw_times_f(_2LOG2E_HI, _2LOG2E_LO, x - 1.0)
    d = x + 1.0
    rh = th / d
    ph, pl = _two_prod(rh, d)
    rl = (((th - ph) - pl) + tl) / d
    rh, rl = _fast_two_sum(rh, rl)
    r2h, r2l = _dw_times_dw(rh, rl, rh, rl)
    r4h, _ = _dw_times_dw(r2h, r2l, r2h, r2l)
    q_even = _Q12 * r4h + _Q8
    q_odd = _Q10 * r4h + _Q6
    q_even = q_even * r4h + _Q4
    q_odd = q_odd * r4h + _Q2
    q_even = q_even * r4h + _Q0
    q = q_odd * r2h + q_even
    ph, pl = _dw_times_f(r2h, r2l, q)
    ph, pl = _dw_plus_dw(_C_HI, _C_LO, ph, pl)
    ph, pl = _dw_times_dw(r2h, r2l, ph, pl)
    sh, sl = _fast_two_sum(1.0, ph)
    ph, pl = _fast_two_sum(sh, pl + sl)
    return _dw_times_dw(ph, pl, rh, rl)


@lane
def _ldexp(a, n):
    kf = n if n == n else 0.0
    kf = -2099.0 if kf < -2099.0 else kf
    kf = 2099.0 if kf > 2099.0 else kf
    k = np.int64(kf)
    b = k >> 2
    c = _pow2(b)
    out = a * c
    out = out * c
    out = out * c
    return out * _pow2(k - 3 * b)


@lane
def _pow_abs(x, y):
    b = _bits(x)
    m = _from_bits((b & -0x7FF0000000000001) | 0x3FE0000000000000)
    e = np.float64(((b >> 52) & 0x7FF) - 1022)
    if m < _SQRT_HALF:
        m = 2.0 * m
        e = e - 1.0
    rh, rl = _log2_dw(m)
    f1h, f1l = _two_prod(e, y)
    f2h, f2l = _dw_times_f(rh, rl, y)
    fh, fl = _dw_plus_dw(f1h, f1l, f2h, f2l)
    n = _round_half_away(fh)
    r = (fh - n) + fl
    nr = _round_half_away(r)
    r = r - nr
    n = n + nr
    r = -1076.0 if r < -1076.0 else r
    r = 1025.0 if r > 1025.0 else r
    ph, pl = _two_prod(_LN2, r)
    e_r = exp_p(_daz(ph)) * (1.0 + pl)
    return _ftz(_ldexp(e_r, n))


@lane
def _pow1(x0, y0):
    """pow_f64._packets of one element."""
    x = _daz(x0)
    y = _daz(y0)
    ax = abs(x)
    ay = abs(y)
    out = _pow_abs(ax, y)
    x_neg = x < 0.0
    x_zero = x == 0.0
    y_neg = y < 0.0
    y_int = math.floor(y) == y and ay != _INF
    y_half = y * 0.5
    y_odd_int = y_int and not (_round_half_away(y_half) == y_half)
    if x_neg and not y_int:
        out = math.nan
    if x_zero:
        out = _INF if y_neg else 0.0
    if math.copysign(1.0, x) < 0.0 and y_odd_int:
        out = -out
    if ay >= _HUGE_Y:
        inf_y = _INF if (y_neg and x_zero) or (y_neg != (ax > 1.0)) else 0.0
        out = 1.0 if x == -1.0 else inf_y
    if ax == _INF:
        at_pos_inf = 0.0 if y_neg else _INF
        at_neg_inf = -at_pos_inf if y_odd_int else at_pos_inf
        out = at_neg_inf if x_neg else at_pos_inf
    if x != x or y != y:
        out = math.nan
    if y == 1.0:
        return x0
    if x == 1.0 or y == 0.0:
        return 1.0
    return out


@jit
def pow_f64_packets(x, y, out):
    """out = pow_f64._packets(x, y) of 1-D float64 arrays of one size."""
    for i in range(out.size):
        out[i] = _pow1(x[i], y[i])
