"""The gradient of a While op: a loop over the iterations in reverse.

The forward loop is made to record, per iteration, the body values the
gradient needs (Python lists, extra outputs of the forward op) and to count
its iterations. The backward loop runs that many times; its loop variables
are the iteration counter, the gradients of the loop variables and the
accumulated gradients of the loop-invariant inputs; its body is the
backprop of the forward body, reading the recorded values of its iteration.
"""
from ...framework import context as _context
from ...framework import dtypes as D
from ...framework.execute import placeholder
from ...framework.func_graph import FuncGraph, trace_function
from ...framework.op_registry import set_gradient
from ...framework.tensor import SymbolicTensor
from ...framework.tensor_shape import TensorShape
from ...framework.tensor_spec import TensorSpec
from . import control_flow_util as CF
from ..gradients.backprop import backprop, is_differentiable, zeros_like_any
from .list_ops import add_n_lists, fill_zeros, set_item, zeros_like_list
from .while_loop import make_while_op
from ...framework.execute import apply
from ..core.constant_ops import zeros, zeros_like
from ..state.variables import _ReadVariableOp

_state = _context.state


def _count_output(op):
    """The forward op's iteration count output (added with the first accumulator)."""
    n = op.attrs["_n"]
    if len(op.outputs) == n:
        op.outputs.append(SymbolicTensor(op, n, TensorShape([]), D.int32))
    return op.outputs[n]


def _accumulator(op, tensor):
    """The forward op's output holding `tensor`'s value of every iteration."""
    acc = op.attrs["_accumulate"]
    _count_output(op)
    n = op.attrs["_n"]
    for k, t in enumerate(acc):
        if t is tensor:
            return op.outputs[n + 1 + k]
    acc.append(tensor)
    out = SymbolicTensor(op, len(op.outputs), TensorShape(None), D.variant)
    op.outputs.append(out)
    return out


def _grad_dtype_shape(bg, ph, arg):
    """dtype and shape of the gradient of a body input (a variable's value for handles)."""
    if arg.dtype is not D.resource:
        return arg.dtype, ph.shape
    return _read_dtype_shape(bg, ph)


def _read_dtype_shape(graph, handle):
    """dtype and shape of a read of the variable `handle` stands for in
    `graph`, also where the read is in a branch or loop nested in it (which
    captured the handle); (None, None) when nothing reads it."""
    for o in graph.get_operations():
        if o.type == "ReadVariableOp" and o.inputs[0] is handle:
            return o.outputs[0].dtype, o.outputs[0].shape
    # A nested graph may have captured the handle itself or what the handle
    # stands for in `graph` (a variable's eager handle, captured directly).
    keys = [id(handle)] + [id(ext) for ext, internal in getattr(graph, "_captures", {}).values()
                           if internal is handle]
    for o in graph.get_operations():
        if not any(t is handle for t in o.inputs):
            continue
        for v in o.attrs.values():
            for nested in (v if isinstance(v, (list, tuple)) else (v,)):
                if not isinstance(nested, FuncGraph):
                    continue
                found = next((nested._captures[k] for k in keys if k in nested._captures), None)
                if found is not None:
                    dtype, shape = _read_dtype_shape(nested, found[1])
                    if dtype is not None:
                        return dtype, shape
    return None, None


def while_gradient(op, dys):
    """Gradients of a While op's inputs given the gradients of its outputs."""
    a = op.attrs
    n = a["_n"]
    bg = a["body"]
    g = _state.graph
    # Gradients of recorded values (when a gradient of this loop's gradient
    # is taken): lists with one gradient per iteration.
    recorded = [(t, fill_zeros(d, _accumulator(op, t)))
                for t, d in zip(list(a["_accumulate"]), dys[n + 1:]) if d is not None]
    dys = list(dys[:n])
    caps = op.inputs[n:]
    b_map = a["_input_maps"][1]
    # A backward loop reads its iteration's recorded forward values
    # (`_fetch`: body input index -> the counter's loop variable index).
    fetched = {pi: ci for pi, _, ci in a.get("_fetch") or ()}
    diff_vars = [i for i in range(n) if is_differentiable(op.outputs[i].dtype)]
    diff_caps = []
    diff_fetched = []
    for j, k in enumerate(b_map):
        ph = bg.inputs[n + j]
        if n + j in fetched:
            if is_differentiable(ph.dtype):
                diff_fetched.append((n + j, k, ph))
            continue
        if is_differentiable(caps[k].dtype):
            dtype, shape = _grad_dtype_shape(bg, ph, caps[k])
            if dtype is not None:
                diff_caps.append((n + j, k, dtype, shape))
    if (not diff_vars or all(dys[i] is None for i in diff_vars)) and not recorded:
        return [None] * len(op.inputs)

    gbb = FuncGraph(op.name + "_grad_body", outer_graph=g)
    gbb.forward_graph = bg
    with _context.graph_mode(gbb, hide_tapes=True):
        ctr = placeholder(D.int32, TensorShape([]), name="iteration")
        dv = [placeholder(op.outputs[i].dtype, bg.inputs[i].shape, name="grad_var")
              for i in diff_vars]
        dc = [placeholder(dtype, shape, name="grad_invariant")
              for _, _, dtype, shape in diff_caps]
        dl = [placeholder(D.variant, TensorShape([]), name="grad_recorded")
              for _ in diff_fetched]
        # This iteration's gradient of each recorded value (read like a
        # recorded value: see the capture loop below).
        recorded_seeds = [placeholder(t.dtype, t.shape, name="grad_of_recorded")
                          for t, _ in recorded]
        seeds = [None] * n
        for i, d in zip(diff_vars, dv):
            seeds[i] = d
        targets = list(a["_body_outs"]) + [t for t, _ in recorded]
        grads = backprop(bg.get_operations(), targets, seeds + recorded_seeds, bg.inputs,
                         dense=True)
        new_dv = [grads[i] if grads[i] is not None else zeros_like_any(d)
                  for i, d in zip(diff_vars, dv)]
        # Tensor lists the loop reads (TensorArrays) get gradient lists.
        new_dc = [d if grads[p] is None else add_n_lists([d, grads[p]])
                  if d.dtype is D.variant else d + grads[p]
                  for (p, _, _, _), d in zip(diff_caps, dc)]
        new_dl = []
        for (p, _, ph), lst in zip(diff_fetched, dl):
            gp = grads[p] if grads[p] is not None else zeros_like_any(CF.in_graph(gbb, ph))
            index = CF.in_graph(gbb, bg.inputs[fetched[p]]) - 1
            new_dl.append(set_item(lst, index, gp))
        new_ctr = ctr - 1
    loop_phs = [ctr] + dv + dc + dl
    outs = [new_ctr] + new_dv + new_dc + new_dl
    outs = [CF.in_graph(gbb, t) for t in outs]
    n_bw = len(loop_phs)
    # Replace captured forward-body values with the forward op's recordings.
    for seed, (_, d) in zip(recorded_seeds, recorded):
        gbb._captures[id(seed)] = (CF.in_graph(g, d), seed)
        gbb._capture_order.append(id(seed))
    seed_ids = {id(s) for s in recorded_seeds}
    fetch = []
    inv_ph = {id(ph): n + j for j, ph in enumerate(bg.inputs[n:])}
    for j, key in enumerate(list(gbb._capture_order)):
        ext, internal = gbb._captures[key]
        if key in seed_ids:
            fetch.append((n_bw + j, n_bw + j, 0))
            continue
        if not (isinstance(ext, SymbolicTensor) and ext.graph is bg):
            continue
        pos = inv_ph.get(id(ext))
        if pos is not None and pos not in fetched:  # a loop invariant: the op's own input
            gbb._captures[key] = (caps[b_map[pos - n]], internal)
        else:
            gbb._captures[key] = (_accumulator(op, ext), internal)
            fetch.append((n_bw + j, n_bw + j, 0))
    gbb.inputs = loop_phs + [internal for _, internal in gbb.captures]
    gbb.structured_outputs = outs
    gbb.outputs = outs
    specs = [TensorSpec(t.shape, t.dtype, name=t.op.name) for t in loop_phs]
    cgb = trace_function("while_grad_cond", lambda c, *rest: c > 0, specs, {},
                         arg_names=[s.name for s in specs], outer_graph=g,
                         add_identities=False)
    inits = [_count_output(op)]
    for i in diff_vars:
        d = dys[i]
        inits.append(d if d is not None else zeros_like_any(op.outputs[i]))
    for (p, k, dtype, shape) in diff_caps:
        arg = caps[k]
        if arg.dtype is D.variant:
            inits.append(zeros_like_list(arg))
        elif arg.dtype is not D.resource:
            inits.append(zeros_like(arg))
        elif shape.is_fully_defined():
            inits.append(zeros(shape.as_list(), dtype))
        else:
            inits.append(zeros_like(apply(_ReadVariableOp, [arg], {"dtype": dtype,
                                                                    "_shape": shape})))
    for _, k, _ in diff_fetched:
        inits.append(zeros_like_list(caps[k]))
    inits = [CF.in_graph(g, t) for t in inits]
    # Fetch entries index the backward body inputs: placeholder, accumulator, counter.
    bop = make_while_op(g, cgb, gbb, inits, op.name + "_grad", extra_attrs={
        "_fetch": [(pi, ai, 0) for pi, ai, _ in fetch]})
    res = bop.outputs
    out = [None] * len(op.inputs)
    for i, r in zip(diff_vars, res[1:1 + len(diff_vars)]):
        out[i] = r
    start = 1 + len(diff_vars)
    for (p, k, _, _), r in zip(diff_caps, res[start:start + len(diff_caps)]):
        out[n + k] = r if out[n + k] is None else out[n + k] + r
    start += len(diff_caps)
    for (_, k, _), r in zip(diff_fetched, res[start:start + len(diff_fetched)]):
        out[n + k] = r if out[n + k] is None else add_n_lists([out[n + k], r])
    return out


def _while_grad(op, *dys):
    return while_gradient(op, dys)


# while_loop registers the While ops without a gradient (this module needs its
# `make_while_op`); importing this module gives them theirs.
set_gradient("While", _while_grad)
set_gradient("StatelessWhile", _while_grad)
