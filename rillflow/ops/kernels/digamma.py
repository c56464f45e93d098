"""TensorFlow's float32 and float64 digamma, bit for bit.

Eigen has no packet code for digamma: TensorFlow's kernel runs Eigen's
scalar `digamma_impl` (Cephes' psi, modified by Google) on every element,
in the tensor's own precision:

- x <= 0: NaN at the poles (x an integer); else the reflection
  psi(x) = psi(1 - x) - pi / tan(pi z), z = x - floor(x) moved to
  [-1/2, 1/2] by subtracting the nearest integer (0 for z = 1/2);
- psi(x + 1) = psi(x) + 1/x upwards until s >= 10, the 1/s summed in w;
- psi(s) = log(s) - 1/(2s) - z P(z) - w with z = 1/s**2 (P by Horner's
  rule, degree 3 in float32, 6 in float64; 0 beyond 1e8 or 1e17).

log and tan are the C library's (`logf`/`tanf`, `log`/`tan`; for float32
rillflow's reimplementations of glibc's, exp_log.log_scalar and
glibc_scalar.tanf), and every step rounds to the type: each operation here
runs on NumPy arrays of that type, which round exactly as the scalar code.
TensorFlow runs with denormals-are-zero, so a subnormal x reads as 0 (a
pole: NaN). Checked against TensorFlow 2.21 on 30,000 values per type
(tests/test_digamma_bits.py); the float64 path the module had before, for
every type, differed in the last bit for about 60% of float32 inputs.
"""
import math

import numpy as np

from . import exp_log, exp_log_f64, ftz, glibc_scalar

__all__ = ["digamma"]

_A32 = [np.float32(v) for v in (-4.16666666666666666667E-3, 3.96825396825396825397E-3,
                                -8.33333333333333333333E-3, 8.33333333333333333333E-2)]
_A64 = [8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
        -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
        8.33333333333333333333E-2]


def _log64(v):
    return np.array([math.log(t) if t > 0 else (-math.inf if t == 0 else math.nan)
                     for t in v.reshape(-1).tolist()], np.float64).reshape(v.shape)


def _tan64(v):
    return np.array([math.tan(t) for t in v.reshape(-1).tolist()],
                    np.float64).reshape(v.shape)


def digamma(x):
    """Eigen's digamma of a float32 or float64 NumPy array, elementwise (a
    new array of x's shape)."""
    dt = x.dtype
    f = dt.type
    if dt == np.float32:
        x = np.array(ftz.daz(x), np.float32)
        log, tan, coef, big = exp_log.log_scalar, glibc_scalar.tanf, _A32, f(1e8)
    else:
        x = exp_log_f64._daz(x)
        log, tan, coef, big = _log64, _tan64, _A64, 1e17
    zero, one, half = f(0), f(1), f(0.5)
    with np.errstate(all="ignore"):
        negative = x <= zero
        pole = np.zeros(x.shape, bool)
        nz = np.zeros(x.shape, dt)
        if negative.any():
            q = x[negative]
            p = np.floor(q)
            pole[negative] = p == q
            z = q - p
            up = z > half
            p = np.where(up, p + one, p)
            z = np.where(up, q - p, z)
            t = np.asarray(tan(np.asarray(f(math.pi) * z, dt)), dt)
            nz[negative] = np.where(z != half, np.asarray(f(math.pi) / t, dt), zero)
            x[negative] = one - q
        s = x
        w = np.zeros(x.shape, dt)
        while True:                    # at most 11 rounds: s starts above 0
            small = s < f(10)
            if not small.any():
                break
            w = np.where(small, w + one / s, w)
            s = np.where(small, s + one, s)
        z = one / (s * s)
        poly = np.full(x.shape, coef[0], dt)
        for c in coef[1:]:
            poly = poly * z + c
        y = np.where(s < big, z * poly, zero)
        y = ((np.asarray(log(s), dt) - half / s) - y) - w
        y = np.where(negative, y - nz, y)
        y[pole] = np.nan
    return y
