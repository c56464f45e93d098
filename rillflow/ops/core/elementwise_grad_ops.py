"""TensorFlow's elementwise gradient ops: `TanhGrad`, `SigmoidGrad`,
`ReciprocalGrad` and its old name `InvGrad`, `SqrtGrad`, `RsqrtGrad` (inputs
`y`, the forward op's output, and `dy`), `SoftplusGrad`, `SoftsignGrad`
(inputs `gradients` and `features`); `Inv`, Reciprocal's old name, is
unary_ops.py's.

rillflow's own gradient functions compute these products directly; the ops
exist for TensorFlow's graphs that hold them (a SavedModel or GraphDef of a
training step) and for `tf.raw_ops`. Each kernel is Eigen's formula in
Eigen's order, float32 checked bit for bit against TensorFlow 2.21 on
100,000 inputs (TanhGrad `dy * (1 - y*y)`, SigmoidGrad `dy * (y * (1 - y))`,
ReciprocalGrad `-dy * (y*y)`, SoftplusGrad `g / (1 + exp(-f))` with
TensorFlow's exp, SoftsignGrad `g / ((1 + |f|) * (1 + |f|))`, RsqrtGrad
`(-0.5 * (y*y)) * (y * dy)`, 0 where dy is 0), except SqrtGrad
`0.5 * dy / y`, whose float32 results are within a few ulps of
TensorFlow's (its order there is not reproduced).
"""
import numpy as np

from ...framework import lowering as XL
from ...framework.execute import apply2
from ...framework.op_registry import register
from .. import late
from ..kernels.jit_kernels import exp_kernel
from .op_util import FLOAT_COMPLEX, FLOATS, same_shape_infer

__all__ = []


def _one(x):
    return np.ones((), x.dtype)


def _tanh_grad(y, dy):
    return dy * (_one(y) - y * np.conj(y))


def _sigmoid_grad(y, dy):
    return dy * (y * (_one(y) - y))


def _reciprocal_grad(y, dy):
    return -dy * (y * np.conj(y))


def _sqrt_grad(y, dy):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.asarray(0.5, y.dtype) * dy) / np.conj(y)


def _rsqrt_grad(y, dy):
    # Eigen's packets: mul_no_nan(-0.5 * (y*y), mul_no_nan(y, dy)), +0 where
    # dy or y * dy is 0 (at x = inf, y = 0). The elements after the last full
    # 32-byte packet take its scalar form, 0 where dy is 0, else
    # (-0.5 * (dy*y)) * (y*y): the same values but -0 where y is 0 (and the
    # rounding of subnormal products). Forming y**3 first overflowed
    # (x = 1e-30, dy = 1e-20: -inf where TensorFlow gives -5e24).
    y = np.conj(y)
    half = np.asarray(-0.5, y.dtype)
    zero = np.zeros((), y.dtype)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        b = y * dy
        d = np.where((dy == 0) | (b == 0), zero, (half * (y * y)) * b)
        tail = d.size % max(1, 32 // y.dtype.itemsize)
        if tail:
            yt, dt = y.reshape(-1)[-tail:], dy.reshape(-1)[-tail:]
            d.reshape(-1)[-tail:] = np.where(dt == 0, zero, (half * (dt * yt)) * (yt * yt))
    return d


def _rsqrt_grad_grad(op, g):
    # TensorFlow's _RsqrtGradGrad: d/dy of -0.5 dy y^3 is -1.5 dy y^2, and
    # d/d(dy) is RsqrtGrad itself.
    y, dy = op.inputs
    cy = late.conj(y)
    return [-1.5 * late.conj(g) * dy * late.square(cy), apply2(RSQRT_GRAD, cy, g)]


def _softplus_grad(gradients, features):
    with np.errstate(over="ignore"):
        return gradients / (_one(features) + exp_kernel(-features))


def _softsign_grad(gradients, features):
    d = _one(features) + np.abs(features)
    return gradients / (d * d)


for _name, _kernel in (("TanhGrad", _tanh_grad), ("SigmoidGrad", _sigmoid_grad),
                       ("ReciprocalGrad", _reciprocal_grad), ("InvGrad", _reciprocal_grad),
                       ("SqrtGrad", _sqrt_grad)):
    register(_name, _kernel, same_shape_infer(_name, "y", "dy"), None, allowed=FLOAT_COMPLEX)
# Rsqrt's gradient is this op, as in TensorFlow's graphs (unary_ops.py).
RSQRT_GRAD = register("RsqrtGrad", _rsqrt_grad, same_shape_infer("RsqrtGrad", "y", "dy"),
                      _rsqrt_grad_grad, allowed=FLOAT_COMPLEX)


def _lower_rsqrt_grad(ctx, op, y, dy):
    # TensorFlow's XLA kernel is y**3 * (dy / -2), without the CPU kernel's
    # mul_no_nan: NaN at x = 0 for a zero dy, -inf where y**3 overflows.
    jnp = XL.jnp
    return XL.lax.integer_pow(jnp.conj(y), 3) * (dy / jnp.asarray(-2, dy.dtype))


XL.set_lowerings({"RsqrtGrad": _lower_rsqrt_grad})
for _name, _kernel in (("SoftplusGrad", _softplus_grad), ("SoftsignGrad", _softsign_grad)):
    register(_name, _kernel, same_shape_infer(_name), None, allowed=FLOATS)
