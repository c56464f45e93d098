"""Graph -> Python source -> callable.

Each op becomes one line: a Python expression when the op's static dtypes
and shapes allow one (`a + b`, `x[i]`, `a @ b`, see specialize.py), else a
call of its NumPy kernel bound as a global, with attrs baked in as
literals. Values known at build time become constants; values are deleted
after their last use when they may be large. Control-flow ops emit their
own code (Python `if` / `while`) through `OpDef.codegen`.

Code generation plans every op first, then keeps only the ops the outputs
(and the stateful ops) need *given the plans* — so ops made redundant by a
specialization (the index arithmetic of a slice, say) disappear. The source
is registered with `linecache`, and each generated line maps back to its op
(and the op to the user's line).
"""
import inspect
import itertools
import keyword
import linecache
import re

import numpy as np

from . import (accumulate, broadcast_sink, fallback, fusion, in_place, kernel_fusion,
               loop_batch, loop_invariant, loop_lists, specialize)
from .plan import Plan
from ..framework import dtypes as D
from ..framework import errors
from . import runtime_errors

__all__ = ["CompiledGraph", "compile_graph", "needed_ops"]

_counter = itertools.count()
_IDENT = re.compile(r"[^0-9a-zA-Z_]")
# Values smaller than this many elements are not worth a `del`.
_DEL_THRESHOLD = 4096
_LITERAL_TYPES = (bool, int, float, str, bytes, type(None))


class CompiledGraph:
    """A graph compiled to a Python function.

    Attributes:
      fn: the callable, `fn(*input_values) -> tuple of output values`.
      source: the generated source text.
      filename: the pseudo file name the source is registered under.
      line_ops: generated line number -> Operation.
    """

    __slots__ = ("fn", "source", "filename", "line_ops", "name", "__weakref__")

    def __init__(self, fn, source, filename, line_ops, name):
        self.fn = fn
        self.source = source
        self.filename = filename
        self.line_ops = line_ops
        self.name = name


def needed_ops(graph_ops, outputs, keep_stateful=True, extra_ops=()):
    """The ops needed to compute `outputs` (and all stateful ops), in graph order.

    Pruning follows data and control inputs. Stateful ops are kept even when
    nothing depends on them, because their effects are the point.
    """
    needed = set()
    stack = [t.op for t in outputs if t is not None] + list(extra_ops)
    if keep_stateful:
        stack += [op for op in graph_ops if op.opdef.stateful]
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return [op for op in graph_ops if id(op) in needed]


def _is_literal(v):
    if isinstance(v, _LITERAL_TYPES):
        if isinstance(v, float) and not np.isfinite(v):
            return False
        return True
    if isinstance(v, (tuple, list)):
        return all(_is_literal(x) for x in v)
    return False


_PARAMS = {}


def _kernel_params(kernel):
    """The keyword attrs a kernel accepts: a set of names, or None for any."""
    try:
        return _PARAMS[kernel]
    except (KeyError, TypeError):
        pass
    try:
        sig = inspect.signature(kernel)
    except (TypeError, ValueError):  # NumPy ufuncs and builtins take no attrs
        names = frozenset()
    else:
        names = set()
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD:
                names = None
                break
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD):
                names.add(p.name)
        names = None if names is None else frozenset(names)
    try:
        _PARAMS[kernel] = names
    except TypeError:
        pass
    return names


class _Options:
    """Compiler switches; `optimize=False` emits one kernel call per op (for
    differential tests of the optimizations); `disabled` holds the names of
    single passes switched off (fallback.PASSES), as compile_graph does for a
    graph a pass failed on."""
    optimize = True
    disabled = frozenset()

    def on(self, name):
        """Whether optimization pass `name` runs."""
        return self.optimize and name not in self.disabled


options = _Options()


def _attr_key(attrs):
    parts = []
    for k in sorted(attrs):
        v = attrs[k]
        if isinstance(v, np.ndarray):
            v = (v.dtype.str, v.shape, v.tobytes()) if v.dtype.kind != "O" else None
        elif not isinstance(v, (int, float, str, bytes, bool, tuple, type(None))) and \
                not hasattr(v, "as_numpy_dtype") and not hasattr(v, "as_list"):
            return None  # functions, objects: never merged
        parts.append((k, v if not isinstance(v, list) else tuple(v)))
    try:
        hash(tuple(parts))
    except TypeError:
        return None
    return tuple(parts)


def _input_key(t, subst):
    c = t._const
    if c is not None and getattr(c, "size", 99) <= 16 and c.dtype.kind in "biufc":
        return ("const", c.dtype.str, c.shape, np.asarray(c).tobytes())
    return id(t)


def _cse(ops, plans):
    """Common subexpressions: a pure op equal to an earlier one (same type,
    inputs and attrs) is dropped, and its outputs stand for the earlier op's.

    Returns {id(dropped tensor): the tensor used instead}.
    """
    subst = {}
    seen = {}
    for op in ops:
        p = plans[id(op)]
        if op.opdef.stateful or p.kind in ("hook", "const") or op.type == "Placeholder" \
                or not op.outputs or op.control_inputs:
            continue
        ak = _attr_key(op.attrs)
        if ak is None:
            continue
        key = (op.type, tuple(_input_key(subst.get(id(t), t), subst) for t in op.inputs), ak)
        first = seen.get(key)
        if first is None:
            seen[key] = op
            continue
        for mine, theirs in zip(op.outputs, first.outputs):
            subst[id(mine)] = subst.get(id(theirs), theirs)
    return subst


def plan_op(op):
    """The Plan of one op."""
    outs = op.outputs
    if outs and not op.opdef.stateful and all(t._const is not None for t in outs):
        return Plan(op, "const")
    if op.opdef.codegen is not None:
        return Plan(op, "hook", inputs=op.inputs)
    if op.type == "Identity" and outs:
        return Plan(op, "alias", inputs=op.inputs)
    rewrite = specialize.graph_rewrite(op)
    if rewrite is not None:   # TensorFlow's graph semantics, optimized or not
        kind, template, inputs = rewrite
        return Plan(op, kind, template, inputs)
    if not options.on("specialize"):
        return Plan(op, "kernel", inputs=op.inputs)
    spec = specialize.specialize(op)
    if spec is not None:
        kind, template, inputs = spec
        return Plan(op, kind, template, inputs)
    return Plan(op, "kernel", inputs=op.inputs)


def select(ops, outputs, keep=(), keep_stateful=True, extra_ops=(), input_ids=(),
           subst=None):
    """The plans needed for `outputs`, `keep` and stateful ops, in order.

    With optimizations on, `subst` (a dict) receives the tensor
    substitutions of common-subexpression elimination.
    """
    plans = {id(op): plan_op(op) for op in ops}
    local = _cse(ops, plans) if options.on("cse") else {}
    if subst is not None:
        subst.update(local)
    if local:
        for p in plans.values():
            p.inputs = [local.get(id(t), t) for t in p.inputs]
        outputs = [local.get(id(t), t) if t is not None else None for t in outputs]
        keep = [local.get(id(t), t) for t in keep]
    by_id = {id(op): op for op in ops}
    needed = set()
    stack = [t.op for t in list(outputs) + list(keep) if t is not None] + list(extra_ops)
    if keep_stateful:
        stack += [op for op in ops if op.opdef.stateful]
    while stack:
        op = stack.pop()
        if id(op) in needed or id(op) not in by_id:
            continue
        needed.add(id(op))
        p = plans[id(op)]
        stack.extend(t.op for t in p.inputs if id(t) not in input_ids)
        stack.extend(op.control_inputs)
    return [plans[id(op)] for op in ops if id(op) in needed]


class Emitter:
    """Builds the source of one function: names, globals and lines.

    Control-flow codegen hooks use `emit`, `value`, `new_name`, `global_for`
    and `emit_block` to generate nested blocks.
    """

    def __init__(self, name):
        self.name = name
        self.lines = []
        self.line_ops = {}
        self.globals = {"__name__": "rillflow.generated", "__builtins__": __builtins__,
                        "np": np}
        self.names = {}            # id(tensor) -> expression
        self._used = set(keyword.kwlist) | {"None", "True", "False", "np"}
        self._global_ids = {}
        self.indent = 1
        self.last_use = {}
        self.aliased = set()
        self.fused_sources = []
        self.subst = {}   # id(tensor) -> equal tensor computed instead (CSE)
        # in_place.py: ids of tensors whose buffers this code allocated, of
        # tensors read only by ops that never return an input, and of
        # tensors that must outlive the current block.
        self.owned = set()
        self.safe_readers = set()
        self.protected = set()
        # fusion.py: fused chains on this thread only (the graph calls BLAS).
        self.serial_chunks = False

    def sharing(self, name):
        """A new Emitter for a function of its own (a fused kernel, fusion.py)
        that shares this one's globals, names and substitutions: kernels and
        constants are bound once, and no name is used twice."""
        inner = Emitter(name)
        inner.globals = self.globals
        inner._used = self._used
        inner._global_ids = self._global_ids
        inner.subst = self.subst
        inner.serial_chunks = self.serial_chunks
        return inner

    def new_name(self, base):
        """A fresh identifier derived from `base`."""
        base = _IDENT.sub("_", base) or "t"
        if base[0].isdigit():
            base = "_" + base
        name = base
        i = 1
        while name in self._used or name in self.globals:
            name = "%s_%d" % (base, i)
            i += 1
        self._used.add(name)
        return name

    def global_for(self, value, base):
        """A global name bound to `value` (one per distinct object, and one per
        distinct small constant value)."""
        key = id(value)
        if isinstance(value, (np.ndarray, np.generic)) and value.size <= 16 and \
                value.dtype.kind in "biufc":
            key = ("const", value.dtype.str, value.shape, np.asarray(value).tobytes())
        name = self._global_ids.get(key)
        if name is None:
            name = self.new_name(base)
            self.globals[name] = value
            self._global_ids[key] = (name, value)
            return name
        return name[0]

    def emit(self, text, op=None):
        """Adds a line at the current indentation."""
        self.lines.append("    " * self.indent + text)
        if op is not None:
            self.line_ops[len(self.lines) + 1] = op  # +1: the `def` line comes first

    def value(self, tensor):
        """The expression holding `tensor`'s value."""
        t = self.subst.get(id(tensor), tensor)
        return self.names[id(t)]

    def attr_expr(self, op, key, v):
        """A literal or global reference for an attr value."""
        if _is_literal(v):
            return repr(v)
        return self.global_for(v, "%s_%s" % (op.name, key))

    def emit_plans(self, plans, protected=()):
        """Emits straight-line code for the plans (in order), freeing large
        values after their last use (ids in `protected` are never freed)."""
        if options.on("accumulate"):
            plans = accumulate.accumulate_sums(plans)
        saved = self.last_use, self.safe_readers, self.protected
        last = {}
        for p in plans:
            for t in p.inputs:
                last[id(t)] = p.op
        self.last_use = last
        self.safe_readers = in_place.safe_readers(plans)
        self.protected = protected
        try:
            for p in plans:
                self.emit_plan(p)
                self._free_after(p, protected)
        finally:
            self.last_use, self.safe_readers, self.protected = saved

    def block_plans(self, graph, input_exprs, outs, keep=()):
        """Binds a nested graph's inputs to `input_exprs` and returns the plans
        needed for the tensors `outs` and `keep` (before fusion)."""
        for ph, expr in zip(graph.inputs, input_exprs):
            self.names[id(ph)] = expr
        ins = {id(t) for t in graph.inputs}
        plans = select(graph.get_operations(), outs, keep, input_ids=ins, subst=self.subst)
        plans = [p for p in plans if not (p.op.type == "Placeholder" and
                                          all(id(o) in ins for o in p.op.outputs))]
        for p in plans:
            if p.op.type == "Placeholder":
                raise _unfed(p.op)
        return plans

    def prepare_loop_body(self, graph, input_exprs, outputs, keep, loop):
        """Plans a `while` body before the loop is emitted, so that work the
        iterations share can run once: ops indexed by the loop counter run
        stacked ahead of the loop (loop_batch.py), loop-invariant ops in the
        first iteration only (loop_invariant.py), and writes to the loop's
        own tensor lists change them in place (loop_lists.py). `loop` describes the loop:
        cond_graph, cond_out, inits (tensors) and body_outs.

        Returns `(plans, hoisted)` for `emit_block`.
        """
        outs = [t for _, t in outputs if t is not None]
        plans = self.block_plans(graph, input_exprs, outs, keep)
        if options.on("loop_batch"):
            plans = loop_batch.batch_induction_ops(self, graph, plans, outs, keep, loop)
        if options.on("loop_lists"):
            plans = loop_lists.write_lists_in_place(self, graph, plans, keep, loop,
                                                    input_exprs)
        if not options.on("loop_invariant"):
            return plans, None
        invariant, plans = loop_invariant.split_invariant(graph, plans, loop)
        if not invariant:
            return plans, None
        flag = self.new_name("first_iteration")
        self.emit("%s = True" % flag)
        return plans, (flag, invariant)

    def emit_block(self, graph, input_exprs, outputs, simultaneous=False, keep=(),
                   epilogue=None, plans=None, hoisted=None):
        """Emits the body of a nested graph (a branch or loop body) inline.

        `input_exprs` are the expressions bound to the graph's inputs;
        `outputs` are (target name, tensor or None) pairs assigned at the end
        (in one tuple assignment when `simultaneous`, as loop variables need);
        tensors in `keep` stay alive to the end of the block; `epilogue(self)`
        emits extra lines after the body, before the output assignment;
        `plans` are the block's plans when already made, and `hoisted` a
        (flag name, plans) pair of plans to run only while the flag is set
        (both from prepare_loop_body). Returns the number of lines emitted.
        """
        start = len(self.lines)
        outs = [t for _, t in outputs if t is not None]
        if plans is None:
            plans = self.block_plans(graph, input_exprs, outs, keep)
        ins = {id(t) for t in graph.inputs}
        protected = ins | {id(self.subst.get(id(t), t)) for t in list(outs) + list(keep)}
        if hoisted is not None:
            flag, first = hoisted
            # Hoisted values live on through every later iteration.
            protected |= {id(t) for p in first for t in p.op.outputs}
            self.emit("if %s:" % flag)
            self.indent += 1
            self.emit("%s = False" % flag)
            if options.on("broadcast_sink"):
                first = broadcast_sink.sink(first, protected)
            if options.on("kernel_fusion"):
                first = kernel_fusion.join(first, protected)
            if options.on("fusion"):
                first = fusion.fuse(first, protected)
            self.emit_plans(first, protected)
            self.indent -= 1
        if options.on("broadcast_sink"):
            plans = broadcast_sink.sink(plans, protected)
        if options.on("kernel_fusion"):
            plans = kernel_fusion.join(plans, protected)
        if options.on("fusion"):
            plans = fusion.fuse(plans, protected)
        self.emit_plans(plans, protected)
        if epilogue is not None:
            epilogue(self)
        pairs = [(target, "None" if t is None else self.value(t)) for target, t in outputs]
        pairs = [(a, b) for a, b in pairs if a != b]
        if simultaneous and len(pairs) > 1:
            self.emit("%s = %s" % (", ".join(a for a, _ in pairs), ", ".join(b for _, b in pairs)))
        else:
            for target, expr in pairs:
                self.emit("%s = %s" % (target, expr))
        return len(self.lines) - start

    def _free_after(self, plan, protected):
        dead = []
        for t in plan.inputs:
            if self.last_use.get(id(t)) is plan.op and id(t) not in protected and \
                    id(t) not in self.aliased:
                n = t.shape.num_elements()
                if (n is None or n >= _DEL_THRESHOLD) and id(t) in self.names:
                    expr = self.names[id(t)]
                    if expr.isidentifier() and expr not in self.globals and expr not in dead:
                        dead.append(expr)
        if dead:
            self.emit("del " + ", ".join(dead))

    def kernel_call(self, op, args, kernel=None, base=None):
        """The call of `op`'s kernel (or of `kernel`, a replacement with the
        same parameters, bound as `base`) on the expressions `args`, attrs
        baked in."""
        kernel = self.global_for(kernel or op.opdef.kernel, base or "k_" + op.type)
        args = list(args)
        accepted = _kernel_params(op.opdef.kernel)
        for k, v in op.attrs.items():
            if accepted is not None and k not in accepted:
                continue
            if accepted is None and k == "_grad_fn":
                continue
            args.append("%s=%s" % (k, self.attr_expr(op, k, v)))
        return "%s(%s)" % (kernel, ", ".join(args))

    def emit_plan(self, plan):
        """Emits the line(s) computing one op."""
        op = plan.op
        outs = op.outputs
        kind = plan.kind
        if kind == "const":
            for t in outs:
                self.names[id(t)] = self.global_for(t._const, op.name)
            return
        if kind == "hook":
            op.opdef.codegen(self, op)
            return
        if kind == "fused":
            fusion.emit_fused(self, plan)
            in_place.note_result(self, plan)
            return
        if kind == "joined":
            buffer = in_place.joined_out(self, plan) if options.on("in_place") else None
            kernel_fusion.emit_joined(self, plan, buffer)
            in_place.note_result(self, plan)
            return
        if kind == "alias":
            src = op.inputs[0]
            expr = self.value(src)
            if self.last_use.get(id(src)) is op and expr.isidentifier() and \
                    expr not in self.globals:
                # The input dies here: the output takes over its name.
                self.names[id(outs[0])] = expr
                self.aliased.add(id(src))
                return
            name = self.new_name(op.name)
            self.names[id(outs[0])] = name
            self.emit("%s = %s" % (name, expr), op)
            return
        if kind in ("expr", "stmt"):
            template = plan.template
            args = [self.value(t) for t in plan.inputs]
            if options.on("in_place") and in_place.try_emit(self, plan, args):
                return
            in_place.note_result(self, plan)
            code = template(self, args) if callable(template) else template.format(*args)
            if kind == "stmt" or not outs:
                self.emit(code, op)
            else:
                name = self.new_name(op.name)
                self.names[id(outs[0])] = name
                self.emit("%s = %s" % (name, code), op)
            return
        args = [self.value(t) for t in op.inputs]
        buffer = in_place.kernel_out(self, plan, args) if options.on("in_place") else None
        call = self.kernel_call(op, args)
        if buffer is not None:
            call = call[:-1] + ", out=%s)" % buffer
        in_place.note_result(self, plan)
        if not outs:
            self.emit(call, op)
        elif len(outs) == 1 and not op.multi:
            name = self.new_name(op.name)
            self.names[id(outs[0])] = name
            self.emit("%s = %s" % (name, call), op)
        else:
            names = [self.new_name("%s_%d" % (op.name, i)) for i in range(len(outs))]
            for t, n in zip(outs, names):
                self.names[id(t)] = n
            self.emit("%s, = %s" % (", ".join(names), call) if len(names) == 1 else
                      "%s = %s" % (", ".join(names), call), op)


def compile_graph(graph, inputs, outputs, name=None, ops=None, extra_ops=(),
                  keep_stateful=True):
    """Compiles the part of `graph` computing `outputs` from `inputs`.

    Args:
      graph: the Graph.
      inputs: placeholder tensors, in the order the callable takes values.
      outputs: tensors to return (None entries give None).
      ops: the candidate ops (default: all the graph's ops).
      extra_ops: further ops to run (v1 `Session.run` targets, initializers).
      keep_stateful: run every stateful op (functions) or only the needed
        ones (v1 sessions).

    Returns:
      A CompiledGraph. Where an optimization pass fails on the graph, the
      graph is compiled without it (fallback.py records which and why).

    Raises:
      InvalidArgumentError: for a placeholder nothing feeds.
    """
    args = (graph, inputs, outputs, name or "graph", ops, extra_ops, keep_stateful)
    try:
        return _compile(*args)
    except errors.OpError:
        raise   # the user's error (an unfed placeholder), not the compiler's
    except Exception as exc:  # noqa: BLE001 - any other failure is a pass's
        if not options.optimize or fallback.is_strict():
            raise
        return _compile_without_failing_pass(args, exc)


def _compile_without_failing_pass(args, exc):
    """Compiles again with one pass off at a time, then with every
    optimization off; records the pass that gave up. Raises `exc` when even
    the plain path fails (then the code generator itself is at fault)."""
    saved = options.disabled, options.optimize
    try:
        for name in fallback.PASSES:
            options.disabled = saved[0] | {name}
            try:
                compiled = _compile(*args)
            except errors.OpError:
                raise
            except Exception:  # noqa: BLE001 - not this pass alone; try the next
                continue
            fallback.record(args[3], name, exc)
            return compiled
        options.disabled, options.optimize = saved[0], False
        try:
            compiled = _compile(*args)
        except Exception:  # noqa: BLE001 - the plain path failing is the real error
            raise exc from None
        fallback.record(args[3], fallback.ALL, exc)
        return compiled
    finally:
        options.disabled, options.optimize = saved


def _compile(graph, inputs, outputs, name, ops, extra_ops, keep_stateful):
    em = Emitter(name)
    params = []
    for t in inputs:
        p = em.new_name(t.op.name)
        em.names[id(t)] = p
        params.append(p)
    input_ids = {id(t) for t in inputs}
    candidates = graph.get_operations() if ops is None else ops
    plans = select(candidates, [t for t in outputs if t is not None], (), keep_stateful,
                   extra_ops, input_ids, subst=em.subst)
    plans = [p for p in plans if not (p.op.type == "Placeholder" and
                                      all(id(o) in input_ids for o in p.op.outputs))]
    for p in plans:
        if p.op.type == "Placeholder":
            raise _unfed(p.op)
    protected = {id(em.subst.get(id(t), t)) for t in outputs if t is not None}
    if options.on("scalar_loop_inputs"):
        _scalar_loop_inputs(em, inputs, plans)
    if options.on("broadcast_sink"):
        plans = broadcast_sink.sink(plans, protected)
    if options.on("kernel_fusion"):
        plans = kernel_fusion.join(plans, protected)
    if options.on("fusion"):
        em.serial_chunks = fusion.chunks_serially(p.op for p in plans)
        plans = fusion.fuse(plans, protected)
    em.emit_plans(plans, protected)
    rets = ["None" if t is None else em.value(t) for t in outputs]
    em.emit("return (%s)" % (", ".join(rets) + ("," if len(rets) == 1 else "")))
    fname = em.new_name(_IDENT.sub("_", name))
    header = "def %s(%s):" % (fname, ", ".join(params))
    source = header + "\n" + "\n".join(em.lines) + "\n"
    if em.fused_sources:
        source += "\n\n" + "\n\n".join(em.fused_sources)
    filename = "<rillflow %s #%d>" % (name, next(_counter))
    code = compile(source, filename, "exec")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(em.globals)
    exec(code, namespace)
    compiled = CompiledGraph(namespace[fname], source, filename, em.line_ops, name)
    runtime_errors.register(compiled)
    return compiled


_LOOPS = ("While", "StatelessWhile")


def _scalar_loop_inputs(em, inputs, plans):
    """Scalar inputs that loops read become NumPy scalars on entry: a loop
    test like `i < n` with `n` a 0-d array costs ~0.8 us an iteration, with a
    NumPy scalar ~0.05 us (same values and dtypes either way)."""
    loop_reads = {id(t) for p in plans if p.op.type in _LOOPS for t in p.inputs}
    for t in inputs:
        d = t.dtype
        if id(t) in loop_reads and t.shape.rank == 0 and d._np is not None and \
                d._np.kind in "biuf" and d is not D.string:
            name = em.names[id(t)]
            # Internal callers (backward functions) may pass Python numbers.
            em.emit("%s = %s[()] if %s.__class__ is %s else %s" % (
                name, name, name, em.global_for(np.ndarray, "ndarray"), name))


def _unfed(op):
    return errors.InvalidArgumentError(
        None, op, "You must feed a value for placeholder tensor '%s' with dtype %s%s" % (
            op.name, op.get_attr("dtype").name,
            "" if op.get_attr("shape").rank is None else
            " and shape %s" % list(op.get_attr("shape"))))
