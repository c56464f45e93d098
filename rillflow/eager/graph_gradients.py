"""`tf.gradients`: symbolic gradients of graph tensors (graph mode only)."""
from ..framework import context as _context
from ..framework import nest
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..ops.gradients.backprop import backprop
from ..ops.core.constant_ops import ones_like

_state = _context.state


@export("gradients", "compat.v1.gradients")
def gradients(ys, xs, grad_ys=None, name="gradients", gate_gradients=False,
              aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none"):
    """The symbolic gradients of sum(ys) with respect to each of `xs`.

    Builds the backward computation in the current graph from the ops that
    produced `ys`.

    Raises:
      RuntimeError: when called eagerly (use GradientTape).
    """
    g = _state.graph
    if g is None:
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    flat_ys = [convert_to_tensor(y) for y in nest.flatten(ys)]
    flat_xs = [x._graph_handle() if hasattr(x, "_graph_handle") else convert_to_tensor(x)
               for x in nest.flatten(xs)]
    if grad_ys is None:
        seeds = [ones_like(y) for y in flat_ys]
    else:
        seeds = [None if s is None else convert_to_tensor(s) for s in nest.flatten(grad_ys)]
    ops = g.get_operations()
    if stop_gradients:
        stop = {id(convert_to_tensor(t)) for t in nest.flatten(stop_gradients)}
        ops = [op for op in ops if not any(id(o) in stop for o in op.outputs)]
    out = backprop(ops, flat_ys, seeds, flat_xs,
                   unconnected_zero=str(getattr(unconnected_gradients, "value",
                                                unconnected_gradients)) == "zero")
    return out
