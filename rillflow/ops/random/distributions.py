"""TensorFlow's conversions of Philox words into values of each dtype, and
its fill order, reproduced on whole arrays.

Every function takes a generator position `pos` (see philox.py) and the
number of values, and returns a flat array laid out as TensorFlow's CPU
kernels fill their output:

- fixed-size distributions produce a group of values per Philox call (4
  float32/half/bfloat16/int32 values, 2 float64/int64 values), group i
  from counter + i; a partial last group is the first values of a whole one;
- truncated normal redraws, so its group i uses its own stream starting 256
  calls per value-group apart (TensorFlow's "kReservedSamplesPerOutput"), and
  takes the first accepted values of that stream;
- uniform floats put random bits in the mantissa of a number in [1, 2) and
  subtract 1; normals are Box-Muller on pairs of words (sin, cos), with
  glibc's float logf/sincosf (libm_float.py).
"""
import numpy as np

from . import libm_float
from . import philox

_F32_MANT = np.uint32(0x7FFFFF)
_F32_ONE = np.uint32(0x3F800000)
_EPSILON32 = np.float32(1e-7)
_TWO_PI = 2.0 * np.pi  # a double, as M_PI in `2.0f * M_PI * u`
_TRUNCATE = 2.0
_RESERVED_PER_OUTPUT = 256


def _group_words(pos, n, per_group):
    """The words of ceil(n / per_group) Philox calls, flat."""
    calls = -(-int(n) // per_group)
    return philox.blocks(pos[0], pos[1], calls).reshape(-1)


# --- bits to [0, 1) -------------------------------------------------------------------

def _u32_to_float(w):
    return ((w & _F32_MANT) | _F32_ONE).view(np.float32) - np.float32(1)


def _u64_to_double(hi_word, lo_word):
    """A double in [0, 1) from 20 bits of `hi_word` and all of `lo_word`."""
    man = ((hi_word & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)) | \
        lo_word.astype(np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def uniform(pos, n, np_dtype):
    """Uniform [0, 1) values of a float dtype (float16/bfloat16 from the low
    10/7 bits of each word, float32 from 23 bits, float64 from 52 bits of a
    pair of words)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.float64:
        w = _group_words(pos, n, 2)
        return _u64_to_double(w[0::2], w[1::2])[:n]
    w = _group_words(pos, n, 4)[:n]
    if np_dtype == np.float32:
        return _u32_to_float(w)
    bits = 10 if np_dtype == np.float16 else 7
    # m / 2**bits is exact in the type: the same value as 1.m - 1 there.
    return ((w & np.uint32((1 << bits) - 1)).astype(np.float32) *
            np.float32(2.0 ** -bits)).astype(np_dtype)


# --- normal ---------------------------------------------------------------------------

def _box_muller32(x0, x1):
    """TensorFlow's BoxMullerFloat on word arrays: (sin-based, cos-based)."""
    u1 = np.maximum(_u32_to_float(x0), _EPSILON32)
    v1 = (_TWO_PI * _u32_to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2) * libm_float.logf(u1))
    s, c = libm_float.sincosf(v1)
    return s * u2, c * u2


def _box_muller64(x0, x1, x2, x3):
    u1 = np.maximum(_u64_to_double(x0, x1), 1e-7)
    v1 = _TWO_PI * _u64_to_double(x2, x3)
    lg, s, c = libm_float.log_sin_cos64(u1, v1)
    u2 = np.sqrt(-2.0 * lg)
    return s * u2, c * u2


def _interleave(a, b):
    out = np.empty(a.size + b.size, a.dtype)
    out[0::2] = a
    out[1::2] = b
    return out


def normal(pos, n, np_dtype):
    """Standard normal values: Box-Muller on consecutive word pairs (float32
    arithmetic for float16/bfloat16/float32, then rounded), or on word
    quadruples for float64."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype == np.float64:
        w = _group_words(pos, n, 2)
        d0, d1 = _box_muller64(w[0::4], w[1::4], w[2::4], w[3::4])
        return _interleave(d0, d1)[:n]
    w = _group_words(pos, n, 4)
    f0, f1 = _box_muller32(w[0::2], w[1::2])
    return _interleave(f0, f1)[:n].astype(np_dtype, copy=False)


def truncated_normal(pos, n, np_dtype):
    """Standard normal values within (-2, 2): each group of 4 values (2 for
    float64) rejects from its own stream of normals, in order."""
    np_dtype = np.dtype(np_dtype)
    n = int(n)
    double = np_dtype == np.float64
    group = 2 if double else 4
    groups = -(-n // group)
    out = np.empty((groups, group), np.float64 if double else np.float32)
    todo = np.arange(groups, dtype=np.int64)
    calls = 2  # Philox calls per group tried first; 8 candidates for 4 values
    done_calls = 0
    cand = None
    while todo.size:
        # Draw calls [done_calls, calls) of each unfinished group's stream.
        new = []
        for c in range(done_calls, calls):
            w = _strided_blocks(pos, todo, group * _RESERVED_PER_OUTPUT // 4, c)
            if double:
                a, b = _box_muller64(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
            else:
                a, b = _box_muller32(w[:, 0::2].reshape(-1), w[:, 1::2].reshape(-1))
                a, b = a.reshape(-1, 2), b.reshape(-1, 2)
            pair = np.stack([a, b], axis=-1).reshape(todo.size, -1)
            new.append(pair)
        cand = np.concatenate(([cand] if cand is not None else []) + new, axis=1)
        ok = np.abs(cand) < _TRUNCATE
        enough = np.count_nonzero(ok, axis=1) >= group
        if np.any(enough):
            sel_c, sel_ok = cand[enough], ok[enough]
            # The first `group` accepted candidates of each row, in order.
            rank = np.cumsum(sel_ok, axis=1)
            pick = sel_ok & (rank <= group)
            out[todo[enough]] = sel_c[pick].reshape(-1, group)
        todo, cand = todo[~enough], cand[~enough]
        done_calls, calls = calls, calls * 2
    return out.reshape(-1)[:n].astype(np_dtype, copy=False)


def _strided_blocks(pos, groups, stride, call):
    """Philox output `call` of each group's stream (group g starts at
    counter + g * stride): one (len(groups), 4) array."""
    key, counter = pos
    offs = groups.astype(np.uint64) * np.uint64(stride) + np.uint64(call)
    # Counters differ by offsets below 2**64, added with carry as Skip does.
    base_lo = np.uint64(counter & ((1 << 64) - 1))
    lo = offs + base_lo
    hi = np.full(offs.size, (counter >> 64) & ((1 << 64) - 1), np.uint64)
    hi += (lo < base_lo).astype(np.uint64)
    return philox.blocks_at(key, lo, hi)


# --- integers -------------------------------------------------------------------------

def uniform_int(pos, n, lo, hi, np_dtype):
    """Integers in [lo, hi): lo + word % (hi - lo), with 32-bit words for
    32-bit types and word pairs (low word first) for 64-bit types; the
    modulo's slight bias is TensorFlow's."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.itemsize == 8:
        w = _group_words(pos, n, 2)
        bits = w[0::2].astype(np.uint64) | (w[1::2].astype(np.uint64) << np.uint64(32))
        rng = np.uint64((int(hi) - int(lo)) & ((1 << 64) - 1))
        v = (bits % rng)[:n] + np.uint64(int(lo) & ((1 << 64) - 1))
        return v.view(np.int64).astype(np_dtype, copy=False) if np_dtype.kind == "i" else \
            v.astype(np_dtype)
    w = _group_words(pos, n, 4)[:n]
    rng = np.uint32((int(hi) - int(lo)) & 0xFFFFFFFF)
    v = (w % rng) + np.uint32(int(lo) & 0xFFFFFFFF)
    return v.view(np.int32).astype(np_dtype, copy=False) if np_dtype.kind == "i" else \
        v.astype(np_dtype)


def full_int(pos, n, np_dtype):
    """Integers over the whole range of a 32- or 64-bit type: the words (or
    word pairs, low word first) reinterpreted."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.itemsize == 8:
        w = _group_words(pos, n, 2)
        bits = w[0::2].astype(np.uint64) | (w[1::2].astype(np.uint64) << np.uint64(32))
        return bits[:n].view(np_dtype)
    return _group_words(pos, n, 4)[:n].view(np_dtype)


# --- multinomial and shuffle -----------------------------------------------------------

def multinomial(pos, logits, num_samples, np_dtype):
    """TensorFlow's CPU multinomial: per row, the running sums of
    exp(logit - max) over finite logits, then for each sample the first class
    whose running sum exceeds u * total, u a double from two words; rows
    draw one after another from one stream (the kernel's single shard)."""
    batch, classes = logits.shape
    n = int(num_samples)
    out = np.empty((batch, n), np_dtype)
    if batch == 0 or n == 0:
        return out
    w = philox.words(pos[0], pos[1], batch * n * 2)
    u = _u64_to_double(w[0::2], w[1::2]).reshape(batch, n)
    x = logits.astype(np.float64)
    finite = np.isfinite(logits)
    lowest = np.finfo(logits.dtype).min if logits.dtype.kind == "f" else np.iinfo(
        logits.dtype).min
    mx = np.where(finite, logits, lowest).max(axis=1).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.exp(x - mx[:, None])
    cdf = np.cumsum(np.where(finite, p, 0.0), axis=1)
    for i in range(batch):
        out[i] = np.searchsorted(cdf[i], u[i] * cdf[i, -1], side="right")
    return out


def shuffle_permutation(pos, size):
    """The permutation of TensorFlow's RandomShuffle of `size` rows: a
    Fisher-Yates pass from the front, swapping row i with row
    i + word_i % (size - i)."""
    perm = np.arange(size, dtype=np.int64)
    if size <= 1:
        return perm
    w = philox.words(pos[0], pos[1], size - 1).astype(np.int64)
    j = (w % np.arange(size, 1, -1, dtype=np.int64)) + np.arange(size - 1, dtype=np.int64)
    p = perm.tolist()
    for i, k in enumerate(j.tolist()):
        p[i], p[k] = p[k], p[i]
    return np.array(p, dtype=np.int64)
