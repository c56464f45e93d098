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
import numpy as np

from ...framework import dtypes as D
from . import jit_nn

__all__ = ["max_pool", "max_pool_grad", "avg_pool", "avg_pool_grad", "out_and_pads"]


def out_and_pads(size, k, stride, padding):
    """(output size, pad before, pad after) of pooling along one axis."""
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + k - size, 0)
        return out, total // 2, total - total // 2
    span = size - k
    return (span // stride + 1 if span >= 0 else 0), 0, 0


class _Geometry:
    """Output sizes, paddings and per-position views of one pooling."""

    def __init__(self, in_shape, ksize, strides, padding):
        n, h, w, c = in_shape
        self.k = (int(ksize[1]), int(ksize[2]))
        self.s = (int(strides[1]), int(strides[2]))
        (self.oh, self.ph0, self.ph1), (self.ow, self.pw0, self.pw1) = (
            out_and_pads(h, self.k[0], self.s[0], padding),
            out_and_pads(w, self.k[1], self.s[1], padding))
        self.in_shape = (n, h, w, c)
        self.out_shape = (n, self.oh, self.ow, c)
        self.padded = bool(self.ph0 or self.ph1 or self.pw0 or self.pw1)
        # Positions a window's rows/columns can reach at all (others read
        # only padding and are skipped).
        self.rows = [i for i in range(self.k[0]) if self._axis_valid(0, i).any()]
        self.cols = [j for j in range(self.k[1]) if self._axis_valid(1, j).any()]

    def _axis_valid(self, axis, offset):
        """Which output rows (axis 0) or columns (1) read real input at
        window offset `offset`."""
        out, before, size = ((self.oh, self.ph0, self.in_shape[1]) if axis == 0 else
                             (self.ow, self.pw0, self.in_shape[2]))
        pos = np.arange(out) * self.s[axis] + offset - before
        return (pos >= 0) & (pos < size)

    def valid(self, i, j):
        """(1, OH, OW, 1) bool: the windows whose position (i, j) is real."""
        return (self._axis_valid(0, i)[:, None] & self._axis_valid(1, j)[None, :])[
            None, :, :, None]

    def pad(self, x, fill):
        """`x` with this pooling's padding filled with `fill`."""
        if not self.padded:
            return x
        out = np.full((x.shape[0], x.shape[1] + self.ph0 + self.ph1,
                       x.shape[2] + self.pw0 + self.pw1, x.shape[3]), fill, x.dtype)
        out[:, self.ph0:self.ph0 + x.shape[1], self.pw0:self.pw0 + x.shape[2]] = x
        return out

    def view(self, xp, i, j):
        """The (N, OH, OW, C) view of padded `xp` at window position (i, j)."""
        return xp[:, i:i + (self.oh - 1) * self.s[0] + 1:self.s[0],
                  j:j + (self.ow - 1) * self.s[1] + 1:self.s[1]]

    def positions(self):
        """The window positions that can hold real input, row-major."""
        return [(i, j) for i in self.rows for j in self.cols]

    def overlapping(self):
        """Whether an input element can belong to more than one window."""
        return self.k[0] > self.s[0] or self.k[1] > self.s[1]


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


def max_pool(x, ksize, strides, padding):
    """TensorFlow's MaxPool of NHWC `x` (see the module docstring)."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    loop = _compiled("max_pool", x)
    if loop is not None and geo.out_shape[1] and geo.out_shape[2]:
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
        for i, j in geo.positions():
            np.maximum(out, geo.view(xp, i, j), out=out)
        return out
    bits, xbits = out.view(_bits_dtype(x.dtype)), xp.view(_bits_dtype(x.dtype))
    for i, j in geo.positions():
        _select_bits(bits, geo.view(xbits, i, j), np.less(out, geo.view(xp, i, j)))
    return out


def _argmax(x, geo):
    """The window position (index i * KW + j) of each window's maximum, by
    the rule of TensorFlow's MaxPoolGrad: the first real element, then each
    later one that is greater. (N, OH, OW, C) int16."""
    flt = _is_float(x.dtype)
    xp = geo.pad(x, np.nan if flt else _lowest(x.dtype))
    cur = np.full(geo.out_shape, np.nan if flt else _lowest(x.dtype), x.dtype)
    idx = np.zeros(geo.out_shape, np.int16)
    bdt = _bits_dtype(x.dtype)
    have = np.zeros((1, geo.oh, geo.ow, 1), bool)
    for i, j in geo.positions():
        v = geo.view(xp, i, j)
        take = np.less(cur, v)
        valid = geo.valid(i, j)
        first = valid & ~have
        if first.any():
            take |= first
            have |= valid
        if flt:
            _select_bits(cur.view(bdt), geo.view(xp.view(bdt), i, j), take)
        else:
            np.maximum(cur, v, out=cur)
        p = i * geo.k[1] + j
        if p:   # positions grow, so the last taken is the largest index taken
            np.maximum(idx, np.multiply(take, np.int16(p), dtype=np.int16), out=idx)
    return idx


def max_pool_grad(x, grad, ksize, strides, padding):
    """TensorFlow's MaxPoolGrad: each window's gradient goes to its maximum."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    n, h, w, c = x.shape
    dx = np.zeros((n, h + geo.ph0 + geo.ph1, w + geo.pw0 + geo.pw1, c), grad.dtype)
    if dx.size == 0 or grad.size == 0:
        return dx[:, geo.ph0:geo.ph0 + h, geo.pw0:geo.pw0 + w]
    loop = _compiled("max_pool_grad", x)
    if loop is not None and grad.dtype == np.float32:
        out = np.zeros(x.shape, np.float32)
        loop(np.ascontiguousarray(x), np.ascontiguousarray(grad), out, *_window_args(geo))
        return out
    idx = _argmax(x, geo)
    bdt = _bits_dtype(grad.dtype)
    gbits = np.ascontiguousarray(grad).view(bdt)
    overlap = geo.overlapping()
    part = np.empty(geo.out_shape, grad.dtype) if overlap else None
    for i, j in reversed(geo.positions()):     # the windows' order at each input
        mask = np.negative(np.equal(idx, i * geo.k[1] + j).view(np.int8))
        if overlap:
            np.bitwise_and(gbits, mask, out=part.view(bdt), casting="unsafe")
            target = geo.view(dx, i, j)
            np.add(target, part, out=target)
        else:     # each input in at most one window: write, no adding
            np.bitwise_and(gbits, mask, out=geo.view(dx.view(bdt), i, j), casting="unsafe")
    return dx[:, geo.ph0:geo.ph0 + h, geo.pw0:geo.pw0 + w]


def _counts(geo, dtype):
    """(1, OH, OW, 1): the number of real elements of each window."""
    rows = sum(geo._axis_valid(0, i).astype(np.int64) for i in range(geo.k[0]))
    cols = sum(geo._axis_valid(1, j).astype(np.int64) for j in range(geo.k[1]))
    return (rows[:, None] * cols[None, :])[None, :, :, None]


def avg_pool(x, ksize, strides, padding):
    """TensorFlow's AvgPool: each window's real elements added in order from
    0, divided by their count."""
    geo = _Geometry(x.shape, ksize, strides, padding)
    out = np.zeros(geo.out_shape, x.dtype)
    if out.size == 0 or x.size == 0:
        return out
    loop = _compiled("avg_pool", x)
    if loop is not None:
        loop(np.ascontiguousarray(x), out, *_window_args(geo))
        return out
    xp = geo.pad(x, 0)
    for i, j in geo.positions():
        np.add(out, geo.view(xp, i, j), out=out)
    counts = _counts(geo, x.dtype)
    return np.divide(out, counts.astype(x.dtype), out=out)


def avg_pool_grad(in_shape, grad, ksize, strides, padding):
    """TensorFlow's AvgPoolGrad: each window's gradient divided by its count
    of real elements, added to those elements in window order."""
    geo = _Geometry(in_shape, ksize, strides, padding)
    n, h, w, c = in_shape
    dx = np.zeros((n, h + geo.ph0 + geo.ph1, w + geo.pw0 + geo.pw1, c), grad.dtype)
    if dx.size == 0 or grad.size == 0:
        return dx[:, geo.ph0:geo.ph0 + h, geo.pw0:geo.pw0 + w]
    loop = _compiled("avg_pool_grad", grad)
    if loop is not None:
        out = np.zeros(in_shape, np.float32)
        loop(np.ascontiguousarray(grad), out, *_window_args(geo))
        return out
    share = grad / _counts(geo, grad.dtype).astype(grad.dtype)
    # oneDNN's order at each input: window rows in order, columns in reverse.
    for i, j in sorted(geo.positions(), key=lambda p: (-p[0], p[1])):
        target = geo.view(dx, i, j)
        np.add(target, share, out=target)
    # Positions that are padding for some windows received those windows'
    # shares too: they are cut off with the padding here.
    return dx[:, geo.ph0:geo.ph0 + h, geo.pw0:geo.pw0 + w]
