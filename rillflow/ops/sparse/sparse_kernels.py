"""NumPy kernels of the sparse ops (sparse_ops.py): plain functions on the
component arrays (indices int64 [N, rank], values [N], dense_shape [rank]).

Entries are kept in the order TensorFlow's kernels give them: row-major
(canonical) order for ops whose output TensorFlow sorts.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors

_REORDER_HINT = ("Many sparse ops require sorted indices.\n"
                 "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n")


def _error(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _fmt(row):
    return "[" + ",".join(str(int(x)) for x in row) + "]"


def zero_of(dtype):
    """The default value of to_dense for `dtype` (0, False or b'')."""
    if dtype is D.string:
        return b""
    if dtype is D.bool_:
        return False
    return 0


def real_dtype(dtype):
    """The real dtype of `dtype` (a complex one's parts), for thresholds."""
    return dtype.real_dtype if dtype.is_complex else dtype


def _order(indices):
    """The stable permutation putting `indices` in row-major order."""
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def _check_sorted(indices, shape):
    """TensorFlow's SparseToDense validation: the first entry out of bounds,
    out of order or repeated."""
    n = indices.shape[0]
    if n == 0:
        return
    oob = np.any((indices < 0) | (indices >= shape), axis=1)
    diff = indices[1:] - indices[:-1]
    first_nz = np.argmax(diff != 0, axis=1)
    lead = diff[np.arange(n - 1), first_nz] if n > 1 else diff[:, 0]
    disorder = np.concatenate([[0], np.where(lead < 0, -1, np.where(lead == 0, 2, 0))])
    bad = np.nonzero(oob | (disorder != 0))[0]
    if not bad.size:
        return
    i = int(bad[0])
    row = _fmt(indices[i])
    if oob[i]:
        raise _error(f"indices[{i}] = {row} is out of bounds: need 0 <= index < {_fmt(shape)}")
    if disorder[i] < 0:
        raise _error(f"indices[{i}] = {row} is out of order. {_REORDER_HINT}")
    raise _error(f"indices[{i}] = {row} is repeated")


def to_dense(indices, output_shape, values, default_value, validate_indices=True):
    shape = tuple(int(d) for d in np.reshape(output_shape, -1))
    idx = np.asarray(indices, dtype=np.int64)
    if idx.ndim < 2:
        idx = idx.reshape(-1, 1) if len(shape) == 1 else idx.reshape(1, -1)
    if validate_indices:
        _check_sorted(idx, np.asarray(shape, dtype=np.int64))
    out = np.full(shape, default_value, dtype=values.dtype)
    if idx.shape[0]:
        out[tuple(idx.T)] = values
    return out


def reorder(indices, values, shape):
    perm = _order(indices)
    return [indices[perm], values[perm]]


def reorder_permutation(indices, shape):
    perm = _order(indices)
    inverse = np.empty(len(perm), dtype=np.int32)
    inverse[perm] = np.arange(len(perm), dtype=np.int32)
    return inverse


def _strides(shape):
    out = np.ones(len(shape), dtype=np.int64)
    for k in range(len(shape) - 2, -1, -1):
        out[k] = out[k + 1] * shape[k + 1]
    return out


def reshape(indices, input_shape, new_shape):
    total = int(np.prod(input_shape))
    new = np.array(new_shape, dtype=np.int64)
    unknown = np.nonzero(new == -1)[0]
    if unknown.size > 1:
        raise _error("only one output dimension may be -1, not both %d and %d"
                     % (unknown[0], unknown[1]))
    if unknown.size:
        known = int(np.prod(new[new != -1]))
        if known == 0 or total % known:
            raise _error(f"Input to reshape is a SparseTensor with {total} dense values, but "
                         f"the requested shape requires a multiple of {known}. "
                         f"input_shape={_shape_str(input_shape)} "
                         f"output_shape={_shape_str(new_shape)}")
        new[unknown[0]] = total // known
    elif int(np.prod(new)) != total:
        raise _error(f"Input to reshape is a tensor with {total} dense values, but the "
                     f"requested shape has {int(np.prod(new))}. "
                     f"input_shape={_shape_str(input_shape)} output_shape={_shape_str(new_shape)}")
    linear = indices @ _strides(input_shape) if indices.shape[1] else \
        np.zeros(indices.shape[0], dtype=np.int64)
    out = np.empty((indices.shape[0], len(new)), dtype=np.int64)
    for k, s in enumerate(_strides(new)):
        out[:, k] = linear // s
        linear = linear % s
    return [out, new]


def _shape_str(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _check_same_shape(a, b):
    if len(a) != len(b):
        raise _error(f"Operands do not have the same ranks; got shapes: {_shape_str(a)} "
                     f"and {_shape_str(b)}")
    for d in range(len(a)):
        if a[d] != b[d]:
            raise _error(f"Operands' shapes do not match: got {a[d]} and {b[d]} for "
                         f"dimension {d}")


def _keys(*index_sets):
    """One int key per row of each index set (rows equal across sets get equal keys)."""
    rows = np.concatenate(index_sets) if index_sets else np.zeros((0, 0), np.int64)
    if rows.shape[0] == 0:
        return [np.zeros(len(i), np.int64) for i in index_sets]
    _, inverse = np.unique(rows, axis=0, return_inverse=True)
    inverse = np.reshape(inverse, -1)
    out, pos = [], 0
    for i in index_sets:
        out.append(inverse[pos:pos + len(i)])
        pos += len(i)
    return out


def add(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    _check_same_shape(a_shape, b_shape)
    ka, kb = _keys(a_indices, b_indices)
    in_b = {int(k): j for j, k in enumerate(kb)}
    in_a = {int(k) for k in ka}
    idx, vals = [], []
    for i, k in enumerate(ka):
        j = in_b.get(int(k))
        if j is None:
            idx.append(a_indices[i])
            vals.append(a_values[i])
        else:
            s = a_values[i] + b_values[j]
            if np.abs(s) >= thresh:
                idx.append(a_indices[i])
                vals.append(s)
    for j, k in enumerate(kb):
        if int(k) not in in_a:
            idx.append(b_indices[j])
            vals.append(b_values[j])
    rank = len(a_shape)
    out_idx = np.array(idx, dtype=np.int64).reshape(-1, rank)
    out_vals = np.array(vals, dtype=a_values.dtype).reshape(-1)
    perm = _order(out_idx)
    return [out_idx[perm], out_vals[perm], np.array(a_shape, dtype=np.int64)]


def add_grad(grad, a_indices, b_indices, sum_indices):
    ka, kb, ks = _keys(a_indices, b_indices, sum_indices)
    where = {int(k): n for n, k in enumerate(ks)}
    zero = np.zeros((), grad.dtype)

    def pick(keys):
        return np.array([grad[where[int(k)]] if int(k) in where else zero for k in keys],
                        dtype=grad.dtype).reshape(-1)
    return [pick(ka), pick(kb)]


def dense_add(a_indices, a_values, a_shape, b):
    if len(a_shape) != b.ndim:
        raise _error(f"Dimensions must match: sparse has {len(a_shape)} dimensions, dense "
                     f"has {b.ndim}")
    for d, (x, y) in enumerate(zip(a_shape, b.shape)):
        if x != y:
            raise _error(f"Dimension {d} does not equal (no broadcasting is supported): "
                         f"sparse side {x} vs dense side {y}")
    out = np.array(b, copy=True)
    if a_indices.shape[0]:
        np.add.at(out, tuple(a_indices.T), a_values)
    return out


def _norm_axes(axes, rank):
    axes = [int(a) for a in np.reshape(axes, -1)]
    for a in axes:
        if not -rank <= a < rank:
            raise _error(f"Invalid reduction dimension {a}, for input with {rank} dimensions.")
    return sorted({a % rank for a in axes})


def reduce_sum(indices, values, shape, axes, keep_dims=False):
    shape = tuple(int(d) for d in shape)
    dense = np.zeros(shape, dtype=values.dtype)
    if indices.shape[0]:
        np.add.at(dense, tuple(indices.T), values)
    axes = tuple(_norm_axes(axes, len(shape)))
    return np.asarray(dense.sum(axis=axes, keepdims=bool(keep_dims), dtype=values.dtype))


def reduce_sum_sparse(indices, values, shape, axes, keep_dims=False):
    rank = len(shape)
    axes = _norm_axes(axes, rank)
    kept = [d for d in range(rank) if d not in axes]
    groups = indices[:, kept]
    if indices.shape[0]:
        uniq, inverse = np.unique(groups, axis=0, return_inverse=True)
    else:
        uniq, inverse = groups, np.zeros(0, np.int64)
    sums = np.zeros(len(uniq), dtype=values.dtype)
    np.add.at(sums, np.reshape(inverse, -1), values)
    if keep_dims:
        out = np.zeros((len(uniq), rank), dtype=np.int64)
        out[:, kept] = uniq
        out_shape = np.array([1 if d in axes else shape[d] for d in range(rank)], np.int64)
    else:
        out = uniq.astype(np.int64).reshape(len(uniq), len(kept))
        out_shape = np.array([shape[d] for d in kept], np.int64)
    return [out, sums, out_shape]


def reduced_shape(shape, axes):
    out = np.array(shape, dtype=np.int64)
    out[_norm_axes(axes, len(out))] = 1
    return out


def matmul(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False):
    if len(a_shape) != 2:
        raise _error("Tensor 'a_shape' must have 2 elements")
    if b.ndim != 2:
        raise _error("Tensor 'b' is not a matrix")
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    n_rows, inner = int(a_shape[0]), int(a_shape[1])
    vals = a_values
    if adjoint_a:
        rows, cols, n_rows, inner = cols, rows, inner, n_rows
        vals = np.conj(vals)
    bm = np.conj(b.T) if adjoint_b else b
    if bm.shape[0] != inner:
        raise _error(f"Cannot multiply A and B because inner dimension does not match: "
                     f"{inner} vs. {bm.shape[0]}.  Did you forget a transpose?  Dimensions "
                     f"of A: [{int(a_shape[0])}, {int(a_shape[1])}).  Dimensions of B: "
                     f"{_shape_str(b.shape)}")
    out = np.zeros((n_rows, bm.shape[1]), dtype=np.result_type(a_values.dtype, b.dtype))
    if len(rows):
        np.add.at(out, rows, vals[:, None] * bm[cols])
    return out.astype(b.dtype, copy=False)


def slice_(indices, values, shape, start, size):
    start = np.asarray(start, np.int64)
    end = np.minimum(start + np.asarray(size, np.int64), shape)
    keep = np.all((indices >= start) & (indices < end), axis=1)
    return [indices[keep] - start, values[keep], np.maximum(end - start, 0)]


def concat(*args, concat_dim, N, expand_nonconcat_dims=False):
    inds, vals, shapes = args[:N], args[N:2 * N], args[2 * N:]
    rank = len(shapes[0])
    axis = concat_dim % rank if -rank <= concat_dim < rank else None
    if axis is None:
        raise _error(f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    out_shape = np.array(shapes[0], dtype=np.int64)
    for pos, s in enumerate(shapes[1:], 1):
        if len(s) != rank:
            raise _error("Ranks of all input tensors must match")
        for d in range(rank):
            if d == axis:
                continue
            if expand_nonconcat_dims:
                out_shape[d] = max(out_shape[d], s[d])
            elif s[d] != out_shape[d]:
                raise _error(f"Input shapes must match: expected {out_shape[d]} for "
                             f"dimension {d} but got {s[d]} at position {pos}")
    parts, offset = [], 0
    for i, s in zip(inds, shapes):
        moved = np.array(i, dtype=np.int64)
        moved[:, axis] += offset
        parts.append(moved)
        offset += int(s[axis])
    out_shape[axis] = offset
    idx = np.concatenate(parts).reshape(-1, rank)
    values = np.concatenate(vals)
    perm = _order(idx)
    return [idx[perm], values[perm], out_shape]


def fill_empty_rows(indices, values, dense_shape, default_value):
    n_rows = int(dense_shape[0])
    empty = np.ones(n_rows, dtype=bool)
    empty[indices[:, 0]] = False
    rows = np.nonzero(empty)[0]
    extra = np.zeros((len(rows), indices.shape[1]), dtype=np.int64)
    extra[:, 0] = rows
    idx = np.concatenate([indices, extra])
    vals = np.concatenate([values, np.full(len(rows), default_value, dtype=values.dtype)])
    perm = np.argsort(idx[:, 0], kind="stable")
    where = np.empty(len(perm), dtype=np.int64)
    where[perm] = np.arange(len(perm))
    return [idx[perm], vals[perm], empty, where[:len(indices)]]


def slice_grad(grad, indices, start, out_indices):
    """The gradient of SparseSlice's values: each input entry's output
    gradient, 0 for entries the slice dropped."""
    ks = _keys(indices, out_indices + np.asarray(start, np.int64))
    where = {int(k): n for n, k in enumerate(ks[1])}
    out = np.zeros(len(indices), dtype=grad.dtype)
    for i, k in enumerate(ks[0]):
        n = where.get(int(k))
        if n is not None:
            out[i] = grad[n]
    return out


def softmax_grad(indices, y, grad):
    """The gradient of SparseSoftmax: (g - sum_row(g * y)) * y per innermost row."""
    out = np.empty_like(y)
    if not len(y):
        return out
    _, inverse = np.unique(indices[:, :-1], axis=0, return_inverse=True)
    inverse = np.reshape(inverse, -1)
    sums = np.zeros(inverse.max() + 1, dtype=y.dtype)
    np.add.at(sums, inverse, grad * y)
    return ((grad - sums[inverse]) * y).astype(y.dtype)


def _broadcast_at(indices, shape, dense):
    """The values of `dense` (broadcast to `shape`) at `indices`."""
    full = np.broadcast_to(dense, tuple(int(d) for d in shape))
    return full[tuple(indices.T)] if indices.shape[0] else np.zeros(0, dense.dtype)


def cwise_mul(indices, values, shape, dense):
    return (values * _broadcast_at(indices, shape, dense)).astype(values.dtype)


def cwise_div(indices, values, shape, dense):
    with np.errstate(all="ignore"):
        out = values / _broadcast_at(indices, shape, dense)
    if values.dtype.kind in "iu":
        out = values // _broadcast_at(indices, shape, dense)
    return out.astype(values.dtype)


def scaled_indices(indices, shape, dense_shape):
    """Where each entry reads a broadcast dense operand of `dense_shape`."""
    rank = len(dense_shape)
    idx = indices[:, indices.shape[1] - rank:] if rank else indices[:, :0]
    return np.where(np.asarray(dense_shape) == 1, 0, idx).astype(np.int64)
