"""Special functions, complex parts and the two-input functions of the
elementwise math family.

- error and gamma functions: erf, erfc, lgamma, digamma, polygamma and the
  Hurwitz zeta function (float64 series and recurrences, cast back);
- softplus, softsign and log_sigmoid;
- complex parts and construction: real, imag, angle, complex;
- atan2, xlogy, xdivy.

They register in this order, between the one-tensor math of unary_ops.py
(whose registry-entry helpers they use) and clipping (clip_ops.py).
"""

import math
from fractions import Fraction

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply1, apply2
from ...framework.tensor_shape import dims_text
from . import op_util as U
from .math_ops import _sum_to, cast, negative, not_equal
from .op_util import COMPLEX, FLOATS, binary, unary
from .unary_ops import (_OPS, _not_found, _register, _scope, _simple, _to_real_infer,
                        _to_real_kernel, _where, _zeros, abs, exp, reciprocal, sigmoid, square)
from .. import late
from ..kernels import exp_log as _exp_log
from ..kernels import erf_f64
from ..kernels import exp_log_f64 as _exp_log_f64
from ..kernels.jit_kernels import erf_kernel, erfc_kernel, log_kernel, softplus_kernel
from ..kernels import glibc_float
from ..kernels import libm_kernels as _libm_kernels
from ..kernels.digamma import digamma as _eigen_digamma
from ..kernels.zeta import zeta as _eigen_zeta
from ..kernels.trig import atan2_kernel
from ..kernels.jit_kernels import compiled_first

_state = _context.state

# Allowed input dtypes, in the order TensorFlow lists them in its messages.
_SOFT = tuple(d for d in (D.float16, D.bfloat16, D.float32, D.float64) if d is not None)
_XLOGY = _SOFT + COMPLEX
_F32_F64 = (D.float32, D.float64)
_F16 = np.dtype(np.float16)


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


# --- kernels -----------------------------------------------------------------

def _via_float64(fn):
    """A kernel computing `fn` on float64 values and casting back."""
    def kernel(x):
        return np.asarray(fn(np.asarray(x, dtype=np.float64)), dtype=np.float64).astype(x.dtype)
    return kernel


def _erf64(x):
    return erf_f64.erf(x)


def _erfc64(x):
    return erf_f64.erfc(x)


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


def _zeta_em(s, a):
    """sum_k (a + k)^-s for a >= 10 by Euler-Maclaurin: the integral, half
    the first term, and the Bernoulli corrections."""
    a_s = np.power(a, -s)
    tail = a * a_s / (s - 1) + 0.5 * a_s
    term = s * a_s / a
    inv_a2 = 1 / (a * a)
    for j, c in enumerate(_ZETA_COEF, 1):
        tail += c * term
        term = term * (s + 2 * j - 1) * (s + 2 * j) * inv_a2
    return tail


def _zeta64(s, q):
    """The Hurwitz zeta function sum_k (q + k)^-s for float64 arrays, by
    Euler-Maclaurin summation after shifting q to at least 10 (one pass per
    unit of shift, as in Cephes). For q below -10 (integer s) the terms
    q + k <= -10 are (-1)^s sum_j (r + j)^-s over r = |q + K| in [10, 11):
    zeta(s, r) - zeta(s, 1 - q), so the shift costs at most 20 passes (one
    per unit made polygamma(1, -3e6) take seconds, and never end where
    q + 1 == q)."""
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
    total = np.zeros_like(qv)
    far = qv < -10
    if far.any():
        sf, qf = sv[far], qv[far]
        last = np.floor(-10 - qf)                 # K: q + K <= -10 < q + K + 1
        r = -(qf + last)
        sign = np.where(sf % 2 == 0, 1.0, -1.0)
        total[far] = sign * (_zeta_em(sf, r) - _zeta_em(sf, 1 - qf))
        qv = qv.copy()
        qv[far] = qf + last + 1
    n = np.maximum(0.0, np.ceil(10.0 - qv)).astype(np.int64)
    idx = np.nonzero(n > 0)[0]
    k = 0
    while idx.size:
        total[idx] += np.power(qv[idx] + k, -sv[idx])
        k += 1
        idx = idx[n[idx] > k]
    out[calc] = total + _zeta_em(sv, qv + n)
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
    if x.dtype not in (np.float32, np.float64):
        return _polygamma64(a, x).astype(x.dtype)
    # TensorFlow's polygamma_impl: NaN for a non-integer or negative order,
    # digamma for 0, else (-1)**(n+1) * exp(lgamma(n+1)) * zeta(n+1, x), each
    # step in the type (kernels/zeta.py, kernels/digamma.py).
    dt = x.dtype
    a, x = np.broadcast_arrays(np.asarray(a, dt), np.asarray(x, dt))
    out = np.full(a.shape, np.nan, dt)
    with np.errstate(all="ignore"):
        order_ok = (np.floor(a) == a) & (a >= 0)
        zero = order_ok & (a == 0)
        if zero.any():
            out[zero] = _eigen_digamma(np.array(x[zero]))
        pos = order_ok & (a > 0)
        if pos.any():
            nplus = a[pos] + dt.type(1)
            fact = _scalar_exp(np.asarray(_lgamma_c(np.ascontiguousarray(nplus)), dt))
            sign = np.where(nplus % 2 == 0, dt.type(1), dt.type(-1))
            z = _eigen_zeta(nplus, x[pos], _zeta64)
            prod = _ftz_dt(sign * fact)
            out[pos] = _ftz_dt(prod * z)
    return out


_lgamma_c = _libm_kernels.kernel("lgamma")


def _scalar_exp(v):
    """The C library's exp of every element (Eigen's scalar path), flushed."""
    if v.dtype == np.float32:
        return np.asarray(_exp_log.exp_scalar(np.ascontiguousarray(v).reshape(-1)),
                          np.float32).reshape(v.shape)
    one = _exp_log_f64.TAILS["exp"]
    return np.array([one(t) for t in v.reshape(-1).tolist()], np.float64).reshape(v.shape)


def _ftz_dt(v):
    v = np.asarray(v)
    tiny = np.finfo(v.dtype).tiny
    return np.where(np.abs(v) < tiny, v * v.dtype.type(0), v)


def _zeta_kernel(x, q):
    if x.dtype in (np.float32, np.float64):
        out = _eigen_zeta(x, q, _zeta64)      # TensorFlow's own (kernels/zeta.py)
        return out if out.ndim or isinstance(x, np.ndarray) else out[()]
    return _zeta64(x, q).astype(x.dtype)


def _digamma_kernel(x):
    if x.dtype in (np.float32, np.float64):
        out = _eigen_digamma(np.asarray(x))     # TensorFlow's own (kernels/digamma.py)
        return out if isinstance(x, np.ndarray) else out[()]
    return _digamma64(x).astype(x.dtype)


def _softplus_kernel(features):
    # TensorFlow's bits for float32, float16 and bfloat16 (kernels/exp_log.py).
    return softplus_kernel(features)


def _softsign_kernel(features):
    return features / (1 + np.abs(features))


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


# Eigen's packet width by dtype (AVX): the last size % lanes elements of a
# result take its scalar path.
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def zero_where_x_is_zero(x, out):
    """TensorFlow's x == 0 rule of xlogy, xdivy and xlog1py applied to
    `out` (their value elsewhere, already of the broadcast shape): Eigen's
    packets select x itself there (a -0 stays -0), its scalar path, on the
    last size % lanes elements, writes +0; other dtypes +0 throughout."""
    xb = np.broadcast_to(x, np.shape(out))
    zero = xb == 0
    lanes = _LANES.get(np.dtype(out.dtype))
    if lanes is None:
        return np.where(zero, np.zeros((), out.dtype), out)
    res = np.where(zero, xb, out)
    flat = res.reshape(-1)
    head = flat.size - flat.size % lanes
    if head < flat.size:
        tail = flat[head:]
        tail[zero.reshape(-1)[head:]] = 0.0
    return res


def _at_shape_of(x, y):
    """y broadcast to the shape of x op y, in memory (a kernel that splits
    packets by position must see the result's positions)."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return y if np.shape(y) == shape else np.ascontiguousarray(np.broadcast_to(y, shape))


def _xlogy_kernel(x, y):
    # TensorFlow's log (exp_log.py: its packets and the C library's tail).
    ly = _at_shape_of(x, y)
    ly = log_kernel(ly) if ly.dtype.kind == "f" or ly.dtype.name == "bfloat16" else np.log(ly)
    with np.errstate(all="ignore"):
        return zero_where_x_is_zero(x, x * ly)


def _xdivy_kernel(x, y):
    with np.errstate(all="ignore"):
        return zero_where_x_is_zero(x, np.true_divide(x, y))


# --- gradients ---------------------------------------------------------------

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
    """TensorFlow's: g / (x^2 + y^2) first, then times x and -y (g * x first
    overflowed to NaN for a large upstream gradient: 1e20 at x = y = 1e19)."""
    y, x = op.inputs
    grad_inv = g / (square(x) + square(y))
    return [_sum_to(x * grad_inv, y), _sum_to(-y * grad_inv, x)]


def _xlogy_grad(op, g):
    x, y = op.inputs
    nonzero = cast(not_equal(x, 0), x.dtype)
    return [_sum_to(g * xlogy(nonzero, y), x), _sum_to(g * xdivy(x, y), y)]


def _xdivy_grad(op, g):
    x, y = op.inputs
    nonzero = cast(not_equal(x, 0), x.dtype)
    return [_sum_to(g * xdivy(nonzero, y), x), _sum_to(g * xdivy(negative(x), square(y)), y)]


# --- registry entries --------------------------------------------------------

# float32 (and half types): Eigen's approximations, TensorFlow's bits
# (ops/kernels/erf.py, compiled by the jit extra when loaded); float64 the
# correctly rounded library functions.
_Erf = _simple("Erf", erf_kernel(_via_float64(_erf64)), _erf_grad, FLOATS)
_Erfc = _simple("Erfc", erfc_kernel(_via_float64(_erfc64)), _erfc_grad, FLOATS)
def _no_bfloat16(op_name, kernel):
    """`kernel`, refusing bfloat16 as TensorFlow does: the op allows it, but
    only XLA has a kernel for it (NotFoundError on the CPU)."""
    def k(x):
        if x.dtype.name == "bfloat16":
            raise _not_found(op_name, x)
        return kernel(x)
    return k


# lgamma: the C library's lgammaf/lgamma, as TensorFlow's kernel calls it
# (ops/kernels/libm_kernels.py).
_Lgamma = _simple("Lgamma", _no_bfloat16("Lgamma", _libm_kernels.kernel("lgamma")),
                  _lgamma_grad, FLOATS)
_Digamma = _simple("Digamma", _no_bfloat16("Digamma", _digamma_kernel), _digamma_grad, FLOATS)
_Softplus = _simple("Softplus", _softplus_kernel, _softplus_grad, _SOFT, arg="features")
_Softsign = _simple("Softsign", _softsign_kernel, _softsign_grad, _SOFT, arg="features")
_Real = _register("Real", _to_real_kernel(np.real), _to_real_infer("Real", "input"),
                  _real_grad, COMPLEX)
_Imag = _register("Imag", _to_real_kernel(np.imag), _to_real_infer("Imag", "input"),
                  _imag_grad, COMPLEX)
def _angle(z):
    # std::arg of a complex64 is glibc's atan2f on every element (no packet
    # code: Eigen's arg of complex values is scalar); NumPy's arctan2 differed.
    if z.dtype == np.complex64:
        return glibc_float.atan2f(np.ascontiguousarray(z.imag), np.ascontiguousarray(z.real))
    return np.angle(z)


_Angle = _register("Angle", _to_real_kernel(_angle), _to_real_infer("Angle", "input"),
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
_Atan2 = _register("Atan2", compiled_first("atan2", atan2_kernel), _binary_infer("Atan2", "y", "x"),
                   _atan2_grad, FLOATS)
_Xlogy = _register("Xlogy", _xlogy_kernel, _binary_infer("Xlogy", "x", "y"), _xlogy_grad,
                   _XLOGY)
_Xdivy = _register("Xdivy", _xdivy_kernel, _binary_infer("Xdivy", "x", "y"), _xdivy_grad,
                   _XLOGY)
_Polygamma = _register("Polygamma", _polygamma_kernel, _binary_infer("Polygamma", "a", "x"),
                       _polygamma_grad, _F32_F64)
_Zeta = _register("Zeta", _zeta_kernel, _binary_infer("Zeta", "x", "q"), _zeta_grad, _F32_F64)


# --- public functions: one input ---------------------------------------------

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


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_xlogy(ctx, op, x, y):
    # 0 wherever x is 0, whatever y is (NaN included), as TensorFlow's.
    zero = XL.jnp.equal(x, 0)
    safe = XL.jnp.where(zero, XL.jnp.ones((), op.outputs[0].dtype._np), y)
    return XL.jnp.where(zero, XL.jnp.zeros((), op.outputs[0].dtype._np),
                        x * XL.jnp.log(safe))


def _lower_xdivy(ctx, op, x, y):
    return XL.jnp.where(XL.jnp.equal(x, 0), XL.jnp.zeros((), op.outputs[0].dtype._np),
                        XL.jnp.true_divide(x, y))


XL.set_lowerings({
    "Erf": "lax.erf", "Erfc": "lax.erfc", "Lgamma": "lax.lgamma", "Digamma": "lax.digamma",
    "Softplus": "jax.nn.softplus", "Softsign": "jax.nn.soft_sign", "Real": "jnp.real",
    "Imag": "jnp.imag", "Angle": "jnp.angle",
    "Complex": lambda ctx, op, re, im: XL.lax.complex(*XL.broadcast(re, im)),
    "Atan2": "jnp.arctan2", "Xlogy": _lower_xlogy, "Xdivy": _lower_xdivy,
    "Polygamma": lambda ctx, op, a, x: XL.jax.scipy.special.polygamma(
        XL.jnp.asarray(a).astype(np.int32), x),
    "Zeta": "jax.scipy.special.zeta"})
