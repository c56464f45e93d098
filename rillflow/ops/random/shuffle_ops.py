"""Deterministic permutations: `tf.random.experimental.index_shuffle` and
`tf.random_index_shuffle` (TensorFlow's RandomIndexShuffle: a Simon-style
Feistel cipher on a block of at least 16 bits, cycle-walked into
[0, max_index]), and `tf.random.experimental.stateless_shuffle`
(StatelessShuffle: RandomShuffle's Fisher-Yates pass on the Philox stream of
the scrambled seed). Both are pure functions of their seeds, TensorFlow's
permutations bit for bit.
"""
import math

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..core.split_pad_ops import pad
from . import distributions as _dist
from . import philox
from .random_util import _no_grad, _scope

_state = _context.state
_INDEX_DTYPES = (D.int32, D.uint32, D.int64, D.uint64)
# The first seed word index_shuffle prepends to a [2] seed.
_SEED_PAD = 498247692
_MIN_BLOCK = 16


# --- the cipher -------------------------------------------------------------------

def _round_keys(key, rounds, w):
    """Simon's key schedule on w-bit words from the three seed words."""
    mask = (1 << w) - 1
    c = 0xFFFFFFFC & mask
    z = 0x7369F885192C0EF5 & mask

    def rotr(x, r):
        return ((x >> r) | (x << (w - r))) & mask

    rk = [k & mask for k in key]
    for i in range(3, rounds):
        rk.append(c ^ (z & 1) ^ rk[i - 3] ^ rotr(rk[i - 1], 3) ^ rotr(rk[i - 1], 4))
        z >>= 1
    return rk


def _encrypt(values, round_keys, w):
    """One pass of the cipher over a uint64 array of w+w-bit blocks."""
    mask = np.uint64((1 << w) - 1)
    sw = np.uint64(w)

    def rotl(x, r):
        return ((x << np.uint64(r)) | (x >> np.uint64(w - r))) & mask

    def f(x):
        return (rotl(x, 1) & rotl(x, 8)) ^ rotl(x, 2)

    left = (values >> sw) & mask
    right = values & mask
    for i in range(0, len(round_keys), 2):
        left = left ^ f(right) ^ np.uint64(round_keys[i])
        right = right ^ f(left) ^ np.uint64(round_keys[i + 1])
    return (left << sw) | right


def _shuffle_group(index, key, max_index, rounds):
    """The new positions of the uint64 array `index` for one seed and bound."""
    if max_index == 0:
        return np.zeros_like(index)
    block = math.ceil(math.log2(float(max_index)))
    block = max(block + block % 2, _MIN_BLOCK)
    w = min(block, 64) // 2
    keys = _round_keys(key, rounds, w)
    out = index.copy()
    todo = np.ones(out.shape, bool)
    limit = np.uint64(max_index)
    # Cycle-walking: re-encrypt until the value falls in [0, max_index].
    for _ in range(1 << min(block, 40)):
        out[todo] = _encrypt(out[todo], keys, w)
        todo &= out > limit
        if not todo.any():
            return out
    raise errors.InvalidArgumentError(None, None, "index_shuffle did not terminate: an index "
                                      "above max_index")


def _index_shuffle_kernel(index, seed, max_index, rounds=4, dtype=None, Tseed=None):
    n = max(index.size, max_index.size, seed.size // 3)
    if not (index.ndim == 0 or (index.ndim == 1 and index.shape[0] == n)):
        raise errors.InvalidArgumentError(None, None, "Index bust be a scalar or vector.")
    if not ((seed.ndim == 1 and seed.shape[0] == 3) or
            (seed.ndim == 2 and seed.shape[0] == n and seed.shape[1] == 3)):
        raise errors.InvalidArgumentError(
            None, None, f"Seed must be a vector of size [3] or a matrix of size [{n}, 3] but "
            f"got {dims_text(seed.shape)}.")
    if not (max_index.ndim == 0 or (max_index.ndim == 1 and max_index.shape[0] == n)):
        raise errors.InvalidArgumentError(
            None, None, f"Maxval must be a scalar or a vector of the same size as index but "
            f"got {dims_text(max_index.shape)}")
    if rounds < 4 or rounds % 2:
        # TensorFlow's kernel reads past its round keys for odd counts.
        raise errors.InvalidArgumentError(
            None, None, f"rounds must be an even number >= 4, got {rounds}")
    idx = np.broadcast_to(index.reshape(-1), (n,)).astype(np.uint64)
    top = np.broadcast_to(max_index.reshape(-1), (n,)).astype(np.uint64)
    seeds = np.broadcast_to(seed.reshape(-1, 3), (n, 3)).astype(np.int64).astype(np.uint64)
    seeds &= np.uint64(0xFFFFFFFF)
    out = np.empty(n, np.uint64)
    groups = {}
    for i, (s, m) in enumerate(zip(map(tuple, seeds.tolist()), top.tolist())):
        groups.setdefault((s, m), []).append(i)
    for (s, m), members in groups.items():
        members = np.array(members)
        out[members] = _shuffle_group(idx[members], s, m, rounds)
    out = out.astype(index.dtype)
    return out.reshape(index.shape) if index.ndim == 0 and seed.ndim == 1 and \
        max_index.ndim == 0 else out


def _index_shuffle_infer(inputs, attrs):
    index, seed, max_index = inputs
    if index.shape.rank == 0 and seed.shape.rank == 1 and max_index.shape.rank == 0:
        return [(TensorShape([]), index.dtype)]
    return [(TensorShape([None]), index.dtype)]


_RandomIndexShuffle = register("RandomIndexShuffle", _index_shuffle_kernel,
                               _index_shuffle_infer, _no_grad)


def _check_dtype(op_name, attr, t, allowed):
    if t.dtype not in allowed:
        if _state.graph is None:
            raise errors.InvalidArgumentError(
                None, None, f"Value for attr '{attr}' of {U.tf_type_name(t.dtype)} is not in "
                f"the list of allowed values: "
                f"{', '.join(U.tf_type_name(d) for d in allowed)}")
        raise TypeError(f"Value passed to parameter has DataType {t.dtype.name} not in list "
                        f"of allowed values: {', '.join(d.name for d in allowed)}")


def _index_args(index, seed, max_index):
    index = convert_to_tensor(index, name="index")
    max_index = convert_to_tensor(max_index, dtype=index.dtype, name="max_index")
    seed = convert_to_tensor(seed, name="seed")
    _check_dtype("RandomIndexShuffle", "dtype", index, _INDEX_DTYPES)
    _check_dtype("RandomIndexShuffle", "Tseed", seed, _INDEX_DTYPES)
    return index, seed, max_index


@export("random_index_shuffle", "compat.v1.random_index_shuffle")
def random_index_shuffle(index, seed, max_index, rounds=4, name=None):
    """The position of `index` in the pseudorandom permutation of
    [0, max_index] that the [3] (or [n, 3]) int `seed` selects
    (TensorFlow's RandomIndexShuffle op; `rounds`, even and >= 4, is the
    cipher's round count). Scalars with a [3] seed give a scalar, otherwise
    a vector of the batch size; the dtype is index's."""
    with _scope(name or "RandomIndexShuffle"):
        index, seed, max_index = _index_args(index, seed, max_index)
        return apply(_RandomIndexShuffle, [index, seed, max_index], {"rounds": int(rounds)},
                     name="RandomIndexShuffle")


@export("random.experimental.index_shuffle", "compat.v1.random.experimental.index_shuffle")
def index_shuffle(index, seed, max_index):
    """The position of `index` (int scalar or vector in [0, max_index]) in the
    pseudorandom permutation of [0, ..., max_index] that the [2] int `seed`
    selects: `gather(v, index_shuffle(range(n), seed, n - 1))` shuffles `v`
    without materializing the permutation. Stateless: the same arguments
    give the same positions."""
    seed = convert_to_tensor(seed, name="seed")
    rank = seed.shape.rank
    # TensorFlow pads the first axis (also for a batched seed, whose shape
    # the op then rejects).
    paddings = [[1, 0]] + ([[0, 0]] * (rank - 1) if rank else [])
    seed = pad(seed, paddings, constant_values=_SEED_PAD)
    return random_index_shuffle(index, seed=seed, max_index=max_index, rounds=4)


# --- stateless shuffle ---------------------------------------------------------------

def _get_key_counter_kernel(seed, Tseed=None):
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not {dims_text(seed.shape)}")
    _, key, counter = philox.scramble_seed(int(seed[0]), int(seed[1]))
    return np.array([key], np.uint64), np.array(counter, np.uint64)


def _get_key_counter_infer(inputs, attrs):
    return [(TensorShape([1]), D.uint64), (TensorShape([2]), D.uint64)]


_StatelessRandomGetKeyCounter = register("StatelessRandomGetKeyCounter",
                                         _get_key_counter_kernel, _get_key_counter_infer,
                                         _no_grad)


def _stateless_shuffle_kernel(value, key, counter, alg, T=None):
    if key.shape != (1,):
        raise errors.InvalidArgumentError(
            None, None, f"key must have shape [1], not {dims_text(key.shape)}. (Note that "
            "batched keys are not supported yet.)")
    if counter.ndim != 1 or counter.shape[0] < 2:
        raise errors.InvalidArgumentError(
            None, None, f"counter must be a vector with length at least 2; got shape: "
            f"{dims_text(counter.shape)}. (Note that batched counters are not supported yet.)")
    if int(alg) not in (1, 3):  # Philox, or auto-select (Philox on CPU)
        raise errors.InvalidArgumentError(None, None, f"Unsupported algorithm id: {int(alg)}")
    if value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    pos = philox.from_key_counter(int(key[0]), int(counter[0]), int(counter[1]))
    return value[_dist.shuffle_permutation(pos, value.shape[0])]


_StatelessShuffle = register("StatelessShuffle", _stateless_shuffle_kernel,
                             lambda inputs, attrs: [(inputs[0].shape, inputs[0].dtype)],
                             _no_grad)

_ALGS = {"philox": 1, "threefry": 2, "auto_select": 3}


@export("random.experimental.stateless_shuffle",
        "compat.v1.random.experimental.stateless_shuffle")
def stateless_shuffle(value, seed, alg="auto_select", name=None):
    """`value` with its first dimension randomly permuted, as a pure function
    of the [2] int `seed` (and `alg`: "auto_select" and "philox" are the
    same on CPU; "threefry" fails as in TensorFlow)."""
    with _scope(name or "stateless_shuffle"):
        value = convert_to_tensor(value, name="value")
        if isinstance(alg, str):
            if alg.lower() not in _ALGS:
                raise ValueError(f"Unsupported algorithm {alg}")
            alg_id = _ALGS[alg.lower()]
        else:
            alg_id = int(getattr(alg, "value", alg))
        seed_t = seed if isinstance(seed, Tensor) else convert_to_tensor(seed, name="seed")
        if alg_id == 2:
            # ThreeFry's key and counter are the seed words; its one-word
            # counter is what the CPU kernel rejects.
            key = convert_to_tensor(np.array([0], np.uint64))
            counter = convert_to_tensor(np.array([0], np.uint64))
        else:
            key, counter = apply(_StatelessRandomGetKeyCounter, [seed_t], {},
                                 name="StatelessRandomGetKeyCounter", multi=True)
        alg_t = convert_to_tensor(alg_id, dtype=D.int32, name="alg")
        return apply(_StatelessShuffle, [value, key, counter, alg_t], {},
                     name="StatelessShuffle")

