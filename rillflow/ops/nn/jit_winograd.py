"""The Numba loops of winograd.py's transforms (the jit extra): one pass
over the tiles instead of NumPy's twenty strided whole-array passes, with
the same operations in the same order, so the same bits. Imported only by
jit_nn's loader thread.

A tile's 4x4 (or 2x2) block is read from the unpadded input (zeros where
it hangs over an edge, as winograd.py's padded copy has); the channel loop
is innermost so that it vectorizes. Only additions and subtractions: no
contraction into FMAs can change a rounding.
"""
import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def input_tiles(x, ph, pw, th, tw, v):
    """v[4 a + b, tile, :] = (B^T d B)[a, b] of every 4x4 input tile d
    (rows from 2 ty - ph, columns from 2 tx - pw). Position-major, as the
    GEMMs read it: the filter gradient's GEMMs sum over tiles, and read
    from a tile-major array (rows 16 C apart, 4 KB for 64 channels) took
    1.3-1.4x longer; the transform writes 16 streams as fast as one."""
    n_, h, w, c_ = x.shape
    d = np.zeros((4, 4, c_), x.dtype)
    t = np.empty((4, 4, c_), x.dtype)
    for n in range(n_):
        for ty in range(th):
            r0 = 2 * ty - ph
            for tx in range(tw):
                q0 = 2 * tx - pw
                if r0 >= 0 and r0 + 4 <= h and q0 >= 0 and q0 + 4 <= w:
                    # Inside: the row transform reads x itself.
                    for j in range(4):
                        x0, x1 = x[n, r0, q0 + j], x[n, r0 + 1, q0 + j]
                        x2, x3 = x[n, r0 + 2, q0 + j], x[n, r0 + 3, q0 + j]
                        for c in range(c_):
                            d0, d1, d2, d3 = x0[c], x1[c], x2[c], x3[c]
                            t[0, j, c] = d0 - d2
                            t[1, j, c] = d1 + d2
                            t[2, j, c] = d2 - d1
                            t[3, j, c] = d1 - d3
                else:
                    for i in range(4):
                        r = r0 + i
                        for j in range(4):
                            q = q0 + j
                            if 0 <= r < h and 0 <= q < w:
                                for c in range(c_):
                                    d[i, j, c] = x[n, r, q, c]
                            else:
                                for c in range(c_):
                                    d[i, j, c] = 0
                    for j in range(4):
                        for c in range(c_):
                            d0, d1, d2, d3 = d[0, j, c], d[1, j, c], d[2, j, c], d[3, j, c]
                            t[0, j, c] = d0 - d2
                            t[1, j, c] = d1 + d2
                            t[2, j, c] = d2 - d1
                            t[3, j, c] = d1 - d3
                k = (n * th + ty) * tw + tx
                for i in range(4):
                    for c in range(c_):
                        e0, e1, e2, e3 = t[i, 0, c], t[i, 1, c], t[i, 2, c], t[i, 3, c]
                        v[4 * i, k, c] = e0 - e2
                        v[4 * i + 1, k, c] = e1 + e2
                        v[4 * i + 2, k, c] = e2 - e1
                        v[4 * i + 3, k, c] = e1 - e3


@numba.njit(cache=True, nogil=True)
def output_tiles(m, th, tw, y):
    """y (N, OH, OW, O) = A^T m A of every tile's m[0:16, tile, :], the
    2x2 outputs past OH/OW left out. Returns whether every output written
    is finite (winograd.py then keeps the result; otherwise the layer takes
    the direct path): each channel sums `v - v` of its outputs, 0 unless one
    is inf or NaN, which vectorizes where a flag's branch would not."""
    n_, oh, ow, o_ = y.shape
    r = np.empty((2, 4, o_), m.dtype)
    bad = np.zeros(o_, m.dtype)
    for n in range(n_):
        for ty in range(th):
            for tx in range(tw):
                k = (n * th + ty) * tw + tx
                for j in range(4):
                    for c in range(o_):
                        m0, m1, m2, m3 = m[j, k, c], m[4 + j, k, c], m[8 + j, k, c], \
                            m[12 + j, k, c]
                        r[0, j, c] = (m0 + m1) + m2
                        r[1, j, c] = (m1 - m2) - m3
                for i in range(2):
                    row = 2 * ty + i
                    if row >= oh:
                        continue
                    q = 2 * tx
                    for c in range(o_):
                        v = (r[i, 0, c] + r[i, 1, c]) + r[i, 2, c]
                        y[n, row, q, c] = v
                        bad[c] += v - v
                    if q + 1 < ow:
                        for c in range(o_):
                            v = (r[i, 1, c] - r[i, 2, c]) - r[i, 3, c]
                            y[n, row, q + 1, c] = v
                            bad[c] += v - v
    for c in range(o_):
        if bad[c] != 0:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def grad_tiles(dy, th, tw, v):
    """v[4 a + b, tile, :] = (A e A^T)[a, b] of every 2x2 output-gradient
    tile e (zeros past the edges), A = [[1, 0], [1, 1], [1, -1], [0, -1]];
    position-major as input_tiles."""
    n_, oh, ow, o_ = dy.shape
    d = np.zeros((2, 2, o_), dy.dtype)
    t = np.empty((4, 2, o_), dy.dtype)
    for n in range(n_):
        for ty in range(th):
            for tx in range(tw):
                k = (n * th + ty) * tw + tx
                for i in range(2):
                    r = 2 * ty + i
                    for j in range(2):
                        q = 2 * tx + j
                        if r < oh and q < ow:
                            for c in range(o_):
                                d[i, j, c] = dy[n, r, q, c]
                        else:
                            for c in range(o_):
                                d[i, j, c] = 0
                for j in range(2):
                    for c in range(o_):
                        d0, d1 = d[0, j, c], d[1, j, c]
                        t[0, j, c] = d0
                        t[1, j, c] = d0 + d1
                        t[2, j, c] = d0 - d1
                        t[3, j, c] = -d1
                for i in range(4):
                    for c in range(o_):
                        e0, e1 = t[i, 0, c], t[i, 1, c]
                        v[4 * i, k, c] = e0
                        v[4 * i + 1, k, c] = e0 + e1
                        v[4 * i + 2, k, c] = e0 - e1
                        v[4 * i + 3, k, c] = -e1


@numba.njit(cache=True, nogil=True)
def filter_tiles(g, u):
    """u[4 a + b] = (G g G^T)[a, b] of a (3, 3, C, O) filter, as
    winograd._filter_transform: the rows' transform first, then the
    columns'; halving is exact, so the float32 constant gives NumPy's bits."""
    _, _, c_, o_ = g.shape
    half = np.float32(0.5)
    r = np.empty((4, 3, o_), g.dtype)
    for c in range(c_):
        for j in range(3):
            for o in range(o_):
                t0, t1, t2 = g[0, j, c, o], g[1, j, c, o], g[2, j, c, o]
                s = t0 + t2
                r[0, j, o] = t0
                r[1, j, o] = (s + t1) * half
                r[2, j, o] = (s - t1) * half
                r[3, j, o] = t2
        for a in range(4):
            for o in range(o_):
                e0, e1, e2 = r[a, 0, o], r[a, 1, o], r[a, 2, o]
                s = e0 + e2
                u[4 * a, c, o] = e0
                u[4 * a + 1, c, o] = (s + e1) * half
                u[4 * a + 2, c, o] = (s - e1) * half
                u[4 * a + 3, c, o] = e2


@numba.njit(cache=True, nogil=True)
def filter_untile(m, w):
    """w (3, 3, C, O) = G^T m G of the filter gradient's summed products
    m (16, C, O), as winograd.backprop_filter's NumPy steps (rows, then
    columns); returns whether every value is finite (as output_tiles)."""
    _, c_, o_ = m.shape
    half = np.float32(0.5)
    r = np.empty((3, 4, o_), m.dtype)
    bad = np.zeros(o_, m.dtype)
    for c in range(c_):
        for b in range(4):
            for o in range(o_):
                t0, t1, t2, t3 = m[b, c, o], m[4 + b, c, o], m[8 + b, c, o], m[12 + b, c, o]
                s = (t1 + t2) * half
                r[0, b, o] = t0 + s
                r[1, b, o] = (t1 - t2) * half
                r[2, b, o] = s + t3
        for i in range(3):
            for o in range(o_):
                e0, e1, e2, e3 = r[i, 0, o], r[i, 1, o], r[i, 2, o], r[i, 3, o]
                s = (e1 + e2) * half
                v0, v1, v2 = e0 + s, (e1 - e2) * half, s + e3
                w[i, 0, c, o] = v0
                w[i, 1, c, o] = v1
                w[i, 2, c, o] = v2
                bad[o] += (v0 - v0) + (v1 - v1) + (v2 - v2)
    for o in range(o_):
        if bad[o] != 0:
            return False
    return True
