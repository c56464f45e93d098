"""Sorting: top_k, sort, argsort and in_top_k.

As in TensorFlow, `sort` and `argsort` are built on the `TopKV2` op (the
ascending order is the descending order of the negated values), so they are
stable and differentiable through TopKV2's gradient, which sends each
output's gradient back to the position its value came from. Ties keep the
lower index first; NaN counts as larger than every number.
"""
import collections

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
from ...framework.tensor_shape import TensorShape, dims_text
from . import shape_ops, join_ops, dim_ops
from . import op_util as U
from .array_util import _convert_same_dtype
from .math_ops import cast, floordiv, invert, negative, subtract
from .reduction_ops import reduce_sum
from .scatter_ops import _iota, scatter_nd

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])

_TOPK_TYPES = U.REAL
_K_TYPES = (D.int16, D.int32, D.int64)
_DIRECTIONS = ("ASCENDING", "DESCENDING")


# --- TopKV2 ------------------------------------------------------------------

def _descending_order(x):
    """Indices sorting `x` along its last axis in descending order, stable
    (ties keep the lower index first), NaN first."""
    n = x.shape[-1]
    # An ascending stable sort of the reversed row, read backwards, is a
    # descending sort in which equal values keep their original order.
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - order


def _top_k_kernel(x, k, sorted=True, index_type=D.int32):  # noqa: A002 - TF's attr name
    if k.ndim != 0:
        raise U.op_error("TopKV2", f"k must be scalar, got shape {dims_text(k.shape)}")
    k = int(k)
    if k < 0:
        raise U.op_error("TopKV2", f"Need k >= 0, got {k}")
    if x.ndim < 1:
        raise U.op_error("TopKV2", f"input must be >= 1-D, got shape {dims_text(x.shape)}")
    if x.shape[-1] < k:
        raise U.op_error("TopKV2", f"input must have at least k columns. Had {x.shape[-1]}, "
                                   f"needed {k}")
    if k == 1 and x.dtype.kind != "f":
        idx = np.argmax(x, axis=-1)[..., None]
    else:
        idx = _descending_order(x)[..., :k]
    values = np.take_along_axis(x, idx, axis=-1)
    return values, idx.astype(index_type._np, copy=False)


def _top_k_infer(inputs, attrs):
    x, k = inputs
    U.check_graph_dtype(x, _TOPK_TYPES, "input")
    if k.shape.rank is not None and k.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {k.shape.rank}")
    index_type = attrs.get("index_type", D.int32)
    s = x.shape
    kv = U.constant_value(k)
    if kv is not None:
        kv = int(kv)
        if kv < 0:
            raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but "
                             f"is {kv}")
    if s.rank is None:
        return [(TensorShape(None), x.dtype), (TensorShape(None), index_type)]
    if s.rank < 1:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    dims = s.as_list()
    if kv is not None and dims[-1] is not None and dims[-1] < kv:
        raise ValueError(f"input must have last dimension >= k = {kv} but is {dims[-1]}")
    dims[-1] = kv
    return [(TensorShape(dims), x.dtype), (TensorShape(dims), index_type)]


def _last_dim(x):
    """The size of the last axis of `x`: an int when known, else a scalar
    int32 tensor."""
    r = x.shape.rank
    if r is not None and r and x.shape[-1] is not None:
        return x.shape[-1]
    if r is not None:
        mask = np.zeros(r, np.int32)
        mask[-1] = 1
        return reduce_sum(shape_ops.shape(x) * convert_to_tensor(mask))
    return reduce_sum(shape_ops.shape(x) * join_ops.one_hot_axis(subtract(shape_ops.rank(x), 1),
                                                                 shape_ops.rank(x)))


def _top_k_grad(op, gv, gi):
    """Scatters the gradient of each selected value back to its position."""
    x, idx = op.inputs[0], op.outputs[1]
    itype = idx.dtype
    n, k = _last_dim(x), _last_dim(idx)
    total = shape_ops.size(x, out_type=itype)
    if isinstance(n, int) and isinstance(k, int) and x.shape.is_fully_defined():
        rows = x.shape.num_elements() // n if n else 0
        offsets = constant_value_tensor(np.arange(rows, dtype=itype._np)[:, None] * n)
        rows_k = [-1, k]
    else:
        n, k = cast(n, itype), cast(k, itype)
        rows = floordiv(total, shape_ops.reshape(n, []))
        offsets = dim_ops.expand_dims(_iota(rows, itype) * n, 1)
        rows_k = join_ops.stack([cast(-1, itype), k])
    # Row r's index i is element r * n + i of the flattened input.
    flat = shape_ops.reshape(shape_ops.reshape(idx, rows_k) + offsets, [-1, 1])
    out = scatter_nd(flat, shape_ops.reshape(gv, [-1]), shape_ops.reshape(total, [1]))
    return [shape_ops.reshape(out, shape_ops.shape(x)), None]


_TopKV2 = register("TopKV2", _top_k_kernel, _top_k_infer, _top_k_grad, allowed=_TOPK_TYPES)


def _check_topk_dtype(x):
    if x.dtype not in _TOPK_TYPES:
        if executing_eagerly():
            raise U._eager_disallowed(_TopKV2, x)
        raise U.graph_dtype_error("input", x.dtype, _TOPK_TYPES)


def _top_k(x, k, sorted=True, index_type=D.int32, name=None):  # noqa: A002
    index_type = D.as_dtype(index_type)
    if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and \
            -2 ** 31 <= k < 2 ** 31:
        kt = constant_value_tensor(np.int32(k))
    else:
        kt = convert_to_tensor(k)
    if kt.dtype not in _K_TYPES:
        raise U.dtype_error("TopKV2", kt.dtype, U.INDEX, "Tk", "k")
    _check_topk_dtype(x)
    vals, idx = apply(_TopKV2, [x, kt], {"sorted": bool(sorted), "index_type": index_type},
                      name=name or "TopKV2", multi=True)
    return TopKV2(vals, idx)


@export("math.top_k", "nn.top_k")
def top_k(input, k=1, sorted=True, index_type=D.int32, name=None):  # noqa: A002
    """The `k` largest entries along the last axis and their indices, as
    `TopKV2(values, indices)`. Equal values keep the lower index first.

    Raises:
      InvalidArgumentError: if `k` is negative or larger than the last
        dimension.
    """
    x = convert_to_tensor(input)
    return _top_k(x, k, sorted, index_type, name)


# --- sort / argsort ----------------------------------------------------------

def _order_flip(x):
    """A function reversing the order of values of `x`'s dtype (and its own
    inverse): negation for floats, bitwise NOT for integers (no overflow)."""
    return invert if x.dtype.is_integer else negative


def _sort_impl(values, axis, direction, want_indices, name):
    if direction not in _DIRECTIONS:
        raise ValueError(f"Argument `direction` should be one of {', '.join(_DIRECTIONS)}. "
                         f"Received: direction={direction}")
    x = convert_to_tensor(values)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        a = U.constant_value(axis) if isinstance(axis, Tensor) else None
        if a is None or np.ndim(a) != 0 or not np.issubdtype(np.asarray(a).dtype, np.integer):
            raise ValueError(f"axis must be a constant scalar integer, got {axis!r}")
        axis = int(a)
    axis = int(axis)
    _check_topk_dtype(x)
    r = x.shape.rank
    if r is None:
        if axis != -1:
            raise ValueError("sort along an axis other than -1 needs a tensor of known rank")
    else:
        if not -r <= axis < r:
            msg = f"slice index {axis} of dimension 0 out of bounds."
            if executing_eagerly():
                raise errors.InvalidArgumentError(None, None, msg + " [Op:StridedSlice]")
            raise ValueError(msg)
        axis %= r
    perm = None
    if r is not None and axis != r - 1:
        perm = list(range(r))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        x = dim_ops.transpose(x, perm)
    k = _last_dim(x)
    if direction == "DESCENDING":
        vals, idx = _top_k(x, k, name=name)
    else:
        flip = _order_flip(x)
        vals, idx = _top_k(flip(x), k, name=name)
        if not want_indices:
            vals = flip(vals)
    out = idx if want_indices else vals
    if perm is not None:
        out = dim_ops.transpose(out, perm)
    return out


@export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """The values sorted along `axis` (ASCENDING or DESCENDING); equal
    values keep their order.

    Raises:
      ValueError: for another `direction`.
    """
    return _sort_impl(values, axis, direction, False, name)


@export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort `values` along `axis`; the sort is always
    stable (equal values keep their order), whatever `stable` says."""
    return _sort_impl(values, axis, direction, True, name)


# --- in_top_k ----------------------------------------------------------------

def _in_top_k_kernel(predictions, targets, k):
    if predictions.ndim != 2:
        raise U.op_error("InTopKV2", "predictions must be 2-dimensional")
    if targets.ndim != 1:
        raise U.op_error("InTopKV2", "targets must be 1-dimensional")
    if k.ndim != 0:
        raise U.op_error("InTopKV2", "k must be 0-D, got shape " + dims_text(k.shape))
    batch, n = predictions.shape
    if targets.shape[0] != batch:
        raise U.op_error("InTopKV2", f"First dimension of predictions {batch} must match length "
                                     f"of targets {targets.shape[0]}")
    k = int(k)
    valid = (targets >= 0) & (targets < n)
    if not batch:
        return np.zeros(0, dtype=bool)
    safe = np.where(valid, targets, 0).astype(np.int64)
    target_pred = predictions[np.arange(batch), safe]
    # A row with a non-finite prediction never counts (TensorFlow's rule).
    finite = np.all(np.isfinite(predictions), axis=1)
    larger = np.sum(predictions > target_pred[:, None], axis=1)
    return valid & finite & (larger < k)


def _in_top_k_infer(inputs, attrs):
    p, t, k = inputs
    if p.shape.rank is not None and p.shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {p.shape.rank}")
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.shape.rank}")
    if k.shape.rank is not None and k.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {k.shape.rank}")
    b = p.shape[0] if p.shape.rank == 2 else None
    tb = t.shape[0] if t.shape.rank == 1 else None
    if b is not None and tb is not None and b != tb:
        raise ValueError(f"Dimensions must be equal, but are {b} and {tb}")
    return [(TensorShape([b if b is not None else tb]), D.bool_)]


_InTopKV2 = register("InTopKV2", _in_top_k_kernel, _in_top_k_infer,
                     lambda op, g: [None, None, None])


@export("math.in_top_k", "nn.in_top_k")
def in_top_k(targets, predictions, k, name=None):
    """For each row i, whether `predictions[i, targets[i]]` is among the `k`
    largest predictions of the row (ties count as in; rows with a
    non-finite prediction or an out-of-range target give False)."""
    p = convert_to_tensor(predictions, dtype=D.float32)
    t, kt = _convert_same_dtype([targets, k], "InTopKV2", first_input=[1, 2])
    if t.dtype not in U.INDEX:
        raise U.dtype_error("InTopKV2", t.dtype, U.INDEX, "T", "targets")
    return apply(_InTopKV2, [p, t, kt], name=name or "InTopKV2")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_top_k(ctx, op, x, k):
    values, idx = XL.lax.top_k(x, XL.ints(ctx.static(op, 1, k))[0])
    return [values, idx]


def _lower_in_top_k(ctx, op, predictions, targets, k):
    jnp = XL.jnp
    n = jnp.shape(predictions)[1]
    valid = (targets >= 0) & (targets < n)
    safe = jnp.where(valid, targets, 0)
    target_pred = jnp.take_along_axis(predictions, safe[:, None], axis=1)
    finite = jnp.all(jnp.isfinite(predictions), axis=1)
    larger = jnp.sum(predictions > target_pred, axis=1)
    return valid & finite & (larger < k)


XL.set_lowerings({"TopKV2": _lower_top_k, "InTopKV2": _lower_in_top_k})
