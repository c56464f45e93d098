"""Fused batch normalization: the FusedBatchNormV3 op and its gradient op
FusedBatchNormGradV3, `tf.compat.v1.nn.fused_batch_norm` and the raw ops.

In training the op normalizes with the batch's own mean and (biased)
variance over every axis but the channels, and returns the mean and the
unbiased (Bessel-corrected) variance, blended into the given running
statistics by `exponential_avg_factor`; its reserve spaces keep the batch
mean and biased variance for the gradient. In inference it normalizes with
the given statistics and returns them. Half-precision inputs are computed
and their statistics kept in float32, as TensorFlow does. Each kernel is a
handful of whole-array passes: per-channel sums, then one expression over
the array.
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, dims_text
from ..core.float_sums import float_sum
from ..core import op_util as U

__all__ = ["fused_batch_norm"]

_FORMATS = {"NHWC": (4, -1), "NCHW": (4, 1), "NDHWC": (5, -1), "NCDHW": (5, 1)}
_X_TYPES = (D.float16, D.bfloat16, D.float32)

FusedBatchNormV3 = collections.namedtuple(
    "FusedBatchNormV3", ["y", "batch_mean", "batch_variance", "reserve_space_1",
                         "reserve_space_2", "reserve_space_3"])
FusedBatchNormGradV3 = collections.namedtuple(
    "FusedBatchNormGradV3", ["x_backprop", "scale_backprop", "offset_backprop",
                             "reserve_space_4", "reserve_space_5"])


def _layout(x, data_format, op):
    """(channel axis, reduction axes) of `x`, or the op's error."""
    rank, axis = _FORMATS.get(data_format, (None, None))
    if rank is None:
        raise U.op_error(op, f"Invalid data format: {data_format}")
    if x.ndim != rank:
        raise U.op_error(op, f"input must be {rank}-dimensional{dims_text(x.shape)}")
    axis = axis % rank
    return axis, tuple(a for a in range(rank) if a != axis)


def _per_channel(v, x, axis):
    """A [C] vector shaped to broadcast along `x`'s channel axis."""
    shape = [1] * x.ndim
    shape[axis] = -1
    return v.reshape(shape)


def _check_vector(v, name, depth, op):
    if v.ndim != 1:
        raise U.op_error(op, f"{name} must be 1-dimensional{dims_text(v.shape)}")
    if v.shape[0] != depth:
        raise U.op_error(op, f"{name} must have the same number of elements as the channels "
                             f"of x, got {v.shape[0]} and {depth}")


def _fused_bn_kernel(x, scale, offset, mean, variance, epsilon=1e-4,
                     exponential_avg_factor=1.0, data_format="NHWC", is_training=True):
    op = "FusedBatchNormV3"
    axis, axes = _layout(x, data_format, op)
    depth = x.shape[axis]
    _check_vector(scale, "scale", depth, op)
    _check_vector(offset, "offset", depth, op)
    f32 = np.float32
    xf = x.astype(f32, copy=False)
    if is_training:
        n = x.size // max(depth, 1)
        batch_mean = (float_sum(xf, axes, False) / f32(max(n, 1))).astype(f32)
        centered = xf - _per_channel(batch_mean, xf, axis)
        batch_var = (float_sum(np.square(centered), axes, False) / f32(max(n, 1))).astype(f32)
        factor = f32(1) / np.sqrt(batch_var + f32(epsilon))
        y = centered
        y *= _per_channel(factor * scale.astype(f32), xf, axis)
        y += _per_channel(offset.astype(f32), xf, axis)
        unbiased = batch_var * f32(n / (n - 1) if n > 1 else 1.0)
        f = float(exponential_avg_factor)
        if f != 1.0 and mean.size and variance.size:
            _check_vector(mean, "mean", depth, op)
            _check_vector(variance, "variance", depth, op)
            run_mean = f32(1 - f) * mean.astype(f32) + f32(f) * batch_mean
            run_var = f32(1 - f) * variance.astype(f32) + f32(f) * unbiased
        else:
            run_mean, run_var = batch_mean, unbiased
        reserve = (batch_mean, batch_var)
    else:
        _check_vector(mean, "mean", depth, op)
        _check_vector(variance, "variance", depth, op)
        m, v = mean.astype(f32), variance.astype(f32)
        factor = f32(1) / np.sqrt(v + f32(epsilon))
        y = xf - _per_channel(m, xf, axis)
        y *= _per_channel(factor * scale.astype(f32), xf, axis)
        y += _per_channel(offset.astype(f32), xf, axis)
        run_mean, run_var = m, v
        reserve = (m, v)
    return (y.astype(x.dtype, copy=False), run_mean, run_var, reserve[0], reserve[1],
            np.zeros(0, f32))


def _fused_bn_grad_kernel(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                          reserve_space_3, epsilon=1e-4, data_format="NHWC", is_training=True):
    op = "FusedBatchNormGradV3"
    axis, axes = _layout(x, data_format, op)
    depth = x.shape[axis]
    f32 = np.float32
    dy = y_backprop.astype(f32, copy=False)
    xf = x.astype(f32, copy=False)
    mean, var = reserve_space_1.astype(f32), reserve_space_2.astype(f32)
    inv = f32(1) / np.sqrt(var + f32(epsilon))
    centered = xf - _per_channel(mean, xf, axis)
    dy_sum = float_sum(dy, axes, False)
    dy_centered_sum = float_sum(dy * centered, axes, False)
    scale_backprop = dy_centered_sum * inv
    if is_training:
        n = f32(max(x.size // max(depth, 1), 1))
        # dx = scale * inv * (dy - mean(dy) - centered * mean(dy * centered) * inv^2)
        centered *= _per_channel(dy_centered_sum / n * inv * inv, xf, axis)
        dx = dy - _per_channel(dy_sum / n, xf, axis)
        dx -= centered
        dx *= _per_channel(scale.astype(f32) * inv, xf, axis)
    else:
        dx = dy * _per_channel(scale.astype(f32) * inv, xf, axis)
    empty = np.zeros(0, f32)
    return (dx.astype(y_backprop.dtype, copy=False), scale_backprop, dy_sum, empty, empty)


def _bn_infer(inputs, attrs):
    x = inputs[0]
    rank, axis = _FORMATS.get(attrs.get("data_format", "NHWC"), (None, None))
    if rank is None:
        raise ValueError(f"Invalid data format: {attrs.get('data_format')}")
    if x.shape.rank is not None and x.shape.rank != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {x.shape.rank}")
    depth = None if x.shape.rank is None else x.shape[axis % rank]
    vec = TensorShape([depth])
    return [(x.shape, x.dtype)] + [(vec, D.float32)] * 4 + [(TensorShape([0]), D.float32)]


def _bn_grad_infer(inputs, attrs):
    x = inputs[1]
    vec = TensorShape([inputs[2].shape[0] if inputs[2].shape.rank == 1 else None])
    return [(x.shape, inputs[0].dtype), (vec, D.float32), (vec, D.float32),
            (TensorShape([0]), D.float32), (TensorShape([0]), D.float32)]


def _attrs(op, *names):
    return {k: op.get_attr(k) for k in names}


def _fused_bn_grad(op, dy, *_ignored):
    # Only y's gradient flows back, as in TensorFlow: the statistics outputs
    # carry no gradient, and the running statistics inputs get none.
    x, scale = op.inputs[0], op.inputs[1]
    training = op.get_attr("is_training")
    if training:
        r1, r2, r3 = op.outputs[3], op.outputs[4], op.outputs[5]
    else:
        r1, r2, r3 = op.inputs[3], op.inputs[4], op.outputs[5]
    dx, dscale, doffset, _, _ = apply(
        _FusedBatchNormGradV3, [dy, x, scale, r1, r2, r3],
        {"epsilon": op.get_attr("epsilon"), "data_format": op.get_attr("data_format"),
         "is_training": training}, multi=True)
    return [dx, dscale, doffset, None, None]


_FusedBatchNormV3 = register("FusedBatchNormV3", _fused_bn_kernel, _bn_infer, _fused_bn_grad,
                             allowed=_X_TYPES)
_FusedBatchNormGradV3 = register("FusedBatchNormGradV3", _fused_bn_grad_kernel,
                                 _bn_grad_infer)


def _bn_attrs(epsilon, exponential_avg_factor, data_format, is_training):
    return {"epsilon": float(epsilon), "exponential_avg_factor": float(exponential_avg_factor),
            "data_format": data_format, "is_training": bool(is_training)}


def _check_x(x):
    if x.dtype not in _X_TYPES:
        raise TypeError(f"Value passed to parameter 'x' has DataType {x.dtype.name} not in "
                        f"list of allowed values: half, bfloat16, float32")


def fused_batch_norm_v3_raw(x, scale, offset, mean, variance, epsilon=0.0001,
                            exponential_avg_factor=1, data_format="NHWC", is_training=True,
                            name=None):
    """The FusedBatchNormV3 op: (y, batch_mean, batch_variance,
    reserve_space_1, reserve_space_2, reserve_space_3)."""
    x = convert_to_tensor(x)
    _check_x(x)
    ins = [x] + [convert_to_tensor(v, dtype=D.float32) for v in (scale, offset, mean, variance)]
    out = apply(_FusedBatchNormV3, ins,
                _bn_attrs(epsilon, exponential_avg_factor, data_format, is_training),
                name=name or "FusedBatchNormV3", multi=True)
    return FusedBatchNormV3(*out)


@export("compat.v1.nn.fused_batch_norm")
def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """Batch normalization of a 4-D (or 5-D) `x` in one op: returns
    (y, running_mean, running_variance).

    In training, `mean` and `variance` may be None (the batch statistics are
    returned) or the running statistics to blend with
    `exponential_avg_factor`; in inference both are required. `epsilon` is
    raised to 1.001e-5 if smaller, as TensorFlow does.

    Raises:
      ValueError: in inference, when `mean` or `variance` is None.
      InvalidArgumentError: (eager) for a wrong rank or statistics size.
    """
    x = convert_to_tensor(x, name="input")
    if not is_training and (mean is None or variance is None):
        raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when is_training is "
                         f"False, got mean={mean} and variance={variance}.")
    if mean is None:
        mean = np.zeros(0, np.float32)
    if variance is None:
        variance = np.zeros(0, np.float32)
    # TensorFlow's kernels need epsilon > 1e-5 (cuDNN's limit), on every device.
    epsilon = epsilon if epsilon > 1.001e-5 else 1.001e-5
    out = fused_batch_norm_v3_raw(x, scale, offset, mean, variance, epsilon,
                                  exponential_avg_factor, data_format, is_training,
                                  name=name or "FusedBatchNormV3")
    return out.y, out.batch_mean, out.batch_variance



# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _xla_layout(x, data_format):
    rank, axis = _FORMATS[data_format]
    axis %= rank
    shape = [1] * rank
    shape[axis] = -1
    return tuple(a for a in range(rank) if a != axis), tuple(shape), x.size // x.shape[axis]


def _lower_fused_bn(ctx, op, x, scale, offset, mean, variance):
    jnp, f32 = XL.jnp, np.float32
    a = op.attrs
    axes, shape, n = _xla_layout(x, a.get("data_format", "NHWC"))
    eps = f32(a.get("epsilon", 1e-4))
    xf = x.astype(f32)
    if a.get("is_training", True):
        bm = jnp.mean(xf, axis=axes)
        centered = xf - bm.reshape(shape)
        bv = jnp.mean(jnp.square(centered), axis=axes)
        unbiased = bv * f32(n / (n - 1) if n > 1 else 1.0)
        f = float(a.get("exponential_avg_factor", 1.0))
        if f != 1.0 and mean.size and variance.size:
            run_mean = f32(1 - f) * mean.astype(f32) + f32(f) * bm
            run_var = f32(1 - f) * variance.astype(f32) + f32(f) * unbiased
        else:
            run_mean, run_var = bm, unbiased
        reserve = (bm, bv)
    else:
        m, v = mean.astype(f32), variance.astype(f32)
        centered = xf - m.reshape(shape)
        run_mean, run_var = reserve = (m, v)
    inv = XL.lax.rsqrt(reserve[1] + eps)
    y = centered * (inv * scale.astype(f32)).reshape(shape) + offset.astype(f32).reshape(shape)
    return [y.astype(x.dtype), run_mean, run_var, reserve[0], reserve[1], np.zeros(0, f32)]


def _lower_fused_bn_grad(ctx, op, dy, x, scale, r1, r2, r3):
    jnp, f32 = XL.jnp, np.float32
    a = op.attrs
    axes, shape, n = _xla_layout(x, a.get("data_format", "NHWC"))
    dyf, xf = dy.astype(f32), x.astype(f32)
    inv = XL.lax.rsqrt(r2.astype(f32) + f32(a.get("epsilon", 1e-4)))
    centered = xf - r1.astype(f32).reshape(shape)
    dy_sum = jnp.sum(dyf, axis=axes)
    dyc_sum = jnp.sum(dyf * centered, axis=axes)
    k = (scale.astype(f32) * inv).reshape(shape)
    if a.get("is_training", True):
        n = f32(max(n, 1))
        dx = (dyf - (dy_sum / n).reshape(shape) -
              centered * (dyc_sum / n * inv * inv).reshape(shape)) * k
    else:
        dx = dyf * k
    empty = np.zeros(0, f32)
    return [dx.astype(dy.dtype), dyc_sum * inv, dy_sum, empty, empty]


XL.set_lowerings({"FusedBatchNormV3": _lower_fused_bn,
                  "FusedBatchNormGradV3": _lower_fused_bn_grad})
