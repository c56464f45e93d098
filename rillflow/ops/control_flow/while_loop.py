"""`tf.while_loop`: graph loops, compiled to a Python `while`.

Eagerly the loop is a plain Python loop. In a graph, `cond` and `body` are
traced once into FuncGraphs over placeholders for the loop variables, and
one `While` (`StatelessWhile`) op runs them; the compiler emits

    v0, v1 = init0, init1
    while True:
        <cond ops>; if not c: break
        <body ops>; v0, v1 = new0, new1

For gradients, the forward loop appends the per-iteration values the
backward pass needs to Python lists (extra outputs of the op), and the
backward pass is another loop that walks the iterations in reverse.
"""

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework import nest
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.func_graph import trace_function
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.tensor_spec import TensorSpec
from . import control_flow_util as CF
from ..core.math_ops import less, logical_and

_state = _context.state


# --- composite loop variables (TensorArray) ------------------------------------------

def flatten_components(structure):
    """Leaves of `structure`, with composites (TensorArray) expanded into tensors.

    Returns (tensors, rebuild) where `rebuild(tensors)` restores the structure.
    """
    leaves = nest.flatten(structure)
    parts, makers, flat = [], [], []
    for leaf in leaves:
        comps = getattr(leaf, "_to_components", None)
        if comps is not None:
            c = comps()
            parts.append(len(c))
            makers.append(leaf._from_components)
            flat.extend(c)
        else:
            parts.append(1)
            makers.append(None)
            flat.append(leaf)

    def rebuild(tensors):
        it = iter(tensors)
        out = []
        for n, mk in zip(parts, makers):
            vals = [next(it) for _ in range(n)]
            out.append(mk(vals) if mk is not None else vals[0])
        return nest.pack_sequence_as(structure, out)
    return flat, rebuild


# --- the public function -------------------------------------------------------------

@export("while_loop", "compat.v2.while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None,
               return_same_structure=True):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true.

    Loop variables keep their dtype and (unless `shape_invariants` relaxes
    it) their shape across iterations.

    Raises:
      TypeError: if cond/body are not callable or a loop variable changes dtype.
      ValueError: if a loop variable changes shape beyond its invariant, or
        body returns a different structure.
    """
    if not callable(cond) or not callable(body):
        raise TypeError("cond and body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    single = not isinstance(loop_vars, (list, tuple))
    call = (lambda f, v: f(v)) if single else (lambda f, v: f(*v))
    if _state.graph is None:
        return _eager_loop(cond, body, loop_vars, maximum_iterations, call)
    return build_while(cond, body, loop_vars, shape_invariants, maximum_iterations,
                       name or "while", call, parallel_iterations=parallel_iterations)


def _eager_loop(cond, body, loop_vars, maximum_iterations, call):
    n = 0
    max_it = None if maximum_iterations is None else int(
        maximum_iterations.numpy() if isinstance(maximum_iterations, EagerTensor)
        else maximum_iterations)
    while (max_it is None or n < max_it) and _truth(call(cond, loop_vars)):
        new = call(body, loop_vars)
        if isinstance(loop_vars, (list, tuple)) and not isinstance(new, (list, tuple)) and \
                len(loop_vars) == 1:
            new = [new]
        _check_eager_structure(loop_vars, new)
        loop_vars = nest.pack_sequence_as(loop_vars, nest.flatten(new)) \
            if isinstance(loop_vars, list) and isinstance(new, tuple) else new
        n += 1
    return loop_vars


def _truth(c):
    if isinstance(c, EagerTensor):
        return bool(c._v)
    return bool(c)


def _check_eager_structure(before, after):
    try:
        nest.assert_same_structure(before, after, check_types=False)
    except (ValueError, TypeError) as e:
        raise ValueError(f"The two structures don't have the same nested structure: loop vars "
                         f"{before!r} but body returned {after!r}. {e}") from None


# --- building the op ---------------------------------------------------------------------

def _loop_var_name(i, names):
    return names[i] if names and i < len(names) else "loop_var_%d" % i


def build_while(cond, body, loop_vars, shape_invariants, maximum_iterations, name, call,
                parallel_iterations=10, var_names=None, widen=False, autograph=False):
    """Traces cond/body over the loop variables and adds a While op.

    `widen` relaxes the shape of a variable whose shape changes instead of
    raising; `autograph` words errors for Python loops (naming variables).
    """
    g = _state.graph
    flat, rebuild = flatten_components(loop_vars)
    flat = [v if isinstance(v, Tensor) else convert_to_tensor(v) for v in flat]
    flat = [CF.in_graph(g, v) for v in flat]
    if shape_invariants is not None:
        inv, _ = flatten_components(shape_invariants) if not isinstance(
            shape_invariants, TensorShape) else ([shape_invariants], None)
        shapes = [as_shape(s) for s in inv]
        if len(shapes) != len(flat):
            raise ValueError("shape_invariants must have the same structure as loop_vars")
        for v, s, i in zip(flat, shapes, range(len(flat))):
            if not s.is_compatible_with(v.shape) or not v.shape.is_subtype_of(s):
                raise ValueError(f"The shape invariant specified for "
                                 f"{_loop_var_name(i, var_names)} is not compatible with the "
                                 f"initial shape of the loop variable. It enters the loop with "
                                 f"shape {v.shape}, but the specified shape invariant is {s}.")
    else:
        shapes = [v.shape for v in flat]
    counter = None
    if maximum_iterations is not None:
        counter = convert_to_tensor(maximum_iterations, dtype=D.int32) if not isinstance(
            maximum_iterations, Tensor) else maximum_iterations
        counter = CF.in_graph(g, counter)
    n_user = len(flat)
    while True:
        cg, bg, outs = _trace(cond, body, flat, shapes, rebuild, call, counter, var_names)
        problems = _check_body(flat, shapes, outs, var_names, autograph)
        if not problems:
            break
        i, new_shape = problems
        if not widen:
            n = _loop_var_name(i, var_names)
            if autograph:
                raise ValueError(
                    f"'{n}' has shape {shapes[i]} before the loop, but shape {new_shape} after "
                    "one iteration. Use tf.autograph.experimental.set_loop_options to set "
                    "shape invariants (or tf.autograph.experimental."
                    "set_loop_shape_widening(True)).")
            raise ValueError(
                f"Input tensor '{n}' enters the loop with shape "
                f"{shapes[i]}, but has shape {new_shape} after one iteration. To allow the "
                f"shape to vary across iterations, use the `shape_invariants` argument of "
                f"tf.while_loop to specify a less-specific shape.")
        shapes[i] = shapes[i].most_specific_compatible_shape(new_shape)
    inits = list(flat)
    if counter is not None:
        inits = [convert_to_tensor(0, dtype=D.int32)] + inits + [counter]
        inits = [CF.in_graph(g, t) for t in inits]
    op = make_while_op(g, cg, bg, inits, name, parallel_iterations)
    results = op.outputs[:len(inits)]
    if counter is not None:
        results = results[1:1 + n_user]
    for t, s in zip(results, shapes):
        t.set_shape(t.shape.merge_with(s) if t.shape.is_compatible_with(s) else t.shape)
    return rebuild(results)


def _trace(cond, body, flat, shapes, rebuild, call, counter, var_names):
    specs = [TensorSpec(s, v.dtype, name=_loop_var_name(i, var_names))
             for i, (v, s) in enumerate(zip(flat, shapes))]
    with_counter = counter is not None
    if with_counter:
        specs = [TensorSpec([], D.int32, name="loop_counter")] + specs + \
            [TensorSpec([], D.int32, name="maximum_iterations")]

    def cond_fn(*phs):
        if with_counter:
            it, vars_, mx = phs[0], phs[1:-1], phs[-1]
            c = _as_bool_tensor(call(cond, rebuild(list(vars_))))
            return logical_and(less(it, mx), c)
        return _as_bool_tensor(call(cond, rebuild(list(phs))))

    def body_fn(*phs):
        if with_counter:
            it, vars_, mx = phs[0], phs[1:-1], phs[-1]
            new = call(body, rebuild(list(vars_)))
            new = _normalize_body_output(rebuild(list(vars_)), new)
            comps, _ = flatten_components(new)
            return [it + 1] + comps + [mx]
        new = call(body, rebuild(list(phs)))
        new = _normalize_body_output(rebuild(list(phs)), new)
        comps, _ = flatten_components(new)
        return comps
    names = [s.name for s in specs]
    cg = trace_function("while_cond", cond_fn, specs, {}, arg_names=names,
                        outer_graph=_state.graph, add_identities=False)
    bg = trace_function("while_body", body_fn, specs, {}, arg_names=names,
                        outer_graph=_state.graph, add_identities=False)
    outs = CF.flat_outputs(bg)
    if with_counter:
        outs = outs[1:-1]
    return cg, bg, outs


def _as_bool_tensor(c):
    t = convert_to_tensor(c)
    if t.dtype is not D.bool_:
        raise TypeError(f"cond of a while loop must return a bool scalar, got {t.dtype.name}")
    if t.shape.rank not in (None, 0):
        raise ValueError(f"cond of a while loop must return a scalar, got shape {t.shape}")
    return t


def _normalize_body_output(before, new):
    if isinstance(before, (list, tuple)) and not isinstance(new, (list, tuple)) and \
            len(before) == 1:
        new = [new]
    try:
        nest.assert_same_structure(before, new, check_types=False)
    except (ValueError, TypeError):
        raise ValueError(f"The two structures don't have the same nested structure: the loop "
                         f"variables are {before!r} but the body returned {new!r}.") from None
    return new


def _check_body(flat, shapes, outs, var_names, autograph=False):
    if len(outs) != len(flat):
        raise ValueError(f"body returned {len(outs)} values for {len(flat)} loop variables")
    for i, (v, s, o) in enumerate(zip(flat, shapes, outs)):
        if o is None:
            raise ValueError(f"body returned None for loop variable "
                             f"{_loop_var_name(i, var_names)}")
        if o.dtype is not v.dtype:
            n = _loop_var_name(i, var_names)
            if autograph:
                raise TypeError(f"'{n}' has dtype {v.dtype.name} before the loop, but dtype "
                                f"{o.dtype.name} after one iteration")
            raise TypeError(f"Loop variable '{n}' enters the loop "
                            f"with type {v.dtype!r}, but has type {o.dtype!r} after one "
                            "iteration. TensorFlow control flow requires it stays the same.")
        if not o.shape.is_subtype_of(s):
            return i, o.shape
    return None


def make_while_op(g, cg, bg, inits, name, parallel_iterations=10, extra_attrs=None):
    """Adds a While op running prebuilt cond/body graphs over `inits`."""
    n = len(inits)
    args, maps = CF.collect_inputs(g, [cg, bg])
    stateful = CF.is_stateful([cg, bg])
    opdef = _WHILE_OPS[stateful]
    body_outs = [t for t in CF.flat_outputs(bg)]
    attrs = {"cond": cg, "body": bg, "_cond_out": CF.flat_outputs(cg)[0],
             "_body_outs": body_outs, "_n": n, "_input_maps": maps,
             "parallel_iterations": parallel_iterations, "_accumulate": [],
             "T": [t.dtype for t in inits],
             "output_shapes": [t.shape for t in inits]}
    if extra_attrs:
        attrs.update(extra_attrs)
    specs = [(t.shape, t.dtype) for t in inits]
    return g.create_op(opdef, list(inits) + args, attrs, name=name, output_specs=specs)


# --- codegen ----------------------------------------------------------------------------

def _while_codegen(em, op):
    a = op.attrs
    n = a["_n"]
    vals = [em.value(t) for t in op.inputs]
    inits, args = vals[:n], vals[n:]
    cg, bg = a["cond"], a["body"]
    targets = [em.new_name("%s_%d" % (op.name, i)) for i in range(n)]
    for t, name in zip(op.outputs[:n], targets):
        em.names[id(t)] = name
    acc = a["_accumulate"]
    acc_names = [em.new_name("%s_acc_%d" % (op.name, i)) for i in range(len(acc))]
    fetch = a.get("_fetch")  # backward loops read accumulated values
    if n:  # a loop that only updates variables carries no values
        em.emit("%s = %s" % (", ".join(targets) + ("," if n == 1 else ""),
                             ", ".join(inits) + ("," if n == 1 else "")), op)
    if acc:
        count = em.new_name(op.name + "_iterations")
        em.names[id(op.outputs[n])] = count
        for t, nm in zip(op.outputs[n + 1:n + 1 + len(acc)], acc_names):
            em.names[id(t)] = nm
        em.emit("%s = 0" % count)
        for nm in acc_names:
            em.emit("%s = []" % nm)
    c_map, b_map = a["_input_maps"]
    c_in = targets + [args[k] for k in c_map]
    b_in = targets + [args[k] for k in b_map]
    body_outputs = list(zip(targets, a["_body_outs"]))
    body_plans = hoisted = None
    if not fetch:
        body_plans, hoisted = em.prepare_loop_body(
            bg, b_in, body_outputs, acc, loop={"cond_graph": cg, "cond_out": a["_cond_out"],
                                               "inits": op.inputs[:n],
                                               "body_outs": a["_body_outs"]})
    em.emit("while True:", op)
    em.indent += 1
    em.emit_block(cg, c_in, [], keep=[a["_cond_out"]])
    em.emit("if not %s:" % em.value(a["_cond_out"]))
    em.emit("    break")
    if fetch:
        # fetch: (input index in body graph, accumulator arg index, counter input index)
        for ph_index, acc_arg, ctr_index in fetch:
            ph = bg.inputs[ph_index]
            nm = em.new_name("%s_saved" % ph.op.name)
            em.emit("%s = %s[%s - 1]" % (nm, b_in[acc_arg], targets[ctr_index]))
            b_in[ph_index] = nm

    def record(em_):
        for t, nm in zip(acc, acc_names):
            em_.emit("%s.append(%s)" % (nm, em_.value(t)))
        if acc:
            em_.emit("%s += 1" % count)
    em.emit_block(bg, b_in, body_outputs, simultaneous=True, keep=acc, epilogue=record,
                  plans=body_plans, hoisted=hoisted)
    em.indent -= 1


# Registered without a gradient: the gradient of a While op is another While op (built
# with `make_while_op` above), so it lives in while_gradient, which imports this module
# and attaches itself to both ops when it is imported (rillflow.ops imports it).
_WHILE_OPS = CF.register_pair("While", None, _while_codegen)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _xla_list_size_error(op):
    return errors.InvalidArgumentError(
        None, op, "XLA compilation requires a fixed tensor list size. Set the max number of "
        "elements. This could also happen if you're using a TensorArray in a while loop that "
        "does not have its maximum_iteration set, you can fix this by setting "
        "maximum_iteration to a suitable value.")


def _trip_bound(ctx, op, inits, args):
    """A compile-time bound on the iterations of a While op, or None: from a
    condition `i < limit` (or `<=`, `>`, `>=`, and-ed with others) on a loop
    variable counting towards the limit by a constant step from a static
    start to a static limit, as `tf.range` loops (any step) and
    `maximum_iterations` make it."""
    a = op.attrs
    n, cg, bg = a["_n"], a["cond"], a["body"]
    c_map = a["_input_maps"][0]
    body_outs = a["_body_outs"]
    c_pos = {id(t): k for k, t in enumerate(cg.inputs)}

    def through(t):
        while t.op.type == "Identity":
            t = t.op.inputs[0]
        return t

    def static_of(t):
        t = through(t)
        if t._const is not None:
            return np.asarray(t._const)
        k = c_pos.get(id(t))
        if k is None:
            return None
        if k >= n:
            v = args[c_map[k - n]]
        elif body_outs[k] is bg.inputs[k]:   # passed through unchanged
            v = inits[k]
        else:
            return None
        return v if ctx.is_static(v) else None

    b_map = a["_input_maps"][1]
    b_pos = {id(t): k for k, t in enumerate(bg.inputs)}

    def body_static(t):
        t = through(t)
        if t._const is not None:
            return np.asarray(t._const)
        k = b_pos.get(id(t))
        if k is None or k < n:
            return None
        v = args[b_map[k - n]]
        return v if ctx.is_static(v) else None

    def step(k):
        """The constant the body adds to loop variable k (or subtracts)."""
        out = through(body_outs[k])
        kind = out.op.type
        if kind not in ("AddV2", "Sub"):
            return None
        x, c = out.op.inputs
        if through(x) is not bg.inputs[k]:
            if kind == "Sub":
                return None
            x, c = c, x
            if through(x) is not bg.inputs[k]:
                return None
        v = body_static(c)
        if v is None or np.size(v) != 1:
            return None
        v = int(np.asarray(v).reshape(()))
        return -v if kind == "Sub" else v

    def bounds(t):
        t = through(t)
        kind = t.op.type
        if kind == "LogicalAnd":
            return bounds(t.op.inputs[0]) + bounds(t.op.inputs[1])
        if kind not in ("Less", "LessEqual", "Greater", "GreaterEqual"):
            return []
        up = kind.startswith("Less")   # loop variable below the limit
        x, y = t.op.inputs
        k = c_pos.get(id(through(x)))
        if k is None or k >= n:
            x, y, up = y, x, not up
            k = c_pos.get(id(through(x)))
        limit = static_of(y)
        if k is None or k >= n or limit is None or np.size(limit) != 1 or \
                not ctx.is_static(inits[k]):
            return []
        s = step(k)
        if not s or (s > 0) != up:
            return []
        span = float(limit) - float(inits[k])
        if not up:
            span, s = -span, -s
        count = int(np.floor(span / s)) + 1 if kind.endswith("Equal") else int(np.ceil(span / s))
        return [max(count, 0)]
    found = bounds(a["_cond_out"])
    return min(found) if found else None


def _lower_while(ctx, op, *ins):
    """A While op as `lax.while_loop`, the variables and the PRNG key carried.
    The values a gradient loop reads (`_accumulate`) go into preallocated
    buffers of one row per iteration, which needs a static iteration bound;
    so do tensor lists the loop appends to."""
    a = op.attrs
    n = a["_n"]
    inits, args = list(ins[:n]), ins[n:]
    cg, bg = a["cond"], a["body"]
    c_map, b_map = a["_input_maps"]
    c_args, b_args = [args[k] for k in c_map], [args[k] for k in b_map]
    acc, fetch = list(a["_accumulate"]), a.get("_fetch") or ()
    wanted = list(a["_body_outs"]) + acc

    def body_values(loop):
        b_in = list(loop) + b_args
        for ph_index, acc_arg, ctr_index in fetch:
            b_in[ph_index] = b_in[acc_arg].buffer[loop[ctr_index] - 1]
        return ctx.call(bg, b_in, wanted)

    carry = [XL.jnp.asarray(v) if ctx.is_static(v) else v for v in inits]
    lists = [k for k, v in enumerate(carry) if isinstance(v, XL.TList) and
             (v.buffer is None or not v.capacity)]
    bound = _trip_bound(ctx, op, inits, args) if acc or lists else None
    if (acc or any(not carry[k].capacity for k in lists)) and bound is None:
        raise _xla_list_size_error(op)
    for k in lists:
        if not carry[k].capacity:
            carry[k] = XL.TList(None, carry[k].length, carry[k].dtype,
                                carry[k].element_shape, bound)
    if lists:
        shapes = ctx.probe(lambda loop: body_values(loop)[:n], carry)
        for k in lists:
            t = shapes[k]
            if t.buffer is not None:
                carry[k] = XL.TList(XL.jnp.zeros(t.buffer.shape, t.buffer.dtype),
                                    carry[k].length, carry[k].dtype, t.element_shape,
                                    t.buffer.shape[0])
    carry = [_carried(v) for v in carry]
    buffers = []
    if acc:
        for t in ctx.probe(lambda loop: body_values(loop)[n:], carry):
            buffers.append(XL.jnp.zeros((bound,) + tuple(t.shape), t.dtype))

    def cond_fn(state):
        return ctx.call(cg, list(state[0]) + c_args, [a["_cond_out"]])[0]

    def body_fn(state):
        loop, count, bufs = state
        vals = body_values(loop)
        new = [_carried(v) for v in vals[:n]]
        # One row per iteration, `count` within the bound by construction.
        bufs = [XL.lax.dynamic_update_index_in_dim(b, XL.jnp.asarray(v, b.dtype), count, 0)
                for b, v in zip(bufs, vals[n:])]
        return new, count + 1, bufs
    loop, count, bufs = ctx.while_loop(cond_fn, body_fn, (carry, np.int32(0), buffers))
    outs = list(loop)
    if len(op.outputs) > n:
        outs.append(count)
        outs += [XL.TList(b, count, t.dtype._np, b.shape[1:], bound) for b, t in zip(bufs, acc)]
    return outs


def _carried(value):
    """A loop variable as the loop carries it: a list's length as an int32
    array (a Python int would change type after one iteration)."""
    if isinstance(value, XL.TList):
        return value.replace(length=XL.jnp.asarray(value.length, np.int32))
    return value


for _op in _WHILE_OPS.values():
    XL.set_lowerings({_op.name: _lower_while})
