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
from . import dataset_loops
from . import loop_vars as LV
from .dispatch import is_graph_tensor
from .exceptions import staging
from .graph_loop import tf_loop, verify_condition
from .variables import is_undefined
from ...ops.control_flow.cond import build_branch_op
from ...ops.control_flow.while_loop import flatten_components
from ...ops.core import op_util as U
from ...ops.core.math_ops import greater, less, logical_and, logical_or
from ...ops.core.shape_ops import shape

_state = _context.state

_LIMITATIONS = ("See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/"
                "autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types "
                "for more info.")


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
    e = extra_test()
    if isinstance(e, bool):
        return main if e else convert_to_tensor(False)
    return logical_and(main, convert_to_tensor(e))
