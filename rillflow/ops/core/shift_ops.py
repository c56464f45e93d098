"""`tf.bitwise.left_shift` and `right_shift` (the LeftShift and RightShift
ops) with TensorFlow's rules for shift amounts out of range: the amount is
clamped to [0, bits - 1] (so shifting by a negative amount does nothing and
shifting by the width or more shifts by width - 1), left shifts are done on
the unsigned bits (wrapping, never undefined), right shifts of signed values
are arithmetic. Neither op is differentiable."""
import numpy as np

from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.op_registry import register
from . import op_util as U
from .op_util import INTS, binary

__all__ = ["left_shift", "right_shift"]


def _clamped(x, y):
    # Eigen's functors clamp the amount so that the C++ shift is defined.
    return np.clip(y, 0, x.dtype.itemsize * 8 - 1)


def _left_shift_kernel(x, y):
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    amount = _clamped(x, y).astype(unsigned)
    return np.left_shift(x.astype(unsigned), amount).astype(x.dtype)


def _right_shift_kernel(x, y):
    return np.right_shift(x, _clamped(x, y).astype(x.dtype))


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


_LeftShift = register("LeftShift", _left_shift_kernel, U.binary_infer("LeftShift"), _no_grad,
                      allowed=INTS)
_RightShift = register("RightShift", _right_shift_kernel, U.binary_infer("RightShift"),
                       _no_grad, allowed=INTS)


@export("bitwise.left_shift", "compat.v1.bitwise.left_shift")
def left_shift(x, y, name=None):
    """x shifted left by y bits, elementwise with broadcasting (integer
    tensors of one dtype); amounts outside [0, bits - 1] are clamped into it."""
    return binary(_LeftShift, x, y, name or "LeftShift")


@export("bitwise.right_shift", "compat.v1.bitwise.right_shift")
def right_shift(x, y, name=None):
    """x shifted right by y bits (arithmetic for signed x), elementwise with
    broadcasting; amounts outside [0, bits - 1] are clamped into it."""
    return binary(_RightShift, x, y, name or "RightShift")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_shift(ctx, op, x, y):
    x, y = XL.broadcast(x, y)
    bits = x.dtype.itemsize * 8
    amount = XL.jnp.clip(y, 0, bits - 1).astype(x.dtype)
    fn = XL.lax.shift_left if op.type == "LeftShift" else XL.lax.shift_right_arithmetic \
        if XL.jnp.issubdtype(x.dtype, XL.jnp.signedinteger) else XL.lax.shift_right_logical
    return fn(x, amount)


XL.set_lowerings({"LeftShift": _lower_shift, "RightShift": _lower_shift})
