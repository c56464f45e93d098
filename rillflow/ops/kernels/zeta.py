"""TensorFlow's float32 and float64 Hurwitz zeta and polygamma, bit for bit.

Eigen has no packet code for them: TensorFlow runs Eigen's scalar
`zeta_impl` (Cephes) on every element, in the tensor's own precision:
poles and domain errors first (x == 1: inf; x < 1: NaN; q <= 0: inf or NaN
at the integers, NaN for a non-integer x), then the sum of (q + i)^-x with
the C library's pow for i up to 9 (float64: and on until q + i > 9),
stopping early once a term is below machep of the sum, the sum itself if
the last term was 0, else the Euler-Maclaurin correction with 12 Bernoulli
terms, each stopping early the same way. (float32's nine terms from a
negative q leave the correction far from its range: zeta(3, -7.75) is
-2908.48 in float32, 62.02 in float64, in TensorFlow as here.) polygamma(n, x) is
digamma for n = 0, else (-1)^(n+1) exp(lgamma(n + 1)) zeta(n + 1, x).
TensorFlow's threads flush subnormal results to zero, which matters for
tiny sums: every operation here is flushed as its would be.

For q so far below zero that the first sum would take more than a million
terms (TensorFlow's own loop then takes that long, and never ends once
q + 1 == q), the float64 evaluation rillflow had before runs instead
(special_math_ops._zeta64: Euler-Maclaurin after a reflection).

Under the jit extra the scalar algorithm is compiled (Numba's math.pow is
the C library's pow/powf); without it each element runs in Python with the
C library's pow through ctypes (libm.py), about 30 us an element.
"""
import math

import numpy as np

from . import jit_kernels as _jk

__all__ = ["zeta", "MAX_TERMS"]

# Bernoulli coefficients of the Euler-Maclaurin correction (Cephes' A).
_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
      7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
      -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _load():
    from . import jit_zeta
    for dt, fn in jit_zeta.LOOPS.items():     # compiles, or loads the cache
        fn(np.ones(2, dt) * 2, np.ones(2, dt), np.empty(2, dt), np.array(_A, dt), -1e6)
    return jit_zeta.LOOPS


LOAD = _jk.BackgroundLoad("rillflow-jit-load-zeta", _load, "the zeta loops")

# Above this many terms of the first sum (q < 9 - MAX_TERMS) the float64
# evaluation runs (see the module docstring).
MAX_TERMS = 1_000_000


def _scalar(x, q, f, pw, tiny, machep):
    """Eigen's zeta_impl of one element, every operation rounded to the
    type by `f` and flushed below `tiny`; `pw` is the C library's pow."""
    def r(v):
        v = f(v)
        return v * f(0) if abs(v) < tiny else v
    zero, half, one = f(0), f(0.5), f(1)
    if x == one:
        return f(math.inf)
    if x < one:
        return f(math.nan)
    if q <= zero:
        if q == math.floor(q):
            return f(math.inf) if x == math.floor(x) and int(x) % 2 == 0 else f(math.nan)
        if x != math.floor(x):
            return f(math.nan)
    s = r(pw(q, -x))
    a, i, b = q, 0, zero
    double = f is np.float64
    while i < 9 or double and a <= f(9):
        i += 1
        a = r(a + one)
        b = r(pw(a, -x))
        s = r(s + b)
        if abs(r(b / s)) < machep:
            return s
    if b == zero:                # the tail would be 0 (or NaN from an inf a)
        return s
    w = a
    s = r(s + r(r(b * w) / r(x - one)))
    s = r(s - r(half * b))
    a, k = one, zero
    for c in _A:
        a = r(a * r(x + k))
        b = r(b / w)
        t = r(r(a * b) / f(c))
        s = r(s + t)
        if abs(r(t / s)) < machep:
            return s
        k = r(k + one)
        a = r(a * r(x + k))
        b = r(b / w)
        k = r(k + one)
    return s


_TYPES = {np.dtype(np.float32): (np.float32, 2.0 ** -126, 2.0 ** -24),
          np.dtype(np.float64): (np.float64, 2.0 ** -1022, 2.0 ** -53)}


def zeta(x, q, fallback):
    """Eigen's zeta of float32 or float64 NumPy arrays x and q (broadcast),
    elementwise; `fallback(x, q)` computes the elements whose q is too far
    below zero (a float64 evaluation)."""
    dt = np.result_type(x, q)
    xs, qs = np.broadcast_arrays(np.asarray(x, dt), np.asarray(q, dt))
    out = np.empty(xs.shape, dt)
    far = qs < 9.0 - MAX_TERMS
    loops = LOAD.get(xs.size)
    loop = None if loops is None else loops[np.dtype(dt)]
    if loop is not None:
        loop(np.ascontiguousarray(xs).reshape(-1), np.ascontiguousarray(qs).reshape(-1),
             out.reshape(-1), np.array(_A, dt), 9.0 - MAX_TERMS)
    else:
        f, tiny, machep = _TYPES[np.dtype(dt)]
        pw = _pow(dt)
        flat = out.reshape(-1)
        for i, (a, b) in enumerate(zip(xs.reshape(-1).tolist(), qs.reshape(-1).tolist())):
            if not b < 9.0 - MAX_TERMS:
                with np.errstate(all="ignore"):
                    flat[i] = _scalar(f(a), f(b), f, pw, tiny, machep)
    if far.any():
        out[far] = np.asarray(fallback(xs[far], qs[far]), dt)
    return out


def _pow(dt):
    """The C library's pow (float64) or powf (float32) on two scalars."""
    if np.dtype(dt) == np.float64:
        def pw(a, b):
            try:
                return np.float64(math.pow(a, b))
            except (OverflowError, ValueError):
                return np.float64(np.power(np.float64(a), np.float64(b)))
        return pw
    from . import libm
    fn = libm.c_function2("powf")
    if fn is None:      # no C library: NumPy's (not always powf's bits)
        return lambda a, b: np.power(np.float32(a), np.float32(b))
    return lambda a, b: np.float32(fn(float(a), float(b)))
