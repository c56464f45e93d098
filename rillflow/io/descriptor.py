"""Protobuf-style descriptors of the message runtime's classes (`DESCRIPTOR`
on every message class): enough of `google.protobuf.descriptor`'s
Descriptor and FieldDescriptor for protobuf's own `text_format.Parse` /
`Merge` to fill a rillflow message, as TensorFlow's guides do with
`tf.train.Example`. The type numbers are protobuf's (`FieldDescriptor.TYPE_*`,
`CPPTYPE_*`, `LABEL_*`), so nothing here imports protobuf.
"""

__all__ = ["Descriptor", "FieldDescriptor", "descriptor_of", "map_entry_class"]

# runtime kind -> (protobuf TYPE_*, CPPTYPE_*)
_TYPES = {"int64": (3, 2), "float": (2, 6), "bytes": (12, 9), "string": (9, 9),
          "message": (11, 10), "map": (11, 10), "int32": (5, 1), "double": (1, 5),
          "bool": (8, 7), "scalar_map": (11, 10), "enum": (14, 8), "uint64": (4, 4)}
LABEL_OPTIONAL, LABEL_REPEATED = 1, 3


class _Oneof:
    """A oneof group: its name (what `WhichOneof` takes)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class _Options:
    """Message options: only `map_entry` is read."""

    __slots__ = ("map_entry",)

    def __init__(self, map_entry):
        self.map_entry = map_entry


class FieldDescriptor:
    """One field: name, number, protobuf type codes, label, and for message
    fields the message's descriptor."""

    is_extension = False

    def __init__(self, containing, name, number, kind, repeated, message_type, oneof):
        self.containing_type = containing
        self.name, self.number = name, number
        self.full_name = f"{containing.full_name}.{name}"
        self.type, self.cpp_type = _TYPES[kind]
        # A map is a repeated field of entry messages on the wire and in text.
        self.is_repeated = repeated or kind == "map"
        self.label = LABEL_REPEATED if self.is_repeated else LABEL_OPTIONAL
        self._message_type = message_type
        self.containing_oneof = _Oneof(oneof) if oneof else None
        # Singular messages have presence; proto3 scalars do not.
        self.has_presence = kind == "message" and not self.is_repeated

    @property
    def message_type(self):
        """The field's message descriptor (None for scalars)."""
        m = self._message_type
        return m() if callable(m) else m


class Descriptor:
    """A message type: full name and fields (built on first use, so message
    classes may refer to classes declared after them)."""

    is_extendable = False

    def __init__(self, full_name, make_fields, map_entry=False):
        self.full_name = full_name
        self.name = full_name.rsplit(".", 1)[-1]
        self._make_fields = make_fields
        self._fields = None
        self.has_options = map_entry
        self._options = _Options(map_entry)

    def GetOptions(self):  # noqa: N802 - protobuf's API
        """The message options (`map_entry`)."""
        return self._options

    @property
    def fields(self):
        """The field descriptors in declaration order."""
        if self._fields is None:
            self._fields = self._make_fields(self)
        return self._fields

    @property
    def fields_by_name(self):
        """name -> FieldDescriptor."""
        return {f.name: f for f in self.fields}

    @property
    def fields_by_number(self):
        """number -> FieldDescriptor."""
        return {f.number: f for f in self.fields}


_ENTRY_CLASSES = {}


def map_entry_class(value_cls):
    """The entry class of a map<string, value_cls> field: a key and a value
    message, which text_format fills before copying it into the map."""
    cls = _ENTRY_CLASSES.get(value_cls)
    if cls is not None:
        return cls
    desc = Descriptor(
        f"{value_cls._FULL_NAME}Entry",
        lambda d: [FieldDescriptor(d, "key", 1, "string", False, None, None),
                   FieldDescriptor(d, "value", 2, "message", False, value_cls.DESCRIPTOR,
                                   None)],
        map_entry=True)

    class MapEntry:
        """One key and value of a map field."""

        DESCRIPTOR = desc

        def __init__(self):
            self.key = ""
            self.value = value_cls()

        def HasField(self, name):  # noqa: N802 - protobuf's API
            """Whether the field was set (the value once written to)."""
            return name == "value" and bool(self.value.ListFields())

        def WhichOneof(self, group):  # noqa: N802
            """Entries have no oneofs."""
            return None

        def SetInParent(self):  # noqa: N802
            """Nothing to mark: an entry has no parent until copied into the map."""

    _ENTRY_CLASSES[value_cls] = MapEntry
    return MapEntry


def descriptor_of(cls):
    """The Descriptor of a message class (its `_FULL_NAME` and `_FIELDS`)."""
    def fields(d):
        return [FieldDescriptor(d, f.name, f.number, f.kind, f.repeated,
                                (lambda c=f.cls, k=f.kind: map_entry_class(c).DESCRIPTOR
                                 if k == "map" else c.DESCRIPTOR)
                                if f.cls is not None and f.kind not in ("scalar_map", "enum")
                                else None, f.oneof)
                for f in cls._FIELDS]
    return Descriptor(cls._FULL_NAME, fields)
