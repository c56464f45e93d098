"""Activations (`tf.nn.relu`, relu6, leaky_relu, elu, selu, gelu, silu).

Relu, Relu6, LeakyRelu, Elu and Selu are registry entries as in TensorFlow,
each with its gradient kernel (ReluGrad, EluGrad, ...) as an entry of its
own so that second derivatives work; gelu and silu are composed from other
ops, as TensorFlow composes them, imported lazily inside the functions.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply2
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ..core import op_util as U
from ..core.op_util import FLOATS, REAL, unary
from . import jit_nn
from .nn_util import _compute_dtype, _same_shape_infer, _scope, _zero
from ..core.broadcast_ops import select_values, where
from ..kernels.jit_kernels import exp_kernel
from ..core.constant_ops import zeros_like
from ..core.math_ops import add, cast, less, multiply, negative, pow as pow_, subtract
from ..core.reduction_ops import reduce_sum
from ..core.shape_ops import identity_n
from ..core.special_math_ops import erfc
from ..core.unary_ops import sigmoid, square, tanh

_state = _context.state

# SELU's constants (Klambauer et al., 2017), as TensorFlow's kernel uses them.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123   # scale * alpha, as TensorFlow rounds it


# --- relu, relu6, leaky_relu ------------------------------------------------

# Eigen's packets on TensorFlow's CPU build (AVX): 8 float32s, 4 float64s.
_PACKET_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _compiled(name, x):
    """The jit extra's one-pass loop `name` for float32 `x`, or None."""
    if x.dtype != np.float32 or x.ndim == 0:
        return None
    ks = jit_nn.loops(x.size)
    return None if ks is None else ks[name]


def _fits(out, x):
    """Whether `out` (a buffer the compiler offers: compiler/in_place.py)
    can take a result of x's shape and dtype, C-contiguous."""
    return out is not None and out.dtype == x.dtype and out.shape == x.shape and \
        out.flags.c_contiguous and out.flags.writeable


def _relu_kernel(features, out=None):
    # `out`: a buffer the result may be written into (the compiler passes the
    # features' own when nothing reads them afterwards: compiler/in_place.py);
    # the compiled loop reads and writes each element once, so in place is safe.
    if features.dtype.kind in "iu":
        return np.maximum(features, _zero(features))
    loop = _compiled("relu", features)
    if loop is not None:
        x = np.ascontiguousarray(features)
        if out is x and _fits(out, x):
            _compiled("relu_inplace", x)(x.reshape(-1))
            return x
        if not _fits(out, x):
            out = np.empty(x.shape, x.dtype)
        loop(x.reshape(-1), out.reshape(-1))
        return out
    # max(x, 0) as TensorFlow computes it. Its float32 and float64 packets
    # give +0 for -0 (and keep NaN); the last size % lanes elements, and
    # every half-precision element, keep -0. np.maximum's choice between -0
    # and +0 varies with its own SIMD path, so the cleared elements are
    # cleared on the bits instead.
    x = np.asarray(features, order="C")     # (ascontiguousarray makes 0-d 1-d)
    clear = np.less(x, 0)
    lanes = _PACKET_LANES.get(x.dtype)
    if lanes:
        flat, cflat = x.reshape(-1), clear.reshape(-1)
        lo = flat.size - flat.size % lanes
        np.less_equal(flat[:lo], 0, out=cflat[:lo])
    keep = clear.view(np.int8) - np.int8(1)     # 0 (cleared) or -1 (all ones)
    bits = np.dtype("i%d" % x.dtype.itemsize)
    return np.bitwise_and(x.view(bits), keep, dtype=bits).view(x.dtype)


def _relu_grad_kernel(gradients, features, out=None):
    # TensorFlow multiplies by (features > 0): inf * 0 is NaN and -1 * 0 is -0.
    # `out`: as _relu_kernel's (the gradients' buffer).
    loop = _compiled("relu_grad", gradients)
    if loop is not None and features.dtype == np.float32 and \
            features.shape == gradients.shape:
        g, f = np.ascontiguousarray(gradients), np.ascontiguousarray(features)
        if out is g and out is not f and _fits(out, g):
            _compiled("relu_grad_inplace", g)(g.reshape(-1), f.reshape(-1))
            return g
        if not _fits(out, g) or out is f:
            out = np.empty(g.shape, g.dtype)
        loop(g.reshape(-1), f.reshape(-1), out.reshape(-1))
        return out
    return np.multiply(gradients, np.greater(features, 0).astype(gradients.dtype))


def _relu_grad(op, g):
    return [apply2(_ReluGrad, g, op.outputs[0])]


def _relu_grad_grad(op, gg):
    features = op.inputs[1]
    return [apply2(_ReluGrad, gg, features), zeros_like(features)]


def _relu6_kernel(features):
    return np.minimum(_relu_kernel(features), np.asarray(6, features.dtype))


def _relu6_grad_kernel(gradients, features):
    inside = np.greater(features, 0) & np.less(features, 6)
    return np.multiply(gradients, inside.astype(gradients.dtype))


def _relu6_grad(op, g):
    return [apply2(_Relu6Grad, g, op.inputs[0])]


def _relu6_grad_grad(op, gg):
    features = op.inputs[1]
    return [apply2(_Relu6Grad, gg, features), zeros_like(features)]


def _alpha(alpha, dtype):
    # The op's alpha attr is a float32; the kernel converts it to T.
    return np.asarray(np.float32(alpha), dtype)


def _leaky_relu_kernel(features, alpha=0.2):
    return select_values(features > 0, features, features * _alpha(alpha, features.dtype))


def _leaky_relu_grad_kernel(gradients, features, alpha=0.2):
    return select_values(features > 0, gradients, gradients * _alpha(alpha, gradients.dtype))


def _leaky_relu_grad(op, g):
    return [apply2(_LeakyReluGrad, g, op.inputs[0], {"alpha": op.get_attr("alpha")})]


def _leaky_relu_grad_grad(op, gg):
    features = op.inputs[1]
    return [apply2(_LeakyReluGrad, gg, features, {"alpha": op.get_attr("alpha")}),
            zeros_like(features)]


_Relu = register("Relu", _relu_kernel, U.unary_infer("Relu"), _relu_grad, allowed=REAL)
_ReluGrad = register("ReluGrad", _relu_grad_kernel, _same_shape_infer("ReluGrad"),
                     _relu_grad_grad, allowed=REAL)
_Relu6 = register("Relu6", _relu6_kernel, U.unary_infer("Relu6"), _relu6_grad, allowed=REAL)
_Relu6Grad = register("Relu6Grad", _relu6_grad_kernel, _same_shape_infer("Relu6Grad"),
                      _relu6_grad_grad, allowed=REAL)
_LeakyRelu = register("LeakyRelu", _leaky_relu_kernel, U.unary_infer("LeakyRelu"),
                      _leaky_relu_grad, allowed=FLOATS)
_LeakyReluGrad = register("LeakyReluGrad", _leaky_relu_grad_kernel,
                          _same_shape_infer("LeakyReluGrad"), _leaky_relu_grad_grad,
                          allowed=FLOATS)


@export("nn.relu")
def relu(features, name=None):
    """Rectified linear unit: max(features, 0)."""
    return unary(_Relu, features, name or "Relu")


@export("nn.relu6")
def relu6(features, name=None):
    """Rectified linear 6: min(max(features, 0), 6)."""
    return unary(_Relu6, features, name or "Relu6")


@export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """Leaky ReLU: `features` where positive, else `alpha * features`.

    Integer inputs are computed as float32, as in TensorFlow.
    """
    x = convert_to_tensor(features)
    if x.dtype.is_integer:
        x = cast(x, D.float32)
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    return unary(_LeakyRelu, x, name or "LeakyRelu", {"alpha": float(alpha)})


# --- elu, selu ----------------------------------------------------------------

# TensorFlow's Elu/Selu kernels and their gradients, op by op in the
# tensor's own dtype (half precision rounds after each step as Eigen's does):
# exp(x) - 1 with TensorFlow's exp (not expm1) where x < 0, both sides
# computed everywhere and selected.

def _elu_kernel(features):
    one = np.asarray(1, features.dtype)
    return select_values(features < 0, exp_kernel(features) - one, features)


def _elu_grad_kernel(gradients, outputs):
    one = np.asarray(1, outputs.dtype)
    return select_values(outputs < 0, (outputs + one) * gradients, gradients)


def _elu_grad(op, g):
    return [apply2(_EluGrad, g, op.outputs[0])]


def _elu_grad_grad(op, gg):
    y = op.inputs[1]
    return [apply2(_EluGrad, gg, y),
            where(less(y, zeros_like(y)), multiply(gg, op.inputs[0]), zeros_like(y))]


def _selu_kernel(features):
    dt = features.dtype
    neg = np.asarray(_SELU_SCALE_ALPHA, dt) * (exp_kernel(features) - np.asarray(1, dt))
    return select_values(features < 0, neg, np.asarray(_SELU_SCALE, dt) * features)


def _selu_grad_kernel(gradients, outputs):
    dt = gradients.dtype
    return select_values(outputs < 0, gradients * (outputs + np.asarray(_SELU_SCALE_ALPHA, dt)),
                         gradients * np.asarray(_SELU_SCALE, dt))


def _selu_grad(op, g):
    return [apply2(_SeluGrad, g, op.outputs[0])]


def _selu_grad_grad(op, gg):
    y = op.inputs[1]
    return [apply2(_SeluGrad, gg, y),
            where(less(y, zeros_like(y)), multiply(gg, op.inputs[0]), zeros_like(y))]


_Elu = register("Elu", _elu_kernel, U.unary_infer("Elu"), _elu_grad, allowed=FLOATS)
_EluGrad = register("EluGrad", _elu_grad_kernel, _same_shape_infer("EluGrad"), _elu_grad_grad,
                    allowed=FLOATS)
_Selu = register("Selu", _selu_kernel, U.unary_infer("Selu"), _selu_grad, allowed=FLOATS)
_SeluGrad = register("SeluGrad", _selu_grad_kernel, _same_shape_infer("SeluGrad"),
                     _selu_grad_grad, allowed=FLOATS)


@export("nn.elu")
def elu(features, name=None):
    """Exponential linear unit: features if > 0, else exp(features) - 1."""
    return unary(_Elu, features, name or "Elu")


@export("nn.selu")
def selu(features, name=None):
    """Scaled exponential linear unit: scale * elu with alpha (self-normalizing)."""
    return unary(_Selu, features, name or "Selu")


# --- gelu, silu (composites) --------------------------------------------------

def _require_float(x, what="features"):
    if not x.dtype.is_floating:
        raise ValueError(f"`{what}.dtype` must be a floating point tensor."
                         f"Received:{what}.dtype={x.dtype!r}")


@export("nn.gelu")
def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit: x * P(X <= x) for X ~ N(0, 1).

    `approximate=True` uses the tanh approximation
    0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))); otherwise the exact form
    0.5x * erfc(-x/sqrt(2)).

    Raises:
      ValueError: if `features` is not floating point.
    """
    with _scope(name or "Gelu"):
        x = convert_to_tensor(features, name="features")
        _require_float(x)
        half = convert_to_tensor(0.5, dtype=x.dtype)
        # TensorFlow casts its two Python constants: each becomes a float32
        # first, so in float64 they are float32's roundings (tf.cast).
        if approximate:
            coeff = cast(0.044715, x.dtype)
            inner = add(x, multiply(coeff, pow_(x, convert_to_tensor(3, dtype=x.dtype))))
            t = tanh(multiply(convert_to_tensor(0.7978845608028654, dtype=x.dtype), inner))
            return multiply(multiply(half, x), add(convert_to_tensor(1, dtype=x.dtype), t))
        arg = multiply(negative(x), cast(0.7071067811865476, x.dtype))
        return multiply(multiply(half, x), erfc(arg))


@export("nn.silu", "nn.swish")
def silu(features, beta=1.0):
    """Sigmoid linear unit (swish): features * sigmoid(beta * features)."""
    x = convert_to_tensor(features, name="features")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        msg = (f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
               f"{', '.join(d.name for d in FLOATS + U.COMPLEX)}")
        if _state.graph is None:
            raise errors.InvalidArgumentError(None, None, msg + " [Op:Sigmoid]")
        raise TypeError(msg)
    # As TensorFlow: beta becomes a tensor of its own type (a Python float:
    # float32), then is cast, so a float64 beta of 1.3 is float32's 1.3.
    b = convert_to_tensor(beta, name="beta")
    if b.dtype is not x.dtype:
        b = cast(b, x.dtype)
    # TensorFlow's custom gradient: the forward ops are not recorded, and the
    # gradient recomputes sigmoid(beta * x) and uses its own formula.
    saved, _state.tapes = _state.tapes, []
    try:
        y = multiply(x, sigmoid(multiply(b, x)))
    finally:
        _state.tapes = saved

    def grad(op, dy, *_):
        one = convert_to_tensor(1.0, dtype=x.dtype)
        s = sigmoid(multiply(b, x))
        one_minus_s = subtract(one, s)
        act = multiply(s, add(one, multiply(multiply(b, x), one_minus_s)))
        beta_grad = reduce_sum(multiply(multiply(multiply(dy, square(x)), s), one_minus_s))
        return [None, multiply(dy, act), beta_grad]
    return identity_n([y, x, b], _grad_fn=grad)[0]


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _zeros_as(x):
    return XL.jnp.zeros((), XL.jnp.asarray(x).dtype)


def _lower_leaky(ctx, op, features):
    return XL.jnp.where(features > 0, features, features * _alpha(op.attrs.get("alpha", 0.2),
                                                                  features.dtype))


def _lower_leaky_grad(ctx, op, g, features):
    return XL.jnp.where(features > 0, g, g * _alpha(op.attrs.get("alpha", 0.2), g.dtype))


def _lower_selu(ctx, op, x):
    return XL.jnp.where(x > 0, x * _SELU_SCALE, _SELU_SCALE_ALPHA * XL.jnp.expm1(x)).astype(
        x.dtype)


def _lower_selu_grad(ctx, op, g, out):
    # TensorFlow's XLA kernel selects on out > 0 (its CPU kernel on out < 0):
    # at out = 0 (x = 0, or a tiny x whose exp(x) - 1 rounds to 0 eagerly) the
    # gradient is g * scale_alpha, and NaN for a NaN output.
    return XL.jnp.where(out > 0, g * _SELU_SCALE, g * (out + _SELU_SCALE_ALPHA)).astype(g.dtype)


XL.set_lowerings({
    "Relu": lambda ctx, op, x: XL.jnp.maximum(x, _zeros_as(x)),
    "ReluGrad": lambda ctx, op, g, f: XL.jnp.where(f > 0, g, _zeros_as(g)),
    "Relu6": lambda ctx, op, x: XL.jnp.clip(x, 0, 6).astype(x.dtype),
    "Relu6Grad": lambda ctx, op, g, f: XL.jnp.where((f > 0) & (f < 6), g, _zeros_as(g)),
    "LeakyRelu": _lower_leaky, "LeakyReluGrad": _lower_leaky_grad,
    "Elu": lambda ctx, op, x: XL.jnp.where(x > 0, x, XL.jnp.expm1(x)),
    "EluGrad": lambda ctx, op, g, out: XL.jnp.where(out > 0, g, g * (out + 1)),   # as SeluGrad
    "Selu": _lower_selu, "SeluGrad": _lower_selu_grad})
