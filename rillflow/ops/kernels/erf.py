"""TensorFlow's CPU erf and erfc, bit for bit.

TensorFlow evaluates both with Eigen's float32 approximations (float16 and
bfloat16 through float32):

- erf: an odd [11/10] rational in x (numerator and denominator in x**2, x**2
  clamped to 16, where erf is 1 in float32), clamped to [-1, 1]. The same code
  runs on packets and on single elements.
- erfc: 1 + x * P(x**2) for |x| <= 1; above, exp(-x**2) * R(1/x**2) / x with
  exp(-x**2) corrected for the rounding error of x**2 (Dekker's product:
  Veltkamp splitting, no fused multiply-add) and x clamped to +-11. On packets
  exp is Eigen's Cody-Waite reduction + degree 6 polynomial and 1/x**2 the
  `rcpps` estimate + a Newton step; the last `size % 8` elements call glibc's
  expf (`glibc_float.expf`) and divide instead.

Only IEEE float32 +, -, *, /, floor and bit operations: the bits do not
depend on NumPy's SIMD code paths. float64 has Eigen's own double versions
(erf_f64.py). TensorFlow's threads
flush subnormals (ftz.py): erf of a subnormal is +-0 (x reads as zero in
x * P), and erfc's exp(-x**2) and result flush to zero from x ~ 9.2.
"""
import numpy as np

from . import ftz, glibc_scalar, x86_estimates
from .chunked import chunked
from .tanh_kernel import horner
from .x86_estimates import packet_then_scalar

_F32 = np.dtype(np.float32)


def _f(*values):
    return [np.float32(v) for v in values]


# --- erf -----------------------------------------------------------------------------------

_ERF_P = _f(2.123732201653183437883853912353515625e-06, 2.861979592125862836837768554687500000e-04,
            3.658048342913389205932617187500000000e-03, 5.243302136659622192382812500000000000e-02,
            1.874160766601562500000000000000000000e-01, 1.128379106521606445312500000000000000e+00)
_ERF_Q = _f(3.89185734093189239501953125000e-05, 1.14329601638019084930419921875e-03,
            1.47520881146192550659179687500e-02, 1.12945675849914550781250000000e-01,
            4.99425798654556274414062500000e-01, 1.0)
_SIXTEEN, _ONE, _MINUS_ONE, _TWO, _ZERO = _f(16.0, 1.0, -1.0, 2.0, 0.0)


def _erf_f32(x):
    with np.errstate(all="ignore"):
        x2 = x * x
        if ftz.any_below(x2):
            # Some |x| < 2**-63 (or zero): DAZ makes a subnormal x read as
            # +-0 in x * P below, so erf is +-0 there. (x * x itself flushes
            # to 0 for |x| < 2**-63, which the constant terms swamp anyway.)
            x = ftz.daz(x)
            x2 = x * x
        x2 = np.minimum(_SIXTEEN, x2)
        p = x * horner(x2, _ERF_P)
        q = horner(x2, _ERF_Q)
        return np.maximum(np.minimum(p / q, _ONE), _MINUS_ONE)


# --- exp (Eigen's pexp_float) --------------------------------------------------------------

_EXP_HI, _EXP_LO, _LOG2E, _HALF = _f(88.723, -104.0, 1.44269504088896341, 0.5)
_LN2_HI, _LN2_LO = _f(-0.693359375, 2.12194440e-4)
_EXP_P = _f(0.49999988079071044921875, 0.16666518151760101318359375,
            4.166965186595916748046875e-2, 8.36894474923610687255859375e-3,
            1.37449637986719608306884765625e-3)
_TWO_64, _TWO_M64 = _f(2.0 ** 64, 2.0 ** -64)


def _exp_f32(x_in):
    """Eigen's float32 exp, for the arguments erfc gives it (-121 <= x <= -1)."""
    x = np.minimum(x_in, _EXP_HI)
    m = np.floor(x * _LOG2E + _HALF)
    r = m * _LN2_HI + x
    r = m * _LN2_LO + r
    r2 = r * r
    p2, p3, p4, p5, p6 = _EXP_P
    p_even = r2 * p6 + p4
    p_odd = r2 * p5 + p3
    p_even = r2 * p_even + p2
    y = r * p_odd + p_even
    y = r2 * y + (r + _ONE)
    # y * 2**m in two exact steps: scaling by 2**(m + 64) stays normal, the
    # second product rounds once, as Eigen's pldexp does for tiny results.
    k = np.clip(m, -190.0, 127.0).astype(np.int32)
    big = k > 60
    k1 = np.where(big, k, k + 64)
    scale1 = ((k1 + 127).astype(np.uint32) << np.uint32(23)).view(np.float32)
    y = y * scale1
    y = np.where(big, y, y * _TWO_M64)
    y = np.maximum(y, x_in)
    return np.where(x_in < _EXP_LO, _ZERO, y)


# --- erfc ----------------------------------------------------------------------------------

_ERFC_CLAMP = np.float32(11.0)
_ERFC_SMALL = _f(5.61802298761904239654541015625e-04, -4.91381669417023658752441406250e-03,
                 2.67075151205062866210937500000e-02, -1.12800106406211853027343750000e-01,
                 3.76122951507568359375000000000e-01, -1.12837910652160644531250000000e+00)
_ERFC_NUM = _f(1.0208116471767425537109375e-01, 4.2920666933059692382812500e-01,
               3.2379078865051269531250000e-01, 5.3971976041793823242187500e-02)
_ERFC_DEN = _f(1.7251677811145782470703125e-02, 3.9137163758277893066406250e-01,
               1.0000000000000000000000000e+00, 6.2173241376876831054687500e-01,
               9.5662862062454223632812500e-02)
_FLT_MIN = np.float32(1.1754944e-38)
_UNDER_X2 = np.float32(84.0)   # below any x**2 whose erfc underflows (84.5)
_SPLIT = np.float32(4097.0)   # 2**12 + 1: Veltkamp splitting of a 24-bit significand


def _square_low(x, x2):
    """The rounding error x*x - fl(x*x), exactly (Dekker, without FMA)."""
    gamma = _SPLIT * x
    hi = (x - gamma) + gamma
    lo = x - hi
    e = hi * hi + (-x2)
    e = hi * lo + e
    e = lo * hi + e
    return lo * lo + e


def _erfc_f32(x_in, exp, reciprocal):
    with np.errstate(all="ignore"):
        x = np.minimum(np.maximum(x_in, -_ERFC_CLAMP), _ERFC_CLAMP)
        x2 = x * x
        small = x * horner(x2, _ERFC_SMALL) + _ONE
        large_mask = _ONE < x2
        if not large_mask.any():
            return small
        e = exp(-x2)
        t = e * _square_low(x, x2)
        # TensorFlow's threads flush subnormal results to zero; this one shows
        # in normal outputs near x = 9.
        t = np.where(np.abs(t) < _FLT_MIN, _ZERO, t)
        z = e - t
        q2 = reciprocal(x2)
        r = horner(q2, _ERFC_NUM) / (x * horner(q2, _ERFC_DEN))
        large = z * r + np.where(x < _ZERO, _TWO, _ZERO)
        out = np.where(large_mask, large, small)
        # FTZ: erfc is subnormal from x ~ 9.19 (x**2 ~ 84.5) on, and 0 in
        # TensorFlow. Its exp(-x**2), subnormal from x ~ 9.34, is flushed
        # there too, but that changes nothing else: its product with r is
        # subnormal either way, and 2 + tiny is 2 for negative x. erfc is
        # never negative, so subnormal results are the values in (0, 2**-126).
        if np.fmax.reduce(x2, axis=None) > _UNDER_X2:
            out[out < _FLT_MIN] = _ZERO
        return out


def _erfc_packet(x):
    # Cache-sized blocks: the passes stay in L2 (chunked.py).
    return chunked(_erfc_f32, x, exp=_exp_f32, reciprocal=x86_estimates.reciprocal)


def _erf_packet(x):
    return chunked(_erf_f32, x)


def _exp_scalar(x):
    return glibc_scalar.expf(x)


def _erfc_scalar(x):
    with np.errstate(all="ignore"):
        return _erfc_f32(x, _exp_scalar, lambda a: _ONE / a)


def _kernel(packet, scalar, fallback):
    def kernel(x):
        dt = x.dtype
        if dt == _F32:
            return packet_then_scalar(packet, scalar, x)
        if dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16":
            return packet_then_scalar(packet, scalar, x.astype(np.float32)).astype(dt)
        return fallback(x)
    return kernel


def erf_kernel(x, fallback=None):
    """Elementwise erf with TensorFlow's CPU bits for float32/16 and bfloat16;
    other dtypes go to `fallback`."""
    return _kernel(_erf_packet, _erf_f32, fallback)(x)


def erfc_kernel(x, fallback=None):
    """Elementwise erfc with TensorFlow's CPU bits for float32/16 and bfloat16;
    other dtypes go to `fallback`."""
    return _kernel(_erfc_packet, _erfc_scalar, fallback)(x)
