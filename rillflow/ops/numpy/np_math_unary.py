"""`tf.experimental.numpy`'s one-array math: the elementwise functions
(`exp`, `sin`, `isnan`, ...), rounding (`around`), parts of complex numbers,
and `diff`.

An integer or bool argument of a function NumPy computes in floating point is
first cast to the default float type (float64) with the `astype` method, as in
TensorFlow, where that method exists only after
`experimental_enable_numpy_behavior()`: before it such calls raise
AttributeError there, and here too.
"""
import builtins
import math

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export, export_value
from ..core import broadcast_ops, constant_ops, math_ops, shape_ops, special_math_ops
from ..core import unary_ops
from . import np_array_core as A
from . import np_dtypes
from .np_utils import np_doc

pi = export_value(np.pi, "experimental.numpy.pi")
e = export_value(np.e, "experimental.numpy.e")
inf = export_value(np.inf, "experimental.numpy.inf")


def _scalar(tf_fn, x, promote_to_float=False):
    """`tf_fn(x)` elementwise; with `promote_to_float`, an integer or bool `x`
    is first cast to the default float type."""
    x = A.asarray(x)
    if promote_to_float and not np.issubdtype(x.dtype.as_numpy_dtype, np.inexact):
        x = x.astype(np_dtypes.result_type(float))
    return tf_fn(x)


def _unary(np_name, tf_fn, promote_to_float, doc, link=None):
    """A public one-argument function `np_name` computing `tf_fn`."""
    def f(x):
        return _scalar(tf_fn, x, promote_to_float)
    f.__name__ = f.__qualname__ = np_name
    f.__doc__ = doc
    f = np_doc(np_name, link=link)(f)
    return export("experimental.numpy." + np_name)(f)


log = _unary("log", unary_ops.log, True, "The natural logarithm, elementwise.")
exp = _unary("exp", unary_ops.exp, True, "e to the power of each element.")
sqrt = _unary("sqrt", unary_ops.sqrt, True, "The square root, elementwise.")
abs = _unary("abs", unary_ops.abs, False, "The absolute value, elementwise.",  # noqa: A001
             link="absolute")
ceil = _unary("ceil", unary_ops.ceil, True, "The ceiling, elementwise.")
floor = _unary("floor", unary_ops.floor, True, "The floor, elementwise.")
conj = _unary("conj", math_ops.conj, False, "The complex conjugate, elementwise.")
conjugate = _unary("conjugate", math_ops.conj, False, "The complex conjugate, elementwise.",
                   link="conj")
negative = _unary("negative", math_ops.negative, False, "Minus each element.")
reciprocal = _unary("reciprocal", unary_ops.reciprocal, False, "1/x, elementwise.")
sin = _unary("sin", unary_ops.sin, True, "The sine, elementwise.")
cos = _unary("cos", unary_ops.cos, True, "The cosine, elementwise.")
tan = _unary("tan", unary_ops.tan, True, "The tangent, elementwise.")
sinh = _unary("sinh", unary_ops.sinh, True, "The hyperbolic sine, elementwise.")
cosh = _unary("cosh", unary_ops.cosh, True, "The hyperbolic cosine, elementwise.")
tanh = _unary("tanh", unary_ops.tanh, True, "The hyperbolic tangent, elementwise.")
arcsin = _unary("arcsin", unary_ops.asin, True, "The inverse sine, elementwise.")
arccos = _unary("arccos", unary_ops.acos, True, "The inverse cosine, elementwise.")
arctan = _unary("arctan", unary_ops.atan, True, "The inverse tangent, elementwise.")
arcsinh = _unary("arcsinh", unary_ops.asinh, True, "The inverse hyperbolic sine.")
arccosh = _unary("arccosh", unary_ops.acosh, True, "The inverse hyperbolic cosine.")
arctanh = _unary("arctanh", unary_ops.atanh, True, "The inverse hyperbolic tangent.")
expm1 = _unary("expm1", unary_ops.expm1, True, "exp(x) - 1, elementwise.")
log1p = _unary("log1p", unary_ops.log1p, True, "log(1 + x), elementwise.")
isnan = _unary("isnan", unary_ops.is_nan, True, "Whether each element is NaN.")
isfinite = _unary("isfinite", unary_ops.is_finite, True, "Whether each element is finite.")
square = _unary("square", unary_ops.square, False, "x * x, elementwise.")
positive = _unary("positive", lambda x: x, False, "The array itself (unary +).")


@export("experimental.numpy.absolute")
@np_doc("absolute")
def absolute(x):
    """The absolute value, elementwise."""
    return abs(x)


@export("experimental.numpy.fabs")
@np_doc("fabs")
def fabs(x):
    """The absolute value, elementwise."""
    return abs(x)


@export("experimental.numpy.signbit")
@np_doc("signbit")
def signbit(x):
    """Whether each element is below zero (False for bools)."""
    def f(x):
        if x.dtype == D.bool_:
            return constant_ops.fill(shape_ops.shape(x), False)
        return x < 0
    return _scalar(f, x)


@export("experimental.numpy.deg2rad")
@np_doc("deg2rad")
def deg2rad(x):
    """Degrees to radians."""
    def f(x):
        return x * (np.pi / 180.0)
    return _scalar(f, x, True)


@export("experimental.numpy.rad2deg")
@np_doc("rad2deg")
def rad2deg(x):
    """Radians to degrees (the `*` operator on `x`, as in TensorFlow)."""
    return x * (180.0 / np.pi)


_tf_float_types = (D.bfloat16, D.float16, D.float32, D.float64)
# tf.math.sign by a name of this module: auto dtype conversion (np_weak.py)
# replaces it here with its wrapper, as TensorFlow's tnp.sign calls its wrapped
# math_ops.sign.
_tf_sign = unary_ops.sign


@export("experimental.numpy.angle")
@np_doc("angle")
def angle(z, deg=False):
    """The argument of each complex element (pi or 0 for reals)."""
    def f(x):
        if x.dtype in _tf_float_types:
            return broadcast_ops.where(x < 0, np.pi, 0)
        return special_math_ops.angle(x)
    y = _scalar(f, z, True)
    if deg:
        y = rad2deg(y)
    return y


@export("experimental.numpy.cbrt")
@np_doc("cbrt")
def cbrt(x):
    """The cube root, elementwise."""
    def f(x):
        rt = unary_ops.abs(x) ** (1.0 / 3)
        return broadcast_ops.where(x < 0, -rt, rt)
    return _scalar(f, x, True)


@export("experimental.numpy.exp2")
@np_doc("exp2")
def exp2(x):
    """2 to the power of each element."""
    def f(x):
        return 2**x
    return _scalar(f, x, True)


@export("experimental.numpy.fix")
@np_doc("fix")
def fix(x):
    """Each element rounded toward zero."""
    def f(x):
        return broadcast_ops.where(x < 0, unary_ops.ceil(x), unary_ops.floor(x))
    return _scalar(f, x, True)


@export("experimental.numpy.real")
@np_doc("real")
def real(val):
    """The real part."""
    val = A.asarray(val)
    return special_math_ops.real(val)


@export("experimental.numpy.imag")
@np_doc("imag")
def imag(val):
    """The imaginary part."""
    val = A.asarray(val)
    return special_math_ops.imag(val)


@export("experimental.numpy.iscomplex")
@np_doc("iscomplex")
def iscomplex(x):
    """Whether each element has a nonzero imaginary part."""
    return imag(x) != 0


@export("experimental.numpy.isreal")
@np_doc("isreal")
def isreal(x):
    """Whether each element has a zero imaginary part."""
    return imag(x) == 0


@export("experimental.numpy.iscomplexobj")
@np_doc("iscomplexobj")
def iscomplexobj(x):
    """Whether `x`'s dtype is complex."""
    x = A.array(x)
    return np.issubdtype(x.dtype.as_numpy_dtype, np.complexfloating)


@export("experimental.numpy.isrealobj")
@np_doc("isrealobj")
def isrealobj(x):
    """Whether `x`'s dtype is not complex."""
    return not iscomplexobj(x)


@export("experimental.numpy.isinf")
@np_doc("isinf")
def isinf(x):
    """Whether each element is infinite (False for an `x` without a float dtype)."""
    if x.dtype.is_floating:
        return _scalar(unary_ops.is_inf, x, True)
    return False


@export("experimental.numpy.isneginf")
@np_doc("isneginf")
def isneginf(x):
    """Whether each element is -inf."""
    if x.dtype.is_floating:
        return x == A.full_like(x, -np.inf)
    return False


@export("experimental.numpy.isposinf")
@np_doc("isposinf")
def isposinf(x):
    """Whether each element is +inf."""
    if x.dtype.is_floating:
        return x == A.full_like(x, np.inf)
    return False


@export("experimental.numpy.log2")
@np_doc("log2")
def log2(x):
    """The base-2 logarithm."""
    return log(x) / np.log(2)


@export("experimental.numpy.log10")
@np_doc("log10")
def log10(x):
    """The base-10 logarithm."""
    return log(x) / np.log(10)


@export("experimental.numpy.sinc")
@np_doc("sinc")
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0."""
    def f(x):
        pi_x = x * np.pi
        return broadcast_ops.where(x == 0, constant_ops.ones_like(x),
                                   unary_ops.sin(pi_x) / pi_x)
    return _scalar(f, x, True)


@export("experimental.numpy.bitwise_not")
@np_doc("bitwise_not", link="invert")
def bitwise_not(x):
    """Each bit inverted (logical not for bools)."""
    def f(x):
        if x.dtype == D.bool_:
            return math_ops.logical_not(x)
        return math_ops.invert(x)
    return _scalar(f, x)


@export("experimental.numpy.sign")
@np_doc("sign", check_signature=False)
def sign(x, out=None, where=None, **kwargs):
    """-1, 0 or 1 by the sign of each element (x/|x| for complex, as NumPy 2)."""
    if out:
        raise ValueError("tf.numpy doesnt support setting out.")
    if where:
        raise ValueError("tf.numpy doesnt support setting where.")
    if kwargs:
        raise ValueError("tf.numpy doesnt support setting {}".format(kwargs.keys()))
    x = A.asarray(x)
    return _tf_sign(x)


@export("experimental.numpy.around")
@np_doc("around")
def around(a, decimals=0):
    """Each element rounded (half to even) to `decimals` places; integers
    round in the default float type and come back to their dtype."""
    a = A.asarray(a)
    dtype = a.dtype.as_numpy_dtype
    factor = math.pow(10, decimals)
    if np.issubdtype(dtype, np.inexact):
        factor = math_ops.cast(factor, dtype)
    else:
        float_dtype = np_dtypes.result_type(float)
        a = a.astype(float_dtype)
        factor = math_ops.cast(factor, float_dtype)
    a = math_ops.multiply(a, factor)
    a = unary_ops.round(a)
    a = math_ops.divide(a, factor)
    return a.astype(dtype)


@export("experimental.numpy.round")
@np_doc("round", link="around")
def round(a, decimals=0):  # noqa: A001
    """`around`."""
    return around(a, decimals=decimals)


@export("experimental.numpy.diff")
@np_doc("diff")
def diff(a, n=1, axis=-1):
    """The n-th differences along `axis` (not-equal for bools).

    Raises:
      ValueError: for an unknown rank, an axis out of bounds or a negative n.
    """
    def f(a):
        nd = a.shape.rank
        if nd is None:
            raise ValueError("Function `diff` currently requires a known rank for input `a`. "
                             f"Received: a={a} (unknown rank)")
        if (axis + nd if axis < 0 else axis) >= nd:
            raise ValueError(f"Argument `axis` (received axis={axis}) is out of bounds "
                             f"for input {a} of rank {nd}.")
        if n < 0:
            raise ValueError("Argument `order` must be a non-negative integer. "
                             f"Received: axis={n}")
        slice1 = [builtins.slice(None)] * nd
        slice2 = [builtins.slice(None)] * nd
        slice1[axis] = builtins.slice(1, None)
        slice2[axis] = builtins.slice(None, -1)
        slice1, slice2 = tuple(slice1), tuple(slice2)
        op = math_ops.not_equal if a.dtype == D.bool_ else math_ops.subtract
        for _ in range(n):
            a = op(a[slice1], a[slice2])
        return a
    return _scalar(f, a)
