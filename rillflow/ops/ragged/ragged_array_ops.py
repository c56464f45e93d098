"""Array ops on RaggedTensors: concat, stack, gather, where, expand_dims,
`tf.ragged.boolean_mask`, `tf.ragged.range`, `tf.ragged.stack`,
`tf.ragged.stack_dynamic_partitions`, and the conversions between segment
ids and row splits.

Each is built from whole-array core ops on the components (cumulative sums
of row lengths, `repeat`, `gather` with an inverse permutation for
interleaving rows), never a loop over rows.
"""
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ..core.broadcast_ops import broadcast_to, where as dense_where
from ..core.constant_ops import zeros
from ..core.creation_ops import invert_permutation, range as tf_range
from ..core.gather_ops import boolean_mask as dense_boolean_mask, gather
from ..core.join_ops import concat as dense_concat, stack as dense_stack
from ..core.math_ops import cast, floordiv, maximum
from ..core.reduction_ops import reduce_max
from ..core.repeat_unique_roll_ops import repeat
from ..core.scan_ops import cumsum
from ..core.segment_ops import bincount, unsorted_segment_sum
from ..core.shape_ops import reshape, shape as tf_shape
from ..core.slicing import getitem
from ..core.sort_ops import argsort
from ..core.unary_ops import ceil, sign
from .ragged_conversion import dense_indices, from_tensor
from .ragged_getitem import gather_rows
from .ragged_math_ops import _broadcast_dense, _same_partition
from .ragged_tensor import RaggedTensor, _eager


def _splits(lengths, dtype):
    return dense_concat([zeros([1], dtype), cumsum(cast(lengths, dtype))], 0)


def _as_ragged(x, ragged_rank, splits_dtype):
    """`x` as a RaggedTensor of `ragged_rank` (dense tensors via `from_tensor`)."""
    if isinstance(x, RaggedTensor):
        return x if x.row_splits.dtype is splits_dtype else x.with_row_splits_dtype(
            splits_dtype)
    return from_tensor(RaggedTensor, convert_to_tensor(x), ragged_rank=ragged_rank,
                       row_splits_dtype=splits_dtype)


def _common_splits_dtype(values):
    dts = {v.row_splits.dtype for v in values if isinstance(v, RaggedTensor)}
    return D.int64 if D.int64 in dts or not dts else D.int32


def _concat_rows(values):
    """The rows of every RaggedTensor (or Tensor) in `values`, one after another."""
    if not all(isinstance(v, RaggedTensor) for v in values):
        return dense_concat(values, 0)
    inner = _concat_rows([v.values for v in values])
    dtype = values[0].row_splits.dtype
    return RaggedTensor(inner, _splits(dense_concat([v.row_lengths() for v in values], 0),
                                       dtype))


def _interleave_rows(values):
    """Row i of the result is row i of each of `values` (all with the same
    number of rows) concatenated: axis-1 concatenation."""
    dtype = values[0].row_splits.dtype
    lengths = [cast(v.row_lengths(), dtype) for v in values]
    total = lengths[0]
    for n in lengths[1:]:
        total = total + n
    out_splits = _splits(total, dtype)
    positions, before = [], getitem(out_splits, slice(None, -1))
    for v, n in zip(values, lengths):
        # Item j of row i of this input lands at out_start[i] + (earlier
        # inputs' lengths of row i) + j.
        ids = v.value_rowids()
        pos = tf_range(getitem(v.row_splits, -1), dtype=dtype) - gather(v.row_starts(), ids)
        positions.append(gather(before, ids) + pos)
        before = before + n
    perm = invert_permutation(dense_concat(positions, 0))
    items = _concat_rows([v.values for v in values])
    return RaggedTensor(gather_rows(items, perm), out_splits)


def concat(values, axis, name=None):
    """`tf.concat` with RaggedTensor inputs (dense ones are made ragged).

    Raises:
      ValueError: an axis out of range or mixed ranks.
      InvalidArgumentError: inputs with different numbers of rows (axis > 0).
    """
    values = list(values)
    k = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    dtype = _common_splits_dtype(values)
    values = [_as_ragged(v, k, dtype) for v in values]
    rank = values[0].shape.rank
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    if axis == 0:
        return _concat_rows(values)
    for i, v in enumerate(values[1:], 1):
        a, b = values[0].nrows(), v.nrows()
        if _eager(a, b) and int(a._v) != int(b._v):
            raise errors.InvalidArgumentError(
                None, None, f"Input tensors at index 0 (=x) and {i} (=y) have incompatible "
                f"shapes.\nCondition x == y did not hold.\nFirst 1 elements of x:\n"
                f"[{int(a._v)}]\nFirst 1 elements of y:\n[{int(b._v)}]")
    if axis == 1:
        return _interleave_rows(values)
    inner = concat([v.values for v in values], axis - 1)
    return RaggedTensor(inner, values[0].row_splits)


def expand_dims(input, axis, name=None):  # noqa: A002
    """`tf.expand_dims` of a RaggedTensor: a new dimension of size 1."""
    rank = input.shape.rank
    if axis < 0:
        axis += rank + 1
    if axis == 0:
        return RaggedTensor.from_uniform_row_length(input, input.nrows(), nrows=1)
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(input, 1, nrows=input.nrows_value())
    values = input.values
    inner = expand_dims(values, axis - 1) if isinstance(values, RaggedTensor) else \
        reshape(values, values.shape.as_list()[:axis - 1] + [1] +
                values.shape.as_list()[axis - 1:])
    return input.with_values(inner)


def stack(values, axis=0, name=None):
    """`tf.stack` with RaggedTensor inputs: concat of each expanded at `axis`
    (all dense: stacked, then made ragged, as `tf.ragged.stack` does)."""
    values = list(values)
    ragged = [v.ragged_rank for v in values if isinstance(v, RaggedTensor)]
    if not ragged:
        out = dense_stack([convert_to_tensor(v) for v in values], axis)
        return from_tensor(RaggedTensor, out) if out.shape.rank >= 2 else out
    dtype = _common_splits_dtype(values)
    values = [_as_ragged(v, max(ragged), dtype) for v in values]
    return concat([expand_dims(v, axis) for v in values], axis)


@export("ragged.stack")
def ragged_stack(values, axis=0, name=None):
    """Stacks ragged or dense tensors into a RaggedTensor of one more rank."""
    return stack(values, axis, name)


def gather_ragged(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """`tf.gather` where `params` or `indices` is ragged (axis 0, no batch dims).

    Raises:
      InvalidArgumentError: an index out of range.
    """
    if axis not in (None, 0) or batch_dims:
        raise NotImplementedError("ragged gather supports axis=0 and batch_dims=0 here")
    if isinstance(indices, RaggedTensor):
        return indices.with_flat_values(gather_ragged(params, indices.flat_values))
    indices = convert_to_tensor(indices)
    if not isinstance(params, RaggedTensor):
        return gather(params, indices)
    if _eager(indices):
        n = params.nrows_value()
        bad = (indices._v < 0) | (indices._v >= n)
        if bad.any():
            i = int(bad.reshape(-1).argmax())
            raise errors.InvalidArgumentError(
                None, None, f"indices[{i}] = {int(indices._v.reshape(-1)[i])} is not in "
                f"[0, {n}) [Op:RaggedGather] name: ")
    out = gather_rows(params, reshape(indices, [-1]))
    # A multi-dimensional index array adds uniform outer dimensions.
    dims = indices.shape.as_list()
    for d in reversed(dims[1:]):
        out = RaggedTensor.from_uniform_row_length(out, d, validate=False)
    return out


def where_ragged(condition, x=None, y=None, name=None):
    """`tf.where` with RaggedTensor arguments: the coordinates of true items
    (a dense [n, rank] int64 tensor), or an item-wise choice of x and y."""
    if x is None and y is None:
        idx = dense_indices(condition)
        return dense_boolean_mask(idx, condition.flat_values)
    ragged = next(v for v in (condition, x, y) if isinstance(v, RaggedTensor))

    def flat(v, dtype_hint=None):
        if isinstance(v, RaggedTensor):
            _same_partition(ragged, v)
            return v.flat_values
        b = _broadcast_dense(ragged, convert_to_tensor(v, dtype_hint=dtype_hint))
        if isinstance(b, RaggedTensor):
            _same_partition(ragged, b)
            return b.flat_values
        return broadcast_to(b, tf_shape(ragged.flat_values))
    hint = x.dtype if isinstance(x, RaggedTensor) else (
        y.dtype if isinstance(y, RaggedTensor) else None)
    out = dense_where(flat(condition), flat(x, hint), flat(y, hint))
    return ragged.with_flat_values(out)


@export("ragged.boolean_mask")
def boolean_mask(data, mask, name=None):
    """The items of `data` where `mask` (a prefix of data's shape, ragged or
    dense) is true; masking a ragged dimension shortens its rows.

    Raises:
      ValueError: a mask of unknown rank or rank 0.
    """
    if not isinstance(mask, RaggedTensor):
        mask = convert_to_tensor(mask, dtype=D.bool_)
    if mask.shape.rank == 0:
        raise ValueError("mask.shape.ndims must be greater than 0.")
    if not isinstance(mask, RaggedTensor) and mask.shape.rank == 1:
        if not isinstance(data, RaggedTensor):
            return dense_boolean_mask(data, mask)
        rows = reshape(cast(dense_where(mask), data.row_splits.dtype), [-1])
        return gather_rows(data, rows)
    if not isinstance(mask, RaggedTensor):
        mask = from_tensor(RaggedTensor, mask, ragged_rank=mask.shape.rank - 1)
    if not isinstance(data, RaggedTensor):
        data = from_tensor(RaggedTensor, convert_to_tensor(data), ragged_rank=mask.ragged_rank)
    return _mask_ragged(data, mask)


def _mask_ragged(data, mask):
    """`data` with the items of its ragged level masked by the ragged `mask`
    of the same partition."""
    if mask.ragged_rank > 1:
        return data.with_values(_mask_ragged(data.values, mask.values))
    keep = mask.values
    kept = dense_boolean_mask(data.values, keep) if not isinstance(data.values, RaggedTensor) \
        else gather_rows(data.values, reshape(dense_where(keep), [-1]))
    dtype = data.row_splits.dtype
    counts = unsorted_segment_sum(cast(keep, dtype), mask.value_rowids(), mask.nrows())
    return RaggedTensor(kept, _splits(counts, dtype))


@export("ragged.range")
def ragged_range(starts, limits=None, deltas=1, dtype=None, name=None,
                 row_splits_dtype=D.int64):
    """Row i is `range(starts[i], limits[i], deltas[i])` (scalars broadcast;
    with one argument, `range(0, starts[i])`).

    Raises:
      InvalidArgumentError: a delta of 0.
    """
    if limits is None:
        starts, limits = 0, starts
    args = [convert_to_tensor(v) for v in (starts, limits, deltas)]
    if dtype is None:
        order = [D.int32, D.int64, D.float32, D.float64]
        dtype = max((a.dtype for a in args), key=order.index)
    args = [cast(a, dtype) for a in args]
    sd = D.as_dtype(row_splits_dtype)
    if all(a.shape.rank == 0 for a in args):
        args = [reshape(a, [1]) for a in args]
    n = reduce_max(dense_concat([reshape(tf_shape(a), [-1]) for a in args], 0))
    start, limit, delta = [broadcast_to(a, reshape(n, [1])) for a in args]
    if _eager(delta) and (delta._v == 0).any():
        raise errors.InvalidArgumentError(None, None,
                                          "Requires delta != 0 [Op:RaggedRange] name: ")
    span = limit - start
    if dtype.is_integer:
        count = floordiv(span + delta - cast(1, dtype) * sign(delta), delta)
    else:
        count = ceil(span / delta)
    count = maximum(cast(count, sd), cast(0, sd))
    splits = _splits(count, sd)
    j = tf_range(getitem(splits, -1), dtype=sd) - repeat(getitem(splits, slice(None, -1)),
                                                           count)
    values = repeat(start, count) + cast(j, dtype) * repeat(delta, count)
    return RaggedTensor(values, splits)


@export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """The row splits of sorted `segment_ids` (`num_segments` rows at least)."""
    ids = convert_to_tensor(segment_ids, dtype_hint=D.int64)
    out_type = D.as_dtype(out_type) if out_type is not None else ids.dtype
    kw = {}
    if num_segments is not None:
        n = cast(convert_to_tensor(num_segments), D.int32)
        kw = {"minlength": n, "maxlength": n}
    counts = bincount(cast(ids, D.int32), dtype=out_type, **kw)
    return _splits(counts, out_type)


@export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value, for the row partition `splits`."""
    splits = convert_to_tensor(splits, dtype_hint=D.int64)
    out_type = D.as_dtype(out_type) if out_type is not None else splits.dtype
    lengths = getitem(splits, slice(1, None)) - getitem(splits, slice(None, -1))
    n = getitem(tf_shape(splits, out_type=out_type), 0) - 1
    return repeat(tf_range(n, dtype=out_type), lengths)


@export("ragged.stack_dynamic_partitions")
def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """Row p holds the items of `data` whose partition is p, in order."""
    data = convert_to_tensor(data) if not isinstance(data, RaggedTensor) else data
    partitions = convert_to_tensor(partitions, dtype_hint=D.int32)
    order = argsort(partitions, stable=True)
    sorted_parts = gather(partitions, order)
    splits = segment_ids_to_row_splits(cast(sorted_parts, D.int64), num_partitions,
                                       out_type=D.int64)
    return RaggedTensor(gather_rows(data, order), splits)

