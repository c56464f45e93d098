"""`tf.function(jit_compile=True)`: a function graph as one `jax.jit` computation.

`compile_function_graph` is what a ConcreteFunction (and the forward and
backward code of its gradient) compiles its graph with: XLA through JAX
when the function asks for it (`jit_compile=True`, or
`tf.config.optimizer.set_jit(True)` and every op lowers), else rillflow's
own code generator (codegen.py). The result has the interface of a
`CompiledGraph`: `fn(*input_values) -> output values`.

An `XlaCompiledGraph` lowers the graph once per pattern of variable
arguments (xla_lower.py) and lets `jax.jit` cache the compiled program per
input shapes. A call passes the variables' current values as arguments,
writes the new values of the variables the graph assigned back into their
handles, and keeps the PRNG key of the stateful random ops between calls.
"""
import hashlib
import sys
import threading

import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from ..framework import lowering as L
from ..framework import placement as _placement
from ..framework.convert import ALIGNED_BYTES as aligned_copy_min_bytes, aligned_copy
from ..framework.api_export import export
from ..framework.lowering_values import TList, VarRef
from ..framework import tensor as _tensor
from .codegen import compile_graph
from ..ops.control_flow.list_ops import TensorListValue
from ..ops.state.resource_ops import ResourceHandle
from .xla_lower import LoweringContext, StaticValueError, attr_handles, subgraphs, \
    unsupported_ops

__all__ = ["XlaCompiledGraph", "compile_function_graph", "wants_xla", "unsupported_error",
           "set_jit", "get_jit"]

_jit_everywhere = [False]


@export("config.optimizer.set_jit")
def set_jit(enabled):
    """Configures JIT compilation (`tf.config.optimizer.set_jit`): with
    `"autoclustering"` (or True), every `tf.function` whose ops all have XLA
    lowerings runs as one XLA computation through JAX; functions with
    `jit_compile=False` never do. False or "" turns it off."""
    _jit_everywhere[0] = enabled is True or enabled == "autoclustering"


@export("config.optimizer.get_jit")
def get_jit():
    """The JIT configuration: "autoclustering" when `set_jit` turned it on, else ""."""
    return "autoclustering" if _jit_everywhere[0] else ""


def wants_xla(graph):
    """True (compile with XLA, or fail), None (XLA where every op lowers) or
    False (never), for a function graph, given JAX is installed."""
    option = getattr(graph, "jit_compile_option", None)
    if option is False or not L.available():
        return False
    if option:
        return True
    return None if _jit_everywhere[0] else False


def compile_function_graph(graph, inputs, outputs, name=None):
    """Compiles a function graph: with XLA where `wants_xla` says so, else
    with rillflow's code generator (codegen.compile_graph).

    Raises:
      InvalidArgumentError: under `jit_compile=True`, for ops that have no
        XLA lowering (TensorFlow's "Detected unsupported operations").
    """
    want = wants_xla(graph)
    if want is not False:
        bad = unsupported_ops(graph, outputs)
        if not bad:
            return XlaCompiledGraph(graph, inputs, outputs, name or graph.name)
        if want:
            raise unsupported_error(getattr(graph, "function_name", graph.name), bad)
    return compile_graph(graph, inputs, outputs, name=name)


def _device_name():
    try:
        platform = L.load().default_backend()
    except Exception:  # noqa: BLE001 - the message only names the device
        platform = "cpu"
    return "XLA_GPU_JIT" if platform in ("gpu", "cuda", "rocm") else "XLA_CPU_JIT"


def unsupported_error(function_name, bad):
    """TensorFlow's error for a graph with ops XLA cannot compile."""
    device = _device_name()
    graph = "%s[_XlaMustCompile=true]" % function_name
    entries = []
    for op, type_name in bad:
        node = "{{node %s}}" % op.name
        entries.append("%s (No registered '%s' OpKernel for %s devices compatible with node "
                       "%s)%s" % (type_name, type_name, device, node, node))
    where = ""
    loc = bad[0][0].location
    if loc is not None:
        where = "\nThe op is created at: \nFile \"%s\", line %d, in %s" % (
            loc.filename.lstrip("/"), loc.lineno, loc.name)
    msg = ("Detected unsupported operations when trying to compile graph %s on %s: %s%s\n"
           "\ttf2xla conversion failed while converting %s. Run with "
           "TF_DUMP_GRAPH_PREFIX=/path/to/dump/dir and --vmodule=xla_compiler=2 to obtain a "
           "dump of the compiled functions. [Op:%s]" % (
               graph, device, ", ".join(entries), where, graph, function_name))
    return errors.InvalidArgumentError(None, bad[0][0], msg)


def _initial_key(graph):
    """The first PRNG key of a function: from the graph's seeds when any is
    set (so seeded programs repeat), else from fresh entropy."""
    seeds = []
    stack = [graph]
    seen = set()
    while stack:
        g = stack.pop()
        if id(g) in seen:
            continue
        seen.add(id(g))
        for op in g.get_operations():
            s = op.attrs.get("seed"), op.attrs.get("seed2")
            if isinstance(s[0], (int, np.integer)) and (s[0] or s[1]):
                seeds.append((op.type, int(s[0]), int(s[1] or 0)))
            stack.extend(subgraphs(op))
    if seeds or getattr(graph, "seed", None) is not None:
        digest = hashlib.sha256(repr((graph.seed, sorted(seeds))).encode()).digest()
        words = np.frombuffer(digest[:8], np.uint32)
    else:
        words = np.random.SeedSequence().generate_state(2, np.uint32)
    return np.array(words, np.uint32)


class XlaCompiledGraph:
    """A function graph compiled with XLA (through `jax.jit`).

    Attributes:
      fn: the callable, `fn(*input_values) -> tuple of output values`
        (variable arguments are their handles, as for a CompiledGraph).
      source: a description (the program text is per input shapes: see
        `lowered_text`).
      name: the graph's name.
    """

    def __init__(self, graph, inputs, outputs, name):
        self.graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.name = name
        self.filename = "<xla %s>" % name
        self.line_ops = {}
        self.source = ("# %s: compiled with XLA through jax.jit (jit_compile=True); "
                       "see lowered_text(*args) for the program\n" % name)
        self._is_var = [t.dtype is D.resource for t in self.inputs]
        # Variable storages ops hold in attrs (a tf.random.Generator's state):
        # passed and written back as the variable inputs are, after them.
        self._extra = attr_handles(graph)
        self._n_input_vars = sum(self._is_var)
        self._any_var = any(self._is_var) or bool(self._extra)
        self._jitted = {}
        # A device array: passed each call without a transfer.
        self._key = L.load().numpy.asarray(_initial_key(graph))
        self._has_callbacks = False
        self._uses_key = False
        self._jitted_once = False   # whether a call has traced (found _uses_key)
        # Positions (among the array arguments) of the compile-time constant
        # arguments: set when a trace needed one (_with_constant_arguments).
        self._static = ()
        # Outputs that are arrays (no tensor lists, no None) leave as NumPy
        # arrays directly.
        self._plain_outputs = all(t is not None and t.dtype not in (D.variant, D.resource)
                                  for t in self.outputs)
        self._lock = threading.Lock()
        # A graph without variables whose outputs are arrays first tries one
        # program of the arrays alone (`_flat_jit`): a call is then JAX's
        # call and little else (`_plain_call`). None once the general call
        # is needed (a PRNG key, host callbacks, compile-time constants).
        plain = not self._any_var and self._plain_outputs
        self._plain = plain
        self._flat = self._flat_jit() if plain else None
        self.fn = self._plain_call() if plain else self.__call__

    def _variables(self, vals):
        """(array arguments, handles by slot, slot of each resource input and
        then of each storage in `_extra`)."""
        arrays, handles, slots, by_id = [], [], [], {}
        for is_var, v in zip(self._is_var, vals):
            if is_var:
                slot = by_id.get(id(v))
                if slot is None:
                    slot = by_id[id(v)] = len(handles)
                    handles.append(v)
                slots.append(slot)
            else:
                arrays.append(v)
        for h in self._extra:
            slot = by_id.get(id(h))
            if slot is None:
                slot = by_id[id(h)] = len(handles)
                handles.append(h)
            slots.append(slot)
        return arrays, handles, tuple(slots)

    def computation(self, slots, names):
        """The pure function of this graph for one aliasing of its variable
        inputs: `(arrays, variable values by slot, key) -> (outputs, written
        variables by slot, key)`."""
        def fn(arrays, var_values, key):
            ctx = LoweringContext({s: v for s, v in var_values.items() if v is not None},
                                  L.jnp.asarray(key))
            ctx.handle_slots = {id(h): s for h, s in
                                zip(self._extra, slots[self._n_input_vars:])}
            env = {}
            it = iter(arrays)
            k = 0
            for t, is_var in zip(self.inputs, self._is_var):
                if is_var:
                    env[id(t)] = VarRef(slots[k], names[k])
                    k += 1
                else:
                    env[id(t)] = next(it)
            outs = ctx.run(self.graph, env, self.outputs)
            if ctx.callbacks:
                self._has_callbacks = True
            if ctx.uses_key:
                self._uses_key = True
            written = {s: ctx.variables[s] for s in sorted(ctx.written)}
            return outs, written, ctx.key
        return fn

    def _flat_computation(self, slots, names, n_handles, statics=None):
        """The function `jax.jit` compiles for one aliasing of the variable
        inputs: `(arrays, variable values by slot, key) -> (outputs, written
        value or None by slot, new key or None)`. Tuples and None (no
        leaves) keep JAX's argument and result handling at its cheapest;
        a key a graph does not use is pruned from the program. `statics`
        holds the values of the compile-time constant arguments (by their
        positions in `_static`), which the jitted function does not take."""
        pure = self.computation(slots, names)
        positions = self._static

        def fn(arrays, var_values, key):
            if statics is not None:
                arrays = list(arrays)
                for i, v in zip(positions, statics):
                    arrays.insert(i, v)
            outs, written, new_key = pure(
                arrays, {s: v for s, v in enumerate(var_values)}, key)
            return (tuple(outs), tuple(written.get(s) for s in range(n_handles)),
                    new_key if self._uses_key else None)
        return fn

    def _jit_for(self, slots, handles, statics=None, cache_key=None):
        cache_key = slots if cache_key is None else cache_key
        fn = self._jitted.get(cache_key)
        if fn is None:
            names = [getattr(handles[s], "name", "variable") for s in slots]
            fn = self._jitted[cache_key] = L.load().jit(
                self._flat_computation(slots, names, len(handles), statics))
        return fn

    def _prepare(self, vals):
        """(jitted function, array arguments, handles, variable values) of a
        call; the compile-time constant arguments select the function."""
        if self._any_var:
            arrays, handles, slots = self._variables(vals)
            var_values = tuple([_device_value(h) for h in handles])
        else:   # the common call of a function without variables: less to do
            arrays, handles, slots, var_values = vals, (), (), ()
        if self._static:
            statics = tuple(np.asarray(arrays[i]) for i in self._static)
            cache_key = (slots, tuple((v.dtype.str, v.shape, v.tobytes()) for v in statics))
            fn = self._jitted.get(cache_key) or self._jit_for(slots, handles, statics,
                                                              cache_key)
            skip = set(self._static)
            arrays = [a for i, a in enumerate(arrays) if i not in skip]
        else:
            fn = self._jitted.get(slots) or self._jit_for(slots, handles)
        return fn, tuple([_argument(a) for a in arrays]), handles, var_values

    def __call__(self, *vals):
        device = _placement.call_device()
        if device is not None:
            # A tf.device scope names a device other than JAX's default: the
            # arguments' device copies (uncommitted) move there.
            with L.load().default_device(device):
                return self._call(vals)
        return self._call(vals)

    def _call(self, vals):
        fn, arrays, handles, var_values = self._prepare(vals)
        try:
            if self._uses_key or not self._jitted_once:
                # The key moves on with each call: one call at a time.
                with self._lock:
                    outs, written, key = fn(arrays, var_values, self._key)
                    if key is not None:
                        self._key = key
                    self._jitted_once = True
            else:
                outs, written, _ = fn(arrays, var_values, self._key)
        except errors.InvalidArgumentError as e:
            if self._static or not _needs_constants(e):
                raise
            return self._with_constant_arguments(vals, e)
        if L.gpu_devices():
            # Host copies of the results a GPU computed: all started before
            # the first is waited for, so the transfers overlap.
            _accelerated[0] = True
            _copy_to_host_async(outs)
        if handles:
            for s, v in enumerate(written):
                if v is not None:
                    _store(handles[s], v)
        if self._has_callbacks:
            # Host callbacks (tf.print, assertions) have all run once this returns.
            L.load().effects_barrier()
            L.raise_pending()
        if self._plain_outputs:
            return tuple([_returned(o) for o in outs])
        return tuple([_host_value(o) for o in outs])

    def _with_constant_arguments(self, vals, error):
        """Retries a call whose tracing needed a value known at compile time
        (a shape, a loop's trip count) with the small integer arguments as
        compile-time constants, as TensorFlow's XLA does: one program per
        distinct value. `error` is raised where that does not help."""
        arrays = [v for v, is_var in zip(vals, self._is_var) if not is_var]
        candidates = tuple(i for i, a in enumerate(arrays) if _small_integers(a))
        if not candidates:
            raise error
        self._static = candidates
        self._jitted.clear()
        try:
            return self(*vals)
        except errors.InvalidArgumentError as again:
            if not _needs_constants(again):
                raise
            self._static = ()
            self._jitted.clear()
            raise error from None

    def _flat_jit(self):
        """The jitted `(*arrays) -> tuple of outputs` of a graph without
        variables: no key, no variable values, no written values (JAX's
        call handles the fewest arguments and results). Its trace raises
        `_NotFlat` for a graph that uses the PRNG key or host callbacks."""
        pure = self.computation((), [])
        unused_key = np.zeros(2, np.uint32)

        def fn(*arrays):
            outs, _, _ = pure(arrays, {}, unused_key)
            if self._uses_key or self._has_callbacks:
                raise _NotFlat()
            return outs[0] if single else tuple(outs)
        single = len(self.outputs) == 1
        return L.load().jit(fn)

    def inline_call(self, value_exprs, n_out, raise_expr="error", lazy=False, tensors=0):
        """Python source (a block indented by 4, and its globals) that calls
        `_flat` on the values of `value_exprs` when it can, for a caller to
        generate its calls with (`_plain_call`, function/fast_call.py): it
        returns `RET_H` (in which `h0`, `h1`... are the outputs' host
        arrays) or `RET_R` (`r`: the tuple of host arrays of a call that
        took the general path after `_flat` failed), or else falls through
        (inside a `tf.device` scope or once `_flat` is None) to the code
        after it. An error is raised as `raise_expr` (of `error`). None for
        a graph with variables or outputs that are not arrays. With `lazy`
        the `h` names are the outputs' device arrays, for tensors that make
        their host values when read (EagerTensor's `_d`): each is waited
        for, as a call's results are finished when it returns. The first
        `tensors` expressions are eager tensors, whose device arrays (`_d`:
        a result's, or the copy made when first passed) are passed."""
        if not self._plain:
            return None
        n_in = len(value_exprs)
        # Without GPUs every `tf.device` scope runs a call on JAX's default
        # device (placement.call_device): the scope needs no look.
        gpus = bool(L.gpu_devices())
        lines = ["    flat = xla_self._flat",
                 "    if flat is not None%s:" % (" and not xla_state.device" if gpus else "")]
        for i, expr in enumerate(value_exprs):
            if i < tensors:
                # A slot's read; the first call with the tensor finds (and
                # keeps) its device array.
                lines += ["        x%d = %s" % (i, expr),
                          "        try:",
                          "            d%d = x%d._d" % (i, i),
                          "        except AttributeError:",
                          "            d%d = xla_tensor_argument(x%d)" % (i, i)]
                continue
            # The cache's entry holds a NumPy scalar itself (its id cannot be
            # reused while held) or a weak reference to an array.
            lines += ["        x%d = %s" % (i, expr),
                      "        e = xla_get(id(x%d))" % i,
                      "        d%d = e[1] if e is not None and (e[0] is x%d or e[0]() is x%d) "
                      "else xla_argument(x%d)" % (i, i, i, i)]
        xs = ", ".join(("x%d._v" if i < tensors else "x%d") % i
                       for i in range(n_in)) + ("," if n_in == 1 else "")
        lines += ["        try:",
                  "            o = flat(%s)" % ", ".join("d%d" % i for i in range(n_in)),
                  "        except Exception as e:",
                  "            try:",
                  "                r = xla_self._flat_failed(e, (%s))" % xs,
                  "            except Exception as error:",
                  "                raise %s" % raise_expr,
                  "            return RET_R"]
        # Without GPUs a result's host array is a view of its device buffer
        # (JAX's CPU arrays), found again through its base: nothing to
        # remember.
        for j in range(n_out):
            o = "o" if n_out == 1 else "o[%d]" % j
            if lazy:
                # (a small computation is done when JAX's call returns)
                lines.append("        h%d = %s\n        if not h%d.is_ready():\n"
                             "            h%d.block_until_ready()" % (j, o, j, j))
                continue
            lines.append("        h%d = xla_asarray(%s)" % (j, o))
            if gpus:
                lines.append("        xla_keep(h%d, %s)" % (j, o))
        lines.append("        return RET_H")
        ns = {"xla_self": self, "xla_state": _placement._state, "xla_get": _immutable.get,
              "xla_argument": _argument, "xla_asarray": np.asarray, "xla_keep": _keep_result,
              "xla_tensor_argument": _tensor_argument}
        return "\n".join(lines) + "\n", ns

    def _plain_call(self):
        """`fn` of a graph without variable inputs whose outputs are arrays:
        the arguments' cached device arrays (or the host values) straight
        into `_flat`, the results' host arrays out; the general `__call__`
        inside a `tf.device` scope or once `_flat` is None. Generated for
        the graph's arity: no argument tuples, no loops."""
        n_out = len(self.outputs)
        names = ", ".join("a%d" % i for i in range(len(self.inputs)))
        block, ns = self.inline_call(["a%d" % i for i in range(len(self.inputs))], n_out)
        block = block.replace("RET_R", "r").replace(
            "RET_H", "(%s%s)" % (", ".join("h%d" % j for j in range(n_out)),
                                 "," if n_out == 1 else ""))
        src = "def call(%s):\n%s    return general(%s)\n" % (names, block, names)
        ns["general"] = self.__call__
        exec(compile(src, "<xla call %s>" % self.name, "exec"), ns)
        return ns["call"]

    def _flat_failed(self, error, vals):
        """A `_flat` call that raised `error`: a graph that needs the
        general call (a key, callbacks, compile-time constants) makes it
        from now on; other errors are the call's."""
        if isinstance(error, _NotFlat):
            self._flat = None
            return self(*vals)
        if isinstance(error, errors.InvalidArgumentError) and _needs_constants(error):
            self._flat = None
            if not self._static:
                return self._with_constant_arguments(vals, error)
        raise error

    def lowered_text(self, *vals):
        """The StableHLO text of the program for these input values."""
        fn, arrays, _, var_values = self._prepare(vals)
        return fn.lower(arrays, var_values, self._key).as_text()


# Integer arguments up to this many elements may become compile-time
# constants (shapes, sizes, trip counts; TensorFlow's constant arguments).
_CONSTANT_ARGUMENT_LIMIT = 64


def _small_integers(a):
    a = np.asarray(a)
    return a.dtype.kind in "iu" and a.size <= _CONSTANT_ARGUMENT_LIMIT


class _NotFlat(Exception):
    """Raised by the trace of `XlaCompiledGraph._flat` for a graph that
    needs the PRNG key or host callbacks (the general call)."""


def _needs_constants(error):
    """Whether a tracing error is a value XLA needs at compile time."""
    return isinstance(error, StaticValueError) or \
        "requires a fixed tensor list size" in str(getattr(error, "message", error))


# A variable's value lives on the host as a NumPy array (what eager code
# reads); the device array it came from is remembered in its storage's
# `device_entry` (host value, device array) so the next call passes it
# without a copy.


def _device_value(handle):
    if handle.__class__ is _PendingHost:
        return handle.device_entry[1]
    v = handle.value
    if v is None:
        return None
    cached = handle.device_entry
    if cached is not None and cached[0] is v:
        if cached[1] is not None:
            return cached[1]
        # The second call since an eager assignment left this value: it
        # gets a device copy (a variable read by compiled calls and never
        # written by them, say).
        if v.__class__ is not np.ndarray or v.dtype.hasobject or _aliased_per_call(v):
            return v
        dev = _device_copy(v)
        if L.gpu_devices():
            # The host value stays; read-only, so the copy stays equal to it
            # (an in-place scatter copies it first).
            v.flags.writeable = False
        else:
            # The host value becomes the view of the device buffer, as after
            # a compiled call wrote it (one copy of the value, not two).
            handle.value = v = np.asarray(dev)
        handle.device_entry = (v, dev)
        return dev
    # The first call since: remembered (a value an eager assignment made
    # is often used once: no copy yet).
    handle.device_entry = (v, None)
    return v


def _store(handle, value):
    cls = handle.__class__
    if _accelerated[0] and (cls is ResourceHandle or cls is _PendingHost) and _on_gpu(value):
        # Computed on a GPU: the host copy waits until eager code reads it,
        # so a loop of compiled steps never waits for its weights' transfer.
        handle.device_entry = (None, value)
        handle.__class__ = _PendingHost
        return
    host = np.asarray(value)
    handle.value = host
    handle.device_entry = (host, value)


# Whether JAX has GPUs (set on the first compiled call that finds some).
_accelerated = [False]


def _on_gpu(value):
    try:
        return next(iter(value.devices())) in L.gpu_devices()
    except AttributeError:  # a host value
        return False


_VALUE_SLOT = ResourceHandle.value


class _PendingHost(ResourceHandle):
    """A variable storage whose newest value is so far only on the device
    that computed it; reading `value` makes the host copy (once) and turns
    the storage back into a plain ResourceHandle. Same layout as its base,
    so `__class__` can switch both ways."""

    __slots__ = ()

    @property
    def value(self):
        """The host value, copied from the device on first read."""
        dev = self.device_entry[1]
        host = np.asarray(dev)
        _VALUE_SLOT.__set__(self, host)
        self.__class__ = ResourceHandle
        self.device_entry = (host, dev)
        return host

    @value.setter
    def value(self, v):
        _VALUE_SLOT.__set__(self, v)
        self.__class__ = ResourceHandle
        self.device_entry = None


# Host values that never change -> their device arrays, so that passing one
# to a compiled call again transfers nothing (a transfer costs about a
# microsecond, a third of JAX's own call, and a copy of every byte): the
# registry framework/placement.py keeps (`device_copies`): NumPy scalars
# (immutable, held there, so their id is not reused while cached), the
# read-only arrays results of compiled calls on a GPU are copied to, the
# tensors `tf.device` placed, and arrays passed to compiled calls a second
# time that nothing else can write (`_owned`; made read-only then). Arrays
# are held weakly, and an entry goes with its array (`_remember`); a cached
# array can never change, so an entry is never stale. Without GPUs a
# result's host array is a view of its device buffer and needs no entry
# (`_result_array`).
_immutable = _placement.device_copies
_IMMUTABLE_LIMIT = _placement.DEVICE_COPY_LIMIT
# Arrays passed once (id -> (weak reference, None)): the second time they
# are cached. Most arrays are passed once (a batch of data), and a device
# copy costs about 17 us of JAX's Python.
_seen = {}


_remember = _placement.remember


_cached = _placement.device_copy     # `a`'s device array in `_immutable`, or None


def _result_array(a):
    """The JAX array whose buffer host array `a` is (NumPy's view of a CPU
    result: its base is the memoryview of the JAX array), or None."""
    b = a.base
    if b.__class__ is memoryview:
        o = b.obj
        if isinstance(o, L.load().Array) and o.shape == a.shape and o.dtype == a.dtype:
            return o
    return None


def _owned(a):
    """Whether nothing but `a` can write into its buffer: `a` owns it, or
    its base (a buffer of its own, 64-byte aligned by convert.aligned_copy,
    say) is referenced by `a` alone. Tensors hold their own arrays (a
    writable NumPy array converted to a tensor is copied), and no kernel
    writes into a tensor's array."""
    b = a.base
    if b is None:
        return True
    # The references counted: a's base, `b`, and getrefcount's argument.
    return b.__class__ is np.ndarray and b.base is None and sys.getrefcount(b) <= 3


def _argument(a):
    """An argument of the jitted call: `a`'s cached device array, if any,
    else `a` (JAX transfers it), cached if it is passed a second time."""
    dev = _cached(a)
    if dev is not None:
        return dev
    if a.__class__ is np.ndarray:
        dev = _result_array(a)
        if dev is not None:
            return dev
        if not _owned(a) or a.dtype.hasobject or _aliased_per_call(a):
            return a
        e = _seen.get(id(a))
        if e is None or e[0]() is not a:
            _remember(_seen, a, None)
            return a
        _seen.pop(id(a), None)
        # Read-only from now on, so that the device copy always equals it.
        a.flags.writeable = False
        if a.base is not None:
            a.base.flags.writeable = False
        dev = _device_copy(a)
        _remember(_immutable, a, dev)
        return dev
    if isinstance(a, np.generic):
        if len(_immutable) >= _IMMUTABLE_LIMIT:
            _immutable.clear()
        dev = L.jnp.asarray(a)
        _immutable[id(a)] = (a, dev)
        return dev
    if not hasattr(a, "dtype"):
        return np.asarray(a)
    return a


def _tensor_argument(t):
    """`_argument` of eager tensor `t`'s value, kept as the tensor's `_d`
    when it is a device array or a host array passed as it is every call:
    tensors are immutable, so later calls pass it without a look-up."""
    x = t._v
    d = _argument(x)
    if d is not x and isinstance(d, L.load().Array) or \
            d is x and x.__class__ is np.ndarray and _aliased_per_call(x):
        # (a large aligned array JAX takes as it is: kept too, so that later
        # calls do not look it up again)
        t._d = d
    return d


def _aliased_per_call(a):
    """Whether host array `a` is passed as it is each call: a large one,
    64-byte aligned, on a machine without GPUs, whose buffer JAX takes
    itself (a microsecond; a cached copy would only double its memory)."""
    return a.nbytes >= aligned_copy_min_bytes and a.ctypes.data % 64 == 0 and \
        not L.gpu_devices()


def _device_copy(a):
    """A device array equal to host array `a` that does not refer to `a`:
    JAX's CPU `device_put` may take an aligned buffer itself, and a cached
    device array holding its host array would keep it alive for good."""
    if not L.gpu_devices():
        a = aligned_copy(a)
    return L.load().device_put(a)


def _keep_result(host, v):
    """Remembers device array `v` as the copy of `host`, a compiled call's
    result copied to the host (from a GPU): the next call passes `v`."""
    if host.__class__ is np.ndarray and not host.flags.writeable:
        _remember(_immutable, host, v)


def _returned(v):
    """The host array of a compiled call's output `v` (a device array),
    remembered as its device array's copy for the next call."""
    host = np.asarray(v)
    if host.base.__class__ is not memoryview or L.gpu_devices():
        # (with GPUs, `.device` of a result made on the CPU reads its entry)
        _keep_result(host, v)
    return host


_tensor.device_value_hook[0] = _returned


def _copy_to_host_async(values):
    for v in values:
        start = getattr(v, "copy_to_host_async", None)
        if start is not None:
            start()


def device_array(host):
    """The device array a compiled call passes for host value `host` without
    a transfer (its registered copy, or the JAX array whose buffer it is),
    or None."""
    dev = _cached(host)
    if dev is None and host.__class__ is np.ndarray:
        dev = _result_array(host)
    return dev


def _host_value(v):
    if v is None:
        return None
    if isinstance(v, TList):
        # A list leaving compiled code: rillflow's value of a list.
        n = int(np.asarray(v.length))
        buf = None if v.buffer is None else np.asarray(v.buffer)
        return TensorListValue(None if buf is None or i >= buf.shape[0] else buf[i]
                               for i in range(n))
    if isinstance(v, (np.ndarray, np.generic)):
        return v
    return np.asarray(v)
