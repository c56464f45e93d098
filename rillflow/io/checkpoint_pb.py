"""The protocol buffers of TensorFlow's checkpoints, encoded and decoded by
hand on `wire`:

  BundleHeaderProto, BundleEntryProto   tensorflow/core/protobuf/tensor_bundle.proto
                                        (the values of a checkpoint's `.index`)
  TrackableObjectGraph                  tensorflow/core/protobuf/trackable_object_graph.proto
                                        (the `_CHECKPOINTABLE_OBJECT_GRAPH` tensor)

Messages are plain Python values here (ints, tuples, dicts), not message
objects: nothing outside rillflow sees them. The encoders write fields in
number order and leave out proto3 defaults, as TensorFlow's C++ serializer
does, so equal content gives TensorFlow's bytes. The decoders skip unknown
fields and raise `wire.DecodeError` for anything malformed; the callers
check the meaning (dtype known, sizes consistent, node ids in range).
"""
import struct

from . import tensor_pb, wire

__all__ = ["encode_header", "decode_header", "encode_entry", "decode_entry",
           "encode_object_graph", "decode_object_graph", "BundleEntry"]

# BundleHeaderProto.Endianness
LITTLE, BIG = 0, 1


def _varint_field(number, value):
    return wire.key(number, wire.VARINT) + wire.encode_varint(value) if value else b""


def _string(value):
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise wire.DecodeError("invalid UTF-8 in a string field") from None


def _int32(value):
    # int32 fields: negative values are written as 10-byte varints.
    value = wire.signed64(value)
    if not -2 ** 31 <= value < 2 ** 31:
        raise wire.DecodeError("int32 field out of range")
    return value


# --- BundleHeaderProto -----------------------------------------------------------------------

def encode_header(num_shards, producer=1):
    """The header TensorFlow writes: num_shards, little-endian, VersionDef{producer}."""
    return _varint_field(1, num_shards) + wire.len_field(3, _varint_field(1, producer))


def decode_header(data):
    """`(num_shards, endianness, producer, min_consumer, bad_consumers)`."""
    num_shards, endianness, producer, min_consumer, bad = 0, LITTLE, 0, 0, []
    for number, wt, value in wire.iter_fields(data):
        if number == 1 and wt == wire.VARINT:
            num_shards = _int32(value)
        elif number == 2 and wt == wire.VARINT:
            endianness = value
        elif number == 3 and wt == wire.BYTES:
            for n, t, v in wire.iter_fields(value):
                if n == 1 and t == wire.VARINT:
                    producer = _int32(v)
                elif n == 2 and t == wire.VARINT:
                    min_consumer = _int32(v)
                elif n == 3 and t == wire.VARINT:
                    bad.append(_int32(v))
                elif n == 3 and t == wire.BYTES:
                    bad.extend(_int32(x) for x in wire.packed_varints(v))
    return num_shards, endianness, producer, min_consumer, bad


# --- BundleEntryProto ------------------------------------------------------------------------

class BundleEntry:
    """One tensor's entry: dtype enum, shape (tuple of ints), shard, byte
    offset and size in the shard, masked CRC-32C of its bytes, and whether
    it is a slice of a partitioned tensor (rillflow reads whole tensors only)."""

    __slots__ = ("dtype", "shape", "shard_id", "offset", "size", "crc32c", "sliced")

    def __init__(self, dtype, shape, shard_id=0, offset=0, size=0, crc32c=0, sliced=False):
        self.dtype, self.shape, self.shard_id = dtype, tuple(shape), shard_id
        self.offset, self.size, self.crc32c, self.sliced = offset, size, crc32c, sliced


def _encode_shape(shape):
    return b"".join(wire.len_field(2, _varint_field(1, d)) for d in shape)


def encode_entry(entry):
    """The BundleEntryProto bytes of `entry` (a `BundleEntry`)."""
    out = [_varint_field(1, entry.dtype), wire.len_field(2, _encode_shape(entry.shape)),
           _varint_field(3, entry.shard_id), _varint_field(4, entry.offset),
           _varint_field(5, entry.size)]
    if entry.crc32c:
        out.append(wire.key(6, wire.FIXED32) + struct.pack("<I", entry.crc32c))
    return b"".join(out)


def _decode_shape(data):
    return tensor_pb._decode_shape(data, "a saved tensor has unknown rank",
                                   "a saved tensor has an unknown or negative dimension")


def decode_entry(data):
    """The `BundleEntry` of BundleEntryProto bytes."""
    entry = BundleEntry(0, ())
    for number, wt, value in wire.iter_fields(data):
        if number == 1 and wt == wire.VARINT:
            entry.dtype = value
        elif number == 2 and wt == wire.BYTES:
            entry.shape = _decode_shape(value)
        elif number == 3 and wt == wire.VARINT:
            entry.shard_id = _int32(value)
        elif number == 4 and wt == wire.VARINT:
            entry.offset = wire.signed64(value)
        elif number == 5 and wt == wire.VARINT:
            entry.size = wire.signed64(value)
        elif number == 6 and wt == wire.FIXED32:
            (entry.crc32c,) = struct.unpack("<I", value)
        elif number == 7:
            entry.sliced = True
    return entry


# --- TrackableObjectGraph --------------------------------------------------------------------
#
# A node is a dict: {"children": [{"node_id", "local_name"}], "attributes":
# [{"name", "full_name", "checkpoint_key"}], "slot_variables":
# [{"original_variable_node_id", "slot_name", "slot_variable_node_id"}],
# "has_checkpoint_values": bool}; the lists may be left out when empty.

def _node_bytes(node):
    out = []
    for c in node.get("children", ()):
        out.append(wire.len_field(1, _varint_field(1, c["node_id"]) +
                                  _string_field(2, c["local_name"])))
    for a in node.get("attributes", ()):
        out.append(wire.len_field(2, _string_field(1, a["name"]) +
                                  _string_field(2, a["full_name"]) +
                                  _string_field(3, a["checkpoint_key"])))
    for s in node.get("slot_variables", ()):
        out.append(wire.len_field(3, _varint_field(1, s["original_variable_node_id"]) +
                                  _string_field(2, s["slot_name"]) +
                                  _varint_field(3, s["slot_variable_node_id"])))
    # TensorFlow sets this wrapper on every node, false ones included.
    out.append(wire.len_field(5, _varint_field(1, 1 if node.get("has_checkpoint_values")
                                               else 0)))
    return b"".join(out)


def _string_field(number, text):
    return wire.len_field(number, text.encode("utf-8")) if text else b""


def encode_object_graph(nodes):
    """The TrackableObjectGraph bytes of a list of node dicts."""
    return b"".join(wire.len_field(1, _node_bytes(n)) for n in nodes)


def _submessage(data, fields):
    """A dict of the string/varint `fields` ({number: (name, kind)}) of one
    small message, with defaults for absent ones."""
    out = {name: ("" if kind == "string" else 0) for name, kind in fields.values()}
    for number, wt, value in wire.iter_fields(data):
        spec = fields.get(number)
        if spec is None:
            continue
        name, kind = spec
        if kind == "string" and wt == wire.BYTES:
            out[name] = _string(value)
        elif kind == "int32" and wt == wire.VARINT:
            out[name] = _int32(value)
    return out


_CHILD = {1: ("node_id", "int32"), 2: ("local_name", "string")}
_ATTRIBUTE = {1: ("name", "string"), 2: ("full_name", "string"),
              3: ("checkpoint_key", "string")}
_SLOT = {1: ("original_variable_node_id", "int32"), 2: ("slot_name", "string"),
         3: ("slot_variable_node_id", "int32")}


def _decode_node(data):
    node = {"children": [], "attributes": [], "slot_variables": [],
            "has_checkpoint_values": True}
    for number, wt, value in wire.iter_fields(data):
        if wt != wire.BYTES:
            continue
        if number == 1:
            node["children"].append(_submessage(value, _CHILD))
        elif number == 2:
            node["attributes"].append(_submessage(value, _ATTRIBUTE))
        elif number == 3:
            node["slot_variables"].append(_submessage(value, _SLOT))
        elif number == 5:
            flag = 0
            for n, t, v in wire.iter_fields(value):
                if n == 1 and t == wire.VARINT:
                    flag = v
            node["has_checkpoint_values"] = bool(flag)
    return node


def decode_object_graph(data):
    """The node dicts of TrackableObjectGraph bytes (node ids unchecked)."""
    return [_decode_node(value) for number, wt, value in wire.iter_fields(data)
            if number == 1 and wt == wire.BYTES]
