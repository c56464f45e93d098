"""TensorFlow's CPU float64 erf and erfc, bit for bit (erf.py does float32
and the half types).

Eigen's double versions (`generic_fast_erf<double>`, `generic_fast_erfc<double>`):

- erf(x)/x for x**2 <= 1: an odd [9/10] rational, S(x**2) / T(x**2);
  erf(x) = x S / T there, erfc(x) = 1 - x S / T.
- Above, erfc(x) = exp(-x**2) (1 - lo) R(1/x**2) / x (+ 2 for x < 0), lo the
  rounding error of x**2 by Dekker's product (Veltkamp splitting: the wheel
  has no fused multiply-add, so every multiply-add below rounds twice), exp
  Eigen's pexp_double on packets (exp_log_f64) and the C library's on the
  scalar path; erf(x) = 1 - that.
- erfc clamps x to [-28, 28] first; erf does not, so where x**2 overflows or
  x is infinite the product's error is inf - inf and erf is NaN: TensorFlow
  2.21's erf of +-inf and of |x| > 1.34e154 in float64 is NaN (checked).

As for exp_log_f64: packets of 4 on the whole packets of a tensor, the
scalar path (the same formulas, the C library's exp) on the last `size % 4`
elements and 0-d tensors; TensorFlow's threads flush subnormal operands and
results to zero: the input, and the few steps that can make a subnormal
(see `_erfc_large`), are flushed. Only + - * / and
comparisons on NumPy arrays, which round exactly as IEEE requires on every
CPU. Checked against TensorFlow 2.21: tools/tf_numerics_fixtures_f64.py.
"""
import numpy as np

from . import exp_log_f64 as _f64
from .tanh_kernel import horner

__all__ = ["erf", "erfc"]

# Eigen's coefficients (highest degree first).
_ALPHA = (1.9493725660006057018823477644531294572516344487667083740234375e-04,
          1.8272566210022942682217328425053892715368419885635375976562500e-03,
          4.5303363351690106863856044583371840417385101318359375000000000e-02,
          1.4215015503619179981775744181504705920815467834472656250000000e-01,
          1.1283791670955125585606992899556644260883331298828125000000000e+00)
_BETA = (2.0294484101083099089526257108317963684385176748037338256835938e-05,
         6.8117805899186819641732970609382391558028757572174072265625000e-04,
         1.0582026056098614921752165685120417037978768348693847656250000e-02,
         9.3252603143757495374188692949246615171432495117187500000000000e-02,
         4.5931062818368939559832142549566924571990966796875000000000000e-01,
         1.0)
_GAMMA = (1.5252844933226974316088642158462107545346952974796295166015625e-04,
          1.0909912393738931124520519233556115068495273590087890625000000e-02,
          1.0628604636755033252537572252549580298364162445068359375000000e-01,
          3.3492472973137982217295416376146022230386734008789062500000000e-01,
          4.5065776215933289750026347064704168587923049926757812500000000e-01,
          2.9433039130294824659017649537418037652969360351562500000000000e-01,
          9.8792676360600226170838311645638896152377128601074218750000000e-02,
          1.7095935395503719655962981960328761488199234008789062500000000e-02,
          1.4249109729504577659398023570247460156679153442382812500000000e-03,
          4.4567378313647954771875570045835956989321857690811157226562500e-05)
_DELTA = (2.041985103115789845773520028160419315099716186523437500000000e-03,
          5.316030659946043707142493417450168635696172714233398437500000e-02,
          3.426242193784684864077405563875799998641014099121093750000000e-01,
          8.565637124308049799026321124983951449394226074218750000000000e-01,
          1.000000000000000000000000000000000000000000000000000000000000e+00,
          5.968805280570776972126623149961233139038085937500000000000000e-01,
          1.890922854723317836356244470152887515723705291748046875000000e-01,
          3.152505418656005586885981983868987299501895904541015625000000e-02,
          2.565085751861882583380047861965067568235099315643310546875000e-03,
          7.899362131678837697403017248376499992446042597293853759765625e-05)
_SPLIT = float(2 ** 27 + 1)     # Veltkamp: half of double's 53 digits, plus one
_CLAMP = 28.0


def _z(a):
    """a flushed (TensorFlow's flush-to-zero), in place for arrays."""
    return _f64.ftz(a)


def _erf_over_x_small(x2):
    return horner(x2, _ALPHA) / horner(x2, _BETA)


def _erfc_large(x, x2, exp):
    """Eigen's erfc_double_large: exp(-x^2) R(1/x^2) / x (+ 2 below 0).
    Here |x| > 1, so the halves and the product's error are normal numbers
    (above 2**-110) and a subnormal x**2 never reaches the polynomials'
    sums (a product below the smallest normal adds nothing to a
    coefficient): only exp's result, its product by the error, and the
    result can be subnormal, and are flushed."""
    g = _SPLIT * x                           # Veltkamp's halves of x
    hi = (x - g) + g
    lo = x - hi
    x2_lo = hi * hi - x2                     # Dekker's product, multiply-adds rounded twice
    x2_lo += hi * lo
    x2_lo += lo * hi
    x2_lo += lo * lo
    e = exp(-x2)
    z = _z(e - _z(e * x2_lo))
    r = horner(1.0 / x2, _GAMMA) / (x * horner(1.0 / x2, _DELTA))
    return _z(z * r + np.where(x < 0.0, 2.0, 0.0))


def _erf(x, exp):
    # Below |x| = 1 every intermediate is normal or adds nothing (see
    # _erfc_large), and x S/T of a normal x is normal: only the input is
    # flushed (denormals-are-zero).
    x = _z(np.array(x, np.float64))
    with np.errstate(all="ignore"):
        x2 = x * x
        out = x * _erf_over_x_small(x2)
        large = 1.0 < x2
        if large.any():
            out = np.where(large, 1.0 - _erfc_large(x, x2, exp), out)
    return out


def _erfc(x, exp):
    x = _z(np.array(x, np.float64))
    with np.errstate(all="ignore"):
        x = np.minimum(np.maximum(x, -_CLAMP), _CLAMP)
        x2 = x * x
        out = 1.0 - x * _erf_over_x_small(x2)
        large = 1.0 < x2
        if large.any():
            out = np.where(large, _erfc_large(x, x2, exp), out)
    return out


def _packet_exp(v):
    return _f64.exp_packets(_f64._daz(v))


def _scalar_exp(v):
    """The scalar path's exp: the C library's, flushed."""
    return np.array([_f64.TAILS["exp"](t) for t in v.tolist()], np.float64)


def erf(x):
    """TensorFlow's float64 erf of a NumPy array (or scalar)."""
    return _f64.split(x, lambda v: _erf(v, _packet_exp), "erf",
                      tail=lambda v: _erf(v, _scalar_exp))


def erfc(x):
    """TensorFlow's float64 erfc of a NumPy array (or scalar)."""
    return _f64.split(x, lambda v: _erfc(v, _packet_exp), "erfc",
                      tail=lambda v: _erfc(v, _scalar_exp))

