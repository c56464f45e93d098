"""The kernels a layer applies to its parameters: `tf.nn.bias_add` (with
BiasAddGrad, whose own gradient gives second derivatives) and
`tf.nn.l2_loss` (weight decay)."""
import os

import numpy as np

from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply1, apply2
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, dims_text
from ..core.float_sums import float_sum
from ..kernels.softmax_kernel import ordered_sum, row_sums
from ..core import op_util as U
from ..core.op_util import FLOATS, NUMERIC, unary
from .nn_util import _check_eager_dtype, _compute_dtype
from ..core.broadcast_ops import broadcast_to
from ..core.math_ops import multiply
from ..core.shape_ops import reshape, shape


# --- bias_add ------------------------------------------------------------------

def _channel_axis(data_format, ndim):
    return 1 if data_format == "NCHW" and ndim > 1 else -1


def _bias_add_kernel(value, bias, data_format="NHWC"):
    if value.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {dims_text(value.shape)}")
    if bias.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Biases must be 1D: {dims_text(bias.shape)}")
    axis = _channel_axis(data_format, value.ndim)
    if bias.shape[0] != value.shape[axis]:
        where = "last" if axis == -1 else "channel"
        raise errors.InvalidArgumentError(
            None, None, f"Must provide as many biases as the {where} dimension of the input "
            f"tensor: {dims_text(bias.shape)} vs. {dims_text(value.shape)}")
    if axis == 1:
        bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
    return value + bias


def _bias_add_infer(inputs, attrs):
    v, b = inputs
    U.check_allowed(_BiasAdd, v, "value")
    if b.dtype is not v.dtype:
        raise TypeError(f"Input 'bias' of 'BiasAdd' Op has type {b.dtype.name} that does not "
                        f"match type {v.dtype.name} of argument 'value'.")
    if b.shape.rank is not None and b.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {b.shape.rank}")
    vs = v.shape
    if vs.rank is None:
        return [(vs, v.dtype)]
    if vs.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {vs.rank}")
    axis = _channel_axis(attrs.get("data_format", "NHWC"), vs.rank) % vs.rank
    dims = vs.as_list()
    c = b.shape[0] if b.shape.rank == 1 else None
    if dims[axis] is not None and c is not None and dims[axis] != c:
        raise ValueError(f"Dimensions must be equal, but are {dims[axis]} and {c}")
    if dims[axis] is None:
        dims[axis] = c
    return [(TensorShape(dims), v.dtype)]


def _bias_add_grad(op, g):
    return [g, apply1(_BiasAddGrad, g, {"data_format": op.get_attr("data_format")})]


def _bias_add_grad_kernel(out_backprop, data_format="NHWC"):
    if out_backprop.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {dims_text(out_backprop.shape)}")
    axis = _channel_axis(data_format, out_backprop.ndim) % out_backprop.ndim
    axes = tuple(i for i in range(out_backprop.ndim) if i != axis)
    x = out_backprop
    if axis == x.ndim - 1 and (x.dtype == np.float32 or x.dtype == np.float64) and x.size:
        return outer_dimension_sums(np.ascontiguousarray(x).reshape(-1, x.shape[-1]))
    return float_sum(out_backprop, axes, False)     # float_sums' order, as reduce_sum


# TensorFlow's thread count (its intra-op pool: the CPUs this process may run on).
try:
    _TF_THREADS = len(os.sched_getaffinity(0))
except (AttributeError, OSError):
    _TF_THREADS = os.cpu_count() or 1


def outer_dimension_sums(x2, threads=None):
    """The column sums of (rows, channels) `x2` as TensorFlow's BiasAddGrad
    (NHWC) adds them (its ReduceOuterDimensions): with more channels than
    32 per thread, or where Eigen's cost model keeps the work on one thread
    (fewer than ~124,000 values), each column's rows one after another from
    zero; else the rows cut into one block per thread, each summed so, and
    the blocks' sums added in order. `threads`: TensorFlow's thread count
    (this machine's by default: TensorFlow's own results depend on it)."""
    t = threads or _TF_THREADS
    rows, inner = x2.shape
    if rows == 1:
        return x2[0].copy()
    blocks = 1
    if inner <= t * 32:
        min_block = -(-2000 // inner)
        blocks = min(rows, -(-rows * inner // min_block), t)
    if blocks > 1:
        # Eigen's parallelFor over the blocks runs them in the calling thread
        # (all rows into the first block's sums) unless the cost model gives
        # two threads or more: cost = loads and stores at 11/64 cycles a
        # byte plus one cycle an addition; 100,000 cycles to start and per thread.
        size = x2.dtype.itemsize
        per_block = -(-rows // blocks)
        cost = blocks * (inner * per_block * size * 11 / 64 + inner * size * 11 / 64
                         + per_block * inner)
        if int((cost - 100000) / 100000 + 0.9) <= 1:
            blocks = 1
    if blocks == 1:
        return ordered_sum(x2, 0)
    per_block = -(-rows // blocks)
    out = ordered_sum(x2[:per_block], 0)
    for b in range(1, blocks):
        part = x2[b * per_block:(b + 1) * per_block]
        out += ordered_sum(part, 0) if len(part) else 0
    return out


def _bias_add_grad_infer(inputs, attrs):
    s = inputs[0].shape
    if s.rank is None:
        return [(TensorShape([None]), inputs[0].dtype)]
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    axis = _channel_axis(attrs.get("data_format", "NHWC"), s.rank) % s.rank
    return [(TensorShape([s[axis]]), inputs[0].dtype)]


def _bias_add_grad_grad(op, gg):
    x = op.inputs[0]
    r = x.shape.rank
    if op.get_attr("data_format") == "NCHW":
        if r is None:
            raise ValueError("the second derivative of BiasAdd with NCHW needs a known rank")
        gg = reshape(gg, [-1] + [1] * (r - 2))
    return [broadcast_to(gg, shape(x))]


_BiasAdd = register("BiasAdd", _bias_add_kernel, _bias_add_infer, _bias_add_grad,
                    allowed=NUMERIC)
_BiasAddGrad = register("BiasAddGrad", _bias_add_grad_kernel, _bias_add_grad_infer,
                        _bias_add_grad_grad, allowed=NUMERIC)


@export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D `bias` along the channel dimension of `value`: the last
    one for data formats of the form N...C (the default), the second for NC...

    Raises:
      ValueError: for an unknown `data_format`, or (graph) mismatched shapes.
      InvalidArgumentError: eagerly, when `bias` does not match the channel
        dimension, `value` has rank < 2 or `bias` is not 1-D.
    """
    if data_format is None:
        fmt = "NHWC"
    elif data_format.startswith("NC"):
        fmt = "NCHW"
    elif data_format.startswith("N") and data_format.endswith("C"):
        fmt = "NHWC"
    else:
        raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: "
                         f"data_format={data_format}")
    v = convert_to_tensor(value, name="input")
    b = convert_to_tensor(bias, dtype=v.dtype, name="bias")
    _check_eager_dtype(_BiasAdd, v)
    return apply2(_BiasAdd, v, b, {"data_format": fmt}, name=name or "BiasAdd")


# --- l2_loss ------------------------------------------------------------------

def _l2_loss_kernel(t):
    if t.dtype == np.float32 or t.dtype == np.float64:
        # TensorFlow's kernel: (x^2 * 0.5).sum(), Eigen's full reduction.
        h = np.square(t) * t.dtype.type(0.5)
        return row_sums(np.ascontiguousarray(h).reshape(1, -1))[0]
    x = t.astype(_compute_dtype(t), copy=False)
    return t.dtype.type(np.sum(x * x) / 2)


def _l2_loss_infer(inputs, attrs):
    U.check_allowed(_L2Loss, inputs[0], "t")
    return [(TensorShape([]), inputs[0].dtype)]


def _l2_loss_grad(op, g):
    return [multiply(op.inputs[0], g)]


_L2Loss = register("L2Loss", _l2_loss_kernel, _l2_loss_infer, _l2_loss_grad, allowed=FLOATS)


@export("nn.l2_loss")
def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar (half the squared L2 norm, without the sqrt)."""
    return unary(_L2Loss, t, name or "L2Loss")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_bias_add(ctx, op, value, bias):
    if _channel_axis(op.attrs.get("data_format", "NHWC"), XL.jnp.ndim(value)) == 1:
        bias = XL.jnp.reshape(bias, (-1,) + (1,) * (XL.jnp.ndim(value) - 2))
    return value + bias


def _lower_bias_add_grad(ctx, op, g):
    rank = XL.jnp.ndim(g)
    axis = _channel_axis(op.attrs.get("data_format", "NHWC"), rank) % rank
    return XL.jnp.sum(g, axis=tuple(a for a in range(rank) if a != axis))


XL.set_lowerings({"BiasAdd": _lower_bias_add, "BiasAddGrad": _lower_bias_add_grad,
                  "L2Loss": lambda ctx, op, t: XL.jnp.sum(XL.jnp.square(t)) / 2})
