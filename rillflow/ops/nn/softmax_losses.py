"""Softmax and the cross-entropy losses (`tf.nn.softmax`, log_softmax,
softmax_cross_entropy_with_logits and its sparse form, the sigmoid and
weighted cross entropies, log_poisson_loss).

Softmax, LogSoftmax and the two softmax cross entropies are registry
entries with TensorFlow's kernels and gradients (the cross entropies'
gradients include the second-order term, so that Hessians work); the
sigmoid losses are composed from other ops, as TensorFlow composes them.
"""
import math

import numpy as np

from ...framework import context as _context
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core.op_util import FLOATS
from .activations import relu
from .nn_util import _check_eager_dtype, _is_zero, _scope
from ...framework.op_registry import get
from ..core.broadcast_ops import where
from ..core.constant_ops import ones_like, zeros_like
from ..core.dim_ops import expand_dims, transpose
from ..core.math_ops import (_sum_to, add, cast, greater, greater_equal, less_equal,
                             logical_and, multiply, negative, subtract)
from ..core.reduction_ops import reduce_sum
from ..core.shape_ops import reshape
from ..core.unary_ops import abs as abs_, exp, log, log1p
from ..kernels import softmax_kernel as _sk
from ..kernels.jit_kernels import softmax_ops

_state = _context.state


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
    if logits.dtype == np.float32:   # TensorFlow's bits (kernels/softmax_kernel.py)
        return _sk.softmax_2d(logits.reshape(-1, logits.shape[-1]),
                              softmax_ops(logits.size)).reshape(logits.shape)
    if logits.dtype == np.float64:
        return _sk.softmax_2d(np.ascontiguousarray(logits).reshape(-1, logits.shape[-1]),
                              _sk.NUMPY_OPS_F64).reshape(logits.shape)
    e = _shifted(logits)
    np.exp(e, out=e)
    e /= e.sum(axis=-1, keepdims=True)
    return e.astype(logits.dtype, copy=False)


def _log_softmax_kernel(logits):
    _check_logits_rank(logits)
    if logits.size == 0:
        return logits.copy()
    if logits.dtype == np.float32:
        return _sk.log_softmax_2d(logits.reshape(-1, logits.shape[-1]),
                                  softmax_ops(logits.size)).reshape(logits.shape)
    if logits.dtype == np.float64:
        return _sk.log_softmax_2d(np.ascontiguousarray(logits).reshape(-1, logits.shape[-1]),
                                  _sk.NUMPY_OPS_F64).reshape(logits.shape)
    if logits.dtype == np.float16 or logits.dtype.name == "bfloat16":
        return _sk.log_softmax_2d_half(
            np.ascontiguousarray(logits).reshape(-1, logits.shape[-1])).reshape(logits.shape)
    x = _shifted(logits)
    x -= np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return x.astype(logits.dtype, copy=False)


def _softmax_infer(op_name):
    def infer(inputs, attrs):
        x = inputs[0]
        U.check_allowed(get(op_name), x, "logits")
        if x.shape.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        return [(x.shape, x.dtype)]
    return infer


def _softmax_grad(op, g):
    y = op.outputs[0]
    return [multiply(subtract(g, reduce_sum(multiply(g, y), -1, keepdims=True)), y)]


def _log_softmax_grad(op, g):
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
    if dtype in (np.float32, np.float64) and labels.dtype == dtype:
        n = features.shape[-1]
        ops = softmax_ops(features.size) if dtype == np.float32 else _sk.NUMPY_OPS_F64
        loss, back = _sk.softmax_xent_2d(np.ascontiguousarray(labels).reshape(-1, n),
                                         np.ascontiguousarray(features).reshape(-1, n), ops)
        return loss.reshape(features.shape[:-1]), back.reshape(features.shape)
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
    sm = apply1(_Softmax, logits)
    return multiply(subtract(grad_grad, reduce_sum(multiply(grad_grad, sm), -1, keepdims=True)),
                    sm)


def _softmax_xent_grad(op, grad_loss, grad_grad):
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


def _sparse_xent_kernel(features, labels, out=None):
    # `out`: a float32 C-contiguous buffer of features' shape that the
    # backprop may be written into (the compiler passes the features' own
    # buffer when nothing reads them afterwards: compiler/in_place.py); the
    # result is the same either way, only where it is stored differs.
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
    if dtype == np.float32 and n:
        loss, back = _sk.sparse_xent_2d(idx, features.reshape(idx.size, n),
                                        softmax_ops(features.size), out=out)
        return loss.reshape(labels.shape), back.reshape(features.shape)
    if dtype == np.float64 and n:
        loss, back = _sk.sparse_xent_2d(idx, np.ascontiguousarray(features).reshape(idx.size, n),
                                        _sk.NUMPY_OPS_F64)
        return loss.reshape(labels.shape), back.reshape(features.shape)
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
            lab = cast(lab, x.dtype)
        a = _static_axis(x, axis)
        if a is not None:
            perm = _swap_perm(x.shape.rank, a)
            x = transpose(x, perm)
            lab = transpose(lab, perm)
        loss = apply(_SoftmaxXent, [x, lab], name="softmax_cross_entropy_with_logits",
                     multi=True)[0]
        xs, ls = x.shape, lab.shape
        if xs.is_fully_defined() and ls.is_fully_defined() and xs != ls:
            # The loss has the batch shape of `logits` even when `labels`
            # broadcast against it (TensorFlow reshapes to it).
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
    with _scope(name or "logistic_loss"):
        x, z = _same_shape(logits, "logits", labels, "labels")
        # TensorFlow's expression as written: a Python pos_weight minus 1 is
        # Python's subtraction (1.7 - 1 is 0.7 rounded once to float32, not
        # float32(1.7) - 1, which differs in the last bit).
        log_weight = 1 + (pos_weight - 1) * z
        return add((1 - z) * x, log_weight * (log1p(exp(negative(abs_(x)))) + relu(negative(x))))


@export("nn.log_poisson_loss")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """Poisson negative log likelihood given log(rate): exp(c) - z * c, plus
    Stirling's approximation of log(z!) (where z is not in [0, 1]) when
    `compute_full_loss`.

    Raises:
      ValueError: if the shapes of `log_input` and `targets` differ.
    """
    with _scope(name or "log_poisson_loss"):
        c, z = _same_shape(log_input, "log_input", targets, "targets")
        result = subtract(exp(c), multiply(c, z))
        if compute_full_loss:
            half = convert_to_tensor(0.5, dtype=z.dtype)
            two_pi = convert_to_tensor(2 * math.pi, dtype=z.dtype)
            # TensorFlow's formula: Stirling's term wherever z is not in
            # [0, 1], so a negative (or NaN) target gives NaN, and the
            # target's gradient at 0 <= z <= 1 is NaN (0 * inf through the
            # branch not taken), as TensorFlow's.
            stirling = add(subtract(multiply(z, log(z)), z),
                           multiply(half, log(multiply(two_pi, z))))
            zeros = zeros_like(z)
            inside = logical_and(greater_equal(z, zeros), less_equal(z, ones_like(z)))
            result = add(result, where(inside, zeros, stirling))
        return result


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_xent(ctx, op, features, labels):
    logp = XL.jax.nn.log_softmax(features, axis=-1)
    if op.type == "SparseSoftmaxCrossEntropyWithLogits":
        labels = XL.jax.nn.one_hot(labels, XL.jnp.shape(features)[-1], dtype=features.dtype)
    loss = -XL.jnp.sum(labels * logp, axis=-1)
    return [loss, XL.jnp.exp(logp) - labels]


XL.set_lowerings({
    "Softmax": lambda ctx, op, x: XL.jax.nn.softmax(x, axis=-1),
    "LogSoftmax": lambda ctx, op, x: XL.jax.nn.log_softmax(x, axis=-1),
    "SoftmaxCrossEntropyWithLogits": _lower_xent,
    "SparseSoftmaxCrossEntropyWithLogits": _lower_xent})
