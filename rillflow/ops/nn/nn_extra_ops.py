"""More of `tf.nn`: morphological `dilation2d` / `erosion2d` (Dilation2D and
its two gradient ops), local response normalization (`lrn`, LRN and LRNGrad),
`batch_norm_with_global_normalization`, and the approximate top-k of
`tf.math.approx_max_k` (ApproxTopK: on the CPU TensorFlow's kernel is the
exact top-k, for the max along the last dimension only)."""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import EXPORTS, export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.creation_ops import name_scope
from ..core.gather_ops import reverse
from ..core.math_ops import negative
from .normalization import batch_normalization

_REAL = tuple(d for d in (D.float16, D.bfloat16, D.float32, D.float64, D.int32, D.int64,
                          D.uint8, D.int16, D.int8, D.uint16, D.uint32, D.uint64)
              if d is not None)


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


# --- Dilation2D ---------------------------------------------------------------------------------

def _geometry(in_size, k, stride, rate, padding):
    eff = (k - 1) * rate + 1
    if padding == "VALID":
        out = (in_size - eff + stride) // stride
        return max(out, 0), 0
    out = (in_size + stride - 1) // stride
    pad = max((out - 1) * stride + eff - in_size, 0)
    return out, pad // 2


def _windows(x, f, strides, rates, padding):
    """The candidate values input + filter of every output position and filter
    tap: [kh*kw, batch, oh, ow, depth] (-inf outside the input), the input
    position of each, and the output geometry."""
    b, h, w, d = x.shape
    kh, kw, _ = f.shape
    sh, sw = strides[1], strides[2]
    rh, rw = rates[1], rates[2]
    oh, pt = _geometry(h, kh, sh, rh, padding)
    ow, pl = _geometry(w, kw, sw, rw, padding)
    vals, rows, cols = [], [], []
    ys = np.arange(oh) * sh - pt
    xs = np.arange(ow) * sw - pl
    for i in range(kh):
        for j in range(kw):
            yy, xx = ys + i * rh, xs + j * rw
            ok = ((yy >= 0) & (yy < h))[:, None] & ((xx >= 0) & (xx < w))[None, :]
            g = x[:, np.clip(yy, 0, h - 1)][:, :, np.clip(xx, 0, w - 1)] + f[i, j]
            lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
            vals.append(np.where(ok[None, :, :, None], g, lowest))
            rows.append(yy)
            cols.append(xx)
    return np.stack(vals), rows, cols, (oh, ow)


def _check_dilation(x, f, strides, rates):
    if x.ndim != 4:
        raise _invalid(f"input must be 4-dimensional{_dims(x.shape)}")
    if f.ndim != 3:
        raise _invalid(f"filter must be 3-dimensional: {_dims(f.shape)}")
    if f.shape[2] != x.shape[3]:
        raise _invalid(f"input and filter must have the same depth: {x.shape[3]} vs "
                       f"{f.shape[2]}")
    if len(strides) != 4 or len(rates) != 4:
        raise _invalid("Sliding window strides and rates fields must specify 4 dimensions")


def _dims(shape):
    return "[" + ",".join(str(v) for v in shape) + "]"


def _dilation_kernel(input, filter, strides, rates, padding):  # noqa: A002
    _check_dilation(input, filter, strides, rates)
    vals, _, _, _ = _windows(input, filter, strides, rates, padding)
    return vals.max(axis=0).astype(input.dtype)


def _argmax_taps(input, filter, strides, rates, padding):  # noqa: A002
    vals, rows, cols, (oh, ow) = _windows(input, filter, strides, rates, padding)
    # The first tap (in row-major filter order) that reaches the maximum, as
    # TensorFlow's strictly-greater scan picks.
    return np.argmax(vals, axis=0), rows, cols, filter.shape[1]


def _backprop_input_kernel(input, filter, out_backprop, strides, rates, padding):  # noqa: A002
    tap, rows, cols, kw = _argmax_taps(input, filter, strides, rates, padding)
    out = np.zeros_like(input)
    b, oh, ow, d = tap.shape
    bi, yi, xi, di = np.indices(tap.shape)
    r = np.stack(rows)[tap, yi]
    c = np.stack(cols)[tap, xi]
    np.add.at(out, (bi, r, c, di), out_backprop)
    return out


def _backprop_filter_kernel(input, filter, out_backprop, strides, rates, padding):  # noqa: A002
    tap, _, _, kw = _argmax_taps(input, filter, strides, rates, padding)
    out = np.zeros_like(filter)
    di = np.indices(tap.shape)[3]
    np.add.at(out, (tap // kw, tap % kw, di), out_backprop)
    return out


def _dilation_infer(inputs, attrs):
    x, f = inputs[0].shape, inputs[1].shape
    if x.rank != 4 or f.rank != 3:
        return [(TensorShape(None), inputs[0].dtype)]
    strides, rates, padding = attrs["strides"], attrs["rates"], attrs["padding"]
    dims = [x[0], None, None, x[3]]
    for k, (size, fk) in enumerate(((x[1], f[0]), (x[2], f[1]))):
        if size is not None and fk is not None:
            dims[k + 1] = _geometry(size, fk, strides[k + 1], rates[k + 1], padding)[0]
    return [(TensorShape(dims), inputs[0].dtype)]


def _dilation_grad(op, g):
    attrs = {k: op.get_attr(k) for k in ("strides", "rates", "padding")}
    x, f = op.inputs
    return [apply(_BackpropInput, [x, f, g], attrs, name="Dilation2DBackpropInput"),
            apply(_BackpropFilter, [x, f, g], attrs, name="Dilation2DBackpropFilter")]


_Dilation2D = register("Dilation2D", _dilation_kernel, _dilation_infer, _dilation_grad,
                       allowed=_REAL)
_BackpropInput = register("Dilation2DBackpropInput", _backprop_input_kernel,
                          lambda i, a: [(i[0].shape, i[0].dtype)], allowed=_REAL)
_BackpropFilter = register("Dilation2DBackpropFilter", _backprop_filter_kernel,
                           lambda i, a: [(i[1].shape, i[1].dtype)], allowed=_REAL)


def _dilation_args(data_format, strides, dilations, padding):
    if data_format != "NHWC":
        # TensorFlow's message, two spaces included.
        raise ValueError("`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    return {"strides": [int(s) for s in strides], "rates": [int(r) for r in dilations],
            "padding": padding}


@export("nn.dilation2d")
def dilation2d(input, filters, strides, padding, data_format, dilations,  # noqa: A002
               name=None):
    """Grayscale morphological dilation: the max over the (dilated) window of
    input + filters, for a [batch, h, w, depth] input and [fh, fw, depth] filters.

    Raises:
      ValueError: for a `data_format` other than "NHWC".
    """
    attrs = _dilation_args(data_format, strides, dilations, padding)
    x = convert_to_tensor(input)
    return apply(_Dilation2D, [x, convert_to_tensor(filters, x.dtype)], attrs,
                 name=name or "dilation2d")


@export("nn.erosion2d")
def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale morphological erosion: -dilation2d(-value, reversed filters)."""
    with name_scope(name or "erosion2d"):
        attrs = _dilation_args(data_format, strides, dilations, padding)
        x = convert_to_tensor(value)
        f = reverse(convert_to_tensor(filters, x.dtype), [0, 1])
        return negative(apply(_Dilation2D, [negative(x), f], attrs, name="dilation2d"))


# --- LRN ------------------------------------------------------------------------------------------

def _window_sums(sq, r):
    """Sum of squares over depth windows [d - r, d + r] (clipped), added in
    depth order from 0, as TensorFlow's kernel sums each window (a product
    by a band matrix). Not as differences of running sums: next to a large
    channel those cancel (one channel of 3e4 among tens made every window
    after it 12% off)."""
    depth = sq.shape[-1]
    out = np.zeros_like(sq)
    for k in range(-min(r, depth - 1), min(r, depth - 1) + 1):
        # out[d] += sq[d + k] wherever d + k is a channel
        if k < 0:
            out[..., -k:] += sq[..., :depth + k]
        else:
            out[..., :depth - k] += sq[..., k:]
    return out


def _lrn_kernel(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):  # noqa: A002
    if input.ndim != 4:
        raise _invalid("input must be 4-dimensional")
    x = input.astype(np.float32) if input.dtype != np.float32 else input
    t = x.dtype.type
    norm = _window_sums(x * x, depth_radius) * t(alpha) + t(bias)
    if beta == 1:
        out = x * (t(1) / norm)
    elif beta == 0.5:
        out = x / np.sqrt(norm)
    else:
        out = x * np.exp(np.log(norm) * t(-beta))
    return out.astype(input.dtype)


def _lrn_grad_kernel(input_grads, input_image, output_image, depth_radius=5, bias=1.0,
                     alpha=1.0, beta=0.5):
    x = input_image.astype(np.float32)
    y = output_image.astype(np.float32)
    g = input_grads.astype(np.float32)
    depth = x.shape[-1]
    norm = _window_sums(x * x, depth_radius) * np.float32(alpha) + np.float32(bias)
    pow_ = np.power(norm, np.float32(-beta))
    out = np.zeros_like(x)
    for j in range(depth):
        lo, hi = max(0, j - depth_radius), min(depth, j + depth_radius + 1)
        dyi = np.float32(-2) * np.float32(alpha) * np.float32(beta) * x[..., lo:hi] * \
            y[..., j:j + 1] / norm[..., j:j + 1]
        dyi[..., j - lo] += pow_[..., j]
        out[..., lo:hi] += dyi * g[..., j:j + 1]
    return out.astype(input_image.dtype)


def _lrn_grad(op, g):
    attrs = {k: op.get_attr(k) for k in ("depth_radius", "bias", "alpha", "beta")}
    return [apply(_LRNGrad, [g, op.inputs[0], op.outputs[0]], attrs, name="LRNGrad")]


_LRN_TYPES = tuple(d for d in (D.float16, D.bfloat16, D.float32) if d is not None)
_LRN = register("LRN", _lrn_kernel, lambda i, a: [(i[0].shape, i[0].dtype)], _lrn_grad,
                allowed=_LRN_TYPES)
_LRNGrad = register("LRNGrad", _lrn_grad_kernel, lambda i, a: [(i[1].shape, i[1].dtype)],
                    allowed=_LRN_TYPES)


@export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,  # noqa: A002
                                 name=None):
    """input / (bias + alpha * sum of squares over depth_radius neighbours in
    depth) ** beta, for a 4-D input."""
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha),
             "beta": float(beta)}
    return apply(_LRN, [convert_to_tensor(input)], attrs, name=name or "LRN")


@export("nn.batch_norm_with_global_normalization")
def batch_norm_with_global_normalization(input, mean, variance, beta, gamma,  # noqa: A002
                                         variance_epsilon, scale_after_normalization,
                                         name=None):
    """`batch_normalization` with `gamma` applied only when
    `scale_after_normalization` (TensorFlow 1's op, as TensorFlow 2 writes it)."""
    return batch_normalization(input, mean, variance, beta,
                               gamma if scale_after_normalization else None,
                               variance_epsilon, name)


# --- ApproxTopK -----------------------------------------------------------------------------------

_DT = {"float32": "DT_FLOAT", "float16": "DT_HALF", "bfloat16": "DT_BFLOAT16"}
_APPROX_TYPES = tuple(d for d in (D.float16, D.bfloat16, D.float32) if d is not None)


def _approx_kernel(input, k, reduction_dimension=-1, recall_target=0.95,  # noqa: A002
                   is_max_k=True, reduction_input_size_override=-1, aggregate_to_topk=True):
    if reduction_dimension != -1 or not is_max_k:
        # TensorFlow's CPU kernel: max_k along dimension -1 only (others need XLA).
        raise _errors.NotFoundError(
            None, None, "Could not find device for node: {{node ApproxTopK}} = ApproxTopK"
            f"[T={_DT.get(input.dtype.name, 'DT_' + input.dtype.name.upper())}, aggregate_to_topk="
            f"{str(aggregate_to_topk).lower()}, is_max_k={str(is_max_k).lower()}, k={k}, "
            f"recall_target={recall_target:g}, reduction_dimension={reduction_dimension}, "
            f"reduction_input_size_override={reduction_input_size_override}]")
    idx = np.argsort(-input.astype(np.float64) if input.dtype.kind == "f" else -input.astype(
        np.int64), axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(input, idx, -1), idx.astype(np.int32)]


def _approx_infer(inputs, attrs):
    s = inputs[0].shape
    if s.rank is None:
        return [(TensorShape(None), inputs[0].dtype), (TensorShape(None), D.int32)]
    dims = s.as_list()
    dims[attrs.get("reduction_dimension", -1)] = attrs["k"]
    return [(TensorShape(dims), inputs[0].dtype), (TensorShape(dims), D.int32)]


def _approx_grad(op, g, _):
    # Each output value's gradient goes to the input element it came from.
    n = EXPORTS["shape"](op.inputs[0])[-1]
    hot = EXPORTS["one_hot"](op.outputs[1], n, dtype=g.dtype)
    return [EXPORTS["reduce_sum"](hot * EXPORTS["expand_dims"](g, -1), axis=-2)]


_ApproxTopK = register("ApproxTopK", _approx_kernel, _approx_infer, _approx_grad,
                       allowed=_APPROX_TYPES)


@export("approx_top_k")
def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95,  # noqa: A002
                 is_max_k=True, reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None):
    """(values, int32 indices) of the k largest (or smallest) elements along
    a dimension, approximately on TPUs; on the CPU exactly, and only the
    largest along the last dimension (TensorFlow's CPU kernel).

    Raises:
      NotFoundError: for `is_max_k=False` or another dimension.
    """
    attrs = {"k": int(k), "reduction_dimension": int(reduction_dimension),
             "recall_target": float(recall_target), "is_max_k": bool(is_max_k),
             "reduction_input_size_override": int(reduction_input_size_override),
             "aggregate_to_topk": bool(aggregate_to_topk)}
    x = convert_to_tensor(input)
    U.check_dtype("ApproxTopK", x, _APPROX_TYPES)
    return _ApproxResult(*apply(_ApproxTopK, [x], attrs, name=name or "ApproxTopK",
                                multi=True))


_ApproxResult = collections.namedtuple("ApproxTopK", ["values", "indices"])


@export("math.approx_max_k", "nn.approx_max_k")
def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """`approx_top_k` of the largest elements."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, True,
                        reduction_input_size_override, aggregate_to_topk, name)


@export("math.approx_min_k", "nn.approx_min_k")
def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """`approx_top_k` of the smallest elements (no CPU kernel in TensorFlow:
    NotFoundError, as there)."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, False,
                        reduction_input_size_override, aggregate_to_topk, name)

