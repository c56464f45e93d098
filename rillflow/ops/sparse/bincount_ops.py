"""Counting values of SparseTensors and RaggedTensors: `tf.sparse.bincount`
(counts as a SparseTensor: DenseCountSparseOutput, SparseCountSparseOutput,
RaggedCountSparseOutput) and `tf.math.bincount` on SparseTensor and
RaggedTensor arguments (dense counts: SparseBincount, RaggedBincount;
registered with `dispatch` for `tf.math.bincount`).

With `axis=-1` each row (the first index of a 2-D SparseTensor, the rows of
a RaggedTensor or a matrix) is counted separately, with `axis=0` all values
together; `binary_output` marks the values present. Sums of weights run in
the order of the entries, as TensorFlow's CPU kernels add them.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import dispatch
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core import segment_ops
from ..core.constant_ops import constant
from ..core.math_ops import cast, maximum, minimum
from ..core.reduction_ops import reduce_max, reduce_prod
from ..core.shape_ops import identity, reshape, size as size_of
from ..debugging.check_ops import assert_equal
from ..control_flow.control_ops import control_dependencies
from ..ragged.ragged_tensor import RaggedTensor

__all__ = ["sparse_bincount"]

_I64 = D.int64
_IDX = (D.int32, D.int64)
_WEIGHTS = (D.int32, D.int64, D.float32, D.float64)


def _error(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _dims(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


# --- counts as a SparseTensor (the *CountSparseOutput ops) ------------------------------

def _count(batch, values, weights, num_batches, is_1d, minlength, maxlength, binary_output):
    """OutputSparse of TensorFlow's count kernels: per batch, the counted
    values in increasing order; the width is maxlength if positive, else
    max(largest value + 1, minlength) (the largest value starting at 0)."""
    if values.size and values.min() < 0:
        raise _error("Input values must all be non-negative")
    keep = values < maxlength if maxlength > 0 else np.ones(values.shape, bool)
    b, v = batch[keep], values[keep].astype(np.int64)
    w = weights[keep] if weights.size else None
    max_value = int(v.max()) if v.size else 0
    width = maxlength if maxlength > 0 else max(max_value + 1, minlength)
    keys = b * (max_value + 1) + v
    uniq, inverse = np.unique(keys, return_inverse=True)
    dtype = weights.dtype
    if binary_output:
        counts = np.ones(uniq.size, dtype)
    else:
        counts = np.zeros(uniq.size, dtype)
        np.add.at(counts, inverse.reshape(-1), w if w is not None else dtype.type(1))
    rows, cols = np.divmod(uniq, max_value + 1)
    if is_1d:
        return cols.reshape(-1, 1), counts, np.array([width], np.int64)
    return (np.stack([rows, cols], axis=1).astype(np.int64), counts,
            np.array([num_batches, width], np.int64))


def _check_weights(weights, values, what="values"):
    if weights.size and weights.shape != values.shape:
        raise _error(f"Weights and {what} must have the same shape. Weight shape: "
                     f"{_dims(weights.shape)}; {what} shape: {_dims(values.shape)}")


def _dense_count_kernel(values, weights, binary_output, minlength=-1, maxlength=-1,
                        T=None, output_type=None):
    if values.ndim not in (1, 2):
        raise _error(f"Input must be a 1 or 2-dimensional tensor. Got: {_dims(values.shape)}")
    if weights.size and weights.shape != values.shape:
        raise _error(f"Weights and data must have the same shape. Weight shape: "
                     f"{_dims(weights.shape)}; data shape: {_dims(values.shape)}")
    if values.ndim == 2 and values.shape[0] == 0:
        raise _error("Invalid input: Shapes dimension cannot be 0.")
    rows = values.shape[0] if values.ndim == 2 else 1
    batch = np.repeat(np.arange(rows, dtype=np.int64), values.size // max(rows, 1))
    return _count(batch, values.reshape(-1), weights.reshape(-1), rows, values.ndim == 1,
                  minlength, maxlength, binary_output)


def _sparse_count_kernel(indices, values, dense_shape, weights, binary_output, minlength=-1,
                         maxlength=-1, T=None, output_type=None):
    shape = np.asarray(dense_shape, np.int64)
    if shape.size == 0:
        raise _error("The shape argument requires at least one element.")
    bad = np.argwhere((indices < 0) | (indices >= shape))
    if bad.size:
        i, j = (int(x) for x in bad[0])
        raise _error(f"Invalid index value at {i}: dimension {j} has value "
                     f"{int(indices[i, j])} which is not in [0, {int(shape[j])}) (as given by "
                     f"dense shape Tensor<type: int64 shape: [{shape.size}] values: "
                     f"{' '.join(str(int(d)) for d in shape)}>")
    _check_weights(weights, values)
    is_1d = shape.size == 1
    batch = np.zeros(values.size, np.int64) if is_1d else indices[:, 0]
    return _count(batch, values, weights, 1 if is_1d else int(shape[0]), is_1d, minlength,
                  maxlength, binary_output)


def _check_splits(splits, n):
    if splits.size < 2:
        raise _error("Must provide at least 2 elements for the splits argument")
    if splits[0] != 0:
        raise _error(f"Splits must start with 0, not with {int(splits[0])}")
    if splits[-1] != n:
        raise _error(f"Splits must end with the number of values, got {int(splits[-1])} "
                     f"instead of {n}")


def _ragged_count_kernel(splits, values, weights, binary_output, minlength=-1, maxlength=-1,
                         T=None, output_type=None):
    _check_weights(weights, values)
    _check_splits(splits, values.size)
    batch = np.repeat(np.arange(splits.size - 1, dtype=np.int64), np.diff(splits))
    return _count(batch, values, weights, splits.size - 1, False, minlength, maxlength,
                  binary_output)


def _count_infer(rank, weights_at):
    def infer(inputs, attrs):
        r = rank(inputs)
        w = inputs[weights_at]
        return [(TensorShape([None, r]), _I64), (TensorShape([None]), w.dtype),
                (TensorShape([r]), _I64)]
    return infer


def _dense_rank(inputs):
    r = inputs[0].shape.rank
    return None if r is None else (1 if r == 1 else 2)


def _sparse_rank(inputs):
    c = U.constant_value(inputs[2])
    if c is not None:
        return 1 if np.size(c) == 1 else 2
    n = inputs[2].shape[0] if inputs[2].shape.rank == 1 else None
    return None if n is None else (1 if n == 1 else 2)


_DenseCount = register("DenseCountSparseOutput", _dense_count_kernel,
                       _count_infer(_dense_rank, 1), allowed=_WEIGHTS)
_SparseCount = register("SparseCountSparseOutput", _sparse_count_kernel,
                        _count_infer(_sparse_rank, 3), allowed=_WEIGHTS)
_RaggedCount = register("RaggedCountSparseOutput", _ragged_count_kernel,
                        _count_infer(lambda inputs: 2, 2), allowed=_WEIGHTS)


# --- dense counts of sparse and ragged values ----------------------------------------------

def _size(size):
    n = int(size)
    if n < 0:
        raise _error(f"size ({n}) must be non-negative")
    return n


def _sparse_bincount_kernel(indices, values, dense_shape, size, weights, binary_output=False,
                            Tidx=None, T=None):
    n = _size(size)
    if np.size(dense_shape) == 1:
        return segment_ops._dense_bincount_kernel(values, size, weights, binary_output)
    rows = int(np.reshape(dense_shape, -1)[0])
    out = np.zeros((rows, n), weights.dtype)
    batch = indices[:, 0] if indices.size else np.zeros(0, np.int64)
    if batch.size and batch.max() >= rows:
        b = int(batch[np.argmax(batch >= rows)])
        raise _error(f"Index out of bound. `batch` ({b}) must be less than the dimension size "
                     f"({rows}).")
    # Bins from `size` on are skipped; negative ones write outside the output
    # in TensorFlow, and are dropped here.
    keep = (values >= 0) & (values < n)
    _accumulate(out, batch[keep], values[keep], weights[keep] if weights.size else weights,
                binary_output)
    return out


def _accumulate(out, rows, cols, weights, binary_output):
    if binary_output:
        out[rows, cols] = 1
    elif weights.size:
        np.add.at(out, (rows, cols), weights)
    else:
        np.add.at(out, (rows, cols), 1)


def _ragged_bincount_kernel(splits, values, size, weights, binary_output=False, Tidx=None,
                            T=None):
    n = _size(size)
    _check_splits(splits, values.size)
    if values.size and values.min() < 0:
        raise _error("Input must be non-negative")
    out = np.zeros((splits.size - 1, n), weights.dtype)
    rows = np.repeat(np.arange(splits.size - 1), np.diff(splits))
    keep = values < n
    _accumulate(out, rows[keep], values[keep], weights[keep] if weights.size else weights,
                binary_output)
    return out


def _sparse_bincount_infer(inputs, attrs):
    n = U.constant_value(inputs[3])
    n = None if n is None else int(n)
    c = U.constant_value(inputs[2])
    if c is not None:
        shape = [n] if np.size(c) == 1 else [int(np.reshape(c, -1)[0]), n]
        return [(TensorShape(shape), inputs[4].dtype)]
    return [(TensorShape(None), inputs[4].dtype)]


def _ragged_bincount_infer(inputs, attrs):
    n = U.constant_value(inputs[2])
    rows = inputs[0].shape[0] - 1 if inputs[0].shape.rank == 1 and \
        inputs[0].shape[0] is not None else None
    return [(TensorShape([rows, None if n is None else int(n)]), inputs[3].dtype)]


_SparseBincount = register("SparseBincount", _sparse_bincount_kernel, _sparse_bincount_infer,
                           allowed=_WEIGHTS)
_RaggedBincount = register("RaggedBincount", _ragged_bincount_kernel, _ragged_bincount_infer,
                           allowed=_WEIGHTS)


# --- the public functions -----------------------------------------------------------------

def _check_args(weights, binary_output, axis):
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    return axis


def _empty_weights(dtype):
    return constant([], dtype=dtype)


def _sparse_weights(values, weights, dtype=None):
    """validate_sparse_weights: the weights' values (a SparseTensor with the
    indices and shape of `values`), or an empty tensor."""
    if weights is None:
        return _empty_weights(dtype or values.values.dtype)
    if not isinstance(weights, SparseTensor):
        raise ValueError("Argument `weights` must be a SparseTensor if `values` is a "
                         f"SparseTensor. Received weights={weights} of type: "
                         f"{type(weights).__name__}")
    checks = []
    if weights.dense_shape is not values.dense_shape:
        checks.append(assert_equal(weights.dense_shape, values.dense_shape,
                                   message="'weights' and 'values' must have the same dense "
                                   "shape."))
    if weights.indices is not values.indices:
        checks.append(assert_equal(weights.indices, values.indices,
                                   message="'weights' and 'values' must have the same "
                                   "indices."))
    with control_dependencies(checks):
        return identity(weights.values)


def _ragged_weights(values, weights, dtype=None):
    """validate_ragged_weights: the weights' flat values (a RaggedTensor with
    the row splits of `values`), or an empty tensor."""
    if weights is None:
        return _empty_weights(dtype or values.values.dtype)
    if not isinstance(weights, RaggedTensor):
        raise ValueError("`weights` must be a RaggedTensor if `values` is a RaggedTensor. "
                         f"Received argument weights={weights} of type: "
                         f"{type(weights).__name__}.")
    checks = []
    if weights.row_splits is not values.row_splits:
        checks.append(assert_equal(weights.row_splits, values.row_splits,
                                   message="'weights' and 'values' must have the same row "
                                   "splits."))
    with control_dependencies(checks):
        return identity(weights.values)


def _dense_weights(values, weights, dtype=None):
    if weights is None:
        return _empty_weights(dtype or values.dtype)
    if not isinstance(weights, Tensor):
        raise ValueError("Argument `weights` must be a tf.Tensor if `values` is a tf.Tensor. "
                         f"Received weights={weights} of type: {type(weights).__name__}")
    return weights


def _convert_weights(weights):
    if weights is None or isinstance(weights, (SparseTensor, RaggedTensor)):
        return weights
    return convert_to_tensor(weights, name="weights")


@export("sparse.bincount")
def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
                    binary_output=False, name=None):
    """Counts the non-negative integers of `values` (a tensor, SparseTensor or
    RaggedTensor; with `axis=-1` each row separately, rows of a rank-2
    argument) into a SparseTensor: entry [row,] v is how often v occurs (the
    sum of the matching `weights`, of the same kind as `values`, or 1 with
    `binary_output`). Values from `maxlength` on are dropped; the last
    dimension is `maxlength`, or the largest value + 1 and at least
    `minlength`. Missing entries of a SparseTensor are not counted.

    Raises:
      ValueError: for an `axis` other than 0 and -1, or `weights` with
        `binary_output`.
      InvalidArgumentError: for negative values.
    """
    if not isinstance(values, (SparseTensor, RaggedTensor)):
        values = convert_to_tensor(values, name="values")
    weights = _convert_weights(weights)
    axis = _check_args(weights, binary_output, axis)
    attrs = {"binary_output": bool(binary_output),
             "minlength": -1 if minlength is None else int(minlength),
             "maxlength": -1 if maxlength is None else int(maxlength)}
    if isinstance(values, RaggedTensor):
        if axis == 0:
            if weights is not None:
                weights = _ragged_weights(values, weights)
            values = values.values
        if isinstance(values, RaggedTensor):
            weights = _ragged_weights(values, weights)
            out = apply(_RaggedCount, [values.row_splits, values.values, weights], attrs,
                        name="RaggedCountSparseOutput", multi=True)
        else:
            out = apply(_DenseCount, [values, _dense_weights(values, weights)], attrs,
                        name="DenseCountSparseOutput", multi=True)
        return SparseTensor(*out)
    if axis == 0:
        if isinstance(values, SparseTensor):
            if weights is not None:
                weights = _sparse_weights(values, weights)
            values = values.values
        else:
            if weights is not None:
                weights = reshape(weights, [-1])
            values = reshape(values, [-1])
    if isinstance(values, SparseTensor):
        weights = _sparse_weights(values, weights)
        out = apply(_SparseCount, [values.indices, values.values, values.dense_shape,
                                   weights], attrs, name="SparseCountSparseOutput", multi=True)
    else:
        out = apply(_DenseCount, [values, _dense_weights(values, weights)], attrs,
                    name="DenseCountSparseOutput", multi=True)
    return SparseTensor(*out)


def _output_size(arr, values, minlength, maxlength):
    """TensorFlow's bincount size: (max + 1) when `arr` is nonempty, then
    clipped to [minlength, maxlength]."""
    if isinstance(arr, SparseTensor):
        count = reduce_prod(arr.dense_shape)
    else:
        count = size_of(arr.flat_values if isinstance(arr, RaggedTensor) else arr)
    nonempty = cast(count > 0, arr.dtype)
    top = reduce_max(values)
    if isinstance(arr, SparseTensor):
        top = maximum(top, constant(-1, arr.dtype))
    n = nonempty * (top + constant(1, arr.dtype))
    if minlength is not None:
        n = maximum(convert_to_tensor(minlength, dtype=arr.dtype, name="minlength"), n)
    if maxlength is not None:
        n = minimum(convert_to_tensor(maxlength, dtype=arr.dtype, name="maxlength"), n)
    return n


def _bincount_sparse(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32,
                     name=None, axis=None, binary_output=False):
    """`tf.math.bincount` of a SparseTensor (SparseBincount)."""
    axis = _check_args(weights, binary_output, axis)
    if not arr.dtype.is_integer:
        arr = SparseTensor(arr.indices, cast(arr.values, D.int32), arr.dense_shape)
    n = _output_size(arr, arr.values, minlength, maxlength)
    if axis == 0:
        if weights is not None:
            weights = _sparse_weights(arr, weights, dtype)
        arr = arr.values
    if isinstance(arr, SparseTensor):
        weights = _sparse_weights(arr, weights, dtype)
        return apply(_SparseBincount, [arr.indices, arr.values, arr.dense_shape, n, weights],
                     {"binary_output": bool(binary_output)}, name="SparseBincount")
    return apply(segment_ops._DenseBincount, [arr, n, _dense_weights(arr, weights, dtype)],
                 {"binary_output": bool(binary_output)}, name="DenseBincount")


def _bincount_ragged(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32,
                     name=None, axis=None, binary_output=False):
    """`tf.math.bincount` of a RaggedTensor (RaggedBincount)."""
    weights = _convert_weights(weights)
    axis = _check_args(weights, binary_output, axis)
    if not arr.dtype.is_integer:
        arr = arr.with_flat_values(cast(arr.flat_values, D.int32))
    n = _output_size(arr, arr.flat_values, minlength, maxlength)
    if axis == 0:
        while isinstance(arr, RaggedTensor):
            if weights is not None:
                weights = _ragged_weights(arr, weights, dtype)
            arr = arr.values
    if isinstance(arr, RaggedTensor):
        weights = _ragged_weights(arr, weights, dtype)
        return apply(_RaggedBincount, [arr.row_splits, arr.values, n, weights],
                     {"binary_output": bool(binary_output)}, name="RaggedBincount")
    return apply(segment_ops._DenseBincount, [arr, n, _dense_weights(arr, weights, dtype)],
                 {"binary_output": bool(binary_output)}, name="DenseBincount")


dispatch.register(segment_ops.bincount, {"arr": SparseTensor}, _bincount_sparse)
dispatch.register(segment_ops.bincount, {"arr": RaggedTensor}, _bincount_ragged)
