"""The Cephes special functions of `tf.math` and `tf.math.special`, with their
gradients: erfinv and ndtri; the Bessel functions I0, I1, K0, K1 (and their
exponentially scaled forms), J0, J1, Y0, Y1; Dawson's integral, the
exponential integral, the Fresnel integrals and Spence's function; and
`nextafter`.

The kernels (ops/kernels/cephes.py, ops/kernels/bessel.py) follow
TensorFlow 2.21's CPU algorithms step by step, float32 in Eigen's packets
with the scalar tail; the dtypes each op accepts and has a CPU kernel for,
and the gradients, are TensorFlow's (math_grad.py).
"""
import math

import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from . import op_util as U
from .broadcast_ops import where
from .constant_ops import ones_like, zeros_like
from .math_ops import _sum_to, cast, equal, truediv
from .op_util import FLOATS, binary, unary
from .unary_ops import _not_found, _register, _scope, _unary_infer, cos, exp, log, reciprocal
from .unary_ops import sign, sin, square
from ..kernels import bessel as _bessel
from ..kernels import cephes as _cephes

__all__ = ["erfinv", "ndtri", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e",
           "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_j0", "bessel_j1",
           "bessel_y0", "bessel_y1", "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence",
           "nextafter"]

_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))
_HALF_F32_F64 = (np.dtype(np.float16),) + _F32_F64


def _cpu_kernel(op_name, fn, kernel_dtypes):
    """`fn`, raising TensorFlow's NotFoundError for the dtypes its op allows
    but has no CPU kernel for (Erfinv of float16, BesselI0 of bfloat16...)."""
    def kernel(x):
        if x.dtype not in kernel_dtypes:
            raise _not_found(op_name, x)
        return fn(x)
    return kernel


def _const(value, like):
    return convert_to_tensor(value, dtype=like.dtype)


# --- gradients (TensorFlow's math_grad.py) -------------------------------------

def _erfinv_grad(op, g):
    return [g * _const(math.sqrt(math.pi) / 2, g) * exp(square(op.outputs[0]))]


def _ndtri_grad(op, g):
    return [g * _const(math.sqrt(2 * math.pi), g) * exp(square(op.outputs[0]) / _const(2., g))]


def _i0_grad(op, g):
    return [g * bessel_i1(op.inputs[0])]


def _i0e_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [g * (bessel_i1e(x) - sign(x) * y)]


def _i1_grad(op, g):
    # The main formula is 0/0 at x = 0, where the derivative is 1.
    x, y = op.inputs[0], op.outputs[0]
    dy_dx = where(equal(x, _const(0., x)), _const(1., x), bessel_i0(x) - truediv(y, x))
    return [g * dy_dx]


def _i1e_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    dy_dx = where(equal(x, _const(0., x)), _const(0.5, x),
                  bessel_i0e(x) - y * (sign(x) + reciprocal(x)))
    return [g * dy_dx]


def _k0_grad(op, g):
    return [g * -bessel_k1(op.inputs[0])]


def _k0e_grad(op, g):
    return [g * (op.outputs[0] - bessel_k1e(op.inputs[0]))]


def _k1_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [g * (-bessel_k0(x) - truediv(y, x))]


def _k1e_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [g * (y * (_const(1., x) - reciprocal(x)) - bessel_k0e(x))]


def _j0_grad(op, g):
    return [g * -bessel_j1(op.inputs[0])]


def _j1_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    dy_dx = where(equal(x, _const(0., x)), _const(0.5, x), bessel_j0(x) - truediv(y, x))
    return [g * dy_dx]


def _y0_grad(op, g):
    return [g * -bessel_y1(op.inputs[0])]


def _y1_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [g * (bessel_y0(x) - truediv(y, x))]


def _dawsn_grad(op, g):
    x, y = op.inputs[0], op.outputs[0]
    return [g * (_const(1., x) - _const(2., x) * x * y)]


def _expint_grad(op, g):
    x = op.inputs[0]
    return [g * exp(x) / x]


def _fresnel_cos_grad(op, g):
    x = op.inputs[0]
    return [g * cos(_const(math.pi / 2., x) * square(x))]


def _fresnel_sin_grad(op, g):
    x = op.inputs[0]
    return [g * sin(_const(math.pi / 2., x) * square(x))]


def _spence_grad(op, g):
    x = op.inputs[0]
    partial = log(x) / (_const(1., x) - x)
    partial = where(equal(x, _const(1., x)), -ones_like(x), partial)
    return [g * partial]


def _nextafter_grad(op, g):
    # d/dx1 is 1 and d/dx2 is 0, each summed to its input's shape.
    x1, x2 = op.inputs
    return [_sum_to(g, x1), _sum_to(zeros_like(g), x2)]


# --- registry entries ----------------------------------------------------------

def _unary_op(name, fn, grad, kernel_dtypes):
    return _register(name, _cpu_kernel(name, fn, kernel_dtypes), _unary_infer(name), grad,
                     FLOATS)


_Erfinv = _unary_op("Erfinv", _cephes.packet_kernel(_cephes.erfinv), _erfinv_grad, _F32_F64)
_Ndtri = _unary_op("Ndtri", _cephes.packet_kernel(_cephes.ndtri), _ndtri_grad, _F32_F64)

_BESSEL_GRADS = {"BesselI0": _i0_grad, "BesselI0e": _i0e_grad, "BesselI1": _i1_grad,
                 "BesselI1e": _i1e_grad, "BesselK0": _k0_grad, "BesselK0e": _k0e_grad,
                 "BesselK1": _k1_grad, "BesselK1e": _k1e_grad, "BesselJ0": _j0_grad,
                 "BesselJ1": _j1_grad, "BesselY0": _y0_grad, "BesselY1": _y1_grad}
_BESSEL = {name: _unary_op(name, _bessel.KERNELS[name], grad, _HALF_F32_F64)
           for name, grad in _BESSEL_GRADS.items()}

_Dawsn = _unary_op("Dawsn", _cephes.scalar_kernel(_cephes.dawsn), _dawsn_grad, _F32_F64)
_Expint = _unary_op("Expint", _cephes.scalar_kernel(_cephes.expint, daz=False), _expint_grad,
                    _F32_F64)
_FresnelCos = _unary_op("FresnelCos", _cephes.scalar_kernel(_cephes.fresnel_cos),
                        _fresnel_cos_grad, _F32_F64)
_FresnelSin = _unary_op("FresnelSin", _cephes.scalar_kernel(_cephes.fresnel_sin),
                        _fresnel_sin_grad, _F32_F64)
_Spence = _unary_op("Spence", _cephes.scalar_kernel(_cephes.spence), _spence_grad, _F32_F64)


def _nextafter_infer(inputs, attrs):
    x1, x2 = inputs
    if x1.dtype is not x2.dtype:
        raise TypeError(f"Input 'x2' of 'NextAfter' Op has type {x2.dtype.name} that does not "
                        f"match type {x1.dtype.name} of argument 'x1'.")
    U.check_allowed(_NextAfter, x1, "x1")
    return [(U.broadcast_shapes(x1.shape, x2.shape), x1.dtype)]


def _nextafter_kernel(x1, x2):
    # Bit stepping: subnormal results stay (TensorFlow's std::nextafter
    # computes no arithmetic result that flush-to-zero would touch).
    return np.nextafter(x1, x2)


# TensorFlow lists NextAfter's dtypes as double, float.
_NextAfter = _register("NextAfter", _nextafter_kernel, _nextafter_infer, _nextafter_grad,
                       (D.float64, D.float32))


# --- public functions ----------------------------------------------------------

def _public(opdef, x, name, scope):
    # TensorFlow's wrappers open a name scope (`bessel_i0/BesselI0`).
    with _scope(name, scope):
        return unary(opdef, x, opdef.name)


@export("math.erfinv", "compat.v1.math.erfinv")
def erfinv(x, name=None):
    """The inverse of `tf.math.erf` elementwise on [-1, 1] (+-inf at +-1, NaN
    outside), computed as ndtri((x + 1) / 2) / sqrt(2) as TensorFlow does."""
    return _public(_Erfinv, x, name, "erfinv")


@export("math.ndtri", "compat.v1.math.ndtri")
def ndtri(x, name=None):
    """The quantile function of the standard normal distribution: the z with
    Phi(z) = x, for x in [0, 1] (+-inf at the ends, NaN outside)."""
    return _public(_Ndtri, x, name, "ndtri")


@export("math.bessel_i0", "math.special.bessel_i0", "compat.v1.math.bessel_i0",
        "compat.v1.math.special.bessel_i0")
def bessel_i0(x, name=None):
    """The modified Bessel function of the first kind of order 0, I0(x)."""
    return _public(_BESSEL["BesselI0"], x, name, "bessel_i0")


@export("math.bessel_i0e", "math.special.bessel_i0e")  # compat.v1: v2_names.py
def bessel_i0e(x, name=None):
    """The exponentially scaled modified Bessel function of order 0,
    exp(-|x|) I0(x), elementwise (finite where I0 itself overflows)."""
    return _public(_BESSEL["BesselI0e"], x, name, "bessel_i0e")


@export("math.bessel_i1", "math.special.bessel_i1", "compat.v1.math.bessel_i1",
        "compat.v1.math.special.bessel_i1")
def bessel_i1(x, name=None):
    """The modified Bessel function of the first kind of order 1, I1(x)."""
    return _public(_BESSEL["BesselI1"], x, name, "bessel_i1")


@export("math.bessel_i1e", "math.special.bessel_i1e", "compat.v1.math.bessel_i1e",
        "compat.v1.math.special.bessel_i1e")
def bessel_i1e(x, name=None):
    """The exponentially scaled modified Bessel function of order 1,
    exp(-|x|) I1(x)."""
    return _public(_BESSEL["BesselI1e"], x, name, "bessel_i1e")


@export("math.special.bessel_k0", "compat.v1.math.special.bessel_k0")
def bessel_k0(x, name=None):
    """The modified Bessel function of the second kind of order 0, K0(x)
    (inf for x <= 0)."""
    return _public(_BESSEL["BesselK0"], x, name, "bessel_k0")


@export("math.special.bessel_k0e", "compat.v1.math.special.bessel_k0e")
def bessel_k0e(x, name=None):
    """The exponentially scaled K0: exp(x) K0(x) (inf for x <= 0)."""
    return _public(_BESSEL["BesselK0e"], x, name, "bessel_k0e")


@export("math.special.bessel_k1", "compat.v1.math.special.bessel_k1")
def bessel_k1(x, name=None):
    """The modified Bessel function of the second kind of order 1, K1(x)
    (inf for x <= 0)."""
    return _public(_BESSEL["BesselK1"], x, name, "bessel_k1")


@export("math.special.bessel_k1e", "compat.v1.math.special.bessel_k1e")
def bessel_k1e(x, name=None):
    """The exponentially scaled K1: exp(x) K1(x) (inf for x <= 0)."""
    return _public(_BESSEL["BesselK1e"], x, name, "bessel_k1e")


@export("math.special.bessel_j0", "compat.v1.math.special.bessel_j0")
def bessel_j0(x, name=None):
    """The Bessel function of the first kind of order 0, J0(x)."""
    return _public(_BESSEL["BesselJ0"], x, name, "bessel_j0")


@export("math.special.bessel_j1", "compat.v1.math.special.bessel_j1")
def bessel_j1(x, name=None):
    """The Bessel function of the first kind of order 1, J1(x)."""
    return _public(_BESSEL["BesselJ1"], x, name, "bessel_j1")


@export("math.special.bessel_y0", "compat.v1.math.special.bessel_y0")
def bessel_y0(x, name=None):
    """The Bessel function of the second kind of order 0, Y0(x) (-inf at 0,
    NaN for x < 0)."""
    return _public(_BESSEL["BesselY0"], x, name, "bessel_y0")


@export("math.special.bessel_y1", "compat.v1.math.special.bessel_y1")
def bessel_y1(x, name=None):
    """The Bessel function of the second kind of order 1, Y1(x) (NaN for
    x < 0; at 0, NaN in float32 and -inf in float64, as TensorFlow)."""
    return _public(_BESSEL["BesselY1"], x, name, "bessel_y1")


@export("math.special.dawsn", "compat.v1.math.special.dawsn")
def dawsn(x, name=None):
    """Dawson's integral exp(-x^2) * integral_0^x exp(t^2) dt."""
    return _public(_Dawsn, x, name, "dawsn")


@export("math.special.expint", "compat.v1.math.special.expint")
def expint(x, name=None):
    """The exponential integral Ei(x) (NaN for x < 0)."""
    return _public(_Expint, x, name, "expint")


@export("math.special.fresnel_cos", "compat.v1.math.special.fresnel_cos")
def fresnel_cos(x, name=None):
    """The Fresnel cosine integral: integral_0^x cos(pi t^2 / 2) dt."""
    return _public(_FresnelCos, x, name, "fresnel_cos")


@export("math.special.fresnel_sin", "compat.v1.math.special.fresnel_sin")
def fresnel_sin(x, name=None):
    """The Fresnel sine integral: integral_0^x sin(pi t^2 / 2) dt."""
    return _public(_FresnelSin, x, name, "fresnel_sin")


@export("math.special.spence", "compat.v1.math.special.spence")
def spence(x, name=None):
    """Spence's function: integral_1^x log(t) / (1 - t) dt for x >= 0 (NaN
    below)."""
    return _public(_Spence, x, name, "spence")


@export("math.nextafter", "compat.v1.math.nextafter")
def nextafter(x1, x2, name=None):
    """The next representable value after x1 in the direction of x2,
    elementwise with broadcasting (float32 and float64)."""
    return binary(_NextAfter, x1, x2, name or "NextAfter")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

XL.set_lowerings({
    "Erfinv": "jax.scipy.special.erfinv", "Ndtri": "jax.scipy.special.ndtri",
    "BesselI0": "jax.scipy.special.i0", "BesselI0e": "jax.scipy.special.i0e",
    "BesselI1": "jax.scipy.special.i1", "BesselI1e": "jax.scipy.special.i1e",
    "Expint": "jax.scipy.special.expi", "Spence": "jax.scipy.special.spence",
    "NextAfter": "jnp.nextafter"})
