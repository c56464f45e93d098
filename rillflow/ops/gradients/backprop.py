"""Reverse-mode differentiation over a list of recorded ops.

The same engine serves the eager tape (a list of EagerOp records) and graph
gradients (the Operations of a graph): both give ops with `inputs`,
`outputs`, `opdef` and `attrs`. Gradient functions come from the registry
(or an op's `_grad_fn` attr, used by `tf.custom_gradient`) and are written
with the public ops, so in a graph the backward pass is built as graph ops.
"""
import collections

from ...framework import dtypes as D
from ...framework import gradient_registry
from ...framework.indexed_slices import IndexedSlices
from .. import late
from ...framework.indexed_slices import densify

__all__ = ["backprop", "is_differentiable"]


def is_differentiable(dtype):
    """Whether gradients flow through values of `dtype` (floating or complex)."""
    return dtype.is_floating or dtype.is_complex or dtype is D.resource or dtype is D.variant


def zeros_like_any(t):
    """The zero gradient for `t`: zeros, or an all-None list for tensor lists."""
    if t.dtype is D.variant:
        return late.zeros_like_list(t)
    return late.zeros_like(t)


def _grad_fn(op, overrides):
    fn = op.attrs.get("_grad_fn")
    if fn is not None:
        return fn
    if overrides:
        # Graph.gradient_override_map's choice (a tf.RegisterGradient name);
        # an unknown name means no gradient, as in TensorFlow.
        name = gradient_registry.override_name(op)
        if name is not None:
            try:
                return gradient_registry.lookup(name)
            except LookupError:
                return None
    return op.opdef.grad


def _aggregate(grads):
    if len(grads) == 1:
        return grads[0]
    for g in grads:
        if g.__class__ is IndexedSlices:
            return late.aggregate(grads)
    if grads[0].dtype is D.variant:
        return late.add_n_lists(grads)
    return late.add_n(grads)


# Outputs whose missing gradient reaches the gradient function as None
# rather than as zeros (TensorFlow's FunctionsAcceptingNoneForIndicesMap):
# a cross entropy's backprop output is as large as the logits, and its
# zeros would cost a [batch, classes] array and a pass over it.
_NONE_FOR_OUTPUTS = {"SoftmaxCrossEntropyWithLogits": (1,),
                     "SparseSoftmaxCrossEntropyWithLogits": (1,)}

# Ops whose gradient can be an IndexedSlices.
_SPARSE_SOURCES = frozenset(("GatherV2", "ResourceGather"))


def _tensorflow_order(relevant, targets):
    """The ops of `relevant` that lead to `targets`, in the order
    TensorFlow's tape differentiates them: breadth first from the targets
    (the latest recorded first when there are several), an op as soon as
    every op that reads its outputs is done. Any such order gives the same
    gradients; this one also adds several gradients of a tensor in
    TensorFlow's order, which is what an IndexedSlices gradient shows (its
    rows are concatenated in that order)."""
    producer = {}
    for k, op in enumerate(relevant):
        for t in op.outputs:
            producer[id(t)] = k
    usage = {}
    reached = set()
    stack = [producer[id(t)] for t in targets if id(t) in producer]
    while stack:
        k = stack.pop()
        if k in reached:
            continue
        reached.add(k)
        for t in relevant[k].inputs:
            usage[id(t)] = usage.get(id(t), 0) + 1
            p = producer.get(id(t))
            if p is not None and p not in reached:
                stack.append(p)
    waiting = {}
    for tid in usage:
        p = producer.get(tid)
        if p is not None:
            waiting[p] = waiting.get(p, 0) + 1
    queue = collections.deque(sorted(k for k in reached if k not in waiting))
    order = []
    while queue:
        k = queue.pop()
        order.append(relevant[k])
        for t in relevant[k].inputs:
            n = usage[id(t)] - 1
            usage[id(t)] = n
            if n == 0:
                p = producer.get(id(t))
                if p is not None:
                    waiting[p] -= 1
                    if not waiting[p]:
                        queue.appendleft(p)
    return order


def backprop(ops, targets, target_grads, sources, unconnected_zero=False, dense=False,
             overrides=True, consume=False):
    """Gradients of `targets` with respect to `sources` through `ops`.

    Args:
      ops: recorded ops in execution order.
      targets: tensors to differentiate.
      target_grads: the initial gradient of each target (tensors).
      sources: tensors to differentiate with respect to.
      unconnected_zero: give zeros instead of None for unconnected sources.
      dense: densify IndexedSlices gradients of sources (for callers whose
        results must be tensors).
      overrides: honour `Graph.gradient_override_map`; a GradientTape does
        not, as TensorFlow's tape looks gradients up by op type.
      consume: the caller gives `ops` up (a non-persistent tape): the list
        is emptied, and each op is dropped once differentiated, so that the
        tensors only it held (forward activations) are freed during the
        backward pass rather than after it.

    Returns:
      One gradient (tensor, IndexedSlices or None) per source.

    Raises:
      LookupError: if an op on the path has no gradient function.
    """
    source_ids = {id(s) for s in sources}
    # Forward pass: which tensors depend on a source.
    connected = set(source_ids)
    relevant = []
    for op in ops:
        if any(id(t) in connected for t in op.inputs):
            relevant.append(op)
            for t in op.outputs:
                connected.add(id(t))
    grads = {}
    for t, g in zip(targets, target_grads):
        if id(t) in connected and g is not None:
            grads.setdefault(id(t), []).append(g)
    # The order shows only in the rows of an IndexedSlices gradient, which
    # only a gather makes: other gradients skip the cost of ordering.
    if any(op.opdef.name in _SPARSE_SOURCES for op in relevant):
        order = _tensorflow_order(relevant, targets)
    else:
        order = relevant[::-1]
    if consume:
        ops.clear()
    del relevant
    for k in range(len(order)):
        op = order[k]
        if consume:
            order[k] = None
        out_grads = [grads.get(id(t)) if id(t) in source_ids else grads.pop(id(t), None)
                     for t in op.outputs]
        if all(g is None for g in out_grads):
            continue
        fn = _grad_fn(op, overrides)
        if fn is None:
            if not overrides:     # a GradientTape: TensorFlow's tape looks up by op type
                raise LookupError("gradient registry has no entry for: %s" % op.type)
            raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                              f"{op.type}). In general every operation must have an associated "
                              "`@tf.RegisterGradient` for correct autodiff.")
        dys = []
        sparse = False
        none_ok = _NONE_FOR_OUTPUTS.get(op.opdef.name, ())
        for i, (t, g) in enumerate(zip(op.outputs, out_grads)):
            if g is None:
                if i in none_ok:
                    dys.append(None)
                elif is_differentiable(t.dtype) and t.dtype is not D.resource:
                    dys.append(zeros_like_any(t))
                else:
                    dys.append(None)
            else:
                d = _aggregate(g)
                if d.__class__ is IndexedSlices:
                    sparse = True
                dys.append(d)
        if sparse:
            # Only a few gradient functions keep an IndexedSlices sparse.
            in_grads = late.call_gradient(op, fn, dys)
        else:
            in_grads = fn(op, *dys)
        if not isinstance(in_grads, (list, tuple)):
            in_grads = [in_grads]
        for t, g in zip(op.inputs, in_grads):
            if g is None or id(t) not in connected:
                continue
            if not is_differentiable(t.dtype):
                continue
            grads.setdefault(id(t), []).append(g)
    out = []
    for s in sources:
        g = grads.get(id(s))
        if g is None:
            if unconnected_zero:
                out.append(late.zeros_like(s) if s.dtype is not D.resource else None)
            else:
                out.append(None)
        else:
            g = _aggregate(g)
            if dense and g.__class__ is IndexedSlices:
                g = densify(g)
            out.append(g)
    return out
