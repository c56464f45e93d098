"""The rest of `tf.distribute`'s public names: variable partitioners,
`experimental_set_strategy`, preemption handling, and the parameter-server
and remote-execution names with what rillflow does for each.

Parameter-server training (`ParameterServerStrategy`, `coordinator.
ClusterCoordinator`), TensorFlow's gRPC `Server` and RPC (`experimental.
rpc`), and connecting eager execution to remote workers (`tf.config.
experimental_connect_to_cluster`) need TensorFlow's distributed runtime,
which rillflow does not have: its multi-process training is
MultiWorkerMirroredStrategy on JAX's runtime (docs/distribute.md says what
parameter servers would take). Those names exist for `isinstance` checks
and configuration, and raise NotImplementedError where they would need the
runtime; the configuration records (`Server`'s cluster and target,
`ClusterDeviceFilters`) and the local cases (connecting to the local host)
work.
"""
import contextlib
import math
import signal
import socket
import sys
import threading

from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.tensor_shape import TensorShape
from .cluster import ClusterSpec
from .strategy import Strategy

__all__ = ["Partitioner", "FixedShardsPartitioner", "MinSizePartitioner",
           "MaxSizePartitioner", "experimental_set_strategy", "Server",
           "PreemptionCheckpointHandler", "TerminationConfig"]


# --- partitioners ------------------------------------------------------------------------

@export("distribute.experimental.partitioners.Partitioner")
class Partitioner:
    """How many shards each dimension of a variable is split into:
    `partitioner(shape, dtype)` gives a list with one count per dimension."""

    def __call__(self, shape, dtype, axis=0):
        raise NotImplementedError


def _element_bytes(dtype, bytes_per_string):
    dtype = D.as_dtype(dtype)
    return bytes_per_string if dtype is D.string else dtype.size


def _require_positive(arg, value, sep=": "):
    """Raises ValueError "Argument `arg` must be positive. Received<sep>value"
    when `value` is below 1."""
    if value < 1:
        raise ValueError(f"Argument `{arg}` must be positive. Received{sep}{value}")


@export("distribute.experimental.partitioners.FixedShardsPartitioner")
class FixedShardsPartitioner(Partitioner):
    """`num_shards` shards along axis 0 (at most one per row)."""

    def __init__(self, num_shards):
        self._num_shards = num_shards

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape).as_list()
        out = [1] * len(shape)
        out[axis] = min(self._num_shards, shape[axis])
        return out


@export("distribute.experimental.partitioners.MinSizePartitioner")
class MinSizePartitioner(Partitioner):
    """As many shards as keep each at least `min_shard_bytes`, at most `max_shards`.

    Raises:
      ValueError: `min_shard_bytes` or `max_shards` below 1.
    """

    def __init__(self, min_shard_bytes=256 << 10, max_shards=1, bytes_per_string=16):
        _require_positive("min_shard_bytes", min_shard_bytes)
        _require_positive("max_shards", max_shards)
        _require_positive("bytes_per_string", bytes_per_string)
        self._min, self._max, self._bps = min_shard_bytes, max_shards, bytes_per_string

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape).as_list()
        total = _element_bytes(dtype, self._bps) * math.prod(shape)
        out = [1] * len(shape)
        out[axis] = max(1, min(shape[axis], self._max, int(math.ceil(total / self._min))))
        return out


@export("distribute.experimental.partitioners.MaxSizePartitioner")
class MaxSizePartitioner(Partitioner):
    """As few shards as keep each at most `max_shard_bytes` (at least one
    row each), at most `max_shards`.

    Raises:
      ValueError: `max_shard_bytes` or `max_shards` below 1.
    """

    def __init__(self, max_shard_bytes, max_shards=None, bytes_per_string=16):
        _require_positive("max_shard_bytes", max_shard_bytes, " ")
        if max_shards is not None:
            _require_positive("max_shards", max_shards, " ")
        _require_positive("bytes_per_string", bytes_per_string)
        self._max_bytes, self._max, self._bps = max_shard_bytes, max_shards, bytes_per_string

    def __call__(self, shape, dtype, axis=0):
        shape = TensorShape(shape).as_list()
        row = _element_bytes(dtype, self._bps) * math.prod(
            d for i, d in enumerate(shape) if i != axis)
        rows_per_shard = max(1, self._max_bytes // max(row, 1))
        shards = int(math.ceil(shape[axis] / rows_per_shard))
        if self._max is not None:
            shards = min(self._max, shards)
        out = [1] * len(shape)
        out[axis] = shards
        return out


# --- the global strategy ------------------------------------------------------------------

_global_scope = []


@export("distribute.experimental_set_strategy")
def experimental_set_strategy(strategy):
    """Makes `strategy` current outside any `scope()` (None: no strategy),
    as entering its scope for good would (in this thread)."""
    while _global_scope:
        _global_scope.pop().__exit__(None, None, None)
    if strategy is not None:
        cm = strategy.scope()
        cm.__enter__()
        _global_scope.append(cm)


# --- TensorFlow's distributed runtime: not here -------------------------------------------

def _no_runtime(what):
    return NotImplementedError(
        f"{what} needs TensorFlow's distributed runtime (gRPC servers, remote eager "
        f"execution), which rillflow does not have; several processes train with "
        f"tf.distribute.MultiWorkerMirroredStrategy on JAX's runtime (docs/distribute.md)")


@export("distribute.Server")
class Server:
    """A TensorFlow server's description: its cluster, job, task and target.
    `start` and `join` (serving requests) need TensorFlow's runtime.

    Raises:
      ValueError: a task that is not in the cluster.
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True):
        spec = server_or_cluster_def if isinstance(server_or_cluster_def, ClusterSpec) \
            else ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(spec.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name`.")
            job_name = spec.jobs[0]
        if task_index is None:
            indices = spec.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError("Must specify an explicit `task_index`.")
            task_index = indices[0]
        self._cluster_spec = spec
        self._job_name, self._task_index = job_name, task_index
        self._protocol = protocol or "grpc"
        self._address = spec.task_address(job_name, task_index)

    @staticmethod
    def create_local_server(config=None, start=True):
        """A server for one local task on a free port."""
        with socket.socket() as s:
            s.bind(("localhost", 0))
            port = s.getsockname()[1]
        return Server({"localhost": ["localhost:%d" % port]}, protocol="grpc", config=config,
                      start=False)

    @property
    def target(self):
        """The address a session would connect to ("grpc://host:port")."""
        return "%s://%s" % (self._protocol, self._address)

    @property
    def server_def(self):
        """The server's cluster, job and task, as a dict."""
        return {"cluster": self._cluster_spec.as_dict(), "job_name": self._job_name,
                "task_index": self._task_index, "protocol": self._protocol}

    def start(self):
        """Raises NotImplementedError (module docstring)."""
        raise _no_runtime("tf.distribute.Server.start")

    def join(self):
        """Raises NotImplementedError (module docstring)."""
        raise _no_runtime("tf.distribute.Server.join")


@export("distribute.ParameterServerStrategy",
        "distribute.experimental.ParameterServerStrategy")
class ParameterServerStrategy(Strategy):
    """Asynchronous training with variables on parameter servers: not
    available (module docstring; docs/distribute.md has the plan)."""

    def __init__(self, cluster_resolver, variable_partitioner=None):
        raise _no_runtime("tf.distribute.ParameterServerStrategy")


@export("distribute.coordinator.ClusterCoordinator",
        "distribute.experimental.coordinator.ClusterCoordinator")
class ClusterCoordinator:
    """Schedules functions on a ParameterServerStrategy's workers.

    Raises:
      ValueError: any strategy (ParameterServerStrategy is not available).
    """

    def __init__(self, strategy):
        raise ValueError("Only `tf.distribute.experimental.ParameterServerStrategy` is "
                         "supported to work with `tf.distribute.experimental.coordinator."
                         "ClusterCoordinator` currently.")


@export("distribute.coordinator.RemoteValue",
        "distribute.experimental.coordinator.RemoteValue")
class RemoteValue:
    """The future result of a scheduled function (`fetch`, `get`)."""

    def fetch(self):
        """The value, as NumPy (blocks until it is there)."""
        raise NotImplementedError

    def get(self):
        """The value, as a tensor (blocks until it is there)."""
        raise NotImplementedError


@export("distribute.coordinator.PerWorkerValue",
        "distribute.experimental.coordinator.PerWorkerValues")
class PerWorkerValue:
    """One value per worker (`values`), for functions scheduled on them."""

    def __init__(self, values):
        self._values = tuple(values)


@export("distribute.coordinator.experimental_get_current_worker_index")
def experimental_get_current_worker_index():
    """The index of the worker running a scheduled function.

    Raises:
      RuntimeError: outside a function a ClusterCoordinator scheduled (always here).
    """
    raise RuntimeError(
        "Cannot retrieve the worker index. `get_worker_idx_and_num_workers` should be called "
        "from within a tf.function being executed on a worker. This method should only be "
        "called from either a dataset_fn that is passed into `ClusterCoordinator."
        "create_per_worker_dataset`, or a tf.function that is passed into "
        "`ClusterCoordinator.schedule`.")


@export("distribute.experimental.rpc.Server")
class RpcServer:
    """TensorFlow's RPC server: not available (module docstring)."""

    @staticmethod
    def create(rpc_layer, address):
        """Raises NotImplementedError."""
        raise _no_runtime("tf.distribute.experimental.rpc.Server")


@export("distribute.experimental.rpc.Client")
class RpcClient:
    """TensorFlow's RPC client: not available (module docstring)."""

    @staticmethod
    def create(rpc_layer, address, name="", timeout_in_ms=0):
        """Raises NotImplementedError."""
        raise _no_runtime("tf.distribute.experimental.rpc.Client")


@export("config.experimental_connect_to_cluster")
def experimental_connect_to_cluster(cluster_spec_or_resolver, job_name="localhost",
                                    task_index=0, protocol=None,
                                    make_master_device_default=True,
                                    cluster_device_filters=None):
    """Connects eager execution to a cluster's devices: a cluster of this
    process alone (one `localhost` task) is a no-op; others raise.

    Raises:
      NotImplementedError: remote workers (module docstring).
    """
    spec = cluster_spec_or_resolver
    if hasattr(spec, "cluster_spec") and callable(spec.cluster_spec):
        spec = spec.cluster_spec()
    spec = spec if isinstance(spec, ClusterSpec) else ClusterSpec(spec)
    if not spec or (spec.jobs == ["localhost"] and spec.num_tasks("localhost") == 1):
        return
    raise _no_runtime("tf.config.experimental_connect_to_cluster")


@export("config.experimental_connect_to_host")
def experimental_connect_to_host(remote_host=None, job_name="worker"):
    """Connects eager execution to remote hosts: none (or empty) is a no-op.

    Raises:
      NotImplementedError: a remote host (module docstring).
    """
    if not remote_host:
        return
    raise _no_runtime("tf.config.experimental_connect_to_host")


@export("config.experimental.ClusterDeviceFilters")
class ClusterDeviceFilters:
    """Which devices each task of a cluster may see (recorded: rillflow
    connects to no remote devices)."""

    def __init__(self):
        self._device_filters = {}

    def set_device_filters(self, job_name, task_index, device_filters):
        """Sets the filters (device name patterns) of one task."""
        self._device_filters.setdefault(job_name, {})[task_index] = list(device_filters) \
            if not isinstance(device_filters, str) else [device_filters]


# --- preemption ------------------------------------------------------------------------------

@export("distribute.experimental.TerminationConfig")
class TerminationConfig:
    """How a PreemptionCheckpointHandler learns of and reacts to a
    termination: a watcher function (default: SIGTERM), the exit function,
    the grace period, the save function."""

    def __init__(self, termination_watcher_fn=None, exit_fn=None, grace_period=None,
                 save_fn=None):
        self.termination_watcher_fn = termination_watcher_fn
        self.exit_fn = exit_fn
        self.grace_period = grace_period
        self.save_fn = save_fn


@export("distribute.experimental.PreemptionWatcher")
class PreemptionWatcher:
    """Watches for a termination signal (SIGTERM): `preemption_message` is
    set once it arrived."""

    def __init__(self):
        self._message = None
        self._event = threading.Event()
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGTERM)

            def on_term(signum, frame):
                self._message = "SIGTERM received"
                self._event.set()
                if callable(previous) and previous not in (signal.SIG_DFL, signal.SIG_IGN):
                    previous(signum, frame)
            signal.signal(signal.SIGTERM, on_term)

    @property
    def preemption_message(self):
        """Why the job is being stopped, or None."""
        return self._message

    def block_until_worker_exit(self):
        """Waits for the termination signal."""
        self._event.wait()


@export("distribute.experimental.PreemptionCheckpointHandler")
class PreemptionCheckpointHandler:
    """Saves a checkpoint when the job is told to stop, and restores the
    latest one at start: wrap each training step in `run`. On SIGTERM (or
    when `termination_config.termination_watcher_fn()` returns True) the
    next `run` saves through the checkpoint (manager) and calls `exit_fn`
    (default: exit with status 42, TensorFlow's restart code)."""

    def __init__(self, cluster_resolver, checkpoint_or_checkpoint_manager, checkpoint_dir=None,
                 termination_config=None):
        self._ckpt = checkpoint_or_checkpoint_manager
        self._config = termination_config or TerminationConfig()
        self._manager = self._ckpt if hasattr(self._ckpt, "latest_checkpoint") else None
        if self._manager is None:
            if checkpoint_dir is None:
                raise errors.InvalidArgumentError(
                    None, None, "When a checkpoint is passed, `checkpoint_dir` must be given")
            from ..saved_model.checkpoint_management import CheckpointManager
            self._manager = CheckpointManager(self._ckpt, checkpoint_dir, max_to_keep=1)
        self._watcher = PreemptionWatcher() if self._config.termination_watcher_fn is None \
            else None
        self._run_calls = 0
        latest = self._manager.latest_checkpoint
        if latest:
            self._manager.checkpoint.restore(latest)

    @property
    def total_run_calls(self):
        """How many steps `run` has run."""
        return self._run_calls

    def _terminating(self):
        if self._config.termination_watcher_fn is not None:
            return bool(self._config.termination_watcher_fn())
        return self._watcher.preemption_message is not None

    def run(self, distributed_train_function, *args, **kwargs):
        """Runs one step; after it, saves and exits if a termination arrived."""
        result = distributed_train_function(*args, **kwargs)
        self._run_calls += 1
        if self._terminating():
            if self._config.save_fn is not None:
                self._config.save_fn()
            else:
                self._manager.save()
            exit_fn = self._config.exit_fn or (lambda: sys.exit(42))
            exit_fn()
        return result

    def save_checkpoint_if_preempted(self, *args, **kwargs):
        """Saves (and exits) if a termination arrived."""
        if self._terminating():
            self._manager.save()
            (self._config.exit_fn or (lambda: sys.exit(42)))()

    def watch_preemption_scope(self):
        """A context for the training loop (nothing more to set up here)."""
        return contextlib.nullcontext()

