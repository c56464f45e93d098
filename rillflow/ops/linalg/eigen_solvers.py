"""NumPy versions of the Eigen routines behind TensorFlow's CPU linear-algebra
kernels, step by step where the steps decide the values: the triangular
solve (MatrixTriangularSolve, and the solves of the fast `lstsq`), the
partially pivoted LU (Lu, MatrixDeterminant, LogMatrixDeterminant) and the
Cholesky factorization (Cholesky). No op is registered here.

TensorFlow runs its kernels with the CPU's flush-to-zero and
denormals-are-zero modes: a subnormal operand reads as +-0 and a subnormal
result is written as +-0, which decides results such as 1e20 * 1e-20 * 1e-20
(0, not 1e-20) or 0 * (1 / 1e-40) (NaN, not 0). So every arithmetic step
here is followed by `ftz`. Complex products are the schoolbook formula and
complex reciprocals Smith's (libgcc's __divsc3, with its recovery of
infinities), each real operation rounded on its own: the x86-64 wheel has no
fused multiply-add. Complex values are carried as (real, imaginary) pairs of
real arrays.
"""
import math
import os

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ..core.op_util import tf_type_name

# The dtypes of TensorFlow's CPU kernels for these ops (no half precision).
KERNEL_T = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))

_TINY = {np.dtype(np.float32): np.float32(2.0 ** -126),
         np.dtype(np.float64): np.float64(2.0 ** -1022)}


def ftz(y):
    """y (a real float array, modified in place) with its subnormal elements
    replaced by zeros of their sign."""
    if type(y) is not np.ndarray:
        y = np.array(y)     # a NumPy scalar from a 0-d operation
    small = np.less(np.abs(y), _TINY[y.dtype])
    if small.any():
        y[small] = np.copysign(y.dtype.type(0), y[small])
    return y


def no_kernel(op, dtype, attrs=""):
    """TensorFlow's error for a dtype its op accepts but no CPU kernel has."""
    name = tf_type_name(D.as_dtype(dtype)).upper()
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_{name}{attrs}]")


def split(x):
    """A copy of a real array, or the (real, imaginary) pair of a complex
    one, flushed (denormals-are-zero on the inputs)."""
    if x.dtype.kind == "c":
        return (ftz(np.array(x.real)), ftz(np.array(x.imag)))
    return ftz(np.array(x))


def join(v, dtype):
    """The array of `dtype` a value of `split` stands for."""
    if isinstance(v, tuple):
        out = np.empty(v[0].shape, dtype)
        out.real, out.imag = v
        return out
    return v


def _at(v, idx):
    return (v[0][idx], v[1][idx]) if isinstance(v, tuple) else v[idx]


def _put(v, idx, w):
    if isinstance(v, tuple):
        v[0][idx], v[1][idx] = w
    else:
        v[idx] = w


def _map(f, *vs):
    return tuple(f(*p) for p in zip(*vs)) if isinstance(vs[0], tuple) else f(*vs)


def add(a, b):
    return _map(lambda x, y: ftz(np.add(x, y)), a, b)


def sub(a, b):
    return _map(lambda x, y: ftz(np.subtract(x, y)), a, b)


def _keep(y):
    return y


def mul(a, b, flush=True, recover=True):
    """a * b; complex ones as C's complex product (libgcc's __mulsc3):
    (ac - bd) + (ad + bc)i, with the infinities recovered that this formula
    turns into NaN + NaN i; Eigen's packets (recover=False) do not recover.
    flush=False for products known not to underflow."""
    f = ftz if flush else _keep
    if not isinstance(a, tuple):
        return f(np.multiply(a, b))
    (ar, ai), (br, bi) = a, b
    ac, bd, ad, bc = f(ar * br), f(ai * bi), f(ar * bi), f(ai * br)
    re, im = f(ac - bd), f(ad + bc)
    lost = np.isnan(re) & np.isnan(im)
    if recover and lost.any():
        re, im = _recover_product(ar, ai, br, bi, ac, bd, ad, bc, lost, re, im)
    return (re, im)


def _recover_product(a, b, c, d, ac, bd, ad, bc, lost, re, im):
    """__mulsc3's second pass: an infinite factor is boxed to +-1/+-0 with the
    other factor's NaNs made 0, then both parts are inf times the product."""
    a, b, c, d = (np.broadcast_to(v, lost.shape).copy() for v in (a, b, c, d))
    z_inf = np.isinf(a) | np.isinf(b)
    w_inf = np.isinf(c) | np.isinf(d)
    overflow = ~z_inf & ~w_inf & (np.isinf(ac) | np.isinf(bd) | np.isinf(ad) | np.isinf(bc))

    def box(u, v, where):
        u[where] = np.copysign(np.isinf(u[where]).astype(u.dtype), u[where])
        v[where] = np.copysign(np.isinf(v[where]).astype(v.dtype), v[where])

    def zero_nan(u, where):
        w = where & np.isnan(u)
        u[w] = np.copysign(u.dtype.type(0), u[w])

    box(a, b, z_inf)
    zero_nan(c, z_inf)
    zero_nan(d, z_inf)
    box(c, d, w_inf)
    zero_nan(a, w_inf)
    zero_nan(b, w_inf)
    for u in (a, b, c, d):
        zero_nan(u, overflow)
    redo = lost & (z_inf | w_inf | overflow)
    re, im = np.array(re), np.array(im)
    re[redo] = (np.inf * (ftz(a * c) - ftz(b * d)))[redo]
    im[redo] = (np.inf * (ftz(a * d) + ftz(b * c)))[redo]
    return ftz(re), ftz(im)


def reciprocal(d):
    """1 / d; complex ones as libgcc's __divsc3(1, 0, c, d) does it."""
    if not isinstance(d, tuple):
        return ftz(np.divide(d.dtype.type(1), d))
    c, d = d
    one, zero = np.ones_like(c), np.zeros_like(c)
    wide = np.abs(c) < np.abs(d)
    # Smith's method, written out with a = 1 and b = 0 so that zeros keep
    # the signs the library's arithmetic gives them.
    ratio = ftz(np.where(wide, c, d) / np.where(wide, d, c))
    denom = ftz(ftz(np.where(wide, c, d) * ratio) + np.where(wide, d, c))
    re = np.where(wide, ftz(ftz(one * ratio) + zero), ftz(ftz(zero * ratio) + one))
    im = np.where(wide, ftz(ftz(zero * ratio) - one), ftz(zero - ftz(one * ratio)))
    re, im = ftz(re / denom), ftz(im / denom)
    lost = np.isnan(re) & np.isnan(im)
    if lost.any():
        # __divsc3's recovery: nonzero / zero is infinite, finite / infinite
        # is zero.
        inf = np.copysign(np.inf, c)
        zero_den = lost & (c == 0) & (d == 0)
        re[zero_den], im[zero_den] = inf[zero_den], inf[zero_den] * 0
        inf_den = lost & ~zero_den & (np.isinf(c) | np.isinf(d))
        cc = np.copysign(np.isinf(c).astype(c.dtype), c)
        dd = np.copysign(np.isinf(d).astype(c.dtype), d)
        re[inf_den] = (0.0 * (one * cc + zero * dd))[inf_den]
        im[inf_den] = (0.0 * (zero * cc - one * dd))[inf_den]
    return (re, im)


def _neg_via_alpha(v):
    """Eigen's GEBP adds alpha * acc with alpha = -1 + 0i, a complex product:
    an infinite part of acc makes the other part NaN (inf * 0)."""
    re, im = v
    return (ftz(ftz(re * -1.0) - ftz(im * 0.0)), ftz(ftz(re * 0.0) + ftz(im * -1.0)))


# --- triangular solve -----------------------------------------------------------------

# Eigen solves the unknowns of a triangular system panel by panel: inside a
# panel, an unknown's terms from the same panel are subtracted one at a time,
# in index order, and then the right-hand side is multiplied by the
# reciprocal of the diagonal; the terms of the panels solved before are
# summed first by the GEBP kernel (each sum starting from +0) and subtracted
# at once. The panel is 2 packets wide (16 float32, 8 float64, 8 complex64,
# 4 complex128: the `lanes` here are a packet), and the GEBP kernel's order
# of summation depends on which micro-kernel takes a right-hand-side column
# (`_kernels`). Beyond about a hundred unknowns Eigen also cuts the unknowns
# into blocks by the size of the L1 cache (`_depth_block`), each solved as
# above and then subtracted from the later ones. With all this, solutions
# agree with TensorFlow's bit for bit (checked up to 1000 unknowns and 50
# right-hand sides, and on infinities, NaNs and subnormals); Eigen's
# blocking of the right-hand sides by the L2 cache, which changes the
# micro-kernels only for hundreds of right-hand sides, is not reproduced.
_LANES = {np.dtype(np.float32): (8, "swap8"), np.dtype(np.float64): (4, "swap4"),
          np.dtype(np.complex64): (4, "swap4"), np.dtype(np.complex128): (2, "seq")}
_PEEL = 8
_NR = 4


def _chain(first, terms, op, flush=False):
    """first op t0 op t1 ... along axis -2 of `terms`, one step after the
    other (ufunc.accumulate is sequential, unlike add.reduce)."""
    if terms.shape[-2] == 0:
        return first
    if flush:
        for i in range(terms.shape[-2]):
            first = ftz(op(first, terms[..., i, :]))
        return first
    return op.accumulate(np.concatenate([first[..., None, :], terms], axis=-2), axis=-2)[..., -1, :]


def _plus(a, b, flush):
    return ftz(a + b) if flush else a + b


def _sum_seq(t, flush):
    """Terms (..., D, k) added one after the other to +0."""
    return _chain(np.zeros(t.shape[:-2] + t.shape[-1:], t.dtype), t, np.add, flush)


def _sum_even_odd(t, flush):
    """The packet micro-kernels: the first terms (a multiple of 8) go to two
    accumulators by parity, added together before the rest is added."""
    depth = t.shape[-2]
    peel = depth - depth % _PEEL
    zero = np.zeros(t.shape[:-2] + t.shape[-1:], t.dtype)
    acc = zero
    if peel:
        acc = _plus(_chain(zero, t[..., 0:peel:2, :], np.add, flush),
                    _chain(zero, t[..., 1:peel:2, :], np.add, flush), flush)
    return _chain(acc, t[..., peel:, :], np.add, flush)


def _sum_swapped(t, flush, lanes):
    """The one-column micro-kernel, vectorized along the sum: 4 accumulators
    of 1 term (float64, complex64) or 2 terms (float32, two half packets)
    in turn, combined pairwise, then the rest."""
    depth = t.shape[-2]
    zero = np.zeros(t.shape[:-2] + t.shape[-1:], t.dtype)
    if lanes == 4:
        end = depth - depth % 4
        s = [_chain(zero, t[..., j:end:4, :], np.add, flush) for j in range(4)]
        acc = _plus(_plus(s[0], s[1], flush), _plus(s[2], s[3], flush), flush)
        return _chain(acc, t[..., end:, :], np.add, flush)
    end = depth - depth % 8
    s = [_chain(zero, t[..., j:end:8, :], np.add, flush) for j in range(8)]
    low = _plus(_plus(s[0], s[2], flush), _plus(s[4], s[6], flush), flush)
    high = _plus(_plus(s[1], s[3], flush), _plus(s[5], s[7], flush), flush)
    even = depth - depth % 2
    low = _chain(low, t[..., end:even:2, :], np.add, flush)
    high = _chain(high, t[..., end + 1:even:2, :], np.add, flush)
    acc = _plus(low, high, flush)
    return _plus(t[..., depth - 1, :], acc, flush) if depth % 2 else acc


def _kernels(k, lanes, rest):
    """Eigen's GEBP micro-kernels for k right-hand-side columns: blocks of
    2 packets (sequential sums), then one packet and one half packet
    (even/odd), then one column at a time."""
    out = []
    lo = k - k % (2 * lanes)
    if lo:
        out.append((0, lo, "seq"))
    for width in (lanes, lanes // 2):
        if width and k - lo >= width:
            out.append((lo, lo + width, "even_odd"))
            lo += width
    if lo < k:
        out.append((lo, k, rest))
    return out


def _gebp_sums(m_rows, x_cols, lanes, rest, fast):
    """What the GEBP kernel adds to x[r] for the terms m[r, c] * x[c] over
    the columns c of m_rows (..., R, D), x_cols being (..., D, k): minus
    their sums. Real sums of real values; for complex ones the packet
    kernels' four sums of re*re, im*im, im*re and re*im component products,
    (s0 - s1) + (s2 + s3)i, times -1 + 0i. `fast` does not flush."""
    mr = m_rows if isinstance(m_rows, tuple) else (m_rows,)
    xs = x_cols if isinstance(x_cols, tuple) else (x_cols,)
    mc = [v[..., :, :, None] for v in mr]                  # (..., R, D, 1)
    xc = [v[..., None, :, :] for v in xs]                  # (..., 1, D, k)
    pairs = [(0, 0)] if len(mc) == 1 else [(0, 0), (1, 1), (1, 0), (0, 1)]
    rows, k = mr[0].shape[-2], xs[0].shape[-1]
    # The kernels take the panel's unknowns 4 at a time, the rest one by
    # one (sequential sums).
    blocked = rows - rows % _NR
    kernels = _kernels(k, lanes, rest)
    flush = not fast
    sums = []
    for i, j in pairs:
        t = mc[i] * xc[j]
        if flush:
            ftz(t)
        acc = np.empty(t.shape[:-2] + t.shape[-1:], t.dtype)
        for lo, hi, kind in kernels:
            part = t[..., :blocked, :, lo:hi]
            if kind == "seq":
                acc[..., :blocked, lo:hi] = _sum_seq(part, flush)
            elif kind == "even_odd":
                acc[..., :blocked, lo:hi] = _sum_even_odd(part, flush)
            else:
                acc[..., :blocked, lo:hi] = _sum_swapped(part, flush, lanes)
        if blocked < rows:
            acc[..., blocked:, :] = _sum_seq(t[..., blocked:, :, :], flush)
        sums.append(acc)
    if len(sums) == 1:
        return -sums[0]
    upd = _neg_via_alpha((_plus(sums[0], -sums[1], flush), _plus(sums[2], sums[3], flush)))
    lo = kernels[-1][0]
    if kernels[-1][2] == "swap4" and blocked < rows:
        # The one-column kernel's leftover unknowns: a scalar loop that adds
        # complex products (C's, with their recovery of infinities) and
        # multiplies the sum by alpha as a complex number too.
        prods = mul((mr[0][..., blocked:, :, None], mr[1][..., blocked:, :, None]),
                    (xs[0][..., None, :, lo:], xs[1][..., None, :, lo:]), flush=flush)
        total = tuple(_sum_seq(p, flush) for p in prods)
        one = np.ones((), total[0].dtype)
        part = mul((-one, 0 * one), total, flush=flush)
        for u, v in zip(upd, part):
            u[..., blocked:, lo:] = v
    return upd


def _l1_size():
    """The L1 data cache per core, as Eigen reads it (32 KiB if unknown)."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in sorted(os.listdir(base)):
            def read(name):
                with open(os.path.join(base, entry, name)) as f:
                    return f.read().strip()
            if read("level") == "1" and read("type") in ("Data", "Unified"):
                size = read("size")
                return int(size[:-1]) * 1024 if size.endswith("K") else int(size)
    except (OSError, ValueError):
        pass
    return 32 * 1024


_L1 = None


def _depth_block(n, lanes, itemsize):
    """Eigen's block of the sums' depth for a solve of n unknowns (its
    product blocking heuristic with KcFactor 4, one thread): an L1-sized
    multiple of 8, shrunk so that the last block is as large as possible."""
    global _L1
    if _L1 is None:
        _L1 = _l1_size()
    mr = 2 * lanes
    max_kc = max(((_L1 - mr * _NR * itemsize) // (4 * (mr + _NR) * itemsize)) & ~7, 1)
    if n <= max_kc:
        return n
    if n % max_kc == 0:
        return max_kc
    return max_kc - 8 * ((max_kc - 1 - n % max_kc) // (8 * (n // max_kc + 1)))


def _gebp_update(m, x, rows, cols, lanes, rest, fast):
    """x[rows] -= the GEBP kernel's sums of m[rows, cols] x[cols]."""
    every = slice(None)
    upd = _gebp_sums(_at(m, (Ellipsis, rows, cols)), _at(x, (Ellipsis, cols, every)),
                     lanes, rest, fast)
    _put(x, (Ellipsis, rows, every), add(_at(x, (Ellipsis, rows, every)), upd))


def _solve_panels(m, x, lower, inv, blocking, fast):
    """Eigen's substitution, in place on x (real, or a complex pair): blocks
    of the unknowns (the depth blocks), each solved panel by panel and then
    subtracted from the unknowns still to solve. `fast` leaves out the
    flushing of the terms and of their sums (see _safe)."""
    lanes, rest, itemsize = blocking
    width = 2 * lanes
    n = inv[0].shape[-2] if isinstance(inv, tuple) else inv.shape[-2]
    kc = _depth_block(n, lanes, itemsize)
    if lower:
        blocks = [(s, min(s + kc, n)) for s in range(0, n, kc)]
    else:
        # Upper: blocks from the last unknown down, the short one at 0.
        blocks = [(max(e - kc, 0), e) for e in range(n, 0, -kc)]
    every = slice(None)
    for start, stop in blocks:
        panels = [(s, min(s + width, stop)) for s in range(start, stop, width)]
        for lo, hi in (panels if lower else panels[::-1]):
            # The block's unknowns solved before this panel.
            before = slice(start, lo) if lower else slice(hi, stop)
            if before.stop > before.start:
                _gebp_update(m, x, slice(lo, hi), before, lanes, rest, fast)
            for j in (range(lo, hi) if lower else range(hi - 1, lo - 1, -1)):
                # This panel's unknowns solved before j, in index order.
                done = slice(lo, j) if lower else slice(j + 1, hi)
                xj = _at(x, (Ellipsis, j, every))
                if done.stop > done.start:
                    terms = mul(_at(x, (Ellipsis, done, every)),
                                _at(m, (Ellipsis, j, done, None)), flush=not fast)
                    if fast:
                        xj = _map(lambda first, t: _chain(first, t, np.subtract), xj, terms)
                    else:
                        for c in range(done.stop - done.start):
                            xj = sub(xj, _at(terms, (Ellipsis, c, every)))
                # Unflushed, a real x[j] is checked by _safe; a complex one
                # may have subnormal partial products.
                _put(x, (Ellipsis, j, every), mul(xj, _at(inv, (Ellipsis, j, every)),
                                                  flush=not fast or isinstance(xj, tuple)))
        later = slice(stop, n) if lower else slice(0, start)
        if later.stop > later.start:
            _gebp_update(m, x, later, slice(start, stop), lanes, rest, fast)
    return x


def _smallest(v):
    """The smallest nonzero magnitude among the components of v (inf if none)."""
    out = np.inf
    for part in (v if isinstance(v, tuple) else (v,)):
        a = np.abs(part)
        if a.size:
            out = min(out, float(np.min(np.where(a > 0, a, np.inf))))
    return out


def _safe(m, b, x):
    """Whether flushing could not have changed the unflushed solve: no term
    m[j, c] * x[c] below 2**(e + p) (e: the smallest normal exponent, p the
    mantissa bits) and no such right-hand side or solution value. Numbers
    that large are multiples of 2**e, and so is every sum of them: no sum
    is subnormal either. The products with the reciprocals are flushed on
    both paths."""
    dt = (m[0] if isinstance(m, tuple) else m).dtype
    bound = 2.0 ** (-126 + 23) if dt == np.float32 else 2.0 ** (-1022 + 52)
    lo_x = _smallest(x)
    return _smallest(m) * lo_x >= 2 * bound and _smallest(b) >= bound and lo_x >= bound


def trsm(m, b, lower):
    """X with m X = b, for m lower (or upper) triangular: arrays (..., n, n)
    and (..., n, k) of one dtype whose batch dimensions broadcast to b's.
    Only the triangle of m and its diagonal are read. Returns a value of
    `split` (join it)."""
    blocking = _LANES[m.dtype] + (m.dtype.itemsize,)
    n = m.shape[-1]
    m = split(m)
    b = split(b)
    with np.errstate(all="ignore"):
        inv = reciprocal(_at(m, (Ellipsis, np.arange(n), np.arange(n), None)))
        x = _solve_panels(m, _map(np.copy, b), lower, inv, blocking, fast=True)
        if not _safe(m, b, x):
            x = _solve_panels(m, _map(np.copy, b), lower, inv, blocking, fast=False)
    return x


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

# Eigen's plog for float64 packets: log(1 + x) = x - x**2 / 2 + x**3 P(x) / Q(x)
# on the mantissa shifted to [sqrt(1/2), sqrt(2)) - 1 (Cephes' coefficients).
_LOG_P = (1.01875663804580931796E-4, 4.97494994976747001425E-1, 4.70579119878881725854E0,
          1.44989225341610930846E1, 1.79368678507819816313E1, 7.70838733755885391666E0)
_LOG_Q = (1.0, 1.12873587189167450590E1, 4.52279145837532221105E1, 8.29875266912776603211E1,
          7.11544750618563894466E1, 2.31251620126765340583E1)


def _plog_double(v):
    """Eigen's float64 log of packets (TensorFlow's tf.math.log on them, bit
    for bit; NumPy's log differs in the last bit for about 1 value in 6).
    Subnormals must be flushed first."""
    m, e = np.frexp(v)
    e = e.astype(np.float64)
    low = m < 0.70710678118654752440
    x = (m - 1.0) + np.where(low, m, 0.0)
    e -= low
    x2 = x * x
    x3 = x2 * x
    p, q = _LOG_P, _LOG_Q
    num = ((p[0] * x + p[1]) * x + p[2]) * x3 + ((p[3] * x + p[4]) * x + p[5])
    den = ((q[0] * x + q[1]) * x + q[2]) * x3 + ((q[3] * x + q[4]) * x + q[5])
    y = (num * x3) / den
    y = -0.5 * x2 + y
    out = e * 0.693147180559945309417232121458 + (x + y)
    out[v == np.inf] = np.inf
    out[~(v >= 0)] = np.nan
    out[v == 0] = -np.inf
    return out


def _log_magnitudes(m):
    """Eigen's log of each |pivot| (..., n), as its reduction evaluates it:
    on packets (8 float32 or 4 float64) from the first, the last n % 8 (4)
    by the C library's logf (log). Subnormals read as 0."""
    from ..kernels.exp_log import log_packets, log_scalar
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
            out[..., :head] = _plog_double(m[..., :head])
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
    from ..kernels.exp_log import exp_scalar
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
