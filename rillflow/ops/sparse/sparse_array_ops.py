"""`tf.sparse` ops that select, join and rearrange entries: retain, slice,
concat, transpose, to_indicator, fill_empty_rows (SparseSlice, SparseConcat
and SparseFillEmptyRows are registry entries, as in TensorFlow, with the
gradients TensorFlow has; the others are composites of public ops)."""
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import SymbolicTensor
from ...framework.tensor_shape import TensorShape
from ...framework.sparse_tensor import to_sparse_tensor
from . import sparse_kernels as K
from ..core.creation_ops import name_scope as _scope
from .sparse_ops import _const_rank, _indices_shape, _sparse, _with_shape, reorder, to_dense
from ..core.broadcast_ops import where
from ..core.constant_ops import fill
from ..core.creation_ops import range as range_
from ..core.dim_ops import expand_dims, transpose as dense_transpose
from ..core.gather_ops import gather, reverse
from ..core.join_ops import concat as dense_concat
from ..core.math_ops import cast
from ..core.reduction_ops import reduce_sum
from ..core.shape_ops import reshape as dense_reshape, shape as shape_of, size

__all__ = ["retain", "slice", "concat", "transpose", "to_indicator", "fill_empty_rows"]

_I64 = D.int64


def _slice_infer(inputs, attrs):
    rank = _const_rank(inputs[2])
    return [(_indices_shape(rank), _I64), (TensorShape([None]), inputs[1].dtype),
            (TensorShape([rank]), _I64)]


def _slice_grad(op, g_indices, g_values, g_shape):
    values_grad = apply(_SparseSliceGrad, [g_values, op.inputs[0], op.inputs[3],
                                           op.outputs[0]])
    return [None, values_grad, None, None, None]


_SparseSlice = register("SparseSlice", K.slice_, _slice_infer, grad=_slice_grad)
_SparseSliceGrad = register(
    "SparseSliceGrad", K.slice_grad,
    lambda inputs, attrs: [(TensorShape([inputs[1].shape[0]]), inputs[0].dtype)])


def _concat_infer(inputs, attrs):
    n = attrs["N"]
    rank = _const_rank(inputs[2 * n])
    return [(_indices_shape(rank), _I64), (TensorShape([None]), inputs[n].dtype),
            (TensorShape([rank]), _I64)]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


# TensorFlow does not differentiate SparseConcat (its gradient is None).
_SparseConcat = register("SparseConcat", K.concat, _concat_infer, grad=_no_grad)


def _fill_infer(inputs, attrs):
    rank = _const_rank(inputs[2])
    return [(_indices_shape(rank), _I64), (TensorShape([None]), inputs[1].dtype),
            (TensorShape([None]), D.bool_), (TensorShape([inputs[0].shape[0]]), _I64)]


def _fill_grad(op, g_indices, g_values, g_empty, g_map):
    values_grad = gather(g_values, op.outputs[3])
    return [None, values_grad, None, reduce_sum(g_values) - reduce_sum(values_grad)]


_SparseFillEmptyRows = register("SparseFillEmptyRows", K.fill_empty_rows, _fill_infer,
                                grad=_fill_grad)



# --- public functions -------------------------------------------------------------

@export("sparse.retain")
def retain(sp_input, to_retain):
    """The entries of `sp_input` where the 1-D bool `to_retain` is True."""
    sp = to_sparse_tensor(sp_input)
    keep = dense_reshape(where(convert_to_tensor(to_retain, dtype=D.bool_)), [-1])
    # (TensorFlow passes the dense shape through an identity: no static shape.)
    return _sparse(gather(sp.indices, keep), gather(sp.values, keep), sp.dense_shape)


@export("sparse.slice")
def slice(sp_input, start, size, name=None):  # noqa: A001  (TensorFlow's name)
    """The entries of `sp_input` in the box `[start, start + size)`, shifted
    to start at the origin."""
    sp = to_sparse_tensor(sp_input)
    idx, vals, shape = apply(_SparseSlice, [sp.indices, sp.values, sp.dense_shape,
                                            convert_to_tensor(start, dtype=_I64),
                                            convert_to_tensor(size, dtype=_I64)],
                             name=name or "SparseSlice", multi=True)
    return _sparse(idx, vals, shape)


@export("sparse.concat")
def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """The SparseTensors `sp_inputs` joined along `axis`; with
    `expand_nonconcat_dims` the other dimensions grow to the largest."""
    sps = [to_sparse_tensor(s) for s in sp_inputs]
    n = len(sps)
    ins = [s.indices for s in sps] + [s.values for s in sps] + [s.dense_shape for s in sps]
    idx, vals, shape = apply(_SparseConcat, ins,
                             {"concat_dim": int(axis), "N": n,
                              "expand_nonconcat_dims": bool(expand_nonconcat_dims)},
                             name=name or "SparseConcat", multi=True)
    return _with_shape(_sparse(idx, vals, shape),
                       _concat_static([s.shape for s in sps], int(axis),
                                      expand_nonconcat_dims))


def _concat_static(shapes, axis, expand):
    """The static shape of a concatenation (TensorFlow's, as far as known)."""
    if any(s.rank is None for s in shapes) or expand:
        return TensorShape(None)
    rank = shapes[0].rank
    axis %= rank
    dims = []
    for d in range(rank):
        col = [s[d] for s in shapes]
        if d == axis:
            dims.append(None if None in col else sum(col))
        else:
            dims.append(next((c for c in col if c is not None), None))
    return TensorShape(dims)


@export("sparse.transpose")
def transpose(sp_input, perm=None, name=None):
    """`sp_input` with its dimensions permuted (reversed by default), entries
    reordered."""
    sp = to_sparse_tensor(sp_input)
    with _scope(name or "SparseTranspose"):
        if perm is None:
            perm = reverse(range_(size(sp.dense_shape)), [0])
        perm = convert_to_tensor(perm, dtype=D.int32)
        idx = dense_transpose(gather(dense_transpose(sp.indices), perm))
        shape = gather(sp.dense_shape, perm)
        out = reorder(_sparse(idx, sp.values, shape))
        static, known = sp.shape, getattr(perm, "_const", None)
        if known is None and perm.__class__ is not SymbolicTensor:
            known = perm._v
        if static.rank is not None and known is not None:
            out._static_shape = TensorShape([static[int(p)] for p in known])
        return out


@export("sparse.to_indicator")
def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor whose last dimension (of `vocab_size`) is True at
    each id `sp_input` holds in that row."""
    sp = to_sparse_tensor(sp_input)
    with _scope(name or "SparseToIndicator"):
        idx = dense_concat([sp.indices[:, :-1], expand_dims(cast(sp.values, _I64), 1)], 1)
        shape = dense_concat([sp.dense_shape[:-1],
                              convert_to_tensor([vocab_size], dtype=_I64)], 0)
        ones = convert_to_tensor(True)
        vals = fill(shape_of(sp.values)[:1], ones)
        ordered = reorder(_sparse(idx, vals, shape))
        return to_dense(ordered, default_value=False, validate_indices=False)


@export("sparse.fill_empty_rows")
def fill_empty_rows(sp_input, default_value, name=None):
    """`sp_input` with an entry `default_value` at column 0 of each empty row,
    and a bool vector telling which rows were empty."""
    sp = to_sparse_tensor(sp_input)
    default_value = convert_to_tensor(default_value, dtype=sp.dtype)
    idx, vals, empty, _ = apply(_SparseFillEmptyRows, [sp.indices, sp.values,
                                                       sp.dense_shape, default_value],
                                name=name or "SparseFillEmptyRows", multi=True)
    return _sparse(idx, vals, sp.dense_shape), empty
