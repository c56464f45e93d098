"""TensorFlow's flush-to-zero (FTZ) and denormals-are-zero (DAZ) modes, for
the kernels outside the exp/log family (trig, erf, pow, x86_estimates,
glibc_float, glibc_scalar).

TensorFlow's CPU threads run with both MXCSR flags set, also while they are
in glibc: an SSE/AVX arithmetic instruction (add, multiply, divide, sqrt,
compare, min/max, float conversions) reads a subnormal operand as +-0 and
writes +-0 for a subnormal result. Loads, stores, selects and integer views
of the bits (Eigen's and glibc's bit tricks) see the subnormal as it is. So
each kernel flushes exactly where TensorFlow's instructions would: `daz` on
the operands of arithmetic, `flush` on the results that can underflow, with
a cheap vectorized test first so that inputs without tiny values (almost
all) take the plain path.
"""
import numpy as np

from .exp_log import _flush

TINY = np.float32(2.0 ** -126)      # the smallest normal float32
TINY_F = 2.0 ** -126
_U32 = np.uint32
_EXP = _U32(0x7F800000)
_SIGN = _U32(0x80000000)


def any_below(a, limit=TINY):
    """Whether the nonnegative float32 array `a` (an |x| already computed)
    may hold a value below `limit`: one reduction, no temporary. NaNs are
    ignored unless all are NaN (then True: the careful path is still right)."""
    return a.size > 0 and not (np.fmin.reduce(a, axis=None) >= limit)


def daz(x):
    """x with its subnormals replaced by +-0 (DAZ): x itself when it holds
    none, else a copy. The sign stays: -subnormal reads as -0."""
    x = np.asarray(x, np.float32)
    if x.size < 8:
        # A tail or a 0-d tensor: a Python look costs less than the ufuncs.
        if not any(0.0 < abs(v) < TINY_F for v in x.ravel().tolist()):
            return x
    bits = np.ascontiguousarray(x).view(_U32)
    sub = ((bits & _EXP) == 0) & ((bits & ~_SIGN) != 0)
    if not sub.any():
        return x
    out = np.array(bits, copy=True)
    out[sub] &= _SIGN
    return out.view(np.float32)
    return out


def daz_if_tiny(x, ax):
    """daz(x), after a one-pass test on ax = |x| that skips it for arrays
    without any |x| < 2**-126 (zeros included in the test)."""
    return daz(x) if any_below(ax) else x


def flush(y):
    """FTZ: y's subnormal elements become +-0, in place (y is returned)."""
    return _flush(y)


def flush_scalar(v):
    """FTZ/DAZ for one float32 (a NumPy float32 scalar): +-0 for a subnormal."""
    if 0.0 < abs(v) < TINY_F:
        return np.float32(-0.0) if v < 0 else np.float32(0.0)
    return v
