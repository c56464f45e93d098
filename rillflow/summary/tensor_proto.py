"""NumPy values, dtypes and shapes as TensorBoard's TensorProto, DataType
and TensorShapeProto."""
import numpy as np

from ..framework import dtypes as D
from ..framework.tensor_shape import TensorShape
from . import protos

__all__ = ["make_tensor_proto", "shape_proto", "dtype_enum"]

# Scalars of these dtypes go in the typed `*_val` fields, as TensorFlow
# writes graph constants; everything else goes in `tensor_content`.
_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
               "int64": "int64_val", "bool": "bool_val"}


def dtype_enum(dtype):
    """TensorFlow's DataType enum number for a rillflow DType or NumPy dtype."""
    if not isinstance(dtype, D.DType):
        dtype = D.from_numpy(np.dtype(dtype))
    return dtype.as_datatype_enum


def shape_proto(shape):
    """A TensorShapeProto for a TensorShape, tuple or list (None dims as -1)."""
    P = protos.load()
    proto = P.tensor_shape_pb2.TensorShapeProto()
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.rank is None:
        proto.unknown_rank = True
        return proto
    for d in shape:
        proto.dim.add(size=-1 if d is None else int(d))
    return proto


def make_tensor_proto(value, typed_scalars=False):
    """The TensorProto holding the NumPy array (or scalar) `value`.

    Strings go in `string_val`; numbers in `tensor_content` (little-endian),
    or, with `typed_scalars`, single values in the typed field TensorFlow
    uses for graph constants (`float_val`, `int_val`, ...).
    """
    P = protos.load()
    arr = np.asarray(value)
    proto = P.tensor_pb2.TensorProto(dtype=dtype_enum(arr.dtype),
                                     tensor_shape=shape_proto(arr.shape))
    if arr.dtype.kind in "OSU":
        proto.string_val.extend(_as_bytes(v) for v in arr.reshape(-1).tolist())
        return proto
    field = _VAL_FIELDS.get(arr.dtype.name) if typed_scalars and arr.size == 1 else None
    if field is not None:
        getattr(proto, field).append(arr.reshape(-1)[0].item())
    else:
        proto.tensor_content = np.ascontiguousarray(
            arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return proto


def _as_bytes(v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    return str(v).encode("utf-8")
