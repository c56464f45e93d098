"""Bin counts of sparse and ragged values, and counts as a SparseTensor:

- `tf.sparse.bincount` (TensorFlow's count ops `DenseCountSparseOutput`,
  `SparseCountSparseOutput`, `RaggedCountSparseOutput`): the nonzero counts
  of each value (per row with `axis=-1`), sorted by row then value;
- `tf.math.bincount` on a `SparseTensor` (`SparseBincount`) or a
  `RaggedTensor` (`RaggedBincount`): dense counts, dispatched from the
  public function as TensorFlow's `dispatch_for_api` does.

Counts are computed for all rows at once: each kept value gets the key
`row * size + value`, and `np.unique` (sorted) or `np.add.at` gathers them.
"""
import numpy as np

from ...framework import dispatch
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor_shape import TensorShape
from ..core import math_ops
from ..core import reduction_ops
from ..core import segment_ops
from ..core.constant_ops import constant
from ..core.creation_ops import name_scope as _scope
from ..core.shape_ops import reshape, size as size_of
from ..ragged.ragged_tensor import RaggedTensor


def _counts(batch, values, weights, num_batches, minlength, maxlength, binary_output,
            is_1d):
    """TensorFlow's count kernels: (indices, values, dense_shape)."""
    values = values.astype(np.int64, copy=False)
    if (values < 0).any():
        raise errors.InvalidArgumentError(None, None, "Input values must all be non-negative")
    keep = values < maxlength if maxlength > 0 else np.ones(values.shape, bool)
    v, b = values[keep], batch[keep]
    max_seen = int(v.max()) if v.size else 0
    size = maxlength if maxlength > 0 else max(max_seen + 1, minlength)
    key = b * size + v
    uniq, inverse = np.unique(key, return_inverse=True)
    if binary_output:
        out = np.ones(len(uniq), dtype=weights.dtype)
    elif weights.size:
        out = np.zeros(len(uniq), dtype=weights.dtype)
        np.add.at(out, inverse, weights.reshape(-1)[keep])
    else:
        out = np.bincount(inverse, minlength=len(uniq)).astype(weights.dtype)
    if is_1d:
        return uniq.reshape(-1, 1), out, np.array([size], np.int64)
    indices = np.stack([uniq // size, uniq % size], axis=1) if len(uniq) else \
        np.zeros((0, 2), np.int64)
    return indices, out, np.array([num_batches, size], np.int64)


def _check_weights(weights, values, op):
    if weights.size and weights.shape != values.shape:
        raise errors.InvalidArgumentError(
            None, None, f"Weights and values must have the same shape. Weight shape: "
            f"{list(weights.shape)}; values shape: {list(values.shape)}")


def _dense_count_kernel(values, weights, minlength=-1, maxlength=-1, binary_output=False, **_):
    _check_weights(weights, values, "DenseCountSparseOutput")
    if values.ndim not in (1, 2):
        raise errors.InvalidArgumentError(
            None, None, f"Input must be a 1 or 2-dimensional tensor. Got: {values.ndim}")
    is_1d = values.ndim == 1
    rows = 1 if is_1d else values.shape[0]
    batch = (np.zeros(values.size, np.int64) if is_1d
             else np.repeat(np.arange(rows, dtype=np.int64), values.shape[1]))
    return _counts(batch, values.reshape(-1), weights.reshape(-1) if weights.size else weights,
                   rows, minlength, maxlength, binary_output, is_1d)


def _sparse_count_kernel(indices, values, dense_shape, weights, minlength=-1, maxlength=-1,
                         binary_output=False, **_):
    _check_weights(weights, values, "SparseCountSparseOutput")
    is_1d = dense_shape.size == 1
    rows = 1 if is_1d else int(dense_shape[0])
    batch = np.zeros(len(values), np.int64) if is_1d else indices[:, 0].astype(np.int64)
    return _counts(batch, values, weights, rows, minlength, maxlength, binary_output, is_1d)


def _ragged_count_kernel(splits, values, weights, minlength=-1, maxlength=-1,
                         binary_output=False, **_):
    _check_weights(weights, values, "RaggedCountSparseOutput")
    rows = len(splits) - 1
    batch = np.repeat(np.arange(rows, dtype=np.int64), np.diff(splits))
    return _counts(batch, values, weights, rows, minlength, maxlength, binary_output, False)


def _count_infer(inputs, attrs):
    w = inputs[-1]
    return [(TensorShape([None, None]), D.int64), (TensorShape([None]), w.dtype),
            (TensorShape([None]), D.int64)]


_DenseCount = register("DenseCountSparseOutput", _dense_count_kernel, _count_infer)
_SparseCount = register("SparseCountSparseOutput", _sparse_count_kernel, _count_infer)
_RaggedCount = register("RaggedCountSparseOutput", _ragged_count_kernel, _count_infer)


def _bincount_rows(batch, values, weights, rows, size, binary_output):
    """Dense `[rows, size]` counts of `values` (values >= size ignored)."""
    values = values.astype(np.int64, copy=False)
    if size > 0 and (values < 0).any():
        raise errors.InvalidArgumentError(None, None, "Input arr must be non-negative!")
    keep = (values >= 0) & (values < size)
    out = np.zeros(rows * max(size, 0), dtype=weights.dtype)
    index = (batch * size + values)[keep]
    if binary_output:
        out[index] = 1
    elif weights.size:
        np.add.at(out, index, weights.reshape(-1)[keep])
    else:
        np.add.at(out, index, 1)
    return out.reshape(rows, max(size, 0))


def _sparse_bincount_kernel(indices, values, dense_shape, size, weights, binary_output=False,
                            **_):
    n = int(size)
    if dense_shape.size == 1:
        return _bincount_rows(np.zeros(len(values), np.int64), values, weights, 1, n,
                              binary_output)[0]
    return _bincount_rows(indices[:, 0].astype(np.int64), values, weights,
                          int(dense_shape[0]), n, binary_output)


def _ragged_bincount_kernel(splits, values, size, weights, binary_output=False, **_):
    rows = len(splits) - 1
    batch = np.repeat(np.arange(rows, dtype=np.int64), np.diff(splits))
    return _bincount_rows(batch, values, weights, rows, int(size), binary_output)


def _bincount_infer(rank_of):
    def infer(inputs, attrs):
        return [(TensorShape([None] * rank_of(inputs)), inputs[-1].dtype)]
    return infer


def _sparse_rank(inputs):
    n = inputs[2].shape[0] if inputs[2].shape.rank == 1 else None
    return 1 if n == 1 else 2


_SparseBincount = register("SparseBincount", _sparse_bincount_kernel,
                           _bincount_infer(_sparse_rank))
_RaggedBincount = register("RaggedBincount", _ragged_bincount_kernel,
                           _bincount_infer(lambda inputs: 2))


def _weights_or_empty(weights, values, dtype=None):
    if weights is None:
        return constant([], dtype=dtype or values.dtype)
    return weights.values if isinstance(weights, (SparseTensor, RaggedTensor)) else \
        convert_to_tensor(weights)


def _check_axis(axis, weights, binary_output):
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually "
                         "exclusive. Please specify only one.")
    axis = 0 if axis is None else axis
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and"
                         " -1 are currently supported.")
    return axis


@export("sparse.bincount")
def sparse_bincount(values, weights=None, axis=0, minlength=None, maxlength=None,
                    binary_output=False, name=None):
    """Counts how often each value occurs, as a `SparseTensor` of the nonzero
    counts (per row of a 2-D input with `axis=-1`). `values` may be dense,
    sparse or ragged; `weights` (same structure) are summed instead of 1s.

    Raises:
      ValueError: for `weights` with `binary_output`, or another `axis`.
    """
    with _scope(name or "count"):
        if not isinstance(values, (SparseTensor, RaggedTensor)):
            values = convert_to_tensor(values, name="values")
        axis = _check_axis(axis, weights, binary_output)
        attrs = {"minlength": -1 if minlength is None else int(minlength),
                 "maxlength": -1 if maxlength is None else int(maxlength),
                 "binary_output": bool(binary_output)}
        if isinstance(values, RaggedTensor):
            if axis == 0:
                w = _weights_or_empty(weights, values.flat_values)
                out = apply(_DenseCount, [values.flat_values, w], attrs, multi=True)
            else:
                w = _weights_or_empty(weights, values.values)
                out = apply(_RaggedCount, [values.row_splits, values.values, w], attrs,
                            multi=True)
        elif isinstance(values, SparseTensor):
            w = _weights_or_empty(weights, values.values)
            if axis == 0:
                out = apply(_DenseCount, [values.values, w], attrs, multi=True)
            else:
                out = apply(_SparseCount, [values.indices, values.values, values.dense_shape,
                                           w], attrs, multi=True)
        else:
            w = _weights_or_empty(weights, values)
            if axis == 0:
                values = reshape(values, [-1])
                if weights is not None:
                    w = reshape(w, [-1])
            out = apply(_DenseCount, [values, w], attrs, multi=True)
        return SparseTensor(out[0], out[1], out[2])


def _output_size(arr_values, total, minlength, maxlength, dtype):
    """TensorFlow's bin count length: max value + 1 (0 when `total` is 0),
    clipped to [minlength, maxlength]."""
    max_value = math_ops.maximum(reduction_ops.reduce_max(arr_values),
                                 constant(-1, dtype=dtype))
    size = math_ops.cast(math_ops.greater(total, 0), dtype) * (max_value + 1)
    if minlength is not None:
        size = math_ops.maximum(convert_to_tensor(minlength, dtype=dtype), size)
    if maxlength is not None:
        size = math_ops.minimum(convert_to_tensor(maxlength, dtype=dtype), size)
    return size


def _composite_bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32,
                        name=None, axis=None, binary_output=False):
    """`tf.math.bincount` of a SparseTensor or RaggedTensor `arr`."""
    with _scope(name or "bincount"):
        axis = _check_axis(axis, weights, binary_output)
        if not arr.dtype.is_integer:
            arr = arr.with_values(math_ops.cast(arr.values, D.int32)) \
                if isinstance(arr, SparseTensor) else arr.with_flat_values(
                    math_ops.cast(arr.flat_values, D.int32))
        flat = arr.values if isinstance(arr, SparseTensor) else arr.flat_values
        total = (reduction_ops.reduce_prod(arr.dense_shape) if isinstance(arr, SparseTensor)
                 else size_of(flat))
        size = _output_size(flat, total, minlength, maxlength, arr.dtype)
        w = _weights_or_empty(weights, flat, dtype)
        binary = {"binary_output": bool(binary_output)}
        if axis == 0:
            return segment_ops.bincount(flat, weights=None if weights is None else w,
                                        minlength=size, maxlength=size, dtype=dtype,
                                        binary_output=binary_output)
        if isinstance(arr, SparseTensor):
            return apply(_SparseBincount, [arr.indices, arr.values, arr.dense_shape, size, w],
                         binary, name="SparseBincount")
        return apply(_RaggedBincount, [arr.row_splits, arr.values, size, w], binary,
                     name="RaggedBincount")


dispatch.register(segment_ops.bincount, {"arr": SparseTensor}, _composite_bincount,
                  check_target_signature=False)
dispatch.register(segment_ops.bincount, {"arr": RaggedTensor}, _composite_bincount,
                  check_target_signature=False)
