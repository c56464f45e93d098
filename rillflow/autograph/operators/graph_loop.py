"""The graph loop of AutoGraph's loop statements: `tf_loop`.

`while_stmt` and `for_stmt` over a tensor (control_flow.py) and a loop over
a dataset iterator (dataset_loops.py) all stage one While op over the
statement's state the same way: Python lists the body appends to become
tensor lists, variables undefined before the loop get a stand-in from a
trial iteration, and the loop variables are checked as TensorFlow's
AutoGraph checks them (loop_vars.py). Also the test of a graph condition
(`verify_condition`) and the process-wide loop settings (`LoopOptions`).
"""
from ...framework import dtypes as D
from ...framework import nest
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from . import data_structures as DS
from . import loop_vars as LV
from .exceptions import staging
from ...framework.tensor_shape import TensorShape
from ...ops.control_flow.while_loop import build_while, flatten_components
from ...ops.core.math_ops import not_equal
from ...ops.core.shape_ops import identity, reshape
from ...ops.debugging.logging_ops import Assert

__all__ = ["LoopOptions", "verify_condition", "tf_loop", "tensor_lists", "shape_invariants",
           "with_list_fallback"]


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
        c = not_equal(c, convert_to_tensor(0, dtype=c.dtype))
    if c.shape.rank == 0:
        return c
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


def tf_loop(test, body, get_state, set_state, names, opts, check_shapes=True):
    """One While op over the statement's state, as TensorFlow's AutoGraph
    stages `while test(): body()`.

    A variable undefined (or None) before the loop gets a stand-in from a
    traced trial iteration, and the loop must then run at least once. A
    Python list the body appends to becomes a tensor list (where that
    cannot be staged, the list stays a Python list: `with_list_fallback`).
    """
    with_list_fallback(
        lambda get, put, ns, o: _tf_loop(test, body, get, put, ns, o, check_shapes),
        get_state, set_state, names, opts)


def with_list_fallback(stage, get_state, set_state, names, opts):
    """`stage(get_state, set_state, names, opts)`, staging a graph loop
    whose body appends to Python lists as tensor lists (rillflow's
    extension: Python's answer, where TensorFlow's AutoGraph appends once,
    while tracing). When that staging fails (the lists' items are then
    tensors, which can make a Python `while` or `if` inside the body see a
    tensor condition: seed 99011 of the AutoGraph property test), the loop
    is staged again as TensorFlow stages it: the lists are no loop
    variables, the body appends to them while it is traced, and the
    program does what it does on TensorFlow, value or exception. Only when
    no such list is read after the loop (`opts["list_live_out"]`, from the
    converter): there it would hold what one traced iteration appended,
    where Python has every iteration's items (TensorFlow's `len(z)` is 3
    where Python's is 1), and a refusal beats a wrong value. If the second
    staging fails too, the first one's error is raised."""
    appended = set(opts.get("list_vars", ()))
    before = tuple(get_state())
    lists = [type(v) is list and n in appended for v, n in zip(before, names)]
    if not any(lists):
        return stage(get_state, set_state, names, opts)
    read_after = set(opts.get("list_live_out", ()))
    try:
        return stage(get_state, set_state, names, opts)
    except Exception as e:   # noqa: BLE001 - any failure: try it as TensorFlow does
        if any(is_list and n in read_after for is_list, n in zip(lists, names)):
            raise
        failure = e
        set_state(before)
    keep = [i for i, is_list in enumerate(lists) if not is_list]

    def get_kept():
        state = tuple(get_state())
        return tuple(state[i] for i in keep)

    def set_kept(values):
        state = list(get_state())
        for i, v in zip(keep, values):
            state[i] = v
        set_state(tuple(state))

    try:
        return stage(get_kept, set_kept, tuple(names[i] for i in keep),
                     {k: v for k, v in opts.items() if k not in ("list_vars", "list_live_out")})
    except Exception:   # noqa: BLE001 - the first error is the program's
        # Staged either way the loop fails: the error of the tensor-list
        # staging stands (as before the fallback; it is TensorFlow's where
        # the property test compared them, seed 202303).
        set_state(before)
    raise failure


def _tf_loop(test, body, get_state, set_state, names, opts, check_shapes):
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
    spec = getattr(value, "_type_spec", None)
    if spec is not None and isinstance(invariant, TensorShape) and \
            hasattr(spec, "_component_specs"):
        return [c.shape for c in type(spec)(invariant, value.dtype)._component_specs]
    return nest.flatten(invariant)


def _shape_of(c):
    if isinstance(c, Tensor):
        return c.shape
    return convert_to_tensor(c).shape if not isinstance(c, TensorShape) else c


def _component_names(loop_vars, names, require_one):
    """A name per flattened component of the loop variables (for errors)."""
    out = ["<internal flag>"] if require_one else []
    for v, name in zip(loop_vars[1:] if require_one else loop_vars, names):
        out.extend([name] * len(flatten_components(v)[0]))
    return out
