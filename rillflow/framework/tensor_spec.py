"""`tf.TensorSpec`: the type of a tensor (shape, dtype, optional name)."""

from . import dtypes as _dtypes
from .convert import convert_to_tensor
from .tensor_shape import as_shape
from .tensor import Tensor
from .type_spec import TypeSpec

__all__ = ["TensorSpec", "type_spec_from_value"]


class TensorSpec(TypeSpec):
    """Describes a tensor: `TensorSpec(shape, dtype=tf.float32, name=None)`.

    Used as `tf.function(input_signature=...)` entries and in concrete
    function signatures. `None` dimensions (or shape `None`) match any size.
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=_dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of an existing tensor (named after it in graphs)."""
        if name is None:
            try:
                name = tensor.op.name
            except AttributeError:
                name = None
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        """A copy of `spec`, optionally renamed."""
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    @property
    def shape(self):
        """The (possibly partial) TensorShape."""
        return self._shape

    @property
    def dtype(self):
        """The DType."""
        return self._dtype

    @property
    def name(self):
        """The name, or None."""
        return self._name

    @property
    def value_type(self):
        """The Python type of values matching this spec."""
        return Tensor

    def _serialize(self):
        return (self._shape, self._dtype, self._name)

    def is_compatible_with(self, spec_or_tensor):
        """Whether a tensor (or spec) has this dtype and a compatible shape;
        anything else (NumPy arrays, Python values, variables) is not, as in
        TensorFlow."""
        if not isinstance(spec_or_tensor, (TensorSpec, Tensor)):
            return False
        return (spec_or_tensor.dtype is self._dtype
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def is_subtype_of(self, other):
        """Whether every tensor matching this spec also matches `other`."""
        return (isinstance(other, TensorSpec) and other._dtype is self._dtype
                and self._shape.is_subtype_of(other._shape))

    def most_specific_common_supertype(self, others):
        """The most specific spec that this and every spec in `others` match, or
        None (for another dtype or name)."""
        shape = self._shape
        for o in others:
            if not isinstance(o, TensorSpec) or o._dtype is not self._dtype or \
                    o._name != self._name:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return TensorSpec(shape, self._dtype, self._name)

    def __eq__(self, other):
        return (type(other) is type(self) and self._dtype is other._dtype
                and self._shape == other._shape and self._name == other._name)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self._shape, self._dtype, self._name))

    def __reduce__(self):
        return TensorSpec, (self._shape, self._dtype, self._name)

    def __repr__(self):
        name = repr(self._name) if self._name is not None else "None"
        return "TensorSpec(shape=%s, dtype=%r, name=%s)" % (self._shape, self._dtype, name)


def type_spec_from_value(value):
    """The type spec of `value` (`tf.type_spec_from_value`): a TensorSpec for
    tensors and values convertible to one, the object's own spec for
    variables and other typed objects.

    Raises:
      TypeError: for a value with no type spec.
    """
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    spec = getattr(value, "_type_spec", None)
    if spec is not None:
        return spec
    try:
        t = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type "
                        f"{type(value)}.") from None
    return TensorSpec(t.shape, t.dtype)

