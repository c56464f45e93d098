"""`tf.random.Generator`: a random number generator with its own state.

A Generator keeps an int64 [3] state variable, TensorFlow's Philox state:
a 128-bit counter (words 0 and 1) and a key (word 2). Each of its ops
(registry entries StatefulUniform, StatefulStandardNormalV2, ...) draws from
Philox at the current state and advances the counter by 256 per value drawn,
as TensorFlow's kernels do, so the numbers are TensorFlow's and
`reset(state)` replays them. Binomial uses NumPy's algorithm on the Philox
stream (not TensorFlow's numbers).
"""
import enum

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import dims_text
from ..core import op_util as U
from .random_util import (_STATELESS_UNIFORM_DTYPES, _count, _dims, _float_dtype_error,
                          _full_int, _int_bounds, _invalid_dtype, _no_grad, _normal,
                          _numpy_rng, _random_infer, _random_int_infer, _scaled, _scope,
                          _shape_arg, _shape_infer_from, _truncated, _uniform01, _uniform_int)
from . import philox
from .seeding import _UINT64_MASK, _check_seed_value
from ..core.constant_ops import zeros_like
from ..core.join_ops import stack
from ..core.math_ops import add, multiply, subtract
from ..state.variables import Variable


# --- tf.random.Generator --------------------------------------------------------

@export("random.Algorithm", "random.experimental.Algorithm")
class Algorithm(enum.Enum):
    """The counter-based RNG algorithms a `Generator` may name.

    TensorFlow's CPU kernels run Philox for PHILOX and AUTO_SELECT; so does
    rillflow, for THREEFRY too.
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
    counter = ((int(s[0]) | (int(s[1]) << 64)) + int(delta)) & ((1 << 128) - 1)
    out = s.copy()
    out[0] = counter & _UINT64_MASK
    out[1] = counter >> 64
    return out.view(np.int64)


def _generator_pos(storage, count):
    """The Philox position for a `Generator` op drawing `count` values; the
    state's counter moves on by 256 per value, as TensorFlow's does."""
    state = np.asarray(storage.value, dtype=np.int64)
    w = state.view(np.uint64)
    pos = philox.from_key_counter(int(w[2]), int(w[0]), int(w[1]))
    storage.value = _advance(state, int(count) * 256)
    return pos


# Arguments are validated before the state advances: a failing op uses no numbers.

def _gen_uniform_kernel(shape, dtype=D.float32, _gen=None):
    dims = _dims(shape)
    return _uniform01(_generator_pos(_gen, _count(dims)), dims, dtype.as_numpy_dtype)


def _gen_uniform_int_kernel(shape, minval, maxval, dtype=D.int32, _gen=None):
    dims = _dims(shape)
    _int_bounds(minval, maxval)
    return _uniform_int(_generator_pos(_gen, _count(dims)), dims, minval, maxval,
                        dtype.as_numpy_dtype)


def _gen_full_int_kernel(shape, dtype=D.uint64, _gen=None):
    dims = _dims(shape)
    return _full_int(_generator_pos(_gen, _count(dims)), dims, dtype.as_numpy_dtype)


def _gen_normal_kernel(shape, dtype=D.float32, _gen=None):
    dims = _dims(shape)
    return _normal(_generator_pos(_gen, _count(dims)), dims, dtype.as_numpy_dtype)


def _gen_truncated_kernel(shape, dtype=D.float32, _gen=None):
    dims = _dims(shape)
    return _truncated(_generator_pos(_gen, _count(dims)), dims, dtype.as_numpy_dtype)


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
    rng = _numpy_rng(_generator_pos(_gen, _count(dims)))
    return rng.binomial(n.astype(np.int64), p.astype(np.float64)).astype(dtype.as_numpy_dtype)


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
        state = np.array([philox.random_seed64() for _ in range(_STATE_SIZE)],
                         np.uint64).view(np.int64)
        return cls(state=state, alg=alg)

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
        """Advances the state as drawing `delta` values would (256 Philox
        calls each)."""
        storage = self._state_var._storage
        storage.value = _advance(np.asarray(storage.value, dtype=np.int64), int(delta) * 256)

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
        """`count` seeds for stateless ops, as an int64 [2, count] tensor:
        TensorFlow's [keys; zeros] (stateless ops scramble the pair, so one
        random word suffices)."""
        keys = self.uniform_full_int([count], dtype=D.int64)
        return stack([keys, zeros_like(keys)])

    def split(self, count=1):
        """`count` new generators, independent of this one and of each other:
        each has a fresh random key and a zero counter, as in TensorFlow."""
        keys = np.asarray(self.uniform_full_int([count], dtype=D.int64).numpy())
        return [Generator(state=np.array([0, 0, k], np.int64), alg=self._alg) for k in keys]


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
