"""The regularized incomplete gamma and beta functions of `tf.math`: `igamma`
(Igamma, P(a, x)), `igammac` (Igammac, Q(a, x) = 1 - P) and `betainc`
(Betainc, I_x(a, b)), with TensorFlow's gradients (math_grad.py): igamma and
igammac in both arguments (IgammaGradA for a), betainc in x only.

The values are TensorFlow's bits: Eigen's Cephes code in the tensor's type
(ops/kernels/igamma.py, betainc.py), IgammaGradA by forward differentiation
of the same series and continued fraction, as Eigen's igamma_der_a.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from . import op_util as U
from .math_ops import _sum_to
from .op_util import binary
from .special_composites import xlog1py
from .special_math_ops import _binary_infer, lgamma, xlogy
from .unary_ops import _OPS, _not_found, _register, exp, log
from ...framework.tensor import EagerTensor, Tensor
from ..kernels import igamma as _eigen_igamma
from ..kernels.betainc import betainc as _eigen_betainc

_HALF_F32_F64 = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64)
                      if d is not None)


def _cast_kernel(fn, op_name=None):
    def kernel(*xs):
        dt = xs[0].dtype
        if op_name is not None and dt not in _F32_F64:
            # Half and bfloat16 are in the op's list but have no CPU kernel.
            raise _not_found(op_name, xs[0])
        return np.asarray(fn(*xs)).astype(dt)
    return kernel


_F32_F64 = (np.dtype(np.float32), np.dtype(np.float64))


def _igamma_partials(a, x):
    # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a), in log space as TensorFlow.
    partial_a = apply(_IgammaGradA, [a, x], {}, name="IgammaGradA")
    partial_x = exp(-x + (a - 1) * log(x) - lgamma(a))
    return partial_a, partial_x


def _igamma_grad(op, g):
    a, x = op.inputs
    pa, px = _igamma_partials(a, x)
    return [_sum_to(pa * g, a), _sum_to(px * g, x)]


def _igammac_grad(op, g):
    a, x = op.inputs
    pa, px = _igamma_partials(a, x)
    return [_sum_to(-pa * g, a), _sum_to(-px * g, x)]


# float32/float64: TensorFlow's own algorithm and bits (kernels/igamma.py).
_Igamma = _register("Igamma", _cast_kernel(_eigen_igamma.igamma, "Igamma"),
                    _binary_infer("Igamma", "a", "x"), _igamma_grad, _HALF_F32_F64)
_Igammac = _register("Igammac", _cast_kernel(_eigen_igamma.igammac, "Igammac"),
                     _binary_infer("Igammac", "a", "x"), _igammac_grad, _HALF_F32_F64)
_IgammaGradA = _register("IgammaGradA", _cast_kernel(_eigen_igamma.igamma_der_a),
                         _binary_infer("IgammaGradA", "a", "x"), None,
                         (D.float32, D.float64))


def _betainc_infer(inputs, attrs):
    a, b, x = inputs
    for t, n in ((b, "b"), (x, "x")):
        if t.dtype is not a.dtype:
            raise TypeError(f"Input '{n}' of 'Betainc' Op has type {t.dtype.name} that does "
                            f"not match type {a.dtype.name} of argument 'a'.")
    U.check_allowed(_Betainc, a, "a")
    out = TensorShape(None)
    for t in (a, b, x):
        if t.shape.rank != 0:
            if out.rank is not None and t.shape.rank is not None and \
                    not out.is_compatible_with(t.shape):
                raise ValueError(f"Shapes must be equal rank, but are {out} and {t.shape}")
            out = t.shape if out.rank is None else out.merge_with(t.shape)
    if out.rank is None and all(t.shape.rank == 0 for t in (a, b, x)):
        out = TensorShape([])
    return [(out, a.dtype)]


def _betainc_kernel(a, b, x):
    from ...framework import errors
    shaped = [(n, t) for n, t in (("a", a), ("b", b), ("x", x)) if t.ndim]
    for (n1, t1), (n2, t2) in zip(shaped, shaped[1:]):
        if t1.shape != t2.shape:
            raise errors.InvalidArgumentError(
                None, None, f"Shapes of {n1} and {n2} are inconsistent: "
                f"[{','.join(map(str, t1.shape))}] vs. [{','.join(map(str, t2.shape))}]")
    # TensorFlow's own algorithm and bits (kernels/betainc.py; float32 and
    # float64 are the op's only types).
    out = _eigen_betainc(a, b, x)
    return out if out.ndim or isinstance(a, np.ndarray) else out[()]


def _betainc_grad(op, g):
    # TensorFlow defines only the gradient in x: x^(a-1) (1-x)^(b-1) / B(a, b).
    a, b, x = op.inputs
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = exp(xlog1py(b - 1, -x) + xlogy(a - 1, x) - log_beta)
    return [None, None, _sum_to(partial_x * g, x)]


_Betainc = register("Betainc", _betainc_kernel, _betainc_infer, _betainc_grad,
                    allowed=(D.float32, D.float64))
_OPS["Betainc"] = _Betainc


@export("math.igamma", "compat.v1.igamma", "compat.v1.math.igamma")
def igamma(a, x, name=None):
    """The lower regularized incomplete gamma function P(a, x) elementwise
    (broadcasting): integral_0^x t^(a-1) e^-t dt / Gamma(a)."""
    return binary(_Igamma, a, x, name or "Igamma")


@export("math.igammac", "compat.v1.igammac", "compat.v1.math.igammac")
def igammac(a, x, name=None):
    """The upper regularized incomplete gamma function Q(a, x) = 1 - P(a, x)
    elementwise (broadcasting)."""
    return binary(_Igammac, a, x, name or "Igammac")


@export("math.betainc", "compat.v1.betainc", "compat.v1.math.betainc")
def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) elementwise.

    a, b and x have one shape, or are scalars (broadcast to it); other shapes
    raise InvalidArgumentError, as in TensorFlow.
    """
    # As TensorFlow's wrapper: b and x convert to a's dtype (0.5 with an
    # integer a is a TypeError); the dtypes are then checked.
    a = convert_to_tensor(a, name="a")
    b = b if isinstance(b, Tensor) else convert_to_tensor(b, dtype=a.dtype, name="b")
    x = x if isinstance(x, Tensor) else convert_to_tensor(x, dtype=a.dtype, name="x")
    if isinstance(a, EagerTensor):
        for t, n in ((b, "b"), (x, "x")):
            if t.dtype is not a.dtype:
                raise U._mismatch(_Betainc, a, t)
        if a._v.dtype not in _Betainc.allowed_np:
            raise U._eager_disallowed(_Betainc, a)
    return apply(_Betainc, [a, b, x], {}, name=name or "Betainc")


__all__ = ["igamma", "igammac", "betainc"]


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_igamma(ctx, op, a, x):
    # jax's gammainc, with Eigen's edge cases as the NumPy kernel sets them.
    jnp = XL.jnp
    a, x = XL.broadcast(a, x)
    out = XL.jax.scipy.special.gammainc(a, x)
    out = jnp.where((a <= 0) | (x < 0), jnp.nan, out)
    return jnp.where((x == 0) & ~jnp.isnan(a), 0, out).astype(op.outputs[0].dtype._np)


def _lower_igammac(ctx, op, a, x):
    jnp = XL.jnp
    a, x = XL.broadcast(a, x)
    out = XL.jax.scipy.special.gammaincc(a, x)
    out = jnp.where((x == 0) & (a > 0), 1, out)
    return jnp.where((a <= 0) | (x < 0), jnp.nan, out).astype(op.outputs[0].dtype._np)


def _lower_betainc(ctx, op, a, b, x):
    jnp = XL.jnp
    a, b, x = XL.broadcast(a, b, x)
    out = XL.jax.scipy.special.betainc(a, b, x)
    bad = (a <= 0) | (b <= 0) | (x < 0) | (x > 1)
    return jnp.where(bad, jnp.nan, out).astype(op.outputs[0].dtype._np)


XL.set_lowerings({"Igamma": _lower_igamma, "Igammac": _lower_igammac,
                  "Betainc": _lower_betainc})
