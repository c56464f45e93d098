"""How replicas' values are combined, and the option records of
`tf.distribute`: `CrossDeviceOps` and its TensorFlow flavours
(`ReductionToOneDevice`, `NcclAllReduce`, `HierarchicalCopyAllReduce`),
`CommunicationOptions`/`CollectiveHints`/`CommunicationImplementation`,
`InputOptions`/`InputReplicationMode`, `RunOptions`; and
the strategies that are MirroredStrategy's with other placements:
`OneDeviceStrategy`, `experimental.CentralStorageStrategy`.

In TensorFlow the cross-device ops choose how an all-reduce travels between
devices (NCCL, a copy tree, one device). Here the all-reduce of a sharded
program is XLA's (spmd.py), which picks its own algorithm; the classes keep
their configuration and reduce `PerReplica` values when called directly.
"""
import collections
import enum

from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..ops.core.math_ops import cast, truediv
from ..ops.core.reduction_ops import reduce_sum
from .mirrored import MirroredStrategy
from .strategy import ReduceOp, Strategy, StrategyExtended, ValueContext, _full_device  # noqa: F401
from .values import PerReplica

__all__ = ["CrossDeviceOps", "ReductionToOneDevice", "NcclAllReduce",
           "HierarchicalCopyAllReduce", "OneDeviceStrategy", "CentralStorageStrategy"]


@export("distribute.CrossDeviceOps")
class CrossDeviceOps:
    """Combines the values of replicas (the base of the cross-device ops)."""

    def reduce(self, reduce_op, per_replica_value, destinations, options=None):
        """`per_replica_value` summed or averaged over its replicas (a value
        that is not per-replica is the same on every replica: itself).

        Raises:
          ValueError: an unknown `reduce_op`.
        """
        op = reduce_op if isinstance(reduce_op, ReduceOp) else ReduceOp(reduce_op)
        if not isinstance(per_replica_value, PerReplica):
            return convert_to_tensor(per_replica_value)
        total = reduce_sum(per_replica_value._stacked, 0)
        if op is ReduceOp.SUM:
            return total
        n = per_replica_value._stacked.shape[0]
        return truediv(total, cast(n, total.dtype))

    def batch_reduce(self, reduce_op, value_destination_pairs, options=None):
        """`reduce` of each (value, destinations) pair."""
        return [self.reduce(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast(self, tensor, destinations):
        """`tensor` on every destination: the same value here."""
        return tensor


@export("distribute.ReductionToOneDevice")
class ReductionToOneDevice(CrossDeviceOps):
    """Reduces on one device (`reduce_to_device`, default the first
    destination) with `accumulation_fn` (default `tf.math.add_n`)."""

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class _AllReduceCrossDeviceOps(CrossDeviceOps):
    def __init__(self, num_packs=1):
        if num_packs < 0:
            raise ValueError("NCCL all-reduce requires num_packs >= 0, but {} is specified"
                             .format(num_packs))
        self._num_packs = num_packs


@export("distribute.NcclAllReduce")
class NcclAllReduce(_AllReduceCrossDeviceOps):
    """All-reduce through NCCL in TensorFlow (XLA's collectives here), with
    the gradients packed into `num_packs` groups.

    Raises:
      ValueError: a negative `num_packs`.
    """


@export("distribute.HierarchicalCopyAllReduce")
class HierarchicalCopyAllReduce(_AllReduceCrossDeviceOps):
    """All-reduce by a tree of copies in TensorFlow (XLA's collectives
    here), with the gradients packed into `num_packs` groups.

    Raises:
      ValueError: a negative `num_packs`.
    """


@export("distribute.experimental.CommunicationImplementation",
        "distribute.experimental.CollectiveCommunication")
class CommunicationImplementation(enum.Enum):
    """Which collective implementation a multi-worker strategy uses."""
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


@export("distribute.experimental.CommunicationOptions")
class CommunicationOptions:
    """Options of the collectives: pack size, timeout, implementation."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None,
                 implementation=CommunicationImplementation.AUTO):
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("implementation should be a "
                             "tf.distribute.experimental.CommunicationImplementation")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation


@export("distribute.experimental.CollectiveHints")
class CollectiveHints:
    """The older form of CommunicationOptions (pack size and timeout)."""

    def __init__(self, bytes_per_pack=0, timeout_seconds=None):
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds


@export("distribute.InputReplicationMode")
class InputReplicationMode(enum.Enum):
    """Whether each worker or each replica has its own input pipeline."""
    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


_InputOptionsBase = collections.namedtuple("InputOptions", [
    "experimental_fetch_to_device", "experimental_replication_mode",
    "experimental_place_dataset_on_device", "experimental_per_replica_buffer_size"])


@export("distribute.InputOptions")
class InputOptions(_InputOptionsBase):
    """Options of distributed datasets (recorded; rillflow's input is on the host)."""

    def __new__(cls, experimental_fetch_to_device=None,
                experimental_replication_mode=InputReplicationMode.PER_WORKER,
                experimental_place_dataset_on_device=False,
                experimental_per_replica_buffer_size=1):
        if experimental_fetch_to_device is None:
            experimental_fetch_to_device = True
        return super().__new__(cls, experimental_fetch_to_device, experimental_replication_mode,
                               experimental_place_dataset_on_device,
                               experimental_per_replica_buffer_size)


_RunOptionsBase = collections.namedtuple("RunOptions", [
    "experimental_enable_dynamic_batch_size", "experimental_bucketizing_dynamic_shape",
    "experimental_xla_options"])


@export("distribute.RunOptions")
class RunOptions(_RunOptionsBase):
    """Options of `strategy.run` (TPU settings in TensorFlow; recorded here)."""

    def __new__(cls, experimental_enable_dynamic_batch_size=True,
                experimental_bucketizing_dynamic_shape=False, experimental_xla_options=None):
        return super().__new__(cls, experimental_enable_dynamic_batch_size,
                               experimental_bucketizing_dynamic_shape,
                               experimental_xla_options)


@export("distribute.OneDeviceStrategy")
class OneDeviceStrategy(Strategy):
    """One replica, on `device` (rillflow computes on the host CPU; the
    device is the strategy's name for it)."""

    def __init__(self, device):
        super().__init__(StrategyExtended(self, (_full_device(device),)))


@export("distribute.experimental.CentralStorageStrategy")
class CentralStorageStrategy(MirroredStrategy):
    """Variables on one device, computation mirrored over `compute_devices`.
    In a sharded program every replica reads the variables' one value
    already, so this is MirroredStrategy over the compute devices."""

    def __init__(self, compute_devices=None, parameter_device=None):
        super().__init__(devices=compute_devices)
        self._parameter_device = parameter_device
