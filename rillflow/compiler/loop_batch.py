"""Work indexed by a loop counter, done for all iterations before the loop.

In

    for t in tf.range(100):
        h = tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, u))

`tf.matmul(xs[t], w)` depends on the iteration only through `xs[t]`, and
`xs` and `w` do not change in the loop. Its hundred values are
`(xs[0:100] @ w)[t]`, one stacked matmul ahead of the loop instead of a
hundred small ones inside it, each a Python-level call. This pass finds such
ops and moves them out: the loop body then reads row `t` of the result.

It applies only where that is exact and safe:
- the counter is a loop variable starting at a constant `start`, stepped by
  a constant `delta` > 0 and tested by `counter < limit` alone with a constant
  `limit` (a `break` adds to the test, so loops that may stop early keep their
  work), so the iterations and their number are known when compiling;
- the indexed tensor is loop-invariant with a static first dimension covering
  every index, so no iteration could have failed on it;
- the moved ops are pure, have static shapes, and compute each row exactly as
  the per-iteration op would: elementwise ops (NumPy broadcasting leaves the
  stacked axis alone when the other operands are loop-invariant and of no
  higher rank) and 2-D matmuls (NumPy's stacked matmul multiplies matrix by
  matrix, giving the same bits);
- the stacked results stay small (MAX_ELEMENTS each).
"""
import numpy as np

from . import fusion
from .loop_invariant import invariant_inputs
from .plan import Plan
from ..ops.core.slicing import slice_result

__all__ = ["batch_induction_ops", "MAX_ELEMENTS"]

# Largest stacked result (elements) worth holding for a loop.
MAX_ELEMENTS = 1 << 22

_ELEMENTWISE_EXPR = frozenset(("AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum",
                               "SquaredDifference", "Neg", "Square", "Pow"))


def batch_induction_ops(em, graph, plans, outs, keep, loop):
    """Emits (ahead of the loop, at `em`'s current position) the stacked
    values of the body ops that depend on the iteration only through the
    counter, and returns the body plans with those ops reading their row."""
    counter = _counter(graph, loop)
    if counter is None:
        return plans
    j, start, limit, delta = counter
    trips = len(range(start, limit, delta))
    if trips == 0:
        return plans
    index_ph = graph.inputs[j]
    invariant = invariant_inputs(graph, loop)
    stacked = {}     # id(tensor) -> (plan, stacked inputs or None for the base slice)
    for p in plans:
        how = _base_slice(em, p, index_ph, invariant, limit) or \
            _stackable(p, stacked, invariant, trips)
        if how is not None:
            stacked[id(p.op.outputs[0])] = how
    if not any(how[1] is not None for how in stacked.values()):
        return plans  # only slices: nothing to save
    names = {}
    for p in plans:
        out = p.op.outputs[0] if p.op.outputs else None
        if out is not None and id(out) in stacked:
            names[id(out)] = _emit_stacked(em, p, stacked[id(out)], names, start, limit, delta)
    index = _row_index(start, delta)
    rewritten = []
    for p in plans:
        out = p.op.outputs[0] if p.op.outputs else None
        if out is not None and id(out) in names:
            p = Plan(p.op, "expr", _row_template(names[id(out)], index), [index_ph])
        rewritten.append(p)
    return _prune(rewritten, outs, keep, em.subst)


def _const_int(t):
    c = t._const
    if c is None or np.ndim(c) != 0 or np.asarray(c).dtype.kind not in "iu":
        return None
    return int(c)


def _counter(graph, loop):
    """(loop variable index, start, limit, delta) of a counted loop, or None."""
    cond_out = loop["cond_out"]
    cg = loop["cond_graph"]
    if cond_out.op.type != "Less":
        return None
    ci, climit = cond_out.op.inputs
    limit = _const_int(climit)
    if limit is None or ci.op.type != "Placeholder":
        return None
    j = next((k for k, ph in enumerate(cg.inputs) if ph is ci), None)
    if j is None or j >= len(loop["inits"]):
        return None
    start = _const_int(loop["inits"][j])
    nxt = loop["body_outs"][j]
    if start is None or start < 0 or nxt is None or nxt.op.type not in ("AddV2", "Add"):
        return None
    a, b = nxt.op.inputs
    if a is not graph.inputs[j]:
        a, b = b, a
    delta = _const_int(b)
    if a is not graph.inputs[j] or delta is None or delta <= 0:
        return None
    return j, start, limit, delta


def _is_invariant(t, invariant):
    return id(t) in invariant or t._const is not None


def _static(t):
    return t.shape.is_fully_defined()


def _base_slice(em, p, index_ph, invariant, limit):
    """`x[i]` of a loop-invariant `x` whose first dimension covers the loop."""
    if p.op.type != "StridedSlice" or p.kind != "expr" or len(p.inputs) != 2:
        return None
    x, i = p.inputs
    if i is not index_ph or not _is_invariant(x, invariant) or not _static(x):
        return None
    if x.shape.rank < 1 or x.shape[0] < limit:
        return None
    if getattr(p.template, "parts", None) != ("{1}",):
        return None
    return (p, None)


def _stackable(p, stacked, invariant, trips):
    """(plan, stacked input flags) when the op can run on stacked inputs."""
    op = p.op
    if op.opdef.stateful or len(op.outputs) != 1 or op.control_inputs:
        return None
    out = op.outputs[0]
    if not _static(out) or trips * out.shape.num_elements() > MAX_ELEMENTS:
        return None
    flags = [id(t) in stacked for t in p.inputs]
    if not any(flags):
        return None
    for t, s in zip(p.inputs, flags):
        if not s and not (_is_invariant(t, invariant) and _static(t)):
            return None
    rank = out.shape.rank
    if op.type == "MatMul" and p.kind == "expr":
        a, b = p.inputs
        if a.shape.rank == 2 and b.shape.rank == 2 and flags.count(True) == 1:
            return (p, flags)
        return None
    elementwise = (p.kind == "expr" and op.type in _ELEMENTWISE_EXPR) or \
        (p.kind == "kernel" and op.type in fusion.ELEMENTWISE)
    if not elementwise or out.dtype.is_complex:
        # (complex kernels take Eigen's packets over each result: stacking the
        # iterations would move which values fall in the scalar tail)
        return None
    for t, s in zip(p.inputs, flags):
        # Stacked operands must align on their stacked axis; invariant ones
        # must broadcast against the trailing (per-iteration) axes only.
        if (s and t.shape.rank != rank) or (not s and t.shape.rank > rank):
            return None
    return (p, flags)


def _emit_stacked(em, p, how, names, start, limit, delta):
    """Emits the stacked value of one op ahead of the loop; returns its name."""
    plan, flags = how
    op = plan.op
    name = em.new_name(op.name + "_stacked")
    if flags is None:
        x = _expr(em, plan.inputs[0])
        # Contiguous, so that each row is laid out as the slice's kernel
        # would give it (ops/core/slicing.slice_result).
        em.emit("%s = %s(%s[%s])" % (name, em.global_for(stacked_slice, "stacked_slice"), x,
                                     _range_slice(start, limit, delta)), op)
        return name
    args = [names[id(t)] if s else _expr(em, t) for t, s in zip(plan.inputs, flags)]
    if plan.kind == "kernel":
        code = em.kernel_call(op, args)
    else:
        code = plan.template(em, args) if callable(plan.template) else \
            plan.template.format(*args)
    em.emit("%s = %s" % (name, code), op)
    return name


def stacked_slice(r):
    """A loop's stacked slice `x[start:limit:delta]` (all the rows the loop
    reads): the view itself where it is C-contiguous, else a contiguous copy
    (slice_result), so that each row is laid out as the slice kernel gives
    it. A view is safe: nothing writes into it (the in-place pass owns only
    buffers this code allocated, never a slice), and the input it views is
    a tensor's, which never changes. (rnn_tensorarray: the copy of its
    800 KB input was a sixteenth of the step.)"""
    if r.__class__ is np.ndarray and r.flags.c_contiguous:
        return r
    return slice_result(r)


def _expr(em, t):
    # Constants of the body are named when the body is emitted, after this.
    t = em.subst.get(id(t), t)
    if id(t) in em.names:
        return em.names[id(t)]
    return em.global_for(t._const, t.op.name)


def _range_slice(start, limit, delta):
    return "%s:%d%s" % (start or "", limit, "" if delta == 1 else ":%d" % delta)


def _row_index(start, delta):
    if start == 0 and delta == 1:
        return "{0}"
    shifted = "{0} - %d" % start if start else "{0}"
    return shifted if delta == 1 else "(%s) // %d" % (shifted, delta)


def _row_template(name, index):
    def template(em, args):
        return "%s[%s]" % (name, index.format(args[0]))
    return template


def _prune(plans, outs, keep, subst):
    """Drops the plans nothing needs any more (the ops moved ahead of the
    loop, unless the body still reads their rows)."""
    by_op = {id(p.op): p for p in plans}
    needed = set()
    stack = [subst.get(id(t), t).op for t in list(outs) + list(keep)]
    stack += [p.op for p in plans if p.op.opdef.stateful]
    while stack:
        op = stack.pop()
        p = by_op.get(id(op))
        if p is None or id(op) in needed:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in p.inputs)
        stack.extend(op.control_inputs)
    return [p for p in plans if id(p.op) in needed]
