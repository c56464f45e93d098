"""`tf.gather` with RaggedTensor params or indices on any axis and with
batch dimensions, as TensorFlow's `ragged_gather_ops`: a gather on axis > 0
becomes an axis-0 gather into the flattened outer two dimensions with the
indices offset by where each row starts (so out-of-row indices fail as in
TensorFlow, naming the flattened position), batch dimensions are peeled
one at a time, and the axis-0 ragged row gather does the work. Whole-array
ops only.
"""
from ...framework.convert import convert_to_tensor
from ..core.creation_ops import range as tf_range
from ..core.gather_ops import gather as dense_gather
from ..core.join_ops import concat
from ..core.math_ops import add, cast
from ..core.repeat_unique_roll_ops import repeat
from ..core.shape_ops import reshape, shape as tf_shape
from ..core.slicing import getitem
from . import ragged_array_ops as A
from .ragged_conversion import from_tensor
from .ragged_math_ops import binary_elementwise
from .ragged_tensor import RaggedTensor


def _ragged(x):
    return isinstance(x, RaggedTensor)


def _positive(axis, rank, what, ndims_name):
    if rank is not None and not -rank <= axis < rank:
        raise ValueError(f"{what}={axis} out of bounds: expected {-rank}<={what}<{rank}")
    return axis + rank if axis < 0 else axis


def _row_starts(t, dtype):
    """Where each outer row of `t` starts in its first two dimensions flattened."""
    if _ragged(t):
        return cast(t.row_starts(), dtype)
    s = tf_shape(t, out_type=dtype)
    return tf_range(getitem(s, 0), dtype=dtype) * getitem(s, 1)


def _flatten_dims_0_and_1(t):
    if _ragged(t):
        return t.values
    return reshape(t, concat([[-1], getitem(tf_shape(t), slice(2, None))], 0))


def _increase_rank_to(t, rank):
    while t.shape.rank < rank:
        t = A.expand_dims(t, -1) if _ragged(t) else reshape(
            t, concat([tf_shape(t), [1]], 0))
    return t


def _add(x, y):
    """x + y with ragged/dense broadcasting."""
    if _ragged(x) or _ragged(y):
        return binary_elementwise(add, x, y)
    return add(x, y)


def _to_ragged(x, like):
    return from_tensor(RaggedTensor, x, ragged_rank=1, row_splits_dtype=like.row_splits.dtype)


def _gather(params, indices, axis, batch_dims):
    if not (_ragged(params) or _ragged(indices)):
        return dense_gather(params, indices, axis=axis, batch_dims=batch_dims)
    if batch_dims > 0:
        return _batch_gather(params, indices, axis, batch_dims)
    if axis > 0:
        return _axis_gather(params, indices, axis)
    return A.gather_ragged(params, indices)


def _axis_gather(params, indices, axis):
    if axis > 1:
        if not _ragged(params):
            params = _to_ragged(params, indices)
        return params.with_values(_gather(params.values, indices, axis - 1, 0))
    if indices.shape.rank is None:
        raise ValueError("rank(indices) must be known statically")
    adjust = _increase_rank_to(_row_starts(params, indices.dtype), indices.shape.rank + 1)
    return _gather(_flatten_dims_0_and_1(params), _add(indices, adjust), 0, 0)


def _batch_gather(params, indices, axis, batch_dims):
    if not params.shape[:batch_dims].is_compatible_with(indices.shape[:batch_dims]):
        raise ValueError(f"batch shape from indices {indices.shape[:batch_dims]} does not "
                         f"match params shape {params.shape[:batch_dims]}")
    if batch_dims > 1:
        if not _ragged(params):
            if indices.uniform_row_length is None:
                raise ValueError("batch shape from indices does not match params shape: "
                                 "ragged indices dimension corresponds to uniform params "
                                 "dimension")
            params = _to_ragged(params, indices)
        if not _ragged(indices):
            if params.uniform_row_length is None:
                raise ValueError("batch shape from indices does not match params shape: "
                                 "ragged params dimension corresponds to uniform indices "
                                 "dimension")
            indices = _to_ragged(indices, params)
        return params.with_values(_gather(params.values, indices.values, axis - 1,
                                          batch_dims - 1))
    if axis > 1:
        # An axis > 1 gather as an axis-1 gather over the dimensions in between.
        if not _ragged(indices):
            adjusted = params.with_values(repeat(indices, params.row_lengths(), 0))
        else:
            if not _ragged(params):
                params = _to_ragged(params, indices)
            adjusted = _gather(indices, params.with_values(
                repeat(tf_range(params.nrows()), params.row_lengths())), 0, 0)
        return _batch_gather(params, adjusted, axis, batch_dims + 1)
    if indices.shape.rank is None:
        raise ValueError("rank(indices) must be known statically")
    adjust = _increase_rank_to(_row_starts(params, indices.dtype), indices.shape.rank)
    return _gather(_flatten_dims_0_and_1(params), _add(indices, adjust), axis - 1, 0)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """`tf.gather` where `params` or `indices` is ragged: the slices of
    `params` at `indices` along `axis`, with `batch_dims` leading batch
    dimensions shared by both.

    Raises:
      ValueError: `axis` below `batch_dims`, `batch_dims` out of range, or
        batch dimensions that do not match.
      InvalidArgumentError: an index out of range.
    """
    if not _ragged(params):
        params = convert_to_tensor(params)
    if not _ragged(indices):
        indices = convert_to_tensor(indices)
    if _ragged(params) and _ragged(indices) and \
            params.row_splits.dtype is not indices.row_splits.dtype:
        raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                         "RaggedTensor.with_row_splits_dtype() to convert them to "
                         "compatible dtypes.")
    irank, prank = indices.shape.rank, params.shape.rank
    if batch_dims != irank:
        batch_dims = _positive(batch_dims, irank, "batch_dims", "rank(indices)")
    if prank is not None and batch_dims >= prank:
        raise ValueError("batch_dims must be less than rank(params)")
    if axis is None:
        axis = batch_dims
    axis = _positive(int(axis), prank, "axis", "rank(params)")
    if axis < batch_dims:
        raise ValueError("axis must be greater than or equal to batch_dims")
    if irank is not None and not 0 <= batch_dims <= irank:
        raise ValueError(f"batch_dims={batch_dims} must be between 0 and "
                         f"rank(indices)={irank}")
    return _gather(params, indices, axis, batch_dims)
