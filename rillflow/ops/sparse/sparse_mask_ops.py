"""`tf.sparse.mask` (dropping the slices of an `IndexedSlices` at given
indices, with TensorFlow's ListDiff op) and `tf.sparse.sampled_addmm` (the
dot products of mat1's rows and mat2's columns at a sparse set of
positions, scaled and added to values), composed as TensorFlow composes
them so gradients come from gather_nd and reduce_sum.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.context import state as _state
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.gather_ops import gather, gather_nd
from ..core.join_ops import concat, stack
from ..core.reduction_ops import reduce_sum
from ..linalg.structure_ops import matrix_transpose

__all__ = ["mask", "sampled_addmm"]


def _list_diff_kernel(x, y, T=None, out_idx=None):
    if x.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "x should be a 1D vector. [Op:ListDiff]")
    if y.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "y should be a 1D vector. [Op:ListDiff]")
    keep = ~np.isin(x, y)
    idx_dtype = np.dtype(out_idx.as_numpy_dtype) if out_idx is not None else np.int32
    return [x[keep], np.flatnonzero(keep).astype(idx_dtype)]


def _list_diff_infer(inputs, attrs):
    return [(TensorShape([None]), inputs[0].dtype),
            (TensorShape([None]), attrs.get("out_idx", D.int32))]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


_ListDiff = register("ListDiff", _list_diff_kernel, _list_diff_infer, grad=_no_grad)


def _list_diff(x, y, out_idx=D.int32, name=None):
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    return apply(_ListDiff, [x, y], {"T": x.dtype, "out_idx": out_idx},
                 name=name or "ListDiff", multi=True)


@export("sparse.mask")
def mask(a, mask_indices, name=None):
    """The `IndexedSlices` `a` without its slices whose index is in
    `mask_indices` (the rest keep their order); dense_shape unchanged."""
    out_indices, to_gather = _list_diff(a.indices, mask_indices)
    out_values = gather(a.values, to_gather, name=name)
    return IndexedSlices(out_values, out_indices, a.dense_shape)


@export("sparse.sampled_addmm")
def sampled_addmm(indices, values, dense_shape, mat1, mat2, beta=1.0, alpha=1.0,
                  output_type=D.float32):
    """`alpha * (mat1 @ mat2)[indices] + beta * values` without the full
    product: the (possibly batched) `[..., row, col]` positions of `indices`
    get their row-column dot products. Returns the (indices, values,
    dense_shape) components of the SparseTensor result.

    Raises:
      ValueError: `dense_shape` is not the product's [rows, cols] (eagerly, or
        when both are known while tracing).
    """
    indices = convert_to_tensor(indices)
    values = convert_to_tensor(values, dtype=output_type)
    dense_shape = convert_to_tensor(dense_shape, dtype=D.int32)
    mat1 = convert_to_tensor(mat1, dtype=output_type)
    mat2 = convert_to_tensor(mat2, dtype=output_type)
    s1, s2 = mat1.shape.as_list(), mat2.shape.as_list()
    output_shape = stack([s1[-2], s2[-1]])
    want = U.constant_value(dense_shape)
    got = U.constant_value(output_shape)
    if want is not None and got is not None and not np.all(np.equal(want, got)):
        raise ValueError(f"Dense shape: {want} does not match output shape: {got}")
    if _state.graph is not None and (want is None or got is None):
        from ..debugging.logging_ops import Assert
        from ..core.math_ops import equal
        from ..core.reduction_ops import reduce_all
        Assert(reduce_all(equal(dense_shape, output_shape)),
               ["Dense shape: ", dense_shape, " does not match output shape: ", output_shape])
    batch_indices = indices[..., :-2]
    row_indices = indices[..., :-1]
    col_indices = concat([batch_indices, indices[..., -1:]], axis=-1)
    batch_dims = len(s1) - 2
    rows = gather_nd(mat1, row_indices, batch_dims=batch_dims)
    cols = gather_nd(matrix_transpose(mat2), col_indices, batch_dims=batch_dims)
    dot = reduce_sum(rows * cols, axis=-1)
    return (indices, dot * alpha + values * beta, dense_shape)
