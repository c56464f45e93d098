"""TensorFlow's sinh, cosh, asinh and acosh: the C library's, bit for bit.

TensorFlow's CPU kernels for these (Eigen's scalar functors) call the C
library: `sinhf`, `coshf`, `asinhf`, `acoshf` for float32, `sinh`, ... for
float64, and the float32 function for float16 and bfloat16, rounded once
(tools/tf_hyperbolic_fixtures.py: every recorded value is glibc's). NumPy's
routines are its own and depend on its SIMD path (its AVX-512 versions
differ from glibc's in 15-23% of float32 inputs by 1-2 ulp), so rillflow
calls the platform's C library as TensorFlow does: through the jit extra's
compiled loops (jit_libm.py: Numba's `math.sinh` of a float32 is a call of
`sinhf`) once loaded, else one ctypes call per element (the same bits,
about 0.2 us an element). Where no C library loads (Windows), NumPy's
routines. Complex inputs stay with NumPy's (TensorFlow's complex sinh is
its own formula, not reproduced).
"""
import ctypes
import ctypes.util

import numpy as np

from . import jit_kernels as _jk

__all__ = ["kernel"]

_NAMES = ("sinh", "cosh", "asinh", "acosh")
_NUMPY = {"sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh}
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _load_libm():
    """{(name, dtype): ctypes function} of the C library, or None."""
    path = ctypes.util.find_library("m") or ctypes.util.find_library("c")
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)
        funcs = {}
        for name in _NAMES:
            for suffix, ctype, dtype in (("f", ctypes.c_float, _F32), ("", ctypes.c_double, _F64)):
                f = getattr(lib, name + suffix)
                f.restype, f.argtypes = ctype, [ctype]
                funcs[(name, dtype)] = f
        return funcs
    except (OSError, AttributeError):
        return None


_LIBM = _load_libm()


def _load_loops():
    from . import jit_libm as J
    loops = {}
    for name in _NAMES:
        fn = getattr(J, name)
        for dtype in (_F32, _F64):
            x = np.ones(2, dtype) * 1.5
            fn(x, np.empty_like(x))        # compiles, or loads from the disk cache
        loops[name] = fn
    return loops


LOAD = _jk.BackgroundLoad("rillflow-jit-load-libm", _load_loops, "the C library loops")


def _call(name, a):
    """The C library's `name` of every element of the float32/float64 array
    `a` (C order), as a new array of its shape."""
    flat = a.reshape(-1)
    loops = LOAD.get(flat.size)
    if loops is not None:
        out = np.empty(flat.shape, a.dtype)
        loops[name](flat, out)
        return out.reshape(a.shape)
    f = _LIBM[(name, a.dtype)]
    return np.array([f(v) for v in flat.tolist()], a.dtype).reshape(a.shape)


def kernel(name):
    """The op kernel `f(x)` of `name` ("sinh", "cosh", "asinh", "acosh"):
    the C library's function for float32 and float64, the float32 one
    rounded for other real floats (float16, bfloat16), NumPy's for complex
    numbers or without a C library."""
    numpy_fn = _NUMPY[name]

    def k(x):
        if _LIBM is None:
            return numpy_fn(x)
        a = np.asarray(x)
        dt = a.dtype
        if dt == _F32 or dt == _F64:
            out = _call(name, np.asarray(a, order="C"))
        elif dt.kind == "f" or dt.name == "bfloat16":
            # (np.ascontiguousarray would make a 0-d array 1-d.)
            out = _call(name, np.asarray(a, _F32, order="C")).astype(dt)
        else:
            return numpy_fn(x)
        return out if out.ndim or isinstance(x, np.ndarray) else out[()]
    k.__name__ = name + "_kernel"
    return k
