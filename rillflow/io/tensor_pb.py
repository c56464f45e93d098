"""TensorProto wire format (tensorflow/core/framework/tensor.proto), as
`tf.io.serialize_tensor` writes and `tf.io.parse_tensor` reads it.

TensorFlow serializes numbers as raw little-endian `tensor_content` and
strings as repeated `string_val`; the reader also accepts the typed
`*_val` fields other writers use.
"""
import struct

import numpy as np

from ..framework import dtypes as D
from . import wire

__all__ = ["encode_tensor", "decode_tensor"]

# TensorProto field numbers.
_DTYPE, _SHAPE, _CONTENT, _STRING_VAL = 1, 2, 4, 8
# Typed value fields: number -> (how the payload is read, how values are kept).
_VALS = {5: "<f", 6: "<d", 7: "varint", 9: "<f", 10: "varint", 11: "varint", 12: "<d",
         13: "varint", 16: "varint", 17: "varint"}


def _shape_bytes(shape):
    dims = b"".join(wire.len_field(2, wire.key(1, wire.VARINT) + wire.encode_varint(d)
                                   if d else b"") for d in shape)
    return wire.len_field(_SHAPE, dims)


def encode_tensor(value, dtype, content=False):
    """The serialized TensorProto of NumPy array `value` of `dtype`.
    `content`: strings too go in `tensor_content` (TensorFlow's
    AsProtoTensorContent, which tf.data snapshots use: the lengths as
    varints, then the bytes)."""
    out = [wire.key(_DTYPE, wire.VARINT), wire.encode_varint(dtype.as_datatype_enum),
           _shape_bytes(value.shape)]
    if dtype is D.string and content:
        flat = [s if isinstance(s, bytes) else str(s).encode("utf-8")
                for s in value.reshape(-1)]
        if flat:
            out.append(wire.len_field(_CONTENT, b"".join(wire.encode_varint(len(s))
                                                         for s in flat) + b"".join(flat)))
    elif dtype is D.string:
        for s in value.reshape(-1):
            out.append(wire.len_field(_STRING_VAL, s if isinstance(s, bytes) else
                                      str(s).encode("utf-8")))
    elif value.size:
        arr = np.ascontiguousarray(value, dtype=np.dtype(dtype.as_numpy_dtype).newbyteorder("<"))
        out.append(wire.len_field(_CONTENT, arr.tobytes()))
    return b"".join(out)


def _string_content(content, n):
    """The strings of a string tensor's `tensor_content`: n varint lengths,
    then the bytes of each."""
    lengths, pos = [], 0
    for _ in range(n):
        k, pos = wire.read_varint(content, pos)
        lengths.append(k)
    out = []
    for k in lengths:
        if pos + k > len(content):
            raise wire.DecodeError("string tensor_content is truncated")
        out.append(bytes(content[pos:pos + k]))
        pos += k
    return out


def _decode_shape(payload, unknown_rank="unknown rank", bad_dim="unknown dimension"):
    """The dims of a TensorShapeProto; DecodeError with the caller's words
    for an unknown rank or an unknown/negative dimension (checkpoint_pb
    reads its entries' shapes with this too)."""
    dims = []
    for number, wt, value in wire.iter_fields(payload):
        if number == 2 and wt == wire.BYTES:
            size = 0
            for n, t, v in wire.iter_fields(value):
                if n == 1 and t == wire.VARINT:
                    size = wire.signed64(v)
            dims.append(size)
        elif number == 3 and wt == wire.VARINT and value:
            raise wire.DecodeError(unknown_rank)
    if any(d < 0 for d in dims):
        raise wire.DecodeError(bad_dim)
    return tuple(dims)


def decode_tensor(data):
    """(NumPy array, DType) of a serialized TensorProto.

    Raises:
      DecodeError: if `data` is not a TensorProto of a known dtype.
    """
    enum, shape, content, strings, vals = 0, (), None, [], {}
    for number, wt, value in wire.iter_fields(memoryview(bytes(data))):
        if number == _DTYPE and wt == wire.VARINT:
            enum = value
        elif number == _SHAPE and wt == wire.BYTES:
            shape = _decode_shape(value)
        elif number == _CONTENT and wt == wire.BYTES:
            content = bytes(value)
        elif number == _STRING_VAL and wt == wire.BYTES:
            strings.append(bytes(value))
        elif number in _VALS:
            vals.setdefault(number, []).extend(_read_vals(_VALS[number], wt, value))
    dtype = D._BY_ENUM.get(enum)
    if dtype is None or dtype.as_numpy_dtype is None:
        raise wire.DecodeError(f"unsupported dtype enum {enum}")
    n = int(np.prod(shape, dtype=np.int64))
    if dtype is D.string and content is not None:
        return _fill(_content_strings(content, n), n, shape, dtype), dtype
    if dtype is D.string:
        flat = strings if strings or content is None else _string_content(content, n)
    elif content is not None:
        npd = np.dtype(dtype.as_numpy_dtype)
        if len(content) != n * npd.itemsize:
            raise wire.DecodeError("tensor_content size does not match the shape")
        return np.frombuffer(content, npd.newbyteorder("<")).astype(npd).reshape(shape), dtype
    else:
        flat = _typed_values(vals, dtype)
    if len(flat) > n or (n and not flat and dtype is D.string):
        raise wire.DecodeError("value count does not match the shape")
    return _fill(flat, n, shape, dtype), dtype


def _content_strings(content, n):
    """The `n` strings of a string tensor's `tensor_content` (n varint
    lengths, then the bytes), as TensorFlow encodes it for some writers
    (SerializeManySparse)."""
    view, pos, lengths = memoryview(content), 0, []
    for _ in range(n):
        length, pos = wire.read_varint(view, pos)
        lengths.append(length)
    if pos + sum(lengths) != len(content):
        raise wire.DecodeError("string tensor_content does not match its lengths")
    out = []
    for length in lengths:
        out.append(bytes(view[pos:pos + length]))
        pos += length
    return out


def _read_vals(fmt, wt, value):
    if fmt == "varint":
        if wt == wire.BYTES:
            return wire.packed_varints(value)
        return [value] if wt == wire.VARINT else []
    if wt == wire.BYTES:
        return wire.packed_fixed(value, fmt)
    size = struct.calcsize(fmt)
    return [struct.unpack(fmt, value)[0]] if len(value) == size else []


def _typed_values(vals, dtype):
    for number, items in vals.items():
        if number == 13:  # half_val / bfloat16: the 16 bits in an int32
            return list(np.array(items, np.uint16).view(dtype.as_numpy_dtype))
        if number in (9, 12):  # complex: (real, imag) pairs
            return [complex(a, b) for a, b in zip(items[::2], items[1::2])]
        if number in (7, 10):
            return [wire.signed64(v) for v in items]
        return items
    return []


def _fill(flat, n, shape, dtype):
    npd = object if dtype is D.string else dtype.as_numpy_dtype
    out = np.empty(n, dtype=npd) if dtype is D.string else np.zeros(n, dtype=npd)
    if flat:
        out[:len(flat)] = flat
        # TensorFlow repeats the last value to fill the shape.
        out[len(flat):] = flat[-1]
    return out.reshape(shape)
