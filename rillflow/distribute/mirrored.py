"""`tf.distribute.MirroredStrategy`: synchronous replicas on the devices
JAX sees.

With one device (the default on a machine without GPUs, or `devices=["/cpu:0"]`)
it is strategy.py's one-replica strategy, as before. With several devices
(GPUs, or CPUs: JAX's host devices, of which there are several when
`XLA_FLAGS=--xla_force_host_platform_device_count=N` is set before JAX
starts, or when `tf.config.set_logical_device_configuration` asked for N
logical CPUs before it did) the replicas run as one sharded JAX program
(spmd.py):

- `experimental_distribute_dataset` splits each global batch of the
  dataset into equal per-replica batches (a `PerReplica` stacks them: the
  batch size must be a multiple of the number of replicas, where TensorFlow
  would also split unevenly); `distribute_datasets_from_function` takes one
  element of the dataset per replica.
- `run(fn, args)` traces `fn` once for one replica's arguments and runs it
  on every replica at once; `fn` must be jit-compilable (every op lowers to
  XLA), as under `jit_compile=True`.
- variables created in `scope()` are ordinary variables: the program reads
  each once and writes it back once (mirrored by construction).
- `reduce`, `gather`, `experimental_local_results` work on the stacked value.

Logical CPUs that JAX does not have as host devices (the CPU was split after
JAX started) still give replicas: they run batched on one device
(`jax.vmap` over the replica axis, whose collectives are the same).

Without JAX, several devices raise NotImplementedError.
"""
import contextlib

import numpy as np

from ..framework import context as _context
from ..framework import device as _device
from ..framework import lowering as L
from ..framework import nest
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import EagerTensor
from ..ops.core.join_ops import concat, stack
from ..ops.core.math_ops import cast, truediv
from ..ops.core.reduction_ops import reduce_sum
from ..ops.core import math_ops
from ..ops.core.shape_ops import identity, reshape, shape
from ..ops.control_flow.control_ops import control_dependencies
from ..ops.debugging.logging_ops import Assert
from ..ops.state.variable_creator import variable_creator_scope
from .strategy import (InputContext, ReduceOp, ReplicaContext, Strategy, StrategyExtended,
                       ValueContext, DistributedDataset, _CPU0, _full_device)
from .values import PerReplica, as_distributed_variable

__all__ = ["MirroredStrategy", "SpmdStrategyMixin", "jax_devices"]

_state = _context.state


def _backends_started(jax):
    try:
        from jax._src import xla_bridge
        return bool(xla_bridge._backends)
    except Exception:  # noqa: BLE001 - an unknown JAX: assume started
        return True


def jax_devices(names):
    """The JAX devices for TensorFlow device names ("/cpu:1", "GPU:0").

    If JAX has not started its backends yet, it is asked for as many host
    devices as the names (and the logical CPU configuration) need. Once it
    has, a logical CPU (`tf.config.set_logical_device_configuration`) beyond
    JAX's host devices maps to host device 0: the replicas sharing a device
    run batched on it (spmd.py); a CPU that is not even a logical one raises.

    Raises:
      ValueError: a device JAX does not have.
    """
    jax = L.load()
    want_cpu = 1 + max([int(n.rsplit(":", 1)[1]) for n in names if "/device:CPU:" in n],
                       default=0)
    logical = len(_device._logical_config.get(_device._CPU) or ()) or 1
    if not _backends_started(jax):
        need = max(want_cpu, logical)
        if need > 1:
            jax.config.update("jax_num_cpu_devices", need)
    out = []
    for n in names:
        kind, index = n.rsplit("/device:", 1)[1].split(":")
        platform = "cpu" if kind == "CPU" else "gpu"
        try:
            devs = jax.devices(platform) if platform == "cpu" else L.gpu_devices()
        except RuntimeError:
            devs = []
        if platform == "cpu" and len(devs) <= int(index) < logical:
            # A logical CPU JAX does not have (its backend started with fewer):
            # replicas on it are batched with the others on one device (spmd.py).
            out.append(devs[0])
            continue
        if int(index) >= len(devs):
            raise ValueError(
                f"MirroredStrategy: device {n} is not available: JAX has {len(devs)} "
                f"{platform.upper()} device(s) (for several CPU devices set XLA_FLAGS="
                f"--xla_force_host_platform_device_count=N, or call "
                f"tf.config.set_logical_device_configuration, before JAX starts)")
        out.append(devs[int(index)])
    return out


def _from_outside(value):
    """Whether `value` is a tensor captured from eager code by the graphs
    being traced (not computed in the replica)."""
    if isinstance(value, EagerTensor):
        return True
    graph = _state.graph
    while graph is not None:
        ext = next((e for e, internal in getattr(graph, "captures", ()) if internal is value),
                   None)
        if ext is None:
            return False
        if isinstance(ext, EagerTensor):
            return True
        value, graph = ext, getattr(ext, "graph", None)
    return False


class SpmdReplicaContext(ReplicaContext):
    """The replica context of a sharded program being traced: `all_reduce`
    and the replica id are collective ops of the program (spmd.py)."""

    @property
    def replica_id_in_sync_group(self):
        """This replica's index (an int32 tensor of the program)."""
        from .spmd import replica_id
        return replica_id()

    def all_reduce(self, reduce_op, value, options=None):
        """`value` (a nest of tensors) summed or averaged over the replicas."""
        from .spmd import all_reduce
        op = reduce_op if isinstance(reduce_op, ReduceOp) else ReduceOp(reduce_op)
        n = self._strategy.num_replicas_in_sync

        def reduce(v):
            # One tensor from outside the replica function is, in TensorFlow, the
            # same object in every replica, and reduces to itself.
            return v if _from_outside(v) else all_reduce(op.value, v, n)
        return nest.map_structure(reduce, value)


class SpmdExtended(StrategyExtended):
    """`strategy.extended` of a strategy with several replicas."""

    def reduce_to(self, reduce_op, value, destinations, options=None):
        """`value` reduced over the replicas (`strategy.reduce(op, value, None)`)."""
        return self._container_strategy.reduce(reduce_op, value, axis=None)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None):
        """`reduce_to` of each (value, destinations) pair."""
        return [self.reduce_to(reduce_op, v, d) for v, d in value_destination_pairs]

    def _in_multi_worker_mode(self):
        return self._container_strategy._num_workers > 1


class SpmdStrategyMixin:
    """What a strategy with several replicas (a `_runner`: spmd.SpmdRunner)
    does differently from the one-replica strategy (module docstring)."""

    _runner = None
    _num_workers = 1
    _worker_index = 0

    def _setup_spmd(self, devices, names):
        from .spmd import SpmdRunner
        self._runner = SpmdRunner(self, devices)
        self._extended = SpmdExtended(self, names)

    @property
    def num_replicas_in_sync(self):
        """The number of replicas (over every worker)."""
        return 1 if self._runner is None else self._runner.num_replicas

    @contextlib.contextmanager
    def scope(self):
        """The strategy's scope; variables made in it are recorded (spmd.ON_READ)."""
        if self._runner is None:
            with super().scope() as s:
                yield s
            return
        from .spmd import record_variable

        n_local = self._runner.num_local_replicas

        def creator(next_creator, **kwargs):
            return record_variable(as_distributed_variable(next_creator(**kwargs), n_local))

        with super().scope() as s, variable_creator_scope(creator):
            yield s

    def experimental_distribute_values_from_function(self, value_fn):
        """`value_fn(ValueContext)` for each local replica, as a PerReplica."""
        if self._runner is None:
            return super().experimental_distribute_values_from_function(value_fn)
        n, first = self.num_replicas_in_sync, self._worker_index * self._runner.num_local_replicas
        values = [convert_to_tensor(value_fn(ValueContext(first + i, n)))
                  for i in range(self._runner.num_local_replicas)]
        return PerReplica(stack(values))

    def _make_replica_context(self):
        if self._runner is None:
            return ReplicaContext(self)
        return SpmdReplicaContext(self)

    def run(self, fn, args=(), kwargs=None, options=None):
        """`fn(*args, **kwargs)` on every replica: `PerReplica` arguments give
        each replica its own value; the results are `PerReplica`."""
        if self._runner is None:
            return super().run(fn, args, kwargs, options)
        return self._runner.run(fn, args, kwargs or {})

    # --- datasets ------------------------------------------------------------------------
    def _wrap(self, element):
        return nest.map_structure(PerReplica, element)

    def experimental_distribute_dataset(self, dataset, options=None):
        """`dataset`'s global batches split over the replicas (this worker's
        share of each, with several workers)."""
        if self._runner is None:
            return super().experimental_distribute_dataset(dataset, options)
        n_local = self._runner.num_local_replicas
        workers, index = self._num_workers, self._worker_index
        n = self.num_replicas_in_sync

        def split(x):
            x = convert_to_tensor(x)
            b = x.shape[0] if x.shape.rank else None
            if x.shape.rank == 0:
                raise ValueError("experimental_distribute_dataset: the elements must be "
                                 "batched to be split over the replicas (got a scalar)")
            if b is not None and b % n:
                raise ValueError(
                    f"experimental_distribute_dataset: the global batch size {b} is not "
                    f"divisible by the {n} replicas (rillflow splits batches evenly; batch "
                    f"with drop_remainder=True or a multiple of num_replicas_in_sync)")
            if b is None:
                # Known only at run time: a clear error rather than the reshape's.
                check = Assert(math_ops.equal(shape(x)[0] % n, 0), [
                    "experimental_distribute_dataset: a global batch size not divisible by "
                    f"the {n} replicas:", shape(x)[0]])
                with control_dependencies([check]):
                    x = identity(x)
            if workers > 1:
                per = shape(x)[0] // workers
                x = x[per * index:per * (index + 1)]
            return reshape(x, concat([[n_local, -1], shape(x)[1:]], 0))

        def per_replica(*element):
            e = element if len(element) > 1 else element[0]
            return nest.map_structure(split, e)

        return DistributedDataset(dataset.map(per_replica), self, self._wrap)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """The dataset `dataset_fn(input_context)` makes (per-replica
        batches), one element per replica."""
        if self._runner is None:
            return super().distribute_datasets_from_function(dataset_fn, options)
        ctx = InputContext(self._num_workers, self._worker_index, self.num_replicas_in_sync)
        ds = dataset_fn(ctx).batch(self._runner.num_local_replicas, drop_remainder=True)
        return DistributedDataset(ds, self, self._wrap)

    # --- cross-replica results -------------------------------------------------------------
    def _all_replicas(self, value):
        """A PerReplica's values over every worker, stacked (a tensor)."""
        if value._global is not None and not self._runner.single_process:
            from jax.experimental import multihost_utils
            return convert_to_tensor(np.asarray(
                multihost_utils.process_allgather(value._global, tiled=True)))
        return value._stacked

    def reduce(self, reduce_op, value, axis):
        """The replicas' values summed or averaged (and over `axis` of each,
        unless None).

        Raises:
          ValueError: an unknown `reduce_op`, or SUM of a value that is not
            per-replica (as TensorFlow).
        """
        op = reduce_op if isinstance(reduce_op, ReduceOp) else ReduceOp(reduce_op)
        if self._runner is None:
            return super().reduce(op, value, axis)
        if nest.is_nested(value):
            return nest.map_structure(lambda v: self.reduce(op, v, axis), value)
        if not isinstance(value, PerReplica):
            if op is ReduceOp.SUM and self.num_replicas_in_sync > 1:
                raise ValueError("A non-DistributedValues value %s cannot be reduced with "
                                 "the given reduce op ReduceOp.SUM." % (value,))
            return super().reduce(op, value, axis)
        stacked = self._all_replicas(value)
        n = self.num_replicas_in_sync
        if axis is None:
            total = reduce_sum(stacked, 0)
            return total if op is ReduceOp.SUM else truediv(total, cast(n, total.dtype))
        total = reduce_sum(stacked, [0, axis + 1])
        if op is ReduceOp.SUM:
            return total
        return truediv(total, cast(shape(stacked)[axis + 1] * n, total.dtype))

    def experimental_local_results(self, value):
        """The values of this worker's replicas."""
        if isinstance(value, PerReplica):
            return value.values
        return super().experimental_local_results(value)

    def gather(self, value, axis):
        """The replicas' values concatenated along `axis`."""
        if not isinstance(value, PerReplica):
            return super().gather(value, axis)
        stacked = self._all_replicas(value)
        from ..ops.core.join_ops import unstack
        return concat(unstack(stacked, axis=0), axis)


@export("distribute.MirroredStrategy")
class MirroredStrategy(SpmdStrategyMixin, Strategy):
    """Synchronous replicas on `devices` (module docstring). The default is
    the GPUs JAX sees, else the first CPU.

    Raises:
      AssertionError: a device named twice (as TensorFlow).
      ValueError: a device JAX does not have.
      NotImplementedError: several devices without JAX (the `xla` extra).
    """

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__()
        if devices is None:
            gpus = L.gpu_devices() if L.available() else []
            names = tuple("/job:localhost/replica:0/task:0/device:GPU:%d" % i
                          for i in range(len(gpus))) or (_CPU0,)
        else:
            if isinstance(devices, str):
                devices = [devices]
            names = tuple(_full_device(d) for d in devices)
            if len(set(names)) != len(names):
                raise AssertionError(f"No duplicates allowed in `devices` argument: {names}")
        self._cross_device_ops = cross_device_ops
        if names == (_CPU0,):
            return
        if not L.available():
            raise NotImplementedError(
                f"MirroredStrategy over several devices runs on JAX (the `xla` extra), "
                f"which is not installed; got devices {names}")
        self._setup_spmd(jax_devices(names), names)
