"""The protos `tf.test.Benchmark` writes and `tf.test.benchmark_config`
returns: TensorFlow's `BenchmarkEntries` (test_log.proto: entries, their
extras and metrics) and the part of `ConfigProto` a benchmark sets
(`graph_options.rewrite_options.dependency_optimization`), on the message
runtime in `message.py`; other ConfigProto fields read from bytes are kept
as unknown fields."""
from .message import Field, Message

__all__ = ["BenchmarkEntries", "BenchmarkEntry", "EntryValue", "MetricEntry", "ConfigProto"]


class DoubleValue(Message):
    """google.protobuf.DoubleValue: a double that can be absent."""
    __slots__ = ()
    _FULL_NAME = "google.protobuf.DoubleValue"
    _FIELDS = (Field("value", 1, "double"),)


class EntryValue(Message):
    """One extra of a benchmark: a double or a string (the oneof `kind`)."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.EntryValue"
    _FIELDS = (Field("double_value", 1, "double", oneof="kind"),
               Field("string_value", 2, "string", oneof="kind"))


class MetricEntry(Message):
    """A named metric with optional bounds."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.MetricEntry"
    _FIELDS = (Field("name", 1, "string"), Field("value", 2, "double"),
               Field("min_value", 3, "message", cls=DoubleValue),
               Field("max_value", 4, "message", cls=DoubleValue))


class BenchmarkEntry(Message):
    """One benchmark's result."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.BenchmarkEntry"
    _FIELDS = (Field("name", 1, "string"), Field("iters", 2, "int64"),
               Field("cpu_time", 3, "double"), Field("wall_time", 4, "double"),
               Field("throughput", 5, "double"),
               Field("extras", 6, "map", cls=EntryValue),
               Field("metrics", 7, "message", repeated=True, cls=MetricEntry))


class BenchmarkEntries(Message):
    """What a benchmark report file holds."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.BenchmarkEntries"
    _FIELDS = (Field("entry", 1, "message", repeated=True, cls=BenchmarkEntry),)


_TOGGLE = {0: "DEFAULT", 1: "ON", 2: "OFF", 3: "AGGRESSIVE", 4: "EXPERIMENTAL_MLIR",
           5: "EXPERIMENTAL_BOTH"}


class RewriterConfig(Message):
    """Grappler's switches (only `dependency_optimization` is declared)."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.RewriterConfig"
    OFF, ON, DEFAULT = 2, 1, 0
    _FIELDS = (Field("dependency_optimization", 8, "enum", cls=_TOGGLE),)


class GraphOptions(Message):
    """Graph options (only `rewrite_options` is declared)."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.GraphOptions"
    _FIELDS = (Field("rewrite_options", 10, "message", cls=RewriterConfig),)


class ConfigProto(Message):
    """Session configuration (only `graph_options` is declared)."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.ConfigProto"
    _FIELDS = (Field("graph_options", 10, "message", cls=GraphOptions),)
