"""The XLA lowerings (framework/lowering.py) of the random ops of
stateful_ops.py and stateless_ops.py, with JAX's generators.

A stateful op draws from a fresh key split off the computation's PRNG key
(`ctx.next_key()`), which compiled code threads through loops and branches
and keeps between calls (compiler/xla_compile.py), so every call and every
iteration draws new numbers. A stateless op's key is made from its seed
tensor alone, so equal seeds give equal numbers. The numbers are JAX's, not
TensorFlow's Philox streams: as with TensorFlow's own XLA, compiled random
numbers have the distribution, not the bits, of the uncompiled ones.
"""
import numpy as np

from ...framework import lowering as XL

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


XL.set_lowerings({
    "RandomUniform": _stateful(_uniform), "RandomStandardNormal": _stateful(_normal),
    "TruncatedNormal": _stateful(_truncated), "RandomUniformInt": _stateful("int"),
    "Multinomial": lambda ctx, op, logits, num: _multinomial(
        ctx.next_key(), logits, XL.ints(ctx.static(op, 1, num))[0], _out(op)),
    "RandomShuffle": _lower_shuffle, "RandomGamma": _lower_gamma,
    "RandomPoissonV2": _lower_poisson,
    "StatelessRandomUniform": _stateless(_uniform),
    "StatelessRandomNormal": _stateless(_normal),
    "StatelessTruncatedNormal": _stateless(_truncated),
    "StatelessRandomUniformInt": _stateless("int"),
    "StatelessRandomUniformFullInt": _stateless("full"),
    "StatelessMultinomial": lambda ctx, op, logits, num, seed: _multinomial(
        _seed_key(seed), logits, XL.ints(ctx.static(op, 1, num))[0], _out(op)),
    "StatelessRandomGammaV2": _lower_stateless_gamma,
    "StatelessRandomPoisson": _lower_stateless_poisson})
