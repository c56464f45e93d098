"""The Numba loop of a float sum over a run of axes followed by kept
trailing axes of a few values (the jit extra): a bias gradient, a batch
norm's per-channel mean, a global average pool. NumPy's steps for the same
order (ops/core/float_sums._blocked_row_sum) make one inner-loop call per row of
a few dozen values; this loop adds in the same order (no reassociation:
the same bits) at 3-4x the speed for rows of up to a thousand values.
Imported only by jit_kernels' loading thread."""
import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def sum_rows(x, out, block):
    """out[p, c] = the sum over r of x[p, r, c] in reduction_ops'
    blocked order: each block of `block` rows added in row order from 0
    (an all -0.0 column sums to +0.0, as NumPy's reduction does), then the
    block sums added pairwise, level by level (an odd last one carried up
    as it is). No reassociation: the same bits as the NumPy steps."""
    p_, r_, c_ = x.shape
    nb = (r_ + block - 1) // block
    part = np.empty((max(nb, 1), c_), x.dtype)
    for p in range(p_):
        part[0, :] = 0              # the sum of no rows
        for b in range(nb):
            acc = part[b]
            for c in range(c_):
                acc[c] = 0
            for r in range(b * block, min(r_, (b + 1) * block)):
                xr = x[p, r]
                for c in range(c_):
                    acc[c] += xr[c]
        k = nb
        while k > 1:
            half = k // 2
            for i in range(half):
                for c in range(c_):
                    part[i, c] = part[2 * i, c] + part[2 * i + 1, c]
            if k % 2:
                for c in range(c_):
                    part[half, c] = part[k - 1, c]
            k = half + k % 2
        o = out[p]
        for c in range(c_):
            o[c] = part[0, c]


@numba.njit(cache=True, nogil=True)
def column_sums(x, out, lanes):
    """out[p, c] = the sum over r of x[p, r, c] in Eigen's order
    (softmax_kernel.column_sums, per leading slice): the columns that fill
    whole packets of `lanes` sum their rows in four accumulators (rows j % 4,
    when there are at least 16 rows) combined as ((a0 + a1) + a2) + a3, then
    the rows left over one by one; the last columns sum their rows one by
    one from zero. No reassociation: the same bits as the NumPy steps."""
    p_, r_, c_ = x.shape
    whole = c_ - c_ % lanes
    acc = np.empty((4, c_), x.dtype)
    for p in range(p_):
        o = out[p]
        for c in range(c_):
            o[c] = 0
        start = 0
        if r_ >= 16:
            r4 = r_ - r_ % 4
            for k in range(4):
                for c in range(whole):
                    acc[k, c] = 0
            for r in range(0, r4, 4):
                for k in range(4):
                    xr = x[p, r + k]
                    a = acc[k]
                    for c in range(whole):
                        a[c] += xr[c]
            for c in range(whole):
                o[c] = ((acc[0, c] + acc[1, c]) + acc[2, c]) + acc[3, c]
            start = r4
        for r in range(start, r_):
            xr = x[p, r]
            for c in range(whole):
                o[c] += xr[c]
        for r in range(r_):
            xr = x[p, r]
            for c in range(whole, c_):
                o[c] += xr[c]
