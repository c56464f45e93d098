"""Random ops (`tf.random`) and TensorFlow's seeding rules.

Seeding follows `tf.random.set_seed`:

- Neither a global nor an op seed: every result is nondeterministic.
- A global seed but no op seed: each op gets an op seed of its own, drawn
  (eagerly) from a sequence that `set_seed` restarts, or (in a graph) from
  the graph's op counter, so a program's sequence of results repeats after
  `set_seed` with the same value, and each traced function sees the same
  sequence.
- An op seed (with or without a global seed): eagerly, successive calls
  with the same seeds continue one stream of numbers until `set_seed` is
  called again; in a graph, each random op node owns a stream that
  advances every time the graph runs.

Random ops are stateful registry entries whose kernels draw from a NumPy
`Generator` passed in the hidden attr `_rng` (hidden attrs are not part of
the GraphDef view). The generator is created with the op node in a graph,
and looked up eagerly from a cache keyed by op type, dtype and seeds. The
numbers differ from TensorFlow's (another generator); distributions,
dtypes, shapes and the seeding behaviour are TensorFlow's.

Stateless ops (`tf.random.stateless_*`) are pure functions of their seed
input: they seed a fresh generator from it on each run. A
`tf.random.Generator` keeps an int64 [3] state variable; each of its ops
draws from a generator made from the current state and then advances it.
"""
import contextlib
import enum
import random as _pyrandom
import weakref

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core.op_util import FLOATS

_state = _context.state
_NULL_SCOPE = contextlib.nullcontext()

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
_UINT64_MASK = 2 ** 64 - 1
_INT32_LIMIT = 2 ** 31

_INTS = U.INDEX
_UNIFORM_DTYPES = FLOATS + _INTS
_STATELESS_UNIFORM_DTYPES = FLOATS + _INTS + (D.uint32, D.uint64)
_POISSON_DTYPES = (D.float16, D.float32, D.float64, D.int32, D.int64)


# --- seeds --------------------------------------------------------------------

class _EagerSeeds:
    """The eager global seed, the sequence op seeds are drawn from, and the
    generators of the eager random ops that have an op seed."""

    def __init__(self):
        self.seed = None
        self.op_seeds = None
        self.streams = {}
        # Unseeded ops share one generator seeded from the OS.
        self.nondeterministic = np.random.default_rng()


_eager = _EagerSeeds()
# Graphs holding stateful random ops, whose streams set_seed restarts.
_graphs_with_random_ops = weakref.WeakSet()


def _check_seed_value(seed):
    if seed is None:
        return None
    if isinstance(seed, Tensor):
        seed = U.constant_value(seed)
        if seed is None:
            raise TypeError("The seed must be known while building the graph.")
    if isinstance(seed, (np.ndarray, np.generic)) and np.ndim(seed) == 0:
        seed = seed.item()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"The seed must be an integer or None; got {seed!r} of type "
                        f"{type(seed).__name__}.")
    return int(seed)


@export("random.set_seed", "compat.v1.set_random_seed", "compat.v1.random.set_random_seed")
def set_seed(seed):
    """Sets the global random seed (None makes results nondeterministic again).

    Eagerly this also restarts every random stream: the sequence of results
    of the random ops after `set_seed(s)` is the same each time. While
    building a graph it sets the seed of that graph.

    Raises:
      TypeError: if `seed` is not an integer or None.
    """
    seed = _check_seed_value(seed)
    g = _state.graph
    if g is not None:
        g.seed = seed
        return
    _eager.seed = seed
    _eager.op_seeds = _pyrandom.Random(seed) if seed is not None else None
    _eager.streams.clear()
    # As in TensorFlow, functions traced earlier keep their op seeds but
    # start their random sequences over.
    for graph in list(_graphs_with_random_ops):
        restart_random_streams(graph)


def _graph_seed(g):
    """The global seed in effect in graph `g`; a function graph without one
    of its own inherits it from where it is traced."""
    while g is not None:
        if g.seed is not None or not getattr(g, "is_function_graph", False):
            return g.seed
        g = getattr(g, "outer_graph", None)
    return _eager.seed


def _truncate(seed):
    return seed % _MAXINT32


@export("compat.v1.random.get_seed", "compat.v1.get_seed")
def get_seed(op_seed):
    """The (global seed, op seed) pair a random op uses, per `set_seed`'s rules.

    (None, None) means nondeterministic.
    """
    op_seed = _check_seed_value(op_seed)
    g = _state.graph
    global_seed = _eager.seed if g is None else _graph_seed(g)
    if global_seed is not None:
        if op_seed is None:
            if g is None:
                if _eager.op_seeds is None:
                    _eager.op_seeds = _pyrandom.Random(global_seed)
                op_seed = _eager.op_seeds.randint(0, _MAXINT32)
            else:
                op_seed = g._last_id
        seeds = (_truncate(global_seed), _truncate(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _truncate(op_seed))
    else:
        seeds = (None, None)
    # (0, 0) means "nondeterministic" to TensorFlow's kernels.
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds


def _stateful_attrs(op_type, key_dtype, op_seed, **attrs):
    """The attrs of a stateful random op, with the generator it draws from.

    Eagerly the generator of an explicit op seed is cached so that repeated
    calls continue its stream; derived op seeds are fresh on every call, so
    their generators are not kept.
    """
    seed, seed2 = get_seed(op_seed)
    attrs["seed"] = 0 if seed is None else seed
    attrs["seed2"] = 0 if seed2 is None else seed2
    if _state.graph is not None:
        _graphs_with_random_ops.add(_state.graph)
    if seed is None:
        rng = np.random.default_rng() if _state.graph is not None else _eager.nondeterministic
    elif _state.graph is not None or op_seed is None:
        rng = np.random.default_rng([seed, seed2])
    else:
        key = (op_type, key_dtype.name, seed, seed2)
        rng = _eager.streams.get(key)
        if rng is None:
            rng = _eager.streams[key] = np.random.default_rng([seed, seed2])
    attrs["_rng"] = rng
    return attrs


def restart_random_streams(graph):
    """Restarts the stream of every stateful random op of `graph`.

    TensorFlow gives each v1 Session its own kernels, so a new Session on a
    seeded graph replays the same numbers; `Session` calls this when it is
    created. Unseeded ops get fresh OS entropy.
    """
    for op in graph.get_operations():
        rng = op.attrs.get("_rng")
        if not isinstance(rng, np.random.Generator):
            continue
        seed, seed2 = op.attrs.get("seed", 0), op.attrs.get("seed2", 0)
        fresh = np.random.default_rng([seed, seed2] if seed or seed2 else None)
        rng.bit_generator.state = fresh.bit_generator.state


def _rng_or_default(rng):
    return rng if rng is not None else _eager.nondeterministic


def _stateless_rng(seed):
    """A generator that is a pure function of a [2] int seed tensor's value."""
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not {dims_text(seed.shape)}")
    return np.random.default_rng([int(s) & _UINT64_MASK for s in seed])


# --- shared helpers -------------------------------------------------------------

def _scope(name):
    g = _state.graph
    return _NULL_SCOPE if g is None else g.name_scope(name)


def _dims(shape):
    """A runtime shape tensor's value as a tuple of ints.

    Raises:
      InvalidArgumentError: if it is not a vector or has a negative entry.
    """
    if shape.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"shape must be a vector of {{int32,int64}}, got shape "
            f"{dims_text(shape.shape)}")
    dims = tuple(shape.tolist())
    if dims and min(dims) < 0:
        raise errors.InvalidArgumentError(None, None, f"Dimension {min(dims)} must be >= 0")
    return dims


def _shape_tensor(shape):
    """A shape argument (list, tuple, TensorShape, tensor) as an int tensor."""
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a "
                             "Tensor.")
        shape = shape.as_list()
    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, (list, tuple)):
        if not shape:
            return convert_to_tensor(np.zeros(0, np.int32), name="shape")
        if _state.graph is None and all(d.__class__ is int for d in shape):
            fits = all(-_INT32_LIMIT <= d < _INT32_LIMIT for d in shape)
            return EagerTensor(np.array(shape, dtype=np.int32 if fits else np.int64))
        if any(isinstance(d, Tensor) for d in shape):
            from ..core.array_ops import stack
            return stack([d if isinstance(d, Tensor) else convert_to_tensor(d, dtype=D.int32)
                          for d in shape])
    return convert_to_tensor(shape, name="shape")


def _check_shape_dtype(op_name, shape_t, arg="T"):
    """The error for a shape tensor that is not int32/int64."""
    if shape_t.dtype in _INTS:
        return
    msg = (f"Value for attr '{arg}' of {U.tf_type_name(shape_t.dtype)} is not in the list of "
           "allowed values: int32, int64")
    if _state.graph is None:
        raise errors.InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")
    raise TypeError(msg)


def _shape_infer_from(shape_t):
    """The static output shape described by a shape tensor."""
    s = shape_t.shape
    if s.rank is not None and s.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.rank}")
    return U.constant_shape(shape_t)


def _invalid_dtype(dtype, accepted):
    names = ", ".join("tf." + d.name for d in accepted)
    return ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                      f"({names}).")


def _float_dtype_error(op_name, dtype):
    msg = (f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: "
           f"{', '.join(d.name for d in FLOATS)}")
    if _state.graph is None:
        return errors.InvalidArgumentError(None, None, f"{msg} [Op:{op_name}]")
    return TypeError(msg)


def _no_grad(op, *grads):
    return [None] * len(op.inputs)


def _uniform01(rng, dims, np_dtype):
    """Uniform [0, 1) floats of `np_dtype`, never rounded up to 1."""
    if np_dtype == np.float64 or np_dtype == np.float32:
        return rng.random(dims, dtype=np_dtype)
    # Half precision: as many random mantissa bits as the type holds, so
    # that every value is exact and below 1.
    bits = np.finfo(np_dtype).nmant
    return (rng.integers(0, 2 ** bits, dims) * (2.0 ** -bits)).astype(np_dtype)


def _normal(rng, dims, np_dtype):
    if np_dtype == np.float64 or np_dtype == np.float32:
        return rng.standard_normal(dims, dtype=np_dtype)
    return rng.standard_normal(dims, dtype=np.float32).astype(np_dtype)


def _truncated(rng, dims, np_dtype):
    """Standard normal values redrawn until within two standard deviations."""
    work = np.float64 if np_dtype == np.float64 else np.float32
    out = rng.standard_normal(dims, dtype=work)
    bad = np.abs(out) > 2
    while np.any(bad):
        out[bad] = rng.standard_normal(int(np.count_nonzero(bad)), dtype=work)
        bad = np.abs(out) > 2
    return out.astype(np_dtype, copy=False)


def _check_bounds(lo, hi):
    if np.ndim(lo) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"minval must be 0-D, got shape {dims_text(np.shape(lo))}")
    if np.ndim(hi) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"maxval must be 0-D, got shape {dims_text(np.shape(hi))}")


def _int_bounds(lo, hi):
    """Integer bounds as ints, checked: scalars with lo < hi."""
    _check_bounds(lo, hi)
    lo, hi = int(lo), int(hi)
    if not lo < hi:
        raise errors.InvalidArgumentError(None, None,
                                          f"Need minval < maxval, got {lo} >= {hi}")
    return lo, hi


def _uniform_int(rng, dims, lo, hi, np_dtype):
    lo, hi = _int_bounds(lo, hi)
    return rng.integers(lo, hi, dims, dtype=np_dtype)


def _multinomial(rng, logits, num_samples, np_dtype):
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits should be a matrix, got shape {dims_text(logits.shape)}")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_samples should be non-negative, got {n}")
    batch, classes = logits.shape
    if classes == 0 and batch > 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_classes should be positive, got {classes}")
    out = np.empty((batch, n), dtype=np_dtype)
    if batch == 0 or n == 0:
        return out
    x = logits.astype(np.float64)
    finite_max = np.max(np.where(np.isneginf(x), -np.inf, x), axis=1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.exp(x - finite_max)
    p = np.nan_to_num(p, nan=0.0)
    cdf = np.cumsum(p, axis=1)
    u = rng.random((batch, n))
    for i in range(batch):
        total = cdf[i, -1]
        if not total > 0 or not np.isfinite(total):
            out[i] = classes - 1
            continue
        # side="right": a class of probability 0 is never chosen.
        idx = np.searchsorted(cdf[i] / total, u[i], side="right")
        out[i] = np.minimum(idx, classes - 1)
    return out


# --- stateful kernels -------------------------------------------------------------

def _random_uniform_kernel(shape, dtype=D.float32, seed=0, seed2=0, _rng=None):
    return _uniform01(_rng_or_default(_rng), _dims(shape), dtype.as_numpy_dtype)


def _random_uniform_int_kernel(shape, minval, maxval, Tout=D.int32, seed=0, seed2=0,
                               _rng=None):
    return _uniform_int(_rng_or_default(_rng), _dims(shape), minval, maxval,
                        Tout.as_numpy_dtype)


def _random_normal_kernel(shape, dtype=D.float32, seed=0, seed2=0, _rng=None):
    return _normal(_rng_or_default(_rng), _dims(shape), dtype.as_numpy_dtype)


def _truncated_normal_kernel(shape, dtype=D.float32, seed=0, seed2=0, _rng=None):
    return _truncated(_rng_or_default(_rng), _dims(shape), dtype.as_numpy_dtype)


def _multinomial_kernel(logits, num_samples, output_dtype=D.int64, seed=0, seed2=0,
                        _rng=None):
    return _multinomial(_rng_or_default(_rng), logits, num_samples,
                        output_dtype.as_numpy_dtype)


def _shuffle_kernel(value, seed=0, seed2=0, _rng=None):
    if value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    return value[_rng_or_default(_rng).permutation(value.shape[0])]


def _gamma_kernel(shape, alpha, seed=0, seed2=0, _rng=None):
    dims = _dims(shape) + alpha.shape
    a = np.broadcast_to(alpha.astype(np.float64), dims)
    return _rng_or_default(_rng).standard_gamma(a).astype(alpha.dtype)


def _poisson_kernel(shape, rate, dtype=D.float32, seed=0, seed2=0, _rng=None):
    dims = _dims(shape) + rate.shape
    lam = np.broadcast_to(rate.astype(np.float64), dims)
    if np.any(lam < 0):
        raise errors.InvalidArgumentError(None, None, "rate must be non-negative")
    return _rng_or_default(_rng).poisson(lam).astype(dtype.as_numpy_dtype)


# --- shape functions ------------------------------------------------------------

def _random_infer(inputs, attrs):
    return [(_shape_infer_from(inputs[0]), attrs["dtype"])]


def _random_int_infer(inputs, attrs):
    shape_t, lo, hi = inputs
    for t, n in ((lo, "minval"), (hi, "maxval")):
        if t.shape.rank is not None and t.shape.rank != 0:
            raise ValueError(f"{n} must be a scalar; got a tensor of shape {dims_text(t.shape)}")
    return [(_shape_infer_from(shape_t), attrs["Tout"])]


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

def _shape_arg(op_name, shape):
    t = _shape_tensor(shape)
    _check_shape_dtype(op_name, t)
    return t


@export("random.uniform", "compat.v1.random_uniform", "compat.v1.random.uniform")
def uniform(shape, minval=0, maxval=None, dtype=D.float32, seed=None, name=None):
    """Uniform random values in [minval, maxval).

    Floats default to [0, 1); integer dtypes need `maxval` and scalar bounds
    with minval < maxval (the range is exact, without modulo bias).

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
        from ..core.math_ops import add, multiply, subtract
        if minval_is_zero:
            return multiply(rnd, hi)
        return add(multiply(rnd, subtract(hi, lo)), lo)


def _scaled(rnd, mean, stddev, dtype):
    """rnd * stddev + mean, skipping the identity cases (0 and 1 as numbers)."""
    plain_std = not isinstance(stddev, Tensor) and np.ndim(stddev) == 0 and stddev == 1
    plain_mean = not isinstance(mean, Tensor) and np.ndim(mean) == 0 and mean == 0
    if plain_std and plain_mean:
        return rnd
    from ..core.math_ops import add, multiply
    if not plain_std:
        rnd = multiply(rnd, convert_to_tensor(stddev, dtype=dtype, name="stddev"))
    if not plain_mean:
        rnd = add(rnd, convert_to_tensor(mean, dtype=dtype, name="mean"))
    return rnd


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
    from ..core.array_ops import broadcast_to, broadcast_static_shape, shape as shape_of
    from ..core.math_ops import maximum, truediv
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
            from ..core.array_ops import broadcast_dynamic_shape
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


# --- stateless ops ----------------------------------------------------------------

def _stateless_uniform_kernel(shape, seed, dtype=D.float32):
    return _uniform01(_stateless_rng(seed), _dims(shape), dtype.as_numpy_dtype)


def _stateless_uniform_int_kernel(shape, seed, minval, maxval, dtype=D.int32):
    return _uniform_int(_stateless_rng(seed), _dims(shape), minval, maxval,
                        dtype.as_numpy_dtype)


def _stateless_full_int_kernel(shape, seed, dtype=D.int32):
    info = np.iinfo(dtype.as_numpy_dtype)
    return _stateless_rng(seed).integers(info.min, info.max, _dims(shape),
                                         dtype=dtype.as_numpy_dtype, endpoint=True)


def _stateless_normal_kernel(shape, seed, dtype=D.float32):
    return _normal(_stateless_rng(seed), _dims(shape), dtype.as_numpy_dtype)


def _stateless_truncated_kernel(shape, seed, dtype=D.float32):
    return _truncated(_stateless_rng(seed), _dims(shape), dtype.as_numpy_dtype)


def _stateless_multinomial_kernel(logits, num_samples, seed, output_dtype=D.int64):
    return _multinomial(_stateless_rng(seed), logits, num_samples,
                        output_dtype.as_numpy_dtype)


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
        from ..core.math_ops import add, multiply, subtract
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
    """A new [2] seed derived from `seed` and the integer `data`."""
    from ..core.array_ops import concat, reshape
    from ..core.math_ops import cast
    seed_t = _seed_arg(seed, "StatelessRandomUniformFullInt")
    data_t = cast(convert_to_tensor(data, dtype_hint=D.int64), seed_t.dtype)
    key = stateless_uniform([1], seed=seed_t, minval=None, maxval=None, dtype=seed_t.dtype)
    return stateless_uniform([2], seed=concat([key, reshape(data_t, [1])], 0), minval=None,
                             maxval=None, dtype=seed_t.dtype)


# --- tf.random.Generator --------------------------------------------------------

@export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """The counter-based RNG algorithms a `Generator` may name.

    rillflow draws from NumPy's Philox generator whichever is named; the
    name is kept for compatibility.
    """
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_ALG_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY,
              "auto_select": Algorithm.AUTO_SELECT}
_STATE_SIZE = 3


def _alg_value(alg):
    """An algorithm argument (None, name, enum or int) as TensorFlow's int."""
    if alg is None:
        return Algorithm.PHILOX.value
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        a = _ALG_NAMES.get(alg.lower())
        if a is None:
            raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                             f"{', '.join(_ALG_NAMES)}.")
        return a.value
    if isinstance(alg, Tensor):
        alg = int(U.constant_value(alg))
    alg = int(alg)
    if alg not in (1, 2, 3):
        raise ValueError(f"Argument `alg` got unsupported value {alg}.")
    return alg


def _words(value, n):
    """A Python int as `n` 64-bit words (two's complement), lowest first, as int64."""
    value &= (1 << (64 * n)) - 1
    out = [(value >> (64 * i)) & _UINT64_MASK for i in range(n)]
    return np.array(out, dtype=np.uint64).view(np.int64)


@export("random.create_rng_state", "random.experimental.create_rng_state")
def create_rng_state(seed, alg):
    """The initial [3] int64 state of a `Generator` for an integer seed."""
    _alg_value(alg)
    seed = _check_seed_value(seed)
    return _words(seed, _STATE_SIZE)


def _advance(state, delta):
    """`state` (int64 [3]) with its 128-bit counter (words 0 and 1) moved by `delta`."""
    s = state.view(np.uint64)
    counter = (int(s[0]) | (int(s[1]) << 64)) + int(delta)
    out = s.copy()
    out[0] = counter & _UINT64_MASK
    out[1] = (counter >> 64) & _UINT64_MASK
    return out.view(np.int64)


def _generator_rng(storage):
    """The NumPy generator for a `Generator`'s next op, advancing its state.

    Each op's numbers are a pure function of the state when it runs, so
    `reset(state)` replays them.
    """
    state = storage.value
    entropy = [int(w) for w in np.asarray(state).view(np.uint64)]
    storage.value = _advance(np.asarray(state, dtype=np.int64), 1)
    return np.random.Generator(np.random.Philox(np.random.SeedSequence(entropy)))


# Arguments are validated before the state advances: a failing op uses no numbers.

def _gen_uniform_kernel(shape, dtype=D.float32, _gen=None):
    dims = _dims(shape)
    return _uniform01(_generator_rng(_gen), dims, dtype.as_numpy_dtype)


def _gen_uniform_int_kernel(shape, minval, maxval, dtype=D.int32, _gen=None):
    dims = _dims(shape)
    _int_bounds(minval, maxval)
    return _uniform_int(_generator_rng(_gen), dims, minval, maxval, dtype.as_numpy_dtype)


def _gen_full_int_kernel(shape, dtype=D.uint64, _gen=None):
    dims = _dims(shape)
    info = np.iinfo(dtype.as_numpy_dtype)
    return _generator_rng(_gen).integers(info.min, info.max, dims,
                                         dtype=dtype.as_numpy_dtype, endpoint=True)


def _gen_normal_kernel(shape, dtype=D.float32, _gen=None):
    dims = _dims(shape)
    return _normal(_generator_rng(_gen), dims, dtype.as_numpy_dtype)


def _gen_truncated_kernel(shape, dtype=D.float32, _gen=None):
    dims = _dims(shape)
    return _truncated(_generator_rng(_gen), dims, dtype.as_numpy_dtype)


def _gen_binomial_kernel(shape, counts, probs, dtype=D.int32, _gen=None):
    dims = _dims(shape)
    try:
        n = np.broadcast_to(counts, dims)
        p = np.broadcast_to(probs, dims)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"counts {dims_text(np.shape(counts))} and probs "
            f"{dims_text(np.shape(probs))} must broadcast to shape {dims_text(dims)}") from None
    if np.any((p < 0) | (p > 1)):
        raise errors.InvalidArgumentError(None, None, "probs must be in [0, 1]")
    return _generator_rng(_gen).binomial(n.astype(np.int64), p.astype(np.float64)).astype(
        dtype.as_numpy_dtype)


def _gen_int_infer(inputs, attrs):
    return _random_int_infer(inputs, {"Tout": attrs["dtype"]})


def _gen_binomial_infer(inputs, attrs):
    return [(_shape_infer_from(inputs[0]), attrs["dtype"])]


_StatefulUniform = register("StatefulUniform", _gen_uniform_kernel, _random_infer, _no_grad,
                            stateful=True)
_StatefulUniformInt = register("StatefulUniformInt", _gen_uniform_int_kernel, _gen_int_infer,
                               _no_grad, stateful=True)
_StatefulUniformFullInt = register("StatefulUniformFullInt", _gen_full_int_kernel,
                                   _random_infer, _no_grad, stateful=True)
_StatefulStandardNormalV2 = register("StatefulStandardNormalV2", _gen_normal_kernel,
                                     _random_infer, _no_grad, stateful=True)
_StatefulTruncatedNormal = register("StatefulTruncatedNormal", _gen_truncated_kernel,
                                    _random_infer, _no_grad, stateful=True)
_StatefulRandomBinomial = register("StatefulRandomBinomial", _gen_binomial_kernel,
                                   _gen_binomial_infer, _no_grad, stateful=True)


@export("random.Generator", "random.experimental.Generator")
class Generator:
    """A random number generator with its own state (`tf.random.Generator`).

    Successive calls continue one stream, eagerly and inside `tf.function`
    alike; the state is an int64 [3] variable (`state`) that `reset`,
    `reset_from_seed` and `skip` change. Use the `from_*` constructors.
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is not None, argument `state` and `alg` "
                                 "can't be set.")
            state = np.asarray(copy_from.state.numpy())
            alg = copy_from.algorithm
        elif state is None:
            raise ValueError("Argument `state` must not be None when `copy_from` is None.")
        self._alg = _alg_value(alg)
        self._state_var = self._make_state_var(self._state_array(state))

    @staticmethod
    def _state_array(state):
        if isinstance(state, Tensor) or hasattr(state, "_dense_var_to_tensor"):
            state = state.numpy()
        arr = np.asarray(state)
        if arr.shape != (_STATE_SIZE,):
            raise ValueError(f"Argument `state` must have shape [{_STATE_SIZE}]; got "
                             f"{list(arr.shape)}.")
        if arr.dtype.kind == "u":
            return arr.astype(np.uint64).view(np.int64)
        return np.array([int(v) for v in arr.reshape(-1)], dtype=object).astype(
            np.int64) if arr.dtype.kind == "O" else arr.astype(np.int64)

    @staticmethod
    def _make_state_var(state):
        from ..state.variables import Variable
        with _context.init_scope():
            var = Variable(state, trainable=False, name="StateVar")
        if var._storage.value is None:  # created in a v1 graph: usable at once
            var._storage.value = state
        return var

    # --- constructors -------------------------------------------------------
    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state is made from the integer `seed`."""
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        """A generator with the given int64 [3] state."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        seed = int(np.random.SeedSequence().generate_state(2, np.uint64).view(np.int64)[0])
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator from a key (scalar) and a counter ([2])."""
        counter = np.asarray(counter.numpy() if isinstance(counter, Tensor) else counter)
        key = np.asarray(key.numpy() if isinstance(key, Tensor) else key)
        if counter.shape != (2,) or key.size != 1:
            raise ValueError("`counter` must have shape [2] and `key` must be a scalar.")
        state = np.concatenate([counter.astype(np.int64).reshape(-1),
                                key.astype(np.int64).reshape(-1)])
        return cls(state=state, alg=alg)

    # --- state --------------------------------------------------------------
    @property
    def state(self):
        """The int64 [3] state variable."""
        return self._state_var

    @property
    def algorithm(self):
        """The RNG algorithm's TensorFlow number (1 for Philox)."""
        return self._alg

    @property
    def key(self):
        """The key part of the state (int64 scalar)."""
        return convert_to_tensor(np.int64(self._state_var._storage.value[-1]))

    def reset(self, state):
        """Sets the state."""
        self._state_var._storage.value = self._state_array(state)

    def reset_from_seed(self, seed):
        """Sets the state from an integer seed, as `from_seed` does."""
        self.reset(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        """Sets the state from a key and a [2] counter."""
        self.reset(Generator.from_key_counter(key, counter, self._alg).state.numpy())

    def skip(self, delta):
        """Advances the state as `delta` draws would."""
        storage = self._state_var._storage
        storage.value = _advance(np.asarray(storage.value, dtype=np.int64), int(delta))

    # --- sampling -------------------------------------------------------------
    def _attrs(self, dtype):
        return {"dtype": dtype, "_gen": self._state_var._storage}

    def _shape(self, op_name, shape):
        return _shape_arg(op_name, shape)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        """Normal random values (mean, stddev)."""
        return self._normal_like(_StatefulStandardNormalV2, "stateful_normal", shape, mean,
                                 stddev, dtype, name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=D.float32, name=None):
        """Normal random values within 2 stddev of the mean."""
        return self._normal_like(_StatefulTruncatedNormal, "truncated_normal", shape, mean,
                                 stddev, dtype, name)

    def _normal_like(self, opdef, scope, shape, mean, stddev, dtype, name):
        dtype = D.as_dtype(dtype)
        with _scope(name or scope):
            shape_t = self._shape(opdef.name, shape)
            for v, n in ((mean, "mean"), (stddev, "stddev")):
                if not isinstance(v, Tensor):
                    convert_to_tensor(v, dtype=dtype, name=n)
            if not dtype.is_floating:
                raise _float_dtype_error(opdef.name, dtype)
            rnd = apply1(opdef, shape_t, self._attrs(dtype), name=opdef.name)
            return _scaled(rnd, mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=D.float32, name=None):
        """Uniform random values in [minval, maxval); integer dtypes take both
        bounds, or neither for the dtype's whole range."""
        dtype = D.as_dtype(dtype)
        if dtype not in _STATELESS_UNIFORM_DTYPES:
            raise _invalid_dtype(dtype, _STATELESS_UNIFORM_DTYPES)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype!r}, minval and maxval must be both "
                                 f"`None` or both non-`None`; got minval={minval} and "
                                 f"maxval={maxval}")
            if minval is None:
                return self.uniform_full_int(shape, dtype, name)
        elif maxval is None:
            maxval = 1
        with _scope(name or "stateful_uniform"):
            if dtype.is_integer:
                shape_t = self._shape("StatefulUniformInt", shape)
                lo = convert_to_tensor(minval, dtype=dtype, name="min")
                hi = convert_to_tensor(maxval, dtype=dtype, name="max")
                return apply(_StatefulUniformInt, [shape_t, lo, hi], self._attrs(dtype),
                             name="StatefulUniformInt")
            shape_t = self._shape("StatefulUniform", shape)
            rnd = apply1(_StatefulUniform, shape_t, self._attrs(dtype), name="StatefulUniform")
            if isinstance(minval, int) and minval == 0 and isinstance(maxval, int) and \
                    maxval == 1:
                return rnd
            from ..core.math_ops import add, multiply, subtract
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
            return add(multiply(rnd, subtract(hi, lo)), lo)

    def uniform_full_int(self, shape, dtype=D.uint64, name=None):
        """Integers uniform over the dtype's whole range."""
        dtype = D.as_dtype(dtype)
        if dtype not in (D.int32, D.int64, D.uint32, D.uint64):
            raise _invalid_dtype(dtype, (D.int32, D.int64, D.uint32, D.uint64))
        shape_t = self._shape("StatefulUniformFullInt", shape)
        return apply1(_StatefulUniformFullInt, shape_t, self._attrs(dtype),
                      name=name or "StatefulUniformFullInt")

    def binomial(self, shape, counts, probs, dtype=D.int32, name=None):
        """Binomial(counts, probs) samples; counts and probs broadcast to `shape`."""
        dtype = D.as_dtype(dtype)
        with _scope(name or "binomial"):
            shape_t = self._shape("StatefulRandomBinomial", shape)
            c = convert_to_tensor(counts, name="counts")
            p = convert_to_tensor(probs, dtype_hint=c.dtype, name="probs")
            return apply(_StatefulRandomBinomial, [shape_t, c, p], self._attrs(dtype),
                         name="StatefulRandomBinomial")

    def make_seeds(self, count=1):
        """`count` seeds for stateless ops, as an int64 [2, count] tensor."""
        return self.uniform_full_int([2, count], dtype=D.int64)

    def split(self, count=1):
        """`count` new generators, independent of this one and of each other."""
        seeds = np.asarray(self.make_seeds(count).numpy())
        # Each new generator's key and high counter word come from a fresh
        # seed pair, with its counter starting at zero.
        return [Generator(state=np.array([0, seeds[1, i], seeds[0, i]], np.int64),
                          alg=self._alg) for i in range(count)]


_global_generator = None


@export("random.get_global_generator", "random.experimental.get_global_generator")
def get_global_generator():
    """The process's default `Generator` (created from OS entropy on first use)."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


@export("random.set_global_generator", "random.experimental.set_global_generator")
def set_global_generator(generator):
    """Replaces the default `Generator`."""
    global _global_generator
    _global_generator = generator
