"""`tf.quantization.fake_quant_with_min_max_args`, `_vars`,
`_vars_per_channel` and their `*_gradient` functions: float32 values
snapped to the grid of `num_bits`-bit integers between a (nudged) min and
max, as TensorFlow's FakeQuant* ops compute them.

The range is first nudged so that 0.0 falls exactly on the grid (TensorFlow's
`Nudge`, in float32 scalar arithmetic); values are clamped to the nudged
range and rounded to the nearest step (half up). The gradients are the
straight-through estimator: the incoming gradient where the input lies in
the nudged range, 0 elsewhere; the min and max receive the summed gradient
of the inputs below and above the range.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U

__all__ = ["fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient"]

_F = np.float32


def _std_round(v):
    """C's round(): half away from zero."""
    return np.float32(np.sign(v) * np.floor(np.abs(v) + _F(0.5)))


def _nudge(mn, mx, quant_min, quant_max):
    """(nudged_min, nudged_max, scale, inv_scale) in float32."""
    mn, mx = _F(mn), _F(mx)
    qmin, qmax = _F(quant_min), _F(quant_max)
    with np.errstate(all="ignore"):
        scale = _F((mx - mn) / (qmax - qmin))
        inv_scale = _F((qmax - qmin) / (mx - mn))
        zero_from_min = _F(qmin - _F(mn / scale))
        if zero_from_min < qmin:
            zero = quant_min
        elif zero_from_min > qmax:
            zero = quant_max
        else:
            zero = int(_std_round(zero_from_min)) & 0xFFFF   # a uint16 in TensorFlow
        return (_F(_F(qmin - _F(zero)) * scale), _F(_F(qmax - _F(zero)) * scale), scale,
                inv_scale)


def _quant_range(num_bits, narrow_range):
    return (1 if narrow_range else 0), (1 << num_bits) - 1


def _fake_quant(x, mn, mx, num_bits, narrow_range, divide=False):
    qmin, qmax = _quant_range(num_bits, narrow_range)
    if mn == 0.0 and mx == 0.0:
        return np.zeros_like(x)
    nmin, nmax, scale, inv = _nudge(mn, mx, qmin, qmax)
    with np.errstate(all="ignore"):
        quant_zero = _F(np.floor(_F(-nmin * inv) + _F(0.5)))
        shifted = np.maximum(np.minimum(x, nmax), nmin) - nmin
        # The Vars kernel divides by the scale, the others multiply by its
        # separately computed inverse.
        steps = shifted / scale if divide else shifted * inv
        return (np.floor(steps - quant_zero + _F(0.5)) * scale).astype(_F)


def _check_bits(op, num_bits):
    if not 2 <= num_bits <= 16:
        raise U.op_error(op, "num_bits must be between 2 and 16, inclusive")


def _args_kernel(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False):  # noqa: A002
    _check_bits("FakeQuantWithMinMaxArgs", num_bits)
    if not min < max:
        raise U.op_error("FakeQuantWithMinMaxArgs",
                         f"min has to be smaller than max, was: {min:g} >= {max:g}")
    qmin, qmax = _quant_range(num_bits, narrow_range)
    nmin, nmax, scale, inv = _nudge(min, max, qmin, qmax)
    with np.errstate(all="ignore"):
        quant_zero = _F(np.floor(_F(-nmin * inv) + _F(0.5)))
        shifted = np.maximum(np.minimum(inputs, nmax), nmin) - nmin
        return (np.floor(shifted * inv - quant_zero + _F(0.5)) * scale).astype(_F)


def _between(x, mn, mx, num_bits, narrow_range):
    nmin, nmax, _, _ = _nudge(mn, mx, *_quant_range(num_bits, narrow_range))
    return nmin, nmax, (x >= nmin) & (x <= nmax)


def _args_grad_kernel(gradients, inputs, min=-6.0, max=6.0, num_bits=8,  # noqa: A002
                      narrow_range=False):
    _check_bits("FakeQuantWithMinMaxArgsGradient", num_bits)
    if not min < max:
        raise U.op_error("FakeQuantWithMinMaxArgsGradient",
                         f"min has to be smaller than max, was: {min:g} >= {max:g}")
    _, _, inside = _between(inputs, min, max, num_bits, narrow_range)
    return (gradients * inside).astype(_F)


def _vars_kernel(inputs, min, max, num_bits=8, narrow_range=False):  # noqa: A002
    _check_bits("FakeQuantWithMinMaxVars", num_bits)
    return _fake_quant(inputs, float(min), float(max), num_bits, narrow_range, divide=True)


def _vars_grad_parts(g, x, mn, mx, num_bits, narrow_range):
    if mn == 0.0 and mx == 0.0:
        return g.astype(_F), _F(0), _F(0)
    nmin, nmax, inside = _between(x, mn, mx, num_bits, narrow_range)
    return ((g * inside).astype(_F), _F(np.sum(g * (x < nmin), dtype=_F)),
            _F(np.sum(g * (x > nmax), dtype=_F)))


def _vars_grad_kernel(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                      narrow_range=False):
    _check_bits("FakeQuantWithMinMaxVarsGradient", num_bits)
    dx, dmin, dmax = _vars_grad_parts(gradients, inputs, float(min), float(max), num_bits,
                                      narrow_range)
    return [dx, np.asarray(dmin), np.asarray(dmax)]


def _check_channels(op, inputs, mn, mx):
    depth = inputs.shape[-1] if inputs.ndim else 0
    for name, v in (("min", mn), ("max", mx)):
        if v.size != depth:
            raise U.op_error(op, f"{name} has incorrect size, expected {depth} was {v.size}")


def _per_channel_kernel(inputs, min, max, num_bits=8, narrow_range=False):  # noqa: A002
    op = "FakeQuantWithMinMaxVarsPerChannel"
    _check_bits(op, num_bits)
    _check_channels(op, inputs, min, max)
    out = np.empty_like(inputs, dtype=_F)
    for i in range(inputs.shape[-1]):
        mn, mx = float(min[i]), float(max[i])
        out[..., i] = _fake_quant(inputs[..., i], mn, mx, num_bits, narrow_range)
    return out


def _per_channel_grad_kernel(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                             narrow_range=False):
    op = "FakeQuantWithMinMaxVarsPerChannelGradient"
    _check_bits(op, num_bits)
    _check_channels(op, inputs, min, max)
    dx = np.empty_like(inputs, dtype=_F)
    dmin = np.empty(inputs.shape[-1], _F)
    dmax = np.empty(inputs.shape[-1], _F)
    for i in range(inputs.shape[-1]):
        dx[..., i], dmin[i], dmax[i] = _vars_grad_parts(
            gradients[..., i], inputs[..., i], float(min[i]), float(max[i]), num_bits,
            narrow_range)
    return [dx, dmin, dmax]


def _same_infer(inputs, attrs):
    return [(inputs[0].shape, D.float32)]


def _grad3_infer(inputs, attrs):
    return [(inputs[1].shape, D.float32), (inputs[2].shape, D.float32),
            (inputs[3].shape, D.float32)]


def _attrs(op):
    return {"num_bits": op.get_attr("num_bits"), "narrow_range": op.get_attr("narrow_range")}


def _args_grad(op, g):
    attrs = dict(_attrs(op), min=op.get_attr("min"), max=op.get_attr("max"))
    return [apply(_ArgsGrad, [g, op.inputs[0]], attrs, name="FakeQuantWithMinMaxArgsGradient")]


def _vars_grad(op, g):
    return apply(_VarsGrad, [g] + list(op.inputs), _attrs(op),
                 name="FakeQuantWithMinMaxVarsGradient", multi=True)


def _per_channel_grad(op, g):
    return apply(_PerChannelGrad, [g] + list(op.inputs), _attrs(op),
                 name="FakeQuantWithMinMaxVarsPerChannelGradient", multi=True)


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


_Args = register("FakeQuantWithMinMaxArgs", _args_kernel, _same_infer, _args_grad)
_ArgsGrad = register("FakeQuantWithMinMaxArgsGradient", _args_grad_kernel,
                     lambda inputs, attrs: [(inputs[1].shape, D.float32)], _no_grad)
_Vars = register("FakeQuantWithMinMaxVars", _vars_kernel, _same_infer, _vars_grad)
_VarsGrad = register("FakeQuantWithMinMaxVarsGradient", _vars_grad_kernel, _grad3_infer,
                     _no_grad)
_PerChannel = register("FakeQuantWithMinMaxVarsPerChannel", _per_channel_kernel, _same_infer,
                       _per_channel_grad)
_PerChannelGrad = register("FakeQuantWithMinMaxVarsPerChannelGradient",
                           _per_channel_grad_kernel, _grad3_infer, _no_grad)


def _f32(x, op, param="inputs"):
    t = convert_to_tensor(x, dtype=D.float32)
    return t


def _bits_attrs(num_bits, narrow_range):
    return {"num_bits": int(num_bits), "narrow_range": bool(narrow_range)}


@export("quantization.fake_quant_with_min_max_args")
def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None):
    """Fake-quantizes float32 `inputs` to `num_bits` bits over [min, max]
    (Python floats; nudged so 0.0 is a grid point; with `narrow_range` the
    grid has 2**num_bits - 1 points): same shape, float32."""
    attrs = dict(_bits_attrs(num_bits, narrow_range), min=float(min), max=float(max))
    return apply(_Args, [_f32(inputs, "FakeQuantWithMinMaxArgs")], attrs,
                 name=name or "FakeQuantWithMinMaxArgs")


@export("quantization.fake_quant_with_min_max_args_gradient")
def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6,  # noqa: A002
                                          num_bits=8, narrow_range=False, name=None):
    """The gradient of `fake_quant_with_min_max_args`: `gradients` where
    `inputs` lie in the nudged range, 0 elsewhere."""
    attrs = dict(_bits_attrs(num_bits, narrow_range), min=float(min), max=float(max))
    return apply(_ArgsGrad, [_f32(gradients, ""), _f32(inputs, "")], attrs,
                 name=name or "FakeQuantWithMinMaxArgsGradient")


@export("quantization.fake_quant_with_min_max_vars")
def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None):
    """`fake_quant_with_min_max_args` with the range given as float32 scalar
    tensors (trainable: their gradients are the summed gradients of the
    inputs below and above the range); min = max = 0 gives zeros."""
    return apply(_Vars, [_f32(inputs, ""), _f32(min, ""), _f32(max, "")],
                 _bits_attrs(num_bits, narrow_range), name=name or "FakeQuantWithMinMaxVars")


@export("quantization.fake_quant_with_min_max_vars_gradient")
def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max,  # noqa: A002
                                          num_bits=8, narrow_range=False, name=None):
    """The gradients of `fake_quant_with_min_max_vars` with respect to
    (inputs, min, max)."""
    outs = apply(_VarsGrad, [_f32(gradients, ""), _f32(inputs, ""), _f32(min, ""),
                             _f32(max, "")], _bits_attrs(num_bits, narrow_range),
                 name=name or "FakeQuantWithMinMaxVarsGradient", multi=True)
    return _VarsGradResult(*outs)


@export("quantization.fake_quant_with_min_max_vars_per_channel")
def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8,  # noqa: A002
                                             narrow_range=False, name=None):
    """`fake_quant_with_min_max_vars` with one (min, max) per entry of the
    last dimension (`min` and `max` of shape [d])."""
    return apply(_PerChannel, [_f32(inputs, ""), _f32(min, ""), _f32(max, "")],
                 _bits_attrs(num_bits, narrow_range),
                 name=name or "FakeQuantWithMinMaxVarsPerChannel")


@export("quantization.fake_quant_with_min_max_vars_per_channel_gradient")
def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max,  # noqa: A002
                                                      num_bits=8, narrow_range=False,
                                                      name=None):
    """The gradients of `fake_quant_with_min_max_vars_per_channel` with
    respect to (inputs, min, max)."""
    outs = apply(_PerChannelGrad, [_f32(gradients, ""), _f32(inputs, ""), _f32(min, ""),
                                   _f32(max, "")], _bits_attrs(num_bits, narrow_range),
                 name=name or "FakeQuantWithMinMaxVarsPerChannelGradient", multi=True)
    return _PerChannelGradResult(*outs)


import collections  # noqa: E402

_VarsGradResult = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])
_PerChannelGradResult = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])
