"""Neural-network ops (`tf.nn`): activations, softmax, cross entropies,
bias_add, l2_loss, moments, batch normalization, dropout, embedding lookup.

The ops TensorFlow implements as kernels (Relu, Softmax, BiasAdd, the
softmax cross entropies, ...) are registry entries here, with TensorFlow's
gradient kernels (ReluGrad, EluGrad, BiasAddGrad, ...) as entries of their
own so that second derivatives work. The functions TensorFlow composes from
other ops (gelu, silu, sigmoid cross entropy, moments, dropout, ...) are
composed the same way here, from the public ops of the other op modules,
imported lazily because those modules may import this one.
"""
import contextlib
import math

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1, apply2
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core.op_util import FLOATS, NUMERIC, REAL, unary

_state = _context.state
_NULL_SCOPE = contextlib.nullcontext()

# SELU's constants (Klambauer et al., 2017), as TensorFlow's kernel uses them.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _scope(name):
    """A graph name scope for the ops of a composite function (nothing eagerly)."""
    g = _state.graph
    return _NULL_SCOPE if g is None else g.name_scope(name)


def _check_eager_dtype(opdef, t):
    """Eagerly, the InvalidArgumentError TensorFlow raises for a disallowed dtype.

    (While building a graph the op's shape function raises TypeError.)
    """
    if _state.graph is None and opdef.allowed_np is not None and \
            t._v.dtype not in opdef.allowed_np:
        raise U._eager_disallowed(opdef, t)


def _compute_dtype(x):
    """Transcendental kernels compute in float64 and round once, which gives
    the correctly rounded float32 results TensorFlow prints most often."""
    return np.float64


def _is_zero(t):
    """Whether `t` is known now to be all zeros (a gradient that can be skipped)."""
    if t is None:
        return True
    if isinstance(t, EagerTensor):
        return not np.any(t._v)
    if isinstance(t, SymbolicTensor):
        if t.op.type == "ZerosLike":
            return True
        v = t._const
        return v is not None and not np.any(v)
    return False


def _same_shape_infer(op_name):
    """Shape function of an elementwise op of two same-shape inputs (gradient kernels)."""
    def infer(inputs, attrs):
        a, b = inputs
        if a.dtype is not b.dtype:
            raise TypeError(f"Input 'features' of '{op_name}' Op has type {b.dtype.name} that "
                            f"does not match type {a.dtype.name} of argument 'gradients'.")
        try:
            shape = a.shape.merge_with(b.shape)
        except ValueError as e:
            raise ValueError(str(e)) from None
        return [(shape, a.dtype)]
    return infer


def _zero(x):
    return np.zeros((), x.dtype)


# --- relu, relu6, leaky_relu ------------------------------------------------

def _relu_kernel(features):
    return np.maximum(features, _zero(features))


def _relu_grad_kernel(gradients, features):
    return np.where(features > 0, gradients, _zero(gradients))


def _relu_grad(op, g):
    return [apply2(_ReluGrad, g, op.outputs[0])]


def _relu_grad_grad(op, gg):
    from ..core.array_ops import zeros_like
    features = op.inputs[1]
    return [apply2(_ReluGrad, gg, features), zeros_like(features)]


def _relu6_kernel(features):
    return np.minimum(np.maximum(features, _zero(features)), np.asarray(6, features.dtype))


def _relu6_grad_kernel(gradients, features):
    return np.where((features > 0) & (features < 6), gradients, _zero(gradients))


def _relu6_grad(op, g):
    return [apply2(_Relu6Grad, g, op.inputs[0])]


def _relu6_grad_grad(op, gg):
    from ..core.array_ops import zeros_like
    features = op.inputs[1]
    return [apply2(_Relu6Grad, gg, features), zeros_like(features)]


def _leaky_relu_kernel(features, alpha=0.2):
    return np.where(features > 0, features,
                    features * np.asarray(alpha, features.dtype)).astype(features.dtype)


def _leaky_relu_grad_kernel(gradients, features, alpha=0.2):
    return np.where(features > 0, gradients,
                    gradients * np.asarray(alpha, gradients.dtype)).astype(gradients.dtype)


def _leaky_relu_grad(op, g):
    return [apply2(_LeakyReluGrad, g, op.inputs[0], {"alpha": op.get_attr("alpha")})]


def _leaky_relu_grad_grad(op, gg):
    from ..core.array_ops import zeros_like
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
        from ..core.math_ops import cast
        x = cast(x, D.float32)
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    return unary(_LeakyRelu, x, name or "LeakyRelu", {"alpha": float(alpha)})


# --- elu, selu ----------------------------------------------------------------

def _elu_kernel(features):
    x = features.astype(_compute_dtype(features), copy=False)
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0))).astype(features.dtype)


def _elu_grad_kernel(gradients, outputs):
    return np.where(outputs < 0, gradients * (outputs + np.asarray(1, outputs.dtype)),
                    gradients).astype(gradients.dtype)


def _elu_grad(op, g):
    return [apply2(_EluGrad, g, op.outputs[0])]


def _elu_grad_grad(op, gg):
    from ..core.array_ops import where, zeros_like
    from ..core.math_ops import less, multiply
    y = op.inputs[1]
    return [apply2(_EluGrad, gg, y),
            where(less(y, zeros_like(y)), multiply(gg, op.inputs[0]), zeros_like(y))]


def _selu_kernel(features):
    x = features.astype(_compute_dtype(features), copy=False)
    neg = _SELU_SCALE * _SELU_ALPHA * np.expm1(np.minimum(x, 0))
    return np.where(x > 0, _SELU_SCALE * x, neg).astype(features.dtype)


def _selu_grad_kernel(gradients, outputs):
    g = gradients.astype(_compute_dtype(gradients), copy=False)
    y = outputs.astype(g.dtype, copy=False)
    return np.where(y > 0, g * _SELU_SCALE,
                    g * (y + _SELU_SCALE * _SELU_ALPHA)).astype(gradients.dtype)


def _selu_grad(op, g):
    return [apply2(_SeluGrad, g, op.outputs[0])]


def _selu_grad_grad(op, gg):
    from ..core.array_ops import where, zeros_like
    from ..core.math_ops import less, multiply
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
    from ..core.math_ops import add, multiply, pow as pow_
    from ..core.special_math_ops import erfc
    from ..core.unary_ops import tanh
    with _scope(name or "Gelu"):
        x = convert_to_tensor(features, name="features")
        _require_float(x)
        half = convert_to_tensor(0.5, dtype=x.dtype)
        if approximate:
            coeff = convert_to_tensor(0.044715, dtype=x.dtype)
            inner = add(x, multiply(coeff, pow_(x, convert_to_tensor(3, dtype=x.dtype))))
            t = tanh(multiply(convert_to_tensor(0.7978845608028654, dtype=x.dtype), inner))
            return multiply(multiply(half, x), add(convert_to_tensor(1, dtype=x.dtype), t))
        from ..core.math_ops import negative
        arg = multiply(negative(x), convert_to_tensor(0.7071067811865476, dtype=x.dtype))
        return multiply(multiply(half, x), erfc(arg))


@export("nn.silu", "nn.swish")
def silu(features, beta=1.0):
    """Sigmoid linear unit (swish): features * sigmoid(beta * features)."""
    from ..core.math_ops import multiply
    from ..core.unary_ops import sigmoid
    x = convert_to_tensor(features, name="features")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        msg = (f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: "
               f"{', '.join(d.name for d in FLOATS + U.COMPLEX)}")
        if _state.graph is None:
            raise errors.InvalidArgumentError(None, None, msg + " [Op:Sigmoid]")
        raise TypeError(msg)
    b = beta if isinstance(beta, Tensor) else convert_to_tensor(beta, dtype=x.dtype, name="beta")
    return multiply(x, sigmoid(multiply(b, x)))


# --- softmax, log_softmax -----------------------------------------------------

def _check_logits_rank(logits):
    if logits.ndim == 0:
        raise errors.InvalidArgumentError(None, None,
                                          "logits must have >= 1 dimension, got []")


def _shifted(logits):
    """float64 logits minus their row maxima (a new array, safe to modify)."""
    x = logits.astype(np.float64)
    x -= x.max(axis=-1, keepdims=True)
    return x


def _softmax_kernel(logits):
    _check_logits_rank(logits)
    if logits.size == 0:
        return logits.copy()
    e = _shifted(logits)
    np.exp(e, out=e)
    e /= e.sum(axis=-1, keepdims=True)
    return e.astype(logits.dtype, copy=False)


def _log_softmax_kernel(logits):
    _check_logits_rank(logits)
    if logits.size == 0:
        return logits.copy()
    x = _shifted(logits)
    x -= np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return x.astype(logits.dtype, copy=False)


def _softmax_infer(op_name):
    def infer(inputs, attrs):
        from ...framework.op_registry import get
        x = inputs[0]
        U.check_allowed(get(op_name), x, "logits")
        if x.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        return [(x.shape, x.dtype)]
    return infer


def _softmax_grad(op, g):
    from ..core.math_ops import multiply, subtract
    from ..core.reduction_ops import reduce_sum
    y = op.outputs[0]
    return [multiply(subtract(g, reduce_sum(multiply(g, y), -1, keepdims=True)), y)]


def _log_softmax_grad(op, g):
    from ..core.math_ops import multiply, subtract
    from ..core.reduction_ops import reduce_sum
    sm = apply1(_Softmax, op.inputs[0])
    return [subtract(g, multiply(reduce_sum(g, -1, keepdims=True), sm))]


_Softmax = register("Softmax", _softmax_kernel, _softmax_infer("Softmax"), _softmax_grad,
                    allowed=FLOATS)
_LogSoftmax = register("LogSoftmax", _log_softmax_kernel, _softmax_infer("LogSoftmax"),
                       _log_softmax_grad, allowed=FLOATS)


def _static_axis(x, axis):
    """`axis` as a non-negative int for `x` (None when it is the last axis).

    Raises:
      InvalidArgumentError: if `axis` is out of range (TensorFlow raises this
        class even while building a graph).
    """
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        v = U.constant_value(axis)
        if v is None:
            raise ValueError("softmax needs an axis known while building the graph")
        axis = int(v)
    axis = int(axis)
    if axis == -1:
        return None
    r = x.shape.rank
    if r is None:
        raise TypeError("unsupported operand type(s) for -: 'NoneType' and 'int'")
    if not -r <= axis < r:
        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-r}, {r}) where {r} is the number of "
            f"dimensions in the input. Received: dim={axis}")
    axis %= r
    return None if axis == r - 1 else axis


def _swap_perm(rank, axis):
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return perm


def _softmax_along(opdef, logits, axis, name):
    x = convert_to_tensor(logits, name="logits")
    _check_eager_dtype(opdef, x)
    a = _static_axis(x, axis)
    if a is None:
        return apply1(opdef, x, name=name)
    from ..core.array_ops import transpose
    perm = _swap_perm(x.shape.rank, a)
    y = apply1(opdef, transpose(x, perm))
    return transpose(y, perm, name=name)


@export("nn.softmax", "math.softmax")
def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits), axis), computed stably (last axis by default).

    Raises:
      InvalidArgumentError: for a scalar, a non-float dtype (eagerly) or an
        axis out of range.
    """
    return _softmax_along(_Softmax, logits, axis, name or "Softmax")


@export("nn.log_softmax", "math.log_softmax")
def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits), axis)), computed stably (last axis by default)."""
    return _softmax_along(_LogSoftmax, logits, axis, name or "LogSoftmax")


# --- softmax cross entropies --------------------------------------------------

def _softmax_xent_kernel(features, labels):
    if features.shape != labels.shape:
        try:
            features, labels = np.broadcast_arrays(features, labels)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"logits and labels must be broadcastable: logits_size="
                f"{dims_text(features.shape)} labels_size={dims_text(labels.shape)}") from None
    dtype = features.dtype
    if features.size == 0:
        return np.zeros(features.shape[:-1], dtype), np.zeros(features.shape, dtype)
    x = _shifted(features)
    e = np.exp(x)
    total = e.sum(axis=-1, keepdims=True)
    lab = labels.astype(np.float64, copy=False)
    with np.errstate(invalid="ignore"):
        loss = (lab * (np.log(total) - x)).sum(axis=-1)
    e /= total
    e -= lab
    return loss.astype(dtype, copy=False), e.astype(dtype, copy=False)


def _softmax_xent_infer(inputs, attrs):
    f, lab = inputs
    U.check_allowed(_SoftmaxXent, f, "features")
    if lab.dtype is not f.dtype:
        raise TypeError(f"Input 'labels' of 'SoftmaxCrossEntropyWithLogits' Op has type "
                        f"{lab.dtype.name} that does not match type {f.dtype.name} of argument "
                        "'features'.")
    try:
        shape = U.broadcast_shapes(f.shape, lab.shape)
    except ValueError:
        raise ValueError(f"logits and labels must be broadcastable: logits_size={f.shape} "
                         f"labels_size={lab.shape}") from None
    if shape.rank is None:
        return [(TensorShape(None), f.dtype), (TensorShape(None), f.dtype)]
    if shape.rank == 0:
        raise ValueError("logits and labels must have rank >= 1")
    return [(TensorShape(shape.as_list()[:-1]), f.dtype), (shape, f.dtype)]


def _second_order_term(logits, grad_grad):
    """The logits gradient flowing through the `backprop` output (softmax - labels)."""
    from ..core.math_ops import multiply, subtract
    from ..core.reduction_ops import reduce_sum
    sm = apply1(_Softmax, logits)
    return multiply(subtract(grad_grad, reduce_sum(multiply(grad_grad, sm), -1, keepdims=True)),
                    sm)


def _softmax_xent_grad(op, grad_loss, grad_grad):
    from ..core.array_ops import expand_dims
    from ..core.math_ops import _sum_to, add, multiply, negative
    logits, labels = op.inputs
    gl = expand_dims(grad_loss, -1)
    grad = multiply(gl, op.outputs[1])
    grad_labels = multiply(gl, negative(apply1(_LogSoftmax, logits)))
    if not _is_zero(grad_grad):
        grad = add(grad, _second_order_term(logits, grad_grad))
        grad_labels = add(grad_labels, negative(grad_grad))
    return [_sum_to(grad, logits), _sum_to(grad_labels, labels)]


_SoftmaxXent = register("SoftmaxCrossEntropyWithLogits", _softmax_xent_kernel,
                        _softmax_xent_infer, _softmax_xent_grad, allowed=FLOATS)


def _sparse_xent_kernel(features, labels):
    if features.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "logits must have rank >= 1, got []")
    if labels.shape != features.shape[:-1]:
        raise errors.InvalidArgumentError(
            None, None, f"logits and labels must have the same first dimension, got logits "
            f"shape {dims_text(features.shape)} and labels shape {dims_text(labels.shape)}")
    n = features.shape[-1]
    idx = labels.reshape(-1)
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        shown = " ".join(str(v) for v in idx[:10])
        raise errors.InvalidArgumentError(
            None, None, f"Received a label value of {idx[bad][0]} which is outside the valid "
            f"range of [0, {n}).  Label values: {shown}")
    dtype = features.dtype
    x = _shifted(features.reshape(idx.size, n)) if n else np.zeros((idx.size, 0))
    rows = np.arange(idx.size)
    e = np.exp(x)
    total = e.sum(axis=-1, keepdims=True)
    loss = np.log(total[:, 0]) - x[rows, idx]
    e /= total
    e[rows, idx] -= 1
    return (loss.reshape(labels.shape).astype(dtype, copy=False),
            e.reshape(features.shape).astype(dtype, copy=False))


def _labels_logits_shape_error(labels, logits):
    return ValueError(f"`labels.shape` must equal `logits.shape` except for the last "
                      f"dimension. Received: labels.shape={labels.shape} and "
                      f"logits.shape={logits.shape}")


def _sparse_xent_infer(inputs, attrs):
    f, lab = inputs
    U.check_allowed(_SparseXent, f, "features")
    U.check_graph_dtype(lab, U.INDEX, "labels")
    fs, ls = f.shape, lab.shape
    if fs.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if fs.rank is None:
        return [(ls, f.dtype), (TensorShape(None), f.dtype)]
    batch = TensorShape(fs.as_list()[:-1])
    if not batch.is_compatible_with(ls):
        raise _labels_logits_shape_error(lab, f)
    batch = batch.merge_with(ls)
    return [(batch, f.dtype), (batch.concatenate(TensorShape(fs.as_list()[-1:])), f.dtype)]


def _sparse_xent_grad(op, grad_loss, grad_grad):
    from ..core.array_ops import expand_dims
    from ..core.math_ops import add, multiply
    logits = op.inputs[0]
    grad = multiply(expand_dims(grad_loss, -1), op.outputs[1])
    if not _is_zero(grad_grad):
        grad = add(grad, _second_order_term(logits, grad_grad))
    return [grad, None]


_SparseXent = register("SparseSoftmaxCrossEntropyWithLogits", _sparse_xent_kernel,
                       _sparse_xent_infer, _sparse_xent_grad, allowed=FLOATS)


@export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Cross entropy between `labels` (a probability distribution along
    `axis`) and softmax(`logits`); gradients flow to both.

    Returns the loss, of the shape of `logits` without `axis`.

    Raises:
      InvalidArgumentError: if the shapes are not broadcastable, or (eagerly)
        for a non-float dtype.
    """
    with _scope(name or "softmax_cross_entropy_with_logits"):
        x = convert_to_tensor(logits, name="logits")
        lab = convert_to_tensor(labels, name="labels")
        _check_eager_dtype(_SoftmaxXent, x)
        if lab.dtype is not x.dtype:
            from ..core.math_ops import cast
            lab = cast(lab, x.dtype)
        a = _static_axis(x, axis)
        if a is not None:
            from ..core.array_ops import transpose
            perm = _swap_perm(x.shape.rank, a)
            x = transpose(x, perm)
            lab = transpose(lab, perm)
        loss = apply(_SoftmaxXent, [x, lab], name="softmax_cross_entropy_with_logits",
                     multi=True)[0]
        xs, ls = x.shape, lab.shape
        if xs.is_fully_defined() and ls.is_fully_defined() and xs != ls:
            # The loss has the batch shape of `logits` even when `labels`
            # broadcast against it (TensorFlow reshapes to it).
            from ..core.array_ops import reshape
            loss = reshape(loss, xs.as_list()[:-1])
        return loss


@export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Cross entropy between integer class `labels` and softmax(`logits`)
    over the last axis of `logits`; `labels` has the shape of `logits`
    without its last dimension and gets no gradient.

    Raises:
      ValueError: for a scalar `logits` or mismatched shapes.
      InvalidArgumentError: (eagerly) for a label outside [0, num_classes)
        or disallowed dtypes.
    """
    with _scope(name or "SparseSoftmaxCrossEntropyWithLogits"):
        lab = labels if labels.__class__ is EagerTensor else \
            convert_to_tensor(labels, name="labels")
        x = logits if logits.__class__ is EagerTensor else \
            convert_to_tensor(logits, name="logits")
        if _state.graph is None:
            xs, ls = x._v.shape, lab._v.shape
            if not xs:
                raise ValueError(f"`logits` cannot be a scalar. Received logits={x}`")
            if len(ls) != len(xs) - 1:
                raise _rank_mismatch(lab, x)
            if ls != xs[:-1]:
                raise _labels_logits_shape_error(lab, x)
            _check_eager_dtype(_SparseXent, x)
            if lab._v.dtype != np.int32 and lab._v.dtype != np.int64:
                raise errors.InvalidArgumentError(
                    None, None, f"Value for attr 'Tlabels' of {U.tf_type_name(lab.dtype)} is not "
                    "in the list of allowed values: int32, int64 "
                    "[Op:SparseSoftmaxCrossEntropyWithLogits]")
        else:
            if x.shape.rank == 0:
                raise ValueError(f"`logits` cannot be a scalar. Received logits={x}`")
            if lab.shape.rank is not None and x.shape.rank is not None:
                if lab.shape.rank != x.shape.rank - 1:
                    raise _rank_mismatch(lab, x)
                if not TensorShape(x.shape.as_list()[:-1]).is_compatible_with(lab.shape):
                    raise _labels_logits_shape_error(lab, x)
        return apply(_SparseXent, [x, lab], name="SparseSoftmaxCrossEntropyWithLogits",
                     multi=True)[0]


def _rank_mismatch(labels, logits):
    ls, xs = labels.shape, logits.shape
    return ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                      f"labels.shape={ls} of rank {ls.rank} and logits.shape={xs} of rank "
                      f"{xs.rank}")


# --- sigmoid cross entropies (composites) -----------------------------------

def _same_shape(a, a_name, b, b_name):
    """Converts the two inputs of an elementwise loss, whose shapes must agree."""
    a = convert_to_tensor(a, name=a_name)
    b = convert_to_tensor(b, name=b_name)
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"`{a_name}` and `{b_name}` must have the same shape, received "
                         f"({a.shape} vs {b.shape}).")
    return a, b


@export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss of `logits` against `labels` in [0, 1],
    computed stably as max(x, 0) - x * z + log(1 + exp(-|x|)).

    Raises:
      ValueError: if either argument is missing or their shapes differ.
    """
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided for "
                         f"sigmoid_cross_entropy_with_logitsReceived: labels={labels} and "
                         f"logits={logits}")
    from ..core.array_ops import where, zeros_like
    from ..core.math_ops import add, greater_equal, multiply, negative, subtract
    from ..core.unary_ops import exp, log1p
    with _scope(name or "logistic_loss"):
        x, z = _same_shape(logits, "logits", labels, "labels")
        zeros = zeros_like(x)
        cond = greater_equal(x, zeros)
        relu_logits = where(cond, x, zeros)
        neg_abs_logits = where(cond, negative(x), x)
        return add(subtract(relu_logits, multiply(x, z)), log1p(exp(neg_abs_logits)))


@export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross entropy with the positive term weighted by `pos_weight`:
    (1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0)).

    Raises:
      ValueError: if the shapes of `labels` and `logits` differ.
    """
    from ..core.math_ops import add, multiply, negative, subtract
    from ..core.unary_ops import abs as abs_, exp, log1p
    with _scope(name or "logistic_loss"):
        x, z = _same_shape(logits, "logits", labels, "labels")
        one = convert_to_tensor(1, dtype=x.dtype)
        q = convert_to_tensor(pos_weight, dtype=x.dtype) \
            if not isinstance(pos_weight, Tensor) else pos_weight
        log_weight = add(one, multiply(subtract(q, one), z))
        softplus_neg = add(log1p(exp(negative(abs_(x)))), relu(negative(x)))
        return add(multiply(subtract(one, z), x), multiply(log_weight, softplus_neg))


@export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """Poisson negative log likelihood given log(rate): exp(c) - z * c, plus
    Stirling's approximation of log(z!) (for z > 1) when `compute_full_loss`.

    Raises:
      ValueError: if the shapes of `log_input` and `targets` differ.
    """
    from ..core.math_ops import add, greater, multiply, subtract
    from ..core.unary_ops import exp, log
    with _scope(name or "log_poisson_loss"):
        c, z = _same_shape(log_input, "log_input", targets, "targets")
        result = subtract(exp(c), multiply(c, z))
        if compute_full_loss:
            from ..core.array_ops import ones_like, where, zeros_like
            half = convert_to_tensor(0.5, dtype=z.dtype)
            two_pi = convert_to_tensor(2 * math.pi, dtype=z.dtype)
            # Only z > 1 contributes, so log never sees the zeros of z.
            big = greater(z, ones_like(z))
            safe_z = where(big, z, ones_like(z))
            stirling = add(subtract(multiply(safe_z, log(safe_z)), safe_z),
                           multiply(half, log(multiply(two_pi, safe_z))))
            result = add(result, where(big, stirling, zeros_like(z)))
        return result


# --- bias_add ------------------------------------------------------------------

def _channel_axis(data_format, ndim):
    return 1 if data_format == "NCHW" and ndim > 1 else -1


def _bias_add_kernel(value, bias, data_format="NHWC"):
    if value.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {dims_text(value.shape)}")
    if bias.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Biases must be 1D: {dims_text(bias.shape)}")
    axis = _channel_axis(data_format, value.ndim)
    if bias.shape[0] != value.shape[axis]:
        where = "last" if axis == -1 else "channel"
        raise errors.InvalidArgumentError(
            None, None, f"Must provide as many biases as the {where} dimension of the input "
            f"tensor: {dims_text(bias.shape)} vs. {dims_text(value.shape)}")
    if axis == 1:
        bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
    return value + bias


def _bias_add_infer(inputs, attrs):
    v, b = inputs
    U.check_allowed(_BiasAdd, v, "value")
    if b.dtype is not v.dtype:
        raise TypeError(f"Input 'bias' of 'BiasAdd' Op has type {b.dtype.name} that does not "
                        f"match type {v.dtype.name} of argument 'value'.")
    if b.shape.rank is not None and b.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {b.shape.rank}")
    vs = v.shape
    if vs.rank is None:
        return [(vs, v.dtype)]
    if vs.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {vs.rank}")
    axis = _channel_axis(attrs.get("data_format", "NHWC"), vs.rank) % vs.rank
    dims = vs.as_list()
    c = b.shape[0] if b.shape.rank == 1 else None
    if dims[axis] is not None and c is not None and dims[axis] != c:
        raise ValueError(f"Dimensions must be equal, but are {dims[axis]} and {c}")
    if dims[axis] is None:
        dims[axis] = c
    return [(TensorShape(dims), v.dtype)]


def _bias_add_grad(op, g):
    return [g, apply1(_BiasAddGrad, g, {"data_format": op.get_attr("data_format")})]


def _bias_add_grad_kernel(out_backprop, data_format="NHWC"):
    if out_backprop.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {dims_text(out_backprop.shape)}")
    axis = _channel_axis(data_format, out_backprop.ndim) % out_backprop.ndim
    axes = tuple(i for i in range(out_backprop.ndim) if i != axis)
    return np.sum(out_backprop, axis=axes, dtype=out_backprop.dtype)


def _bias_add_grad_infer(inputs, attrs):
    s = inputs[0].shape
    if s.rank is None:
        return [(TensorShape([None]), inputs[0].dtype)]
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    axis = _channel_axis(attrs.get("data_format", "NHWC"), s.rank) % s.rank
    return [(TensorShape([s[axis]]), inputs[0].dtype)]


def _bias_add_grad_grad(op, gg):
    from ..core.array_ops import broadcast_to, reshape, shape
    x = op.inputs[0]
    r = x.shape.rank
    if op.get_attr("data_format") == "NCHW":
        if r is None:
            raise ValueError("the second derivative of BiasAdd with NCHW needs a known rank")
        gg = reshape(gg, [-1] + [1] * (r - 2))
    return [broadcast_to(gg, shape(x))]


_BiasAdd = register("BiasAdd", _bias_add_kernel, _bias_add_infer, _bias_add_grad,
                    allowed=NUMERIC)
_BiasAddGrad = register("BiasAddGrad", _bias_add_grad_kernel, _bias_add_grad_infer,
                        _bias_add_grad_grad, allowed=NUMERIC)


@export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D `bias` along the channel dimension of `value`: the last
    one for data formats of the form N...C (the default), the second for NC...

    Raises:
      ValueError: for an unknown `data_format`, or (graph) mismatched shapes.
      InvalidArgumentError: eagerly, when `bias` does not match the channel
        dimension, `value` has rank < 2 or `bias` is not 1-D.
    """
    if data_format is None:
        fmt = "NHWC"
    elif data_format.startswith("NC"):
        fmt = "NCHW"
    elif data_format.startswith("N") and data_format.endswith("C"):
        fmt = "NHWC"
    else:
        raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: "
                         f"data_format={data_format}")
    v = convert_to_tensor(value, name="input")
    b = convert_to_tensor(bias, dtype=v.dtype, name="bias")
    _check_eager_dtype(_BiasAdd, v)
    return apply2(_BiasAdd, v, b, {"data_format": fmt}, name=name or "BiasAdd")


# --- l2_loss ------------------------------------------------------------------

def _l2_loss_kernel(t):
    x = t.astype(_compute_dtype(t), copy=False)
    return t.dtype.type(np.sum(x * x) / 2)


def _l2_loss_infer(inputs, attrs):
    U.check_allowed(_L2Loss, inputs[0], "t")
    return [(TensorShape([]), inputs[0].dtype)]


def _l2_loss_grad(op, g):
    from ..core.math_ops import multiply
    return [multiply(op.inputs[0], g)]


_L2Loss = register("L2Loss", _l2_loss_kernel, _l2_loss_infer, _l2_loss_grad, allowed=FLOATS)


@export("nn.l2_loss")
def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar (half the squared L2 norm, without the sqrt)."""
    return unary(_L2Loss, t, name or "L2Loss")


# --- moments and normalization --------------------------------------------------

def _axes_list(axes):
    if isinstance(axes, Tensor):
        v = U.constant_value(axes)
        return axes if v is None else [int(a) for a in np.reshape(v, -1)]
    if isinstance(axes, (int, np.integer)):
        return [int(axes)]
    return [int(a) for a in axes]


@export("nn.moments")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes`; half precision is computed in float32.

    `shift` is accepted for compatibility and unused, as in TensorFlow 2.
    """
    from ..core.array_ops import squeeze, stop_gradient
    from ..core.math_ops import cast, squared_difference
    from ..core.reduction_ops import reduce_mean
    with _scope(name or "moments"):
        x = convert_to_tensor(x, name="x")
        axes = _axes_list(axes)
        y = cast(x, D.float32) if x.dtype is D.float16 else x
        mean = reduce_mean(y, axes, keepdims=True, name="mean")
        variance = reduce_mean(squared_difference(y, stop_gradient(mean)), axes,
                               keepdims=True, name="variance")
        if not keepdims:
            mean = squeeze(mean, axes)
            variance = squeeze(variance, axes)
        if x.dtype is D.float16:
            return cast(mean, D.float16), cast(variance, D.float16)
        return mean, variance


@export("nn.sufficient_statistics")
def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """(count, sum, sum of squares, shift) of `x` over `axes`, the inputs of
    `normalize_moments`; sums are of `x - shift` when `shift` is given."""
    from ..core.math_ops import subtract, multiply
    from ..core.reduction_ops import reduce_sum
    with _scope(name or "sufficient_statistics"):
        x = convert_to_tensor(x, name="x")
        axes = _axes_list(axes)
        s = x.shape
        if s.rank is not None and s.is_fully_defined() and isinstance(axes, list):
            n = 1
            for a in axes:
                n *= s[a]
            count = convert_to_tensor(np.asarray(n, dtype=x.dtype.as_numpy_dtype),
                                      name="count")
        else:
            from ..core.array_ops import shape as shape_
            from ..core.math_ops import cast
            from ..core.reduction_ops import reduce_prod
            from ..core.gather_ops import gather
            count = cast(reduce_prod(gather(shape_(x), axes)), x.dtype, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, dtype=x.dtype, name="shift")
            m_ss = subtract(x, shift)
            v_ss = multiply(m_ss, m_ss)
        else:
            m_ss = x
            v_ss = multiply(x, x)
        m_ss = reduce_sum(m_ss, axes, keepdims=keepdims, name="mean_ss")
        v_ss = reduce_sum(v_ss, axes, keepdims=keepdims, name="var_ss")
        return count, m_ss, v_ss, shift


@export("nn.normalize_moments")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics: mean = mean_ss / counts
    (+ shift), variance = variance_ss / counts - (mean_ss / counts) ** 2."""
    from ..core.math_ops import add, divide, multiply, subtract
    with _scope(name or "normalize"):
        counts = convert_to_tensor(counts, name="counts")
        divisor = divide(convert_to_tensor(1, dtype=counts.dtype), counts)
        shifted_mean = multiply(mean_ss, divisor)
        mean = add(shifted_mean, shift) if shift is not None else shifted_mean
        variance = subtract(multiply(variance_ss, divisor),
                            multiply(shifted_mean, shifted_mean))
        return mean, variance


@export("nn.weighted_moments")
def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes` with each element counted
    `frequency_weights` times (weights broadcast against x); 0 where the
    weights sum to 0."""
    from ..core.array_ops import squeeze, zeros_like
    from ..core.math_ops import add, cast, div_no_nan, multiply, squared_difference
    from ..core.reduction_ops import reduce_sum
    with _scope(name or "weighted_moments"):
        x = convert_to_tensor(x, name="x")
        axes = _axes_list(axes)
        dtype = x.dtype
        y = cast(x, D.float32) if dtype is D.float16 else x
        w = convert_to_tensor(frequency_weights, dtype_hint=y.dtype, name="frequency_weights")
        if w.dtype is not y.dtype:
            w = cast(w, y.dtype)
        weighted_sum = reduce_sum(multiply(w, y), axes, keepdims=True)
        sum_of_weights = reduce_sum(add(w, zeros_like(y)), axes, keepdims=True)
        mean = div_no_nan(weighted_sum, sum_of_weights)
        dist = reduce_sum(multiply(w, squared_difference(y, mean)), axes, keepdims=True)
        variance = div_no_nan(dist, sum_of_weights)
        if not keepdims:
            mean = squeeze(mean, axes)
            variance = squeeze(variance, axes)
        if dtype is D.float16:
            return cast(mean, dtype), cast(variance, dtype)
        return mean, variance


@export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size, where the
    batch size defaults to the first dimension (one replica); 0 for an empty
    batch.

    Raises:
      TypeError: if `global_batch_size` is not an integer.
    """
    from ..core.array_ops import shape
    from ..core.math_ops import cast, div_no_nan, multiply, truediv
    from ..core.reduction_ops import reduce_sum
    loss = convert_to_tensor(per_example_loss, name="per_example_loss")
    dtype = loss.dtype
    if sample_weight is not None:
        w = convert_to_tensor(sample_weight, dtype_hint=dtype)
        loss = multiply(loss, w if w.dtype is dtype else cast(w, dtype))
    if global_batch_size is None:
        batch = shape(loss, out_type=D.int64)[0] if loss.shape.rank != 0 else \
            convert_to_tensor(1, dtype=D.int64)
    else:
        if isinstance(global_batch_size, Tensor):
            batch = global_batch_size
        else:
            batch = convert_to_tensor(global_batch_size)
        if not batch.dtype.is_integer:
            raise TypeError(f"global_batch_size must be an integer..  Expected \"x\" to be "
                            f"integer type.  Found: tensor of dtype {batch.dtype!r}")
    total = reduce_sum(loss)
    if dtype.is_floating:
        return div_no_nan(total, cast(batch, dtype))
    return truediv(total, cast(batch, dtype))


@export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss):
    """The summed regularization loss divided by the number of replicas (one)."""
    from ..core.reduction_ops import reduce_sum
    return reduce_sum(convert_to_tensor(regularization_loss))


@export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset; `offset` and
    `scale` may be None."""
    from ..core.math_ops import add, cast, multiply, negative, subtract
    from ..core.unary_ops import rsqrt
    with _scope(name or "batchnorm"):
        x = convert_to_tensor(x, name="x")
        mean = convert_to_tensor(mean, dtype_hint=x.dtype)
        variance = convert_to_tensor(variance, dtype_hint=x.dtype)
        inv = rsqrt(add(variance, convert_to_tensor(variance_epsilon, dtype=variance.dtype)))
        if scale is not None:
            inv = multiply(inv, scale)
        if offset is not None:
            shift = subtract(offset, multiply(mean, inv))
        else:
            shift = multiply(negative(mean), inv)
        if inv.dtype is not x.dtype:
            inv = cast(inv, x.dtype)
            shift = cast(shift, x.dtype)
        return add(multiply(x, inv), shift)


# --- dropout ------------------------------------------------------------------

def _noise_shape(x, noise_shape):
    """`noise_shape` with its unknown entries taken from `x`'s shape."""
    if noise_shape is None:
        from ..core.array_ops import shape
        return shape(x)
    if isinstance(noise_shape, Tensor):
        return noise_shape
    dims = list(noise_shape.as_list() if isinstance(noise_shape, TensorShape) else noise_shape)
    xs = x.shape
    if xs.rank is not None and len(dims) == xs.rank:
        dims = [xs[i] if d is None else d for i, d in enumerate(dims)]
    if any(d is None for d in dims):
        raise ValueError(f"Cannot convert a partially known TensorShape "
                         f"{TensorShape(dims)} to a Tensor.")
    return dims


@export("nn.dropout")
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each element with probability `rate` and scales the rest by
    1 / (1 - rate), so the expected sum is unchanged.

    `noise_shape` (broadcastable to x's shape) makes the keep/drop decision
    shared along dimensions of size 1; `seed` is an op seed as in
    `tf.random.set_seed`.

    Raises:
      ValueError: if `x` is not floating point, or `rate` is a number outside
        [0, 1) or a tensor that is not a scalar.
    """
    from ..core.array_ops import where
    from ..core.math_ops import divide, greater_equal, multiply, subtract
    from ..random.random_ops import uniform
    with _scope(name or "dropout"):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                             f"Received: x_dtype={x.dtype!r}")
        is_number = isinstance(rate, (int, float, np.integer, np.floating)) and \
            not isinstance(rate, bool)
        if is_number:
            if not 0 <= rate < 1:
                raise ValueError(f"`rate` must be a scalar tensor or a float in the range "
                                 f"[0, 1). Received: rate={rate}")
            if rate == 0:
                return x
            keep = 1 - float(rate)
            scale = convert_to_tensor(1 / keep, dtype=x.dtype)
            x_scale = multiply(x, scale)
        else:
            rate = convert_to_tensor(rate, dtype=x.dtype, name="rate")
            if rate.shape.rank is not None and rate.shape.rank != 0:
                raise ValueError(f"`rate` must be a scalar tensor or a float in the range "
                                 f"[0, 1). Received: rate={rate}")
            v = U.constant_value(rate)
            if v is not None and not 0 <= float(v) < 1:
                raise ValueError(f"`rate` must be a scalar tensor or a float in the range "
                                 f"[0, 1). Received: rate={rate}")
            one = convert_to_tensor(1, dtype=x.dtype)
            x_scale = divide(x, subtract(one, rate))
        random = uniform(_noise_shape(x, noise_shape), seed=seed, dtype=x.dtype)
        rate_t = rate if isinstance(rate, Tensor) else convert_to_tensor(rate, dtype=x.dtype)
        keep_mask = greater_equal(random, rate_t)
        return where(keep_mask, x_scale, convert_to_tensor(0, dtype=x.dtype))


# --- embedding_lookup ---------------------------------------------------------

@export("nn.embedding_lookup")
def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of `params` at `ids` (`gather` along axis 0).

    `params` may be a list of shards, split along axis 0 in order (the
    "div" partition strategy), which is the same as looking up in their
    concatenation. With `max_norm`, each looked-up embedding whose L2 norm
    exceeds it is scaled down to that norm.
    """
    from ..core.gather_ops import gather
    with _scope(name or "embedding_lookup"):
        if isinstance(params, (list, tuple)):
            if not params:
                raise ValueError("Argument `params` must not be empty.")
            shards = [convert_to_tensor(p) for p in params]
            if len(shards) == 1:
                table = shards[0]
            else:
                from ..core.array_ops import concat
                table = concat(shards, 0)
        else:
            table = params if hasattr(params, "_dense_var_to_tensor") else \
                convert_to_tensor(params, name="params")
        ids_t = convert_to_tensor(ids, name="ids")
        result = gather(table, ids_t)
        if max_norm is not None:
            from ..core.clip_ops import clip_by_norm
            r_rank = result.shape.rank
            i_rank = ids_t.shape.rank
            if r_rank is None or i_rank is None:
                raise ValueError("embedding_lookup with max_norm needs ids and params of "
                                 "known rank")
            axes = list(range(i_rank, r_rank)) or None
            result = clip_by_norm(result, max_norm, axes=axes)
        return result


# --- small extras -------------------------------------------------------------

@export("nn.crelu")
def crelu(features, axis=-1, name=None):
    """Concatenated ReLU: concat([relu(x), relu(-x)], axis)."""
    from ..core.array_ops import concat
    from ..core.math_ops import negative
    with _scope(name or "CRelu"):
        x = convert_to_tensor(features, name="features")
        return concat([relu(x), relu(negative(x))], axis)


@export("nn.zero_fraction", "math.zero_fraction")
def zero_fraction(value, name=None):
    """The fraction of elements of `value` that are zero (float32 scalar)."""
    from ..core.array_ops import zeros_like
    from ..core.math_ops import cast, equal
    from ..core.reduction_ops import reduce_mean
    with _scope(name or "zero_fraction"):
        v = convert_to_tensor(value, name="value")
        zero = equal(v, zeros_like(v))
        return reduce_mean(cast(zero, D.float32))
