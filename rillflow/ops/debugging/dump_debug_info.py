"""`tf.debugging.experimental.enable_dump_debug_info` and
`disable_dump_debug_info`: tfdbg2's event files, for TensorBoard's Debugger
V2 plugin and TensorFlow's `DebugDataReader`.

Like the check-numerics checker (numerics_callback.py), the dumper is a
recorder in `context.state.tapes` that sees every op, and stays while
functions are traced. It writes, under `dump_root`, TFRecord files of
DebugEvent protos named `tfdbg_events.<seconds>.<host>.<kind>`:

- `.metadata`: the run (DebugMetadata); `.graphs`: the CPU device, each
  function graph traced while dumping (DebuggedGraph) and each of its ops
  (GraphOpCreation: type, name, inputs, output count);
- `.execution`: each op executed eagerly, function calls included
  (Execution: type, tensor ids, the debug mode and, per output, the
  summary that mode asks for, as TensorFlow's DebugNumericSummaryV2
  computes it, or the whole tensor for FULL_TENSOR), kept in a circular
  buffer of `circular_buffer_size` events (all of them for <= 0) written on
  `FlushExecutionFiles` and when dumping is disabled;
- `.source_files`, `.stack_frames`, `.graph_execution_traces`: left empty.
  rillflow records no Python stacks for ops, and does not instrument the
  ops inside functions: their values while the function runs are not
  dumped (TensorFlow adds debug ops to the graph for that).
"""
import collections
import os
import re
import socket
import struct
import time
import uuid

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework.api_export import export
from ...io import tensor_pb, tfrecord, wire

__all__ = ["enable_dump_debug_info", "disable_dump_debug_info"]

_state = _context.state
_MODES = ["UNSPECIFIED", "NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH", "SHAPE",
          "FULL_NUMERICS", "FULL_TENSOR", "REDUCE_INF_NAN_THREE_SLOTS"]
_KINDS = ("metadata", "source_files", "stack_frames", "graphs", "execution",
          "graph_execution_traces")
_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_CALLS = ("PartitionedCall", "StatefulPartitionedCall")


def _event(field, payload):
    """A serialized DebugEvent: the wall time and one field of `what`."""
    return wire.key(1, wire.FIXED64) + struct.pack("<d", time.time()) + \
        wire.len_field(field, payload)


def _s(number, text):
    return wire.len_field(number, text.encode("utf-8")) if text else b""


def _i(number, value):
    return wire.key(number, wire.VARINT) + wire.encode_varint(value) if value else b""


def summary(value, dtype, mode, tensor_id=-1):
    """TensorFlow's DebugNumericSummaryV2 of `value` (float64) for `mode`."""
    x = np.asarray(value)
    floating = dtype.is_floating
    size = x.size
    if floating:
        inf, nan = np.isinf(x), np.isnan(x)
        neg_inf, pos_inf = int(np.sum(inf & (x < 0))), int(np.sum(inf & (x > 0)))
        n_nan = int(np.sum(nan))
        finite = ~(inf | nan)
    else:
        neg_inf = pos_inf = n_nan = 0
        finite = np.ones(x.shape, bool)
    if mode == "CURT_HEALTH":
        return np.array([tensor_id, float(neg_inf + pos_inf + n_nan > 0)])
    if mode == "CONCISE_HEALTH":
        return np.array([tensor_id, size, neg_inf, pos_inf, n_nan], np.float64)
    if mode == "FULL_HEALTH":
        xf = x[finite] if x.dtype.kind not in "OSUb" else np.zeros(0)
        if x.dtype.kind == "b":
            xf = x[finite].astype(np.int8)
        return np.array([tensor_id, -1, dtype.as_datatype_enum, x.ndim, size, neg_inf, pos_inf,
                         n_nan, np.sum(xf < 0), np.sum(xf == 0), np.sum(xf > 0)], np.float64)
    if mode == "SHAPE":
        dims = list(x.shape)[-6:]
        return np.array([tensor_id, dtype.as_datatype_enum, x.ndim, size] + dims +
                        [0] * (6 - len(dims)), np.float64)
    return None


class DebugEventsWriter:
    """Writes tfdbg2's event files under `dump_root` (what
    `enable_dump_debug_info` returns)."""

    def __init__(self, dump_root, tfdbg_run_id, circular_buffer_size):
        self._dump_root = dump_root
        self._tfdbg_run_id = tfdbg_run_id
        os.makedirs(dump_root, exist_ok=True)
        prefix = os.path.join(dump_root, "tfdbg_events.%d.%s" % (int(time.time()),
                                                                 socket.gethostname()))
        self._files = {k: tfrecord.TFRecordWriter(prefix + "." + k) for k in _KINDS}
        self._buffer = collections.deque(maxlen=circular_buffer_size) \
            if circular_buffer_size > 0 else None
        self._files["metadata"].write(_event(3, _s(1, "rillflow") + _s(2, "debug.Event:1") +
                                             _s(3, tfdbg_run_id)))
        self._files["graphs"].write(_event(12, _s(1, _DEVICE) + _i(2, 1)))

    @property
    def dump_root(self):
        """The directory the files are in."""
        return self._dump_root

    def WriteExecution(self, payload):  # noqa: N802 - TensorFlow's method names
        """Records one serialized Execution (buffered with a circular buffer)."""
        record = _event(9, payload)
        if self._buffer is None:
            self._files["execution"].write(record)
        else:
            self._buffer.append(record)

    def WriteGraphOpCreation(self, payload):  # noqa: N802
        """Records one serialized GraphOpCreation."""
        self._files["graphs"].write(_event(7, payload))

    def WriteDebuggedGraph(self, payload):  # noqa: N802
        """Records one serialized DebuggedGraph."""
        self._files["graphs"].write(_event(8, payload))

    def FlushNonExecutionFiles(self):  # noqa: N802
        """Writes out the files other than the execution record."""
        for k in _KINDS:
            if k != "execution":
                self._files[k].flush()

    def FlushExecutionFiles(self):  # noqa: N802
        """Writes out the buffered executions."""
        if self._buffer:
            for record in self._buffer:
                self._files["execution"].write(record)
            self._buffer.clear()
        self._files["execution"].flush()

    def Close(self):  # noqa: N802
        """Flushes and closes every file."""
        self.FlushExecutionFiles()
        for f in self._files.values():
            f.close()


class _Dumper:
    """The recorder: an Execution per eager op, the ops of traced graphs."""

    _observer = True       # sees ops, takes no gradients (function_gradients.py)

    _keep_in_graphs = True

    def __init__(self, writer, mode, op_regex, tensor_dtypes):
        self.writer, self.mode = writer, mode
        self.op_regex = re.compile(op_regex) if op_regex else None
        self.dtypes = tensor_dtypes
        self.busy = False
        self.next_id = 0
        self.graph_ids = {}
        self.tensor_ids = {}

    def _should_record(self, inputs):
        return not self.busy

    def _variable_accessed(self, variable):
        """Variables show through the ops that read them."""

    def _dtype_ok(self, dtype):
        d = self.dtypes
        if d is None:
            return True
        if callable(d) and not isinstance(d, (list, tuple)):
            return bool(d(dtype))
        return any(D.as_dtype(x) is dtype for x in d)

    def _tensor_id(self, t, new=False):
        if not new and id(t) in self.tensor_ids:
            return self.tensor_ids[id(t)]
        if len(self.tensor_ids) > 100000:
            self.tensor_ids.clear()
        self.tensor_ids[id(t)] = k = self.next_id
        self.next_id += 1
        return k

    def _graph_id(self, graph):
        gid = self.graph_ids.get(id(graph))
        if gid is None:
            gid = self.graph_ids[id(graph)] = (str(uuid.uuid4()), graph)
            self.writer.WriteDebuggedGraph(_s(1, gid[0]) + _s(2, getattr(graph, "name", "")))
        return gid[0]

    def _record(self, op):
        if self.op_regex is not None and not self.op_regex.match(op.type):
            return
        self.busy = True
        try:
            graph = getattr(op, "graph", None)
            if graph is not None:
                self._graph_op(op, graph)
            else:
                self._execution(op)
        finally:
            self.busy = False

    def _graph_op(self, op, graph):
        payload = _s(1, op.type) + _s(2, op.name) + _s(3, getattr(graph, "name", "")) + \
            _s(4, self._graph_id(graph)) + _s(5, _DEVICE) + \
            b"".join(_s(6, t.name) for t in op.inputs) + _i(7, len(op.outputs))
        self.writer.WriteGraphOpCreation(payload)

    def _execution(self, op):
        op_type, graph_id = op.type, ""
        f = op.attrs.get("f") if hasattr(op.attrs, "get") else None
        if op_type in _CALLS and f is not None:
            op_type = getattr(f, "name", None) or str(f)
            fg = getattr(f, "graph", None)
            if fg is not None:
                graph_id = self._graph_id(fg)
        ins = [self._tensor_id(t) for t in op.inputs]
        outs = [self._tensor_id(t, new=True) for t in op.outputs]
        payload = [_s(1, op_type), _i(2, len(op.outputs)), _s(3, graph_id)]
        if ins:
            payload.append(wire.len_field(4, b"".join(wire.encode_varint(k) for k in ins)))
        if outs:
            payload.append(wire.len_field(5, b"".join(wire.encode_varint(k) for k in outs)))
        payload.append(_i(6, _MODES.index(self.mode)))
        if self.mode != "NO_TENSOR":
            for t in op.outputs:
                v = getattr(t, "_v", None)
                if not isinstance(v, (np.ndarray, np.generic)) or not self._dtype_ok(t.dtype):
                    continue
                if self.mode == "FULL_TENSOR":
                    proto = tensor_pb.encode_tensor(np.asarray(v), t.dtype)
                else:
                    s = summary(v, t.dtype, self.mode)
                    if s is None:
                        continue
                    proto = tensor_pb.encode_tensor(s, D.float64)
                payload.append(wire.len_field(7, proto))
        payload.append(wire.len_field(8, _s(1, socket.gethostname())))
        self.writer.WriteExecution(b"".join(payload))


def _active():
    for t in _state.tapes:
        if isinstance(t, _Dumper):
            return t
    return None


@export("debugging.experimental.enable_dump_debug_info")
def enable_dump_debug_info(dump_root, tensor_debug_mode="NO_TENSOR", circular_buffer_size=1000,
                           op_regex=None, tensor_dtypes=None):
    """Starts writing tfdbg2's debug event files under `dump_root` (see the
    module docstring for what is recorded), on this thread.

    Args:
      dump_root: the directory to write.
      tensor_debug_mode: how much of each output is kept: NO_TENSOR,
        CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, SHAPE or FULL_TENSOR.
      circular_buffer_size: how many of the last executions are kept until
        flushed (<= 0: all, written at once).
      op_regex: only ops whose type matches this regular expression.
      tensor_dtypes: only outputs of these dtypes (a list, or a predicate).

    Returns:
      The DebugEventsWriter (its FlushExecutionFiles and
      FlushNonExecutionFiles write the files out).

    Raises:
      ValueError: for an unknown mode, or dumping already on for another
        directory or mode.
    """
    if tensor_debug_mode not in _MODES:
        raise ValueError(f"Invalid value in tensor_debug_mode ({tensor_debug_mode!r}). "
                         f"Valid options are: {_MODES}")
    if tensor_debug_mode in ("UNSPECIFIED", "FULL_NUMERICS", "REDUCE_INF_NAN_THREE_SLOTS"):
        raise ValueError(f"tensor_debug_mode {tensor_debug_mode} is not supported by "
                         "enable_dump_debug_info.")
    if not isinstance(circular_buffer_size, int) or isinstance(circular_buffer_size, bool):
        raise TypeError(f"circular_buffer_size must be an int, got {circular_buffer_size!r}")
    dump_root = os.fspath(dump_root)
    current = _active()
    if current is not None:
        if current.writer.dump_root != dump_root or current.mode != tensor_debug_mode:
            raise ValueError(
                "There is already a dumping callback configured with a different dump root "
                f"({current.writer.dump_root}) or tensor debug mode ({current.mode}); call "
                "disable_dump_debug_info() first.")
        return current.writer
    writer = DebugEventsWriter(dump_root, uuid.uuid4().hex[:8], circular_buffer_size)
    _state.tapes.append(_Dumper(writer, tensor_debug_mode, op_regex, tensor_dtypes))
    return writer


@export("debugging.experimental.disable_dump_debug_info")
def disable_dump_debug_info():
    """Stops dumping on this thread and writes the files out (nothing if off)."""
    current = _active()
    if current is None:
        return
    _state.tapes[:] = [t for t in _state.tapes if t is not current]
    current.writer.Close()
