"""Protocol buffer wire format, by hand: varints, field keys, and a reader
that walks the fields of a serialized message.

Only what TensorFlow's small protos (Example, TensorProto) need: wire types
0 (varint), 1 (64-bit), 2 (length-delimited) and 5 (32-bit). Groups
(types 3 and 4) are obsolete and rejected as corrupt, as upb does.
"""
import struct

__all__ = ["DecodeError", "VARINT", "FIXED64", "BYTES", "FIXED32", "encode_varint",
           "key", "len_field", "read_varint", "iter_fields", "packed_varints",
           "packed_fixed"]

VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5
_MASK64 = (1 << 64) - 1


class DecodeError(Exception):
    """Raised for bytes that are not a valid serialized message
    (`google.protobuf.message.DecodeError` in protobuf)."""


def encode_varint(n):
    """The base-128 varint bytes of `n`; negative int64s are written as their
    64-bit two's complement (10 bytes), as protobuf does."""
    n &= _MASK64
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(number, wire_type):
    """The field key (tag) bytes of field `number` with `wire_type`."""
    return encode_varint((number << 3) | wire_type)


def len_field(number, payload):
    """A length-delimited field: key, length, payload."""
    return key(number, BYTES) + encode_varint(len(payload)) + payload


def read_varint(buf, pos, end=None):
    """Reads a varint at `pos`; returns (value, next position).

    Raises:
      DecodeError: if the varint runs past `end` or is longer than 10 bytes.
    """
    end = len(buf) if end is None else end
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise DecodeError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & _MASK64, pos
        shift += 7


def iter_fields(buf, pos=0, end=None):
    """Yields (field number, wire type, value) for each field of a message
    in `buf[pos:end]`: an int for varints, the raw 8 or 4 bytes for fixed
    fields, a memoryview slice for length-delimited ones.

    Raises:
      DecodeError: on truncated or malformed input.
    """
    mv = buf if isinstance(buf, memoryview) else memoryview(buf)
    end = len(mv) if end is None else end
    while pos < end:
        tag, pos = read_varint(mv, pos, end)
        number, wt = tag >> 3, tag & 7
        if number == 0:
            raise DecodeError("field number 0")
        if wt == VARINT:
            value, pos = read_varint(mv, pos, end)
        elif wt == BYTES:
            n, pos = read_varint(mv, pos, end)
            if pos + n > end:
                raise DecodeError("truncated length-delimited field")
            value, pos = mv[pos:pos + n], pos + n
        elif wt in (FIXED64, FIXED32):
            n = 8 if wt == FIXED64 else 4
            if pos + n > end:
                raise DecodeError("truncated fixed field")
            value, pos = mv[pos:pos + n], pos + n
        else:
            raise DecodeError(f"unsupported wire type {wt}")
        yield number, wt, value


def packed_varints(payload):
    """The varints of a packed repeated field's payload, as unsigned ints."""
    out, pos, end = [], 0, len(payload)
    while pos < end:
        v, pos = read_varint(payload, pos, end)
        out.append(v)
    return out


def packed_fixed(payload, fmt):
    """The values of a packed repeated fixed-width field ('<f', '<q', ...)."""
    size = struct.calcsize(fmt)
    if len(payload) % size:
        raise DecodeError("packed field size is not a multiple of the element size")
    return [v[0] for v in struct.iter_unpack(fmt, payload)]


def signed64(n):
    """An unsigned 64-bit varint value read back as int64."""
    return n - (1 << 64) if n >= (1 << 63) else n
