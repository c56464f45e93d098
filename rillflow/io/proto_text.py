"""Protocol buffer text format of the dict messages of `proto_codec` (a
GraphDef, a NodeDef...), as protobuf's Python `text_format` prints them:
fields in number order, map entries sorted by key, DataType enums by name,
bytes and strings C-escaped (octal for non-ASCII), floats in their shortest
round-trip form.
"""
import struct

from .message import _quote
from .proto_codec import _table
from ..framework.dtypes import DATATYPE_NAMES

__all__ = ["message_to_text", "DATATYPE_NAMES"]

# Enum fields holding a DataType (the others print as numbers).
_DATATYPE_FIELDS = {"type", "dtype"}
_SCALAR_DEFAULTS = {"string": "", "bytes": b"", "bool": False, "float": 0.0, "double": 0.0}


def _float32(x):
    for p in range(1, 10):
        s = "%.*g" % (p, x)
        if struct.unpack("<f", struct.pack("<f", float(s)))[0] == x:
            return str(float(s))
    return str(float(x))


def _scalar(name, kind, v):
    if kind == "bool":
        return "true" if v else "false"
    if kind == "float":
        return _float32(v) if v == v and abs(v) != float("inf") else str(float(v))
    if kind == "double":
        return str(float(v))
    if kind == "string":
        return _quote(v.encode("utf-8"))
    if kind == "bytes":
        return _quote(bytes(v))
    if kind == "enum" and name in _DATATYPE_FIELDS:
        return DATATYPE_NAMES.get(int(v), str(int(v)))
    return str(int(v))


def message_to_text(value, message, indent=0):
    """The text format of dict `value` as `message` (a full type name)."""
    out = []
    pad = "  " * indent
    for _, name, kind, label in _table(message).order:
        if name not in value:
            continue
        v = value[name]
        if isinstance(kind, tuple):
            for k in sorted(v):
                entry = [(1, "key", kind[1], k), (2, "value", kind[2], v[k])]
                out.append(f"{pad}{name} {{\n")
                # A map entry's scalar key and value print only when set.
                for _, n, knd, x in entry:
                    out.append(_field(n, knd, x, indent + 1, False))
                out.append(f"{pad}}}\n")
        elif label == 1:
            out.extend(_field(name, kind, x, indent, True) for x in v)
        else:
            out.append(_field(name, kind, v, indent, label == 2))
    return "".join(out)


def _field(name, kind, v, indent, present):
    pad = "  " * indent
    if kind in _SCALAR_DEFAULTS or kind in ("int32", "int64", "uint32", "uint64", "enum",
                                            "sint32", "sint64", "fixed32", "fixed64"):
        if not present and not v:
            return ""
        return f"{pad}{name}: {_scalar(name, kind, v)}\n"
    return f"{pad}{name} {{\n{message_to_text(v, kind, indent + 1)}{pad}}}\n"
