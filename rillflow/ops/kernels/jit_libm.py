"""The Numba loops of libm_kernels.py (the jit extra): Numba compiles
`math.sinh` of a float32 to a call of the C library's `sinhf` (and of a
float64 to `sinh`), so these loops give libm_kernels.py's ctypes calls' bits
without a Python call per element. Imported only by its loader thread."""
import math

import numba


@numba.njit(cache=True, nogil=True)
def sinh(x, out):
    """out[i] = the C library's sinh(f) of x[i] (1-D arrays of one dtype)."""
    for i in range(x.size):
        out[i] = math.sinh(x[i])


@numba.njit(cache=True, nogil=True)
def cosh(x, out):
    """out[i] = the C library's cosh(f) of x[i]."""
    for i in range(x.size):
        out[i] = math.cosh(x[i])


@numba.njit(cache=True, nogil=True)
def asinh(x, out):
    """out[i] = the C library's asinh(f) of x[i]."""
    for i in range(x.size):
        out[i] = math.asinh(x[i])


@numba.njit(cache=True, nogil=True)
def acosh(x, out):
    """out[i] = the C library's acosh(f) of x[i] (NaN below 1)."""
    for i in range(x.size):
        out[i] = math.acosh(x[i])


@numba.njit(cache=True, nogil=True)
def atanh(x, out):
    """out[i] = the C library's atanh(f) of x[i] (NaN beyond +-1)."""
    for i in range(x.size):
        out[i] = math.atanh(x[i])


@numba.njit(cache=True, nogil=True)
def lgamma(x, out):
    """out[i] = the C library's lgamma(f) of x[i] (log |Gamma|)."""
    for i in range(x.size):
        out[i] = math.lgamma(x[i])


@numba.njit(cache=True, nogil=True)
def tan(x, out):
    """out[i] = the C library's tan(f) of x[i]."""
    for i in range(x.size):
        out[i] = math.tan(x[i])


@numba.njit(cache=True, nogil=True)
def asin(x, out):
    """out[i] = the C library's asin(f) of x[i] (NaN beyond +-1)."""
    for i in range(x.size):
        out[i] = math.asin(x[i])


@numba.njit(cache=True, nogil=True)
def acos(x, out):
    """out[i] = the C library's acos(f) of x[i] (NaN beyond +-1)."""
    for i in range(x.size):
        out[i] = math.acos(x[i])
