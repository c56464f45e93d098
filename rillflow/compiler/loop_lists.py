"""In-place writes to a loop's own tensor list.

A tensor list is a value: `ta.write(i, x)` (or AutoGraph's `l.append(x)`)
returns a new list and leaves the old one unchanged, so each write copies
the list, and a loop writing n elements costs O(n**2). Within a loop the old list is usually dead after
the write:

    while True:
        ...
        TensorListSetItem = list_set(while_1, while_0, Cast)
        while_0, while_1 = add, TensorListSetItem

Then the write may change the list in place, as TensorFlow's kernels do for
a list they hold the only reference to. This pass proves that statically for
a loop variable whose list goes through a chain of writes back into the same
loop variable, when nothing else in the body can hold on to a list of the
chain (only reads, which run before the write, and nothing recorded for
gradients). The loop copies the list once on entry, so the list it was given
stays unchanged.
"""
from ..framework import dtypes as D
from ..ops.control_flow import list_ops as L
from ..ops.control_flow.list_ops import TensorListValue

__all__ = ["write_lists_in_place"]

# Ops returning their input list with one element written or appended.
_WRITES = ("TensorListSetItem", "TensorListPushBack")


def write_lists_in_place(em, graph, plans, keep, loop, input_exprs):
    """Rewrites the qualifying list writes of a `while` body to write in
    place, and emits (ahead of the loop) the copy of each such loop list."""
    consumers = {}
    for pos, p in enumerate(plans):
        for t in p.inputs:
            consumers.setdefault(id(t), []).append((pos, p))
    held = {id(em.subst.get(id(t), t)) for t in keep}
    outs = [em.subst.get(id(t), t) if t is not None else None for t in loop["body_outs"]]
    out_ids = [id(t) for t in outs if t is not None]
    in_place = []
    for j, ph in enumerate(graph.inputs[:len(loop["inits"])]):
        if ph.dtype is not D.variant or id(ph) in held or id(ph) in out_ids:
            continue
        chain = _write_chain(ph, consumers, held, out_ids)
        # The last list must become this loop variable, and only this one.
        if chain and outs[j] is chain[-1].op.outputs[0] and \
                out_ids.count(id(outs[j])) == 1:
            in_place.extend(chain)
            target = input_exprs[j]
            em.emit("%s = %s(%s)" % (target, em.global_for(TensorListValue, "TensorList"),
                                     target))
    for p in in_place:
        _write_in_place(p)
    return plans


def _write_in_place(plan):
    """Turns a list write's plan into the call of its in-place kernel."""
    if plan.op.type == "TensorListPushBack":
        kernel, base = L.push_back_in_place, "list_append_in_place"
    elif plan.kind == "expr":     # the specialized write of a checked item
        kernel, base = L.set_item_in_place, "list_set_in_place"
        plan.template = lambda em, args: "%s(%s, %s, %s)" % (
            em.global_for(kernel, base), *args)
        return
    else:
        kernel, base = L.set_item_in_place_checked, "list_set_in_place"
    plan.kind = "expr"
    plan.template = lambda em, args: em.kernel_call(plan.op, args, kernel, base)


def _write_chain(lst, consumers, held, out_ids):
    """The writes list value `lst` goes through, each consuming the last
    one's result, as long as each may write in place."""
    chain = []
    while True:
        users = consumers.get(id(lst), [])
        writes = [(pos, p) for pos, p in users if p.op.type in _WRITES and
                  p.kind in ("expr", "kernel") and p.inputs and p.inputs[0] is lst]
        if len(writes) != 1:
            return chain
        pos, write = writes[0]
        for other_pos, other in users:
            if other is write:
                continue
            # A later reader would see the write; a consumer returning a list
            # (or control flow, an alias) could hold on to this one.
            if other_pos > pos or other.kind in ("alias", "hook", "fused") or any(
                    t.dtype is D.variant for t in other.op.outputs):
                return chain
        if chain and id(lst) in out_ids:
            return chain[:-1]   # an intermediate list leaves the body too
        chain.append(write)
        lst = write.op.outputs[0]
        if id(lst) in held:
            return chain[:-1]
