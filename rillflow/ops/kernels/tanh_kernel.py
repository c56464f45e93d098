"""TensorFlow's CPU tanh, bit for bit.

TensorFlow's CPU kernel does not compute a correctly rounded tanh: for
float32 and float64 it evaluates a rational approximation, an odd numerator
over an even denominator in x**2, on the input clamped to the point where the
approximation first reaches exactly +-1, one rounded operation at a time by
Horner's rule (no fused multiply-add in the released wheels); float16 and
bfloat16 go through the float32 approximation. NumPy's tanh differs from it
in the last bit for a good share of inputs, which users see in every printed
RNN state. Running the same operations in the same order gives identical
bits, checked against TensorFlow 2.21 on millions of inputs (tests hold a
sample).

TensorFlow reads subnormal inputs as zero (its threads' denormals-are-zero
mode): their tanh, the input itself in the arithmetic here, is written as
+-0 (a subnormal result comes from nothing else).
"""
import numpy as np

from . import exp_log_f64 as _f64
from .exp_log import _flush

try:  # the ufunc behind np.clip: one call instead of np.clip's Python wrapper
    from numpy._core.umath import clip as _clip
except ImportError:  # NumPy < 2
    try:
        from numpy.core.umath import clip as _clip
    except ImportError:
        def _clip(x, lo, hi):
            return np.maximum(np.minimum(x, hi), lo)


def _constants(dtype, *values):
    # 0-d arrays of the working dtype keep every operation in that dtype
    # (also for 0-d inputs under NumPy 1's value-based casting) and are the
    # quickest second operand for a ufunc.
    return [np.array(v, dtype) for v in values]


# TensorFlow 2.21's float32 kernel: clamp, numerator x + x**3 * P(x**2) with
# P = A0 x**6 + A1 x**4 + A2 x**2 + A3, denominator Q(x**2) of degree 4.
_F32_HI, _F32_LO = _constants(np.float32, 7.90738964080810547, -7.90738964080810547)
_A0, _A1, _A2, _A3 = _constants(
    np.float32, 1.394553628e-8, 2.102733560e-5, 3.520756727e-3, 1.340216100e-1)
_B0, _B1, _B2, _B3, _B4 = _constants(
    np.float32, 8.015776984e-7, 3.326951409e-4, 2.597254514e-2, 4.673548340e-1, 1.0)


def _tanh_f32(x):
    # Written out rather than looped: this runs every step of a float32 RNN.
    x = _clip(x, _F32_LO, _F32_HI)
    x2 = x * x
    p = x2 * _A0
    p += _A1
    p *= x2
    p += _A2
    p *= x2
    p += _A3
    q = x2 * _B0
    q += _B1
    q *= x2
    q += _B2
    q *= x2
    q += _B3
    q *= x2
    q += _B4
    x2 *= x  # now x**3
    p *= x2
    p += x
    p /= q
    return _flush(p)


# The float64 kernel: the same scheme with degree 8 polynomials in x**2.
_F64_HI, _F64_LO = _constants(np.float64, 17.714196154005176, -17.714196154005176)
_F64_P = _constants(
    np.float64, 2.6158007860482230e-23, 7.6534862268749319e-19, 3.1309488231386680e-15,
    4.2303918148209176e-12, 2.4618379131293676e-09, 6.8644367682497074e-07,
    9.3839087674268880e-05, 5.9809711724441161e-03, 1.5184719640284322e-01)
_F64_Q = _constants(
    np.float64, 6.463747022670968018e-21, 5.782506856739003571e-17, 1.293019623712687916e-13,
    1.123643448069621992e-10, 4.492975677839633985e-08, 8.785185266237658698e-06,
    8.295161192716231542e-04, 3.437448108450402717e-02, 4.851805297361760360e-01, 1.0)


def horner(x2, coefficients):
    """Eigen's ppolevl without fused multiply-add: ((c0 x2 + c1) x2 + ...) +
    c_last, each multiply and each add rounded (erf.py, libm_kernels.py
    evaluate theirs here too)."""
    acc = x2 * coefficients[0]
    for c in coefficients[1:-1]:
        acc += c
        acc *= x2
    acc += coefficients[-1]
    return acc


def _tanh_f64(x):
    x = _clip(x, _F64_LO, _F64_HI)
    x2 = x * x
    p = horner(x2, _F64_P)
    q = horner(x2, _F64_Q)
    x2 *= x
    p *= x2
    p += x
    p /= q
    return _f64.ftz(p)


_F32_DTYPE = np.dtype(np.float32)
_F64_DTYPE = np.dtype(np.float64)


def tanh_kernel(x):
    """Elementwise tanh of a NumPy array (or scalar) with TensorFlow's bits."""
    dt = x.dtype
    if dt is _F32_DTYPE or dt == _F32_DTYPE:
        return _tanh_f32(x)
    if dt == _F64_DTYPE:
        # Eigen's packets of 4 by the formula, the last size % 4 elements by
        # the C library's tanh (Eigen has no scalar float64 tanh of its own).
        return _f64.split(x, _tanh_f64, "tanh")
    if dt.kind == "f" or dt.name == "bfloat16":
        return _tanh_f32(x.astype(np.float32)).astype(dt)
    return np.tanh(x)  # complex
