"""Statistics over axes and normalization (`tf.nn.moments`,
sufficient_statistics, normalize_moments, weighted_moments,
batch_normalization) and the loss scaling of distributed training
(compute_average_loss, scale_regularization_loss): all composed from other
ops, as TensorFlow composes them."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ..core import op_util as U
from .nn_util import _scope
from ..core.constant_ops import zeros_like
from ..core.dim_ops import squeeze
from ..core.gather_ops import gather
from ..core.math_ops import (add, cast, div_no_nan, divide, multiply, negative,
                             squared_difference, subtract, truediv)
from ..core.reduction_ops import reduce_mean, reduce_prod, reduce_sum
from ..core.shape_ops import shape, shape as shape_, stop_gradient
from ..core.unary_ops import rsqrt


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
    return reduce_sum(convert_to_tensor(regularization_loss))


@export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset; `offset` and
    `scale` may be None."""
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
