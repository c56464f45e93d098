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

from ...framework import blas_threads, errors
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
from . import conv_geometry, pool_kernels, winograd
from ..kernels import xla_gemm

__all__ = ["conv2d", "max_pool2d", "avg_pool2d"]

_PADDINGS = ("SAME", "VALID", "EXPLICIT")


# --- geometry (conv_geometry.py holds the N-D versions) ---------------------------

_out_and_pads = conv_geometry.out_and_pads
_geometry = conv_geometry.geometry
_windows = conv_geometry.windows
_im2col = conv_geometry.im2col
_scatter_windows = conv_geometry.scatter_windows


# --- convolution ---------------------------------------------------------------------

def _conv_kernel(input, filter, strides, padding, dilations, explicit_paddings=(),
                 data_format="NHWC", T=None):
    """Conv2D/Conv3D: im2col and one matrix product."""
    if blas_threads.ENABLED:
        blas_threads.check()
    nd = filter.ndim - 2
    _check_groups(input.shape[-1], filter.shape[-2], filter.shape[-1])
    geo = _geometry(input.shape, filter.shape[:nd], strides, dilations, padding,
                    explicit_paddings)
    if _winograd(input.shape, filter.shape, strides, dilations, input.dtype, geo,
                 "forward"):
        out = winograd.conv(input, filter, geo)
        if out is not None:             # None: an inf or NaN in it (winograd.py)
            return out
    # Windows ordered (..., *K, C): the gathered rows copy runs of C
    # contiguous values, and the filter is already a (prod(K)*C, O) matrix.
    cols, lead = _im2col(input, filter.shape[:nd], strides, dilations, geo)
    out = xla_gemm.matmul(cols, filter.reshape(-1, filter.shape[-1]))
    return out.reshape(lead + (filter.shape[-1],)).astype(input.dtype, copy=False)


def _backprop_input_kernel(input_sizes, filter, out_backprop, strides, padding, dilations,
                           explicit_paddings=(), data_format="NHWC", T=None, Tshape=None):
    """Conv2DBackpropInput/Conv3DBackpropInputV2: one product per filter
    offset added into its strided view (conv_geometry.backprop_input)."""
    if blas_threads.ENABLED:
        blas_threads.check()
    in_shape = tuple(int(d) for d in np.reshape(input_sizes, -1))
    nd = filter.ndim - 2
    geo = _geometry(in_shape, filter.shape[:nd], strides, dilations, padding,
                    explicit_paddings)
    if nd == 2:
        conv_geometry.check_backprop("Conv2DCustomBackpropInput", in_shape, filter.shape,
                                     out_backprop.shape, geo, strides, dilations)
    if _winograd(in_shape, filter.shape, strides, dilations, out_backprop.dtype, geo,
                 "input") and winograd.backprop_input_usable(geo):
        dx = winograd.backprop_input(in_shape, filter, out_backprop, geo)
        if dx is not None:
            return dx
    return conv_geometry.backprop_input(in_shape, filter, out_backprop, strides, dilations, geo)


def _backprop_filter_kernel(input, filter_sizes, out_backprop, strides, padding, dilations,
                            explicit_paddings=(), data_format="NHWC", T=None):
    """Conv2DBackpropFilter/Conv3DBackpropFilterV2: the transposed im2col
    matrix times the output gradient."""
    if blas_threads.ENABLED:
        blas_threads.check()
    k = [int(d) for d in np.reshape(filter_sizes, -1)]
    nd = len(k) - 2
    geo = _geometry(input.shape, k[:nd], strides, dilations, padding, explicit_paddings)
    if nd == 2:
        conv_geometry.check_backprop("Conv2DCustomBackpropFilter", input.shape, k,
                                     out_backprop.shape, geo, strides, dilations)
    if _winograd(input.shape, k, strides, dilations, input.dtype, geo, "filter"):
        df = winograd.backprop_filter(input, out_backprop, geo)
        if df is not None:
            return df
    cols, _ = _im2col(input, k[:nd], strides, dilations, geo)
    df = xla_gemm.matmul(cols.T, out_backprop.reshape(-1, out_backprop.shape[-1]))
    return df.reshape(k[:nd] + [input.shape[-1], -1]).astype(input.dtype, copy=False)


def _winograd(in_shape, filter_shape, strides, dilations, dtype, geo, op):
    """Whether a 2-D convolution (or gradient: `op` is "forward", "input"
    or "filter") of these shapes runs as Winograd F(2x2, 3x3) (winograd.py:
    3x3, stride 1, large enough, and faster than im2col for that op)."""
    outs = (geo[0][0], geo[1][0])
    return len(filter_shape) == 4 and in_shape[-1] == filter_shape[2] and winograd.usable(
        in_shape, filter_shape[:2], strides, dilations, dtype, filter_shape[3], outs) and \
        winograd.pays_for(op, in_shape, outs)


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
        # TensorFlow's shape function words these checks differently from
        # its kernel (_check_groups).
        if f[2] == 0 or x[3] % f[2]:
            raise ValueError(f"Depth of input ({x[3]}) is not a multiple of input depth of "
                             f"filter ({f[2]})")
        if f[3] % (x[3] // f[2]):
            raise ValueError(f"Depth of output ({f[3]}) is not a multiple of the number of "
                             f"groups ({x[3] // f[2]})")
        try:
            _check_groups(x[3], f[2], f[3])
        except errors.OpError as e:
            raise ValueError(e.message) from None
    return [(TensorShape(_spatial_dims(x, f, attrs) + [f[3]]), inputs[0].dtype)]


def _spatial_dims(x, f, attrs):
    """[N, *out] of a convolution of input shape `x` with filter shape `f`."""
    dims = [x[0]]
    explicit = attrs.get("explicit_paddings") or ()
    for a in range(x.rank - 2):
        size, k = x[1 + a], f[a]
        dims.append(None if size is None or k is None else _out_and_pads(
            size, k, attrs["strides"][1 + a], attrs["dilations"][1 + a], attrs["padding"],
            explicit[2 + 2 * a:4 + 2 * a] if explicit else None)[0])
    return dims


def _sizes_infer(index, rank=4):
    """Shape inference of an op whose input `index` holds the output shape."""
    def infer(inputs, attrs):
        c = U.constant_value(inputs[index])
        shape = TensorShape([int(d) for d in np.reshape(c, -1)]) if c is not None \
            else TensorShape([None] * rank)
        other = inputs[1 if index == 0 else 0]
        return [(shape, other.dtype)]
    return infer


_CONV_ATTRS = ("strides", "padding", "dilations", "explicit_paddings", "data_format")


def _conv_gradients(ops, keys=_CONV_ATTRS):
    """The gradient functions of a convolution op and of its two backprop ops
    (each a convolution of the others). `ops()` returns the three registry
    entries (called when a gradient is built, so they may be defined after
    this call); `keys` are the attributes the three ops share."""
    def shape_of(t):
        return shape(t, out_type="int32")

    def attrs(op):
        return {k: op.attrs[k] for k in keys}

    def conv_grad(op, g):
        _, bi, bf = ops()
        x, f = op.inputs
        a = attrs(op)
        return [apply(bi, [shape_of(x), f, g], a), apply(bf, [x, shape_of(f), g], a)]

    def input_grad(op, g):
        fw, _, bf = ops()
        _, f, dy = op.inputs
        a = attrs(op)
        return [None, apply(bf, [g, shape_of(f), dy], a), apply(fw, [g, f], a)]

    def filter_grad(op, g):
        fw, bi, _ = ops()
        x, _, dy = op.inputs
        a = attrs(op)
        return [apply(bi, [shape_of(x), g, dy], a), None, apply(fw, [x, g], a)]
    return conv_grad, input_grad, filter_grad


_conv_grad, _backprop_input_grad, _backprop_filter_grad = _conv_gradients(
    lambda: (_Conv2D, _Conv2DBackpropInput, _Conv2DBackpropFilter))
_Conv2D = register("Conv2D", _conv_kernel, _conv_infer, _conv_grad, allowed=FLOATS)
_Conv2DBackpropInput = register("Conv2DBackpropInput", _backprop_input_kernel,
                                _sizes_infer(0), _backprop_input_grad)
_Conv2DBackpropFilter = register("Conv2DBackpropFilter", _backprop_filter_kernel,
                                 _sizes_infer(1), _backprop_filter_grad)


# --- depthwise convolution ----------------------------------------------------------

def _depthwise_kernel(input, filter, strides, padding, dilations, explicit_paddings=(),
                      data_format="NHWC", T=None):
    """DepthwiseConv2dNative: a multiply-accumulate over channels per filter
    offset and multiplier (2-6x faster than an einsum over the 6-D window
    view, which BLAS cannot batch well)."""
    kh, kw, c, m = filter.shape
    geo = _geometry(input.shape, (kh, kw), strides, dilations, padding, explicit_paddings)
    n, outs = input.shape[0], tuple(o for o, _, _ in geo)
    # Accumulated as (M, N, OH, OW, C) so that every step is a contiguous
    # pass; the multiplier axis moves last once at the end.
    acc = np.zeros((m, n) + outs + (c,), input.dtype)
    if acc.size == 0:
        return np.zeros((n,) + outs + (c * m,), input.dtype)
    xp = conv_geometry.pad(input, geo)
    tmp = np.empty(acc.shape[1:], input.dtype)
    for off in conv_geometry.offsets((kh, kw)):
        v = conv_geometry.offset_view(xp, off, strides, dilations, geo)
        for mi in range(m):
            np.multiply(v, filter[off][:, mi], out=tmp)
            acc[mi] += tmp
    return acc[0] if m == 1 else np.moveaxis(acc, 0, -1).reshape((n,) + outs + (c * m,))


def _depthwise_input_kernel(input_sizes, filter, out_backprop, strides, padding, dilations,
                            explicit_paddings=(), data_format="NHWC", T=None):
    """DepthwiseConv2dNativeBackpropInput: per filter offset, the output
    gradient times the filter's channels, added into its strided view."""
    in_shape = tuple(int(d) for d in np.reshape(input_sizes, -1))
    kh, kw, c, m = filter.shape
    geo = _geometry(in_shape, (kh, kw), strides, dilations, padding, explicit_paddings)
    (_, ph, _), (_, pw, _) = geo
    dx = np.zeros((in_shape[0], in_shape[1] + geo[0][1] + geo[0][2],
                   in_shape[2] + geo[1][1] + geo[1][2], c), out_backprop.dtype)
    crop = (slice(None), slice(ph, ph + in_shape[1]), slice(pw, pw + in_shape[2]))
    if dx.size == 0 or out_backprop.size == 0:
        return dx[crop]
    dyt = np.moveaxis(out_backprop.reshape(out_backprop.shape[:3] + (c, m)), -1, 0)
    if m > 1:
        dyt = np.ascontiguousarray(dyt)
    tmp = np.empty(out_backprop.shape[:3] + (c,), out_backprop.dtype)
    for off in conv_geometry.offsets((kh, kw)):
        target = conv_geometry.offset_view(dx, off, strides, dilations, geo)
        for mi in range(m):
            np.multiply(dyt[mi], filter[off][:, mi], out=tmp)
            target += tmp
    return dx[crop]


def _depthwise_filter_kernel(input, filter_sizes, out_backprop, strides, padding, dilations,
                             explicit_paddings=(), data_format="NHWC", T=None):
    """DepthwiseConv2dNativeBackpropFilter: per filter offset and
    multiplier, the input view times the output gradient, summed over the
    batch and output positions."""
    kh, kw, c, m = (int(d) for d in np.reshape(filter_sizes, -1))
    geo = _geometry(input.shape, (kh, kw), strides, dilations, padding, explicit_paddings)
    df = np.zeros((kh, kw, c, m), input.dtype)
    if out_backprop.size == 0 or input.size == 0:
        return df
    xp = conv_geometry.pad(input, geo)
    lead = out_backprop.shape[:3]
    dyt = np.ascontiguousarray(np.moveaxis(out_backprop.reshape(lead + (c, m)), -1, 0))
    tmp = np.empty(lead + (c,), input.dtype)
    for off in conv_geometry.offsets((kh, kw)):
        v = conv_geometry.offset_view(xp, off, strides, dilations, geo)
        for mi in range(m):
            np.multiply(v, dyt[mi], out=tmp)
            df[off][:, mi] = tmp.reshape(-1, c).sum(axis=0)
    return df


def _depthwise_infer(inputs, attrs):
    x, f = inputs[0].shape, inputs[1].shape
    if x.rank is None or f.rank is None:
        return [(TensorShape([None] * 4), inputs[0].dtype)]
    if x.rank != 4 or f.rank != 4:
        raise ValueError(f"input and filter must be 4-dimensional: {list(x)}, {list(f)}")
    out = f[2] * f[3] if f[2] is not None and f[3] is not None else None
    return [(TensorShape(_spatial_dims(x, f, attrs) + [out]), inputs[0].dtype)]


_depthwise_grad, _depthwise_input_grad, _depthwise_filter_grad = _conv_gradients(
    lambda: (_Depthwise, _DepthwiseBackpropInput, _DepthwiseBackpropFilter))
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


def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling of 3-D (NWC) or 4-D (NHWC) input (tf.nn.max_pool is
    pool_nd_ops.max_pool, which adds 5-D)."""
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


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling of 3-D (NWC) or 4-D (NHWC) input (tf.nn.avg_pool is
    pool_nd_ops.avg_pool, which adds 5-D)."""
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
