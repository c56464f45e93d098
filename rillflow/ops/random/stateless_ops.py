"""The stateless random ops (`tf.random.stateless_*`, `tf.random.split`,
`tf.random.fold_in`): pure functions of their [2] int seed input. Each run
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
from .seeding import _stateless_rng
from .stateful_ops import _categorical_args, _multinomial_infer
from ..core.join_ops import stack
from ..core.math_ops import add, multiply, subtract

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
