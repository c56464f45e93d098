"""Philox4x32-10, the counter-based generator behind TensorFlow's random ops,
computed for many counters at once with NumPy uint64 arithmetic.

A generator is a 64-bit key and a 128-bit counter; each call turns the
counter into four uint32 words (ten rounds of multiply/xor with the key,
the key raised by two Weyl constants between rounds) and increments the
counter. Here a generator position is the plain pair `(key, counter)` of
Python ints, so that "skip n" is `counter + n` (mod 2**128) — TensorFlow's
Skip carries from the low into the high 64 bits exactly like that.

Also here: the seeding conventions of the kernels (`from_seeds`, as
TensorFlow's stateful ops build a generator from their seed/seed2 attrs;
`scramble_seed`, the extra Philox call that turns a stateless op's [2] seed
into a key and counter) and `GuardedPhilox`, the per-kernel state of a
stateful op.
"""
import os

import numpy as np

# The Philox4x32 multipliers and Weyl key increments (Salmon et al., 2011).
_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_ROUNDS = 10

_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_MASK128 = (1 << 128) - 1
_U32 = np.uint64(_MASK32)
_S32 = np.uint64(32)

# The key TensorFlow scrambles stateless seeds with (StatelessRandomGetKeyCounter).
_SCRAMBLE_KEY = 0x02461E293EC8F720


def blocks(key, counter, n):
    """`n` successive Philox outputs from position (key, counter), as an
    (n, 4) uint32 array: row i is the output for counter + i."""
    n = int(n)
    if n <= 0:
        return np.zeros((0, 4), np.uint32)
    offsets = np.arange(n, dtype=np.uint64)
    base_lo = np.uint64(counter & _MASK64)
    lo = offsets + base_lo
    # A wrapped low word carries into the high one, as Skip does.
    hi = np.full(n, (counter >> 64) & _MASK64, dtype=np.uint64)
    hi += (lo < base_lo).astype(np.uint64)
    return blocks_at(key, lo, hi)


def blocks_at(key, lo, hi):
    """Philox outputs for the counters lo + hi * 2**64 (uint64 arrays) under
    `key`: a (len(lo), 4) uint32 array."""
    out = np.empty((lo.size, 4), np.uint32)
    # In chunks, so that the ~100 passes of the rounds run in the cache.
    for s in range(0, lo.size, _CHUNK):
        _rounds(key, lo[s:s + _CHUNK], hi[s:s + _CHUNK], out[s:s + _CHUNK])
    return out


_CHUNK = 8192


def _rounds(key, lo, hi, out):
    c0 = lo & _U32
    c1 = lo >> _S32
    c2 = hi & _U32
    c3 = hi >> _S32
    k0, k1 = key & _MASK32, (key >> 32) & _MASK32
    p0 = np.empty_like(c0)
    p1 = np.empty_like(c0)
    for r in range(_ROUNDS):
        np.multiply(c0, _M0, out=p0)  # < 2**64: the full 32x32-bit product
        np.multiply(c2, _M1, out=p1)
        # New words: (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0), in place.
        np.right_shift(p1, _S32, out=c0)
        c0 ^= c1
        c0 ^= np.uint64(k0)
        np.right_shift(p0, _S32, out=c2)
        c2 ^= c3
        c2 ^= np.uint64(k1)
        np.bitwise_and(p1, _U32, out=c1)
        np.bitwise_and(p0, _U32, out=c3)
        k0, k1 = (k0 + _W0) & _MASK32, (k1 + _W1) & _MASK32
    out[:, 0] = c0
    out[:, 1] = c1
    out[:, 2] = c2
    out[:, 3] = c3


def words(key, counter, n):
    """The first `n` uint32 words of the stream at (key, counter), in the
    order TensorFlow's single-sample adapter hands them out."""
    return blocks(key, counter, -(-int(n) // 4)).reshape(-1)[:int(n)]


def from_seeds(seed_lo, seed_hi):
    """The position of TensorFlow's PhiloxRandom(seed_lo, seed_hi): the key
    is seed_lo, the counter's high 64 bits are seed_hi."""
    return seed_lo & _MASK64, (seed_hi & _MASK64) << 64


def from_key_counter(key, counter_lo, counter_hi):
    """A position from a uint64 key and a counter given as two uint64 words."""
    return key & _MASK64, (counter_lo & _MASK64) | ((counter_hi & _MASK64) << 64)


def skip(position, count):
    key, counter = position
    return key, (counter + int(count)) & _MASK128


def scramble_seed(seed0, seed1):
    """TensorFlow's key and counter for a stateless op's seed [seed0, seed1]:
    one Philox call on the (sign-extended) seed words under a fixed key;
    the first two output words become the key and the last two the high
    half of a counter whose low half is 0. Returns ((key, counter),
    key as uint64, counter as two uint64)."""
    out = blocks(_SCRAMBLE_KEY, (seed0 & _MASK64) | ((seed1 & _MASK64) << 64), 1)[0]
    w = [int(x) for x in out]
    key = w[0] | (w[1] << 32)
    hi = w[2] | (w[3] << 32)
    return (key, hi << 64), key, (0, hi)


def random_seed64():
    """A 64-bit seed from the operating system, as TensorFlow's New64."""
    return int.from_bytes(os.urandom(8), "little")


class GuardedPhilox:
    """The generator of one stateful random op kernel (TensorFlow's
    GuardedPhiloxRandom): made from the op's seed and seed2 attrs (random
    ones when both are 0), and advanced by every run by a conservative
    amount, so each run draws fresh numbers."""

    __slots__ = ("seed", "seed2", "position")

    def __init__(self, seed=0, seed2=0):
        self.seed, self.seed2 = int(seed), int(seed2)
        self.restart()

    def restart(self):
        """Back to the first run's numbers (random again when unseeded)."""
        seed, seed2 = self.seed, self.seed2
        if seed == 0 and seed2 == 0:
            seed, seed2 = random_seed64(), random_seed64()
        self.position = from_seeds(seed, seed2)

    def reserve128(self, count):
        """The position to draw from now; the next run starts `count`
        Philox calls later."""
        pos = self.position
        self.position = skip(pos, count)
        return pos

    def reserve_outputs(self, output_count, multiplier=256):
        """TensorFlow's ReserveRandomOutputs: room for `output_count` values
        at up to `multiplier` Philox calls each."""
        return self.reserve128(int(output_count) * multiplier)

    def reserve32(self, samples):
        """Room for `samples` uint32 words."""
        return self.reserve128((int(samples) + 3) // 4)
