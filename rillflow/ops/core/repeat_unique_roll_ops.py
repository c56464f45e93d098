"""Elementwise rearrangements along an axis: tf.repeat, tf.unique,
tf.unique_with_counts (and the UniqueV2 / UniqueWithCountsV2 ops: distinct
slices along an axis) and tf.roll.

`repeat` repeats elements, `unique` finds the distinct elements of a vector
in order of first appearance (with their positions and counts), `roll`
rotates elements along axes.
"""
import collections

import numpy as np

from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply2
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import shape_ops, join_ops, dim_ops
from . import op_util as U
from .array_util import _like_shape
from .scatter_ops import _dim, _index_tensor, _iota, scatter_nd
from .split_pad_ops import split
from .. import late

_INDEX_TYPES = U.INDEX


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
            before, mid, after = split(shape_ops.shape(x), [axis, 1, -1], num=3)
            inner = join_ops.concat([before, mid, [r], after], 0)
        return [_like_shape(late.reduce_sum(shape_ops.reshape(g, inner), axis=axis + 1), x), None]
    # Per-element repeats: scatter-add the copies back onto their source.
    rank = x.shape.rank
    if rank is None:
        raise ValueError("The gradient of repeat with per-element repeats needs an input of "
                         "known rank")
    src = apply2(_Repeat, _iota(_dim(x, axis)), repeats, {"axis": 0}, name="Repeat")
    perm = [axis] + [i for i in range(rank) if i != axis]
    inverse = np.argsort(perm).tolist()
    moved = dim_ops.transpose(g, perm)
    summed = scatter_nd(dim_ops.expand_dims(src, 1), moved,
                        shape_ops.shape(dim_ops.transpose(x, perm)))
    return [_like_shape(dim_ops.transpose(summed, inverse), x), None]


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
        x = shape_ops.reshape(x, [-1])
        axis = 0
    elif x.shape.rank == 0:
        x = shape_ops.reshape(x, [1])
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
    if x.dtype.kind == "c":
        # The op takes complex numbers; TensorFlow has no CPU kernel for them.
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
            f"[T=DT_{U.tf_type_name(D.as_dtype(x.dtype)).upper()}, "
            f"out_idx=DT_{U.tf_type_name(out_idx).upper()}]")
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
        # The first occurrence's value (of -0.0 and 0.0, the one seen first).
        y = x[first[order]]
        idx = rank[np.reshape(inv, -1)].astype(out_idx._np)
    counts = np.bincount(idx, minlength=len(y)).astype(out_idx._np)
    return y, idx, counts


def _unique_slices(x, axis, out_idx, op_name):
    """UniqueV2's distinct slices `x[..., i, ...]` along `axis` (`[]`: the
    elements of a vector), as TensorFlow compares them: elementwise `==`, so
    -0.0 equals 0.0 and a slice holding NaN equals no other."""
    axis = np.reshape(axis, -1)
    if axis.size > 1:
        raise U.op_error(op_name, "axis does not support input tensors larger than 1 "
                         "elements")
    if axis.size == 0:
        return _unique_parts(x, out_idx, op_name)
    a = int(axis[0])
    a = a + x.ndim if a < 0 else a
    if not 0 <= a < x.ndim:
        raise U.op_error(op_name, f"axis has to be between [0, {x.ndim})")
    n = x.shape[a]
    if x.size == n:     # one element per slice: TensorFlow's element path
        y, idx, counts = _unique_parts(x.reshape(-1), out_idx, op_name)
        shape = list(x.shape)
        shape[a] = y.size
        return y.reshape(shape), idx, counts
    rows = np.moveaxis(x, a, 0).reshape(n, -1)
    if rows.dtype.kind in "fc":
        rows = rows + rows.dtype.type(0)     # -0.0 + 0.0 is 0.0: equal slices, equal keys
    seen, firsts = {}, []
    idx = np.empty(n, dtype=out_idx._np)
    for i, row in enumerate(rows):
        if rows.dtype.kind in "fc" and np.isnan(row).any():
            key = ("nan", i)        # never equal to another slice
        else:
            key = tuple(row) if rows.dtype.kind == "O" else row.tobytes()
        j = seen.setdefault(key, len(seen))
        if j == len(firsts):
            firsts.append(i)
        idx[i] = j
    y = np.take(x, np.array(firsts, dtype=np.int64), axis=a)
    counts = np.bincount(idx, minlength=len(firsts)).astype(out_idx._np)
    return y, idx, counts


def _unique_v2_kernel(x, axis, out_idx=D.int32):
    y, idx, _ = _unique_slices(x, axis, out_idx, "UniqueV2")
    return y, idx


def _unique_with_counts_v2_kernel(x, axis, out_idx=D.int32):
    return _unique_slices(x, axis, out_idx, "UniqueWithCountsV2")


def _unique_v2_infer(n_out):
    def infer(inputs, attrs):
        x, axis = inputs
        if axis.shape.rank is not None and axis.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {axis.shape.rank}")
        a = U.constant_value(axis)
        dims = [None] * x.shape.rank if x.shape.rank is not None else None
        if a is not None and dims is not None:
            a = np.reshape(a, -1)
            if a.size == 0:
                dims = [None]
            else:
                k = int(a[0]) + (x.shape.rank if int(a[0]) < 0 else 0)
                dims = [d if i != k else None for i, d in enumerate(x.shape.as_list())]
        n = None
        if a is not None and x.shape.rank is not None:
            n = x.shape[0] if a.size == 0 else x.shape[k]
        out = [(TensorShape(dims), x.dtype), (TensorShape([n]), attrs["out_idx"])]
        if n_out == 3:
            out.append((TensorShape([None]), attrs["out_idx"]))
        return out
    return infer


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


_UniqueV2 = register("UniqueV2", _unique_v2_kernel, _unique_v2_infer(2), None)
_UniqueWithCountsV2 = register("UniqueWithCountsV2", _unique_with_counts_v2_kernel,
                               _unique_v2_infer(3), None)


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


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_roll(ctx, op, x, shift, axis):
    axes = tuple(a % XL.jnp.ndim(x) for a in XL.ints(ctx.static(op, 2, axis)))
    if ctx.is_static(shift):
        return XL.jnp.roll(x, XL.ints(shift), axes)
    shift = XL.jnp.reshape(shift, -1)
    for k, a in enumerate(axes):
        x = XL.jnp.roll(x, shift[k], a)
    return x


def _lower_repeat(ctx, op, x, repeats, axis):
    r = ctx.static(op, 1, repeats)
    a = XL.ints(ctx.static(op, 2, axis))[0]
    return XL.jnp.repeat(x, r if np.ndim(r) and np.size(r) > 1 else int(np.reshape(r, -1)[0]),
                         axis=a)


XL.set_lowerings({"Roll": _lower_roll, "Repeat": _lower_repeat})
