"""Moving blocks of spatial positions into the batch and back:
`tf.space_to_batch_nd` (`tf.space_to_batch`, `tf.nn.space_to_batch`),
`tf.batch_to_space`, `tf.required_space_to_batch_paddings` and
`tf.nn.with_space_to_batch` (an op run on the space-to-batch form, as atrous
convolutions are), with the SpaceToBatchND/BatchToSpaceND ops (each the
other's gradient) and TensorFlow 1's SpaceToBatch/BatchToSpace."""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.creation_ops import name_scope
from ..core.join_ops import concat, stack
from ..core.shape_ops import shape as _shape

_INDEX = (D.int32, D.int64)
# The CPU kernels' types (TF_CALL_REAL_NUMBER_TYPES); others have no kernel.
_ALLOWED = tuple(d for d in (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8,
                             D.int64, D.bfloat16, D.uint16, D.float16, D.uint32, D.uint64)
                 if d is not None)


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


def _check_block(input_shape, block, pads, what):
    """The kernel's argument checks (spacetobatch_op.cc / batchtospace_op.cc)."""
    if block.ndim != 1:
        raise _invalid(f"block_shape rank should be 1 instead of {block.ndim}")
    m = block.shape[0]
    if len(input_shape) < 1 + m:
        raise _invalid(f"input rank should be >= {1 + m} instead of {len(input_shape)}")
    if pads.shape != (m, 2):
        raise _invalid(f"{what} should have shape [{m}, 2] instead of "
                       f"[{','.join(str(d) for d in pads.shape)}]")
    for i, b in enumerate(block):
        if b < 1:
            raise _invalid(f"All values in block_shape must be positive, got value, {b} at "
                           f"index {i}.")
    if (pads < 0).any():
        raise _invalid(f"{what.capitalize()} must be non-negative")


def _space_to_batch_kernel(x, block_shape, paddings, **_):
    block = np.asarray(block_shape, np.int64)
    pads = np.asarray(paddings, np.int64)
    _check_block(x.shape, block, pads, "paddings")
    m = block.shape[0]
    batch, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    padded = [int(s + a + b) for s, (a, b) in zip(spatial, pads)]
    for i, (p, b) in enumerate(zip(padded, block)):
        if p % b:
            raise _invalid(f"padded_shape[{i}]={p} is not divisible by block_shape[{i}]={b}")
    xp = np.pad(x, [(0, 0)] + [(int(a), int(b)) for a, b in pads] + [(0, 0)] * len(rest))
    # [batch, p0/b0, b0, p1/b1, b1, ..., rest] -> [b0, b1, ..., batch, p0/b0, ..., rest]
    split = [batch]
    for p, b in zip(padded, block):
        split += [p // int(b), int(b)]
    y = xp.reshape(split + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    y = y.transpose(perm)
    return np.ascontiguousarray(y).reshape(
        [batch * int(np.prod(block))] + [p // int(b) for p, b in zip(padded, block)] + list(rest))


def _batch_to_space_kernel(x, block_shape, crops, **_):
    block = np.asarray(block_shape, np.int64)
    crop = np.asarray(crops, np.int64)
    _check_block(x.shape, block, crop, "crops")
    m = block.shape[0]
    prod = int(np.prod(block))
    batch, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    if batch % prod:
        raise _invalid(f"Input batch dimension ({batch}) is not divisible by product of block "
                       f"sizes ({prod})")
    for i, (s, b, (a, c)) in enumerate(zip(spatial, block, crop)):
        cropped = s * b - a - c
        if cropped < 0:
            raise _invalid(f"cropped_shape[{i}]={cropped} must be non-negative")
    y = x.reshape([int(b) for b in block] + [batch // prod] + list(spatial) + list(rest))
    # [b0, ..., bm-1, batch', s0, ..., rest] -> [batch', s0, b0, s1, b1, ..., rest]
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = np.ascontiguousarray(y.transpose(perm)).reshape(
        [batch // prod] + [int(s * b) for s, b in zip(spatial, block)] + list(rest))
    index = (slice(None),) + tuple(slice(int(a), int(s * b - c)) for s, b, (a, c) in
                                   zip(spatial, block, crop))
    return np.ascontiguousarray(y[index])


def _infer(to_batch):
    def infer(inputs, attrs):
        x, block_t, pads_t = inputs[0], inputs[1], inputs[2]
        block = U.constant_value(block_t)
        pads = U.constant_value(pads_t)
        if block_t.shape.rank is not None and block_t.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {block_t.shape.rank}")
        m = block_t.shape[0] if block_t.shape.rank == 1 else None
        if pads_t.shape.rank is not None and pads_t.shape.rank != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {pads_t.shape.rank}")
        if x.shape.rank is None or m is None:
            return [(TensorShape(None), x.dtype)]
        if x.shape.rank < 1 + m:
            raise ValueError(f"Shape must be at least rank {1 + m} but is rank {x.shape.rank}")
        dims = x.shape.as_list()
        rest = dims[1 + m:]
        if block is None:
            return [(TensorShape([None] * (1 + m) + rest), x.dtype)]
        block = np.asarray(block, np.int64).reshape(-1)
        prod = int(np.prod(block))
        if to_batch:
            batch = None if dims[0] is None else dims[0] * prod
        else:
            if dims[0] is not None and dims[0] % prod:
                raise ValueError(f"Dimension size must be evenly divisible by {prod} but is "
                                 f"{dims[0]}")
            batch = None if dims[0] is None else dims[0] // prod
        if pads is None:
            return [(TensorShape([batch] + [None] * m + rest), x.dtype)]
        pads = np.asarray(pads, np.int64).reshape(m, 2)
        spatial = []
        for s, b, (a, c) in zip(dims[1:1 + m], block, pads):
            if s is None:
                spatial.append(None)
            elif to_batch:
                p = s + a + c
                if p % b:
                    raise ValueError(f"Dimension size must be evenly divisible by {b} but is "
                                     f"{p}")
                spatial.append(int(p // b))
            else:
                spatial.append(int(s * b - a - c))
        return [(TensorShape([batch] + spatial + rest), x.dtype)]
    return infer


def _space_to_batch_grad(op, grad):
    return [batch_to_space_nd(grad, op.inputs[1], op.inputs[2]), None, None]


def _batch_to_space_grad(op, grad):
    return [space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None]


_SpaceToBatchND = register("SpaceToBatchND", _space_to_batch_kernel, _infer(True),
                           _space_to_batch_grad, allowed=_ALLOWED)
_BatchToSpaceND = register("BatchToSpaceND", _batch_to_space_kernel, _infer(False),
                           _batch_to_space_grad, allowed=_ALLOWED)


def _v1_kernel(nd_kernel):
    # TensorFlow 1's 2-D ops: one block size for both spatial dimensions.
    def kernel(x, paddings, block_size=2, **_):
        if block_size <= 1:
            raise _invalid(f"Block size should be > 1: {block_size}")
        if x.ndim != 4:
            raise _invalid(f"input rank should be 4 instead of {x.ndim}")
        return nd_kernel(x, np.array([block_size, block_size]), paddings)
    return kernel


def _v1_infer(nd_infer):
    def infer(inputs, attrs):
        b = attrs.get("block_size", 2)
        return nd_infer([inputs[0], EagerTensor(np.array([b, b], np.int64)),
                         inputs[1]], attrs)
    return infer


def _v1_grad(nd):
    def grad(op, g):
        b = op.get_attr("block_size")
        return [nd(g, [b, b], op.inputs[1]), None]
    return grad


def _dt(d):
    return "DT_" + {"float32": "FLOAT", "float64": "DOUBLE", "float16": "HALF"}.get(
        d.name, d.name.upper())


def _check_args(x, block_shape, pads, op_name, pads_name):
    x = convert_to_tensor(x)
    block_shape = convert_to_tensor(block_shape, dtype_hint=D.int32)
    pads = convert_to_tensor(pads, dtype_hint=D.int32)
    U.check_dtype(op_name, block_shape, _INDEX, "Tblock_shape", "block_shape")
    U.check_dtype(op_name, pads, _INDEX, "T" + pads_name, pads_name)
    if x.dtype not in _ALLOWED:
        # The op takes any type, but only these have a CPU kernel.
        raise _errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {op_name}}}}} = {op_name}"
            f"[T={_dt(x.dtype)}, Tblock_shape={_dt(block_shape.dtype)}, "
            f"T{pads_name}={_dt(pads.dtype)}]")
    return x, block_shape, pads


@export("space_to_batch_nd", "compat.v1.manip.space_to_batch_nd")
def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Zero-pads the spatial dimensions (`paddings`, [M, 2]) and moves each
    `block_shape` block of positions into the batch: an input
    `[batch] + spatial + rest` becomes `[batch * prod(block_shape)] +
    padded / block_shape + rest`."""
    x, b, p = _check_args(input, block_shape, paddings, "SpaceToBatchND", "paddings")
    return apply(_SpaceToBatchND, [x, b, p], name=name or "SpaceToBatchND")


@export("space_to_batch", "nn.space_to_batch")
def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002
    """`tf.space_to_batch_nd` (TensorFlow 2's `tf.space_to_batch`)."""
    return space_to_batch_nd(input, block_shape, paddings, name)


@export("compat.v1.batch_to_space_nd", "compat.v1.manip.batch_to_space_nd")
def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of `space_to_batch_nd`: moves blocks of the batch back into
    the spatial dimensions, then crops them (`crops`, [M, 2])."""
    x, b, c = _check_args(input, block_shape, crops, "BatchToSpaceND", "crops")
    return apply(_BatchToSpaceND, [x, b, c], name=name or "BatchToSpaceND")


@export("batch_to_space")
def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002
    """`batch_to_space_nd`; an int `block_shape` is the block size of both of
    two spatial dimensions."""
    if isinstance(block_shape, int):
        block_shape = np.array([block_shape, block_shape], dtype=np.int64)
    return batch_to_space_nd(input, block_shape, crops, name)


_SpaceToBatch = register("SpaceToBatch", _v1_kernel(_space_to_batch_kernel),
                         _v1_infer(_infer(True)), _v1_grad(batch_to_space_nd),
                         allowed=_ALLOWED)
_BatchToSpace = register("BatchToSpace", _v1_kernel(_batch_to_space_kernel),
                         _v1_infer(_infer(False)), _v1_grad(space_to_batch_nd),
                         allowed=_ALLOWED)


@export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None):
    """The paddings and crops for `space_to_batch_nd`/`batch_to_space_nd` that
    make the padded spatial shape divisible by `block_shape`.

    Returns `(paddings, crops)`, int32 [M, 2]: `paddings` is `base_paddings`
    (default zeros) with the end extended to a multiple of the block, `crops`
    that extension.

    Raises:
      ValueError: if `block_shape` is not a 1-D vector of known length.
    """
    with name_scope(name or "required_space_to_batch_paddings"):
        input_shape = convert_to_tensor(input_shape, D.int32)
        block_shape = convert_to_tensor(block_shape, D.int32)
        if block_shape.shape.rank != 1 or block_shape.shape[0] is None:
            raise ValueError(f"Shape {block_shape.shape} must have rank 1 and be fully "
                             "defined")
        m = block_shape.shape[0]
        if m == 0:
            z = np.zeros([0, 2], np.int32)
            return constant_value_tensor(z), constant_value_tensor(z)
        input_shape.shape.assert_is_compatible_with([m])
        if base_paddings is not None:
            base_paddings = convert_to_tensor(base_paddings, D.int32)
            base_paddings.shape.assert_is_compatible_with([m, 2])
        else:
            base_paddings = constant_value_tensor(np.zeros([m, 2], np.int32))
        cb, ci, cp = (U.constant_value(t) for t in (block_shape, input_shape, base_paddings))
        if cb is not None and ci is not None and cp is not None:
            block_shape, input_shape, base_paddings = cb, ci, cp
        pad_start = base_paddings[:, 0]
        orig_end = base_paddings[:, 1]
        full = input_shape + pad_start + orig_end
        extra = (block_shape - full % block_shape) % block_shape
        pad_end = orig_end + extra
        paddings = stack([[pad_start[i], pad_end[i]] for i in range(m)], name="paddings")
        crops = stack([[0, extra[i]] for i in range(m)], name="crops")
        return paddings, crops


def _adjust(orig, fill_value, spatial_dims):
    """`orig` [len(spatial_dims), ...] spread to [max(spatial_dims), ...] with
    `fill_value` at the dimensions that are not spatial (TensorFlow's
    `_with_space_to_batch_adjust`)."""
    const = U.constant_value(orig)
    src = const if const is not None else orig
    fill_dims = list(orig.shape[1:]) if hasattr(orig, "shape") else list(np.shape(orig)[1:])
    dtype = np.int32
    parts, prev, i = [], 0, 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - prev] + fill_dims, fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(src[start_i:i + 1])
        prev = spatial_dims[i]
        i += 1
    if const is not None:
        return np.concatenate(parts)
    return concat(parts, 0)


@export("nn.with_space_to_batch")
def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):
    """Runs `op(converted_input, num_spatial_dims, padding)` on the
    space-to-batch form of `input` with blocks of `dilation_rate`, and turns
    its result back: an op with "VALID" padding on the dilated input, as
    atrous convolution and pooling do. With all rates 1 it is `op` itself.

    Raises:
      ValueError: a malformed `dilation_rate`, `spatial_dims` or `padding`,
        a non-positive rate, an input of too low rank, or "SAME" padding
        without `filter_shape`.
    """
    x = convert_to_tensor(input)
    rate = convert_to_tensor(dilation_rate, D.int32)
    if rate.shape.rank not in (None, 1):
        raise ValueError("`dilation_rate.shape.rank` must be 1. Received: "
                         f"dilation_rate={rate} of rank {rate.shape.rank}")
    if not rate.shape.is_fully_defined():
        raise ValueError("`dilation_rate.shape` must be fully defined. Received: "
                         f"dilation_rate={rate} with shape {rate.shape}")
    m = rate.shape[0]
    nc = data_format is not None and data_format.startswith("NC")
    start = 2 if nc else 1
    if spatial_dims is None:
        spatial_dims = range(start, m + start)
    orig = list(spatial_dims)
    spatial_dims = sorted(set(int(d) for d in orig))
    if spatial_dims != orig or any(d < 1 for d in spatial_dims):
        raise ValueError("`spatial_dims` must be a monotonically increasing sequence of "
                         f"positive integers. Received: spatial_dims={orig}")
    rank = spatial_dims[-1] if nc else spatial_dims[-1] + 1
    if x.shape.rank is not None and x.shape.rank < rank:
        raise ValueError(f"`input.shape.rank` must be at least {rank}. Received: "
                         f"input.shape={x.shape} with rank {x.shape.rank}")
    const_rate = U.constant_value(rate)
    rate_value = rate if const_rate is None else const_rate
    if const_rate is not None:
        if np.any(const_rate < 1):
            raise ValueError(f"`dilation_rate` must be positive. Received: "
                             f"dilation_rate={const_rate}")
        if np.all(const_rate == 1):
            return op(x, m, padding)
    explicit = None
    if isinstance(padding, (list, tuple)):
        explicit = [p for pair in padding for p in pair]
        padding = "EXPLICIT"
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("`filter_shape` must be specified for `padding='SAME'`. "
                             f"Received: filter_shape={filter_shape} and padding={padding}")
        fs = convert_to_tensor(filter_shape)
        cfs = U.constant_value(fs)
        fs = cfs if cfs is not None else fs
        extra = (fs[:m] - 1) * rate_value
        extra_start = extra // 2
        extra_end = extra - extra_start
        base = stack([[extra_start[i], extra_end[i]] for i in range(m)])
    elif padding == "VALID":
        base = np.zeros([m, 2], np.int32)
    elif padding == "EXPLICIT":
        full = np.array(explicit).reshape([m + 2, 2])
        base = full[2:] if nc else full[1:-1]
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: "
                         f"padding={padding}")
    static = x.shape.as_list() if x.shape.rank is not None else None
    in_spatial = None if static is None else [static[d] for d in spatial_dims]
    if in_spatial is None or None in in_spatial:
        s = _shape(x)
        in_spatial = stack([s[d] for d in spatial_dims])
    paddings, crops = required_space_to_batch_paddings(in_spatial, rate, base)
    rate_adj = _adjust(rate if const_rate is None else const_rate, 1, spatial_dims)
    paddings = _adjust(paddings, 0, spatial_dims)
    crops = _adjust(crops, 0, spatial_dims)
    converted = space_to_batch_nd(x, rate_adj, paddings)
    result = op(converted, m, "VALID")
    return batch_to_space_nd(result, rate_adj, crops)
