"""The XLA lowerings (framework/lowering.py) of the convolution and pooling ops
of conv_ops.py, conv_nd_ops.py and pool_nd_ops.py.

They sit apart from the ops because they are one scheme for all of them:
a convolution is `lax.conv_general_dilated` (its `feature_group_count`
covers grouped and depthwise convolutions), a pooling is
`lax.reduce_window`, and every backprop op (the input and filter gradients,
the pooling gradients) is the `jax.vjp` of its forward op at the sizes the
op is given, which XLA compiles into the transposed convolution or
select-and-scatter TensorFlow's XLA emits.
"""
import numpy as np

from ...framework import lowering as XL

__all__ = []

_LAYOUTS = {"NHWC": ("NHWC", "HWIO"), "NCHW": ("NCHW", "HWIO"),
            "NDHWC": ("NDHWC", "DHWIO"), "NCDHW": ("NCDHW", "DHWIO")}


def _spatial(values, data_format):
    """The spatial entries of a per-dimension attr in data-format order."""
    values = list(values)
    if data_format.startswith("NC"):
        return tuple(int(v) for v in values[2:])
    return tuple(int(v) for v in values[1:-1])


def _padding(attrs, data_format):
    padding = attrs["padding"]
    if isinstance(padding, bytes):
        padding = padding.decode()
    if padding == "EXPLICIT":
        pairs = np.reshape(list(attrs.get("explicit_paddings") or ()), (-1, 2)).tolist()
        return [tuple(p) for p in (pairs[2:] if data_format.startswith("NC") else pairs[1:-1])]
    return padding


def _conv_fn(op, x_shape, depthwise=False):
    """`f(x, filter)`: the op's convolution of an input of shape `x_shape`."""
    a = op.attrs
    fmt = a.get("data_format", "NHWC")
    if isinstance(fmt, bytes):
        fmt = fmt.decode()
    lhs, rhs = _LAYOUTS[fmt]
    strides = _spatial(a["strides"], fmt)
    dilations = _spatial(a.get("dilations") or [1] * len(x_shape), fmt)
    padding = _padding(a, fmt)
    channels = x_shape[lhs.index("C")]

    def conv(x, f):
        if depthwise:
            # [H, W, C, M] -> [H, W, 1, C*M], one group per input channel.
            f = XL.jnp.reshape(f, f.shape[:-2] + (1, f.shape[-2] * f.shape[-1]))
        groups = channels // f.shape[-2]
        return XL.lax.conv_general_dilated(
            x, f, window_strides=strides, padding=padding, rhs_dilation=dilations,
            dimension_numbers=(lhs, rhs, lhs), feature_group_count=groups)
    return conv


def _depthwise(op):
    return op.type.startswith("DepthwiseConv2dNative")


def _lower_conv(ctx, op, x, f):
    return _conv_fn(op, XL.jnp.shape(x), _depthwise(op))(x, f)


def _lower_conv_input(ctx, op, sizes, f, dy):
    shape = XL.ints(ctx.static(op, 0, sizes))
    conv = _conv_fn(op, shape, _depthwise(op))
    x = XL.jnp.zeros(shape, dy.dtype)
    return XL.jax.vjp(lambda v: conv(v, f), x)[1](dy)[0]


def _lower_conv_filter(ctx, op, x, sizes, dy):
    conv = _conv_fn(op, XL.jnp.shape(x), _depthwise(op))
    f = XL.jnp.zeros(XL.ints(ctx.static(op, 1, sizes)), dy.dtype)
    return XL.jax.vjp(lambda v: conv(x, v), f)[1](dy)[0]


def _pool_fn(op):
    """`f(x)`: the op's max or average pooling."""
    a = op.attrs
    fmt = a.get("data_format", "NHWC")
    if isinstance(fmt, bytes):
        fmt = fmt.decode()
    window = tuple(int(k) for k in a["ksize"])
    strides = tuple(int(s) for s in a["strides"])
    padding = a["padding"].decode() if isinstance(a["padding"], bytes) else a["padding"]
    is_max = op.type.startswith("MaxPool")

    def pool(x):
        if is_max:
            init = -np.inf if XL.jnp.issubdtype(x.dtype, XL.jnp.floating) else \
                np.iinfo(x.dtype).min
            return XL.lax.reduce_window(x, np.array(init, x.dtype), XL.lax.max, window,
                                        strides, padding)
        total = XL.lax.reduce_window(x, np.array(0, x.dtype), XL.lax.add, window, strides,
                                     padding)
        # TensorFlow divides by the number of elements inside the input.
        ones = XL.jnp.ones(x.shape, x.dtype)
        count = XL.lax.reduce_window(ones, np.array(0, x.dtype), XL.lax.add, window, strides,
                                     padding)
        return total / count
    return pool


def _lower_pool(ctx, op, x):
    return _pool_fn(op)(x)


def _lower_max_pool_grad(ctx, op, x, y, dy):
    return XL.jax.vjp(_pool_fn(op), x)[1](dy)[0]


def _lower_max_pool_grad_grad(ctx, op, x, y, g):
    return XL.jax.jvp(_pool_fn(op), (x,), (g,))[1]


def _lower_avg_pool_grad(ctx, op, sizes, dy):
    x = XL.jnp.zeros(XL.ints(ctx.static(op, 0, sizes)), dy.dtype)
    return XL.jax.vjp(_pool_fn(op), x)[1](dy)[0]


XL.set_lowerings({
    "Conv2D": _lower_conv, "Conv3D": _lower_conv, "DepthwiseConv2dNative": _lower_conv,
    "Conv2DBackpropInput": _lower_conv_input, "Conv3DBackpropInputV2": _lower_conv_input,
    "DepthwiseConv2dNativeBackpropInput": _lower_conv_input,
    "Conv2DBackpropFilter": _lower_conv_filter, "Conv3DBackpropFilterV2": _lower_conv_filter,
    "DepthwiseConv2dNativeBackpropFilter": _lower_conv_filter,
    "MaxPool": _lower_pool, "AvgPool": _lower_pool, "MaxPool3D": _lower_pool,
    "AvgPool3D": _lower_pool, "MaxPoolGrad": _lower_max_pool_grad,
    "MaxPool3DGrad": _lower_max_pool_grad, "MaxPoolGradGrad": _lower_max_pool_grad_grad,
    "MaxPool3DGradGrad": _lower_max_pool_grad_grad, "AvgPoolGrad": _lower_avg_pool_grad,
    "AvgPool3DGrad": _lower_avg_pool_grad})
