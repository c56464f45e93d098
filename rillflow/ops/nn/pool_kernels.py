"""NumPy kernels of 2-D max and average pooling (NHWC) and their gradients,
with TensorFlow's CPU kernels' rules and order of operations.

A window is visited one position (i, j) at a time: for every position the
elements it contributes to all windows form one strided view of the input,
(N, OH, OW, C), so each step is a few whole-array NumPy operations and no
window is ever copied out. Visiting positions in row-major order is
TensorFlow's own order, which fixes the rules on ties, NaN and signed zeros:

- MaxPool starts each window at the dtype's lowest value and takes an
  element only when it is greater (`out < v`): the first of equal values
  wins (-0 before +0 stays -0), NaN never wins, and a window of only NaN or
  -inf gives the lowest finite value, as TensorFlow prints it.
- MaxPoolGrad finds each window's maximum again the way TensorFlow's
  gradient kernel does: the window's first real element is always taken,
  later ones when greater, so a leading NaN keeps the gradient. The
  gradient is routed to that element alone (exactly +0 elsewhere, even
  where the incoming gradient is inf or NaN).
- AvgPool adds a window's real elements in order, starting from 0, and
  divides by their count; AvgPoolGrad divides each window's gradient by
  the count and adds the shares of an input in the order of TensorFlow's
  default (oneDNN) kernel: window rows in order, within a row the columns
  in reverse. (Its plain kernel, used with TF_ENABLE_ONEDNN_OPTS=0,
  multiplies by the reciprocal and adds in window order.)
- Gradients reaching one input from several windows are added in the
  order of the windows (output row-major), which is the positions' reverse
  order.

Where a float select is needed it is done on the bits (an integer view)
with a mask, because NumPy's `where` on an irregular mask costs ten times a
plain pass, and `maximum`'s choice between -0 and +0 varies with its SIMD
path.
"""
import itertools

import numpy as np

from ...framework import dtypes as D
from . import jit_nn

__all__ = ["max_pool", "max_pool_grad", "avg_pool", "avg_pool_grad", "out_and_pads",
           "max_pool3d_grad", "max_pool3d_grad_grad", "max_pool_with_argmax",
           "max_pool_grad_with_argmax", "max_pool_grad_grad_with_argmax"]


def out_and_pads(size, k, stride, padding):
    """(output size, pad before, pad after) of pooling along one axis."""
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + k - size, 0)
        return out, total // 2, total - total // 2
    span = size - k
    return (span // stride + 1 if span >= 0 else 0), 0, 0


class _Geometry:
    """Output sizes, paddings and per-position views of one pooling over
    the spatial axes of a channels-last input (2 for NHWC, 3 for NDHWC)."""

    def __init__(self, in_shape, ksize, strides, padding):
        nd = len(in_shape) - 2
        self.nd = nd
        self.k = tuple(int(ksize[1 + a]) for a in range(nd))
        self.s = tuple(int(strides[1 + a]) for a in range(nd))
        geo = [out_and_pads(in_shape[1 + a], self.k[a], self.s[a], padding)
               for a in range(nd)]
        self.outs = tuple(g[0] for g in geo)
        self.before = tuple(g[1] for g in geo)
        self.after = tuple(g[2] for g in geo)
        self.in_shape = tuple(in_shape)
        self.out_shape = (in_shape[0],) + self.outs + (in_shape[-1],)
        self.padded = any(self.before) or any(self.after)
        # Offsets along each axis that can reach real input at all (others
        # read only padding and are skipped).
        self.reach = [[i for i in range(self.k[a]) if self._axis_valid(a, i).any()]
                      for a in range(nd)]
        if nd == 2:      # the names the 2-D code and the compiled loops use
            self.oh, self.ow = self.outs
            self.ph0, self.pw0 = self.before

    def _axis_valid(self, axis, offset):
        """Which outputs along spatial `axis` read real input at window
        offset `offset`."""
        pos = np.arange(self.outs[axis]) * self.s[axis] + offset - self.before[axis]
        return (pos >= 0) & (pos < self.in_shape[1 + axis])

    def valid(self, *pos):
        """(1, *out, 1) bool: the windows whose position `pos` is real."""
        m = np.ones((), bool)
        for a, i in enumerate(pos):
            m = np.multiply.outer(m, self._axis_valid(a, i))
        return m[None, ..., None]

    def pad(self, x, fill):
        """`x` with this pooling's padding filled with `fill`."""
        if not self.padded:
            return x
        shape = (x.shape[0],) + tuple(x.shape[1 + a] + self.before[a] + self.after[a]
                                      for a in range(self.nd)) + (x.shape[-1],)
        out = np.full(shape, fill, x.dtype)
        out[self.crop()] = x
        return out

    def crop(self):
        """The index of the real input inside a padded array."""
        return (slice(None),) + tuple(slice(self.before[a], self.before[a] +
                                            self.in_shape[1 + a]) for a in range(self.nd))

    def padded_zeros(self, dtype):
        """Zeros of the padded input's shape (gradients are added there)."""
        return np.zeros((self.in_shape[0],) + tuple(
            self.in_shape[1 + a] + self.before[a] + self.after[a] for a in range(self.nd)) +
            (self.in_shape[-1],), dtype)

    def view(self, xp, *pos):
        """The (N, *out, C) view of padded `xp` at window position `pos`."""
        return xp[(slice(None),) + tuple(
            slice(i, i + (self.outs[a] - 1) * self.s[a] + 1, self.s[a])
            for a, i in enumerate(pos))]

    def positions(self):
        """The window positions that can hold real input, row-major."""
        return list(itertools.product(*self.reach))

    def index(self, pos):
        """A position's row-major index in its window."""
        return int(np.ravel_multi_index(pos, self.k))

    def overlapping(self):
        """Whether an input element can belong to more than one window."""
        return any(k > s for k, s in zip(self.k, self.s))


def _bits_dtype(dtype):
    return np.dtype("i%d" % dtype.itemsize)


def _lowest(dtype):
    return np.asarray(D.as_dtype(dtype).min, dtype)


def _is_float(dtype):
    return dtype.kind == "f" or dtype.name == "bfloat16"


def _select_bits(dst_bits, src_bits, take):
    """dst_bits[take] = src_bits[take], in place, by masks on the bits."""
    mask = np.negative(take.view(np.int8))          # 0 or -1 (all ones)
    diff = np.bitwise_xor(dst_bits, src_bits)
    np.bitwise_and(diff, mask, out=diff, casting="unsafe")
    np.bitwise_xor(dst_bits, diff, out=dst_bits)


def _compiled(name, x):
    """The jit extra's loop `name` for float32 `x`, or None."""
    if x.dtype != np.float32 or x.size == 0:
        return None
    ks = jit_nn.loops(x.size)
    return None if ks is None else ks[name]


def _window_args(geo):
    return (geo.k[0], geo.k[1], geo.s[0], geo.s[1], geo.ph0, geo.pw0)


def _compiled2d(name, x, geo):
    """The compiled 2-D loop `name` (none for 3-D pooling)."""
    return _compiled(name, x) if geo.nd == 2 else None


def max_pool(x, ksize, strides, padding):
    """TensorFlow's MaxPool/MaxPool3D of channels-last `x` (see the module
    docstring)."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    loop = _compiled2d("max_pool", x, geo)
    if loop is not None and all(geo.outs):
        out = np.empty(geo.out_shape, x.dtype)
        loop(np.ascontiguousarray(x), out, *_window_args(geo))
        return out
    out = np.full(geo.out_shape, _lowest(x.dtype), x.dtype)
    if out.size == 0 or x.size == 0:
        return out
    flt = _is_float(x.dtype)
    # Padding is NaN for floats and the lowest value for integers: neither
    # is ever greater than a window's value, so padding never wins.
    xp = geo.pad(x, np.nan if flt else _lowest(x.dtype))
    if not flt:
        for pos in geo.positions():
            np.maximum(out, geo.view(xp, *pos), out=out)
        return out
    bits, xbits = out.view(_bits_dtype(x.dtype)), xp.view(_bits_dtype(x.dtype))
    for pos in geo.positions():
        _select_bits(bits, geo.view(xbits, *pos), np.less(out, geo.view(xp, *pos)))
    return out


def _argmax(x, geo, values=False):
    """The window position (row-major index) of each window's maximum, by
    the rule of TensorFlow's MaxPoolGrad and MaxPoolWithArgmax: the first
    real element, then each later one that is greater. (N, *out, C) int32;
    with `values`, also the chosen values."""
    flt = _is_float(x.dtype)
    xp = geo.pad(x, np.nan if flt else _lowest(x.dtype))
    cur = np.full(geo.out_shape, np.nan if flt else _lowest(x.dtype), x.dtype)
    idx = np.zeros(geo.out_shape, np.int32)
    bdt = _bits_dtype(x.dtype)
    have = np.zeros((1,) + geo.outs + (1,), bool)
    for pos in geo.positions():
        v = geo.view(xp, *pos)
        take = np.less(cur, v)
        valid = geo.valid(*pos)
        first = valid & ~have
        if first.any():
            take |= first
            have |= valid
        if flt:
            _select_bits(cur.view(bdt), geo.view(xp.view(bdt), *pos), take)
        else:
            np.maximum(cur, v, out=cur)
        p = geo.index(pos)
        if p:   # positions grow, so the last taken is the largest index taken
            np.maximum(idx, np.multiply(take, np.int32(p), dtype=np.int32), out=idx)
    return (idx, cur) if values else idx


def _tiled(geo, shape):
    """Whether the 2-D windows tile an input of `shape` exactly: every
    element lies in one window (and a disjoint gradient writes it)."""
    return all(k == s and o * s == size and not b for k, s, o, size, b in zip(
        geo.k, geo.s, geo.outs, shape[1:3], geo.before))


def max_pool_grad_relu(x, grad, ksize, strides, padding, out=None):
    """relu_grad(max_pool_grad(x, grad), x) for `x` a relu's output (the
    compiler's kernel_fusion joins the two ops) in one compiled pass when
    the windows do not overlap, else None (the caller runs the two
    kernels). `out` may be x's own buffer when nothing reads x afterwards:
    taken when the windows tile x exactly (every element is written, each
    window's after it was read)."""
    if x.ndim != 4 or grad.dtype != np.float32 or not grad.size:
        return None
    geo = _Geometry(x.shape, ksize, strides, padding)
    loop = _compiled2d("max_pool_grad_relu_disjoint", x, geo)
    if loop is None or geo.overlapping() or grad.shape != tuple(geo.out_shape):
        return None
    x = np.ascontiguousarray(x)
    tiled = _tiled(geo, x.shape)
    if tiled and out is x and x.flags.writeable:
        _compiled2d("max_pool_grad_relu_disjoint_inplace", x, geo)(
            x, np.ascontiguousarray(grad), *_window_args(geo))
        return x
    out = np.empty(x.shape, np.float32) if tiled else np.zeros(x.shape, np.float32)
    loop(x, np.ascontiguousarray(grad), out, *_window_args(geo))
    return out


def max_pool_grad(x, grad, ksize, strides, padding):
    """TensorFlow's MaxPoolGrad: each window's gradient goes to its maximum."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    loop = _compiled2d("max_pool_grad", x, geo)
    if loop is not None and grad.dtype == np.float32 and grad.size:
        if geo.overlapping():
            out = np.zeros(x.shape, np.float32)
        else:
            loop = _compiled2d("max_pool_grad_disjoint", x, geo)
            out = np.empty(x.shape, np.float32) if _tiled(geo, x.shape) else \
                np.zeros(x.shape, np.float32)
        loop(np.ascontiguousarray(x), np.ascontiguousarray(grad), out, *_window_args(geo))
        return out
    dx = geo.padded_zeros(grad.dtype)
    if dx.size == 0 or grad.size == 0:
        return dx[geo.crop()]
    idx = _argmax(x, geo)
    bdt = _bits_dtype(grad.dtype)
    overlap = geo.overlapping()
    # TensorFlow adds each gradient to zeros: 0 + (-0) is +0. Written
    # without adding (windows apart), a -0 gradient would stay -0.
    g0 = grad if overlap else np.add(grad, np.zeros((), grad.dtype))
    gbits = np.ascontiguousarray(g0).view(bdt)
    part = np.empty(geo.out_shape, grad.dtype) if overlap else None
    for pos in reversed(geo.positions()):     # the windows' order at each input
        mask = np.negative(np.equal(idx, geo.index(pos)).view(np.int8))
        if overlap:
            np.bitwise_and(gbits, mask, out=part.view(bdt), casting="unsafe")
            target = geo.view(dx, *pos)
            np.add(target, part, out=target)
        else:     # each input in at most one window: write, no adding
            np.bitwise_and(gbits, mask, out=geo.view(dx.view(bdt), *pos), casting="unsafe")
    return dx[geo.crop()]


def _near_max(xv, y):
    """MaxPool3D's gradient rule: an element is a window's maximum when it
    is within 1e-5 of it (|x - y| < 1e-5 in the input's dtype), so ties
    all receive the gradient and inf or NaN elements never do."""
    return np.less(np.abs(np.subtract(xv, y)), np.asarray(1e-5, xv.dtype))


def max_pool3d_grad(x, y, grad, ksize, strides, padding):
    """TensorFlow's MaxPool3DGrad: each window's gradient added, starting
    from +0, to every element of the window within 1e-5 of its maximum
    `y`; windows in column-major order (the last spatial axis outermost)."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    dx = geo.padded_zeros(grad.dtype)
    if dx.size == 0 or grad.size == 0:
        return dx[geo.crop()]
    xp = geo.pad(x, np.nan)          # |NaN - y| < 1e-5 is false: padding never
    bdt = _bits_dtype(grad.dtype)
    gbits = np.ascontiguousarray(grad).view(bdt)
    part = np.empty(geo.out_shape, grad.dtype)
    # TensorFlow's kernel visits the windows with the last spatial axis
    # outermost (Eigen's column-major loops): at each input the windows'
    # shares arrive in that order, which is the positions' reverse
    # column-major order (checked bit for bit against TensorFlow 2.21).
    for pos in sorted(geo.positions(), key=lambda p: p[::-1], reverse=True):
        mask = np.negative(_near_max(geo.view(xp, *pos), y).view(np.int8))
        np.bitwise_and(gbits, mask, out=part.view(bdt), casting="unsafe")
        target = geo.view(dx, *pos)
        np.add(target, part, out=target)
    return dx[geo.crop()]


def max_pool3d_grad_grad(x, y, gg, ksize, strides, padding):
    """TensorFlow's MaxPool3DGradGrad: for each window, `gg` at the first
    element (row-major) exactly equal to its maximum `y` (-0 equals +0),
    or 0 when none is (a window of -inf and NaN). Checked bit for bit
    against TensorFlow 2.21."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    out = np.zeros(geo.out_shape, gg.dtype)
    if out.size == 0 or x.size == 0:
        return out
    xp, gp = geo.pad(x, np.nan), geo.pad(gg, 0)
    have = np.zeros(geo.out_shape, bool)
    bdt = _bits_dtype(gg.dtype)
    for pos in geo.positions():
        take = np.equal(geo.view(xp, *pos), y)
        take &= ~have
        have |= take
        _select_bits(out.view(bdt), geo.view(gp.view(bdt), *pos), take)
    return out


def max_pool_with_argmax(x, ksize, strides, padding, include_batch_in_index):
    """TensorFlow's MaxPoolWithArgmax: each window's first real element,
    then each later greater one (a leading NaN is kept), and its flat
    index ((b * H + h) * W + w) * C + c, the batch term only with
    `include_batch_in_index`. Returns (values, int64 indices)."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    if x.size == 0 or not all(geo.outs):
        return np.zeros(geo.out_shape, x.dtype), np.zeros(geo.out_shape, np.int64)
    idx, vals = _argmax(x, geo, values=True)
    n, h, w, c = x.shape
    oh, ow = geo.outs
    r = idx // geo.k[1] + (np.arange(oh) * geo.s[0] - geo.before[0])[None, :, None, None]
    q = idx % geo.k[1] + (np.arange(ow) * geo.s[1] - geo.before[1])[None, None, :, None]
    flat = (r.astype(np.int64) * w + q) * c + np.arange(c)
    if include_batch_in_index:
        flat = flat + (np.arange(n, dtype=np.int64) * (h * w * c))[:, None, None, None]
    return vals, flat


def max_pool_grad_with_argmax(in_shape, grad, argmax, include_batch_in_index):
    """TensorFlow's MaxPoolGradWithArgmax: each gradient added at its
    argmax index, in the gradient's order, starting from +0."""
    n = in_shape[0]
    per = int(np.prod(in_shape[1:]))
    dx = np.zeros(n * per, grad.dtype)
    idx = argmax.astype(np.int64).reshape(n, -1)
    if not include_batch_in_index:
        idx = idx + (np.arange(n, dtype=np.int64) * per)[:, None]
    if idx.size and (idx.min() < 0 or idx.max() >= n * per):
        raise IndexError("Invalid argmax")
    np.add.at(dx, idx.ravel(), grad.reshape(-1))
    return dx.reshape(in_shape)


def max_pool_grad_grad_with_argmax(grad, argmax, include_batch_in_index, out_shape):
    """TensorFlow's MaxPoolGradGradWithArgmax: `grad` read at each argmax."""
    n = grad.shape[0]
    per = int(np.prod(grad.shape[1:]))
    idx = argmax.astype(np.int64).reshape(n, -1)
    if not include_batch_in_index:
        idx = idx + (np.arange(n, dtype=np.int64) * per)[:, None]
    return grad.reshape(-1)[idx.ravel()].reshape(out_shape)


def _counts(geo):
    """(1, *out, 1): the number of real elements of each window."""
    m = np.ones((), np.int64)
    for a in range(geo.nd):
        along = sum(geo._axis_valid(a, i).astype(np.int64) for i in range(geo.k[a]))
        m = np.multiply.outer(m, along)
    return m[None, ..., None]


def avg_pool(x, ksize, strides, padding):
    """TensorFlow's AvgPool/AvgPool3D: each window's real elements added in
    order from 0, divided by their count."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    out = np.zeros(geo.out_shape, x.dtype)
    if out.size == 0 or x.size == 0:
        return out
    loop = _compiled2d("avg_pool", x, geo)
    if loop is not None:
        loop(np.ascontiguousarray(x), out, *_window_args(geo))
        return out
    xp = geo.pad(x, 0)
    for pos in geo.positions():
        np.add(out, geo.view(xp, *pos), out=out)
    return np.divide(out, _counts(geo).astype(x.dtype), out=out)


def avg_pool_grad(in_shape, grad, ksize, strides, padding):
    """TensorFlow's AvgPoolGrad/AvgPool3DGrad: each window's gradient
    divided by its count of real elements, added to those elements in the
    order of TensorFlow's default (oneDNN) kernel."""
    geo = _Geometry(in_shape, ksize, strides, padding)
    dx = geo.padded_zeros(grad.dtype)
    if dx.size == 0 or grad.size == 0:
        return dx[geo.crop()]
    loop = _compiled2d("avg_pool_grad", grad, geo)
    if loop is not None:
        out = np.zeros(in_shape, np.float32)
        loop(np.ascontiguousarray(grad), out, *_window_args(geo))
        return out
    share = grad / _counts(geo).astype(grad.dtype)
    # oneDNN's order at each input: 2-D, the window rows in order, within a
    # row the columns in reverse; 3-D, positions sorted by (plane, -row,
    # column), which TensorFlow 2.21 matches bit for bit when at most two
    # windows overlap along an axis (with three or more its order is not
    # one of position order's 48 forms and the last bit can differ).
    key = (lambda p: (-p[0], p[1])) if geo.nd == 2 else (lambda p: (p[0], -p[1], p[2]))
    for pos in sorted(geo.positions(), key=key):
        target = geo.view(dx, *pos)
        np.add(target, share, out=target)
    # Positions that are padding for some windows received those windows'
    # shares too: they are cut off with the padding here.
    return dx[geo.crop()]
