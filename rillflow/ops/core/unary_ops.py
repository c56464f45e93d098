"""Elementwise math of one tensor: abs, sign, exp and log, trigonometric and
hyperbolic functions, sigmoid, square roots, squares and reciprocals,
rounding (round, floor, ceil, rint) and the is_nan/is_finite/is_inf tests.

Each op is one registry entry (NumPy kernel, shape inference, gradient) plus
its public function. Single-input ops go through `op_util.unary`, the
shortest eager path. Gradients are written with the public ops so they work
on the eager tape and in graphs; where TensorFlow differentiates through an
op's output (sigmoid, tanh, sqrt, rsqrt, exp, reciprocal) so do we, for the
same numerical stability.

The registry-entry helpers here (`_register`, `_simple`, the shape
functions, `_scope`, `_zeros`, `_where`) are shared with the rest of the
family: special_math_ops.py (special functions, complex parts, the binary
functions) and clip_ops.py (clipping).
"""

import contextlib

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply1, apply2
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor
from . import elementwise_grad_ops
from . import op_util as U
from .math_ops import conj, div_no_nan
from .op_util import COMPLEX, FLOAT_COMPLEX, FLOATS, INTS, SIGNED_INTS, unary
# The exact kernels, compiled when the jit extra is loaded (kernels/jit_kernels.py).
from ..kernels.jit_kernels import (exp_kernel, expm1_kernel, log1p_kernel, log_kernel,
                                  rsqrt_kernel, sigmoid_kernel)
from ..kernels.tanh_kernel import tanh_kernel
from ..kernels import complex_arith
from ..kernels import libm_kernels as _libm_kernels
from ..kernels.x86_estimates import reciprocal_kernel
from ..kernels.trig import (acos_kernel, asin_kernel, atan_kernel, cos_kernel, sin_kernel,
                            tan_kernel)
from ..kernels.jit_kernels import accelerated, compiled_first
from .. import late

_state = _context.state

# Allowed input dtypes, in the order TensorFlow lists them in its messages.
_FC = FLOAT_COMPLEX
_ABS = FLOATS + SIGNED_INTS
_SIGN = FLOATS + SIGNED_INTS + COMPLEX
_SQUARE = FLOATS + INTS + COMPLEX

_F16 = np.dtype(np.float16)
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


# The OpDefs of this module, special_math_ops and clip_ops by name (all register
# through `_register`), for the shape functions to check dtypes against.
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




def _reciprocal_kernel(x):
    if x.dtype.kind in "iu":
        raise _not_found("Reciprocal", x)
    if x.dtype.kind == "c":
        return complex_arith.reciprocal(x)
    return reciprocal_kernel(x)     # Eigen's estimate and Newton step on float32 packets


# Complex numbers take complex_arith's kernels (TensorFlow's bits; the float
# kernels' modules are below complex_arith, so the choice is made here).
def _complex_first(complex_kernel, kernel):
    """A kernel running `complex_kernel` on complex arrays, `kernel` on the rest."""
    def run(x):
        if x.dtype.kind == "c":
            return complex_kernel(x)
        return kernel(x)
    run.__name__ = getattr(kernel, "__name__", "kernel")
    return run


_exp_kernel = _complex_first(complex_arith.exp, exp_kernel)
_log_kernel = _complex_first(complex_arith.log, log_kernel)
_sigmoid_kernel = _complex_first(complex_arith.sigmoid, sigmoid_kernel)
_rsqrt_kernel = _complex_first(complex_arith.rsqrt, rsqrt_kernel)
_sqrt_kernel = _complex_first(complex_arith.sqrt, np.sqrt)     # (NumPy's csqrt differed)


def _square_kernel(x):
    if x.dtype.kind == "c":
        return complex_arith.multiply(x, x)     # (NumPy's may fuse)
    return np.square(x)


def _round_kernel(x):
    k = x.dtype.kind
    if k == "f":
        return np.rint(x)  # round half to even, as TensorFlow's Round
    if k == "V" and x.dtype.name == "bfloat16":  # ml_dtypes' bfloat16: through float32, exact
        return np.rint(x.astype(np.float32)).astype(x.dtype)
    if k == "c" or k == "V":
        raise _not_found("Round", x)
    return x  # TensorFlow's Round kernel takes every integer type


def _rint_kernel(x):
    # TensorFlow's CPU Rint is float32's and float64's only.
    if x.dtype is _F16 or x.dtype.name == "bfloat16":
        raise _not_found("Rint", x)
    return np.rint(x)


def _to_real_kernel(fn):
    def kernel(x, Tout=None):
        return fn(x)
    return kernel


# --- gradients -----------------------------------------------------------------

def _zeros(t):
    return late.zeros_like(t)


def _where(c, x, y):
    return late.where(c, x, y)


def _abs_grad(op, g):
    return [g * sign(op.inputs[0])]


def _complex_abs_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    # `complex` is built on this module (special_math_ops), so it is reached late.
    return [div_no_nan(late.complex(g, _zeros(g)) * x, late.complex(y, _zeros(y)))]


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
    # The RsqrtGrad op, as TensorFlow's gradient (its products' order, and
    # 0 where the upstream gradient is: the composite -0.5 * g * y**3 overflowed).
    return [apply2(elementwise_grad_ops.RSQRT_GRAD, op.outputs[0], g)]


def _square_grad(op, g):
    return [g * (2 * conj(op.inputs[0]))]


def _reciprocal_grad(op, g):
    y = op.outputs[0]
    return [-g * conj(y * y)]


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


# --- registry entries ----------------------------------------------------------

_Abs = _simple("Abs", np.abs, _abs_grad, _ABS)
_ComplexAbs = _register("ComplexAbs", _to_real_kernel(np.abs), _to_real_infer("ComplexAbs", "x"),
                        _complex_abs_grad, COMPLEX)
_Sign = _simple("Sign", _sign_kernel, _sign_grad, _SIGN)
# exp, expm1, log, log1p and sigmoid: TensorFlow's CPU bits for float32,
# float16, bfloat16 and float64 (kernels/exp_log.py, exp_log_f64.py); complex
# exp and log (complex64 exp, complex128 log) and sigmoid: complex_arith's.
_Exp = _simple("Exp", _exp_kernel, _exp_grad, _FC)
_Expm1 = _simple("Expm1", expm1_kernel, _expm1_grad, _FC)
_Log = _simple("Log", _log_kernel, _log_grad, _FC)
_Log1p = _simple("Log1p", log1p_kernel, _log1p_grad, _FC)
# TensorFlow's float32 sin/cos are Eigen's vectorized approximations, tan is
# glibc's tanf (ops/kernels/trig.py); complex and float64 keep NumPy's.
_Sin = _simple("Sin", compiled_first("sin", sin_kernel), _sin_grad, _FC)
_Cos = _simple("Cos", compiled_first("cos", cos_kernel), _cos_grad, _FC)
# float64 tan, asin and acos: the C library's, as TensorFlow's (libm_kernels).
_Tan = _simple("Tan", _libm_kernels.with_float64("tan", compiled_first("tan", tan_kernel)),
               _tan_grad, _FC)
_Asin = _simple("Asin", _libm_kernels.with_float64("asin", asin_kernel), _asin_grad, _FC)
_Acos = _simple("Acos", _libm_kernels.with_float64("acos", acos_kernel), _acos_grad, _FC)
_Atan = _simple("Atan", atan_kernel, _atan_grad, _FC)
_Sinh = _simple("Sinh", _libm_kernels.kernel("sinh"), _sinh_grad, _FC)
_Cosh = _simple("Cosh", _libm_kernels.kernel("cosh"), _cosh_grad, _FC)
# NumPy's tanh: within a few ulps of TensorFlow's float32 kernel, which uses a
# clamped rational approximation (returning exactly +-1 from |x| >= 7.9073896,
# 1 ulp above NumPy there) that is not reproduced bit for bit; matching its
# edges alone cost a fifth of the time of small-tensor RNN steps.
# Eagerly too, the compiled tanh (same bits) once the jit extra is loaded.
_Tanh = _simple("Tanh", accelerated("tanh", tanh_kernel), _tanh_grad, _FC)
_Asinh = _simple("Asinh", _libm_kernels.kernel("asinh"), _asinh_grad, _FC)
_Acosh = _simple("Acosh", _libm_kernels.kernel("acosh"), _acosh_grad, _FC)
_Atanh = _simple("Atanh", _libm_kernels.kernel("atanh"), _atanh_grad, _FC)
_Sigmoid = _simple("Sigmoid", _sigmoid_kernel, _sigmoid_grad, _FC)
_Sqrt = _simple("Sqrt", _sqrt_kernel, _sqrt_grad, _FC)
# float32: the x86 rsqrt estimate and a Newton step, as TensorFlow computes it.
_Rsqrt = _simple("Rsqrt", _rsqrt_kernel, _rsqrt_grad, _FC)
_Square = _simple("Square", _square_kernel, _square_grad, _SQUARE)
_Reciprocal = _simple("Reciprocal", _reciprocal_kernel, _reciprocal_grad, _SIGN)


def _inv_kernel(x):
    if x.dtype.kind in "iu":
        raise _not_found("Inv", x)
    return _reciprocal_kernel(x)


_Inv = _simple("Inv", _inv_kernel, _reciprocal_grad, _SIGN)     # Reciprocal's old name
_Round = _simple("Round", _round_kernel, _no_grad, _SIGN)
_Floor = _simple("Floor", np.floor, _no_grad, FLOATS)
_Ceil = _simple("Ceil", np.ceil, _no_grad, FLOATS)
_Rint = _simple("Rint", _rint_kernel, _no_grad, FLOATS)
_IsNan = _register("IsNan", np.isnan, _unary_infer("IsNan", out_dtype=D.bool_), _no_grad, FLOATS)
_IsFinite = _register("IsFinite", np.isfinite, _unary_infer("IsFinite", out_dtype=D.bool_),
                      _no_grad, FLOATS)
_IsInf = _register("IsInf", np.isinf, _unary_infer("IsInf", out_dtype=D.bool_), _no_grad,
                   FLOATS)


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


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

XL.set_lowerings({
    "Abs": "jnp.abs", "ComplexAbs": "jnp.abs", "Sign": "jnp.sign", "Exp": "jnp.exp",
    "Expm1": "jnp.expm1", "Log": "jnp.log", "Log1p": "jnp.log1p", "Sin": "jnp.sin",
    "Cos": "jnp.cos", "Tan": "jnp.tan", "Asin": "jnp.arcsin", "Acos": "jnp.arccos",
    "Atan": "jnp.arctan", "Sinh": "jnp.sinh", "Cosh": "jnp.cosh", "Tanh": "jnp.tanh",
    "Asinh": "jnp.arcsinh", "Acosh": "jnp.arccosh", "Atanh": "jnp.arctanh",
    "Sigmoid": "jax.nn.sigmoid", "Sqrt": "jnp.sqrt", "Rsqrt": lambda ctx, op, x: 1 / XL.jnp.sqrt(x),   # rsqrt(-0) = -inf, as TensorFlow's
    "Square": "jnp.square", "Reciprocal": "jnp.reciprocal", "Round": "jnp.round",
    "Floor": "jnp.floor", "Ceil": "jnp.ceil", "Rint": "jnp.rint", "IsNan": "jnp.isnan",
    "IsFinite": "jnp.isfinite", "IsInf": "jnp.isinf"})
