"""A small protocol-buffer message runtime: enough of protobuf's Python API
(keyword construction, attribute access, repeated and map containers,
`SerializeToString`, `FromString`, `==`, text format) for tf.train.Example
and its friends, with no protobuf package.

A message class declares its fields as `Field`s; `Message.__init_subclass__`
turns them into properties. Field kinds: repeated "int64", "float" (packed,
as protobuf writes proto3 repeated numbers) and "bytes"; "message"
(singular or repeated) and "map" (string keys, message values); singular
proto3 scalars ("int64", "int32", "bool", "double", "float", "string",
"bytes", "uint64", and "enum" (an int32 whose `cls` is {number: name} for text), with
`repeated=False`: no presence, the default is not written);
"scalar_map" (`cls=(key kind, value kind)`, scalar keys and values, e.g.
JobDef's map<int32, string>).
"""
import functools
import operator
import struct

from . import wire
from .descriptor import descriptor_of
from .containers import CHECKS as _CHECKS, MessageMap, RepeatedMessage, RepeatedScalar

__all__ = ["Field", "Message", "DecodeError"]

DecodeError = wire.DecodeError


class Field:
    """One declared field: name, number, kind, and for messages the class."""

    __slots__ = ("name", "number", "kind", "repeated", "cls", "oneof", "singular")

    def __init__(self, name, number, kind, repeated=False, cls=None, oneof=None):
        self.name, self.number, self.kind = name, number, kind
        self.repeated, self.cls, self.oneof = repeated, cls, oneof
        # A proto3 scalar (not a repeated list): read as its default when unset.
        self.singular = kind in _SCALAR_DEFAULTS and not repeated

    def __repr__(self):
        return f"<Field {self.name}={self.number}>"


_SCALAR_DEFAULTS = {"int64": 0, "uint64": 0, "int32": 0, "enum": 0, "bool": False, "double": 0.0, "float": 0.0,
                    "string": "", "bytes": b""}


def _check_scalar(owner, field, kind, v):
    """protobuf's type checks for a singular scalar or a scalar map's key/value."""
    if kind in ("int64", "uint64", "int32", "enum"):
        v = operator.index(v)     # TypeError: "'str' object cannot be interpreted as an integer"
    elif kind in ("double", "float"):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: int, "
                            "float")
    elif kind == "bool":
        if not isinstance(v, (bool, int)):
            raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: bool, int")
    elif not isinstance(v, (str, bytes) if kind == "string" else bytes):
        raise TypeError(f"{v!r} has type {type(v).__name__}, but expected one of: bytes"
                        + (", str" if kind == "string" else ""))
    if kind in ("int32", "enum") and not -(1 << 31) <= v < (1 << 31):
        raise ValueError(f"Value out of range: {v}")
    if kind == "int64" and not -(1 << 63) <= v < (1 << 63):
        raise ValueError(f"Value out of range: {v}")
    if kind == "uint64" and not 0 <= v < (1 << 64):
        raise ValueError(f"Value out of range: {v}")
    if kind == "string" and isinstance(v, bytes):
        v = v.decode("utf-8")
    if kind in ("double", "float"):
        v = float(v)
    if kind == "bool":
        v = bool(v)
    return v


def _scalar_bytes(number, kind, v):
    """The wire bytes of one scalar field occurrence."""
    if kind in ("int64", "uint64", "int32", "enum", "bool"):
        return wire.key(number, wire.VARINT) + wire.encode_varint(int(v))
    if kind == "double":
        return wire.key(number, wire.FIXED64) + struct.pack("<d", v)
    if kind == "float":
        return wire.key(number, wire.FIXED32) + struct.pack("<f", v)
    return wire.len_field(number, v.encode("utf-8") if kind == "string" else v)


def _scalar_value(kind, wt, value):
    """A scalar decoded from one field occurrence, or raise DecodeError."""
    if kind == "uint64" and wt == wire.VARINT:
        return value
    if kind in ("int64", "int32", "enum", "bool") and wt == wire.VARINT:
        v = wire.signed64(value)
        if kind in ("int32", "enum"):
            v = ((v + (1 << 31)) % (1 << 32)) - (1 << 31)
        return bool(v) if kind == "bool" else v
    if kind == "double" and wt == wire.FIXED64:
        return struct.unpack("<d", value)[0]
    if kind == "float" and wt == wire.FIXED32:
        return struct.unpack("<f", value)[0]
    if kind in ("string", "bytes") and wt == wire.BYTES:
        return bytes(value).decode("utf-8") if kind == "string" else bytes(value)
    raise DecodeError("wire type does not fit the field")


def _scalar_text(kind, v):
    if kind == "string":
        return _quote(v.encode("utf-8"), True)
    if kind == "bytes":
        return _quote(v)
    if kind == "bool":
        return "true" if v else "false"
    if kind == "double":
        s = repr(float(v))
        return s[:-2] if s.endswith(".0") else s
    if kind == "float":
        return _format_float(v)
    return str(v)


class ScalarMap(dict):
    """A map field with scalar keys and values (JobDef's `tasks`)."""

    __slots__ = ("_owner", "_kinds")

    def __init__(self, owner, kinds):
        super().__init__()
        self._owner, self._kinds = owner, kinds

    def __setitem__(self, k, v):
        k = _check_scalar(self._owner, None, self._kinds[0], k)
        v = _check_scalar(self._owner, None, self._kinds[1], v)
        dict.__setitem__(self, k, v)
        self._owner._mark()

    def __missing__(self, k):
        return _SCALAR_DEFAULTS[self._kinds[1]]

    def update(self, other=(), **kw):
        for k, v in dict(other, **kw).items():
            self[k] = v


# --- Message -----------------------------------------------------------------------------------

def _text_key_order(a, b):
    # upb's text printer (what print(example) shows in TensorFlow) sorts map
    # keys by a comparator that is descending on the first differing byte and
    # puts a prefix before its extensions. Its deterministic serialization
    # writes the reverse of that order.
    n = min(len(a), len(b))
    if a[:n] != b[:n]:
        return -1 if a[:n] > b[:n] else 1
    return len(a) - len(b)


_TEXT_KEY = functools.cmp_to_key(_text_key_order)


def _sorted_keys(m, for_text):
    keys = sorted(m, key=lambda k: _TEXT_KEY(k.encode("utf-8")))
    return keys if for_text else keys[::-1]


class Message:
    """Base of the message classes; subclasses set `_FIELDS` and `_FULL_NAME`."""

    __slots__ = ("_values", "_pending", "_parent", "_unknown")
    _FIELDS = ()
    _FULL_NAME = ""

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._BY_NAME = {f.name: f for f in cls._FIELDS}
        cls._BY_NUMBER = {f.number: f for f in cls._FIELDS}
        # protobuf's text_format reads the fields through DESCRIPTOR.
        cls.DESCRIPTOR = descriptor_of(cls)
        for f in cls._FIELDS:
            setattr(cls, f.name, property(functools.partial(Message._get, field=f),
                                          functools.partial(Message._set, field=f),
                                          doc=f"The `{f.name}` field."))

    def __init__(self, **kwargs):
        self._values, self._pending, self._parent, self._unknown = {}, {}, None, b""
        for name, v in kwargs.items():
            f = self._BY_NAME.get(name)
            if f is None:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" '
                                 'field.')
            if v is None:
                continue
            if f.singular:
                self._set(v, f)
            elif f.kind == "scalar_map":
                self._get(f).update(v)
            elif f.kind == "map":
                target = self._get(f)
                for k, m in v.items():
                    target[k].CopyFrom(_as_message(f.cls, m, "CopyFrom()"))
            elif f.repeated:
                self._get(f).extend(v)
            elif f.kind == "message":
                self._get(f).CopyFrom(_as_message(f.cls, v, "initialize message field"))

    # --- field access and presence -----------------------------------------------------------
    def _get(self, field):
        v = self._values.get(field.name)
        if v is not None:
            return v
        if field.singular:
            return _SCALAR_DEFAULTS[field.kind]
        if field.kind == "scalar_map":
            v = ScalarMap(self, field.cls)
        elif field.kind == "map":
            v = MessageMap(self, field.cls)
        elif field.repeated:
            v = RepeatedMessage(self, field.cls) if field.kind == "message" else \
                RepeatedScalar(self, _CHECKS[field.kind])
        else:
            # An unset submessage reads as an empty one that becomes set
            # (and clears its oneof siblings) once something is written to it.
            v = self._pending.get(field.name)
            if v is None:
                v = self._pending[field.name] = field.cls()
                v._parent = (self, field)
            return v
        self._values[field.name] = v
        return v

    def _set(self, value, field):
        if field.singular:
            v = _check_scalar(self, field, field.kind, value)
            if field.oneof:
                for other in self._FIELDS:
                    if other.oneof == field.oneof and other is not field:
                        self._values.pop(other.name, None)
            self._values[field.name] = v
            self._mark()
            return
        kind = "message" if field.kind == "message" and not field.repeated else \
            "map, or repeated"
        raise AttributeError(f'Assignment not allowed to {kind} field "{field.name}" in '
                             'protocol message object.')

    def _mark(self):
        p = self._parent
        if isinstance(p, tuple):
            parent, field = p
            if field.oneof:
                for other in parent._FIELDS:
                    if other.oneof == field.oneof and other is not field:
                        parent._values.pop(other.name, None)
            parent._values[field.name] = self
            parent._pending.pop(field.name, None)
            self._parent = parent
            parent._mark()
        elif p is not None:
            p._mark()

    def SetInParent(self):  # noqa: N802 - protobuf's API
        """Marks this submessage present in its parent, though empty."""
        self._mark()

    def _present(self, field):
        v = self._values.get(field.name)
        if v is None:
            return False
        if field.singular:
            return field.oneof is not None or v != _SCALAR_DEFAULTS[field.kind]
        return True if field.kind == "message" and not field.repeated else len(v) > 0

    def HasField(self, name):  # noqa: N802 - protobuf's API
        """Whether singular message field `name` is set."""
        f = self._BY_NAME.get(name)
        if f is not None and f.singular and f.oneof is None:
            raise ValueError(f"Field {self._FULL_NAME}.{name} does not have presence.")
        if f is None or f.repeated:
            raise ValueError(f'Protocol message {type(self).__name__} has no singular "{name}"'
                             ' field.')
        return self._present(f)

    def WhichOneof(self, group):  # noqa: N802
        """The name of the set field of oneof `group`, or None."""
        for f in self._FIELDS:
            if f.oneof == group and self._present(f):
                return f.name
        if not any(f.oneof == group for f in self._FIELDS):
            raise ValueError(f'Protocol message has no oneof "{group}" field.')
        return None

    def ListFields(self):  # noqa: N802
        """(field, value) for each set field, in field-number order."""
        return [(f, self._values[f.name]) for f in sorted(self._FIELDS, key=lambda f: f.number)
                if self._present(f)]

    def ClearField(self, name):  # noqa: N802
        """Unsets field `name`."""
        self._values.pop(name, None)
        self._pending.pop(name, None)

    def Clear(self):  # noqa: N802
        """Unsets every field."""
        self._values, self._pending, self._unknown = {}, {}, b""

    def CopyFrom(self, other):  # noqa: N802
        """Makes this message a copy of `other` (same class)."""
        if not isinstance(other, type(self)):
            raise TypeError("Parameter to CopyFrom() must be instance of same class: expected "
                            f"{type(self)} got {type(other)}.")
        if other is self:
            return
        self.Clear()
        self.MergeFrom(other)
        self._mark()

    def MergeFrom(self, other):  # noqa: N802
        """Merges `other`'s fields into this message, as protobuf does:
        repeated fields append, maps and submessages merge."""
        self.MergeFromString(other.SerializeToString())

    # --- wire format -----------------------------------------------------------------------
    def SerializeToString(self, deterministic=False):  # noqa: N802
        """The wire-format bytes. Map entries are written in the order of
        TensorFlow's deterministic serialization."""
        out = []
        for f in sorted(self._FIELDS, key=lambda f: f.number):
            if not self._present(f):
                continue
            v = self._values[f.name]
            if f.singular:
                out.append(_scalar_bytes(f.number, f.kind, v))
            elif f.kind == "scalar_map":
                # upb writes a map with integer keys in descending key order.
                for k in sorted(v, reverse=True):
                    entry = _scalar_bytes(1, f.cls[0], k) + _scalar_bytes(2, f.cls[1], v[k])
                    out.append(wire.len_field(f.number, entry))
            elif f.kind == "int64":
                out.append(wire.len_field(f.number, b"".join(map(wire.encode_varint, v))))
            elif f.kind == "float":
                out.append(wire.len_field(f.number, struct.pack(f"<{len(v)}f", *v)))
            elif f.kind == "bytes":
                out.extend(wire.len_field(f.number, b) for b in v)
            elif f.kind == "map":
                for k in _sorted_keys(v, False):
                    entry = wire.len_field(1, k.encode("utf-8")) + \
                        wire.len_field(2, v[k].SerializeToString())
                    out.append(wire.len_field(f.number, entry))
            elif f.repeated:
                out.extend(wire.len_field(f.number, m.SerializeToString()) for m in v)
            else:
                out.append(wire.len_field(f.number, v.SerializeToString()))
        out.append(self._unknown)
        return b"".join(out)

    SerializePartialToString = SerializeToString

    def ByteSize(self):  # noqa: N802
        """The length of the serialized message."""
        return len(self.SerializeToString())

    def ParseFromString(self, data):  # noqa: N802
        """Replaces the contents with the message in `data`; returns its length.

        Raises:
          DecodeError: if `data` is not a valid serialized message.
        """
        self.Clear()
        return self.MergeFromString(data)

    def MergeFromString(self, data):  # noqa: N802
        """Merges the message in `data` into this one; returns its length."""
        try:
            self._merge(memoryview(bytes(data)))
        except (DecodeError, UnicodeDecodeError, struct.error):
            raise DecodeError(f"Error parsing message with type '{self._FULL_NAME}': Wire "
                              "format was corrupt") from None
        self._mark()
        return len(data)

    @classmethod
    def FromString(cls, data):  # noqa: N802
        """A new message parsed from `data`."""
        m = cls()
        m.MergeFromString(data)
        return m

    def _merge(self, buf):
        unknown = []
        for number, wt, value in wire.iter_fields(buf):
            f = self._BY_NUMBER.get(number)
            if f is None or not self._merge_field(f, wt, value):
                unknown.append(_reencode(number, wt, value))
        if unknown:
            self._unknown += b"".join(unknown)

    def _merge_field(self, f, wt, value):
        """Merges one field occurrence; False when its wire type does not fit
        the field (protobuf keeps such fields as unknown)."""
        if f.singular:
            try:
                self._values[f.name] = _scalar_value(f.kind, wt, value)
            except DecodeError:
                return False
            return True
        target = self._get(f)
        if f.kind == "scalar_map":
            if wt != wire.BYTES:
                return False
            k, v = _SCALAR_DEFAULTS[f.cls[0]], _SCALAR_DEFAULTS[f.cls[1]]
            for n, t, x in wire.iter_fields(value):
                if n == 1:
                    k = _scalar_value(f.cls[0], t, x)
                elif n == 2:
                    v = _scalar_value(f.cls[1], t, x)
            dict.__setitem__(target, k, v)
            return True
        if f.kind == "int64":
            if wt == wire.BYTES:
                list.extend(target, map(wire.signed64, wire.packed_varints(value)))
            elif wt == wire.VARINT:
                list.append(target, wire.signed64(value))
            else:
                return False
        elif f.kind == "float":
            if wt == wire.BYTES:
                list.extend(target, wire.packed_fixed(value, "<f"))
            elif wt == wire.FIXED32:
                list.append(target, struct.unpack("<f", value)[0])
            else:
                return False
        elif wt != wire.BYTES:
            return False
        elif f.kind == "bytes":
            list.append(target, bytes(value))
        elif f.kind == "map":
            k, sub = "", b""
            for n, t, v in wire.iter_fields(value):
                if n == 1 and t == wire.BYTES:
                    k = bytes(v).decode("utf-8")
                elif n == 2 and t == wire.BYTES:
                    sub = v
            m = f.cls()
            m._merge(sub)
            m._parent = self
            dict.__setitem__(target, k, m)
        elif f.repeated:
            m = target.add()
            m._merge(value)
        else:
            target._merge(value)
            target._mark()
        return True

    # --- Python protocol -------------------------------------------------------------------
    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self.SerializeToString() == other.SerializeToString()

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None

    def __str__(self):
        return "".join(self._text(""))

    __repr__ = __str__

    def _text(self, ind):
        for f in sorted(self._FIELDS, key=lambda f: f.number):
            if not self._present(f):
                continue
            v = self._values[f.name]
            if f.singular:
                # an enum field's `cls` is {number: name}: text shows the name
                text = f.cls.get(v, str(v)) if f.kind == "enum" else _scalar_text(f.kind, v)
                yield f"{ind}{f.name}: {text}\n"
            elif f.kind == "scalar_map":
                for k in sorted(v):
                    yield (f"{ind}{f.name} {{\n{ind}  key: {_scalar_text(f.cls[0], k)}\n"
                           f"{ind}  value: {_scalar_text(f.cls[1], v[k])}\n{ind}}}\n")
            elif f.kind in _CHECKS:
                fmt = _FORMATS[f.kind]
                for x in v:
                    yield f"{ind}{f.name}: {fmt(x)}\n"
            elif f.kind == "map":
                for k in _sorted_keys(v, True):
                    yield f'{ind}{f.name} {{\n{ind}  key: {_quote(k.encode(), True)}\n'
                    yield f"{ind}  value {{\n"
                    yield from v[k]._text(ind + "    ")
                    yield f"{ind}  }}\n{ind}}}\n"
            else:
                for m in (v if f.repeated else (v,)):
                    yield f"{ind}{f.name} {{\n"
                    yield from m._text(ind + "  ")
                    yield f"{ind}}}\n"

    def __reduce__(self):
        return type(self).FromString, (self.SerializeToString(),)

    def __deepcopy__(self, memo):
        return type(self).FromString(self.SerializeToString())


def _as_message(cls, v, what):
    if isinstance(v, dict):
        return cls(**v)
    if not isinstance(v, cls):
        raise TypeError(f"Parameter to {what} must be "
                        f"{'dict or ' if what != 'CopyFrom()' else ''}instance of same class: "
                        f"expected {cls} got {type(v)}.")
    return v


def _reencode(number, wt, value):
    if wt == wire.VARINT:
        return wire.key(number, wt) + wire.encode_varint(value)
    if wt == wire.BYTES:
        return wire.len_field(number, bytes(value))
    return wire.key(number, wt) + bytes(value)


def _format_float(x):
    # upb prints a float with %.6g when that reads back as the same float32,
    # else with %.9g (always enough).
    s = "%.6g" % x
    if s not in ("inf", "-inf", "nan") and struct.unpack("<f", struct.pack("<f", float(s)))[0] \
            != x:
        s = "%.9g" % x
    return s


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"',
            ord("'"): "\\'", ord("\\"): "\\\\"}


def _quote(b, utf8=False):
    """Text-format quoting: C escapes, octal for other bytes (string fields
    keep their UTF-8 bytes as they are)."""
    out = bytearray(b'"')
    for c in b:
        e = _ESCAPES.get(c)
        if e is not None:
            out += e.encode()
        elif 0x20 <= c < 0x7F or (utf8 and c >= 0x80):
            out.append(c)
        else:
            out += b"\\%03o" % c
    out.append(34)
    return out.decode("utf-8", "replace")


_FORMATS = {"int64": str, "float": _format_float, "bytes": _quote}
