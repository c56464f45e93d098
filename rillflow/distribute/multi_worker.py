"""`tf.distribute.MultiWorkerMirroredStrategy` on JAX's multi-process runtime.

The cluster comes from a cluster resolver (by default `TF_CONFIG`: the
`chief` and `worker` jobs' addresses and this process's task). Each worker
is one process; the chief (or worker 0 when there is no chief) hosts JAX's
coordination service at its TF_CONFIG address, and every process calls
`jax.distributed.initialize` with it. The replicas are then every
process's JAX devices (`jax.devices()`, in process order), and
`strategy.run` is the sharded program of spmd.py over all of them: the
all-reduces cross processes through JAX's collectives (gloo on CPUs, NCCL
on GPUs).

Data: every worker's dataset yields the global batch; worker `i` keeps its
`i`-th share and splits it over its replicas. That is what TensorFlow's
DATA auto-sharding of a batched dataset gives each worker (a rebatch into
per-worker batches, every worker keeping its own), so the replicas over
all workers see the global batch. Variables are created by each worker
and broadcast from worker 0 the first time a program uses them, as
TensorFlow broadcasts initial values from the chief. `reduce` and
`gather` of per-replica values gather every worker's replicas (eagerly;
inside a `tf.function` they see this worker's).

Without TF_CONFIG (or with one worker) the strategy is MirroredStrategy's
default: the local GPUs, else one replica on the CPU.
"""
from ..framework import lowering as L
from ..framework.api_export import export
from .cluster_resolver import TFConfigClusterResolver
from .mirrored import SpmdStrategyMixin
from .strategy import Strategy

__all__ = ["MultiWorkerMirroredStrategy"]

_initialized = []


def _workers(spec):
    """The (job, index, address) of the training tasks: chief first."""
    out = []
    for job in ("chief", "worker"):
        if job in spec.jobs:
            out.extend((job, i, spec.task_address(job, i)) for i in spec.task_indices(job))
    return out


def initialize_jax(coordinator, num_processes, process_id, timeout=300):
    """`jax.distributed.initialize`, once per process."""
    jax = L.load()
    if _initialized:
        if _initialized[0] != (coordinator, num_processes, process_id):
            raise RuntimeError("this process already joined cluster %r" % (_initialized[0],))
        return jax
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                               process_id=process_id, initialization_timeout=timeout)
    _initialized.append((coordinator, num_processes, process_id))
    return jax


@export("distribute.MultiWorkerMirroredStrategy",
        "distribute.experimental.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(SpmdStrategyMixin, Strategy):
    """Synchronous replicas over the devices of several worker processes
    (module docstring).

    Raises:
      ValueError: a task that is not in the cluster's chief or worker jobs.
      NotImplementedError: several workers without JAX (the `xla` extra).
    """

    def __init__(self, cluster_resolver=None, communication_options=None):
        super().__init__()
        self._cluster_resolver = cluster_resolver or TFConfigClusterResolver()
        self._communication_options = communication_options
        spec = self._cluster_resolver.cluster_spec()
        workers = _workers(spec)
        if len(workers) <= 1:
            gpus = L.gpu_devices() if L.available() else []
            if len(gpus) > 1:
                names = tuple("/job:localhost/replica:0/task:0/device:GPU:%d" % i
                              for i in range(len(gpus)))
                self._setup_spmd(gpus, names)
            return
        if not L.available():
            raise NotImplementedError("MultiWorkerMirroredStrategy with several workers runs "
                                      "on JAX (the `xla` extra), which is not installed")
        task = (self._cluster_resolver.task_type, self._cluster_resolver.task_id)
        keys = [(j, i) for j, i, _ in workers]
        if task not in keys:
            raise ValueError(f"MultiWorkerMirroredStrategy: task {task} is not one of the "
                             f"cluster's chief or worker tasks {keys}")
        self._num_workers = len(workers)
        self._worker_index = keys.index(task)
        jax = initialize_jax(workers[0][2], self._num_workers, self._worker_index)
        devices = sorted(jax.devices(), key=lambda d: (d.process_index, d.id))
        job, index = task
        local = [d for d in devices if d.process_index == jax.process_index()]
        names = tuple("/job:%s/replica:0/task:%d/device:%s:%d" % (
            job, index, "GPU" if d.platform == "gpu" else "CPU", k)
            for k, d in enumerate(local))
        self._setup_spmd(devices, names)

    @property
    def cluster_resolver(self):
        """The resolver the cluster came from."""
        return self._cluster_resolver

    def __deepcopy__(self, memo):
        # Keras copies strategies with its models' configs; the cluster is joined once.
        return self
