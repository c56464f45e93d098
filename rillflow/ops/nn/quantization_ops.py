"""`tf.quantization.quantize` (QuantizeV2), `dequantize` (Dequantize),
`quantize_and_dequantize` (QuantizeAndDequantizeV2),
`quantize_and_dequantize_v2` (QuantizeAndDequantizeV4 and its gradient
op) and `quantized_concat` (QuantizedConcat), with TensorFlow's CPU
kernels' arithmetic: float32 steps, C's round() (half away from zero) or
half to even, float-to-int conversion of out-of-range values as x86 does
(INT_MIN), and the range adjustments (ensure_minimum_range, SCALED mode's
symmetric scale, MIN_FIRST's rounded minimum).

Quantized tensors hold TensorFlow's structured NumPy dtypes
(framework/dtypes.py); kernels compute on the plain integers.
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.context import state as _state
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U

__all__ = ["quantize", "dequantize", "quantize_and_dequantize", "quantize_and_dequantize_v2",
           "quantized_concat"]

_F = np.float32
_MODES = ("MIN_COMBINED", "MIN_FIRST", "SCALED")
_QTYPES = (D.qint8, D.quint8, D.qint32, D.qint16, D.quint16)


def _quantization_axis(axis, x):
    """The ops' `axis` attribute: -1 (whole tensor) for None, a negative axis
    counted from the end of `x`'s rank.

    Raises:
      ValueError: a negative axis of an `x` of unknown rank.
    """
    if axis is None:
        return -1
    if axis < 0:
        if x.shape.rank is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= x.shape.rank
    return axis


def _round_away(v):
    """Eigen's round() (C's round): half away from zero, in v's dtype; the
    +0.5 is exact in double (in float32 it would round up k + 0.5 near 2**24)."""
    w = np.asarray(v, np.float64)
    return (np.sign(w) * np.floor(np.abs(w) + 0.5)).astype(v.dtype)


def _round_even(v):
    return np.rint(v)


def _to_int(v, info):
    """float -> integer type as the C++ cast on x86 (out of range: INT_MIN of
    the 32-bit conversion, then truncated to the type)."""
    v = np.asarray(v, np.float64)
    bad = ~((v > -2147483649.0) & (v < 2147483648.0))
    as32 = np.where(bad, -2147483648, np.trunc(np.where(bad, 0, v))).astype(np.int64)
    return as32.astype(np.int32).astype(info)


def _limits(np_int):
    i = np.iinfo(np_int)
    return int(i.min), int(i.max)


def _attr_error(op, attr, value, allowed):
    spelled = ", ".join(f'"{a}"' for a in allowed)
    return errors.InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of \"{value}\" is not in the list of allowed "
                    f"values: {spelled}\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]")


# --- QuantizeV2 ------------------------------------------------------------------------

def _quantize_slice(x, in_min, in_max, base, mode, round_mode, narrow_range, emr):
    """One slice's (values, output_min, output_max)."""
    lo, hi = _limits(base)
    if in_max < in_min:
        raise U.op_error("QuantizeV2", "input_max_range must be larger than input_min_range.")
    in_min, in_max = _F(in_min), _F(in_max)
    min_range = min(_F(0), in_min)
    eps = _F(max(_F(1), max(abs(in_min), abs(in_max))) * _F(emr))
    max_range = max(_F(0), max(in_max, _F(min_range + eps)))
    with np.errstate(all="ignore"):
        if mode == "MIN_FIRST":
            return _float_to_quantized(x, min_range, max_range, base), min_range, max_range
        if mode == "MIN_COMBINED":
            scale = _F((float(hi) - float(lo)) / float(max_range - min_range))
            c = (np.maximum(np.minimum(x, max_range), min_range) - min_range) * scale
            if lo < 0:
                half = _F((float(hi) - float(lo) + 1) / 2.0)
                return _to_int(_round_away(c - half), base), min_range, max_range
            return _to_int(c + _F(0.5), base), min_range, max_range
        # SCALED: a symmetric scale from whichever side of zero binds.
        min_out = lo + (1 if narrow_range else 0)
        from_min = _ftz(_F(min_out) / min_range) if min_out * min_range > 0 else \
            np.finfo(np.float32).max
        from_max = _ftz(_F(hi) / max_range) if hi * max_range > 0 else \
            np.finfo(np.float32).max
        scale = min(_F(from_min), _F(from_max))
        min_range, max_range = _ftz(_F(min_out) / scale), _ftz(_F(hi) / scale)
        v = np.maximum(np.minimum(x, max_range), min_range) * scale
        v = _round_even(v) if round_mode == "HALF_TO_EVEN" else _round_away(v)
        return _to_int(v, base), min_range, max_range


def _float_to_quantized(x, mn, mx, base):
    """TensorFlow's QUANTIZE_WITH_EIGEN (FloatToQuantizedStruct): MIN_FIRST."""
    lo, hi = _limits(base)
    steps = 1 << (np.dtype(base).itemsize * 8)
    scale = _F(0.0 if mx == mn else (steps - 1.0) / float(_F(mx - mn)))
    min_scaled = _std_round(_F(mn * scale))
    lower = _F(max(_F(lo), _F(-2.147483648e+09)))
    upper = _F(min(_F(hi), _F(2.147483520e+09)))
    v = _round_away(x * scale) - _F(min_scaled - _F(lo))
    return _to_int(np.minimum(np.maximum(v, lower), upper), base)


def _std_round(v):
    """C's roundf of a float32 scalar."""
    w = float(v)
    return _F(np.sign(w) * np.floor(abs(w) + 0.5))


def _ftz(v):
    """A float32 scalar with TensorFlow's CPU flush of subnormals to zero."""
    v = _F(v)
    return _F(0.0) * v if abs(v) < np.finfo(np.float32).tiny else v


def _quantize_kernel(input, min_range, max_range, T=None, mode="MIN_COMBINED",  # noqa: A002
                     round_mode="HALF_AWAY_FROM_ZERO", narrow_range=False, axis=-1,
                     ensure_minimum_range=0.01):
    if mode not in _MODES:
        raise _attr_error("QuantizeV2", "mode", mode, _MODES)
    if round_mode not in ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"):
        raise _attr_error("QuantizeV2", "round_mode", round_mode,
                          ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"))
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise U.op_error("QuantizeV2", f"Round mode 'HALF_TO_EVEN' only supported for mode "
                                       f"'SCALED', but mode is '{mode}'.")
    base = T._np[0]
    x = np.asarray(input, _F)
    mins = np.asarray(min_range, _F).reshape(-1)
    maxs = np.asarray(max_range, _F).reshape(-1)
    if axis == -1:
        q, lo, hi = _quantize_slice(x, mins[0], maxs[0], base, mode, round_mode, narrow_range,
                                    ensure_minimum_range)
        return [np.asarray(q).view(T._np), np.asarray(lo, _F), np.asarray(hi, _F)]
    if mode == "MIN_FIRST":
        raise U.op_error("QuantizeV2", "MIN_FIRST mode is not implemented for Quantize with "
                                       "axis != -1.", errors.UnimplementedError)
    out = np.empty(x.shape, base)
    out_min = np.empty(mins.shape, _F)
    out_max = np.empty(maxs.shape, _F)
    for i in range(x.shape[axis]):
        index = (slice(None),) * axis + (i,)
        out[index], out_min[i], out_max[i] = _quantize_slice(
            x[index], mins[i], maxs[i], base, mode, round_mode, narrow_range,
            ensure_minimum_range)
    return [out.view(T._np), out_min.reshape(np.shape(min_range)),
            out_max.reshape(np.shape(max_range))]


def _quantize_infer(inputs, attrs):
    return [(inputs[0].shape, attrs["T"]), (inputs[1].shape, D.float32),
            (inputs[2].shape, D.float32)]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


_QuantizeV2 = register("QuantizeV2", _quantize_kernel, _quantize_infer, _no_grad)


# --- Dequantize ------------------------------------------------------------------------

def _dequantize_slice(q, mn, mx, base, mode, narrow_range):
    lo, hi = _limits(base)
    mn, mx = _F(mn), _F(mx)
    with np.errstate(all="ignore"):
        if mode == "MIN_COMBINED":
            half = _F(0.0) if lo == 0 else _F((_F(hi) - _F(lo) + 1) / _F(2.0))
            scale = _F((mx - mn) / _F(_F(hi) - _F(lo)))
            return (q.astype(_F) + half) * scale + mn
        if mode == "SCALED":
            min_out = lo + (1 if narrow_range else 0)
            scale = _ftz(mx / _F(hi)) if lo == 0 else \
                max(_ftz(mn / _F(min_out)), _ftz(mx / _F(hi)))
            return q.astype(np.int32).astype(_F) * _F(scale)
        # MIN_FIRST: DEQUANTIZE_WITH_EIGEN (QuantizedToFloatStruct).
        steps = 1 << (np.dtype(base).itemsize * 8)
        scale = _F(float(_F(mx - mn)) / (steps - 1.0))
        min_rounded = mn if mx == mn else _F(_std_round(_F(mn / scale)) * scale)
        return _F(min_rounded - _F(_F(lo) * scale)) + q.astype(_F) * scale


def _dequantize_kernel(input, min_range, max_range, T=None, mode="MIN_COMBINED",  # noqa: A002
                       narrow_range=False, axis=-1, dtype=None):
    if mode not in _MODES:
        raise _attr_error("Dequantize", "mode", mode, _MODES)
    q = D.plain(input)
    base = q.dtype
    if axis >= q.ndim:
        raise U.op_error("Dequantize", f"Axis must be less than input dimension({q.ndim}), got "
                                       f"{axis}")
    n = 1 if axis < 0 else q.shape[axis]
    mins = np.asarray(min_range, _F).reshape(-1)
    maxs = np.asarray(max_range, _F).reshape(-1)
    for what, v in (("input_min_tensor", mins), ("input_max_tensor", maxs)):
        if v.size != n:
            raise U.op_error("Dequantize", f"{what} must have as many elements as input on the "
                                           f"dequantization axis ({axis}), got {v.size}, "
                                           f"expected {n}")
    if axis < 0:
        out = _dequantize_slice(q, mins[0], maxs[0], base, mode, narrow_range)
    else:
        if mode == "MIN_FIRST":
            raise U.op_error("Dequantize", "MIN_FIRST mode is not implemented for Dequantize "
                                           "with axis != -1.", errors.UnimplementedError)
        out = np.empty(q.shape, _F)
        for i in range(n):
            index = (slice(None),) * axis + (i,)
            out[index] = _dequantize_slice(q[index], mins[i], maxs[i], base, mode,
                                           narrow_range)
    out = np.asarray(out, _F)
    return out if dtype is None or dtype == D.float32 else out.astype(dtype._np)


def _dequantize_infer(inputs, attrs):
    return [(inputs[0].shape, attrs.get("dtype", D.float32))]


_Dequantize = register("Dequantize", _dequantize_kernel, _dequantize_infer, _no_grad)


@export("quantization.quantize")
def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",  # noqa: A002
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01):
    """Quantizes float32 `input` over [min_range, max_range] to the quantized
    type `T` (mode MIN_COMBINED, MIN_FIRST or SCALED; per slice of `axis`
    when given); returns (output, output_min, output_max), the range the
    values actually stand for."""
    T = D.as_dtype(T)
    x = convert_to_tensor(input, dtype_hint=D.float32)
    if x.dtype != D.float32:
        if _state.graph is None:
            raise U.op_error("QuantizeV2", f"cannot compute QuantizeV2 as input #0(zero-based) "
                                           f"was expected to be a float tensor but is a "
                                           f"{U.tf_type_name(x.dtype)} tensor")
        raise TypeError(f"Input 'input' of 'QuantizeV2' Op has type {x.dtype.name} that does "
                        f"not match expected type of float32.")
    axis = _quantization_axis(axis, x)
    if T not in _QTYPES:
        raise U.dtype_error("QuantizeV2", T, _QTYPES)
    attrs = {"T": T, "mode": mode, "round_mode": round_mode,
             "narrow_range": bool(narrow_range), "axis": int(axis),
             "ensure_minimum_range": float(ensure_minimum_range)}
    outs = apply(_QuantizeV2, [x, convert_to_tensor(min_range, D.float32),
                               convert_to_tensor(max_range, D.float32)], attrs,
                 name=name or "QuantizeV2", multi=True)
    return _QuantizeResult(*outs)


@export("quantization.dequantize")
def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None,  # noqa: A002
               axis=None, narrow_range=False, dtype=D.float32):
    """The float values (float32 or bfloat16) a quantized tensor stands for,
    given the range it was quantized over and the mode."""
    x = convert_to_tensor(input)
    if not x.dtype.is_quantized:
        raise U.dtype_error("Dequantize", x.dtype, _QTYPES)
    axis = _quantization_axis(axis, x)
    dtype = D.as_dtype(dtype)
    return apply(_Dequantize, [x, convert_to_tensor(min_range, D.float32),
                               convert_to_tensor(max_range, D.float32)],
                 {"T": x.dtype, "mode": mode, "narrow_range": bool(narrow_range),
                  "axis": int(axis), "dtype": dtype}, name=name or "Dequantize")


_QuantizeResult = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])


# --- QuantizeAndDequantizeV2 / V4 -------------------------------------------------------

def _qdq_slice(x, mn, mx, signed_input, num_bits, range_given, round_mode, narrow_range):
    t = x.dtype.type
    if signed_input:
        qmin = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = (1 << (num_bits - 1)) - 1
    else:
        qmin, qmax = 0, (1 << num_bits) - 1
    mn, mx = t(mn), t(mx)
    big = np.finfo(x.dtype).max
    with np.errstate(all="ignore"):
        from_min = t(t(qmin) / mn) if qmin * mn > 0 else big
        from_max = t(t(qmax) / mx) if qmax * mx > 0 else big
        if from_min < from_max:
            scale, inverse = from_min, t(mn / t(qmin))
            mx = t(t(qmax) * inverse)
        else:
            scale, inverse = from_max, t(mx / t(qmax))
            mn = t(t(qmin) * inverse)
        if range_given:
            x = np.maximum(np.minimum(x, mx), mn)
        v = x * scale
        v = np.rint(v) if round_mode == "HALF_TO_EVEN" else np.floor(v + t(0.5))
        return (v * inverse).astype(x.dtype)


def _qdq_checks(op, input_min, input_max, signed_input, num_bits, range_given, round_mode,
                axis, rank):
    if round_mode not in ("HALF_TO_EVEN", "HALF_UP"):
        raise _attr_error(op, "round_mode", round_mode, ("HALF_TO_EVEN", "HALF_UP"))
    if not 0 < num_bits < (62 if signed_input else 63):
        raise U.op_error(op, f"num_bits is out of range: {num_bits} with signed_input_ "
                             f"{int(bool(signed_input))}")
    if np.ndim(input_min) != 0:
        raise U.op_error(op, "input_min must be a scalar.")
    if np.ndim(input_max) != 0:
        raise U.op_error(op, "input_max must be a scalar.")
    if axis != -1:
        if axis >= rank:
            raise U.op_error(op, f"Shape must be at least rank {axis + 1} but is rank {rank}")
        if range_given:
            raise U.op_error(op, "Shape must be rank 1 for input_min_tensor when the axis is "
                                 "specified")
    elif range_given and float(input_min) > float(input_max):
        raise U.op_error(op, f"Invalid range: input_min {float(input_min):g} > input_max "
                             f"{float(input_max):g}")


def _qdq_kernel(op):
    def kernel(input, input_min, input_max, signed_input=True, num_bits=8,  # noqa: A002
               range_given=False, round_mode="HALF_TO_EVEN", narrow_range=False, axis=-1,
               T=None):
        _qdq_checks(op, input_min, input_max, signed_input, num_bits, range_given, round_mode,
                    axis, input.ndim)
        if input.size == 0:
            return input.copy()
        if axis == -1:
            mn, mx = (input_min, input_max) if range_given else (input.min(), input.max())
            return _qdq_slice(input, mn, mx, signed_input, num_bits, range_given, round_mode,
                              narrow_range)
        out = np.empty_like(input)
        for i in range(input.shape[axis]):
            index = (slice(None),) * axis + (i,)
            part = input[index]
            out[index] = _qdq_slice(part, part.min(), part.max(), signed_input, num_bits, False,
                                    round_mode, narrow_range)
        return out
    return kernel


def _qdq_infer(inputs, attrs):
    return [(inputs[0].shape, inputs[0].dtype)]


def _v4_grad_kernel(gradients, input, input_min, input_max, axis=-1, T=None):  # noqa: A002
    mn, mx = np.asarray(input_min), np.asarray(input_max)
    if axis != -1 and mn.ndim == 1:
        shape = [1] * input.ndim
        shape[axis] = -1
        mn, mx = mn.reshape(shape), mx.reshape(shape)
    inside = (input >= mn) & (input <= mx)
    return [np.where(inside, gradients, gradients.dtype.type(0)).astype(gradients.dtype),
            np.zeros(np.shape(input_min), gradients.dtype),
            np.zeros(np.shape(input_max), gradients.dtype)]


def _v4_grad_infer(inputs, attrs):
    return [(inputs[1].shape, inputs[1].dtype), (inputs[2].shape, inputs[2].dtype),
            (inputs[3].shape, inputs[3].dtype)]


def _v2_grad(op, g):
    # TensorFlow's QuantizeAndDequantizeV2 gradient passes everything through.
    return [g, None, None]


def _v4_grad(op, g):
    dx, dmin, dmax = apply(_V4Grad, [g] + list(op.inputs[:3]), {"axis": op.get_attr("axis"),
                                                                 "T": g.dtype},
                           name="QuantizeAndDequantizeV4Grad", multi=True)
    return [dx, dmin, dmax]


_QDQ_TYPES = (D.bfloat16, D.float16, D.float32, D.float64)
_V2 = register("QuantizeAndDequantizeV2", _qdq_kernel("QuantizeAndDequantizeV2"), _qdq_infer,
               _v2_grad, allowed=_QDQ_TYPES)
_V4 = register("QuantizeAndDequantizeV4", _qdq_kernel("QuantizeAndDequantizeV4"), _qdq_infer,
               _v4_grad, allowed=_QDQ_TYPES)
_V4Grad = register("QuantizeAndDequantizeV4Grad", _v4_grad_kernel, _v4_grad_infer, _no_grad)


def _qdq_public(opdef, input, input_min, input_max, signed_input, num_bits,  # noqa: A002
                range_given, round_mode, name, narrow_range, axis):
    x = convert_to_tensor(input)
    axis = _quantization_axis(axis, x)
    U.check_dtype(opdef.name, x, _QDQ_TYPES)
    attrs = {"signed_input": bool(signed_input), "num_bits": int(num_bits),
             "range_given": bool(range_given), "round_mode": round_mode,
             "narrow_range": bool(narrow_range), "axis": int(axis), "T": x.dtype}
    return apply(opdef, [x, convert_to_tensor(input_min, x.dtype),
                         convert_to_tensor(input_max, x.dtype)], attrs,
                 name=name or opdef.name)


@export("quantization.quantize_and_dequantize")
def quantize_and_dequantize(input, input_min, input_max, signed_input=True,  # noqa: A002
                            num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                            name=None, narrow_range=False, axis=None):
    """Deprecated in TensorFlow: `quantize_and_dequantize_v2` whose gradient
    passes through unchanged (the QuantizeAndDequantizeV2 op)."""
    return _qdq_public(_V2, input, input_min, input_max, signed_input, num_bits, range_given,
                       round_mode, name, narrow_range, axis)


@export("quantization.quantize_and_dequantize_v2")
def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True,  # noqa: A002
                               num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                               name=None, narrow_range=False, axis=None):
    """Rounds `input` to the `num_bits`-bit grid of a symmetric scale (from
    the given range when `range_given`, else the input's own min and max)
    and back to floats; the gradient is the incoming gradient where the
    input lies in [input_min, input_max] (QuantizeAndDequantizeV4)."""
    return _qdq_public(_V4, input, input_min, input_max, signed_input, num_bits, range_given,
                       round_mode, name, narrow_range, axis)


# --- QuantizedConcat -------------------------------------------------------------------

def _quantized_concat_kernel(concat_dim, *rest, N=None, T=None):
    n = len(rest) // 3
    values, mins, maxes = rest[:n], rest[n:2 * n], rest[2 * n:]
    arrays = [D.plain(v) for v in values]
    base = arrays[0].dtype
    lo, hi = _limits(base)
    axis = int(concat_dim)
    rank = arrays[0].ndim
    if not 0 <= axis < rank:
        raise U.op_error("QuantizedConcat", f"ConcatOp : Expected concatenating dimensions in "
                                            f"the range [{-rank}, {rank}), but got {axis}")
    ranges = [(_F(np.asarray(a).reshape(-1)[0]), _F(np.asarray(b).reshape(-1)[0]))
              for a, b in zip(mins, maxes)]
    overall_min = min(_F(0), min(r[0] for r in ranges))
    overall_max = max(r[1] for r in ranges)
    if lo < 0:
        largest = max(abs(overall_min), abs(overall_max))
        out_min, out_max = -largest, largest
    else:
        out_min, out_max = overall_min, overall_max
    parts = []
    for a, (mn, mx) in zip(arrays, ranges):
        if mn == out_min and mx == out_max:
            parts.append(a)
        else:
            # TensorFlow's RequantizeCopier: DEQUANTIZE_WITH_EIGEN then
            # QUANTIZE_WITH_EIGEN, both in float32 (MIN_FIRST's formulas).
            f = np.asarray(_dequantize_slice(a, mn, mx, base, "MIN_FIRST", False), _F)
            parts.append(_float_to_quantized(f, out_min, out_max, base))
    out = np.concatenate(parts, axis=axis)
    return [out.view(values[0].dtype), np.asarray(out_min, _F), np.asarray(out_max, _F)]


def _quantized_concat_infer(inputs, attrs):
    return [(TensorShape(None), inputs[1].dtype), (TensorShape([]), D.float32),
            (TensorShape([]), D.float32)]


_QuantizedConcat = register("QuantizedConcat", _quantized_concat_kernel,
                            _quantized_concat_infer, _no_grad)


@export("quantization.quantized_concat")
def quantized_concat(concat_dim, values, input_mins, input_maxes, name=None):
    """Concatenates quantized tensors (quint8 or qint32) along `concat_dim`,
    requantizing each into the union of their ranges (symmetric around 0 for
    signed types); returns (output, output_min, output_max)."""
    values = [convert_to_tensor(v) for v in values]
    T = values[0].dtype
    if T not in (D.quint8, D.qint32):
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node QuantizedConcat}}}} = "
                        f"QuantizedConcat[N={len(values)}, T={U.tf_type_name(T).upper()}]\n"
                        f"All kernels registered for op QuantizedConcat:\n  device='CPU'; T in "
                        f"[DT_QINT32]\n  device='CPU'; T in [DT_QUINT8]\n [Op:QuantizedConcat]")
    inputs = [convert_to_tensor(concat_dim, D.int32)] + values + \
        [convert_to_tensor(m, D.float32) for m in input_mins] + \
        [convert_to_tensor(m, D.float32) for m in input_maxes]
    outs = apply(_QuantizedConcat, inputs, {"N": len(values), "T": T},
                 name=name or "QuantizedConcat", multi=True)
    return _ConcatResult(*outs)


_ConcatResult = collections.namedtuple("QuantizedConcat", ["output", "output_min",
                                                           "output_max"])
