"""`tf.gradients` and `tf.hessians`: symbolic gradients of graph tensors (graph
mode only), and `tf.AggregationMethod`."""
from ..framework import context as _context
from ..framework import nest
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..ops.gradients.backprop import backprop
from ..ops.core.constant_ops import ones_like, zeros
from ..ops.core.join_ops import concat, stack
from ..ops.core.shape_ops import reshape, shape

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


@export("AggregationMethod")
class AggregationMethod:
    """How `tf.gradients` adds the gradients a tensor receives from several
    ops (all methods give the same sums here): `ADD_N` (the default),
    `EXPERIMENTAL_TREE`, `EXPERIMENTAL_ACCUMULATE_N`."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


@export("hessians")
def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """The Hessian of sum(ys) with respect to each of `xs` (graph mode only):
    for x of shape S, a tensor of shape S + S.

    TensorFlow builds each row in a while loop; a row here is one
    `tf.gradients` call per element of x, unrolled when x's size is static.

    Raises:
      RuntimeError: when called eagerly.
      ValueError: for an x whose size is not known while tracing.
    """
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    first = gradients(ys, xs, gate_gradients=gate_gradients,
                      aggregation_method=aggregation_method)
    out = []
    for grad, x in zip(first, xs):
        n = x.shape.num_elements()
        if n is None:
            raise ValueError(f"hessians needs the size of {x} to be known while tracing")
        flat = reshape(grad, [-1])
        rows = [gradients(flat[j], x)[0] for j in range(n)]
        s = shape(x)
        out.append(reshape(stack(rows) if rows else zeros([0], x.dtype), concat([s, s], 0)))
    return out
