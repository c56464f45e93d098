"""TensorFlow's rejection samplers, reproduced: gamma (Marsaglia-Tsang),
Poisson (Knuth below rate 10, Hormann's transformed rejection above) and
binomial (inversion below mean 10, Hormann's BTRS above), as the CPU
kernels of StatelessRandomGammaV2/V3, StatelessRandomPoisson and
StatelessRandomBinomial compute them.

Each output value i draws from its own Philox stream, which starts
`stride * i` calls after the op's position (256 calls; 42 for binomial
inversion), so values do not depend on each other. The kernels use double
precision, take double uniforms from a call's two word pairs last pair
first, and Box-Muller normals (cos-based first); the math functions are the
C library's (Python's `math` module for log, log1p, exp, pow; `lgamma`
through ctypes, as Python's own differs), so the values are TensorFlow's
bit for bit.

The common case is computed for all outputs at once (the first attempt of
the gamma sampler, Knuth's products and the inversion's geometric sums over
a fixed number of draws); outputs that need more go through a scalar
replay of the kernel's loop (`_Stream`), which is also the reference the
vector paths agree with.
"""
import ctypes
import ctypes.util
import math

import numpy as np

from . import distributions as _dist
from . import philox

_GAMMA_STRIDE = 256
_POISSON_STRIDE = 256
_BTRS_STRIDE = 256
_INVERSION_STRIDE = 42


def _load_lgamma():
    """The C library's lgamma (Eigen's numext::lgamma calls it); Python's
    math.lgamma is CPython's own approximation."""
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        f = libm.lgamma
        f.restype, f.argtypes = ctypes.c_double, [ctypes.c_double]
        return f
    except (OSError, AttributeError):
        return math.lgamma


_lgamma = _load_lgamma()


class _Stream:
    """The Philox stream of one output: calls from `start` on, handed out as
    TensorFlow's distributions and sample buffers do."""

    def __init__(self, pos, start):
        self.key, self.counter = philox.skip(pos, start)
        self.calls = 0
        self.uniforms = []
        self.normals = []

    def _call(self):
        w = philox.blocks(self.key, (self.counter + self.calls) & ((1 << 128) - 1), 1)[0]
        self.calls += 1
        return w

    def uniform(self):
        """The next double in [0, 1): of a call's two, the second first."""
        if not self.uniforms:
            w = self._call()
            d = _dist._u64_to_double(w[0::2], w[1::2])
            self.uniforms = [float(d[0]), float(d[1])]
        return self.uniforms.pop()

    def normal(self):
        """The next standard normal (Box-Muller: the cos-based one first)."""
        if not self.normals:
            w = self._call()
            s, c = _dist._box_muller64(w[0:1], w[1:2], w[2:3], w[3:4])
            self.normals = [float(s[0]), float(c[0])]
        return self.normals.pop()


def _first_calls(pos, idx, stride, calls):
    """The first `calls` Philox calls of the streams of outputs `idx` (an
    int array): an (len(idx), calls, 4) uint32 array."""
    offs = (np.asarray(idx, np.uint64)[:, None] * np.uint64(stride) +
            np.arange(calls, dtype=np.uint64)[None, :])
    return _dist._strided_blocks(pos, offs.reshape(-1)).reshape(len(idx), calls, 4)


def _uniform_pairs(w):
    """Doubles of calls `w` (..., 4) in the order they are handed out: the
    second pair's, then the first's: (..., 2)."""
    first = _dist._u64_to_double(w[..., 0], w[..., 1])
    second = _dist._u64_to_double(w[..., 2], w[..., 3])
    return np.stack([second, first], axis=-1)


def _libm(f, x):
    return np.fromiter(map(f, np.asarray(x, np.float64).reshape(-1).tolist()), np.float64,
                       count=np.size(x)).reshape(np.shape(x))


# --- gamma ------------------------------------------------------------------------------

def _gamma_scalar(pos, i, alpha):
    """Output i of the gamma sampler for shape `alpha` (a double)."""
    s = _Stream(pos, _GAMMA_STRIDE * i)
    if alpha == 1.0:
        return -math.log1p(-s.uniform())
    less = alpha < 1
    d = alpha + (2.0 / 3 if less else -1.0 / 3)
    c = 1.0 / 3 / math.sqrt(d) if d >= 0 else math.nan
    while True:
        x = s.normal()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = s.uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or \
                math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
            res = d * v
            if less:
                res *= math.pow(s.uniform(), _inverse(alpha))
            return res


def _inverse(x):
    """1 / x as C computes it (infinite for 0)."""
    with np.errstate(divide="ignore"):
        return float(np.float64(1) / np.float64(x))


def gamma(pos, alphas, samples_per_alpha):
    """Gamma(alpha, 1) samples as doubles, in output order: `samples_per_alpha`
    rows of one value per alpha (output i = alpha i // samples_per_alpha,
    stored at row i % samples_per_alpha)."""
    alphas = np.asarray(alphas, np.float64).reshape(-1)
    n = alphas.size * samples_per_alpha
    a = np.repeat(alphas, samples_per_alpha)
    out = np.empty(n, np.float64)
    if n == 0:
        return out.reshape(samples_per_alpha, alphas.size)
    w = _first_calls(pos, np.arange(n), _GAMMA_STRIDE, 2)
    one = a == 1.0
    if one.any():
        u = _uniform_pairs(w[one, 0])[:, 0]
        out[one] = -_libm(math.log1p, -u)
    rest = np.nonzero(~one)[0]
    if rest.size:
        ar = a[rest]
        less = ar < 1
        d = ar + np.where(less, 2.0 / 3, -1.0 / 3)
        with np.errstate(invalid="ignore"):
            c = 1.0 / 3 / np.sqrt(d)
        _, x = _dist._box_muller64(w[rest, 0, 0], w[rest, 0, 1], w[rest, 0, 2],
                                   w[rest, 0, 3])
        v = 1 + c * x
        ok = v > 0
        v = v * v * v
        pair = _uniform_pairs(w[rest, 1])
        u = pair[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            accept = ok & (u < 1 - 0.0331 * (x * x) * (x * x))
            check = ok & ~accept
            if check.any():
                j = np.nonzero(check)[0]
                lhs = _libm(math.log, u[j])
                rhs = 0.5 * x[j] * x[j] + d[j] * (1 - v[j] + _libm(math.log, v[j]))
                accept[j] = lhs < rhs
        res = d * v
        if less.any():
            j = np.nonzero(accept & less)[0]
            res[j] = res[j] * np.fromiter(
                map(math.pow, pair[j, 1].tolist(), map(_inverse, ar[j].tolist())), np.float64,
                count=j.size)
        out[rest[accept]] = res[accept]
        for k in rest[~accept].tolist():
            out[k] = _gamma_scalar(pos, k, float(a[k]))
    return out.reshape(alphas.size, samples_per_alpha).T


# --- Poisson ----------------------------------------------------------------------------

def _poisson_knuth_scalar(pos, i, rate, highest):
    s = _Stream(pos, _POISSON_STRIDE * i)
    exp_neg_rate = math.exp(-rate)
    prod, x = 1.0, 0.0
    while True:
        prod = prod * s.uniform()
        if prod <= exp_neg_rate and x <= highest:
            return x
        x += 1


def _poisson_hormann_scalar(pos, i, rate, highest):
    s = _Stream(pos, _POISSON_STRIDE * i)
    log_rate = math.log(rate)
    b = 0.931 + 2.53 * math.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    while True:
        u = s.uniform()
        u -= 0.5
        v = s.uniform()
        u_shifted = 0.5 - abs(u)
        k = math.floor((2 * a / u_shifted + b) * u + rate + 0.43)
        if k > highest:
            continue
        if u_shifted >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2):
            return float(k)
        if k < 0 or (u_shifted < 0.013 and v > u_shifted):
            continue
        lhs = math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        rhs = -rate + k * log_rate - _lgamma(k + 1)
        if lhs <= rhs:
            return float(k)


def poisson(pos, rates, samples_per_rate, highest):
    """Poisson(rate) samples as doubles, laid out as `gamma`'s; `highest` is
    the output dtype's largest value (larger draws are retried)."""
    rates = np.asarray(rates, np.float64).reshape(-1)
    n = rates.size * samples_per_rate
    r = np.repeat(rates, samples_per_rate)
    out = np.empty(n, np.float64)
    if n == 0:
        return out.reshape(samples_per_rate, rates.size)
    small = np.nonzero(r < 10)[0]
    if small.size:
        # Knuth: the running products of enough uniforms for most outputs.
        draws = int(min(_POISSON_STRIDE * 2, max(r[small].max() * 2 + 12, 16)))
        w = _first_calls(pos, small, _POISSON_STRIDE, (draws + 1) // 2)
        u = _uniform_pairs(w).reshape(small.size, -1)[:, :draws]
        prod = np.cumprod(u, axis=1)
        limit = _libm(math.exp, -r[small])
        hit = prod <= limit[:, None]
        found = hit.any(axis=1)
        x = np.argmax(hit, axis=1).astype(np.float64)
        found &= x <= highest
        out[small[found]] = x[found]
        for k in small[~found].tolist():
            out[k] = _poisson_knuth_scalar(pos, k, float(r[k]), highest)
    large = np.nonzero(r >= 10)[0]
    if large.size:
        out[large] = _hormann(pos, large, r[large], highest)
    out[np.isnan(r)] = 0.0   # TensorFlow's loop never ends for NaN; 0 here
    return out.reshape(rates.size, samples_per_rate).T


_ATTEMPTS = 3


def _attempts(pos, idx, stride):
    """(u, v) of the first _ATTEMPTS attempts of outputs `idx`: each attempt
    takes one Philox call's two doubles, u the call's second, v its first:
    two (len(idx), _ATTEMPTS) arrays."""
    pair = _uniform_pairs(_first_calls(pos, idx, stride, _ATTEMPTS))
    return pair[..., 0], pair[..., 1]


def _hormann(pos, idx, rate, highest):
    """Hormann's transformed rejection for outputs `idx` (rates >= 10): the
    first attempts for all of them, the rest replayed one at a time."""
    out = np.full(idx.size, np.nan)
    done = np.zeros(idx.size, bool)
    log_rate = _libm(math.log, rate)
    b = 0.931 + 2.53 * np.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    us_all, vs_all = _attempts(pos, idx, _POISSON_STRIDE)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(_ATTEMPTS):
            u = us_all[:, j] - 0.5
            v = vs_all[:, j]
            us = 0.5 - np.abs(u)
            k = np.floor((2 * a / us + b) * u + rate + 0.43)
            live = ~done & ~(k > highest)
            box = live & (us >= 0.07) & (v <= 0.9277 - 3.6224 / (b - 2))
            out[box] = k[box]
            done |= box
            test = live & ~box & ~((k < 0) | ((us < 0.013) & (v > us)))
            t = np.nonzero(test)[0]
            if t.size:
                lhs = _libm(math.log, v[t] * inv_alpha[t] / (a[t] / (us[t] * us[t]) + b[t]))
                rhs = -rate[t] + k[t] * log_rate[t] - _libm(_lgamma, k[t] + 1)
                ok = lhs <= rhs
                out[t[ok]] = k[t[ok]]
                done[t[ok]] = True
    for j in np.nonzero(~done)[0].tolist():
        out[j] = _poisson_hormann_scalar(pos, int(idx[j]), float(rate[j]), highest)
    return out


# --- binomial ---------------------------------------------------------------------------

def _inversion_scalar(pos, i, count, prob):
    s = _Stream(pos, _INVERSION_STRIDE * i)
    geom_sum, num_geom = 0.0, 0
    log_q = math.log1p(-prob)
    while True:
        geom = math.ceil(math.log(s.uniform()) / log_q)
        geom_sum += geom
        if geom_sum > count:
            return float(num_geom)
        num_geom += 1


_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _btrs_scalar(pos, i, count, prob):
    s = _Stream(pos, _BTRS_STRIDE * i)
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    log = math.log
    while True:
        u = s.uniform()
        v = s.uniform()
        u = u - 0.5
        us = 0.5 - abs(u)
        k = float(math.floor((2 * a / us + b) * u + c))
        if us >= 0.07 and v <= v_r:
            return k
        if k < 0 or k > count:
            continue
        v = log(v * alpha / (a / (us * us) + b))
        upperbound = ((m + 0.5) * log((m + 1) / (r * (count - m + 1))) +
                      (count + 1) * log((count - m + 1) / (count - k + 1)) +
                      (k + 0.5) * log(r * (count - k + 1) / (k + 1)) +
                      _stirling_tail(m) + _stirling_tail(count - m) -
                      _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upperbound:
            return k


def _stirling_tails(k):
    table = np.array(_TAIL)
    with np.errstate(invalid="ignore", over="ignore"):
        kp1sq = (k + 1) * (k + 1)
        far = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    near = table[np.clip(np.nan_to_num(k), 0, 9).astype(np.int64)]
    return np.where(k <= 9, near, far)


def _btrs(pos, idx, count, prob):
    """BTRS for outputs `idx`: the first attempts for all of them, the rest
    replayed one at a time."""
    out = np.full(idx.size, np.nan)
    done = np.zeros(idx.size, bool)
    stddev = np.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + 1) * prob)
    us_all, vs_all = _attempts(pos, idx, _BTRS_STRIDE)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(_ATTEMPTS):
            u = us_all[:, j] - 0.5
            v = vs_all[:, j]
            us = 0.5 - np.abs(u)
            k = np.floor((2 * a / us + b) * u + c)
            box = ~done & (us >= 0.07) & (v <= v_r)
            out[box] = k[box]
            done |= box
            t = np.nonzero(~done & ~((k < 0) | (k > count)))[0]
            if t.size:
                log = lambda x: _libm(math.log, x)  # noqa: E731
                ct, kt, mt, rt = count[t], k[t], m[t], r[t]
                lhs = log(v[t] * alpha[t] / (a[t] / (us[t] * us[t]) + b[t]))
                upper = ((mt + 0.5) * log((mt + 1) / (rt * (ct - mt + 1))) +
                         (ct + 1) * log((ct - mt + 1) / (ct - kt + 1)) +
                         (kt + 0.5) * log(rt * (ct - kt + 1) / (kt + 1)) +
                         _stirling_tails(mt) + _stirling_tails(ct - mt) -
                         _stirling_tails(kt) - _stirling_tails(ct - kt))
                ok = lhs <= upper
                out[t[ok]] = kt[ok]
                done[t[ok]] = True
    for j in np.nonzero(~done)[0].tolist():
        out[j] = _btrs_scalar(pos, int(idx[j]), float(count[j]), float(prob[j]))
    return out


def _inversion(pos, idx, counts, probs):
    """Binomial inversion for outputs `idx`: geometric sums over a fixed
    number of draws, the rest replayed one at a time."""
    out = np.empty(idx.size, np.float64)
    w = _first_calls(pos, idx, _INVERSION_STRIDE, 12)
    u = _uniform_pairs(w).reshape(idx.size, -1)
    log_q = _libm(math.log1p, -probs)
    geom = np.ceil(_libm(math.log, u) / log_q[:, None])
    sums = np.cumsum(geom, axis=1)
    over = sums > counts[:, None]
    found = over.any(axis=1)
    out[found] = np.argmax(over, axis=1)[found]
    for j in np.nonzero(~found)[0].tolist():
        out[j] = _inversion_scalar(pos, int(idx[j]), float(counts[j]), float(probs[j]))
    return out


def binomial(pos, counts, probs, samples_per_batch, np_dtype):
    """Binomial(count, prob) samples as doubles: `counts` and `probs` are the
    flat per-batch parameters (of the op's dtype `np_dtype`, in whose
    arithmetic the kernel picks the method), laid out as `gamma`'s."""
    counts = np.asarray(counts).reshape(-1)
    probs = np.asarray(probs).reshape(-1)
    nb = counts.size
    n = nb * samples_per_batch
    out = np.empty(n, np.float64)
    if n == 0:
        return out.reshape(samples_per_batch, nb)
    cnt = np.repeat(counts, samples_per_batch)
    prb = np.repeat(probs, samples_per_batch)
    dcount = cnt.astype(np.float64)
    one = np_dtype.type(1)
    with np.errstate(invalid="ignore", over="ignore"):
        zero = (dcount <= 0.0) | (prb <= 0)
        full = ~zero & (prb >= one)
        low = ~zero & ~full & (prb <= np_dtype.type(0.5))
        high = ~zero & ~full & (prb > np_dtype.type(0.5))
        q = (one - prb).astype(np_dtype)
        p_eff = np.where(low, prb, q)
        big = (cnt * p_eff).astype(np_dtype) >= np_dtype.type(10)
    out[zero] = 0.0
    out[full] = dcount[full]
    out[~(zero | full | low | high)] = np.nan
    dp = p_eff.astype(np.float64)
    inv = np.nonzero((low | high) & ~big)[0]
    if inv.size:
        out[inv] = _inversion(pos, inv, dcount[inv], dp[inv])
    bt = np.nonzero((low | high) & big)[0]
    if bt.size:
        out[bt] = _btrs(pos, bt, dcount[bt], dp[bt])
    flip = high & ~zero & ~full
    out[flip] = dcount[flip] - out[flip]
    return out.reshape(nb, samples_per_batch).T
