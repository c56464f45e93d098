"""`tf.io.decode_proto` and `tf.io.encode_proto` (the DecodeProtoV2 and
EncodeProto ops): fields of serialized protocol buffer messages to tensors
and back, for any message type a descriptor source describes
(rillflow/io/descriptor_set.py).

Decoding gives, for a batch of records, `sizes` (the number of values of
each field in each record; at most one for a singular field, whose last
value wins) and one tensor per field padded with the field's default to
the largest count. Each field type decodes to the dtypes TensorFlow allows
(int32 to int32 or int64, float to float or double, uint32 to uint32 or
uint64, a message to its serialized bytes...). Encoding writes the fields
in field-number order, repeated numbers packed where the descriptor says.
"""
import collections
import struct

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ...io import descriptor_set as DS
from ...io import wire
from ..core import op_util as U

__all__ = ["decode_proto", "encode_proto"]

_ALLOWED = {DS.DOUBLE: (D.float64,), DS.FLOAT: (D.float32, D.float64), DS.INT64: (D.int64,),
            DS.UINT64: (D.uint64,), DS.INT32: (D.int32, D.int64), DS.FIXED64: (D.uint64,),
            DS.FIXED32: (D.uint32, D.uint64), DS.BOOL: (D.bool_,), DS.STRING: (D.string,),
            DS.GROUP: (D.string,), DS.MESSAGE: (D.string,), DS.BYTES: (D.string,),
            DS.UINT32: (D.uint32, D.uint64), DS.ENUM: (D.int32,),
            DS.SFIXED32: (D.int32, D.int64), DS.SFIXED64: (D.int64,),
            DS.SINT32: (D.int32, D.int64), DS.SINT64: (D.int64,)}
_FIXED = {DS.DOUBLE: "<d", DS.FLOAT: "<f", DS.FIXED64: "<Q", DS.FIXED32: "<I",
          DS.SFIXED32: "<i", DS.SFIXED64: "<q"}
_LEN_TYPES = (DS.STRING, DS.BYTES, DS.MESSAGE, DS.GROUP)
_DT_NAME = {D.float32: "DT_FLOAT", D.float64: "DT_DOUBLE", D.int32: "DT_INT32",
            D.int64: "DT_INT64", D.uint32: "DT_UINT32", D.uint64: "DT_UINT64",
            D.bool_: "DT_BOOL", D.string: "DT_STRING"}
_SOURCES = {}


def _source_tables(source):
    """{full name: field tuples} of a descriptor source, None for local://."""
    if source in ("local://", b"local://"):
        return None
    key = source
    if key in _SOURCES:
        return _SOURCES[key]
    raw = source if isinstance(source, bytes) else source.encode("utf-8", "surrogateescape")
    try:
        if raw.startswith(b"bytes://"):
            tables = DS.from_file_descriptor_set(raw[len(b"bytes://"):])
        else:
            with open(raw.decode("utf-8", "replace"), "rb") as f:
                tables = DS.from_file_descriptor_set(f.read())
    except (OSError, DS.DescriptorError):
        shown = raw.decode("utf-8", "replace")
        raise errors.InvalidArgumentError(
            None, None, "Source does not represent serialized file descriptor set proto. This "
            "may be due to a missing dependency on the file containing "
            f"REGISTER_DESCRIPTOR_POOL(\"{shown}\", ...);") from None
    if len(_SOURCES) > 16:
        _SOURCES.clear()
    _SOURCES[key] = tables
    return tables


def _fields(op, message_type, field_names, source):
    tables = _source_tables(source)
    try:
        msg = DS.find(tables, message_type)
    except DS.DescriptorError as e:
        hint = "" if tables is not None else (
            " (rillflow's local:// pool holds the TensorFlow protos rillflow reads and "
            "writes: " + ", ".join(DS.local_names()[:6]) + ", ...; pass a serialized "
            "FileDescriptorSet as descriptor_source for other types)")
        raise U.op_error(op, f"{e}{hint}") from None
    out = []
    for name in field_names:
        f = msg.fields.get(name)
        if f is None:
            raise U.op_error(op, f"Unknown field: {name} in message type {message_type}")
        out.append(f)
    return out


def _check_type(op, message_type, f, dtype):
    if dtype not in _ALLOWED.get(f.type, ()):
        raise U.op_error(op, f"Unexpected output type for {message_type}.{f.name}: "
                         f"{DS.TYPE_NAMES.get(f.type, '?')} to {_DT_NAME.get(dtype, dtype.name)}")


# --- decoding --------------------------------------------------------------------------------

def _scalar(f, wt, value):
    """The values of one wire field of scalar field `f` (a packed run gives
    several), or None for a wire type that does not fit."""
    t = f.type
    if t in _LEN_TYPES:
        return [bytes(value)] if wt == wire.BYTES else None
    if wt == wire.BYTES:                # packed
        if t in _FIXED:
            fmt = _FIXED[t]
            if len(value) % struct.calcsize(fmt):
                raise wire.DecodeError("packed fixed-width field of bad length")
            return [x[0] for x in struct.iter_unpack(fmt, bytes(value))]
        return [_varint(t, v) for v in wire.packed_varints(value)]
    if t in _FIXED:
        size = struct.calcsize(_FIXED[t])
        if (wt == wire.FIXED32) != (size == 4) or wt not in (wire.FIXED32, wire.FIXED64):
            return None
        return [struct.unpack(_FIXED[t], bytes(value))[0]]
    return [_varint(t, value)] if wt == wire.VARINT else None


def _varint(t, v):
    if t in (DS.SINT32, DS.SINT64):
        return (v >> 1) ^ -(v & 1)
    if t == DS.BOOL:
        return bool(v)
    if t == DS.UINT32:
        return v & 0xFFFFFFFF
    if t == DS.UINT64:
        return v
    s = wire.signed64(v)
    if t in (DS.INT32, DS.ENUM):
        s = (s + 2 ** 31) % 2 ** 32 - 2 ** 31
    return s


def _default(f, dtype):
    if dtype is D.string:
        return (f.default or "").encode("utf-8") if f.type != DS.BYTES else b""
    if f.default in (None, ""):
        return False if dtype is D.bool_ else 0
    if dtype is D.bool_:
        return f.default == "true"
    try:
        return float(f.default) if dtype.is_floating else int(f.default)
    except ValueError:          # an enum default is a name: its number is not kept
        return 0


_CONSUME = "CountFields: Failed to consume entire buffer"
_SKIP = "ReadValue: Failed skipping field when counting"


def _wire_fields(data):
    """(number, wire type, value) of each field, as `wire.iter_fields`, with
    TensorFlow's two messages: a tag that cannot be read, and a value that
    cannot be."""
    mv = memoryview(data)
    pos, end = 0, len(mv)
    while pos < end:
        try:
            tag, pos = wire.read_varint(mv, pos, end)
        except wire.DecodeError:
            raise wire.DecodeError(_CONSUME) from None
        number, wt = tag >> 3, tag & 7
        if number == 0 or wt not in (wire.VARINT, wire.BYTES, wire.FIXED32, wire.FIXED64):
            raise wire.DecodeError(_CONSUME)
        try:
            if wt == wire.VARINT:
                value, pos = wire.read_varint(mv, pos, end)
            else:
                n = 8 if wt == wire.FIXED64 else 4
                if wt == wire.BYTES:
                    n, pos = wire.read_varint(mv, pos, end)
                if pos + n > end:
                    raise wire.DecodeError(_SKIP)
                value, pos = mv[pos:pos + n], pos + n
        except wire.DecodeError:
            raise wire.DecodeError(_SKIP) from None
        yield number, wt, value


def _decode_kernel(bytes, message_type="", field_names=(), output_types=(),  # noqa: A002
                   descriptor_source="local://", message_format="binary", sanitize=False):
    op = "DecodeProtoV2"
    if message_format != "binary":
        raise NotImplementedError("rillflow's decode_proto reads the binary format only "
                                  f"(message_format='binary'); got {message_format!r}")
    fields = _fields(op, message_type, field_names, descriptor_source)
    for f, t in zip(fields, output_types):
        _check_type(op, message_type, f, t)
    records = np.asarray(bytes, dtype=object)
    if not records.size:
        raise U.op_error(op, "Bufs argument must contain at least one value")
    by_number = {}
    for i, f in enumerate(fields):
        by_number.setdefault(f.number, []).append(i)
    flat = records.reshape(-1)
    found = [[[] for _ in fields] for _ in flat]
    for r, data in enumerate(flat):
        try:
            for number, wt, value in _wire_fields(data):
                for i in by_number.get(number, ()):
                    vals = _scalar(fields[i], wt, value)
                    if vals is None:
                        continue
                    found[r][i] = found[r][i] + vals if fields[i].repeated else vals[-1:]
        except wire.DecodeError as e:
            why = str(e) if str(e) in (_CONSUME, _SKIP) else _SKIP
            raise U.op_error(op, why, errors.DataLossError) from None
        except struct.error:
            raise U.op_error(op, _SKIP, errors.DataLossError) from None
    sizes = np.array([[len(v) for v in rec] for rec in found], np.int32).reshape(
        records.shape + (len(fields),))
    outs = [sizes]
    for i, (f, dtype) in enumerate(zip(fields, output_types)):
        # (At least one entry, the default, even where no record has one.)
        longest = max([1] + [len(rec[i]) for rec in found])
        npd = object if dtype is D.string else dtype.as_numpy_dtype
        out = np.empty((len(flat), longest), dtype=npd)
        out[...] = _default(f, dtype)
        for r, rec in enumerate(found):
            if rec[i]:
                out[r, :len(rec[i])] = rec[i]
        outs.append(out.reshape(records.shape + (longest,)))
    return outs


def _decode_infer(inputs, attrs):
    s = inputs[0].shape
    dims = s.as_list() if s.rank is not None else None
    n = len(attrs["field_names"])
    if dims is None:
        return [(TensorShape(None), D.int32)] + [(TensorShape(None), t)
                                                 for t in attrs["output_types"]]
    return [(TensorShape(dims + [n]), D.int32)] + [(TensorShape(dims + [None]), t)
                                                   for t in attrs["output_types"]]


_DecodeProtoV2 = register("DecodeProtoV2", _decode_kernel, _decode_infer)

DecodeProtoV2 = collections.namedtuple("DecodeProtoV2", ["sizes", "values"])


@export("io.decode_proto")
def decode_proto(bytes, message_type, field_names, output_types,  # noqa: A002
                 descriptor_source="local://", message_format="binary", sanitize=False,
                 name=None):
    """Decodes fields of serialized protocol buffer messages.

    Args:
      bytes: string tensor of serialized `message_type` messages.
      message_type: the full name of the message type.
      field_names: the fields to decode.
      output_types: the dtype of each field's tensor.
      descriptor_source: "local://" (the TensorFlow protos rillflow knows),
        a path to a serialized FileDescriptorSet, or `bytes://` and its bytes.
      message_format: "binary" (rillflow does not read the text format).

    Returns:
      (sizes, values): int32 `bytes.shape + [len(field_names)]` counts, and
      one `bytes.shape + [max(1, max count)]` tensor per field, padded
      with the field's default.

    Raises:
      InvalidArgumentError: for an unknown type or field, a field that
        cannot decode to its output type, or a bad descriptor source.
      DataLossError: for bytes that are not a serialized message.
    """
    b = convert_to_tensor(bytes, dtype=D.string)
    types = tuple(D.as_dtype(t) for t in output_types)
    if len(types) != len(field_names):
        raise ValueError(f"The number of output_types ({len(types)}) does not match the "
                         f"number of field_names ({len(field_names)})")
    attrs = {"message_type": message_type, "field_names": tuple(field_names),
             "output_types": types, "descriptor_source": descriptor_source,
             "message_format": message_format, "sanitize": bool(sanitize)}
    outs = apply(_DecodeProtoV2, [b], attrs, name=name or "DecodeProtoV2", multi=True)
    return DecodeProtoV2(outs[0], list(outs[1:]))


# --- encoding --------------------------------------------------------------------------------

def _encode_value(f, v):
    t = f.type
    if t in _LEN_TYPES:
        return v if isinstance(v, (bytes, bytearray)) else str(v).encode("utf-8")
    if t in _FIXED:
        return struct.pack(_FIXED[t], v)
    v = int(v)
    if t in (DS.SINT32, DS.SINT64):
        v = (v << 1) ^ (v >> 63)
    return wire.encode_varint(v & 0xFFFFFFFFFFFFFFFF)


def _wire_type(t):
    if t in _LEN_TYPES:
        return wire.BYTES
    if t in _FIXED:
        return wire.FIXED32 if struct.calcsize(_FIXED[t]) == 4 else wire.FIXED64
    return wire.VARINT


def _encode_kernel(sizes, *values, field_names=(), message_type="",
                   descriptor_source="local://", Tinput_types=()):
    op = "EncodeProto"
    fields = _fields(op, message_type, field_names, descriptor_source)
    for f, v in zip(fields, Tinput_types):
        _check_type(op, message_type, f, v)
    sizes = np.asarray(sizes)
    if sizes.ndim < 1 or sizes.shape[-1] != len(fields):
        raise U.op_error(op, "sizes should be batch_size + [len(field_names)].  sizes shape "
                         f"is {list(sizes.shape)} and field_names has {len(fields)}".replace(
                             ", ", ","))
    batch = sizes.shape[:-1]
    flat_vals = []
    for f, v in zip(fields, values):
        v = np.asarray(v)
        if v.shape[:-1] != batch:
            raise U.op_error(op, f"Values for field {f.name} should be batch_size + "
                             f"[max_size]; batch_size is {list(batch)} and the values "
                             f"have shape {list(v.shape)}".replace(", ", ","))
        flat_vals.append(v.reshape(-1, v.shape[-1] if v.ndim else 1))
    flat_sizes = sizes.reshape(-1, len(fields))
    order = sorted(range(len(fields)), key=lambda i: fields[i].number)
    out = np.empty(int(np.prod(batch, dtype=np.int64)), dtype=object)
    for r in range(len(out)):
        parts = []
        for i in order:
            f, k = fields[i], int(flat_sizes[r, i])
            if k < 0 or k > flat_vals[i].shape[1]:
                raise U.op_error(op, f"Invalid size {k} for field {f.name}: the values have "
                                 f"{flat_vals[i].shape[1]}")
            if k > 1 and not f.repeated:
                raise U.op_error(op, f"Field {f.name} is not repeated but has {k} values")
            vals = flat_vals[i][r, :k]
            if f.packed and k:
                parts.append(wire.len_field(f.number, b"".join(_encode_value(f, v)
                                                               for v in vals)))
                continue
            wt = _wire_type(f.type)
            for v in vals:
                enc = _encode_value(f, v)
                parts.append(wire.len_field(f.number, enc) if wt == wire.BYTES
                             else wire.key(f.number, wt) + enc)
        out[r] = b"".join(parts)
    return out.reshape(batch)


_EncodeProto = register("EncodeProto", _encode_kernel,
                        lambda inputs, attrs: [(TensorShape(
                            inputs[0].shape.as_list()[:-1]) if inputs[0].shape.rank
                            is not None else TensorShape(None), D.string)])


@export("io.encode_proto")
def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://",
                 name=None):
    """Encodes fields into serialized protocol buffer messages, the inverse
    of `decode_proto`: `sizes[..., i]` values of `values[i]` go in field
    `field_names[i]` of each message.

    Raises:
      InvalidArgumentError: for an unknown type or field, values of a dtype
        the field cannot hold, bad sizes, or a bad descriptor source.
    """
    s = convert_to_tensor(sizes, dtype=D.int32)
    vals = [convert_to_tensor(v) for v in values]
    if len(vals) != len(field_names):
        raise errors.InvalidArgumentError(
            None, None, f"Length of field_names ({len(field_names)}) does not match the "
            f"number of values ({len(vals)})")
    attrs = {"field_names": tuple(field_names), "message_type": message_type,
             "descriptor_source": descriptor_source,
             "Tinput_types": tuple(v.dtype for v in vals)}
    return apply(_EncodeProto, [s] + vals, attrs, name=name or "EncodeProto")
