"""`tf.experimental.numpy`'s reductions (`sum`, `prod`, `mean`, `amax`,
`var`, `std`, `all`, `any`, the `nan*` forms, `average`, `ptp`,
`count_nonzero`), scans (`cumsum`, `cumprod`), and sorting and arg-reductions
(`sort`, `argsort`, `argmax`, `argmin`).

Integer and bool inputs of `sum`/`prod`/`cumsum` widen to int64 (uint64),
of `mean`/`var`/`std` to the default float type, as in NumPy; `amax`/`amin`
keep the dtype.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ..core import broadcast_ops, constant_ops, gather_ops, math_ops, reduction_ops
from ..core import scan_ops, shape_ops, sort_ops, special_math_ops, unary_ops
from ..debugging import logging_ops
from ..linalg import einsum_ops
from . import np_array_core as A
from . import np_dtypes, np_utils
from .np_indexing import where
from .np_math_unary import isnan
from .np_utils import np_doc


@export("experimental.numpy.all")
@np_doc("all")
def all(a, axis=None, keepdims=None):  # noqa: A001
    """Whether all elements (along `axis`) are true."""
    a = A.asarray(a, dtype=bool)
    return reduction_ops.reduce_all(input_tensor=a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.any")
@np_doc("any")
def any(a, axis=None, keepdims=None):  # noqa: A001
    """Whether any element (along `axis`) is true."""
    a = A.asarray(a, dtype=bool)
    return reduction_ops.reduce_any(input_tensor=a, axis=axis, keepdims=keepdims)


def _maybe_promote_to_int(a):
    """An integer `a` widened to int64 (NumPy's default int) when narrower."""
    if D.as_dtype(a.dtype).is_integer:
        a_numpy_dtype = a.dtype.as_numpy_dtype
        output_type = np.promote_types(a_numpy_dtype, int)
        if output_type != a_numpy_dtype:
            a = A.asarray(a, dtype=output_type)
    return a


def _scan(tf_fn, a, axis, dtype):
    a = A.asarray(a, dtype=dtype)
    if dtype is None:
        a = _maybe_promote_to_int(a)
    # NumPy scans the flattened array when axis is None.
    if axis is None:
        a = A.ravel(a)
        axis = 0
    elif axis < 0:
        axis += shape_ops.rank(a)
    return tf_fn(a, axis)


@export("experimental.numpy.cumprod")
@np_doc("cumprod")
def cumprod(a, axis=None, dtype=None):
    """The running product (of the flattened array when axis is None)."""
    return _scan(scan_ops.cumprod, a, axis, dtype)


@export("experimental.numpy.cumsum")
@np_doc("cumsum")
def cumsum(a, axis=None, dtype=None):
    """The running sum (of the flattened array when axis is None)."""
    return _scan(scan_ops.cumsum, a, axis, dtype)


_TO_INT_ = 0
_TO_FLOAT = 1


def _reduce(tf_fn, a, axis=None, dtype=None, keepdims=None, promote_int=_TO_INT_,
            tf_bool_fn=None, preserve_bool=False):
    """A reduction the NumPy way.

    Args:
      promote_int: for integer and bool inputs, `_TO_INT_` widens to int64
        (uint64), `_TO_FLOAT` casts to the default float type, None keeps them.
      tf_bool_fn: the reduction for bools, used when `dtype` is bool or, with
        `preserve_bool`, when `a` is bool.
    """
    if dtype:
        dtype = np_dtypes.result_type(dtype)
    if keepdims is None:
        keepdims = False
    a = A.asarray(a, dtype=dtype)
    if ((dtype == np.bool_ or preserve_bool and a.dtype == np.bool_)
            and tf_bool_fn is not None):
        return tf_bool_fn(input_tensor=a, axis=axis, keepdims=keepdims)
    if dtype is None:
        dtype = a.dtype.as_numpy_dtype
        if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
            if promote_int == _TO_INT_:
                # Widen to the default int, keeping the signedness.
                if dtype == np.bool_:
                    is_signed = True
                    width = 8  # any width below 64
                else:
                    is_signed = np.issubdtype(dtype, np.signedinteger)
                    width = np.iinfo(dtype).bits
                if np_dtypes.auto_dtype_conversion():
                    if width < np.iinfo(np.int32).bits:
                        dtype = np.int32 if is_signed else np.uint32
                elif width < np.iinfo(np.int_).bits:
                    dtype = np.int_ if is_signed else np.uint
                a = math_ops.cast(a, dtype)
            elif promote_int == _TO_FLOAT:
                a = math_ops.cast(a, np_dtypes.result_type(float))
    if isinstance(axis, Tensor) and axis.dtype not in (D.int32, D.int64):
        axis = math_ops.cast(axis, D.int64)
    return tf_fn(input_tensor=a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.sum")
@np_doc("sum")
def sum(a, axis=None, dtype=None, keepdims=None):  # noqa: A001
    """The sum (along `axis`)."""
    return _reduce(reduction_ops.reduce_sum, a, axis=axis, dtype=dtype, keepdims=keepdims,
                   tf_bool_fn=reduction_ops.reduce_any)


@export("experimental.numpy.prod")
@np_doc("prod")
def prod(a, axis=None, dtype=None, keepdims=None):
    """The product (along `axis`)."""
    return _reduce(reduction_ops.reduce_prod, a, axis=axis, dtype=dtype, keepdims=keepdims,
                   tf_bool_fn=reduction_ops.reduce_all)


@export("experimental.numpy.mean")
@np_doc("mean")
def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    """The mean (along `axis`); `out` is not supported."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(reduction_ops.reduce_mean, a, axis=axis, dtype=dtype, keepdims=keepdims,
                   promote_int=_TO_FLOAT)


@export("experimental.numpy.amax")
@np_doc("amax")
def amax(a, axis=None, out=None, keepdims=None):
    """The maximum (along `axis`); `out` is not supported."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(reduction_ops.reduce_max, a, axis=axis, dtype=None, keepdims=keepdims,
                   promote_int=None, tf_bool_fn=reduction_ops.reduce_any, preserve_bool=True)


@export("experimental.numpy.amin")
@np_doc("amin")
def amin(a, axis=None, out=None, keepdims=None):
    """The minimum (along `axis`); `out` is not supported."""
    if out is not None:
        raise ValueError("Setting out is not supported.")
    return _reduce(reduction_ops.reduce_min, a, axis=axis, dtype=None, keepdims=keepdims,
                   promote_int=None, tf_bool_fn=reduction_ops.reduce_all, preserve_bool=True)


@export("experimental.numpy.max")
@np_doc("max", link="amax")
def max(a, axis=None, keepdims=None):  # noqa: A001
    """`amax`."""
    return amax(a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.min")
@np_doc("min", link="amin")
def min(a, axis=None, keepdims=None):  # noqa: A001
    """`amin`."""
    return amin(a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.var")
@np_doc("var")
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    """The variance (along `axis`), with `ddof` degrees of freedom removed."""
    working_dtype = np_dtypes.result_type(a, dtype) if dtype else None
    if out is not None:
        raise ValueError("Setting out is not supported.")
    if ddof != 0:
        # tf.math.reduce_variance has no ddof: the sum of squared deviations
        # divided by n - ddof.
        def reduce_fn(input_tensor, axis, keepdims):
            means = reduction_ops.reduce_mean(input_tensor, axis=axis, keepdims=True)
            centered = input_tensor - means
            if input_tensor.dtype in (D.complex64, D.complex128):
                centered = math_ops.cast(
                    special_math_ops.real(centered * math_ops.conj(centered)),
                    input_tensor.dtype)
            else:
                centered = unary_ops.square(centered)
            squared_deviations = reduction_ops.reduce_sum(centered, axis=axis,
                                                          keepdims=keepdims)
            if axis is None:
                n = shape_ops.size(input_tensor)
            else:
                if axis < 0:
                    axis += shape_ops.rank(input_tensor)
                n = reduction_ops.reduce_prod(
                    gather_ops.gather(shape_ops.shape(input_tensor), axis))
            n = math_ops.cast(n - ddof, input_tensor.dtype)
            return math_ops.cast(math_ops.divide(squared_deviations, n), dtype)
    else:
        reduce_fn = reduction_ops.reduce_variance
    result = _reduce(reduce_fn, a, axis=axis, dtype=working_dtype, keepdims=keepdims,
                     promote_int=_TO_FLOAT)
    if dtype:
        result = math_ops.cast(result, dtype)
    return result


@export("experimental.numpy.std")
@np_doc("std")
def std(a, axis=None, keepdims=None):
    """The standard deviation (along `axis`)."""
    return _reduce(reduction_ops.reduce_std, a, axis=axis, dtype=None, keepdims=keepdims,
                   promote_int=_TO_FLOAT)


@export("experimental.numpy.ptp")
@np_doc("ptp")
def ptp(a, axis=None, keepdims=None):
    """Maximum minus minimum (along `axis`)."""
    return amax(a, axis=axis, keepdims=keepdims) - amin(a, axis=axis, keepdims=keepdims)


@export("experimental.numpy.count_nonzero")
@np_doc("count_nonzero")
def count_nonzero(a, axis=None):
    """The number of nonzero elements (along `axis`), as int64."""
    return reduction_ops.count_nonzero(A.array(a), axis)


def _make_nan_reduction(np_fun_name, reduction, init_val, doc):
    """`np_fun_name`: `reduction` with NaNs replaced by `init_val`."""
    def nan_reduction(a, axis=None, dtype=None, keepdims=False):
        a = A.array(a)
        v = A.array(init_val, dtype=a.dtype)
        return reduction(where(isnan(a), v, a), axis=axis, dtype=dtype, keepdims=keepdims)
    nan_reduction.__name__ = nan_reduction.__qualname__ = np_fun_name
    nan_reduction.__doc__ = doc
    return export("experimental.numpy." + np_fun_name)(np_doc(np_fun_name)(nan_reduction))


nansum = _make_nan_reduction("nansum", sum, 0, "The sum, NaNs counted as zero.")
nanprod = _make_nan_reduction("nanprod", prod, 1, "The product, NaNs counted as one.")


@export("experimental.numpy.nanmean")
@np_doc("nanmean")
def nanmean(a, axis=None, dtype=None, keepdims=None):
    """The mean of the elements that are not NaN."""
    a = A.array(a)
    if np.issubdtype(a.dtype.as_numpy_dtype, np.bool_) or np.issubdtype(
            a.dtype.as_numpy_dtype, np.integer):
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    nan_mask = math_ops.logical_not(isnan(a))
    if dtype is None:
        dtype = a.dtype.as_numpy_dtype
    normalizer = sum(nan_mask, axis=axis, dtype=dtype, keepdims=keepdims)
    return nansum(a, axis=axis, dtype=dtype, keepdims=keepdims) / normalizer


@export("experimental.numpy.average")
@np_doc("average")
def average(a, axis=None, weights=None, returned=False):
    """The (weighted) average along `axis` (an int or None); with `returned`,
    also the sum of the weights.

    Raises:
      ValueError: if axis is not an int or None.
    """
    if axis is not None and not isinstance(axis, int):
        raise ValueError("Argument `axis` must be an integer. "
                         f"Received axis={axis} (of type {type(axis)})")
    a = A.array(a)
    default_float_type = np_dtypes.result_type(float)
    if weights is None:  # all weights 1
        if not np.issubdtype(a.dtype.as_numpy_dtype, np.inexact):
            a = a.astype(np_dtypes.result_type(a.dtype, default_float_type))
        avg = reduction_ops.reduce_mean(a, axis=axis)
        if returned:
            if axis is None:
                weights_sum = shape_ops.size(a)
            else:
                weights_sum = shape_ops.shape(a)[axis]
            weights_sum = math_ops.cast(weights_sum, a.dtype)
    else:
        if np.issubdtype(a.dtype.as_numpy_dtype, np.inexact):
            out_dtype = np_dtypes.result_type(a.dtype, weights)
        else:
            out_dtype = np_dtypes.result_type(a.dtype, weights, default_float_type)
        a = A.array(a, out_dtype)
        weights = A.array(weights, out_dtype)

        def rank_equal_case():
            logging_ops.Assert(
                reduction_ops.reduce_all(shape_ops.shape(a) == shape_ops.shape(weights)),
                [shape_ops.shape(a), shape_ops.shape(weights)])
            weights_sum = reduction_ops.reduce_sum(weights, axis=axis)
            avg = reduction_ops.reduce_sum(a * weights, axis=axis) / weights_sum
            return avg, weights_sum

        if axis is None:
            avg, weights_sum = rank_equal_case()
        else:
            def rank_not_equal_case():
                logging_ops.Assert(shape_ops.rank(weights) == 1, [shape_ops.rank(weights)])
                weights_sum = reduction_ops.reduce_sum(weights)
                axes = convert_to_tensor([[axis], [0]])
                avg = einsum_ops.tensordot(a, weights, axes) / weights_sum
                return avg, weights_sum

            avg, weights_sum = np_utils.cond(
                math_ops.equal(shape_ops.rank(a), shape_ops.rank(weights)),
                rank_equal_case, rank_not_equal_case)
    avg = A.array(avg)
    if returned:
        weights_sum = broadcast_ops.broadcast_to(weights_sum, shape_ops.shape(avg))
        return avg, weights_sum
    return avg


@export("experimental.numpy.argsort")
@np_doc("argsort")
def argsort(a, axis=-1, kind="quicksort", order=None):
    """The indices that sort `a` along `axis` (int64); kind 'quicksort' or 'stable'."""
    if kind not in ("quicksort", "stable"):
        raise ValueError("Invalid value for argument `kind`. Only kind=\"quicksort\" and "
                         f"kind=\"stable\" are supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    stable = kind == "stable"
    a = A.array(a)
    if a.dtype in (D.complex64, D.complex128):
        raise TypeError("argsort does not support complex64/complex128 dtypes. "
                        f"Received dtype: {a.dtype}")

    def _argsort(a, axis, stable):
        if axis is None:
            a = shape_ops.reshape(a, [-1])
            axis = 0
        return sort_ops.argsort(a, axis, stable=stable)

    tf_ans = np_utils.cond(math_ops.equal(shape_ops.rank(a), 0),
                           lambda: constant_ops.constant([0]),
                           lambda: _argsort(a, axis, stable))
    if np_dtypes.auto_dtype_conversion():
        return A.array(tf_ans, dtype=int)
    return A.array(tf_ans, dtype=np.intp)


@export("experimental.numpy.sort")
@np_doc("sort")
def sort(a, axis=-1, kind="quicksort", order=None):
    """`a` sorted along `axis` (the flattened array when axis is None)."""
    if kind != "quicksort":
        raise ValueError("Invalid value for argument `kind`. Only kind=\"quicksort\" is "
                         f"supported. Received: kind={kind}")
    if order is not None:
        raise ValueError("The `order` argument is not supported. Pass order=None")
    a = A.array(a)
    if axis is None:
        return sort_ops.sort(shape_ops.reshape(a, [-1]), 0)
    return sort_ops.sort(a, axis)


def _argminmax(fn, a, axis=None):
    a = A.array(a)
    if axis is None:
        # When axis is None, NumPy's argmax/argmin flatten the array.
        a_t = shape_ops.reshape(a, [-1])
    else:
        a_t = A.atleast_1d(a)
    return fn(input=a_t, axis=axis)


@export("experimental.numpy.argmax")
@np_doc("argmax")
def argmax(a, axis=None):
    """The index of the maximum (of the flattened array when axis is None)."""
    return _argminmax(reduction_ops.argmax, a, axis)


@export("experimental.numpy.argmin")
@np_doc("argmin")
def argmin(a, axis=None):
    """The index of the minimum (of the flattened array when axis is None)."""
    return _argminmax(reduction_ops.argmin, a, axis)
