"""`tf.sparse`: ops on SparseTensors (rillflow/framework/sparse_tensor.py).

Where TensorFlow has an op (SparseToDense, SparseReorder, SparseReshape,
SparseAdd, SparseTensorDenseAdd, SparseReduceSum, SparseTensorDenseMatMul,
SparseDenseCwiseMul/Div) it is a registry entry of that name working on the
components, with TensorFlow's gradient; from_dense is a composite of public
ops, as in TensorFlow. The NumPy kernels are in sparse_kernels.py; slicing,
joining and reordering ops are in sparse_array_ops.py, the rest of tf.sparse
in sparse_math_ops.py.
"""
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor, to_sparse_tensor
from ...framework.tensor_shape import TensorShape
from . import sparse_kernels as K
from ..core.creation_ops import name_scope as _scope
from ...framework.indexed_slices import _shape_of
from ..core.broadcast_ops import where
from ..core.constant_ops import zeros_like
from ..core.creation_ops import range as range_
from ..core.dim_ops import transpose as dense_transpose
from ..core.gather_ops import gather, gather_nd
from ..core.math_ops import not_equal
from ..core.scatter_ops import scatter_nd
from ..core.shape_ops import shape, shape as shape_of, size

__all__ = ["from_dense", "to_dense", "reorder", "reshape", "add", "reduce_sum",
           "sparse_dense_matmul"]

_I64 = D.int64


def _indices_shape(rank):
    return TensorShape([None, rank])


def _const_rank(t):
    """The length of a 1-D shape tensor, if known."""
    s = t.shape
    return s[0] if s.rank == 1 else None


def _static_dense(shape_tensor):
    """The dense shape a 1-D int tensor holds, as far as known statically."""
    return _shape_of(shape_tensor)


# --- ops ------------------------------------------------------------------------

def _to_dense_infer(inputs, attrs):
    return [(_static_dense(inputs[1]), inputs[2].dtype)]


def _to_dense_grad(op, grad):
    from ..core.reduction_ops import reduce_sum
    indices = op.inputs[0]
    values_grad = gather_nd(grad, indices)
    return [None, None, values_grad, reduce_sum(grad) - reduce_sum(values_grad)]


_SparseToDense = register("SparseToDense", K.to_dense, _to_dense_infer, grad=_to_dense_grad)


def _reorder_infer(inputs, attrs):
    return [(inputs[0].shape, _I64), (inputs[1].shape, inputs[1].dtype)]


def _reorder_grad(op, g_indices, g_values):
    inverse = apply(_SparseReorderPerm, [op.inputs[0], op.inputs[2]])
    return [None, gather(g_values, inverse), None]


_SparseReorder = register("SparseReorder", K.reorder, _reorder_infer, grad=_reorder_grad)
# Where SparseReorder moves each entry (for its gradient).
_SparseReorderPerm = register("SparseReorderPermutation", K.reorder_permutation,
                              lambda inputs, attrs: [(TensorShape([inputs[0].shape[0]]),
                                                      D.int32)])


def _reshape_infer(inputs, attrs):
    rank = _const_rank(inputs[2])
    return [(_indices_shape(rank), _I64), (TensorShape([rank]), _I64)]


_SparseReshape = register("SparseReshape", K.reshape, _reshape_infer)


def _add_infer(inputs, attrs):
    rank = _const_rank(inputs[2])
    return [(_indices_shape(rank), _I64), (TensorShape([None]), inputs[1].dtype),
            (TensorShape([rank]), _I64)]


def _add_grad(op, g_indices, g_values, g_shape):
    a_grad, b_grad = apply(_SparseAddGrad, [g_values, op.inputs[0], op.inputs[3],
                                           op.outputs[0]], multi=True)
    return [None, a_grad, None, None, b_grad, None, None]


_SparseAdd = register("SparseAdd", K.add, _add_infer, grad=_add_grad)
_SparseAddGrad = register(
    "SparseAddGrad", K.add_grad,
    lambda inputs, attrs: [(TensorShape([inputs[1].shape[0]]), inputs[0].dtype),
                           (TensorShape([inputs[2].shape[0]]), inputs[0].dtype)])


def _dense_add_grad(op, grad):
    return [None, gather_nd(grad, op.inputs[0]), None, grad]


_SparseTensorDenseAdd = register(
    "SparseTensorDenseAdd", K.dense_add,
    lambda inputs, attrs: [(inputs[3].shape, inputs[3].dtype)], grad=_dense_add_grad)


def _reduce_infer(inputs, attrs):
    # TensorFlow's shape function leaves the sum's shape unknown.
    return [(TensorShape(None), inputs[1].dtype)]


def _reduce_grad(op, grad):
    from ..core.shape_ops import reshape
    indices, _, shape, axes = op.inputs
    kept = apply(_ReducedShape, [shape, axes])
    g = reshape(grad, kept)
    return [None, gather_nd(g, indices // (shape // kept)), None, None]


_SparseReduceSum = register("SparseReduceSum", K.reduce_sum, _reduce_infer, grad=_reduce_grad)
_SparseReduceSumSparse = register(
    "SparseReduceSumSparse", K.reduce_sum_sparse,
    lambda inputs, attrs: [(TensorShape([None, None]), _I64),
                           (TensorShape([None]), inputs[1].dtype), (TensorShape([None]), _I64)])
# The shape a reduction keeps (reduced axes of size 1), for gradients.
_ReducedShape = register("SparseReducedShape", K.reduced_shape,
                         lambda inputs, attrs: [(inputs[0].shape, _I64)])


def _matmul_infer(inputs, attrs):
    b = inputs[3].shape
    rows = _static_dense(inputs[2])
    out_rows = None
    if rows.rank == 2:
        out_rows = rows[1] if attrs["adjoint_a"] else rows[0]
    cols = None if b.rank != 2 else (b[0] if attrs["adjoint_b"] else b[1])
    return [(TensorShape([out_rows, cols]), inputs[1].dtype)]


def _matmul_grad(op, grad):
    from ..core.reduction_ops import reduce_sum
    indices, values, shape, b = op.inputs
    adj_a, adj_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    b_grad = apply(_SparseDenseMatMul, [indices, values, shape, grad],
                   {"adjoint_a": not adj_a, "adjoint_b": False})
    if adj_b:
        b_grad = dense_transpose(b_grad)
    rows, cols = indices[:, 0], indices[:, 1]
    if adj_a:
        rows, cols = cols, rows
    b_rows = gather(dense_transpose(b) if adj_b else b, cols)
    return [None, reduce_sum(gather(grad, rows) * b_rows, axis=1), None, b_grad]


_SparseDenseMatMul = register("SparseTensorDenseMatMul", K.matmul, _matmul_infer,
                              grad=_matmul_grad)


def _cwise_grad(is_mul):
    def grad(op, g):
        indices, values, _, y = op.inputs
        y_shape = shape_of(y, out_type=_I64)
        scaled = apply(_ScaledIndices, [indices, op.inputs[2], y_shape])
        dense_vals = gather_nd(y, scaled)
        if is_mul:
            dx, dy_val = g * dense_vals, g * values
        else:
            dx, dy_val = g / dense_vals, g * (-values / (dense_vals * dense_vals))
        return [None, dx, None, scatter_nd(scaled, dy_val, y_shape)]
    return grad


def _cwise_infer(inputs, attrs):
    return [(TensorShape([inputs[1].shape[0]]), inputs[1].dtype)]


_SparseDenseCwiseMul = register("SparseDenseCwiseMul", K.cwise_mul, _cwise_infer,
                                grad=_cwise_grad(True))
_SparseDenseCwiseDiv = register("SparseDenseCwiseDiv", K.cwise_div, _cwise_infer,
                                grad=_cwise_grad(False))
# Where each entry reads the broadcast dense operand (for their gradients).
_ScaledIndices = register(
    "SparseDenseScaledIndices", K.scaled_indices,
    lambda inputs, attrs: [(TensorShape([None, inputs[2].shape[0]]), _I64)])


# --- public functions -------------------------------------------------------------

def _sparse(indices, values, shape):
    return SparseTensor(indices, values, shape)


@export("sparse.from_dense")
def from_dense(tensor, name=None):
    """The SparseTensor of the nonzero (non-empty) entries of `tensor`."""
    with _scope(name or "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        indices = where(not_equal(tensor, zeros_like(tensor)))
        values = gather_nd(tensor, indices)
        return _sparse(indices, values, shape(tensor, out_type=_I64))


@export("sparse.to_dense")
def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of `sp_input`, `default_value` (zero) where it has no entry.

    Raises:
      TypeError: if `sp_input` is not a SparseTensor.
      InvalidArgumentError: (with `validate_indices`) for indices out of
        bounds, out of order or repeated.
    """
    sp = to_sparse_tensor(sp_input)
    if default_value is None:
        default_value = K.zero_of(sp.dtype)
    default_value = convert_to_tensor(default_value, dtype=sp.dtype)
    return apply(_SparseToDense, [sp.indices, sp.dense_shape, sp.values, default_value],
                 {"validate_indices": bool(validate_indices)}, name=name or "SparseToDense")


@export("sparse.reorder")
def reorder(sp_input, name=None):
    """`sp_input` with its entries in row-major (canonical) order."""
    sp = to_sparse_tensor(sp_input)
    idx, vals = apply(_SparseReorder, [sp.indices, sp.values, sp.dense_shape],
                      name=name or "SparseReorder", multi=True)
    return _with_shape(_sparse(idx, vals, sp.dense_shape), sp.shape)


def _with_shape(sp, shape):
    sp._static_shape = shape if shape.rank is not None else None
    return sp


@export("sparse.reshape")
def reshape(sp_input, shape, name=None):
    """`sp_input` reshaped to `shape` (one dimension may be -1), entries in
    the same row-major order."""
    sp = to_sparse_tensor(sp_input)
    shape = convert_to_tensor(shape, dtype=_I64)
    idx, new_shape = apply(_SparseReshape, [sp.indices, sp.dense_shape, shape],
                           name=name or "SparseReshape", multi=True)
    return _with_shape(_sparse(idx, sp.values, new_shape), _reshaped_static(sp.shape, shape))


def _reshaped_static(old, shape):
    """The static shape `reshape` gives, as far as known while building."""
    known = getattr(shape, "_const", None)
    if known is None:
        return TensorShape(None)
    dims = [int(d) for d in known.reshape(-1)]
    if -1 in dims:
        if not old.is_fully_defined() or dims.count(-1) != 1:
            return TensorShape([None if d == -1 else d for d in dims])
        rest = 1
        for d in dims:
            rest *= d if d != -1 else 1
        total = old.num_elements()
        dims = [total // rest if d == -1 and rest else d for d in dims]
    return TensorShape(dims)


@export("sparse.add")
def add(a, b, threshold=0):
    """`a + b`: a SparseTensor for two SparseTensors (entries whose sum has
    magnitude below `threshold` dropped), a dense tensor when one is dense."""
    if a.__class__ is not SparseTensor:
        a, b = b, a
    if a.__class__ is not SparseTensor:
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if b.__class__ is SparseTensor:
        thresh = convert_to_tensor(threshold, dtype=K.real_dtype(a.dtype))
        idx, vals, shape = apply(_SparseAdd, [a.indices, a.values, a.dense_shape,
                                              b.indices, b.values, b.dense_shape, thresh],
                                 name="SparseAdd", multi=True)
        return _with_shape(_sparse(idx, vals, shape), a.shape.merge_with(b.shape))
    b = convert_to_tensor(b, dtype=a.dtype)
    return apply(_SparseTensorDenseAdd, [a.indices, a.values, a.dense_shape, b],
                 name="SparseTensorDenseAdd")


def _axes(sp, axis):
    """The reduction axes as an int32 tensor (all axes for None)."""
    if axis is None:
        rank = sp.dense_shape.shape[0]
        if rank is None:
            return range_(size(sp.dense_shape, out_type=D.int32))
        return convert_to_tensor(list(range(rank)), dtype=D.int32)
    return convert_to_tensor(axis, dtype=D.int32)


@export("sparse.reduce_sum")
def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum of `sp_input`'s entries along `axis` (all axes when None): a
    dense tensor, or a SparseTensor with `output_is_sparse`."""
    sp = to_sparse_tensor(sp_input)
    attrs = {"keep_dims": bool(keepdims)}
    axes = _axes(sp, axis)
    ins = [sp.indices, sp.values, sp.dense_shape, axes]
    if output_is_sparse:
        idx, vals, shape = apply(_SparseReduceSumSparse, ins, attrs,
                                 name=name or "SparseReduceSumSparse", multi=True)
        return _sparse(idx, vals, shape)
    return apply(_SparseReduceSum, ins, attrs, name=name or "SparseReduceSum")


@export("sparse.sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """`sp_a @ b` for a SparseTensor and a dense matrix (either order);
    `adjoint_a`/`adjoint_b` take the (conjugate) transpose of an operand."""
    if sp_a.__class__ is not SparseTensor and b.__class__ is SparseTensor:
        # dense @ sparse: (sparse^T @ dense^T)^T.
        out = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b,
                                  adjoint_b=not adjoint_a, name=name)
        return dense_transpose(out)
    sp = to_sparse_tensor(sp_a)
    b = convert_to_tensor(b, dtype=sp.dtype)
    return apply(_SparseDenseMatMul, [sp.indices, sp.values, sp.dense_shape, b],
                 {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)},
                 name=name or "SparseTensorDenseMatMul")
