"""`tf.compat.v1`: graph-mode sessions and placeholders; the summary and
event protocol buffers (`tf.compat.v1.SummaryMetadata`, `Summary`, `Event`,
...), TensorBoard's own classes, loaded on first access since `tensorboard`
is an optional extra."""
from . import session  # noqa: F401
from ...summary import protos as _protos

# TensorFlow's tf.compat.v1 names for the protos rillflow takes from the
# `tensorboard` package: {name: proto module}.
_PROTO_CLASSES = {
    "Summary": "summary_pb2", "SummaryMetadata": "summary_pb2",
    "HistogramProto": "summary_pb2", "Event": "event_pb2", "SessionLog": "event_pb2",
    "LogMessage": "event_pb2",
}


def __getattr__(name):
    """The summary and event proto classes (Keras' TensorBoard callback
    imports `SummaryMetadata`); ImportError naming the extra without
    `tensorboard`."""
    module = _PROTO_CLASSES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    cls = getattr(getattr(_protos.load(), module), name)
    globals()[name] = cls
    return cls
