"""`tf.ragged.cross` and `tf.ragged.cross_hashed`: feature crosses of 2-D
ragged, sparse and dense tensors as a RaggedTensor, and the raw ops
`tf.ragged_fill_empty_rows` / `tf.ragged_fill_empty_rows_grad`.

A cross keeps its inputs' order (tf.sparse.cross puts the sparse ones
first), so every input becomes a SparseTensor of its own entries, in order,
and TensorFlow's SparseCross kernels (ops/sparse/sparse_cross_ops.py) do
the crossing and hashing; each row's combinations come back as a ragged row.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor
from ..core.math_ops import cast
from ..sparse import sparse_cross_ops as X
from .ragged_tensor import RaggedTensor
from . import ragged_conversion  # noqa: F401 - installs RaggedTensor.to_sparse/from_sparse

__all__ = ["cross", "cross_hashed", "ragged_fill_empty_rows", "ragged_fill_empty_rows_grad"]

_ALLOWED = (D.string, D.int32, D.int64)


def _as_sparse(i, value):
    """Input `i` as a 2-D SparseTensor of all its entries, and its row_splits
    dtype when it is ragged."""
    if isinstance(value, RaggedTensor):
        if value.ragged_rank != 1 or value.flat_values.shape.rank != 1:
            raise ValueError("tf.ragged.cross only supports inputs with rank=2")
        return value.to_sparse(), value.row_splits.dtype, value.dtype
    if isinstance(value, SparseTensor):
        if value.shape.rank is not None and value.shape.rank != 2:
            raise ValueError("tf.ragged.cross only supports inputs with rank=2")
        return value, None, value.dtype
    t = convert_to_tensor(value)
    if t.shape.rank is not None and t.shape.rank != 2:
        # TensorFlow's RaggedCross kernel checks the dense inputs' rank.
        raise errors.InvalidArgumentError(
            None, None, "tf.ragged.cross only supports inputs with rank=2. [Op:RaggedCross]")
    rows, cols = np.indices(t.shape.as_list()) if t.shape.is_fully_defined() else (None, None)
    if rows is None:
        raise ValueError("tf.ragged.cross needs dense inputs of a known shape here")
    idx = np.stack([rows.reshape(-1), cols.reshape(-1)], axis=1).astype(np.int64)
    from ..core.shape_ops import reshape
    return (SparseTensor(idx, reshape(t, [-1]), np.array(t.shape.as_list(), np.int64)), None,
            t.dtype)


def _cross(inputs, hashed, num_buckets, hash_key, name):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sparse, splits_dtype = [], None
    for i, value in enumerate(inputs):
        st, sd, dtype = _as_sparse(i, value)
        if dtype not in _ALLOWED:
            raise ValueError(f"Unexpected dtype for inputs[{i}]: {dtype}")
        if sd is not None:
            if splits_dtype is not None and sd != splits_dtype:
                raise ValueError("inputs must all have the same row_splits dtype")
            splits_dtype = sd
        sparse.append(st)
    splits_dtype = splits_dtype or D.int64
    indices, values, shapes, dense, any_int = X._prepare(sparse, "")
    if hashed:
        attrs = {"N": len(indices), "hashed_output": True, "num_buckets": int(num_buckets),
                 "hash_key": int(hash_key or X._DEFAULT_HASH_KEY), "out_type": D.int64,
                 "internal_type": D.int64 if any_int else D.string}
        from ...framework.execute import apply
        outs = apply(X._SparseCross, indices + values + shapes, attrs,
                     name=name or "RaggedCross", multi=True)
    else:
        from ...framework.execute import apply
        outs = apply(X._SparseCrossV2, indices + values + shapes +
                     [convert_to_tensor("_X_", D.string)], {"N": len(indices)},
                     name=name or "RaggedCross", multi=True)
    return RaggedTensor.from_sparse(SparseTensor(outs[0], outs[1], outs[2]),
                                    row_splits_dtype=splits_dtype)


@export("ragged.cross")
def cross(inputs, name=None):
    """The string feature cross of a list of 2-D RaggedTensors, SparseTensors
    and dense tensors (string, int32 or int64), in their order: row i holds
    every combination of one value of row i of each input, joined by "_X_",
    the first input's value varying slowest.

    Raises:
      ValueError: an input is not 2-D or not of those dtypes.
    """
    return _cross(inputs, False, 0, None, name)


@export("ragged.cross_hashed")
def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed feature cross of `inputs` (as `cross`): each combination's
    FingerprintCat64 chain of feature hashes, modulo `num_buckets` when it is
    > 0 (int64)."""
    return _cross(inputs, True, num_buckets, hash_key, name)


# --- RaggedFillEmptyRows ---------------------------------------------------------------

def _fill_kernel(value_rowids, values, nrows, default_value, T=None):
    rowids = np.asarray(value_rowids, np.int64).reshape(-1)
    n_rows = int(nrows)
    if np.ndim(default_value) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"default_value must be a scalar, saw: "
                        f"{list(np.shape(default_value))} [Op:RaggedFillEmptyRows]")
    if values.shape[:1] != rowids.shape:
        raise errors.InvalidArgumentError(
            None, None, f"The length of `values` ({values.shape[0]}) must match the first "
                        f"dimension of `value_rowids` ({rowids.shape[0]}). "
                        f"[Op:RaggedFillEmptyRows]")
    bad = np.flatnonzero((rowids < 0) | (rowids >= n_rows))
    if bad.size:
        i = int(bad[0])
        raise errors.InvalidArgumentError(
            None, None, f"indices({i}, 0) is invalid: {int(rowids[i])} >= {n_rows} "
                        f"[Op:RaggedFillEmptyRows]")
    empty = np.ones(n_rows, dtype=bool)
    empty[rowids] = False
    extra = np.flatnonzero(empty)
    rows = np.concatenate([rowids, extra])
    vals = np.concatenate([values, np.full(len(extra), default_value, dtype=values.dtype)])
    # Each row's values keep their order; an empty row gets one default.
    perm = np.argsort(rows, kind="stable")
    where = np.empty(len(perm), dtype=np.int64)
    where[perm] = np.arange(len(perm))
    return [rows[perm], vals[perm], empty, where[:len(rowids)]]


def _fill_infer(inputs, attrs):
    from ...framework.tensor_shape import TensorShape
    return [(TensorShape([None]), D.int64), (TensorShape([None]), inputs[1].dtype),
            (TensorShape([None]), D.bool_), (TensorShape([inputs[0].shape[0]]), D.int64)]


def _fill_grad_kernel(reverse_index_map, grad_values, T=None):
    rim = np.asarray(reverse_index_map, np.int64)
    d_values = grad_values[rim]
    visited = np.zeros(len(grad_values), dtype=bool)
    visited[rim] = True
    d_default = grad_values.dtype.type(0)
    for v in grad_values[~visited]:   # in order, in the values' dtype, as the kernel adds
        d_default = d_default + v
    return [d_values, np.asarray(d_default, dtype=grad_values.dtype)]


def _fill_grad_infer(inputs, attrs):
    from ...framework.tensor_shape import TensorShape
    return [(TensorShape([inputs[0].shape[0]]), inputs[1].dtype),
            (TensorShape([]), inputs[1].dtype)]


def _fill_grad(op, g_rowids, g_values, g_empty, g_map):
    if g_values is None:
        return [None] * 4
    d_values, d_default = ragged_fill_empty_rows_grad(op.outputs[3], g_values)
    return [None, d_values, None, d_default]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


from ...framework.op_registry import register  # noqa: E402
from ...framework.execute import apply  # noqa: E402

_RaggedFillEmptyRows = register("RaggedFillEmptyRows", _fill_kernel, _fill_infer,
                                grad=_fill_grad)
_RaggedFillEmptyRowsGrad = register("RaggedFillEmptyRowsGrad", _fill_grad_kernel,
                                    _fill_grad_infer, grad=_no_grad)


@export("ragged_fill_empty_rows")
def ragged_fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """The RaggedFillEmptyRows op: gives each of `nrows` rows without values
    (by `value_rowids`) one `default_value`; returns (output_value_rowids,
    output_values, empty_row_indicator, reverse_index_map), values sorted by
    row, each input value's position in the output in reverse_index_map."""
    values = convert_to_tensor(values)
    inputs = [convert_to_tensor(value_rowids, D.int64), values,
              convert_to_tensor(nrows, D.int64),
              convert_to_tensor(default_value, values.dtype)]
    outs = apply(_RaggedFillEmptyRows, inputs, {"T": values.dtype},
                 name=name or "RaggedFillEmptyRows", multi=True)
    return _FillResult(*outs)


@export("ragged_fill_empty_rows_grad")
def ragged_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """The RaggedFillEmptyRowsGrad op: the gradient of the input values (the
    output gradients at reverse_index_map) and of the default value (the sum
    of the rest)."""
    g = convert_to_tensor(grad_values)
    outs = apply(_RaggedFillEmptyRowsGrad, [convert_to_tensor(reverse_index_map, D.int64), g],
                 {"T": g.dtype}, name=name or "RaggedFillEmptyRowsGrad", multi=True)
    return _FillGradResult(*outs)


import collections  # noqa: E402

_FillResult = collections.namedtuple(
    "RaggedFillEmptyRows",
    ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"])
_FillGradResult = collections.namedtuple("RaggedFillEmptyRowsGrad",
                                         ["d_values", "d_default_value"])
