"""TensorFlow's sinh, cosh, asinh, acosh, lgamma and atanh, and its float64
tan, asin and acos (the C library's on every element), bit for bit.

TensorFlow's CPU kernels for sinh, cosh, asinh, acosh and lgamma (Eigen's
scalar functors) call the C library: `sinhf`, `coshf`, `asinhf`, `acoshf`,
`lgammaf` for float32, `sinh`, ... for float64, and the float32 function for float16 and
bfloat16, rounded once (tools/tf_hyperbolic_fixtures.py: every recorded
value is glibc's; libm.py makes the calls).
float32 atanh is Eigen's packet code (`atanh_packets`
below) on the whole packets of 8 and `atanhf` on the last size % 8
elements, as exp_log.py's kernels split a tensor (half precision: `atanhf`
on every element, as for asin/acos/atan: no half packet code); float64 atanh
likewise, Eigen's double packet code (`atanh_packets_f64`) on the whole
packets of 4 and `atanh` on the rest.

NumPy's routines are its own and depend on its SIMD path (its AVX-512
versions differ from glibc's in 15-23% of float32 inputs by 1-2 ulp), so
rillflow calls the platform's C library as TensorFlow does: through the jit
extra's compiled loops (jit_libm.py: Numba's `math.sinh` of a float32 is a
call of `sinhf`) once loaded, else one ctypes call per element (the same
bits, about 0.2 us an element). Where no C library loads (Windows), NumPy's
routines. Complex inputs stay with NumPy's (TensorFlow's complex functions
are other formulas, not reproduced).
"""
import numpy as np

from . import exp_log as _el
from . import exp_log_f64 as _f64
from . import ftz
from . import jit_kernels as _jk
from . import libm as _libm
from .tanh_kernel import horner

__all__ = ["kernel", "atanh_packets", "atanh_packets_f64", "float64_call", "with_float64"]

_NAMES = ("sinh", "cosh", "asinh", "acosh", "atanh", "lgamma", "tan", "asin", "acos")
_NUMPY = {"sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh,
          "atanh": np.arctanh, "lgamma": _libm.lgamma_python, "tan": np.tan,
          "asin": np.arcsin, "acos": np.arccos}
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _load_loops():
    from . import jit_libm as J
    loops = {}
    for name in _NAMES:
        fn = getattr(J, name)
        for dtype in (_F32, _F64):
            x = np.ones(2, dtype) * 0.75
            fn(x, np.empty_like(x))        # compiles, or loads from the disk cache
        loops[name] = fn
    return loops


LOAD = _jk.BackgroundLoad("rillflow-jit-load-libm", _load_loops, "the C library loops")


def _call(name, a):
    """The C library's `name` of every element of the float32/float64 array
    `a` (C order), as a new array of its shape."""
    flat = a.reshape(-1)
    # The ctypes calls cost ~0.2 us an element (tanh's NumPy fallback, say,
    # costs a few ns): the loops are worth loading from a quarter of the
    # other families' size on.
    loops = LOAD.get(_jk.MIN_ELEMENTS if flat.size >= _jk.MIN_ELEMENTS // 4 else flat.size)
    if loops is not None:
        out = np.empty(flat.shape, a.dtype)
        loops[name](flat, out)
        return out.reshape(a.shape)
    return _libm.call(name, a)


def float64_call(name):
    """f(x): the C library's double `name` ("tan", "asin", "acos") of every
    element of float64 x: TensorFlow's float64 tan, asin and acos (Eigen has
    no double packet code for them; its scalar path calls std::tan, ...),
    also for subnormals (the C library returns them as they are). NumPy's
    function without a C library."""
    numpy_fn = _NUMPY[name]

    def f(x):
        if not _libm.available():
            with np.errstate(all="ignore"):
                return numpy_fn(x)
        a = np.asarray(x, _F64, order="C")
        out = _call(name, a)
        return out if out.ndim or isinstance(x, np.ndarray) else out[()]
    f.__name__ = name + "_f64"
    return f


def with_float64(name, kernel):
    """`kernel` (trig.py's tan, asin, acos: TensorFlow's bits for float32 and
    the half types) with float64 tensors going to `float64_call(name)`."""
    f64 = float64_call(name)

    def k(x):
        return f64(x) if x.dtype == _F64 else kernel(x)
    k.__name__ = getattr(kernel, "__name__", name + "_kernel")
    k.__doc__ = kernel.__doc__
    return k


# patanh_float: for |x| < 1/2, x + x^3 P(x^2) (P of degree 4 by Horner's
# rule; the wheel has no fused multiply-add); else 1/2 log((1 + x) / (1 - x))
# with Eigen's packet log.
_ATANH_P = [np.float32(c) for c in (
    0.1819281280040740966796875, 8.2311116158962249755859375e-2, 0.14672131836414337158203125,
    0.1997792422771453857421875, 0.3333373963832855224609375)]
_ONE, _HALF = np.float32(1.0), np.float32(0.5)


def atanh_packets(x):
    """Eigen's float32 atanh of a 1-D float32 array, elementwise, with
    TensorFlow's denormals-are-zero and flush-to-zero; `x` is not modified."""
    x = ftz.daz(x)
    x2 = x * x
    p = horner(x2, _ATANH_P)
    p *= x * x2
    p += x
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (_ONE + x) / (_ONE - x)
    r = _el.log_packets(r)
    r *= _HALF
    return ftz.flush(np.where(np.less(np.abs(x), _HALF), p, r))


# patanh_double: for |x| < 1/2, x + x^3 P(x^2) / Q(x^2) (P of degree 4, Q of
# degree 5, Horner's rule, each multiply-add rounded twice); else
# 1/2 log((1 + x) / (1 - x)) with Eigen's double packet log; +-inf at +-1 and
# the all-ones NaN (Eigen's por with the mask) beyond.
_ATANH_P64 = (3.3071338469301391e-03, -4.7129526768798737e-02, 1.8185306179826699e-01,
              -2.5949536095445679e-01, 1.2306328729812676e-01)
_ATANH_Q64 = (-3.8679974580640881e-03, 7.6391885763341910e-02, -4.2828141436397615e-01,
              9.8733495886883648e-01, -1.0000000000000000e+00, 3.6918986189438030e-01)
_ALL_ONES = np.int64(-1).view(np.float64)


def atanh_packets_f64(x):
    """Eigen's float64 atanh of a 1-D float64 array, elementwise, with
    TensorFlow's denormals-are-zero (a result is x itself or at least
    |x|, never subnormal unless x is); `x` is not modified."""
    x = _f64.ftz(np.array(x, np.float64))
    with np.errstate(all="ignore"):
        x2 = x * x
        x3 = x * x2
        small = horner(x2, _ATANH_P64) / horner(x2, _ATANH_Q64)
        small *= x3
        small += x
        large = _f64.plog_double(_f64.ftz((1.0 + x) / (1.0 - x)))
        large *= 0.5
        ax = np.abs(x)
        out = np.where(ax >= 0.5, large, small)
    ones = ax == 1.0
    out[ones] = np.copysign(np.inf, x[ones])
    out[ax > 1.0] = _ALL_ONES
    return out


def _atanh_tail(x):
    """Eigen's scalar atanh of the last size % 8 elements: the C library's."""
    return _call("atanh", x)


# TensorFlow's threads read a subnormal as zero (denormals-are-zero) inside
# glibc's lgamma, whose log of a tiny |x| then sees 2**-150 (float32) or
# 2**-1075 (float64): every subnormal x gives these (TF 2.21, both signs).
_LGAMMA_SUBNORMAL = {_F32: np.float32(150 * np.log(2.0)), _F64: 1075 * np.log(2.0)}
_TINY = {_F32: np.finfo(np.float32).tiny, _F64: np.finfo(np.float64).tiny}


def _lgamma_daz(x, out):
    """`out` with the subnormal inputs' lgamma as TensorFlow's (in place)."""
    ax = np.abs(x)
    sub = (ax < _TINY[x.dtype]) & (ax > 0)
    if sub.any():
        out[sub] = _LGAMMA_SUBNORMAL[x.dtype]
    return out


def kernel(name):
    """The op kernel `f(x)` of `name` ("sinh", "cosh", "asinh", "acosh",
    "atanh", "lgamma"): TensorFlow's bits for real floats (see the module docstring),
    NumPy's function for complex numbers or without a C library."""
    numpy_fn = _NUMPY[name]

    def k(x):
        a = np.asarray(x)
        dt = a.dtype
        if name == "atanh" and dt == _F32:
            with np.errstate(all="ignore"):
                out = _el.split_apply(a, atanh_packets, _atanh_tail)
        elif not _libm.available() or not (dt.kind == "f" or dt.name == "bfloat16"):
            # Complex numbers, no C library.
            return numpy_fn(x)
        elif name == "atanh" and dt == _F64:
            out = _f64.split(np.asarray(a), atanh_packets_f64, "atanh", tail=_atanh_tail)
        else:
            # float32/float64 themselves, half precision through float32.
            # (np.ascontiguousarray would make a 0-d array 1-d.)
            a = np.asarray(a, dt if dt in (_F32, _F64) else _F32, order="C")
            out = _call(name, a)
            if name == "lgamma":
                out = _lgamma_daz(a, out)
            out = out.astype(dt, copy=False)
        return out if out.ndim or isinstance(x, np.ndarray) else out[()]
    k.__name__ = name + "_kernel"
    return k
