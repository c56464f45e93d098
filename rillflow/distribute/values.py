"""The values a strategy with several replicas hands around:
`tf.distribute.DistributedValues`, `PerReplica` (one value per replica) and
`Mirrored` (the same value on every replica).

A `PerReplica` here holds its replicas' values as one tensor, stacked along
a new first axis (`[replicas, ...]`): that is the layout the SPMD runner
(spmd.py) shards over the devices, so a distributed dataset's element, the
result of `strategy.run` and the argument of the next `run` pass between
them without copies. `values` unstacks it. In a multi-worker strategy the
stacked tensor holds this worker's replicas (TensorFlow's "local results")
and `_global` the JAX array over every worker's.
"""
from ..framework.api_export import export
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from ..ops.core.join_ops import unstack

__all__ = ["DistributedValues", "PerReplica", "Mirrored"]


@export("distribute.DistributedValues")
class DistributedValues:
    """Base of the values with one component per replica.

    Args:
      values: the components, one per local replica (a list or tuple).
    """

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        """The components, one per local replica."""
        return self._values

    def _get_on_device_or_primary(self):
        return self.values[0]

    def __repr__(self):
        body = ",\n".join("  %d: %r" % (i, v) for i, v in enumerate(self.values))
        return "%s:{\n%s\n}" % (type(self).__name__, body)

    __str__ = __repr__


@export("types.experimental.distributed.PerReplica")
class PerReplica(DistributedValues):
    """One value per replica, stored stacked (module docstring). A composite
    tensor, as TensorFlow's (Keras tells per-replica results by that).

    Args:
      stacked: a tensor whose first axis runs over the (local) replicas.
      global_value: in a multi-worker strategy, the JAX array holding every
        worker's replicas (None otherwise).
    """

    _is_composite_tensor = True

    def __init__(self, stacked, global_value=None):  # noqa: D107 - see the class
        if not isinstance(stacked, Tensor):
            raise TypeError("PerReplica holds a tensor stacked over the replicas, got %r"
                            % (stacked,))
        self._stacked = stacked
        self._global = global_value
        self._unstacked = None

    @property
    def values(self):
        """The components, one per local replica (tensors)."""
        if self._unstacked is None:
            self._unstacked = tuple(unstack(self._stacked, axis=0))
        return self._unstacked

    @property
    def dtype(self):
        """The components' dtype."""
        return self._stacked.dtype

    @property
    def num_local_replicas(self):
        """How many components this process holds."""
        return self._stacked.shape[0]

    # --- composite protocol: tf.function arguments and results ----------------------
    def _component_specs(self):
        return [TensorSpec(self._stacked.shape, self._stacked.dtype)]

    def _to_components(self):
        return [self._stacked]

    def _from_components(self, components):
        return PerReplica(components[0])

    def _trace_key(self):
        s = self._stacked.shape
        return ("PerReplica", self._stacked.dtype, None if s.rank is None else
                tuple(s.as_list()))

    @property
    def _arg_spec(self):
        return TensorSpec(self._stacked.shape, self._stacked.dtype)


@export("types.experimental.distributed.Mirrored")
class Mirrored(DistributedValues):
    """The same value on every replica (the result of an all-reduce, a
    mirrored variable's value)."""


class _DistributedVariable(DistributedValues):
    """What a variable made in the scope of a strategy with several replicas
    adds (mirrored.py makes it the variable's class): it is a
    DistributedValues whose components, one per local replica, are the
    variable itself (one value, which every replica's program reads)."""

    _num_local_replicas = 1

    @property
    def values(self):
        """The variable, once per local replica."""
        return (self,) * self._num_local_replicas

    def _get_on_device_or_primary(self):
        return self


_VARIABLE_CLASSES = {}


def as_distributed_variable(variable, num_local_replicas):
    """`variable` made a MirroredVariable (or SyncOnReadVariable, for
    synchronization ON_READ) of `num_local_replicas` components; AUTO
    synchronization becomes ON_WRITE, as in TensorFlow's mirrored strategies."""
    sync = getattr(variable, "synchronization", None)
    if getattr(sync, "name", "") == "AUTO" and hasattr(variable, "_synchronization"):
        variable._synchronization = type(sync)["ON_WRITE"]
        sync = variable._synchronization
    name = "SyncOnReadVariable" if getattr(sync, "name", "") == "ON_READ" else \
        "MirroredVariable"
    base = type(variable)
    cls = _VARIABLE_CLASSES.get((base, name))
    if cls is None:
        cls = _VARIABLE_CLASSES[(base, name)] = type(name, (base, _DistributedVariable),
                                                     {"__module__": __name__})
    variable.__class__ = cls
    variable._num_local_replicas = num_local_replicas
    return variable
