"""3-D convolution and the convolution front ends built on the 1-D/2-D/3-D
ops: `tf.nn.conv3d` (Conv3D, NDHWC, with Conv3DBackpropInputV2 and
Conv3DBackpropFilterV2 as its differentiable gradient ops), the transposed
convolutions (`conv1d_transpose`, `conv3d_transpose`, `conv_transpose`,
`atrous_conv2d_transpose`), `convolution` (dispatch on the number of
spatial axes), `atrous_conv2d`, the public depthwise backprop functions,
and `tf.compat.v1.nn`'s backprop functions (their `tf.raw_ops` entries are
ops/raw_ops.py's generic ones).

The 3-D kernels are conv_ops' N-D kernels (im2col and one GEMM; one GEMM
per filter offset for the input gradient) behind the checks TensorFlow's
CPU kernels make.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.context import executing_eagerly
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.func_graph import in_jit_compile_scope
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core.dim_ops import expand_dims, squeeze, transpose
from ..core.split_pad_ops import split
from ..core.join_ops import concat
from . import conv_ops as C
from . import nn_util

__all__ = ["conv3d", "conv3d_transpose", "conv1d_transpose", "conv_transpose", "convolution",
           "atrous_conv2d", "atrous_conv2d_transpose", "depthwise_conv2d_backprop_input",
           "depthwise_conv2d_backprop_filter"]

_FLOATS = (D.float16, D.bfloat16, D.float32, D.float64)
_CONV3D_ATTRS = ("strides", "padding", "dilations", "data_format")


# --- the Conv3D ops ------------------------------------------------------------------

def _check_conv3d(strides, dilations, in_depth, filter_depth):
    """The checks of TensorFlow's Conv3D kernels (no grouped 3-D convolution
    on the CPU)."""
    if strides[0] != 1 or strides[4] != 1:
        raise errors.UnimplementedError(
            None, None, "Current implementation does not yet support strides in the batch "
            "and depth dimensions.")
    if dilations[0] != 1 or dilations[4] != 1:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation does not yet support dilations rates in the "
            "batch and depth dimensions.")
    if in_depth != filter_depth:
        raise errors.InvalidArgumentError(
            None, None, f"input and filter must have the same depth: {in_depth} vs "
            f"{filter_depth}")


def _check_rank(what, shape):
    if len(shape) != 5:
        raise errors.InvalidArgumentError(None, None,
                                          f"{what} must be 5-dimensional: {list(shape)}")


def _check_out_backprop(name, in_shape, k, out_backprop, strides, dilations, padding):
    """The output gradient must have the shape the forward op would give."""
    geo = C._geometry(in_shape, k, strides, dilations, padding)
    for a, (o, _, _) in enumerate(geo):
        if out_backprop.shape[1 + a] != o:
            raise errors.InvalidArgumentError(
                None, None, f"{name}: Size of out_backprop doesn't match computed: actual = "
                f"{out_backprop.shape[1 + a]}, computed = {o} spatial_dim: {1 + a} input: "
                f"{in_shape[1 + a]} filter: {k[a]} output: {out_backprop.shape[1 + a]} "
                f"stride: {strides[1 + a]} dilation: {dilations[1 + a]}")


def _conv3d_kernel(input, filter, strides, padding, dilations, data_format="NDHWC", T=None):
    _check_rank("input", input.shape)
    _check_rank("filter", filter.shape)
    _check_conv3d(strides, dilations, input.shape[4], filter.shape[3])
    return C._conv_kernel(input, filter, strides, padding, dilations)


def _conv3d_input_kernel(input_sizes, filter, out_backprop, strides, padding, dilations,
                         data_format="NDHWC", T=None, Tshape=None):
    in_shape = tuple(int(d) for d in np.reshape(input_sizes, -1))
    _check_rank("input_sizes", in_shape)
    _check_rank("filter", filter.shape)
    _check_rank("out_backprop", out_backprop.shape)
    _check_conv3d(strides, dilations, in_shape[4], filter.shape[3])
    _check_out_backprop("Conv3DBackpropInputOpV2", in_shape, filter.shape[:3], out_backprop,
                        strides, dilations, padding)
    return C._backprop_input_kernel(in_shape, filter, out_backprop, strides, padding,
                                    dilations)


def _conv3d_filter_kernel(input, filter_sizes, out_backprop, strides, padding, dilations,
                          data_format="NDHWC", T=None):
    k = tuple(int(d) for d in np.reshape(filter_sizes, -1))
    _check_rank("input", input.shape)
    _check_rank("filter_sizes", k)
    _check_rank("out_backprop", out_backprop.shape)
    _check_conv3d(strides, dilations, input.shape[4], k[3])
    _check_out_backprop("Conv3DBackpropFilterOpV2", input.shape, k[:3], out_backprop,
                        strides, dilations, padding)
    return C._backprop_filter_kernel(input, k, out_backprop, strides, padding, dilations)


def _conv3d_infer(inputs, attrs):
    x, f = inputs[0].shape, inputs[1].shape
    for what, s in (("input", x), ("filter", f)):
        if s.rank is not None and s.rank != 5:
            raise ValueError(f"Shape must be rank 5 but is rank {s.rank} for '{{{{node "
                             f"Conv3D}}}}' ({what})")
    if len(attrs["strides"]) < 5 or len(attrs["dilations"]) < 5:
        raise ValueError("Attr 'strides' and 'dilations' of 'Conv3D' Op must have 5 values")
    if x.rank is None or f.rank is None:
        return [(TensorShape([None] * 5), inputs[0].dtype)]
    if x[4] is not None and f[3] is not None and x[4] % f[3]:
        raise ValueError(f"Depth of input ({x[4]}) is not a multiple of input depth of filter "
                         f"({f[3]})")
    return [(TensorShape(C._spatial_dims(x, f, attrs) + [f[4]]), inputs[0].dtype)]


_conv3d_grad, _conv3d_input_grad, _conv3d_filter_grad = C._conv_gradients(
    lambda: (_Conv3D, _Conv3DBackpropInputV2, _Conv3DBackpropFilterV2), _CONV3D_ATTRS)
_Conv3D = register("Conv3D", _conv3d_kernel, _conv3d_infer, _conv3d_grad, allowed=_FLOATS)
_Conv3DBackpropInputV2 = register("Conv3DBackpropInputV2", _conv3d_input_kernel,
                                  C._sizes_infer(0, 5), _conv3d_input_grad)
_Conv3DBackpropFilterV2 = register("Conv3DBackpropFilterV2", _conv3d_filter_kernel,
                                   C._sizes_infer(1, 5), _conv3d_filter_grad)


# --- argument handling ---------------------------------------------------------------

def _seq(v, n, what):
    """A stride/dilation argument as TensorFlow's full (n + 2)-element
    channels-last list (`_get_sequence`): an int, or 1, n or n + 2 values."""
    if v is None:
        return [1] * (n + 2)
    if isinstance(v, (int, np.integer)):
        return [1] + [int(v)] * n + [1]
    v = [int(e) for e in np.reshape(np.asarray(v), -1)]
    if len(v) == 1:
        return [1] + v * n + [1]
    if len(v) == n:
        return [1] + v + [1]
    if len(v) == n + 2:
        return v
    raise ValueError(f"{what} should be of length 1, {n} or {n + 2}. Received: {what}={v} of "
                     f"length {len(v)}")


def _op_list(v, what, op):
    """A raw op's list attribute (TensorFlow's op wrappers take no int)."""
    if isinstance(v, (int, np.integer)):
        raise TypeError(f"Expected list for '{what}' argument to '{op}' Op, not {v}.")
    return [int(e) for e in v]


def _string_padding(padding, allowed=("SAME", "VALID")):
    """The padding attribute, with TensorFlow's errors for a bad one."""
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if padding.upper() not in allowed:
        msg = (f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
               "values: " + ", ".join(f'"{a}"' for a in allowed))
        if executing_eagerly():
            raise errors.InvalidArgumentError(None, None, msg)
        raise ValueError(msg)
    return padding.upper()


def _check_format(data_format, ok):
    if data_format not in (None, ok):
        raise errors.UnimplementedError(
            None, None, f"rillflow's convolution ops support the {ok} data format on the CPU; "
            f"got data_format={data_format!r}")


def _min_length(v, n, what, op):
    if len(v) < n:
        msg = f"Attr '{what}' of '{op}' Op passed list of length {len(v)} less than minimum {n}."
        if executing_eagerly():
            raise errors.InvalidArgumentError(
                None, None, f"Length for attr '{what}' of {len(v)} must be at least minimum {n}")
        raise ValueError(msg)
    return v


def _checked(opdef, x):
    nn_util._check_eager_dtype(opdef, x)
    return x


# --- public functions ----------------------------------------------------------------

def _conv3d_attrs(strides, padding, dilations, data_format, op="conv3d"):
    _check_format(data_format, "NDHWC")
    strides = _min_length(_op_list(strides, "strides", op), 5, "strides", "Conv3D")
    dilations = [1] * 5 if dilations is None else _min_length(
        _op_list(dilations, "dilations", op), 5, "dilations", "Conv3D")
    return {"strides": strides, "padding": _string_padding(padding), "dilations": dilations,
            "data_format": "NDHWC"}


@export("nn.conv3d")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):
    """3-D convolution of NDHWC `input` with [depth, height, width, in, out]
    `filters`; `strides` and `dilations` are 5-element lists.

    Raises:
      TypeError: for an int stride/dilation or a non-string padding.
      InvalidArgumentError: (eager) for mismatched depths, a bad padding name or
        too short a stride list; ValueError for those while building a graph.
      UnimplementedError: for strides in the batch or channel dimension.
    """
    attrs = _conv3d_attrs(strides, padding, dilations, data_format)
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype_hint=x.dtype)
    return apply(_Conv3D, [_checked(_Conv3D, x), f], attrs, name=name or "Conv3D")


@export("compat.v1.nn.conv3d")
def conv3d_v1(input, filter=None, strides=None, padding=None, data_format="NDHWC",
              dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    """TensorFlow 1's conv3d: `filter` (or `filters`) as in `tf.nn.conv3d`."""
    return conv3d(input, filters if filter is None else filter, strides, padding,
                  data_format, list(dilations), name)


def _sizes(output_shape):
    return convert_to_tensor(output_shape, dtype=D.int32)


@export("nn.conv3d_transpose")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NDHWC", dilations=None, name=None):
    """The transpose (gradient) of conv3d: NDHWC `input` spread by
    [depth, height, width, out, in] `filters` into `output_shape`.

    Raises:
      ValueError: for a stride or dilation list of the wrong length.
      InvalidArgumentError: when the shapes do not fit together.
    """
    _check_format(data_format, "NDHWC")
    attrs = {"strides": _seq(strides, 3, "strides"), "padding": _string_padding(padding),
             "dilations": _seq(dilations, 3, "dilations"), "data_format": "NDHWC"}
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype_hint=x.dtype)
    return apply(_Conv3DBackpropInputV2, [_sizes(output_shape), f, x], attrs,
                 name=name or "conv3d_transpose")


@export("compat.v1.nn.conv3d_transpose")
def conv3d_transpose_v1(value, filter=None, output_shape=None, strides=None, padding="SAME",
                        data_format="NDHWC", name=None, input=None, filters=None,
                        dilations=None):
    """TensorFlow 1's conv3d_transpose (`value`/`input`, `filter`/`filters`)."""
    return conv3d_transpose(value if input is None else input,
                            filter if filters is None else filters, output_shape, strides,
                            padding, data_format, dilations, name)


def _one_d(v, what):
    """A 1-D stride/dilation as the width entry of conv2d's list."""
    return [1, 1, _seq(v, 1, what)[1], 1]


@export("nn.conv1d_transpose")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NWC", dilations=None, name=None):
    """The transpose of conv1d: NWC `input`, [width, out, in] `filters`,
    computed as conv2d_transpose over a height of one (as TensorFlow does)."""
    _check_format(data_format, "NWC")
    x = expand_dims(convert_to_tensor(input), 1)
    f = expand_dims(convert_to_tensor(filters, dtype_hint=x.dtype), 0)
    if isinstance(output_shape, (list, tuple, np.ndarray)) and not any(
            isinstance(d, Tensor) for d in output_shape):
        out = [int(output_shape[0]), 1] + [int(d) for d in list(output_shape)[1:]]
    else:   # a tensor, or a list holding tensors (Keras: the batch from tf.shape)
        s = convert_to_tensor(output_shape, dtype=D.int32)
        out = concat([s[:1], [1], s[1:]], 0)
    y = C.conv2d_transpose(x, f, out, _one_d(strides, "strides"), padding,
                           dilations=_one_d(dilations, "dilations"),
                           name=name or "conv1d_transpose")
    return squeeze(y, [1])


@export("nn.conv_transpose")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,
                   dilations=None, name=None):
    """conv1d/2d/3d_transpose, chosen by the length of `output_shape`."""
    n = int(convert_to_tensor(output_shape).shape[0]) if not isinstance(
        output_shape, (list, tuple)) else len(output_shape)
    fns = {3: conv1d_transpose, 4: C.conv2d_transpose, 5: conv3d_transpose}
    if n not in fns:
        raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: "
                         f"output_shape={list(output_shape)} of length {n}.")
    kw = {"data_format": data_format} if data_format is not None else {}
    return fns[n](input, filters, output_shape, strides, padding, dilations=dilations,
                  name=name, **kw)


@export("nn.convolution")
def convolution(input, filters, strides=None, padding="VALID", data_format=None,
                dilations=None, name=None):
    """conv1d, conv2d or conv3d by the rank of `filters` (spatial axes + 2).

    Raises:
      TypeError: for a non-string padding.
      ValueError: for 4 or more spatial axes, a non-positive dilation, or
        strides > 1 together with dilations > 1.
    """
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype_hint=x.dtype)
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    n = (f.shape.rank if f.shape.rank is not None else x.shape.rank) - 2
    if n not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: "
                         f"num_spatial_dims={n}.")
    s = _seq(strides, n, "strides")[1:-1]
    d = _seq(dilations, n, "dilations")[1:-1]
    if any(v < 1 for v in d):
        raise ValueError(f"all values of `dilation_rate` must be positive. Received: "
                         f"dilation_rate={np.asarray(d)}")
    if any(v > 1 for v in s) and any(v > 1 for v in d):
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`."
                         f" Received: strides={np.asarray(s)} and dilation_rate={np.asarray(d)}")
    name = name or "convolution"
    if in_jit_compile_scope():
        xla = _xla_convolution(x, f, s, padding, data_format, d, name, n)
        if xla is not None:
            return xla
    if n == 1:
        return C.conv1d(x, f, s[0], padding, data_format or "NWC", d[0], name=name)
    if n == 2:
        return C.conv2d(x, f, s, padding, data_format or "NHWC", d, name=name)
    return conv3d(x, f, [1] + s + [1], padding, data_format or "NDHWC", [1] + d + [1],
                  name=name)


def _xla_convolution(x, f, strides, padding, data_format, dilations, name, n):
    """`convolution` as XLA computes it, for what TensorFlow's CPU kernels
    refuse and XLA accepts (tf.function(jit_compile=True)): channels-first
    layouts (transposed to channels-last and back) and grouped convolutions
    (input depth a multiple of the filter's: one convolution per group,
    concatenated). None when neither applies."""
    fmt = data_format or ""
    if fmt.startswith("NC"):
        to_last = [0] + list(range(2, n + 2)) + [1]
        to_first = [0, n + 1] + list(range(1, n + 1))
        y = convolution(transpose(x, to_last), f, strides, padding, None, dilations, name)
        return transpose(y, to_first)
    in_depth, f_depth = x.shape[-1], f.shape[-2]
    if in_depth is None or f_depth is None or in_depth == f_depth or f_depth == 0 \
            or in_depth % f_depth:
        return None  # the ops' own checks report bad depths
    groups = in_depth // f_depth
    if f.shape[-1] is None or f.shape[-1] % groups:
        return None
    xs = split(x, groups, axis=-1)
    fs = split(f, groups, axis=-1)
    return concat([convolution(xg, fg, strides, padding, None, dilations, name)
                   for xg, fg in zip(xs, fs)], axis=-1)


@export("nn.atrous_conv2d")
def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with the filter dilated by `rate` (holes between its taps)."""
    return convolution(value, filters, padding=padding, dilations=rate,
                       name=name or "atrous_conv2d")


@export("nn.atrous_conv2d_transpose")
def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: conv2d_transpose with the filter
    dilated by `rate` and unit strides.

    Raises:
      ValueError: for a rate below one.
    """
    if rate < 1:
        raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
    return C.conv2d_transpose(value, filters, output_shape, 1, _string_padding(padding),
                              dilations=[1, int(rate), int(rate), 1],
                              name=name or "atrous_conv2d_transpose")


# --- depthwise and compat.v1 backprop functions ---------------------------------------

def _conv2d_attrs(strides, padding, dilations, data_format):
    C._check_format(data_format)
    pad, explicit = C._padding(padding)
    return {"strides": C._four(strides, "strides"), "padding": pad,
            "dilations": C._four(dilations, "dilations"), "explicit_paddings": explicit,
            "data_format": "NHWC"}


@export("nn.depthwise_conv2d_backprop_input",
        "compat.v1.nn.depthwise_conv2d_native_backprop_input")
def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                    data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of depthwise_conv2d with respect to its input, of shape
    `input_sizes` (DepthwiseConv2dNativeBackpropInput)."""
    dy = convert_to_tensor(out_backprop)
    return apply(C._DepthwiseBackpropInput,
                 [_sizes(input_sizes), convert_to_tensor(filter, dtype_hint=dy.dtype), dy],
                 _conv2d_attrs(strides, padding, dilations, data_format),
                 name=name or "DepthwiseConv2dNativeBackpropInput")


@export("nn.depthwise_conv2d_backprop_filter",
        "compat.v1.nn.depthwise_conv2d_native_backprop_filter")
def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                     data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of depthwise_conv2d with respect to its filter, of shape
    `filter_sizes` (DepthwiseConv2dNativeBackpropFilter)."""
    x = convert_to_tensor(input)
    return apply(C._DepthwiseBackpropFilter,
                 [x, _sizes(filter_sizes), convert_to_tensor(out_backprop, dtype_hint=x.dtype)],
                 _conv2d_attrs(strides, padding, dilations, data_format),
                 name=name or "DepthwiseConv2dNativeBackpropFilter")


@export("compat.v1.nn.depthwise_conv2d_native")
def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",
                            dilations=(1, 1, 1, 1), name=None):
    """The DepthwiseConv2dNative op (4-element strides and dilations)."""
    return C.depthwise_conv2d(input, filter, strides, padding, data_format, list(dilations),
                              name=name)


@export("compat.v1.nn.conv2d_backprop_input")
def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None, filters=None):
    """The gradient of conv2d with respect to its input (Conv2DBackpropInput)."""
    dy = convert_to_tensor(out_backprop)
    f = convert_to_tensor(filters if filter is None else filter, dtype_hint=dy.dtype)
    return apply(C._Conv2DBackpropInput, [_sizes(input_sizes), f, dy],
                 _conv2d_attrs(strides, padding, dilations, data_format),
                 name=name or "Conv2DBackpropInput")


@export("compat.v1.nn.conv2d_backprop_filter")
def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                           use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1),
                           name=None):
    """The gradient of conv2d with respect to its filter (Conv2DBackpropFilter)."""
    x = convert_to_tensor(input)
    return apply(C._Conv2DBackpropFilter,
                 [x, _sizes(filter_sizes), convert_to_tensor(out_backprop, dtype_hint=x.dtype)],
                 _conv2d_attrs(strides, padding, dilations, data_format),
                 name=name or "Conv2DBackpropFilter")


@export("compat.v1.nn.conv3d_backprop_filter_v2", "compat.v1.nn.conv3d_backprop_filter")
def conv3d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                           data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of conv3d with respect to its filter (Conv3DBackpropFilterV2)."""
    x = convert_to_tensor(input)
    return apply(_Conv3DBackpropFilterV2,
                 [x, _sizes(filter_sizes), convert_to_tensor(out_backprop, dtype_hint=x.dtype)],
                 _conv3d_attrs(strides, padding, list(dilations), data_format,
                               "conv3d_backprop_filter_v2"),
                 name=name or "Conv3DBackpropFilterV2")
