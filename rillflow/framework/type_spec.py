"""`tf.TypeSpec`: the base class of rillflow's type specifications
(TensorSpec, SparseTensorSpec, RaggedTensorSpec, IndexedSlicesSpec,
DatasetSpec, IteratorSpec, VariableSpec, ExtensionType specs), so that
`isinstance(spec, tf.TypeSpec)` holds as in TensorFlow.

rillflow's composites follow the protocol docs/architecture.md describes
("Composite tensors"); this class names it and adds TensorFlow's
`_serialize`/`_deserialize` pair (Keras serializes specs with them). Unlike
TensorFlow's it is not an ABCMeta class: subclasses are not checked for the
abstract methods at instantiation (an isinstance check on an ABC is slower,
and specs are checked on hot paths), so a missing one fails when called.
"""
from .api_export import export

__all__ = ["TypeSpec"]


@export("TypeSpec")
class TypeSpec:
    """The type of a value made of tensors (`tf.TypeSpec`): each subclass
    describes one kind of value (`value_type`), the TensorSpecs of its
    component tensors (`_component_specs`) and how a value is split into
    components and rebuilt (`_to_components`, `_from_components`)."""

    __slots__ = ()

    @property
    def value_type(self):
        """The Python type of the values this spec describes."""
        raise NotImplementedError(f"{type(self).__name__} does not define value_type")

    def _serialize(self):
        """The constructor arguments that rebuild this spec, as a tuple:
        `type(spec)._deserialize(spec._serialize()) == spec`."""
        raise NotImplementedError(f"{type(self).__name__} does not define _serialize")

    @classmethod
    def _deserialize(cls, serialization):
        """The spec `_serialize` described."""
        return cls(*serialization)
