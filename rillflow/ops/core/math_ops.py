"""Elementwise arithmetic, comparison and logical ops, and `tf.cast`.

Each op is one registry entry (kernel, shape inference, gradient) plus its
public function. Gradients use the public ops so they work eagerly and in
graphs.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply1, apply2
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from . import op_util as U
from .op_util import ALL, FLOAT_COMPLEX, INTS, NUMERIC, REAL, binary, unary
from .. import late
from ..kernels import complex_arith, min_max
from ..kernels import pow as pow_kernels
from ..kernels.jit_kernels import compiled_first

_BOOL = (D.bool_,)
_INTS_BOOL = INTS + _BOOL


# --- kernels ---------------------------------------------------------------

def _str_concat(x, y):
    out = np.asarray(np.add(x, y), dtype=object)
    if out.ndim == 0 and not isinstance(out, np.ndarray):
        out = np.asarray(out, dtype=object)
    return out


def _add_kernel(x, y):
    if x.dtype.kind == "O":
        r = np.add(x, y)
        if isinstance(r, bytes):
            a = np.empty((), dtype=object)
            a[()] = r
            return a
        return r
    return x + y


def _check_int_divisor(y, op=None, x=None):
    """Integer division by zero: InvalidArgumentError, or for TruncateDiv and
    TruncateMod (`op`) TensorFlow 2.21's InternalError from its generic
    binary-op error path. Not for an empty result (no division runs: a zero
    divisor broadcast against an empty x is fine)."""
    if x is not None and 0 in np.broadcast_shapes(np.shape(x), np.shape(y)):
        return
    if not (y.all() if y.ndim else y):
        if op is not None:
            raise errors.InternalError(
                None, None, "Unexpected error in binary operator (only integer div and mod "
                "should have errors)")
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _no_cpu_kernel(op_name, x):
    """TensorFlow's error for a dtype its op takes but has no CPU kernel for."""
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = "
        f"{op_name}[T=DT_{U.tf_type_name(D.as_dtype(x.dtype)).upper()}]")


def _floordiv_kernel(x, y):
    if x.dtype.kind == "c":
        raise _no_cpu_kernel("FloorDiv", x)
    if x.dtype.kind in "iu":
        _check_int_divisor(y, x=x)
        return np.floor_divide(x, y)
    return float_floordiv(x, y)


def float_floordiv(x, y):
    """TensorFlow's FloorDiv of floats, floor(x / y): NumPy's floor_divide
    corrects the rounded quotient (3. // 0.1 is 29 there, 30 here)."""
    return np.floor(np.true_divide(x, y))


def _floormod_kernel(x, y):
    if x.dtype.kind in "iu":
        _check_int_divisor(y, x=x)
        return np.mod(x, y)
    # TensorFlow's formula: fmod, moved by y where its sign is not y's. A
    # zero keeps x's sign (np.mod gives it y's: 0 mod -3 was -0.0).
    m = np.fmod(x, y)
    adjust = (m != 0) & ((y < 0) != (m < 0))
    if np.any(adjust):
        m = np.where(adjust, m + y, m).astype(m.dtype, copy=False)
    return m


# Complex products and quotients with TensorFlow's bits (NumPy's multiply may
# fuse; its division is Smith's everywhere, Eigen's packets scale).
_mul_kernel = complex_arith.or_numpy(complex_arith.multiply, np.multiply)
_realdiv_kernel = complex_arith.or_numpy(complex_arith.divide, np.true_divide)


def _div_kernel(x, y):
    if x.dtype.kind == "c":
        return complex_arith.divide(x, y)       # (Div of complex numbers divides)
    if x.dtype.kind in "iu":
        _check_int_divisor(y, x=x)
    return _truncatediv_kernel(x, y, checked=True)


def _truncatediv_kernel(x, y, checked=False):
    if x.dtype.kind == "c":
        raise _no_cpu_kernel("TruncateDiv", x)
    if x.dtype.kind in "iu":
        if not checked:
            _check_int_divisor(y, "TruncateDiv", x)
        # C's truncating division: the remainder has x's sign, so x - r is
        # a multiple of y, between 0 and x (|x| of the most negative value
        # wrapped: -2**31 // 2 gave +2**30).
        with np.errstate(over="ignore"):
            return ((x - np.fmod(x, y)) // y).astype(x.dtype, copy=False)
    return np.trunc(x / y).astype(x.dtype)


def _truncatemod_kernel(x, y):
    if x.dtype.kind == "f" and x.dtype.itemsize == 2 or x.dtype.name == "bfloat16":
        raise _no_cpu_kernel("TruncateMod", x)
    if x.dtype.kind in "iu":
        _check_int_divisor(y, "TruncateMod", x)
    return np.fmod(x, y)


# Eigen's pow, compiled (the jit extra) for large tensors once loaded.
_pow_bits = compiled_first("pow", pow_kernels.pow_kernel)


def _pow_kernel(x, y):
    if x.dtype.kind in "iu" and np.any(y < 0):
        raise errors.InvalidArgumentError(None, None,
                                          "Integers to negative integer powers are not allowed")
    out = _pow_bits(x, y)   # TensorFlow's bits for float32/16, bfloat16
    if out is None:
        with np.errstate(all="ignore"):
            out = np.power(x, y)
    return out


def _div_no_nan_kernel(x, y):
    if x.dtype.kind == "c":
        return complex_arith.divide_no_nan(x, y)
    with np.errstate(all="ignore"):
        out = np.true_divide(x, y)
    return np.where(y == 0, np.zeros((), x.dtype), out).astype(x.dtype)


def _mul_no_nan_kernel(x, y):
    if x.dtype.kind == "c":
        return complex_arith.multiply_no_nan(x, y)
    with np.errstate(all="ignore"):
        out = np.multiply(x, y)
    return np.where(y == 0, np.zeros((), out.dtype), out)


def _mul_no_nan_grad(op, g):
    x, y = op.inputs
    return (_sum_to(apply2(_MulNoNan, g, y), x), _sum_to(apply2(_MulNoNan, x, g), y))


def _squared_difference_kernel(x, y):
    d = x - y
    if d.dtype.kind == "c":
        return complex_arith.multiply(d, np.conj(d))
    return d * d


# --- gradients -------------------------------------------------------------

def _sum_to(grad, x):
    """Reduces a broadcast gradient back to the shape of input `x`."""
    xs, gs = x.shape, grad.shape
    if xs.is_fully_defined() and gs.is_fully_defined():
        xs_t, gs_t = tuple(xs.as_list()), tuple(gs.as_list())
        if xs_t == gs_t:
            return grad
        lead = len(gs_t) - len(xs_t)
        axes = list(range(lead)) + [i + lead for i, d in enumerate(xs_t)
                                     if d == 1 and gs_t[i + lead] != 1]
        if axes:
            grad = late.reduce_sum(grad, axis=axes)
        return late.reshape(grad, xs_t)
    rx, _ = late.broadcast_gradient_args(late.shape(x), late.shape(grad))
    return late.reshape(late.reduce_sum(grad, axis=rx), late.shape(x))


def _add_grad(op, g):
    x, y = op.inputs
    return _sum_to(g, x), _sum_to(g, y)


def _sub_grad(op, g):
    x, y = op.inputs
    return _sum_to(g, x), _sum_to(-g, y)


def _mul_grad(op, g):
    x, y = op.inputs
    return _sum_to(g * conj(y), x), _sum_to(conj(x) * g, y)


def _realdiv_grad(op, g):
    x, y = op.inputs
    return (_sum_to(g / conj(y), x),
            _sum_to(g * conj(-x / y / y), y))


def _pow_grad(op, g):
    x, y = op.inputs
    z = op.outputs[0]
    gx = g * y * pow(x, y - ones_like_scalar(y))
    if x.dtype.is_complex:
        logx = log_safe(x)
    else:
        logx = where_positive_log(x)
    gy = g * z * logx
    return _sum_to(gx, x), _sum_to(gy, y)


def ones_like_scalar(t):
    """A scalar 1 of `t`'s dtype."""
    return convert_to_tensor(1, dtype=t.dtype)


def where_positive_log(x):
    """log(x) where x > 0, else 0 (the y-gradient of pow is defined there)."""
    pos = greater(x, late.zeros_like(x))
    safe = late.where(pos, x, late.ones_like(x))
    return late.where(pos, late.log(safe), late.zeros_like(x))


def log_safe(x):
    """log(x) for complex x."""
    return late.log(x)


def _maxmin_grad(op, g):
    x, y = op.inputs
    xmask = greater_equal(x, y) if op.type == "Maximum" else less_equal(x, y)
    zeros = late.zeros_like(g)
    return _sum_to(late.where(xmask, g, zeros), x), _sum_to(late.where(xmask, zeros, g), y)


def _squared_difference_grad(op, g):
    x, y = op.inputs
    d = g * convert_to_tensor(2, dtype=g.dtype) * (x - y)
    return _sum_to(d, x), _sum_to(-d, y)


def _div_no_nan_grad(op, g):
    x, y = op.inputs
    return (_sum_to(div_no_nan(g, y), x),
            _sum_to(g * div_no_nan(div_no_nan(-x, y), y), y))


def _floor_grad(op, g):
    return None, None


def _neg_grad(op, g):
    return [-g]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


# Maximum and Minimum: NumPy's with TensorFlow's choice between -0 and +0.
_maximum_kernel = min_max.zero_ties(np.maximum)
_minimum_kernel = min_max.zero_ties(np.minimum)


# --- registry entries --------------------------------------------------------

_ARITH = NUMERIC
_AddV2 = register("AddV2", _add_kernel, U.binary_infer("AddV2"), _add_grad,
                  allowed=NUMERIC + (D.string,))
_Sub = register("Sub", np.subtract, U.binary_infer("Sub"), _sub_grad, allowed=_ARITH)
_Mul = register("Mul", _mul_kernel, U.binary_infer("Mul"), _mul_grad, allowed=_ARITH)
_RealDiv = register("RealDiv", _realdiv_kernel, U.binary_infer("RealDiv"), _realdiv_grad,
                    allowed=_ARITH)
_Div = register("Div", _div_kernel, U.binary_infer("Div"), _floor_grad, allowed=_ARITH)
# FloorDiv and TruncateDiv take complex numbers too, with no CPU kernel for them.
_FloorDiv = register("FloorDiv", _floordiv_kernel, U.binary_infer("FloorDiv"), _floor_grad,
                     allowed=REAL + U.COMPLEX)
_FloorMod = register("FloorMod", _floormod_kernel, U.binary_infer("FloorMod"),
                     lambda op, g: (_sum_to(g, op.inputs[0]),
                                    _sum_to(-g * floordiv(op.inputs[0], op.inputs[1]),
                                            op.inputs[1])),
                     allowed=REAL)
_TruncateDiv = register("TruncateDiv", _truncatediv_kernel, U.binary_infer("TruncateDiv"),
                        _floor_grad, allowed=REAL + U.COMPLEX)
# No gradient: TensorFlow registers none (tape.gradient raises LookupError).
# The op takes half and bfloat16 too, with no CPU kernel for them.
_TruncateMod = register("TruncateMod", _truncatemod_kernel, U.binary_infer("TruncateMod"),
                        None, allowed=(D.int32, D.int64, D.bfloat16, D.float16, D.float32,
                                       D.float64))
# TensorFlow's type lists: Pow has no unsigned integers, SquaredDifference
# only 32- and 64-bit ones.
_Pow = register("Pow", _pow_kernel, U.binary_infer("Pow"), _pow_grad,
                allowed=U.FLOATS + (D.int8, D.int16, D.int32, D.int64) + U.COMPLEX)
_Maximum = register("Maximum", _maximum_kernel, U.binary_infer("Maximum"), _maxmin_grad,
                    allowed=REAL)
_Minimum = register("Minimum", _minimum_kernel, U.binary_infer("Minimum"), _maxmin_grad,
                    allowed=REAL)
_SquaredDifference = register("SquaredDifference", _squared_difference_kernel,
                              U.binary_infer("SquaredDifference"), _squared_difference_grad,
                              allowed=U.FLOATS + (D.int32, D.int64) + U.COMPLEX)
_MulNoNan = register("MulNoNan", _mul_no_nan_kernel, U.binary_infer("MulNoNan"),
                     _mul_no_nan_grad, allowed=FLOAT_COMPLEX)
_DivNoNan = register("DivNoNan", _div_no_nan_kernel, U.binary_infer("DivNoNan"),
                     _div_no_nan_grad, allowed=FLOAT_COMPLEX)

_CMP = REAL
_Less = register("Less", np.less, U.binary_infer("Less", D.bool_), _no_grad, allowed=_CMP)
_LessEqual = register("LessEqual", np.less_equal, U.binary_infer("LessEqual", D.bool_),
                      _no_grad, allowed=_CMP)
_Greater = register("Greater", np.greater, U.binary_infer("Greater", D.bool_), _no_grad,
                    allowed=_CMP)
_GreaterEqual = register("GreaterEqual", np.greater_equal,
                         U.binary_infer("GreaterEqual", D.bool_), _no_grad, allowed=_CMP)


def _broadcastable(xs, ys):
    return all(a == b or a == 1 or b == 1 for a, b in zip(xs[::-1], ys[::-1]))


def _equal_kernel(x, y, incompatible_shape_error=True):
    if not incompatible_shape_error and not _broadcastable(x.shape, y.shape):
        return np.array(False)
    x, y = D.plain(x), D.plain(y)   # quantized values compare as their integers
    if x.dtype.kind == "O" or y.dtype.kind == "O":
        return np.asarray(np.equal(x, y), dtype=bool)
    return np.equal(x, y)


def _not_equal_kernel(x, y, incompatible_shape_error=True):
    if not incompatible_shape_error and not _broadcastable(x.shape, y.shape):
        return np.array(True)
    x, y = D.plain(x), D.plain(y)
    if x.dtype.kind == "O" or y.dtype.kind == "O":
        return np.asarray(np.not_equal(x, y), dtype=bool)
    return np.not_equal(x, y)


def _equality_infer(op_name):
    """Shape function of Equal/NotEqual: with `incompatible_shape_error=False`
    (the `==` operator), shapes that cannot broadcast give a scalar result."""
    strict = U.binary_infer(op_name, D.bool_)

    def infer(inputs, attrs):
        if attrs.get("incompatible_shape_error", True):
            return strict(inputs, attrs)
        try:
            return strict(inputs, attrs)
        except ValueError:
            return [(TensorShape([]), D.bool_)]
    return infer


# TensorFlow's Equal/NotEqual kernels also take the quantized types.
_Equal = register("Equal", _equal_kernel, _equality_infer("Equal"), _no_grad,
                  allowed=ALL + tuple(D.QUANTIZED))
_NotEqual = register("NotEqual", _not_equal_kernel, _equality_infer("NotEqual"), _no_grad,
                     allowed=ALL + tuple(D.QUANTIZED))
_LogicalAnd = register("LogicalAnd", np.logical_and, U.binary_infer("LogicalAnd"), _no_grad,
                       allowed=_BOOL)
_LogicalOr = register("LogicalOr", np.logical_or, U.binary_infer("LogicalOr"), _no_grad,
                      allowed=_BOOL)
_LogicalNot = register("LogicalNot", np.logical_not, U.unary_infer("LogicalNot"), _no_grad,
                       allowed=_BOOL)
_BitwiseAnd = register("BitwiseAnd", np.bitwise_and, U.binary_infer("BitwiseAnd"), _no_grad,
                       allowed=INTS)
_BitwiseOr = register("BitwiseOr", np.bitwise_or, U.binary_infer("BitwiseOr"), _no_grad,
                      allowed=INTS)
_BitwiseXor = register("BitwiseXor", np.bitwise_xor, U.binary_infer("BitwiseXor"), _no_grad,
                       allowed=INTS)
_Invert = register("Invert", np.invert, U.unary_infer("Invert"), _no_grad, allowed=INTS)
# TensorFlow's Neg has no unsigned kernels.
_Neg = register("Neg", np.negative, U.unary_infer("Neg"), _neg_grad,
                allowed=U.FLOATS + U.SIGNED_INTS + U.COMPLEX)


def _conj_kernel(x):
    return np.conj(x) if x.dtype.kind == "c" else x


_Conj = register("Conj", _conj_kernel, U.unary_infer("Conj"),
                 lambda op, g: [conj(g)], allowed=NUMERIC)


# --- public functions ------------------------------------------------------

@export("math.add", "add")
def add(x, y, name=None):
    """x + y elementwise, with broadcasting (strings concatenate).

    Unlike the other binary ops, TensorFlow converts `y` with `x`'s dtype only
    as a hint: `int_tensor + 0.5` is the op's dtype error
    (InvalidArgumentError), not a conversion TypeError.
    """
    return binary(_AddV2, x, y, name or "Add", strict=False)


@export("math.subtract", "subtract")
def subtract(x, y, name=None):
    """x - y elementwise, with broadcasting."""
    return binary(_Sub, x, y, name or "Sub")


@export("math.multiply", "multiply")
def multiply(x, y, name=None):
    """x * y elementwise, with broadcasting."""
    return binary(_Mul, x, y, name or "Mul")


_TRUEDIV_DTYPES = ("{tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, "
                   "tf.int64, tf.bfloat16, tf.float16, tf.float32, tf.float64, tf.complex64, "
                   "tf.complex128}")


@export("math.truediv", "truediv")
def truediv(x, y, name=None):
    """x / y as floats: int8/int16/uint8/uint16 become float32, int32/int64 float64.

    Raises:
      TypeError: if `x` and `y` have different dtypes (after converting a
        Python `y` with `x`'s dtype as a hint), or a bool or string dtype.
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    x, y = _float_division_operands(x, y, "__truediv__")
    return binary(_RealDiv, x, y, name or "truediv")


def _same_dtype(x, y):
    if x.dtype is not y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")


def _float_division_operands(x, y, where):
    """The operands of a true division: one dtype, integers as floats
    (float32 up to 16 bits, else float64), never bool or string."""
    _same_dtype(x, y)
    if x.dtype.is_integer:
        target = D.float32 if x.dtype.size <= 2 else D.float64
        return cast(x, target), cast(y, target)
    if x.dtype is D.bool_ or x.dtype is D.string:
        raise TypeError(f"Invalid dtype {x.dtype!r} in {where}. Expected one of "
                        f"{_TRUEDIV_DTYPES}.")
    return x, y


@export("math.divide", "divide")
def divide(x, y, name=None):
    """x / y (Python 3 division, same as `truediv`); a Python `x` takes the
    dtype of a tensor `y` (TypeError if it cannot)."""
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = U.operand_like(x, y)
    return truediv(x, y, name or "truediv")


@export("math.realdiv", "realdiv")
def realdiv(x, y, name=None):
    """x / y for real (float) tensors."""
    return binary(_RealDiv, x, y, name or "RealDiv")


@export("math.floordiv", "floordiv")
def floordiv(x, y, name=None):
    """Division rounding toward negative infinity (Python's `//`)."""
    return binary(_FloorDiv, x, y, name or "floordiv")


@export("math.floormod", "math.mod", "floormod", "mod")
def floormod(x, y, name=None):
    """Remainder with the sign of the divisor (Python's `%`)."""
    return binary(_FloorMod, x, y, name or "FloorMod")


@export("truncatediv", "math.truncatediv")
def truncatediv(x, y, name=None):
    """Division rounding toward zero (C semantics)."""
    return binary(_TruncateDiv, x, y, name or "TruncateDiv")


@export("truncatemod", "math.truncatemod")
def truncatemod(x, y, name=None):
    """Remainder with the sign of the dividend (C semantics)."""
    return binary(_TruncateMod, x, y, name or "TruncateMod")


@export("math.pow", "pow")
def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """x ** y elementwise."""
    return binary(_Pow, x, y, name or "Pow")


@export("math.maximum", "maximum")
def maximum(x, y, name=None):
    """The larger of x and y elementwise."""
    return binary(_Maximum, x, y, name or "Maximum")


@export("math.minimum", "minimum")
def minimum(x, y, name=None):
    """The smaller of x and y elementwise."""
    return binary(_Minimum, x, y, name or "Minimum")


@export("math.squared_difference")
def squared_difference(x, y, name=None):
    """(x - y) * (x - y) elementwise."""
    return binary(_SquaredDifference, x, y, name or "SquaredDifference")


@export("math.divide_no_nan", "div_no_nan")
def div_no_nan(x, y, name=None):
    """x / y, but 0 wherever y is 0; integers divide as floats, as in `truediv`.

    Raises:
      TypeError: for operands of different dtypes, or bool or string ones.
    """
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = U.operand_like(x, y)
    else:
        x = convert_to_tensor(x)
        y = convert_to_tensor(y, dtype_hint=x.dtype)
    x, y = _float_division_operands(x, y, "tf.math.divide_no_nan")
    return binary(_DivNoNan, x, y, name or "div_no_nan")


@export("math.multiply_no_nan")
def multiply_no_nan(x, y, name=None):
    """x * y, but 0 wherever y is 0 (even where x is inf or nan).

    Raises:
      TypeError: for operands of different dtypes.
    """
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype_hint=x.dtype)
    _same_dtype(x, y)
    return binary(_MulNoNan, x, y, name or "MulNoNan")


@export("math.reciprocal_no_nan")
def reciprocal_no_nan(x, name=None):
    """1 / x, but 0 wherever x is 0."""
    x = convert_to_tensor(x)
    # DivNoNan itself (no cast of integers, unlike div_no_nan): TensorFlow's.
    return binary(_DivNoNan, U.operand_like(1, x), x, name=name or "reciprocal_no_nan")


@export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar, x, name=None):
    """`scalar * x` for a 0-d `scalar`.

    Raises:
      ValueError: if `scalar` is not 0-d.
    """
    x = convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype)
    if scalar.shape.rank not in (None, 0):
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    return multiply(scalar, x, name=name or "scalar_mul")


@export("math.less", "less")
def less(x, y, name=None):
    """x < y elementwise (bool)."""
    return binary(_Less, x, y, name or "Less")


@export("math.less_equal", "less_equal")
def less_equal(x, y, name=None):
    """x <= y elementwise (bool)."""
    return binary(_LessEqual, x, y, name or "LessEqual")


@export("math.greater", "greater")
def greater(x, y, name=None):
    """x > y elementwise (bool)."""
    return binary(_Greater, x, y, name or "Greater")


@export("math.greater_equal", "greater_equal")
def greater_equal(x, y, name=None):
    """x >= y elementwise (bool)."""
    return binary(_GreaterEqual, x, y, name or "GreaterEqual")


@export("math.equal", "equal")
def equal(x, y, name=None):
    """x == y elementwise (bool)."""
    return binary(_Equal, x, y, name or "Equal")


@export("math.not_equal", "not_equal")
def not_equal(x, y, name=None):
    """x != y elementwise (bool)."""
    return binary(_NotEqual, x, y, name or "NotEqual")


@export("math.logical_and", "logical_and")
def logical_and(x, y, name=None):
    """x AND y elementwise (bool tensors)."""
    return binary(_LogicalAnd, x, y, name or "LogicalAnd")


@export("math.logical_or", "logical_or")
def logical_or(x, y, name=None):
    """x OR y elementwise (bool tensors)."""
    return binary(_LogicalOr, x, y, name or "LogicalOr")


@export("math.logical_xor", "logical_xor")
def logical_xor(x, y, name="LogicalXor"):
    """x XOR y elementwise (bool tensors)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


@export("math.logical_not", "logical_not")
def logical_not(x, name=None):
    """NOT x elementwise (bool tensor)."""
    return unary(_LogicalNot, x, name or "LogicalNot")


@export("bitwise.bitwise_and")
def bitwise_and(x, y, name=None):
    """Bitwise AND of integer tensors."""
    return binary(_BitwiseAnd, x, y, name or "BitwiseAnd")


@export("bitwise.bitwise_or")
def bitwise_or(x, y, name=None):
    """Bitwise OR of integer tensors."""
    return binary(_BitwiseOr, x, y, name or "BitwiseOr")


@export("bitwise.bitwise_xor")
def bitwise_xor(x, y, name=None):
    """Bitwise XOR of integer tensors."""
    return binary(_BitwiseXor, x, y, name or "BitwiseXor")


@export("bitwise.invert")
def invert(x, name=None):
    """Bitwise NOT of an integer tensor."""
    return unary(_Invert, x, name or "Invert")


@export("math.negative", "negative")
def negative(x, name=None):
    """-x elementwise."""
    return unary(_Neg, x, name or "Neg")


@export("math.conj", "conj")
def conj(x, name=None):
    """Complex conjugate; real tensors are returned unchanged."""
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        if x.dtype.is_floating or x.dtype.is_integer or x.dtype.name == "variant":
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")
    return unary(_Conj, x, name or "Conj")


# --- cast --------------------------------------------------------------------

def _cast_kernel(x, DstT, Truncate=False):
    if x.dtype.kind == "V":
        x = D.plain(x)   # from a quantized type: its integers
    if DstT.is_quantized:
        # To a quantized type: as to its integer type, then relabelled.
        return np.asarray(_cast_values(x, DstT._np[0])).view(DstT._np)
    return _cast_values(x, DstT._np)


def _cast_values(x, dst):
    if x.dtype.kind == "c" and dst.kind != "c":
        x = x.real
    if dst.kind in "iu" and x.dtype.kind == "f":
        with np.errstate(all="ignore"):
            return np.trunc(x).astype(dst)
    if dst.kind == "b":
        return x != 0
    with np.errstate(all="ignore"):
        return x.astype(dst)


def _cast_infer(inputs, attrs):
    x = inputs[0]
    if x.dtype is D.string or attrs["DstT"] is D.string:
        raise TypeError(f"Cast from {x.dtype.name} to {attrs['DstT'].name} is not supported")
    return [(x.shape, attrs["DstT"])]


def _cast_grad(op, g):
    src = op.inputs[0].dtype
    if (src.is_floating or src.is_complex) and (g.dtype.is_floating or g.dtype.is_complex):
        return [cast(g, src)]
    return [None]


_Cast = register("Cast", _cast_kernel, _cast_infer, _cast_grad)


@export("cast", "dtypes.cast")
def cast(x, dtype, name=None):
    """Converts `x` to `dtype` (floats to ints truncate toward zero).

    Raises:
      UnimplementedError: for casts to or from strings (TensorFlow's Cast
        kernel has none; tf.strings.as_string / to_number convert).
    """
    dtype = D.as_dtype(dtype)
    if x.__class__ is IndexedSlices:
        # As in TensorFlow: the values cast, the rows kept.
        return IndexedSlices(cast(x.values, dtype, name=name), x.indices, x.dense_shape)
    if x.__class__ is SparseTensor:
        return x.with_values(cast(x.values, dtype, name=name))
    # As TensorFlow: a Python value becomes a tensor of its own default
    # type first (a float: float32, so `cast(0.1, tf.float64)` is
    # 0.10000000149011612), then it is cast.
    x = convert_to_tensor(x, name="x")
    if x.dtype is dtype:
        return x
    if x.dtype is D.string or dtype is D.string:
        raise errors.UnimplementedError(
            None, None, f"Cast {U.tf_type_name(x.dtype)} to {U.tf_type_name(dtype)} is not "
            "supported [Op:Cast]")
    return apply1(_Cast, x, {"DstT": dtype, "Truncate": False}, name=name or "Cast")


def _exact(v):
    """A NumPy scalar as a Python number, which compares exactly with ints
    (NumPy would round the int to the scalar's float type first)."""
    return v.item()


@export("saturate_cast", "dtypes.saturate_cast")
def saturate_cast(value, dtype, name=None):
    """Casts, clipping values to the range of `dtype` first."""
    dtype = D.as_dtype(dtype)
    value = convert_to_tensor(value)
    if dtype.is_integer or dtype.is_floating:
        if value.dtype.is_integer or value.dtype.is_floating:
            # The limits in the input's dtype; one that rounds past the
            # output's range (float32(2**31 - 1) is 2**31) steps back toward 0,
            # as TensorFlow does, so the cast cannot overflow.
            np_in = value.dtype.as_numpy_dtype
            lo = np_in(max(value.dtype.min, dtype.min))
            if _exact(lo) < dtype.min:
                lo = np.nextafter(lo, np_in(0))
            hi = np_in(min(value.dtype.max, dtype.max))
            if _exact(hi) > dtype.max:
                hi = np.nextafter(hi, np_in(0))
            value = late.clip_by_value(value, convert_to_tensor(lo, value.dtype),
                                  convert_to_tensor(hi, value.dtype))
    return cast(value, dtype, name=name)
