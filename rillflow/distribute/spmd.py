"""`strategy.run` over several replicas as one sharded JAX computation.

The replica function is traced once, as a `tf.function(jit_compile=True)`
of one replica's arguments, in a replica context whose `all_reduce` adds a
`ReplicaAllReduce` op (lowered to `lax.psum`/`pmean` over the mesh axis
"replica") and whose `replica_id_in_sync_group` is a `ReplicaId` op
(`lax.axis_index`). The traced graph is lowered to JAX as for
`jit_compile=True` (compiler/xla_lower.py) and wrapped in `jax.shard_map`
over the strategy's devices: per-replica arguments (`PerReplica`, stacked
over a first axis) are split along that axis, other arguments and the
variables' values are passed whole to every replica. One `jax.jit` runs
every replica at once; each output comes back stacked as a `PerReplica`.

Variables are mirrored by construction: the program gets one value per
variable and writes one back. A write made in a replica context is
aggregated as TensorFlow aggregates a mirrored variable's update: SUM and
MEAN variables all-reduce the assigned value or delta (the
`ops.state.variables.REPLICA_WRITE` hook); NONE and ONLY_FIRST_REPLICA keep
replica 0's value (the same on every replica once gradients were
all-reduced, which is how a training step updates them).

Called while an outer `tf.function` is traced, `run` adds one
`ReplicatedRun` op to the outer graph: uncompiled, its kernel calls the
jitted program; under an outer `jit_compile=True` its lowering nests the
`shard_map` in the outer computation.
"""
import threading
import weakref

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import lowering as L
from ..framework import nest
from ..framework.convert import convert_to_tensor
from ..framework.execute import apply
from ..framework.func_graph import CompositeOutput
from ..framework.indexed_slices import IndexedSlices, densify
from ..framework.lowering_values import VarRef
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..compiler.xla_compile import unsupported_error, _initial_key
from ..compiler.xla_lower import LoweringContext, unsupported_ops
from ..function.polymorphic_function import function as tf_function
from ..ops.state import variables as _variables
from .values import PerReplica

AXIS = "replica"
_state = _context.state


# --- the collective ops ------------------------------------------------------------------

def _all_reduce_kernel(x, reduce_op="SUM", group_size=1):
    # Outside the sharded program (a graph run by rillflow's executor) there is
    # one replica: its value is the reduction.
    return x


def _all_reduce_lower(ctx, op, x):
    if op.attrs["reduce_op"] == "MEAN":
        return L.lax.pmean(x, AXIS)
    return L.lax.psum(x, AXIS)


def _all_reduce_grad(op, g):
    return [all_reduce(op.attrs["reduce_op"], g, op.attrs["group_size"])]


_ReplicaAllReduce = register(
    "ReplicaAllReduce", _all_reduce_kernel,
    lambda inputs, attrs: [(inputs[0].shape, inputs[0].dtype)], _all_reduce_grad,
    no_fold=True, lower=_all_reduce_lower)


def _replica_id_lower(ctx, op):
    return L.lax.axis_index(AXIS)


_ReplicaId = register("ReplicaId", lambda: np.int32(0),
                      lambda inputs, attrs: [(TensorShape([]), D.int32)], no_fold=True,
                      lower=_replica_id_lower)


def all_reduce(reduce_op, value, group_size):
    """`value` (a tensor) summed or averaged over the replicas of the sharded
    program being traced."""
    if isinstance(value, IndexedSlices):
        value = densify(value)
    value = convert_to_tensor(value)
    return apply(_ReplicaAllReduce, [value], {"reduce_op": reduce_op,
                                               "group_size": group_size})


def replica_id():
    """This replica's index, as an int32 tensor of the program being traced."""
    return apply(_ReplicaId, [], {})


# --- one traced replica function, lowered and sharded --------------------------------------

class ReplicatedProgram:
    """A concrete function of one replica's arguments as a sharded JAX
    program (module docstring).

    `kinds` says, for each argument of the function, "r" (per replica:
    stacked over the first axis) or "c" (the same for every replica).
    """

    def __init__(self, runner, cf, kinds):
        graph = cf.graph
        bad = unsupported_ops(graph, graph.outputs)
        if bad:
            raise unsupported_error(getattr(graph, "function_name", graph.name), bad)
        L.load()
        self.runner = runner
        self.cf = cf
        self.graph = graph
        self.kinds = tuple(kinds)
        n_args = len(graph.inputs) - len(graph.captures)
        self.arg_inputs = graph.inputs[:n_args]
        self.captures = list(graph.captures)
        self.is_var = [internal.dtype is D.resource for _, internal in self.captures]
        self.var_names = [getattr(internal, "name", "variable")
                          for (_, internal), v in zip(self.captures, self.is_var) if v]
        for leaf in nest.flatten(graph.structured_outputs):
            if isinstance(leaf, CompositeOutput):
                raise NotImplementedError("strategy.run: a replica function returning a "
                                          "composite value (%r) is not supported with "
                                          "several replicas" % (leaf.template,))
        self.outputs = list(graph.outputs)
        handles = [ext._v if isinstance(ext, EagerTensor) else None
                   for (ext, _), v in zip(self.captures, self.is_var) if v]
        self.on_read = {s: ON_READ[h] for s, h in enumerate(handles)
                        if h is not None and h in ON_READ}
        self._key = _initial_key(graph)
        self._lock = threading.Lock()
        jax = L.load()
        if runner.mesh is None:
            # More replicas than devices: the replicas batched on one device
            # (`jax.vmap` with the axis name, so the collectives still apply).
            batched = jax.vmap(self._body, in_axes=(None, 0, None, None), out_axes=0,
                               axis_name=AXIS)

            def run(var_values, sharded, replicated, key):
                outs, written, key = batched(var_values, sharded, replicated, key)
                return outs, {s: v[0] for s, v in written.items()}, key[0]
            self.sharded = run
        else:
            P = jax.sharding.PartitionSpec

            def shard(var_values, sharded, replicated, key):
                outs, written, key = self._body(var_values, [x[0] for x in sharded],
                                                replicated, key)
                return [L.jnp.expand_dims(o, 0) for o in outs], written, key
            self.sharded = jax.shard_map(
                shard, mesh=runner.mesh, in_specs=(P(), P(AXIS), P(), P()),
                out_specs=(P(AXIS), P(), P()), check_vma=False)
        self.jitted = jax.jit(self.sharded)

    def _body(self, var_values, sharded, replicated, key):
        """One replica: its arguments (`sharded` without the replica axis) to
        (outputs, written variables by slot, key)."""
        n = self.runner.num_replicas
        local = {}
        for s, v in enumerate(var_values):
            if v is not None:
                local[s] = v / n if self.on_read.get(s) == "SUM" else v
        ctx = LoweringContext(local, key)
        env = {}
        si, ri = iter(sharded), iter(replicated)
        for t, kind in zip(self.arg_inputs, self.kinds):
            env[id(t)] = next(si) if kind == "r" else next(ri)
        slot = 0
        for (_, internal), is_var in zip(self.captures, self.is_var):
            if is_var:
                env[id(internal)] = VarRef(slot, self.var_names[slot])
                slot += 1
            else:
                env[id(internal)] = next(ri)
        flat = ctx.run(self.graph, env, self.outputs)
        outs = [L.jnp.asarray(o) for o in flat]
        written = {s: _aggregate(ctx.variables[s], self.on_read.get(s))
                   for s in sorted(ctx.written)}
        return outs, written, ctx.key

    def split_captured(self, captured):
        """(variables, constants) among the captured values, in slot order."""
        handles, constants = [], []
        for v, is_var in zip(captured, self.is_var):
            (handles if is_var else constants).append(v)
        return handles, constants

    # --- eager: the jitted program on host values -------------------------------------
    def call(self, sharded, replicated, captured):
        """Runs the program: `sharded` stacked arrays, `replicated` arrays,
        `captured` the captured values (variable storages or arrays);
        writes the variables; returns the stacked outputs (this process's
        replicas) and their global arrays."""
        handles, constants = self.split_captured(captured)
        r = self.runner
        r.sync_variables(handles)
        var_values = tuple(r.replicated(_device_value(h)) for h in handles)
        sharded = [r.sharded(np.asarray(a) if not hasattr(a, "sharding") else a)
                   for a in sharded]
        replicated = [r.replicated(np.asarray(a)) for a in list(replicated) + constants]
        with self._lock:
            outs, written, key = self.jitted(var_values, sharded, replicated,
                                             r.replicated(self._key))
            self._key = r.host(key)
        for s, v in written.items():
            _store(handles[s], v, r)
        return [r.local(o) for o in outs], outs

    # --- inside an outer compiled function ---------------------------------------------
    def lower(self, ctx, sharded, replicated, captured):
        """The outputs of the program nested in an outer lowering (`ctx`)."""
        refs, constants = self.split_captured(captured)
        var_values = tuple(ctx.read(ref) for ref in refs)
        outs, written, _ = self.sharded(var_values, list(sharded),
                                        list(replicated) + constants, ctx.next_key())
        for s, v in written.items():
            ctx.write(refs[s], v)
        return outs


def _aggregate(value, on_read):
    if on_read == "SUM":
        return L.lax.psum(value, AXIS)
    if on_read == "MEAN":
        return L.lax.pmean(value, AXIS)
    return value


def _device_value(handle):
    v = handle.value
    if v is None:
        return None
    cached = handle.device_entry
    if cached is not None and cached[0] is v and cached[1] is not None:
        return cached[1]
    return v


def _store(handle, value, runner):
    host = runner.host(value)
    handle.value = host
    if runner.single_process:
        # The next call passes the (replicated) device array without a copy.
        handle.device_entry = (host, value)


def _run_kernel(*vals, program, n_sharded, n_replicated):
    sharded = vals[:n_sharded]
    replicated = vals[n_sharded:n_sharded + n_replicated]
    captured = vals[n_sharded + n_replicated:]
    local, _ = program.call(sharded, replicated, captured)
    return [np.asarray(o) for o in local]


def _run_infer(inputs, attrs):
    n = attrs["program"].runner.num_local_replicas
    return [(TensorShape([n]).concatenate(t.shape), t.dtype) for t in attrs["program"].outputs]


def _run_lower(ctx, op, *vals):
    a = op.attrs
    ns, nr = a["n_sharded"], a["n_replicated"]
    return a["program"].lower(ctx, vals[:ns], vals[ns:ns + nr], vals[ns + nr:])


_ReplicatedRun = register("ReplicatedRun", _run_kernel, _run_infer, stateful=True,
                          lower=_run_lower)


# --- the runner: strategy.run --------------------------------------------------------------

class SpmdRunner:
    """Runs replica functions for a strategy over a JAX mesh.

    Args:
      strategy: the strategy (its `_make_replica_context` gives the
        context replica functions are traced in).
      devices: the JAX devices, one per replica, in replica order.
    """

    def __init__(self, strategy, devices):
        jax = L.load()
        self.strategy = strategy
        self.devices = list(devices)
        self.num_replicas = len(self.devices)
        if len(set(self.devices)) < len(self.devices):
            # Logical devices beyond JAX's (mirrored.jax_devices): batched replicas.
            self.mesh = None
            self.num_local_replicas = self.num_replicas
            self.single_process = True
            self._functions = {}
            self._synced = weakref.WeakSet()
            return
        self.mesh = jax.sharding.Mesh(np.array(self.devices, dtype=object), (AXIS,))
        pi = jax.process_index()
        self.local_devices = [d for d in self.devices if d.process_index == pi]
        self.num_local_replicas = len(self.local_devices)
        self.single_process = self.num_local_replicas == self.num_replicas
        P = jax.sharding.PartitionSpec
        self._rep = jax.sharding.NamedSharding(self.mesh, P())
        self._shard = jax.sharding.NamedSharding(self.mesh, P(AXIS))
        self._functions = {}
        self._synced = weakref.WeakSet()

    def sync_variables(self, handles):
        """Several processes: the variables' values as process 0 has them,
        the first time a program uses them (TensorFlow broadcasts initial
        values from the chief)."""
        if self.single_process:
            return
        new = [h for h in handles if h.value is not None and h not in self._synced]
        if not new:
            return
        from jax.experimental import multihost_utils
        values = multihost_utils.broadcast_one_to_all(tuple(np.asarray(h.value) for h in new))
        for h, v in zip(new, values):
            h.value = np.asarray(v)
            self._synced.add(h)

    # --- host <-> global arrays ----------------------------------------------------------
    def replicated(self, value):
        """`value` (the same on every process) as an input every replica gets."""
        if value is None or self.single_process:
            return value
        return L.load().make_array_from_process_local_data(self._rep, np.asarray(value))

    def sharded(self, local):
        """This process's stacked replicas as the global per-replica input."""
        if self.single_process or not isinstance(local, np.ndarray):
            return local
        shape = (self.num_replicas,) + local.shape[1:]
        return L.load().make_array_from_process_local_data(self._shard, local, shape)

    def host(self, value):
        """A replicated result as a NumPy array."""
        if self.single_process:
            return np.asarray(value)
        return np.asarray(value.addressable_data(0))

    def local(self, value):
        """A per-replica result: this process's replicas, stacked."""
        if self.single_process:
            return np.asarray(value)
        shards = sorted(value.addressable_shards, key=lambda s: s.index[0].start)
        return np.concatenate([np.asarray(s.data) for s in shards])

    # --- run ---------------------------------------------------------------------------
    def run(self, fn, args, kwargs):
        """`fn(*args, **kwargs)` on every replica (module docstring)."""
        structure = (tuple(args), dict(kwargs))
        flat = nest.flatten(structure)
        kinds, specs, values, static = [], [], [], []
        for leaf in flat:
            if isinstance(leaf, PerReplica):
                st = leaf._stacked
                kinds.append("r")
                specs.append(TensorSpec(st.shape[1:], st.dtype))
                values.append(leaf._global if leaf._global is not None else st)
                static.append(None)
            elif isinstance(leaf, (Tensor, np.ndarray, np.generic)) and \
                    not hasattr(leaf, "_storage"):
                t = convert_to_tensor(leaf)
                kinds.append("c")
                specs.append(TensorSpec(t.shape, t.dtype))
                values.append(t)
                static.append(None)
            else:
                kinds.append(None)
                static.append(leaf)
        function = self._function(fn, structure, kinds, static)
        cf = function.get_concrete_function(*specs)
        program = cf.__dict__.get("_rillflow_replicated")
        if program is None or program.runner is not self:
            program = ReplicatedProgram(self, cf, [k for k in kinds if k])
            cf.__dict__["_rillflow_replicated"] = program
        sharded = [v for v, k in zip(values, kinds) if k == "r"]
        replicated = [v for v, k in zip(values, kinds) if k == "c"]
        captured = [ext for ext, _ in program.captures]
        if _state.graph is None:
            vals = [_eager_value(v) for v in sharded]
            local, glob = program.call(vals, [v._v for v in replicated],
                                       [_eager_value(c) for c in captured])
            outs = [PerReplica(EagerTensor(o), g if not self.single_process else None)
                    for o, g in zip(local, glob)]
        else:
            ins = [convert_to_tensor(v) for v in sharded] + list(replicated) + \
                [_state.graph.capture(c) if isinstance(c, EagerTensor) else c
                 for c in captured]
            res = apply(_ReplicatedRun, ins, {"program": program, "n_sharded": len(sharded),
                                              "n_replicated": len(replicated)}, multi=True)
            outs = [PerReplica(t) for t in res]
        return _pack(cf.graph.structured_outputs, outs)

    def _function(self, fn, structure, kinds, static):
        try:
            key = (fn, nest.map_structure(lambda _: 0, structure).__repr__(), tuple(kinds),
                   tuple(s if _hashable(s) else ("id", id(s)) for s in static))
            hash(key)
        except TypeError:
            key = (id(fn), repr(structure), tuple(kinds))
        function = self._functions.get(key)
        if function is None:
            strategy = self.strategy

            def replica_fn(*tensors):
                it = iter(tensors)
                leaves = [next(it) if k else s for k, s in zip(kinds, static)]
                a, kw = nest.pack_sequence_as(structure, leaves)
                with strategy._replica_scope():
                    return fn(*a, **kw)

            replica_fn.__name__ = getattr(fn, "__name__", "replica_fn")
            function = self._functions[key] = tf_function(replica_fn, jit_compile=True)
        return function


def _hashable(v):
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _eager_value(v):
    if hasattr(v, "sharding"):
        return v   # a global JAX array (multi-worker)
    return v._v if isinstance(v, EagerTensor) else v


def _pack(structured, outs):
    it = iter(outs)
    leaves = [None if leaf is None else next(it) for leaf in nest.flatten(structured)]
    if not nest.is_nested(structured):
        return leaves[0] if leaves else None
    return nest.pack_sequence_as(structured, leaves)


# --- sync-on-read variables -----------------------------------------------------------------
# A variable created in an SPMD strategy's scope with synchronization ON_READ
# (Keras' metric variables) is kept per replica in TensorFlow: writes stay
# local, a cross-replica read aggregates. Here its storage holds the
# aggregate; a program starts each replica's copy at its share (value / N for
# SUM, the value for MEAN and ONLY_FIRST_REPLICA) and aggregates the copies
# it wrote at the end, so reads outside the program are TensorFlow's.
ON_READ = weakref.WeakKeyDictionary()   # ResourceHandle -> aggregation name


def record_variable(variable):
    """Remembers a variable made in an SPMD strategy's scope if it is
    sync-on-read (see ON_READ)."""
    sync = getattr(getattr(variable, "synchronization", None), "name", "")
    if sync == "ON_READ" and getattr(variable, "_storage", None) is not None:
        ON_READ[variable._storage] = getattr(variable.aggregation, "name", "NONE")
    return variable


# --- aggregated variable writes in a replica ---------------------------------------------

def _replica_write(variable, value):
    """The value a write of `variable` in a replica stores: all-reduced for
    SUM and MEAN variables (module docstring)."""
    from .strategy import current_spmd_replica
    strategy = current_spmd_replica()
    if strategy is None or _state.graph is None:
        return value
    if getattr(variable, "_storage", None) in ON_READ:
        return value   # a local write (see ON_READ)
    agg = getattr(getattr(variable, "aggregation", None), "name", "NONE")
    if agg in ("SUM", "MEAN"):
        return all_reduce(agg, convert_to_tensor(value, dtype=variable.dtype),
                          strategy.num_replicas_in_sync)
    return value


_variables.REPLICA_WRITE[0] = _replica_write
