"""`tf.__internal__`: the TensorFlow-internal names Keras 3 reaches through
the public module. Built by `build()` and attached to rillflow only while the
shim makes rillflow stand in for `tensorflow` (TensorFlow's own
`tf.__internal__` is not a public API, so `rillflow` does not carry it)."""
import abc
import contextlib
import types

from rillflow.framework import context as _context
from rillflow.framework.exports import _get_static_value
from rillflow.framework.func_graph import FuncGraph
from rillflow.framework.tensor import EagerTensor, Tensor as _Tensor
from rillflow.ops.control_flow.cond import cond as _cond
from rillflow.ops.state.variables import Variable
from . import tracking


class CompositeTensor(metaclass=abc.ABCMeta):
    """`tf.__internal__.CompositeTensor`: every rillflow composite
    (SparseTensor, IndexedSlices, RaggedTensor, ExtensionType values) is an
    instance, found by the `_is_composite_tensor` flag they all set."""

    @classmethod
    def __subclasshook__(cls, C):
        if cls is CompositeTensor:
            return True if getattr(C, "_is_composite_tensor", False) else NotImplemented
        return NotImplemented


class TensorType(metaclass=abc.ABCMeta):
    """`tf.__internal__.types.Tensor`, the abstract base TensorFlow gives its
    tensors and variables; Keras derives its backend Variable from it."""

    # `tf.is_tensor` is true for its instances, as TensorFlow's is for a
    # types.core.Tensor (Keras' convert_to_tensor then casts a Keras
    # variable of another dtype instead of converting it with a dtype).
    _is_tensor_like = True


TensorType.register(_Tensor)
TensorType.register(Variable)


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """Calls `true_fn` or `false_fn` directly when `pred` is known now (a
    Python bool or a tensor with a static value), else builds `tf.cond`."""
    value = pred if isinstance(pred, (bool, int)) else _get_static_value(pred)
    if value is None:
        return _cond(pred, true_fn, false_fn, name=name)
    return true_fn() if value else false_fn()


def unwrap(maybe_decorated):
    """`tf.__internal__.decorator.unwrap`: (decorators, target) following
    `__wrapped__`; rillflow keeps no TFDecorator objects, so the list holds the
    wrapper functions themselves."""
    decorators = []
    cur = maybe_decorated
    while hasattr(cur, "__wrapped__"):
        decorators.append(cur)
        cur = cur.__wrapped__
    return decorators, cur


def strategy_supports_no_merge_call():
    """Whether the current strategy can update without `merge_call`: always,
    as rillflow's strategies run replicas one after another in one process."""
    return True


def maybe_merge_call(fn, strategy, *args, **kwargs):
    """Calls `fn(strategy, *args, **kwargs)` (TensorFlow's no-merge-call path,
    the one every rillflow strategy takes)."""
    return fn(strategy, *args, **kwargs)


@contextlib.contextmanager
def eager_mode():
    """Runs the block eagerly, leaving any graph being built."""
    with _context.eager_mode():
        yield


def _namespace(name, **members):
    mod = types.ModuleType(name)
    mod.__dict__.update(members)
    return mod


class _FuncGraph(FuncGraph):
    """`tf.__internal__.FuncGraph`: as TensorFlow's, a graph made while
    another is being built is nested in it (its outer graph is the default
    graph at construction), so it can capture that graph's tensors (Keras'
    `compute_output_spec` runs a layer's `call` in such a graph inside
    another's)."""

    def __init__(self, name, outer_graph=None, **kwargs):
        super().__init__(name, outer_graph=outer_graph if outer_graph is not None
                         else _context.state.graph)


def build():
    """The `tf.__internal__` module object."""
    return _namespace(
        "tensorflow.__internal__",
        __doc__="TensorFlow-internal names Keras uses (rillflow stand-ins).",
        CompositeTensor=CompositeTensor,
        EagerTensor=EagerTensor,
        FuncGraph=_FuncGraph,
        types=_namespace("tensorflow.__internal__.types", Tensor=TensorType),
        tracking=_namespace("tensorflow.__internal__.tracking",
                            Trackable=tracking.Trackable,
                            AutoTrackable=tracking.AutoTrackable,
                            no_automatic_dependency_tracking=tracking.no_automatic_dependency_tracking),
        smart_cond=_namespace("tensorflow.__internal__.smart_cond", smart_cond=smart_cond),
        decorator=_namespace("tensorflow.__internal__.decorator", unwrap=unwrap),
        distribute=_namespace(
            "tensorflow.__internal__.distribute",
            strategy_supports_no_merge_call=strategy_supports_no_merge_call,
            interim=_namespace("tensorflow.__internal__.distribute.interim",
                               maybe_merge_call=maybe_merge_call)),
        eager_context=_namespace("tensorflow.__internal__.eager_context", eager_mode=eager_mode),
    )
