"""igamma.py's scalar algorithm compiled by Numba (one loop per function,
compiled per dtype): the same operations in the same order, each flushed
below the type's smallest normal value; Numba's math.log, math.exp and
math.lgamma are the C library's. `k` holds the type's constants
(igamma.constants). Imported only by igamma.py's loader thread."""
import math

import numba


@numba.njit(cache=True, nogil=True, inline="always")
def _r(v, k):
    return v * k[5] if abs(v) < k[0] else v


@numba.njit(cache=True, nogil=True)
def _main(a, x, k):
    logax = _r(_r(_r(a * _r(math.log(x), k), k) - x, k) - _r(math.lgamma(a), k), k)
    if logax < k[4] or logax != logax:
        return k[5]
    return _r(math.exp(logax), k)


@numba.njit(cache=True, nogil=True)
def _series(a, x, k, iterations):
    ax = _main(a, x, k)
    if ax == k[5]:
        return k[5]
    ax = _r(ax / a, k)
    r, c, ans = a, k[6], k[6]
    for _ in range(iterations):
        r = _r(r + k[6], k)
        c = _r(c * _r(x / r, k), k)
        ans = _r(ans + c, k)
        if c <= _r(k[1] * ans, k):
            break
    return _r(ans * ax, k)


@numba.njit(cache=True, nogil=True)
def _continued_fraction(a, x, k, iterations):
    if math.isinf(x):
        return k[5]
    ax = _main(a, x, k)
    if ax == k[5]:
        return k[5]
    one, two = k[6], k[7]
    y = _r(one - a, k)
    z = _r(_r(x + y, k) + one, k)
    c = k[5]
    pkm2, qkm2, pkm1, qkm1 = one, x, _r(x + one, k), _r(z * x, k)
    ans = _r(pkm1 / qkm1, k)
    for _ in range(iterations):
        c = _r(c + one, k)
        y = _r(y + one, k)
        z = _r(z + two, k)
        yc = _r(y * c, k)
        pk = _r(_r(pkm1 * z, k) - _r(pkm2 * yc, k), k)
        qk = _r(_r(qkm1 * z, k) - _r(qkm2 * yc, k), k)
        if qk != k[5]:
            prev = ans
            ans = _r(pk / qk, k)
            if abs(_r(prev - ans, k)) <= _r(k[1] * abs(ans), k):
                break
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        if abs(pk) > k[2]:
            pkm2 = _r(pkm2 * k[3], k)
            pkm1 = _r(pkm1 * k[3], k)
            qkm2 = _r(qkm2 * k[3], k)
            qkm1 = _r(qkm1 * k[3], k)
    return _r(ans * ax, k)


@numba.njit(cache=True, nogil=True)
def igamma_loop(a, x, out, k, iterations):
    """out[i] = igamma.py's igamma of a[i], x[i] (1-D arrays of one dtype)."""
    for i in range(a.size):
        p, q = a[i], x[i]
        if q == k[5]:
            out[i] = k[5]
        elif q < k[5] or p <= k[5] or p != p or q != q:
            out[i] = math.nan
        elif q > k[6] and q > p:
            out[i] = _r(k[6] - _continued_fraction(p, q, k, iterations), k)
        else:
            out[i] = _series(p, q, k, iterations)


@numba.njit(cache=True, nogil=True)
def igammac_loop(a, x, out, k, iterations):
    """out[i] = igamma.py's igammac of a[i], x[i]."""
    for i in range(a.size):
        p, q = a[i], x[i]
        if q < k[5] or p <= k[5] or p != p or q != q:
            out[i] = math.nan
        elif q < k[6] or q < p:
            out[i] = _r(k[6] - _series(p, q, k, iterations), k)
        else:
            out[i] = _continued_fraction(p, q, k, iterations)


LOOPS = (igamma_loop, igammac_loop)
