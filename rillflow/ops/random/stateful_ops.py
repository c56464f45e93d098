"""The stateful random ops (`tf.random.uniform`, normal, truncated_normal,
categorical, shuffle, gamma, poisson): registry entries whose kernels draw
from the Philox generator of the hidden attr `_rng`, which seeding.py makes
per TensorFlow's seeding rules. Each run reserves as many Philox calls as
TensorFlow's kernel does (256 per output value), so a sequence of runs gives
TensorFlow's numbers; gamma and Poisson use NumPy's algorithms on a Philox
stream (not TensorFlow's numbers)."""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.op_util import FLOATS
from .random_util import (_INTS, _POISSON_DTYPES, _UNIFORM_DTYPES, _check_multinomial, _count,
                          _dims, _float_dtype_error, _int_bounds, _invalid_dtype,
                          _multinomial, _multinomial_reserve, _no_grad, _normal,
                          _numpy_rng, _random_infer, _random_int_infer, _scaled, _scope,
                          _shape_arg, _shape_infer_from, _truncated, _uniform01, _uniform_int)
from . import distributions as _dist
from .seeding import _rng_or_default, _stateful_attrs
from ..core.broadcast_ops import (broadcast_dynamic_shape, broadcast_static_shape,
                                  broadcast_to)
from ..core.math_ops import add, maximum, multiply, subtract, truediv
from ..core.shape_ops import shape as shape_of

_state = _context.state


# --- stateful kernels -------------------------------------------------------------

def _reserve(rng, dims):
    """The position this run draws from: TensorFlow reserves 256 Philox
    calls per output value."""
    return _rng_or_default(rng).reserve_outputs(_count(dims))


def _random_uniform_kernel(shape, dtype=D.float32, seed=0, seed2=0, _rng=None):
    dims = _dims(shape)
    return _uniform01(_reserve(_rng, dims), dims, dtype.as_numpy_dtype)


def _random_uniform_int_kernel(shape, minval, maxval, Tout=D.int32, seed=0, seed2=0,
                               _rng=None):
    dims = _dims(shape)
    _int_bounds(minval, maxval)
    return _uniform_int(_reserve(_rng, dims), dims, minval, maxval, Tout.as_numpy_dtype)


def _random_normal_kernel(shape, dtype=D.float32, seed=0, seed2=0, _rng=None):
    dims = _dims(shape)
    return _normal(_reserve(_rng, dims), dims, dtype.as_numpy_dtype)


def _truncated_normal_kernel(shape, dtype=D.float32, seed=0, seed2=0, _rng=None):
    dims = _dims(shape)
    return _truncated(_reserve(_rng, dims), dims, dtype.as_numpy_dtype)


def _multinomial_kernel(logits, num_samples, output_dtype=D.int64, seed=0, seed2=0,
                        _rng=None):
    n = _check_multinomial(logits, num_samples)
    pos = _rng_or_default(_rng).reserve128(_multinomial_reserve(logits, n))
    return _multinomial(pos, logits, n, output_dtype.as_numpy_dtype)


def _shuffle_kernel(value, seed=0, seed2=0, _rng=None):
    if value.size <= 1 or value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    size = value.shape[0]
    # One word per swap: TensorFlow reserves size - 1 of them.
    pos = _rng_or_default(_rng).reserve32(size - 1)
    return value[_dist.shuffle_permutation(pos, size)]


def _gamma_kernel(shape, alpha, seed=0, seed2=0, _rng=None):
    dims = _dims(shape) + alpha.shape
    a = np.broadcast_to(alpha.astype(np.float64), dims)
    rng = _numpy_rng(_reserve(_rng, dims))
    return rng.standard_gamma(a).astype(alpha.dtype)


def _poisson_kernel(shape, rate, dtype=D.float32, seed=0, seed2=0, _rng=None):
    dims = _dims(shape) + rate.shape
    lam = np.broadcast_to(rate.astype(np.float64), dims)
    if np.any(lam < 0):
        raise errors.InvalidArgumentError(None, None, "rate must be non-negative")
    rng = _numpy_rng(_reserve(_rng, dims))
    return rng.poisson(lam).astype(dtype.as_numpy_dtype)


# --- shape functions ------------------------------------------------------------

def _multinomial_infer(inputs, attrs):
    logits, n = inputs
    U.check_allowed(_Multinomial, logits, "logits")
    if logits.shape.rank is not None and logits.shape.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.shape.rank}")
    if n.shape.rank is not None and n.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {n.shape.rank}")
    batch = logits.shape[0] if logits.shape.rank == 2 else None
    v = U.constant_value(n)
    return [(TensorShape([batch, None if v is None else int(v)]), attrs["output_dtype"])]


def _shuffle_infer(inputs, attrs):
    return [(inputs[0].shape, inputs[0].dtype)]


def _batched_infer(out_dtype_attr=None):
    """Shape function of ops whose output is shape + shape of a parameter."""
    def infer(inputs, attrs):
        shape_t, param = inputs
        s = _shape_infer_from(shape_t)
        dtype = attrs[out_dtype_attr] if out_dtype_attr else param.dtype
        if s.rank is None or param.shape.rank is None:
            return [(TensorShape(None), dtype)]
        return [(s.concatenate(param.shape), dtype)]
    return infer


_RandomUniform = register("RandomUniform", _random_uniform_kernel, _random_infer, _no_grad,
                          stateful=True)
_RandomUniformInt = register("RandomUniformInt", _random_uniform_int_kernel, _random_int_infer,
                             _no_grad, stateful=True)
_RandomStandardNormal = register("RandomStandardNormal", _random_normal_kernel, _random_infer,
                                 _no_grad, stateful=True)
_TruncatedNormal = register("TruncatedNormal", _truncated_normal_kernel, _random_infer,
                            _no_grad, stateful=True)
_Multinomial = register("Multinomial", _multinomial_kernel, _multinomial_infer, _no_grad,
                        stateful=True, allowed=FLOATS)
_RandomShuffle = register("RandomShuffle", _shuffle_kernel, _shuffle_infer, _no_grad,
                          stateful=True)
_RandomGamma = register("RandomGamma", _gamma_kernel, _batched_infer(), _no_grad,
                        stateful=True, allowed=FLOATS)
_RandomPoissonV2 = register("RandomPoissonV2", _poisson_kernel, _batched_infer("dtype"),
                            _no_grad, stateful=True)


# --- public stateful ops --------------------------------------------------------

@export("random.uniform", "compat.v1.random_uniform", "compat.v1.random.uniform")
def uniform(shape, minval=0, maxval=None, dtype=D.float32, seed=None, name=None):
    """Uniform random values in [minval, maxval).

    Floats default to [0, 1); integer dtypes need `maxval` and scalar bounds
    with minval < maxval (drawn as TensorFlow does: minval + bits % range,
    with its slight modulo bias for ranges that are not powers of two).

    Raises:
      ValueError: for an unsupported dtype, or an integer dtype without maxval.
      InvalidArgumentError: (eagerly) for integer bounds with minval >= maxval,
        or a negative dimension.
    """
    dtype = D.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise _invalid_dtype(dtype, _UNIFORM_DTYPES)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with _scope(name or "random_uniform"):
        op_name = "RandomUniformInt" if dtype.is_integer else "RandomUniform"
        shape_t = _shape_arg(op_name, shape)
        minval_is_zero = isinstance(minval, int) and minval == 0
        maxval_is_one = isinstance(maxval, int) and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            attrs = _stateful_attrs(op_name, dtype, seed, Tout=dtype)
            return apply(_RandomUniformInt, [shape_t, lo, hi], attrs, name="RandomUniformInt")
        attrs = _stateful_attrs(op_name, dtype, seed, dtype=dtype)
        rnd = apply1(_RandomUniform, shape_t, attrs, name="RandomUniform")
        if minval_is_zero and maxval_is_one:
            return rnd
        if minval_is_zero:
            return multiply(rnd, hi)
        return add(multiply(rnd, subtract(hi, lo)), lo)


def _normal_like(opdef, scope, shape, mean, stddev, dtype, seed, name):
    dtype = D.as_dtype(dtype)
    with _scope(name or scope):
        shape_t = _shape_arg(opdef.name, shape)
        # Converting the parameters first gives TensorFlow's TypeError for
        # values that do not fit the dtype (0.0 as int32).
        for v, n in ((mean, "mean"), (stddev, "stddev")):
            if not isinstance(v, Tensor):
                convert_to_tensor(v, dtype=dtype, name=n)
        if not dtype.is_floating:
            raise _float_dtype_error(opdef.name, dtype)
        attrs = _stateful_attrs(opdef.name, dtype, seed, dtype=dtype)
        rnd = apply1(opdef, shape_t, attrs, name=opdef.name)
        return _scaled(rnd, mean, stddev, dtype)


@export("random.normal", "compat.v1.random_normal", "compat.v1.random.normal")
def normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normally distributed random values: standard normal * stddev + mean.

    Raises:
      TypeError: if mean or stddev cannot be converted to `dtype`.
      InvalidArgumentError: (eagerly) for a non-float dtype or negative dims.
    """
    return _normal_like(_RandomStandardNormal, "random_normal", shape, mean, stddev, dtype,
                        seed, name)


@export("random.truncated_normal", "compat.v1.truncated_normal",
        "compat.v1.random.truncated_normal")
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=D.float32, seed=None, name=None):
    """Normal random values redrawn when more than 2 standard deviations from
    the mean (so all lie in [mean - 2 stddev, mean + 2 stddev])."""
    return _normal_like(_TruncatedNormal, "truncated_normal", shape, mean, stddev, dtype,
                        seed, name)


def _categorical_args(logits, num_samples, dtype):
    dtype = D.as_dtype(dtype) if dtype is not None else D.int64
    if dtype not in _INTS:
        raise _invalid_dtype(dtype, _INTS)
    x = convert_to_tensor(logits, name="logits")
    n = num_samples if isinstance(num_samples, Tensor) else \
        convert_to_tensor(num_samples, dtype=D.int32, name="num_samples")
    return x, n, dtype


@export("random.categorical", "compat.v1.random.categorical")
def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`num_samples` class indices per row of the [batch, classes] `logits`
    (unnormalized log probabilities); returns [batch, num_samples] (int64
    unless `dtype` is int32)."""
    with _scope(name or "categorical"):
        x, n, dtype = _categorical_args(logits, num_samples, dtype)
        if _state.graph is None and x._v.dtype not in _Multinomial.allowed_np:
            raise U._eager_disallowed(_Multinomial, x)
        attrs = _stateful_attrs("Multinomial", dtype, seed, output_dtype=dtype)
        return apply(_Multinomial, [x, n], attrs, name="Multinomial")


@export("compat.v1.multinomial", "compat.v1.random.multinomial")
def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """TensorFlow 1's name for `categorical`."""
    return categorical(logits, num_samples, dtype=output_dtype, seed=seed, name=name)


@export("random.shuffle", "compat.v1.random_shuffle", "compat.v1.random.shuffle")
def shuffle(value, seed=None, name=None):
    """A random permutation of `value` along its first dimension."""
    x = convert_to_tensor(value, name="value")
    attrs = _stateful_attrs("RandomShuffle", x.dtype, seed)
    return apply1(_RandomShuffle, x, attrs, name=name or "RandomShuffle")


@export("random.gamma", "compat.v1.random_gamma", "compat.v1.random.gamma")
def gamma(shape, alpha, beta=None, dtype=D.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples (beta is the rate, default 1), of shape
    `shape + broadcast(alpha.shape, beta.shape)`.

    Gradients with respect to alpha and beta are not implemented.
    """
    dtype = D.as_dtype(dtype)
    if dtype not in (D.float16, D.float32, D.float64):
        raise _invalid_dtype(dtype, (D.float16, D.float32, D.float64))
    with _scope(name or "random_gamma"):
        shape_t = _shape_arg("RandomGamma", shape)
        a = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        b = convert_to_tensor(beta if beta is not None else 1, dtype=dtype, name="beta")
        bshape = broadcast_static_shape(a.shape, b.shape)
        if bshape.is_fully_defined():
            a_b = broadcast_to(a, bshape.as_list()) if bshape != a.shape else a
        else:
            a_b = broadcast_to(a, broadcast_dynamic_shape(shape_of(a), shape_of(b)))
        attrs = _stateful_attrs("RandomGamma", dtype, seed)
        sample = apply(_RandomGamma, [shape_t, a_b], attrs, name="RandomGamma")
        if beta is not None:
            sample = truediv(sample, b)
        tiny = convert_to_tensor(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype)
        return maximum(tiny, sample)


@export("random.poisson")
def poisson(shape, lam, dtype=D.float32, seed=None, name=None):
    """Poisson(lam) samples of shape `shape + lam.shape`, as `dtype`."""
    dtype = D.as_dtype(dtype)
    if dtype not in _POISSON_DTYPES:
        raise _invalid_dtype(dtype, _POISSON_DTYPES)
    with _scope(name or "random_poisson"):
        shape_t = _shape_arg("RandomPoissonV2", shape)
        lam_t = lam if isinstance(lam, Tensor) else convert_to_tensor(lam, dtype_hint=D.float32,
                                                                      name="lam")
        attrs = _stateful_attrs("RandomPoissonV2", dtype, seed, dtype=dtype)
        return apply(_RandomPoissonV2, [shape_t, lam_t], attrs, name="RandomPoissonV2")
