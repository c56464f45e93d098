"""Eigen's row sums (softmax_kernel.py) compiled by Numba: the same
accumulators filled in the same order, with exp applied inside the sum as
softmax_kernel.row_sums_of applies it (packets for the whole packets of
each leaf, libm's expf for the rest), one pass over each row and no
temporaries. Imported only by jit_kernels.py.

`ops()` gives softmax_kernel's primitives (exp over a whole tensor, log,
row sums, sums of exp) in compiled form; softmax_kernel's softmax,
log_softmax and cross entropies take them as their `k` argument.
"""
import numpy as np

from . import jit_exp_log as _je
from .jit_exp_log import PACKET, exp_p, exp_s, jit, lane, log_s
from .softmax_kernel import _LEAF

_ZERO = np.float32(0.0)


@lane
def _value(x, i, mode, packet):
    # The summed value of x[i]: itself (mode 0) or its exp (mode 1), by the
    # packet path or libm's.
    v = x[i]
    if mode == 0:
        return v
    return exp_p(v) if packet else exp_s(v)


@lane
def _leaf(x, lo, hi, mode, acc):
    """softmax_kernel._leaf_sums of x[lo:hi] (at most _LEAF values) after
    `mode`; acc is scratch space for 4 x 8 lanes."""
    n = hi - lo
    whole = n - n % PACKET
    for j in range(4 * PACKET):
        acc[j] = _ZERO
    start = 0
    if n >= 4 * PACKET:
        n4 = n - n % (4 * PACKET)
        for b in range(0, n4, 4 * PACKET):          # blocks, in order
            for j in range(4 * PACKET):             # accumulator j // 8, lane j % 8
                acc[j] += _value(x, lo + b + j, mode, True)
        for j in range(PACKET):                     # ((a0 + a1) + a2) + a3
            s = acc[j] + acc[PACKET + j]
            s = s + acc[2 * PACKET + j]
            acc[j] = s + acc[3 * PACKET + j]
        start = n4
    for b in range(start, whole, PACKET):
        for j in range(PACKET):
            acc[j] += _value(x, lo + b + j, mode, True)
    s = _ZERO
    for j in range(whole, n):
        s += _value(x, lo + j, mode, False)
    # predux: halves, then SSE's horizontal sum.
    v0 = acc[0] + acc[4]
    v1 = acc[1] + acc[5]
    v2 = acc[2] + acc[6]
    v3 = acc[3] + acc[7]
    a = v0 + v2
    b = v1 + v3
    return s + (a + b)


@jit
def leaf_sum(x, lo, hi, mode):
    """One leaf's sum of the 1-D float32 x[lo:hi] (for rows split in halves)."""
    acc = np.empty(4 * PACKET, np.float32)
    return _leaf(x, lo, hi, mode, acc)


@jit
def rows_sum(x, n, mode, out):
    """out[r] = Eigen's sum of row r of the flat float32 x (rows of n <= _LEAF
    values) after `mode` (0: the values, 1: their exp)."""
    acc = np.empty(4 * PACKET, np.float32)
    for r in range(out.size):
        out[r] = _leaf(x, r * n, r * n + n, mode, acc)


@jit
def log_scalar_f32(x, out):
    """out = exp_log.log_scalar(x): libm's logf of every element."""
    for i in range(x.size):
        out[i] = log_s(x[i])


def _split_sum(flat, lo, n, mode, first):
    # softmax_kernel._split_sum: halves split at a multiple of 8 of the
    # flat index, summed recursively (only rows longer than _LEAF).
    if n <= _LEAF:
        return np.float32(leaf_sum(flat, lo, lo + n, mode))
    split = PACKET * -(-(first + -(-n // 2)) // PACKET)
    left = min(split - first, n)
    s = np.float32(0) + _split_sum(flat, lo, left, mode, first)
    if left < n:
        s = s + _split_sum(flat, lo + left, n - left, mode, split)
    return s


def _sums(x, mode, first=0):
    rows, n = x.shape
    out = np.zeros(rows, np.float32)
    if n == 0 or rows == 0:
        return out
    flat = np.ascontiguousarray(x, np.float32).reshape(-1)
    if n <= _LEAF:
        rows_sum(flat, n, mode, out)
    else:
        for r in range(rows):
            out[r] = _split_sum(flat, r * n, n, mode, first + r * n)
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
            "log_scalar": _elementwise(log_scalar_f32)}
