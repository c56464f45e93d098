"""`tf.NoneTensorSpec`: `None` as a component of a `tf.data` element (Keras
feeds optional model inputs as None). A None leaf has no component tensors;
rebuilt from its spec it is None again, and it batches and unbatches to
itself."""
from .api_export import export
from .type_spec import TypeSpec

__all__ = ["NoneTensor", "NoneTensorSpec"]


class NoneTensor:
    """The element leaf a `None` becomes inside tf.data (users see None)."""

    __slots__ = ()

    @property
    def _type_spec(self):
        return NoneTensorSpec()

    def _to_components(self):
        return []

    def _from_components(self, tensors):
        return None


@export("NoneTensorSpec")
class NoneTensorSpec(TypeSpec):
    """The spec of a `None` element component (`tf.NoneTensorSpec`): no
    component tensors."""

    __slots__ = ()

    @property
    def value_type(self):
        """`NoneType`."""
        return type(None)

    def _serialize(self):
        return ()

    def _component_specs(self):
        return []

    def _to_components(self, value=None):
        return []

    def _from_components(self, tensors):
        return None

    # batching: a batch (or a row) of Nones is None
    def _batch(self, batch_size):
        return self

    def _unbatch(self):
        return self

    def _batch_numpy(self, rows):
        return []

    def _unbatch_numpy(self, values):
        return None   # contributes no column: the other leaves give the row count

    def _trace_key(self):
        return ("NoneTensorSpec",)

    def is_compatible_with(self, other):
        """Whether `other` is a NoneTensorSpec (or None)."""
        return other is None or isinstance(other, NoneTensorSpec)

    def most_specific_compatible_type(self, other):
        """This spec, for another NoneTensorSpec."""
        if not isinstance(other, NoneTensorSpec):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return self

    def __eq__(self, other):
        return isinstance(other, NoneTensorSpec)

    def __hash__(self):
        return hash(NoneTensorSpec)

    def __repr__(self):
        return "NoneTensorSpec()"
