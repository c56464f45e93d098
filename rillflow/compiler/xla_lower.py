"""A traced graph as a JAX function: one lowering rule per op.

`lower_graph` walks a graph's needed ops in order, calling each op's
`OpDef.lower` rule (framework/lowering.py documents the rules) on the
values of its inputs. Values known at compile time stay NumPy arrays, so
shape arguments, axes and permutations stay static, as XLA needs them; a pure
op whose inputs are all static and whose outputs are small is computed with
its NumPy kernel (rillflow's own numbers). Everything else becomes JAX
operations staged into the computation `jax.jit` compiles.

State (variables and the PRNG key of stateful random ops) lives on the
`LoweringContext`: rules read and write it, and the control-flow helpers
(`switch`, `while_loop`) thread it through `lax.cond`/`lax.while_loop` as
part of the carried values, so a variable written in a loop body or a
branch is written once per iteration or branch taken, as in TensorFlow.

`unsupported_ops` finds, before anything is lowered, the ops (in the graph
and in the branches, bodies and functions it calls) that have no rule, for
TensorFlow's "Detected unsupported operations" error.
"""
import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from ..framework import lowering as L
from ..framework.lowering_values import TList, VarRef
from .codegen import needed_ops

__all__ = ["LoweringContext", "unsupported_ops", "subgraphs", "StaticValueError",
           "attr_handles"]

# Pure ops whose inputs are all static are computed with their NumPy kernel
# when every output has at most this many elements (bigger constants would
# be embedded in the compiled program, slowing compilation).
FOLD_LIMIT = 4096
# Ops lowered by the walker itself.
_BUILTIN = frozenset({"Placeholder", "Const", "NoOp"})
_NON_ARRAY = (D.string, D.resource, D.variant)


class StaticValueError(errors.InvalidArgumentError):
    """An input that XLA needs at compile time is computed at run time."""


def _is_static(v):
    return isinstance(v, (np.ndarray, np.generic))


def subgraphs(op):
    """The function graphs an op runs: branches, loop bodies, called functions."""
    out = []
    for key, v in op.attrs.items():
        if key in ("_branch_outputs", "_extra", "_body_outs", "_cond_out", "_accumulate"):
            continue
        for x in (v if isinstance(v, (list, tuple)) else (v,)):
            if getattr(x, "is_function_graph", False):
                out.append(x)
            elif hasattr(x, "graph") and getattr(x.graph, "is_function_graph", False) and \
                    hasattr(x, "_call_flat"):
                out.append(x.graph)
    seen, uniq = set(), []
    for g in out:
        if id(g) not in seen:
            seen.add(id(g))
            uniq.append(g)
    return uniq


def unsupported_ops(graph, outputs, seen=None):
    """The ops computing `outputs` (and the stateful ops) of `graph`, or of the
    graphs they call, that cannot be lowered: `(op, type shown)` pairs, in
    graph order. A string value is not supported, as in TensorFlow's XLA."""
    seen = set() if seen is None else seen
    found = []
    for op in needed_ops(graph.get_operations(), [t for t in outputs if t is not None]):
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.type == "Placeholder" and op.outputs[0].dtype is D.string:
            # A string argument: XLA has no strings (string constants only
            # reach host callbacks: tf.print, assertion messages).
            found.append((op, "_Arg"))
            continue
        if op.type in _BUILTIN:
            continue
        if op.opdef.lower is None:
            found.append((op, op.type))
            continue
        for g in subgraphs(op):
            found.extend(unsupported_ops(g, g.outputs or _all_outputs(g), seen))
    return found


# Attrs holding a variable's storage directly (not as a resource input): the
# state of a `tf.random.Generator`'s ops.
_HANDLE_ATTRS = ("_gen",)


def attr_handles(graph, seen=None):
    """The variable storages that ops of `graph` (and of the graphs it
    calls) hold in attrs, in graph order, each once: the computation passes
    their values in and writes them back as it does its variables'."""
    seen = set() if seen is None else seen
    found = []
    for op in graph.get_operations():
        for key in _HANDLE_ATTRS:
            h = op.attrs.get(key)
            if h is not None and id(h) not in seen:
                seen.add(id(h))
                found.append(h)
        for g in subgraphs(op):
            if ("graph", id(g)) not in seen:
                seen.add(("graph", id(g)))
                found.extend(attr_handles(g, seen))
    return found


def _all_outputs(g):
    return [t for op in g.get_operations() for t in op.outputs]


def _np_dtype(t):
    d = t.dtype
    if d in _NON_ARRAY or d._np is None:
        return None
    return d._np


class LoweringContext:
    """What the lowering rules share while one computation is traced: the
    variables' current values (by slot), the PRNG key, and the helpers of
    framework/lowering.py's docstring."""

    def __init__(self, variables=None, key=None):
        # slot -> current value of the variable (a JAX array)
        self.variables = dict(variables or {})
        self.written = set()
        self.key = key
        self.uses_key = False
        self.callbacks = False   # whether host callbacks (tf.print, asserts) were staged
        # id(storage) -> slot of the storages ops hold in attrs (attr_handles).
        self.handle_slots = {}

    # --- state ------------------------------------------------------------
    def state(self):
        """The threaded state as a pytree: (variable values by slot, key)."""
        return (dict(self.variables), self.key)

    def set_state(self, state):
        """Replaces the threaded state (the result of a control-flow op)."""
        variables, self.key = state
        self.variables = dict(variables)

    def read(self, ref):
        """The current value of the variable `ref` (a VarRef)."""
        try:
            return self.variables[ref.slot]
        except KeyError:
            raise errors.FailedPreconditionError(
                None, None, "Could not read variable %s in compiled code: it is not "
                "initialized." % ref.name) from None

    def write(self, ref, value):
        """Sets the variable `ref` to `value` (written back after the call)."""
        old = self.variables.get(ref.slot)
        if old is not None and hasattr(old, "dtype") and value.dtype != old.dtype:
            value = L.jnp.asarray(value, old.dtype)
        self.variables[ref.slot] = value
        self.written.add(ref.slot)

    def handle_ref(self, storage):
        """The VarRef of a variable storage an op holds in an attr."""
        slot = self.handle_slots.get(id(storage))
        if slot is None:
            raise errors.InvalidArgumentError(
                None, None, "The state of %s is not an input of this computation"
                % getattr(storage, "name", "a variable"))
        return VarRef(slot, getattr(storage, "name", "variable"))

    def next_key(self):
        """A fresh PRNG key (raw uint32[2]); the threaded key advances."""
        self.uses_key = True
        self.key, sub = L.jax.random.split(self.key)
        return sub

    # --- static values ------------------------------------------------------
    def static(self, op, index, value):
        """`value`, input `index` of `op`, as a NumPy value.

        Raises:
          InvalidArgumentError: when it is only known at run time (as
            TensorFlow: "... must be a compile-time constant").
        """
        if _is_static(value):
            return value
        c = op.inputs[index]._const
        if c is not None:
            return np.asarray(c)
        raise StaticValueError(None, op, _not_constant(op, index))

    def is_static(self, value):
        """Whether `value` is known at compile time (a NumPy value)."""
        return _is_static(value)

    # --- graphs ----------------------------------------------------------------
    def call(self, graph, values, outputs=None):
        """The values of `outputs` (default: the graph's outputs) of a function
        graph whose inputs take `values`, lowered here with the state
        threaded."""
        outputs = graph.outputs if outputs is None else outputs
        env = {}
        for ph, v in zip(graph.inputs, values):
            env[id(ph)] = v
        return self.run(graph, env, outputs)

    def run(self, graph, env, outputs):
        """Lowers the ops of `graph` computing `outputs` (and its stateful
        ops) given the values in `env` (tensor id -> value)."""
        wanted = [t for t in outputs if t is not None]
        for op in needed_ops(graph.get_operations(), wanted):
            if op.type == "Placeholder":
                t = op.outputs[0]
                if id(t) not in env:
                    if t._const is None:
                        raise errors.InvalidArgumentError(
                            None, op, "You must feed a value for placeholder tensor '%s'"
                            % op.name)
                    env[id(t)] = np.asarray(t._const)
                continue
            if op.type == "NoOp":
                continue
            if op.type == "Const":
                env[id(op.outputs[0])] = _const_value(op)
                continue
            ins = [env[id(t)] for t in op.inputs]
            outs = self.lower_op(op, ins)
            for t, v in zip(op.outputs, outs):
                env[id(t)] = v
        return [None if t is None else env[id(t)] for t in outputs]

    def lower_op(self, op, ins):
        """The output values of one op, from its input values."""
        opdef = op.opdef
        if not opdef.stateful and not opdef.no_fold and ins and \
                all(_is_static(v) for v in ins) and _foldable(op, ins):
            try:
                out = opdef.kernel(*ins, **op.attrs)
            except Exception:  # noqa: BLE001 - lowered instead; it fails at run time
                pass
            else:
                outs = list(out) if op.multi else [out]
                if all(np.size(v) <= FOLD_LIMIT for v in outs):
                    return [_cast(np.asarray(v), t) for v, t in zip(outs, op.outputs)]
        rule = opdef.lower
        if rule is None:
            raise errors.InvalidArgumentError(None, op, "no XLA lowering for %s" % op.type)
        if isinstance(rule, str):
            out = L.resolve(rule)(*ins)
        else:
            out = rule(self, op, *ins)
        # A rule returns a list for an op with several (or no) outputs.
        if isinstance(out, (list, tuple)):
            outs = list(out)
        elif out is None and not op.outputs:
            outs = []
        else:
            outs = [out]
        return [_cast(v, t) for v, t in zip(outs, op.outputs)]

    # --- control flow ------------------------------------------------------------
    def switch(self, index, branches, partial=False):
        """`lax.switch(index, ...)` over the zero-argument functions `branches`
        (each returns a list of values and may read and write the state
        through this context), with the state threaded. A static index runs
        its branch alone. With `partial`, an output a branch does not compute
        (None) is zeros shaped as the branch that computes it gives it."""
        if _is_static(index):
            i = int(np.clip(int(np.asarray(index)), 0, len(branches) - 1))
            return branches[i]()
        state = self.state()

        def run(fn, fill=None):
            def branch(st):
                self.set_state(st)
                outs = list(fn())
                if fill is not None:
                    outs = [L.jnp.zeros(fill[k].shape, fill[k].dtype) if o is None else o
                            for k, o in enumerate(outs)]
                return outs, self.state()
            return branch
        templates = None
        if partial and self._partial_outputs(branches, state):
            templates = self._templates
        outs, new_state = L.lax.switch(
            index, [run(fn, templates) for fn in branches], state)
        self.set_state(new_state)
        return outs

    def _partial_outputs(self, branches, state):
        """Whether some branch leaves an output to the others (None); sets
        `_templates` to the shapes and dtypes of every output."""
        self._templates = {}
        partial = False
        for fn in branches:
            def shapes(st, fn=fn):
                self.set_state(st)
                return [None if o is None else L.jnp.asarray(o) for o in fn()]
            try:
                outs = L.jax.eval_shape(shapes, state)
            finally:
                self.set_state(state)
            for k, o in enumerate(outs):
                if o is None:
                    partial = True
                else:
                    self._templates.setdefault(k, o)
        return partial

    def probe(self, fn, *args):
        """The shapes and dtypes `fn(*args)` gives (`jax.eval_shape`), with
        the state unchanged."""
        state = self.state()
        try:
            return L.jax.eval_shape(fn, *args)
        finally:
            self.set_state(state)

    def while_loop(self, cond, body, init):
        """`lax.while_loop(cond, body, init)` with the state threaded: `cond`
        and `body` take the carried values and may use this context."""
        def c(carry):
            vals, state = carry
            self.set_state(state)
            return L.jnp.asarray(cond(vals), bool).reshape(())

        def b(carry):
            vals, state = carry
            self.set_state(state)
            out = body(vals)
            return out, self.state()
        state = self.state()
        vals, new_state = L.lax.while_loop(c, b, (init, state))
        self.set_state(new_state)
        return vals


def _not_constant(op, index):
    return ("Input %d to node `%s` with op %s must be a compile-time constant.\n\nXLA "
            "compilation requires that operator arguments that represent shapes or "
            "dimensions be evaluated to concrete values at compile time. This error means "
            "that a shape or dimension argument could not be evaluated at compile time, "
            "usually because the value of the argument depends on a parameter to the "
            "computation, on a variable, or on a stateful operation such as a random number "
            "generator." % (index, op.name, op.type))


def _foldable(op, ins):
    """Whether to compute an op with all-static inputs now: its outputs are
    arrays, known to be small or (shape unknown to the graph) computed from
    small inputs, as shape arithmetic is."""
    if not op.outputs or any(_np_dtype(t) is None for t in op.outputs):
        return False
    if all(t.shape.is_fully_defined() and t.shape.num_elements() <= FOLD_LIMIT
           for t in op.outputs):
        return True
    return not any(t.shape.is_fully_defined() for t in op.outputs) and \
        sum(np.size(v) for v in ins) <= FOLD_LIMIT


def _const_value(op):
    v = op.attrs["value"]
    return np.asarray(v)


def _cast(v, t):
    """`v` with the dtype the graph declares for tensor `t`."""
    want = _np_dtype(t)
    if want is None or v is None or isinstance(v, (VarRef, TList)):
        return v
    if _is_static(v):
        return v if v.dtype == want else np.asarray(v).astype(want)
    if isinstance(v, (int, float, bool, complex)):
        return np.asarray(v, want)
    if v.dtype != want:
        return v.astype(want)
    return v
