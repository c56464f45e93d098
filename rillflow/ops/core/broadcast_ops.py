"""Repeating and broadcasting: tile, broadcast_to, the broadcast shape arithmetic
(broadcast_static_shape, broadcast_dynamic_shape, BroadcastGradientArgs), and where.

`where(condition, x, y)` is here because it is a broadcasting select: its three operands
broadcast together and its gradient sums back to each operand's shape (`_sum_to`), as
broadcast_to's does. `where(condition)` alone (coordinates of the True elements) is the
same TensorFlow function, so it stays with it.
"""
import numpy as np

from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1, apply2
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, as_shape, dims_text
from . import op_util as U
from .. import late
from .array_util import (_convert_same_dtype, _index_input, _index_pair, _is_tensor_like,
                         _like_shape, _partial_values, _shape_from_tensor)
from .constant_ops import zeros_like
from .join_ops import stack
from .shape_ops import reshape, shape, size


# --- tile --------------------------------------------------------------------

def _tile_kernel(x, multiples):
    if multiples.ndim != 1:
        raise U.op_error("Tile", f"Expected multiples to be 1-D, but got shape "
                                 f"{dims_text(multiples.shape)}")
    if multiples.size != x.ndim:
        raise U.op_error("Tile", f"Expected multiples argument to be a vector of length {x.ndim} "
                                 f"but got length {multiples.size}")
    m = [int(v) for v in multiples]
    for i, v in enumerate(m):
        if v < 0:
            raise U.op_error("Tile", f"Expected multiples[{i}] >= 0, but got {v}")
    if x.dtype == np.uint16 and any(v != 1 for v in m) and x.size and all(m):
        # TensorFlow's CPU Tile has no uint16 case (it forwards the input
        # when nothing is tiled, and returns an empty result unchecked).
        raise errors.UnimplementedError(
            None, None, f"TileOp : The input data type is not supported, DataType : uint16, "
            f"Dimension : {x.ndim}")
    return np.tile(x, m) if m else x


def _tile_infer(inputs, attrs):
    x, m = inputs
    s = x.shape
    if m.shape.rank is not None and m.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {m.shape.rank}")
    mult = _partial_values(m)
    if mult is None:
        if s.rank is None:
            return [(TensorShape(None), x.dtype)]
        return [(TensorShape([None] * s.rank), x.dtype)]
    if s.rank is None:
        return [(TensorShape([None] * len(mult)), x.dtype)]
    if len(mult) != s.rank:
        raise ValueError(f"Shape must be rank {s.rank} but is rank {len(mult)}")
    for v in mult:
        if v is not None and v < 0:
            raise ValueError(f"Expected multiples >= 0, but got {v}")
    return [(TensorShape([None if d is None or k is None else d * k
                          for d, k in zip(s, mult)]), x.dtype)]


def _tile_grad(op, g):
    x, m = op.inputs
    # Split each axis i into (multiples[i], dim[i]) and sum over the repeats.
    split_shape = reshape(stack([m, shape(x, out_type=m.dtype)], axis=1), [-1])
    r = x.shape.rank
    if r is not None:
        axes = list(range(0, 2 * r, 2))
    else:
        axes = late.range(0, size(split_shape), 2)
    if r == 0:
        return [g, None]
    return [_like_shape(late.reduce_sum(reshape(g, split_shape), axis=axes), x), None]


_Tile = register("Tile", _tile_kernel, _tile_infer, _tile_grad)


@export("tile")
def tile(input, multiples, name=None):  # noqa: A002
    """Repeats the tensor `multiples[i]` times along each dimension i."""
    x = convert_to_tensor(input)
    m = _index_input(multiples, "Tile", "multiples", "Tmultiples")
    return apply2(_Tile, x, m, name=name or "Tile")


# --- broadcast_to ------------------------------------------------------------

def _broadcast_to_kernel(x, shape):
    if shape.ndim != 1:
        raise U.op_error("BroadcastTo", f"shape must be a vector of {{int32,int64}}, got shape "
                                        f"{dims_text(shape.shape)}")
    target = [int(d) for d in shape]
    for d in target:
        if d < 0:
            raise U.op_error("BroadcastTo", f"Dimension {d} must be >= 0")
    if x.ndim > len(target):
        raise U.op_error("BroadcastTo", f"Rank of input ({x.ndim}) must be no greater than rank "
                                        f"of output shape ({len(target)}).")
    for a, b in zip(reversed(x.shape), reversed(target)):
        if a != b and a != 1:
            raise U.op_error("BroadcastTo", f"Incompatible shapes: {dims_text(x.shape)} vs. "
                                            f"{dims_text(target)}")
    return np.broadcast_to(x, target)


def _broadcast_to_infer(inputs, attrs):
    x, s = inputs
    if s.shape.rank is not None and s.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.shape.rank}")
    target = _shape_from_tensor(s)
    if target.rank is None or x.shape.rank is None:
        return [(target, x.dtype)]
    xr, tr = x.shape.rank, target.rank
    if xr > tr:
        raise ValueError(f"Shape must be at most rank {tr} but is rank {xr}")
    dims = target.as_list()
    for i, d in enumerate(x.shape.as_list()):
        j = tr - xr + i
        t = dims[j]
        if d is None or d == 1:
            continue
        if t is None:
            dims[j] = d
        elif t != d:
            raise ValueError(f"Dimensions must be equal, but are {d} and {t}")
    return [(TensorShape(dims), x.dtype)]


def _broadcast_to_grad(op, g):
    return [late._sum_to(g, op.inputs[0]), None]


_BroadcastTo = register("BroadcastTo", _broadcast_to_kernel, _broadcast_to_infer,
                        _broadcast_to_grad)


@export("broadcast_to")
def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts `input` to `shape` (NumPy broadcasting rules)."""
    x = convert_to_tensor(input)
    s = _index_input(shape, "BroadcastTo", "shape", "Tidx")
    return apply2(_BroadcastTo, x, s, name=name or "BroadcastTo")


# --- broadcast shape arithmetic ---------------------------------------------

def _bga_kernel(s0, s1):
    a0 = [int(d) for d in s0]
    a1 = [int(d) for d in s1]
    dt = s0.dtype
    if a0 == a1:
        return np.zeros(0, dt), np.zeros(0, dt)
    n = max(len(a0), len(a1))
    x = [1] * (n - len(a0)) + a0
    y = [1] * (n - len(a1)) + a1
    r0, r1 = [], []
    for i, (p, q) in enumerate(zip(x, y)):
        if p == 1 and q == 1:
            r0.append(i)
            r1.append(i)
        elif p == q:
            continue
        elif p == 1:
            r0.append(i)
        elif q == 1:
            r1.append(i)
        else:
            raise U.op_error("BroadcastGradientArgs", f"Incompatible shapes: {dims_text(a0)} vs. "
                                                      f"{dims_text(a1)}")
    return np.array(r0, dtype=dt), np.array(r1, dtype=dt)


def _bga_infer(inputs, attrs):
    s0, s1 = inputs
    if s0.dtype is not s1.dtype:
        raise TypeError(f"Input 's1' of 'BroadcastGradientArgs' Op has type {s1.dtype.name} "
                        f"that does not match type {s0.dtype.name} of argument 's0'.")
    return [(TensorShape([None]), s0.dtype), (TensorShape([None]), s0.dtype)]


_BroadcastGradientArgs = register("BroadcastGradientArgs", _bga_kernel, _bga_infer,
                                  lambda op, g0, g1: [None, None])


def broadcast_gradient_args(s0, s1, name=None):
    """The axes to reduce over for the gradients of two broadcast operands
    (the shapes `s0` and `s1`)."""
    a, b = _index_pair(s0, s1, "BroadcastGradientArgs")
    return apply(_BroadcastGradientArgs, [a, b], name=name or "BroadcastGradientArgs",
                 multi=True)


@export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes.

    Raises:
      ValueError: if they are incompatible.
    """
    x, y = as_shape(shape_x), as_shape(shape_y)
    try:
        return U.broadcast_shapes(x, y)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting. Two shapes are compatible if "
                         f"for each dimension pair they are either equal or one of them is 1. "
                         f"Received: {x} and {y}.") from None


def _broadcast_args_kernel(s0, s1):
    a, b = [int(d) for d in s0], [int(d) for d in s1]
    try:
        out = np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        raise U.op_error("BroadcastArgs",
                         f"Incompatible shapes: {dims_text(a)} vs. {dims_text(b)}") from None
    return np.array(out, dtype=s0.dtype)


def _broadcast_args_infer(inputs, attrs):
    s0, s1 = inputs
    n0 = s0.shape[0] if s0.shape.rank == 1 else None
    n1 = s1.shape[0] if s1.shape.rank == 1 else None
    n = None if n0 is None or n1 is None else max(n0, n1)
    return [(TensorShape([n]), s0.dtype)]


_BroadcastArgs = register("BroadcastArgs", _broadcast_args_kernel, _broadcast_args_infer,
                          lambda op, g: [None, None])


@export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two 1-D shape tensors (computed at run time in graphs).

    Raises:
      InvalidArgumentError: if the shapes are incompatible.
    """
    a, b = _index_pair(shape_x, shape_y, "BroadcastArgs")
    return apply2(_BroadcastArgs, a, b, name="BroadcastArgs")


# --- where / select ----------------------------------------------------------

# Below this many elements np.where is as fast as the bit select.
_BIT_SELECT_MIN = 4096
_BITS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def select_values(c, x, y):
    """`np.where(c, x, y)` with the same result bit for bit, computed on the
    values' bits for large arrays: NumPy's where branches on every element,
    and on an irregular mask (dropout's, a relu's) it costs ten times a
    plain pass; `y ^ ((x ^ y) & -c)` on integer views costs three."""
    bits = _BITS.get(x.dtype.itemsize)
    if (bits is None or x.dtype != y.dtype or x.dtype.kind not in "fiubc" or c.dtype != bool
            or max(c.size, x.size, y.size) < _BIT_SELECT_MIN):
        return np.where(c, x, y)
    mask = np.negative(np.asarray(c).view(np.int8))          # 0 or -1 (all ones)
    xb, yb = np.asarray(x).view(bits), np.asarray(y).view(bits)
    if y.ndim == 0 and not yb:        # where(c, x, 0): the mask alone
        out = np.bitwise_and(xb, mask, dtype=bits)
    else:
        # The result at the broadcast shape of all three (x ^ y alone may be
        # smaller than the condition: where(vector, scalar, scalar)).
        out = np.empty(np.broadcast_shapes(mask.shape, xb.shape, yb.shape), bits)
        np.bitwise_xor(xb, yb, out=out)
        np.bitwise_and(out, mask, out=out, casting="unsafe")
        np.bitwise_xor(out, yb, out=out)
    return out.view(x.dtype)


def _select_kernel(c, x, y):
    try:
        out = select_values(c, x, y)
    except ValueError:
        raise U.op_error("SelectV2", f"condition {dims_text(c.shape)}, then "
                                     f"{dims_text(x.shape)}, and else {dims_text(y.shape)} "
                                     "must be broadcastable") from None
    if out.dtype != x.dtype:
        out = out.astype(x.dtype)
    return out


def _select_infer(inputs, attrs):
    c, x, y = inputs
    if x.dtype is not y.dtype:
        raise TypeError(f"Input 'e' of 'SelectV2' Op has type {y.dtype.name} that does not "
                        f"match type {x.dtype.name} of argument 't'.")
    if c.dtype is not D.bool_:
        raise TypeError(f"Input 'condition' of 'SelectV2' Op has type {c.dtype.name} that does "
                        "not match expected type of bool.")
    s = U.broadcast_shapes(U.broadcast_shapes(c.shape, x.shape), y.shape)
    return [(s, x.dtype)]


def _select_grad(op, g):
    c, x, y = op.inputs
    z = zeros_like(g)
    return [None, late._sum_to(where(c, g, z), x), late._sum_to(where(c, z, g), y)]


_SelectV2 = register("SelectV2", _select_kernel, _select_infer, _select_grad)

_WHERE_TYPES = U.NUMERIC + (D.bool_,)


def _where_kernel(c):
    if c.ndim == 0:
        raise U.op_error("Where", "WhereOp : Unhandled input dimensions: 0")
    return np.argwhere(c).astype(np.int64)


def _where_infer(inputs, attrs):
    c = inputs[0]
    U.check_graph_dtype(c, _WHERE_TYPES, "input")
    return [(TensorShape([None, c.shape.rank]), D.int64)]


_Where = register("Where", _where_kernel, _where_infer, lambda op, g: [None], no_fold=True,
                  allowed=_WHERE_TYPES)


def _select_mismatch(i, dtypes):
    return TypeError(f"Input 'e' of 'SelectV2' Op has type {dtypes[1].name} that does not "
                     f"match type {dtypes[0].name} of argument 't'.")


@export("where")
def where(condition, x=None, y=None, name=None):
    """With x and y: elementwise `x if condition else y` (broadcasting all
    three). Alone: the int64 coordinates of the True (non-zero) elements,
    shape [n, rank].

    Raises:
      ValueError: if only one of x and y is given.
    """
    if x is None and y is None:
        c = convert_to_tensor(condition)
        if executing_eagerly() and c._v.dtype not in _Where.allowed_np:
            raise U._eager_disallowed(_Where, c)
        return apply1(_Where, c, name=name or "Where")
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if _is_tensor_like(condition):
        c = convert_to_tensor(condition)
        if c.dtype is not D.bool_:
            if executing_eagerly():
                raise ValueError(f"Tensor conversion requested dtype bool for Tensor with dtype "
                                 f"{c.dtype.name}: {c!r}")
            raise TypeError(f"Input 'condition' of 'SelectV2' Op has type {c.dtype.name} that "
                            "does not match expected type of bool.")
    elif isinstance(condition, (np.ndarray, np.generic)):
        c = convert_to_tensor(condition, dtype=D.bool_)
    else:
        c = convert_to_tensor(condition)
        if c.dtype is not D.bool_:
            raise TypeError(f"Cannot convert {condition!r} to EagerTensor of dtype bool")
    x, y = _convert_same_dtype([x, y], "SelectV2", _select_mismatch, first_input=1)
    return apply(_SelectV2, [c, x, y], name=name or "SelectV2")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

XL.set_lowerings({
    "Tile": lambda ctx, op, x, m: XL.jnp.tile(x, XL.ints(ctx.static(op, 1, m))),
    "BroadcastTo": lambda ctx, op, x, s: XL.jnp.broadcast_to(x, XL.ints(ctx.static(op, 1, s))),
    "BroadcastGradientArgs": XL.host_rule, "BroadcastArgs": XL.host_rule,
    "SelectV2": "jnp.where",
    # The number of true elements is the output's shape: known only for static input.
    "Where": XL.host_rule})
