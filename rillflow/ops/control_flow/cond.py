"""`tf.cond`, `tf.case`, `tf.switch_case`: graph conditionals.

Eagerly (or with a Python predicate) they just call one branch. In a graph
every branch is traced into its own FuncGraph and one `If` / `Case` op
(`StatelessIf` / `StatelessCase` without side effects) selects a branch at
run time; the compiler emits it as a Python `if`/`elif`/`else`. Gradients
are another conditional over the branches' gradient graphs; the forward
values they need leave the forward op as extra outputs (None from the
branches that did not run).
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import nest
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.func_graph import CompositeOutput, FuncGraph
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import EagerTensor, SymbolicTensor, Tensor
from . import control_flow_util as CF
from ..gradients.backprop import backprop, is_differentiable, zeros_like_any
from ..core.add_n_ops import add_n
from ..core.broadcast_ops import where
from ..core.constant_ops import zeros
from ..core.join_ops import stack
from ..core.math_ops import cast
from ..core.reduction_ops import argmax, reduce_any
from ..core.shape_ops import shape

_state = _context.state


# --- building ------------------------------------------------------------------

def _match_indexed_slices_indices(branches):
    """As TensorFlow's conditionals: an IndexedSlices output whose indices are
    int32 in one branch and int64 in another gets int64 indices in every
    branch (a cast added to the int32 branches' graphs)."""
    flats = [nest.flatten(b.structured_outputs) if b.structured_outputs is not None else []
             for b in branches]
    if any(len(f) != len(flats[0]) for f in flats):
        return      # the structure check reports it
    for leaves in zip(*flats):
        if not all(x.__class__ is CompositeOutput and isinstance(x.template, IndexedSlices)
                   for x in leaves):
            continue
        if len({x.components[1].dtype for x in leaves}) < 2:
            continue
        for b, x in zip(branches, leaves):
            if x.components[1].dtype is not D.int64:
                with b.as_default():
                    x.components[1] = cast(x.components[1], D.int64)


def _check_branch_outputs(branches, what):
    """Raises if branch outputs differ in structure or dtype; returns merged specs."""
    _match_indexed_slices_indices(branches)
    first = branches[0].structured_outputs
    for k, b in enumerate(branches[1:], 1):
        try:
            nest.assert_same_structure(first, b.structured_outputs, check_types=False)
        except (ValueError, TypeError):
            raise ValueError(
                f"{what} must have the same number, type, and overall structure of return "
                f"values. Branch 0 returns {first!r}, branch {k} returns "
                f"{b.structured_outputs!r}.") from None
    flats = [CF.flat_outputs(b) for b in branches]
    names = CF.path_names(first) if nest.is_nested(first) else ["output"]
    specs = []
    for i, outs in enumerate(zip(*flats)):
        if any(o is None for o in outs):
            if not all(o is None for o in outs):
                raise ValueError(f"{what}: output {names[min(i, len(names) - 1)]} is None in one branch but a "
                                 "tensor in another.")
            specs.append(None)
            continue
        dtypes = {o.dtype for o in outs}
        if len(dtypes) > 1:
            raise TypeError(
                f"{what} must have the same number, type, and overall structure of return "
                f"values: output {names[min(i, len(names) - 1)]} has dtype {outs[0].dtype.name} in branch 0 but "
                f"{next(o.dtype.name for o in outs if o.dtype is not outs[0].dtype)} in "
                "another branch.")
        shape = outs[0].shape
        for o in outs[1:]:
            shape = shape.most_specific_compatible_shape(o.shape)
        specs.append((shape, outs[0].dtype))
    return specs, flats


def build_branch_op(kind, selector, branches, name):
    """Adds an If/Case op choosing among traced `branches`; returns the
    structured outputs."""
    g = _state.graph
    what = ("true_fn and false_fn arguments to tf.cond" if kind == "If"
            else "branch_fns arguments to tf.switch_case")
    specs, flats = _check_branch_outputs(branches, what)
    args, maps = CF.collect_inputs(g, branches)
    stateful = CF.is_stateful(branches)
    opdef = _BRANCH_OPS[kind][stateful]
    out_specs = [s for s in specs if s is not None]
    attrs = {"_branches": list(branches), "_input_maps": maps,
             "_branch_outputs": [[t for t in f if t is not None] for f in flats],
             "_extra": [], "_num_outputs": len(out_specs),
             "Tout": [s[1] for s in out_specs],
             "output_shapes": [s[0] for s in out_specs]}
    if kind == "If":
        attrs["then_branch"], attrs["else_branch"] = branches
    else:
        attrs["branches"] = list(branches)
    op = g.create_op(opdef, [selector] + args, attrs, name=name, output_specs=out_specs)
    it = iter(op.outputs)
    leaves = [None if s is None else next(it) for s in specs]
    return CF.pack_outputs(branches[0].structured_outputs, leaves)


def _trace_branches(fns, names):
    return [CF.trace_body(fn, n) for fn, n in zip(fns, names)]


@export("cond")
def cond(pred, true_fn=None, false_fn=None, name=None):
    """`true_fn()` if `pred` else `false_fn()`, as graph control flow.

    A Python bool (or an eager tensor) just calls one branch. A graph tensor
    traces both branches; they must return the same structure and dtypes.

    Raises:
      TypeError: if a branch is not callable, or outputs differ in dtype.
      ValueError: if the branches' output structures differ.
    """
    if not callable(true_fn) or not callable(false_fn):
        raise TypeError("true_fn and false_fn must be callable.")
    if isinstance(pred, (bool,)) or _state.graph is None or pred is None:
        return true_fn() if _as_python_bool(pred) else false_fn()
    p = convert_to_tensor(pred)
    if p.dtype is not D.bool_:
        raise TypeError(f"pred must be a bool tensor, got {p.dtype.name}")
    if p.shape.rank not in (None, 0):
        raise ValueError(f"pred must be a scalar, got shape {p.shape}")
    branches = _trace_branches([true_fn, false_fn], ["cond_true", "cond_false"])
    return build_branch_op("If", p, branches, name or "cond")


def _as_python_bool(pred):
    if isinstance(pred, EagerTensor):
        return bool(pred._v)
    if hasattr(pred, "_dense_var_to_tensor"):
        return bool(pred._dense_var_to_tensor()._v)
    if isinstance(pred, Tensor):
        raise TypeError("pred must be a Python bool or a scalar bool tensor")
    return bool(pred)


@export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Calls `branch_fns[branch_index]()` (or `default()` when out of range).

    `branch_fns` is a list of callables or of (int, callable) pairs, or a
    dict from ints to callables.
    """
    if isinstance(branch_fns, dict):
        items = sorted(branch_fns.items())
    else:
        items = [b if isinstance(b, tuple) else (i, b) for i, b in enumerate(branch_fns)]
    keys = [k for k, _ in items]
    if keys != list(range(len(keys))):
        raise ValueError(f"branch indices must be 0..{len(keys) - 1}, got {keys}")
    fns = [f for _, f in items]
    for f in fns:
        if not callable(f):
            raise TypeError(f"branch_fns must contain callables, got {f!r}")
    if not fns:
        raise ValueError("branch_fns must not be empty")
    if default is None:
        default = fns[-1]
    if _state.graph is None or isinstance(branch_index, int):
        i = int(branch_index._v) if isinstance(branch_index, EagerTensor) else int(branch_index)
        return fns[i]() if 0 <= i < len(fns) else default()
    idx = convert_to_tensor(branch_index)
    if idx.dtype is not D.int32 and idx.dtype is not D.int64:
        raise TypeError(f"branch_index must be an int32 or int64 scalar, got {idx.dtype.name}")
    branches = _trace_branches(fns + [default],
                               ["switch_case_branch%d" % i for i in range(len(fns))]
                               + ["switch_case_default"])
    return build_branch_op("Case", idx, branches, name)


@export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The function of the first (bool tensor, callable) pair whose predicate
    is true, else `default()` (`tf.case`)."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not pred_fn_pairs:
        if default is None:
            raise ValueError("pred_fn_pairs is empty and no default is given")
        return default()
    preds = [p for p, _ in pred_fn_pairs]
    fns = [f for _, f in pred_fn_pairs]
    if default is None:
        default = fns[-1]
        preds, fns = preds[:-1], fns[:-1]
    if _state.graph is None:
        for p, f in zip(preds, fns):
            if _as_python_bool(p):
                return f()
        return default()
    if not preds:
        return default()
    ps = stack([convert_to_tensor(p) for p in preds])
    first = argmax(cast(ps, D.int32), output_type=D.int32)
    index = where(reduce_any(ps), first, convert_to_tensor(len(fns), D.int32))
    return switch_case(index, fns, default, name=name)


# --- the ops ---------------------------------------------------------------------

def _branch_codegen(em, op):
    """Emits `if pred: ... else: ...` (If) or an index chain (Case)."""
    sel = em.value(op.inputs[0])
    args = [em.value(t) for t in op.inputs[1:]]
    branches = op.attrs["_branches"]
    maps = op.attrs["_input_maps"]
    outs = op.attrs["_branch_outputs"]
    targets = [em.new_name(op.name if len(op.outputs) == 1 else "%s_%d" % (op.name, i))
               for i in range(len(op.outputs))]
    for t, n in zip(op.outputs, targets):
        em.names[id(t)] = n
    n_main = op.attrs["_num_outputs"]
    extra = op.attrs["_extra"]
    is_if = op.type in ("If", "StatelessIf")
    last = len(branches) - 1
    for j, (b, m) in enumerate(zip(branches, maps)):
        if is_if:
            header = "if %s:" % sel if j == 0 else "else:"
        elif j == last:
            header = "else:"
        else:
            header = ("if %s == %d:" if j == 0 else "elif %s == %d:") % (sel, j)
        em.emit(header, op)
        em.indent += 1
        pairs = list(zip(targets[:n_main], outs[j]))
        pairs += [(targets[n_main + k], t if bj == j else None)
                  for k, (bj, t) in enumerate(extra)]
        if not em.emit_block(b, [args[k] for k in m], pairs):
            em.emit("pass")
        em.indent -= 1


def _branch_grad(op, *dys):
    return branch_gradient(op, dys)


_BRANCH_OPS = {kind: CF.register_pair(kind, _branch_grad, _branch_codegen)
               for kind in ("If", "Case")}


# --- gradients ----------------------------------------------------------------------

def _extra_output(op, branch_index, tensor):
    """The output of forward op `op` exposing `tensor` of one branch (added on
    first use)."""
    extra = op.attrs["_extra"]
    for k, (j, t) in enumerate(extra):
        if j == branch_index and t is tensor:
            return op.outputs[op.attrs["_num_outputs"] + k]
    extra.append((branch_index, tensor))
    out = SymbolicTensor(op, len(op.outputs), tensor.shape, tensor.dtype)
    op.outputs.append(out)
    return out


def branch_gradient(op, dys):
    """Gradients of an If/Case op: one conditional over the branches' gradients."""
    g = _state.graph
    n_main = op.attrs["_num_outputs"]
    # Gradients of the extra outputs (branch intermediates that an earlier
    # gradient read) flow into their branch too: a gradient of a gradient.
    extra = list(zip(op.attrs["_extra"], dys[n_main:]))
    dys = list(dys[:n_main])
    branches = op.attrs["_branches"]
    maps = op.attrs["_input_maps"]
    args = op.inputs[1:]
    diff = [k for k, a in enumerate(args) if is_differentiable(a.dtype)]
    if not diff or all(d is None for d in dys) and all(d is None for _, d in extra):
        return [None] * len(op.inputs)
    grad_graphs = []
    for j, (b, m) in enumerate(zip(branches, maps)):
        gb = FuncGraph(b.name + "_grad", outer_graph=g)
        gb.forward_graph = b
        targets = list(op.attrs["_branch_outputs"][j])
        target_dys = list(dys)
        for (branch, tensor), d in extra:
            if branch == j and d is not None:
                targets.append(tensor)
                target_dys.append(d)
        with _context.graph_mode(gb, hide_tapes=True):
            seeds = [None if (d is None or not is_differentiable(o.dtype)) else gb.capture(d)
                     for d, o in zip(target_dys, targets)]
            grads = backprop(b.get_operations(), targets, seeds, b.inputs, dense=True)
            outs = []
            for k in diff:
                gk = [gr for gr, kk in zip(grads, m) if kk == k and gr is not None]
                if gk:
                    v = gk[0] if len(gk) == 1 else add_n(gk)
                else:
                    v = None
                outs.append(v)
        grad_graphs.append((gb, outs))
    # Arguments no branch differentiates get None; others need a value in
    # every branch (zeros where a branch does not use them).
    keep = [i for i, k in enumerate(diff) if any(outs[i] is not None for _, outs in grad_graphs)]
    specs = []
    for i in keep:
        ref = next(outs[i] for _, outs in grad_graphs if outs[i] is not None)
        specs.append(ref)
    final = []
    for gb, outs in grad_graphs:
        with _context.graph_mode(gb, hide_tapes=True):
            fo = []
            for i, ref in zip(keep, specs):
                v = outs[i]
                if v is None:
                    arg = args[diff[i]]
                    if arg.dtype is not D.resource:
                        v = zeros_like_any(CF.in_graph(gb, arg))
                    else:
                        v = zeros(ref.shape.as_list() if ref.shape.is_fully_defined()
                                  else _dynamic_shape_of(gb, arg), ref.dtype)
                elif isinstance(v, SymbolicTensor) and v.graph is not gb:
                    v = gb.capture(v)
                fo.append(v)
        gb.structured_outputs = fo
        gb.outputs = fo
        final.append(gb)
    # Map captured forward-branch values to extra outputs of the forward op.
    for j, gb in enumerate(final):
        for key in list(gb._capture_order):
            ext, internal = gb._captures[key]
            if isinstance(ext, SymbolicTensor) and ext.graph is branches[j]:
                src = _forward_value(op, j, ext)
                gb._captures[key] = (src, internal)
    selector = CF.in_graph(g, op.inputs[0])
    kind = "If" if op.type in ("If", "StatelessIf") else "Case"
    res = build_branch_op(kind, selector, final,
                          ("cond" if kind == "If" else "switch_case") + "_grad")
    res = res if isinstance(res, list) else [res]
    out = [None] * len(op.inputs)
    for i, r in zip(keep, res):
        out[1 + diff[i]] = r
    return out


def _forward_value(op, j, ext):
    """The forward op's value for a tensor of branch j (an input or an extra output)."""
    b = op.attrs["_branches"][j]
    for ph, k in zip(b.inputs, op.attrs["_input_maps"][j]):
        if ph is ext:
            return op.inputs[1 + k]
    return _extra_output(op, j, ext)


def _dynamic_shape_of(gb, arg):
    return shape(gb.capture(arg) if not (isinstance(arg, SymbolicTensor) and arg.graph is gb)
                 else arg)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_branch(ctx, op, selector, *args):
    """If/Case as `lax.switch` (`lax.cond`): every branch is lowered, the
    variables and the PRNG key are threaded through the one taken."""
    a = op.attrs
    branches, maps, outs = a["_branches"], a["_input_maps"], a["_branch_outputs"]
    extra = a["_extra"]
    nb = len(branches)

    def branch(j):
        wanted = list(outs[j]) + [t if bj == j else None for bj, t in extra]
        return lambda: ctx.call(branches[j], [args[k] for k in maps[j]], wanted)
    if op.type in ("If", "StatelessIf"):
        pred = selector if ctx.is_static(selector) else XL.jnp.asarray(selector).reshape(())
        index = np.int32(0 if pred else 1) if ctx.is_static(pred) else \
            XL.jnp.where(pred, 0, 1)
    else:
        # TensorFlow's Case runs the last branch (the default) for any index
        # out of range.
        sel = XL.jnp.asarray(selector, np.int32) if not ctx.is_static(selector) else selector
        if ctx.is_static(sel):
            s = int(sel)
            index = np.int32(s if 0 <= s < nb else nb - 1)
        else:
            index = XL.jnp.where((sel < 0) | (sel >= nb), nb - 1, sel)
    return ctx.switch(index, [branch(j) for j in range(nb)], partial=bool(extra))


for _op in list(_BRANCH_OPS["If"].values()) + list(_BRANCH_OPS["Case"].values()):
    XL.set_lowerings({_op.name: _lower_branch})
