"""`tf.RaggedTensorSpec`: the type of a RaggedTensor (shape with None for
the ragged dimensions, dtype, ragged rank, row splits dtype): how traced
functions key their traces and how tf.data batches and unbatches ragged
components. Importing it gives `RaggedTensor._type_spec` its class."""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.component_batching import slice_iter, stack_components
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.tensor_spec import TensorSpec
from ...framework.type_spec import TypeSpec
from .ragged_tensor import RaggedTensor, _from_components
from ...framework.type_spec import TypeSpec


@export("RaggedTensorSpec")
class RaggedTensorSpec(TypeSpec):
    """The type of a RaggedTensor: shape (ragged dimensions None), dtype,
    ragged rank and row splits dtype (`tf.RaggedTensorSpec`)."""

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype")

    def __init__(self, shape=None, dtype=D.float32, ragged_rank=None,
                 row_splits_dtype=D.int64, flat_values_spec=None):
        self._shape = as_shape(shape)
        self._dtype = D.as_dtype(dtype)
        self._row_splits_dtype = D.as_dtype(row_splits_dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        # As in TensorFlow a ragged_rank below 0 is allowed: unbatching the
        # dense rows of a ragged_rank 0 spec gives one, and batching it again
        # gives the rows back.
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        self._ragged_rank = ragged_rank

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor."""
        return value._type_spec

    shape = property(lambda self: self._shape, doc="The (partial) shape.")
    dtype = property(lambda self: self._dtype, doc="The values' dtype.")
    ragged_rank = property(lambda self: self._ragged_rank, doc="The ragged dimensions.")
    row_splits_dtype = property(lambda self: self._row_splits_dtype,
                                doc="int64 or int32.")
    value_type = property(lambda self: RaggedTensor, doc="RaggedTensor.")

    def _serialize(self):
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
    flat_values_spec = property(lambda self: None,
                                doc="None: the flat values' spec follows from the rest.")

    @property
    def _component_specs(self):
        if self._ragged_rank <= 0:
            # The value is a plain tensor of this shape.
            return [TensorSpec(self._shape, self._dtype)]
        dims = self._shape.as_list() if self._shape.rank is not None else None
        inner = TensorShape(None) if dims is None else \
            TensorShape([None] + dims[self._ragged_rank + 1:])
        nrows = None if dims is None else dims[0]
        outer = TensorSpec([None if nrows is None else nrows + 1], self._row_splits_dtype)
        return [TensorSpec(inner, self._dtype), outer] + [
            TensorSpec([None], self._row_splits_dtype) for _ in range(self._ragged_rank - 1)]

    def _to_components(self, value=None):
        return list(self._component_specs) if value is None else value._to_components()

    def _from_components(self, components):
        return _from_components(list(components))

    def _trace_key(self):
        s = self._shape
        return ("RaggedTensor", self._dtype, None if s.rank is None else tuple(s.as_list()),
                self._ragged_rank, self._row_splits_dtype)

    @property
    def _arg_spec(self):
        return self

    def _check_value(self, value, specs_ok=False):
        """Raises a TypeError unless `value` (a RaggedTensor, or with
        `specs_ok` a spec) fits this spec (an input_signature's)."""
        if isinstance(value, RaggedTensorSpec) and specs_ok:
            other = value
        elif isinstance(value, RaggedTensor):
            other = value._type_spec
        else:
            raise TypeError("Can not cast %r to %r" % (value, self))
        if not self.is_compatible_with(other):
            raise TypeError("Can not cast %r to %r" % (other, self))

    def is_compatible_with(self, spec_or_value):
        """Whether a RaggedTensor (or spec) has this type and a compatible shape
        (for ragged_rank 0, also a plain tensor or TensorSpec of a compatible
        shape, as in TensorFlow)."""
        other = spec_or_value
        if isinstance(other, RaggedTensor):
            other = other._type_spec
        if self._ragged_rank == 0 and isinstance(other, (Tensor, TensorSpec)):
            return other.dtype is self._dtype and self._shape.is_compatible_with(other.shape)
        return (isinstance(other, RaggedTensorSpec) and self._dtype is other._dtype
                and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype is other._row_splits_dtype
                and self._shape.is_compatible_with(other._shape))

    def is_subtype_of(self, other):
        """Whether every value of this spec is also one of `other`."""
        return (isinstance(other, RaggedTensorSpec) and self._dtype is other._dtype
                and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype is other._row_splits_dtype
                and self._shape.is_subtype_of(other._shape))

    def most_specific_common_supertype(self, others):
        """The most specific spec matching this one and all `others`, or None
        (for another dtype, ragged rank or row splits dtype)."""
        shape = self._shape
        for o in others:
            if not isinstance(o, RaggedTensorSpec) or o._dtype is not self._dtype or \
                    o._ragged_rank != self._ragged_rank or \
                    o._row_splits_dtype is not self._row_splits_dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    # --- batching (tf.data `batch` / `unbatch` / `from_tensor_slices`) ---------
    def _batch(self, batch_size):
        """The spec of a batch of `batch_size` values of this spec: one more
        leading dimension, ragged (`batch_size` may be None)."""
        return RaggedTensorSpec(TensorShape([batch_size]).concatenate(self._shape),
                                self._dtype, self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self):
        """The spec of the rows of a value of this spec (one ragged dimension
        fewer; below 0 the rows are plain tensors, as in TensorFlow)."""
        return RaggedTensorSpec(self._shape[1:], self._dtype, self._ragged_rank - 1,
                                self._row_splits_dtype)

    def _batch_numpy(self, rows):
        """The components (NumPy) of the batch (a value of `_batch()`) of the
        values of this spec whose components are `rows`: their rows
        concatenated, with new outer row splits.

        Raises:
          InvalidArgumentError: for rows whose uniform inner dimensions differ.
        """
        k = self._ragged_rank
        if k < 0:
            return [stack_components(rows, 0)]
        splits_np = self._row_splits_dtype._np
        flat = [np.asarray(r[0]) for r in rows]
        inner = flat[0].shape[1:]
        for f in flat:
            if f.ndim == 0 or f.shape[1:] != inner:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot batch RaggedTensors whose inner dimensions differ: "
                    f"{list(flat[0].shape)} and {list(f.shape)}.")
        # Level j of the batch splits the rows of level j-1; each element's
        # splits move by the number of items before it at that level.
        nrows = [len(f) if k == 0 else len(r[1]) - 1 for f, r in zip(flat, rows)]
        levels = [np.concatenate([[0], np.cumsum(nrows)]).astype(splits_np)]
        for j in range(1, k + 1):
            parts, offset = [np.zeros(1, splits_np)], 0
            for r in rows:
                sp = np.asarray(r[j])
                parts.append((sp[1:] + offset).astype(splits_np, copy=False))
                offset += int(sp[-1])
            levels.append(np.concatenate(parts))
        return [np.concatenate(flat)] + levels

    def _unbatch_numpy(self, components):
        """The components (NumPy) of each row (a value of `_unbatch()`) of the
        value of this spec whose components are `components`.

        Raises:
          InvalidArgumentError: for a scalar.
        """
        k = self._ragged_rank
        flat = components[0]
        if k <= 0:
            if np.ndim(flat) == 0:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot unbatch an input with scalar components.")
            return [[v] for v in slice_iter(flat)]
        out = []
        outer = components[1]
        for i in range(len(outer) - 1):
            a, b = int(outer[i]), int(outer[i + 1])
            row = []
            for sp in components[2:]:
                # This row's part of the next level, shifted to start at 0.
                row.append(sp[a:b + 1] - sp[a])
                a, b = int(sp[a]), int(sp[b])
            out.append([flat[a:b]] + row)
        return out

    def __eq__(self, other):
        return type(other) is RaggedTensorSpec and self._trace_key() == other._trace_key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return "RaggedTensorSpec(%r, %r, %d, %r)" % (
            self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)


RaggedTensor._spec_class = RaggedTensorSpec

