"""Message descriptors for `tf.io.decode_proto` / `encode_proto`: read from a
serialized `google.protobuf.FileDescriptorSet` (a file, or `bytes://`
followed by its bytes), or from rillflow's "local://" pool.

TensorFlow's local pool is every proto linked into its binary. rillflow's
holds the protos it reads and writes itself: the SavedModel and GraphDef
protos of `saved_model_schema.py` and the tf.train.Example protos. When the
`protobuf` package is installed (it is optional), a message type protobuf's
default pool knows (its generated modules imported) is found there too.

A message is a `MessageType`: its full name and `Field`s (name, number,
type as descriptor.proto's FieldDescriptorProto.Type, repeated or not,
packed or not, the message type of a message field, the default value).
"""
from . import wire
from .saved_model_schema import SCHEMAS

__all__ = ["Field", "MessageType", "DescriptorError", "from_file_descriptor_set", "find",
           "TYPE_NAMES"]

# FieldDescriptorProto.Type values.
DOUBLE, FLOAT, INT64, UINT64, INT32, FIXED64, FIXED32, BOOL, STRING, GROUP, MESSAGE, BYTES, \
    UINT32, ENUM, SFIXED32, SFIXED64, SINT32, SINT64 = range(1, 19)
# How TensorFlow's messages name each type (protobuf's C++ type names).
TYPE_NAMES = {DOUBLE: "double", FLOAT: "float", INT64: "int64", UINT64: "uint64",
              INT32: "int32", FIXED64: "uint64", FIXED32: "uint32", BOOL: "bool",
              STRING: "string", GROUP: "message", MESSAGE: "message", BYTES: "string",
              UINT32: "uint32", ENUM: "enum", SFIXED32: "int32", SFIXED64: "int64",
              SINT32: "int32", SINT64: "int64"}
_SCHEMA_KINDS = {"double": DOUBLE, "float": FLOAT, "int64": INT64, "uint64": UINT64,
                 "int32": INT32, "fixed64": FIXED64, "fixed32": FIXED32, "bool": BOOL,
                 "string": STRING, "bytes": BYTES, "uint32": UINT32, "enum": ENUM,
                 "sfixed32": SFIXED32, "sfixed64": SFIXED64, "sint32": SINT32,
                 "sint64": SINT64}
_PACKABLE = frozenset(range(1, 19)) - {STRING, GROUP, MESSAGE, BYTES}


class DescriptorError(ValueError):
    """A descriptor source that cannot be read, or a type it lacks."""


class Field:
    """One field of a message type."""

    __slots__ = ("name", "number", "type", "repeated", "packed", "message", "default")

    def __init__(self, name, number, type_, repeated, packed, message=None, default=None):
        self.name, self.number, self.type = name, number, type_
        self.repeated, self.packed, self.message = repeated, packed, message
        self.default = default


class MessageType:
    """A message type: its full name and fields by name."""

    __slots__ = ("full_name", "fields")

    def __init__(self, full_name, fields):
        self.full_name = full_name
        self.fields = {f.name: f for f in fields}


# --- FileDescriptorSet -----------------------------------------------------------------------

def _strings(payload, wanted):
    out = {}
    for n, wt, v in wire.iter_fields(payload):
        if n in wanted and wt == wire.BYTES:
            out.setdefault(n, []).append(bytes(v).decode("utf-8"))
        elif n in wanted and wt == wire.VARINT:
            out.setdefault(n, []).append(v)
    return out


def _field(payload, proto3):
    f = _strings(payload, {1, 3, 4, 5, 6, 7})
    packed = None
    for n, wt, v in wire.iter_fields(payload):
        if n == 8 and wt == wire.BYTES:           # FieldOptions
            for n2, wt2, v2 in wire.iter_fields(v):
                if n2 == 2 and wt2 == wire.VARINT:
                    packed = bool(v2)
    type_ = f.get(5, [0])[-1]
    repeated = f.get(4, [1])[-1] == 3
    if packed is None:
        packed = proto3 and repeated and type_ in _PACKABLE
    return (f.get(1, [""])[-1], f.get(3, [0])[-1], type_, repeated, packed,
            f.get(6, [""])[-1].lstrip("."), f.get(7, [None])[-1])


def _messages(payload, prefix, proto3, out):
    name = ""
    fields, nested = [], []
    for n, wt, v in wire.iter_fields(payload):
        if n == 1 and wt == wire.BYTES:
            name = bytes(v).decode("utf-8")
        elif n == 2 and wt == wire.BYTES:
            fields.append(_field(v, proto3))
        elif n == 3 and wt == wire.BYTES:
            nested.append(v)
    full = f"{prefix}{name}"
    out[full] = fields
    for v in nested:
        _messages(v, full + ".", proto3, out)


def from_file_descriptor_set(data):
    """{full name: [field tuples]} of every message of a serialized
    FileDescriptorSet.

    Raises:
      DescriptorError: if `data` is not one.
    """
    out = {}
    try:
        for n, wt, f in wire.iter_fields(memoryview(data)):
            if n != 1 or wt != wire.BYTES:
                raise wire.DecodeError("not a FileDescriptorSet")
            info = _strings(f, {2, 12})
            package = info.get(2, [""])[-1]
            proto3 = info.get(12, [""])[-1] == "proto3"
            for n2, wt2, m in wire.iter_fields(f):
                if n2 == 4 and wt2 == wire.BYTES:
                    _messages(m, package + "." if package else "", proto3, out)
    except (wire.DecodeError, UnicodeDecodeError, IndexError, RecursionError):
        raise DescriptorError("Source does not represent serialized file descriptor set "
                              "proto.") from None
    return out


# --- the local pool --------------------------------------------------------------------------

def _schema_fields(name):
    fields = []
    for number, fname, kind, label in SCHEMAS[name]:
        if isinstance(kind, tuple):         # a map: repeated entry messages
            fields.append((fname, number, MESSAGE, True, False, None, None))
        elif kind in _SCHEMA_KINDS:
            t = _SCHEMA_KINDS[kind]
            fields.append((fname, number, t, label == 1, label == 1 and t in _PACKABLE, "",
                           None))
        else:
            fields.append((fname, number, MESSAGE, label == 1, False, kind, None))
    return fields


_EXAMPLE_PROTOS = {
    "tensorflow.BytesList": [("value", 1, BYTES, True, False, "", None)],
    "tensorflow.FloatList": [("value", 1, FLOAT, True, True, "", None)],
    "tensorflow.Int64List": [("value", 1, INT64, True, True, "", None)],
    "tensorflow.Feature": [("bytes_list", 1, MESSAGE, False, False, "tensorflow.BytesList",
                            None),
                           ("float_list", 2, MESSAGE, False, False, "tensorflow.FloatList",
                            None),
                           ("int64_list", 3, MESSAGE, False, False, "tensorflow.Int64List",
                            None)],
    "tensorflow.Features": [("feature", 1, MESSAGE, True, False, None, None)],
    "tensorflow.FeatureList": [("feature", 1, MESSAGE, True, False, "tensorflow.Feature",
                                None)],
    "tensorflow.FeatureLists": [("feature_list", 1, MESSAGE, True, False, None, None)],
    "tensorflow.Example": [("features", 1, MESSAGE, False, False, "tensorflow.Features",
                            None)],
    "tensorflow.SequenceExample": [
        ("context", 1, MESSAGE, False, False, "tensorflow.Features", None),
        ("feature_lists", 2, MESSAGE, False, False, "tensorflow.FeatureLists", None)],
}


def _protobuf_default_pool(name):
    """Fields of `name` from the protobuf package's default pool, if that
    package is installed and knows the type; else None."""
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool
    except ImportError:
        return None
    try:
        desc = descriptor_pool.Default().FindMessageTypeByName(name)
    except KeyError:
        return None
    fds = descriptor_pb2.FileDescriptorSet()
    desc.file.CopyToProto(fds.file.add())
    return from_file_descriptor_set(fds.SerializeToString()).get(name)


def local_fields(name):
    """The field tuples of `name` in the local pool, or None."""
    if name in _EXAMPLE_PROTOS:
        return _EXAMPLE_PROTOS[name]
    if name in SCHEMAS:
        return _schema_fields(name)
    return _protobuf_default_pool(name)


def local_names():
    """The message types the local pool always holds."""
    return sorted(set(_EXAMPLE_PROTOS) | set(SCHEMAS))


def find(tables, name):
    """The MessageType `name` of `tables` ({full name: field tuples}, or
    None for the local pool).

    Raises:
      DescriptorError: if there is no such type.
    """
    fields = tables.get(name) if tables is not None else local_fields(name)
    if fields is None:
        raise DescriptorError(f"No descriptor found for message type {name}")
    return MessageType(name, [Field(*f) for f in fields])
