"""The candidate samplers (`tf.random.uniform_candidate_sampler`,
`log_uniform_`, `learned_unigram_`, `fixed_unigram_`, `all_candidate_sampler`)
and `tf.nn.compute_accidental_hits`, with TensorFlow's numbers.

Each sampler op is stateful: its kernel owns a Philox generator (made from
the seed attrs, as `seeding.py` makes those of the other stateful ops) and
reserves 2048 * num_sampled words per run; the run draws from the start of
that reservation one 32-bit word at a time, in the order TensorFlow's
SimplePhilox hands them out, so seeded runs give TensorFlow's candidates.
The base distributions follow TensorFlow's range samplers: uniform integers
by exact rejection (`_exact_uniform`), log-uniform through
exp(u * log1p(range)), the learned unigram as a weight tree updated with the
true classes after each run (so, as in TensorFlow, eager calls with the same
attrs share one distribution until `tf.random.set_seed`), and the fixed
unigram as Walker's alias table. Expected counts use float32 arithmetic and
the C library's log1pf/expm1f as the kernel does.
"""
import collections
import ctypes
import ctypes.util
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
from ...framework.tensor_shape import TensorShape
from . import philox
from .random_util import _no_grad, _scope
from .seeding import _eager, _graphs_with_random_ops, get_seed

_state = _context.state
_KINT32MAX = 2 ** 31 - 1
_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1


def _libm_float(name):
    """A float function of the C library (TensorFlow's std::log1p and
    std::expm1 on floats call them); NumPy's own as a fallback."""
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        f = getattr(libm, name)
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        return lambda x: np.float32(f(float(x)))
    except (OSError, AttributeError):
        fallback = {"log1pf": np.log1p, "expm1f": np.expm1}[name]
        return lambda x: fallback(np.float32(x))


def _libm_powf():
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        f = libm.powf
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
        return lambda x, y: np.float32(f(float(x), float(y)))
    except (OSError, AttributeError):
        return lambda x, y: np.power(np.float32(x), np.float32(y))


_log1pf = _libm_float("log1pf")
_expm1f = _libm_float("expm1f")
_powf = _libm_powf()


# --- the word stream ------------------------------------------------------------

class _Words:
    """TensorFlow's SimplePhilox: 32-bit words from a Philox position, four
    per call, fetched in batches of calls."""

    _BATCH = 64

    def __init__(self, pos):
        self.key, self.counter = pos
        self.buf = []
        self.i = 0

    def rand32(self):
        """The next word."""
        if self.i == len(self.buf):
            self.buf = philox.blocks(self.key, self.counter, self._BATCH).reshape(-1).tolist()
            self.counter = (self.counter + self._BATCH) & ((1 << 128) - 1)
            self.i = 0
        w = self.buf[self.i]
        self.i += 1
        return w

    def rand64(self):
        lo = self.rand32()
        return lo | (self.rand32() << 32)

    def rand_float(self):
        """Float in [0, 1) from 23 bits of a word (exact in float32)."""
        return np.float32((self.rand32() & 0x7FFFFF) * 2.0 ** -23)

    def rand_double(self):
        """Double in [0, 1): 20 bits of the first word above the second's 32."""
        hi = self.rand32() & 0xFFFFF
        return ((hi << 32) | self.rand32()) * 2.0 ** -52


def _exact_uniform(n, draw, mask):
    """TensorFlow's ExactUniformInt: an integer in [0, n) from words of
    `draw` (`mask` is the word's largest value), rejecting the low ones that
    would bias the modulo."""
    if n == 0:
        draw()
        return 0
    if n & (n - 1) == 0:
        return draw() & (n - 1)
    rem = (mask % n) + 1
    while True:
        r = draw()
        if r >= rem:
            return r % n


# --- the base distributions -----------------------------------------------------

class _Uniform:
    def __init__(self, range_max):
        self.range = range_max
        self.p = np.float32(1.0 / range_max)

    def sample(self, w):
        return _exact_uniform(self.range, w.rand64, _M64)

    def probability(self, v):
        return self.p


class _LogUniform:
    def __init__(self, range_max):
        self.range = range_max
        self.log_range = math.log1p(range_max)

    def sample(self, w):
        return (int(math.exp(w.rand_double() * self.log_range)) - 1) % self.range

    def probability(self, v):
        return np.float32(math.log((v + 2.0) / (v + 1.0)) / self.log_range)


class _Learned:
    """The learned unigram: every class starts with weight 1 and gains 1
    each time it is a true class (TensorFlow's WeightedPicker)."""

    def __init__(self, range_max):
        self.range = range_max
        self.weights = np.ones(range_max, np.int64)
        self._cum = None

    def sample(self, w):
        if self._cum is None:
            self._cum = np.cumsum(self.weights)
        total = int(self._cum[-1])
        position = _exact_uniform(total, w.rand32, _M32)
        # The tree descent picks the first class whose running sum exceeds it.
        return int(np.searchsorted(self._cum, position, side="right"))

    def probability(self, v):
        total = np.float32(int(self.weights.sum()))
        return np.float32(self.weights[v]) / total

    def update(self, values):
        room = _KINT32MAX - int(self.weights.sum())
        for v in values[:max(room, 0)]:
            self.weights[v] += 1
        self._cum = None


class _Fixed:
    """The fixed unigram: float32 weights (reserved ids first, each raised to
    `distortion`) sampled through Walker's alias table."""

    def __init__(self, range_max, unigrams, distortion, num_reserved_ids, num_shards, shard,
                 vocab_file):
        self.range = range_max
        weights = [np.float32(0.0)] * sum(1 for i in range(num_reserved_ids)
                                          if i % num_shards == shard)
        total = np.float32(0.0)
        word_id = len(weights)
        for w in self._values(unigrams, vocab_file):
            if word_id % num_shards == shard:
                w = _powf(w, distortion)
                total = np.float32(total + w)
                weights.append(w)
            word_id += 1
        if len(weights) != range_max:
            raise errors.InvalidArgumentError(
                None, None, f"range is {range_max} must be equal to weights size  {len(weights)}")
        self.weights = np.array(weights, np.float32)
        self.total = total
        self._alias_table()

    @staticmethod
    def _values(unigrams, vocab_file):
        if not vocab_file:
            return [np.float32(u) for u in unigrams]
        out = []
        with open(vocab_file, "rb") as f:
            lines = f.read().decode("utf-8", "replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()  # the newline ending the last line
        for line in lines:
            line = line.rstrip("\r")
            try:
                out.append(np.float32(float(line.split(",")[-1])))
            except ValueError:
                raise errors.InvalidArgumentError(
                    None, None, f"Wrong vocabulary format at line: {line}") from None
        return out

    def _alias_table(self):
        w = self.weights
        n = len(w)
        total = sum(float(x) for x in w)
        # (weight * n) is a float product in the kernel, divided in double.
        pr = [float(np.float32(x * np.float32(n))) / total for x in w]
        alt = [-1] * n
        low = [i for i in range(n) if pr[i] < 1.0]
        high = [i for i in range(n) if not pr[i] < 1.0]
        while high and low:
            lo = low.pop()
            hi = high.pop()
            alt[lo] = hi
            pr[hi] = pr[hi] - (1.0 - pr[lo])
            (low if pr[hi] < 1.0 else high).append(hi)
        prob = [np.float32(p) for p in pr]
        for idx in high + low:
            prob[idx], alt[idx] = np.float32(1.0), idx
        self.prob, self.alt = prob, alt

    def sample(self, w):
        r = w.rand_float()
        idx = _exact_uniform(len(self.prob), w.rand32, _M32)
        return idx if r < self.prob[idx] else self.alt[idx]

    def probability(self, v):
        return self.weights[v] / self.total


def _expected_count(p, batch_size, num_tries):
    if num_tries == batch_size:
        return np.float32(p) * np.float32(batch_size)
    return -_expm1f(np.float32(num_tries) * _log1pf(-np.float32(p)))


# --- kernels ----------------------------------------------------------------------

class _SamplerState(philox.GuardedPhilox):
    """A sampler kernel's generator and, for the learned unigram, the
    distribution it has learned (both start over on `restart`)."""

    __slots__ = ("sampler",)

    def restart(self):
        super().restart()
        self.sampler = None


def _check_true_classes(true_classes, num_true, range_max):
    if true_classes.ndim != 2:
        raise errors.InvalidArgumentError(None, None, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, None, f"true_classes must have num_true columns, expected: "
            f"{true_classes.shape[1]} was: {num_true}")
    flat = true_classes.reshape(-1)
    bad = (flat < 0) | (flat >= range_max)
    if bad.any():
        raise errors.InvalidArgumentError(
            None, None, f"`true_candidate` out of range [0, {range_max}), received "
            f"{int(flat[np.argmax(bad)])}")
    return flat.tolist()


def _run(sampler, state, true_classes, num_true, num_sampled, unique):
    """One run of a sampler kernel: (candidates, true expected counts,
    sampled expected counts)."""
    if unique and num_sampled > sampler.range:
        raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
    true_flat = _check_true_classes(true_classes, num_true, sampler.range)
    words = _Words(state.reserve32(2048 * num_sampled))
    batch = []
    if unique:
        used = set()
        tries = 0
        while len(batch) < num_sampled:
            tries += 1
            v = sampler.sample(words)
            if v not in used:
                used.add(v)
                batch.append(v)
    else:
        batch = [sampler.sample(words) for _ in range(num_sampled)]
        tries = num_sampled
    sampled_counts = np.array([_expected_count(sampler.probability(v), num_sampled, tries)
                               for v in batch], np.float32)
    true_counts = np.array([_expected_count(sampler.probability(v), num_sampled, tries)
                            for v in true_flat], np.float32).reshape(true_classes.shape)
    if isinstance(sampler, _Learned):
        sampler.update(true_flat)
    return np.array(batch, np.int64), true_counts, sampled_counts


def _state_of(_rng, seed, seed2):
    return _rng if _rng is not None else _SamplerState(seed, seed2)


def _simple_kernel(make):
    def kernel(true_classes, num_true=1, num_sampled=1, unique=False, range_max=1, seed=0,
               seed2=0, _rng=None):
        if range_max <= 0:
            raise errors.InvalidArgumentError(None, None, "range_max must be positive")
        state = _state_of(_rng, seed, seed2)
        sampler = getattr(state, "sampler", None)
        if sampler is None:
            sampler = make(range_max)
            if isinstance(state, _SamplerState):
                state.sampler = sampler
        return _run(sampler, state, true_classes, num_true, num_sampled, unique)
    return kernel


def _all_kernel(true_classes, num_true=1, num_sampled=1, unique=False, seed=0, seed2=0,
                _rng=None):
    state = _state_of(_rng, seed, seed2)
    _check_true_classes(true_classes, num_true, num_sampled)
    state.reserve32(2048 * num_sampled)
    return (np.arange(num_sampled, dtype=np.int64), np.ones(true_classes.shape, np.float32),
            np.ones(num_sampled, np.float32))


def _fixed_kernel(true_classes, num_true=1, num_sampled=1, unique=False, range_max=1,
                  vocab_file="", distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0,
                  unigrams=(), seed=0, seed2=0, _rng=None):
    state = _state_of(_rng, seed, seed2)
    sampler = getattr(state, "sampler", None)
    if sampler is None:
        if not vocab_file and not len(unigrams):
            raise errors.InvalidArgumentError(None, None,
                                              "Must provide either vocab_file or unigrams.")
        if vocab_file and len(unigrams):
            raise errors.InvalidArgumentError(
                None, None, "Must only provide one of vocab_file and unigrams.")
        sampler = _Fixed(range_max, unigrams, np.float32(distortion), num_reserved_ids,
                         num_shards, shard, vocab_file)
        if isinstance(state, _SamplerState):
            state.sampler = sampler
    return _run(sampler, state, true_classes, num_true, num_sampled, unique)


def _sampler_infer(inputs, attrs):
    t = inputs[0].shape
    if t.rank is not None and t.rank != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {t.rank}")
    n = attrs["num_sampled"]
    true_shape = TensorShape([t[0] if t.rank == 2 else None, attrs["num_true"]])
    return [(TensorShape([n]), D.int64), (true_shape, D.float32), (TensorShape([n]), D.float32)]


_UniformCandidateSampler = register(
    "UniformCandidateSampler", _simple_kernel(_Uniform), _sampler_infer, _no_grad,
    stateful=True)
_LogUniformCandidateSampler = register(
    "LogUniformCandidateSampler", _simple_kernel(_LogUniform), _sampler_infer, _no_grad,
    stateful=True)
_LearnedUnigramCandidateSampler = register(
    "LearnedUnigramCandidateSampler", _simple_kernel(_Learned), _sampler_infer, _no_grad,
    stateful=True)
_ThreadUnsafeUnigramCandidateSampler = register(
    "ThreadUnsafeUnigramCandidateSampler", _simple_kernel(_Learned), _sampler_infer, _no_grad,
    stateful=True)
_FixedUnigramCandidateSampler = register(
    "FixedUnigramCandidateSampler", _fixed_kernel, _sampler_infer, _no_grad, stateful=True)
_AllCandidateSampler = register("AllCandidateSampler", _all_kernel, _sampler_infer, _no_grad,
                                stateful=True)


# --- public samplers ----------------------------------------------------------------

def _check_attr(name, value, minimum):
    if value < minimum:
        msg = f"Value for attr '{name}' of {value} must be at least minimum {minimum}"
        if _state.graph is None:
            raise errors.InvalidArgumentError(None, None, msg)
        raise ValueError(msg)


def _int64_input(value, op, index, param):
    """An int64 input: Python values convert to it; a tensor of another dtype
    fails as TensorFlow's op does (InvalidArgumentError eagerly, TypeError
    while building a graph)."""
    if isinstance(value, Tensor) and value.dtype != D.int64:
        if _state.graph is None:
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {op} as input #{index}(zero-based) was expected "
                f"to be a int64 tensor but is a {value.dtype.name} tensor [Op:{op}]")
        raise TypeError(f"Input '{param}' of '{op}' Op has type {value.dtype.name} that does "
                        f"not match expected type of int64.")
    return convert_to_tensor(value, dtype=D.int64, name=param)


def _sample(opdef, true_classes, seed, name, attrs):
    """Runs sampler `opdef` with TensorFlow's seeds; eagerly the kernel's
    state is cached by its attrs, as TensorFlow caches the kernel."""
    for key in ("num_true", "num_sampled", "range_max"):
        if key in attrs:
            attrs[key] = int(attrs[key])
            _check_attr(key, attrs[key], 1)
    attrs["unique"] = bool(attrs["unique"])
    with _scope(name or opdef.name):
        t = _int64_input(true_classes, opdef.name, 0, "true_classes")
        s1, s2 = get_seed(seed)
        attrs["seed"] = 0 if s1 is None else s1
        attrs["seed2"] = 0 if s2 is None else s2
        g = _state.graph
        if g is not None:
            _graphs_with_random_ops.add(g)
            attrs["_rng"] = _SamplerState(attrs["seed"], attrs["seed2"])
        else:
            key = (opdef.name,) + tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                               for k, v in attrs.items()))
            state = _eager.streams.get(key)
            if state is None:
                state = _eager.streams[key] = _SamplerState(attrs["seed"], attrs["seed2"])
            attrs["_rng"] = state
        return _RESULTS[opdef.name](*apply(opdef, [t], attrs, name=opdef.name, multi=True))


# The ops' named outputs, as TensorFlow's generated wrappers return them.
_RESULTS = {name: collections.namedtuple(
    name, ["sampled_candidates", "true_expected_count", "sampled_expected_count"])
    for name in ("UniformCandidateSampler", "LogUniformCandidateSampler",
                 "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler",
                 "FixedUnigramCandidateSampler", "AllCandidateSampler")}
_AccidentalHits = collections.namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])

_SAMPLER_RETURNS = """
    Returns:
      (sampled_candidates, true_expected_count, sampled_expected_count):
      int64 [num_sampled] classes, float32 expected counts of the true
      classes ([batch_size, num_true]) and of the sampled ones.
"""


@export("random.uniform_candidate_sampler", "compat.v1.random.uniform_candidate_sampler",
        "compat.v1.nn.uniform_candidate_sampler")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """Samples `num_sampled` classes uniformly from [0, range_max) (distinct
    ones when `unique`), with the expected counts of the true classes
    (int64 [batch_size, num_true]) and the sampled ones."""
    return _sample(_UniformCandidateSampler, true_classes, seed, name,
                   dict(num_true=num_true, num_sampled=num_sampled, unique=unique,
                        range_max=range_max))


@export("random.log_uniform_candidate_sampler",
        "compat.v1.random.log_uniform_candidate_sampler",
        "compat.v1.nn.log_uniform_candidate_sampler")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Samples classes from the log-uniform (Zipfian) distribution
    P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), with the expected
    counts of the true and sampled classes."""
    return _sample(_LogUniformCandidateSampler, true_classes, seed, name,
                   dict(num_true=num_true, num_sampled=num_sampled, unique=unique,
                        range_max=range_max))


@export("random.learned_unigram_candidate_sampler", "nn.learned_unigram_candidate_sampler",
        "compat.v1.random.learned_unigram_candidate_sampler",
        "compat.v1.nn.learned_unigram_candidate_sampler")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):
    """Samples classes from a unigram distribution learned from the true
    classes seen so far: each class starts with weight 1 and gains 1 per
    occurrence as a true class (the op keeps it between runs).

    Raises:
      ValueError: if range_max exceeds the int32 range.
    """
    if range_max > _KINT32MAX:
        raise ValueError(f"Value of range_max:{range_max} is too large to handle")
    return _sample(_LearnedUnigramCandidateSampler, true_classes, seed, name,
                   dict(num_true=num_true, num_sampled=num_sampled, unique=unique,
                        range_max=range_max))


@export("random.fixed_unigram_candidate_sampler", "nn.fixed_unigram_candidate_sampler",
        "compat.v1.random.fixed_unigram_candidate_sampler",
        "compat.v1.nn.fixed_unigram_candidate_sampler")
def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """Samples classes from a fixed unigram distribution: `unigrams` (or the
    last comma-separated field of each line of `vocab_file`), each raised
    to `distortion`, after `num_reserved_ids` classes of weight 0; with
    `num_shards` > 1 only the ids of shard `shard` are kept.

    Raises:
      InvalidArgumentError: if neither or both of vocab_file and unigrams are
        given, or the number of weights differs from range_max.
    """
    return _sample(_FixedUnigramCandidateSampler, true_classes, seed, name,
                   dict(num_true=num_true, num_sampled=num_sampled, unique=unique,
                        range_max=range_max, vocab_file=vocab_file,
                        distortion=float(distortion), num_reserved_ids=int(num_reserved_ids),
                        num_shards=int(num_shards), shard=int(shard),
                        unigrams=[float(u) for u in unigrams]))


@export("random.all_candidate_sampler", "nn.all_candidate_sampler",
        "compat.v1.random.all_candidate_sampler", "compat.v1.nn.all_candidate_sampler")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """"Samples" every class of [0, num_sampled), each with expected count 1
    (for testing the other samplers' users)."""
    return _sample(_AllCandidateSampler, true_classes, seed, name,
                   dict(num_true=num_true, num_sampled=num_sampled, unique=unique))


for _f in (uniform_candidate_sampler, log_uniform_candidate_sampler,
           learned_unigram_candidate_sampler, fixed_unigram_candidate_sampler,
           all_candidate_sampler):
    _f.__doc__ += _SAMPLER_RETURNS


# --- accidental hits ----------------------------------------------------------------

def _accidental_hits_kernel(true_classes, sampled_candidates, num_true=1, seed=0, seed2=0):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, None, "true_candidates must be a batch_size * num_true matrix")
    if sampled_candidates.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, "sampled_candidates must be a vector, which is typically an output "
            "from CandidateSampler")
    # The last position of a repeated candidate wins, as in the kernel's map.
    pos = {int(c): i for i, c in enumerate(sampled_candidates.tolist())}
    indices, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for c in row:
            j = pos.get(c)
            if j is not None:
                indices.append(i)
                ids.append(j)
    weights = np.full(len(ids), -np.finfo(np.float32).max, np.float32)
    return np.array(indices, np.int32), np.array(ids, np.int64), weights


def _accidental_hits_infer(inputs, attrs):
    return [(TensorShape([None]), D.int32), (TensorShape([None]), D.int64),
            (TensorShape([None]), D.float32)]


_ComputeAccidentalHits = register("ComputeAccidentalHits", _accidental_hits_kernel,
                                  _accidental_hits_infer, _no_grad)


@export("nn.compute_accidental_hits", "compat.v1.nn.compute_accidental_hits")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Finds the sampled candidates that equal a true class of an example.

    Returns (indices, ids, weights): for each hit, the example's row (int32),
    the position in `sampled_candidates` (int64) and -FLT_MAX, the weight
    that removes the hit when added to its sampled logit.
    """
    with _scope(name or "ComputeAccidentalHits"):
        t = _int64_input(true_classes, "ComputeAccidentalHits", 0, "true_classes")
        s = _int64_input(sampled_candidates, "ComputeAccidentalHits", 1, "sampled_candidates")
        s1, s2 = get_seed(seed)
        attrs = {"num_true": int(num_true), "seed": 0 if s1 is None else s1,
                 "seed2": 0 if s2 is None else s2}
        return _AccidentalHits(*apply(_ComputeAccidentalHits, [t, s], attrs,
                                      name="ComputeAccidentalHits", multi=True))
