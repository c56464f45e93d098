"""Protocol buffers as plain dicts, driven by field tables: the codec of the
SavedModel protos (`saved_model_schema.py`, generated from TensorFlow's
descriptors) without the protobuf package (docs/file_formats.md says why).

A message is a dict from field name to value: scalars as Python values
(strings as `str`, bytes as `bytes`, enums as ints), submessages as dicts,
repeated fields as lists and maps as dicts. An absent key is the field's
default. `decode` checks only the wire format (lengths within the buffer,
valid UTF-8, nesting at most `MAX_DEPTH` deep, as protobuf's parsers limit
it); the callers check the meaning. `encode` writes fields in number order
and map entries sorted by key (protobuf's deterministic serialization),
leaves out proto3 defaults, and packs repeated numbers.
"""
import struct

from . import wire
from .saved_model_schema import SCHEMAS

__all__ = ["decode", "encode", "DecodeError", "MAX_DEPTH"]

DecodeError = wire.DecodeError
# protobuf's default recursion limit.
MAX_DEPTH = 100

_FIXED = {"float": ("<f", 4), "double": ("<d", 8), "fixed32": ("<I", 4), "fixed64": ("<Q", 8)}
_VARINT_KINDS = ("int32", "int64", "uint32", "uint64", "bool", "enum", "sint32", "sint64")
_NUMERIC = _VARINT_KINDS + tuple(_FIXED)


class _Table:
    """A message's fields by number and by name."""

    __slots__ = ("name", "by_number", "by_name", "order")

    def __init__(self, name, fields):
        self.name = name
        self.by_number = {f[0]: f for f in fields}
        self.by_name = {f[1]: f for f in fields}
        self.order = tuple(fields)


_TABLES = {name: _Table(name, fields) for name, fields in SCHEMAS.items()}


def _table(name):
    try:
        return _TABLES[name]
    except KeyError:
        raise ValueError(f"unknown message type {name!r}") from None


# --- decoding --------------------------------------------------------------------------------

def decode(data, message, depth=0):
    """The dict of serialized `message` (a full name, e.g.
    "tensorflow.SavedModel") in `data` (bytes or memoryview).

    Raises:
      DecodeError: for bytes that are not a valid serialized message.
    """
    if depth > MAX_DEPTH:
        raise DecodeError("message nested too deeply")
    by_number = _table(message).by_number
    out = {}
    for number, wt, value in _fields(data):
        field = by_number.get(number)
        if field is None:
            continue  # unknown field: skipped, as protobuf keeps it aside
        _, name, kind, label = field
        if isinstance(kind, tuple):
            if wt != wire.BYTES:
                continue
            key, val = _map_entry(value, kind, depth)
            out.setdefault(name, {})[key] = val
        elif label == 1:
            items = out.setdefault(name, [])
            if wt == wire.BYTES and kind in _NUMERIC:
                items.extend(_packed(value, kind))
            else:
                v = _scalar_or_message(kind, wt, value, depth)
                if v is not _SKIP:
                    items.append(v)
        else:
            v = _scalar_or_message(kind, wt, value, depth)
            if v is not _SKIP:
                out[name] = v
    return out


_SKIP = object()


def _fields(data):
    """(number, wire type, value) of each field, as `wire.iter_fields`, with
    one-byte varints (most tags and lengths) read inline: this loop is where
    decoding a SavedModel spends its time."""
    mv = data if isinstance(data, memoryview) else memoryview(data)
    pos, end = 0, len(mv)
    read = wire.read_varint
    out = []
    append = out.append
    while pos < end:
        tag = mv[pos]
        if tag < 0x80:
            pos += 1
        else:
            tag, pos = read(mv, pos, end)
        number, wt = tag >> 3, tag & 7
        if number == 0:
            raise DecodeError("field number 0")
        if wt == 2:
            n = mv[pos] if pos < end else 0x80
            if n < 0x80:
                pos += 1
            else:
                n, pos = read(mv, pos, end)
            if pos + n > end:
                raise DecodeError("truncated length-delimited field")
            append((number, 2, mv[pos:pos + n]))
            pos += n
        elif wt == 0:
            v = mv[pos] if pos < end else 0x80
            if v < 0x80:
                pos += 1
            else:
                v, pos = read(mv, pos, end)
            append((number, 0, v))
        elif wt == 1 or wt == 5:
            n = 8 if wt == 1 else 4
            if pos + n > end:
                raise DecodeError("truncated fixed field")
            append((number, wt, mv[pos:pos + n]))
            pos += n
        else:
            raise DecodeError(f"unsupported wire type {wt}")
    return out


def _scalar_or_message(kind, wt, value, depth):
    """One value of `kind` read from a field of wire type `wt`; `_SKIP` for a
    wire type that does not fit (protobuf treats it as an unknown field)."""
    if kind in _VARINT_KINDS:
        if wt != wire.VARINT:
            return _SKIP
        return _varint_value(kind, value)
    if kind in _FIXED:
        fmt, size = _FIXED[kind]
        if wt != (wire.FIXED32 if size == 4 else wire.FIXED64):
            return _SKIP
        return struct.unpack(fmt, value)[0]
    if wt != wire.BYTES:
        return _SKIP
    if kind == "bytes":
        return bytes(value)
    if kind == "string":
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise DecodeError("invalid UTF-8 in a string field") from None
    return decode(value, kind, depth + 1)


def _varint_value(kind, v):
    if kind == "bool":
        return v != 0
    if kind in ("int64",):
        return wire.signed64(v)
    if kind in ("int32", "enum"):
        # protobuf keeps the low 32 bits of an int32 written as 64.
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v >= (1 << 31) else v
    if kind == "uint32":
        return v & 0xFFFFFFFF
    if kind in ("sint32", "sint64"):
        return (v >> 1) ^ -(v & 1)
    return v


def _packed(payload, kind):
    if kind in _FIXED:
        return wire.packed_fixed(payload, _FIXED[kind][0])
    return [_varint_value(kind, v) for v in wire.packed_varints(payload)]


def _map_entry(payload, kind, depth):
    _, key_kind, value_kind = kind
    key = value = None
    for number, wt, raw in _fields(payload):
        if number == 1:
            v = _scalar_or_message(key_kind, wt, raw, depth)
            if v is not _SKIP:
                key = v
        elif number == 2:
            v = _scalar_or_message(value_kind, wt, raw, depth)
            if v is not _SKIP:
                value = v
    if key is None:
        key = _default(key_kind)
    if value is None:
        value = {} if value_kind not in _SCALAR_DEFAULTS else _default(value_kind)
    return key, value


_SCALAR_DEFAULTS = {"string": "", "bytes": b"", "bool": False, "float": 0.0, "double": 0.0}


def _default(kind):
    return _SCALAR_DEFAULTS.get(kind, 0)


# --- encoding --------------------------------------------------------------------------------

def encode(value, message):
    """The serialized bytes of `value` (a dict) as `message` (a full name).

    Raises:
      ValueError: for a field the message does not have.
      TypeError: for a value of the wrong type.
    """
    table = _table(message)
    for name in value:
        if name not in table.by_name:
            raise ValueError(f"{message} has no field {name!r}")
    out = []
    for number, name, kind, label in table.order:
        if name not in value:
            continue
        v = value[name]
        if isinstance(kind, tuple):
            for k in sorted(v):
                entry = _encode_one(1, kind[1], k, True) + _encode_one(2, kind[2], v[k], True)
                out.append(wire.len_field(number, entry))
        elif label == 1:
            if not v:
                continue
            if kind in _NUMERIC:
                payload = b"".join(_number_bytes(kind, x) for x in v)
                out.append(wire.len_field(number, payload))
            else:
                out.extend(_encode_one(number, kind, x, True) for x in v)
        else:
            out.append(_encode_one(number, kind, v, label == 2))
    return b"".join(out)


def _number_bytes(kind, v):
    if kind in _FIXED:
        return struct.pack(_FIXED[kind][0], v)
    if kind == "bool":
        return b"\x01" if v else b"\x00"
    if kind in ("sint32", "sint64"):
        v = (v << 1) ^ (v >> 63)
    return wire.encode_varint(int(v))


def _encode_one(number, kind, v, present):
    """Field `number` holding `v`; empty when `v` is the default and the
    field has no presence."""
    if kind in _NUMERIC:
        if not present and not v:
            return b""
        wt = wire.VARINT if kind in _VARINT_KINDS else (
            wire.FIXED32 if _FIXED[kind][1] == 4 else wire.FIXED64)
        return wire.key(number, wt) + _number_bytes(kind, v)
    if kind == "string":
        if not isinstance(v, str):
            raise TypeError(f"expected str for a string field, got {type(v).__name__}")
        if not present and not v:
            return b""
        return wire.len_field(number, v.encode("utf-8"))
    if kind == "bytes":
        if not isinstance(v, (bytes, bytearray, memoryview)):
            raise TypeError(f"expected bytes for a bytes field, got {type(v).__name__}")
        if not present and not v:
            return b""
        return wire.len_field(number, bytes(v))
    if not isinstance(v, dict):
        raise TypeError(f"expected a dict for a {kind} field, got {type(v).__name__}")
    return wire.len_field(number, encode(v, kind))
