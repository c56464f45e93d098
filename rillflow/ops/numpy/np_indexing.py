"""`tf.experimental.numpy`'s indexing: `take`, `take_along_axis`, `where`,
`select`, `nonzero`, `ix_`, `diag_indices`, and NumPy-style `__getitem__`
(integer and boolean arrays as indices, which
`experimental_enable_numpy_behavior()` puts on `tf.Tensor`) with the
`_with_index_update`/`_add`/`_min`/`_max` methods TensorFlow gives tensors.

A key is split as TensorFlow splits it: the basic indices (ints, slices,
`...`, `newaxis`) become one `tf.strided_slice`, the advanced ones (arrays) a
`tf.gather`/`tf.gather_nd` on its result; updates go the other way, through
`tf.tensor_scatter_nd_*` and a strided-slice update.
"""
import enum
import functools
import numbers

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.tensor import Tensor
from ..core import broadcast_ops, clip_ops, constant_ops, creation_ops, dim_ops, gather_ops
from ..core import join_ops, math_ops, reduction_ops, scan_ops, scatter_ops, shape_ops
from ..core import slicing
from ..debugging import logging_ops
from . import np_array_core as A
from . import np_utils
from .np_utils import np_doc


@export("experimental.numpy.take")
@np_doc("take")
def take(a, indices, axis=None, out=None, mode="clip"):
    """Elements of `a` at `indices` along `axis` (of the flattened `a` by
    default); out-of-range indices are clipped ('clip') or wrapped ('wrap')."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in {"raise", "clip", "wrap"}:
        raise ValueError("Invalid mode '{}' for take".format(mode))
    a = A.asarray(a)
    indices = A.asarray(indices)
    if axis is None:
        a = shape_ops.reshape(a, [-1])
        axis = 0
    axis_size = shape_ops.shape(a, out_type=indices.dtype)[axis]
    if mode == "clip":
        indices = clip_ops.clip_by_value(indices, 0, axis_size - 1)
    elif mode == "wrap":
        indices = math_ops.floormod(indices, axis_size)
    else:
        raise ValueError("The 'raise' mode to take is not supported.")
    return gather_ops.gather(a, indices, axis=axis)


@export("experimental.numpy.where")
@np_doc("where", check_signature=False)
def where(condition, x=None, y=None):
    """`x` where `condition`, else `y` (promoted to one dtype); with neither,
    `nonzero(condition)`.

    Raises:
      ValueError: if exactly one of x and y is given.
    """
    condition = A.asarray(condition, dtype=np.bool_)
    if x is None and y is None:
        return nonzero(condition)
    if x is not None and y is not None:
        x, y = A.promote_dtype(x, y)
        return broadcast_ops.where(condition, x, y)
    raise ValueError("Both x and y must be ndarrays, or both must be None.")


@export("experimental.numpy.select")
@np_doc("select")
def select(condlist, choicelist, default=0):
    """From each choice where its condition holds (the first that does), else `default`."""
    if len(condlist) != len(choicelist):
        msg = "condlist must have length equal to choicelist ({} vs {})"
        raise ValueError(msg.format(len(condlist), len(choicelist)))
    if not condlist:
        raise ValueError("condlist must be non-empty")
    choices = A.promote_dtype(default, *choicelist)
    choicelist = choices[1:]
    output = choices[0]
    # The first matching condition wins: apply them last to first.
    for cond, choice in zip(condlist[::-1], choicelist[::-1]):
        output = where(cond, choice, output)
    return output


@export("experimental.numpy.nonzero")
@np_doc("nonzero")
def nonzero(a):
    """A tuple of index arrays, one per dimension, of `a`'s nonzero elements."""
    a = A.atleast_1d(a)
    if a.shape.rank is None:
        raise ValueError("The rank of `a` is unknown, so we can't decide how many "
                         "arrays to return.")
    return join_ops.unstack(broadcast_ops.where(math_ops.cast(a, D.bool_)), a.shape.rank,
                            axis=1)


@export("experimental.numpy.diag_indices")
@np_doc("diag_indices")
def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x ... x n array."""
    if n < 0:
        raise ValueError("n argument to diag_indices must be nonnegative, got {}".format(n))
    if ndim < 0:
        raise ValueError(
            "ndim argument to diag_indices must be nonnegative, got {}".format(ndim))
    return (creation_ops.range(n),) * ndim


@export("experimental.numpy.ix_")
@np_doc("ix_")
def ix_(*args):
    """An open mesh of the 1-D integer (or boolean) sequences."""
    n = len(args)
    output = []
    for i, a in enumerate(args):
        a = A.asarray(a)
        a_rank = shape_ops.rank(a)
        a_rank_static = np_utils.get_static_value(a_rank)
        if a_rank_static is not None:
            a_rank = a_rank_static
            if a_rank != 1:
                raise ValueError("Arguments must be 1-d, got arg {} of rank {}".format(
                    i, a_rank))
        else:
            logging_ops.Assert(math_ops.equal(a_rank, 1), [a_rank])
        new_shape = [1] * n
        new_shape[i] = -1
        dtype = a.dtype
        if dtype == D.bool_:
            output.append(shape_ops.reshape(nonzero(a)[0], new_shape))
        elif dtype.is_integer:
            output.append(shape_ops.reshape(a, new_shape))
        else:
            raise ValueError("Only integer and bool dtypes are supported, got {}".format(dtype))
    return output


@export("experimental.numpy.take_along_axis")
@np_doc("take_along_axis")
def take_along_axis(arr, indices, axis):
    """Elements of `arr` at `indices` along `axis`, the other axes broadcast."""
    arr = A.asarray(arr)
    indices = A.asarray(indices)
    if axis is None:
        return take_along_axis(arr.ravel(), indices, 0)
    rank = shape_ops.rank(arr)
    axis = axis + rank if axis < 0 else axis
    # Broadcast shapes, except the axis itself.
    arr_shape_original = shape_ops.shape(arr, out_type=indices.dtype)
    indices_shape_original = shape_ops.shape(indices, out_type=indices.dtype)
    arr_shape = scatter_ops.tensor_scatter_nd_update(arr_shape_original, [[axis]], [1])
    indices_shape = scatter_ops.tensor_scatter_nd_update(indices_shape_original, [[axis]], [1])
    broadcasted_shape = broadcast_ops.broadcast_dynamic_shape(arr_shape, indices_shape)
    arr_shape = scatter_ops.tensor_scatter_nd_update(broadcasted_shape, [[axis]],
                                                     [arr_shape_original[axis]])
    indices_shape = scatter_ops.tensor_scatter_nd_update(broadcasted_shape, [[axis]],
                                                         [indices_shape_original[axis]])
    arr = broadcast_ops.broadcast_to(arr, arr_shape)
    indices = broadcast_ops.broadcast_to(indices, indices_shape)
    possible_result_shape = indices.shape
    indices = broadcast_ops.where(indices < 0, indices + arr_shape[axis], indices)

    def swapaxes_(t):
        return A.swapaxes(t, axis, -1)

    # Moves the axis to the end, gathers rows with batch_dims=1, moves it back.
    dont_move_axis_to_end = math_ops.equal(axis, np_utils.subtract(rank, 1))
    arr = np_utils.cond(dont_move_axis_to_end, lambda: arr, lambda: swapaxes_(arr))
    indices = np_utils.cond(dont_move_axis_to_end, lambda: indices, lambda: swapaxes_(indices))
    arr_shape = shape_ops.shape(arr)
    arr = shape_ops.reshape(arr, [-1, arr_shape[-1]])
    indices_shape = shape_ops.shape(indices)
    indices = shape_ops.reshape(indices, [-1, indices_shape[-1]])
    result = gather_ops.gather(arr, indices, batch_dims=1)
    result = shape_ops.reshape(result, indices_shape)
    result = np_utils.cond(dont_move_axis_to_end, lambda: result, lambda: swapaxes_(result))
    result.set_shape(possible_result_shape)
    return result


# --- NumPy-style __getitem__ and the index updates ---------------------------

_SLICE_ERROR = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                "integer or boolean arrays are valid indices")


def _as_index(idx, need_scalar=True):
    """`idx` as an index: (an int or integer tensor, whether it is a scalar).

    Raises:
      IndexError: for an index that is not an integer (array) or 1-D bool array.
    """
    if isinstance(idx, numbers.Integral):
        return idx, True
    data = A.asarray(idx)
    if data.dtype == D.bool_:
        if data.shape.ndims != 1:
            raise NotImplementedError("Need rank 1 for bool index %s" % idx)
        data = broadcast_ops.where(data)
        data = shape_ops.reshape(data, [-1])
    if need_scalar and data.shape.rank not in (None, 0):
        raise IndexError(_SLICE_ERROR + ", got {!r}".format(idx))
    np_dtype = data.dtype.as_numpy_dtype
    if not np.issubdtype(np_dtype, np.integer):
        raise IndexError(_SLICE_ERROR + ", got {!r}".format(idx))
    if data.dtype not in (D.int64, D.int32):
        # A smaller integer (or uint32) becomes the narrowest of int32/int64 holding it.
        promoted_dtype = np.promote_types(np.int32, np_dtype)
        if promoted_dtype == np.int32:
            data = math_ops.cast(data, D.int32)
        elif promoted_dtype == np.int64:
            data = math_ops.cast(data, D.int64)
        else:
            raise IndexError(_SLICE_ERROR + ", got {!r}".format(idx))
    return data, data.shape.rank == 0


class UpdateMethod(enum.Enum):
    UPDATE = 0
    ADD = 1
    MIN = 2
    MAX = 3


def _strided_slice_update(tensor, begin, end, strides, value, **masks):
    """`tensor` with its strided slice replaced by `value` (broadcast): the
    slice of an array of flat positions says which elements to scatter to,
    so the update is differentiable through `tensor_scatter_nd_update`."""
    shape = shape_ops.shape(tensor, out_type=D.int64)
    positions = shape_ops.reshape(
        creation_ops.range(reduction_ops.reduce_prod(shape), dtype=D.int64), shape)
    picked = slicing.strided_slice(positions, begin, end, strides, **masks)
    value = broadcast_ops.broadcast_to(value, shape_ops.shape(picked))
    flat = scatter_ops.tensor_scatter_nd_update(
        shape_ops.reshape(tensor, [-1]), shape_ops.reshape(picked, [-1, 1]),
        shape_ops.reshape(value, [-1]))
    return shape_ops.reshape(flat, shape)


def _parse_spec(slice_spec):
    """The strided-slice vectors and masks of the basic indices, and the
    advanced ones: [(position, index tensor, after an ellipsis)]."""
    begin, end, strides = [], [], []
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0)
    advanced_indices = []
    shrink_indices = []
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, slice):
            for value, vec, mask in ((s.start, begin, "begin_mask"),
                                     (s.stop, end, "end_mask")):
                if value is not None:
                    vec.append(_as_index(value)[0])
                else:
                    vec.append(0)
                    masks[mask] |= bit
            strides.append(_as_index(s.step)[0] if s.step is not None else 1)
        elif s is Ellipsis or s is np.newaxis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask" if s is Ellipsis else "new_axis_mask"] |= bit
        else:
            s, is_scalar = _as_index(s, False)
            if is_scalar:
                begin.append(s)
                end.append(s + 1)
                strides.append(1)
                masks["shrink_axis_mask"] |= bit
                shrink_indices.append(index)
            else:
                begin.append(0)
                end.append(0)
                strides.append(1)
                masks["begin_mask"] |= bit
                masks["end_mask"] |= bit
                advanced_indices.append((index, s, masks["ellipsis_mask"] != 0))
    return begin, end, strides, masks, advanced_indices, shrink_indices


def _pack(begin, end, strides):
    """The three spec vectors as tensors of one index dtype (int64 if any is)."""
    if not begin:
        empty = constant_ops.constant([], dtype=D.int32)
        return empty, empty, empty
    packed = [join_ops.stack(v) for v in (begin, end, strides)]
    if any(p.dtype == D.int64 for p in packed):
        packed = [p if p.dtype == D.int64 else math_ops.cast(p, D.int64) for p in packed]
    return packed


_UPDATE_OPS = {UpdateMethod.ADD: math_ops.add, UpdateMethod.MIN: math_ops.minimum,
               UpdateMethod.MAX: math_ops.maximum}
_SCATTER_OPS = {UpdateMethod.UPDATE: scatter_ops.tensor_scatter_nd_update,
                UpdateMethod.ADD: scatter_ops.tensor_scatter_nd_add,
                UpdateMethod.MIN: scatter_ops.tensor_scatter_nd_min,
                UpdateMethod.MAX: scatter_ops.tensor_scatter_nd_max}


def _slice_helper(tensor, slice_spec, update_method=None, updates=None):
    """Reads `tensor[slice_spec]` (update_method None) or returns `tensor`
    with the indexed elements updated: `gather(strided_slice(tensor, basic),
    advanced)` to read, `strided_slice_update(tensor, basic,
    scatter(strided_slice(tensor, basic), advanced, updates))` to write."""
    begin, end, strides, masks, advanced_indices, shrink_indices = _parse_spec(slice_spec)
    packed_begin, packed_end, packed_strides = _pack(begin, end, strides)
    if update_method == UpdateMethod.UPDATE and not advanced_indices:
        return _strided_slice_update(tensor, packed_begin, packed_end, packed_strides,
                                     updates, **masks)
    original_tensor = tensor
    tensor = slicing.strided_slice(tensor, packed_begin, packed_end, packed_strides, **masks)
    if not advanced_indices:
        if update_method is None:
            return tensor
        return _strided_slice_update(original_tensor, packed_begin, packed_end, packed_strides,
                                     _UPDATE_OPS[update_method](tensor, updates), **masks)
    # The dimensions of the sliced tensor the advanced indices apply to
    # (counted from the end after an ellipsis).
    advanced_indices_map = {}
    for index, data, had_ellipsis in advanced_indices:
        if had_ellipsis:
            num_shrink = len([x for x in shrink_indices if x > index])
            dim = index - len(slice_spec) + num_shrink
        else:
            num_shrink = len([x for x in shrink_indices if x < index])
            dim = index - num_shrink
        advanced_indices_map[dim] = data
    dims = sorted(advanced_indices_map.keys())
    dims_contiguous = True
    if len(dims) > 1:
        if dims[0] < 0 and dims[-1] >= 0:  # not all of one sign
            dims_contiguous = False
        else:
            for i in range(len(dims) - 1):
                if dims[i] + 1 != dims[i + 1]:
                    dims_contiguous = False
                    break
    indices = [advanced_indices_map[x] for x in dims]
    indices = A.promote_dtype(*indices)
    indices = np_utils.tf_broadcast(*indices)
    stacked_indices = join_ops.stack(indices, axis=-1)
    # Non-contiguous advanced dimensions go first, as in NumPy.
    if not dims_contiguous or updates is not None:
        if range(len(dims)) != dims:
            tensor = A.moveaxis(tensor, dims, range(len(dims)))
        tensor_shape_prefix = shape_ops.shape(tensor, out_type=stacked_indices.dtype)[:len(dims)]
        stacked_indices = broadcast_ops.where(
            stacked_indices < 0, stacked_indices + tensor_shape_prefix, stacked_indices)
        if updates is None:
            return gather_ops.gather_nd(tensor, stacked_indices)
        # The batch dimensions of contiguous advanced indices sit where the
        # indices were; the scatter wants them in front.
        if dims_contiguous:
            if stacked_indices.shape.rank is None:
                raise NotImplementedError("Rank of the advanced indices must currently be known")
            batch_size = stacked_indices.shape.rank - 1
            batch_start = dims[0]
            if batch_start < 0:
                batch_start += len(dims) - batch_size
            updates = A.moveaxis(updates, range(batch_start, batch_start + batch_size),
                                 range(batch_size))
        tensor = _SCATTER_OPS[update_method](tensor, stacked_indices, updates)
        if range(len(dims)) != dims:
            tensor = A.moveaxis(tensor, range(len(dims)), dims)
        return _strided_slice_update(original_tensor, packed_begin, packed_end, packed_strides,
                                     tensor, **masks)
    # Contiguous advanced dimensions: flatten them into one and gather on it.
    rank = np_utils.maybe_static(shape_ops.rank(tensor))
    dims = [(x + rank if x < 0 else x) for x in dims]
    shape_tensor = shape_ops.shape(tensor)
    dim_sizes = gather_ops.gather(shape_tensor, dims)
    if len(dims) == 1:
        stacked_indices = indices[0]
    stacked_indices = math_ops.cast(stacked_indices, D.int32)
    stacked_indices = broadcast_ops.where(stacked_indices < 0, stacked_indices + dim_sizes,
                                          stacked_indices)
    axis = dims[0]
    if len(dims) > 1:
        index_scaling = scan_ops.cumprod(dim_sizes, reverse=True, exclusive=True)

        def _tensordot(a, b):
            # Not tf.tensordot: it lacks integer support on some devices.
            b = broadcast_ops.broadcast_to(b, shape_ops.shape(a))
            return reduction_ops.reduce_sum(a * b, axis=-1)

        stacked_indices = _tensordot(stacked_indices, index_scaling)
        flat_shape = join_ops.concat(
            [shape_tensor[:axis], [-1], shape_tensor[axis + len(dims):]], axis=0)
        tensor = shape_ops.reshape(tensor, flat_shape)
    return gather_ops.gather(tensor, stacked_indices, axis=axis)


def _as_spec_tuple(slice_spec):
    """`slice_spec` as a tuple: a list of ints is one index array, a list
    holding a slice, `...`, None or an array is a tuple of indices."""
    if isinstance(slice_spec, (list, tuple)) and not isinstance(slice_spec, np.ndarray):
        is_index = True
        for s in slice_spec:
            if s is None or s is Ellipsis or isinstance(s, (list, tuple, slice)):
                is_index = False
                break
            if isinstance(s, (Tensor, np.ndarray)) and s.ndim != 0:
                is_index = False
                break
        if not is_index:
            return tuple(slice_spec)
    return (slice_spec,)


def _is_bool_key(slice_spec):
    return (isinstance(slice_spec, bool)
            or (isinstance(slice_spec, Tensor) and slice_spec.dtype == D.bool_)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == np.bool_))


def getitem(self, slice_spec):
    """NumPy-style `self[slice_spec]` (`Tensor.__getitem__` with NumPy behavior)."""
    if _is_bool_key(slice_spec):
        return gather_ops.boolean_mask(tensor=self, mask=slice_spec)
    if not isinstance(slice_spec, tuple):
        slice_spec = _as_spec_tuple(slice_spec)
    return _slice_helper(self, slice_spec)


def _with_index_update_helper(update_method, a, slice_spec, updates):
    """`a` with `a[slice_spec]` updated by `updates`, in `a`'s dtype."""
    if _is_bool_key(slice_spec):
        slice_spec = nonzero(slice_spec)
    if not isinstance(slice_spec, tuple):
        slice_spec = _as_spec_tuple(slice_spec)
    a_dtype = a.dtype
    a, updates = A.promote_dtype_binary(a, updates)
    result_t = _slice_helper(a, slice_spec, update_method, updates)
    return result_t.astype(a_dtype)


# TensorFlow sets these on its tensors as plain `functools.partial`s, which do
# not bind `self`, so its `t._with_index_update(...)` cannot be called; here
# they are module functions: `with_index_update(a, key, updates)`.
with_index_update = functools.partial(_with_index_update_helper, UpdateMethod.UPDATE)
with_index_add = functools.partial(_with_index_update_helper, UpdateMethod.ADD)
with_index_min = functools.partial(_with_index_update_helper, UpdateMethod.MIN)
with_index_max = functools.partial(_with_index_update_helper, UpdateMethod.MAX)
