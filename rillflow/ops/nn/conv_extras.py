"""The remaining convolution-shaped ops of the top level: `tf.conv` (the
generic Conv op: 2 or 3 spatial dimensions after `batch_dims` batch
dimensions, on conv_ops' N-D kernel, with the checks and messages of
TensorFlow's CPU kernel; like TensorFlow it has no gradient),
`tf.conv2d_backprop_filter_v2` / `tf.conv2d_backprop_input_v2` (the
gradients of conv2d given the filter or input tensor itself rather than its
shape; TensorFlow 2.21 registers no CPU kernel for them, here they are the
Conv2DBackpropFilter/Input ops on that shape, differentiable as those are),
and `tf.extract_volume_patches` (ExtractVolumePatches, 3-D patches into the
depth dimension, with its gradient as an op of its own).
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.shape_ops import shape as shape_of
from . import conv_ops as C
from .nn_util import _scope

_state = _context.state
_IAE = errors.InvalidArgumentError


# --- Conv -------------------------------------------------------------------------------

def _check_depth(in_depth, f_depth, groups):
    if groups != 1 or in_depth != f_depth:
        if groups != 1 and in_depth == f_depth * groups:
            raise errors.UnimplementedError(
                None, None, "Grouped/Depthwise Convolutions are not supported yet.")
        raise _IAE(None, None, f"Input depth must be equal to filter depth: {in_depth} vs "
                   f"{f_depth}")


def _conv_checks(x_shape, f_shape, nd, strides, padding, explicit_paddings, data_format,
                 dilations, groups, batch_dims):
    if nd not in (2, 3):
        raise _IAE(None, None, f"The input must have 2 or 3 spatial dimensions but got {nd}")
    if nd == 3 and len(f_shape) == 5:
        # The 3-D kernel compares the depths before it looks at the format.
        channel = x_shape[batch_dims] if data_format == "CHANNELS_FIRST" else x_shape[-1]
        _check_depth(channel, f_shape[-2], groups)
    if data_format == "CHANNELS_FIRST":
        if nd == 2:
            raise errors.UnimplementedError(
                None, None, "The Conv2D op currently only supports the NHWC tensor format on "
                "the CPU. The op was given the format: NCHW")
        raise _IAE(None, None, "CPU implementation of Conv3D currently only supports the NHWC "
                   "tensor format.")
    if len(strides) != nd + 2:
        raise _IAE(None, None, f"Sliding window strides field must specify {nd + 2} dimensions")
    if dilations and len(dilations) != nd + 2:
        raise _IAE(None, None, f"Dilation rates field must specify{nd + 2}dimensions")
    if strides[0] != 1 or strides[-1] != 1:
        raise _IAE(None, None, "Current implementation does not support strides in the batch "
                   "and depth dimensions.")
    if explicit_paddings and padding != "EXPLICIT":
        raise _IAE(None, None, "explicit_paddings attribute must be empty if the padding "
                   "attribute is not EXPLICIT")
    if padding == "EXPLICIT" and len(explicit_paddings) != 2 * (nd + 2):
        raise _IAE(None, None, f"explicit_paddings attribute must contain {2 * (nd + 2)} "
                   f"values, but got: {len(explicit_paddings)}")
    if nd == 3:
        if padding == "EXPLICIT":
            # TensorFlow's CPU Conv3D aborts the process here.
            raise errors.UnimplementedError(
                None, None, "The Conv op does not support EXPLICIT padding with 3 spatial "
                "dimensions on the CPU.")
        if dilations and any(d != 1 for d in dilations):
            raise _IAE(None, None, "CPU implementation of Conv3D currently only supports "
                       "dilated rates of 1.")


def _conv_op_kernel(input, filter, strides, padding, explicit_paddings=(),
                    data_format="CHANNELS_LAST", dilations=(), batch_dims=1, groups=1, T=None):
    nd = input.ndim - batch_dims - 1
    _conv_checks(input.shape, filter.shape, nd, strides, padding, explicit_paddings,
                 data_format, dilations, groups, batch_dims)
    if filter.ndim != nd + 2:
        raise _IAE(None, None, f"filter must be {nd + 2}-dimensional: "
                   f"[{','.join(str(d) for d in filter.shape)}]")
    _check_depth(input.shape[-1], filter.shape[-2], groups)
    batch = input.shape[:batch_dims]
    x = input.reshape((-1,) + input.shape[batch_dims:])
    dil = list(dilations) if dilations else [1] * (nd + 2)
    pad = "EXPLICIT" if padding == "EXPLICIT" else padding
    out = C._conv_kernel(x, filter, list(strides), pad, dil, list(explicit_paddings))
    return out.astype(input.dtype, copy=False).reshape(batch + out.shape[1:])


def _conv_op_infer(inputs, attrs):
    x, f = inputs[0].shape, inputs[1].shape
    bd = attrs["batch_dims"]
    dtype = inputs[0].dtype
    if x.rank is None or f.rank is None:
        return [(TensorShape(None), dtype)]
    nd = x.rank - bd - 1
    if nd not in (2, 3) or len(attrs["strides"]) != nd + 2:
        return [(TensorShape(None), dtype)]
    dims = []
    explicit = attrs["explicit_paddings"]
    dil = attrs["dilations"] or [1] * (nd + 2)
    for a in range(nd):
        size, k = x[bd + a], f[a] if f.rank == nd + 2 else None
        if size is None or k is None:
            dims.append(None)
            continue
        dims.append(C._out_and_pads(size, k, attrs["strides"][1 + a], dil[1 + a],
                                    attrs["padding"],
                                    explicit[2 + 2 * a:4 + 2 * a] if explicit else None)[0])
    out_c = f[-1] if f.rank == nd + 2 else None
    return [(TensorShape(list(x)[:bd] + dims + [out_c]), dtype)]


_CONV_DTYPES = (D.float16, D.bfloat16, D.float32, D.float64, D.int32)
_Conv = register("Conv", _conv_op_kernel, _conv_op_infer, None, allowed=_CONV_DTYPES)


def _attr_list(v, name):
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError(f"Expected list for '{name}' argument to 'conv' Op, not {v!r}.")
    return [int(x) for x in v]


@export("conv", "compat.v1.conv")
def conv(input, filter, strides, padding, explicit_paddings=[], data_format="CHANNELS_LAST",
         dilations=[], batch_dims=1, groups=1, name=None):
    """TensorFlow's generic convolution op (Conv): `input` is
    [*batch (batch_dims of them), *spatial (2 or 3), in_depth] and `filter`
    [*spatial, in_depth, out_depth]; `strides` and `dilations` (default all
    1) have one entry per non-batch-merged dimension (spatial + 2).

    Raises:
      InvalidArgumentError: for a bad data_format or padding name, or (as
        TensorFlow's CPU kernel) a bad rank, stride, dilation or depth.
      UnimplementedError: for CHANNELS_FIRST 2-D inputs and groups > 1 (not
        on TensorFlow's CPU either).
    """
    strides = _attr_list(strides, "strides")
    explicit_paddings = _attr_list(explicit_paddings, "explicit_paddings")
    dilations = _attr_list(dilations, "dilations")
    for attr, value, allowed in (("padding", padding, ("SAME", "VALID", "EXPLICIT")),
                                 ("data_format", data_format,
                                  ("CHANNELS_FIRST", "CHANNELS_LAST"))):
        if value not in allowed:
            msg = (f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed "
                   f"values: " + ", ".join(f'"{a}"' for a in allowed))
            if _state.graph is None:
                raise _IAE(None, None, msg)
            raise ValueError(msg)
    with _scope(name or "Conv"):
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filter, dtype_hint=x.dtype, name="filter")
        U.check_dtype("Conv", x, _CONV_DTYPES)
        attrs = {"strides": strides, "padding": padding, "explicit_paddings": explicit_paddings,
                 "data_format": data_format, "dilations": dilations,
                 "batch_dims": int(batch_dims), "groups": int(groups)}
        return apply(_Conv, [x, f], attrs, name="Conv")


# --- Conv2DBackpropFilterV2 / InputV2 -----------------------------------------------------

def _v2_attrs(strides, padding, explicit_paddings, data_format, dilations):
    C._check_format(data_format)
    if padding == "EXPLICIT":
        e = [int(v) for v in explicit_paddings]
        pad, explicit = C._padding([e[i:i + 2] for i in range(0, len(e), 2)])
    else:
        if explicit_paddings:
            raise _IAE(None, None, "explicit_paddings attribute must be empty if the padding "
                       "attribute is not EXPLICIT")
        pad, explicit = C._padding(padding)
    return {"strides": C._four(strides, "strides"), "padding": pad,
            "dilations": C._four(dilations, "dilations"), "explicit_paddings": explicit,
            "data_format": "NHWC"}


@export("conv2d_backprop_filter_v2", "compat.v1.conv2d_backprop_filter_v2")
def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding,
                              use_cudnn_on_gpu=True, explicit_paddings=[], data_format="NHWC",
                              dilations=[1, 1, 1, 1], name=None):
    """The gradient of conv2d with respect to its filter, shaped as `filter`
    (whose values are not used): Conv2DBackpropFilter on `filter`'s shape."""
    with _scope(name or "Conv2DBackpropFilterV2"):
        x = convert_to_tensor(input, name="input")
        f = convert_to_tensor(filter, dtype_hint=x.dtype, name="filter")
        dy = convert_to_tensor(out_backprop, dtype_hint=x.dtype, name="out_backprop")
        attrs = _v2_attrs(strides, padding, explicit_paddings, data_format, dilations)
        return apply(C._Conv2DBackpropFilter, [x, shape_of(f, out_type=D.int32), dy], attrs,
                     name="Conv2DBackpropFilter")


@export("conv2d_backprop_input_v2", "compat.v1.conv2d_backprop_input_v2")
def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding,
                             use_cudnn_on_gpu=True, explicit_paddings=[], data_format="NHWC",
                             dilations=[1, 1, 1, 1], name=None):
    """The gradient of conv2d with respect to its input, shaped as `input`
    (whose values are not used): Conv2DBackpropInput on `input`'s shape."""
    with _scope(name or "Conv2DBackpropInputV2"):
        f = convert_to_tensor(filter, name="filter")
        x = convert_to_tensor(input, dtype_hint=f.dtype, name="input")
        dy = convert_to_tensor(out_backprop, dtype_hint=f.dtype, name="out_backprop")
        attrs = _v2_attrs(strides, padding, explicit_paddings, data_format, dilations)
        return apply(C._Conv2DBackpropInput, [shape_of(x, out_type=D.int32), f, dy], attrs,
                     name="Conv2DBackpropInput")


# --- ExtractVolumePatches -----------------------------------------------------------------

def _volume_geometry(shape, ksizes, strides, padding):
    """[(output size, padding before)] of the three spatial dimensions."""
    geo = []
    for a in range(3):
        n, k, s = shape[1 + a], ksizes[1 + a], strides[1 + a]
        if padding == "VALID":
            out = max((n - k + s) // s, 0)
            geo.append((out, 0))
        else:
            out = -(-n // s)
            total = max((out - 1) * s + k - n, 0)
            geo.append((out, total // 2))
    return geo


def _volume_patches_kernel(input, ksizes, strides, padding, T=None):
    if input.ndim != 5:
        raise _IAE(None, None, "input must be 5-dimensional"
                   f"[{','.join(str(d) for d in input.shape)}]")
    geo = _volume_geometry(input.shape, ksizes, strides, padding)
    k = ksizes[1:4]
    s = strides[1:4]
    pads = [(0, 0)]
    for a, (out, before) in enumerate(geo):
        need = (out - 1) * s[a] + k[a] if out else 0
        pads.append((before, max(need - input.shape[1 + a] - before, 0)))
    pads.append((0, 0))
    x = np.pad(input, pads) if any(p != (0, 0) for p in pads) else input
    n, depth = input.shape[0], input.shape[4]
    outs = [g[0] for g in geo]
    if 0 in outs or n == 0:
        return np.zeros([n] + outs + [int(np.prod(k)) * depth], input.dtype)
    win = sliding_window_view(x, k, axis=(1, 2, 3))       # (N, P', R', C', D, kp, kr, kc)
    win = win[:, ::s[0], ::s[1], ::s[2]][:, :outs[0], :outs[1], :outs[2]]
    win = win.transpose(0, 1, 2, 3, 5, 6, 7, 4)
    return np.ascontiguousarray(win).reshape([n] + outs + [-1])


def _volume_patches_grad_kernel(grads, input_sizes, ksizes, strides, padding, T=None):
    shape = tuple(int(d) for d in np.reshape(input_sizes, -1))
    geo = _volume_geometry(shape, ksizes, strides, padding)
    k = ksizes[1:4]
    s = strides[1:4]
    outs = [g[0] for g in geo]
    before = [g[1] for g in geo]
    padded = [max((outs[a] - 1) * s[a] + k[a], shape[1 + a] + before[a]) for a in range(3)]
    acc = np.zeros((shape[0], *padded, shape[4]), grads.dtype)
    if grads.size:
        cols = grads.reshape(shape[0], *outs, *k, shape[4])
        for i in range(k[0]):
            for j in range(k[1]):
                for m in range(k[2]):
                    acc[:, i:i + s[0] * (outs[0] - 1) + 1:s[0],
                        j:j + s[1] * (outs[1] - 1) + 1:s[1],
                        m:m + s[2] * (outs[2] - 1) + 1:s[2]] += cols[:, :, :, :, i, j, m]
    return acc[:, before[0]:before[0] + shape[1], before[1]:before[1] + shape[2],
               before[2]:before[2] + shape[3]]


def _volume_patches_infer(inputs, attrs):
    x = inputs[0].shape
    if x.rank is not None and x.rank != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {x.rank}")
    if x.rank is None:
        return [(TensorShape([None] * 5), inputs[0].dtype)]
    k = attrs["ksizes"]
    if None in (x[1], x[2], x[3]):
        # TensorFlow's shape function knows all three sizes or none.
        dims = [x[0], None, None, None]
    else:
        geo = _volume_geometry(list(x), k, attrs["strides"], attrs["padding"])
        dims = [x[0]] + [g[0] for g in geo]
    depth = None if x[4] is None else k[1] * k[2] * k[3] * x[4]
    return [(TensorShape(dims + [depth]), inputs[0].dtype)]


_PATCH_ATTRS = ("ksizes", "strides", "padding")


def _volume_patches_grad(op, grad):
    attrs = {a: op.get_attr(a) for a in _PATCH_ATTRS}
    return [apply(_ExtractVolumePatchesGrad, [grad, shape_of(op.inputs[0], out_type="int32")],
                  attrs)]


def _volume_patches_grad_infer(inputs, attrs):
    c = U.constant_value(inputs[1])
    shape = TensorShape([int(d) for d in np.reshape(c, -1)]) if c is not None \
        else TensorShape([None] * 5)
    return [(shape, inputs[0].dtype)]


def _volume_patches_grad_grad(op, grad):
    attrs = {a: op.get_attr(a) for a in _PATCH_ATTRS}
    return [apply(_ExtractVolumePatches, [grad], attrs), None]


# In TensorFlow's order, which its error message lists.
_VOLUME_DTYPES = (D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64, D.bfloat16,
                  D.uint16, D.float16, D.uint32, D.uint64)
_ExtractVolumePatches = register("ExtractVolumePatches", _volume_patches_kernel,
                                 _volume_patches_infer, _volume_patches_grad,
                                 allowed=_VOLUME_DTYPES)
# TensorFlow differentiates ExtractVolumePatches through a sparse matrix
# product; here the sum of the patches back into place is an op of its own.
_ExtractVolumePatchesGrad = register("ExtractVolumePatchesGrad", _volume_patches_grad_kernel,
                                     _volume_patches_grad_infer, _volume_patches_grad_grad)


def _five(name, v):
    v = [int(x) for x in v]
    if len(v) < 5:
        msg = f"Length for attr '{name}' of {len(v)} must be at least minimum 5"
        if _state.graph is None:
            raise _IAE(None, None, msg)
        raise ValueError(msg)
    return v


@export("extract_volume_patches", "compat.v1.extract_volume_patches")
def extract_volume_patches(input, ksizes, strides, padding, name=None):
    """The ksizes[1] x ksizes[2] x ksizes[3] patches of the 5-D
    [batch, planes, rows, cols, depth] `input`, every `strides`, flattened
    (plane, row, column, depth order) into the last dimension.

    Raises:
      InvalidArgumentError: for a padding other than "SAME"/"VALID", or sizes
        or strides across the batch or depth dimensions.
    """
    if padding not in ("SAME", "VALID"):
        msg = (f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
               "values: \"SAME\", \"VALID\"")
        if _state.graph is None:
            raise _IAE(None, None, msg)
        raise ValueError(msg)
    with _scope(name or "ExtractVolumePatches"):
        x = convert_to_tensor(input, name="input")
        U.check_dtype("ExtractVolumePatches", x, _VOLUME_DTYPES)
        attrs = {"ksizes": _five("ksizes", ksizes), "strides": _five("strides", strides),
                 "padding": padding}
        if attrs["ksizes"][0] != 1 or attrs["ksizes"][4] != 1 or attrs["strides"][0] != 1 or \
                attrs["strides"][4] != 1:
            raise U.op_error("ExtractVolumePatches", "Only support ksizes across space.",
                             errors.UnimplementedError)
        return apply(_ExtractVolumePatches, [x], attrs, name="ExtractVolumePatches")
