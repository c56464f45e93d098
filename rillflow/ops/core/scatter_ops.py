"""Scatter, split, pad, repeat, unique and roll.

`scatter_nd` and the `tensor_scatter_nd_*` family write slices of `updates`
at the positions `indices` names (duplicates add, or the last one wins for
`update`); `split` cuts a tensor into pieces along an axis, `pad` grows one,
`repeat` repeats elements, `roll` rotates them and `unique` finds the
distinct elements of a vector in order of first appearance.
"""
import collections

import numpy as np

from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply, apply2
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text, shape_text
from . import array_ops as A
from . import op_util as U
from .array_ops import _convert_same_dtype, _partial_values
from .. import late

_INDEX_TYPES = U.INDEX


def _index_tensor(value, op_name, param, attr):
    """An int32/int64 tensor argument (Python ints become int32).

    Raises:
      InvalidArgumentError (eager) / TypeError (graph): for other dtypes.
    """
    if isinstance(value, Tensor) or hasattr(value, "_dense_var_to_tensor"):
        t = convert_to_tensor(value)
    elif isinstance(value, (list, tuple)) and not value:
        t = constant_value_tensor(np.zeros(0, np.int32))
    else:
        t = A._int_list_tensor(value)
        if t is None:
            t = convert_to_tensor(value)
    if t.dtype not in _INDEX_TYPES:
        raise U.dtype_error(op_name, t.dtype, U.INDEX, attr, param)
    return t


def _iota(n, dtype=D.int32):
    """0, 1, ..., n-1 as a tensor; `n` is an int or a scalar tensor."""
    if isinstance(n, (int, np.integer)):
        return constant_value_tensor(np.arange(int(n), dtype=dtype._np))
    v = U.constant_value(n)
    if v is not None:
        return constant_value_tensor(np.arange(int(v), dtype=dtype._np))
    return late.range(n, dtype=dtype)


def _dim(x, axis):
    """The size of `x` along the non-negative `axis`: an int when known,
    else a scalar int32 tensor."""
    if x.shape.rank is not None and x.shape[axis] is not None:
        return x.shape[axis]
    r = x.shape.rank
    if r is not None:
        mask = np.zeros(r, np.int32)
        mask[axis] = 1
        return late.reduce_sum(A.shape(x) * convert_to_tensor(mask))
    return late.reduce_sum(A.shape(x) * A.one_hot_axis(axis, A.rank(x)))


# --- scatter_nd and tensor_scatter_nd_* ---------------------------------------

def _check_indices(idx, shape, op_name, depth):
    """Raises TensorFlow's error for the first index row outside `shape`."""
    if not idx.size:
        return
    bound = np.asarray(shape[:depth], dtype=np.int64)
    bad = np.any((idx < 0) | (idx >= bound), axis=-1)
    if np.any(bad):
        pos = np.argwhere(bad)[0]
        where = ",".join(str(int(p)) for p in pos)
        row = ", ".join(str(int(v)) for v in idx[tuple(pos)])
        raise U.op_error(op_name, f"indices[{where}] = [{row}] does not index into shape "
                                  f"{dims_text(shape)}")


def _scatter_into(out, indices, updates, op_name, mode, policy=""):
    """Writes `updates` into the array `out` (in place) at `indices`; rows
    outside `out` raise, or are skipped with `policy` "IGNORE"."""
    depth = indices.shape[-1]
    idx = indices.astype(np.int64, copy=False)
    n = int(np.prod(indices.shape[:-1]))
    flat_idx = idx.reshape(n, depth)
    upd = updates.reshape((n,) + out.shape[depth:])
    if policy.upper() == "IGNORE":
        ok = np.all((flat_idx >= 0) & (flat_idx < np.asarray(out.shape[:depth], np.int64)),
                    axis=-1)
        if not ok.all():
            flat_idx, upd = flat_idx[ok], upd[ok]
            n = len(flat_idx)
    else:
        _check_indices(idx, out.shape, op_name, depth)
    key = tuple(flat_idx.T)
    if mode == "update":
        if n:
            out[key] = upd
    elif mode == "add":
        if out.dtype.kind in "bO":
            for i in range(n):
                k = tuple(flat_idx[i])
                out[k] = out[k] + upd[i] if out.dtype.kind == "O" else out[k] | upd[i]
        else:
            np.add.at(out, key, upd)
    elif mode == "sub":
        np.subtract.at(out, key, upd)
    else:
        # TensorFlow keeps an existing value unless an update is strictly
        # larger (smaller): NaN updates are ignored and NaN entries stay.
        was_nan = np.isnan(out) if out.dtype.kind in "fc" else None
        (np.fmax if mode == "max" else np.fmin).at(out, key, upd)
        if was_nan is not None and was_nan.any():
            out[was_nan] = np.nan
    return out


def _scatter_nd_check(indices, updates, shape, op_name):
    """TensorFlow's runtime checks of ScatterNd's argument shapes."""
    ishape, ushape = indices.shape, updates.shape
    slice_dim = ishape[-1]
    batch_dim = len(ishape) - 1
    prefix = (f"Dimensions [0,{batch_dim}) of indices[shape={dims_text(ishape)}] must match "
              f"dimensions [0,{batch_dim}) of updates[shape={dims_text(ushape)}]")
    suffix = (f"Dimensions [{slice_dim},{len(shape)}) of input[shape={dims_text(shape)}] must "
              f"match dimensions [{batch_dim},{len(ushape)}) of updates[shape={dims_text(ushape)}]")
    if len(ushape) < batch_dim or any(ushape[d] != ishape[d] for d in range(batch_dim)):
        raise U.op_error(op_name, prefix)
    if len(shape) < slice_dim + len(ushape) - batch_dim or \
            len(ushape) != batch_dim + len(shape) - slice_dim:
        raise U.op_error(op_name, suffix)
    for d in range(len(ushape) - batch_dim):
        if ushape[d + batch_dim] != shape[d + slice_dim]:
            raise U.op_error(op_name, suffix)


def _scatter_nd_kernel(indices, updates, shape, bad_indices_policy=""):
    op = "ScatterNd"
    if indices.ndim < 1:
        raise U.op_error(op, f"Indices shape must have rank at least one. Found:"
                             f"{dims_text(indices.shape)}")
    if shape.ndim != 1:
        raise U.op_error(op, "Shape must be a vector")
    dims = [int(d) for d in shape]
    for d in dims:
        if d < 0:
            raise U.op_error(op, f"Dimension {d} must be >= 0")
    n = int(np.prod(indices.shape[:-1]))
    if n and (not dims or indices.shape[-1] == 0):
        raise U.op_error(op, "Indices and updates specified for empty output shape")
    if n and int(np.prod(dims)) == 0:
        raise U.op_error(op, f"Indices and updates specified for empty output.  indices shape: "
                             f"{dims_text(indices.shape)}")
    _scatter_nd_check(indices, updates, dims, op)
    if updates.dtype.kind == "O":
        out = np.empty(dims, dtype=object)
        out.fill(b"")
    else:
        out = np.zeros(dims, dtype=updates.dtype)
    return _scatter_into(out, indices, updates, op, "add", bad_indices_policy)


def _scatter_shapes(indices, updates, out_shape):
    """Graph-time check that indices, updates and the output shape agree."""
    ishape, ushape = indices.shape, updates.shape
    if ishape.rank is None or ushape.rank is None or out_shape.rank is None:
        return
    if ishape.rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {ishape.rank}")
    ix = ishape[-1]
    if ix is None:
        return
    outer = ishape.rank - 1
    ipre, upre = TensorShape(ishape.as_list()[:outer]), TensorShape(ushape.as_list()[:outer])
    if ushape.rank < outer or not ipre.is_compatible_with(upre):
        raise ValueError(f"Dimensions [0,{outer}) of indices[shape={shape_text(ishape)}] = "
                         f"{shape_text(ipre)} must match dimensions [0,{outer}) of updates[shape="
                         f"{shape_text(ushape)}] = {shape_text(upre)}{_merge_detail(ipre, upre)}")
    osuf = TensorShape(out_shape.as_list()[ix:]) if ix <= out_shape.rank else None
    usuf = TensorShape(ushape.as_list()[outer:])
    if osuf is None or not osuf.is_compatible_with(usuf):
        raise ValueError(f"Dimensions [{ix},{out_shape.rank}) of input[shape="
                         f"{shape_text(out_shape)}] = {shape_text(osuf) if osuf else '[]'} must "
                         f"match dimensions [{outer},{ushape.rank}) of updates[shape="
                         f"{shape_text(ushape)}] = {shape_text(usuf)}"
                         f"{_merge_detail(osuf, usuf) if osuf else ''}")


def _merge_detail(a, b):
    """Why two partial shapes do not merge, as TensorFlow explains it."""
    if a.rank != b.rank:
        return f": Shapes must be equal rank, but are {a.rank} and {b.rank}"
    for i, (x, y) in enumerate(zip(a, b)):
        if x is not None and y is not None and x != y:
            return (f": Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                    f"Shapes are {shape_text(a)} and {shape_text(b)}.")
    return ""


def _scatter_nd_infer(inputs, attrs):
    indices, updates, shape = inputs
    if shape.shape.rank is not None and shape.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {shape.shape.rank}")
    out = A._shape_from_tensor(shape)
    _scatter_shapes(indices, updates, out)
    return [(out, updates.dtype)]


def _gather_nd(params, indices):
    return late.gather_nd(params, indices)


def _scatter_nd_grad(op, g):
    indices = op.inputs[0]
    return [None, _gather_nd(g, indices), None]


_ScatterNd = register("ScatterNd", _scatter_nd_kernel, _scatter_nd_infer, _scatter_nd_grad)


@export("scatter_nd", "compat.v1.scatter_nd")
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A new tensor of `shape` (zeros elsewhere) with `updates` added at `indices`.

    `indices` has shape [..., K]: each row names an element (K = rank of
    `shape`) or a slice (K smaller); `updates` has shape
    `indices.shape[:-1] + shape[K:]`. Duplicate indices add up. With
    `bad_indices_policy="IGNORE"` out-of-range rows are skipped.

    Raises:
      InvalidArgumentError: for out-of-range indices or mismatched shapes.
    """
    if isinstance(indices, (list, tuple)) and not indices:
        indices = np.zeros((0,), np.int32)
    i, s = _convert_same_dtype([indices, shape], "ScatterNd")
    if i.dtype not in _INDEX_TYPES:
        raise U.dtype_error("ScatterNd", i.dtype, U.INDEX, "Tindices", "indices")
    u = convert_to_tensor(updates)
    return apply(_ScatterNd, [i, u, s], {"bad_indices_policy": bad_indices_policy},
                 name=name or "ScatterNd")


def _tensor_scatter_kernel(mode, op_name):
    def kernel(tensor, indices, updates, bad_indices_policy=""):
        if indices.ndim < 1:
            raise U.op_error(op_name, f"Indices shape must have rank at least one. Found:"
                                      f"{dims_text(indices.shape)}")
        if updates.ndim < 1:
            raise U.op_error(op_name, f"Updates shape must have rank at least one. Found:"
                                      f"{dims_text(updates.shape)}")
        if indices.ndim == 1:
            # TensorFlow's kernels reject 1-D indices (one index row must
            # still be given as [[i]]).
            if updates.shape[0] != indices.shape[0]:
                raise U.op_error(op_name, f"Dimensions [0,1) of indices[shape="
                                          f"{dims_text(indices.shape)}] = {indices.shape[0]} "
                                          f"must match dimensions [0,1) of updates[shape="
                                          f"{dims_text(updates.shape)}] = {updates.shape[0]}")
            raise U.op_error(op_name, f"Inner dimensions of output shape must match inner "
                                      f"dimensions of updates shape. Output: "
                                      f"{dims_text(tensor.shape)} updates: "
                                      f"{dims_text(updates.shape)}")
        outer = indices.ndim - 1
        for i in range(outer):
            if i >= updates.ndim or indices.shape[i] != updates.shape[i]:
                raise U.op_error(op_name, f"Outer dimensions of indices and update must match. "
                                          f"Indices shape: {dims_text(indices.shape)}, "
                                          f"updates shape:{dims_text(updates.shape)}")
        ix = indices.shape[-1]
        if updates.ndim - outer != tensor.ndim - ix:
            raise U.op_error(op_name, f"Inner dimensions of output shape must match inner "
                                      f"dimensions of updates shape. Output: "
                                      f"{dims_text(tensor.shape)} updates: "
                                      f"{dims_text(updates.shape)}")
        for i in range(updates.ndim - outer):
            if updates.shape[i + outer] != tensor.shape[ix + i]:
                raise U.op_error(op_name, f"The inner {tensor.ndim - ix} dimensions of "
                                          f"output.shape={dims_text(tensor.shape)} must match "
                                          f"the inner {updates.ndim - outer} dimensions of "
                                          f"updates.shape="
                                          f"{dims_text(updates.shape)}")
        n = int(np.prod(indices.shape[:-1]))
        if n and (tensor.size == 0 or ix == 0):
            raise U.op_error(op_name, "Indices and updates specified for empty output shape")
        return _scatter_into(tensor.copy(), indices, updates, op_name, mode,
                             bad_indices_policy)
    return kernel


def _tensor_scatter_infer(op_name):
    def infer(inputs, attrs):
        tensor, indices, updates = inputs
        if tensor.dtype is not updates.dtype:
            raise TypeError(f"Input 'updates' of '{op_name}' Op has type {updates.dtype.name} "
                            f"that does not match type {tensor.dtype.name} of argument 'tensor'.")
        if updates.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        _scatter_shapes(indices, updates, tensor.shape)
        return [(tensor.shape, tensor.dtype)]
    return infer


def _tsu_grad(op, g):
    _, indices, updates = op.inputs
    return [tensor_scatter_nd_update(g, indices, A.zeros_like(updates)), None,
            _gather_nd(g, indices)]


def _tsa_grad(op, g):
    return [g, None, _gather_nd(g, op.inputs[1])]


def _tss_grad(op, g):
    return [g, None, late.negative(_gather_nd(g, op.inputs[1]))]


def _ts_minmax_grad(op, g):
    tensor, indices, updates = op.inputs
    out = op.outputs[0]
    # The gradient goes to every value equal to the result, shared equally
    # between ties (the kept tensor value and the winning updates).
    kept = late.cast(late.equal(tensor, out), g.dtype)
    won = late.cast(late.equal(updates, _gather_nd(out, indices)), g.dtype)
    count = kept + scatter_nd(indices, won, A.shape(tensor, out_type=indices.dtype))
    share = g / count
    return [share * kept, None, _gather_nd(share, indices) * won]


_TSCATTER_ALLOWED = {"update": None, "add": U.NUMERIC, "sub": U.NUMERIC, "max": U.REAL,
                     "min": U.REAL}


def _make_tensor_scatter(op_name, mode, grad):
    return register(op_name, _tensor_scatter_kernel(mode, op_name),
                    _tensor_scatter_infer(op_name), grad, allowed=_TSCATTER_ALLOWED[mode])


_TensorScatterUpdate = _make_tensor_scatter("TensorScatterUpdate", "update", _tsu_grad)
_TensorScatterAdd = _make_tensor_scatter("TensorScatterAdd", "add", _tsa_grad)
_TensorScatterSub = _make_tensor_scatter("TensorScatterSub", "sub", _tss_grad)
_TensorScatterMax = _make_tensor_scatter("TensorScatterMax", "max", _ts_minmax_grad)
_TensorScatterMin = _make_tensor_scatter("TensorScatterMin", "min", _ts_minmax_grad)


def _tensor_scatter(opdef, tensor, indices, updates, name, policy=""):
    t, u = _convert_same_dtype(
        [tensor, updates], opdef.name, first_input=[0, 2],
        mismatch=lambda i, ds: TypeError(
            f"Input 'updates' of '{opdef.name}' Op has type {ds[1].name} that does not match "
            f"type {ds[0].name} of argument 'tensor'."))
    i = _index_tensor(indices, opdef.name, "indices", "Tindices")
    if executing_eagerly() and opdef.allowed_np is not None and t._v.dtype not in opdef.allowed_np:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {opdef.name}}}}} = "
            f"{opdef.name}[T=DT_{t.dtype.name.upper()}, Tindices=DT_{i.dtype.name.upper()}] "
            f"[Op:{opdef.name}]")
    return apply(opdef, [t, i, u], {"bad_indices_policy": policy}, name=name or opdef.name)


@export("tensor_scatter_nd_update", "compat.v1.tensor_scatter_update")
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with the elements or slices at `indices` replaced
    by `updates` (for duplicate indices the last update wins)."""
    return _tensor_scatter(_TensorScatterUpdate, tensor, indices, updates, name)


@export("tensor_scatter_nd_add", "compat.v1.tensor_scatter_add")
def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of `tensor` with `updates` added at `indices` (duplicates add up)."""
    return _tensor_scatter(_TensorScatterAdd, tensor, indices, updates, name,
                           bad_indices_policy)


@export("tensor_scatter_nd_sub", "compat.v1.tensor_scatter_sub")
def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of `tensor` with `updates` subtracted at `indices`."""
    return _tensor_scatter(_TensorScatterSub, tensor, indices, updates, name,
                           bad_indices_policy)


@export("tensor_scatter_nd_max")
def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of `tensor` where each indexed element becomes the maximum of
    itself and its updates."""
    return _tensor_scatter(_TensorScatterMax, tensor, indices, updates, name,
                           bad_indices_policy)


@export("tensor_scatter_nd_min")
def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """A copy of `tensor` where each indexed element becomes the minimum of
    itself and its updates."""
    return _tensor_scatter(_TensorScatterMin, tensor, indices, updates, name,
                           bad_indices_policy)


# --- split -------------------------------------------------------------------

def _split_axis(value, axis, op_name):
    r = value.ndim
    if not -r <= axis < r:
        raise U.op_error(op_name, f"-input rank(-{r}) <= split_dim < input rank ({r}), but got "
                                  f"{axis}")
    return axis % r


def _split_kernel(split_dim, value, num_split):
    a = _split_axis(value, int(split_dim), "Split")
    n = value.shape[a]
    if n % num_split:
        raise U.op_error("Split", f"Number of ways to split should evenly divide the split "
                                  f"dimension, but got split_dim {a} (size = {n}) and num_split "
                                  f"{num_split}")
    step = n // num_split
    return _cut(value, a, [step] * num_split)


def _cut(value, axis, sizes):
    """Consecutive pieces of `value` along `axis` with the given sizes."""
    out = []
    start = 0
    head = (slice(None),) * axis
    for size in sizes:
        out.append(value[head + (slice(start, start + size),)])
        start += size
    return out


def _static_split_axis(value, split_dim, num):
    """The split axis of Split/SplitV while building a graph, as `(axis, None)`,
    or `(None, output shapes)` when the axis or the rank is not known."""
    s = value.shape
    a = U.constant_value(split_dim)
    if s.rank is None:
        return None, [(TensorShape(None), value.dtype)] * num
    if a is None:
        return None, [(TensorShape([None] * s.rank), value.dtype)] * num
    a = int(a)
    if not -s.rank <= a < s.rank:
        raise ValueError(f"Dimension must be in range [{-s.rank}, {s.rank}), but is {a}")
    return a % s.rank, None


def _split_infer(inputs, attrs):
    split_dim, value = inputs
    num = attrs["num_split"]
    s = value.shape
    a, unknown = _static_split_axis(value, split_dim, num)
    if unknown is not None:
        return unknown
    dims = s.as_list()
    if dims[a] is not None:
        if dims[a] % num:
            raise ValueError(f"Dimension size must be evenly divisible by {num} but is "
                             f"{dims[a]}")
        dims[a] //= num
    return [(TensorShape(dims), value.dtype)] * num


def _split_grad(op, *grads):
    split_dim, value = op.inputs
    gs = [g if g is not None else A.zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [None, A.concat(gs, split_dim)]


_Split = register("Split", _split_kernel, _split_infer, _split_grad)


def _resolve_sizes(sizes, n):
    """Split sizes with the one -1 filled in (runtime check)."""
    sizes = np.reshape(sizes, -1).tolist()
    neg = [i for i, v in enumerate(sizes) if v == -1]
    if len(neg) > 1:
        raise U.op_error("SplitV", "There can only be one -1 in the input.")
    for i, v in enumerate(sizes):
        if v < -1:
            raise U.op_error("SplitV", f"Split size at index {i} must be >= 0. Got: {v}")
    total = sum(v for v in sizes if v != -1)
    if (neg and total > n) or (not neg and total != n):
        raise U.op_error("SplitV", "Determined shape must either match input shape along "
                                   "split_dim exactly if fully specified, or be less than the "
                                   "size of the input along split_dim if not fully specified.  "
                                   f"Got: {total}")
    if neg:
        sizes[neg[0]] = n - total
    return sizes


def _splitv_kernel(value, size_splits, split_dim, num_split):
    if size_splits.ndim != 1 or size_splits.size != num_split:
        raise U.op_error("SplitV", f"size of the split_tensor must be 1-D and have the same "
                                   f"elements as outputs got {size_splits.ndim} -D and "
                                   f"{size_splits.size} elements")
    a = _split_axis(value, int(split_dim), "SplitV")
    return _cut(value, a, _resolve_sizes(size_splits, value.shape[a]))


def _splitv_infer(inputs, attrs):
    value, size_splits, split_dim = inputs
    num = attrs["num_split"]
    s = value.shape
    if size_splits.shape.rank is not None and size_splits.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {size_splits.shape.rank}")
    a, unknown = _static_split_axis(value, split_dim, num)
    if unknown is not None:
        return unknown
    sizes = _partial_values(size_splits)
    if sizes is None:
        sizes = [None] * num
    if len(sizes) != num:
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {len(sizes)} "
                         f"and {num}")
    n = s[a]
    if sizes.count(-1) > 1:
        raise ValueError("Cannot infer split size: more than one -1 in size_splits")
    known = [v for v in sizes if v is not None and v != -1]
    if n is not None and None not in sizes:
        total = sum(known)
        if -1 in sizes:
            i = sizes.index(-1)
            if total > n:
                raise ValueError(f"Split size at index {i} must be >= 0. Got: {n - total}")
            sizes = [n - total if v == -1 else v for v in sizes]
        elif total != n:
            raise ValueError(f"can't split axis of size {n} into pieces of size "
                             f"[{','.join(str(v) for v in sizes)}]")
    out = []
    for v in sizes:
        dims = s.as_list()
        dims[a] = None if v is None or v == -1 else v
        out.append((TensorShape(dims), value.dtype))
    return out


def _splitv_grad(op, *grads):
    value, _, split_dim = op.inputs
    gs = [g if g is not None else A.zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [A.concat(gs, split_dim), None, None]


_SplitV = register("SplitV", _splitv_kernel, _splitv_infer, _splitv_grad)


@export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits `value` along `axis` into `num_or_size_splits` equal pieces
    (an int), or pieces of the given sizes (a list or 1-D tensor; one size
    may be -1, meaning the rest).

    Raises:
      ValueError: if the number of pieces cannot be known while building.
      InvalidArgumentError: if the sizes do not fit the dimension.
    """
    x = convert_to_tensor(value)
    if isinstance(axis, float):
        convert_to_tensor(axis, dtype=D.int32)  # raises TypeError, as TensorFlow does
    a = A._index_input(axis, "Split", "split_dim", "Tidx")
    if isinstance(num_or_size_splits, (int, np.integer)) and \
            not isinstance(num_or_size_splits, bool):
        n = int(num_or_size_splits)
        if n < 1:
            msg = f"Value for attr 'num_split' of {n} must be at least minimum 1"
            if executing_eagerly():
                raise U.op_error("Split", msg + "\n\t; NodeDef: {{node Split}}")
            raise ValueError(msg)
        return apply(_Split, [a, x], {"num_split": n}, name=name, multi=True)
    sizes = num_or_size_splits
    if sizes.__class__ is list or sizes.__class__ is tuple:
        fast = A._int_list_tensor(sizes)
        if fast is not None:
            sizes = fast
    if not isinstance(sizes, Tensor):
        arr = np.asarray(sizes) if not isinstance(sizes, (list, tuple)) else None
        if arr is not None and arr.ndim == 0:
            raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits "
                             f"argument to split. Argument provided: {sizes}")
        sizes = convert_to_tensor(sizes)
    U.check_dtype("SplitV", sizes, (D.int8, D.int32, D.int64), "Tlen", "size_splits")
    if sizes.shape.rank == 0:
        raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        s = sizes.shape
        num = s[0] if s.rank == 1 else (s.num_elements() if s.is_fully_defined() else None)
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    return apply(_SplitV, [x, sizes, a], {"num_split": int(num)}, name=name, multi=True)


# --- pad ---------------------------------------------------------------------

_PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def _check_paddings(x, paddings, op_name):
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise U.op_error(op_name, f"paddings must be a matrix with 2 columns: "
                                  f"{dims_text(paddings.shape)}")
    if paddings.shape[0] != x.ndim:
        raise U.op_error(op_name, f"The first dimension of paddings must be the rank of inputs"
                                  f"{dims_text(paddings.shape)} {dims_text(x.shape)}")
    pads = [(a, b) for a, b in paddings.tolist()]
    for a, b in pads:
        if a < 0 or b < 0:
            raise U.op_error(op_name, f"Paddings must be non-negative: {a} {b}")
    return pads


def _constant_pad(x, pads, value):
    out = np.empty([a + n + b for (a, b), n in zip(pads, x.shape)], dtype=x.dtype)
    out.fill(value)
    out[tuple(slice(a, a + n) for (a, _), n in zip(pads, x.shape))] = x
    return out


def _pad_kernel(x, paddings):
    pads = _check_paddings(x, paddings, "Pad")
    return _constant_pad(x, pads, b"" if x.dtype.kind == "O" else 0)


def _padv2_kernel(x, paddings, constant_values):
    pads = _check_paddings(x, paddings, "PadV2")
    if constant_values.ndim != 0:
        raise U.op_error("PadV2", f"constant_values must be a scalar. Found: "
                                  f"{dims_text(constant_values.shape)}")
    return _constant_pad(x, pads, constant_values[()])


def _mirror_pad_kernel(x, paddings, mode):
    pads = _check_paddings(x, paddings, "MirrorPad")
    offset = 1 if mode == "REFLECT" else 0
    for (a, b), n in zip(pads, x.shape):
        if offset and (a >= n or b >= n):
            raise U.op_error("MirrorPad", f"paddings must be less than the dimension size: {a}, "
                                          f"{b} not less than {n}")
        if not offset and (a > n or b > n):
            raise U.op_error("MirrorPad", f"paddings must be no greater than the dimension "
                                          f"size: {a}, {b} greater than {n}")
    return np.pad(x, pads, mode="reflect" if offset else "symmetric")


def _pad_infer(op_name):
    def infer(inputs, attrs):
        x, p = inputs[0], inputs[1]
        U.check_graph_dtype(p, _INDEX_TYPES, "paddings")
        if len(inputs) == 3:
            c = inputs[2]
            if c.dtype is not x.dtype:
                raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type "
                                f"{c.dtype.name} that does not match type {x.dtype.name} of "
                                "argument 'input'.")
            if c.shape.rank is not None and c.shape.rank != 0:
                raise ValueError(f"Shape must be rank 0 but is rank {c.shape.rank}")
        ps = p.shape
        if ps.rank is not None:
            if ps.rank != 2:
                raise ValueError(f"Shape must be rank 2 but is rank {ps.rank}")
            if ps[1] is not None and ps[1] != 2:
                raise ValueError(f"Dimension 1 in both shapes must be equal, but are {ps[1]} "
                                 "and 2")
        r = x.shape.rank
        if r is None and ps.rank == 2 and ps[0] is not None:
            r = ps[0]
        if r is None:
            return [(TensorShape(None), x.dtype)]
        if ps.rank == 2 and ps[0] is not None and ps[0] != r:
            raise ValueError(f"Shape must be rank {ps[0]} but is rank {r}")
        vals = U.constant_value(p)
        in_dims = x.shape.as_list() if x.shape.rank is not None else [None] * r
        if vals is None:
            return [(TensorShape([None] * r), x.dtype)]
        vals = np.reshape(vals, (r, 2))
        dims = []
        for d, (a, b) in zip(in_dims, vals):
            a, b = int(a), int(b)
            if a < 0 or b < 0:
                raise ValueError(f"The {len(dims)}-th dimension must be non-negative: "
                                 f"[{a}, {b}]")
            dims.append(None if d is None else d + a + b)
        return [(TensorShape(dims), x.dtype)]
    return infer


def _paddings_begin(p):
    """The before-paddings (column 0 of the [rank, 2] paddings)."""
    return A.unstack(p, num=2, axis=1)[0]


def _crop(g, begin, x):
    """The part of `g` starting at `begin` with the shape of `x` (the
    adjoint of padding), cut with splits along each axis."""
    r = x.shape.rank
    b = U.constant_value(begin)
    if r is not None and b is not None and x.shape.is_fully_defined():
        for axis, (start, n) in enumerate(zip(np.reshape(b, -1), x.shape.as_list())):
            start = int(start)
            if start == 0 and g.shape[axis] == n:
                continue
            g = split(g, [start, n, -1], axis=axis, num=3)[1]
        return g
    if r is None:
        return late.slice(g, begin, A.shape(x, out_type=begin.dtype))
    starts = A.unstack(begin, num=r)
    for axis in range(r):
        n = late.cast(_dim(x, axis), begin.dtype)
        g = split(g, A.stack([starts[axis], n, late.cast(-1, begin.dtype)]), axis=axis, num=3)[1]
    return g


def _pad_grad(op, g):
    x, p = op.inputs[0], op.inputs[1]
    grads = [_crop(g, _paddings_begin(p), x), None]
    if len(op.inputs) == 3:
        grads.append(late.subtract(late.reduce_sum(g), late.reduce_sum(grads[0])))
    return grads


def _mirror_pad_grad(op, g):
    x, p = op.inputs
    return [_mirror_pad_grad_op(g, p, op.get_attr("mode")), None]


_Pad = register("Pad", _pad_kernel, _pad_infer("Pad"), _pad_grad)
_PadV2 = register("PadV2", _padv2_kernel, _pad_infer("PadV2"), _pad_grad)
_MirrorPad = register("MirrorPad", _mirror_pad_kernel, _pad_infer("MirrorPad"),
                      _mirror_pad_grad)


def _mirror_pad_grad_kernel(g, paddings, mode):
    """Folds the mirrored borders of `g` back onto the elements they copy."""
    offset = 1 if mode == "REFLECT" else 0
    out = g
    for axis, (a, b) in enumerate(paddings):
        a, b = int(a), int(b)
        n = out.shape[axis] - a - b
        moved = np.moveaxis(out, axis, 0)
        core = moved[a:a + n].copy()
        if a:
            # Border element i (counting outwards from the core) copies core
            # element i - 1 + offset.
            left = moved[:a][::-1]
            core[offset:offset + a] += left
        if b:
            right = moved[a + n:]
            core[n - offset - b:n - offset] += right[::-1]
        out = np.moveaxis(core, 0, axis)
    return np.ascontiguousarray(out)


def _mirror_pad_grad_infer(inputs, attrs):
    g, p = inputs
    vals = U.constant_value(p)
    if g.shape.rank is None:
        return [(TensorShape(None), g.dtype)]
    if vals is None:
        return [(TensorShape([None] * g.shape.rank), g.dtype)]
    vals = np.reshape(vals, (-1, 2))
    return [(TensorShape([None if d is None else d - int(a) - int(b)
                          for d, (a, b) in zip(g.shape.as_list(), vals)]), g.dtype)]


_MirrorPadGrad = register(
    "MirrorPadGrad", _mirror_pad_grad_kernel, _mirror_pad_grad_infer,
    lambda op, gg: [apply(_MirrorPad, [gg, op.inputs[1]], {"mode": op.get_attr("mode")},
                          name="MirrorPad"), None])


def _mirror_pad_grad_op(g, p, mode):
    return apply(_MirrorPadGrad, [g, p], {"mode": mode}, name="MirrorPadGrad")


@export("pad")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads `tensor`: `paddings[d] = [before, after]` elements are added
    along each dimension d, filled with `constant_values` (mode CONSTANT)
    or mirrored from the tensor (REFLECT excludes the edge, SYMMETRIC
    repeats it). `mode` is case-insensitive.

    Raises:
      ValueError: for an unknown mode.
      InvalidArgumentError: for bad paddings.
    """
    m = str(mode).upper()
    if m not in _PAD_MODES:
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')
    x = convert_to_tensor(tensor)
    p = _index_tensor(paddings, "Pad" if m == "CONSTANT" else "MirrorPad", "paddings",
                      "Tpaddings")
    if m == "CONSTANT":
        if not (isinstance(constant_values, Tensor) or hasattr(constant_values,
                                                               "_dense_var_to_tensor")) \
                and np.ndim(constant_values) == 0 and _is_zero(constant_values):
            return apply2(_Pad, x, p, name=name or "Pad")
        c = _convert_same_dtype([x, constant_values], "PadV2", first_input=0)[1] \
            if not isinstance(constant_values, Tensor) else convert_to_tensor(constant_values)
        if c.dtype is not x.dtype:
            if executing_eagerly():
                raise U.op_error("PadV2", f"cannot compute PadV2 as input #2(zero-based) was "
                                          f"expected to be a {U.tf_type_name(x.dtype)} tensor but "
                                          f"is a {U.tf_type_name(c.dtype)} tensor")
            raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type {c.dtype.name} "
                            f"that does not match type {x.dtype.name} of argument 'input'.")
        return apply(_PadV2, [x, p, c], name=name or "PadV2")
    return apply(_MirrorPad, [x, p], {"mode": m}, name=name or "MirrorPad")


def _is_zero(v):
    try:
        return bool(v == 0) and not isinstance(v, (str, bytes))
    except (TypeError, ValueError):
        return False


# --- repeat ------------------------------------------------------------------
# TensorFlow builds `repeat` from several ops; here it is one op, `Repeat`
# (one kernel call eagerly), with input `repeats` and attr `axis`.

def _repeat_kernel(x, repeats, axis):
    r = np.reshape(repeats, -1) if repeats.ndim else repeats
    if np.any(r < 0):
        raise U.op_error("Repeat", f"repeats must be non-negative, got {repeats.tolist()}")
    n = x.shape[axis]
    if repeats.ndim and r.size not in (1, n):
        raise U.op_error("Repeat", f"Dimensions {n} and {r.size} are not compatible")
    if repeats.ndim and r.size == 1:
        r = r[0]
    return np.repeat(x, r, axis=axis)


def _repeat_infer(inputs, attrs):
    x, repeats = inputs
    axis = attrs["axis"]
    s = x.shape
    if repeats.shape.rank is not None and repeats.shape.rank > 1:
        raise ValueError(f"Shape {repeats.shape} must have rank at most 1")
    if s.rank is None:
        return [(TensorShape(None), x.dtype)]
    dims = s.as_list()
    n = dims[axis]
    r = U.constant_value(repeats)
    rn = repeats.shape.num_elements()
    if rn is not None and rn != 1 and n is not None and rn != n:
        raise ValueError(f"Dimensions {n} and {rn} are not compatible")
    if r is None:
        dims[axis] = None
    else:
        r = np.reshape(r, -1)
        if r.size == 1:
            dims[axis] = None if n is None else n * int(r[0])
        else:
            dims[axis] = int(np.sum(r))
    return [(TensorShape(dims), x.dtype)]


def _repeat_grad(op, g):
    x, repeats = op.inputs
    axis = op.get_attr("axis")
    r = U.constant_value(repeats)
    if r is not None and np.size(r) == 1:
        # Each element became `r` consecutive copies: sum them.
        r = int(np.reshape(r, -1)[0])
        if x.shape.is_fully_defined():
            dims = x.shape.as_list()
            inner = dims[:axis] + [dims[axis], r] + dims[axis + 1:]
        else:
            before, mid, after = split(A.shape(x), [axis, 1, -1], num=3)
            inner = A.concat([before, mid, [r], after], 0)
        return [A._like_shape(late.reduce_sum(A.reshape(g, inner), axis=axis + 1), x), None]
    # Per-element repeats: scatter-add the copies back onto their source.
    rank = x.shape.rank
    if rank is None:
        raise ValueError("The gradient of repeat with per-element repeats needs an input of "
                         "known rank")
    src = apply2(_Repeat, _iota(_dim(x, axis)), repeats, {"axis": 0}, name="Repeat")
    perm = [axis] + [i for i in range(rank) if i != axis]
    inverse = np.argsort(perm).tolist()
    moved = A.transpose(g, perm)
    summed = scatter_nd(A.expand_dims(src, 1), moved, A.shape(A.transpose(x, perm)))
    return [A._like_shape(A.transpose(summed, inverse), x), None]


_Repeat = register("Repeat", _repeat_kernel, _repeat_infer, _repeat_grad)


@export("repeat")
def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeats each element of `input` `repeats` times along `axis` (of the
    flattened input when `axis` is None). `repeats` is an int, or one count
    per element along the axis.

    Raises:
      ValueError: for an out-of-range axis or repeats of the wrong length.
      TypeError: for non-integer repeats or axis.
    """
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type "
                        f"{type(axis).__name__}")
    x = convert_to_tensor(input)
    rep = repeats if isinstance(repeats, Tensor) else convert_to_tensor(repeats)
    if not rep.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received "
                        f"`tensor` = {repeats} of dtype: <dtype: '{rep.dtype.name}'>")
    if rep.shape.rank is not None and rep.shape.rank > 1:
        raise ValueError(f"Shape {rep.shape} must have rank at most 1")
    if axis is None:
        x = A.reshape(x, [-1])
        axis = 0
    elif x.shape.rank == 0:
        x = A.reshape(x, [1])
    r = x.shape.rank
    if r is not None:
        if not -r <= axis < r:
            raise ValueError(f"axis={axis} out of bounds: expected {-r}<=axis<{r}")
        axis %= r
    elif axis < 0:
        raise ValueError("A negative axis needs a tensor of known rank")
    n = x.shape[axis] if r is not None else None
    rn = rep.shape.num_elements()
    if n is not None and rn is not None and rep.shape.rank == 1 and rn not in (1, n):
        raise ValueError(f"Dimensions {n} and {rn} are not compatible")
    return apply2(_Repeat, x, rep, {"axis": int(axis)}, name=name or "Repeat")


# --- unique ------------------------------------------------------------------

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique_parts(x, out_idx, op_name):
    if x.ndim != 1:
        raise U.op_error(op_name, "unique expects a 1D vector.")
    if x.size == 0:
        return x.copy(), np.zeros(0, out_idx._np), np.zeros(0, out_idx._np)
    if x.dtype.kind == "O":
        seen = {}
        idx = np.empty(x.size, dtype=out_idx._np)
        for i, v in enumerate(x):
            idx[i] = seen.setdefault(v, len(seen))
        y = np.empty(len(seen), dtype=object)
        for v, j in seen.items():
            y[j] = v
    else:
        # Each NaN is its own value, as in TensorFlow.
        vals, first, inv = np.unique(x, return_index=True, return_inverse=True,
                                     equal_nan=False)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y = vals[order].astype(x.dtype, copy=False)
        idx = rank[np.reshape(inv, -1)].astype(out_idx._np)
    counts = np.bincount(idx, minlength=len(y)).astype(out_idx._np)
    return y, idx, counts


def _unique_kernel(x, out_idx):
    y, idx, _ = _unique_parts(x, out_idx, "Unique")
    return y, idx


def _unique_with_counts_kernel(x, out_idx):
    return _unique_parts(x, out_idx, "UniqueWithCounts")


def _unique_infer(n_out):
    def infer(inputs, attrs):
        x = inputs[0]
        if x.shape.rank is not None and x.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {x.shape.rank}")
        n = x.shape[0] if x.shape.rank == 1 else None
        out = [(TensorShape([None]), x.dtype), (TensorShape([n]), attrs["out_idx"])]
        if n_out == 3:
            out.append((TensorShape([None]), attrs["out_idx"]))
        return out
    return infer


# As in TensorFlow, unique has no gradient.
_Unique = register("Unique", _unique_kernel, _unique_infer(2), None)
_UniqueWithCounts = register("UniqueWithCounts", _unique_with_counts_kernel,
                             _unique_infer(3), None)


def _out_idx(out_idx, op_name):
    out_idx = D.as_dtype(out_idx)
    if out_idx not in _INDEX_TYPES:
        msg = (f"Value for attr 'out_idx' of {U.tf_type_name(out_idx)} is not in the list of "
               "allowed values: int32, int64")
        if executing_eagerly():
            raise U.op_error(op_name, msg + f"\n\t; NodeDef: {{{{node {op_name}}}}}")
        raise TypeError(msg)
    return out_idx


@export("unique")
def unique(x, out_idx=D.int32, name=None):
    """The distinct elements of the 1-D `x` in order of first appearance
    (`y`), and for each element of `x` the position of its value in `y`
    (`idx`, of dtype `out_idx`). Returns `Unique(y, idx)`."""
    t = convert_to_tensor(x)
    attrs = {"out_idx": _out_idx(out_idx, "Unique")}
    return Unique(*apply(_Unique, [t], attrs, name=name or "Unique", multi=True))


@export("unique_with_counts")
def unique_with_counts(x, out_idx=D.int32, name=None):
    """Like `unique`, with how often each value of `y` occurs (`count`).
    Returns `UniqueWithCounts(y, idx, count)`."""
    t = convert_to_tensor(x)
    attrs = {"out_idx": _out_idx(out_idx, "UniqueWithCounts")}
    return UniqueWithCounts(*apply(_UniqueWithCounts, [t], attrs,
                                   name=name or "UniqueWithCounts", multi=True))


# --- roll --------------------------------------------------------------------

def _roll_kernel(x, shift, axis):
    if x.ndim < 1:
        raise U.op_error("Roll", "input must be 1-D or higher")
    if shift.ndim > 1:
        raise U.op_error("Roll", f"shift must be a scalar or a 1-D vector. Found: "
                                 f"{dims_text(shift.shape)}")
    if axis.ndim > 1:
        raise U.op_error("Roll", f"axis must be a scalar or a 1-D vector. Found: "
                                 f"{dims_text(axis.shape)}")
    s, a = np.reshape(shift, -1), np.reshape(axis, -1)
    if s.shape != a.shape:
        raise U.op_error("Roll", "shift and axis must have the same size")
    for v in a:
        if not -x.ndim <= v < x.ndim:
            raise U.op_error("Roll", f"axis {int(v)} is out of range")
    if not s.size or not x.size:
        return x
    return np.roll(x, tuple(int(v) for v in s), tuple(int(v) % x.ndim for v in a))


def _roll_infer(inputs, attrs):
    x, shift, axis = inputs
    if x.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    for t in (shift, axis):
        if t.shape.rank is not None and t.shape.rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {t.shape.rank}")
    if shift.shape.is_fully_defined() and axis.shape.is_fully_defined() and \
            shift.shape.num_elements() != axis.shape.num_elements():
        a, b = shift.shape.num_elements(), axis.shape.num_elements()
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {a} and {b}. "
                         f"Shapes are [{a}] and [{b}].")
    return [(x.shape, x.dtype)]


def _roll_grad(op, g):
    _, shift, axis = op.inputs
    return [roll(g, late.negative(shift), axis), None, None]


_Roll = register("Roll", _roll_kernel, _roll_infer, _roll_grad)


@export("roll", "manip.roll")
def roll(input, shift, axis, name=None):  # noqa: A002
    """Rotates the elements of `input` by `shift` places along `axis` (both
    may be lists; shifts on a repeated axis add up)."""
    x = convert_to_tensor(input)
    s = _index_tensor(shift, "Roll", "shift", "Tshift")
    a = _index_tensor(axis, "Roll", "axis", "Taxis")
    return apply(_Roll, [x, s, a], name=name or "Roll")
