"""What IndexedSlices and SparseTensor share: three component tensors
(`values`, `indices`, `dense_shape`) and the properties that delegate to
them."""
from .tensor import SymbolicTensor

__all__ = ["CompositeTensor"]


class CompositeTensor:
    """Base of the composite tensors made of `values`, `indices` and
    `dense_shape`: a tensor to `tf.is_tensor`, expanded by `tf.nest` with
    `expand_composites=True`. Subclasses set `_values`, `_indices` and
    `_dense_shape` and define `_to_components`."""

    _is_tensor_like = True
    _is_composite_tensor = True

    @property
    def values(self):
        """The stored entries (rows for IndexedSlices, elements for SparseTensor)."""
        return self._values

    @property
    def indices(self):
        """Where each entry goes in the dense tensor."""
        return self._indices

    @property
    def dense_shape(self):
        """The shape of the dense tensor (a 1-D tensor; None for an
        IndexedSlices made without one)."""
        return self._dense_shape

    @property
    def dtype(self):
        """The element type (that of `values`)."""
        return self._values.dtype

    @property
    def device(self):
        """The device of `values`."""
        return self._values.device

    @property
    def op(self):
        """The op producing `values` (graphs only)."""
        return self._values.op

    def consumers(self):
        """The ops that read any of the components (graphs only)."""
        out = []
        for c in self._to_components():
            if isinstance(c, SymbolicTensor):
                out.extend(op for op in c.consumers() if not any(op is o for o in out))
        return out
