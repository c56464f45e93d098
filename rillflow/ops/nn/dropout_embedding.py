"""`tf.nn.dropout`, `tf.nn.experimental.stateless_dropout`,
`tf.nn.embedding_lookup` and two small composites (`tf.nn.crelu`,
`tf.nn.zero_fraction`), all composed from other ops, as TensorFlow composes
them."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from .activations import relu
from .nn_util import _scope
from ..core.broadcast_ops import where
from ..core.clip_ops import clip_by_norm
from ..core.constant_ops import zeros_like
from ..core.gather_ops import gather
from ..core.join_ops import concat
from ..core.math_ops import cast, divide, equal, greater_equal, multiply, negative, subtract
from ..core.reduction_ops import reduce_mean
from ..core.shape_ops import shape
from ..random.stateful_ops import uniform
from ..random.stateless_ops import stateless_uniform


# --- dropout ------------------------------------------------------------------

def _noise_shape(x, noise_shape):
    """`noise_shape` with its unknown entries taken from `x`'s shape."""
    if noise_shape is None:
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
    def sampler(shape_, dtype):
        return uniform(shape_, seed=seed, dtype=dtype)
    return _dropout(x, rate, noise_shape, sampler, name, "dropout")


@export("nn.experimental.stateless_dropout")
def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """`tf.nn.dropout` whose keep/drop decisions depend only on the [2] int
    `seed` (and the shapes), like `tf.random.stateless_uniform`: the same
    arguments always drop the same elements, with TensorFlow's numbers.

    `rng_alg` is the `alg` of `tf.random.stateless_uniform` (None means
    "auto_select"); `noise_shape` is as in `tf.nn.dropout`.

    Raises:
      ValueError: if `x` is not floating point, or `rate` is a number outside
        [0, 1) or a tensor that is not a scalar.
    """
    # TensorFlow's get_key_counter_alg reads a None algorithm as auto_select.
    alg = "auto_select" if rng_alg is None else rng_alg

    def sampler(shape_, dtype):
        return stateless_uniform(shape_, seed=seed, dtype=dtype, alg=alg)
    return _dropout(x, rate, noise_shape, sampler, name, "stateless_dropout")


@export("nn.experimental.general_dropout", "compat.v1.nn.experimental.general_dropout")
def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """`tf.nn.dropout` with the uniform numbers drawn by the caller's
    `uniform_sampler(shape=..., dtype=...)` (values in [0, 1)): elements
    whose number is below `rate` are zeroed, the rest scaled by
    1 / (1 - rate).

    Raises:
      ValueError: if `x` is not floating point, or `rate` is a number outside
        [0, 1) or a tensor that is not a scalar.
    """
    def sampler(shape_, dtype):
        return uniform_sampler(shape=shape_, dtype=dtype)
    return _dropout(x, rate, noise_shape, sampler, name, "general_dropout")


def _dropout(x, rate, noise_shape, sampler, name, default_name):
    """TensorFlow's shared dropout body: scale `x` by 1 / (1 - rate), then
    keep the elements where `sampler(noise_shape, x.dtype)` (uniform on
    [0, 1)) is >= rate and zero the rest. The order of the steps matters for
    bit-exact results: the scaling is a multiply by the rounded 1 / keep for a
    Python rate but a divide by (1 - rate) for a tensor rate."""
    with _scope(name or default_name):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                             f"Received: x_dtype={x.dtype}")
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
        random = sampler(_noise_shape(x, noise_shape), x.dtype)
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
    with _scope(name or "embedding_lookup"):
        if isinstance(params, (list, tuple)):
            if not params:
                raise ValueError("Argument `params` must not be empty.")
            shards = [convert_to_tensor(p) for p in params]
            if len(shards) == 1:
                table = shards[0]
            else:
                table = concat(shards, 0)
        else:
            table = params if hasattr(params, "_dense_var_to_tensor") else \
                convert_to_tensor(params, name="params")
        ids_t = convert_to_tensor(ids, name="ids")
        result = gather(table, ids_t)
        if max_norm is not None:
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
    with _scope(name or "CRelu"):
        x = convert_to_tensor(features, name="features")
        return concat([relu(x), relu(negative(x))], axis)


@export("nn.zero_fraction", "math.zero_fraction")
def zero_fraction(value, name=None):
    """The fraction of elements of `value` that are zero (float32 scalar)."""
    with _scope(name or "zero_fraction"):
        v = convert_to_tensor(value, name="value")
        zero = equal(v, zeros_like(v))
        return reduce_mean(cast(zero, D.float32))
