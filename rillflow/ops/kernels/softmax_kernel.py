"""TensorFlow's float32 and float64 softmax, log_softmax, the softmax cross
entropies and the row sums they rest on, bit for bit.

TensorFlow's kernels (softmax_op_functor.h, xent_op.h, sparse_xent_op.h)
are Eigen expressions: shift each row by its maximum, exponentiate, sum
each row, then divide (softmax) or subtract the log (log_softmax, the
losses). Two things decide the bits besides exp and log themselves
(exp_log.py):

- Which exps take the packet path. An elementwise exp over a whole tensor
  splits it by flat position (the last size % 8 go to libm); an exp inside
  a row sum splits each row (its last len % 8 go to libm).
- The order of each row sum (Eigen's InnerMostDimReducer): rows of at least
  32 are summed in four lane-wise accumulators over blocks of 32, combined
  as ((a0 + a1) + a2) + a3; then the remaining whole packets of 8 go into
  the first, lane by lane; the last len % 8 elements are summed one by one
  from 0; the result is that scalar plus the accumulator's 8 lanes folded
  as ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)). Rows longer than 8 * 1024
  are first split in halves (at a multiple of 8 of the flat index) and the
  halves' sums added, recursively.

`row_sums` reproduces that order; `row_sums_of` applies a packet/scalar
function pair inside it.

float64 takes the same steps with Eigen's double packets of 4 (blocks of
16, rows longer than 4 * 1024 split, the lanes folded as (l0 + l2) +
(l1 + l3)) and exp_log_f64's exp and log (NUMPY_OPS_F64). TensorFlow
evaluates a large float64 softmax in tiles whose sizes follow the
machine's caches, and each tile's last size % 4 exps take the C library:
there (rows of thousands) a few results in ten thousand differ by an ulp.
"""
import math

import numpy as np

from . import exp_log, exp_log_f64

_P = exp_log.PACKET
_LEAF = 1024 * _P           # rows longer than this are split in halves
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)
try:    # (bfloat16 exists where ml_dtypes is installed)
    import ml_dtypes as _ml_dtypes
    _BF16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:
    _BF16 = None
# float16: Eigen's Packet8h (each addition in half precision) with a leaf of
# 200 packets; its horizontal sum (predux) runs in float32, rounded once.
# bfloat16 inside an Eigen expression (log_softmax's row sums; TensorFlow's
# reduce_sum casts bfloat16 to float32 instead) the same with Packet8bf.
_LANES = {np.dtype(np.float32): _P, np.dtype(np.float64): exp_log_f64.PACKET_F64, _F16: 8,
          _BF16: 8}
_LEAF_SIZES = {_F16: 200, _BF16: 200}


def _leaf_size(dtype):
    """Eigen's LeafSize (packets per leaf of a tree reduction)."""
    return _LEAF_SIZES.get(np.dtype(dtype), 1024)


def _lanes(dtype):
    """Eigen's packet width for `dtype` (float32 8, float64 4)."""
    return _LANES[np.dtype(dtype)]


def _fold(acc, op=np.add):
    # predux of a packet: halves combined, then SSE's horizontal step; for 4
    # double lanes (l0 + l2) + (l1 + l3) (predux_mul: the same with *);
    # half packets in float32, rounded once.
    if acc.dtype in (_F16, _BF16):
        return _fold(acc.astype(np.float32), op).astype(acc.dtype)
    if acc.shape[1] == 2:     # (a complex128 packet's two lanes)
        return op(acc[:, 0], acc[:, 1])
    if acc.shape[1] == 4:
        return op(op(acc[:, 0], acc[:, 2]), op(acc[:, 1], acc[:, 3]))
    v = op(acc[:, :4], acc[:, 4:])
    return op(op(v[:, 0], v[:, 2]), op(v[:, 1], v[:, 3]))


def _leaf_sums(v, tail, op=np.add, lanes=None):
    """Sums (op np.multiply: products) of the rows of (rows, n) `v` (sums:
    n <= 1024 packets) in Eigen's leaf order; `tail` (rows, n % lanes) holds the
    values of the last columns to use instead of v's (they may come from
    another path). (Few NumPy calls: eager reductions of small tensors run
    this.)"""
    rows, n = v.shape
    dt = v.dtype
    ident = dt.type(0 if op is np.add else 1)
    lanes = lanes or _lanes(dt)
    whole = n - n % lanes
    start = 0
    if n >= 4 * lanes:
        n4 = n - n % (4 * lanes)
        blocks = v[:, :n4].reshape(rows, n4 // (4 * lanes), 4, lanes)
        if blocks.shape[1] == 1:
            accs = op(blocks[:, 0], ident)
        else:
            accs = ordered_reduce(blocks, 1, op)   # the blocks in order, as the loop runs
        acc = op(accs[:, 0], accs[:, 1])
        op(acc, accs[:, 2], out=acc)
        op(acc, accs[:, 3], out=acc)
        start = n4
    elif whole:
        acc = op(v[:, :lanes], ident)
        start = lanes
    else:
        acc = None
    for j in range(start, whole, lanes):
        op(acc, v[:, j:j + lanes], out=acc)
    k = tail.shape[1]
    if k == 0:
        s = np.full(rows, ident, dt)
    elif k == 1:
        s = op(tail[:, 0], ident)
    else:
        s = ordered_reduce(tail, 1, op)     # one after another from the identity
    return op(s, _fold(acc, op) if acc is not None else ident)


def row_sums_of(x, packets=None, scalar=None, first=0, lanes=None):
    """Eigen's sums of the rows of float32 or float64 (rows, n) `x` after
    applying an elementwise function inside the reduction: `packets` to the
    elements of each leaf that fill whole packets, `scalar` to the rest
    (None: the values themselves). `first` is the flat index of x[0, 0] in
    the reduced tensor (it places the split points of long rows). `lanes`:
    the packet's width where it is not the dtype's (the real or imaginary
    parts of complex packets: 4 for complex64, 2 for complex128)."""
    rows, n = x.shape
    lanes = lanes or _lanes(x.dtype)
    if n == 0:
        return np.zeros(rows, x.dtype)
    if n > _leaf_size(x.dtype) * lanes:
        # Each row is split at its own flat position, so go row by row.
        out = np.empty(rows, x.dtype)
        for r in range(rows):
            out[r] = _split_sum(x[r:r + 1], packets, scalar, first + r * n, lanes)[0]
        return out
    return _leaf(x, packets, scalar, lanes)


def _split_sum(x, packets, scalar, first, lanes):
    n = x.shape[1]
    if n <= _leaf_size(x.dtype) * lanes:
        return _leaf(x, packets, scalar, lanes)
    split = lanes * -(-(first + -(-n // 2)) // lanes)
    left = min(split - first, n)
    s = x.dtype.type(0) + _split_sum(x[:, :left], packets, scalar, first, lanes)
    if left < n:
        s = s + _split_sum(x[:, left:], packets, scalar, split, lanes)
    return s


def _leaf(x, packets, scalar, lanes):
    rows, n = x.shape
    whole = n - n % lanes
    if packets is None:
        return _leaf_sums(x, x[:, whole:], lanes=lanes)
    v = np.empty((rows, whole), x.dtype)
    if whole:
        v[...] = packets(np.ascontiguousarray(x[:, :whole]).reshape(-1)).reshape(rows, whole)
    tail = scalar(np.ascontiguousarray(x[:, whole:]).reshape(-1)).reshape(rows, n - whole)
    return _leaf_sums(v, tail, lanes=lanes)


def row_sums(x, first=0):
    """Eigen's sums of the rows of float32/float64 (rows, n) `x` (see module doc)."""
    return row_sums_of(x, first=first)


def _exp_all(x):
    # An exp over a whole tensor: packets by flat position.
    return exp_log.split_apply(x, exp_log.exp_packets, exp_log.exp_scalar)


def _log_all(x):
    return exp_log.split_apply(x, exp_log.log_packets, exp_log.log_scalar)


def _sum_exp(shifted):
    return row_sums_of(shifted, exp_log.exp_packets, exp_log.exp_scalar)


# The primitives the functions below are built from. jit_softmax.ops()
# gives compiled ones with the same bits; callers pass them as `k`.
def shifted_rows(logits2d):
    """logits minus their row maxima (float32, a new array). A row with a
    NaN has that (first) NaN as its maximum: NumPy's max gives some NaN,
    whose sign and payload vary with its SIMD path (the jit extra's
    jit_softmax._row_max follows the same rule)."""
    m = logits2d.max(axis=1, keepdims=True)
    nan_rows = np.flatnonzero(np.isnan(m[:, 0]))
    if nan_rows.size:
        rows = logits2d[nan_rows]
        m[nan_rows, 0] = rows[np.arange(nan_rows.size), np.argmax(np.isnan(rows), axis=1)]
    return logits2d - m


def _divide_rows_flush(x, s):
    x /= s[:, None]
    return exp_log._flush(x)


NUMPY_OPS = {"exp_all": _exp_all, "log_all": _log_all, "sum_exp": _sum_exp,
             "row_sums": row_sums, "log_scalar": exp_log.log_scalar,
             "shift_rows": shifted_rows, "divide_rows_flush": _divide_rows_flush}


def _exp_all_f64(x):
    return exp_log_f64.exp(x)


def _sum_exp_f64(shifted):
    f = exp_log_f64
    return row_sums_of(shifted, lambda v: f.exp_packets(f._daz(v)),
                       lambda v: np.array([f.TAILS["exp"](t) for t in v.tolist()], np.float64))


def _log_scalar_f64(x):
    return np.array([exp_log_f64.TAILS["log"](t) for t in np.ravel(x).tolist()],
                    np.float64).reshape(np.shape(x))


def _divide_rows_flush_f64(x, s):
    x /= s[:, None]
    return exp_log_f64.ftz(x)


# float64's primitives: Eigen's double packets (exp_log_f64) and its 4-lane sums.
NUMPY_OPS_F64 = {"exp_all": _exp_all_f64, "log_all": exp_log_f64.log, "sum_exp": _sum_exp_f64,
                 "row_sums": row_sums, "log_scalar": _log_scalar_f64,
                 "shift_rows": shifted_rows, "divide_rows_flush": _divide_rows_flush_f64}


def _flush(x):
    return exp_log_f64.ftz(x) if x.dtype == np.float64 else exp_log._flush(x)


def softmax_2d(logits2d, k=None):
    """TensorFlow's float32 softmax of the rows of a 2-D array (`k`: the
    primitives, NUMPY_OPS by default)."""
    k = k or NUMPY_OPS
    if "softmax" in k:       # the same steps fused (the jit extra)
        return k["softmax"](logits2d)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = k["exp_all"](k["shift_rows"](logits2d))
        # TensorFlow multiplies by 1/sum from Eigen's packet reciprocal, the
        # CPU's approximate RCPPS plus a Newton step: its bits differ between
        # CPU models (Intel, AMD), so the exact quotient is used here; the
        # result then differs from TensorFlow's by at most a few ulps.
        inv = e.dtype.type(1) / k["row_sums"](e)
        e *= inv[:, None]
    return _flush(e)


def log_softmax_2d(logits2d, k=None):
    """TensorFlow's float32 log_softmax of the rows of a 2-D array."""
    k = k or NUMPY_OPS
    if "log_softmax" in k:   # the same steps fused (the jit extra)
        return k["log_softmax"](logits2d)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        x = k["shift_rows"](logits2d)
        x -= k["log_all"](k["sum_exp"](x))[:, None]
    return x


def log_softmax_2d_half(logits2d):
    """TensorFlow's float16 or bfloat16 log_softmax of the rows of a 2-D
    array: the same Eigen expression in the half type, each operation
    computed in float32 and rounded to it. The shifted rows; their exps
    inside the row sums (Eigen's float32 packet exp on the whole packets of
    8 of each row, expf on the rest, each rounded), summed in the half
    packets' order (`row_sums_of`); the log of each sum (packets by the
    sums' flat position, logf on the rest); the difference. (float64 all
    through, then one rounding, had differed in a quarter of the results.)"""
    dt = logits2d.dtype
    f32 = np.float32
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        x = shifted_rows(logits2d.astype(f32)).astype(dt)
        sums = row_sums_of(x, lambda v: exp_log.exp_packets(v.astype(f32)).astype(dt),
                           lambda v: np.asarray(exp_log.exp_scalar(v.astype(f32))).astype(dt))
        logs = exp_log.split_apply(sums.astype(f32), exp_log.log_packets, exp_log.log_scalar)
        return (x.astype(f32) - logs.astype(dt).astype(f32)[:, None]).astype(dt)


def softmax_xent_2d(labels2d, logits2d, k=None):
    """TensorFlow's float32 softmax cross entropy: (loss, backprop)."""
    k = k or NUMPY_OPS
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        b = k["shift_rows"](logits2d)
        s = k["sum_exp"](b)
        terms = k["log_all"](s)[:, None] - b
        terms *= labels2d
        loss = k["row_sums"](terms)
        back = k["exp_all"](b)
        back /= s[:, None]
        back -= labels2d
    return loss, _flush(back)


def sparse_xent_2d(labels, logits2d, k=None, out=None):
    """TensorFlow's float32 sparse softmax cross entropy: (loss, backprop);
    the loss takes libm's log of each row's sum (a scalar generator). The
    fused kernel (the jit extra) may write backprop into `out` (a buffer of
    logits' size, possibly logits' own)."""
    k = k or NUMPY_OPS
    if "sparse_xent" in k:   # the same steps fused (the jit extra)
        return k["sparse_xent"](labels, logits2d, out)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        b = k["shift_rows"](logits2d)
        s = k["sum_exp"](b)
        rows = np.arange(b.shape[0])
        loss = k["log_scalar"](s) - b[rows, labels]
        back = k["divide_rows_flush"](k["exp_all"](b), s)
        back[rows, labels] -= back.dtype.type(1)
    return loss, back


def column_sums(x):
    """Eigen's sums of the columns of float32/float64 (rows, n) `x` (a reduction of
    the leading axis, TensorFlow's reduce_sum over axis 0 of a matrix): the
    columns that fill whole output packets sum their rows in four
    accumulators (rows j % 4, when there are at least 16 rows) combined as
    ((a0 + a1) + a2) + a3, then the rows left over one by one; the last
    n % lanes columns sum their rows one by one."""
    rows, n = x.shape
    out = np.zeros(n, x.dtype)
    whole = n - n % _lanes(x.dtype)
    if rows >= 16:
        r4 = rows - rows % 4
        accs = ordered_sum(x[:r4, :whole].reshape(r4 // 4, 4, whole), 0)
        out[:whole] = accs[0] + accs[1]
        out[:whole] += accs[2]
        out[:whole] += accs[3]
        for j in range(r4, rows):
            out[:whole] += x[j, :whole]
    else:
        out[:whole] = ordered_sum(x[:, :whole], 0)
    out[whole:] = ordered_sum(x[:, whole:], 0)
    return out


def ordered_sum(a, axis):
    """The sum along `axis` of `a` taken in order from zero, (0 + a0) + a1
    + ..., as a loop accumulates (ordered_reduce)."""
    return ordered_reduce(a, axis, np.add)


def ordered_reduce(a, axis, op):
    """The sum (op np.add) or product (np.multiply) along `axis` of `a`
    taken in order from the identity, (0 + a0) + a1 + ..., as a loop
    accumulates. NumPy reduces along an axis that has values after it row
    after row (its inner loop combines whole rows), but along the last
    values of an array it adds pairwise: there a running sum or product,
    which starts from a0 rather than the identity. 1 * a0 is a0; 0 + a0
    differs from a0 only for a0 = -0, and a sum from +0 is never -0: hence
    the + 0."""
    shape = a.shape
    ident = a.dtype.type(0 if op is np.add else 1)
    if shape[axis] == 0:
        return np.full(shape[:axis] + shape[axis + 1:], ident, a.dtype)
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)     # (NumPy follows the memory order)
    if math.prod(shape[axis + 1:]) >= 2:
        return op.reduce(a, axis=axis, initial=ident)
    run = a.cumsum(axis=axis) if op is np.add else a.cumprod(axis=axis)
    return op(run[(slice(None),) * axis + (-1,)], ident)


def row_products(x):
    """Eigen's products of the rows of float32/float64 (rows, n) `x`: its
    ProdReducer in the inner-most reducer, row_sums' order with *, but
    never split in halves (Eigen counts products as exactly associative)."""
    whole = x.shape[1] - x.shape[1] % _lanes(x.dtype)
    return _leaf_sums(x, x[:, whole:], np.multiply)


def column_products(x):
    """Eigen's products of the columns of float32/float64 (rows, n) `x`:
    column_sums' order with *."""
    rows, n = x.shape
    out = np.ones(n, x.dtype)
    whole = n - n % _lanes(x.dtype)
    if rows >= 16:
        r4 = rows - rows % 4
        accs = ordered_reduce(x[:r4, :whole].reshape(r4 // 4, 4, whole), 0, np.multiply)
        out[:whole] = accs[0] * accs[1]
        out[:whole] *= accs[2]
        out[:whole] *= accs[3]
        for j in range(r4, rows):
            out[:whole] *= x[j, :whole]
    else:
        out[:whole] = ordered_reduce(x[:, :whole], 0, np.multiply)
    out[whole:] = ordered_reduce(x[:, whole:], 0, np.multiply)
    return out
