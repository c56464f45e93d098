"""TensorFlow's CPU float32 pow, bit for bit.

TensorFlow's Pow kernel is Eigen's `scalar_pow_op`: whole packets of 8
float32 go through Eigen's `generic_pow`, the last `size % 8` elements (and
0-d tensors) through the C library's powf (`glibc_float.powf` here; for a few
elements `glibc_scalar.powf`, the same code one element at a time).

Eigen's packet pow, in float32 without fused multiply-add (the released x86
wheels are built for AVX without FMA, so every product and sum rounds):

- |x| = m * 2**e with m in [sqrt(1/2), sqrt(2));
- log2(m) as a double word (hi + lo): a degree 8 polynomial in m - 1 whose
  last two Horner steps and the final product by m - 1 are done in double-word
  arithmetic (Dekker products with Veltkamp splitting, "fast two-sum");
- y * (e + log2(m)) as a double word, split into an integer n and a fraction
  r in [-1/2, 1/2] (rounding half away from zero, as Eigen's `pround`);
- 2**r = exp(ln2 * r) with ln2 * r as a double word: Eigen's float exp of the
  high part times (1 + low part), then scaled by 2**n;
- then the special cases (negative bases, signed zeros, infinities, NaN, huge
  exponents, y == 1, x == 1, y == 0) overwrite the result in Eigen's order.

Every operation is an IEEE float32 +, -, *, floor/trunc or a bit operation,
so the bits do not depend on NumPy's SIMD code paths. TensorFlow's threads
flush subnormals (ftz.py): subnormal x and y read as +-0 (x**y is then 0,
inf or 1), except that y == 1 selects x's bits untouched; results below
2**-126 become +-0.
"""
import numpy as np

from . import ftz, glibc_scalar
from .chunked import chunked
from .erf import _exp_f32
from .pow_f64 import pow_f64
from .x86_estimates import packet_then_scalar

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_U32 = np.uint32
_SIGN = _U32(0x80000000)


def _f(*values):
    return [np.float32(v) for v in values]


_ONE, _ZERO, _HALF, _TWO = _f(1.0, 0.0, 0.5, 2.0)
_INF, _NAN = _f(np.inf, np.nan)
_SQRT_HALF = np.float32(0.70710678118654752440)
_BELOW_HALF = np.uint32(0x3EFFFFFF).view(np.float32)    # the float just below 0.5
_LN2 = np.float32(0.693147180559945309417232121458)

# log2(1 + t) / t on [sqrt(1/2) - 1, sqrt(2) - 1]: Eigen's coefficients; the
# two lowest as float32 double words (high part, then the rounded remainder).
_C0 = 1.442695041742110273474963832995854318141937255859375
_C1 = -7.2134751588268664068692714863573201000690460205078125e-01
_C0_HI = np.float32(_C0)
_C0_LO = np.float32(_C0 - float(_C0_HI))
_C1_HI = np.float32(_C1)
_C1_LO = np.float32(_C1 - float(_C1_HI))
_LOG2_C = _f(9.7010828554630279541015625e-02, -1.6896486282348632812500000e-01,
             1.7200836539268493652343750e-01, -1.7892272770404815673828125e-01,
             2.0505344867706298828125000e-01, -2.4046677350997924804687500e-01,
             2.8857553005218505859375000e-01, -3.6067414283752441406250000e-01,
             4.8089790344238281250000000e-01)
# Eigen's threshold for |y| beyond which x**y is 0, 1 or inf: computed in float.
_HUGE_Y = (np.float32(128.0) * _LN2) / np.float32(np.finfo(np.float32).eps)


# --- double-word float32 arithmetic (Eigen's, without FMA) ---------------------------------

def _two_prod(x, y):
    """x * y == hi + lo exactly, hi = fl(x * y). Eigen uses Dekker's product
    (Veltkamp splitting); a float32 product is exact in float64, which gives
    the same pair in far fewer operations wherever Dekker's is exact (every
    lane whose result is not later replaced by a special case)."""
    p = x.astype(np.float64) * y
    hi = p.astype(np.float32)
    return hi, (p - hi).astype(np.float32)


def _fast_two_sum(x, y):
    s = x + y
    return s, y - (s - x)


def _dw_times_f(xh, xl, y):
    """(xh + xl) * y as a double word (Muller's algorithm 7)."""
    ch, cl1 = _two_prod(xh, y)
    cl2 = xl * y
    th, tl1 = _fast_two_sum(ch, cl2)
    return _fast_two_sum(th, tl1 + cl1)


def _dw_plus_dw(xh, xl, yh, yl):
    """(xh + xl) + (yh + yl) for |xh| >= |yh|."""
    rh, rl = _fast_two_sum(xh, yh)
    return _fast_two_sum(rh, (yl + rl) + xl)


def _round_half_away(a):
    # Eigen's AVX pround: add +-(the float below 1/2), truncate toward zero.
    bias = ((a.view(_U32) & _SIGN) | _BELOW_HALF.view(_U32)).view(np.float32)
    return np.trunc(bias + a)


# --- Eigen's generic_pow -------------------------------------------------------------------

def _frexp(a):
    """Eigen's pfrexp_generic for a >= 0: (m in [1/2, 1), e) with a = m * 2**e."""
    denormal = a < np.float32(1.17549435e-38)
    a = np.where(denormal, a * np.float32(2.0 ** 24), a)
    bits = a.view(_U32)
    biased = ((bits >> _U32(23)) & _U32(0xFF)).astype(np.int32)
    m = ((bits & _U32(0x807FFFFF)) | _HALF.view(_U32)).view(np.float32)
    e = biased - np.where(denormal, 150, 126)
    return m, e.astype(np.float32)


def _log2_dw(z):
    """Eigen's accurate_log2<float> on [sqrt(1/2), sqrt(2)): a double word."""
    x = z - _ONE
    p = _LOG2_C[0]
    for c in _LOG2_C[1:]:
        p = p * x + c
    ph, pl = _two_prod(x, p)
    ph, pl = _dw_plus_dw(_C1_HI, _C1_LO, ph, pl)
    ph, pl = _dw_times_f(ph, pl, x)
    ph, pl = _dw_plus_dw(_C0_HI, _C0_LO, ph, pl)
    return _dw_times_f(ph, pl, x)


def _ldexp(a, n):
    """a * 2**n rounded once (Eigen's pldexp for |n| <= 278: exact scalings, one rounding)."""
    e = np.clip(n, -278.0, 278.0).astype(np.int32)
    b = e >> 2
    c = ((b + 127).astype(_U32) << _U32(23)).view(np.float32)
    out = ((a * c) * c) * c
    c = ((e - 3 * b + 127).astype(_U32) << _U32(23)).view(np.float32)
    return out * c


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
    # FTZ: only the last product of _ldexp can round to a subnormal that
    # matters (an earlier one is subnormal only where the result is 0 anyway).
    under = np.fmin.reduce(n, axis=None) < np.float32(-125.0)
    # Eigen's generic_exp2(r): exp(hi) * (1 + lo) with ln2 * r = hi + lo.
    r = np.minimum(np.maximum(r, np.float32(-151.0)), np.float32(129.0))
    ph, pl = _two_prod(_LN2, r)
    e_r = _exp_f32(ph) * (_ONE + pl)
    out = _ldexp(e_r, n)
    return ftz.flush(out) if under else out


def pow_packet(x, y):
    """Eigen's vectorized float32 pow (`generic_pow`) on every element."""
    return chunked(_pow_block, x, y)


def _pow_block(x, y):
    x, y = np.broadcast_arrays(np.asarray(x, np.float32), np.asarray(y, np.float32))
    with np.errstate(all="ignore"):
        x_bits = x
        ax, ay = np.abs(x), np.abs(y)
        if ftz.any_below(ax) or ftz.any_below(ay):
            # DAZ: subnormal operands read as +-0 in every comparison and
            # product (pow(subnormal, -1) is inf, pow(x, subnormal) is 1); only
            # the final y == 1 select hands back x's own bits.
            x, y = ftz.daz(x), ftz.daz(y)
            ax, ay = np.abs(x), np.abs(y)
        base = out = _pow_abs(ax, y)
        # Where x is finite and nonzero, |y| < _HUGE_Y (so not NaN) and neither
        # x == 1 nor y in {0, 1}, Eigen's special cases only change the sign
        # or give NaN for negative x; a cheap test keeps the full cases below
        # to the (rare) lanes that need them.
        plain = (ax < _INF) & (ax > _ZERO) & (ay < _HUGE_Y) & (x != _ONE)
        plain &= (y != _ONE) & (y != _ZERO)
        x_neg = x < _ZERO
        if x_neg.any():
            y_int, y_odd_int = _integer_tests(y)
            out = np.where(x_neg & ~y_int, _NAN, out)
            out = np.where(x_neg & y_odd_int, -out, out)
        if not plain.all():
            rare = ~plain
            out = np.array(out, copy=True)
            out[rare] = _special_cases(x[rare], y[rare], base[rare], x_bits[rare])
    return out


def _integer_tests(y):
    y_int = (np.floor(y) == y) & ~(np.abs(y) == _INF)
    y_half = y * _HALF
    return y_int, y_int & ~(_round_half_away(y_half) == y_half)


def _special_cases(x, y, out, x_bits):
    """Eigen's special cases, in its order, over `out` = |x|**y (x after DAZ,
    x_bits before)."""
    ax = np.abs(x)
    x_neg = x < _ZERO
    x_zero = x == _ZERO
    ay = np.abs(y)
    y_neg = y < _ZERO
    y_int, y_odd_int = _integer_tests(y)
    out = np.where(x_neg & ~y_int, _NAN, out)
    out = np.where(x_zero, np.where(y_neg, _INF, _ZERO), out)
    out = np.where((x.view(np.int32) < 0) & y_odd_int, -out, out)
    inf_y = np.where((y_neg & x_zero) | (y_neg ^ (ax > _ONE)), _INF, _ZERO)
    inf_y = np.where(x == np.float32(-1.0), _ONE, inf_y)
    out = np.where(ay >= _HUGE_Y, inf_y, out)
    at_pos_inf = np.where(y_neg, _ZERO, _INF)
    at_neg_inf = np.where(y_odd_int, -at_pos_inf, at_pos_inf)
    out = np.where(ax == _INF, np.where(x_neg, at_neg_inf, at_pos_inf), out)
    out = np.where(np.isnan(x) | np.isnan(y), _NAN, out)
    return np.where(y == _ONE, x_bits, np.where((x == _ONE) | (y == _ZERO), _ONE, out))


def pow_kernel(x, y):
    """Elementwise x**y with TensorFlow's CPU bits for float64, float32/16 and
    bfloat16 (after broadcasting); None for other dtypes (NumPy's power)."""
    dt = x.dtype
    if dt == _F32 and y.dtype == _F32:
        return packet_then_scalar(pow_packet, glibc_scalar.powf, x, y)
    if dt == _F64 and y.dtype == _F64:
        return pow_f64(x, y)
    if dt == y.dtype and (dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16"):
        # Eigen has no float16/bfloat16 packet for pow: TensorFlow calls
        # glibc's powf on every element (as for atan2, trig.py).
        return chunked(glibc_scalar.powf, x.astype(np.float32), y.astype(np.float32)).astype(dt)
    return None
