"""The platform C library's float functions, one call per element, for the
kernels whose TensorFlow counterpart calls them (libm_kernels.py: sinh,
cosh, asinh, acosh, lgamma, atanh's tail; trig.py: the tails of atan, asin
and acos; exp_log.py: its scalar tails). A call costs about 0.2 us;
libm_kernels.py's compiled loops take large arrays."""
import ctypes
import ctypes.util
import math
import platform

import numpy as np

__all__ = ["NAMES", "available", "call", "c_function", "c_function2", "complex_function",
           "lgamma_python"]

NAMES = ("sinh", "cosh", "asinh", "acosh", "atanh", "atan", "asin", "acos", "tan", "lgamma")


def _lgamma_scalar(v):
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # poles at 0, -1, -2, ... and huge x
        return math.inf


_lgamma_obj = np.frompyfunc(_lgamma_scalar, 1, 1)


def lgamma_python(x):
    """Python's math.lgamma of each element (in float64), in x's dtype: the
    stand-in where no C library loads."""
    a = np.asarray(x)
    return np.asarray(_lgamma_obj(a.astype(np.float64)), np.float64).astype(a.dtype)


_NUMPY = {"sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
          "atanh": np.arctanh, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos,
          "tan": np.tan, "lgamma": lgamma_python}
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _open():
    path = ctypes.util.find_library("m") or ctypes.util.find_library("c")
    if path is None:
        return None
    try:
        return ctypes.CDLL(path)
    except OSError:
        return None


_LIB = _open()


def c_function(cname, ctype):
    """The C library's function `cname` of one `ctype` argument returning
    `ctype` (ctypes.c_float or c_double), or None (no C library, no such
    function); exp_log.py's scalar tails take theirs here too."""
    f = getattr(_LIB, cname, None) if _LIB is not None else None
    if f is not None:
        f.restype, f.argtypes = ctype, [ctype]
    return f


def c_function2(cname, ctype=ctypes.c_float):
    """The C library's function `cname` of two `ctype` arguments (powf,
    say), or None. A separate handle from c_function's: ctypes keeps one
    signature per function object."""
    if _LIB is None:
        return None
    try:
        f = ctypes.CFUNCTYPE(ctype, ctype, ctype)((cname, _LIB))
    except (AttributeError, OSError):
        return None
    return f


class _ComplexDouble(ctypes.Structure):
    """A double _Complex as ctypes passes it: the x86-64 and AArch64 calling
    conventions pass and return a struct of two doubles as they do the
    complex type (two SSE / two FP registers)."""
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


def complex_function(cname):
    """The C library's complex128 function `cname` (cexp, clog, ...) as a
    Python function of a complex returning a complex, or None (no C library,
    no such function, or a platform whose calling convention is not known
    to pass the struct as the complex type)."""
    if _LIB is None or platform.machine().lower() not in ("x86_64", "amd64", "aarch64",
                                                          "arm64"):
        return None
    try:
        f = ctypes.CFUNCTYPE(_ComplexDouble, _ComplexDouble)((cname, _LIB))
    except (AttributeError, OSError):
        return None

    def call(z):
        r = f(_ComplexDouble(z.real, z.imag))
        return complex(r.re, r.im)
    return call


def _load():
    """{(name, dtype): ctypes function} of NAMES, or None."""
    funcs = {}
    for name in NAMES:
        for suffix, ctype, dtype in (("f", ctypes.c_float, _F32), ("", ctypes.c_double, _F64)):
            f = c_function(name + suffix, ctype)
            if f is None:
                return None
            funcs[(name, dtype)] = f
    return funcs


_LIBM = _load()


def available():
    """Whether the C library's functions loaded (not on Windows, say)."""
    return _LIBM is not None


def call(name, x):
    """The C library's `name` (NAMES; the float or double function by x's
    dtype, float32 or float64) of each element of `x`, as a new array of its
    shape; NumPy's function where the C library did not load."""
    a = np.asarray(x)
    if _LIBM is None:
        with np.errstate(all="ignore"):
            return _NUMPY[name](a)
    f = _LIBM[(name, a.dtype)]
    return np.array([f(v) for v in a.reshape(-1).tolist()], a.dtype).reshape(a.shape)


def scalar_kit(single, names):
    """(scalar type, f, functions, (machep, big, biginv)) for Cephes-style
    scalar kernels run one element at a time (kernels/igamma.py,
    kernels/betainc.py): `f` rounds to float32 (`single`) or float64 and
    flushes a subnormal to zero as TensorFlow's threads do; the functions
    are the C library's `names` (log, exp, ...: the float versions for
    `single`) on that type's scalars, each result through `f` (Python's
    math functions without a C library: not always its bits; a domain or
    range error gives NumPy's value, or inf for lgamma's poles); the
    constants are Cephes' machine epsilon (half the type's), its big and
    its inverse."""
    f0 = np.float32 if single else np.float64
    tiny = 2.0 ** -126 if single else 2.0 ** -1022

    def f(v):
        v = f0(v)
        return v * f0(0) if abs(v) < tiny else v
    ct = ctypes.c_float if single else ctypes.c_double
    fns = [c_function(n + ("f" if single else ""), ct) for n in names]
    if None in fns:
        fns = [getattr(math, n) for n in names]

    def wrap(fn, name):
        fallback = getattr(np, name, None)

        def g(v):
            try:
                return f(fn(float(v)))
            except (ValueError, OverflowError):
                with np.errstate(all="ignore"):
                    return f(fallback(f0(v))) if fallback is not None else f0(math.inf)
        return g
    eps = f0(np.finfo(f0).eps)
    machep = f(eps / 2)
    big = f(1 / machep) if single else f(1 / eps)
    biginv = machep if single else f(eps)
    return f0, f, [wrap(g, n) for g, n in zip(fns, names)], (machep, big, biginv)
