"""SparseTensors as strings: `tf.io.serialize_sparse`,
`serialize_many_sparse` and `deserialize_many_sparse` (the SerializeSparse,
SerializeManySparse and DeserializeManySparse ops).

A serialized SparseTensor is three strings, the TensorProto bytes of its
indices, values and dense shape, exactly as TensorFlow writes them
(`tf.io.serialize_tensor`'s encoding). `serialize_many_sparse` cuts a
SparseTensor along its first dimension, one row of three strings per
entry; `deserialize_many_sparse` joins such rows back, with a leading
dimension per row and the largest shape of each inner dimension.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor, SparseTensorValue
from ...framework.tensor_shape import TensorShape
from ...io import tensor_pb, wire
from ..core import op_util as U
from ..sparse.sparse_kernels import _check_sorted

__all__ = ["serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse"]

_MAX_ROWS = 1 << 26


def _string_values(values):
    """A string vector's TensorProto as these ops write it: in
    `tensor_content` (the lengths as varints, then the bytes), not as
    `string_val` entries."""
    head = wire.key(1, wire.VARINT) + wire.encode_varint(D.string.as_datatype_enum)
    shape = wire.len_field(2, wire.len_field(2, wire.key(1, wire.VARINT) +
                                             wire.encode_varint(len(values))
                                             if len(values) else b""))
    if not len(values):
        return head + shape
    items = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in values]
    content = b"".join(wire.encode_varint(len(v)) for v in items) + b"".join(items)
    return head + shape + wire.len_field(4, content)


def _encode(indices, values, shape, dtype):
    out = np.empty(3, dtype=object)
    values = np.asarray(values)
    out[:] = [tensor_pb.encode_tensor(np.asarray(indices, np.int64), D.int64),
              _string_values(values.reshape(-1)) if dtype is D.string else
              tensor_pb.encode_tensor(values, dtype),
              tensor_pb.encode_tensor(np.asarray(shape, np.int64), D.int64)]
    return out


def _check_components(op, indices, values, shape):
    if indices.ndim != 2:
        raise U.op_error(op, f"Input indices should be a matrix but received shape "
                         f"{list(indices.shape)}".replace(" ", ""))
    if values.ndim != 1:
        raise U.op_error(op, "Input values should be a vector but received shape "
                         f"{list(values.shape)}".replace(" ", ""))
    if shape.ndim != 1:
        raise U.op_error(op, "Input shape should be a vector but received shape "
                         f"{list(shape.shape)}".replace(" ", ""))


def _serialize_kernel(indices, values, dense_shape, T=None, out_type=None):
    indices, values, shape = np.asarray(indices), np.asarray(values), np.asarray(dense_shape)
    _check_components("SerializeSparse", indices, values, shape)
    return _encode(indices, values, shape, T)


def _serialize_many_kernel(indices, values, dense_shape, T=None, out_type=None):
    indices, values, shape = np.asarray(indices), np.asarray(values), np.asarray(dense_shape)
    _check_components("SerializeManySparse", indices, values, shape)
    rank = shape.shape[0]
    if rank <= 1:
        raise U.op_error("SerializeManySparse", "Rank of input SparseTensor should be > 1, "
                         f"but saw rank: {rank}")
    _check_sorted(indices, shape)
    n = int(shape[0])
    if n > _MAX_ROWS:
        # One row of three strings per entry of the first dimension.
        raise U.op_error("SerializeManySparse", f"OOM when allocating tensor with shape[{n},3] "
                         "and type string", errors.ResourceExhaustedError)
    out = np.empty((n, 3), dtype=object)
    empty_idx = np.zeros((0, rank - 1), np.int64)
    for b in range(n):
        out[b] = _encode(empty_idx, values[:0], shape[1:], T)
    # Entries are sorted, so each row's entries are one run.
    starts = np.flatnonzero(np.diff(indices[:, 0], prepend=-1)) if len(indices) else []
    ends = list(starts[1:]) + [len(indices)]
    for s, e in zip(starts, ends):
        out[int(indices[s, 0])] = _encode(indices[s:e, 1:], values[s:e], shape[1:], T)
    return out


def _decode(op, data, dtype, i):
    """(indices, values, shape) of one serialized row, checked."""
    try:
        parts = [tensor_pb.decode_tensor(bytes(d)) for d in data]
    except (wire.DecodeError, ValueError, UnicodeDecodeError, TypeError):
        raise U.op_error(op, "Could not parse serialized proto") from None
    (idx, idx_t), (vals, vals_t), (shape, shape_t) = parts
    if idx_t is not D.int64 or idx.ndim != 2:
        raise U.op_error(op, f"Expected serialized_sparse[{i}, 0] to represent an index "
                         "matrix but received shape " + _dims(idx.shape))
    if vals_t is not dtype:
        raise U.op_error(op, f"Requested SparseTensor of type {U.tf_type_name(dtype)} but "
                         f"SparseTensor[{i}].values.dtype() == {U.tf_type_name(vals_t)}")
    if vals.ndim != 1:
        raise U.op_error(op, f"Expected serialized_sparse[{i}, 1] to represent a values "
                         "vector but received shape " + _dims(vals.shape))
    if shape_t is not D.int64 or shape.ndim != 1:
        raise U.op_error(op, f"Expected serialized_sparse[{i}, 2] to represent a shape "
                         "vector but received shape " + _dims(shape.shape))
    if idx.shape[0] != vals.shape[0] or idx.shape[1] != shape.shape[0]:
        raise U.op_error(op, f"Inconsistent SparseTensor[{i}]: indices "
                         f"{_dims(idx.shape)}, values {_dims(vals.shape)}, shape "
                         f"{_dims(shape.shape)}")
    return idx, vals, shape


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _deserialize_many_kernel(serialized_sparse, dtype=None):
    op = "DeserializeManySparse"
    s = np.asarray(serialized_sparse, dtype=object)
    if s.ndim < 1 or s.shape[-1] != 3:
        raise U.op_error(op, "Serialized sparse should have 3 as the last dimension "
                         + _dims(s.shape))
    rows = s.reshape(-1, 3)
    parts = [_decode(op, r, dtype, i) for i, r in enumerate(rows)]
    if s.ndim == 1:
        idx, vals, shape = parts[0]
        return idx, vals, shape
    rank = parts[0][2].shape[0]
    shape = parts[0][2].copy()
    for i, (_, _, sh) in enumerate(parts[1:], 1):
        if sh.shape[0] != rank:
            raise U.op_error(op, "Inconsistent shape across SparseTensors: rank prior to "
                             f"SparseTensor[{i}] was: {rank} but rank of SparseTensor[{i}] "
                             f"is: {sh.shape[0]}")
        shape = np.maximum(shape, sh)
    lead = np.array(list(np.ndindex(*s.shape[:-1])), dtype=np.int64).reshape(len(rows), -1)
    indices = np.concatenate(
        [np.concatenate([np.repeat(lead[i:i + 1], len(p[0]), axis=0), p[0]], axis=1)
         for i, p in enumerate(parts)]) if parts else np.zeros((0, s.ndim - 1 + rank))
    values = np.concatenate([p[1] for p in parts])
    out_shape = np.concatenate([np.array(s.shape[:-1], np.int64), shape])
    return indices.astype(np.int64), values, out_shape


def _serialize_infer(inputs, attrs):
    return [(TensorShape([3]), attrs["out_type"])]


def _serialize_many_infer(inputs, attrs):
    return [(TensorShape([None, 3]), attrs["out_type"])]


def _deserialize_infer(inputs, attrs):
    return [(TensorShape([None, None]), D.int64), (TensorShape([None]), attrs["dtype"]),
            (TensorShape([None]), D.int64)]


_SerializeSparse = register("SerializeSparse", _serialize_kernel, _serialize_infer)
_SerializeManySparse = register("SerializeManySparse", _serialize_many_kernel,
                                _serialize_many_infer)
_DeserializeManySparse = register("DeserializeManySparse", _deserialize_many_kernel,
                                  _deserialize_infer)


def _components(sp_input):
    if isinstance(sp_input, SparseTensorValue):
        sp_input = SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor. Received: {type(sp_input)}")
    return [sp_input.indices, sp_input.values, sp_input.dense_shape]


def _out_type(out_type, op):
    out_type = D.as_dtype(out_type)
    if out_type not in (D.string, D.variant):
        raise U.dtype_error(op, out_type, (D.string, D.variant), attr="out_type",
                            param="out_type")
    if out_type is not D.string:
        raise NotImplementedError("rillflow serializes SparseTensors to strings only "
                                  f"(out_type=tf.string); got out_type={out_type!r}")
    return out_type


@export("io.serialize_sparse", "compat.v1.io.serialize_sparse", "compat.v1.serialize_sparse")
def serialize_sparse(sp_input, out_type=D.string, name=None):
    """A SparseTensor as a string vector of three elements: the TensorProto
    bytes of its indices, values and dense shape (TensorFlow's bytes).

    Raises:
      TypeError: if `sp_input` is not a SparseTensor.
      NotImplementedError: for an `out_type` other than tf.string.
    """
    comps = _components(sp_input)
    return apply(_SerializeSparse, comps,
                 {"T": comps[1].dtype, "out_type": _out_type(out_type, "SerializeSparse")},
                 name=name or "SerializeSparse")


@export("io.serialize_many_sparse", "compat.v1.io.serialize_many_sparse",
        "compat.v1.serialize_many_sparse")
def serialize_many_sparse(sp_input, out_type=D.string, name=None):
    """A SparseTensor of rank R >= 2 as an `[N, 3]` string matrix: row `b` is
    the serialized rank R-1 SparseTensor of entry `b` of the first
    dimension (its indices must be sorted).

    Raises:
      InvalidArgumentError: for rank < 2, or unsorted, repeated or
        out-of-bounds indices.
    """
    comps = _components(sp_input)
    return apply(_SerializeManySparse, comps,
                 {"T": comps[1].dtype,
                  "out_type": _out_type(out_type, "SerializeManySparse")},
                 name=name or "SerializeManySparse")


@export("io.deserialize_many_sparse", "compat.v1.io.deserialize_many_sparse",
        "compat.v1.deserialize_many_sparse")
def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """Joins serialized SparseTensors (an `[N, 3]` string matrix, rows of
    `serialize_sparse`) into one SparseTensor whose first dimension is the
    row; the other dimensions are the largest of the rows'.

    Args:
      serialized_sparse: string tensor whose last dimension is 3.
      dtype: the dtype of the values.
      rank: the rank of the result (with the row dimension), if known.

    Raises:
      InvalidArgumentError: for bytes that are not serialized SparseTensors,
        values of another dtype, or rows of different ranks.
    """
    s = convert_to_tensor(serialized_sparse, dtype=D.string)
    dtype = D.as_dtype(dtype)
    idx, vals, shape = apply(_DeserializeManySparse, [s], {"dtype": dtype},
                             name=name or "DeserializeManySparse", multi=True)
    if rank is not None and U._state.graph is not None:
        idx.set_shape([None, rank])
        shape.set_shape([rank])
    return SparseTensor(idx, vals, shape)
