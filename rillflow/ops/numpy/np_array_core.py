"""`tf.experimental.numpy`: arrays from values (`array`, `asarray`, the
creation functions), promotion of several arguments to one dtype, and the
reshaping every other module of the package builds on (`reshape`, `ravel`,
`transpose`, `moveaxis`, `atleast_*d`).

`tnp.ndarray` is `tf.Tensor`. A Python float becomes float64 (float32 with
`prefer_float32`), a Python int int64, as in NumPy; a tensor keeps its dtype.
"""
import builtins

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export, export_value
from ...framework.convert import convert_to_tensor as _convert
from ...framework.tensor import Tensor
from ..core import constant_ops, creation_ops, dim_ops, join_ops, math_ops, scatter_ops
from ..core import broadcast_ops, shape_ops, sort_ops, split_pad_ops
from ..linalg import structure_ops
from . import np_dtypes, np_utils
from .np_utils import np_doc

ndarray = export_value(Tensor, "experimental.numpy.ndarray")
newaxis = export_value(np.newaxis, "experimental.numpy.newaxis")


def convert_to_tensor(value, dtype=None, dtype_hint=None):
    """`tf.convert_to_tensor`, with a Python int of 2**63 or more as uint64
    and a Python float as the default float type."""
    if dtype is None and isinstance(value, int) and value >= 2**63:
        dtype = D.uint64
    elif dtype is None and dtype_hint is None and isinstance(value, float):
        dtype = np_dtypes.default_float_type()
    return _convert(value, dtype=dtype, dtype_hint=dtype_hint)


def _array_internal(val, dtype=None, copy=True, ndmin=0):
    """`array` with `dtype` already a tf.DType (or None)."""
    result_t = val
    if not isinstance(result_t, Tensor):
        dtype = np_dtypes.result_type_unary(result_t, dtype)
        # The hint lets the value convert straight to the dtype; the cast
        # covers the values that convert only to their own dtype.
        result_t = convert_to_tensor(result_t, dtype_hint=dtype)
        result_t = math_ops.cast(result_t, dtype=dtype)
    elif dtype:
        result_t = math_ops.cast(result_t, dtype)
    if copy:
        result_t = shape_ops.identity(result_t)
    max_ndmin = 32
    if ndmin > max_ndmin:
        raise ValueError(f"ndmin bigger than allowable number of dimensions: {max_ndmin}.")
    if ndmin == 0:
        return result_t
    ndims = shape_ops.rank(result_t)

    def true_fn():
        old_shape = shape_ops.shape(result_t)
        new_shape = join_ops.concat(
            [constant_ops.ones(ndmin - ndims, D.int32), old_shape], axis=0)
        return shape_ops.reshape(result_t, new_shape)

    return np_utils.cond(np_utils.greater(ndmin, ndims), true_fn, lambda: result_t)


@export("experimental.numpy.array")
@np_doc("array", check_signature=False)
def array(val, dtype=None, copy=True, ndmin=0):
    """An array of `val`'s values (a copy: tensors are immutable anyway)."""
    if dtype:
        dtype = np_dtypes.result_type(dtype)
    return _array_internal(val, dtype, copy, ndmin)


@export("experimental.numpy.asarray")
@np_doc("asarray")
def asarray(a, dtype=None):
    """`a` itself when it is already a tensor of `dtype`, else `array(a, dtype)`."""
    if dtype:
        dtype = np_dtypes.result_type(dtype)
    if isinstance(a, Tensor) and (not dtype or dtype == a.dtype.as_numpy_dtype):
        return a
    return array(a, dtype, copy=False)


@export("experimental.numpy.asanyarray")
@np_doc("asanyarray")
def asanyarray(a, dtype=None):
    """`asarray` (there are no array subclasses)."""
    return asarray(a, dtype)


@export("experimental.numpy.ascontiguousarray")
@np_doc("ascontiguousarray")
def ascontiguousarray(a, dtype=None):
    """An array of at least one dimension."""
    return array(a, dtype, ndmin=1)


@export("experimental.numpy.copy")
@np_doc("copy")
def copy(a):
    """A copy of `a` (an Identity op)."""
    return array(a, copy=True)


def _same_dtype_tensors(arrays):
    """Whether all are tensors of one dtype that promotion keeps: the common
    case, answered without NumPy's result_type."""
    if not arrays or not np_dtypes.is_allow_float64() or np_dtypes.auto_dtype_conversion():
        return False
    d = arrays[0].dtype if isinstance(arrays[0], Tensor) else None
    return d is not None and all(isinstance(a, Tensor) and a.dtype is d for a in arrays)


def promote_dtype(*arrays):
    """The arguments as tensors of their common (NumPy-promoted) dtype."""
    if _same_dtype_tensors(arrays):
        return list(arrays)
    dtype = np_dtypes.result_type(*arrays)

    def _fast_asarray(a):
        if isinstance(a, Tensor) and dtype == a.dtype.as_numpy_dtype:
            return a
        return _array_internal(a, dtype=dtype, copy=False)
    return [_fast_asarray(a) for a in arrays]


def promote_dtype_binary(t1, t2):
    """`promote_dtype` of two arguments, the fast way."""
    if _same_dtype_tensors((t1, t2)):
        return t1, t2
    dtype = np_dtypes.result_type_binary(t1, t2)
    if not (isinstance(t1, Tensor) and dtype == t1.dtype.as_numpy_dtype):
        t1 = _array_internal(t1, dtype=dtype, copy=False)
    if not (isinstance(t2, Tensor) and dtype == t2.dtype.as_numpy_dtype):
        t2 = _array_internal(t2, dtype=dtype, copy=False)
    return t1, t2


@export("experimental.numpy.empty")
@np_doc("empty")
def empty(shape, dtype=float):
    """Zeros (tensors have no uninitialized memory)."""
    return zeros(shape, dtype)


@export("experimental.numpy.empty_like")
@np_doc("empty_like")
def empty_like(a, dtype=None):
    """Zeros of `a`'s shape."""
    return zeros_like(a, dtype)


@export("experimental.numpy.zeros")
@np_doc("zeros")
def zeros(shape, dtype=float):
    """An array of zeros (dtype float64 by default)."""
    dtype = np_dtypes.result_type(dtype) if dtype else np_dtypes.default_float_type()
    return constant_ops.zeros(shape, dtype=dtype)


@export("experimental.numpy.zeros_like")
@np_doc("zeros_like")
def zeros_like(a, dtype=None):
    """Zeros of `a`'s shape and (by default) dtype."""
    dtype = np_dtypes.as_tf_dtype(np_dtypes.result_type_unary(a, dtype))
    return constant_ops.zeros_like(a, dtype)


@export("experimental.numpy.ones")
@np_doc("ones")
def ones(shape, dtype=float):
    """An array of ones (dtype float64 by default)."""
    if dtype:
        dtype = np_dtypes.result_type(dtype)
    return constant_ops.ones(shape, dtype=dtype)


@export("experimental.numpy.ones_like")
@np_doc("ones_like")
def ones_like(a, dtype=None):
    """Ones of `a`'s shape and (by default) dtype."""
    dtype = np_dtypes.result_type_unary(a, dtype)
    return constant_ops.ones_like(a, dtype)


@export("experimental.numpy.eye")
@np_doc("eye")
def eye(N, M=None, k=0, dtype=float):  # noqa: N803 - NumPy's names
    """An N x M matrix with ones on diagonal `k`."""
    if dtype:
        dtype = np_dtypes.result_type(dtype)
    if not M:
        M = N
    N, M, k = int(N), int(M), int(k)
    if k >= M or -k >= N:
        return zeros([N, M], dtype=dtype)
    if k == 0:
        return creation_ops.eye(N, M, dtype=dtype)
    # The length of the diagonal, as tf.linalg.diag needs it.
    diag_len = builtins.min(N, M)
    if k > 0:
        if N >= M:
            diag_len -= k
        elif N + k > M:
            diag_len = M - k
    elif k <= 0:
        if M >= N:
            diag_len += k
        elif M - k > N:
            diag_len = N + k
    diagonal_ = constant_ops.ones([diag_len], dtype=dtype)
    return structure_ops.diag(diagonal=diagonal_, num_rows=N, num_cols=M, k=k)


@export("experimental.numpy.identity")
@np_doc("identity")
def identity(n, dtype=float):
    """The n x n identity matrix."""
    return eye(N=n, M=n, dtype=dtype)


@export("experimental.numpy.full")
@np_doc("full")
def full(shape, fill_value, dtype=None):
    """`fill_value` broadcast to `shape`."""
    if not isinstance(shape, Tensor):
        shape = asarray(convert_to_tensor(shape, dtype_hint=np.int32))
    shape = atleast_1d(shape)
    fill_value = asarray(fill_value, dtype=dtype)
    return broadcast_ops.broadcast_to(fill_value, shape)


@export("experimental.numpy.full_like")
@np_doc("full_like", check_signature=False)
def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None):
    """`fill_value` broadcast to `a`'s shape; `order`, `subok` and `shape`
    must keep their defaults."""
    if order != "K":
        raise ValueError("Non-standard orders are not supported.")
    if not subok:
        raise ValueError("subok being False is not supported.")
    if shape:
        raise ValueError("Overriding the shape is not supported.")
    a = asarray(a)
    dtype = dtype or np_dtypes.result_type(a)
    fill_value = asarray(fill_value, dtype=dtype)
    return broadcast_ops.broadcast_to(fill_value, shape_ops.shape(a))


@export("experimental.numpy.arange")
@np_doc("arange")
def arange(start, stop=None, step=1, dtype=None):
    """Values from `start` (inclusive) to `stop` (exclusive) by `step`; the
    dtype is the widest of the arguments' unless given.

    Raises:
      ValueError: if step is zero.
    """
    if not step:
        raise ValueError("step must be non-zero.")
    if dtype:
        dtype = np_dtypes.result_type(dtype)
    elif stop is None:
        dtype = np_dtypes.result_type(start, step)
    else:
        dtype = np_dtypes.result_type(start, step, stop)
    if step > 0 and ((stop is not None and start > stop) or (stop is None and start < 0)):
        return array([], dtype=dtype)
    if step < 0 and ((stop is not None and start < stop) or (stop is None and start > 0)):
        return array([], dtype=dtype)
    # tf.range of Python numbers, then the cast: the same values TensorFlow gives.
    return math_ops.cast(creation_ops.range(start, limit=stop, delta=step), dtype=dtype)


@export("experimental.numpy.reshape")
@np_doc("reshape")
def reshape(a, newshape, order="C"):
    """`a` with a new shape; `order` can be 'C' or 'F'."""
    if order not in {"C", "F"}:
        raise ValueError("Unsupported order argument {}".format(order))
    a = asarray(a)
    if isinstance(newshape, int):
        newshape = [newshape]
    if order == "F":
        return dim_ops.transpose(shape_ops.reshape(dim_ops.transpose(a), newshape[::-1]))
    return shape_ops.reshape(a, newshape)


def reshape_method(a, *newshape, **kwargs):
    """`Tensor.reshape`: the shape as one argument or as several."""
    order = kwargs.pop("order", "C")
    if kwargs:
        raise ValueError("Unsupported arguments: {}".format(kwargs.keys()))
    if len(newshape) == 1 and not isinstance(newshape[0], int):
        newshape = newshape[0]
    return reshape(a, newshape, order=order)


@export("experimental.numpy.ravel")
@np_doc("ravel")
def ravel(a):
    """`a` as one dimension."""
    a = asarray(a)
    return shape_ops.reshape(a, [-1])


@export("experimental.numpy.flatten")
@np_doc("flatten", link=False)
def flatten(a, order="C"):
    """`a` as one dimension, row major ('C', 'A', 'K') or column major ('F')."""
    a = asarray(a)
    if order in ("C", "A", "K"):
        return shape_ops.reshape(a, [-1])
    if order == "F":
        return shape_ops.reshape(dim_ops.transpose(a), [-1])
    raise ValueError("order can only be C, A, K (all row major) or F (column major).")


@export("experimental.numpy.expand_dims")
@np_doc("expand_dims")
def expand_dims(a, axis):
    """`a` with a new dimension of size 1 at `axis`."""
    a = asarray(a)
    return dim_ops.expand_dims(a, axis=axis)


@export("experimental.numpy.squeeze")
@np_doc("squeeze")
def squeeze(a, axis=None):
    """`a` without its dimensions of size 1 (or only those in `axis`)."""
    a = asarray(a)
    return dim_ops.squeeze(a, axis)


@export("experimental.numpy.transpose")
@np_doc("transpose")
def transpose(a, axes=None):
    """`a` with its axes permuted (reversed by default)."""
    a = asarray(a)
    if axes is not None:
        axes = asarray(axes)
    return dim_ops.transpose(a=a, perm=axes)


@export("experimental.numpy.swapaxes")
@np_doc("swapaxes")
def swapaxes(a, axis1, axis2):
    """`a` with two axes exchanged."""
    a = asarray(a)

    def adjust_axes(axes, rank):
        def f(x):
            if isinstance(x, int):
                if x < 0:
                    x = x + rank
            else:
                x = broadcast_ops.where(x < 0, np_utils.add(x, a_rank), x)
            return x
        return tuple(f(x) for x in axes)

    if a.shape.rank is not None and isinstance(axis1, int) and isinstance(axis2, int):
        a_rank = a.shape.rank
        axis1, axis2 = adjust_axes((axis1, axis2), a_rank)
        perm = list(range(a_rank))
        perm[axis1] = axis2
        perm[axis2] = axis1
    else:
        a_rank = shape_ops.rank(a)
        axis1, axis2 = adjust_axes((axis1, axis2), a_rank)
        perm = creation_ops.range(a_rank)
        perm = scatter_ops.tensor_scatter_nd_update(perm, [[axis1], [axis2]], [axis2, axis1])
    return dim_ops.transpose(a, perm)


@export("experimental.numpy.moveaxis")
@np_doc("moveaxis")
def moveaxis(a, source, destination):
    """`a` with axes `source` moved to `destination`.

    Raises:
      ValueError: if source and destination differ in length.
    """
    if not source and not destination:
        return a
    a = asarray(a)
    if isinstance(source, int):
        source = (source,)
    if isinstance(destination, int):
        destination = (destination,)
    if len(source) != len(destination):
        raise ValueError("The lengths of source and destination must equal")
    a_rank = np_utils.maybe_static(shape_ops.rank(a))

    def _correct_axis(axis, rank):
        return axis + rank if axis < 0 else axis

    source = tuple(_correct_axis(axis, a_rank) for axis in source)
    destination = tuple(_correct_axis(axis, a_rank) for axis in destination)
    if a.shape.rank is not None:
        perm = [i for i in range(a_rank) if i not in source]
        for dest, src in sorted(zip(destination, source)):
            assert dest <= len(perm)
            perm.insert(dest, src)
    else:
        r = creation_ops.range(a_rank)

        def _remove_indices(a, b):
            items = join_ops.unstack(sort_ops.sort(join_ops.stack(b)), num=len(b))
            i = 0
            result = []
            for item in items:
                result.append(a[i:item])
                i = item + 1
            result.append(a[i:])
            return join_ops.concat(result, 0)

        minus_sources = _remove_indices(r, source)
        minus_dest = _remove_indices(r, destination)
        perm = scatter_ops.scatter_nd(dim_ops.expand_dims(minus_dest, 1), minus_sources,
                                      [a_rank])
        perm = scatter_ops.tensor_scatter_nd_update(perm, dim_ops.expand_dims(destination, 1),
                                                    source)
    return dim_ops.transpose(a, perm)


def pad_left_to(n, old_shape):
    """`old_shape` with ones prepended to length `n`."""
    old_shape = asarray(old_shape, dtype=np.int32)
    new_shape = split_pad_ops.pad(
        old_shape, [[math_ops.maximum(n - shape_ops.size(old_shape), 0), 0]],
        constant_values=1)
    return asarray(new_shape)


def _atleast_nd(n, new_shape, *arys):
    """The arrays reshaped (by `new_shape(n, old_shape)`) to at least `n` dims."""
    def f(x):
        x = asarray(x)
        return asarray(np_utils.cond(np_utils.greater(n, shape_ops.rank(x)),
                                     lambda: reshape(x, new_shape(n, shape_ops.shape(x))),
                                     lambda: x))
    arys = list(map(f, arys))
    return arys[0] if len(arys) == 1 else arys


@export("experimental.numpy.atleast_1d")
@np_doc("atleast_1d")
def atleast_1d(*arys):
    """The arrays with at least one dimension."""
    return _atleast_nd(1, pad_left_to, *arys)


@export("experimental.numpy.atleast_2d")
@np_doc("atleast_2d")
def atleast_2d(*arys):
    """The arrays with at least two dimensions (new ones in front)."""
    return _atleast_nd(2, pad_left_to, *arys)


@export("experimental.numpy.atleast_3d")
@np_doc("atleast_3d")
def atleast_3d(*arys):
    """The arrays with at least three dimensions, placed as NumPy places them."""
    def new_shape(_, old_shape):
        ndim_ = shape_ops.size(old_shape)
        return np_utils.cond(
            math_ops.equal(ndim_, 0),
            lambda: constant_ops.constant([1, 1, 1], dtype=D.int32),
            lambda: np_utils.cond(
                math_ops.equal(ndim_, 1),
                lambda: split_pad_ops.pad(old_shape, [[1, 1]], constant_values=1),
                lambda: split_pad_ops.pad(old_shape, [[0, 1]], constant_values=1)))
    return _atleast_nd(3, new_shape, *arys)
