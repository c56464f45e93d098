"""`tf.bitcast`: the same bytes read as another dtype."""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from . import op_util as U

__all__ = ["bitcast"]

_BITCASTABLE = U.NUMERIC


def _bitcast_kernel(input, type):
    src, dst = input.dtype.itemsize, np.dtype(type.as_numpy_dtype).itemsize
    if src < dst:
        if not input.shape or input.shape[-1] * src != dst:
            src_enum = D.from_numpy(input.dtype).as_datatype_enum
            raise U.op_error("Bitcast", f"Cannot bitcast from {src_enum} to "
                             f"{type.as_datatype_enum}: the last dimension must be {dst // src}")
        return np.ascontiguousarray(input).view(type.as_numpy_dtype)[..., 0]
    out = np.ascontiguousarray(input).reshape(input.shape + (1,)).view(type.as_numpy_dtype)
    return out if src > dst else out[..., 0]


def _bitcast_infer(inputs, attrs):
    x, dst = inputs[0], attrs["type"]
    src_size, dst_size = x.dtype.size, dst.size
    if x.shape.rank is None:
        return [(TensorShape(None), dst)]
    dims = x.shape.as_list()
    if src_size > dst_size:
        dims = dims + [src_size // dst_size]
    elif src_size < dst_size:
        if not dims or (dims[-1] is not None and dims[-1] * src_size != dst_size):
            raise ValueError(f"Cannot bitcast from {x.dtype.as_datatype_enum} to "
                             f"{dst.as_datatype_enum}")
        dims = dims[:-1]
    return [(TensorShape(dims), dst)]


_Bitcast = register("Bitcast", _bitcast_kernel, _bitcast_infer, allowed=_BITCASTABLE)


@export("bitcast", "dtypes.bitcast")
def bitcast(input, type, name=None):
    """`input`'s bytes as `type`: a smaller type adds a last dimension (one
    element per piece), a larger one consumes a last dimension of that size.

    Raises:
      InvalidArgumentError: if the last dimension does not make whole elements.
    """
    x = convert_to_tensor(input)
    U.check_dtype("Bitcast", x, _BITCASTABLE)
    return apply(_Bitcast, [x], {"type": D.as_dtype(type)}, name=name or "Bitcast")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

XL.set_lowerings({"Bitcast": lambda ctx, op, x: XL.lax.bitcast_convert_type(
    x, op.attrs["type"]._np)})
