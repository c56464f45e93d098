"""`tf.distribute.cluster_resolver`: where the tasks of a cluster are.

A resolver gives a `tf.train.ClusterSpec`, this process's task (type and
index) and the address of a task (`master`). `TFConfigClusterResolver`
reads the `TF_CONFIG` environment variable (JSON: `cluster`, `task`,
`rpc_layer`, `environment`), which is what `MultiWorkerMirroredStrategy`
uses; `SimpleClusterResolver` holds given values; `UnionResolver` merges
several. The resolvers of cluster managers (GCE, Kubernetes, Slurm) read
their manager's API or environment: Slurm's is read from the environment
here; GCE and Kubernetes need their client libraries, which rillflow does
not bring, and raise ImportError as TensorFlow does without them.
"""
import abc
import collections
import json
import os

from ..framework.api_export import export
from .cluster import ClusterSpec

__all__ = ["ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver",
           "UnionResolver"]


def _format_master(address, rpc_layer):
    return "%s://%s" % (rpc_layer, address) if rpc_layer else address


@export("distribute.cluster_resolver.ClusterResolver")
class ClusterResolver(abc.ABC):
    """The base of the cluster resolvers: `cluster_spec()` and `master()`
    are what a subclass gives."""

    task_type = None
    task_id = None
    rpc_layer = None

    @abc.abstractmethod
    def cluster_spec(self):
        """The cluster (a `tf.train.ClusterSpec`)."""

    @abc.abstractmethod
    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task (this one's by default)."""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """Accelerators per type on a task: the GPUs JAX sees here."""
        from ..framework import lowering as L
        gpus = L.gpu_devices() if L.available() else []
        return {"GPU": len(gpus)} if gpus else collections.defaultdict(int)

    @property
    def environment(self):
        """The environment the cluster runs in ("" when not known)."""
        return ""


@export("distribute.cluster_resolver.SimpleClusterResolver")
class SimpleClusterResolver(ClusterResolver):
    """A resolver holding the values it was given."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None,
                 environment="", num_accelerators=None, rpc_layer=None):
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        self._cluster_spec = cluster_spec
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators or {}
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        """The given ClusterSpec."""
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The given master, or the address of `task_type`/`task_id`."""
        if task_type is not None and task_id is not None:
            return _format_master(self._cluster_spec.task_address(task_type, task_id),
                                  rpc_layer or self.rpc_layer)
        return self._master

    @property
    def environment(self):
        """The given environment."""
        return self._environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """The given accelerator counts."""
        return self._num_accelerators


@export("distribute.cluster_resolver.TFConfigClusterResolver")
class TFConfigClusterResolver(ClusterResolver):
    """The cluster of the `TF_CONFIG` environment variable (read on each call).

    Raises:
      json.JSONDecodeError: a TF_CONFIG that is not JSON (when read).
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @staticmethod
    def _config():
        text = os.environ.get("TF_CONFIG")
        return json.loads(text) if text else {}

    def _task_field(self, given, key, convert):
        """`given` when set, else TF_CONFIG's task.<key> through `convert`
        (None when absent)."""
        if given is None:
            value = self._config().get("task", {}).get(key)
            return convert(value) if value is not None else None
        return given

    @property
    def task_type(self):
        """This process's job name (TF_CONFIG's task.type)."""
        return self._task_field(self._task_type, "type", str)

    @task_type.setter
    def task_type(self, value):
        self._task_type = value

    @property
    def task_id(self):
        """This process's index in its job (TF_CONFIG's task.index)."""
        return self._task_field(self._task_id, "index", int)

    @task_id.setter
    def task_id(self, value):
        self._task_id = value

    @property
    def rpc_layer(self):
        """The protocol of the addresses (TF_CONFIG's rpc_layer)."""
        return self._rpc_layer if self._rpc_layer is not None else \
            self._config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, value):
        self._rpc_layer = value

    @property
    def environment(self):
        """TF_CONFIG's environment."""
        return self._environment if self._environment is not None else \
            self._config().get("environment")

    def cluster_spec(self):
        """TF_CONFIG's cluster (empty without TF_CONFIG)."""
        return ClusterSpec(self._config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task (this one's by default; "" when the task is
        not known)."""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        if task_type is None or task_id is None:
            return ""
        return _format_master(self.cluster_spec().task_address(task_type, task_id),
                              rpc_layer or self.rpc_layer)


@export("distribute.cluster_resolver.UnionResolver")
class UnionResolver(ClusterResolver):
    """Several resolvers' clusters merged (jobs' tasks concatenated in
    order); the task and master are the first resolver's.

    Raises:
      ValueError: no resolver. TypeError: an argument that is not one.
    """

    def __init__(self, *args, **kwargs):
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for r in args:
            if not isinstance(r, ClusterResolver):
                raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._resolvers = args
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)

    @property
    def task_type(self):
        """The first resolver's task type."""
        return self._task_type or self._resolvers[0].task_type

    @property
    def task_id(self):
        """The first resolver's task id."""
        return self._task_id if self._task_id is not None else self._resolvers[0].task_id

    @property
    def rpc_layer(self):
        """The first resolver's rpc layer."""
        return self._rpc_layer or self._resolvers[0].rpc_layer

    def cluster_spec(self):
        """The merged cluster."""
        merged = {}
        for r in self._resolvers:
            for job, tasks in r.cluster_spec().as_dict().items():
                tasks = list(tasks.values()) if isinstance(tasks, dict) else list(tasks)
                merged.setdefault(job, []).extend(tasks)
        return ClusterSpec(merged)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The first resolver's master (or the merged cluster's address of a task)."""
        if task_type is not None and task_id is not None:
            return _format_master(self.cluster_spec().task_address(task_type, task_id),
                                  rpc_layer or self.rpc_layer)
        return self._resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def environment(self):
        """The first resolver's environment."""
        return self._resolvers[0].environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """The first resolver's accelerator counts."""
        return self._resolvers[0].num_accelerators(task_type, task_id, config_proto)


@export("distribute.cluster_resolver.SlurmClusterResolver")
class SlurmClusterResolver(ClusterResolver):
    """The cluster of a Slurm job, from Slurm's environment variables
    (SLURM_PROCID, SLURM_STEP_NUM_TASKS, SLURM_STEP_NODELIST: one task per
    node listed, plain host names only).

    Raises:
      RuntimeError: outside a Slurm job.
    """

    def __init__(self, jobs=None, port_base=8888, gpus_per_node=None, gpus_per_task=None,
                 tasks_per_node=None, auto_set_gpu=True, rpc_layer="grpc"):
        if "SLURM_PROCID" not in os.environ:
            raise RuntimeError("SlurmClusterResolver: not running inside a Slurm job "
                               "(SLURM_PROCID is not set)")
        nodes = os.environ.get("SLURM_STEP_NODELIST", os.environ.get("SLURM_NODELIST", ""))
        hosts = [h for h in nodes.split(",") if h]
        jobs = jobs or {"worker": len(hosts)}
        addresses = ["%s:%d" % (h, port_base) for h in hosts]
        spec, i = {}, 0
        for job, n in jobs.items():
            spec[job] = addresses[i:i + n]
            i += n
        self._spec = ClusterSpec(spec)
        proc = int(os.environ["SLURM_PROCID"])
        for job, tasks in spec.items():
            if proc < len(tasks):
                self.task_type, self.task_id = job, proc
                break
            proc -= len(tasks)
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        """The cluster of the job's nodes."""
        return self._spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of a task (this one's by default)."""
        return _format_master(self._spec.task_address(task_type or self.task_type,
                                                      self.task_id if task_id is None
                                                      else task_id),
                              rpc_layer or self.rpc_layer)


def _needs(library, name):
    class _Resolver(ClusterResolver):
        def __init__(self, *args, **kwargs):
            raise ImportError(f"{name} needs the {library} client library, which rillflow "
                              f"does not install")

        def cluster_spec(self):
            """Never reached: construction raises."""

        def master(self, task_type=None, task_id=None, rpc_layer=None):
            """Never reached: construction raises."""

    _Resolver.__name__ = _Resolver.__qualname__ = name
    _Resolver.__doc__ = f"A cluster on {library}: needs its client library (module docstring)."
    return _Resolver


GCEClusterResolver = export("distribute.cluster_resolver.GCEClusterResolver")(
    _needs("googleapiclient (Google Compute Engine)", "GCEClusterResolver"))
KubernetesClusterResolver = export("distribute.cluster_resolver.KubernetesClusterResolver")(
    _needs("kubernetes", "KubernetesClusterResolver"))


@export("distribute.cluster_resolver.KubernetesExecutableLocation")
class KubernetesExecutableLocation:
    """Where a Kubernetes resolver runs (TensorFlow's enum values)."""
    WITHIN_CLUSTER = 0
    OFF_CLUSTER = 1
