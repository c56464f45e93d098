"""Clipping: tf.clip_by_value, tf.clip_by_norm, tf.global_norm and
tf.clip_by_global_norm.

`ClipByValue` is one op (minimum, then maximum, as TensorFlow composes it);
the norm clippings are composites of the elementwise and reduction ops, and
keep an IndexedSlices sparse (its values clipped), as TensorFlow does.
"""

import collections.abc

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .math_ops import _sum_to, maximum, minimum
from .unary_ops import _register, _scope, _where, _zeros, sqrt
from .. import late

_state = _context.state

# ClipByValue is checked like TensorFlow's Minimum/Maximum, which implement it.
_CLIP = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64, D.int8, D.uint8,
                          D.int16, D.uint16, D.int32, D.uint32, D.int64, D.uint64)
              if d is not None)


def _clip_kernel(t, clip_value_min, clip_value_max):
    # min then max, as TensorFlow composes it: an inverted range gives the min.
    return np.maximum(np.minimum(t, clip_value_max), clip_value_min)


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


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

XL.set_lowerings({"ClipByValue": lambda ctx, op, t, lo, hi: XL.jnp.minimum(
    XL.jnp.maximum(t, lo), hi)})
