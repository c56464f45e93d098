"""Picking elements by index: tf.gather, tf.gather_nd, tf.boolean_mask and
tf.reverse.

Their gradients scatter the incoming gradient into zeros of the input's shape:
along a constant axis 0 a gather's gradient is sparse (an IndexedSlices, from
the backprop engine's rules), otherwise rillflow's own `GatherV2Grad` /
`GatherNdGrad` add up the gradients of repeated indices.
"""
import builtins

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .creation_ops import apply_named, arg_name, name_scope, op_base_name
from .slicing import _INDEX, _SLICE_INDEX, _SpecError, _graph_errors
from .. import late

_state = _context.state
_IAE = errors.InvalidArgumentError
_INT = builtins.int


def _scalar(v):
    return np.reshape(v, -1)[0]


def _position(shape, flat):
    """`indices[i,j]`-style text for the flat position `flat` in `shape`."""
    return ",".join(str(_INT(p)) for p in np.unravel_index(flat, shape)) if shape else ""


def _gather_axes(params_ndim, indices_ndim, axis, batch_dims):
    """Normalized (axis, batch_dims); raises _SpecError with TensorFlow's messages."""
    r = params_ndim
    if r == 0:
        raise _SpecError("params must be at least 1 dimensional")
    if axis >= r:
        raise _SpecError(f"Shape must be at least rank {axis + 1} but is rank {r}")
    if axis < -r:
        raise _SpecError(f"Expected axis in the range [{-r}, {r}), but got {axis}")
    axis %= r
    bd = batch_dims
    if bd < -indices_ndim or bd > indices_ndim:
        raise _SpecError(f"Expected batch_dims in the range [{-indices_ndim}, {indices_ndim}], "
                         f"but got {bd}")
    if bd < 0:
        bd += indices_ndim
    if bd > axis:
        raise _SpecError(f"batch_dims ({bd}) must be less than or equal to axis ({axis}).")
    return axis, bd


def _lead(shape, bd):
    """The leading `bd` dimensions of `shape` flattened into one (a 1-tuple)."""
    return (_INT(np.prod(shape[:bd])),)


def _batched(params, indices, bd, fn):
    """fn(params_k, indices_k) for each entry k of the leading `bd` batch dimensions."""
    for i in builtins.range(bd):
        if params.shape[i] != indices.shape[i]:
            raise _IAE(None, None, f"params.shape[{i}]: {params.shape[i]} should be equal to "
                       f"indices.shape[{i}]: {indices.shape[i]}")
    p = params.reshape(_lead(params.shape, bd) + params.shape[bd:])
    ind = indices.reshape(_lead(indices.shape, bd) + indices.shape[bd:])
    return [fn(p[k], ind[k]) for k in builtins.range(p.shape[0])]


def _gather_kernel(params, indices, axis, batch_dims=0, **_):
    try:
        a, bd = _gather_axes(params.ndim, indices.ndim, _INT(axis), batch_dims)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    d = params.shape[a]
    bad = (indices < 0) | (indices >= d)
    if bad.any():
        pos = _INT(np.flatnonzero(bad)[0])
        raise _IAE(None, None, f"indices[{_position(indices.shape, pos)}] = "
                   f"{indices.reshape(-1)[pos]} is not in [0, {d})")
    out_shape = params.shape[:a] + indices.shape[bd:] + params.shape[a + 1:]
    if bd == 0:
        return np.take(params, indices, axis=a)
    parts = _batched(params, indices, bd, lambda p, i: np.take(p, i, axis=a - bd))
    if not parts:
        return np.empty(out_shape, dtype=params.dtype)
    return np.stack(parts).reshape(out_shape)


@_graph_errors
def _gather_infer(inputs, attrs):
    p, i, a = inputs
    U.check_graph_dtype(i, _SLICE_INDEX, "indices")
    U.check_graph_dtype(a, _INDEX, "axis")
    ps, is_ = p.shape, i.shape
    bd = attrs.get("batch_dims", 0)
    av = U.constant_value(a)
    if av is not None and ps.rank is not None:
        axis = _INT(av)
        if axis >= ps.rank or axis < -ps.rank:
            need = axis + 1 if axis >= 0 else -axis
            raise ValueError(f"Shape must be at least rank {need} but is rank {ps.rank}")
    if ps.rank is None or is_.rank is None:
        return [(TensorShape(None), p.dtype)]
    if bd < 0:
        bd += is_.rank
    if av is None:
        return [(TensorShape([None] * (ps.rank - 1 + is_.rank - bd)), p.dtype)]
    try:
        axis, bd = _gather_axes(ps.rank, is_.rank, _INT(av), attrs.get("batch_dims", 0))
    except _SpecError as err:
        raise ValueError(str(err)) from None
    dims = ps.as_list()[:axis] + is_.as_list()[bd:] + ps.as_list()[axis + 1:]
    return [(TensorShape(dims), p.dtype)]


def _gather_grad(op, g):
    p, i, a = op.inputs
    av = U.constant_value(a)
    if av is not None and np.size(av) == 1 and _INT(_scalar(av)) == 0:
        # As in TensorFlow: along a constant axis 0 the gradient is sparse,
        # the gathered rows of the gradient (an IndexedSlices).
        return [late.sparse_gather_gradient(p, i, g), None, None]
    dp = apply(_GatherV2Grad, [late.shape(p), i, g, a], {"batch_dims": op.get_attr("batch_dims")},
               name="GatherV2Grad")
    return [dp, None, None]


_GatherV2 = register("GatherV2", _gather_kernel, _gather_infer, _gather_grad)


def _scatter_add_axis(out, indices, dy, axis):
    """out[..., indices[j], ...] += dy[..., j, ...] along `axis` (in place on `out`)."""
    target = np.moveaxis(out, axis, 0)
    ir = indices.ndim
    src = np.moveaxis(dy, list(builtins.range(axis, axis + ir)), list(builtins.range(ir)))
    np.add.at(target, indices.reshape(-1), src.reshape((indices.size,) + target.shape[1:]))


def _gather_grad_kernel(shape, indices, dy, axis, batch_dims=0, **_):
    dims = tuple(_INT(d) for d in np.reshape(shape, -1))
    a, bd = _gather_axes(len(dims), indices.ndim, _INT(axis), batch_dims)
    out = np.zeros(dims, dtype=dy.dtype)
    if bd == 0:
        _scatter_add_axis(out, indices, dy, a)
        return out
    o = out.reshape(_lead(dims, bd) + dims[bd:])
    ind = indices.reshape(_lead(indices.shape, bd) + indices.shape[bd:])
    g = dy.reshape(_lead(dy.shape, bd) + dy.shape[bd:])
    for k in builtins.range(o.shape[0]):
        _scatter_add_axis(o[k], ind[k], g[k], a - bd)
    return o.reshape(dims)


def _gather_grad_grad(op, g):
    _, i, _, a = op.inputs
    return [None, None, gather(g, i, axis=a, batch_dims=op.get_attr("batch_dims")), None]


# rillflow's own op: the dense gradient of GatherV2 along an axis other
# than a constant 0 (where TensorFlow's is dense too), adding up the
# gradients of repeated indices.
_GatherV2Grad = register("GatherV2Grad", _gather_grad_kernel,
                         lambda inputs, attrs: [(U.constant_shape(inputs[0]), inputs[2].dtype)],
                         _gather_grad_grad)


@export("gather")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` at `indices` along `axis` (default: `batch_dims`).

    The result has shape `params.shape[:axis] + indices.shape[batch_dims:]
    + params.shape[axis + 1:]`. With `batch_dims` > 0 the leading
    dimensions of params and indices are batch dimensions gathered from
    independently.

    Raises:
      InvalidArgumentError: (eager) for an index outside [0, dim), e.g.
        "indices[1] = 7 is not in [0, 3)".
    """
    base = op_base_name(name or "GatherV2")
    p = convert_to_tensor(params, name=arg_name(base, "params"))
    i = convert_to_tensor(indices, name=arg_name(base, "indices"))
    if axis is None:
        axis = batch_dims
    a = axis if isinstance(axis, Tensor) else convert_to_tensor(axis, name=arg_name(base, "axis"))
    av = U.constant_value(a)
    if av is not None and np.size(av) == 1 and _INT(_scalar(av)) == 0:
        # TensorFlow gathers along a constant axis 0 without batch dimensions.
        batch_dims = 0
    U.check_dtype("GatherV2", i, _SLICE_INDEX, "Tindices", "indices")
    U.check_dtype("GatherV2", a, _INDEX, "Taxis", "axis")
    attrs = {"batch_dims": _INT(batch_dims), "Tparams": p.dtype, "Tindices": i.dtype,
             "Taxis": a.dtype}
    return apply_named(_GatherV2, [p, i, a], attrs, base, "GatherV2")


# --- gather_nd ---------------------------------------------------------------

def _check_nd_indices(params_shape, indices, bd):
    """InvalidArgumentError for the first coordinate row outside `params_shape`.

    With batch dimensions the row is reported as TensorFlow's batched
    gather sees it: batch coordinates first, at its flat position.
    """
    depth = indices.shape[-1]
    lead = indices.shape[:-1]
    n = _INT(np.prod(lead))
    flat = indices.reshape(n, depth)
    if not flat.size:
        return
    bad = ((flat < 0) | (flat >= np.array(params_shape[bd:bd + depth], dtype=np.int64)))
    bad = bad.any(axis=1)
    if not bad.any():
        return
    row = _INT(np.flatnonzero(bad)[0])
    coords = flat[row].tolist()
    if bd:
        per_batch = _INT(np.prod(lead[bd:]))
        batch = np.unravel_index(row // per_batch if per_batch else 0, lead[:bd])
        coords = [_INT(b) for b in batch] + coords
        where = str(row)
    else:
        where = _position(lead, row)
    raise _IAE(None, None, f"indices[{where}] = [{', '.join(str(v) for v in coords)}] does not "
               f"index into param shape [{','.join(str(d) for d in params_shape)}], node name: "
               "GatherNd")


def _gather_nd_one(params, indices):
    """gather_nd without batch dimensions (indices already checked)."""
    depth = indices.shape[-1]
    lead = indices.shape[:-1]
    flat = indices.reshape(_INT(np.prod(lead)), depth)
    if depth == 0:
        out = np.broadcast_to(params, (flat.shape[0],) + params.shape)
    else:
        out = params[tuple(flat.T)]
    return out.reshape(lead + params.shape[depth:])


def _gather_nd_check(params_ndim, indices_shape, bd):
    if len(indices_shape) < 1:
        raise _SpecError("indices must be at least a vector")
    depth = indices_shape[-1]
    if depth is not None and depth > params_ndim - bd:
        raise _SpecError("index innermost dimension length must be <= params rank; saw: "
                         f"{depth} vs. {params_ndim}")


def _gather_nd_kernel(params, indices, batch_dims=0, **_):
    try:
        _gather_nd_check(params.ndim, indices.shape, batch_dims)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    bd = batch_dims
    _check_nd_indices(params.shape, indices, bd)
    if bd == 0:
        return _gather_nd_one(params, indices)
    out_shape = (params.shape[:bd] + indices.shape[bd:-1]
                 + params.shape[bd + indices.shape[-1]:])
    parts = _batched(params, indices, bd, _gather_nd_one)
    if not parts:
        return np.empty(out_shape, dtype=params.dtype)
    return np.stack(parts).reshape(out_shape)


@_graph_errors
def _gather_nd_infer(inputs, attrs):
    p, i = inputs
    U.check_graph_dtype(i, _SLICE_INDEX, "indices")
    bd = attrs.get("batch_dims", 0)
    ps, is_ = p.shape, i.shape
    if is_.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if ps.rank is None or is_.rank is None or is_[-1] is None:
        return [(TensorShape(None), p.dtype)]
    depth = is_[-1]
    if depth > ps.rank - bd:
        raise ValueError("indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{dims_text(is_)} and params shape: {dims_text(ps)}")
    pd, idd = ps.as_list(), is_.as_list()
    batch = [a if a is not None else b for a, b in zip(pd[:bd], idd[:bd])]
    return [(TensorShape(batch + idd[bd:-1] + pd[bd + depth:]), p.dtype)]


def _gather_nd_grad(op, g):
    p, i = op.inputs
    ishape = i.shape
    if not op.get_attr("batch_dims") and ishape.rank == 2 and ishape.as_list()[-1] == 1 \
            and not isinstance(g, IndexedSlices):
        # As TensorFlow: indices of one component pick whole rows, so the
        # gradient is sparse: the rows of `g` at the squeezed indices.
        return [IndexedSlices(g, late.squeeze(i, axis=-1), late.shape(p, out_type=i.dtype)),
                None]
    dp = apply(_GatherNdGrad, [late.shape(p), i, g], {"batch_dims": op.get_attr("batch_dims")},
               name="GatherNdGrad")
    return [dp, None]


_GatherNd = register("GatherNd", _gather_nd_kernel, _gather_nd_infer, _gather_nd_grad)


def _scatter_nd_add_one(out, indices, dy):
    depth = indices.shape[-1]
    flat = indices.reshape(_INT(np.prod(indices.shape[:-1])), depth)
    src = dy.reshape((flat.shape[0],) + out.shape[depth:])
    if depth == 0:
        out += src.sum(axis=0)
    else:
        np.add.at(out, tuple(flat.T), src)


def _gather_nd_grad_kernel(shape, indices, dy, batch_dims=0):
    dims = tuple(_INT(d) for d in np.reshape(shape, -1))
    out = np.zeros(dims, dtype=dy.dtype)
    bd = batch_dims
    if bd == 0:
        _scatter_nd_add_one(out, indices, dy)
        return out
    o = out.reshape(_lead(dims, bd) + dims[bd:])
    ind = indices.reshape(_lead(indices.shape, bd) + indices.shape[bd:])
    g = dy.reshape((o.shape[0],) + dy.shape[bd:])
    for k in builtins.range(o.shape[0]):
        _scatter_nd_add_one(o[k], ind[k], g[k])
    return o.reshape(dims)


def _gather_nd_grad_grad(op, g):
    _, i, _ = op.inputs
    return [None, None, gather_nd(g, i, batch_dims=op.get_attr("batch_dims"))]


# rillflow's own op: the dense gradient of GatherNd (a scatter-add).
_GatherNdGrad = register("GatherNdGrad", _gather_nd_grad_kernel,
                         lambda inputs, attrs: [(U.constant_shape(inputs[0]), inputs[2].dtype)],
                         _gather_nd_grad_grad)


@export("gather_nd")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """Slices of `params` at N-dimensional `indices`.

    The last dimension of `indices` holds (partial) coordinates into
    `params`; the result has shape `indices.shape[:-1] +
    params.shape[indices.shape[-1]:]` (after `batch_dims` leading batch
    dimensions shared by both).

    Raises:
      InvalidArgumentError: (eager) for coordinates outside `params`.
      ValueError: if `batch_dims` is not less than the rank of `indices`.
    """
    base = op_base_name(name or "GatherNd")
    p = convert_to_tensor(params, name=arg_name(base, "params"))
    i = convert_to_tensor(indices, name=arg_name(base, "indices"))
    U.check_dtype("GatherNd", i, _SLICE_INDEX, "Tindices", "indices")
    bd = _INT(batch_dims)
    r = i.shape.rank
    if bd and r is not None:
        if bd < 0:
            bd += r
        if bd >= r:
            raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than "
                             f"rank(`indices`) = {r}")
    attrs = {"batch_dims": bd, "Tparams": p.dtype, "Tindices": i.dtype}
    return apply_named(_GatherNd, [p, i], attrs, base, "GatherNd")


# --- boolean_mask ------------------------------------------------------------

@export("boolean_mask", "compat.v1.boolean_mask")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The elements (or slices) of `tensor` where `mask` is True.

    The mask's K dimensions match `tensor.shape[axis:axis + K]`; those
    dimensions are flattened into one holding the selected entries.

    Raises:
      ValueError: for a scalar mask, a mask of unknown rank, or shapes
        that do not match.
    """
    with name_scope(name):
        x = convert_to_tensor(tensor)
        m = convert_to_tensor(mask)
        mshape = m.shape
        k = mshape.rank
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        if k is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        a = 0 if axis is None else axis
        if isinstance(a, Tensor):
            av = U.constant_value(a)
            a = a if av is None else _INT(av)
        else:
            a = _INT(a)
        xshape = x.shape
        static = isinstance(a, _INT)
        if static:
            xshape[a:a + k].assert_is_compatible_with(mshape)
        if _state.graph is None and not _state.tapes and static:
            # Eager fast path: NumPy's selection along the flattened mask axes.
            xv = np.asarray(x._v)
            lead = _INT(np.prod(xv.shape[a:a + k]))
            flat = xv.reshape(xv.shape[:a] + (lead,) + xv.shape[a + k:])
            picks = np.flatnonzero(np.reshape(m._v, -1))
            return EagerTensor(np.take(flat, picks, axis=a))
        lead = xshape[a:a + k].num_elements() if static else None
        if lead is None:
            lead_t = late.reduce_prod(late.shape(x)[a:a + k], [0])
        else:
            lead_t = lead
        xs = late.shape(x)
        x = late.reshape(x, late.concat([xs[:a], [lead_t], xs[a + k:]], 0))
        if static and xshape.rank is not None:
            x.set_shape(xshape[:a].concatenate([lead]).concatenate(xshape[a + k:]))
        idx = late.squeeze(late.where(late.reshape(m, [-1])), axis=[1])
        return gather(x, idx, axis=a)


# --- reverse -----------------------------------------------------------------

def _reverse_axes(axes, r):
    """Canonical axes to reverse; _SpecError with TensorFlow's messages."""
    seen = []
    for i, a in enumerate(axes):
        if not -r <= a < r:
            raise _SpecError(f"'axis'[{i}] = {a} is out of valid range [0, {r - 1}")
        c = a % r
        if c in seen:
            raise _SpecError(f"axis {c} specified more than once.")
        seen.append(c)
    return tuple(seen)


def _reverse_kernel(x, axis, **_):
    if x.ndim == 0:
        return x  # TensorFlow's kernel returns a scalar as it is, whatever the axes
    if axis.ndim != 1:
        raise _IAE(None, None, f"'dims' must be 1-dimension, not {axis.ndim}")
    try:
        axes = _reverse_axes(axis.tolist(), x.ndim)
    except _SpecError as err:
        raise _IAE(None, None, str(err)) from None
    if not axes:
        return x
    return np.flip(x, axes).copy()


@_graph_errors
def _reverse_infer(inputs, attrs):
    x, a = inputs
    U.check_graph_dtype(a, _INDEX, "axis")
    if a.shape.rank is not None and a.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {a.shape.rank}")
    av = U.constant_value(a)
    if av is not None and x.shape.rank is not None:
        _reverse_axes([_INT(v) for v in np.reshape(av, -1)], x.shape.rank)
    return [(x.shape, x.dtype)]


_ReverseV2 = register("ReverseV2", _reverse_kernel, _reverse_infer,
                      lambda op, g: [reverse(g, op.inputs[1]), None])


@export("reverse", "compat.v1.reverse_v2")
def reverse(tensor, axis, name=None):
    """The tensor with the order of elements reversed along each of `axis`.

    Raises:
      InvalidArgumentError: (eager) for an axis out of range or repeated;
        ValueError in graphs.
    """
    base = op_base_name(name or "ReverseV2")
    x = convert_to_tensor(tensor)
    a = axis if isinstance(axis, Tensor) else convert_to_tensor(
        axis, dtype_hint=D.int32, name=arg_name(base, "axis"))
    U.check_dtype("ReverseV2", a, _INDEX, "Tidx", "axis")
    return apply_named(_ReverseV2, [x, a], {"Tidx": a.dtype}, base, "ReverseV2")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _xla_batched(fn, batch_dims):
    """`fn` mapped over the leading `batch_dims` axes of all its arguments."""
    for _ in builtins.range(batch_dims):
        fn = XL.jax.vmap(fn)
    return fn


def _xla_gather(ctx, op, axis_index, axis, p_rank, i_rank):
    a = XL.ints(ctx.static(op, axis_index, axis))[0] if axis is not None else 0
    bd = op.attrs.get("batch_dims", 0)
    a, bd = a % max(p_rank, 1), bd % (i_rank + 1) if bd < 0 else bd
    return _xla_batched(lambda p, i: XL.jnp.take(p, i, axis=a - bd, mode="clip"), bd)


def _lower_gather(ctx, op, params, indices, axis):
    return _xla_gather(ctx, op, 2, axis, XL.jnp.ndim(params), XL.jnp.ndim(indices))(
        params, indices)


def _lower_gather_grad(ctx, op, shape, indices, dy, axis):
    dims = XL.ints(ctx.static(op, 0, shape))
    fn = _xla_gather(ctx, op, 3, axis, len(dims), XL.jnp.ndim(indices))
    zeros = XL.jnp.zeros(dims, dy.dtype)
    return XL.jax.vjp(lambda p: fn(p, indices), zeros)[1](dy)[0]


def _gather_nd_fn(batch_dims):
    def one(p, i):
        return p[tuple(XL.jnp.moveaxis(i, -1, 0))]
    return _xla_batched(one, batch_dims)


def _lower_gather_nd(ctx, op, params, indices):
    return _gather_nd_fn(op.attrs.get("batch_dims", 0))(params, indices)


def _lower_gather_nd_grad(ctx, op, shape, indices, dy):
    fn = _gather_nd_fn(op.attrs.get("batch_dims", 0))
    zeros = XL.jnp.zeros(XL.ints(ctx.static(op, 0, shape)), dy.dtype)
    return XL.jax.vjp(lambda p: fn(p, indices), zeros)[1](dy)[0]


XL.set_lowerings({
    "GatherV2": _lower_gather, "GatherV2Grad": _lower_gather_grad,
    "GatherNd": _lower_gather_nd, "GatherNdGrad": _lower_gather_nd_grad,
    "ReverseV2": lambda ctx, op, x, axis: XL.jnp.flip(
        x, tuple(a % max(XL.jnp.ndim(x), 1) for a in XL.ints(ctx.static(op, 1, axis))))})
