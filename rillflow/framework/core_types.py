"""`tf.types.experimental`: the abstract types of functions and trace types.

They let user code ask what an object is (`isinstance(f,
tf.types.experimental.PolymorphicFunction)`) and define how its own
objects take part in tracing: a class with a `__tf_tracing_type__(context)`
method (`SupportsTracingProtocol`) returns a `TraceType`, and calls whose
arguments have equal trace types share a trace.

rillflow's Function, ConcreteFunction and AtomicFunction subclass the
function types here; TensorSpec is registered as a TraceType.
"""
import abc
import inspect
import typing

import numpy as np

from .api_export import export, export_value
from .tensor import Tensor
from .tensor_spec import TensorSpec

__all__ = ["TraceType", "SupportsTracingProtocol", "TracingContext", "Callable",
           "AtomicFunction", "ConcreteFunction", "PolymorphicFunction", "FunctionType",
           "TensorLike"]


@export("types.experimental.TraceType")
class TraceType(abc.ABC):
    """The type of a traced argument: decides which calls share a trace.

    A subclass says when it is a subtype of another trace type (calls of the
    subtype can use a trace made for the supertype), their most specific
    common supertype, and the value the Python function receives while
    tracing (`placeholder_value`). Equal trace types (with equal hashes)
    select the same trace.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """Whether every value of this type is also of type `other`."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that this and each of `others` are subtypes
        of, or None when there is none."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context):
        """The value that stands for arguments of this type while tracing."""

    def to_tensors(self, value):
        """The tensors of `value` that a trace takes as inputs (none here)."""
        return []

    def from_tensors(self, tensors):
        """A value of this type made from the tensors of `to_tensors`."""
        return self.placeholder_value(None)

    def flatten(self):
        """The trace types of the tensors of `to_tensors` (none here)."""
        return []

    def cast(self, value, cast_context):
        """`value` as a value of this type (unchanged here)."""
        return value

    @abc.abstractmethod
    def __eq__(self, other):
        pass

    @abc.abstractmethod
    def __hash__(self):
        pass


@export("types.experimental.SupportsTracingProtocol")
@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """An object that gives its own TraceType: `__tf_tracing_type__(context)`."""

    @abc.abstractmethod
    def __tf_tracing_type__(self, context):
        """The TraceType of this object."""


class TracingContext:
    """What `__tf_tracing_type__` receives: the context of one call's trace
    types (nothing a trace type needs to read in rillflow)."""

    __slots__ = ()


class PlaceholderContext:
    """What `TraceType.placeholder_value` receives while a trace is made."""

    __slots__ = ()


@export("types.experimental.Callable")
class Callable(abc.ABC):
    """Base of everything callable that TensorFlow functions are: has a
    `function_type` (its parameters and output)."""

    @property
    @abc.abstractmethod
    def function_type(self):
        """The FunctionType of this callable."""

    def __call__(self, *args, **kwargs):
        """Calls the function."""


@export("types.experimental.AtomicFunction")
class AtomicFunction(Callable):
    """One graph function, called with its flat inputs (`inference_fn`)."""

    def call_with_captures(self, args, kwargs, captures):
        """Calls the function with explicit captured values."""


@export("types.experimental.ConcreteFunction")
class ConcreteFunction(Callable):
    """One trace of a PolymorphicFunction for one input signature."""

    @property
    @abc.abstractmethod
    def inference_fn(self):
        """The AtomicFunction that runs the forward pass."""


@export("types.experimental.PolymorphicFunction", "types.experimental.GenericFunction")
class PolymorphicFunction(Callable):
    """A function that makes (and picks) a ConcreteFunction for each input
    signature it is called with (`tf.function`'s result)."""

    @abc.abstractmethod
    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments."""

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """The compiler IR (not available in rillflow)."""
        raise NotImplementedError("experimental_get_compiler_ir is not available in rillflow.")


@export("types.experimental.FunctionType")
class FunctionType(inspect.Signature):
    """The parameters (with their type constraints) and the output type of a
    function: an `inspect.Signature`."""

    @classmethod
    def from_callable(cls, obj, *, follow_wrapped=True):
        """The FunctionType of a Python callable."""
        return super().from_callable(obj, follow_wrapped=follow_wrapped)


# What converts to a tensor (as TensorFlow's TensorLike).
TensorLike = export_value(typing.Union[Tensor, int, float, bool, str, bytes, complex, tuple,
                                       list, np.ndarray, np.generic],
                          "types.experimental.TensorLike")


# TensorFlow's TensorSpec is a TraceType: a tensor argument's trace type.
TraceType.register(TensorSpec)
