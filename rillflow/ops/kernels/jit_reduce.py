"""The Numba loop of Eigen's column sums (the jit extra): a float sum over
a leading or middle run of axes before kept values (a bias gradient, a
batch norm's per-channel mean, a global average pool) in TensorFlow's order
(ops/core/float_sums._columns). NumPy's steps for the same order make one
inner-loop call per row of a few dozen values; this loop adds in the same
order (no reassociation: the same bits) several times faster. Imported only
by jit_kernels' loading thread."""
import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def column_sums(x, out, lanes):
    """out[p, c] = the sum over r of x[p, r, c] in Eigen's order
    (float_sums._columns): the outputs whose packet of `lanes` (counted in
    the flat output, p * C + c) lies within slice p sum their rows in four
    accumulators (rows j % 4, when there are at least 16 rows) combined as
    ((a0 + a1) + a2) + a3, then the rows left over one by one; the others
    sum their rows one by one from zero. No reassociation: the same bits as
    the NumPy steps."""
    p_, r_, c_ = x.shape
    acc = np.empty((4, c_), x.dtype)
    for p in range(p_):
        # The packet columns of slice p: [lo, lo + w).
        lo = -(-(p * c_) // lanes) * lanes - p * c_
        hi = ((p + 1) * c_) // lanes * lanes - p * c_
        if hi <= lo:    # no packet within the slice (lo may pass c_)
            lo = 0
            hi = 0
        w = hi - lo
        o = out[p]
        for c in range(c_):
            o[c] = 0
        ow = o[lo:hi]           # (views from 0: the loops below vectorize)
        start = 0
        if r_ >= 16:
            r4 = r_ - r_ % 4
            for k in range(4):
                for c in range(w):
                    acc[k, c] = 0
            for r in range(0, r4, 4):
                for k in range(4):
                    xr = x[p, r + k, lo:hi]
                    a = acc[k]
                    for c in range(w):
                        a[c] += xr[c]
            for c in range(w):
                ow[c] = ((acc[0, c] + acc[1, c]) + acc[2, c]) + acc[3, c]
            start = r4
        for r in range(start, r_):
            xr = x[p, r, lo:hi]
            for c in range(w):
                ow[c] += xr[c]
        for r in range(r_):
            xr = x[p, r]
            for c in range(lo):
                o[c] += xr[c]
            for c in range(hi, c_):
                o[c] += xr[c]
