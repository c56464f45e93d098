"""Eigen's row sums (softmax_kernel.py) compiled by Numba: the same
accumulators filled in the same order, with exp applied inside the sum as
softmax_kernel.row_sums_of applies it (packets for the whole packets of
each leaf, libm's expf for the rest), one pass over each row and no
temporaries. Imported only by jit_kernels.py.

`ops()` gives softmax_kernel's primitives (exp over a whole tensor, log,
row sums, sums of exp) in compiled form; softmax_kernel's softmax,
log_softmax and cross entropies take them as their `k` argument.
"""
import math

import numba
import numpy as np

from . import jit_exp_log as _je
from . import threads as _threads
from .jit_exp_log import (PACKET, as_bits, exp_p, exp_s, flush, from_bits, jit, lane, log_p,
                          log_s)
from .softmax_kernel import _LEAF

_ZERO = np.float32(0.0)


@jit
def _exp_packets(x, lo, n, e):
    # A function of its own (not inlined): so compiled, the loop is the
    # vectorized one of jit_exp_log.exp_f32.
    xs = x[lo:lo + n]          # (x[lo + j] in the loop keeps it from vectorizing)
    for j in range(n):
        e[j] = exp_p(xs[j])


@lane
def _leaf(x, lo, hi, mode, acc, e):
    """softmax_kernel._leaf_sums of x[lo:hi] (at most _LEAF values) after
    `mode`; acc is scratch space for 4 x 8 lanes, e room for a leaf's exps
    (a separate array: were it part of acc, LLVM could not tell the
    accumulators from the values and would not vectorize the sum)."""
    if mode == 1:
        # The exps first, in a loop of their own (packets for the leaf's
        # whole packets, libm's for the rest), then a plain sum: an exp
        # inside the accumulation loop keeps it from vectorizing.
        n = hi - lo
        whole = n - n % PACKET
        _exp_packets(x, lo, whole, e)
        for j in range(whole, n):
            e[j] = exp_s(x[lo + j])
        return _leaf_sum(e, 0, n, acc)
    return _leaf_sum(x, lo, hi, acc)


@lane
def _leaf_sum(x, lo, hi, acc):
    """softmax_kernel._leaf_sums of the values x[lo:hi] themselves."""
    xs = x[lo:hi]     # (indexing x[lo + i] keeps the loops from vectorizing)
    n = hi - lo
    whole = n - n % PACKET
    for j in range(4 * PACKET):
        acc[j] = _ZERO
    start = 0
    if n >= 4 * PACKET:
        n4 = n - n % (4 * PACKET)
        for b in range(0, n4, 4 * PACKET):          # blocks, in order
            for j in range(4 * PACKET):             # accumulator j // 8, lane j % 8
                acc[j] += xs[b + j]
        for j in range(PACKET):                     # ((a0 + a1) + a2) + a3
            s = acc[j] + acc[PACKET + j]
            s = s + acc[2 * PACKET + j]
            acc[j] = s + acc[3 * PACKET + j]
        start = n4
    for b in range(start, whole, PACKET):
        for j in range(PACKET):
            acc[j] += xs[b + j]
    s = _ZERO
    for j in range(whole, n):
        s += xs[j]
    # predux: halves, then SSE's horizontal sum.
    v0 = acc[0] + acc[4]
    v1 = acc[1] + acc[5]
    v2 = acc[2] + acc[6]
    v3 = acc[3] + acc[7]
    a = v0 + v2
    b = v1 + v3
    return s + (a + b)


@jit
def rows_sum(x, n, mode, out):
    """out[r] = Eigen's sum of row r of the flat float32 x (rows of n <= _LEAF
    values) after `mode` (0: the values, 1: their exp)."""
    acc = np.empty(4 * PACKET, np.float32)
    e = np.empty(_LEAF, np.float32)
    for r in range(out.size):
        out[r] = _leaf(x, r * n, r * n + n, mode, acc, e)


@jit
def log_scalar_f32(x, out):
    """out = exp_log.log_scalar(x): libm's logf of every element."""
    for i in range(x.size):
        out[i] = log_s(x[i])


@numba.njit(numba.float32(numba.float32[::1], numba.int64, numba.int64, numba.int64,
                          numba.int64, numba.float32[::1], numba.float32[::1]), cache=True,
            nogil=True, error_model="numpy")
def _split_sum(flat, lo, n, mode, first, acc, e):
    # softmax_kernel._split_sum: halves split at a multiple of 8 of the
    # flat index, summed recursively (only rows longer than _LEAF). Typed,
    # so that Numba compiles the recursion.
    if n <= _LEAF:
        return _leaf(flat, lo, lo + n, mode, acc, e)
    split = PACKET * -(-(first + -(-n // 2)) // PACKET)
    left = min(split - first, n)
    s = _ZERO + _split_sum(flat, lo, left, mode, first, acc, e)
    if left < n:
        s = s + _split_sum(flat, lo + left, n - left, mode, split, acc, e)
    return s


@jit
def rows_split_sum(flat, n, mode, first, out):
    """out[r] = the split sum of row r of the flat float32 x (rows longer
    than _LEAF), `first` the flat index of its first element."""
    acc = np.empty(4 * PACKET, np.float32)
    e = np.empty(_LEAF, np.float32)
    for r in range(out.size):
        out[r] = _split_sum(flat, r * n, n, mode, first + r * n, acc, e)


@jit
def shift_rows_f32(x, n, out):
    """out = x minus its row's maximum (rows of n values; a NaN in a row
    makes its maximum NaN, as NumPy's max)."""
    for r in range(out.size // n if n else 0):
        row, dst = x[r * n:r * n + n], out[r * n:r * n + n]
        m = _row_max(row)
        for j in range(n):
            dst[j] = row[j] - m


@jit
def divide_rows_flush_f32(x, n, s):
    """x[row] /= s[row], then subnormal results to +-0 (in place)."""
    for r in range(s.size):
        d = s[r]
        row = x[r * n:r * n + n]
        for j in range(n):
            row[j] = flush(row[j] / d)


@jit
def _row_max(row):
    """The row's maximum as NumPy's max gives it (its first NaN if it has
    one; of -0 and +0, +0). Compared as integers ordered like the floats,
    which vectorizes where a float max (with NaN's rules) does not."""
    top = np.int64(0)
    nan = np.int64(0)
    for j in range(row.size):
        b = as_bits(row[j])
        top = max(top, b ^ (0x80000000 | ((b >> 31) * 0x7FFFFFFF)))
        nan |= (b & 0x7FFFFFFF) > 0x7F800000
    if nan:
        for j in range(row.size):
            if row[j] != row[j]:
                return row[j]
    if top & 0x80000000:
        return from_bits(top ^ 0x80000000)
    return from_bits(top ^ 0xFFFFFFFF)


@jit
def softmax_rows_f32(x, n, out):
    """softmax_kernel.softmax_2d in one pass over each row (rows of n
    values): shift by the row's max, exp (packets by flat position over the
    whole tensor, libm's for its last size % 8), Eigen's row sum, multiply
    by 1/sum, flush subnormals."""
    total = out.size
    head = total - total % PACKET
    acc = np.empty(4 * PACKET, np.float32)
    e = np.empty(_LEAF, np.float32)
    ex = np.empty(n, np.float32)    # the row's exps (exp in place would not vectorize)
    for r in range(total // n if n else 0):
        lo = r * n
        row, dst = x[lo:lo + n], out[lo:lo + n]
        m = _row_max(row)
        for j in range(n):
            dst[j] = row[j] - m
        k = min(n, max(0, head - lo))
        _exp_packets(dst, 0, k, ex)
        for j in range(k, n):
            ex[j] = exp_s(dst[j])
        if n <= _LEAF:
            sm = _leaf_sum(ex, 0, n, acc)
        else:
            sm = _split_sum(ex, 0, n, 0, lo, acc, e)
        inv = np.float32(1) / sm
        for j in range(n):
            dst[j] = flush(ex[j] * inv)


@jit
def log_softmax_rows_f32(x, n, out):
    """softmax_kernel.log_softmax_2d in one pass over each row: shift, the
    row's sum of exps (Eigen's order, exps by the leaf's packets), its log
    (packets over the vector of row sums, libm's for its last rows % 8),
    subtracted."""
    rows = out.size // n if n else 0
    head = rows - rows % PACKET
    acc = np.empty(4 * PACKET, np.float32)
    e = np.empty(_LEAF, np.float32)
    for r in range(rows):
        lo = r * n
        row, dst = x[lo:lo + n], out[lo:lo + n]
        m = _row_max(row)
        for j in range(n):
            dst[j] = row[j] - m
        if n <= _LEAF:
            sm = _leaf(dst, 0, n, 1, acc, e)
        else:
            sm = _split_sum(dst, 0, n, 1, lo, acc, e)
        ls = log_p(sm) if r < head else log_s(sm)
        for j in range(n):
            dst[j] = dst[j] - ls


@jit
def sparse_xent_rows_f32(x, n, labels, loss, back):
    """softmax_kernel.sparse_xent_2d in one pass over each row: the shifted
    row, its sum of exps (the leaf's packets), libm's log of the sum minus
    the label's logit, and exp(shifted) / sum by the whole tensor's packets,
    flushed, minus 1 at the label."""
    total = back.size
    head = total - total % PACKET
    acc = np.empty(4 * PACKET, np.float32)
    e = np.empty(_LEAF, np.float32)
    ex = np.empty(n, np.float32)
    for r in range(labels.size):
        lo = r * n
        row, dst = x[lo:lo + n], back[lo:lo + n]
        m = _row_max(row)
        for j in range(n):
            dst[j] = row[j] - m
        if n % PACKET == 0:
            # Rows of whole packets starting at packet boundaries: the sum's
            # leaves and the backprop take the same packet exps, so one exp
            # pass serves both (the same bits, a third less time).
            _exp_packets(dst, 0, n, ex)
            if n <= _LEAF:
                sm = _leaf_sum(ex, 0, n, acc)
            else:
                sm = _split_sum(ex, 0, n, 0, lo, acc, e)
        elif n <= _LEAF:
            sm = _leaf(dst, 0, n, 1, acc, e)
        else:
            sm = _split_sum(dst, 0, n, 1, lo, acc, e)
        lab = labels[r]
        loss[r] = log_s(sm) - dst[lab]
        if n % PACKET:
            k = min(n, max(0, head - lo))
            _exp_packets(dst, 0, k, ex)
            for j in range(k, n):
                ex[j] = exp_s(dst[j])
        for j in range(n):
            dst[j] = flush(ex[j] / sm)
        dst[lab] -= np.float32(1)


def sparse_xent(labels, x, out=None):
    """softmax_kernel.sparse_xent_2d fused (labels already checked); the
    backprop goes into `out` when it is a float32 C-contiguous array of x's
    size (x's own buffer included: each row is read whole before its
    backprop is written)."""
    a = np.ascontiguousarray(x, np.float32)
    rows, n = a.shape
    loss = np.empty(rows, np.float32)
    if out is not None and out.dtype == np.float32 and out.size == a.size and \
            out.flags.c_contiguous:
        back = out.reshape(a.shape)
    else:
        back = np.empty(a.shape, np.float32)
    if a.size:
        flat, lab, bflat = a.reshape(-1), np.ascontiguousarray(labels, np.int64), \
            back.reshape(-1)
        _threads.run_parts(lambda r0, r1: sparse_xent_rows_f32(
            flat[r0 * n:r1 * n], n, lab[r0:r1], loss[r0:r1], bflat[r0 * n:r1 * n]),
            _row_bounds(rows, n))
    return loss, back


# Row kernels split tensors of at least this many elements over the cores
# (below, handing half to another thread costs about what it saves).
PARALLEL_MIN = 1 << 20


def _row_bounds(rows, n, row_packets=False):
    """Where a row kernel splits `rows` rows of `n` values between threads:
    only at flat positions that are multiples of 8, so that every part but
    the last has whole packets and the last keeps the tensor's own tail, and
    a part's packets and leaf splits fall where the whole tensor's do (the
    same bits as one call); with `row_packets`, also at multiples of 8 rows
    (log_softmax takes the log of its row sums by packets of 8 rows)."""
    parts = _threads.cores()
    if parts == 1 or rows * n < PARALLEL_MIN:
        return [0, rows]
    step = PACKET // math.gcd(n, PACKET)       # rows per multiple of 8 values
    if row_packets:
        step = PACKET
    per = -(-rows // parts)
    per = -(-per // step) * step
    return [min(rows, k * per) for k in range(parts)] + [rows]


def _rows_kernel(kernel, row_packets=False):
    def f(x):
        a = np.ascontiguousarray(x, np.float32)
        out = np.empty(a.shape, np.float32)
        if a.size:
            n = a.shape[-1]
            flat, oflat = a.reshape(-1), out.reshape(-1)
            _threads.run_parts(lambda r0, r1: kernel(flat[r0 * n:r1 * n], n,
                                                     oflat[r0 * n:r1 * n]),
                               _row_bounds(a.size // n, n, row_packets))
        return out
    return f


def shift_rows(x):
    """softmax_kernel.shifted_rows, compiled."""
    a = np.ascontiguousarray(x, np.float32)
    out = np.empty(a.shape, np.float32)
    if a.size:
        shift_rows_f32(a.reshape(-1), a.shape[1], out.reshape(-1))
    return out


def divide_rows_flush(x, s):
    """softmax_kernel's `x /= s[:, None]` and flush, compiled (x C-contiguous)."""
    if x.size:
        divide_rows_flush_f32(x.reshape(-1), x.shape[1], np.ascontiguousarray(s, np.float32))
    return x


def _sums(x, mode, first=0):
    rows, n = x.shape
    out = np.zeros(rows, np.float32)
    if n == 0 or rows == 0:
        return out
    flat = np.ascontiguousarray(x, np.float32).reshape(-1)
    if n <= _LEAF:
        rows_sum(flat, n, mode, out)
    else:
        rows_split_sum(flat, n, mode, first, out)
    return out


def row_sums(x, first=0):
    """softmax_kernel.row_sums, compiled."""
    return _sums(x, 0, first)


def sum_exp(x):
    """softmax_kernel._sum_exp (the row sums of exp(x)), compiled."""
    return _sums(x, 1)


def _elementwise(kernel):
    def f(x):
        a = np.ascontiguousarray(x, np.float32)
        out = np.empty(a.shape, np.float32)
        kernel(a.reshape(-1), out.reshape(-1))
        return out
    return f


def ops():
    """softmax_kernel's primitives, compiled (see softmax_kernel.NUMPY_OPS)."""
    return {"exp_all": _elementwise(_je.exp_f32), "log_all": _elementwise(_je.log_f32),
            "sum_exp": sum_exp, "row_sums": row_sums,
            "log_scalar": _elementwise(log_scalar_f32), "shift_rows": shift_rows,
            "divide_rows_flush": divide_rows_flush,
            "softmax": _rows_kernel(softmax_rows_f32),
            "log_softmax": _rows_kernel(log_softmax_rows_f32, True), "sparse_xent": sparse_xent}
