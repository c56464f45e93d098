"""More of `tf.sparse`: map_values, expand_dims, eye, reduce_max, maximum,
minimum, softmax, split, reset_shape and the segment reductions over
selected rows (segment_sum/mean/sqrt_n: SparseSegmentSum, ... and their
gradient ops); the core ops are in sparse_ops.py.

SparseReduceMax, SparseSparseMaximum/Minimum, SparseSoftmax and SparseSplit
are registry entries as in TensorFlow (SparseSoftmax with its gradient;
TensorFlow has none for the others); the rest are composites of public ops.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor, to_sparse_tensor
from ...framework.tensor import EagerTensor
from ...framework.tensor_shape import TensorShape
from . import sparse_kernels as K
from .sparse_ops import _with_shape
from ...framework.api_export import export_value
from ..core.constant_ops import fill, ones
from ..core.creation_ops import range as range_
from ..core.join_ops import concat, stack
from ..core.math_ops import cast, minimum as dense_minimum
from ..core.shape_ops import shape as shape_of
from . import sparse_array_ops as A, sparse_ops as O
from .sparse_ops import _axes, from_dense

__all__ = ["map_values", "expand_dims", "eye", "reduce_max", "maximum", "minimum", "softmax",
           "split", "segment_sum", "segment_mean", "segment_sqrt_n", "reset_shape"]

_I64 = D.int64


# --- kernels ------------------------------------------------------------------------

def _reduce_max_kernel(indices, values, shape, axes, keep_dims=False):
    rank = len(shape)
    axes = K._norm_axes(axes, rank)
    kept = [d for d in range(rank) if d not in axes]
    out_shape = tuple(1 if d in axes else int(shape[d]) for d in range(rank)) if keep_dims \
        else tuple(int(shape[d]) for d in kept)
    # Empty groups give 0 (TensorFlow reduces over the entries only).
    out = np.zeros(out_shape, dtype=values.dtype)
    if not kept:
        return np.full(out_shape, values.max() if values.size else 0, dtype=values.dtype)
    if indices.shape[0]:
        flat_shape = tuple(int(shape[d]) for d in kept)
        best = np.full(flat_shape, -np.inf if values.dtype.kind == "f" else
                       np.iinfo(values.dtype).min, dtype=values.dtype)
        np.maximum.at(best, tuple(indices[:, kept].T), values)
        seen = np.zeros(flat_shape, dtype=bool)
        seen[tuple(indices[:, kept].T)] = True
        out = np.where(seen, best, out.reshape(flat_shape)).reshape(out_shape)
    return out


def _union(a_indices, a_values, b_indices, b_values, fn):
    ka, kb = K._keys(a_indices, b_indices)
    rows = {}
    for i, k in enumerate(ka):
        rows[int(k)] = [a_indices[i], a_values[i], 0]
    for j, k in enumerate(kb):
        r = rows.setdefault(int(k), [b_indices[j], 0, 0])
        r[2] = b_values[j]
    rank = a_indices.shape[1]
    idx = np.array([r[0] for r in rows.values()], dtype=np.int64).reshape(-1, rank)
    vals = np.array([fn(r[1], r[2]) for r in rows.values()], dtype=a_values.dtype)
    perm = K._order(idx)
    return [idx[perm], vals.reshape(-1)[perm]]


def _maximum_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    K._check_same_shape(a_shape, b_shape)
    return _union(a_indices, a_values, b_indices, b_values, max)


def _minimum_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
    K._check_same_shape(a_shape, b_shape)
    return _union(a_indices, a_values, b_indices, b_values, min)


def _softmax_kernel(indices, values, shape):
    out = np.empty_like(values)
    groups = indices[:, :-1]
    if not len(values):
        return out
    _, inverse = np.unique(groups, axis=0, return_inverse=True)
    inverse = np.reshape(inverse, -1)
    for g in np.unique(inverse):
        sel = inverse == g
        # (exp in double, rounded once: NumPy's float32 exp can be 1 ulp off.)
        x = values[sel] - values[sel].max()
        e = np.exp(x.astype(np.float64)).astype(values.dtype)
        out[sel] = e / e.sum()
    return out


def _split_kernel(split_dim, indices, values, shape, num_split):
    axis = int(split_dim) % len(shape)
    size = int(shape[axis])
    base, extra = divmod(size, num_split)
    sizes = [base + (1 if k < extra else 0) for k in range(num_split)]
    out_i, out_v, out_s, start = [], [], [], 0
    for n in sizes:
        keep = (indices[:, axis] >= start) & (indices[:, axis] < start + n)
        moved = indices[keep].copy()
        moved[:, axis] -= start
        s = np.array(shape, dtype=np.int64)
        s[axis] = n
        out_i.append(moved)
        out_v.append(values[keep])
        out_s.append(s)
        start += n
    return out_i + out_v + out_s


def _pair_infer(inputs, attrs):
    rank = inputs[2].shape[0] if inputs[2].shape.rank == 1 else None
    return [(TensorShape([None, rank]), _I64), (TensorShape([None]), inputs[1].dtype)]


_SparseReduceMax = register("SparseReduceMax", _reduce_max_kernel,
                            lambda inputs, attrs: [(TensorShape(None), inputs[1].dtype)])
_SparseMaximum = register("SparseSparseMaximum", _maximum_kernel, _pair_infer)
_SparseMinimum = register("SparseSparseMinimum", _minimum_kernel, _pair_infer)
def _softmax_grad(op, grad):
    values_grad = apply(_SparseSoftmaxGrad, [op.inputs[0], op.outputs[0], grad])
    return [None, values_grad, None]


_SparseSoftmax = register("SparseSoftmax", _softmax_kernel,
                          lambda inputs, attrs: [(inputs[1].shape, inputs[1].dtype)],
                          grad=_softmax_grad)
_SparseSoftmaxGrad = register("SparseSoftmaxGrad", K.softmax_grad,
                              lambda inputs, attrs: [(inputs[1].shape, inputs[1].dtype)])


def _split_infer(inputs, attrs):
    n = attrs["num_split"]
    rank = inputs[3].shape[0] if inputs[3].shape.rank == 1 else None
    return ([(TensorShape([None, rank]), _I64)] * n + [(TensorShape([None]), inputs[2].dtype)] * n
            + [(TensorShape([rank]), _I64)] * n)


_SparseSplit = register("SparseSplit", _split_kernel, _split_infer)


# --- public functions ---------------------------------------------------------------

@export("sparse.map_values")
def map_values(op, *args, **kwargs):
    """`op` applied to the values of the SparseTensors among the arguments
    (which must all have the same indices); the result has their indices.

    Raises:
      ValueError: if no argument is a SparseTensor.
      InvalidArgumentError: (eagerly) if their indices differ.
    """
    sparse = [a for a in list(args) + list(kwargs.values()) if a.__class__ is SparseTensor]
    if not sparse:
        raise ValueError("No SparseTensor in argument list of map_values")
    first = sparse[0]
    for other in sparse[1:]:
        x, y = first.indices, other.indices
        if x.__class__ is EagerTensor and y.__class__ is EagerTensor and (
                x._v.shape != y._v.shape or np.any(x._v != y._v)):
            fx, fy = x._v.reshape(-1), y._v.reshape(-1)
            raise errors.InvalidArgumentError(
                None, None, f"Mismatched indices!\nCondition x == y did not hold.\nFirst "
                f"{min(3, fx.size)} elements of x:\n{fx[:3]}\nFirst {min(3, fy.size)} "
                f"elements of y:\n{fy[:3]}")
    unwrap = [a.values if a.__class__ is SparseTensor else a for a in args]
    kw = {k: v.values if v.__class__ is SparseTensor else v for k, v in kwargs.items()}
    return _with_shape(SparseTensor(first.indices, op(*unwrap, **kw), first.dense_shape),
                       first.shape)


@export("sparse.expand_dims")
def expand_dims(sp_input, axis=None, name=None):
    """`sp_input` with a dimension of size 1 inserted at `axis`."""
    sp = to_sparse_tensor(sp_input)
    rank = sp.dense_shape.shape[0]
    axis = -1 if axis is None else int(axis)
    if rank is None and axis < 0:
        # Unknown rank: count the position from the end.
        k = -(axis + 1)
        before, after = (slice(None), slice(0, 0)) if k == 0 else \
            (slice(None, -k), slice(-k, None))
    else:
        pos = axis + rank + 1 if axis < 0 else axis
        before, after = slice(None, pos), slice(pos, None)
    n = shape_of(sp.indices, out_type=_I64)[:1]
    zeros = fill(concat([n, convert_to_tensor([1], dtype=_I64)], 0),
                 convert_to_tensor(0, dtype=_I64))
    idx = concat([sp.indices[:, before], zeros, sp.indices[:, after]], 1)
    shape = concat([sp.dense_shape[before], convert_to_tensor([1], dtype=_I64),
                    sp.dense_shape[after]], 0)
    static = sp.shape
    out = SparseTensor(idx, sp.values, shape)
    if static.rank is not None:
        dims = static.as_list()
        out._static_shape = TensorShape(dims[before] + [1] + dims[after])
    return out


@export("sparse.eye")
def eye(num_rows, num_columns=None, dtype=D.float32, name=None):
    """The `num_rows` x `num_columns` identity matrix as a SparseTensor."""
    rows = convert_to_tensor(num_rows, dtype=_I64)
    cols = rows if num_columns is None else convert_to_tensor(num_columns, dtype=_I64)
    diag = range_(dense_minimum(rows, cols), dtype=_I64)
    return SparseTensor(stack([diag, diag], axis=1), cast(ones([dense_minimum(rows, cols)]),
                                                          dtype), stack([rows, cols]))


@export("sparse.reduce_max")
def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum of `sp_input`'s entries along `axis` (all axes for None);
    positions without entries do not count, and empty groups give 0."""
    sp = to_sparse_tensor(sp_input)
    if output_is_sparse:
        return from_dense(reduce_max(sp, axis, keepdims))
    return apply(_SparseReduceMax, [sp.indices, sp.values, sp.dense_shape, _axes(sp, axis)],
                 {"keep_dims": bool(keepdims)}, name=name or "SparseReduceMax")


def _elementwise(opdef, sp_a, sp_b, name):
    a, b = to_sparse_tensor(sp_a), to_sparse_tensor(sp_b)
    idx, vals = apply(opdef, [a.indices, a.values, a.dense_shape, b.indices,
                              convert_to_tensor(b.values, dtype=a.dtype), b.dense_shape],
                      name=name, multi=True)
    return _with_shape(SparseTensor(idx, vals, a.dense_shape), a.shape)


@export("sparse.maximum")
def maximum(sp_a, sp_b, name=None):
    """The elementwise maximum of two SparseTensors of one shape (missing
    entries count as 0), at the union of their indices."""
    return _elementwise(_SparseMaximum, sp_a, sp_b, name or "SparseSparseMaximum")


@export("sparse.minimum")
def minimum(sp_a, sp_b, name=None):
    """The elementwise minimum of two SparseTensors of one shape (missing
    entries count as 0), at the union of their indices."""
    return _elementwise(_SparseMinimum, sp_a, sp_b, name or "SparseSparseMinimum")


@export("sparse.softmax")
def softmax(sp_input, name=None):
    """The softmax of each innermost row's entries (missing ones excluded)."""
    sp = to_sparse_tensor(sp_input)
    vals = apply(_SparseSoftmax, [sp.indices, sp.values, sp.dense_shape],
                 name=name or "SparseSoftmax")
    return _with_shape(SparseTensor(sp.indices, vals, sp.dense_shape), sp.shape)


@export("sparse.split")
def split(sp_input=None, num_split=None, axis=None, name=None):
    """`sp_input` split along `axis` into `num_split` SparseTensors (the first
    ones one larger when the size does not divide)."""
    sp = to_sparse_tensor(sp_input)
    n = int(num_split)
    outs = apply(_SparseSplit, [convert_to_tensor(axis, dtype=_I64), sp.indices, sp.values,
                                sp.dense_shape], {"num_split": n},
                 name=name or "SparseSplit", multi=True)
    return [SparseTensor(outs[k], outs[n + k], outs[2 * n + k]) for k in range(n)]


# --- segment reductions over selected rows (tf.sparse.segment_*) -------------------------

def _segment_kernel(mode):
    def kernel(data, indices, segment_ids, num_segments=None):
        indices = np.asarray(indices).reshape(-1)
        ids = np.asarray(segment_ids).reshape(-1)
        bad = np.nonzero((indices < 0) | (indices >= data.shape[0]))[0]
        if bad.size:
            # (TensorFlow's own wording.)
            raise errors.InvalidArgumentError(
                None, None, f"Bad: indices[{bad[0]}] == {indices[bad[0]]} out of range "
                f"[0, {data.shape[0]})")
        n = int(num_segments) if num_segments is not None else \
            (int(ids.max()) + 1 if ids.size else 0)
        out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
        np.add.at(out, ids, data[indices])
        if mode != "sum":
            out = (out * _inverse_scale(ids, n, mode, data.dtype, data.ndim)).astype(data.dtype)
        return out
    return kernel


def _inverse_scale(ids, n, mode, dtype, ndim):
    """1/count (mean) or 1/sqrt(count) (sqrt_n) per segment, in `dtype` (a
    multiplication by it rounds as TensorFlow's kernels do), shaped to
    broadcast over rows; empty segments get 1."""
    counts = np.bincount(ids, minlength=n).astype(dtype)
    scale = counts if mode == "mean" else np.sqrt(counts)
    scale = np.where(scale == 0, 1, scale).astype(dtype)
    return (np.ones((), dtype) / scale).reshape((n,) + (1,) * (ndim - 1))


def _segment_grad_kernel(mode):
    def kernel(grad, indices, segment_ids, output_dim0):
        indices = np.asarray(indices).reshape(-1)
        ids = np.asarray(segment_ids).reshape(-1)
        rows = grad[ids]
        if mode != "sum":
            scale = _inverse_scale(ids, grad.shape[0], mode, grad.dtype, grad.ndim)
            rows = rows * scale[ids]
        out = np.zeros((int(output_dim0),) + grad.shape[1:], dtype=grad.dtype)
        np.add.at(out, indices, rows.astype(grad.dtype))
        return out
    return kernel


def _segment_infer(inputs, attrs):
    data = inputs[0].shape
    rest = data[1:] if data.rank is not None else TensorShape(None)
    n = None
    if len(inputs) > 3:
        known = getattr(inputs[3], "_const", None)
        n = None if known is None else int(known)
    return [(TensorShape([n]).concatenate(rest), inputs[0].dtype)]


def _segment_grad(grad_op):
    def grad(op, g):
        data, indices, ids = op.inputs[:3]
        dim0 = shape_of(data, out_type=D.int32)[0]
        return [apply(grad_op, [g, indices, ids, dim0])] + [None] * (len(op.inputs) - 1)
    return grad


_SEGMENT_OPS = {}
for _mode, _name in (("sum", "Sum"), ("mean", "Mean"), ("sqrt_n", "SqrtN")):
    _g = register("SparseSegment%sGrad" % _name, _segment_grad_kernel(_mode),
                  lambda inputs, attrs: [(TensorShape(None), inputs[0].dtype)])
    _SEGMENT_OPS[_mode] = (
        register("SparseSegment" + _name, _segment_kernel(_mode), _segment_infer,
                 grad=_segment_grad(_g)),
        register("SparseSegment%sWithNumSegments" % _name, _segment_kernel(_mode),
                 _segment_infer, grad=_segment_grad(_g)))


def _segment(mode, data, indices, segment_ids, num_segments, name):
    data = convert_to_tensor(data)
    indices = convert_to_tensor(indices)
    ids = convert_to_tensor(segment_ids)
    plain, with_n = _SEGMENT_OPS[mode]
    if num_segments is None:
        return apply(plain, [data, indices, ids], name=name or plain.name)
    n = convert_to_tensor(num_segments, dtype=ids.dtype)
    return apply(with_n, [data, indices, ids, n], name=name or with_n.name)


@export("sparse.segment_sum", "compat.v1.sparse_segment_sum", "compat.v1.sparse.segment_sum")
def segment_sum(data, indices, segment_ids, num_segments=None, name=None,
                sparse_gradient=False):
    """Sums of the rows `data[indices]` by `segment_ids` (sorted); segments
    without rows are 0."""
    return _segment("sum", data, indices, segment_ids, num_segments, name)


@export("sparse.segment_mean", "compat.v1.sparse_segment_mean",
        "compat.v1.sparse.segment_mean")
def segment_mean(data, indices, segment_ids, num_segments=None, name=None,
                 sparse_gradient=False):
    """Means of the rows `data[indices]` by `segment_ids` (sorted)."""
    return _segment("mean", data, indices, segment_ids, num_segments, name)


@export("sparse.segment_sqrt_n", "compat.v1.sparse_segment_sqrt_n",
        "compat.v1.sparse.segment_sqrt_n")
def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None,
                   sparse_gradient=False):
    """Sums of the rows `data[indices]` by `segment_ids`, each divided by the
    square root of its number of rows."""
    return _segment("sqrt_n", data, indices, segment_ids, num_segments, name)


@export("sparse.reset_shape")
def reset_shape(sp_input, new_shape=None):
    """`sp_input` with dense shape `new_shape` (no smaller than the current
    one), or by default the tight bounding box of its indices.

    Raises:
      ValueError: (eagerly) if `new_shape` is smaller than the current shape.
    """
    from ..core.reduction_ops import reduce_max
    sp = to_sparse_tensor(sp_input)
    if new_shape is None:
        return SparseTensor(sp.indices, sp.values, reduce_max(sp.indices, axis=0) + 1)
    new = convert_to_tensor(new_shape, dtype=_I64)
    old = sp.dense_shape
    if new.__class__ is EagerTensor and old.__class__ is EagerTensor and \
            np.any(new._v < old._v):
        # (TensorFlow's message names the two shapes the other way round.)
        raise ValueError(f"Requested new_shape should have dimension sizes >= "
                         f"sp_input.shape.  Found new_shape ({old._v}), sp_input.shape "
                         f"({new._v}).")
    return SparseTensor(sp.indices, sp.values, new)


# --- compat.v1 names ---------------------------------------------------------------

def _export_v1_names():
    v2 = {"to_dense": O.to_dense, "reorder": O.reorder, "reshape": O.reshape,
          "sparse_dense_matmul": O.sparse_dense_matmul, "retain": A.retain, "slice": A.slice,
          "transpose": A.transpose, "to_indicator": A.to_indicator,
          "fill_empty_rows": A.fill_empty_rows, "maximum": maximum, "minimum": minimum,
          "softmax": softmax, "reset_shape": reset_shape, "expand_dims": expand_dims,
          "eye": eye, "from_dense": O.from_dense, "map_values": map_values}
    # (compat.v1 has no sparse_expand_dims and no sparse.map_values.)
    v1 = {"to_dense": "sparse_tensor_to_dense", "sparse_dense_matmul":
          "sparse_tensor_dense_matmul", "from_dense": None, "map_values": None, "eye": None,
          "expand_dims": None}
    for name, fn in v2.items():
        if name != "map_values":
            export_value(fn, "compat.v1.sparse." + name)
        old = v1.get(name, "sparse_" + name)
        if old is not None:
            export_value(fn, "compat.v1." + old)


_export_v1_names()
