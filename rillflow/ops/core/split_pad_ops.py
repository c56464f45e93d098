"""Cutting and growing a tensor along its axes: tf.split and tf.pad.

`split` cuts a tensor into pieces along an axis (`Split` for equal pieces,
`SplitV` for given sizes); `pad` grows one with constant, reflected or
symmetric borders (`Pad`, `PadV2`, `MirrorPad`, and `MirrorPadGrad` for the
gradient of the mirrored modes).
"""
import numpy as np

from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply2
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import shape_ops, constant_ops, join_ops
from . import op_util as U
from .array_util import (_convert_same_dtype, _index_input, _int_list_tensor,
                         _partial_values)
from .scatter_ops import _dim, _index_tensor
from .. import late

_INDEX_TYPES = U.INDEX


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
    gs = [g if g is not None else constant_ops.zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [None, join_ops.concat(gs, split_dim)]


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
    gs = [g if g is not None else constant_ops.zeros_like(o) for g, o in zip(grads, op.outputs)]
    return [join_ops.concat(gs, split_dim), None, None]


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
    a = _index_input(axis, "Split", "split_dim", "Tidx")
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
        fast = _int_list_tensor(sizes)
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
    return join_ops.unstack(p, num=2, axis=1)[0]


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
        return late.slice(g, begin, shape_ops.shape(x, out_type=begin.dtype))
    starts = join_ops.unstack(begin, num=r)
    for axis in range(r):
        n = late.cast(_dim(x, axis), begin.dtype)
        g = split(g, join_ops.stack([starts[axis], n, late.cast(-1, begin.dtype)]), axis=axis,
                  num=3)[1]
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


@export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """The paddings and crops that make `input_shape` (padded by
    `base_paddings`) divisible by `block_shape`, as TensorFlow computes them
    for space_to_batch: `(paddings, crops)`, each int32 `[num_block_dims, 2]`.

    Raises:
      ValueError: when `block_shape` is not a vector of known length, or the
        other arguments do not match it.
    """
    input_shape = convert_to_tensor(input_shape, dtype=D.int32, name="input_shape")
    block_shape = convert_to_tensor(block_shape, dtype=D.int32, name="block_shape")
    block_shape.shape.assert_is_fully_defined()
    block_shape.shape.assert_has_rank(1)
    n = block_shape.shape[0]
    if n == 0:
        return (constant_ops.zeros([0, 2], D.int32), constant_ops.zeros([0, 2], D.int32))
    input_shape.shape.assert_is_compatible_with([n])
    if base_paddings is not None:
        base_paddings = convert_to_tensor(base_paddings, dtype=D.int32, name="base_paddings")
        base_paddings.shape.assert_is_compatible_with([n, 2])
    else:
        base_paddings = constant_ops.zeros([n, 2], D.int32)
    values = [U.constant_value(t) for t in (block_shape, input_shape, base_paddings)]
    if all(v is not None for v in values):
        # Known now: the same arithmetic on NumPy, as TensorFlow's constant case.
        block, shape, base = (np.asarray(v, np.int32) for v in values)
        start, end = base[:, 0], base[:, 1]
        extra = (block - (shape + start + end) % block) % block
        return (convert_to_tensor(np.stack([start, end + extra], axis=1)),
                convert_to_tensor(np.stack([np.zeros_like(extra), extra], axis=1)))
    start, end = base_paddings[:, 0], base_paddings[:, 1]
    full = input_shape + start + end
    extra = late.floormod(block_shape - late.floormod(full, block_shape), block_shape)
    zero = constant_ops.zeros_like(extra)
    return (join_ops.stack([start, end + extra], axis=1), join_ops.stack([zero, extra], axis=1))


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_split(ctx, op, split_dim, value):
    a = XL.ints(ctx.static(op, 0, split_dim))[0] % max(XL.jnp.ndim(value), 1)
    n = op.attrs["num_split"]
    return _cut(value, a, [XL.jnp.shape(value)[a] // n] * n)


def _lower_splitv(ctx, op, value, size_splits, split_dim):
    a = XL.ints(ctx.static(op, 2, split_dim))[0] % max(XL.jnp.ndim(value), 1)
    return _cut(value, a, _resolve_sizes(ctx.static(op, 1, size_splits),
                                         XL.jnp.shape(value)[a]))


def _xla_pads(ctx, op, paddings):
    return [tuple(p) for p in np.reshape(XL.ints(ctx.static(op, 1, paddings)), (-1, 2))]


def _lower_mirror_pad(ctx, op, x, paddings):
    mode = "reflect" if op.attrs["mode"] == "REFLECT" else "symmetric"
    return XL.jnp.pad(x, _xla_pads(ctx, op, paddings), mode=mode)


def _lower_mirror_pad_grad(ctx, op, g, paddings):
    pads = _xla_pads(ctx, op, paddings)
    mode = "reflect" if op.attrs["mode"] == "REFLECT" else "symmetric"
    shape = tuple(d - a - b for d, (a, b) in zip(XL.jnp.shape(g), pads))
    zeros = XL.jnp.zeros(shape, g.dtype)
    return XL.jax.vjp(lambda x: XL.jnp.pad(x, pads, mode=mode), zeros)[1](g)[0]


XL.set_lowerings({
    "Split": _lower_split, "SplitV": _lower_splitv,
    "Pad": lambda ctx, op, x, p: XL.jnp.pad(x, _xla_pads(ctx, op, p)),
    "PadV2": lambda ctx, op, x, p, c: XL.jnp.pad(x, _xla_pads(ctx, op, p), constant_values=c),
    "MirrorPad": _lower_mirror_pad, "MirrorPadGrad": _lower_mirror_pad_grad})
