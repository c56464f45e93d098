"""The stateless random ops (`tf.random.stateless_*`, `tf.random.split`,
`tf.random.fold_in`): pure functions of their [2] int seed input; the
gamma, Poisson and binomial samplers are samplers.py. Each run
scrambles the seed into a Philox key and counter as TensorFlow does (one
Philox call under a fixed key) and fills the output as TensorFlow's CPU
kernels do, so the values are TensorFlow's. The algorithm argument may be
"auto_select" or "philox" (the same numbers on CPU); TensorFlow's CPU kernels
do not implement ThreeFry either."""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import dims_text
from ..core import op_util as U
from ..core.op_util import FLOATS
from .random_util import (_INTS, _STATELESS_UNIFORM_DTYPES, _check_multinomial, _dims,
                          _float_dtype_error, _full_int, _invalid_dtype, _multinomial,
                          _no_grad, _normal, _random_int_infer, _scaled, _scope, _shape_arg,
                          _shape_infer_from, _truncated, _uniform01, _uniform_int)
from . import samplers
from .seeding import _stateless_rng
from .stateful_ops import _categorical_args, _multinomial_infer
from ..core.join_ops import stack
from ..core.broadcast_ops import broadcast_dynamic_shape, broadcast_to
from ..core.math_ops import add, maximum, multiply, realdiv, subtract
from ..core.shape_ops import shape as shape_of

_state = _context.state


# --- stateless ops ----------------------------------------------------------------

def _stateless_uniform_kernel(shape, seed, dtype=D.float32):
    return _uniform01(_stateless_rng(seed), _dims(shape), dtype.as_numpy_dtype)


def _stateless_uniform_int_kernel(shape, seed, minval, maxval, dtype=D.int32):
    return _uniform_int(_stateless_rng(seed), _dims(shape), minval, maxval,
                        dtype.as_numpy_dtype)


def _stateless_full_int_kernel(shape, seed, dtype=D.int32):
    return _full_int(_stateless_rng(seed), _dims(shape), dtype.as_numpy_dtype)


def _stateless_normal_kernel(shape, seed, dtype=D.float32):
    return _normal(_stateless_rng(seed), _dims(shape), dtype.as_numpy_dtype)


def _stateless_truncated_kernel(shape, seed, dtype=D.float32):
    return _truncated(_stateless_rng(seed), _dims(shape), dtype.as_numpy_dtype)


def _stateless_multinomial_kernel(logits, num_samples, seed, output_dtype=D.int64):
    n = _check_multinomial(logits, num_samples)
    return _multinomial(_stateless_rng(seed), logits, n, output_dtype.as_numpy_dtype)


def _check_seed_shape(seed_t):
    s = seed_t.shape
    if s.rank is not None and s.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.rank}")
    if s.rank == 1 and s[0] is not None and s[0] != 2:
        raise ValueError(f"Dimension must be 2 but is {s[0]}")


def _stateless_infer(inputs, attrs):
    _check_seed_shape(inputs[1])
    return [(_shape_infer_from(inputs[0]), attrs["dtype"])]


def _stateless_int_infer(inputs, attrs):
    shape_t, seed_t, lo, hi = inputs
    _check_seed_shape(seed_t)
    return _random_int_infer([shape_t, lo, hi], {"Tout": attrs["dtype"]})


def _stateless_multinomial_infer(inputs, attrs):
    _check_seed_shape(inputs[2])
    return _multinomial_infer(inputs[:2], attrs)


_StatelessRandomUniform = register("StatelessRandomUniform", _stateless_uniform_kernel,
                                   _stateless_infer, _no_grad)
_StatelessRandomUniformInt = register("StatelessRandomUniformInt",
                                      _stateless_uniform_int_kernel, _stateless_int_infer,
                                      _no_grad)
_StatelessRandomUniformFullInt = register("StatelessRandomUniformFullInt",
                                          _stateless_full_int_kernel, _stateless_infer,
                                          _no_grad)
_StatelessRandomNormal = register("StatelessRandomNormal", _stateless_normal_kernel,
                                  _stateless_infer, _no_grad)
_StatelessTruncatedNormal = register("StatelessTruncatedNormal", _stateless_truncated_kernel,
                                     _stateless_infer, _no_grad)
_StatelessMultinomial = register("StatelessMultinomial", _stateless_multinomial_kernel,
                                 _stateless_multinomial_infer, _no_grad, allowed=FLOATS)


def _seed_arg(seed, op_name):
    """The [2] int32/int64 seed tensor of a stateless op."""
    t = seed if isinstance(seed, Tensor) else convert_to_tensor(seed, name="seed")
    if t.dtype not in _INTS:
        msg = (f"Value for attr 'Tseed' of {U.tf_type_name(t.dtype)} is not in the list of "
               "allowed values: int32, int64")
        if _state.graph is None:
            raise errors.InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")
        raise TypeError(msg)
    if _state.graph is None and t.shape.as_list() != [2]:
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not {dims_text(t.shape.as_list())} "
            f"[Op:{op_name}]")
    return t


@export("random.stateless_uniform", "random.experimental.stateless_uniform")
def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=D.float32, name=None,
                      alg="auto_select"):
    """Uniform random values that depend only on `shape` and the [2] int
    `seed`: the same arguments always give the same values.

    For integer dtypes give both `minval` and `maxval` (a range), or set both
    to None (the dtype's whole range).

    Raises:
      ValueError: for an unsupported dtype or half-given integer bounds.
      InvalidArgumentError: (eagerly) for a seed that is not [2] int32/int64,
        or minval >= maxval.
    """
    dtype = D.as_dtype(dtype)
    if dtype not in _STATELESS_UNIFORM_DTYPES:
        raise _invalid_dtype(dtype, _STATELESS_UNIFORM_DTYPES)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype!r}, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} "
                             f"and `maxval`={maxval}.")
    elif maxval is None:
        maxval = 1
    with _scope(name or "stateless_random_uniform"):
        if dtype.is_integer and minval is None:
            op = _StatelessRandomUniformFullInt
        elif dtype.is_integer:
            op = _StatelessRandomUniformInt
        else:
            op = _StatelessRandomUniform
        shape_t = _shape_arg(op.name, shape)
        seed_t = _seed_arg(seed, op.name)
        if op is _StatelessRandomUniformFullInt:
            return apply(op, [shape_t, seed_t], {"dtype": dtype}, name=op.name)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        if op is _StatelessRandomUniformInt:
            return apply(op, [shape_t, seed_t, lo, hi], {"dtype": dtype}, name=op.name)
        rnd = apply(op, [shape_t, seed_t], {"dtype": dtype}, name=op.name)
        if isinstance(minval, int) and minval == 0 and isinstance(maxval, int) and maxval == 1:
            return rnd
        return add(multiply(rnd, subtract(hi, lo)), lo)


def _stateless_normal_like(opdef, scope, shape, seed, mean, stddev, dtype, name):
    dtype = D.as_dtype(dtype)
    with _scope(name or scope):
        shape_t = _shape_arg(opdef.name, shape)
        seed_t = _seed_arg(seed, opdef.name)
        for v, n in ((mean, "mean"), (stddev, "stddev")):
            if not isinstance(v, Tensor):
                convert_to_tensor(v, dtype=dtype, name=n)
        if not dtype.is_floating:
            raise _float_dtype_error(opdef.name, dtype)
        rnd = apply(opdef, [shape_t, seed_t], {"dtype": dtype}, name=opdef.name)
        return _scaled(rnd, mean, stddev, dtype)


@export("random.stateless_normal", "random.experimental.stateless_normal")
def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                     alg="auto_select"):
    """Normal random values that depend only on `shape` and the [2] int `seed`."""
    return _stateless_normal_like(_StatelessRandomNormal, "stateless_random_normal", shape,
                                  seed, mean, stddev, dtype, name)


@export("random.stateless_truncated_normal")
def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=D.float32, name=None,
                               alg="auto_select"):
    """Truncated normal values (within 2 stddev) that depend only on `shape`
    and the [2] int `seed`."""
    return _stateless_normal_like(_StatelessTruncatedNormal, "stateless_truncated_normal",
                                  shape, seed, mean, stddev, dtype, name)


@export("random.stateless_categorical")
def stateless_categorical(logits, num_samples, seed, dtype=D.int64, name=None):
    """`categorical` as a pure function of the [2] int `seed`."""
    with _scope(name or "stateless_categorical"):
        x, n, dtype = _categorical_args(logits, num_samples, dtype)
        seed_t = _seed_arg(seed, "StatelessMultinomial")
        if _state.graph is None and x._v.dtype not in _StatelessMultinomial.allowed_np:
            raise U._eager_disallowed(_StatelessMultinomial, x)
        return apply(_StatelessMultinomial, [x, n, seed_t], {"output_dtype": dtype},
                     name="StatelessMultinomial")


@export("random.split", "random.experimental.stateless_split")
def split(seed, num=2, alg="auto_select"):
    """`num` new [2] seeds derived from `seed`: a [num, 2] tensor of the seed's dtype."""
    seed_t = _seed_arg(seed, "StatelessRandomUniformFullInt")
    return stateless_uniform([num, 2], seed=seed_t, minval=None, maxval=None,
                             dtype=seed_t.dtype)


@export("random.fold_in", "random.experimental.stateless_fold_in")
def fold_in(seed, data, alg="auto_select"):
    """A new [2] seed derived from `seed` and the integer `data`, as
    TensorFlow builds it: [a full-range integer drawn with `seed`, data], of
    `data`'s dtype."""
    seed_t = _seed_arg(seed, "StatelessRandomUniformFullInt")
    data_t = convert_to_tensor(data)
    key = stateless_uniform([], seed=seed_t, minval=None, maxval=None, dtype=data_t.dtype,
                            alg=alg)
    return stack([key, data_t])


# --- gamma, Poisson, binomial (samplers.py) ----------------------------------------------

_GAMMA_DTYPES = (D.float16, D.float32, D.float64)
_COUNT_DTYPES = (D.float16, D.float32, D.float64, D.int32, D.int64)


def _batch_layout(op_name, dims, param_shape):
    """(number of parameter sets, samples per set): the output shape must end
    with the parameters' shape."""
    k = len(param_shape)
    if k > len(dims) or (k and tuple(dims[len(dims) - k:]) != tuple(param_shape)):
        raise errors.InvalidArgumentError(
            None, None, "Shape passed in must end with broadcasted shape.")
    n = int(np.prod(param_shape, dtype=np.int64))
    total = int(np.prod(dims, dtype=np.int64))
    return n, (total // n if n else 0)


def _to_dtype(values, np_dtype):
    """static_cast<T>(double): through float for half (Eigen's conversion),
    truncation for integers."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.float16:
        return values.astype(np.float32).astype(np.float16)
    if np_dtype.kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(values).astype(np_dtype)
    return values.astype(np_dtype)


def _gamma_kernel(shape, seed, alpha, dtype=D.float32, T=None, Tseed=None):
    dims = _dims(shape)
    n, per = _batch_layout("StatelessRandomGammaV2", dims, alpha.shape)
    if n == 0 and int(np.prod(dims, dtype=np.int64)):
        raise errors.InvalidArgumentError(
            None, None, f"Input alpha should have non-zero element count, got: {n}")
    out = samplers.gamma(_stateless_rng(seed), alpha.astype(np.float64), per)
    return _to_dtype(out, dtype.as_numpy_dtype).reshape(dims)


def _poisson_kernel(shape, seed, lam, dtype=D.int32, Rtype=None, T=None, Tseed=None):
    dims = _dims(shape)
    n, per = _batch_layout("StatelessRandomPoisson", dims, lam.shape)
    np_dtype = dtype.as_numpy_dtype
    highest = float(np.finfo(np_dtype).max if np.dtype(np_dtype).kind == "f"
                    else np.iinfo(np_dtype).max)
    out = samplers.poisson(_stateless_rng(seed), lam.astype(np.float64), per, highest)
    return _to_dtype(out, np_dtype).reshape(dims)


def _binomial_kernel(shape, seed, counts, probs, dtype=D.int64, S=None, Tseed=None, T=None):
    dims = _dims(shape)
    try:
        bshape = np.broadcast_shapes(counts.shape, probs.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"counts and probs must have compatible batch dimensions: "
            f"{dims_text(counts.shape)} vs. {dims_text(probs.shape)}") from None
    n, per = _batch_layout("StatelessRandomBinomial", dims, bshape)
    c = np.broadcast_to(counts, bshape).reshape(-1)
    p = np.broadcast_to(probs, bshape).reshape(-1)
    out = samplers.binomial(_stateless_rng(seed), c, p, per, counts.dtype)
    return _to_dtype(out, dtype.as_numpy_dtype).reshape(dims)


def _sampler_infer(inputs, attrs):
    _check_seed_shape(inputs[1])
    return [(_shape_infer_from(inputs[0]), attrs["dtype"])]


_StatelessRandomGammaV2 = register("StatelessRandomGammaV2", _gamma_kernel, _sampler_infer,
                                   _no_grad, allowed=_GAMMA_DTYPES)
_StatelessRandomPoisson = register("StatelessRandomPoisson", _poisson_kernel, _sampler_infer,
                                   _no_grad, allowed=_COUNT_DTYPES)
_StatelessRandomBinomial = register("StatelessRandomBinomial", _binomial_kernel,
                                    _sampler_infer, _no_grad, allowed=_COUNT_DTYPES)


def _check_attr_dtype(attr, dtype, allowed, op_name):
    if dtype not in allowed:
        msg = (f"Value for attr '{attr}' of {U.tf_type_name(dtype)} is not in the list of "
               f"allowed values: {', '.join(U.tf_type_name(d) for d in allowed)}")
        if _state.graph is None:
            raise errors.InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")
        raise TypeError(msg)


@export("random.stateless_gamma", "random.experimental.stateless_gamma")
def stateless_gamma(shape, seed, alpha, beta=None, dtype=D.float32, name=None):
    """Gamma(alpha, beta) samples (`beta` the inverse scale, default 1) that
    depend only on `shape` and the [2] int `seed`: TensorFlow's numbers.
    `shape` must end with the broadcast shape of `alpha` and `beta`; values
    are at least the dtype's smallest normal number.

    Raises:
      InvalidArgumentError: for a `shape` not ending with the parameters'
        shape, a dtype other than float16/32/64, or a bad seed.
    """
    dtype = D.as_dtype(dtype)
    with _scope(name or "stateless_random_gamma"):
        shape_t = _shape_arg("StatelessRandomGammaV3", shape)
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = convert_to_tensor(beta if beta is not None else 1, dtype=dtype, name="beta")
        _check_attr_dtype("dtype", dtype, _GAMMA_DTYPES, "StatelessRandomGammaV3")
        seed_t = _seed_arg(seed, "StatelessRandomGammaV3")
        bshape = np.broadcast_shapes(tuple(alpha.shape.as_list()), tuple(beta.shape.as_list())) \
            if alpha.shape.is_fully_defined() and beta.shape.is_fully_defined() else None
        if bshape is not None and bshape != tuple(alpha.shape.as_list()):
            alpha = broadcast_to(alpha, bshape)
        elif bshape is None:
            alpha = broadcast_to(alpha, broadcast_dynamic_shape(shape_of(alpha), shape_of(beta)))
        rnd = apply(_StatelessRandomGammaV2, [shape_t, seed_t, alpha], {"dtype": dtype},
                    name="StatelessRandomGammaV2")
        tiny = convert_to_tensor(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype)
        return maximum(tiny, realdiv(rnd, beta))


@export("random.stateless_poisson", "random.experimental.stateless_poisson")
def stateless_poisson(shape, seed, lam, dtype=D.int32, name=None):
    """Poisson(lam) samples that depend only on `shape` and the [2] int
    `seed`: TensorFlow's numbers. `shape` must end with `lam`'s shape.

    Raises:
      InvalidArgumentError: for a `shape` not ending with `lam`'s shape or a
        bad seed.
    """
    dtype = D.as_dtype(dtype)
    with _scope(name or "stateless_random_poisson"):
        shape_t = _shape_arg("StatelessRandomPoisson", shape)
        seed_t = _seed_arg(seed, "StatelessRandomPoisson")
        lam = convert_to_tensor(lam, name="lam")
        _check_attr_dtype("Rtype", lam.dtype, _COUNT_DTYPES, "StatelessRandomPoisson")
        _check_attr_dtype("dtype", dtype, _COUNT_DTYPES, "StatelessRandomPoisson")
        return apply(_StatelessRandomPoisson, [shape_t, seed_t, lam],
                     {"dtype": dtype, "Rtype": lam.dtype}, name="StatelessRandomPoisson")


@export("random.stateless_binomial", "random.experimental.stateless_binomial")
def stateless_binomial(shape, seed, counts, probs, output_dtype=D.int32, name=None):
    """Binomial(counts, probs) samples that depend only on `shape` and the [2]
    int `seed`: TensorFlow's numbers. `shape` must end with the broadcast
    shape of `counts` and `probs` (float16/32/64, one dtype).

    Raises:
      InvalidArgumentError: for a `shape` not ending with the parameters'
        shape or a bad seed.
    """
    output_dtype = D.as_dtype(output_dtype)
    with _scope(name or "stateless_random_binomial"):
        shape_t = _shape_arg("StatelessRandomBinomial", shape)
        seed_t = _seed_arg(seed, "StatelessRandomBinomial")
        probs = convert_to_tensor(probs, dtype_hint=D.float32, name="probs")
        counts = convert_to_tensor(counts, dtype_hint=probs.dtype, name="counts")
        return apply(_StatelessRandomBinomial, [shape_t, seed_t, counts, probs],
                     {"dtype": output_dtype, "T": counts.dtype}, name="StatelessRandomBinomial")
