"""Scatter: tf.scatter_nd and the tf.tensor_scatter_nd_* family, and the
index-argument helpers the split, pad, repeat, roll and sort ops share.

`scatter_nd` and the `tensor_scatter_nd_*` ops write slices of `updates` at
the positions `indices` names (duplicates add, or the last one wins for
`update`). `_scatter_into`, their row arithmetic, also serves the scatter
methods of variables (state/scatter_variable_ops.py).
"""
import numpy as np

from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text, shape_text
from . import shape_ops, constant_ops, join_ops
from . import op_util as U
from .array_util import _convert_same_dtype, _int_list_tensor, _shape_from_tensor
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
        t = _int_list_tensor(value)
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
        return late.reduce_sum(shape_ops.shape(x) * convert_to_tensor(mask))
    return late.reduce_sum(shape_ops.shape(x) * join_ops.one_hot_axis(axis, shape_ops.rank(x)))


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
    out = _shape_from_tensor(shape)
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
    return [tensor_scatter_nd_update(g, indices, constant_ops.zeros_like(updates)), None,
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
    count = kept + scatter_nd(indices, won, shape_ops.shape(tensor, out_type=indices.dtype))
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


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _xla_at(tensor, indices):
    return tensor.at[tuple(XL.jnp.moveaxis(XL.jnp.asarray(indices), -1, 0))]


_AT_MODES = {"TensorScatterUpdate": lambda at, u: at.set(u),
             "TensorScatterAdd": lambda at, u: at.add(u),
             "TensorScatterSub": lambda at, u: at.add(-u),
             "TensorScatterMax": lambda at, u: at.max(u),
             "TensorScatterMin": lambda at, u: at.min(u)}


def _lower_tensor_scatter(ctx, op, tensor, indices, updates):
    return _AT_MODES[op.type](_xla_at(XL.jnp.asarray(tensor), indices), updates)


def _lower_scatter_nd(ctx, op, indices, updates, shape):
    zeros = XL.jnp.zeros(XL.ints(ctx.static(op, 2, shape)), updates.dtype)
    return _xla_at(zeros, indices).add(updates)


XL.set_lowerings(dict({"ScatterNd": _lower_scatter_nd},
                      **{name: _lower_tensor_scatter for name in _AT_MODES}))
