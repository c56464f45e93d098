"""`rt[key]` on a RaggedTensor, as TensorFlow's `ragged_getitem`: an integer
or slice on the rows, then slices (not integers) on the ragged dimensions
and anything on the uniform ones, `...` and `tf.newaxis`. Also the ragged
row gather (`gather_rows`) that row slicing, `tf.gather` and
`tf.ragged.boolean_mask` share. Importing it installs `[]` on RaggedTensor.

Rows are selected by gathering whole ranges of `values`: the new row
lengths, their cumulative sum and one `tf.gather` of item indices, the
same core ops eagerly and in a graph (and gradients reach the flat values).
"""
import numpy as np

from ...framework.tensor import EagerTensor, Tensor
from ..core.constant_ops import zeros
from ..core.creation_ops import range as tf_range
from ..core.gather_ops import gather
from ..core.join_ops import concat
from ..core.math_ops import cast, floordiv, maximum, minimum
from ..core.repeat_unique_roll_ops import repeat
from ..core.scan_ops import cumsum
from ..core.slicing import getitem as dense_getitem
from .ragged_tensor import RaggedTensor


def _splits_of(lengths, dtype):
    return concat([zeros([1], dtype), cumsum(cast(lengths, dtype))], 0)


def gather_ranges(values, starts, limits):
    """The items `values[starts[i]:limits[i]]` of every i, concatenated, and
    the row splits cutting them back into those ranges."""
    dtype = starts.dtype
    lengths = limits - starts
    splits = _splits_of(lengths, dtype)
    total = dense_getitem(splits, -1)
    # Item j of range i is at starts[i] + (j - splits[i]).
    idx = repeat(starts - dense_getitem(splits, slice(None, -1)), lengths) + \
        tf_range(total, dtype=dtype)
    return gather_rows(values, idx), splits


def gather_rows(values, indices):
    """`values`' rows (items) at `indices` (a vector): a Tensor gather, or
    for a RaggedTensor the gathered rows with their own row splits."""
    if not isinstance(values, RaggedTensor):
        return gather(values, indices)
    indices = cast(indices, values.row_splits.dtype)
    starts = gather(values.row_starts(), indices)
    limits = gather(values.row_limits(), indices)
    inner, splits = gather_ranges(values.values, starts, limits)
    return RaggedTensor(inner, splits)


def _int_key(k):
    """A Python int for an eager integer scalar (or a NumPy integer), else `k`."""
    if isinstance(k, EagerTensor) and k.shape.rank == 0 and k.dtype.is_integer:
        return int(k._v)
    if isinstance(k, np.integer):
        return int(k)
    return k


def _expand_ellipsis(keys, rank):
    """`keys` with `...` replaced by enough full slices for `rank` dims."""
    # `is`, not `in`: a Tensor key's `==` would build an op.
    pos = [i for i, k in enumerate(keys) if k is Ellipsis]
    if not pos:
        return keys
    i = pos[0]
    n = rank - (len(keys) - 1 - sum(k is None for k in keys))
    return keys[:i] + [slice(None)] * n + keys[i + 1:]


def ragged_getitem(self, key):
    """Indexing as TensorFlow: rows by an int (a Tensor or RaggedTensor row
    results) or a slice; then slices of each row, indices or slices of the
    uniform inner dimensions, `...` and `tf.newaxis`.

    Raises:
      IndexError: a row index out of bounds.
      ValueError: an integer index into a ragged dimension.
    """
    keys = list(key) if isinstance(key, tuple) else [key]
    keys = [_int_key(k) for k in keys]
    if self.shape.rank is not None:
        keys = _expand_ellipsis(keys, self.shape.rank)
    return _getitem(self, keys)


def _getitem(rt, keys):
    if not keys:
        return rt
    if not isinstance(rt, RaggedTensor):
        return dense_getitem(rt, tuple(keys))
    k, rest = keys[0], keys[1:]
    if k is None:
        inner = _getitem(rt, rest)
        return RaggedTensor.from_uniform_row_length(inner, _nrows(inner), nrows=1)
    if isinstance(k, slice):
        return _inner(_slice_rows(rt, k), rest)
    if isinstance(k, (Tensor, int)):
        n = rt.nrows_value()
        # As TensorFlow: too large is an IndexError; too negative fails in
        # the slice of the row starts.
        if isinstance(k, int) and n is not None and k >= n:
            raise IndexError(f"Row key {k} out of bounds")
        start = dense_getitem(rt.row_starts(), k)
        limit = dense_getitem(rt.row_limits(), k)
        return _getitem(_slice_items(rt.values, start, limit), rest)
    raise TypeError(f"Ragged __getitem__ expects a ragged_tensor, integer, slice or "
                    f"tf.newaxis; got {k!r}")


def _nrows(x):
    return x.nrows() if isinstance(x, RaggedTensor) else \
        RaggedTensor._outer_size(x)


def _slice_items(values, start, limit):
    """`values[start:limit]` (items of a Tensor or rows of a RaggedTensor)."""
    if not isinstance(values, RaggedTensor):
        return dense_getitem(values, slice(start, limit))
    splits = dense_getitem(values.row_splits, slice(start, limit + 1))
    a, b = dense_getitem(splits, 0), dense_getitem(splits, -1)
    return RaggedTensor(_slice_items(values.values, a, b), splits - a)


def _slice_rows(rt, key):
    """The rows `key` (a slice) selects."""
    if key == slice(None):
        return rt
    if key.step in (None, 1) and isinstance(rt.row_splits, EagerTensor) and \
            all(isinstance(x, (int, type(None))) for x in (key.start, key.stop)):
        rows = range(rt.nrows_value())[key]
        a = rows.start if rows else 0
        b = rows.stop if rows else 0
        splits = dense_getitem(rt.row_splits, slice(a, b + 1))
        lo = dense_getitem(splits, 0)
        return RaggedTensor(_slice_items(rt.values, lo, dense_getitem(splits, -1)),
                            splits - lo, rt._uniform_row_length)
    starts = dense_getitem(rt.row_starts(), key)
    limits = dense_getitem(rt.row_limits(), key)
    values, splits = gather_ranges(rt.values, starts, limits)
    return RaggedTensor(values, splits, rt._uniform_row_length)


def _inner(rt, keys):
    """Applies `keys` to the dimensions below the rows of `rt`."""
    if not keys:
        return rt
    if not isinstance(rt, RaggedTensor):
        return dense_getitem(rt, (slice(None),) + tuple(keys))
    k, rest = keys[0], keys[1:]
    if k is None:
        inner = _inner(rt, rest)
        return RaggedTensor.from_uniform_row_length(inner, 1, nrows=inner.nrows_value())
    if isinstance(k, slice) and k == slice(None):
        return rt.with_values(_inner(rt.values, rest))
    if rest:
        rt = rt.with_values(_inner(rt.values, rest))
    if isinstance(k, slice):
        return _slice_columns(rt, k)
    u = rt._uniform_row_length
    if isinstance(u, int) and isinstance(k, int):
        if not -u <= k < u:
            raise IndexError(f"Index {k} out of bounds for a dimension of size {u}")
        return gather_rows(rt.values, rt.row_starts() + k % u)
    raise ValueError("Cannot index into an inner ragged dimension.")


def _bound(x, length, step_positive):
    """Python's slice-bound rule for a start or stop `x` on rows of `length`."""
    if x < 0:
        return maximum(length + x, 0 if step_positive else -1)
    return minimum(length, x) if step_positive else minimum(length - 1, x)


def _slice_columns(rt, key):
    """Every row of `rt` sliced by `key` (Python's rules per row)."""
    for x in (key.start, key.stop, key.step):
        if x is not None and not isinstance(x, int):
            raise TypeError("slices of ragged dimensions need Python int bounds here")
    step = 1 if key.step is None else key.step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    dtype = rt.row_splits.dtype
    lengths = cast(rt.row_lengths(), dtype)
    if step > 0:
        s = lengths * 0 if key.start is None else _bound(key.start, lengths, True)
        e = lengths if key.stop is None else _bound(key.stop, lengths, True)
        count = maximum(floordiv(e - s + (step - 1), step), 0)
    else:
        s = lengths - 1 if key.start is None else _bound(key.start, lengths, False)
        e = lengths * 0 - 1 if key.stop is None else _bound(key.stop, lengths, False)
        count = maximum(floordiv(s - e + (-step - 1), -step), 0)
    splits = _splits_of(count, dtype)
    total = dense_getitem(splits, -1)
    j = tf_range(total, dtype=dtype) - repeat(dense_getitem(splits, slice(None, -1)), count)
    idx = repeat(rt.row_starts() + s, count) + j * step
    return RaggedTensor(gather_rows(rt.values, idx), splits)


RaggedTensor.__getitem__ = ragged_getitem
