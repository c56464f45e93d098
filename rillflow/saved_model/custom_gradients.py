"""Saving `tf.custom_gradient`s with their functions, as TensorFlow does
(SaveOptions.experimental_custom_gradients, on by default).

A custom gradient lives on an `IdentityN` op as a Python callable
(`_grad_fn`). At save time it is traced once into a gradient graph: one
placeholder per output gradient of the op; forward tensors it reads become
captures of the forward graph. On load the op gets a `SavedGradient`,
which copies that graph's ops into the graph where the gradient is being
built (the backward function, or the forward function itself for a tape
inside it), wiring the placeholders to the incoming gradients and the
captures to the forward values.
"""
from ..framework import context as _context
from ..framework.execute import placeholder
from ..framework.func_graph import FuncGraph
from ..framework.tensor import EagerTensor, SymbolicTensor
from ..ops.core.constant_ops import zeros_like

__all__ = ["trace_gradient", "SavedGradient"]

_state = _context.state


def trace_gradient(op):
    """The custom gradient of `op` traced into a FuncGraph, and which op
    inputs get no gradient (None); None when it cannot be traced."""
    fg = FuncGraph(op.graph.name + "_custom_gradient", outer_graph=op.graph)
    try:
        with _context.graph_mode(fg, hide_tapes=True):
            dys = [placeholder(t.dtype, t.shape, name="dy") for t in op.outputs]
            grads = list(op.attrs["_grad_fn"](op, *dys))
            none = [g is None for g in grads]
            outs = []
            for g in grads:
                if g is None:
                    continue
                if isinstance(g, EagerTensor) or g.graph is not fg:
                    g = fg.capture(g)
                outs.append(g)
    except Exception:  # a gradient that only works eagerly: not saved
        return None
    fg.inputs = dys + fg.internal_captures
    fg.outputs = outs
    fg.structured_outputs = list(outs)
    return fg, none


class SavedGradient:
    """The restored custom gradient of an op: `(op, *dys) -> grads`.

    Args:
      load_graph: a callable returning the gradient FuncGraph (built on first
        use, when every graph it refers to exists).
      none: for each op input, whether its gradient is None.
    """

    def __init__(self, load_graph, none):
        self._load_graph = load_graph
        self._graph = None
        self._none = list(none)

    def __call__(self, op, *dys):
        if self._graph is None:
            self._graph = self._load_graph()
        gg = self._graph
        g = _state.graph
        values = {}
        n = len(op.outputs)
        for ph, dy, out in zip(gg.inputs[:n], dys, op.outputs):
            values[id(ph)] = dy if dy is not None else zeros_like(_in_graph(g, out))
        for ext, internal in gg.captures:
            values[id(internal)] = _in_graph(g, ext)
        outs = iter(_inline(gg, values))
        return [None if none else next(outs) for none in self._none]


def _in_graph(g, t):
    if isinstance(t, SymbolicTensor) and t.graph is g:
        return t
    return g.capture(t)


def _inline(gg, values):
    """Copies the ops of `gg` into the current graph with the given values
    for its placeholders; returns the copies of its outputs."""
    g = _state.graph
    for op in gg.get_operations():
        if op.type == "Placeholder":
            continue
        # Lists of control-flow attrs grow when the op is differentiated:
        # each copy gets its own.
        attrs = {k: list(v) if isinstance(v, list) else v for k, v in op.attrs.items()}
        new = g.create_op(op.opdef, [values[id(t)] for t in op.inputs], attrs, name=op.name,
                          output_specs=[(t.shape, t.dtype) for t in op.outputs],
                          multi=op.multi)
        for t, nt in zip(op.outputs, new.outputs):
            values[id(t)] = nt
    return [values[id(t)] for t in gg.outputs]
