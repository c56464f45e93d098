"""`tf.experimental.numpy`'s shape manipulation: joining (`concatenate`,
`stack`, `hstack`, ...), splitting, repeating and tiling, padding,
flipping and rolling, broadcasting, diagonals and triangles (`diag`, `tri`,
`tril`), `vander` and `meshgrid`, and the shape queries (`shape`, `ndim`,
`size`)."""
import builtins

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.tensor import Tensor
from ..core import broadcast_ops, constant_ops, creation_ops, dim_ops, gather_ops, join_ops
from ..core import math_ops, repeat_unique_roll_ops, scatter_ops, shape_ops, split_pad_ops
from ..debugging import logging_ops
from ..linalg import structure_ops
from . import np_array_core as A
from . import np_dtypes, np_utils
from .np_utils import np_doc


@export("experimental.numpy.diag")
@np_doc("diag")
def diag(v, k=0):
    """A diagonal matrix from a 1-D `v`, or diagonal `k` of a 2-D `v`.

    Raises:
      ValueError: if `v` is not 1-D or 2-D.
    """
    v = A.asarray(v)
    v_rank = shape_ops.rank(v)
    v.shape.with_rank_at_most(2)
    logging_ops.Assert(
        np_utils.logical_or(math_ops.equal(v_rank, 1), math_ops.equal(v_rank, 2)), [v_rank])

    def _diag(v, k):
        return np_utils.cond(
            math_ops.equal(shape_ops.size(v), 0),
            lambda: constant_ops.zeros([builtins.abs(k), builtins.abs(k)], dtype=v.dtype),
            lambda: structure_ops.diag(v, k=k))

    def _diag_part(v, k):
        v_shape = shape_ops.shape(v)
        v, k = np_utils.cond(
            np_utils.logical_or(
                np_utils.less_equal(k, -1 * np_utils.getitem(v_shape, 0)),
                np_utils.greater_equal(k, np_utils.getitem(v_shape, 1))),
            lambda: (constant_ops.zeros([0, 0], dtype=v.dtype), 0),
            lambda: (v, k))
        return structure_ops.diag_part(v, k=k)

    return np_utils.cond(math_ops.equal(v_rank, 1), lambda: _diag(v, k),
                         lambda: _diag_part(v, k))


@export("experimental.numpy.diagonal")
@np_doc("diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    """Diagonal `offset` of the planes of axes `axis1` and `axis2` (last axis)."""
    a = A.asarray(a)
    maybe_rank = a.shape.rank
    if (maybe_rank is not None and offset == 0 and (axis1 == maybe_rank - 2 or axis1 == -2)
            and (axis2 == maybe_rank - 1 or axis2 == -1)):
        return structure_ops.diag_part(a)
    a = A.moveaxis(a, (axis1, axis2), (-2, -1))
    a_shape = shape_ops.shape(a)

    def _zeros():
        return (constant_ops.zeros(join_ops.concat([a_shape[:-1], [0]], 0), dtype=a.dtype), 0)

    a, offset = np_utils.cond(
        np_utils.logical_or(
            np_utils.less_equal(offset, -1 * np_utils.getitem(a_shape, -2)),
            np_utils.greater_equal(offset, np_utils.getitem(a_shape, -1))),
        _zeros, lambda: (a, offset))
    return structure_ops.diag_part(a, k=offset)


@export("experimental.numpy.diagflat")
@np_doc("diagflat")
def diagflat(v, k=0):
    """A diagonal matrix of `v`'s elements."""
    v = A.asarray(v)
    return diag(shape_ops.reshape(v, [-1]), k)


@export("experimental.numpy.compress")
@np_doc("compress")
def compress(condition, a, axis=None):
    """The slices of `a` along `axis` where `condition` (1-D) is true.

    Raises:
      ValueError: if `condition` is not 1-D.
    """
    condition = A.asarray(condition, dtype=bool)
    a = A.asarray(a)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array.")
    # `a` must be at least 1-D for `boolean_mask` to work.
    if a.ndim == 0:
        a = A.ravel(a)
    if axis is None:
        a = A.ravel(a)
        axis = 0
    if axis < 0:
        axis += a.ndim
    assert axis >= 0 and axis < a.ndim
    # `tf.boolean_mask` needs the mask as long as the axis: pad it with False.
    condition_t = condition
    if condition.shape[0] < a.shape[axis]:
        padding = constant_ops.fill([a.shape[axis] - condition.shape[0]], False)
        condition_t = join_ops.concat([condition_t, padding], axis=0)
    return gather_ops.boolean_mask(tensor=a, mask=condition_t, axis=axis)


@export("experimental.numpy.repeat")
@np_doc("repeat")
def repeat(a, repeats, axis=None):
    """Each element (along `axis`, or of the flattened array) repeated."""
    a = A.asarray(a)
    original_shape = a.shape.as_list() if a.shape.rank is not None else None
    known_shape = original_shape is not None and None not in original_shape
    if known_shape:
        if not original_shape:
            original_shape = (repeats,)
        else:
            repeats_np = np.ravel(np.array(repeats))
            if repeats_np.size == 1:
                repeats_np = repeats_np.item()
                if axis is None:
                    original_shape = (repeats_np * np.prod(original_shape),)
                else:
                    original_shape[axis] = repeats_np * original_shape[axis]
            elif axis is None:
                original_shape = (repeats_np.sum(),)
            else:
                original_shape[axis] = repeats_np.sum()
    repeats = A.asarray(repeats)
    result = repeat_unique_roll_ops.repeat(a, repeats, axis)
    if known_shape:
        result.set_shape(original_shape)
    return result


@export("experimental.numpy.pad")
@np_doc("pad", check_signature=False)
def pad(array, pad_width, mode, **kwargs):
    """`array` padded; only modes 'constant', 'reflect' and 'symmetric'."""
    constant_values = kwargs.get("constant_values", 0)
    if not (mode == "constant" or mode == "reflect" or mode == "symmetric"):
        raise ValueError("Unsupported padding mode: " + mode)
    mode = mode.upper()
    array = A.asarray(array)
    pad_width = A.asarray(pad_width, dtype=D.int32)
    return split_pad_ops.pad(tensor=array, paddings=pad_width, mode=mode,
                             constant_values=constant_values)


def _boundaries_to_sizes(a, boundaries, axis):
    """np.split's boundaries as tf.split's sizes."""
    if axis >= len(a.shape):
        raise ValueError("axis %s is out of bound for shape %s" % (axis, a.shape))
    total_size = a.shape[axis]
    sizes = []
    sizes_sum = 0
    prev = 0
    for i, b in enumerate(boundaries):
        size = b - prev
        if size < 0:
            raise ValueError("The %s-th boundary %s is smaller than the previous boundary %s"
                             % (i, b, prev))
        size = builtins.min(size, builtins.max(0, total_size - sizes_sum))
        sizes.append(size)
        sizes_sum += size
        prev = b
    sizes.append(builtins.max(0, total_size - sizes_sum))
    return sizes


@export("experimental.numpy.split")
@np_doc("split")
def split(ary, indices_or_sections, axis=0):
    """`ary` split into equal sections or at the given indices."""
    ary = A.asarray(ary)
    if not isinstance(indices_or_sections, int):
        indices_or_sections = _boundaries_to_sizes(ary, indices_or_sections, axis)
    return split_pad_ops.split(ary, indices_or_sections, axis=axis)


def _split_on_axis(np_fun_name, axis, doc):
    def f(ary, indices_or_sections):
        new_axis = np_utils.cond(
            math_ops.equal(axis, 1),
            lambda: np_utils.cond(math_ops.equal(shape_ops.rank(ary), 1),
                                  lambda: 0, lambda: axis),
            lambda: axis)
        if isinstance(indices_or_sections, int):
            ary_shape = ary.shape[new_axis]
            if ary_shape is not None and ary_shape % indices_or_sections:
                raise ValueError("array split does not result in an equal division")
        return split(ary, indices_or_sections, axis=new_axis)
    f.__name__ = f.__qualname__ = np_fun_name
    f.__doc__ = doc
    return export("experimental.numpy." + np_fun_name)(np_doc(np_fun_name)(f))


vsplit = _split_on_axis("vsplit", 0, "`split` along axis 0.")
hsplit = _split_on_axis("hsplit", 1, "`split` along axis 1 (0 for 1-D arrays).")
dsplit = _split_on_axis("dsplit", 2, "`split` along axis 2.")


@export("experimental.numpy.broadcast_to")
@np_doc("broadcast_to")
def broadcast_to(array, shape):
    """`array` broadcast to `shape`."""
    return A.full(shape, array)


@export("experimental.numpy.broadcast_arrays")
@np_doc("broadcast_arrays", check_signature=False)
def broadcast_arrays(*args, **kwargs):
    """The arrays broadcast against each other."""
    subok = kwargs.pop("subok", False)
    if subok:
        raise ValueError("subok=True is not supported.")
    if kwargs:
        raise ValueError("Received unsupported arguments {}".format(kwargs.keys()))
    args = [A.asarray(arg) for arg in args]
    return np_utils.tf_broadcast(*args)


@export("experimental.numpy.stack")
@np_doc("stack")
def stack(arrays, axis=0):
    """The arrays (promoted to one dtype) stacked along a new axis."""
    if isinstance(arrays, Tensor):
        arrays = A.asarray(arrays)
        if axis == 0:
            return arrays
        return A.swapaxes(arrays, 0, axis)
    arrays = A.promote_dtype(*arrays)
    return A.asarray(join_ops.stack(arrays, axis))


@export("experimental.numpy.hstack")
@np_doc("hstack")
def hstack(tup):
    """The arrays joined along axis 1 (axis 0 for 1-D arrays)."""
    arrays = [A.atleast_1d(a) for a in tup]
    arrays = A.promote_dtype(*arrays)
    rank = shape_ops.rank(arrays[0])
    return np_utils.cond(math_ops.equal(rank, 1),
                         lambda: join_ops.concat(arrays, axis=0),
                         lambda: join_ops.concat(arrays, axis=1))


@export("experimental.numpy.vstack")
@np_doc("vstack")
def vstack(tup):
    """The arrays (at least 2-D) joined along axis 0."""
    arrays = [A.atleast_2d(a) for a in tup]
    arrays = A.promote_dtype(*arrays)
    return join_ops.concat(arrays, axis=0)


@export("experimental.numpy.dstack")
@np_doc("dstack")
def dstack(tup):
    """The arrays (at least 3-D) joined along axis 2."""
    arrays = [A.atleast_3d(a) for a in tup]
    arrays = A.promote_dtype(*arrays)
    return join_ops.concat(arrays, axis=2)


@export("experimental.numpy.concatenate")
@np_doc("concatenate", check_signature=False)
def concatenate(arys, axis=0):
    """The arrays (promoted to one dtype) joined along `axis`.

    Raises:
      ValueError: for no arrays.
    """
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError(f"Need at least one array to concatenate. Received empty input: "
                         f"arys={arys}")
    dtype = np_dtypes.result_type(*arys)
    arys = [A.array(array, dtype=dtype) for array in arys]
    return join_ops.concat(arys, axis)


@export("experimental.numpy.append")
@np_doc("append")
def append(arr, values, axis=None):
    """`values` appended to `arr` (both flattened when `axis` is None)."""
    if axis is None:
        return concatenate([A.ravel(arr), A.ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


@export("experimental.numpy.tile")
@np_doc("tile", check_signature=False)
def tile(a, reps):
    """`a` repeated `reps` times along each axis."""
    a = A.array(a)
    reps = shape_ops.reshape(A.array(reps, dtype=D.int32), [-1])
    a_rank = shape_ops.rank(a)
    reps_size = shape_ops.size(reps)
    # The shorter of `a`'s shape and `reps` gets ones in front.
    reps = split_pad_ops.pad(reps, [[math_ops.maximum(a_rank - reps_size, 0), 0]],
                             constant_values=1)
    a_shape = split_pad_ops.pad(shape_ops.shape(a),
                                [[math_ops.maximum(reps_size - a_rank, 0), 0]],
                                constant_values=1)
    a = shape_ops.reshape(a, a_shape)
    return broadcast_ops.tile(a, reps)


@export("experimental.numpy.tri")
@np_doc("tri")
def tri(N, M=None, k=0, dtype=None):  # noqa: N803 - NumPy's names
    """An N x M array with ones at and below diagonal `k`."""
    M = M if M is not None else N
    dtype = np_dtypes.result_type(dtype) if dtype is not None else \
        np_dtypes.result_type(float)
    if k < 0:
        lower = -k - 1
        if lower > N:
            return constant_ops.zeros([N, M], dtype)
        # Avoids the cast bool -> dtype when dtype is bool.
        o = constant_ops.ones([N, M], dtype=D.bool_)
        return math_ops.cast(math_ops.logical_not(structure_ops.band_part(o, lower, -1)), dtype)
    o = constant_ops.ones([N, M], dtype)
    if k > M:
        return o
    return structure_ops.band_part(o, -1, k)


def _triangle(m, k, name, lower):
    m = A.asarray(m)
    if m.shape.ndims is None:
        raise ValueError(f"Argument to {name} should have known rank")
    m_shape = m.shape.as_list()
    if len(m_shape) < 2:
        raise ValueError(f"Argument to {name} must have rank at least 2")
    if m_shape[-1] is None or m_shape[-2] is None:
        raise ValueError("Currently, the last two dimensions of the input array "
                         "need to be known.")
    z = constant_ops.constant(0, m.dtype)
    mask = tri(*m_shape[-2:], k=k if lower else k - 1, dtype=bool)
    mask = broadcast_ops.broadcast_to(mask, shape_ops.shape(m))
    return broadcast_ops.where(mask, m, z) if lower else broadcast_ops.where(mask, z, m)


@export("experimental.numpy.tril")
@np_doc("tril")
def tril(m, k=0):
    """`m` with the elements above diagonal `k` zeroed."""
    return _triangle(m, k, "tril", True)


@export("experimental.numpy.triu")
@np_doc("triu")
def triu(m, k=0):
    """`m` with the elements below diagonal `k` zeroed."""
    return _triangle(m, k, "triu", False)


@export("experimental.numpy.flip")
@np_doc("flip")
def flip(m, axis=None):
    """`m` reversed along `axis` (all axes by default)."""
    m = A.asarray(m)
    if axis is None:
        return gather_ops.reverse(m, creation_ops.range(shape_ops.rank(m)))
    axis = np_utils.canonicalize_axis(axis, shape_ops.rank(m))
    return gather_ops.reverse(m, [axis])


@export("experimental.numpy.flipud")
@np_doc("flipud")
def flipud(m):
    """`m` reversed along axis 0."""
    return flip(m, 0)


@export("experimental.numpy.fliplr")
@np_doc("fliplr")
def fliplr(m):
    """`m` reversed along axis 1."""
    return flip(m, 1)


@export("experimental.numpy.roll")
@np_doc("roll")
def roll(a, shift, axis=None):
    """`a` rolled by `shift` along `axis` (the flattened array by default)."""
    a = A.asarray(a)
    if axis is not None:
        return repeat_unique_roll_ops.roll(a, shift, axis)
    original_shape = shape_ops.shape(a)
    a = repeat_unique_roll_ops.roll(shape_ops.reshape(a, [-1]), shift, 0)
    return shape_ops.reshape(a, original_shape)


@export("experimental.numpy.rot90")
@np_doc("rot90")
def rot90(m, k=1, axes=(0, 1)):
    """`m` rotated by 90 degrees `k` times in the plane of `axes`."""
    m_rank = shape_ops.rank(m)
    ax1, ax2 = np_utils.canonicalize_axes(axes, m_rank)
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = creation_ops.range(m_rank)
    perm = scatter_ops.tensor_scatter_nd_update(perm, [[ax1], [ax2]], [ax2, ax1])
    if k == 1:
        return A.transpose(flip(m, ax2), perm)
    return flip(A.transpose(m, perm), ax2)


@export("experimental.numpy.vander")
@np_doc("vander")
def vander(x, N=None, increasing=False):  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of the 1-D `x`: columns of its powers.

    Raises:
      ValueError: if `x` is not 1-D or N is negative.
    """
    x = A.asarray(x)
    x_shape = shape_ops.shape(x)
    if N is None:
        N = x_shape[0]
    n_static = np_utils.get_static_value(N)
    if n_static is not None:
        N = n_static
        if N < 0:
            raise ValueError("N must be nonnegative")
    else:
        logging_ops.Assert(N >= 0, [N])
    rank = shape_ops.rank(x)
    rank_static = np_utils.get_static_value(rank)
    if rank_static is not None:
        rank = rank_static
        if rank != 1:
            raise ValueError("x must be a one-dimensional array")
    else:
        logging_ops.Assert(math_ops.equal(rank, 1), [rank])
    if increasing:
        start, limit, delta = 0, N, 1
    else:
        start, limit, delta = N - 1, -1, -1
    x = dim_ops.expand_dims(x, -1)
    return math_ops.pow(x, math_ops.cast(creation_ops.range(start, limit, delta),
                                         dtype=x.dtype))


@export("experimental.numpy.meshgrid")
@np_doc("meshgrid", check_signature=False)
def meshgrid(*xi, **kwargs):
    """Coordinate arrays of the 1-D `xi`; requires copy=True and sparse=False."""
    sparse = kwargs.get("sparse", False)
    if sparse:
        raise ValueError("Function `meshgrid` does not support returning sparse arrays yet. "
                         f"Received: sparse={sparse}")
    copy = kwargs.get("copy", True)
    if not copy:
        raise ValueError(f"Function `meshgrid` only supports copy=True. Received: copy={copy}")
    indexing = kwargs.get("indexing", "xy")
    xi = [A.asarray(arg) for arg in xi]
    return creation_ops.meshgrid(*xi, indexing=indexing)


@export("experimental.numpy.shape")
@np_doc("shape")
def shape(a):
    """`a`'s static shape (a TensorShape)."""
    a = A.asarray(a)
    return a.shape


@export("experimental.numpy.ndim")
@np_doc("ndim", link=False)
def ndim(a):
    """`a`'s rank."""
    a = A.asarray(a)
    return a.ndim


@export("experimental.numpy.isscalar")
@np_doc("isscalar")
def isscalar(num):
    """Whether `num` has rank 0."""
    return ndim(num) == 0


@export("experimental.numpy.size")
@np_doc("size")
def size(x, axis=None):
    """The number of elements (a Python int when the shape is known)."""
    if axis is not None:
        raise NotImplementedError(
            "axis argument is not supported in the current `np.size` implementation")
    if isinstance(x, (int, float, np.int32, np.int64, np.float32, np.float64)):
        return 1
    x = A.asarray(x)
    if x.shape.is_fully_defined():
        return np.prod(x.shape.as_list(), dtype=int)
    return shape_ops.size(x)
