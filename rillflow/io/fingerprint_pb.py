"""TensorFlow's `FingerprintDef` (fingerprint.proto: the hashes in a
SavedModel's `fingerprint.pb`) and `VersionDef`, on the message runtime in
`message.py`."""
from .message import Field, Message

__all__ = ["FingerprintDef", "VersionDef"]


class VersionDef(Message):
    """A producer version, the oldest consumer, consumers known bad."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.VersionDef"
    _FIELDS = (Field("producer", 1, "int32"), Field("min_consumer", 2, "int32"))


class FingerprintDef(Message):
    """The fingerprint of a SavedModel: five uint64 hashes, a UUID, a version."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.FingerprintDef"
    _FIELDS = (Field("saved_model_checksum", 1, "uint64"),
               Field("graph_def_program_hash", 2, "uint64"),
               Field("signature_def_hash", 3, "uint64"),
               Field("saved_object_graph_hash", 4, "uint64"),
               Field("checkpoint_hash", 5, "uint64"),
               Field("version", 6, "message", cls=VersionDef),
               Field("uuid", 7, "string"))
