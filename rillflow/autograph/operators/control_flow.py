"""`if_stmt`, `while_stmt`, `for_stmt`: decided at trace time.

A Python condition or iterable runs as plain Python (a loop over `range`
unrolls); a graph tensor condition builds an If op, a tensor loop a While
op, a `tf.data.Dataset` a dataset reduction. The statement's variables move
in and out of the graph constructs through `get_state`/`set_state`.
"""
from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import nest
from ...framework.convert import convert_to_tensor
from ...framework.func_graph import FuncGraph
from ...framework.tensor import EagerTensor, SymbolicTensor, Tensor
from .logical import is_graph_tensor
from .variables import UndefinedReturnValue, is_undefined
from . import data_structures as DS

_state = _context.state

_LIMITATIONS = ("See https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/"
                "autograph/g3doc/reference/limitations.md#consistency-of-control-flow-types "
                "for more info.")


class LoopOptions:
    """Process-wide AutoGraph loop settings (`set_loop_shape_widening`)."""
    widen_shapes = False


# --- if ------------------------------------------------------------------------------

def if_stmt(cond, body, orelse, get_state, set_state, symbol_names, nouts):
    """`if cond: body() else: orelse()` (graph conditional for graph tensors)."""
    if is_graph_tensor(cond):
        _tf_if(cond, body, orelse, get_state, set_state, symbol_names)
    elif cond:
        body()
    else:
        orelse()


def _run_branch(fn, init, set_state, get_state, name):
    g = FuncGraph(name, outer_graph=_state.graph)
    with _context.graph_mode(g, hide_tapes=True):
        set_state(init)
        fn()
        values = get_state()
    return g, list(values)


def _branch_outputs(g, values):
    """Makes the chosen values the outputs of a traced branch graph."""
    from ...ops.while_loop import flatten_components
    with _context.graph_mode(g, hide_tapes=True):
        flat = []
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


def _placeholder_like(value, g):
    """A stand-in (zeros) of `value`'s type, built in graph `g`."""
    from ...ops.while_loop import flatten_components
    comps, rebuild = flatten_components(value)
    specs = [_spec_of(c) for c in comps]
    with _context.graph_mode(g, hide_tapes=True):
        out = [_zeros_of(dtype, shape) for dtype, shape in specs]
    return rebuild(out)


def _spec_of(c):
    if isinstance(c, Tensor):
        return c.dtype, c.shape
    t = convert_to_tensor(c)
    return t.dtype, t.shape


def _zeros_of(dtype, shape):
    from ...ops.array_ops import zeros
    if dtype is D.variant:
        from ...ops.list_ops import reserve
        return reserve(0, D.float32)
    dims = [0 if d is None else d for d in (shape.as_list() if shape.rank is not None
                                            else [])]
    if dtype is D.string:
        return convert_to_tensor(b"")
    return zeros(dims, dtype)


def _same_kind(a, b):
    return is_undefined(a) == is_undefined(b)


def _tf_if(cond, body, orelse, get_state, set_state, symbol_names):
    init = get_state()
    tg, tvals = _run_branch(body, init, set_state, get_state, "if_true")
    fg, fvals = _run_branch(orelse, init, set_state, get_state, "if_false")
    outputs, passthrough = [], {}
    for i, (name, tv, fv) in enumerate(zip(symbol_names, tvals, fvals)):
        if tv is fv and not isinstance(tv, Tensor):
            passthrough[i] = tv  # untouched Python value
            continue
        t_undef, f_undef = is_undefined(tv), is_undefined(fv)
        if t_undef and f_undef:
            passthrough[i] = tv
            continue
        if t_undef or f_undef:
            if isinstance(tv if t_undef else fv, UndefinedReturnValue):
                # Only one branch returned: the other's value is never used.
                if t_undef:
                    tv = _placeholder_like(fv, tg)
                else:
                    fv = _placeholder_like(tv, fg)
            else:
                missing = "if" if t_undef else "else"
                raise ValueError(f"'{name}' must also be initialized in the {missing} branch")
        try:
            nest.assert_same_structure(tv, fv, check_types=False)
        except (ValueError, TypeError):
            raise ValueError(f"'{name}' must have the same nested structure in the main and "
                             f"else branches: {tv!r} vs {fv!r}") from None
        _check_convertible(name, tv)
        _check_convertible(name, fv)
        outputs.append((i, tv, fv))
    _branch_outputs(tg, [tv for _, tv, _ in outputs])
    _branch_outputs(fg, [fv for _, _, fv in outputs])
    _check_branch_dtypes(tg, fg, symbol_names, outputs)
    from ...ops.cond import build_branch_op
    c = convert_to_tensor(cond)
    if c.dtype is not D.bool_:
        from ...ops.math_ops import cast
        c = cast(c, D.bool_) if c.dtype.is_integer or c.dtype.is_floating else c
    flat = build_branch_op("If", c, [tg, fg], "cond")
    flat = flat if isinstance(flat, list) else [flat]
    it = iter(flat)
    final = list(init)
    from ...ops.while_loop import flatten_components
    for i, tv, _ in outputs:
        comps, rebuild = flatten_components(tv)
        final[i] = rebuild([next(it) for _ in comps])
    for i, v in passthrough.items():
        final[i] = v
    set_state(tuple(final))


def _check_convertible(name, value):
    for leaf in nest.flatten(value):
        if isinstance(leaf, (Tensor, int, float, bool, complex, str, bytes)) or \
                hasattr(leaf, "_to_components") or hasattr(leaf, "_dense_var_to_tensor"):
            continue
        import numpy as np
        if isinstance(leaf, (np.ndarray, np.generic)):
            continue
        raise TypeError(f"'{name}' must be a tensor (or a value convertible to one) when it is "
                        f"modified by a conditional on a tensor; got {leaf!r}")


def _check_branch_dtypes(tg, fg, names, outputs):
    pos = 0
    from ...ops.while_loop import flatten_components
    for i, tv, _ in outputs:
        n = len(flatten_components(tv)[0])
        for t, f in zip(tg.outputs[pos:pos + n], fg.outputs[pos:pos + n]):
            if t.dtype is not f.dtype:
                raise TypeError(f"'{names[i]}' has dtype {t.dtype.name} in the main branch, "
                                f"but dtype {f.dtype.name} in the else branch")
        pos += n


# --- loops -----------------------------------------------------------------------------

def while_stmt(test, body, get_state, set_state, symbol_names, opts):
    """`while test(): body()` (a graph loop when the test is a graph tensor)."""
    t = test()
    if is_graph_tensor(t):
        _tf_while(test, body, get_state, set_state, symbol_names, opts)
        return
    if isinstance(t, EagerTensor):
        # An eager tensor loop: as tf.while_loop would, make the loop
        # variables tensors (Python numbers become tensors).
        set_state(tuple(_as_tensors(v) for v in get_state()))
    while t:
        body()
        t = test()
        if is_graph_tensor(t):
            raise NotImplementedError(
                "The condition of while loop started as non-Tensor, then changed to Tensor. "
                "This may happen either because variables changed type, or when a break or "
                "return statement inside the loop depends on a Tensor condition. In both cases, "
                "changing to a TF loop should remove the error.\n" + _LIMITATIONS)


def _as_tensors(v):
    if isinstance(v, (int, float, bool)) and not is_undefined(v):
        return convert_to_tensor(v)
    return v


def for_stmt(iter_, extra_test, body, get_state, set_state, symbol_names, opts):
    """`for x in iter_: body(x)`, stopping when `extra_test()` is false."""
    custom = getattr(iter_, "_autograph_for_loop", None)
    if custom is not None:
        custom(extra_test, body, get_state, set_state, symbol_names, opts)
        return
    if hasattr(iter_, "reduce") and hasattr(iter_, "element_spec"):
        _dataset_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        return
    if hasattr(iter_, "get_next_as_optional") and _state.graph is not None:
        _iterator_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        return
    if is_graph_tensor(iter_):
        _tf_tensor_for(iter_, extra_test, body, get_state, set_state, symbol_names, opts)
        return
    if isinstance(iter_, EagerTensor):
        set_state(tuple(_as_tensors(v) for v in get_state()))
    if isinstance(iter_, DS.TensorListLoopVar) and _state.graph is not None:
        _tf_tensor_for(iter_.stack(), extra_test, body, get_state, set_state,
                       symbol_names, opts)
        return
    for item in iter_:
        if extra_test is not None:
            ok = extra_test()
            if is_graph_tensor(ok):
                raise NotImplementedError(
                    "break and return statements which depend on a TF condition are not "
                    "supported in Python for loops. Did you intend to make it a TF loop?\n"
                    + _LIMITATIONS)
            if not ok:
                break
        body(item)


def _tf_tensor_for(t, extra_test, body, get_state, set_state, names, opts):
    from ...ops import op_util as U
    t = convert_to_tensor(t)
    if t.op.type == "Range":
        start, limit, delta = t.op.inputs
        step_sign = U.constant_value(delta)

        def index_cond(i):
            from ...ops.math_ops import greater, less, logical_and, logical_or
            if step_sign is not None:
                return less(i, limit) if step_sign > 0 else greater(i, limit)
            return logical_or(logical_and(greater(delta, 0), less(i, limit)),
                              logical_and(less(delta, 0), greater(i, limit)))
        _tf_loop(lambda i: i, start, lambda i: i + delta, index_cond, extra_test, body,
                 get_state, set_state, names, opts)
        return
    if t.shape.rank == 0:
        raise ValueError("Cannot iterate over a scalar tensor.")
    from ...ops.array_ops import shape
    n = t.shape[0] if t.shape.rank is not None and t.shape[0] is not None else shape(t)[0]
    n = convert_to_tensor(n, dtype=D.int32)
    _tf_loop(lambda i: t[i], convert_to_tensor(0), lambda i: i + 1,
             lambda i: i < n, extra_test, body, get_state, set_state, names, opts)


def _tf_while(test, body, get_state, set_state, names, opts):
    _tf_loop(None, None, None, None, None, body, get_state, set_state, names, opts,
             test=test)


def _tf_loop(item_of, index0, next_index, index_cond, extra_test, body, get_state,
             set_state, names, opts, test=None):
    """Builds one While op over the statement's state (plus an index for `for`)."""
    from ...ops.while_loop import build_while
    from ...ops.math_ops import logical_and
    init = list(get_state())
    init, undefined, lists = _prepare_loop_state(init, names, item_of, index0, body,
                                                 get_state, set_state, extra_test)
    has_index = index0 is not None
    needs_count = bool(undefined)

    def cond_fn(*vs):
        vs = list(vs)
        if needs_count:
            vs = vs[1:]
        if has_index:
            i, state = vs[0], vs[1:]
            set_state(tuple(state))
            c = index_cond(i)
        else:
            set_state(tuple(vs))
            c = test()
        if extra_test is not None:
            e = extra_test()
            c = logical_and(c, convert_to_tensor(e)) if not isinstance(e, bool) else (
                c if e else convert_to_tensor(False))
        return c

    def body_fn(*vs):
        vs = list(vs)
        count = None
        if needs_count:
            count, vs = vs[0], vs[1:]
        if has_index:
            i, state = vs[0], vs[1:]
            set_state(tuple(state))
            body(item_of(i))
            out = [next_index(i)] + _normalize_state(list(get_state()), lists)
        else:
            set_state(tuple(vs))
            body()
            out = _normalize_state(list(get_state()), lists)
        if needs_count:
            out = [count + 1] + out
        return tuple(out)

    loop_vars = list(init)
    if has_index:
        loop_vars = [index0] + loop_vars
    if needs_count:
        loop_vars = [convert_to_tensor(0)] + loop_vars
    var_names = (["iterations"] if needs_count else []) + (["index"] if has_index else []) + \
        list(names)
    final = build_while(cond_fn, body_fn, tuple(loop_vars), None, None, "while",
                        lambda f, v: f(*v), var_names=var_names,
                        widen=LoopOptions.widen_shapes, autograph=True)
    final = list(final)
    if needs_count:
        count, final = final[0], final[1:]
        _assert_iterated(count, [names[i] for i in undefined])
    if has_index:
        final = final[1:]
    set_state(tuple(final))


def _assert_iterated(count, names):
    from ...ops.logging_ops import Assert
    from ...ops.math_ops import greater
    msg = "loop must iterate at least once to initialize %s" % ", ".join(names)
    Assert(greater(count, 0), [msg])


def _normalize_state(values, lists):
    for i in lists:
        v = values[i]
        if isinstance(v, list) and not isinstance(v, DS.TensorListLoopVar):
            raise TypeError("a list that is a loop variable of a graph loop was replaced "
                            "by a Python list inside the loop")
    return values


def _prepare_loop_state(init, names, item_of, index0, body, get_state, set_state,
                        extra_test):
    """Gives undefined loop variables and Python lists a graph-compatible initial
    value, inferring their types from a trial trace of the body when needed.

    Returns (initial values, indices of variables that need the loop to run at
    least once, indices of lists).
    """
    undefined = [i for i, v in enumerate(init) if is_undefined(v)]
    lists = _list_vars(init)
    trial = None
    if undefined or any(not init[i] and DS.element_dtype(init[i]) is None for i in lists):
        trial = _trial_run(init, item_of, index0, body, get_state, set_state)
    _lists_to_tensor_lists(init, lists, trial, names, "graph loop")
    must_iterate = []
    for i in undefined:
        value = trial[i]
        if is_undefined(value):
            raise ValueError(f"'{names[i]}' must be defined before the loop.")
        # A return value (UndefinedReturnValue) is only read when the loop
        # returned; any other variable must be assigned by an iteration.
        if not isinstance(init[i], UndefinedReturnValue):
            must_iterate.append(i)
        init[i] = _placeholder_like_eager(value)
    return init, must_iterate, lists


def _list_vars(init):
    return [i for i, v in enumerate(init) if isinstance(v, list) and
            not isinstance(v, DS.TensorListLoopVar) and DS.is_convertible_list(v)]


def _lists_to_tensor_lists(init, lists, trial, names, where):
    """Replaces the Python lists at `lists` by tensor lists, with the element
    type declared, of their elements, or seen appended in a trial trace."""
    for i in lists:
        v = init[i]
        dtype, shape = DS.element_dtype(v), None
        if dtype is None and v:
            dtype, shape = _spec_of(v[0])
        if dtype is None and trial is not None and isinstance(trial[i], list) and trial[i]:
            dtype, shape = _spec_of(trial[i][-1])
        if dtype is None:
            raise ValueError(f"cannot infer the element type of list '{names[i]}' used in a "
                             f"{where}; use tf.autograph.set_element_type")
        init[i] = DS.TensorListLoopVar.from_list(v, dtype, shape)


def _placeholder_like_eager(value):
    """Zeros of the type a trial run gave a variable, in the current graph."""
    from ...ops.while_loop import flatten_components
    comps, rebuild = flatten_components(value)
    out = []
    for c in comps:
        out.append(_zeros_of(*_spec_of(c)))
    return rebuild(out)


def _trial_run(init, item_of, index0, body, get_state, set_state):
    """Traces the body once in a scratch graph to see what it assigns."""
    g = FuncGraph("loop_body_trial", outer_graph=_state.graph)
    with _context.graph_mode(g, hide_tapes=True):
        set_state(tuple(DS.trial_copy(v) for v in init))
        if item_of is not None:
            body(item_of(index0 if isinstance(index0, Tensor) or
                         hasattr(index0, "_to_components") else convert_to_tensor(index0)))
        else:
            body()
        values = list(get_state())
    set_state(tuple(init))
    return values


# --- datasets and iterators ----------------------------------------------------------------

def _dataset_for(ds, extra_test, body, get_state, set_state, names, opts):
    init = list(get_state())
    lists = _list_vars(init)
    trial = None
    if any(is_undefined(v) for v in init) or any(
            not init[i] and DS.element_dtype(init[i]) is None for i in lists):
        trial = _trial_dataset(ds, body, get_state, set_state, init)
    _lists_to_tensor_lists(init, lists, trial, names, "dataset loop")
    if trial is not None:
        init = [_placeholder_like_eager(t) if is_undefined(v) else v
                for v, t in zip(init, trial)]
    init = [convert_to_tensor(v) if isinstance(v, (int, float, bool)) else v for v in init]

    def reduce_body(state, elem):
        set_state(tuple(state))
        body(elem)
        return tuple(get_state())

    if extra_test is None:
        final = ds.reduce(tuple(init), reduce_body)
    else:
        def scan_body(state, elem):
            set_state(tuple(state))
            ok = extra_test()
            from ...ops.cond import cond
            new = cond(convert_to_tensor(ok), lambda: reduce_body(state, elem),
                       lambda: tuple(state)) if is_graph_tensor(ok) or not isinstance(
                ok, bool) else (reduce_body(state, elem) if ok else tuple(state))
            set_state(tuple(new))
            return tuple(new), (tuple(new), convert_to_tensor(extra_test()))
        scanned = ds.scan(tuple(init), scan_body)
        stopped = scanned.take_while(lambda state, ok: ok)
        final = stopped.reduce(tuple(init), lambda acc, elem: tuple(elem[0]))
    set_state(tuple(final))


def _trial_dataset(ds, body, get_state, set_state, init):
    g = FuncGraph("dataset_loop_trial", outer_graph=_state.graph)
    with _context.graph_mode(g, hide_tapes=True):
        from ...framework.execute import placeholder
        spec = ds.element_spec
        elem = nest.map_structure(
            lambda s: placeholder(s.dtype, s.shape) if hasattr(s, "dtype") and
            hasattr(s, "shape") else s, spec)
        set_state(tuple(DS.trial_copy(v) for v in init))
        body(elem)
        values = list(get_state())
    set_state(tuple(init))
    return values


def _iterator_for(it, extra_test, body, get_state, set_state, names, opts):
    """`for x in iterator` in a graph: a loop whose index is the iterator's
    next Optional (carried as a loop variable)."""
    _tf_loop(lambda opt: opt.get_value(), it.get_next_as_optional(),
             lambda opt: it.get_next_as_optional(), lambda opt: opt.has_value(),
             extra_test, body, get_state, set_state, names, opts)


def _and(a, b):
    from ...ops.math_ops import logical_and
    return logical_and(a, convert_to_tensor(b))
