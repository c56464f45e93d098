"""Elementwise math of one tensor (abs, exp, log, trigonometry, sigmoid,
rounding, special functions, complex parts), clipping, and the few binary
functions of the same family (atan2, complex, xlogy, xdivy, polygamma, zeta).

Each op is one registry entry (NumPy kernel, shape inference, gradient) plus
its public function. Single-input ops go through `op_util.unary`, the
shortest eager path. Gradients are written with the public ops so they work
on the eager tape and in graphs; where TensorFlow differentiates through an
op's output (sigmoid, tanh, sqrt, rsqrt, exp, reciprocal) so do we, for the
same numerical stability.
"""
import collections.abc
import contextlib
import math
from fractions import Fraction

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1, apply2
from ...framework.indexed_slices import IndexedSlices
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .math_ops import _sum_to, cast, conj, div_no_nan, maximum, minimum, negative, not_equal
from .op_util import COMPLEX, FLOAT_COMPLEX, FLOATS, INTS, SIGNED_INTS, binary, unary
from ..kernels.tanh_kernel import tanh_kernel
from .. import late

_state = _context.state

# Allowed input dtypes, in the order TensorFlow lists them in its messages.
_FC = FLOAT_COMPLEX
_ABS = FLOATS + SIGNED_INTS
_SIGN = FLOATS + SIGNED_INTS + COMPLEX
_SQUARE = FLOATS + INTS + COMPLEX
_SOFT = tuple(d for d in (D.float16, D.bfloat16, D.float32, D.float64) if d is not None)
_XLOGY = _SOFT + COMPLEX
_F32_F64 = (D.float32, D.float64)
# ClipByValue is checked like TensorFlow's Minimum/Maximum, which implement it.
_CLIP = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.uint8,
                          D.int16, D.uint16, D.int32, D.uint32, D.int64, D.uint64)
              if d is not None)

_F16 = np.dtype(np.float16)
# 0-d arrays, not NumPy scalars: ufuncs take them several times faster.
_ONE = {np.dtype(t): np.ones((), t) for t in (np.float32, np.float64, np.complex64,
                                               np.complex128)}
_NULL_SCOPE = contextlib.nullcontext()


def _scope(name, default):
    """The graph name scope of a composite op (nothing to do eagerly)."""
    g = _state.graph
    if g is None:
        return _NULL_SCOPE
    return g.name_scope(name or default)


def _not_found(op_name, x):
    """TensorFlow has the op for this dtype but no CPU kernel for it."""
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = "
        f"{op_name}[T=DT_{U.tf_type_name(D.as_dtype(x.dtype)).upper()}]")


# --- shape functions -----------------------------------------------------------

def _unary_infer(op_name, arg="x", out_dtype=None):
    """Elementwise shape function whose input parameter is called `arg`."""
    def infer(inputs, attrs):
        x = inputs[0]
        U.check_allowed(_OPS[op_name], x, arg)
        return [(x.shape, out_dtype or x.dtype)]
    return infer


def _to_real_infer(op_name, arg):
    """Shape function of ComplexAbs/Real/Imag/Angle (output dtype `Tout`)."""
    def infer(inputs, attrs):
        x = inputs[0]
        U.check_allowed(_OPS[op_name], x, arg)
        return [(x.shape, attrs.get("Tout") or x.dtype.real_dtype)]
    return infer


def _binary_infer(op_name, xname, yname):
    """Broadcasting shape function naming TensorFlow's parameters in errors."""
    def infer(inputs, attrs):
        x, y = inputs
        if x.dtype is not y.dtype:
            raise TypeError(f"Input '{yname}' of '{op_name}' Op has type {y.dtype.name} that "
                            f"does not match type {x.dtype.name} of argument '{xname}'.")
        U.check_allowed(_OPS[op_name], x, xname)
        return [(U.broadcast_shapes(x.shape, y.shape), x.dtype)]
    return infer


_OPS = {}


def _register(name, kernel, infer, grad, allowed):
    op = register(name, kernel, infer, grad, allowed=allowed)
    _OPS[name] = op
    return op


def _simple(name, kernel, grad, allowed, arg="x"):
    return _register(name, kernel, _unary_infer(name, arg), grad, allowed)


# --- kernels -------------------------------------------------------------------

def _complex_sign(x):
    # x / |x| as TensorFlow computes it (nan for infinite magnitudes), 0 at 0.
    mag = np.abs(x)
    out = x / np.where(mag == 0, np.ones((), mag.dtype), mag)
    return np.where(mag == 0, np.zeros((), x.dtype), out)


def _sign_kernel(x):
    if x.dtype.kind == "c":
        return _complex_sign(x)
    return np.sign(x)


def _sigmoid_kernel(x):
    if x.dtype is _F16:
        return _sigmoid_kernel(x.astype(np.float32)).astype(np.float16)
    one = _ONE.get(x.dtype)
    if one is None:  # bfloat16
        one = np.ones((), x.dtype)
    # exp(-x) overflows to inf for very negative x, giving the right limit 0.
    return np.reciprocal(np.add(np.exp(np.negative(x)), one))


def _rsqrt_kernel(x):
    return np.reciprocal(np.sqrt(x))


def _reciprocal_kernel(x):
    if x.dtype.kind in "iu":
        raise _not_found("Reciprocal", x)
    return np.reciprocal(x)


def _round_kernel(x):
    k = x.dtype.kind
    if k == "f":
        return np.rint(x)  # round half to even, as TensorFlow's Round
    if k == "c" or x.dtype.itemsize < 4:
        raise _not_found("Round", x)
    return x


def _rint_kernel(x):
    if x.dtype is _F16:
        raise _not_found("Rint", x)
    return np.rint(x)


def _via_float64(fn):
    """A kernel computing `fn` on float64 values and casting back."""
    def kernel(x):
        return np.asarray(fn(np.asarray(x, dtype=np.float64)), dtype=np.float64).astype(x.dtype)
    return kernel


_erf_obj = np.frompyfunc(math.erf, 1, 1)
_erfc_obj = np.frompyfunc(math.erfc, 1, 1)


def _erf64(x):
    return _erf_obj(x).astype(np.float64) if x.ndim else math.erf(x)


def _erfc64(x):
    return _erfc_obj(x).astype(np.float64) if x.ndim else math.erfc(x)


def _lgamma_scalar(v):
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):  # poles at 0, -1, -2, ... and huge x
        return math.inf


_lgamma_obj = np.frompyfunc(_lgamma_scalar, 1, 1)


def _lgamma64(x):
    return _lgamma_obj(x).astype(np.float64) if x.ndim else _lgamma_scalar(float(x))


# B_2k for k = 1..12, the coefficients of the digamma and zeta expansions.
_BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730)]
_DIGAMMA_COEF = [float(b / (2 * k)) for k, b in enumerate(_BERNOULLI[:6], 1)]
_ZETA_COEF = [float(b / math.factorial(2 * k)) for k, b in enumerate(_BERNOULLI, 1)]


_SHIFT = np.arange(20, dtype=np.float64)


def _digamma64(x):
    """psi(x) for a float64 array: reflection for negative x, the recurrence
    psi(x) = psi(x + 20) - sum_k<20 1/(x + k), then the asymptotic series,
    accurate to double precision from 20 on."""
    x = np.array(x, dtype=np.float64)
    shape = x.shape
    x = x.reshape(-1)
    acc = None
    pole = None
    if (x <= 0).any():
        pole = (x <= 0) & (x == np.floor(x))  # includes -inf
        neg = (x < 0) & ~pole
        xn = x[neg]
        acc = np.zeros_like(x)
        # pi / tan(pi x) has period 1: reduce x to [-1/2, 1/2] (exactly)
        # first, so tiny and near-integer x keep their precision.
        acc[neg] = -np.pi / np.tan(np.pi * (xn - np.round(xn)))
        x[neg] = 1 - xn
        x[pole] = 1.0
    if x.size <= 4096:
        shift = (1 / (x[:, None] + _SHIFT)).sum(axis=1)
    else:  # bound the temporary memory
        shift = np.zeros_like(x)
        for k in _SHIFT:
            shift += 1 / (x + k)
    acc = -shift if acc is None else acc - shift
    x = x + 20
    inv2 = 1 / (x * x)
    series = _DIGAMMA_COEF[-1] * inv2
    for c in _DIGAMMA_COEF[-2::-1]:
        series = (series + c) * inv2
    out = np.log(x) - 0.5 / x - series + acc
    if pole is not None:
        out[pole] = np.nan
    return out.reshape(shape)


def _zeta64(s, q):
    """The Hurwitz zeta function sum_k (q + k)^-s for float64 arrays, by
    Euler-Maclaurin summation after shifting q to at least 10 (so a very
    negative q costs one pass per unit of shift, as in Cephes)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    out = np.full(s.shape, np.nan)
    q_int = q == np.floor(q)
    q_pole = (q <= 0) & q_int
    out[(s == 1) | ((s > 1) & q_pole)] = np.inf
    out[(s > 1) & (q == np.inf)] = 0.0
    s_int = s == np.floor(s)
    # For q < 0, (q + k)^-s is real only for integer s.
    calc = (s > 1) & (s < np.inf) & np.isfinite(q) & ~q_pole & ((q > 0) | s_int)
    if not calc.any():
        return out
    sv, qv = s[calc], q[calc]
    n = np.maximum(0.0, np.ceil(10.0 - qv)).astype(np.int64)
    total = np.zeros_like(qv)
    idx = np.nonzero(n > 0)[0]
    k = 0
    while idx.size:
        total[idx] += np.power(qv[idx] + k, -sv[idx])
        k += 1
        idx = idx[n[idx] > k]
    a = qv + n
    a_s = np.power(a, -sv)
    tail = a * a_s / (sv - 1) + 0.5 * a_s
    term = sv * a_s / a
    inv_a2 = 1 / (a * a)
    for j, c in enumerate(_ZETA_COEF, 1):
        tail += c * term
        term = term * (sv + 2 * j - 1) * (sv + 2 * j) * inv_a2
    out[calc] = total + tail
    return out


def _gamma_int_plus_one(n):
    return math.gamma(n + 1) if n < 171 else math.inf


_factorial_obj = np.frompyfunc(_gamma_int_plus_one, 1, 1)


def _polygamma64(a, x):
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    order_ok = np.isfinite(a) & (a >= 0) & (a == np.floor(a))
    zero = order_ok & (a == 0)
    if zero.any():
        out[zero] = _digamma64(x[zero])
    pos = order_ok & (a > 0)
    if pos.any():
        n = a[pos]
        sign = np.where(n % 2 == 1, 1.0, -1.0)
        fact = _factorial_obj(n).astype(np.float64)
        out[pos] = sign * fact * _zeta64(n + 1, x[pos])
    return out


def _polygamma_kernel(a, x):
    return _polygamma64(a, x).astype(x.dtype)


def _zeta_kernel(x, q):
    return _zeta64(x, q).astype(x.dtype)


def _digamma_kernel(x):
    return _digamma64(x).astype(x.dtype)


def _softplus_kernel(features):
    x = features
    if x.dtype is _F16:
        return _softplus_kernel(x.astype(np.float32)).astype(np.float16)
    # max(x, 0) + log1p(exp(-|x|)): no overflow, exact for large |x|.
    return np.logaddexp(x.dtype.type(0), x)


def _softsign_kernel(features):
    return features / (1 + np.abs(features))


def _to_real_kernel(fn):
    def kernel(x, Tout=None):
        return fn(x)
    return kernel


def _complex_kernel(real, imag, Tout=None):
    shape = real.shape
    if imag.shape != shape:
        try:
            shape = np.broadcast_shapes(shape, imag.shape)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Incompatible shapes: {dims_text(real.shape)} vs. "
                f"{dims_text(imag.shape)}") from None
    out = np.empty(shape, dtype=np.complex64 if real.dtype == np.float32 else np.complex128)
    # Assigning the parts keeps inf and nan exactly (real + 1j * imag would not).
    out.real = real
    out.imag = imag
    return out


def _xlogy_kernel(x, y):
    out = x * np.log(y)
    return np.where(x == 0, np.zeros((), out.dtype), out)


def _xdivy_kernel(x, y):
    out = np.true_divide(x, y)
    return np.where(x == 0, np.zeros((), out.dtype), out)


def _clip_kernel(t, clip_value_min, clip_value_max):
    # min then max, as TensorFlow composes it: an inverted range gives the min.
    return np.maximum(np.minimum(t, clip_value_max), clip_value_min)


# --- gradients -----------------------------------------------------------------

def _zeros(t):
    return late.zeros_like(t)


def _where(c, x, y):
    return late.where(c, x, y)


def _abs_grad(op, g):
    return [g * sign(op.inputs[0])]


def _complex_abs_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [div_no_nan(complex(g, _zeros(g)) * x, complex(y, _zeros(y)))]


def _sign_grad(op, g):
    return [_zeros(op.inputs[0])]


def _exp_grad(op, g):
    return [g * conj(op.outputs[0])]


def _expm1_grad(op, g):
    return [g * conj(exp(op.inputs[0]))]


def _log_grad(op, g):
    return [g * reciprocal(conj(op.inputs[0]))]


def _log1p_grad(op, g):
    return [g * reciprocal(conj(1 + op.inputs[0]))]


def _sin_grad(op, g):
    return [g * conj(cos(op.inputs[0]))]


def _cos_grad(op, g):
    return [-g * conj(sin(op.inputs[0]))]


def _tan_grad(op, g):
    return [g * conj(square(reciprocal(cos(op.inputs[0]))))]


def _asin_grad(op, g):
    return [g * conj(rsqrt(1 - square(op.inputs[0])))]


def _acos_grad(op, g):
    return [-g * conj(rsqrt(1 - square(op.inputs[0])))]


def _atan_grad(op, g):
    return [g * conj(reciprocal(1 + square(op.inputs[0])))]


def _sinh_grad(op, g):
    return [g * conj(cosh(op.inputs[0]))]


def _cosh_grad(op, g):
    return [g * conj(sinh(op.inputs[0]))]


def _tanh_grad(op, g):
    y = op.outputs[0]
    return [g * conj(1 - y * y)]


def _asinh_grad(op, g):
    return [g / conj(cosh(op.outputs[0]))]


def _acosh_grad(op, g):
    return [g / conj(sinh(op.outputs[0]))]


def _atanh_grad(op, g):
    return [g * conj(reciprocal(1 - square(op.inputs[0])))]


def _sigmoid_grad(op, g):
    y = op.outputs[0]
    return [g * conj(y * (1 - y))]


def _sqrt_grad(op, g):
    return [0.5 * g / conj(op.outputs[0])]


def _rsqrt_grad(op, g):
    y = op.outputs[0]
    return [-0.5 * g * conj(y * y * y)]


def _square_grad(op, g):
    return [g * (2 * conj(op.inputs[0]))]


def _reciprocal_grad(op, g):
    y = op.outputs[0]
    return [-g * conj(y * y)]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _erf_grad(op, g):
    x = op.inputs[0]
    return [g * _TWO_OVER_SQRT_PI * exp(-square(x))]


def _erfc_grad(op, g):
    x = op.inputs[0]
    return [-g * _TWO_OVER_SQRT_PI * exp(-square(x))]


def _lgamma_grad(op, g):
    return [g * digamma(op.inputs[0])]


def _digamma_grad(op, g):
    x = op.inputs[0]
    return [g * polygamma(convert_to_tensor(1, dtype=x.dtype), x)]


def _polygamma_grad(op, g):
    a, x = op.inputs
    return [None, _sum_to(g * polygamma(a + 1, x), x)]


def _zeta_grad(op, g):
    s, q = op.inputs
    return [None, _sum_to(-g * s * zeta(s + 1, q), q)]


def _softplus_grad(op, g):
    return [g * sigmoid(op.inputs[0])]


def _softsign_grad(op, g):
    return [g / square(1 + abs(op.inputs[0]))]


def _real_grad(op, g):
    return [complex(g, _zeros(g))]


def _imag_grad(op, g):
    return [complex(_zeros(g), g)]


def _angle_grad(op, g):
    x = op.inputs[0]
    # d angle / dx, in TensorFlow's conjugate convention: -1 / (imag + i real).
    z = reciprocal(complex(imag(x), real(x)))
    return [-(complex(g, _zeros(g)) * z)]


def _complex_grad(op, g):
    x, y = op.inputs
    return [_sum_to(real(g), x), _sum_to(imag(g), y)]


def _atan2_grad(op, g):
    y, x = op.inputs
    inv = reciprocal(square(x) + square(y))
    return [_sum_to(g * x * inv, y), _sum_to(-g * y * inv, x)]


def _xlogy_grad(op, g):
    x, y = op.inputs
    nonzero = cast(not_equal(x, 0), x.dtype)
    return [_sum_to(g * xlogy(nonzero, y), x), _sum_to(g * xdivy(x, y), y)]


def _xdivy_grad(op, g):
    x, y = op.inputs
    nonzero = cast(not_equal(x, 0), x.dtype)
    return [_sum_to(g * xdivy(nonzero, y), x), _sum_to(g * xdivy(negative(x), square(y)), y)]


def _clip_grad(op, g):
    t, lo, hi = op.inputs
    # The gradient of maximum(minimum(t, hi), lo): ties go to `t`.
    below_hi = late.less_equal(t, hi)
    above_lo = late.greater_equal(minimum(t, hi), lo)
    zeros = _zeros(g)
    g_t = _where(late.logical_and(below_hi, above_lo), g, zeros)
    g_lo = _where(late.logical_not(above_lo), g, zeros)
    g_hi = _where(late.logical_and(late.logical_not(below_hi), above_lo), g, zeros)
    return [g_t, _sum_to(g_lo, lo), _sum_to(g_hi, hi)]


# --- registry entries ----------------------------------------------------------

_Abs = _simple("Abs", np.abs, _abs_grad, _ABS)
_ComplexAbs = _register("ComplexAbs", _to_real_kernel(np.abs), _to_real_infer("ComplexAbs", "x"),
                        _complex_abs_grad, COMPLEX)
_Sign = _simple("Sign", _sign_kernel, _sign_grad, _SIGN)
_Exp = _simple("Exp", np.exp, _exp_grad, _FC)
_Expm1 = _simple("Expm1", np.expm1, _expm1_grad, _FC)
_Log = _simple("Log", np.log, _log_grad, _FC)
_Log1p = _simple("Log1p", np.log1p, _log1p_grad, _FC)
_Sin = _simple("Sin", np.sin, _sin_grad, _FC)
_Cos = _simple("Cos", np.cos, _cos_grad, _FC)
_Tan = _simple("Tan", np.tan, _tan_grad, _FC)
_Asin = _simple("Asin", np.arcsin, _asin_grad, _FC)
_Acos = _simple("Acos", np.arccos, _acos_grad, _FC)
_Atan = _simple("Atan", np.arctan, _atan_grad, _FC)
_Sinh = _simple("Sinh", np.sinh, _sinh_grad, _FC)
_Cosh = _simple("Cosh", np.cosh, _cosh_grad, _FC)
# NumPy's tanh: within a few ulps of TensorFlow's float32 kernel, which uses a
# clamped rational approximation (returning exactly +-1 from |x| >= 7.9073896,
# 1 ulp above NumPy there) that is not reproduced bit for bit; matching its
# edges alone cost a fifth of the time of small-tensor RNN steps.
_Tanh = _simple("Tanh", tanh_kernel, _tanh_grad, _FC)
_Asinh = _simple("Asinh", np.arcsinh, _asinh_grad, _FC)
_Acosh = _simple("Acosh", np.arccosh, _acosh_grad, _FC)
_Atanh = _simple("Atanh", np.arctanh, _atanh_grad, _FC)
_Sigmoid = _simple("Sigmoid", _sigmoid_kernel, _sigmoid_grad, _FC)
_Sqrt = _simple("Sqrt", np.sqrt, _sqrt_grad, _FC)
_Rsqrt = _simple("Rsqrt", _rsqrt_kernel, _rsqrt_grad, _FC)
_Square = _simple("Square", np.square, _square_grad, _SQUARE)
_Reciprocal = _simple("Reciprocal", _reciprocal_kernel, _reciprocal_grad, _SIGN)
_Round = _simple("Round", _round_kernel, _no_grad, _SIGN)
_Floor = _simple("Floor", np.floor, _no_grad, FLOATS)
_Ceil = _simple("Ceil", np.ceil, _no_grad, FLOATS)
_Rint = _simple("Rint", _rint_kernel, _no_grad, FLOATS)
_IsNan = _register("IsNan", np.isnan, _unary_infer("IsNan", out_dtype=D.bool_), _no_grad, FLOATS)
_IsFinite = _register("IsFinite", np.isfinite, _unary_infer("IsFinite", out_dtype=D.bool_),
                      _no_grad, FLOATS)
_IsInf = _register("IsInf", np.isinf, _unary_infer("IsInf", out_dtype=D.bool_), _no_grad,
                   FLOATS)
_Erf = _simple("Erf", _via_float64(_erf64), _erf_grad, FLOATS)
_Erfc = _simple("Erfc", _via_float64(_erfc64), _erfc_grad, FLOATS)
_Lgamma = _simple("Lgamma", _via_float64(_lgamma64), _lgamma_grad, FLOATS)
_Digamma = _simple("Digamma", _digamma_kernel, _digamma_grad, FLOATS)
_Softplus = _simple("Softplus", _softplus_kernel, _softplus_grad, _SOFT, arg="features")
_Softsign = _simple("Softsign", _softsign_kernel, _softsign_grad, _SOFT, arg="features")
_Real = _register("Real", _to_real_kernel(np.real), _to_real_infer("Real", "input"),
                  _real_grad, COMPLEX)
_Imag = _register("Imag", _to_real_kernel(np.imag), _to_real_infer("Imag", "input"),
                  _imag_grad, COMPLEX)
_Angle = _register("Angle", _to_real_kernel(np.angle), _to_real_infer("Angle", "input"),
                   _angle_grad, COMPLEX)


def _complex_infer(inputs, attrs):
    re, im = inputs
    if re.dtype is not im.dtype:
        raise TypeError(f"Input 'imag' of 'Complex' Op has type {im.dtype.name} that does not "
                        f"match type {re.dtype.name} of argument 'real'.")
    U.check_allowed(_OPS["Complex"], re, "real")
    tout = attrs.get("Tout") or (D.complex64 if re.dtype is D.float32 else D.complex128)
    return [(U.broadcast_shapes(re.shape, im.shape), tout)]


_Complex = _register("Complex", _complex_kernel, _complex_infer, _complex_grad, _F32_F64)
_Atan2 = _register("Atan2", np.arctan2, _binary_infer("Atan2", "y", "x"), _atan2_grad, FLOATS)
_Xlogy = _register("Xlogy", _xlogy_kernel, _binary_infer("Xlogy", "x", "y"), _xlogy_grad,
                   _XLOGY)
_Xdivy = _register("Xdivy", _xdivy_kernel, _binary_infer("Xdivy", "x", "y"), _xdivy_grad,
                   _XLOGY)
_Polygamma = _register("Polygamma", _polygamma_kernel, _binary_infer("Polygamma", "a", "x"),
                       _polygamma_grad, _F32_F64)
_Zeta = _register("Zeta", _zeta_kernel, _binary_infer("Zeta", "x", "q"), _zeta_grad, _F32_F64)


def _clip_infer(inputs, attrs):
    t, lo, hi = inputs
    for arg, v in (("clip_value_min", lo), ("clip_value_max", hi)):
        if v.dtype is not t.dtype:
            raise TypeError(f"Input '{arg}' of 'ClipByValue' Op has type {v.dtype.name} that "
                            f"does not match type {t.dtype.name} of argument 't'.")
    U.check_allowed(_ClipByValue, t, "t")
    s = U.broadcast_shapes(U.broadcast_shapes(t.shape, hi.shape), lo.shape)
    # TensorFlow refuses bounds that would broadcast `t` to a larger shape.
    if not s.is_compatible_with(t.shape):
        raise ValueError(f"Shapes {t.shape} and {s} are incompatible")
    return [(t.shape.merge_with(s) if s.rank is not None else t.shape, t.dtype)]


_ClipByValue = _register("ClipByValue", _clip_kernel, _clip_infer, _clip_grad, _CLIP)


# --- public functions: one input ---------------------------------------------

@export("math.abs", "abs")
def abs(x, name=None):  # noqa: A001 - TensorFlow's name
    """|x| elementwise; for complex x, the magnitude as a float tensor."""
    if x.__class__ is EagerTensor:
        if x._v.dtype.kind != "c":
            return unary(_Abs, x, name)
    else:
        x = convert_to_tensor(x)
    d = x.dtype
    if d.is_complex:
        return apply1(_ComplexAbs, x, {"Tout": d.real_dtype}, name or "Abs")
    return unary(_Abs, x, name or "Abs")


@export("math.sign", "sign")
def sign(x, name=None):
    """-1, 0 or 1 by the sign of x (x / |x| for complex x, 0 at 0)."""
    return unary(_Sign, x, name or "Sign")


@export("math.exp", "exp")
def exp(x, name=None):
    """e ** x elementwise."""
    return unary(_Exp, x, name or "Exp")


@export("math.expm1")
def expm1(x, name=None):
    """exp(x) - 1, accurate for small x."""
    return unary(_Expm1, x, name or "Expm1")


@export("math.log")
def log(x, name=None):
    """Natural logarithm (log(0) = -inf, log of a negative number = nan)."""
    return unary(_Log, x, name or "Log")


@export("math.log1p")
def log1p(x, name=None):
    """log(1 + x), accurate for small x."""
    return unary(_Log1p, x, name or "Log1p")


@export("math.sin", "sin")
def sin(x, name=None):
    """Sine elementwise."""
    return unary(_Sin, x, name or "Sin")


@export("math.cos", "cos")
def cos(x, name=None):
    """Cosine elementwise."""
    return unary(_Cos, x, name or "Cos")


@export("math.tan", "tan")
def tan(x, name=None):
    """Tangent elementwise."""
    return unary(_Tan, x, name or "Tan")


@export("math.asin", "asin")
def asin(x, name=None):
    """Inverse sine (nan outside [-1, 1] for real x)."""
    return unary(_Asin, x, name or "Asin")


@export("math.acos", "acos")
def acos(x, name=None):
    """Inverse cosine (nan outside [-1, 1] for real x)."""
    return unary(_Acos, x, name or "Acos")


@export("math.atan", "atan")
def atan(x, name=None):
    """Inverse tangent elementwise."""
    return unary(_Atan, x, name or "Atan")


@export("math.sinh", "sinh")
def sinh(x, name=None):
    """Hyperbolic sine elementwise."""
    return unary(_Sinh, x, name or "Sinh")


@export("math.cosh", "cosh")
def cosh(x, name=None):
    """Hyperbolic cosine elementwise."""
    return unary(_Cosh, x, name or "Cosh")


@export("math.tanh", "nn.tanh", "tanh")
def tanh(x, name=None):
    """Hyperbolic tangent elementwise."""
    return unary(_Tanh, x, name or "Tanh")


@export("math.asinh", "asinh")
def asinh(x, name=None):
    """Inverse hyperbolic sine elementwise."""
    return unary(_Asinh, x, name or "Asinh")


@export("math.acosh", "acosh")
def acosh(x, name=None):
    """Inverse hyperbolic cosine (nan below 1 for real x)."""
    return unary(_Acosh, x, name or "Acosh")


@export("math.atanh", "atanh")
def atanh(x, name=None):
    """Inverse hyperbolic tangent (+-inf at +-1, nan beyond)."""
    return unary(_Atanh, x, name or "Atanh")


@export("math.sigmoid", "nn.sigmoid", "sigmoid")
def sigmoid(x, name=None):
    """1 / (1 + exp(-x)) elementwise."""
    return unary(_Sigmoid, x, name or "Sigmoid")


@export("math.sqrt", "sqrt")
def sqrt(x, name=None):
    """Square root (nan for negative real x)."""
    return unary(_Sqrt, x, name or "Sqrt")


@export("math.rsqrt")
def rsqrt(x, name=None):
    """1 / sqrt(x) elementwise."""
    return unary(_Rsqrt, x, name or "Rsqrt")


@export("math.square", "square")
def square(x, name=None):
    """x * x elementwise."""
    return unary(_Square, x, name or "Square")


@export("math.reciprocal")
def reciprocal(x, name=None):
    """1 / x elementwise."""
    return unary(_Reciprocal, x, name or "Reciprocal")


@export("math.round", "round")
def round(x, name=None):  # noqa: A001 - TensorFlow's name
    """Rounds half to even (banker's rounding); integer tensors are returned as is."""
    if x.__class__ is EagerTensor:
        if x._v.dtype.kind in "iu":
            return x
    else:
        x = convert_to_tensor(x)
        if x.dtype.is_integer:
            return x
    return unary(_Round, x, name or "Round")


@export("math.floor", "floor")
def floor(x, name=None):
    """The largest integer not greater than x, elementwise (floats only)."""
    return unary(_Floor, x, name or "Floor")


@export("math.ceil")
def ceil(x, name=None):
    """The smallest integer not less than x, elementwise (floats only)."""
    return unary(_Ceil, x, name or "Ceil")


@export("math.rint")
def rint(x, name=None):
    """The nearest integer, halves to even (floats only)."""
    return unary(_Rint, x, name or "Rint")


@export("math.is_nan")
def is_nan(x, name=None):
    """Whether each element is NaN (bool; float inputs only)."""
    return unary(_IsNan, x, name or "IsNan")


@export("math.is_finite")
def is_finite(x, name=None):
    """Whether each element is finite (bool; float inputs only)."""
    return unary(_IsFinite, x, name or "IsFinite")


@export("math.is_inf")
def is_inf(x, name=None):
    """Whether each element is +inf or -inf (bool; float inputs only)."""
    return unary(_IsInf, x, name or "IsInf")


@export("math.erf")
def erf(x, name=None):
    """The Gauss error function elementwise."""
    return unary(_Erf, x, name or "Erf")


@export("math.erfc")
def erfc(x, name=None):
    """The complementary error function 1 - erf(x), accurate for large x."""
    return unary(_Erfc, x, name or "Erfc")


@export("math.lgamma")
def lgamma(x, name=None):
    """log |Gamma(x)| elementwise (inf at 0, -1, -2, ...)."""
    return unary(_Lgamma, x, name or "Lgamma")


@export("math.digamma")
def digamma(x, name=None):
    """psi(x), the derivative of lgamma (nan at 0, -1, -2, ...)."""
    return unary(_Digamma, x, name or "Digamma")


@export("math.softplus", "nn.softplus")
def softplus(features, name=None):
    """log(exp(features) + 1), computed without overflow."""
    return unary(_Softplus, features, name or "Softplus")


@export("math.softsign", "nn.softsign")
def softsign(features, name=None):
    """features / (abs(features) + 1)."""
    return unary(_Softsign, features, name or "Softsign")


@export("math.log_sigmoid")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)), computed stably as -softplus(-x)."""
    with _scope(name, "LogSigmoid"):
        x = convert_to_tensor(x)
        return negative(softplus(negative(x)))


def _check_numeric(x):
    d = x.dtype
    if not (d.is_floating or d.is_integer or d.is_complex):
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {d!r}")


@export("math.real")
def real(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The real part of a complex tensor; a real tensor is returned unchanged."""
    x = convert_to_tensor(input)
    d = x.dtype
    if d.is_complex:
        return apply1(_Real, x, {"Tout": d.real_dtype}, name or "Real")
    _check_numeric(x)
    return x


@export("math.imag")
def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    x = convert_to_tensor(input)
    d = x.dtype
    if d.is_complex:
        return apply1(_Imag, x, {"Tout": d.real_dtype}, name or "Imag")
    return _zeros(x)


@export("math.angle")
def angle(input, name=None):  # noqa: A002
    """The argument of a complex tensor; for a real tensor pi where x < 0, else 0."""
    x = convert_to_tensor(input)
    d = x.dtype
    if d.is_complex:
        return apply1(_Angle, x, {"Tout": d.real_dtype}, name or "Angle")
    if not d.is_floating:
        raise TypeError(f"Cannot convert {math.pi!r} to EagerTensor of dtype {d.name}")
    return _where(late.less(x, 0), math.pi * late.ones_like(x), _zeros(x))


# --- public functions: two inputs --------------------------------------------

@export("complex", "dtypes.complex")
def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """real + imag * 1j: float32 parts give complex64, float64 parts complex128.

    Raises:
      TypeError: if the parts differ in dtype or are not float32/float64.
    """
    re = convert_to_tensor(real)
    im = convert_to_tensor(imag)
    rd, idt = re.dtype, im.dtype
    if rd is not idt or (rd is not D.float32 and rd is not D.float64):
        raise TypeError(f"The `real` and `imag` components have incorrect types: {rd.name} "
                        f"{idt.name}. They must be consistent, and one of "
                        "[tf.float32, tf.float64]")
    tout = D.complex64 if rd is D.float32 else D.complex128
    return apply2(_Complex, re, im, {"Tout": tout}, name or "Complex")


@export("math.atan2", "atan2")
def atan2(y, x, name=None):
    """The angle of the point (x, y) in radians, in [-pi, pi] (broadcasting)."""
    return binary(_Atan2, y, x, name or "Atan2")


@export("math.xlogy")
def xlogy(x, y, name=None):
    """x * log(y), but 0 wherever x is 0 (broadcasting)."""
    return binary(_Xlogy, x, y, name or "Xlogy")


@export("math.xdivy")
def xdivy(x, y, name=None):
    """x / y, but 0 wherever x is 0 (broadcasting)."""
    with _scope(name, "xdivy"):
        return binary(_Xdivy, x, y, "Xdivy")


@export("math.polygamma")
def polygamma(a, x, name=None):
    """The a-th derivative of digamma at x (a a non-negative integer value;
    nan otherwise)."""
    return binary(_Polygamma, a, x, name or "Polygamma")


@export("math.zeta")
def zeta(x, q, name=None):
    """The Hurwitz zeta function sum over k >= 0 of (q + k) ** -x."""
    return binary(_Zeta, x, q, name or "Zeta")


# --- clipping --------------------------------------------------------------------

def _bound(v, t):
    if isinstance(v, Tensor):
        return convert_to_tensor(v)
    return convert_to_tensor(v, dtype=t.dtype)


def _eager_bound(v, t):
    # A Python number becomes a NumPy scalar of a float tensor's dtype
    # directly; everything else takes the general conversion.
    c = v.__class__
    if c is EagerTensor:
        return v
    if (c is float or c is int) and t._v.dtype.kind == "f":
        return EagerTensor(np.array(v, t._v.dtype))
    return _bound(v, t)


def _check_clip_shapes(t, lo, hi):
    """Eager form of TensorFlow's checks: bounds must broadcast to `t`'s shape."""
    ts = t._v.shape
    for b in (hi, lo):
        bs = b._v.shape
        if bs == ts:
            continue
        try:
            s = np.broadcast_shapes(ts, bs)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Incompatible shapes: {dims_text(ts)} vs. {dims_text(bs)} "
                "[Op:ClipByValue]") from None
        if s != ts:
            raise ValueError(f"Shapes {t.shape} and {TensorShape(list(s))} are incompatible")


@export("clip_by_value")
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips `t` elementwise to [clip_value_min, clip_value_max].

    The bounds broadcast against `t` but may not enlarge it. The gradient
    passes to `t` where it is not clipped, and to the bound that clipped it.

    Raises:
      ValueError: if a bound would broadcast `t` to a larger shape.
      InvalidArgumentError: (eager) if the shapes do not broadcast or the
        dtypes differ.
    """
    if t.__class__ is not EagerTensor:
        t = convert_to_tensor(t)
    # The upper bound first: TensorFlow applies it first, and reports its errors.
    if t.__class__ is EagerTensor:
        hi = _eager_bound(clip_value_max, t)
        lo = _eager_bound(clip_value_min, t)
    else:
        hi = _bound(clip_value_max, t)
        lo = _bound(clip_value_min, t)
    if _state.graph is None:
        dt = t._v.dtype
        for i, b in ((1, lo), (2, hi)):
            if b._v.dtype != dt:
                raise errors.InvalidArgumentError(
                    None, None, f"cannot compute ClipByValue as input #{i}(zero-based) was "
                    f"expected to be a {U.tf_type_name(t.dtype)} tensor but is a "
                    f"{U.tf_type_name(b.dtype)} tensor [Op:ClipByValue]")
        if dt not in _ClipByValue.allowed_np:
            raise U._eager_disallowed(_ClipByValue, t)
        if lo._v.ndim or hi._v.ndim:
            _check_clip_shapes(t, lo, hi)
    return apply(_ClipByValue, (t, lo, hi), name=name or "clip_by_value")


@export("clip_by_norm")
def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Rescales `t` so its L2 norm over `axes` (all axes when None) is at most
    `clip_norm`; an all-zero `t` is returned unchanged (with gradient 1).
    For an IndexedSlices, its values are clipped (as TensorFlow does).

    Raises:
      ValueError: if `clip_norm` would broadcast `t` to a larger shape.
    """
    if t.__class__ is IndexedSlices:
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes, name), t.indices,
                             t.dense_shape)
    with _scope(name, "clip_by_norm"):
        t = convert_to_tensor(t)
        l2sum = late.reduce_sum(t * t, axes, keepdims=True)
        nonzero = l2sum > 0
        # sqrt only of positive sums, so the gradient at 0 is finite.
        safe = _where(nonzero, l2sum, late.ones_like(l2sum))
        l2norm = _where(nonzero, sqrt(safe), l2sum)
        scaled = t * clip_norm
        t.shape.assert_is_compatible_with(scaled.shape)
        return late.identity(scaled / maximum(l2norm, clip_norm))


def _global_norm(ts):
    sums = [late.reduce_sum(v * v) for v in ts if v is not None]
    return sqrt(late.reduce_sum(late.stack(sums)))


@export("linalg.global_norm", "global_norm")
def global_norm(t_list, name=None):
    """The L2 norm of all the tensors of `t_list` together (None entries
    skipped; an IndexedSlices counts its values, as in TensorFlow).

    Raises:
      TypeError: if `t_list` is not a sequence.
    """
    if isinstance(t_list, (str, bytes)) or not hasattr(t_list, "__iter__"):
        raise TypeError("`t_list` should be a sequence of tensors.")
    with _scope(name, "global_norm"):
        return _global_norm([convert_to_tensor(_values(t)) for t in t_list if t is not None])


def _values(t):
    """What norms see of `t`: an IndexedSlices' values, else `t`."""
    return t.values if t.__class__ is IndexedSlices else t


@export("clip_by_global_norm")
def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of `t_list` by clip_norm / max(global_norm, clip_norm),
    where global_norm is the L2 norm of all of them together.

    Returns:
      (list of clipped tensors, with None kept in place, global_norm). If the
      global norm is inf or nan, every clipped value is nan.

    Raises:
      TypeError: if `t_list` is not a sequence.
    """
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, (str, bytes)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    with _scope(name, "clip_by_global_norm"):
        values = [None if v is None else convert_to_tensor(_values(v)) for v in t_list]
        if use_norm is None:
            use_norm = _global_norm(values)
        else:
            use_norm = convert_to_tensor(use_norm)
        one = convert_to_tensor(1.0, dtype=use_norm.dtype)
        scale = clip_norm * minimum(1.0 / use_norm, one / clip_norm)
        # (use_norm - use_norm) is nan exactly when the norm is not finite.
        scale = scale + (use_norm - use_norm)
        clipped = [None if v is None else late.identity(v * scale) for v in values]
    # IndexedSlices stay sparse: their values clipped.
    clipped = [IndexedSlices(c, t.indices, t.dense_shape) if t.__class__ is IndexedSlices
               else c for c, t in zip(clipped, t_list)]
    return clipped, use_norm
