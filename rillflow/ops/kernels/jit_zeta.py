"""zeta.py's scalar algorithm compiled by Numba, per dtype: the same
operations in the same order, each rounded to the type and flushed below
its smallest normal value, Numba's math.pow being the C library's pow and
powf. The caller passes the Bernoulli coefficients (in the type) and the
q below which elements are left to it. Imported only by zeta.py's loader
thread."""
import math

import numba
import numpy as np


def _make(ftype, tiny, machep, double):
    @numba.njit(cache=False, nogil=True, inline="always")
    def r(v):
        v = ftype(v)
        return v * ftype(0) if abs(v) < tiny else v

    @numba.njit(cache=False, nogil=True, inline="always")
    def one_zeta(x, q, coef):
        zero, half, one = ftype(0), ftype(0.5), ftype(1)
        if x == one:
            return ftype(np.inf)
        if x < one:
            return ftype(np.nan)
        if q <= zero:
            if q == math.floor(q):
                if x == math.floor(x) and int(x) % 2 == 0:
                    return ftype(np.inf)
                return ftype(np.nan)
            if x != math.floor(x):
                return ftype(np.nan)
        s = r(math.pow(q, -x))
        a = q
        i = 0
        b = zero
        while i < 9 or double and a <= ftype(9):
            i += 1
            a = r(a + one)
            b = r(math.pow(a, -x))
            s = r(s + b)
            if abs(r(b / s)) < machep:
                return s
        if b == zero:
            return s
        w = a
        s = r(s + r(r(b * w) / r(x - one)))
        s = r(s - r(half * b))
        a = one
        k = zero
        for j in range(coef.size):
            a = r(a * r(x + k))
            b = r(b / w)
            t = r(r(a * b) / coef[j])
            s = r(s + t)
            if abs(r(t / s)) < machep:
                return s
            k = r(k + one)
            a = r(a * r(x + k))
            b = r(b / w)
            k = r(k + one)
        return s
    return one_zeta


_zeta32 = _make(np.float32, np.float32(2.0 ** -126), np.float32(2.0 ** -24), False)
_zeta64 = _make(np.float64, 2.0 ** -1022, 2.0 ** -53, True)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def zeta_f32(x, q, out, coef, far):
    """out[i] = zeta.py's algorithm on float32 x[i], q[i] (1-D), but for q
    below `far`."""
    for i in range(x.size):
        if not q[i] < far:
            out[i] = _zeta32(x[i], q[i], coef)


@numba.njit(cache=True, nogil=True, error_model="numpy")
def zeta_f64(x, q, out, coef, far):
    """out[i] = zeta.py's algorithm on float64 x[i], q[i] (1-D), but for q
    below `far`."""
    for i in range(x.size):
        if not q[i] < far:
            out[i] = _zeta64(x[i], q[i], coef)


LOOPS = {np.dtype(np.float32): zeta_f32, np.dtype(np.float64): zeta_f64}
