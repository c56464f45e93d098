"""2-D convolution and pooling (`tf.nn.conv2d`, `max_pool2d`, `avg_pool2d`),
NHWC, with TensorFlow's gradient ops (Conv2DBackpropInput,
Conv2DBackpropFilter, MaxPoolGrad, AvgPoolGrad) as registry entries so that
second derivatives work.

Kernels gather each output position's input window as a strided view of
the padded input (no copy until the one matrix product per convolution);
TensorFlow's padding rules: SAME pads `total // 2` before and the rest
after, pooling windows never read padding (max ignores it, average divides
by the count of real elements).
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.op_util import FLOATS
from ...framework import dtypes as D
from ...framework.context import executing_eagerly
from ..core.constant_ops import zeros_like
from ..core.dim_ops import expand_dims, squeeze
from ..core.shape_ops import shape
from . import pool_kernels

__all__ = ["conv2d", "max_pool2d", "avg_pool2d"]

_PADDINGS = ("SAME", "VALID", "EXPLICIT")


# --- geometry ------------------------------------------------------------------------

def _out_and_pads(size, k, stride, dilation, padding, explicit=None):
    """(output size, pad before, pad after) along one spatial axis."""
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = explicit if explicit is not None else (0, 0)
    span = size + before + after - eff
    return (span // stride + 1 if span >= 0 else 0), before, after


def _geometry(shape, k, strides, dilations, padding, explicit_paddings):
    """Per spatial axis (H, W): (output size, pad before, pad after)."""
    explicit = None
    if padding == "EXPLICIT":
        explicit = [explicit_paddings[2 * a:2 * a + 2] for a in (1, 2)]
    return [_out_and_pads(shape[1 + a], k[a], strides[1 + a], dilations[1 + a], padding,
                          explicit[a] if explicit else None) for a in range(2)]


def _windows(x, k, strides, dilations, geo, fill=0):
    """The input window of every output position: (N, OH, OW, C, KH, KW)."""
    (oh, ph0, ph1), (ow, pw0, pw1) = geo
    xp = np.pad(x, ((0, 0), (ph0, ph1), (pw0, pw1), (0, 0)), constant_values=fill) \
        if ph0 or ph1 or pw0 or pw1 else x
    eh, ew = (k[0] - 1) * dilations[1] + 1, (k[1] - 1) * dilations[2] + 1
    if xp.shape[1] < eh or xp.shape[2] < ew:
        return np.zeros((x.shape[0], 0, 0, x.shape[3], k[0], k[1]), x.dtype)
    w = sliding_window_view(xp, (eh, ew), axis=(1, 2))
    return w[:, ::strides[1], ::strides[2], :, ::dilations[1], ::dilations[2]][:, :oh, :ow]


def _im2col(x, k, strides, dilations, geo):
    """The windows as one contiguous (N*OH*OW, KH*KW*C) matrix: rows copy
    runs of C contiguous values, and a (KH, KW, C, O) filter is already the
    matching (KH*KW*C, O) matrix."""
    (oh, ph0, ph1), (ow, pw0, pw1) = geo
    n, c = x.shape[0], x.shape[3]
    if c < 16 and oh > 0 and ow > 0:
        # Few channels: a gather of the 6-D window view copies runs of C
        # values; one strided block copy per filter position is 3x faster.
        xp = np.pad(x, ((0, 0), (ph0, ph1), (pw0, pw1), (0, 0))) \
            if ph0 or ph1 or pw0 or pw1 else x
        cols = np.empty((n, oh, ow, k[0], k[1], c), x.dtype)
        for i in range(k[0]):
            for j in range(k[1]):
                r0, c0 = i * dilations[1], j * dilations[2]
                cols[:, :, :, i, j, :] = xp[:, r0:r0 + (oh - 1) * strides[1] + 1:strides[1],
                                            c0:c0 + (ow - 1) * strides[2] + 1:strides[2], :]
        return cols.reshape(n * oh * ow, -1), (n, oh, ow)
    win = _windows(x, k, strides, dilations, geo).transpose(0, 1, 2, 4, 5, 3)
    n, oh, ow = win.shape[:3]
    return np.ascontiguousarray(win).reshape(n * oh * ow, -1), (n, oh, ow)


def _scatter_windows(cols, in_shape, k, strides, dilations, geo):
    """Adds each window's values back into an input-shaped array (the
    transpose of `_windows`); `cols` is (N, OH, OW, KH, KW, C)."""
    (oh, ph0, ph1), (ow, pw0, pw1) = geo
    n, h, w, c = in_shape
    out = np.zeros((n, h + ph0 + ph1, w + pw0 + pw1, c), cols.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            r0, c0 = i * dilations[1], j * dilations[2]
            out[:, r0:r0 + (oh - 1) * strides[1] + 1:strides[1],
                c0:c0 + (ow - 1) * strides[2] + 1:strides[2], :] += cols[:, :, :, i, j, :]
    return out[:, ph0:ph0 + h, pw0:pw0 + w, :]


# --- convolution ---------------------------------------------------------------------

def _conv_kernel(input, filter, strides, padding, dilations, explicit_paddings=(),
                 data_format="NHWC", T=None):
    _check_groups(input.shape[3], filter.shape[2], filter.shape[3])
    geo = _geometry(input.shape, filter.shape[:2], strides, dilations, padding,
                    explicit_paddings)
    # Windows ordered (..., KH, KW, C): the gathered rows copy runs of C
    # contiguous values, and the filter is already a (KH*KW*C, O) matrix.
    cols, (n, oh, ow) = _im2col(input, filter.shape[:2], strides, dilations, geo)
    out = cols @ filter.reshape(-1, filter.shape[3])
    return out.reshape(n, oh, ow, filter.shape[3]).astype(input.dtype, copy=False)


def _backprop_input_kernel(input_sizes, filter, out_backprop, strides, padding, dilations,
                           explicit_paddings=(), data_format="NHWC", T=None):
    in_shape = tuple(int(d) for d in np.reshape(input_sizes, -1))
    geo = _geometry(in_shape, filter.shape[:2], strides, dilations, padding, explicit_paddings)
    (oh, ph0, ph1), (ow, pw0, pw1) = geo
    n, h, w, c = in_shape
    kh, kw, _, o = filter.shape
    out = np.zeros((n, h + ph0 + ph1, w + pw0 + pw1, c), out_backprop.dtype)
    if out.size == 0 or out_backprop.size == 0:
        return out[:, ph0:ph0 + h, pw0:pw0 + w, :]
    dy = out_backprop.reshape(-1, o)
    # One product per filter position, each added to its strided view of the
    # input gradient: contiguous operands throughout, no (N, OH, OW, KH, KW, C)
    # temporary and no gather.
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilations[1], j * dilations[2]
            target = out[:, r0:r0 + (oh - 1) * strides[1] + 1:strides[1],
                         c0:c0 + (ow - 1) * strides[2] + 1:strides[2], :]
            part = (dy @ filter[i, j].T).reshape(target.shape)
            np.add(target, part, out=target, casting="unsafe")
    return out[:, ph0:ph0 + h, pw0:pw0 + w, :]


def _backprop_filter_kernel(input, filter_sizes, out_backprop, strides, padding, dilations,
                            explicit_paddings=(), data_format="NHWC", T=None):
    k = [int(d) for d in np.reshape(filter_sizes, -1)]
    geo = _geometry(input.shape, k[:2], strides, dilations, padding, explicit_paddings)
    cols, _ = _im2col(input, k[:2], strides, dilations, geo)
    df = cols.T @ out_backprop.reshape(-1, out_backprop.shape[3])
    return df.reshape(k[0], k[1], input.shape[3], -1).astype(input.dtype, copy=False)


def _check_groups(in_depth, filter_depth, out_depth):
    if filter_depth == 0 or in_depth % filter_depth:
        raise errors.InvalidArgumentError(
            None, None, f"input depth must be evenly divisible by filter depth: {in_depth} vs "
            f"{filter_depth}")
    groups = in_depth // filter_depth
    if out_depth % groups:
        raise errors.InvalidArgumentError(
            None, None, f"output depth must be evenly divisible by number of groups: "
            f"{out_depth} vs {groups}")
    if groups != 1:
        raise errors.UnimplementedError(
            None, None, "Grouped convolutions are not supported on the CPU (input depth "
            f"{in_depth}, filter depth {filter_depth}).")


def _dim(d):
    return None if d is None else int(d)


def _conv_infer(inputs, attrs):
    x, f = inputs[0].shape, inputs[1].shape
    if x.rank is not None and x.rank != 4:
        raise ValueError(f"input must be 4-dimensional{list(x)}")
    if f.rank is not None and f.rank != 4:
        raise ValueError(f"filter must be 4-dimensional: {list(f)}")
    if x.rank is None or f.rank is None:
        return [(TensorShape([None] * 4), inputs[0].dtype)]
    if x[3] is not None and f[2] is not None and f[3] is not None:
        try:
            _check_groups(x[3], f[2], f[3])
        except errors.OpError as e:
            raise ValueError(e.message) from None
    return [(TensorShape(_spatial_dims(x, f, attrs) + [f[3]]), inputs[0].dtype)]


def _spatial_dims(x, f, attrs):
    """[N, OH, OW] of a convolution of input shape `x` with filter shape `f`."""
    dims = [x[0]]
    explicit = attrs.get("explicit_paddings") or ()
    for a in range(2):
        size, k = x[1 + a], f[a]
        dims.append(None if size is None or k is None else _out_and_pads(
            size, k, attrs["strides"][1 + a], attrs["dilations"][1 + a], attrs["padding"],
            explicit[2 + 2 * a:4 + 2 * a] if explicit else None)[0])
    return dims


def _sizes_infer(index):
    def infer(inputs, attrs):
        c = U.constant_value(inputs[index])
        shape = TensorShape([int(d) for d in np.reshape(c, -1)]) if c is not None \
            else TensorShape([None] * 4)
        other = inputs[1 if index == 0 else 0]
        return [(shape, other.dtype)]
    return infer


def _conv_attrs(op):
    return {k: op.attrs[k] for k in ("strides", "padding", "dilations", "explicit_paddings",
                                     "data_format")}


def _conv_gradients(forward, backprop_input, backprop_filter):
    """The gradient functions of a convolution op and of its two backprop ops
    (each a convolution of the others), given the registry entries' names
    in this module (looked up when a gradient is built)."""
    def ops():
        g = globals()
        return g[forward], g[backprop_input], g[backprop_filter]

    def shape_of(t):
        return shape(t, out_type="int32")

    def conv_grad(op, g):
        _, bi, bf = ops()
        x, f = op.inputs
        a = _conv_attrs(op)
        return [apply(bi, [shape_of(x), f, g], a), apply(bf, [x, shape_of(f), g], a)]

    def input_grad(op, g):
        fw, _, bf = ops()
        _, f, dy = op.inputs
        a = _conv_attrs(op)
        return [None, apply(bf, [g, shape_of(f), dy], a), apply(fw, [g, f], a)]

    def filter_grad(op, g):
        fw, bi, _ = ops()
        x, _, dy = op.inputs
        a = _conv_attrs(op)
        return [apply(bi, [shape_of(x), g, dy], a), None, apply(fw, [x, g], a)]
    return conv_grad, input_grad, filter_grad


_conv_grad, _backprop_input_grad, _backprop_filter_grad = _conv_gradients(
    "_Conv2D", "_Conv2DBackpropInput", "_Conv2DBackpropFilter")
_Conv2D = register("Conv2D", _conv_kernel, _conv_infer, _conv_grad, allowed=FLOATS)
_Conv2DBackpropInput = register("Conv2DBackpropInput", _backprop_input_kernel,
                                _sizes_infer(0), _backprop_input_grad)
_Conv2DBackpropFilter = register("Conv2DBackpropFilter", _backprop_filter_kernel,
                                 _sizes_infer(1), _backprop_filter_grad)


# --- depthwise convolution ----------------------------------------------------------

def _depthwise_kernel(input, filter, strides, padding, dilations, explicit_paddings=(),
                      data_format="NHWC", T=None):
    geo = _geometry(input.shape, filter.shape[:2], strides, dilations, padding,
                    explicit_paddings)
    win = _windows(input, filter.shape[:2], strides, dilations, geo)   # (N,OH,OW,C,KH,KW)
    out = np.einsum("nhwckl,klcm->nhwcm", win, filter, optimize=True)
    n, oh, ow, c, m = out.shape
    return out.reshape(n, oh, ow, c * m).astype(input.dtype, copy=False)


def _depthwise_input_kernel(input_sizes, filter, out_backprop, strides, padding, dilations,
                            explicit_paddings=(), data_format="NHWC", T=None):
    in_shape = tuple(int(d) for d in np.reshape(input_sizes, -1))
    kh, kw, c, m = filter.shape
    geo = _geometry(in_shape, (kh, kw), strides, dilations, padding, explicit_paddings)
    dy = out_backprop.reshape(out_backprop.shape[:3] + (c, m))
    cols = np.einsum("nhwcm,klcm->nhwklc", dy, filter, optimize=True)
    return _scatter_windows(cols, in_shape, (kh, kw), strides, dilations, geo) \
        .astype(out_backprop.dtype, copy=False)


def _depthwise_filter_kernel(input, filter_sizes, out_backprop, strides, padding, dilations,
                             explicit_paddings=(), data_format="NHWC", T=None):
    kh, kw, c, m = (int(d) for d in np.reshape(filter_sizes, -1))
    geo = _geometry(input.shape, (kh, kw), strides, dilations, padding, explicit_paddings)
    win = _windows(input, (kh, kw), strides, dilations, geo)
    dy = out_backprop.reshape(out_backprop.shape[:3] + (c, m))
    return np.einsum("nhwckl,nhwcm->klcm", win, dy, optimize=True).astype(input.dtype,
                                                                          copy=False)


def _depthwise_infer(inputs, attrs):
    x, f = inputs[0].shape, inputs[1].shape
    if x.rank is None or f.rank is None:
        return [(TensorShape([None] * 4), inputs[0].dtype)]
    if x.rank != 4 or f.rank != 4:
        raise ValueError(f"input and filter must be 4-dimensional: {list(x)}, {list(f)}")
    out = f[2] * f[3] if f[2] is not None and f[3] is not None else None
    return [(TensorShape(_spatial_dims(x, f, attrs) + [out]), inputs[0].dtype)]


_depthwise_grad, _depthwise_input_grad, _depthwise_filter_grad = _conv_gradients(
    "_Depthwise", "_DepthwiseBackpropInput", "_DepthwiseBackpropFilter")
_Depthwise = register("DepthwiseConv2dNative", _depthwise_kernel, _depthwise_infer,
                      _depthwise_grad, allowed=FLOATS)
_DepthwiseBackpropInput = register("DepthwiseConv2dNativeBackpropInput",
                                   _depthwise_input_kernel, _sizes_infer(0),
                                   _depthwise_input_grad)
_DepthwiseBackpropFilter = register("DepthwiseConv2dNativeBackpropFilter",
                                    _depthwise_filter_kernel, _sizes_infer(1),
                                    _depthwise_filter_grad)


# --- pooling -------------------------------------------------------------------------

def _pool_windows(x, ksize, strides, padding, fill):
    geo = _geometry(x.shape, ksize[1:3], strides, [1, 1, 1, 1], padding, ())
    return _windows(x, ksize[1:3], strides, [1, 1, 1, 1], geo, fill), geo


def _max_pool_kernel(input, ksize, strides, padding, data_format="NHWC", T=None):
    return pool_kernels.max_pool(input, ksize, strides, padding)


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _max_pool_grad_kernel(orig_input, orig_output, grad, ksize, strides, padding,
                          data_format="NHWC", T=None):
    return pool_kernels.max_pool_grad(orig_input, grad, ksize, strides, padding)


def _first_max(x, ksize, strides, padding):
    """The position (0 .. KH*KW-1) of each window's first maximum, shaped
    (N, OH, OW, 1, C), and the geometry."""
    win, geo = _pool_windows(x, ksize, strides, padding, _lowest(x.dtype))
    n, oh, ow, c, kh, kw = win.shape
    flat = np.ascontiguousarray(win.transpose(0, 1, 2, 4, 5, 3)).reshape(n, oh, ow, kh * kw, c)
    return flat.argmax(axis=3)[:, :, :, None, :], geo


def _avg_pool_kernel(value, ksize, strides, padding, data_format="NHWC", T=None):
    return pool_kernels.avg_pool(value, ksize, strides, padding)


def _avg_pool_grad_kernel(orig_input_shape, grad, ksize, strides, padding, data_format="NHWC",
                          T=None):
    in_shape = tuple(int(d) for d in np.reshape(orig_input_shape, -1))
    return pool_kernels.avg_pool_grad(in_shape, grad, ksize, strides, padding)


def _pool_infer(inputs, attrs):
    x = inputs[0].shape
    if x.rank is not None and x.rank != 4:
        raise ValueError(f"input must be 4-dimensional{list(x)}")
    if x.rank is None:
        return [(TensorShape([None] * 4), inputs[0].dtype)]
    dims = [x[0]]
    for a in range(2):
        size = x[1 + a]
        dims.append(None if size is None else _out_and_pads(
            size, attrs["ksize"][1 + a], attrs["strides"][1 + a], 1, attrs["padding"])[0])
    dims.append(x[3])
    return [(TensorShape(dims), inputs[0].dtype)]


def _pool_attrs(op):
    return {k: op.attrs[k] for k in ("ksize", "strides", "padding", "data_format")}


def _max_pool_grad(op, g):
    return [apply(_MaxPoolGrad, [op.inputs[0], op.outputs[0], g], _pool_attrs(op))]


def _avg_pool_grad(op, g):
    return [apply(_AvgPoolGrad, [shape(op.inputs[0], out_type="int32"), g], _pool_attrs(op))]


def _max_pool_grad_grad(op, gg):
    # The gradient routes each window's gradient to one input, so its
    # derivative reads `gg` at that input (MaxPoolGradGrad); the routing does
    # not change with small changes of the inputs.
    x, y, _ = op.inputs
    return [zeros_like(x), zeros_like(y),
            apply(_MaxPoolGradGrad, [x, y, gg], _pool_attrs(op))]


def _max_pool_grad_grad_kernel(orig_input, orig_output, grad, ksize, strides, padding,
                               data_format="NHWC", T=None):
    first, _ = _first_max(orig_input, ksize, strides, padding)
    gwin, _ = _pool_windows(grad, ksize, strides, padding, 0)
    n, oh, ow, c, kh, kw = gwin.shape
    flat = np.ascontiguousarray(gwin.transpose(0, 1, 2, 4, 5, 3)).reshape(n, oh, ow, kh * kw, c)
    return np.take_along_axis(flat, first, axis=3)[:, :, :, 0, :]


def _avg_pool_grad_grad(op, gg):
    return [None, apply(_AvgPool, [gg], _pool_attrs(op))]


_MaxPool = register("MaxPool", _max_pool_kernel, _pool_infer, _max_pool_grad,
                    allowed=U.REAL)
_MaxPoolGrad = register("MaxPoolGrad", _max_pool_grad_kernel,
                        lambda i, a: [(i[0].shape, i[0].dtype)], _max_pool_grad_grad)
_MaxPoolGradGrad = register("MaxPoolGradGrad", _max_pool_grad_grad_kernel,
                            lambda i, a: [(i[1].shape, i[1].dtype)])
_AvgPool = register("AvgPool", _avg_pool_kernel, _pool_infer, _avg_pool_grad, allowed=FLOATS)
_AvgPoolGrad = register("AvgPoolGrad", _avg_pool_grad_kernel, _sizes_infer(0),
                        _avg_pool_grad_grad)


# --- public functions ----------------------------------------------------------------

def _four(v, what, fill=1):
    """A stride/ksize/dilation argument as TensorFlow's 4-element NHWC list."""
    if v is None:
        return [1, 1, 1, 1]
    if isinstance(v, (int, np.integer)):
        return [1, int(v), int(v), 1]
    v = [int(x) for x in v]
    if len(v) == 1:
        return [1, v[0], v[0], 1]
    if len(v) == 2:
        return [1, v[0], v[1], 1]
    if len(v) == 4:
        return v
    raise ValueError(f"{what} should be of length 1, 2 or 4. Received: {what}={v} of length "
                     f"{len(v)}")


def _padding(padding):
    """(padding attr, explicit_paddings) from a string or per-dimension pairs."""
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            cls = errors.InvalidArgumentError if executing_eagerly() else None
            msg = (f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed "
                   f"values: \"SAME\", \"VALID\", \"EXPLICIT\"")
            raise cls(None, None, msg) if cls else ValueError(msg)
        return padding.upper(), []
    pairs = [list(p) for p in padding]
    if len(pairs) != 4 or any(len(p) != 2 for p in pairs) or pairs[0] != [0, 0] or \
            pairs[3] != [0, 0]:
        raise ValueError(f"padding should be a string or a list of 4 [before, after] pairs "
                         f"with zeros for the batch and channel dimensions; got {padding}")
    return "EXPLICIT", [int(v) for p in pairs for v in p]


def _check_format(data_format):
    if data_format not in (None, "NHWC"):
        raise errors.UnimplementedError(
            None, None, f"The Conv2D/pooling ops support the NHWC data format on the CPU; got "
            f"data_format={data_format!r}")


@export("nn.conv2d")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution of NHWC `input` with [height, width, in, out] `filters`.

    Raises:
      ValueError: for a bad padding, stride or rank (while building a graph).
      InvalidArgumentError: when the depths do not match.
    """
    _check_format(data_format)
    pad, explicit = _padding(padding)
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype_hint=x.dtype)
    attrs = {"strides": _four(strides, "strides"), "padding": pad,
             "dilations": _four(dilations, "dilations"), "explicit_paddings": explicit,
             "data_format": "NHWC"}
    return apply(_Conv2D, [x, f], attrs, name=name or "Conv2D")


def _pool(opdef, input, ksize, strides, padding, data_format, name):
    _check_format(data_format)
    pad, explicit = _padding(padding)
    if explicit:
        raise ValueError("pooling takes padding 'SAME' or 'VALID'")
    attrs = {"ksize": _four(ksize, "ksize"), "strides": _four(strides, "strides"),
             "padding": pad, "data_format": "NHWC"}
    return apply(opdef, [convert_to_tensor(input)], attrs, name=name or opdef.name)


@export("nn.max_pool2d")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The maximum of each window of NHWC `input` (padding never wins)."""
    return _pool(_MaxPool, input, ksize, strides, padding, data_format, name)


@export("nn.max_pool")
def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling of 3-D (NWC) or 4-D (NHWC) input."""
    return _pool_nd(_MaxPool, input, ksize, strides, padding, data_format, name)


def _pool_nd(opdef, input, ksize, strides, padding, data_format, name):
    x = convert_to_tensor(input)
    if x.shape.rank == 3:
        return _pool1d(opdef, x, ksize, strides, padding, data_format, name)
    return _pool(opdef, x, ksize, strides, padding, data_format, name)


def _pool1d(opdef, input, ksize, strides, padding, data_format, name):
    """1-D pooling: 2-D pooling over a height of one, as TensorFlow does it."""
    if data_format not in (None, "NWC"):
        _check_format(data_format)

    def one(v, what):
        v = [v] if isinstance(v, (int, np.integer)) else [int(e) for e in v]
        if len(v) not in (1, 3):
            raise ValueError(f"{what} should be of length 1 or 3. Received: {what}={v}")
        return [1, 1, v[0] if len(v) == 1 else v[1], 1]
    y = _pool(opdef, expand_dims(convert_to_tensor(input), 1), one(ksize, "ksize"),
              one(strides, "strides"), padding, None, name)
    return squeeze(y, [1])


@export("nn.max_pool1d")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """The maximum of each window of NWC `input`."""
    return _pool1d(_MaxPool, input, ksize, strides, padding, data_format, name)


@export("nn.avg_pool1d")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """The mean of each window of NWC `input` over its real elements."""
    return _pool1d(_AvgPool, input, ksize, strides, padding, data_format, name)


@export("nn.avg_pool2d")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The mean of each window of NHWC `input` over its real (unpadded) elements."""
    return _pool(_AvgPool, input, ksize, strides, padding, data_format, name)


@export("nn.avg_pool")
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling of 3-D (NWC) or 4-D (NHWC) input."""
    return _pool_nd(_AvgPool, input, ksize, strides, padding, data_format, name)


@export("nn.conv1d")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of NWC `input` with [width, in, out] `filters`: conv2d
    over a height of one, as TensorFlow computes it."""
    if data_format not in (None, "NWC"):
        _check_format(data_format)
    x = expand_dims(convert_to_tensor(input), 1)
    f = expand_dims(convert_to_tensor(filters), 0)
    stride = stride if isinstance(stride, (int, np.integer)) else list(stride)[-2]
    d = 1 if dilations is None else (dilations if isinstance(dilations, (int, np.integer))
                                     else list(dilations)[-2])
    y = conv2d(x, f, [1, 1, int(stride), 1], padding, dilations=[1, 1, int(d), 1],
               name=name or "conv1d")
    return squeeze(y, [1])


@export("nn.conv2d_transpose")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",
                     data_format="NHWC", dilations=None, name=None):
    """The transpose (gradient) of conv2d: NHWC `input` spread by
    [height, width, out, in] `filters` into `output_shape`."""
    _check_format(data_format)
    pad, explicit = _padding(padding)
    x = convert_to_tensor(input)
    f = convert_to_tensor(filters, dtype_hint=x.dtype)
    sizes = convert_to_tensor(output_shape, dtype=D.int32)
    attrs = {"strides": _four(strides, "strides"), "padding": pad,
             "dilations": _four(dilations, "dilations"), "explicit_paddings": explicit,
             "data_format": "NHWC"}
    return apply(_Conv2DBackpropInput, [sizes, f, x], attrs, name=name or "conv2d_transpose")


@export("nn.depthwise_conv2d")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """Each input channel convolved with its own [height, width, multiplier]
    filters: `filter` is [height, width, in, multiplier], the output has
    in * multiplier channels."""
    _check_format(data_format)
    pad, explicit = _padding(padding)
    x = convert_to_tensor(input)
    f = convert_to_tensor(filter, dtype_hint=x.dtype)
    attrs = {"strides": _four(strides, "strides"), "padding": pad,
             "dilations": _four(dilations, "dilations"), "explicit_paddings": explicit,
             "data_format": "NHWC"}
    return apply(_Depthwise, [x, f], attrs, name=name or "depthwise")


@export("nn.separable_conv2d")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,
                     data_format=None, dilations=None, name=None):
    """A depthwise convolution followed by a 1x1 convolution mixing channels."""
    depth = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format,
                             dilations)
    return conv2d(depth, pointwise_filter, 1, "VALID", name=name or "separable_conv2d")
