"""`tf.distribute`'s strategy classes and contexts: the default strategy,
`Strategy`, replica and cross-replica contexts, distributed datasets.

With one replica, TensorFlow's values are what a strategy gives here:
`run(fn)` is `fn`'s result, a distributed dataset yields the dataset's own
elements (no PerReplica wrappers), `reduce` over the replicas is the value
(reduced over `axis` when given; MEAN divides as `tf.truediv`), and
`experimental_local_results(v)` is `(v,)`. Strategies with several replicas
(`MirroredStrategy` over several devices, `MultiWorkerMirroredStrategy`:
mirrored.py, multi_worker.py) run their replicas as one sharded JAX
program (spmd.py) and pass `PerReplica` values (values.py).
"""
import contextlib
import enum
import threading

from ..framework import context as _context
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.device import canonical_device
from ..autograph.operators.control_flow import for_stmt
from ..ops.core.math_ops import cast, truediv
from ..ops.core.reduction_ops import reduce_sum
from ..ops.core.shape_ops import shape

_state = _context.state
_local = threading.local()

_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


@export("distribute.ReduceOp")
class ReduceOp(enum.Enum):
    """How `Strategy.reduce` combines the replicas' values."""
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        """The ReduceOp of a `tf.VariableAggregation` (SUM or MEAN).

        Raises:
          ValueError: for other aggregations.
        """
        name = getattr(aggregation, "name", None)
        if name in ("SUM", "MEAN"):
            return ReduceOp[name]
        raise ValueError(f"Could not convert from `tf.VariableAggregation` {aggregation} to "
                         "`tf.distribute.ReduceOp` type")


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


@contextlib.contextmanager
def _entered(strategy, replica):
    _stack().append((strategy, replica))
    try:
        yield
    finally:
        _stack().pop()


@export("distribute.InputContext")
class InputContext:
    """What `distribute_datasets_from_function`'s function is told about
    its input pipeline."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        """The batch size of each replica.

        Raises:
          ValueError: `global_batch_size` is not divisible by the replicas.
        """
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


@export("distribute.experimental.ValueContext")
class ValueContext:
    """What `experimental_distribute_values_from_function`'s function is told."""

    def __init__(self, replica_id_in_sync_group=0, num_replicas_in_sync=1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self):
        """The number of replicas."""
        return self._num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """The replica the value is for."""
        return self._replica_id_in_sync_group

    def __str__(self):
        return ("tf.distribute.ValueContext(replica id {},  total replicas in sync: {})"
                .format(self.replica_id_in_sync_group, self.num_replicas_in_sync))

    __repr__ = __str__


@export("distribute.ReplicaContext")
class ReplicaContext:
    """The context of code running in a replica (`tf.distribute.get_replica_context()`)."""

    def __init__(self, strategy):
        self._strategy = strategy

    @property
    def strategy(self):
        """The strategy running this replica."""
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        """The number of replicas (the strategy's)."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """0: the one replica."""
        return 0

    def all_reduce(self, reduce_op, value, options=None):
        """The value combined over the replicas: `value` itself with one."""
        return value

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """`merge_fn(strategy, *args, **kwargs)` in the cross-replica context."""
        with _entered(self._strategy, False):
            return merge_fn(self._strategy, *args, **(kwargs or {}))


@export("distribute.StrategyExtended")
class StrategyExtended:
    """The devices of a strategy (`strategy.extended`)."""

    def __init__(self, strategy, devices):
        self._container_strategy = strategy
        self._devices = tuple(devices)

    @property
    def worker_devices(self):
        """The devices the replicas run on."""
        return self._devices

    @property
    def parameter_devices(self):
        """The devices variables are placed on."""
        return self._devices

    @contextlib.contextmanager
    def colocate_vars_with(self, colocate_with_variable):
        """Variables created inside go where `colocate_with_variable` is:
        every rillflow variable lives in this process's memory already."""
        yield

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Runs `fn(var, *args, **kwargs)` to update `var` (one copy of each
        variable in rillflow, so once); returns its result."""
        return fn(var, *args, **(kwargs or {}))

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        """`fn` run in each replica (`strategy.run`)."""
        return self._container_strategy.run(fn, args=args, kwargs=kwargs)

    def _in_multi_worker_mode(self):
        """Whether several workers take part: never in rillflow."""
        return False


@export("distribute.Strategy")
class Strategy:
    """A distribution strategy with one replica (module docstring)."""

    def __init__(self, extended=None):
        self._extended = extended or StrategyExtended(self, (_CPU0,))

    @property
    def extended(self):
        """The strategy's devices."""
        return self._extended

    @property
    def num_replicas_in_sync(self):
        """The number of replicas: 1."""
        return 1

    @contextlib.contextmanager
    def scope(self):
        """Makes this the current strategy (cross-replica context; inside
        one of its replicas, the replica context stays, as in TensorFlow)."""
        stack = _stack()
        if stack and stack[-1] == (self, True):
            yield self
            return
        with _entered(self, False):
            yield self

    def _replica_scope(self):
        """Enters a replica of this strategy (while its function runs)."""
        return _entered(self, True)

    def _make_replica_context(self):
        """The ReplicaContext its replica functions see."""
        return ReplicaContext(self)

    def run(self, fn, args=(), kwargs=None, options=None):
        """`fn(*args, **kwargs)` in the one replica."""
        with _entered(self, True):
            return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op, value, axis):
        """`value` combined over the replicas (itself, with one replica), and
        then over dimension `axis` unless it is None: summed, or for MEAN
        divided by that dimension's size as `tf.truediv` divides.

        Raises:
          ValueError: an unknown `reduce_op` name.
        """
        op = reduce_op if isinstance(reduce_op, ReduceOp) else ReduceOp(reduce_op)
        if axis is None:
            return value
        value = convert_to_tensor(value)
        total = reduce_sum(value, axis)
        if op is ReduceOp.SUM:
            return total
        return truediv(total, cast(shape(value)[axis], total.dtype))

    def experimental_distribute_dataset(self, dataset, options=None):
        """`dataset` distributed over the replicas: a DistributedDataset
        yielding its elements."""
        return DistributedDataset(dataset, self)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """The dataset `dataset_fn(input_context)` makes, distributed."""
        return DistributedDataset(dataset_fn(InputContext()), self)

    def experimental_distribute_values_from_function(self, value_fn):
        """`value_fn(ValueContext)` for the one replica."""
        return value_fn(ValueContext(0, 1))

    def experimental_local_results(self, value):
        """The values of the local replicas: `(value,)`."""
        return (value,)

    def gather(self, value, axis):
        """The replicas' values concatenated along `axis`: `value`."""
        return value


class _DefaultDistributionStrategy(Strategy):
    """The strategy in effect outside any `strategy.scope()`."""

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        return dataset_fn(InputContext())


_DEFAULT = _DefaultDistributionStrategy()


def _full_device(name):
    d = canonical_device(name)
    if not d.startswith("/job:"):
        d = "/job:localhost/replica:0/task:0" + d
    return d


@export("distribute.get_strategy")
def get_strategy():
    """The current strategy: the innermost `scope()`'s, else the default one."""
    stack = _stack()
    return stack[-1][0] if stack else _DEFAULT


@export("distribute.has_strategy")
def has_strategy():
    """Whether a (non-default) strategy's scope is entered."""
    return bool(_stack())


@export("distribute.in_cross_replica_context")
def in_cross_replica_context():
    """Whether in a strategy's scope but not in one of its replicas."""
    stack = _stack()
    return bool(stack) and not stack[-1][1]


@export("distribute.get_replica_context")
def get_replica_context():
    """The replica context, or None in a cross-replica context."""
    stack = _stack()
    if not stack:
        return ReplicaContext(_DEFAULT)
    strategy, replica = stack[-1]
    return strategy._make_replica_context() if replica else None


def current_spmd_replica():
    """The strategy whose sharded program is being traced (a replica of a
    strategy with several replicas), else None."""
    stack = _stack()
    if not stack or not stack[-1][1]:
        return None
    strategy = stack[-1][0]
    return strategy if getattr(strategy, "_runner", None) is not None else None


@export("distribute.DistributedDataset")
class DistributedDataset:
    """A dataset distributed over a strategy's replicas: iterates (eagerly,
    in tf.function and in AutoGraph loops) as the dataset does, and passes
    into tf.function as the dataset does. With one replica its elements are
    the dataset's; with several, `wrap` makes each element's tensors
    `PerReplica` values (the dataset then yields them stacked over the
    replicas: mirrored.py)."""

    def __init__(self, dataset, strategy, wrap=None):
        self._dataset = dataset
        self._strategy = strategy
        self._wrap = wrap

    @property
    def element_spec(self):
        """The spec of the elements (stacked over the replicas with several)."""
        return self._dataset.element_spec

    def __iter__(self):
        return DistributedIterator(iter(self._dataset), self._wrap)

    def reduce(self, initial_state, reduce_func):
        """`reduce_func` folded over the elements."""
        if self._wrap is not None:
            wrap = self._wrap
            return self._dataset.reduce(initial_state, lambda s, *e: reduce_func(
                s, wrap(e if len(e) > 1 else e[0])))
        return self._dataset.reduce(initial_state, reduce_func)

    def cardinality(self):
        """The number of elements (-1 infinite, -2 unknown)."""
        return self._dataset.cardinality()

    def _autograph_for_loop(self, extra_test, body, get_state, set_state, symbol_names, opts):
        # As TensorFlow's loops over distributed datasets, unlike dataset loops,
        # the loop variables keep their shapes: a loop over an iterator.
        for_stmt(iter(self._dataset), extra_test, _wrapped_body(body, self._wrap), get_state,
                 set_state, symbol_names, opts)

    # --- composite protocol: the dataset's --------------------------------------------
    def _component_specs(self):
        return self._dataset._component_specs()

    def _to_components(self):
        return self._dataset._to_components()

    def _from_components(self, components):
        return DistributedDataset(self._dataset._from_components(components), self._strategy,
                                  self._wrap)

    def _trace_key(self):
        return ("DistributedDataset", id(self._strategy), self._dataset._trace_key())

    @property
    def _arg_spec(self):
        return self._dataset._arg_spec


def _wrapped_body(body, wrap):
    if wrap is None:
        return body
    return lambda element: body(wrap(element))


@export("distribute.DistributedIterator")
class DistributedIterator:
    """The iterator of a DistributedDataset: the dataset iterator's elements
    (made `PerReplica` by `wrap` with several replicas)."""

    def __init__(self, iterator, wrap=None):
        self._iterator = iterator
        self._wrap = wrap

    @property
    def element_spec(self):
        """The spec of the elements."""
        return self._iterator.element_spec

    def __iter__(self):
        return self

    def _wrapped(self, element):
        return element if self._wrap is None else self._wrap(element)

    def __next__(self):
        return self._wrapped(next(self._iterator))

    def get_next(self):
        """The next element; OutOfRangeError at the end."""
        return self._wrapped(self._iterator.get_next())

    def get_next_as_optional(self):
        """The next element as an Optional (empty at the end)."""
        if self._wrap is not None:
            raise NotImplementedError("get_next_as_optional with several replicas")
        return self._iterator.get_next_as_optional()

    def _autograph_for_loop(self, extra_test, body, get_state, set_state, symbol_names, opts):
        for_stmt(self._iterator, extra_test, _wrapped_body(body, self._wrap), get_state,
                 set_state, symbol_names, opts)

    # --- composite protocol: the iterator's -------------------------------------------
    def _component_specs(self):
        return self._iterator._component_specs()

    def _to_components(self):
        return self._iterator._to_components()

    def _from_components(self, components):
        return DistributedIterator(self._iterator._from_components(components), self._wrap)

    def _trace_key(self):
        return ("DistributedIterator", self._iterator._trace_key())

    @property
    def _arg_spec(self):
        return self._iterator._arg_spec


class _UnavailableStrategy(Strategy):
    """A TensorFlow strategy rillflow cannot run (several workers, TPUs):
    present for `isinstance` checks, refused on construction."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"tf.distribute.{type(self).__name__} is not available "
                                  "in rillflow (one process, CPU only)")


@export("distribute.TPUStrategy")
class TPUStrategy(_UnavailableStrategy):
    """Not available in rillflow: it has no TPUs."""
