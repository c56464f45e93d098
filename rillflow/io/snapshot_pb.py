"""TensorFlow's `SnapshotMetadataRecord` (snapshot.proto): the
`snapshot.metadata` file `tf.data.experimental.save` and `snapshot` write
beside the data files, on the message runtime in `message.py`."""
from .message import Field, Message

__all__ = ["SnapshotMetadataRecord"]


class SnapshotMetadataRecord(Message):
    """What a saved dataset is: its run id, creation time (microseconds),
    format version, component dtypes (DataType numbers), element count and
    whether it was finished."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.data.experimental.SnapshotMetadataRecord"
    _FIELDS = (Field("graph_hash", 1, "string"),
               Field("run_id", 2, "string"),
               Field("creation_timestamp", 3, "int64", repeated=False),
               Field("version", 4, "int64", repeated=False),
               Field("dtype", 5, "int64", repeated=True),
               Field("num_elements", 6, "int64", repeated=False),
               Field("finalized", 1000, "bool"))
