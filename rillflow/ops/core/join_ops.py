"""Joining and splitting along an axis: stack, unstack, concat (whose gradient splits
by the inputs' sizes along the axis, `_axis_sizes`).
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text, shape_text
from . import op_util as U
from .. import late
from .array_util import _check_scalar_axis, _convert_same_dtype, _index_input, _is_tensor_like
from .constant_ops import zeros_like
from .shape_ops import identity, rank, shape


# --- stack / unstack ---------------------------------------------------------

def _pack_kernel(*xs, axis=0, N=None):
    s = xs[0].shape
    for i, x in enumerate(xs[1:], 1):
        if x.shape != s:
            raise U.op_error("Pack", f"Shapes of all inputs must match: values[0].shape = "
                                     f"{dims_text(s)} != values[{i}].shape = {dims_text(x.shape)}")
    out = np.stack(xs, axis)
    if out.dtype != xs[0].dtype:
        out = out.astype(xs[0].dtype)
    return out


def _pack_infer(inputs, attrs):
    if not inputs:
        raise ValueError("Pack requires at least one input")
    dtype = inputs[0].dtype
    s = inputs[0].shape
    for t in inputs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'Pack' Op have types "
                            f"[{', '.join(x.dtype.name for x in inputs)}] that don't all match.")
        if s.rank is not None and t.shape.rank is not None and s.rank != t.shape.rank:
            raise ValueError(f"Shapes must be equal rank, but are {s.rank} and {t.shape.rank}")
        if not s.is_compatible_with(t.shape):
            i = next(i for i, (a, b) in enumerate(zip(s, t.shape))
                     if a is not None and b is not None and a != b)
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {s[i]} and "
                             f"{t.shape[i]}. Shapes are {shape_text(s)} and {shape_text(t.shape)}."
                             f"\n\tFrom merging shape 0 with other shapes.")
        s = s.merge_with(t.shape)
    if s.rank is None:
        return [(TensorShape(None), dtype)]
    axis = attrs["axis"]
    r = s.rank + 1
    if not -r <= axis < r:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    dims = s.as_list()
    dims.insert(axis % r, len(inputs))
    return [(TensorShape(dims), dtype)]


def _pack_grad(op, g):
    return unstack(g, num=len(op.inputs), axis=op.get_attr("axis"))


_Pack = register("Pack", _pack_kernel, _pack_infer, _pack_grad)


@export("stack")
def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along `axis`.

    Raises:
      ValueError: if `axis` is out of range.
      InvalidArgumentError (eager) / ValueError (graph): for different shapes.
    """
    if isinstance(values, Tensor):
        return identity(values, name=name)
    values = list(values)
    if axis == 0 and not any(_is_tensor_like(v) for v in values):
        # A list of Python/NumPy values is one constant.
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    if not values:
        raise ValueError("List argument 'values' to 'Pack' Op with length 0 shorter than "
                         "minimum length 1.")
    ts = _convert_same_dtype(values, "Pack", list_input=True)
    s = ts[0].shape
    if s.rank is not None:
        r = s.rank + 1
        if not -r <= axis < r:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
    return apply(_Pack, ts, {"axis": axis, "N": len(ts)}, name=name)


def _parallel_concat_kernel(*values, shape=None, N=None):
    return np.concatenate(values, 0)


_ParallelConcat = register(
    "ParallelConcat", _parallel_concat_kernel,
    lambda i, a: [(a["shape"], i[0].dtype)])


@export("parallel_stack")
def parallel_stack(values, name="parallel_stack"):
    """Stacks `values` along a new first axis, copying each in as it is ready
    (graph mode only; every value must have the first one's static shape).

    Raises:
      RuntimeError: when called eagerly.
    """
    if _context.executing_eagerly():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    with _context.state.graph.name_scope(name):
        ts = _convert_same_dtype(list(values), "ParallelConcat")
        out_shape = TensorShape([len(ts)]).concatenate(ts[0].shape)
        parts = [late.expand_dims(t, 0) for t in ts]
        return apply(_ParallelConcat, parts, {"shape": out_shape, "N": len(parts)},
                     name="ParallelConcat")


def _unpack_kernel(x, num, axis):
    if x.shape[axis] != num:
        raise U.op_error("Unpack", f"Input shape axis {axis} must equal {num}, got shape "
                                   f"{dims_text(x.shape)}")
    moved = np.moveaxis(x, axis, 0) if axis else x
    # `[i, ...]` keeps 0-d results arrays (string elements stay object arrays).
    return [moved[i, ...] for i in range(num)]


def _unpack_infer(inputs, attrs):
    s = inputs[0].shape
    axis, num = attrs["axis"], attrs["num"]
    if s.rank is None:
        return [(TensorShape(None), inputs[0].dtype)] * num
    if not -s.rank <= axis < s.rank:
        raise ValueError(f"axis = {axis} not in [{-s.rank}, {s.rank})")
    dims = s.as_list()
    d = dims.pop(axis)
    if d is not None and d != num:
        raise ValueError(f"Dimension must be {num} but is {d}")
    return [(TensorShape(dims), inputs[0].dtype)] * num


def _unpack_grad(op, *grads):
    axis = op.get_attr("axis")
    gs = [g if g is not None else zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [stack(gs, axis=axis)]


_Unpack = register("Unpack", _unpack_kernel, _unpack_infer, _unpack_grad)


@export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a rank-R tensor into a list of rank-(R-1) tensors along `axis`.

    Raises:
      ValueError: if `num` is not given and the dimension is not known, or
        `axis` is out of range.
    """
    x = convert_to_tensor(value)
    s = x.shape
    if s.rank is not None:
        if not -s.rank <= axis < s.rank:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-s.rank}, {s.rank})")
        axis %= s.rank
    if num is None:
        num = s[axis] if s.rank is not None else None
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    return apply(_Unpack, [x], {"num": num, "axis": axis}, name=name, multi=True)


# --- concat ------------------------------------------------------------------

def _concat_kernel(*args, N=None):
    *xs, axis = args
    if axis.size != 1:
        raise U.op_error("ConcatV2", f"Concat dim tensor should be a scalar integer, but got "
                                     f"shape {dims_text(axis.shape)}")
    axis = int(np.reshape(axis, -1)[0])
    r = xs[0].ndim
    if r == 0:
        raise U.op_error("ConcatV2", "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -r <= axis < r:
        raise U.op_error("ConcatV2", f"ConcatOp : Expected concatenating dimensions in the range "
                                     f"[{-r}, {r}), but got {axis}")
    a = axis % r
    try:
        out = np.concatenate(xs, axis=a)
    except ValueError:
        s0 = xs[0].shape
        for i, x in enumerate(xs[1:], 1):
            if x.ndim != r:
                raise U.op_error("ConcatV2", f"ConcatOp : Ranks of all input tensors should "
                                             f"match: shape[0] = {dims_text(s0)} vs. shape[{i}] = "
                                             f"{dims_text(x.shape)}") from None
            for j in range(r):
                if j != a and x.shape[j] != s0[j]:
                    raise U.op_error("ConcatV2", f"ConcatOp : Dimension {j} in both shapes must "
                                                 f"be equal: shape[0] = {dims_text(s0)} vs. "
                                                 f"shape[{i}] = {dims_text(x.shape)}") from None
        raise
    if out.dtype != xs[0].dtype:
        out = out.astype(xs[0].dtype)
    return out


def _concat_infer(inputs, attrs):
    *xs, axis_t = inputs
    dtype = xs[0].dtype
    for t in xs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'values' of 'ConcatV2' Op have types "
                            f"[{', '.join(x.dtype.name for x in xs)}] that don't all match.")
    _check_scalar_axis(axis_t)
    ranks = [t.shape.rank for t in xs if t.shape.rank is not None]
    if not ranks:
        return [(TensorShape(None), dtype)]
    r = ranks[0]
    for q in ranks:
        if q != r:
            raise ValueError(f"Shape must be rank {r} but is rank {q}")
    axis = U.constant_value(axis_t)
    if axis is None:
        return [(TensorShape([None] * r), dtype)]
    axis = int(np.reshape(axis, -1)[0])
    if r == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    if axis >= r:
        raise ValueError(f"Shape must be at least rank {axis + 1} but is rank {r}")
    if axis < -r:
        raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range "
                         f"[{-r}, {r}), but got {axis}")
    axis %= r
    dims = [None] * r
    first = None
    total = 0
    for t in xs:
        if t.shape.rank is None:
            total = None
            continue
        rest = [d for i, d in enumerate(t.shape.as_list()) if i != axis]
        if first is None:
            first = rest
        for i, d in enumerate(t.shape.as_list()):
            if i == axis:
                continue
            if dims[i] is None:
                dims[i] = d
            elif d is not None and d != dims[i]:
                raise ValueError(
                    f"Dimension {i if i < axis else i - 1} in both shapes must be equal, but are "
                    f"{dims[i]} and {d}. Shapes are {shape_text(TensorShape(first))} and "
                    f"{shape_text(TensorShape(rest))}.")
        d = t.shape[axis]
        total = None if (total is None or d is None) else total + d
    dims[axis] = total
    return [(TensorShape(dims), dtype)]


def _axis_sizes(xs, axis):
    """The size of each tensor of `xs` along `axis` (ints when known, else
    one int32 tensor of all sizes)."""
    a = U.constant_value(axis)
    if a is not None and all(x.shape.rank is not None for x in xs):
        a = int(np.reshape(a, -1)[0]) % xs[0].shape.rank
        sizes = [x.shape[a] for x in xs]
        if all(s is not None for s in sizes):
            return sizes
        mask = np.zeros(xs[0].shape.rank, np.int32)
        mask[a] = 1
        mask = convert_to_tensor(mask)
    else:
        axis = convert_to_tensor(axis)
        r = rank(xs[0])
        mask = one_hot_axis(late.floormod(axis, r), r)
    return stack([late.reduce_sum(shape(x) * mask) for x in xs])


def _concat_grad(op, g):
    *xs, axis = op.inputs
    sizes = _axis_sizes(xs, axis)
    return list(late.split(g, sizes, axis=axis, num=len(xs))) + [None]


def one_hot_axis(axis, r):
    """A 1-D int32 vector of length `r` with a 1 at `axis` (dynamic helper)."""
    return late.cast(late.equal(late.range(r), axis), D.int32)


_ConcatV2 = register("ConcatV2", _concat_kernel, _concat_infer, _concat_grad)


@export("concat")
def concat(values, axis, name="concat"):
    """Joins tensors along an existing dimension `axis`.

    Raises:
      InvalidArgumentError (eager) / ValueError (graph): for incompatible
        shapes or an out-of-range axis.
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        a = convert_to_tensor(axis, dtype=D.int32)
        if a.shape.rank is not None and a.shape.rank != 0:
            raise ValueError(f"Shape {a.shape} must have rank 0")
        return identity(values[0], name=name)
    if not values:
        raise ValueError("List argument 'values' to 'ConcatV2' Op with length 0 shorter than "
                         "minimum length 2.")
    ts = _convert_same_dtype(values, "ConcatV2", list_input=True)
    a = _index_input(axis, "ConcatV2", "axis", "Tidx")
    return apply(_ConcatV2, ts + [a], {"N": len(ts)}, name=name)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_unpack(ctx, op, x):
    axis = op.attrs["axis"]
    return [XL.jnp.take(x, i, axis=axis) for i in range(XL.jnp.shape(x)[axis])]


XL.set_lowerings({
    "Pack": lambda ctx, op, *xs: XL.jnp.stack(xs, axis=op.attrs.get("axis", 0)),
    "Unpack": _lower_unpack,
    "ConcatV2": lambda ctx, op, *xs: XL.jnp.concatenate(
        xs[:-1], axis=int(ctx.static(op, len(xs) - 1, xs[-1])))})
