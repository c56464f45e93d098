"""TensorFlow's float32 and float64 igamma and igammac, bit for bit.

Eigen has no packet code for them: TensorFlow runs Eigen's scalar Cephes
code on every element, in the tensor's own precision:

- NaN for x < 0, a <= 0 or a NaN operand; igamma(a, 0) = 0;
- the leading factor ax = exp(a log x - x - lgamma(a)) with the C library's
  log, exp and lgamma (0 where its log is below -log(largest value), or NaN);
- igamma by the power series (ans = 1 + sum of c *= x / (a + i), stopping
  once c <= machep * ans, at most 2000 terms) times ax / a, unless x > 1 and
  x > a, where it is 1 - igammac;
- igammac by the continued fraction (pk / qk with the recurrences in
  y = 1 - a + i, z = x + y + 1 + 2i, rescaled by machep when |pk| passes
  1/machep, stopping once two quotients agree within machep) times ax,
  unless x < 1 or x < a, where it is 1 - igamma's series; 0 for x = inf.

TensorFlow's threads flush subnormal results to zero: every step here is
flushed as its would be. Checked against TensorFlow 2.21 on 2,000 pairs per
type (tests/test_digamma_bits.py); the float64 evaluation it replaces
differed in the last bit for 30-90% of them. Compiled under the jit extra
(Numba's math.log, math.exp and math.lgamma are the C library's logf/log,
expf/exp, lgammaf/lgamma); without it each element runs in Python with the
C library through ctypes.
"""
import functools
import math

import numpy as np

from . import jit_kernels as _jk
from . import libm

__all__ = ["igamma", "igammac", "igamma_der_a", "ITERATIONS"]

ITERATIONS = 2000


@functools.lru_cache(maxsize=None)
def _functions(dt):
    """(f, log, exp, lgamma) of the type: rounding-and-flushing, and the C
    library's functions on its scalars."""
    _, f, (log, exp, lgamma), _ = libm.scalar_kit(dt == np.float32, ("log", "exp", "lgamma"))
    return f, log, exp, lgamma


@functools.lru_cache(maxsize=None)
def _constants(dt):
    """(the scalar type, 0, 1, 2, machep, big, biginv, -log(max)): Cephes'
    constants in Eigen's igamma for the type."""
    f, log, _, _ = _functions(dt)
    f0, _, _, (machep, big, biginv) = libm.scalar_kit(dt == np.float32, ())
    return f0, f0(0), f0(1), f0(2), machep, big, biginv, f(-log(f0(np.finfo(dt).max)))


def _scalar(kind, a, x, dt):
    """Eigen's igamma (kind 0) or igammac (kind 1) of one element."""
    f, log, exp, lgamma = _functions(np.dtype(dt))
    f0, zero, one, two, machep, big, biginv, neglogmax = _constants(np.dtype(dt))
    a, x = f0(a), f0(x)
    if kind == 0 and x == zero:
        return zero
    if x < zero or a <= zero or math.isnan(a) or math.isnan(x):
        return f0(math.nan)

    def main_term():
        logax = f(f(f(a * log(x)) - x) - lgamma(a))
        if logax < neglogmax or math.isnan(logax):
            return zero
        return exp(logax)

    def series():
        ax = main_term()
        if ax == zero:
            return zero
        ax = f(ax / a)
        r, c, ans = a, one, one
        for _ in range(ITERATIONS):
            r = f(r + one)
            c = f(c * f(x / r))
            ans = f(ans + c)
            if c <= f(machep * ans):
                break
        return f(ans * ax)

    def continued_fraction():
        if math.isinf(x):
            return zero
        ax = main_term()
        if ax == zero:
            return zero
        y = f(one - a)
        z = f(f(x + y) + one)
        c = zero
        pkm2, qkm2, pkm1, qkm1 = one, x, f(x + one), f(z * x)
        ans = f(pkm1 / qkm1)
        for _ in range(ITERATIONS):
            c, y, z = f(c + one), f(y + one), f(z + two)
            yc = f(y * c)
            pk = f(f(pkm1 * z) - f(pkm2 * yc))
            qk = f(f(qkm1 * z) - f(qkm2 * yc))
            if qk != zero:
                prev, ans = ans, f(pk / qk)
                if abs(f(prev - ans)) <= f(machep * abs(ans)):
                    break
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            if abs(pk) > big:
                pkm2, pkm1 = f(pkm2 * biginv), f(pkm1 * biginv)
                qkm2, qkm1 = f(qkm2 * biginv), f(qkm1 * biginv)
        return f(ans * ax)

    if kind == 0:
        return f(one - continued_fraction()) if x > one and x > a else series()
    return f(one - series()) if x < one or x < a else continued_fraction()


def _digamma1(v, dt):
    from .digamma import digamma
    return digamma(np.array([v], dt))[0]


def _derivative(a, x, dt):
    """Eigen's igamma_der_a of one element: d/da igamma(a, x) by forward
    differentiation of the series or the continued fraction (at most 200
    terms in float32, 500 in float64, stopping once the derivative's terms
    settle within machep), the leading factor's derivative through
    log x - digamma(a) (or digamma(a + 1) for the series)."""
    f, log, exp, lgamma = _functions(np.dtype(dt))
    f0, zero, one, two, machep, big, biginv, neglogmax = _constants(np.dtype(dt))
    iterations = 200 if dt == np.float32 else 500
    a, x = f0(a), f0(x)
    if x == zero:
        return zero
    if x < zero or a <= zero or math.isnan(a) or math.isnan(x):
        return f0(math.nan)
    logax = f(f(f(a * log(x)) - x) - lgamma(a))
    ax = zero if logax < neglogmax or math.isnan(logax) else exp(logax)
    if x > one and x > a:
        if math.isinf(x) or ax == zero:
            return -zero         # -(igammac's 0)
        y = f(one - a)
        z = f(f(x + y) + one)
        c = zero
        pkm2, qkm2, pkm1, qkm1 = one, x, f(x + one), f(z * x)
        ans = f(pkm1 / qkm1)
        dpkm2, dqkm2, dpkm1, dqkm1 = zero, zero, zero, -x
        dans = f(f(dpkm1 - f(ans * dqkm1)) / qkm1)
        for _ in range(iterations):
            c, y, z = f(c + one), f(y + one), f(z + two)
            yc = f(y * c)
            pk = f(f(pkm1 * z) - f(pkm2 * yc))
            qk = f(f(qkm1 * z) - f(qkm2 * yc))
            dpk = f(f(f(f(dpkm1 * z) - pkm1) - f(dpkm2 * yc)) + f(pkm2 * c))
            dqk = f(f(f(f(dqkm1 * z) - qkm1) - f(dqkm2 * yc)) + f(qkm2 * c))
            if qk != zero:
                ans = f(pk / qk)
                prev, dans = dans, f(f(dpk - f(ans * dqk)) / qk)
                if abs(f(dans - prev)) <= machep:
                    break
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            dpkm2, dpkm1, dqkm2, dqkm1 = dpkm1, dpk, dqkm1, dqk
            if abs(pk) > big:
                pkm2, pkm1, qkm2, qkm1 = (f(v * biginv) for v in (pkm2, pkm1, qkm2, qkm1))
                dpkm2, dpkm1, dqkm2, dqkm1 = (f(v * biginv) for v in (dpkm2, dpkm1, dqkm2, dqkm1))
        dlogax = f(log(x) - _digamma1(a, dt))
        return -f(f(ans * f(ax * dlogax)) + f(dans * ax))
    if ax == zero:
        return zero
    ax = f(ax / a)
    r, cc, ans, dc, dans = a, one, one, zero, zero
    for _ in range(iterations):
        r = f(r + one)
        term = f(x / r)
        dterm = f(-x / f(r * r))
        dc = f(f(term * dc) + f(dterm * cc))
        dans = f(dans + dc)
        cc = f(cc * term)
        ans = f(ans + cc)
        if abs(dc) <= f(machep * abs(dans)):
            break
    dlogax = f(log(x) - _digamma1(f(a + one), dt))
    return f(f(ans * f(ax * dlogax)) + f(dans * ax))


def igamma_der_a(a, x):
    """Eigen's igamma_der_a (TensorFlow's IgammaGradA) of float32 or float64
    arrays a and x (broadcast), one element at a time in Python."""
    dt = np.result_type(a, x)
    av, xv = np.broadcast_arrays(np.asarray(a, dt), np.asarray(x, dt))
    out = np.empty(av.shape, dt)
    flat = out.reshape(-1)
    with np.errstate(all="ignore"):
        for i, (p, q) in enumerate(zip(av.reshape(-1).tolist(), xv.reshape(-1).tolist())):
            flat[i] = _derivative(p, q, dt)
    return out


def constants(dt):
    """The compiled loops' constants in the type: smallest normal, machep,
    big, biginv, -log(largest), 0, 1, 2 (TensorFlow's cephes_helper)."""
    dt = np.dtype(dt)
    f, log, _, _ = _functions(dt)
    eps = np.finfo(dt).eps
    machep = f(eps / 2)
    big = f(1 / machep) if dt == np.float32 else f(1 / eps)
    biginv = machep if dt == np.float32 else f(eps)
    return np.array([np.finfo(dt).tiny, machep, big, biginv, f(-log(np.finfo(dt).max)),
                     0, 1, 2], dt)


def _load():
    from . import jit_igamma
    for fn in jit_igamma.LOOPS:               # compiles, or loads the cache
        for dt in (np.float32, np.float64):
            fn(np.ones(2, dt), np.ones(2, dt) * 2, np.empty(2, dt), constants(dt), ITERATIONS)
    return jit_igamma.LOOPS


LOAD = _jk.BackgroundLoad("rillflow-jit-load-igamma", _load, "the igamma loops")


def _run(kind, a, x):
    dt = np.result_type(a, x)
    av, xv = np.broadcast_arrays(np.asarray(a, dt), np.asarray(x, dt))
    out = np.empty(av.shape, dt)
    loops = LOAD.get(av.size)
    if loops is not None:
        loops[kind](np.ascontiguousarray(av).reshape(-1), np.ascontiguousarray(xv).reshape(-1),
                    out.reshape(-1), constants(dt), ITERATIONS)
        return out
    flat = out.reshape(-1)
    with np.errstate(all="ignore"):
        for i, (p, q) in enumerate(zip(av.reshape(-1).tolist(), xv.reshape(-1).tolist())):
            flat[i] = _scalar(kind, p, q, dt)
    return out


def igamma(a, x):
    """Eigen's igamma of float32 or float64 arrays a and x (broadcast)."""
    return _run(0, a, x)


def igammac(a, x):
    """Eigen's igammac of float32 or float64 arrays a and x (broadcast)."""
    return _run(1, a, x)
