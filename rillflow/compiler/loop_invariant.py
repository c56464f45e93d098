"""Loop-invariant code motion: body ops whose value is the same in every
iteration run once, in the first iteration.

A body op is invariant when it is pure (not stateful, not a variable read,
not control flow) and reads only invariant values: captured tensors, loop
variables the body passes through unchanged, constants, and other invariant
ops. Such ops are emitted under a first-iteration guard,

    while_first = True
    while True:
        <condition>; break
        if while_first:
            while_first = False
            transposed = np.transpose(w)      # once
        ...

rather than ahead of the loop, so a loop that runs zero times computes (and
can fail on) nothing, exactly as before. Within an iteration TensorFlow
orders pure ops only by their data dependencies, so running them first
changes nothing observable.
"""
from ..framework import dtypes as D

__all__ = ["invariant_inputs", "split_invariant"]


def invariant_inputs(graph, loop):
    """Ids of the body inputs that hold the same value in every iteration:
    captured tensors, and loop variables the body passes through."""
    n = len(loop["inits"])
    out = {id(ph) for ph in graph.inputs[n:]}
    for ph, nxt in zip(graph.inputs[:n], loop["body_outs"]):
        if nxt is ph:
            out.add(id(ph))
    return out


def _movable(p):
    op = p.op
    if p.kind in ("const", "hook", "alias") or op.opdef.stateful or op.opdef.no_fold:
        return False
    if op.control_inputs or not op.outputs or op.type == "Placeholder":
        return False
    return all(t.dtype is not D.resource for t in list(op.inputs) + list(op.outputs))


def split_invariant(graph, plans, loop):
    """(invariant plans, the other plans), both in their original order."""
    invariant = invariant_inputs(graph, loop)
    hoisted, rest = [], []
    for p in plans:
        # Constants emit no code, only bind their names: binding them first
        # lets the hoisted ops read them.
        if p.kind == "const" or _movable(p) and all(
                id(t) in invariant or t._const is not None for t in p.inputs):
            hoisted.append(p)
            invariant.update(id(t) for t in p.op.outputs)
        else:
            rest.append(p)
    if all(p.kind == "const" for p in hoisted):
        return [], plans
    return hoisted, rest
