"""The XLA lowerings (framework/lowering.py) of the random ops of
stateful_ops.py and stateless_ops.py, with JAX's generators.

A stateful op draws from a fresh key split off the computation's PRNG key
(`ctx.next_key()`), which compiled code threads through loops and branches
and keeps between calls (compiler/xla_compile.py), so every call and every
iteration draws new numbers: JAX's numbers, not TensorFlow's (whose
stateful kernels keep per-op state XLA has no place for).

The stateless uniform, normal and uniform-int ops compute TensorFlow's own
numbers: its seed scrambling and Philox4x32-10 stream (philox.py) and its
conversions of words to values (distributions.py) in JAX's uint64
arithmetic, so compiled and uncompiled programs draw the same values (the
uniform and integer ones bit for bit; normal values within the last bits
of the log/sin/cos of Box-Muller). The other stateless ops derive a JAX key
from the seed: deterministic per seed, JAX's numbers.
"""
import numpy as np

from ...framework import lowering as XL
from . import distributions as _dist
from . import philox as _philox

__all__ = []


def _dims(ctx, op, index, shape):
    return XL.ints(ctx.static(op, index, shape))


def _out(op):
    return op.outputs[0].dtype._np


def _seed_key(seed):
    """A raw JAX key (uint32[2]) from a TensorFlow seed tensor of two ints."""
    s = XL.jnp.asarray(seed).astype(np.int64)
    mixed = (s & 0xFFFFFFFF) ^ ((s >> 32) & 0xFFFFFFFF)
    return mixed.astype(np.uint32)


# --- TensorFlow's Philox stream in JAX (stateless ops) -----------------------------

_M32 = 0xFFFFFFFF


def _philox_rounds(c0, c1, c2, c3, key):
    """Philox4x32-10 on uint64 arrays holding 32-bit words (philox._rounds)."""
    jnp, u64 = XL.jnp, np.uint64
    k0, k1 = key & u64(_M32), (key >> u64(32)) & u64(_M32)
    for _ in range(_philox._ROUNDS):
        p0 = c0 * _philox._M0
        p1 = c2 * _philox._M1
        c0, c1, c2, c3 = ((p1 >> u64(32)) ^ c1 ^ k0, p1 & u64(_M32),
                          (p0 >> u64(32)) ^ c3 ^ k1, p0 & u64(_M32))
        k0 = (k0 + u64(_philox._W0)) & u64(_M32)
        k1 = (k1 + u64(_philox._W1)) & u64(_M32)
    return jnp.stack([c0, c1, c2, c3], axis=-1).astype(np.uint32)


def _philox_position(seed):
    """TensorFlow's key and counter high word for a stateless seed (scramble_seed)."""
    s = XL.lax.bitcast_convert_type(XL.jnp.asarray(seed).astype(np.int64), np.uint64)
    u64 = np.uint64
    w = _philox_rounds(s[0] & u64(_M32), s[0] >> u64(32), s[1] & u64(_M32), s[1] >> u64(32),
                       u64(_philox._SCRAMBLE_KEY)).astype(np.uint64)
    return w[0] | (w[1] << u64(32)), w[2] | (w[3] << u64(32))


def _philox_words(seed, calls):
    """The words of `calls` successive Philox calls of a stateless op, flat."""
    key, hi = _philox_position(seed)
    i = XL.jnp.arange(calls, dtype=np.uint64)
    u64 = np.uint64
    c2 = XL.jnp.broadcast_to(hi & u64(_M32), i.shape)
    c3 = XL.jnp.broadcast_to(hi >> u64(32), i.shape)
    return _philox_rounds(i & u64(_M32), i >> u64(32), c2, c3, key).reshape(-1)


def _philox_words_at(key, lo, hi, calls):
    """The words of `calls` successive Philox calls from the 128-bit counter
    (lo, hi) under `key` (uint64 JAX scalars): a `tf.random.Generator`'s
    state."""
    u64 = np.uint64
    c_lo = lo + XL.jnp.arange(calls, dtype=np.uint64)
    c_hi = hi + (c_lo < lo).astype(np.uint64)
    return _philox_rounds(c_lo & u64(_M32), c_lo >> u64(32), c_hi & u64(_M32),
                          c_hi >> u64(32), key).reshape(-1)


def _words(src, calls):
    """Philox words for a stateless seed tensor, or for a Generator's
    position (a (key, counter lo, counter hi) tuple)."""
    if isinstance(src, tuple):
        return _philox_words_at(*src, calls)
    return _philox_words(src, calls)


def _u32_to_float(w):
    bits = (w & _dist._F32_MANT) | _dist._F32_ONE
    return XL.lax.bitcast_convert_type(bits, np.float32) - np.float32(1)


def _u64_to_double(hi_word, lo_word):
    man = ((hi_word & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)) | \
        lo_word.astype(np.uint64)
    return XL.lax.bitcast_convert_type(man | np.uint64(1023 << 52), np.float64) - 1.0


def _tf_uniform(seed, dims, dtype):
    n = int(np.prod(dims, dtype=np.int64))
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        w = _words(seed, -(-n // 2))
        return _u64_to_double(w[0::2], w[1::2])[:n].reshape(dims)
    w = _words(seed, -(-n // 4))[:n]
    if dtype == np.float32:
        return _u32_to_float(w).reshape(dims)
    bits = 10 if dtype == np.float16 else 7
    f = (w & np.uint32((1 << bits) - 1)).astype(np.float32) * np.float32(2.0 ** -bits)
    return f.astype(dtype).reshape(dims)


def _tf_normal(seed, dims, dtype):
    jnp = XL.jnp
    n = int(np.prod(dims, dtype=np.int64))
    if np.dtype(dtype) == np.float64:
        w = _words(seed, -(-n // 2)).reshape(-1, 4)
        u1 = jnp.maximum(_u64_to_double(w[:, 0], w[:, 1]), 1e-7)
        v1 = _dist._TWO_PI * _u64_to_double(w[:, 2], w[:, 3])
    else:
        w = _words(seed, -(-n // 4))
        u1 = jnp.maximum(_u32_to_float(w[0::2]), _dist._EPSILON32)
        v1 = (_dist._TWO_PI * _u32_to_float(w[1::2]).astype(np.float64)).astype(np.float32)
    u2 = jnp.sqrt(-2 * jnp.log(u1)).astype(u1.dtype)
    pairs = jnp.stack([jnp.sin(v1) * u2, jnp.cos(v1) * u2], axis=-1).reshape(-1)
    return pairs[:n].astype(dtype).reshape(dims)


def _tf_uniform_int(seed, dims, lo, hi, dtype):
    jnp = XL.jnp
    n = int(np.prod(dims, dtype=np.int64))
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        w = _words(seed, -(-n // 2))
        bits = w[0::2].astype(np.uint64) | (w[1::2].astype(np.uint64) << np.uint64(32))
        span = XL.lax.bitcast_convert_type(jnp.asarray(hi, np.int64) - jnp.asarray(lo, np.int64),
                                           np.uint64)
        low = XL.lax.bitcast_convert_type(jnp.asarray(lo, np.int64), np.uint64)
        v = (bits % span)[:n] + low
    else:
        w = _words(seed, -(-n // 4))[:n]
        span = (jnp.asarray(hi, np.int64) - jnp.asarray(lo, np.int64)).astype(np.uint32)
        v = w % span + jnp.asarray(lo, np.int64).astype(np.uint32)
    return XL.lax.bitcast_convert_type(v, np.dtype("int%d" % (dtype.itemsize * 8))).astype(
        dtype).reshape(dims)


def _tf_full_int(seed, dims, dtype):
    """Integers over a 32- or 64-bit type's range: words (pairs, low word
    first) reinterpreted."""
    n = int(np.prod(dims, dtype=np.int64))
    dtype = np.dtype(dtype)
    if dtype.itemsize == 8:
        w = _words(seed, -(-n // 2))
        bits = w[0::2].astype(np.uint64) | (w[1::2].astype(np.uint64) << np.uint64(32))
        return XL.lax.bitcast_convert_type(bits[:n], dtype).reshape(dims)
    return XL.lax.bitcast_convert_type(_words(seed, -(-n // 4))[:n], dtype).reshape(dims)


def _lower_tf_stateless(kind):
    def rule(ctx, op, shape, seed, *bounds):
        dims = _dims(ctx, op, 0, shape)
        if kind == "int":
            return _tf_uniform_int(seed, dims, bounds[0], bounds[1], _out(op))
        return kind(seed, dims, _out(op))
    return rule


# --- JAX's generators -----------------------------------------------------------------

def _uniform(key, dims, dtype):
    return XL.jax.random.uniform(key, dims, dtype)


def _normal(key, dims, dtype):
    return XL.jax.random.normal(key, dims, dtype)


def _truncated(key, dims, dtype):
    return XL.jax.random.truncated_normal(key, -2.0, 2.0, dims, dtype)


def _randint(key, dims, lo, hi, dtype):
    return XL.jax.random.randint(key, dims, lo, hi, dtype)


def _multinomial(key, logits, num, dtype):
    logits = XL.jnp.asarray(logits)
    draws = XL.jax.random.categorical(key, logits, axis=-1, shape=(num,) + logits.shape[:-1])
    return XL.jnp.moveaxis(draws, 0, -1).astype(dtype)


def _stateful(kind):
    def rule(ctx, op, shape, *rest):
        key = ctx.next_key()
        dims = _dims(ctx, op, 0, shape)
        if kind == "int":
            return _randint(key, dims, rest[0], rest[1], _out(op))
        return kind(key, dims, _out(op))
    return rule


def _stateless(kind):
    def rule(ctx, op, shape, seed, *rest):
        key = _seed_key(seed)
        dims = _dims(ctx, op, 0, shape)
        if kind == "int":
            return _randint(key, dims, rest[0], rest[1], _out(op))
        if kind == "full":
            info = np.iinfo(_out(op))
            bits = XL.jax.random.bits(key, dims, np.dtype("uint%d" % (info.bits)))
            return XL.lax.bitcast_convert_type(bits, _out(op))
        return kind(key, dims, _out(op))
    return rule


def _lower_shuffle(ctx, op, value):
    return XL.jax.random.permutation(ctx.next_key(), value, axis=0)


def _lower_gamma(ctx, op, shape, alpha):
    dims = _dims(ctx, op, 0, shape) + tuple(XL.jnp.shape(alpha))
    return XL.jax.random.gamma(ctx.next_key(), XL.jnp.broadcast_to(alpha, dims), dims,
                               alpha.dtype)


def _lower_poisson(ctx, op, shape, rate):
    dims = _dims(ctx, op, 0, shape) + tuple(XL.jnp.shape(rate))
    return XL.jax.random.poisson(ctx.next_key(), XL.jnp.broadcast_to(rate, dims), dims)


def _lower_stateless_gamma(ctx, op, shape, seed, alpha):
    dims = _dims(ctx, op, 0, shape)
    return XL.jax.random.gamma(_seed_key(seed), XL.jnp.broadcast_to(alpha, dims), dims,
                               _out(op))


def _lower_stateless_poisson(ctx, op, shape, seed, lam):
    dims = _dims(ctx, op, 0, shape)
    return XL.jax.random.poisson(_seed_key(seed), XL.jnp.broadcast_to(lam, dims), dims)


def _lower_generator(kind):
    """The rule of a `tf.random.Generator` op: TensorFlow's numbers from the
    generator's state (int64 [3]: counter low and high words, key), a
    variable of the computation whose counter moves on by 256 per value."""
    def rule(ctx, op, shape, *bounds):
        ref = ctx.handle_ref(op.attrs["_gen"])
        dims = _dims(ctx, op, 0, shape)
        state = XL.lax.bitcast_convert_type(
            XL.jnp.asarray(ctx.read(ref)).astype(np.int64), np.uint64)
        lo, hi, key = state[0], state[1], state[2]
        if kind == "int":
            out = _tf_uniform_int((key, lo, hi), dims, bounds[0], bounds[1], _out(op))
        else:
            out = kind((key, lo, hi), dims, _out(op))
        step = np.uint64(int(np.prod(dims, dtype=np.int64)) * 256)
        new_lo = lo + step
        new_hi = hi + (new_lo < lo).astype(np.uint64)
        ctx.write(ref, XL.lax.bitcast_convert_type(
            XL.jnp.stack([new_lo, new_hi, key]), np.int64))
        return out
    return rule


XL.set_lowerings({
    "StatefulUniform": _lower_generator(_tf_uniform),
    "StatefulStandardNormalV2": _lower_generator(_tf_normal),
    "StatefulUniformInt": _lower_generator("int"),
    "StatefulUniformFullInt": _lower_generator(_tf_full_int),
    "RandomUniform": _stateful(_uniform), "RandomStandardNormal": _stateful(_normal),
    "TruncatedNormal": _stateful(_truncated), "RandomUniformInt": _stateful("int"),
    "Multinomial": lambda ctx, op, logits, num: _multinomial(
        ctx.next_key(), logits, XL.ints(ctx.static(op, 1, num))[0], _out(op)),
    "RandomShuffle": _lower_shuffle, "RandomGamma": _lower_gamma,
    "RandomPoissonV2": _lower_poisson,
    "StatelessRandomUniform": _lower_tf_stateless(_tf_uniform),
    "StatelessRandomNormal": _lower_tf_stateless(_tf_normal),
    "StatelessTruncatedNormal": _stateless(_truncated),
    "StatelessRandomUniformInt": _lower_tf_stateless("int"),
    "StatelessRandomUniformFullInt": _stateless("full"),
    "StatelessMultinomial": lambda ctx, op, logits, num, seed: _multinomial(
        _seed_key(seed), logits, XL.ints(ctx.static(op, 1, num))[0], _out(op)),
    "StatelessRandomGammaV2": _lower_stateless_gamma,
    "StatelessRandomPoisson": _lower_stateless_poisson})
