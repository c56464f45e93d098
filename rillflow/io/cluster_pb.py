"""TensorFlow's cluster protos (`tensorflow/core/protobuf/cluster.proto`,
`tensorflow_server.proto`): `tf.train.JobDef`, `ClusterDef`, `ServerDef`,
declared on the message runtime in `message.py`; their bytes are
TensorFlow's. ServerDef's `default_session_config` (a ConfigProto) and
`cluster_device_filters` are not declared: bytes of them read from a
serialized ServerDef are kept as unknown fields and written back."""
from ..framework.api_export import export
from .message import Field, Message

__all__ = ["JobDef", "ClusterDef", "ServerDef"]


@export("train.JobDef")
class JobDef(Message):
    """One job of a cluster: `name` and `tasks`, {task index: "host:port"}."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.JobDef"
    _FIELDS = (Field("name", 1, "string"),
               Field("tasks", 2, "scalar_map", cls=("int32", "string")))


@export("train.ClusterDef")
class ClusterDef(Message):
    """The jobs of a cluster (`job`, repeated JobDef)."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.ClusterDef"
    _FIELDS = (Field("job", 1, "message", repeated=True, cls=JobDef),)


@export("train.ServerDef")
class ServerDef(Message):
    """What a server of a cluster is: the cluster, its job and task, the
    protocol and port."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.ServerDef"
    _FIELDS = (Field("cluster", 1, "message", cls=ClusterDef),
               Field("job_name", 2, "string"),
               Field("task_index", 3, "int32"),
               Field("protocol", 5, "string"),
               Field("port", 6, "int32"),
               Field("replica", 8, "int32"))
