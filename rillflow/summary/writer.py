"""Summary writers and the default-writer state (`tf.summary.create_file_writer`,
`SummaryWriter.as_default`, `record_if`, the default step), and flushing a writer
(`tf.summary.flush`, the FlushSummaryWriter op a traced function runs).

The default writer, step and recording condition are per thread, as in
TensorFlow. A summary inside a `tf.function` uses the default writer of
the moment the function is traced.
"""
import contextlib
import os
import threading
import time
import weakref

import numpy as np

from ..framework import context as _context
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.execute import apply_op
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor, Tensor
from ..ops.core.constant_ops import constant
from . import protos
from .event_file import EventFile
from .tensor_proto import make_tensor_proto

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "record_if",
           "should_record_summaries", "get_step", "set_step", "state", "flush"]


class _SummaryState(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        # True, False, a bool tensor, or a callable returning one of those.
        self.is_recording = True


state = _SummaryState()


@export("summary.SummaryWriter")
class SummaryWriter:
    """Interface of summary writers (`tf.summary.SummaryWriter`).

    Make a writer the default with `with writer.as_default():` (or
    `set_as_default()`); summary functions write to the default writer.
    """

    _noop = False

    def set_as_default(self, step=None):
        """Makes this the default writer for the current thread (and sets the
        default step when `step` is given), until another one is set."""
        self._check_open()
        state.writer = self
        if step is not None:
            state.step = step

    def as_default(self, step=None):
        """A context manager making this the default writer inside the `with`.

        Args:
          step: the default step inside the `with` (an int, a `tf.Variable`
            or an int64 tensor); the previous step is restored on exit.

        On exit the writer is flushed. Calling it without `with` does not
        change the default writer (use `set_as_default`).
        """
        self._check_open()
        return _WriterContext(self, step)

    def _check_open(self):
        pass

    def init(self):
        """Initializes the writer (writers are ready when created)."""

    def flush(self):
        """Writes pending events to disk."""

    def _flush_now(self):
        self.flush()

    def close(self):
        """Flushes and closes the writer."""


class _WriterContext:
    """What `as_default` returns: sets the default writer (and step) inside `with`."""

    def __init__(self, writer, step):
        self._writer = writer
        self._step = step
        self._saved = None

    def __enter__(self):
        self._saved = (state.writer, state.step)
        state.writer = self._writer
        if self._step is not None:
            state.step = self._step
        return self._writer

    def __exit__(self, *exc):
        state.writer = self._saved[0]
        if self._step is not None:
            state.step = self._saved[1]
        self._writer.flush()
        return False


class _FileSummaryWriter(SummaryWriter):
    """Writes summaries to an event file in a log directory."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._logdir = logdir
        self._file = EventFile(logdir, max_queue, flush_millis, filename_suffix)
        self._closed = False
        # Flush and close the file when the writer is collected or at exit.
        self._finalizer = weakref.finalize(self, self._file.close)

    def _check_open(self):
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def init(self):
        """Initializes the writer.

        Raises:
          RuntimeError: if the writer was closed.
        """
        self._check_open()

    def flush(self):
        """Writes pending events to the event file (no effect once closed).

        Inside a function being traced, the flush happens on every call.
        """
        if _context.state.graph is not None:
            flush(self)
        else:
            self._flush_now()

    def _flush_now(self):
        if not self._closed:
            self._file.flush()

    def close(self):
        """Flushes and closes the event file; later writes raise NotFoundError."""
        if not self._closed:
            self._closed = True
            self._file.close()

    def _write_event(self, event):
        if self._closed:
            raise errors.NotFoundError(
                None, None, f"The summary writer for {self._logdir!r} was closed "
                "[Op:WriteSummary]")
        self._file.write(event)

    def _write_summary(self, tag, value, step, metadata):
        """Writes one summary value (a NumPy array) at `step`."""
        P = protos.load()
        summary = P.summary_pb2.Summary()
        v = summary.value.add(tag=tag, tensor=make_tensor_proto(value))
        if metadata is not None:
            v.metadata.CopyFrom(metadata)
        self._write_event(P.event_pb2.Event(wall_time=time.time(), step=int(step),
                                            summary=summary))


class _NoopSummaryWriter(SummaryWriter):
    """A writer that records nothing (`tf.summary.create_noop_writer`)."""

    _noop = True


@export("summary.create_file_writer")
def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None, experimental_trackable=False):
    """Creates a summary writer for an event file in `logdir`
    (`tf.summary.create_file_writer`).

    Args:
      logdir: the log directory (created if needed).
      max_queue: events kept in memory before a flush (default 10).
      flush_millis: longest time between flushes (default 120000).
      filename_suffix: appended to the event file name (default ".v2").
      name, experimental_trackable: accepted for compatibility.

    Raises:
      ValueError: if `logdir` is None.
      ImportError: if the `tensorboard` package (the `rillflow[tensorboard]`
        extra) is not installed.
    """
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    protos.load()
    logdir = os.fspath(_value(logdir))
    if isinstance(logdir, bytes):
        logdir = logdir.decode()
    max_queue = 10 if max_queue is None else int(_value(max_queue))
    flush_millis = 120000 if flush_millis is None else int(_value(flush_millis))
    suffix = ".v2" if filename_suffix is None else _value(filename_suffix)
    if isinstance(suffix, bytes):
        suffix = suffix.decode()
    with _context.eager_mode():
        return _FileSummaryWriter(logdir, max_queue, flush_millis, suffix)


def _value(x):
    """A Python value for an argument that may be given as an eager tensor."""
    if isinstance(x, EagerTensor):
        v = x.numpy()
        return v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
    return x


@export("summary.create_noop_writer")
def create_noop_writer():
    """A summary writer that records nothing (`tf.summary.create_noop_writer`)."""
    return _NoopSummaryWriter()


@export("summary.record_if")
@contextlib.contextmanager
def record_if(condition):
    """Summaries written inside the `with` are recorded only when `condition`
    holds (`tf.summary.record_if`).

    Args:
      condition: a bool, a bool tensor, or a callable returning one; a
        callable is called by each summary (inside a `tf.function`, while
        tracing, so a tensor it returns is evaluated on every call).
    """
    old = state.is_recording
    state.is_recording = condition
    try:
        yield
    finally:
        state.is_recording = old


def recording_condition():
    """The current recording condition: (False, None) when summaries are not
    recorded, (True, None) when they always are, (None, bool tensor) when a
    tensor decides."""
    w = state.writer
    if w is None or w._noop:
        return False, None
    cond = state.is_recording
    if callable(cond):
        cond = cond()
    if isinstance(cond, Tensor) or hasattr(cond, "_dense_var_to_tensor"):
        cond = convert_to_tensor(cond)
        known = cond.numpy() if isinstance(cond, EagerTensor) else cond._const
        if known is None:
            return None, cond
        cond = known
    return bool(cond), None


@export("summary.should_record_summaries")
def should_record_summaries():
    """Whether summaries are recorded here: a default writer is set and the
    `record_if` condition holds. Returns a bool tensor."""
    known, cond = recording_condition()
    if known is None:
        return cond
    return constant(known)


@export("summary.experimental.set_step")
def set_step(step):
    """Sets the default step (an int, a `tf.Variable` or an int64 tensor),
    used by summaries called without `step`."""
    state.step = step


@export("summary.experimental.get_step")
def get_step():
    """The default step, or None when none is set."""
    return state.step


# --- flushing ---------------------------------------------------------------------------

def _flush_kernel(*, _writer):
    _writer._flush_now()


_FlushSummaryWriter = register("FlushSummaryWriter", _flush_kernel, lambda i, a: [],
                               stateful=True)


@export("summary.flush")
def flush(writer=None, name=None):
    """Flushes `writer`, or the default writer when None (`tf.summary.flush`).

    Inside a function, the flush happens on every call.
    """
    if writer is None:
        writer = state.writer
    if writer is None or writer._noop:
        return None
    if _context.state.graph is None:
        writer._flush_now()
        return None
    return apply_op(_FlushSummaryWriter, [], {"_writer": writer}, name=name or "Flush")
