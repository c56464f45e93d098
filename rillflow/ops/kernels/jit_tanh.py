"""TensorFlow's tanh compiled by Numba: tanh_kernel.py's operations, in its
order, one float rounding each. Imported only by jit_kernels.py, which
checks that Numba is there. Module-level functions, so Numba's disk cache
serves later processes (closures would be recompiled every time).
"""
import numba
import numpy as np

from . import tanh_kernel as _tk

# Globals are frozen into the compiled code as constants of their own dtype:
# float32 coefficients keep every float32 operation in float32.
_LO32, _HI32 = np.float32(_tk._F32_LO), np.float32(_tk._F32_HI)
_A0, _A1, _A2, _A3 = (np.float32(c) for c in (_tk._A0, _tk._A1, _tk._A2, _tk._A3))
_B0, _B1, _B2, _B3, _B4 = (np.float32(c) for c in (_tk._B0, _tk._B1, _tk._B2, _tk._B3, _tk._B4))
_LO64, _HI64 = np.float64(_tk._F64_LO), np.float64(_tk._F64_HI)
_P64 = np.array([float(c) for c in _tk._F64_P])
# The smallest normal values: TensorFlow reads subnormal inputs as zero, so
# their tanh (the input itself here) is written as +-0 (r * 0 keeps the sign).
_TINY32, _TINY64 = np.float32(2.0 ** -126), np.float64(2.0 ** -1022)
_Q64 = np.array([float(c) for c in _tk._F64_Q])

# No fastmath: it would contract multiply-adds and change the bits.
# error_model="numpy": no ZeroDivisionError branch, so the loop vectorizes.
_jit = numba.njit(cache=True, nogil=True, error_model="numpy")


@_jit
def tanh_f32(x, out):
    """out[i] = TensorFlow's float32 tanh of x[i] (1-D contiguous arrays)."""
    for i in range(x.size):
        v = x[i]
        if v > _HI32:      # NaN compares false and passes through, as in np.clip
            v = _HI32
        elif v < _LO32:
            v = _LO32
        x2 = v * v
        p = x2 * _A0
        p = p + _A1
        p = p * x2
        p = p + _A2
        p = p * x2
        p = p + _A3
        q = x2 * _B0
        q = q + _B1
        q = q * x2
        q = q + _B2
        q = q * x2
        q = q + _B3
        q = q * x2
        q = q + _B4
        p = p * (x2 * v)
        p = p + v
        r = p / q
        out[i] = r if abs(r) >= _TINY32 else r * np.float32(0)


@_jit
def tanh_f64(x, out):
    """out[i] = TensorFlow's float64 tanh of x[i] (1-D contiguous arrays)."""
    n_p, n_q = _P64.size, _Q64.size
    for i in range(x.size):
        v = x[i]
        if v > _HI64:
            v = _HI64
        elif v < _LO64:
            v = _LO64
        x2 = v * v
        p = x2 * _P64[0]
        q = x2 * _Q64[0]
        for k in range(1, n_p - 1):   # Horner's rule as tanh_kernel.horner
            p = (p + _P64[k]) * x2
        for k in range(1, n_q - 1):
            q = (q + _Q64[k]) * x2
        p = p + _P64[n_p - 1]
        q = q + _Q64[n_q - 1]
        p = p * (x2 * v)
        p = p + v
        r = p / q
        out[i] = r if abs(r) >= _TINY64 else r * 0.0
