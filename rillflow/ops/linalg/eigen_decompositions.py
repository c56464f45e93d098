"""NumPy versions of the Eigen factorizations behind TensorFlow's CPU
kernels, with the arithmetic of eigen_solvers (flush-to-zero, C's and
Eigen's complex operations): the partially pivoted LU (Lu, and the
determinants MatrixDeterminant and LogMatrixDeterminant, computed from it
as TensorFlow does) and the Cholesky factorization (Cholesky, and
MatrixSolveLs). No op is registered here.
"""
import math

import numpy as np

from ..kernels.exp_log import exp_scalar, log_packets, log_scalar
from ..kernels.exp_log_f64 import plog_double
from .eigen_solvers import _at, _map, _put, ftz, join, mul, split, sub


# --- partially pivoted LU -------------------------------------------------------------

def daz(v):
    """A flushed copy of a value (an operand of arithmetic reads subnormals as
    +-0); the value itself keeps them (a stored, never-used input does)."""
    return _map(lambda u: ftz(np.array(u)), v)


def cdiv(a, b):
    """a / b for complex pairs as Eigen divides complex numbers: b scaled by
    the larger of its parts' magnitudes first (so 0 / (inf + 0i) is NaN)."""
    (x, y), (c, d) = a, b
    big = np.maximum(np.abs(c), np.abs(d))
    cs, ds = ftz(c / big), ftz(d / big)
    den = ftz(ftz(cs * cs) + ftz(ds * ds))
    re = ftz(ftz(x * cs) + ftz(y * ds))
    im = ftz(ftz(y * cs) - ftz(x * ds))
    return (ftz(ftz(re / den) / big), ftz(ftz(im / den) / big))


def magnitude(v):
    """|v|: fabs for real values (no arithmetic: a subnormal stays), C's
    cabs (hypot of the flushed parts) for complex ones."""
    if isinstance(v, tuple):
        return ftz(np.hypot(*daz(v)))
    return np.abs(v)


def _packet_max(p):
    """The value Eigen's predux_max leaves for packets p (..., lanes):
    halves compared lane by lane, each comparison keeping its first operand
    if either is NaN."""
    while p.shape[-1] > 1:
        h = p.shape[-1] // 2
        a, b = p[..., :h], p[..., h:]
        p = np.where(np.isnan(a) | np.isnan(b) | (a > b), a, b)
    return p[..., 0]


def _pivot(score, lanes):
    """The row maxCoeff(&row) gives for each column tail score (b, m) of
    magnitudes in TensorFlow 2.21's build of Eigen (its behavior with NaN,
    found by probing it on 1,500 patterns and 5,000 random columns):
    element by element, the first value, then any later one greater than
    the best so far (a NaN first stays, a later NaN is passed over). For
    real types, on packets of `lanes` (AVX: 8 float32, 4 float64) from the
    first element, the rest one by one: a packet whose largest non-NaN value
    beats the best so far is taken at the first lane holding that value,
    except that a NaN in its first lane is taken instead (and stays, as a
    NaN first element does); the best so far then becomes _packet_max of
    the packet, which a NaN can make smaller than its largest value."""
    b, m = score.shape
    rows = np.arange(b)
    nan = np.isnan(score)
    masked = np.where(nan, -np.inf, score)
    if m < lanes or lanes == 1:
        best, at, start = score[:, 0], np.zeros(b, np.int64), 1
    else:
        p = score[:, :lanes]
        at = np.where(nan[:, 0], 0, np.argmax(masked[:, :lanes], axis=1))
        best = np.where(nan[:, 0], np.nan, _packet_max(p))
        start = m - m % lanes
        for i in range(lanes, start, lanes):
            p = score[:, i:i + lanes]
            top = np.max(masked[:, i:i + lanes], axis=1)
            take = top > best               # False for a NaN best or all-NaN packet
            lead = nan[:, i]
            at = np.where(take, np.where(lead, i, i + np.argmax(masked[:, i:i + lanes], axis=1)),
                          at)
            best = np.where(take, np.where(lead, np.nan, _packet_max(p)), best)
    for i in range(start, m):
        take = score[:, i] > best
        at = np.where(take, i, at)
        best = np.where(take, score[:, i], best)
    return at


def partial_piv_lu(x):
    """Eigen's PartialPivLU (its unblocked algorithm) of every matrix of the
    batch x (b, n, n): column by column, the pivot is the row of largest
    magnitude at or below the diagonal, taken as Eigen's maxCoeff takes it
    (ties keep the first row); a pivot of 0 (a subnormal reads as 0) is
    neither swapped nor divided by. Then the column below is
    divided by the pivot and the trailing block updated by the outer
    product, every step flushed. (See _pivot for NaNs.) Returns (the packed factors as a value of
    `split`, raw where never computed; the row order p with x[p] = L U;
    the number of row swaps)."""
    lu = _map(np.array, (x.real, x.imag)) if x.dtype.kind == "c" else np.array(x)
    b, n, _ = x.shape
    perm = np.tile(np.arange(n), (b, 1))
    swaps = np.zeros(b, np.int64)
    batch = np.arange(b)
    with np.errstate(all="ignore"):
        for k in range(n):
            score = ftz(np.array(magnitude(_at(lu, (slice(None), slice(k, None), k)))))
            piv = _pivot(score, 1 if isinstance(lu, tuple) else 32 // x.dtype.itemsize)
            nonzero = score[batch, piv] != 0
            piv += k
            swap = nonzero & (piv != k)
            if swap.any():
                rows, other = batch[swap], piv[swap]
                for part in (lu if isinstance(lu, tuple) else (lu,)):
                    part[rows, k], part[rows, other] = part[rows, other], part[rows, k].copy()
                perm[rows, k], perm[rows, other] = perm[rows, other], perm[rows, k].copy()
                swaps += swap
            if k + 1 == n:
                break
            below = (nonzero, slice(k + 1, None), k)
            if nonzero.any():
                col, pivot = daz(_at(lu, below)), daz(_at(lu, (nonzero, k, k, None)))
                _put(lu, below, cdiv(col, pivot) if isinstance(lu, tuple)
                     else ftz(col / pivot))
            corner = (slice(None), slice(k + 1, None), slice(k + 1, None))
            # Eigen's outer product runs on packets (no complex recovery).
            outer = mul(daz(_at(lu, (slice(None), slice(k + 1, None), k, None))),
                        daz(_at(lu, (slice(None), k, None, slice(k + 1, None)))), recover=False)
            _put(lu, corner, sub(daz(_at(lu, corner)), outer))
    return lu, perm, swaps


def min_magnitude(d):
    """The smallest of the magnitudes d (..., n) as Eigen's minCoeff finds
    it: the first, replaced by each later one that compares smaller (so a
    NaN first stays, a NaN later is passed over)."""
    res = np.array(d[..., 0])
    for i in range(1, d.shape[-1]):
        res = np.where(ftz(np.array(d[..., i])) < ftz(np.array(res)), d[..., i], res)
    return res


# --- determinants ---------------------------------------------------------------------

def _log_magnitudes(m):
    """Eigen's log of each |pivot| (..., n), as its reduction evaluates it:
    on packets (8 float32 or 4 float64) from the first, the last n % 8 (4)
    by the C library's logf (log). Subnormals read as 0."""
    n = m.shape[-1]
    lanes = 8 if m.dtype == np.float32 else 4
    head = n - n % lanes
    out = np.empty_like(m)
    if m.dtype == np.float32:
        if head:
            out[..., :head] = log_packets(np.ascontiguousarray(m[..., :head]).ravel()).reshape(
                m.shape[:-1] + (head,))
        if head < n:
            out[..., head:] = log_scalar(np.ascontiguousarray(m[..., head:]))
        return out
    m = ftz(np.array(m))
    with np.errstate(all="ignore"):
        if head:
            out[..., :head] = plog_double(m[..., :head])
        tail = np.log(m[..., head:])
    fine = np.isfinite(m[..., head:]) & (m[..., head:] > 0)
    tail[fine] = [math.log(v) for v in m[..., head:][fine].tolist()]
    out[..., head:] = tail
    return out


def _redux(v, lanes, op, tail_op=None):
    """Eigen's vectorized reduction of the last axis of a value of `split`:
    packets of `lanes` from the first element, two accumulators over pairs
    of packets, the packet halved lane by lane, then the leftover elements
    one by one (with `tail_op`, the scalar operation, if it differs);
    below a packet, all one by one with `tail_op`."""
    tail_op = tail_op or op
    n = (v[0] if isinstance(v, tuple) else v).shape[-1]

    def lane(i, j):
        return _at(v, (Ellipsis, slice(i, j)))

    if n < lanes:
        res = lane(0, 1)
        for i in range(1, n):
            res = tail_op(res, lane(i, i + 1))
        return _at(res, (Ellipsis, 0))
    aligned, paired = n - n % lanes, n - n % (2 * lanes)
    p0 = lane(0, lanes)
    if aligned > lanes:
        p1 = lane(lanes, 2 * lanes)
        for i in range(2 * lanes, paired, 2 * lanes):
            p0, p1 = op(p0, lane(i, i + lanes)), op(p1, lane(i + lanes, i + 2 * lanes))
        p0 = op(p0, p1)
        if aligned > paired:
            p0 = op(p0, lane(paired, aligned))
    width = lanes
    while width > 1:
        width //= 2
        p0 = op(_at(p0, (Ellipsis, slice(0, width))), _at(p0, (Ellipsis, slice(width, 2 * width))))
    res = _at(p0, (Ellipsis, 0))
    for i in range(aligned, n):
        res = tail_op(res, _at(v, (Ellipsis, i)))
    return res


def _signs(d, packet):
    """Eigen's sign of each pivot: +-1 for real ones (|d| for 0 and NaN), d
    times the reciprocal of its magnitude for complex ones (0 for 0), or on
    packets (packet=True) d divided by the overflow-safe magnitude."""
    if not isinstance(d, tuple):
        f = ftz(np.array(d))
        one = np.ones((), d.dtype)
        return np.where(f > 0, one, np.where(f < 0, -one, np.abs(d)))
    re, im = daz(d)
    if not packet:
        mag = magnitude(d)
        inv = ftz(1 / mag)
        zero = mag == 0
        return tuple(np.where(zero, 0 * p, ftz(p * inv)) for p in (re, im))
    big = np.maximum(np.abs(re), np.abs(im))
    small = np.minimum(np.abs(re), np.abs(im))
    r = ftz(small / big)
    mag = ftz(big * ftz(np.sqrt(ftz(1 + ftz(r * r)))))
    mag = np.where(small == 0, big, mag)
    return tuple(np.where(big == 0, 0 * p, ftz(p / mag)) for p in (re, im))


def slogdet(x):
    """(sign, log |det|) of each matrix of the batch x (b, n, n), n > 0, as
    TensorFlow's kernel: the pivots of the LU, the sum of their logs (on
    the magnitudes) and the product of their signs with the permutation's,
    all in Eigen's order; no special case for a singular or non-finite
    matrix (log |det| is then -inf or NaN, the sign 0 or NaN). Real values,
    or (real, imaginary) pairs for the complex sign."""
    lu, _, swaps = partial_piv_lu(x)
    n = x.shape[-1]
    diag = _at(lu, (slice(None), np.arange(n), np.arange(n)))
    real = (diag[0] if isinstance(diag, tuple) else diag).dtype
    lanes = 8 if real == np.float32 else 4          # an AVX packet of reals
    with np.errstate(all="ignore"):
        log_abs = _redux(_log_magnitudes(magnitude(diag)), lanes,
                         lambda a, b: ftz(np.add(a, b)))
        parity = np.where(swaps % 2 == 1, -1.0, 1.0).astype(real)
        if not isinstance(diag, tuple):
            prod = _redux(_signs(diag, packet=False), lanes, lambda a, b: ftz(np.multiply(a, b)))
            return ftz(parity * prod), log_abs
        # Complex: the packets' signs and products differ from the scalar
        # ones (no recovery of infinities in the products).
        lanes //= 2
        signs = _signs(diag, packet=False)
        head = n - n % lanes
        if head:
            for s, p in zip(signs, _signs(_at(diag, (Ellipsis, slice(0, head))), packet=True)):
                s[..., :head] = p
        prod = _redux(signs, lanes, lambda a, b: mul(a, b, recover=False), mul)
        return mul((parity, np.zeros_like(parity)), prod), log_abs


def det(x):
    """The determinant of each matrix of the batch x (b, n, n), n > 0, as
    TensorFlow's kernel computes it: sign * exp(log |det|) (the C library's
    exp), so a huge or tiny determinant overflows or underflows as that."""
    sign, log_abs = slogdet(x)
    with np.errstate(all="ignore"):
        if log_abs.dtype == np.float32:
            e = exp_scalar(np.ascontiguousarray(log_abs))
        else:
            e = np.exp(log_abs)
            fine = np.abs(log_abs) < 700        # math.exp raises on overflow
            e[fine] = [math.exp(v) for v in log_abs[fine].tolist()]
            e = ftz(e)
        return _map(lambda s: ftz(s * e), sign)


# --- Cholesky -------------------------------------------------------------------------

def _keep(y):
    return y


def _halve(acc, f):
    """A packet's lanes added pairwise, halves first (Eigen's predux)."""
    while acc.shape[-1] > 1:
        h = acc.shape[-1] // 2
        acc = f(acc[..., :h] + acc[..., h:2 * h])
    return acc[..., 0]


def _row_dots(rows, v, lanes, f):
    """Eigen's row-major matrix-vector product's dot products of the rows
    (..., r, k) with v (..., k), real: blocks of 8, 4 and 2 rows sum whole
    packets lane by lane (halved at the end) and then the leftover columns
    one by one; a last single row also takes a half packet (4 float32, 2
    float64) before those. `f` flushes (or not) each result."""
    r, k = rows.shape[-2:]
    full = k - k % lanes
    prods = f(rows * v[..., None, :])
    acc = np.zeros(prods.shape[:-1] + (lanes,), prods.dtype)
    for j in range(0, full, lanes):
        acc = f(acc + prods[..., j:j + lanes])
    cc = _halve(acc, f)
    # The rows the 8-, 4- and 2-row blocks take; one may be left.
    blocked = 0
    for block in (8, 4, 2):
        while blocked < r - block + 1:
            blocked += block
    j = full
    if blocked < r and k - full >= lanes // 2:
        half = lanes // 2
        tail = np.zeros(prods.shape[:-2] + (half,), prods.dtype)
        while k - j >= half:
            tail = f(tail + prods[..., r - 1, j:j + half])
            j += half
        cc[..., r - 1] = f(cc[..., r - 1] + _halve(tail, f))
        for c in range(j, k):
            cc[..., r - 1] = f(cc[..., r - 1] + prods[..., r - 1, c])
        j = full
        last = slice(0, r - 1)
    else:
        last = slice(0, r)
    for c in range(j, k):
        cc[..., last] = f(cc[..., last] + prods[..., last, c])
    return cc


def _llt_real(a, lanes, flush):
    """The real LLT in place on a (b, n, n), flushing every result or not;
    returns whether each matrix failed."""
    f = ftz if flush else _keep
    b, n, _ = a.shape
    failed = np.zeros(b, bool)
    for k in range(n):
        d = np.array(a[:, k, k])
        if k:
            sq = f(a[:, k, :k] * a[:, k, :k])
            d = f(d - _redux(sq, lanes, lambda p, q: f(p + q)))
        failed |= ~(d > 0) & ~np.isnan(d)
        d = f(np.sqrt(d))
        a[:, k, k] = d
        if k + 1 == n:
            break
        col = a[:, k + 1:, k]
        if k + 2 == n and k:
            # One row left: a 1 x 1 product, Eigen's inner product (its
            # vectorized sum of the products).
            prods = f(a[:, k + 1, :k] * a[:, k, :k])
            col = f(col - _redux(prods, lanes, lambda p, q: f(p + q))[:, None])
        elif k:
            col = f(col - _row_dots(a[:, k + 1:, :k], a[:, k, :k], lanes, f))
        a[:, k + 1:, k] = f(col / d[:, None])
    return failed


def llt(x):
    """Eigen's LLT (its unblocked algorithm) of the lower triangles of the
    batch x (b, n, n): for each column, x = a[k, k] - |row k so far|^2,
    failing at the first x <= 0 (a NaN passes), then the column below less
    the dot products of the rows with row k, divided by sqrt(x), flushed.
    Real matrices up to 31 x 31 in Eigen's orders of summation (its GEMV's
    and vectorized sums; agreeing with TensorFlow bit for bit in all but a
    few last-row entries from about 12 x 12 on); complex ones, and from 32
    x 32 on (where Eigen blocks), in NumPy's order. Returns (the factor as
    a value of `split`, upper triangle 0; whether each failed)."""
    b, n, _ = x.shape
    a = split(np.tril(x))
    complex_ = isinstance(a, tuple)
    real = a[0] if complex_ else a
    lanes = 32 // real.dtype.itemsize
    if n >= 32 or complex_:
        return _llt_numpy(a, np.zeros(b, bool))
    with np.errstate(all="ignore"):
        # Unflushed first; if no entry of A or L is below 2**(e/2 + p) in
        # magnitude (e the smallest normal exponent, p the mantissa bits),
        # no product, sum or quotient was subnormal and flushing changes
        # nothing (as in eigen_solvers._safe); else again with flushing.
        out = np.array(a)
        failed = _llt_real(out, lanes, flush=False)
        bound = 2.0 ** (-51 if real.dtype == np.float32 else -485)
        for v in (a, out):
            w = np.abs(v[np.isfinite(v) & (v != 0)])
            if w.size and w.min() < bound:
                out = np.array(a)
                failed = _llt_real(out, lanes, flush=True)
                break
    return out, failed


def _llt_numpy(a, failed):
    """llt for complex and large matrices: the same steps, each column's sums
    by NumPy."""
    complex_ = isinstance(a, tuple)
    m = join(a, np.result_type(a[0].dtype, np.complex64)) if complex_ else a
    n = m.shape[-1]
    with np.errstate(all="ignore"):
        for k in range(n):
            row = m[:, k, :k]
            d = np.real(m[:, k, k]) - np.real(np.sum(row * np.conj(row), axis=-1))
            d = ftz(np.array(d))
            failed |= ~(d > 0) & ~np.isnan(d)
            d = ftz(np.sqrt(d))
            m[:, k, k] = d
            if k + 1 < n:
                col = m[:, k + 1:, k] - np.matmul(m[:, k + 1:, :k], np.conj(row)[..., None])[..., 0]
                m[:, k + 1:, k] = col / d[:, None]
                for part in ((m.real, m.imag) if complex_ else (m,)):
                    ftz(part[:, k + 1:, k])
    return split(m), failed
