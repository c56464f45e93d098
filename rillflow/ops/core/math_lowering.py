"""The XLA lowerings (framework/lowering.py) of math_ops' arithmetic,
comparison and cast ops: jax.numpy/lax expressions with TensorFlow's
semantics (integer division truncating, DivNoNan/MulNoNan zeros, Equal of
unbroadcastable shapes). Kept apart from math_ops so that module stays one
idea (the ops and their kernels)."""
import numpy as np

from ...framework import lowering as XL
from .math_ops import _broadcastable

def _lower_div(ctx, op, x, y):
    # TensorFlow's Div and TruncateDiv: integers truncate toward zero. Its
    # FloorDiv of floats is floor(x / y), the kernel's own formula
    # (jnp.floor_divide's divmod loses the sign of a zero quotient: -0.0 / 5
    # gave +0.0, and 1 / that +inf instead of -inf).
    if op.type == "FloorDiv":
        return XL.jnp.floor_divide(x, y) if XL.is_int(x) else \
            XL.jnp.floor(XL.jnp.true_divide(x, y))
    if XL.is_int(x):
        return XL.lax.div(*XL.broadcast(x, y))
    q = XL.jnp.true_divide(x, y)
    return XL.jnp.trunc(q) if op.type == "TruncateDiv" else q


def _lower_pow(ctx, op, x, y):
    # A static small integer exponent (x ** 2) multiplies: a generic pow costs ~20x.
    if ctx.is_static(y) and np.ndim(y) == 0 and float(y) == int(y) and 0 < abs(int(y)) <= 4 \
            and not XL.is_int(XL.jnp.asarray(x)):
        out = XL.lax.integer_pow(XL.jnp.asarray(x), abs(int(y)))
        return out if int(y) > 0 else 1 / out
    return XL.jnp.power(x, y)


def _lower_squared_difference(ctx, op, x, y):
    return (lambda d: d * XL.jnp.conj(d))(XL.jnp.subtract(x, y))


def _lower_div_no_nan(ctx, op, x, y):
    zero = XL.jnp.equal(y, 0)
    return XL.jnp.where(zero, XL.jnp.zeros((), op.outputs[0].dtype._np),
                        XL.jnp.true_divide(x, XL.jnp.where(zero, XL.jnp.ones_like(y), y)))


def _lower_mul_no_nan(ctx, op, x, y):
    return XL.jnp.where(XL.jnp.equal(y, 0), XL.jnp.zeros((), op.outputs[0].dtype._np),
                        XL.jnp.multiply(x, y))


def _lower_equality(ctx, op, x, y):
    if not op.attrs.get("incompatible_shape_error", True) and \
            not _broadcastable(XL.jnp.shape(x), XL.jnp.shape(y)):
        return np.array(op.type == "NotEqual")
    return (XL.jnp.equal if op.type == "Equal" else XL.jnp.not_equal)(x, y)


def _lower_cast(ctx, op, x):
    dst = op.attrs["DstT"]._np
    x = XL.jnp.asarray(x)
    if XL.jnp.iscomplexobj(x) and dst.kind != "c":
        x = XL.jnp.real(x)
    if dst.kind in "iu" and XL.jnp.issubdtype(x.dtype, XL.jnp.floating):
        x = XL.jnp.trunc(x)
    if dst.kind == "b":
        return XL.jnp.not_equal(x, 0)
    return XL.lax.convert_element_type(x, dst)


XL.set_lowerings({
    "AddV2": "jnp.add", "Sub": "jnp.subtract", "Mul": "jnp.multiply",
    "RealDiv": "jnp.true_divide", "Div": _lower_div, "TruncateDiv": _lower_div,
    "FloorDiv": _lower_div, "FloorMod": "jnp.remainder", "TruncateMod": "jnp.fmod",
    "Pow": _lower_pow, "Maximum": "jnp.maximum", "Minimum": "jnp.minimum",
    "SquaredDifference": _lower_squared_difference, "MulNoNan": _lower_mul_no_nan,
    "DivNoNan": _lower_div_no_nan, "Less": "jnp.less", "LessEqual": "jnp.less_equal",
    "Greater": "jnp.greater", "GreaterEqual": "jnp.greater_equal", "Equal": _lower_equality,
    "NotEqual": _lower_equality, "LogicalAnd": "jnp.logical_and", "LogicalOr": "jnp.logical_or",
    "LogicalNot": "jnp.logical_not", "BitwiseAnd": "jnp.bitwise_and",
    "BitwiseOr": "jnp.bitwise_or", "BitwiseXor": "jnp.bitwise_xor", "Invert": "jnp.invert",
    "Neg": "jnp.negative", "Conj": "jnp.conj", "Cast": _lower_cast})
