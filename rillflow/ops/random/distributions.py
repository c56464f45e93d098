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

from . import jit_random
from . import libm_float
from . import philox

_F32_MANT = np.uint32(0x7FFFFF)
_F32_ONE = np.uint32(0x3F800000)
_EPSILON32 = np.float32(1e-7)
_TWO_PI = 2.0 * np.pi  # a double, as M_PI in `2.0f * M_PI * u`
_TRUNCATE = 2.0
_RESERVED_PER_OUTPUT = 256


# Philox calls per chunk of the large fills: the chunk's words and float64
# temporaries (a few hundred KB) stay in the CPU's cache between passes.
_CHUNK = 8192


def _chunks(pos, calls):
    """(first call, number of calls, words as a (c, 4) uint32 array) for
    successive chunks of `calls` Philox calls from `pos`."""
    for s in range(0, calls, _CHUNK):
        c = min(_CHUNK, calls - s)
        key, counter = philox.skip(pos, s)
        yield s, c, philox.blocks(key, counter, c)


def _compiled(fills, name, pos, out, *extra):
    """Runs the compiled fill `name` (jit_philox.py) into `out` from `pos`."""
    key, counter = pos
    m = (1 << 32) - 1
    fills[name](np.uint64(key & m), np.uint64((key >> 32) & m),
                np.uint64(counter & ((1 << 64) - 1)), np.uint64(counter >> 64), *extra, out)
    return out


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
    n = int(n)
    fills = jit_random.fills(n)
    if fills is not None:
        if np_dtype in (np.float32, np.float64):
            return _compiled(fills, "uniform_f32" if np_dtype == np.float32 else "uniform_f64",
                             pos, np.empty(n, np_dtype))
        bits = 10 if np_dtype == np.float16 else 7
        return _compiled(fills, "uniform_low_bits", pos, np.empty(n, np.float32),
                         bits).astype(np_dtype)
    if np_dtype == np.float64:
        w = _group_words(pos, n, 2)
        return _u64_to_double(w[0::2], w[1::2])[:n]
    w = _group_words(pos, n, 4)[:n]
    if np_dtype == np.float32:
        # _u32_to_float in place on the fresh words.
        w &= _F32_MANT
        w |= _F32_ONE
        f = w.view(np.float32)
        f -= np.float32(1)
        return f
    bits = 10 if np_dtype == np.float16 else 7
    # m / 2**bits is exact in the type: the same value as 1.m - 1 there.
    w &= np.uint32((1 << bits) - 1)
    f = w.astype(np.float32)
    f *= np.float32(2.0 ** -bits)
    return f.astype(np_dtype)


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


def normal(pos, n, np_dtype):
    """Standard normal values: Box-Muller on consecutive word pairs (float32
    arithmetic for float16/bfloat16/float32, then rounded), or on word
    quadruples for float64."""
    np_dtype = np.dtype(np_dtype)
    n = int(n)
    double = np_dtype == np.float64
    fills = jit_random.fills(n)
    if fills is not None:
        return _compiled(fills, "normal_f64" if double else "normal_f32", pos, np.empty(
            n, np.float64 if double else np.float32)).astype(np_dtype, copy=False)
    per = 2 if double else 4
    calls = -(-n // per)
    out = np.empty(calls * per, np.float64 if double else np.float32)
    for s, c, w in _chunks(pos, calls):
        seg = out[s * per:(s + c) * per]
        if double:
            seg[0::2], seg[1::2] = _box_muller64(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        else:
            w = w.reshape(-1)
            seg[0::2], seg[1::2] = _box_muller32(w[0::2], w[1::2])
    return out[:n].astype(np_dtype, copy=False)


def truncated_normal(pos, n, np_dtype):
    """Standard normal values within (-2, 2): each group of 4 values (2 for
    float64) rejects from its own stream of normals, in order."""
    np_dtype = np.dtype(np_dtype)
    n = int(n)
    double = np_dtype == np.float64
    fills = jit_random.fills(n)
    if fills is not None:
        return _compiled(fills, "truncated_f64" if double else "truncated_f32", pos, np.empty(
            n, np.float64 if double else np.float32)).astype(np_dtype, copy=False)
    group = 2 if double else 4
    groups = -(-n // group)
    out = np.empty((groups, group), np.float64 if double else np.float32)
    # Groups in chunks (each takes two Philox calls at first), in the cache.
    step = _CHUNK // 2
    for g0 in range(0, groups, step):
        todo = np.arange(g0, min(g0 + step, groups), dtype=np.int64)
        _truncated_groups(pos, todo, double, out)
    return out.reshape(-1)[:n].astype(np_dtype, copy=False)


def _truncated_groups(pos, todo, double, out):
    """Fills the rows `todo` of `out` (one row per value group)."""
    group = out.shape[1]
    stride = group * _RESERVED_PER_OUTPUT // 4
    calls = 2  # Philox calls per group tried first; 8 candidates for 4 values
    done_calls = 0
    cand = None
    while todo.size:
        # Calls [done_calls, calls) of each unfinished group's stream.
        new = _candidates(pos, todo, stride, done_calls, calls, double)
        cand = new if cand is None else np.concatenate([cand, new], axis=1)
        ok = np.abs(cand) < _TRUNCATE
        # Most rows accept their first `group` candidates: copied as they are.
        first = ok[:, :group].all(axis=1)
        out[todo[first]] = cand[first, :group]
        enough = ~first & (np.count_nonzero(ok, axis=1) >= group)
        if np.any(enough):
            sel_c, sel_ok = cand[enough], ok[enough]
            # The first `group` accepted candidates of each row, in order.
            rank = np.cumsum(sel_ok, axis=1)
            pick = sel_ok & (rank <= group)
            out[todo[enough]] = sel_c[pick].reshape(-1, group)
        left = ~(first | enough)
        todo, cand = todo[left], cand[left]
        done_calls, calls = calls, calls * 2


def _candidates(pos, todo, stride, c0, c1, double):
    """The normals from Philox calls [c0, c1) of the streams of groups
    `todo`, in stream order: a (len(todo), (c1 - c0) * per call) array."""
    calls = np.arange(c0, c1, dtype=np.uint64)
    offs = (todo.astype(np.uint64) * np.uint64(stride))[:, None] + calls
    w = _strided_blocks(pos, offs.reshape(-1))
    cand = np.empty(w.shape[0] * (2 if double else 4), np.float64 if double else np.float32)
    if double:
        cand[0::2], cand[1::2] = _box_muller64(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
    else:
        w = w.reshape(-1)
        cand[0::2], cand[1::2] = _box_muller32(w[0::2], w[1::2])
    return cand.reshape(todo.size, -1)


def _strided_blocks(pos, offs):
    """The Philox outputs at counter + offs (uint64 offsets): one
    (len(offs), 4) array."""
    key, counter = pos
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
    n = int(n)
    fills = jit_random.fills(n)
    wide = np_dtype.itemsize == 8
    rng = (int(hi) - int(lo)) & ((1 << (64 if wide else 32)) - 1)
    if fills is not None and rng:
        ut = np.uint64 if wide else np.uint32
        v = _compiled(fills, "words_mod64" if wide else "words_mod32", pos, np.empty(n, ut),
                      np.uint64(rng), np.uint64(int(lo) & ((1 << (64 if wide else 32)) - 1)))
        return v.view(np.int64 if wide else np.int32).astype(np_dtype, copy=False) \
            if np_dtype.kind == "i" else v.astype(np_dtype)
    if wide:
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
    n = int(n)
    fills = jit_random.fills(n)
    if fills is not None:
        wide = np_dtype.itemsize == 8
        return _compiled(fills, "words_mod64" if wide else "words_mod32", pos, np.empty(
            n, np.uint64 if wide else np.uint32), np.uint64(0), np.uint64(0)).view(np_dtype)
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
