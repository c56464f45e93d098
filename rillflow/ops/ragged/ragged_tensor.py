"""`tf.RaggedTensor`: rows of different lengths.

A RaggedTensor is `values` cut into rows at `row_splits` (int64 or int32);
`values` may itself be a RaggedTensor (more ragged dimensions). This module
holds the class: the row-partition constructors (`from_row_splits`,
`from_row_lengths`, ... with TensorFlow's validation messages), the
accessors (`row_lengths`, `value_rowids`, `nrows`, `bounding_shape`...),
`to_list` / `numpy` / printing, and the composite protocol (a traced
function takes it as its components: the flat values, then the row splits
outermost first, as TensorFlow orders them, and keys its traces by
RaggedTensorSpec). The modules above it install the rest on the class
(`ragged_spec`: the spec; `ragged_conversion`: `from_tensor`, `to_tensor`,
`from_sparse`, `to_sparse`; `ragged_getitem`: `[]`; `ragged_math_ops`: the
operators), as `tensor_operators` does for `tf.Tensor`.

Row-partition arithmetic on eager tensors is NumPy on the splits; in a
graph it is built from the core ops, so the same code traces.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape
from ..core.creation_ops import range as tf_range
from ..core.gather_ops import gather
from ..core.join_ops import concat, stack
from ..core.math_ops import cast, maximum, subtract
from ..core.reduction_ops import reduce_max
from ..core.repeat_unique_roll_ops import repeat
from ..core.scan_ops import cumsum
from ..core.segment_ops import bincount
from ..core.shape_ops import shape as tf_shape, reshape
from ..core.slicing import getitem
from ..core.constant_ops import zeros

_state = _context.state


def _eager(*ts):
    """Whether every tensor given holds a value now (so NumPy can do the
    partition arithmetic)."""
    return all(isinstance(t, EagerTensor) for t in ts)


def _np_tensor(a, dtype):
    return EagerTensor(np.asarray(a, dtype=dtype._np))


def _splits_tensor(x, dtype=None):
    """`x` as a row-partition tensor: int64 unless it is an int32 tensor or
    `dtype` says so.

    Raises:
      ValueError: a non-integer dtype.
    """
    t = convert_to_tensor(x, dtype_hint=dtype or D.int64)
    if t.dtype not in (D.int32, D.int64):
        raise ValueError("row_splits must have dtype int32 or int64")
    if dtype is not None and t.dtype is not dtype:
        t = cast(t, dtype)
    return t


def _assert_non_negative(x, what):
    """TensorFlow's `assert_non_negative` message for the first elements of `x`."""
    bad = x < 0
    if bad.any():
        shown = [repr(str(v)) for v in x[:3].tolist()] + (["'...'"] if x.size > 3 else [])
        raise errors.InvalidArgumentError(
            None, None, f"Arguments to {what}.  \nCondition x >= 0 did not hold "
            f"element-wise:\nx (shape={tuple(x.shape)} dtype={D.as_dtype(x.dtype).name}) = "
            f"\n[{', '.join(shown)}]")


def _assert_equal(x, y, what):
    """TensorFlow's `assert_equal` message for two scalars."""
    if x != y:
        raise errors.InvalidArgumentError(
            None, None, f"Arguments to {what}\nCondition x == y did not hold.\n"
            f"First 1 elements of x:\n[{x}]\nFirst 1 elements of y:\n[{y}]")


def _nvals(values):
    """The number of rows of `values` (a Python int, or None when unknown)."""
    if isinstance(values, RaggedTensor):
        return values.nrows_value()
    return values.shape[0] if values.shape.rank else None


def _check_rank1(t):
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape {t.shape} must have rank 1")


def _convert_values(values):
    if isinstance(values, RaggedTensor):
        return values
    v = convert_to_tensor(values)
    if v.shape.rank == 0:
        # TensorFlow fails slicing the shape of a scalar.
        raise errors.InvalidArgumentError(
            None, None, "slice index 0 of dimension 0 out of bounds. [Op:StridedSlice] "
            "name: strided_slice/")
    return v


def _match_splits_dtype(values, splits):
    if isinstance(values, RaggedTensor) and values.row_splits.dtype is not splits.dtype:
        raise ValueError(
            "Argument `row_partition` of RaggedTensor with name: partition must have same "
            f"dtype as Argument `values`. ({splits.dtype} vs. {values.row_splits.dtype}).")


@export("RaggedTensor")
class RaggedTensor:
    """Rows of different lengths: `values` cut into rows at `row_splits`.

    Row i holds `values[row_splits[i]:row_splits[i + 1]]`. `values` may
    itself be a RaggedTensor (more ragged dimensions). Build one with the
    `from_*` class methods or `tf.ragged.constant`.
    """

    _is_tensor_like = True   # tf.is_tensor(ragged) is True
    _is_composite_tensor = True
    # Filled by ragged_spec (the spec module sits above this one).
    _spec_class = None

    def __init__(self, values, row_splits, uniform_row_length=None):
        self._values = values
        self._row_splits = row_splits
        # A Python int or scalar tensor when every row has this length
        # (`from_uniform_row_length`): the shape then shows it.
        self._uniform_row_length = uniform_row_length

    # --- construction -------------------------------------------------------
    @classmethod
    def _from_row_partition(cls, values, splits, validate, what, uniform=None):
        """The RaggedTensor of `values` and `splits`, checked eagerly as
        TensorFlow does when `validate` (the last split counts the values)."""
        _match_splits_dtype(values, splits)
        if validate and _eager(splits):
            n = _nvals(values)
            if n is not None and isinstance(values, (EagerTensor, RaggedTensor)):
                _assert_equal(int(splits._v[-1]), n,
                              f"{what} do not form a valid RaggedTensor")
        return cls(values, splits, uniform)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """A RaggedTensor whose row i is `values[row_splits[i]:row_splits[i+1]]`.

        Raises:
          ValueError: `row_splits` not a vector, empty, or not integers.
          InvalidArgumentError (validate): not starting at 0, decreasing, or
            not ending at the number of values.
        """
        values = _convert_values(values)
        splits = _splits_tensor(row_splits)
        _check_rank1(splits)
        if splits.shape[0] == 0:
            raise ValueError("row_splits tensor may not be empty.")
        if validate and _eager(splits):
            s = splits._v
            _assert_equal(int(s[0]), 0, "from_row_splits do not form a valid RaggedTensor:zero")
            _assert_non_negative(np.diff(s), "from_row_splits do not form a valid RaggedTensor:"
                                 "monotonic")
        return cls._from_row_partition(values, splits, validate, "_from_row_partition")

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """A RaggedTensor whose row i has `row_lengths[i]` values.

        Raises:
          InvalidArgumentError (validate): a negative length, or lengths not
            summing to the number of values.
        """
        values = _convert_values(values)
        lengths = _splits_tensor(row_lengths)
        _check_rank1(lengths)
        if _eager(lengths):
            if validate:
                _assert_non_negative(lengths._v, "from_row_lengths do not form a valid "
                                     "RowPartition")
            splits = _np_tensor(np.concatenate([[0], np.cumsum(lengths._v)]), lengths.dtype)
        else:
            splits = concat([zeros([1], lengths.dtype), cumsum(lengths)], 0)
        return cls._from_row_partition(values, splits, validate, "_from_row_partition")

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """A RaggedTensor where value j is in row `value_rowids[j]` (sorted);
        `nrows` (default: the last row id + 1) may add empty rows at the end.

        Raises:
          ValueError: `value_rowids` and `values` of different lengths, or
            `nrows` below the last row id + 1.
          InvalidArgumentError (validate): negative or decreasing row ids.
        """
        values = _convert_values(values)
        rowids = _splits_tensor(value_rowids)
        _check_rank1(rowids)
        n = _nvals(values)
        if n is not None and rowids.shape[0] is not None and rowids.shape[0] != n:
            raise ValueError(f"Shapes ({n},) and ({rowids.shape[0]},) are incompatible")
        if nrows is not None:
            nrows = _splits_tensor(nrows, rowids.dtype)
        if _eager(rowids) and (nrows is None or _eager(nrows)):
            r = rowids._v
            if validate:
                _assert_non_negative(r[:1], "from_value_rowids do not form a valid "
                                     "RowPartition")
                _assert_non_negative(np.diff(r), "from_value_rowids do not form a valid "
                                     "RowPartition")
            last = int(r[-1]) + 1 if r.size else 0
            count = last if nrows is None else int(nrows._v)
            if count < last:
                raise ValueError(f"Expected nrows >= value_rowids[-1] + 1; got nrows={count},"
                                 f" value_rowids[-1]={last - 1}")
            counts = np.bincount(r, minlength=count) if r.size else np.zeros(count, np.int64)
            splits = _np_tensor(np.concatenate([[0], np.cumsum(counts)]), rowids.dtype)
        else:
            if nrows is None:
                nrows = cast(maximum(reduce_max(rowids) + 1, 0), rowids.dtype)
            counts = bincount(cast(rowids, D.int32), minlength=cast(nrows, D.int32),
                              maxlength=cast(nrows, D.int32), dtype=rowids.dtype)
            splits = concat([zeros([1], rowids.dtype), cumsum(counts)], 0)
        return cls._from_row_partition(values, splits, validate, "_from_row_partition")

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """A RaggedTensor whose row i starts at `row_starts[i]` (the last row
        ends with the values).

        Raises:
          InvalidArgumentError (validate): not starting at 0, or decreasing.
        """
        values = _convert_values(values)
        starts = _splits_tensor(row_starts)
        _check_rank1(starts)
        n = _nvals(values)
        if _eager(starts) and n is not None:
            if validate and starts._v.size:
                _assert_equal(int(starts._v[0]), 0,
                              "from_row_starts do not form a valid RaggedTensor")
            splits = _np_tensor(np.concatenate([starts._v, [n]]), starts.dtype)
        else:
            total = cast(RaggedTensor._outer_size(values), starts.dtype)
            splits = concat([starts, reshape(total, [1])], 0)
        if validate and _eager(splits):
            _assert_non_negative(np.diff(splits._v), "from_row_starts do not form a valid "
                                 "RaggedTensor:monotonic")
        return cls._from_row_partition(values, splits, validate, "_from_row_partition")

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """A RaggedTensor whose row i ends at `row_limits[i]` (the first row
        starts at 0).

        Raises:
          InvalidArgumentError (validate): decreasing limits, or the last not
            the number of values.
        """
        values = _convert_values(values)
        limits = _splits_tensor(row_limits)
        _check_rank1(limits)
        splits = concat([zeros([1], limits.dtype), limits], 0)
        if validate and _eager(splits):
            _assert_non_negative(np.diff(splits._v), "from_row_limits do not form a valid "
                                 "RaggedTensor:monotonic")
        return cls._from_row_partition(values, splits, validate, "_from_row_partition")

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None,
                                validate=True, name=None):
        """A RaggedTensor whose rows all have `uniform_row_length` values (its
        shape shows the length); `nrows` is needed when the length is 0.

        Raises:
          ValueError: the values do not fill the rows exactly.
        """
        values = _convert_values(values)
        length = _splits_tensor(uniform_row_length,
                                values.row_splits.dtype if isinstance(values, RaggedTensor)
                                else None)
        n = _nvals(values)
        if _eager(length) and n is not None:
            k = int(length._v)
            rows = int(nrows) if nrows is not None else (n // k if k else 0)
            if validate and k * rows != n:
                raise ValueError(f"uniform_row_length={k} times nrows={rows} must equal "
                                 f"nvals={n}")
            splits = _np_tensor(np.arange(rows + 1) * k, length.dtype)
            return cls(values, splits, k)
        total = cast(RaggedTensor._outer_size(values), length.dtype)
        rows = cast(nrows, length.dtype) if nrows is not None else total // maximum(length, 1)
        splits = tf_range(rows + 1, dtype=length.dtype) * length
        return cls(values, splits, length)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """Applies `from_row_splits` for each splits vector, innermost first."""
        if isinstance(nested_row_splits, (Tensor, np.ndarray)):
            raise TypeError("nested_row_splits must be a list of Tensors")
        out = flat_values
        for s in reversed(list(nested_row_splits)):
            out = cls.from_row_splits(out, s, validate=validate)
        return out

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        """Applies `from_row_lengths` for each lengths vector, innermost first."""
        out = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            out = cls.from_row_lengths(out, lengths, validate=validate)
        return out

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        """Applies `from_value_rowids` for each row-ids vector, innermost first.

        Raises:
          ValueError: `nested_nrows` of another length than `nested_value_rowids`.
        """
        ids = list(nested_value_rowids)
        nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        if len(nrows) != len(ids):
            raise ValueError("Argument `nested_nrows` must have the same length as argument "
                             "`nested_value_rowids`. len(nested_nrows) = "
                             f"{len(nrows)} vs. len(nested_values_rowids) = {len(ids)}.")
        out = flat_values
        for r, n in reversed(list(zip(ids, nrows))):
            out = cls.from_value_rowids(out, r, n, validate=validate)
        return out

    @staticmethod
    def _outer_size(values):
        """The number of rows of `values` as a scalar tensor."""
        if isinstance(values, RaggedTensor):
            return values.nrows()
        return getitem(tf_shape(values, out_type=D.int64), 0)

    @classmethod
    def _from_value_rowids(cls, values, sparse_indices, dense_shape):
        """From the (indices, values, shape) of a sparse result, in either mode."""
        if _eager(sparse_indices, dense_shape):
            rowids = sparse_indices._v[:, 0]
            n = int(dense_shape._v[0])
            counts = np.bincount(rowids, minlength=n) if rowids.size else np.zeros(n, np.int64)
            return cls(values, _np_tensor(np.concatenate([[0], np.cumsum(counts)]), D.int64))
        rowids = getitem(sparse_indices, (slice(None), 0))
        return cls.from_value_rowids(values, rowids, getitem(dense_shape, 0), validate=False)

    # --- structure ------------------------------------------------------------
    @property
    def values(self):
        """The concatenated rows (a Tensor, or a RaggedTensor for more ragged dims)."""
        return self._values

    @property
    def row_splits(self):
        """Row i is `values[row_splits[i]:row_splits[i+1]]` (int64 or int32)."""
        return self._row_splits

    @property
    def flat_values(self):
        """The innermost values, a Tensor."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        """The row splits of each ragged dimension, outermost first."""
        out = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        """The number of ragged dimensions."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def uniform_row_length(self):
        """The length of every row (a scalar tensor) if made uniform, else None."""
        u = self._uniform_row_length
        if u is None or isinstance(u, Tensor):
            return u
        return _np_tensor(u, self._row_splits.dtype)

    @property
    def row_splits_dtype(self):
        """The dtype of the row partitions."""
        return self._row_splits.dtype

    @property
    def dtype(self):
        """The dtype of the values."""
        return self.flat_values.dtype

    @property
    def shape(self):
        """[nrows, None, ...]: ragged dimensions are None (a uniform row
        length shows as its value)."""
        n = self._row_splits.shape[0]
        inner = self._values.shape
        if inner.rank is None:
            return TensorShape(None)
        u = self._uniform_row_length
        second = u if isinstance(u, (int, np.integer)) else None
        return TensorShape([None if n is None else n - 1, second] + inner.as_list()[1:])

    @property
    def ndim(self):
        """The rank."""
        return self.shape.rank

    def get_shape(self):
        """Same as `shape`."""
        return self.shape

    @property
    def device(self):
        """The device of the values."""
        return self.flat_values.device

    def consumers(self):
        """The ops reading any component (graphs only; [] eagerly)."""
        out = []
        for c in self._to_components():
            if not isinstance(c, EagerTensor):
                out.extend(op for op in c.consumers() if not any(op is o for o in out))
        return out

    def nrows_value(self):
        """The number of rows as a Python int (None in a graph if unknown)."""
        n = self._row_splits.shape[0]
        return None if n is None else n - 1

    def nrows(self, out_type=None, name=None):
        """The number of rows, a scalar tensor (of the row splits' dtype by default)."""
        out_type = D.as_dtype(out_type) if out_type is not None else self._row_splits.dtype
        n = self.nrows_value()
        if n is not None:
            return _np_tensor(n, out_type)
        return cast(getitem(tf_shape(self._row_splits, out_type=D.int64), 0) - 1, out_type)

    def row_starts(self, name=None):
        """Where each row starts in `values`."""
        return getitem(self._row_splits, slice(None, -1))

    def row_limits(self, name=None):
        """Where each row ends in `values`."""
        return getitem(self._row_splits, slice(1, None))

    def row_lengths(self, axis=1, name=None):
        """The length of each row: for `axis=1` a vector; for a deeper axis a
        RaggedTensor of the lengths of the rows at that depth; for `axis=0`
        the number of rows.

        Raises:
          ValueError: an axis out of bounds.
        """
        rank = self.shape.rank
        if axis < 0 and rank is not None:
            axis += rank
        if axis == 0:
            return self.nrows()
        if axis == 1:
            s = self._row_splits
            if _eager(s):
                return EagerTensor(np.diff(s._v))
            return subtract(getitem(s, slice(1, None)), getitem(s, slice(None, -1)))
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        if rank is not None and not 0 <= axis < rank:
            raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
        # A uniform dimension of the values: every row has that length.
        n = self._values.shape[axis - 1]
        lengths = _np_tensor(np.full(int(_nvals(self._values) or 0), n),
                             self._row_splits.dtype)
        return self.with_values(lengths)

    def value_rowids(self, name=None):
        """The row of each value."""
        s = self._row_splits
        if _eager(s):
            lengths = np.diff(s._v)
            return EagerTensor(np.repeat(np.arange(lengths.size, dtype=s._v.dtype), lengths))
        return repeat(tf_range(self.nrows(), dtype=s.dtype), self.row_lengths())

    def nested_row_lengths(self, name=None):
        """The row lengths of each ragged dimension, outermost first."""
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_lengths())
            rt = rt.values
        return tuple(out)

    def nested_value_rowids(self, name=None):
        """The value row ids of each ragged dimension, outermost first."""
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.value_rowids())
            rt = rt.values
        return tuple(out)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape holding every row: [nrows, longest row, ...]
        (one entry when `axis` is given)."""
        out_type = D.as_dtype(out_type) if out_type is not None else self._row_splits.dtype
        dims = [self.nrows(out_type)]
        rt = self
        while isinstance(rt, RaggedTensor):
            lengths = rt.row_lengths()
            if _eager(lengths):
                dims.append(_np_tensor(lengths._v.max() if lengths._v.size else 0, out_type))
            else:
                dims.append(cast(maximum(reduce_max(lengths), 0), out_type))
            rt = rt.values
        inner = rt.shape.as_list()[1:]
        if all(d is not None for d in inner) and all(_eager(d) for d in dims):
            out = _np_tensor([int(d._v) for d in dims] + inner, out_type)
        else:
            tail = getitem(tf_shape(rt, out_type=out_type), slice(1, None))
            out = concat([stack(dims), tail], 0)
        return out if axis is None else getitem(out, axis)

    def with_values(self, new_values):
        """This partition with other values (same number of rows as `values`)."""
        if not isinstance(new_values, RaggedTensor):
            new_values = convert_to_tensor(new_values)
        return RaggedTensor(new_values, self._row_splits, self._uniform_row_length)

    def with_flat_values(self, new_values):
        """This nested partition with other flat values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        """The same tensor with every row partition cast to `dtype`."""
        dtype = D.as_dtype(dtype)
        values = self._values.with_row_splits_dtype(dtype) \
            if isinstance(self._values, RaggedTensor) else self._values
        splits = self._row_splits if self._row_splits.dtype is dtype \
            else cast(self._row_splits, dtype)
        return RaggedTensor(values, splits, self._uniform_row_length)

    def merge_dims(self, outer_axis, inner_axis):
        """Merges dimensions `outer_axis` to `inner_axis` (inclusive) into one:
        a Tensor when every dimension is merged away from the ragged ones.

        Raises:
          ValueError: `outer_axis` after `inner_axis`.
        """
        rank = self.shape.rank
        if outer_axis < 0:
            outer_axis += rank
        if inner_axis < 0:
            inner_axis += rank
        if outer_axis > inner_axis:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal "
                             f"to inner_axis ({inner_axis})")
        if outer_axis == inner_axis:
            return self
        if outer_axis == 0:
            if inner_axis <= self.ragged_rank:
                v = self._values
                for _ in range(inner_axis - 1):
                    v = v.values
                return v
            # Past the ragged dimensions: flat values merged with the uniform ones.
            fv = self.flat_values
            merged = inner_axis - self.ragged_rank
            tail = fv.shape.as_list()[merged + 1:]
            return reshape(fv, [-1] + tail)
        if outer_axis == 1:
            # Each row's items become the items of the merged levels below.
            splits, v = self._row_splits, self._values
            for _ in range(inner_axis - 1):
                if isinstance(v, RaggedTensor):
                    splits, v = gather(v.row_splits, splits), v.values
                else:
                    dims = v.shape.as_list()
                    splits, v = splits * dims[1], reshape(v, [-1] + dims[2:])
            return RaggedTensor(v, splits)
        values = self._values
        if isinstance(values, RaggedTensor):
            return self.with_values(values.merge_dims(outer_axis - 1, inner_axis - 1))
        dims = values.shape.as_list()
        o, i = outer_axis - 1, inner_axis - 1
        return self.with_values(reshape(values, dims[:o] + [-1] + dims[i + 1:]))

    # --- values -------------------------------------------------------------
    def _is_eager(self):
        return _eager(self.flat_values, *self.nested_row_splits)

    def _eager_check(self, what):
        if not self._is_eager():
            raise ValueError(f"RaggedTensor.{what}() is only supported in eager mode.")

    def to_list(self):
        """The rows as nested Python lists."""
        self._eager_check("to_list")
        splits = self._row_splits._v
        inner = self._values.to_list() if isinstance(self._values, RaggedTensor) \
            else self._values._v.tolist()
        return [inner[a:b] for a, b in zip(splits[:-1].tolist(), splits[1:].tolist())]

    def numpy(self):
        """The rows as NumPy values, as TensorFlow gives them: one array when
        the rows have one length, else a 1-D object array of the rows."""
        self._eager_check("numpy")
        values = self._values.numpy() if isinstance(self._values, RaggedTensor) \
            else self._values._v
        splits = self._row_splits._v.tolist()
        rows = [values[a:b] for a, b in zip(splits[:-1], splits[1:])]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        if any(len(r) != len(rows[0]) for r in rows):
            out = np.empty(len(rows), dtype=object)
            for i, r in enumerate(rows):
                out[i] = r
            return out
        return np.array(rows)

    def __iter__(self):
        self._eager_check("__iter__")
        for i in range(self._row_splits._v.size - 1):
            yield self[i]

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    # --- composite protocol (tf.nest, tf.function arguments and results) -------
    @property
    def _type_spec(self):
        return self._spec_class(self.shape, self.dtype, self.ragged_rank,
                                self._row_splits.dtype)

    _arg_spec = _type_spec

    def _component_specs(self):
        return self._type_spec._component_specs

    def _to_components(self):
        return [self.flat_values] + list(self.nested_row_splits)

    def _from_components(self, components):
        return _from_components(components)

    def _trace_key(self):
        return self._type_spec._trace_key()

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        if self._is_eager():
            # TensorFlow's: the numpy() value, elements joined by ", ".
            with np.printoptions(formatter={"all": _formatter}):
                return "<tf.RaggedTensor %s>" % _formatter(self.numpy())
        return "tf.RaggedTensor(values=%s, row_splits=%s)" % (self._values, self._row_splits)

    __str__ = __repr__


def _formatter(x):
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def _from_components(components):
    """The RaggedTensor of [flat_values, outer row_splits, ..., inner row_splits]."""
    values = components[0]
    for splits in reversed(components[1:]):
        values = RaggedTensor(values, splits)
    return values
