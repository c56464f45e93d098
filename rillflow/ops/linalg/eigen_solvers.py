"""NumPy versions of the Eigen routines behind TensorFlow's CPU linear-algebra
kernels, step by step where the steps decide the values: here the
arithmetic they share and the triangular solve (MatrixTriangularSolve, and
the solves of `lstsq`); the factorizations are in eigen_decompositions. No
op is registered here.

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
# into blocks by the size of the L1 cache (`_depth_block`, `_L1`), each
# solved as above and then subtracted from the later ones. With all this, solutions
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


# Eigen sizes its blocks by the L1 data cache of the CPU TensorFlow runs on
# (48 KiB on Intel since Ice Lake, the machine the reference values were
# recorded on; 32 KiB on AMD EPYC and older Intel). rillflow fixes 48 KiB,
# so that its results do not depend on its own CPU (docs/numerics.md);
# TensorFlow's own solves of more than about a hundred unknowns differ in
# the last bits between such CPUs.
_L1 = 48 * 1024


def _depth_block(n, lanes, itemsize):
    """Eigen's block of the sums' depth for a solve of n unknowns (its
    product blocking heuristic with KcFactor 4, one thread): an L1-sized
    multiple of 8, shrunk so that the last block is as large as possible."""
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
