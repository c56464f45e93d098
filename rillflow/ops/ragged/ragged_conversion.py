"""Between RaggedTensor and the dense and sparse forms: `from_tensor`
(padding, lengths, ragged_rank), `to_tensor` (default value, shape),
`from_sparse`, `to_sparse`. Importing it installs them on RaggedTensor.

Every conversion is built from the core ops on the components (gathers,
scatters, masks: whole-array NumPy eagerly, the same ops in a graph), so
gradients reach the flat values through it."""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import EagerTensor
from ...framework.tensor_shape import as_shape
from ..core.broadcast_ops import broadcast_to
from ..core.constant_ops import fill
from ..core.creation_ops import range as tf_range, sequence_mask
from ..core.gather_ops import boolean_mask, gather
from ..core.join_ops import concat, stack
from ..core.math_ops import cast, less, multiply, not_equal
from ..core.reduction_ops import reduce_all, reduce_any, reduce_max
from ..core.scatter_ops import tensor_scatter_nd_update
from ..core.shape_ops import reshape, shape as tf_shape
from ..core.slicing import getitem
from .ragged_tensor import RaggedTensor, _eager, _np_tensor


def _positions(rt):
    """For each item of `rt.values`: (its row, its position in the row), int64."""
    rowids = cast(rt.value_rowids(), D.int64)
    starts = cast(rt.row_starts(), D.int64)
    n = cast(RaggedTensor._outer_size(rt.values), D.int64)
    return rowids, tf_range(n, dtype=D.int64) - gather(starts, rowids)


def dense_indices(rt):
    """The dense index (one int64 column per ragged dimension and the outer
    one) of each row of `rt.flat_values`."""
    cols = [tf_range(cast(rt.nrows(), D.int64), dtype=D.int64)]
    level = rt
    while isinstance(level, RaggedTensor):
        rowids, pos = _positions(level)
        # Each item inherits its parent's index and adds its position.
        cols = [gather(c, rowids) for c in cols] + [pos]
        level = level.values
    return stack(cols, axis=1)


def to_tensor(self, default_value=None, name=None, shape=None):
    """A dense tensor: rows padded with `default_value` (zero or b'') to the
    bounding shape, or cut or padded to `shape` (None entries: the bounding
    size).

    Raises:
      InvalidArgumentError: a `default_value` whose rank is not below the
        flat values'.
    """
    fv = self.flat_values
    bound = self.bounding_shape(out_type=D.int64)
    if shape is not None:
        shape = as_shape(shape)
        if shape.rank is not None:
            dims = [getitem(bound, i) if d is None else convert_to_tensor(np.int64(d))
                    for i, d in enumerate(shape.as_list())]
            bound = stack(dims)
    if default_value is None:
        default_value = b"" if fv.dtype is D.string else 0
    default = convert_to_tensor(default_value, dtype=fv.dtype)
    if default.shape.rank is not None and fv.shape.rank is not None and \
            default.shape.rank >= fv.shape.rank:
        raise errors.InvalidArgumentError(
            None, None, f"default_value.shape={default.shape.as_list()} and "
            f"rt_input.flat_values.shape={fv.shape.as_list()} are incompatible: "
            f"default_value.rank = {default.shape.rank}  must be less than "
            f"rt_input.flat_values.rank = {fv.shape.rank} [Op:RaggedTensorToTensor] name: ")
    idx = dense_indices(self)
    k = self.ragged_rank + 1
    inner_bound = getitem(bound, slice(k, None))
    values = fv
    if shape is not None:
        # Cut the items outside the requested shape (and the inner dims).
        keep = reduce_all(less(idx, getitem(bound, slice(None, k))), axis=1)
        idx = boolean_mask(idx, keep)
        values = boolean_mask(values, keep)
        if fv.shape.rank > 1:
            sizes = [getitem(inner_bound, i) for i in range(fv.shape.rank - 1)]
            values = values[(slice(None),) + tuple(slice(0, s) for s in sizes)]
    out = fill(bound, default) if default.shape.rank == 0 else \
        _broadcast_fill(bound, default)
    if fv.shape.rank > 1 and shape is not None:
        # Values narrower than the requested inner dims: scatter the items
        # into a default-filled block of the inner shape first.
        vshape = tf_shape(values, out_type=D.int64)
        if not _eager(vshape, inner_bound) or not np.array_equal(
                vshape._v[1:], inner_bound._v):
            block = _broadcast_fill(concat([getitem(vshape, slice(0, 1)), inner_bound], 0),
                                    default)
            inner_idx = _grid(values)
            values = tensor_scatter_nd_update(block, inner_idx, reshape(values, [-1]))
    return tensor_scatter_nd_update(out, idx, values)


def _broadcast_fill(shape, default):
    return broadcast_to(default, shape)


def _grid(values):
    """The index of every element of `values` (row-major), int64."""
    v = values._v if isinstance(values, EagerTensor) else None
    if v is not None:
        return _np_tensor(np.argwhere(np.ones(v.shape, bool)), D.int64)
    raise NotImplementedError("to_tensor with a narrower shape on inner dimensions in a graph")


def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                row_splits_dtype=D.int64):
    """A RaggedTensor of the dense `tensor`, its first `ragged_rank + 1`
    dimensions ragged: rows cut to `lengths`, or with the trailing `padding`
    items dropped, or whole.

    Raises:
      ValueError: both `lengths` and `padding`, or a bad `ragged_rank`.
    """
    splits_dtype = D.as_dtype(row_splits_dtype)
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    if not isinstance(ragged_rank, int):
        raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
    if ragged_rank <= 0:
        raise ValueError(f"Argument `ragged_rank` must be greater than 0. Received "
                         f"ragged_rank={ragged_rank}.")
    tensor = convert_to_tensor(tensor)
    dims = tensor.shape.as_list()
    if tensor.shape.rank is not None and tensor.shape.rank <= ragged_rank:
        raise ValueError(f"Tensor with shape {tensor.shape} must have rank at least "
                         f"ragged_rank+1")
    if ragged_rank > 1:
        flat = reshape(tensor, [-1] + dims[ragged_rank:])
        out = from_tensor(cls, flat, lengths, padding, 1, row_splits_dtype=splits_dtype)
        for axis in range(ragged_rank - 1, 0, -1):
            out = cls.from_uniform_row_length(out, dims[axis],
                                              nrows=int(np.prod(dims[:axis])), validate=False)
        return out
    shp = tf_shape(tensor, out_type=splits_dtype)
    nrows, ncols = getitem(shp, 0), getitem(shp, 1)
    if padding is not None:
        padding = convert_to_tensor(padding, dtype=tensor.dtype)
        mask = not_equal(tensor, padding)
        if tensor.shape.rank > 2:
            mask = reduce_any(mask, axis=list(range(2, tensor.shape.rank)))
        # A row's length is the index of its last non-padding item + 1.
        pos = tf_range(1, ncols + 1, dtype=splits_dtype)
        lengths = reduce_max(multiply(cast(mask, splits_dtype), pos), axis=1)
    if lengths is None:
        values = reshape(tensor, [-1] + dims[2:])
        splits = tf_range(nrows + 1, dtype=splits_dtype) * ncols
        return cls(values, splits)
    lengths = cast(convert_to_tensor(lengths), splits_dtype)
    keep = sequence_mask(lengths, ncols)
    values = boolean_mask(tensor, keep)
    return cls.from_row_lengths(values, lengths, validate=False)


def from_sparse(cls, st_input, name=None, row_splits_dtype=D.int64):
    """The 2-D right-ragged `SparseTensor` as a RaggedTensor (each row's
    entries at columns 0, 1, ...).

    Raises:
      ValueError: not 2-D.
      InvalidArgumentError: entries not right-ragged.
    """
    if not isinstance(st_input, SparseTensor):
        raise TypeError(f"Argument `st_input` must be of type SparseTensor, but is "
                        f"{type(st_input).__name__}.")
    indices = st_input.indices
    if indices.shape.rank is not None and indices.shape[1] is not None and \
            indices.shape[1] != 2:
        raise ValueError("rank(st_input) must be 2.")
    splits_dtype = D.as_dtype(row_splits_dtype)
    rowids = getitem(indices, (slice(None), 0))
    rt = cls.from_value_rowids(st_input.values, cast(rowids, splits_dtype),
                               cast(getitem(st_input.dense_shape, 0), splits_dtype),
                               validate=False)
    if _eager(indices):
        _, pos = _positions(rt)
        cols = indices._v[:, 1]
        if not np.array_equal(cols, pos._v) or np.any(np.diff(indices._v[:, 0]) < 0):
            flat = indices._v.reshape(-1)[:3].tolist()
            shown = ", ".join(str(v) for v in flat) + (", ..." if indices._v.size > 3 else "")
            raise errors.InvalidArgumentError(
                None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                "Summarized data: b'SparseTensor is not right-ragged'\n"
                f"b'SparseTensor.indices ='\n{shown}")
    return rt


def to_sparse(self, name=None):
    """The SparseTensor of the items, shaped as `bounding_shape()`."""
    idx = dense_indices(self)
    fv = self.flat_values
    if fv.shape.rank > 1:
        # One entry per scalar: repeat each item's index over its inner grid.
        inner = tf_shape(fv, out_type=D.int64)
        n_inner = int(np.prod(fv.shape.as_list()[1:]))
        grid = _np_tensor(np.argwhere(np.ones(fv.shape.as_list()[1:], bool)), D.int64)
        rep = gather(idx, tf_range(getitem(inner, 0) * n_inner, dtype=D.int64) // n_inner)
        tiled = gather(grid, tf_range(getitem(inner, 0) * n_inner, dtype=D.int64) % n_inner)
        idx = concat([rep, tiled], 1)
        fv = reshape(fv, [-1])
    return SparseTensor(idx, fv, self.bounding_shape(out_type=D.int64))


RaggedTensor.to_tensor = to_tensor
RaggedTensor.to_sparse = to_sparse
RaggedTensor.from_tensor = classmethod(from_tensor)
RaggedTensor.from_sparse = classmethod(from_sparse)
