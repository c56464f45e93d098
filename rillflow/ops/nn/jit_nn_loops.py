"""The Numba loops behind jit_nn.py: float32 NHWC pooling and its
gradients, element by element in the order and with the rules of
pool_kernels.py (TensorFlow's CPU kernels), and float32 relu and its
gradient with activations.py's rules, in one pass instead of NumPy's four. Imported only by jit_nn's
loader thread, since importing Numba takes a second.

Windows are given by kernel size (kh, kw), strides (sh, sw) and the
padding before the first row/column (ph, pw); only real elements are
read. The channel loop is innermost and branch-free so that it
vectorizes; no fast-math, so every operation rounds as in NumPy.
"""
import numba
import numpy as np

_LOWEST = np.float32(np.finfo(np.float32).min)

# The loops that may write over an input (out= that input's buffer) are
# inlined into `*_inplace` versions taking that array once: given two array
# arguments, LLVM vectorizes a loop only after a run-time check that their
# memory does not overlap, and the same buffer twice fails it, so the loop
# ran one element at a time (relu and bias relu in place 3x slower than
# into another array: a CNN's 3 MB activation 0.31 -> 0.12 ms). Callable
# from Python too, as the other loops.
_body = numba.njit(cache=True, nogil=True, inline="always")


@numba.njit(cache=True, nogil=True)
def _span(o, k, s, p, size):
    start = o * s - p
    return max(start, 0), min(start + k, size)


@numba.njit(cache=True, nogil=True)
def max_pool(x, out, kh, kw, sh, sw, ph, pw):
    """out[n, i, j, :] = the max of each window (lowest finite start,
    strictly greater values replace it: NaN never does)."""
    n_, oh_, ow_, c_ = out.shape
    h, w = x.shape[1], x.shape[2]
    for n in range(n_):
        for oi in range(oh_):
            r0, r1 = _span(oi, kh, sh, ph, h)
            for oj in range(ow_):
                q0, q1 = _span(oj, kw, sw, pw, w)
                o = out[n, oi, oj]
                for c in range(c_):
                    o[c] = _LOWEST
                for r in range(r0, r1):
                    for q in range(q0, q1):
                        v = x[n, r, q]
                        for c in range(c_):
                            o[c] = v[c] if o[c] < v[c] else o[c]


@numba.njit(cache=True, nogil=True, inline="always")
def _window_max(x, n, r0, r1, q0, q1, w, cur, idx):
    """cur[c], idx[c] = each channel's maximum over the window rows r0:r1,
    columns q0:q1 of image n and its position r * w + q: the first real
    element, then each later one strictly greater (NaN never is)."""
    first = x[n, r0, q0]
    p0 = np.int32(r0 * w + q0)
    for c in range(cur.size):
        cur[c] = first[c]
        idx[c] = p0
    for r in range(r0, r1):
        for q in range(q0, q1):
            v = x[n, r, q]
            p = np.int32(r * w + q)
            for c in range(cur.size):
                t = cur[c] < v[c]
                cur[c] = v[c] if t else cur[c]
                idx[c] = p if t else idx[c]


@numba.njit(cache=True, nogil=True)
def max_pool_grad(x, g, dx, kh, kw, sh, sw, ph, pw):
    """dx (zeros on entry) += each window's gradient at its maximum: the
    first real element, then each later one strictly greater; windows in
    row-major order, as TensorFlow adds them."""
    n_, oh_, ow_, c_ = g.shape
    h, w = x.shape[1], x.shape[2]
    flat = dx.reshape(n_, h * w, c_)
    cur = np.empty(c_, np.float32)
    idx = np.empty(c_, np.int32)     # float32's lane width: the select vectorizes
    for n in range(n_):
        for oi in range(oh_):
            r0, r1 = _span(oi, kh, sh, ph, h)
            for oj in range(ow_):
                q0, q1 = _span(oj, kw, sw, pw, w)
                _window_max(x, n, r0, r1, q0, q1, w, cur, idx)
                gv = g[n, oi, oj]
                dn = flat[n]
                for c in range(c_):
                    dn[idx[c], c] += gv[c]


@numba.njit(cache=True, nogil=True)
def max_pool_grad_disjoint(x, g, dx, kh, kw, sh, sw, ph, pw):
    """max_pool_grad for windows that never overlap (k <= s): each window's
    elements are written once, 0 + the gradient at its maximum (the bits of
    adding it to zeros) and +0 elsewhere, so dx needs no zeroing pass
    except where no window reaches."""
    n_, oh_, ow_, c_ = g.shape
    h, w = x.shape[1], x.shape[2]
    cur = np.empty(c_, np.float32)
    idx = np.empty(c_, np.int32)
    zero = np.float32(0)
    for n in range(n_):
        for oi in range(oh_):
            r0, r1 = _span(oi, kh, sh, ph, h)
            for oj in range(ow_):
                q0, q1 = _span(oj, kw, sw, pw, w)
                _window_max(x, n, r0, r1, q0, q1, w, cur, idx)
                gv = g[n, oi, oj]
                for r in range(r0, r1):
                    for q in range(q0, q1):
                        d = dx[n, r, q]
                        p = np.int32(r * w + q)
                        for c in range(c_):
                            d[c] = zero + gv[c] if idx[c] == p else zero


@_body
def max_pool_grad_relu_disjoint(x, g, dx, kh, kw, sh, sw, ph, pw):
    """relu_grad(max_pool_grad_disjoint(x, g), x) in one pass, for x the
    relu's output: the gradient at a window's maximum times (max > 0), +0
    elsewhere (0 + g, then g * 1 or g * 0: the bits of the two kernels, NaN
    and -0 included). Each window reads its elements before writing them,
    and windows do not overlap, so dx may be x's own buffer."""
    n_, oh_, ow_, c_ = g.shape
    h, w = x.shape[1], x.shape[2]
    cur = np.empty(c_, np.float32)
    idx = np.empty(c_, np.int32)
    gate = np.empty(c_, np.float32)
    one, zero = np.float32(1), np.float32(0)
    for n in range(n_):
        for oi in range(oh_):
            r0, r1 = _span(oi, kh, sh, ph, h)
            for oj in range(ow_):
                q0, q1 = _span(oj, kw, sw, pw, w)
                _window_max(x, n, r0, r1, q0, q1, w, cur, idx)
                gv = g[n, oi, oj]
                for c in range(c_):
                    gate[c] = (zero + gv[c]) * (one if cur[c] > zero else zero)
                for r in range(r0, r1):
                    for q in range(q0, q1):
                        d = dx[n, r, q]
                        p = np.int32(r * w + q)
                        for c in range(c_):
                            d[c] = gate[c] if idx[c] == p else zero


@numba.njit(cache=True, nogil=True)
def avg_pool(x, out, kh, kw, sh, sw, ph, pw):
    """out[n, i, j, :] = each window's real elements added in order from 0,
    divided by their count."""
    n_, oh_, ow_, c_ = out.shape
    h, w = x.shape[1], x.shape[2]
    for n in range(n_):
        for oi in range(oh_):
            r0, r1 = _span(oi, kh, sh, ph, h)
            for oj in range(ow_):
                q0, q1 = _span(oj, kw, sw, pw, w)
                o = out[n, oi, oj]
                for c in range(c_):
                    o[c] = np.float32(0)
                for r in range(r0, r1):
                    for q in range(q0, q1):
                        v = x[n, r, q]
                        for c in range(c_):
                            o[c] = o[c] + v[c]
                count = np.float32((r1 - r0) * (q1 - q0))
                for c in range(c_):
                    o[c] = o[c] / count


@numba.njit(cache=True, nogil=True)
def avg_pool_grad(g, dx, kh, kw, sh, sw, ph, pw):
    """dx (zeros on entry) += each window's gradient / its count over its
    real elements; window rows in order, within a row the columns in
    reverse (the order of TensorFlow's default, oneDNN, kernel)."""
    n_, oh_, ow_, c_ = g.shape
    h, w = dx.shape[1], dx.shape[2]
    share = np.empty(c_, np.float32)
    for n in range(n_):
        for oi in range(oh_):
            r0, r1 = _span(oi, kh, sh, ph, h)
            for oj in range(ow_ - 1, -1, -1):
                q0, q1 = _span(oj, kw, sw, pw, w)
                count = np.float32((r1 - r0) * (q1 - q0))
                gv = g[n, oi, oj]
                for c in range(c_):
                    share[c] = gv[c] / count
                for r in range(r0, r1):
                    for q in range(q0, q1):
                        d = dx[n, r, q]
                        for c in range(c_):
                            d[c] = d[c] + share[c]


@_body
def relu(x, out):
    """out = max(x, 0) of 1-D float32 `x`, activations._relu_kernel's rule:
    the 8-lane packets clear x <= 0 (-0 gives +0), the last size % 8
    elements x < 0 (-0 stays); NaN is kept."""
    n = x.size
    lo = n - n % 8
    zero = np.float32(0)
    for i in range(lo):
        v = x[i]
        out[i] = zero if v <= zero else v
    for i in range(lo, n):
        v = x[i]
        out[i] = zero if v < zero else v


@_body
def bias_relu(x, b, out):
    """out = relu(x + b) of (rows, C) float32 `x` and (C,) `b`: the add, then
    `relu`'s rule by flat position (the packets clear <= 0, the last
    size % 8 elements < 0), in one pass. out may be x's own buffer."""
    rows, c_ = x.shape
    n = rows * c_
    lo = n - n % 8
    zero = np.float32(0)
    whole = lo // c_ if c_ else rows       # rows entirely inside the packets
    for r in range(whole):
        xr, orow = x[r], out[r]
        for c in range(c_):
            v = xr[c] + b[c]
            orow[c] = zero if v <= zero else v
    for r in range(whole, rows):
        xr, orow = x[r], out[r]
        for c in range(c_):
            v = xr[c] + b[c]
            if r * c_ + c < lo:
                orow[c] = zero if v <= zero else v
            else:
                orow[c] = zero if v < zero else v


@_body
def scale_bias_relu(x, s, b, out):
    """out = relu(x * s + b) of (rows, C) float32 `x` and (C,) `s`, `b`: the
    product and the sum each rounded, then `relu`'s rule by flat position,
    in one pass. out may be x's own buffer."""
    rows, c_ = x.shape
    n = rows * c_
    lo = n - n % 8
    zero = np.float32(0)
    whole = lo // c_ if c_ else rows
    for r in range(whole):
        xr, orow = x[r], out[r]
        for c in range(c_):
            v = xr[c] * s[c] + b[c]
            orow[c] = zero if v <= zero else v
    for r in range(whole, rows):
        xr, orow = x[r], out[r]
        for c in range(c_):
            v = xr[c] * s[c] + b[c]
            if r * c_ + c < lo:
                orow[c] = zero if v <= zero else v
            else:
                orow[c] = zero if v < zero else v


@_body
def scale_bias_add_relu(x, s, b, res, out):
    """out = relu((x * s + b) + res) of (rows, C) float32 `x` and `res`,
    (C,) `s`, `b`: each operation rounded, then `relu`'s rule by flat
    position, in one pass. out may be x's own buffer."""
    rows, c_ = x.shape
    n = rows * c_
    lo = n - n % 8
    zero = np.float32(0)
    whole = lo // c_ if c_ else rows
    for r in range(whole):
        xr, rr, orow = x[r], res[r], out[r]
        for c in range(c_):
            v = (xr[c] * s[c] + b[c]) + rr[c]
            orow[c] = zero if v <= zero else v
    for r in range(whole, rows):
        xr, rr, orow = x[r], res[r], out[r]
        for c in range(c_):
            v = (xr[c] * s[c] + b[c]) + rr[c]
            if r * c_ + c < lo:
                orow[c] = zero if v <= zero else v
            else:
                orow[c] = zero if v < zero else v


@_body
def relu_grad(g, f, out):
    """out = g * (f > 0) of 1-D float32 arrays (inf * 0 is NaN, -1 * 0 is
    -0, as TensorFlow's multiplication by the mask gives)."""
    one, zero = np.float32(1), np.float32(0)
    for i in range(g.size):
        out[i] = g[i] * (one if f[i] > zero else zero)


# --- in place (see _body) ----------------------------------------------------------------------

@numba.njit(cache=True, nogil=True)
def relu_inplace(x):
    """relu(x, x)."""
    relu(x, x)


@numba.njit(cache=True, nogil=True)
def bias_relu_inplace(x, b):
    """bias_relu(x, b, x)."""
    bias_relu(x, b, x)


@numba.njit(cache=True, nogil=True)
def scale_bias_relu_inplace(x, s, b):
    """scale_bias_relu(x, s, b, x)."""
    scale_bias_relu(x, s, b, x)


@numba.njit(cache=True, nogil=True)
def scale_bias_add_relu_inplace(x, s, b, res):
    """scale_bias_add_relu(x, s, b, res, x)."""
    scale_bias_add_relu(x, s, b, res, x)


@numba.njit(cache=True, nogil=True)
def relu_grad_inplace(g, f):
    """relu_grad(g, f, g)."""
    relu_grad(g, f, g)


@numba.njit(cache=True, nogil=True)
def max_pool_grad_relu_disjoint_inplace(x, g, kh, kw, sh, sw, ph, pw):
    """max_pool_grad_relu_disjoint(x, g, x, ...)."""
    max_pool_grad_relu_disjoint(x, g, x, kh, kw, sh, sw, ph, pw)
