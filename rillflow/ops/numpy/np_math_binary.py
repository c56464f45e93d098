"""`tf.experimental.numpy`'s two-array math: arithmetic, comparisons,
logical and bitwise functions, `maximum`/`minimum`/`clip`, `gcd`/`lcm`,
`logaddexp`, `isclose`/`allclose`/`array_equal`, `heaviside`, `hypot`.

Both arguments are first promoted to their NumPy result type (a Python
float counts as weak, an int array plus a float scalar is float64); bools
take the logical form of an arithmetic op (`add` is `or`, `multiply` is `and`).
"""
import numbers

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ..control_flow import while_loop as _while
from ..core import broadcast_ops, clip_ops, constant_ops, math_ops, reduction_ops
from ..core import shape_ops, special_functions, special_math_ops, unary_ops
from ..nn import activations
from . import np_array_core as A
from . import np_dtypes, np_utils
from .np_indexing import where
from .np_math_unary import abs, exp, exp2, isnan, log1p, sqrt, square
from .np_reductions import all as _all
from .np_utils import np_doc


def bin_op(tf_fun, a, b, promote=True):
    """`tf_fun(a, b)` on the arguments promoted to one dtype (or as they are)."""
    if promote:
        a, b = A.promote_dtype_binary(a, b)
    else:
        a = A.array(a)
        b = A.array(b)
    return tf_fun(a, b)


def _binary(np_name, tf_fun, doc, bool_fn=None):
    """A public two-argument function; `bool_fn` replaces `tf_fun` for bools."""
    def f(x1, x2):
        def op(x1, x2):
            if bool_fn is not None and x1.dtype == D.bool_:
                assert x2.dtype == D.bool_
                return bool_fn(x1, x2)
            return tf_fun(x1, x2)
        return bin_op(op, x1, x2)
    f.__name__ = f.__qualname__ = np_name
    f.__doc__ = doc
    return export("experimental.numpy." + np_name)(np_doc(np_name)(f))


add = _binary("add", math_ops.add, "x1 + x2 (or for bools).", math_ops.logical_or)
subtract = _binary("subtract", math_ops.subtract, "x1 - x2.")
multiply = _binary("multiply", math_ops.multiply, "x1 * x2 (and for bools).",
                   math_ops.logical_and)
power = _binary("power", math_ops.pow, "x1 ** x2.")
arctan2 = _binary("arctan2", special_math_ops.atan2, "The angle of the point (x2, x1).")
nextafter = _binary("nextafter", special_functions.nextafter,
                    "The next float after x1 toward x2.")


@export("experimental.numpy.float_power")
@np_doc("float_power")
def float_power(x1, x2):
    """`power` (no cast to float64, unlike NumPy)."""
    return power(x1, x2)


@export("experimental.numpy.true_divide")
@np_doc("true_divide")
def true_divide(x1, x2):
    """x1 / x2 in floating point (int32 and int64 divide to float64)."""
    def _avoid_float64(x1, x2):
        if x1.dtype == x2.dtype and x1.dtype in (D.int32, D.int64):
            x1 = math_ops.cast(x1, dtype=D.float32)
            x2 = math_ops.cast(x2, dtype=D.float32)
        return x1, x2

    def f(x1, x2):
        if x1.dtype == D.bool_:
            assert x2.dtype == D.bool_
            float_ = np_dtypes.result_type(float)
            x1 = math_ops.cast(x1, float_)
            x2 = math_ops.cast(x2, float_)
        if not np_dtypes.is_allow_float64():
            # tf.truediv turns int32/int64 into float64; keep float32 then.
            x1, x2 = _avoid_float64(x1, x2)
        return math_ops.truediv(x1, x2)
    return bin_op(f, x1, x2)


@export("experimental.numpy.divide")
@np_doc("divide")
def divide(x1, x2):
    """`true_divide`."""
    return true_divide(x1, x2)


def _int8_for_bools(tf_fun):
    def f(x1, x2):
        if x1.dtype == D.bool_:
            assert x2.dtype == D.bool_
            x1 = math_ops.cast(x1, D.int8)
            x2 = math_ops.cast(x2, D.int8)
        return tf_fun(x1, x2)
    return f


@export("experimental.numpy.floor_divide")
@np_doc("floor_divide")
def floor_divide(x1, x2):
    """x1 // x2 (bools as int8)."""
    return bin_op(_int8_for_bools(math_ops.floordiv), x1, x2)


@export("experimental.numpy.mod")
@np_doc("mod")
def mod(x1, x2):
    """x1 % x2 with the sign of x2 (bools as int8)."""
    return bin_op(_int8_for_bools(math_ops.floormod), x1, x2)


@export("experimental.numpy.remainder")
@np_doc("remainder")
def remainder(x1, x2):
    """`mod`."""
    return mod(x1, x2)


@export("experimental.numpy.divmod")
@np_doc("divmod")
def divmod(x1, x2):  # noqa: A001
    """(`floor_divide`, `mod`)."""
    return floor_divide(x1, x2), mod(x1, x2)


@export("experimental.numpy.maximum")
@np_doc("maximum")
def maximum(x1, x2):
    """The larger of each pair (or for bools)."""
    # tf.nn.relu for maximum(x, 0): its gradient at 0 is TensorFlow's.
    if (isinstance(x2, numbers.Real) and not isinstance(x2, bool) and x2 == 0
            and isinstance(x1, Tensor) and x1.dtype != D.bool_):
        return activations.relu(A.asarray(x1))

    def max_or_or(x1, x2):
        if x1.dtype == D.bool_:
            assert x2.dtype == D.bool_
            return math_ops.logical_or(x1, x2)
        return math_ops.maximum(x1, x2)
    return bin_op(max_or_or, x1, x2)


@export("experimental.numpy.minimum")
@np_doc("minimum")
def minimum(x1, x2):
    """The smaller of each pair (and for bools)."""
    def min_or_and(x1, x2):
        if x1.dtype == D.bool_:
            assert x2.dtype == D.bool_
            return math_ops.logical_and(x1, x2)
        return math_ops.minimum(x1, x2)
    return bin_op(min_or_and, x1, x2)


@export("experimental.numpy.clip")
@np_doc("clip")
def clip(a, a_min, a_max):
    """`a` limited to [a_min, a_max] (one of the bounds may be None)."""
    if a_min is None and a_max is None:
        raise ValueError("Not more than one of `a_min` and `a_max` may be `None`.")
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, a_min, a_max = A.promote_dtype(a, a_min, a_max)
    return clip_ops.clip_by_value(*np_utils.tf_broadcast(a, a_min, a_max))


@export("experimental.numpy.heaviside")
@np_doc("heaviside")
def heaviside(x1, x2):
    """0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0 (a float result)."""
    def f(x1, x2):
        return broadcast_ops.where(
            x1 < 0, constant_ops.constant(0, dtype=x2.dtype),
            broadcast_ops.where(x1 > 0, constant_ops.constant(1, dtype=x2.dtype), x2))
    y = bin_op(f, x1, x2)
    if not np.issubdtype(y.dtype.as_numpy_dtype, np.inexact):
        y = y.astype(np_dtypes.result_type(float))
    return y


@export("experimental.numpy.hypot")
@np_doc("hypot")
def hypot(x1, x2):
    """sqrt(x1**2 + x2**2)."""
    return sqrt(square(x1) + square(x2))


@export("experimental.numpy.logaddexp")
@np_doc("logaddexp")
def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)), computed without overflow."""
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta),
                 x1 + x2,  # NaNs or infinities of the same sign
                 amax + log1p(exp(-abs(delta))))


@export("experimental.numpy.logaddexp2")
@np_doc("logaddexp2")
def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2), computed without overflow."""
    amax = maximum(x1, x2)
    delta = x1 - x2
    return where(isnan(delta),
                 x1 + x2,  # NaNs or infinities of the same sign
                 amax + log1p(exp2(-abs(delta))) / np.log(2))


@export("experimental.numpy.isclose")
@np_doc("isclose")
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether |a - b| <= atol + rtol * |b|, elementwise (== for exact dtypes)."""
    def f(a, b):
        dtype = a.dtype
        if np.issubdtype(dtype.as_numpy_dtype, np.inexact):
            rtol_ = convert_to_tensor(rtol, dtype.real_dtype)
            atol_ = convert_to_tensor(atol, dtype.real_dtype)
            result = unary_ops.abs(a - b) <= atol_ + rtol_ * unary_ops.abs(b)
            if equal_nan:
                result = result | (unary_ops.is_nan(a) & unary_ops.is_nan(b))
            return result
        return a == b
    return bin_op(f, a, b)


@export("experimental.numpy.allclose")
@np_doc("allclose")
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether `isclose` holds everywhere."""
    return _all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _tf_gcd(x1, x2):
    """The greatest common divisor by Euclid's algorithm in a while loop."""
    def _gcd_cond_fn(_, x2):
        return reduction_ops.reduce_any(x2 != 0)

    def _gcd_body_fn(x1, x2):
        # The where keeps x1 % 0 from being computed.
        x2_safe = broadcast_ops.where(x2 != 0, x2, constant_ops.constant(1, x2.dtype))
        x1, x2 = (broadcast_ops.where(x2 != 0, x2, x1),
                  broadcast_ops.where(x2 != 0, math_ops.floormod(x1, x2_safe),
                                      constant_ops.constant(0, x2.dtype)))
        return (broadcast_ops.where(x1 < x2, x2, x1), broadcast_ops.where(x1 < x2, x1, x2))

    if (not np.issubdtype(x1.dtype.as_numpy_dtype, np.integer)
            or not np.issubdtype(x2.dtype.as_numpy_dtype, np.integer)):
        raise ValueError("Arguments to gcd must be integers.")
    shape = broadcast_ops.broadcast_dynamic_shape(shape_ops.shape(x1), shape_ops.shape(x2))
    x1 = broadcast_ops.broadcast_to(x1, shape)
    x2 = broadcast_ops.broadcast_to(x2, shape)
    value, _ = _while.while_loop(_gcd_cond_fn, _gcd_body_fn,
                                 (unary_ops.abs(x1), unary_ops.abs(x2)))
    return value


@export("experimental.numpy.gcd")
@np_doc("gcd")
def gcd(x1, x2):
    """The greatest common divisor of integers, elementwise."""
    return bin_op(_tf_gcd, x1, x2)


@export("experimental.numpy.lcm")
@np_doc("lcm")
def lcm(x1, x2):
    """The least common multiple of integers, elementwise."""
    def f(x1, x2):
        d = _tf_gcd(x1, x2)
        # Guards the division against d == 0.
        d_safe = broadcast_ops.where(math_ops.equal(d, 0), constant_ops.constant(1, d.dtype), d)
        x1 = unary_ops.abs(x1)
        x2 = unary_ops.abs(x2)
        return broadcast_ops.where(math_ops.equal(d, 0), constant_ops.constant(0, d.dtype),
                                   x1 * (x2 // d_safe))
    return bin_op(f, x1, x2)


def _bitwise_binary_op(tf_fn, x1, x2):
    def f(x1, x2):
        is_bool = x1.dtype == D.bool_
        if is_bool:
            assert x2.dtype == D.bool_
            x1 = math_ops.cast(x1, D.int8)
            x2 = math_ops.cast(x2, D.int8)
        r = tf_fn(x1, x2)
        if is_bool:
            r = math_ops.cast(r, D.bool_)
        return r
    return bin_op(f, x1, x2)


@export("experimental.numpy.bitwise_and")
@np_doc("bitwise_and")
def bitwise_and(x1, x2):
    """x1 & x2 on integers and bools."""
    return _bitwise_binary_op(math_ops.bitwise_and, x1, x2)


@export("experimental.numpy.bitwise_or")
@np_doc("bitwise_or")
def bitwise_or(x1, x2):
    """x1 | x2 on integers and bools."""
    return _bitwise_binary_op(math_ops.bitwise_or, x1, x2)


@export("experimental.numpy.bitwise_xor")
@np_doc("bitwise_xor")
def bitwise_xor(x1, x2):
    """x1 ^ x2 on integers and bools."""
    return _bitwise_binary_op(math_ops.bitwise_xor, x1, x2)


def _comparison(tf_fun, x1, x2, cast_bool_to_int=False):
    dtype = np_dtypes.result_type(x1, x2)
    # Cast rather than promote_dtype: comparisons accept Python sequences.
    x1 = A.array(x1, dtype=dtype)
    x2 = A.array(x2, dtype=dtype)
    if cast_bool_to_int and x1.dtype == D.bool_:
        x1 = math_ops.cast(x1, D.int32)
        x2 = math_ops.cast(x2, D.int32)
    return tf_fun(x1, x2)


def _compare(np_name, tf_fun, cast_bool_to_int, doc):
    def f(x1, x2):
        return _comparison(tf_fun, x1, x2, cast_bool_to_int)
    f.__name__ = f.__qualname__ = np_name
    f.__doc__ = doc
    return export("experimental.numpy." + np_name)(np_doc(np_name)(f))


equal = _compare("equal", math_ops.equal, False, "x1 == x2, elementwise.")
not_equal = _compare("not_equal", math_ops.not_equal, False, "x1 != x2, elementwise.")
greater = _compare("greater", math_ops.greater, True, "x1 > x2, elementwise.")
greater_equal = _compare("greater_equal", math_ops.greater_equal, True,
                         "x1 >= x2, elementwise.")
less = _compare("less", math_ops.less, True, "x1 < x2, elementwise.")
less_equal = _compare("less_equal", math_ops.less_equal, True, "x1 <= x2, elementwise.")


@export("experimental.numpy.array_equal")
@np_doc("array_equal")
def array_equal(a1, a2):
    """Whether the arrays have one shape and equal elements."""
    def f(x1, x2):
        return np_utils.cond(
            math_ops.equal(shape_ops.rank(x1), shape_ops.rank(x2)),
            lambda: np_utils.cond(
                np_utils.reduce_all(math_ops.equal(shape_ops.shape(x1), shape_ops.shape(x2))),
                lambda: reduction_ops.reduce_all(math_ops.equal(x1, x2)),
                lambda: constant_ops.constant(False)),
            lambda: constant_ops.constant(False))
    return _comparison(f, a1, a2)


def _logical_binary_op(tf_fun, x1, x2):
    x1 = A.array(x1, dtype=np.bool_)
    x2 = A.array(x2, dtype=np.bool_)
    return tf_fun(x1, x2)


@export("experimental.numpy.logical_and")
@np_doc("logical_and")
def logical_and(x1, x2):
    """x1 and x2, elementwise, on their truth values."""
    return _logical_binary_op(math_ops.logical_and, x1, x2)


@export("experimental.numpy.logical_or")
@np_doc("logical_or")
def logical_or(x1, x2):
    """x1 or x2, elementwise, on their truth values."""
    return _logical_binary_op(math_ops.logical_or, x1, x2)


@export("experimental.numpy.logical_xor")
@np_doc("logical_xor")
def logical_xor(x1, x2):
    """x1 xor x2, elementwise, on their truth values."""
    return _logical_binary_op(math_ops.logical_xor, x1, x2)


@export("experimental.numpy.logical_not")
@np_doc("logical_not")
def logical_not(x):
    """not x, elementwise, on its truth values."""
    x = A.array(x, dtype=np.bool_)
    return math_ops.logical_not(x)
