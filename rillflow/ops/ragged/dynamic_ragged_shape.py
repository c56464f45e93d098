"""`tf.experimental.RowPartition` and `tf.experimental.DynamicRaggedShape`:
the shape of a RaggedTensor, which `tf.shape(rt)` returns (as TensorFlow
does), and which `tf.zeros`, `tf.ones`, `tf.fill` and `tf.reshape` accept
to build RaggedTensors of that shape.

A DynamicRaggedShape is a list of row partitions (the ragged or uniform
dimensions from the second on) and an `inner_shape`, the dense shape of the
flat values: `[nvals of the last partition, inner dims...]`. Its lengths are
the outer row count, then per partition either the uniform row length or
the tuple of row lengths, then the inner dimensions. Partitions hold row
splits; everything is computed on whole split vectors with core ops.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import EagerTensor, Tensor
from ..core import shape_ops
from ..core.constant_ops import zeros
from ..core.join_ops import concat
from ..core.math_ops import cast
from ..core.reduction_ops import reduce_sum
from ..core.slicing import getitem
from .ragged_tensor import RaggedTensor


@export("experimental.RowPartition")
class RowPartition:
    """How a vector of `nvals` values is cut into `nrows` rows: its row
    splits, and the row length when every row has the same length (a
    uniform dimension). Build it with the `from_*` class methods."""

    def __init__(self, row_splits, uniform_row_length=None, nvals=None):
        """Wraps validated `row_splits` (use the `from_*` constructors)."""
        self._row_splits = row_splits
        self._uniform = uniform_row_length
        self._nvals = nvals

    @classmethod
    def _of(cls, rt):
        """The outer partition of RaggedTensor `rt`."""
        return cls(rt.row_splits, rt.uniform_row_length, None)

    @classmethod
    def _build(cls, maker, nvals, *args, dtype=None, validate=True, **kwargs):
        """A partition made by a RaggedTensor constructor over `nvals`
        placeholder values, so that TensorFlow's validation messages apply."""
        rt = maker(zeros([nvals], D.int8), *args, validate=validate, **kwargs)
        p = cls._of(rt)
        return p.with_dtype(dtype) if dtype is not None else p

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        """Rows `[row_splits[i], row_splits[i+1])`."""
        s = convert_to_tensor(row_splits, dtype_hint=dtype_hint or D.int64)
        return cls._build(RaggedTensor.from_row_splits, getitem(s, -1), s,
                          dtype=dtype, validate=validate)

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        """Rows of the given lengths."""
        n = convert_to_tensor(row_lengths, dtype_hint=dtype_hint or D.int64)
        return cls._build(RaggedTensor.from_row_lengths,
                          reduce_sum(n), n, dtype=dtype, validate=validate)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None,
                                validate=True, dtype=None, dtype_hint=None):
        """`nrows` rows of `uniform_row_length` values each (`nvals` or
        `nrows` gives the count)."""
        k = convert_to_tensor(uniform_row_length, dtype_hint=dtype_hint or D.int64)
        if nvals is None:
            nvals = k * cast(convert_to_tensor(nrows), k.dtype)
        rt = RaggedTensor.from_uniform_row_length(zeros([nvals], D.int8), k, nrows=nrows,
                                                  validate=validate)
        p = cls(rt.row_splits, rt.uniform_row_length, None)
        return p.with_dtype(dtype) if dtype is not None else p

    @classmethod
    def from_value_rowids(cls, value_rowids, nrows=None, validate=True, dtype=None,
                          dtype_hint=None):
        """Row `i` holds the values whose `value_rowids` entry is i."""
        ids = convert_to_tensor(value_rowids, dtype_hint=dtype_hint or D.int64)
        return cls._build(RaggedTensor.from_value_rowids, shape_ops.size(ids), ids,
                          nrows=nrows, dtype=dtype, validate=validate)

    @classmethod
    def from_row_starts(cls, row_starts, nvals, validate=True, dtype=None, dtype_hint=None):
        """Rows starting at `row_starts`, the last ending at `nvals`."""
        s = convert_to_tensor(row_starts, dtype_hint=dtype_hint or D.int64)
        return cls._build(RaggedTensor.from_row_starts, nvals, s, dtype=dtype,
                          validate=validate)

    @classmethod
    def from_row_limits(cls, row_limits, validate=True, dtype=None, dtype_hint=None):
        """Rows ending at `row_limits`."""
        s = convert_to_tensor(row_limits, dtype_hint=dtype_hint or D.int64)
        return cls._build(RaggedTensor.from_row_limits, getitem(s, -1), s, dtype=dtype,
                          validate=validate)

    @property
    def dtype(self):
        """The dtype of the partition tensors (int32 or int64)."""
        return self._row_splits.dtype

    def with_dtype(self, dtype):
        """The same partition with int32 or int64 tensors."""
        dtype = D.as_dtype(dtype)
        if dtype is self.dtype:
            return self
        u = self._uniform
        return RowPartition(cast(self._row_splits, dtype),
                            None if u is None else cast(convert_to_tensor(u), dtype))

    def row_splits(self):
        """The row splits (nrows + 1 entries)."""
        return self._row_splits

    def row_lengths(self):
        """Each row's length."""
        return getitem(self._row_splits, slice(1, None)) - \
            getitem(self._row_splits, slice(None, -1))

    def row_starts(self):
        """Where each row starts."""
        return getitem(self._row_splits, slice(None, -1))

    def row_limits(self):
        """Where each row ends."""
        return getitem(self._row_splits, slice(1, None))

    def value_rowids(self):
        """The row of each value."""
        return RaggedTensor(zeros([self.nvals()], D.int8), self._row_splits).value_rowids()

    def nrows(self):
        """The number of rows (a scalar tensor)."""
        return RaggedTensor(zeros([self.nvals()], D.int8), self._row_splits).nrows()

    def nvals(self):
        """The number of values partitioned (a scalar tensor)."""
        return getitem(self._row_splits, -1)

    def uniform_row_length(self):
        """The common row length (a scalar tensor), or None when ragged."""
        u = self._uniform
        return None if u is None else cast(convert_to_tensor(u), self.dtype)

    def is_uniform(self):
        """Whether every row has the same, declared length."""
        return self._uniform is not None

    @property
    def static_nrows(self):
        """The row count if known without running anything, else None."""
        n = self._row_splits.shape[0]
        return None if n is None else n - 1

    @property
    def static_nvals(self):
        """The value count if known now, else None."""
        s = self._row_splits
        return int(s._v[-1]) if isinstance(s, EagerTensor) else None

    @property
    def static_uniform_row_length(self):
        """The uniform row length as an int if known now, else None."""
        u = self._uniform
        if u is None:
            return None
        if isinstance(u, EagerTensor):
            return int(u._v)
        return None if isinstance(u, Tensor) else int(u)

    def __repr__(self):
        if self.is_uniform() and self.static_uniform_row_length is not None:
            return (f"tf.RowPartition(nrows={self.static_nrows}, "
                    f"uniform_row_length={self.static_uniform_row_length})")
        s = self._row_splits
        shown = s._v if isinstance(s, EagerTensor) else s
        return f"tf.RowPartition(row_splits={shown})"



def _static_int(t):
    """A Python int for an eager or Python integer, else None."""
    if isinstance(t, EagerTensor):
        return int(t._v)
    if isinstance(t, (int, np.integer)):
        return int(t)
    return None


@export("experimental.DynamicRaggedShape")
class DynamicRaggedShape:
    """The shape of a (possibly ragged) tensor: `row_partitions` for the
    dimensions 1..num_row_partitions and `inner_shape`, the dense shape of
    the flat values (its first entry is the last partition's value count)."""

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=False,
                 static_inner_shape=None):
        """Builds the shape from its partitions and the flat values' shape.

        Raises:
          ValueError: when `inner_shape` is not a vector, or the partitions
            mix int32 and int64 without a `dtype`.
        """
        parts = tuple(row_partitions)
        inner = convert_to_tensor(inner_shape, dtype_hint=D.int64)
        if inner.shape.rank != 1:
            raise ValueError("inner_shape must be a vector")
        if dtype is None:
            dts = {p.dtype for p in parts} | ({inner.dtype} if parts == () else set())
            dtype = D.int64 if D.int64 in dts or not dts else D.int32
            if parts and len({p.dtype for p in parts}) > 1:
                raise ValueError("dtype of row partitions must be consistent")
        dtype = D.as_dtype(dtype)
        self._dtype = dtype
        self._row_partitions = tuple(p.with_dtype(dtype) for p in parts)
        self._inner_shape = cast(inner, dtype)

    # --- construction --------------------------------------------------------
    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of `t` (a RaggedTensor or anything convertible to a tensor)."""
        if isinstance(t, RaggedTensor):
            parts = []
            x = t
            while isinstance(x, RaggedTensor):
                parts.append(RowPartition._of(x))
                x = x.values
            return cls(parts, shape_ops.shape(x, out_type=t.row_splits.dtype), dtype=dtype)
        t = convert_to_tensor(t)
        return cls([], shape_ops.shape(t, out_type=D.as_dtype(dtype or D.int64)), dtype=dtype)

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=D.int64):
        """The shape with these lengths: an int for a uniform dimension, a
        tuple of row lengths for a ragged one (the first must be an int).

        Raises:
          ValueError: a ragged first dimension, or row lengths whose count
            does not match the rows before them.
        """
        lengths = list(lengths)
        if not lengths:
            return cls([], np.zeros([0], np.int64), dtype=dtype)
        if not isinstance(lengths[0], (int, np.integer)):
            raise ValueError("First element of lengths must be an integer")
        last_ragged = max([i for i, x in enumerate(lengths) if isinstance(x, (tuple, list))],
                          default=0)
        if num_row_partitions is None:
            num_row_partitions = last_ragged
        if num_row_partitions < last_ragged:
            raise ValueError("num_row_partitions too small for the ragged dimensions")
        parts = []
        nrows = int(lengths[0])
        for x in lengths[1:num_row_partitions + 1]:
            if isinstance(x, (tuple, list)):
                if len(x) != nrows:
                    raise ValueError(f"Lengths {x} do not match the {nrows} rows")
                p = RowPartition.from_row_lengths(np.asarray(x, np.int64), dtype=dtype)
                nrows = int(sum(x))
            else:
                p = RowPartition.from_uniform_row_length(
                    np.int64(x), nvals=np.int64(x * nrows), nrows=np.int64(nrows), dtype=dtype)
                nrows = int(x) * nrows
            parts.append(p)
        inner = [nrows] + [int(x) for x in lengths[num_row_partitions + 1:]]
        return cls(parts, np.asarray(inner, np.int64), dtype=dtype)

    @classmethod
    def _from_inner_shape(cls, inner_shape, dtype=None):
        return cls([], inner_shape, dtype=dtype)

    # --- properties ----------------------------------------------------------
    @property
    def row_partitions(self):
        """The partitions of dimensions 1..num_row_partitions."""
        return self._row_partitions

    @property
    def inner_shape(self):
        """The dense shape of the flat values (a vector tensor)."""
        return self._inner_shape

    @property
    def dtype(self):
        """int32 or int64: the dtype of every partition and length."""
        return self._dtype

    @property
    def num_row_partitions(self):
        """The number of row partitions."""
        return len(self._row_partitions)

    @property
    def inner_rank(self):
        """The rank of the flat values."""
        return self._inner_shape.shape[0]

    @property
    def rank(self):
        """The number of dimensions (None if unknown)."""
        r = self.inner_rank
        return None if r is None else r + self.num_row_partitions

    def with_dtype(self, dtype):
        """The same shape with int32 or int64 tensors."""
        return DynamicRaggedShape(self._row_partitions, self._inner_shape, dtype=dtype)

    def _static_inner(self):
        s = self._inner_shape
        if isinstance(s, EagerTensor):
            return [int(v) for v in s._v]
        return [None] * (self.inner_rank or 0) if self.inner_rank is not None else [Ellipsis]

    def static_lengths(self, ragged_lengths=True):
        """The lengths known now: ints for uniform dimensions, tuples of row
        lengths for ragged ones (None when not known, `...` for an unknown
        inner rank)."""
        inner = self._static_inner()
        if not self._row_partitions:
            return inner
        out = [self._row_partitions[0].static_nrows]
        for p in self._row_partitions:
            if p.is_uniform():
                out.append(p.static_uniform_row_length)
            elif ragged_lengths and isinstance(p.row_splits(), EagerTensor):
                out.append(tuple(np.diff(p.row_splits()._v).tolist()))
            else:
                out.append(None)
        return out + inner[1:]

    def is_uniform(self, axis):
        """Whether dimension `axis` has one length (the outer dimension, the
        inner ones, and uniform partitions do)."""
        rank = self.rank
        if axis < 0:
            raise IndexError("Negative axis values are not supported")
        if rank is not None and axis >= rank:
            raise IndexError(f"Expected axis={axis} < rank={rank}")
        if 1 <= axis <= self.num_row_partitions:
            return self._row_partitions[axis - 1].is_uniform()
        return True

    def _dimension(self, index):
        """The length of uniform dimension `index` as a scalar tensor."""
        rank = self.rank
        if (self.num_row_partitions == 0 or index > self.num_row_partitions + 1) and \
                rank is not None and index >= rank:
            raise IndexError(f"Index is too big: {index}>={rank}")
        if index < 0:
            raise IndexError(f"Index must be non-negative: {index}")
        if not self.is_uniform(index):
            raise ValueError(f"Index {index} is not uniform")
        if index == 0 and self.num_row_partitions > 0:
            n = self._row_partitions[0].static_nrows
            if n is not None:
                return convert_to_tensor(np.asarray(n, self._dtype._np))
            return cast(self._row_partitions[0].nrows(), self._dtype)
        if index > self.num_row_partitions or self.num_row_partitions == 0:
            return getitem(self._inner_shape, index - self.num_row_partitions)
        return self._row_partitions[index - 1].uniform_row_length()

    def __getitem__(self, index):
        """A dimension's length (only uniform dimensions have one), or a
        prefix of the shape for a slice `[:stop]`.

        Raises:
          ValueError: a ragged dimension.
          IndexError: an index out of range, or a strided slice.
        """
        rank = self.rank
        if isinstance(index, slice):
            if index.step not in (None, 1):
                raise IndexError("Cannot stride through a shape")
            start = index.start or 0
            stop = rank if index.stop is None else index.stop
            if rank is not None:
                start = start + rank if start < 0 else start
                stop = min(stop + rank if stop < 0 else stop, rank)
            return self._slice_shape(start, stop)
        if isinstance(index, (int, np.integer)):
            index = int(index)
            if index < 0:
                if rank is None:
                    raise ValueError("Rank must be known to use __getitem__ with a negative "
                                     "index.")
                return self._dimension(index + rank)
            return self._dimension(index)
        raise TypeError("Argument is not an int or a slice")

    def _slice_shape(self, start, stop):
        k = self.num_row_partitions
        if stop <= start:
            return DynamicRaggedShape._from_inner_shape(np.zeros([0], np.int64), self._dtype)
        if start == 0:
            if stop <= k:
                if stop == 1:
                    return DynamicRaggedShape._from_inner_shape(
                        shape_ops.reshape(self._dimension(0), [1]), self._dtype)
                parts = self._row_partitions[:stop - 1]
                return DynamicRaggedShape(parts, shape_ops.reshape(
                    cast(parts[-1].nvals(), self._dtype), [1]), dtype=self._dtype)
            return DynamicRaggedShape(self._row_partitions,
                                      getitem(self._inner_shape, slice(None, stop - k)),
                                      dtype=self._dtype)
        for i in range(1, min(stop, k + 1)):
            if not self.is_uniform(i):
                raise ValueError("All relevant dimensions must be uniform")
        dims = [shape_ops.reshape(self._dimension(i), [1]) for i in range(start, stop)]
        return DynamicRaggedShape._from_inner_shape(
concat(dims, 0), self._dtype)

    def __repr__(self):
        lengths = "[" + ", ".join("..." if x is Ellipsis else str(x)
                                  for x in self.static_lengths()) + "]"
        return f"<DynamicRaggedShape lengths={lengths} num_row_partitions={self.num_row_partitions}>"

    # --- building tensors of this shape ------------------------------------------
    def _add_row_partitions(self, flat_values):
        """`flat_values` (shaped `inner_shape`) cut by the row partitions."""
        out = flat_values
        for p in reversed(self._row_partitions):
            if p.is_uniform():
                out = RaggedTensor.from_uniform_row_length(out, p.uniform_row_length(),
                                                           nrows=p.static_nrows,
                                                           validate=False)
            else:
                out = RaggedTensor.from_row_splits(out, p.row_splits(), validate=False)
        return out

