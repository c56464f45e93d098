"""`tf.debugging.enable_check_numerics` / `disable_check_numerics` and the
`CheckNumericsV2` op they use.

TensorFlow installs an op callback; rillflow's ops already report every
executed or graph-built op to the recorders in `context.state.tapes` (the
gradient tapes), so the checker is one more recorder there. It asks for
every op (`_should_record` is always true, which also sends eager ops down
their recording path) and, in `_record`:

- eagerly, looks at the op's floating outputs and, on the first Inf or
  NaN, runs `CheckNumericsV2` with TensorFlow's message (the op, its output
  slot, dtype, shape, the counts of -Inf, +Inf and NaN elements, the
  inputs), which raises `InvalidArgumentError`;
- in a graph (a `tf.function` being traced), adds a stateful
  `CheckNumericsV2` op per floating output, which the function runs with
  its other stateful ops, so the call fails when the value is bad.

The checker survives the tape hiding of function tracing
(`context.graph_mode` keeps recorders marked `_keep_in_graphs`), as
TensorFlow's callback sees the ops of functions traced while it is on.
It is per thread, as in TensorFlow.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.execute import apply1
from ...framework.op_registry import register
from ..core import op_util as U

_state = _context.state

_NUMERICS_TYPES = tuple(d for d in U.FLOATS)

# Ops TensorFlow's callback skips: control flow and calls (their bodies are
# checked op by op), and a list of ops that cannot make a bad value out of
# good ones (TensorFlow's SAFE_OPS), plus graph inputs and constants.
_SKIP = frozenset((
    "Enter", "Exit", "Identity", "If", "LoopCond", "Merge", "NextIteration", "StatelessIf",
    "StatefulPartitionedCall", "PartitionedCall", "Switch", "While", "StatelessWhile",
    "RemoteCall", "DestroyResourceOp", "CheckNumericsV2", "CheckNumerics",
    "Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "Maximum", "Minimum", "Reshape",
    "Slice", "Squeeze", "Stack", "StridedSlice", "StridedSliceGrad", "TensorListConcatV2",
    "TensorListGather", "TensorListGetItem", "TensorListPopBack", "TensorListStack",
    "Transpose", "Unpack", "Const", "Placeholder", "Pack",
))
# Outputs allowed to be NaN (a batch normalization of an empty batch).
_IGNORED_OUTPUTS = {"FusedBatchNorm": (1, 2, 3, 4), "FusedBatchNormV2": (1, 2, 3, 4),
                    "FusedBatchNormV3": (1, 2, 3, 4, 5)}


# --- CheckNumericsV2 ----------------------------------------------------------------------------

def _check_numerics_v2_kernel(x, message=""):
    nan = np.isnan(x).any()
    inf = np.isinf(x)
    pos = bool((inf & (x > 0)).any())
    neg = bool((inf & (x < 0)).any())
    if nan or pos or neg:
        parts = [w for w, on in (("-Inf", neg), ("+Inf", pos)) if on]
        if nan:
            parts.append("NaN")
        what = parts[0] if len(parts) == 1 else (
            " and ".join(parts) if len(parts) == 2 else "-Inf, +Inf, and NaN")
        raise errors.InvalidArgumentError(None, None, f"{message} : Tensor had {what} values")
    return x


def _check_numerics_v2_infer(inputs, attrs):
    x = inputs[0]
    U.check_graph_dtype(x, _NUMERICS_TYPES, "tensor")
    return [(x.shape, x.dtype)]


def _check_numerics_v2_grad(op, g):
    # TensorFlow's gradient checks the incoming gradient the same way.
    return [apply1(_CheckNumericsV2, g, {
        "message": "Not a number (NaN) or infinity (Inf) values detected in gradient. "
                   + op.get_attr("message")})]


_CheckNumericsV2 = register("CheckNumericsV2", _check_numerics_v2_kernel,
                            _check_numerics_v2_infer, _check_numerics_v2_grad, stateful=True,
                            allowed=_NUMERICS_TYPES)


def _lower_check_numerics_v2(ctx, op, x):
    message = op.attrs.get("message", "")
    XL.host_callback(ctx, lambda v: _check_numerics_v2_kernel(v, message), x)
    return x


XL.set_lowerings({"CheckNumericsV2": _lower_check_numerics_v2})


# --- the checker ----------------------------------------------------------------------------------

def _message(slot, n_outputs, op_type, tensor, value, inputs, graph):
    """TensorFlow's text for a bad output (check_numerics_callback's layout)."""
    where = "graph" if graph is not None else "eagerly-executing"
    lines = ["", "", f'!!! Detected Infinity or NaN in output {slot} of {where} op '
             f'"{op_type}" (# of outputs: {n_outputs}) !!!',
             "  dtype: %s" % (tensor.dtype,), f"  shape: {tensor.shape}"]
    if value is not None:
        inf = np.isinf(value)
        neg = int(np.sum(inf & (value < 0)))
        pos = int(np.sum(inf & (value > 0)))
        nan = int(np.sum(np.isnan(value)))
        if neg:
            lines.append(f"  # of -Inf elements: {neg}")
        if pos:
            lines.append(f"  # of +Inf elements: {pos}")
        if nan:
            lines.append(f"  # of +NaN elements: {nan}")   # sic: TensorFlow's words
    if len(inputs) > 1:
        lines.append("")
        lines.append(f"  Input tensors ({len(inputs)}):")
        for k, t in enumerate(inputs):
            lines.append("         %d: %s" % (k, t))
    elif len(inputs) == 1:
        lines.append("")
        lines.append("  Input tensor: %s" % (inputs[0],))
    if graph is not None and getattr(graph, "name", None):
        lines.append(f'  Graph name: "{graph.name}"')
    return "\n".join(lines) + "\n\n"


class _NumericsChecker:
    """The recorder that checks every op's floating outputs (one per thread)."""

    _observer = True       # sees ops, takes no gradients (function_gradients.py)

    _keep_in_graphs = True

    def __init__(self):
        self._busy = False

    def _should_record(self, inputs):
        return not self._busy

    def _variable_accessed(self, variable):
        """Variables are checked through the ops that read them."""

    def _record(self, op):
        name = op.type
        if name in _SKIP:
            return
        ignored = _IGNORED_OUTPUTS.get(name, ())
        outputs = op.outputs
        graph = getattr(op, "graph", None)
        self._busy = True
        try:
            for slot, y in enumerate(outputs):
                if slot in ignored or not y.dtype.is_floating or y.dtype is D.resource:
                    continue
                if graph is None:
                    v = y._v
                    if not isinstance(v, np.ndarray) and not np.isscalar(v):
                        continue
                    if np.isfinite(v).all():
                        continue
                    msg = _message(slot, len(outputs), name, y, np.asarray(v), op.inputs, None)
                    apply1(_CheckNumericsV2, y, {"message": msg})
                else:
                    msg = _message(slot, len(outputs), name, y, None, op.inputs, graph)
                    # In the op's own graph: an op may be added to a graph
                    # other than the current one (an outer graph, while a
                    # gradient graph is built), and a check built elsewhere
                    # would capture its output into the wrong graph.
                    with _context.graph_mode(graph):
                        apply1(_CheckNumericsV2, y, {"message": msg},
                               name=f"{op.name}/CheckNumericsV2")
        finally:
            self._busy = False


@export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Fails any op whose floating output holds an Inf or NaN, on this thread.

    Eagerly the op that made the bad value raises at once; in functions
    traced from now on, every floating op output gets a `CheckNumericsV2`
    check, so the call fails naming the op. Calling it again changes
    nothing. `stack_height_limit` and `path_length_limit` are accepted for
    TensorFlow's signature (rillflow's graph messages carry no stack
    trace: the error itself points at the user's line).

    Raises (later, from the checked op):
      InvalidArgumentError: '... Detected Infinity or NaN in output N of
        eagerly-executing op "Log" ... : Tensor had -Inf values'.
    """
    del stack_height_limit, path_length_limit
    if not any(isinstance(t, _NumericsChecker) for t in _state.tapes):
        _state.tapes.append(_NumericsChecker())


@export("debugging.disable_check_numerics")
def disable_check_numerics():
    """Turns off `enable_check_numerics` on this thread (nothing if it is off).

    Functions traced while it was on keep their checks, as in TensorFlow.
    """
    _state.tapes[:] = [t for t in _state.tapes if not isinstance(t, _NumericsChecker)]
