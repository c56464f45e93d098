"""`tf.data.experimental.service` and `distributed_save`, in-process.

TensorFlow's tf.data service runs pipelines on worker servers that a
dispatcher server coordinates over gRPC. rillflow has no network runtime:
its servers are objects of this process, registered under the address their
`target` names ("grpc://localhost:PORT", a port number rillflow hands out,
no socket opened), and `distribute`/`from_dataset_id` read the dataset
through them in this process:

- "parallel_epochs" (ShardingPolicy.OFF): every worker produces the whole
  dataset; the consumer gets the workers' elements interleaved one by one
  (TensorFlow gives them in arrival order).
- the other sharding policies ("distributed_epoch", DYNAMIC, FILE, DATA,
  FILE_OR_DATA, HINT): each element once, in the dataset's order (which
  TensorFlow does not promise).

A service address no server of this process has is refused with
UnavailableError (TensorFlow would keep trying to connect); a dispatcher
without workers with FailedPreconditionError (TensorFlow would wait).
Jobs are not shared between iterations: `job_name`, `consumer_index` and
`num_consumers` are checked and recorded only.
"""
import collections
import enum
import itertools

import numpy as np

from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import Tensor
from . import dataset_ops as DS
from .saving import save

__all__ = ["ShardingPolicy", "DispatcherConfig", "WorkerConfig", "DispatchServer",
           "WorkerServer", "CrossTrainerCache", "distribute", "register_dataset",
           "from_dataset_id", "distributed_save"]

_DISPATCHERS = {}                 # "localhost:PORT" -> DispatchServer
_PORTS = itertools.count(40000)


@export("data.experimental.service.ShardingPolicy")
class ShardingPolicy(enum.IntEnum):
    """How the service shards a dataset between workers (TensorFlow's values)."""
    OFF = 0
    DYNAMIC = 1
    FILE = 2
    DATA = 3
    FILE_OR_DATA = 4
    HINT = 5


_DispatcherConfig = collections.namedtuple("DispatcherConfig", [
    "port", "protocol", "work_dir", "fault_tolerant_mode", "worker_addresses",
    "job_gc_check_interval_ms", "job_gc_timeout_ms", "worker_timeout_ms",
    "worker_max_concurrent_snapshots"])


@export("data.experimental.service.DispatcherConfig")
class DispatcherConfig(_DispatcherConfig):
    """The configuration of a dispatcher (TensorFlow's fields and defaults)."""

    def __new__(cls, port=0, protocol=None, work_dir=None, fault_tolerant_mode=False,
                worker_addresses=None, job_gc_check_interval_ms=None, job_gc_timeout_ms=None,
                worker_timeout_ms=None, worker_max_concurrent_snapshots=0):
        return super().__new__(cls, port, protocol or "grpc", work_dir, fault_tolerant_mode,
                               worker_addresses, job_gc_check_interval_ms or 0,
                               job_gc_timeout_ms or 0, worker_timeout_ms,
                               worker_max_concurrent_snapshots)


_WorkerConfig = collections.namedtuple("WorkerConfig", [
    "dispatcher_address", "worker_address", "port", "protocol", "heartbeat_interval_ms",
    "dispatcher_timeout_ms", "data_transfer_protocol", "data_transfer_address"])


@export("data.experimental.service.WorkerConfig")
class WorkerConfig(_WorkerConfig):
    """The configuration of a worker (TensorFlow's fields and defaults)."""

    def __new__(cls, dispatcher_address, worker_address=None, port=0, protocol=None,
                heartbeat_interval_ms=None, dispatcher_timeout_ms=None,
                data_transfer_protocol=None, data_transfer_address=None):
        return super().__new__(cls, dispatcher_address, worker_address or "localhost:%port%",
                               port, protocol or "grpc", heartbeat_interval_ms or 0,
                               dispatcher_timeout_ms or 0, data_transfer_protocol,
                               data_transfer_address or "localhost:%dts_port%")


@export("data.experimental.service.DispatchServer")
class DispatchServer:
    """An in-process tf.data service dispatcher (see the module docstring).

    Raises:
      ValueError: for a config that is not a DispatcherConfig.
    """

    def __init__(self, config=None, start=True):
        config = config if config is not None else DispatcherConfig()
        if not isinstance(config, DispatcherConfig):
            raise ValueError(f"`config` must be a DispatcherConfig, got {config!r}.")
        self._config = config
        self._port = config.port or next(_PORTS)
        self._workers = []
        self._datasets = {}
        self._running = False
        if start:
            self.start()

    def start(self):
        """Starts serving (registers this dispatcher under its address)."""
        _DISPATCHERS[self._address] = self
        self._running = True

    def stop(self):
        """Stops serving: the address no longer resolves."""
        _DISPATCHERS.pop(self._address, None)
        self._running = False

    def join(self):
        """Returns at once: an in-process server has no thread to wait for."""

    @property
    def _address(self):
        return "localhost:%d" % self._port

    @property
    def target(self):
        """The address consumers give as `service`: "grpc://localhost:PORT"."""
        return "%s://%s" % (self._config.protocol, self._address)

    def _register(self, dataset):
        key = str(1000 + len(self._datasets))
        self._datasets[key] = dataset
        return key


@export("data.experimental.service.WorkerServer")
class WorkerServer:
    """An in-process tf.data service worker, registered with its dispatcher.

    Raises:
      ValueError: for a config that is not a WorkerConfig.
      UnavailableError: when no dispatcher of this process has the address.
    """

    def __init__(self, config, start=True):
        if not isinstance(config, WorkerConfig):
            raise ValueError(f"`config` must be a WorkerConfig, got {config!r}.")
        self._config = config
        self._dispatcher = None
        if start:
            self.start()

    def start(self):
        """Registers with the dispatcher."""
        self._dispatcher = _dispatcher(self._config.dispatcher_address)
        if self not in self._dispatcher._workers:
            self._dispatcher._workers.append(self)

    def stop(self):
        """Leaves the dispatcher."""
        if self._dispatcher is not None and self in self._dispatcher._workers:
            self._dispatcher._workers.remove(self)

    def join(self):
        """Returns at once: an in-process server has no thread to wait for."""


@export("data.experimental.service.CrossTrainerCache")
class CrossTrainerCache:
    """Names the trainer of a job whose elements trainers share (recorded).

    Raises:
      ValueError: for an empty trainer id.
    """

    def __init__(self, trainer_id):
        if not trainer_id:
            raise ValueError("tf.data service cross-trainer cache requires a non-empty trainer "
                             "ID.")
        self.trainer_id = trainer_id


def _address(service):
    if not isinstance(service, str):
        raise ValueError(f"`service` must be a string, but `service` was of type "
                         f"{type(service)}. service={service}")
    if not service:
        raise ValueError("`service` must not be empty.")
    return service.split("://", 1)[1] if "://" in service else service


def _dispatcher(address):
    found = _DISPATCHERS.get(address)
    if found is None:
        raise errors.UnavailableError(
            None, None, f"No tf.data service dispatcher at {address} in this process: "
            "rillflow's tf.data service runs in-process, with the DispatchServer and "
            "WorkerServer objects of this Python process only.")
    return found


def _mode(processing_mode):
    if isinstance(processing_mode, ShardingPolicy):
        return processing_mode
    if processing_mode == "parallel_epochs":
        return ShardingPolicy.OFF
    if processing_mode == "distributed_epoch":
        return ShardingPolicy.DYNAMIC
    raise ValueError("tf.data service processing mode should be a "
                     "`tf.data.experimental.service.ShardingPolicy`, `\"parallel_epochs\"`, "
                     f"or `\"distributed_epoch\"`. Got {processing_mode!r}.")


@export("data.experimental.service.register_dataset")
def register_dataset(service, dataset, compression="AUTO", dataset_id=None):
    """Registers `dataset` with the dispatcher at `service`; returns its id
    (a string scalar tensor).

    Raises:
      ValueError: for a bad `service` or compression.
      UnavailableError: when no dispatcher of this process has the address.
    """
    if compression not in ("AUTO", "NONE", None):
        raise ValueError(f"Invalid `compression` argument: {compression}. Must be one of "
                         "['AUTO', 'NONE'].")
    d = _dispatcher(_address(service))
    DS._check_dataset(dataset, "register_dataset")
    if dataset_id is not None:
        key = str(dataset_id.numpy().decode() if isinstance(dataset_id, Tensor) and
                  hasattr(dataset_id, "numpy") and isinstance(dataset_id.numpy(), bytes)
                  else dataset_id)
        d._datasets[key] = dataset
    else:
        key = d._register(dataset)
    return convert_to_tensor(np.array(key.encode(), dtype=object))


@export("data.experimental.service.from_dataset_id")
def from_dataset_id(processing_mode, service, dataset_id, element_spec=None, job_name=None,
                    consumer_index=None, num_consumers=None, max_outstanding_requests=None,
                    data_transfer_protocol=None, cross_trainer_cache=None,
                    target_workers="AUTO"):
    """The elements of the registered dataset `dataset_id`, produced by the
    workers of the dispatcher at `service` (see the module docstring).

    Raises:
      ValueError: for a bad processing mode or service, or job arguments
        that do not go together.
      UnavailableError: when no dispatcher of this process has the address.
      NotFoundError: for an unknown dataset id.
      FailedPreconditionError: when the dispatcher has no worker.
    """
    mode = _mode(processing_mode)
    d = _dispatcher(_address(service))
    if (consumer_index is None) != (num_consumers is None):
        raise ValueError("Must either set both `consumer_index` and `num_consumers`, or "
                         "neither. ")
    if consumer_index is not None and job_name is None:
        raise ValueError("`job_name` must be set when setting `consumer_index` and "
                         "`num_consumers`.")
    key = dataset_id.numpy() if hasattr(dataset_id, "numpy") else dataset_id
    key = key.decode() if isinstance(key, bytes) else str(key)
    dataset = d._datasets.get(key)
    if dataset is None:
        raise errors.NotFoundError(None, None, f"Dataset id {key} not found.")
    n = len(d._workers)
    if not n:
        raise errors.FailedPreconditionError(
            None, None, f"The tf.data service dispatcher at {d._address} has no workers: "
            "start a WorkerServer for it in this process.")
    if mode is ShardingPolicy.OFF and n > 1:
        copies = DS.Dataset.from_tensors(dataset)
        for _ in range(n - 1):
            copies = copies.concatenate(DS.Dataset.from_tensors(dataset))
        dataset = copies.interleave(lambda x: x, cycle_length=n, block_length=1)
    return dataset


@export("data.experimental.service.distribute")
def distribute(processing_mode, service, job_name=None, consumer_index=None,
               num_consumers=None, max_outstanding_requests=None, data_transfer_protocol=None,
               compression="AUTO", cross_trainer_cache=None, target_workers="AUTO"):
    """A transformation reading a dataset through the tf.data service at
    `service` (in-process: see the module docstring).

    Raises:
      ValueError: for a bad processing mode or service.
    """
    _mode(processing_mode)

    def _apply(dataset):
        dataset_id = register_dataset(service, dataset, compression=compression)
        return from_dataset_id(processing_mode, service, dataset_id, dataset.element_spec,
                               job_name, consumer_index, num_consumers,
                               max_outstanding_requests, data_transfer_protocol,
                               cross_trainer_cache, target_workers)
    return _apply


@export("data.experimental.distributed_save")
def distributed_save(dataset, path, data_service_address, compression="AUTO"):
    """Saves `dataset` under `path` through the tf.data service at
    `data_service_address`, and returns None.

    rillflow writes it in `tf.data.experimental.save`'s format (which
    `tf.data.Dataset.load` reads, in TensorFlow too), not in the chunked
    layout of TensorFlow's distributed snapshots, and writes it before
    returning (TensorFlow writes in the background).

    Raises:
      ValueError: for a bad address.
      UnavailableError: when no dispatcher of this process has the address.
    """
    if not isinstance(data_service_address, str):
        raise ValueError(f"`data_service_address` must be a string, got "
                         f"{type(data_service_address)}.")
    d = _dispatcher(_address(data_service_address))
    if not d._workers:
        raise errors.FailedPreconditionError(
            None, None, f"The tf.data service dispatcher at {d._address} has no workers: "
            "start a WorkerServer for it in this process.")
    save(dataset, path, compression=None if compression in ("AUTO", None, "NONE")
         else compression)
    return None
