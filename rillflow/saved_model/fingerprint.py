"""`tf.saved_model.experimental.Fingerprint`, `read_fingerprint`.

`read_fingerprint` reads the `fingerprint.pb` TensorFlow writes beside
`saved_model.pb` (a FingerprintDef, `io/fingerprint_pb.py`). rillflow's
`tf.saved_model.save` does not write one: of TensorFlow's five hashes only
`checkpoint_hash` (FarmHash Fingerprint64 of variables/variables.index) is
reproduced; the other four hash TensorFlow's regularized protos by rules
rillflow does not reproduce, and a fingerprint with made-up values would
misidentify the model. Reading a rillflow SavedModel's fingerprint fails as
for a SavedModel written before TensorFlow 2.12 (FileNotFoundError).
"""
import os

from ..framework.api_export import export
from ..io import fingerprint_pb, wire
from ..ops.strings.hash_ops import fingerprint64

__all__ = ["Fingerprint", "read_fingerprint", "checkpoint_hash"]

FINGERPRINT_FILENAME = "fingerprint.pb"
_FIELDS = ("saved_model_checksum", "graph_def_program_hash", "signature_def_hash",
           "saved_object_graph_hash", "checkpoint_hash")


@export("saved_model.experimental.Fingerprint")
class Fingerprint:
    """The fingerprint of a SavedModel: the hashes TensorFlow records in
    `fingerprint.pb`, and its `version` (a VersionDef).

    `singleprint()` is the model's one-string identity:
    'graph_def_program_hash/signature_def_hash/saved_object_graph_hash/checkpoint_hash'.
    """

    def __init__(self, saved_model_checksum=None, graph_def_program_hash=None,
                 signature_def_hash=None, saved_object_graph_hash=None, checkpoint_hash=None,
                 version=None):
        self.saved_model_checksum = saved_model_checksum
        self.graph_def_program_hash = graph_def_program_hash
        self.signature_def_hash = signature_def_hash
        self.saved_object_graph_hash = saved_object_graph_hash
        self.checkpoint_hash = checkpoint_hash
        self.version = version

    @classmethod
    def from_proto(cls, proto):
        """A Fingerprint from a FingerprintDef (or its serialized bytes).

        Raises:
          ValueError: if `proto` is neither.
        """
        try:
            if isinstance(proto, (bytes, bytearray)):
                proto = fingerprint_pb.FingerprintDef.FromString(bytes(proto))
            return cls(*(getattr(proto, f) for f in _FIELDS), version=proto.version)
        except AttributeError as e:
            raise ValueError(f"Given proto could not be deserialized as fingerprint.{e}") \
                from None
        except wire.DecodeError as e:
            raise ValueError(f"Given proto could not be deserialized as fingerprint.{e}") \
                from None

    def singleprint(self):
        """'graph_def_program_hash/signature_def_hash/saved_object_graph_hash/checkpoint_hash'.

        Raises:
          ValueError: if a hash is not a non-negative integer.
        """
        values = [self.graph_def_program_hash, self.signature_def_hash,
                  self.saved_object_graph_hash, self.checkpoint_hash]
        if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < (1 << 64)
                   for v in values):
            # TensorFlow's words, its binding's complaint included.
            raise ValueError(
                "Encounted invalid fingerprint values when constructing singleprint."
                + "".join(f"{n}: {v}" for n, v in zip(_FIELDS[1:], values))
                + "Singleprint(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (graph_def_program_hash: int, "
                "signature_def_hash: int, saved_object_graph_hash: int, checkpoint_hash: "
                "int) -> str\n\nInvoked with: " + ", ".join(repr(v) for v in values))
        return "/".join(str(v) for v in values)

    def __eq__(self, other):
        if not isinstance(other, Fingerprint):
            return False
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    __hash__ = None

    def __str__(self):
        return "SavedModel Fingerprint\n" + "\n".join(
            f"  {f}: {getattr(self, f)}" for f in _FIELDS)

    def __repr__(self):
        return "Fingerprint(%s)" % ", ".join(str(getattr(self, f)) for f in _FIELDS)


@export("saved_model.experimental.read_fingerprint")
def read_fingerprint(export_dir):
    """The Fingerprint of the SavedModel in `export_dir` (its fingerprint.pb).

    Raises:
      FileNotFoundError: if there is no fingerprint.pb.
      RuntimeError: if it cannot be parsed.
    """
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, FINGERPRINT_FILENAME)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            "SavedModel Fingerprint Error: Could not find fingerprint in directory: "
            f"{export_dir}\nNOT_FOUND: {path} not found")
    with open(path, "rb") as f:
        data = f.read()
    try:
        proto = fingerprint_pb.FingerprintDef.FromString(data)
    except wire.DecodeError:
        raise RuntimeError(
            "SavedModel Fingerprint Error: Could not read fingerprint from fingerprint.pb "
            f"file in directory: {export_dir}\nDATA_LOSS: the file is not a valid "
            "FingerprintDef") from None
    return Fingerprint.from_proto(proto)


def checkpoint_hash(export_dir):
    """TensorFlow's `checkpoint_hash` of a SavedModel: FarmHash Fingerprint64
    of its variables/variables.index file (0 without one)."""
    path = os.path.join(os.fspath(export_dir), "variables", "variables.index")
    if not os.path.isfile(path):
        return 0
    with open(path, "rb") as f:
        return int(fingerprint64([f.read()])[0])
