"""Gradients of gradients through calls of traced functions.

A differentiated call runs its function's backward code on the forward
intermediates it saved (function_gradients.py). That code is opaque to an
outer tape: the intermediates are values, not functions of the inputs. When
an outer tape watches the gradient computation itself (a Hessian, a
gradient penalty), the gradient is instead computed by the *gradient
function* of the call: a ConcreteFunction of the call's inputs and output
gradients whose graph holds a copy of the forward ops and their backprop,
all ordinary ops. Calling it is recorded like any other call, so its
gradient, and the gradient of that, follow by the same rules.

The copy recomputes the forward ops, which is why the saved-intermediates
path stays the default for first-order gradients. Stateful ops are not
recomputed: the outputs of random ops come from the differentiated call
(the forward saves them), prints are left out, and functions that change
variables raise UnimplementedError rather than give wrong gradients.
"""
from ..compiler.codegen import needed_ops
from ..framework import context as _context
from ..framework import errors
from ..framework.execute import placeholder
from ..framework.func_graph import FuncGraph
from ..framework.tensor import EagerTensor, SymbolicTensor
from .concrete_function import ConcreteFunction
from ..ops.gradients.backprop import backprop

__all__ = ["inline", "GradientFunction"]

_state = _context.state
# Stateful ops that read state without changing it: recomputing them is exact.
_READS = frozenset(("ReadVariableOp", "VarHandleOp"))
# Stateful ops whose only effect is outside the computation: a recomputation
# leaves them out (printing once is what the user asked for).
_EFFECTS_ONLY = frozenset(("PrintV2", "Print", "Assert", "NoOp", "WriteScalarSummary",
                           "WriteHistogramSummary", "WriteSummary"))


def _recomputable(op):
    return not op.opdef.stateful or op.type in _READS


def saved_stateful_outputs(fg):
    """The outputs of the stateful ops (random numbers, say) that `fg`'s
    outputs need: a recomputation must reuse them, not draw new ones."""
    return [t for op in needed_ops(fg.get_operations(), fg.outputs, keep_stateful=False)
            if not _recomputable(op) for t in op.outputs]


def inline(fg, inputs, what, saved=()):
    """Copies the ops of function graph `fg` that its outputs need into the
    current graph, reading `inputs` for `fg.inputs`, and `saved` (pairs of
    an `fg` tensor and the tensor holding its value) for the outputs of
    stateful ops; returns the copies of `fg.outputs`.

    Raises:
      UnimplementedError: if the outputs need a stateful op that has no
        outputs to reuse and changes state (`what` names the computation).
    """
    g = _state.graph
    env = {id(ph): t for ph, t in zip(fg.inputs, inputs)}
    env.update((id(old), new) for old, new in saved)
    for op in needed_ops(fg.get_operations(), fg.outputs, keep_stateful=False):
        if op.outputs and all(id(t) in env for t in op.outputs):
            continue   # an input, or a stateful op's saved outputs
        if not _recomputable(op):
            if op.type in _EFFECTS_ONLY:
                continue
            raise errors.UnimplementedError(
                None, op, f"{what} through {fg.name}() would run its stateful op "
                f"'{op.name}' ({op.type}) again; only first-order gradients flow through "
                f"functions that change variables.")
        new = g.create_op(op.opdef, [env[id(t)] for t in op.inputs], _copied_attrs(op),
                          name=op.name, output_specs=[(t.shape, t.dtype) for t in op.outputs],
                          multi=op.multi)
        for old, copy in zip(op.outputs, new.outputs):
            env[id(old)] = copy
    return [env[id(t)] for t in fg.outputs]


def _copied_attrs(op):
    """`op`'s attrs for a copy. Differentiating a control-flow op adds
    outputs to it (loop accumulators, branch intermediates) and lists them
    in its attrs; the copy gets lists of its own, so that differentiating
    it adds outputs to the copy only."""
    attrs = dict(op.attrs)
    for key in ("_accumulate", "_extra"):
        if key in attrs:
            attrs[key] = list(attrs[key])
    return attrs


class GradientFunction:
    """The gradient of a ConcreteFunction `cf` as a ConcreteFunction itself:
    inputs are the call's inputs (arguments, then captures), one output
    gradient per differentiable output, and the values of the stateful ops'
    outputs in the differentiated call (`saved`); outputs are the input
    gradients that are not None, for the input positions in `positions`."""

    def __init__(self, cf, diff_outputs, saved):
        fg = cf.graph
        gh = FuncGraph(fg.name + "_gradient")
        with _context.graph_mode(gh, hide_tapes=True):
            xs = [placeholder(t.dtype, t.shape, name="x") for t in fg.inputs]
            dys = [placeholder(fg.outputs[i].dtype, fg.outputs[i].shape, name="dy")
                   for i in diff_outputs]
            saved_phs = [placeholder(t.dtype, t.shape, name="saved") for t in saved]
            outs = inline(fg, xs, "A gradient of a gradient", list(zip(saved, saved_phs)))
            seeds = [None] * len(outs)
            for i, d in zip(diff_outputs, dys):
                seeds[i] = d
            grads = backprop(gh.get_operations(), outs, seeds, xs, dense=True)
            grads = [g if g is None or isinstance(g, SymbolicTensor) and g.graph is gh
                     else gh.capture(g) if isinstance(g, (SymbolicTensor, EagerTensor))
                     else g for g in grads]
        self.positions = [i for i, g in enumerate(grads) if g is not None]
        gh.inputs = xs + dys + saved_phs + gh.internal_captures
        gh.outputs = [grads[i] for i in self.positions]
        gh.structured_outputs = list(gh.outputs)
        gh.structured_input_signature = (tuple(xs + dys + saved_phs), {})
        gh.variables = list(fg.variables)
        self.function = ConcreteFunction(gh)
        self.num_inputs = len(fg.inputs)

    def __call__(self, inputs, dys, saved):
        """Input gradients (one per call input, None where unconnected),
        computed by calling the gradient function (eagerly or in a graph) on
        the call's inputs, output gradients and saved stateful outputs."""
        outs = self.function._call_flat(list(inputs) + list(dys) + list(saved))
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
        grads = [None] * self.num_inputs
        for i, g in zip(self.positions, outs):
            grads[i] = g
        return grads
