"""`if_stmt`, `while_stmt`, `for_stmt`: decided at trace time.

A Python condition or iterable runs as plain Python (a loop over `range`
unrolls); a graph tensor condition builds an If op, a tensor loop a While
op, a `tf.data.Dataset` a dataset reduction (dataset_loops.py). The
statement's variables move in and out of the graph constructs through
`get_state`/`set_state`; each branch of a graph `if` starts from the
values the variables had before it, as in TensorFlow's AutoGraph, whose
errors (loop_vars.py) these operators give.
"""
from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import nest
from ...framework.convert import convert_to_tensor
from ...framework.errors import OperatorNotAllowedInGraphError
from ...framework.func_graph import FuncGraph
from ...framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ...ops.core.creation_ops import range as tf_range
from ...ops.ragged.ragged_tensor import RaggedTensor
from . import data_structures as DS
from . import loop_vars as LV
from .exceptions import staging
from .logical import is_graph_tensor
from .variables import is_undefined

_state = _context.state

_LIMITATIONS = ("See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/"
                "autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types "
                "for more info.")


class LoopOptions:
    """Process-wide AutoGraph loop settings (`set_loop_shape_widening`)."""
    widen_shapes = False


def verify_condition(cond, tag):
    """`cond` as a scalar bool tensor for a graph `if` or loop test.

    Numbers are tested for being non-zero, as Python's `bool` would.

    Raises:
      ValueError: for a condition of another type or of several elements.
    """
    hint = "to check for None, use `is not None`"
    c = convert_to_tensor(cond)
    if c.dtype is not D.bool_:
        if not (c.dtype.is_integer or c.dtype.is_floating):
            raise staging(ValueError(
                f"condition of {tag} expected to be `tf.bool` scalar, got {c}; "
                f"to use as boolean Tensor, use `tf.cast`; {hint}"))
        from ...ops.core.math_ops import not_equal
        c = not_equal(c, convert_to_tensor(0, dtype=c.dtype))
    if c.shape.rank == 0:
        return c
    from ...ops.core.array_ops import reshape
    if c.shape.rank is not None:
        known = [d for d in c.shape.as_list() if d is not None]
        n = 1
        for d in known:
            n *= d
        if n > 1:
            raise staging(ValueError(
                f"condition of {tag} expected to be `tf.bool` scalar, got {c}; "
                f"{hint}"))
    return reshape(c, [])


# --- if ----------------------------------------------------------------------------------

def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """`if cond: body() else: orelse()` (a graph conditional for graph tensors).

    Only the first `nouts` variables are outputs; the others are inputs of
    the branches, restored before each branch is traced.
    """
    if is_graph_tensor(cond):
        _tf_if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts)
    elif cond:
        body()
    else:
        orelse()


def _trace_branch(fn, init, get_state, set_state, nouts, name):
    g = FuncGraph(name, outer_graph=_state.graph)
    with _context.graph_mode(g, hide_tapes=True):
        # Each branch gets its own copy of a list: one appends to it in place.
        set_state(tuple(DS.trial_copy(v) for v in init))
        fn()
        values = tuple(get_state())[:nouts]
    return g, values


def _tf_if_stmt(cond, body, orelse, get_state, set_state, names, nouts):
    cond = verify_condition(cond, "if statement")
    init = tuple(get_state())
    names = tuple(names)
    tg, tvals = _trace_branch(body, init, get_state, set_state, nouts, "if_true")
    LV.verify_branch_vars(tvals, names, "main")
    fg, fvals = _trace_branch(orelse, init, get_state, set_state, nouts, "if_false")
    LV.verify_branch_vars(fvals, names, "else")
    tvals, fvals = _unify_lists(tg, tvals, fg, fvals)
    LV.verify_cond_vars(tvals, fvals, names)
    final = list(init)
    outputs = []
    for i, (tv, fv) in enumerate(zip(tvals, fvals)):
        if tv is fv and isinstance(tv, Tensor):
            # The same tensor whichever branch runs (untouched): no output
            # needed. Python values become tensors, as TensorFlow's cond makes
            # them (a flag set in both branches is then a tensor too).
            final[i] = tv
        else:
            _check_convertible(names[i], tv)
            _check_convertible(names[i], fv)
            outputs.append(i)
    # The op is built even without outputs: the branches may have effects.
    from ...ops.control_flow.cond import build_branch_op
    from ...ops.control_flow.while_loop import flatten_components
    _branch_outputs(tg, [tvals[i] for i in outputs])
    _branch_outputs(fg, [fvals[i] for i in outputs])
    flat = build_branch_op("If", cond, [tg, fg], "cond")
    it = iter(flat if isinstance(flat, list) else [flat])
    for i in outputs:
        comps, rebuild = flatten_components(tvals[i])
        final[i] = rebuild([next(it) for _ in comps])
        if isinstance(final[i], DS.TensorListLoopVar):
            final[i] = final[i].with_element_type_of(fvals[i])
    set_state(tuple(final))


def _unify_lists(tg, tvals, fg, fvals):
    """A list that a branch appended to (a tensor list, or a Python list of
    another length than the other branch's) is a tensor list in both
    branches, so that the `if` can output it."""
    tvals, fvals = list(tvals), list(fvals)
    for i, (tv, fv) in enumerate(zip(tvals, fvals)):
        lists = [isinstance(v, list) and DS.is_convertible_list(v) for v in (tv, fv)]
        tensor_lists = [isinstance(v, DS.TensorListLoopVar) for v in (tv, fv)]
        if not (lists[0] or tensor_lists[0]) or not (lists[1] or tensor_lists[1]):
            continue
        if lists[0] and lists[1] and len(tv) == len(fv):
            continue   # the same structure: outputs as nested tensors
        typed = next((v for v in (tv, fv) if isinstance(v, DS.TensorListLoopVar) and
                      v.element_dtype is not None), None)
        dtype = typed.element_dtype if typed is not None else None
        if lists[0]:
            with _context.graph_mode(tg, hide_tapes=True):
                tvals[i] = DS.TensorListLoopVar.from_list(tv, dtype)
        if lists[1]:
            with _context.graph_mode(fg, hide_tapes=True):
                fvals[i] = DS.TensorListLoopVar.from_list(fv, dtype)
    return tuple(tvals), tuple(fvals)


def _branch_outputs(g, values):
    """Makes the chosen values the outputs of a traced branch graph."""
    from ...ops.control_flow.while_loop import flatten_components
    flat = []
    with _context.graph_mode(g, hide_tapes=True):
        for v in values:
            comps, _ = flatten_components(v)
            for c in comps:
                t = c if isinstance(c, Tensor) else convert_to_tensor(c)
                if not (isinstance(t, SymbolicTensor) and t.graph is g):
                    t = g.capture(t)
                flat.append(t)
    g.structured_outputs = flat
    g.outputs = flat
    return flat


def _check_convertible(name, value):
    import numpy as np
    for leaf in nest.flatten(value):
        if isinstance(leaf, (Tensor, int, float, bool, complex, str, bytes, np.ndarray,
                             np.generic)) or hasattr(leaf, "_to_components") or \
                hasattr(leaf, "_dense_var_to_tensor"):
            continue
        raise staging(TypeError(
            f"'{name}' must be a tensor (or a value convertible to one) when it is "
            f"modified by a conditional on a tensor; got {leaf!r}"))


# --- while -------------------------------------------------------------------------------

def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """`while test(): body()` (a graph loop when the test is a graph tensor)."""
    t = test()
    if is_graph_tensor(t):
        tf_loop(test, body, get_state, set_state, tuple(symbol_names), opts)
        return
    if isinstance(t, EagerTensor):
        # An eager tensor loop: as tf.while_loop would, make the loop
        # variables tensors (Python numbers become tensors).
        set_state(tuple(_as_tensors(v) for v in get_state()))
    while _python_truth(t, _WHILE_CHANGED):
        body()
        t = test()


_WHILE_CHANGED = (
    "The condition of while loop started as non-Tensor, then changed to Tensor. This may "
    "happen either because variables changed type, or when a break or return statement "
    "inside the loop depends on a Tensor condition. In both cases, changing to a TF loop "
    "should remove the error.\n" + _LIMITATIONS)
_FOR_TENSOR_BREAK = (
    "break and return statements which depend on a TF condition are not supported in Python "
    "for loops. Did you intend to make it a TF loop?\n" + _LIMITATIONS)


def _python_truth(value, message):
    """`bool(value)` in a Python loop; a graph tensor there (the loop's
    variables became tensors) is TensorFlow's NotImplementedError."""
    if is_graph_tensor(value):
        cause = OperatorNotAllowedInGraphError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed.")
        raise staging(NotImplementedError(message)) from cause
    return bool(value)


def _as_tensors(v):
    if isinstance(v, (int, float, bool)) and not is_undefined(v):
        return convert_to_tensor(v)
    return v


# --- for ---------------------------------------------------------------------------------

def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """`for x in iter_: body(x)`, stopping when `extra_test()` is false."""
    if isinstance(iter_, RaggedTensor):
        _ragged_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        return
    custom = getattr(iter_, "_autograph_for_loop", None)
    if custom is not None:
        custom(extra_test, body, get_state, set_state, symbol_names, opts)
        return
    from . import dataset_loops
    if hasattr(iter_, "reduce") and hasattr(iter_, "element_spec"):
        dataset_loops.dataset_for(iter_, extra_test, body, get_state, set_state,
                                  tuple(symbol_names), opts)
        return
    if hasattr(iter_, "get_next_as_optional") and _state.graph is not None:
        dataset_loops.iterator_for(iter_, extra_test, body, get_state, set_state,
                                   tuple(symbol_names), opts)
        return
    if isinstance(iter_, DS.TensorListLoopVar) and _state.graph is not None:
        iter_ = iter_.stack()
    if is_graph_tensor(iter_):
        _tf_tensor_for(iter_, extra_test, body, get_state, set_state, tuple(symbol_names),
                       opts)
        return
    if isinstance(iter_, EagerTensor):
        set_state(tuple(_as_tensors(v) for v in get_state()))
    _py_for_stmt(iter_, extra_test, body)


def _ragged_for(rt, extra_test, body, get_state, set_state, symbol_names, opts):
    """`for row in ragged:`: a tensor loop over the row indices in a graph, a
    Python loop eagerly (as TensorFlow's `for_stmt` does for RaggedTensors)."""
    if isinstance(rt._row_splits, EagerTensor) and _state.graph is None:
        for row in rt:
            if extra_test is not None and not extra_test():
                break
            body(row)
        return
    for_stmt(tf_range(rt.nrows()), extra_test, lambda i: body(rt[i]), get_state, set_state,
             symbol_names, opts)


def _py_for_stmt(iter_, extra_test, body):
    """A Python loop; the extra test (break/return flags) is checked before
    the loop and after each iteration, as TensorFlow does."""
    if extra_test is None:
        for item in iter_:
            body(item)
        return
    if not _python_truth(extra_test(), _FOR_TENSOR_BREAK):
        return
    for item in iter_:
        body(item)
        if not _python_truth(extra_test(), _FOR_TENSOR_BREAK):
            break


def _tf_tensor_for(t, extra_test, body, get_state, set_state, names, opts):
    """A graph loop over a tensor's rows (over a `tf.range` directly)."""
    from ...ops.core import op_util as U
    from ...ops.core.math_ops import greater, less, logical_and, logical_or
    t = convert_to_tensor(t)
    iterate_name = None
    if t.op.type == "Range":
        iterate_name = opts.get("iterate_names")
        start, limit, delta = t.op.inputs
        step = U.constant_value(delta)

        def main_test(i):
            if step is not None:
                return less(i, limit) if step >= 0 else greater(i, limit)
            return logical_or(logical_and(greater(delta, 0), less(i, limit)),
                              logical_and(less(delta, 0), greater(i, limit)))
        index0, item_of, next_index = start, (lambda i: i), (lambda i: i + delta)
    else:
        if t.shape.rank == 0:
            raise staging(ValueError("len requires a non-scalar tensor, got one of shape []"))
        from ...ops.core.array_ops import shape
        n = t.shape[0] if t.shape.rank is not None and t.shape[0] is not None else \
            shape(t)[0]
        n = convert_to_tensor(n, dtype=D.int32)

        def main_test(i):
            return less(i, n)
        # A Python 0: a trial iteration sees it as an unknown index (a tensor
        # of static length 0 must not be indexed by a constant 0).
        index0, item_of, next_index = 0, (lambda i: t[i]), (lambda i: i + 1)
    index = [index0]

    def aug_get_state():
        state = tuple(get_state())
        if iterate_name is not None:
            # A loop target first assigned by this loop starts as the range's start.
            state = tuple(item_of(index[0]) if name == iterate_name and is_undefined(v)
                          else v for name, v in zip(names, state))
        return (index[0],) + state

    def aug_set_state(values):
        index[0] = values[0]
        set_state(tuple(values[1:]))

    def aug_body():
        i = index[0]
        body(item_of(i))
        index[0] = next_index(i)

    def aug_test():
        return _and_extra(main_test(index[0]), extra_test)

    tf_loop(aug_test, aug_body, aug_get_state, aug_set_state,
            ("<internal iterate>",) + names, opts)


def _and_extra(main, extra_test):
    if extra_test is None:
        return main
    from ...ops.core.math_ops import logical_and
    e = extra_test()
    if isinstance(e, bool):
        return main if e else convert_to_tensor(False)
    return logical_and(main, convert_to_tensor(e))


# --- the graph loop ----------------------------------------------------------------------

def tf_loop(test, body, get_state, set_state, names, opts, check_shapes=True):
    """One While op over the statement's state, as TensorFlow's AutoGraph
    stages `while test(): body()`.

    A variable undefined (or None) before the loop gets a stand-in from a
    traced trial iteration, and the loop must then run at least once. A
    Python list the body appends to becomes a tensor list.
    """
    from ...ops.control_flow.while_loop import build_while
    init_vars = tuple(tensor_lists(get_state(), names, opts))
    set_state(init_vars)
    orig_init = init_vars
    nulls = tuple(LV.is_none_or_undef(v) for v in init_vars)
    invariants = shape_invariants(opts, orig_init)
    require_one = any(nulls)
    if require_one:
        init_vars, extra = LV.try_handling_undefineds(
            body, get_state, set_state, init_vars, nulls, invariants, names,
            DS.trial_copy)
        invariants = tuple(i if i is not None else e for i, e in zip(invariants, extra))
    final = _build_loop(build_while, test, body, get_state, set_state, names, opts,
                        init_vars, invariants, require_one, check_shapes)
    if require_one:
        from ...ops.core.array_ops import identity
        from ...ops.debugging.logging_ops import Assert
        ok, final = final[0], final[1:]
        Assert(ok, [LV.zero_iterations_message(names, nulls, orig_init)])
        final = [identity(v) if isinstance(v, Tensor) else v for v in final]
    set_state(tuple(final))


def tensor_lists(values, names, opts):
    """The loop's state with the Python lists that its body appends to or
    pops from (`opts["list_vars"]`, from the converter), and lists with a
    declared element type, as tensor lists. An empty list's element type
    comes from what the body appends."""
    appended = set(opts.get("list_vars", ()))
    out = []
    for v, name in zip(values, names):
        if isinstance(v, DS.TypedList):
            v = DS.TensorListLoopVar.from_list(v, v.element_dtype, v.element_shape)
        elif isinstance(v, list) and name in appended:
            if not DS.is_convertible_list(v):
                raise staging(TypeError(
                    f"'{name}' is a list appended to in a graph loop: its items "
                    f"must be tensors or numbers, got {v!r}"))
            v = DS.TensorListLoopVar.from_list(v)
        out.append(v)
    return out


def shape_invariants(opts, values):
    """The shape invariant `set_loop_options` gives each of `values` (matched
    by identity, as TensorFlow does), or None."""
    by_id = {id(v): s for v, s in opts.get("shape_invariants", ())}
    return tuple(by_id.get(id(v)) for v in values)


def _build_loop(build_while, test, body, get_state, set_state, names, opts, init_vars,
                invariants, require_one, check_shapes):
    from ...ops.control_flow.while_loop import flatten_components
    traced = []   # the state after the traced body

    def cond_fn(*vs):
        vs = vs[1:] if require_one else vs
        set_state(tuple(vs))
        return verify_condition(test(), "while loop")

    def body_fn(*vs):
        vs = vs[1:] if require_one else vs
        set_state(tuple(DS.trial_copy(v) for v in vs))
        body()
        new = tuple(get_state())
        traced[:] = new
        LV.verify_loop_vars(init_vars, vs, new, names, invariants,
                            check_shapes and not LoopOptions.widen_shapes)
        return ((True,) if require_one else ()) + new

    loop_vars = ((False,) if require_one else ()) + tuple(init_vars)
    shape_invariants = None
    if any(i is not None for i in invariants):
        shapes = [None] if require_one else []
        for v, inv in zip(init_vars, invariants):
            comps, _ = flatten_components(v)
            if inv is None:
                shapes.extend(_shape_of(c) for c in comps)
            else:
                shapes.extend(_component_invariants(v, inv))
        shape_invariants = [s if s is not None else _shape_of(c) for s, c in zip(
            shapes, flatten_components(loop_vars)[0])]
    final = tuple(build_while(cond_fn, body_fn, loop_vars, shape_invariants,
                              opts.get("maximum_iterations"), "while", lambda f, v: f(*v),
                              parallel_iterations=opts.get("parallel_iterations", 10),
                              var_names=_component_names(loop_vars, names, require_one),
                              widen=LoopOptions.widen_shapes, autograph=True))
    # A tensor list that started empty is typed by what the body appended.
    k = 1 if require_one else 0
    return final[:k] + tuple(
        v.with_element_type_of(t) if isinstance(v, DS.TensorListLoopVar) else v
        for v, t in zip(final[k:], traced))


def _component_invariants(value, invariant):
    """Shape invariants of the components of `value` (a composite's dense
    shape invariant gives its components' shapes, as its type spec says)."""
    from ...framework.tensor_shape import TensorShape
    spec = getattr(value, "_type_spec", None)
    if spec is not None and isinstance(invariant, TensorShape) and \
            hasattr(spec, "_component_specs"):
        return [c.shape for c in type(spec)(invariant, value.dtype)._component_specs]
    return nest.flatten(invariant)


def _shape_of(c):
    from ...framework.tensor_shape import TensorShape
    if isinstance(c, Tensor):
        return c.shape
    return convert_to_tensor(c).shape if not isinstance(c, TensorShape) else c


def _component_names(loop_vars, names, require_one):
    """A name per flattened component of the loop variables (for errors)."""
    from ...ops.control_flow.while_loop import flatten_components
    out = ["<internal flag>"] if require_one else []
    for v, name in zip(loop_vars[1:] if require_one else loop_vars, names):
        out.extend([name] * len(flatten_components(v)[0]))
    return out
