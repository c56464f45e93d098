"""`tf.TensorSpec`: the type of a tensor (shape, dtype, optional name)."""
import numpy as np

from . import dtypes as _dtypes
from .tensor_shape import TensorShape, as_shape

__all__ = ["TensorSpec"]


class TensorSpec:
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
        from .tensor import Tensor
        return Tensor

    def is_compatible_with(self, spec_or_tensor):
        """Whether a tensor (or spec) has this dtype and a compatible shape."""
        other_dtype = getattr(spec_or_tensor, "dtype", None)
        other_shape = getattr(spec_or_tensor, "shape", None)
        if other_dtype is None:
            try:
                arr = np.asarray(spec_or_tensor)
            except Exception:
                return False
            other_dtype, other_shape = _dtypes.from_numpy(arr.dtype), TensorShape(arr.shape)
        try:
            other_dtype = _dtypes.as_dtype(other_dtype)
        except TypeError:
            return False
        return other_dtype is self._dtype and self._shape.is_compatible_with(other_shape)

    def is_subtype_of(self, other):
        """Whether every tensor matching this spec also matches `other`."""
        return (isinstance(other, TensorSpec) and other._dtype is self._dtype
                and self._shape.is_subtype_of(other._shape))

    def most_specific_common_supertype(self, others):
        """The most specific spec that this and every spec in `others` match, or None."""
        shape = self._shape
        for o in others:
            if not isinstance(o, TensorSpec) or o._dtype is not self._dtype:
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
