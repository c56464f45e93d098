"""Writing one summary: now when executing eagerly, or as a stateful
`WriteSummary` op that writes on every call of a function being traced.

The op holds the writer that was the default when the function was
traced (as TensorFlow's op holds that writer's resource); its inputs are
the step, which is read when the op runs (so a `tf.Variable` step
advances between calls), the data and, under a `record_if` whose condition
is a tensor, that condition.
"""
import contextlib
import re
import time

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.execute import apply
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from ..ops.core.constant_ops import constant
from ..ops.state.module import eager_name_scope
from . import protos
from .writer import get_step, recording_condition, state

__all__ = ["write_summary", "summary_scope", "write", "write_raw_pb"]

_state = _context.state
_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")
_NO_STEP = ("No step set. Please specify one either through the `step` argument or through "
            "tf.summary.experimental.set_step()")


def _write_kernel(step, value, *condition, tag, _writer, _prepare, _metadata, T=None):
    if condition and not condition[0]:
        return np.bool_(False)
    _writer._write_summary(tag, value if _prepare is None else _prepare(value), step,
                           _metadata)
    return np.bool_(True)


def _write_infer(inputs, attrs):
    return [(TensorShape([]), D.bool_)]


_WriteSummary = register("WriteSummary", _write_kernel, _write_infer, stateful=True,
                         default_name="write_summary")


def _bool(value):
    return EagerTensor(np.array(value))


def _metadata_proto(metadata):
    """A SummaryMetadata proto from a proto (any with SerializeToString) or bytes."""
    P = protos.load()
    if metadata is None:
        return None
    if isinstance(metadata, P.summary_pb2.SummaryMetadata):
        return metadata
    if hasattr(metadata, "SerializeToString"):
        return P.summary_pb2.SummaryMetadata.FromString(metadata.SerializeToString())
    if isinstance(metadata, EagerTensor):
        metadata = metadata.numpy()
        metadata = metadata.item() if isinstance(metadata, np.ndarray) else metadata
    if isinstance(metadata, str):
        metadata = metadata.encode()
    if not isinstance(metadata, bytes):
        convert_to_tensor(metadata, dtype=D.string)  # raises TensorFlow's TypeError
        raise TypeError(f"metadata must be a SummaryMetadata proto or bytes, got {metadata!r}")
    return P.summary_pb2.SummaryMetadata.FromString(metadata)


def write_summary(tag, data, step, metadata=None, prepare=None, op_name="write_summary"):
    """Writes `data` under `tag` at `step` to the default writer, if recording.

    Args:
      tag: the summary's tag (a str).
      data: a tensor or value, or a callable returning one, called only when
        the summary may be recorded.
      step: the step, or None for the default step.
      metadata: a SummaryMetadata proto or bytes, or a callable returning
        one (called only when recording, as building it needs TensorBoard).
      prepare: a function from the data's NumPy value to the NumPy value
        stored in the event (histogram buckets, encoded images, ...); runs
        when the summary is written.
      op_name: the name of the op in a graph.

    Returns:
      A bool tensor: whether the summary was written (in a function: whether
      it is written when the function runs).

    Raises:
      ValueError: when recording and no step is given or set.
    """
    recording = _recording(step)
    if recording is None:
        return _constant(False)
    writer, condition, step_t = recording
    if callable(data) and not isinstance(data, Tensor):
        data = data()
    if callable(metadata):
        metadata = metadata()
    metadata = _metadata_proto(metadata)
    data_t = convert_to_tensor(data)
    if _state.graph is None:
        writer._write_summary(tag, data_t._v if prepare is None else prepare(data_t._v),
                              step_t._v, metadata)
        return _bool(True)
    inputs = [step_t, data_t] + ([condition] if condition is not None else [])
    attrs = {"tag": tag, "T": data_t.dtype, "_writer": writer, "_prepare": prepare,
             "_metadata": metadata}
    return apply(_WriteSummary, inputs, attrs, name=op_name)


def _recording(step):
    """(writer, condition tensor or None, int64 step tensor) when the default
    writer may record, else None.

    Raises:
      ValueError: when recording and no step is given or set.
    """
    known, condition = recording_condition()
    if known is False:
        return None
    if step is None:
        step = get_step()
        if step is None:
            raise ValueError(_NO_STEP)
    return state.writer, condition, convert_to_tensor(step, dtype=D.int64)


def _constant(value):
    if _state.graph is None:
        return _bool(value)
    return constant(value)


@export("summary.experimental.summary_scope")
@contextlib.contextmanager
def summary_scope(name, default_name="summary", values=None):
    """Opens a name scope for a summary; yields `(tag, scope)`
    (`tf.summary.experimental.summary_scope`).

    The tag is `name` under the current name scope; the scope is the name
    scope opened for the summary's ops.
    """
    name = name or default_name
    g = _state.graph
    current = g.get_name_scope() if g is not None else _state.eager_scope
    tag = current + "/" + name if current else name
    scope_name = _INVALID_SCOPE_CHARACTERS.sub("", name) or default_name
    with eager_name_scope(scope_name) as scope:
        yield tag, scope


@export("summary.write")
def write(tag, tensor, step=None, metadata=None, name=None):
    """Writes a generic tensor summary to the default writer (`tf.summary.write`).

    Args:
      tag: the tag (not prefixed with the name scope).
      tensor: the tensor, or a callable returning it (called only when the
        summary is recorded).
      step: the step; None uses the default step
        (`tf.summary.experimental.set_step`).
      metadata: a `SummaryMetadata` proto or its serialized bytes.
      name: the name scope of the summary's ops.

    Returns:
      A bool tensor, True when the summary was written, False when there is
      no default writer or recording is off.

    Raises:
      ValueError: if there is a default writer, recording is on, and no
        step is given or set.
    """
    return write_summary(tag, tensor, step, metadata, op_name=name or "write_summary")


@export("summary.experimental.write_raw_pb")
def write_raw_pb(tensor, step=None, name=None):
    """Writes serialized `Summary` protos (a string tensor of any shape) to
    the default writer (`tf.summary.experimental.write_raw_pb`)."""
    recording = _recording(step)
    if recording is None:
        return _constant(False)
    writer, condition, step_t = recording
    data_t = convert_to_tensor(tensor, dtype=D.string)
    if _state.graph is None:
        _write_raw(step_t._v, data_t._v, _writer=writer)
        return _bool(True)
    inputs = [step_t, data_t] + ([condition] if condition is not None else [])
    return apply(_WriteRawProtoSummary, inputs, {"_writer": writer}, name=name or "write_raw_pb")


def _write_raw(step, value, *condition, _writer):
    if condition and not condition[0]:
        return np.bool_(False)
    P = protos.load()
    for raw in np.asarray(value, dtype=object).reshape(-1):
        try:
            summary = P.summary_pb2.Summary.FromString(raw)
        except Exception as e:  # a malformed proto
            raise errors.InvalidArgumentError(None, None,
                                              f"Could not parse a Summary proto: {e}") from None
        _writer._write_event(P.event_pb2.Event(wall_time=time.time(), step=int(step),
                                               summary=summary))
    return np.bool_(True)


_WriteRawProtoSummary = register("WriteRawProtoSummary", _write_raw, _write_infer,
                                 stateful=True)
