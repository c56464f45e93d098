"""Scans: cumsum, cumprod and cumulative_logsumexp along one axis (exclusive and reversed
variants), with their gradients (scans in the other direction).
"""
import numpy as np

from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply2
from ...framework.op_registry import register
from ...framework.tensor_shape import dims_text
from . import op_util as U
from .. import late
from ..kernels import exp_log as _el
from .reduction_util import FLOATS, NUMERIC, _IDX, _index_tensor, _invalid


# --- scans: cumsum, cumprod, cumulative_logsumexp -------------------------------

def _scan_axis(axis, ndim, op_name):
    if np.ndim(axis) != 0:
        raise _invalid(f"ScanOp: axis must be a scalar, not {dims_text(np.shape(axis))}",
                       op_name)
    a = int(axis)
    if not -ndim <= a < ndim:
        raise _invalid(f"ScanOp: Expected scan axis in the range [{-ndim}, {ndim}), but got "
                       f"{a}")
    return a % ndim


def _scan_kernel(op_name, accumulate, identity):
    def kernel(x, axis, exclusive=False, reverse=False):
        a = _scan_axis(axis, x.ndim, op_name)
        if reverse:
            x = np.flip(x, a)
        if exclusive:
            out = np.empty_like(x)
            head = [slice(None)] * x.ndim
            tail = list(head)
            first = list(head)
            head[a] = slice(None, -1)
            tail[a] = slice(1, None)
            first[a] = slice(0, 1)
            out[tuple(first)] = identity
            if x.shape[a] > 1:
                out[tuple(tail)] = accumulate(x[tuple(head)], a)
        else:
            out = accumulate(x, a)
        if reverse:
            out = np.flip(out, a)
        return out
    return kernel


def _scan_infer(op_name, allowed):
    def infer(inputs, attrs):
        x, a = inputs
        U.check_graph_dtype(x, allowed, "x")
        U.check_graph_dtype(a, _IDX, "axis")
        return [(x.shape, x.dtype)]
    return infer


def _cumsum_grad(op, g):
    axis = op.inputs[1]
    return [cumsum(g, axis, exclusive=op.get_attr("exclusive"),
                   reverse=not op.get_attr("reverse")), None]


def _cumprod_grad(op, g):
    # The sum over later outputs of g * y / x. Like TensorFlow, inputs equal
    # to 0 get a 0 gradient (division without NaN).
    x, axis = op.inputs
    y = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    out = cumsum(late.multiply(late.conj(y), g), axis, exclusive=exclusive, reverse=not reverse)
    return [late.div_no_nan(out, late.conj(x)), None]


def _cumulative_logsumexp_grad(op, g):
    # dL/dx_k = exp(x_k) * sum_j g_j exp(-y_j) over the outputs y_j that
    # include x_k; positive and negative g are accumulated separately in
    # log space so that nothing overflows.
    x, axis = op.inputs
    y = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    one = convert_to_tensor(1, dtype=g.dtype)
    minus_inf = convert_to_tensor(-np.inf, dtype=g.dtype)
    zero = convert_to_tensor(0, dtype=g.dtype)

    def part(mask, mag):
        log_g = late.where(mask, late.log(late.where(mask, mag, one)), minus_inf)
        acc = cumulative_logsumexp(late.subtract(log_g, y), axis, exclusive=exclusive,
                                   reverse=not reverse)
        return late.exp(late.add(acc, x))

    return [late.subtract(part(late.greater(g, zero), g),
                          part(late.less(g, zero), late.negative(g))), None]


def _cumsum_acc(x, a):
    return np.add.accumulate(x, axis=a, dtype=x.dtype)


def _cumprod_acc(x, a):
    return np.multiply.accumulate(x, axis=a, dtype=x.dtype)


def _logaddexp_acc(x, a):
    if x.dtype == np.float16 or x.dtype.name == "bfloat16":
        return _half_logaddexp_acc(x, a)
    # float32/float64: NumPy's logaddexp is max + log1p(exp(min - max)) with
    # the C library's functions, TensorFlow's LogSumExp (checked bit for bit).
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(x, axis=a)


def _half_logaddexp_acc(x, a):
    """TensorFlow's LogSumExp scan (scan_ops.h) of a float16 or bfloat16 `x`
    along axis `a`: at each step max + log1p(exp(min - max)) of the running
    value and the next element (-inf while the max is), each of the four
    operations computed in float32 and rounded to the type. Eigen scans the
    columns after the axis a packet of 8 at a time where whole packets fit
    (its packet exp and log1p), the C library's expf and log1pf on the rest.
    (NumPy's half logaddexp rounds once a step.)"""
    dt = x.dtype
    f32 = np.float32
    n = x.shape[a]
    outer, stride = int(np.prod(x.shape[:a])), int(np.prod(x.shape[a + 1:]))
    v = np.ascontiguousarray(x).reshape(outer, n, stride).astype(f32)
    out = np.empty_like(v)
    acc = np.full((outer, stride), -np.inf, f32)
    packed = stride - stride % _el.PACKET

    def rounded(t):
        return t.astype(dt).astype(f32)

    def apply(packets, scalar, t):
        r = np.empty_like(t)
        if packed:
            r[:, :packed] = packets(np.ascontiguousarray(t[:, :packed]).reshape(-1)).reshape(
                outer, packed)
        if packed < stride:
            r[:, packed:] = scalar(np.ascontiguousarray(t[:, packed:]))
        return rounded(r)
    with np.errstate(all="ignore"):
        for k in range(n):
            b = v[:, k, :]
            lo = np.where(b < acc, b, acc)          # std::min(acc, b), std::max(acc, b)
            hi = np.where(acc < b, b, acc)
            e = apply(_el.exp_packets, _el.exp_scalar, rounded(lo - hi))
            s = rounded(apply(_el.log1p_packets, _el.log1p_scalar, e) + hi)
            acc = np.where(hi == -np.inf, hi, s)      # (hi < the lowest finite value)
            out[:, k, :] = acc
    return out.reshape(x.shape).astype(dt)


def _register_scan(name, accumulate, identity, grad, allowed):
    return register(name, _scan_kernel(name, accumulate, identity), _scan_infer(name, allowed),
                    grad, allowed=allowed)


_Cumsum = _register_scan("Cumsum", _cumsum_acc, 0, _cumsum_grad, NUMERIC)
_Cumprod = _register_scan("Cumprod", _cumprod_acc, 1, _cumprod_grad, NUMERIC)
_CumulativeLogsumexp = _register_scan("CumulativeLogsumexp", _logaddexp_acc, -np.inf,
                                      _cumulative_logsumexp_grad, FLOATS)


def _scan(opdef, x, axis, exclusive, reverse, name):
    x = convert_to_tensor(x)
    U.check_dtype(opdef.name, x, opdef.allowed, param="x")
    a = _index_tensor(axis, name, "axis")
    if a.dtype not in _IDX:
        U.check_dtype(opdef.name, a, _IDX, attr="Tidx", param="axis")
    return apply2(opdef, x, a, {"exclusive": bool(exclusive), "reverse": bool(reverse)},
                  name=name)


@export("math.cumsum", "cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative sum along `axis`.

    `exclusive` leaves each element out of its own sum (the first output is
    0); `reverse` sums from the end.
    """
    return _scan(_Cumsum, x, axis, exclusive, reverse, name or "Cumsum")


@export("math.cumprod")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative product along `axis` (`exclusive` starts from 1,
    `reverse` multiplies from the end)."""
    return _scan(_Cumprod, x, axis, exclusive, reverse, name or "Cumprod")


@export("math.cumulative_logsumexp")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """The cumulative log-sum-exp along `axis`, computed stably (float
    inputs only; `exclusive` starts from -inf)."""
    return _scan(_CumulativeLogsumexp, x, axis, exclusive, reverse,
                 name or "CumulativeLogsumexp")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

_SCANS = {"Cumsum": ("cumsum", 0), "Cumprod": ("cumprod", 1),
          "CumulativeLogsumexp": ("cumlogsumexp", -np.inf)}


def _lower_scan(ctx, op, x, axis):
    name, identity = _SCANS[op.type]
    a = XL.ints(ctx.static(op, 1, axis))[0] % max(XL.jnp.ndim(x), 1)
    reverse, exclusive = op.attrs.get("reverse", False), op.attrs.get("exclusive", False)
    if exclusive:
        # The identity shifted in: [id, x0, x1, ...] (reversed: [..., xn, id]).
        pad = [(0, 0)] * XL.jnp.ndim(x)
        pad[a] = (0, 1) if reverse else (1, 0)
        n = XL.jnp.shape(x)[a]
        x = XL.jnp.pad(x, pad, constant_values=identity)
        x = XL.lax.slice_in_dim(x, 1 if reverse else 0, n + (1 if reverse else 0), axis=a)
    return getattr(XL.lax, name)(x, axis=a, reverse=reverse)


for _name in _SCANS:
    XL.set_lowerings({_name: _lower_scan})
