"""TensorFlow's CPU float64 pow, bit for bit (pow.py does float32 and the
half types).

TensorFlow's Pow kernel is Eigen's `scalar_pow_op`: the whole packets of 4
float64 (AVX) go through Eigen's `generic_pow`, the last `size % 4`
elements (and tensors of fewer than 4) through the C library's `pow`.
NumPy's float64 power is its own (an AVX-512 routine on such machines) or
the C library's on every element; either differed from TensorFlow's in
8-23% of values, also for x**2 and x**0.5 (Eigen's packet pow is not
correctly rounded). These NumPy steps take ~18x NumPy's power; under the
jit extra the same steps run compiled (jit_pow_f64.py) once loaded.

Eigen's packet pow in float64 without fused multiply-add (the released x86
wheels have none, so every product and sum rounds):

- |x| = m * 2**e with m in [sqrt(1/2), sqrt(2));
- log2(m) as a double word: r = c (m - 1) / (m + 1) with c = 2 / ln 2 as a
  double word (Dekker products by Veltkamp splitting, a double-word
  division), then the odd polynomial ((Q(r^2) r^2 + C) r^2 + 1) r with Q
  of degree 6 in plain arithmetic and the rest in double words;
- y * (e + log2(m)) as a double word, split into an integer n and a
  fraction r in [-1/2, 1/2] (rounding half away from zero, Eigen's pround);
- 2**r = exp(hi) * (1 + lo) for ln2 * r = hi + lo, with Eigen's double exp
  (exp_log_f64.exp_packets), then scaled by 2**n (Eigen's four-factor ldexp);
- then the special cases, in the order pow.py gives for float32.

TensorFlow's threads read subnormal operands as +-0 and flush subnormal
results (exp_log_f64.ftz). Only + - * /, floor/trunc, comparisons and bit
operations run on NumPy arrays: the bits do not depend on NumPy's SIMD
paths.
"""
import ctypes
import math

import numpy as np

from . import libm
from .exp_log_f64 import PACKET_F64, _daz, _ldexp, exp_packets, ftz

__all__ = ["pow_f64"]

_ONE, _ZERO, _HALF, _TWO = 1.0, 0.0, 0.5, 2.0
_INF, _NAN = math.inf, math.nan
_SQRT_HALF = 0.70710678118654752440
_LN2 = 0.693147180559945309417232121458
_SPLITTER = float(2 ** 27 + 1)        # Veltkamp's constant for 53-bit significands
_BELOW_HALF = np.nextafter(0.5, 0.0)  # Eigen's pround adds +-this, then truncates
_HUGE_Y = (1024 * _LN2) / np.finfo(np.float64).eps

# accurate_log2<double>: Q(r^2)'s coefficients, C as a double word, and
# c = 2 / ln(2) as a double word.
_Q12, _Q10, _Q8 = 2.87074255468000586e-9, 2.38957980901884082e-8, 2.31032094540014656e-7
_Q6, _Q4, _Q2 = 2.27279857398537278e-6, 2.31271023278625638e-5, 2.47556738444535513e-4
_Q0 = 2.88543873228900172e-3
_C_HI, _C_LO = 0.0400377511598501157, -4.77726582251425391e-19
_2LOG2E_HI, _2LOG2E_LO = 2.88539008177792677, 4.07660016854549667e-17

_CHUNK = 1 << 13   # a multiple of PACKET_F64: each pass stays in cache


# --- double-word arithmetic (Eigen's, without FMA) -----------------------------------------

def _split(x):
    """Veltkamp's splitting: x == hi + lo with half the significand in hi."""
    gamma = _SPLITTER * x
    hi = (x - gamma) + gamma
    return hi, x - hi


def _two_prod(x, y):
    """Dekker's product: x * y == hi + lo, hi = fl(x * y)."""
    xh, xl = _split(x)
    yh, yl = _split(y)
    hi = x * y
    lo = xh * yh + -hi
    lo = xh * yl + lo
    lo = xl * yh + lo
    lo = xl * yl + lo
    return hi, lo


def _fast_two_sum(x, y):
    s = x + y
    return s, y - (s - x)


def _dw_times_f(xh, xl, y):
    """(xh + xl) * y (Muller's algorithm 7)."""
    ch, cl1 = _two_prod(xh, y)
    th, tl1 = _fast_two_sum(ch, xl * y)
    return _fast_two_sum(th, tl1 + cl1)


def _dw_plus_dw(xh, xl, yh, yl):
    """(xh + xl) + (yh + yl) for |xh| >= |yh|."""
    rh, rl = _fast_two_sum(xh, yh)
    return _fast_two_sum(rh, (yl + rl) + xl)


def _dw_times_dw(xh, xl, yh, yl):
    hh, hl = _dw_times_f(xh, xl, yh)
    lh, ll = _dw_times_f(xh, xl, yl)
    return _dw_plus_dw(hh, hl, lh, ll)


def _dw_div_f(xh, xl, y):
    """(xh + xl) / y (Joldes, Muller and Popescu's algorithm 15)."""
    th = xh / y
    ph, pl = _two_prod(th, y)
    delta = ((xh - ph) - pl) + xl
    return _fast_two_sum(th, delta / y)


def _round_half_away(a):
    return np.trunc(np.copysign(_BELOW_HALF, a) + a)


# --- Eigen's generic_pow -------------------------------------------------------------------

def _frexp(a):
    """Eigen's pfrexp for a >= 0 (no subnormals: read as zero before):
    (m in [1/2, 1), e) with a = m * 2**e."""
    bits = a.view(np.int64)
    e = ((bits >> 52) & 0x7FF) - 1022
    m = ((bits & np.int64(-0x7FF0000000000001)) | np.int64(0x3FE0000000000000)).view(np.float64)
    return m, e.astype(np.float64)


def _log2_dw(x):
    """Eigen's accurate_log2<double> on [sqrt(1/2), sqrt(2)): a double word."""
    th, tl = _dw_times_f(_2LOG2E_HI, _2LOG2E_LO, x - _ONE)
    rh, rl = _dw_div_f(th, tl, x + _ONE)
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
    sh, sl = _fast_two_sum(_ONE, ph)           # 1 + (ph + pl), |1| >= |ph|
    ph, pl = _fast_two_sum(sh, pl + sl)
    return _dw_times_dw(ph, pl, rh, rl)


def _pow_abs(x, y):
    """Eigen's generic_pow_impl: |x|**y for x >= 0 (finite, nonzero x matter)."""
    m, e = _frexp(x)
    low = m < _SQRT_HALF
    m = np.where(low, _TWO * m, m)
    e = np.where(low, e - _ONE, e)
    rh, rl = _log2_dw(m)
    f1h, f1l = _two_prod(e, y)
    f2h, f2l = _dw_times_f(rh, rl, y)
    fh, fl = _dw_plus_dw(f1h, f1l, f2h, f2l)
    n = _round_half_away(fh)
    r = (fh - n) + fl
    nr = _round_half_away(r)
    r = r - nr
    n = n + nr
    # Eigen's generic_exp2(r): exp(hi) * (1 + lo) for ln2 * r = hi + lo.
    r = np.minimum(np.maximum(r, -1076.0), 1025.0)
    ph, pl = _two_prod(_LN2, r)
    e_r = exp_packets(ph) * (_ONE + pl)
    return ftz(_ldexp(e_r, n))


def _integer_tests(y):
    y_int = (np.floor(y) == y) & ~(np.abs(y) == _INF)
    y_half = y * _HALF
    return y_int, y_int & ~(_round_half_away(y_half) == y_half)


def _packets(x0, y0):
    """Eigen's generic_pow on 1-D float64 x0, y0 (every element a packet lane)."""
    x, y = _daz(x0), _daz(y0)
    ax, ay = np.abs(x), np.abs(y)
    out = _pow_abs(ax, y)
    x_neg = x < _ZERO
    x_zero = x == _ZERO
    y_neg = y < _ZERO
    y_int, y_odd_int = _integer_tests(y)
    out = np.where(x_neg & ~y_int, _NAN, out)
    out = np.where(x_zero, np.where(y_neg, _INF, _ZERO), out)
    out = np.where(np.signbit(x) & y_odd_int, -out, out)
    inf_y = np.where((y_neg & x_zero) | (y_neg ^ (ax > _ONE)), _INF, _ZERO)
    inf_y = np.where(x == -1.0, _ONE, inf_y)
    out = np.where(ay >= _HUGE_Y, inf_y, out)
    at_pos_inf = np.where(y_neg, _ZERO, _INF)
    at_neg_inf = np.where(y_odd_int, -at_pos_inf, at_pos_inf)
    out = np.where(ax == _INF, np.where(x_neg, at_neg_inf, at_pos_inf), out)
    out = np.where(np.isnan(x) | np.isnan(y), _NAN, out)
    return np.where(y == _ONE, x0, np.where((x == _ONE) | (y == _ZERO), _ONE, out))


_C_POW = libm.c_function2("pow", ctypes.c_double)


def _scalar(x, y):
    """The C library's pow (TensorFlow's scalar path) with subnormal results
    written as zero; NumPy's power where no C library loads. The operands
    go in as they are: the C library tests them with integer operations
    (pow of a negative subnormal and a non-integer is NaN in TensorFlow)."""
    if _C_POW is not None:
        out = np.array([_C_POW(a, b) for a, b in zip(x.tolist(), y.tolist())], np.float64)
    else:
        with np.errstate(all="ignore"):
            out = np.power(x, y)
    return ftz(out)


def pow_f64(x, y, loop=None):
    """x**y of float64 arrays (broadcast) with TensorFlow's CPU bits; `loop`
    (jit_pow_f64.pow_f64_packets, which jit_kernels.compiled_first hands in
    once loaded) computes the packets' elements."""
    a, b = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    shape = a.shape
    fa = np.ascontiguousarray(a).reshape(-1)
    fb = np.ascontiguousarray(b).reshape(-1)
    n = fa.size
    head = n - n % PACKET_F64
    out = np.empty(n, np.float64)
    with np.errstate(all="ignore"):
        if loop is not None:
            loop(fa[:head], fb[:head], out[:head])
        else:
            for lo in range(0, head, _CHUNK):
                hi = min(head, lo + _CHUNK)
                out[lo:hi] = _packets(fa[lo:hi], fb[lo:hi])
        if head < n:
            out[head:] = _scalar(fa[head:], fb[head:])
    return out.reshape(shape)
