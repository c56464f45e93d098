"""Graph export: `tf.summary.graph` and `trace_on` / `trace_export` /
`trace_off`, which write the graphs of the functions traced in between.

`trace_export` writes what TensorFlow writes: a summary whose tensor is a
serialized `RunMetadata` with one `function_graphs` entry per function
(its `pre_optimization_graph`), under the plugin name TensorBoard's Graphs
dashboard reads ("graph_run_metadata_graph").
"""
import threading
import time

from ..framework import context as _context
from ..framework.api_export import export
from ..framework.graph import Graph
from ..framework.graph_def import GraphDef
from ..ops.core.constant_ops import constant
from ..ops.debugging.logging_ops import get_logger
from . import graph_export, protos
from .ops import _bool, _constant, summary_scope, write_summary
from .writer import recording_condition, state

__all__ = ["trace_on", "trace_export", "trace_off", "graph"]

_RUN_METADATA_PLUGIN = "graph_run_metadata_graph"


class _Trace:
    """The functions traced since `trace_on` (one trace for the process, as in TF)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.active = False
        self.functions = []
        # trace_on(profiler=True) without a directory: TensorFlow's trace_off
        # then logs that no profiler is running.
        self.profiler_without_dir = False

    def listen(self, concrete_function):
        with self.lock:
            self.functions.append(concrete_function)


_trace = _Trace()


@export("summary.trace_on")
def trace_on(graph=True, profiler=False, profiler_outdir=None):
    """Starts collecting the graphs of the functions traced from now on
    (`tf.summary.trace_on`); `trace_export` writes them.

    Args:
      graph: collect graphs.
      profiler: accepted for compatibility; rillflow has no profiler, so
        this only warns.
      profiler_outdir: accepted for compatibility.
    """
    if _context.state.graph is not None:
        get_logger().warning("Cannot enable trace inside a tf.function.")
        return
    if profiler:
        _trace.profiler_without_dir = profiler_outdir is None
        # TensorFlow's warning without a directory; rillflow has no profiler.
        get_logger().warning("No `profiler_outdir` passed to trace_on(). Profiler won't be "
                             "enabled." if profiler_outdir is None else
                             "rillflow has no profiler: tf.summary.trace_on(profiler=True) "
                             "collects graphs only.")
    with _trace.lock:
        if _trace.active:
            get_logger().warning("Trace already enabled")
            return
        _trace.active = True
        _trace.functions = []
        if graph:
            _context.trace_listeners.append(_trace.listen)


@export("summary.trace_off")
def trace_off():
    """Stops collecting graphs and drops those collected (`tf.summary.trace_off`)."""
    if _trace.profiler_without_dir:
        _trace.profiler_without_dir = False
        get_logger().warning("Error while stopping profiler: Cannot export profiling results. "
                             "No profiler is running.")
    with _trace.lock:
        _trace.active = False
        _trace.functions = []
        while _trace.listen in _context.trace_listeners:
            _context.trace_listeners.remove(_trace.listen)


@export("summary.trace_export")
def trace_export(name, step=None, profiler_outdir=None):
    """Writes the graphs of the functions traced since `trace_on` to the
    default writer, under the tag `name`, and stops tracing
    (`tf.summary.trace_export`).

    TensorBoard's Graphs dashboard shows them (choose the tag `name`).

    Raises:
      ValueError: if tracing is not on, or no step is given or set while a
        default writer is recording.
    """
    if _context.state.graph is not None:
        get_logger().warning("Cannot export trace inside a tf.function.")
        return
    with _trace.lock:
        if not _trace.active:
            raise ValueError("Must enable trace before export through tf.summary.trace_on.")
        functions = list(_trace.functions)
    with summary_scope(name, "graph_run_metadata_graph_summary") as (tag, _):
        write_summary(tag, lambda: _run_metadata(functions), step,
                      lambda: _run_metadata_summary_metadata())
    trace_off()


def _run_metadata(functions):
    P = protos.load()
    rm = P.config_pb2.RunMetadata()
    for cf in functions:
        fg = rm.function_graphs.add()
        fg.pre_optimization_graph.CopyFrom(graph_export.function_graph_to_proto(cf.graph))
    return constant(rm.SerializeToString())


def _run_metadata_summary_metadata():
    P = protos.load()
    return P.summary_pb2.SummaryMetadata(
        plugin_data=P.summary_pb2.SummaryMetadata.PluginData(
            plugin_name=_RUN_METADATA_PLUGIN, content=b"1"))


@export("summary.graph")
def graph(graph_data):
    """Writes a graph to the default writer (`tf.summary.graph`), shown by
    TensorBoard's Graphs dashboard as the run's graph.

    Args:
      graph_data: a `tf.Graph` (a function's `.graph` too), a GraphDef
        (`Graph.as_graph_def()`), or a GraphDef proto.

    Returns:
      A bool tensor: True if written, False when there is no default writer
      or recording is off.

    Raises:
      ValueError: inside a function being traced, or for other `graph_data`.
    """
    if _context.state.graph is not None:
        raise ValueError("graph() cannot be invoked inside a graph context.")
    known, _ = recording_condition()
    if not known:
        return _constant(False)
    if isinstance(graph_data, Graph):
        proto = graph_export.graph_to_proto(graph_data)
    elif isinstance(graph_data, GraphDef):
        proto = graph_export.view_to_proto(graph_data)
    elif hasattr(graph_data, "SerializeToString") and hasattr(graph_data, "node"):
        proto = graph_data
    else:
        raise ValueError(f"Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. "
                         f"Received graph_data={graph_data!r} of type "
                         f"{type(graph_data).__name__}.")
    P = protos.load()
    state.writer._write_event(P.event_pb2.Event(wall_time=time.time(),
                                                graph_def=proto.SerializeToString()))
    return _bool(True)
