"""Winograd's minimal filtering F(2x2, 3x3) for 3x3, stride-1, undilated 2-D
convolutions (NHWC) and their two gradients: 16 matrix products of
(tiles, C) x (C, O) instead of one of (positions, 9 C) x (9 C, O), 2.25x
fewer multiplications, so about half the time of im2col and one GEMM on
large layers (Lavin and Gray, "Fast Algorithms for Convolutional Neural
Networks", 2015).

The output is cut into 2x2 tiles; each tile reads a 4x4 input tile (the
tiles overlap by two rows and columns). With

    B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]]
    G   = [[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]]
    A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]

a tile's output is A^T [(G g G^T) * (B^T d B)] A, the product taken per
(row, column) of the 4x4 transforms and summed over the input channels:
that sum is the GEMM. The transforms only add, subtract and halve, so
their rounding stays at the level of the sums' own (the F(2x2, 3x3)
error is about that of direct summation; larger tiles, F(4x4, 3x3), would
halve the GEMM again but lose digits to their 1/6 and 1/24 factors).

The gradients are Winograd too:
- input: a convolution of the output gradient with the filter turned by
  180 degrees and its in/out channels swapped (stride 1 only);
- filter: by the bilinear identity, dW = G^T [sum over tiles of
  (A E A^T) * (B^T D B)] G for the 2x2 output-gradient tiles E and the
  input tiles D: again 16 GEMMs, (C, tiles) x (tiles, O).

Every transform is a fixed sequence of whole-array additions (written out
below, the operands' order fixed), so the results do not depend on the
CPU beyond what the GEMMs' blocking does.

The transforms subtract inputs from each other, so an inf input gives NaN
where TensorFlow's direct summation gives +-inf, and two large finite
inputs (3e38 and -3e38) overflow to inf where the direct sums stay finite.
So conv, backprop_input and backprop_filter return None when a result is
not all finite, and the caller runs the direct path: an output is
finite exactly when no inf or NaN reaches it (F(2x2, 3x3)'s transforms
connect each input to the outputs whose windows hold it, as the direct sum
does), so the check costs one look at the result (the compiled output
transform's, or the filter gradient's few values), not a pass over inputs.

The transformed tiles are 4x the input (16 values per 2x2 output tile)
and the products 4x the output: a whole batch's would cost a training step
four times a layer's activations in temporaries (16 MB for a 2 MB ResNet
activation, where TensorFlow's oneDNN needs none). So the batch runs a few
images at a time (`_chunks`: about CHUNK_BYTES of tiles per GEMM, twice
that for the convolution and its input gradient; as fast as a whole
batch: the GEMMs keep hundreds of rows); the filter gradient adds the
chunks' products (its GEMMs' sums split by images, as BLAS splits them by
its blocks). The chunks run on the kernel threads
(threads.run_blas_chunks), each thread's GEMMs on one OpenBLAS thread
(held there for the op in the default mode, so the bits do not depend on
the spreading): 1.7x faster on two cores where a chunk's GEMMs are too
small for OpenBLAS's own threads to help (32 to 64 channels on 14x14
images: 0.90 -> 0.53 ms; TensorFlow 0.60).
"""
import numpy as np

from . import jit_nn
from ..kernels import threads as _threads
from ..kernels import xla_gemm

__all__ = ["usable", "pays_for", "conv", "backprop_input", "backprop_filter"]


class _NotFinite(Exception):
    """A chunk's output holds an inf or NaN: the layer takes the direct path."""


# The NumPy transforms meet inf and NaN silently: a result that holds one is
# thrown away (the direct path gives the layer's answer), so NumPy's
# overflow and invalid-value warnings would only be noise. A decorator, so
# that it holds on the kernel threads too.
_quiet = np.errstate(over="ignore", invalid="ignore")

# Below these sizes im2col and one GEMM are as fast (the 16 products are
# too small for BLAS to reach its speed, and the transforms cost more than
# they save); measured with OpenBLAS on one core. The NumPy transforms (twenty
# strided passes) pay off only from C * O = 4096 (64 x 64 channels), the
# compiled ones from 1024. The choice depends on the shapes and on whether
# the jit extra is installed and on, never on whether its loops have loaded
# yet (they give the NumPy transforms' bits), so a layer's bits do not
# change when they do.
MIN_CHANNELS = 16
MIN_CHANNEL_PRODUCT = 1024      # C * O, with the jit extra
MIN_CHANNEL_PRODUCT_NUMPY = 4096
MIN_TILES = 64
# The transformed tiles (or products) of one chunk of images: small enough
# to stay in the L2 cache between the transform and its GEMM.
CHUNK_BYTES = 1 << 20
# The convolution and its input gradient take chunks this many times larger:
# their GEMMs ((tiles, C) x (C, O)) gain more from longer products than
# they lose to the cache (two-core steps, settings alternated in one
# process: ResNet block 11.8 -> 11.6 ms, CNN 4.6 -> 4.4 ms at 2x; 4x
# was no better on the ResNet block), where the filter gradient's sums
# over tiles were slower on the CNN's 14x14 layers with larger chunks.
FORWARD_CHUNKS = 2
# The 16 products of a chunk have at most this many multiply-adds each:
# OpenBLAS's AVX-512 builds run products up to 100**3 through their
# small-matrix kernels, 1.3-1.5x faster on these shapes than its blocked
# GEMM (one thread, (tiles, 64) x (64, 64): 126-133 GFLOP/s up to 240 tiles,
# 85-96 from 256), and a chunk that small stays in the L2 cache from its
# transform to its product (ResNet block's 16x16x64 layers: 3 images a
# chunk instead of 8).
MAX_GEMM_WORK = 100 ** 3


def usable(x_shape, k, strides, dilations, dtype, out_channels, outs):
    """Whether F(2x2, 3x3) runs this 2-D convolution: a 3x3 filter, stride
    and dilation 1, float32/float64, enough channels and output tiles."""
    if tuple(k) != (3, 3) or dtype not in (np.float32, np.float64):
        return False
    if any(s != 1 for s in strides[1:3]) or any(d != 1 for d in dilations[1:3]):
        return False
    c = x_shape[-1]
    least = MIN_CHANNEL_PRODUCT if jit_nn.available() else MIN_CHANNEL_PRODUCT_NUMPY
    if min(c, out_channels) < MIN_CHANNELS or c * out_channels < least:
        return False
    tiles = x_shape[0] * -(-outs[0] // 2) * -(-outs[1] // 2)
    return tiles >= MIN_TILES


# Odd output sizes waste the tiles' last row or column: 7x7 outputs compute
# 8x8 (1.31x the work), and im2col was faster for all three ops (32 images
# of 7x7 with 128 channels: 1.7-1.9x). Above this ratio, im2col.
# (A rule that gave layers of at most 32 input channels an im2col filter
# gradient was faster measured alone, but made the CNN benchmark's step
# 0.8 ms slower once the transforms wrote position-major tiles: im2col's
# large matrix evicts what the step's next ops read.)
MAX_TILE_WASTE = 1.15


def pays_for(op, x_shape, outs):
    """Whether Winograd beats im2col for `op` ("forward", "input" or
    "filter") of a layer that `usable` accepts, with OpenBLAS's own threads
    (with RILLFLOW_BLAS_THREADS=kernels the chunks spread over the kernel
    threads, and Winograd always won). Decided by the shapes alone, so a
    layer's bits do not change from call to call."""
    if _threads.spreading():
        return True
    if op == "input":
        outs = tuple(x_shape[1:3])      # the input gradient is what the tiles cover
    th, tw = -(-outs[0] // 2), -(-outs[1] // 2)
    return 4 * th * tw <= MAX_TILE_WASTE * outs[0] * outs[1]


def _padded_tiles(x, before, outs):
    """`x` (N, H, W, C) placed in zeros so that the 4x4 input tiles of
    ceil(out / 2) x ceil(out / 2) output tiles, starting `before` rows and
    columns ahead of x, all lie inside: (N, 2 TH + 2, 2 TW + 2, C)."""
    n, h, w, c = x.shape
    th, tw = -(-outs[0] // 2), -(-outs[1] // 2)
    hp, wp = 2 * th + 2, 2 * tw + 2
    (ph, pw) = before
    xp = np.zeros((n, hp, wp, c), x.dtype)
    # Rows/columns of x that a tile reads (the rest only pads the last tiles).
    r0, r1 = max(0, -ph), min(h, hp - ph)
    q0, q1 = max(0, -pw), min(w, wp - pw)
    if r1 > r0 and q1 > q0:
        xp[:, ph + r0:ph + r1, pw + q0:pw + q1] = x[:, r0:r1, q0:q1]
    return xp, th, tw


@_quiet
def _input_transform(xp, th, tw):
    """B^T d B of every 4x4 input tile: (16, N * TH * TW, C), the 16 ordered
    (row, column) of the transform."""
    n, _, wp, c = xp.shape
    rows = np.empty((4, n, th, wp, c), xp.dtype)
    d = [xp[:, i:i + 2 * th:2] for i in range(4)]
    np.subtract(d[0], d[2], out=rows[0])
    np.add(d[1], d[2], out=rows[1])
    np.subtract(d[2], d[1], out=rows[2])
    np.subtract(d[1], d[3], out=rows[3])
    v = np.empty((4, 4, n, th, tw, c), xp.dtype)
    for a in range(4):
        e = [rows[a][:, :, j:j + 2 * tw:2] for j in range(4)]
        np.subtract(e[0], e[2], out=v[a, 0])
        np.add(e[1], e[2], out=v[a, 1])
        np.subtract(e[2], e[1], out=v[a, 2])
        np.subtract(e[1], e[3], out=v[a, 3])
    return v.reshape(16, n * th * tw, c)


@_quiet
def _filter_transform(g):
    """G g G^T of a (3, 3, C, O) filter: (16, C, O)."""
    def one(t):       # G applied along axis 0 of t (3, ...) -> (4, ...)
        s = t[0] + t[2]
        return np.stack([t[0], (s + t[1]) * 0.5, (s - t[1]) * 0.5, t[2]])
    u = one(g)                                   # (4, 3, C, O)
    u = one(u.transpose(1, 0, 2, 3))             # (4 cols, 4 rows, C, O)
    return np.ascontiguousarray(u.transpose(1, 0, 2, 3)).reshape(16, *g.shape[2:])


@_quiet
def _output_transform(m, n, th, tw, outs):
    """A^T m A of every tile's (16, O) products: (N, OH, OW, O)."""
    o = m.shape[-1]
    m = m.reshape(4, 4, n, th, tw, o)
    r0 = m[0] + m[1]
    r0 += m[2]
    r1 = m[1] - m[2]
    r1 -= m[3]
    y = np.empty((n, th, 2, tw, 2, o), m.dtype)
    for i, r in enumerate((r0, r1)):
        t = np.add(r[0], r[1], out=y[:, :, i, :, 0])
        t += r[2]
        t = np.subtract(r[1], r[2], out=y[:, :, i, :, 1])
        t -= r[3]
    y = y.reshape(n, 2 * th, 2 * tw, o)
    if (2 * th, 2 * tw) != tuple(outs):
        y = np.ascontiguousarray(y[:, :outs[0], :outs[1]])
    return y


def _loops(x):
    """The jit extra's transform loops for float32 `x`, or None."""
    if x.dtype != np.float32:
        return None
    return jit_nn.loops(x.size)


def _chunks(n, tiles_per_image, channels, itemsize, scale=1, gemm=None):
    """(first, end) image ranges of at most about `scale` x CHUNK_BYTES of
    transformed tiles (16 values per tile and channel) each, and, given the
    multiply-adds `gemm` one image adds to each of the 16 products, at most
    MAX_GEMM_WORK of them per product: an even number of ranges (where there
    is more than one) of sizes that differ by at most one image, so two
    threads get equal work (32 images cut 10 + 10 + 10 + 2 had one thread do
    20: the CNN's 14x14 convolution and its input gradient 1.7 -> 1.25 ms).
    Fixed by the shapes alone, so the compiled and the NumPy transforms cut
    the batch alike, whatever the threads."""
    step = max(1, scale * CHUNK_BYTES // max(1, 16 * tiles_per_image * channels * itemsize))
    if gemm:
        step = min(step, max(1, MAX_GEMM_WORK // gemm))
    k = -(-n // step)
    k = min(n, k + k % 2) if k > 1 else k
    if k == 0:
        return []
    bounds = [n * i // k for i in range(k + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def _tiles(x, before, th, tw, ks):
    """B^T d B of every input tile of `x`: (16, tiles, C), C-contiguous."""
    if ks is None:
        xp, _, _ = _padded_tiles(x, before, (2 * th, 2 * tw))
        return _input_transform(xp, th, tw)
    v = np.empty((16, x.shape[0] * th * tw, x.shape[-1]), x.dtype)
    ks["wino_input"](x, before[0], before[1], th, tw, v)
    return v


def _transformed_filter(g, dtype, ks):
    """G g G^T of a (3, 3, C, O) filter in `dtype`: (16, C, O)."""
    g = g.astype(dtype, copy=False)
    if ks is None:
        return _filter_transform(g)
    u = np.empty((16,) + g.shape[2:], dtype)
    ks["wino_filter"](np.ascontiguousarray(g), u)
    return u


def _untile(m, n, th, tw, outs, ks, out):
    """A^T m A: the (N, OH, OW, O) output of the tiles' products, written
    into `out`; raises _NotFinite if one of them is inf or NaN."""
    if ks is None:
        out[...] = _output_transform(m, n, th, tw, outs)
        finite = np.isfinite(out).all()
    else:
        finite = ks["wino_output"](m, th, tw, out)
    if not finite:
        raise _NotFinite


def _conv_transformed(x, g, before, outs):
    """The convolution of `x` with a (3, 3, C, O) filter `g`, the first
    output reading from `before` rows/columns ahead of x; a chunk of images
    at a time. None if an output is not finite."""
    ks = _loops(x)
    u = _transformed_filter(g, x.dtype, ks)
    n, o = x.shape[0], u.shape[-1]
    th, tw = -(-outs[0] // 2), -(-outs[1] // 2)
    y = np.empty((n,) + tuple(outs) + (o,), x.dtype)
    chunks = _chunks(n, th * tw, max(x.shape[-1], o), x.itemsize, FORWARD_CHUNKS,
                     th * tw * x.shape[-1] * o)

    def one(k):
        i, j = chunks[k]
        m = xla_gemm.matmul(_tiles(x[i:j], before, th, tw, ks), u)
        _untile(m, j - i, th, tw, outs, ks, y[i:j])
    try:
        _threads.run_blas_chunks(one, len(chunks))
    except _NotFinite:
        return None
    return y


def conv(x, filter, geo):
    """Conv2D of x (N, H, W, C) with a (3, 3, C, O) filter; `geo` is
    conv_geometry.geometry's [(out, pad before, pad after)] per axis.
    None where an output is not finite (the caller runs the direct path)."""
    return _conv_transformed(x, filter, (geo[0][1], geo[1][1]), (geo[0][0], geo[1][0]))


def backprop_input_usable(geo):
    """The input gradient is a convolution with padding 2 - pad before,
    which must not be negative."""
    return geo[0][1] <= 2 and geo[1][1] <= 2


def backprop_input(in_shape, filter, dy, geo):
    """Conv2DBackpropInput: dy convolved with the filter turned by 180
    degrees, in and out channels swapped; None as conv."""
    flipped = np.ascontiguousarray(filter[::-1, ::-1].transpose(0, 1, 3, 2))
    return _conv_transformed(dy, flipped, (2 - geo[0][1], 2 - geo[1][1]), tuple(in_shape[1:3]))


@_quiet
def _grad_tiles(dy, th, tw):
    """A e A^T of every 2x2 output-gradient tile (zeros past the edge):
    (16, N * TH * TW, O), with A = [[1, 0], [1, 1], [1, -1], [0, -1]]."""
    n, oh, ow, o = dy.shape
    if (oh, ow) != (2 * th, 2 * tw):
        e = np.zeros((n, 2 * th, 2 * tw, o), dy.dtype)
        e[:, :oh, :ow] = dy
        dy = e
    rows = np.empty((4, n, th, 2 * tw, o), dy.dtype)
    d0, d1 = dy[:, 0::2], dy[:, 1::2]
    rows[0] = d0
    np.add(d0, d1, out=rows[1])
    np.subtract(d0, d1, out=rows[2])
    np.negative(d1, out=rows[3])
    v = np.empty((4, 4, n, th, tw, o), dy.dtype)
    for a in range(4):
        e0, e1 = rows[a][:, :, 0::2], rows[a][:, :, 1::2]
        v[a, 0] = e0
        np.add(e0, e1, out=v[a, 1])
        np.subtract(e0, e1, out=v[a, 2])
        np.negative(e1, out=v[a, 3])
    return v.reshape(16, n * th * tw, o)


@_quiet
def backprop_filter(x, dy, geo):
    """Conv2DBackpropFilter: G^T [sum over tiles (A E A^T)(B^T D B)] G,
    a (3, 3, C, O) array; the sum over tiles a chunk of images at a time.
    None if a value is not finite (as conv)."""
    outs = (geo[0][0], geo[1][0])
    before = (geo[0][1], geo[1][1])
    th, tw = -(-outs[0] // 2), -(-outs[1] // 2)
    dy = dy.astype(x.dtype, copy=False)
    ks, ks_dy = _loops(x), _loops(dy)
    chunks = _chunks(x.shape[0], th * tw, max(x.shape[-1], dy.shape[-1]), x.itemsize,
                     gemm=th * tw * x.shape[-1] * dy.shape[-1])

    def one(k):
        i, j = chunks[k]
        v = _tiles(x[i:j], before, th, tw, ks)
        if ks_dy is None:
            e = _grad_tiles(dy[i:j], th, tw)
        else:
            e = np.empty((16, v.shape[1], dy.shape[-1]), dy.dtype)
            ks_dy["wino_grad"](dy[i:j], th, tw, e)
        return xla_gemm.matmul(v.transpose(0, 2, 1), e)
    # The chunks' sums are added in chunk order, however they were spread.
    parts = _threads.run_blas_chunks(one, len(chunks))
    m = None
    for p in parts:
        if m is None:
            m = p
        else:
            m += p
    if ks is not None:
        w = np.empty((3, 3) + m.shape[1:], m.dtype)
        return w if ks["wino_filter_grad"](m, w) else None
    m = m.reshape(4, 4, x.shape[-1], dy.shape[-1])

    def one(t):       # G^T applied along axis 0 of t (4, ...) -> (3, ...)
        s = (t[1] + t[2]) * 0.5
        return np.stack([t[0] + s, (t[1] - t[2]) * 0.5, s + t[3]])
    w = one(m)                                   # (3, 4, C, O)
    w = one(w.transpose(1, 0, 2, 3))             # (3 cols, 3 rows, C, O)
    if not np.isfinite(w).all():
        return None
    return np.ascontiguousarray(w.transpose(1, 0, 2, 3))
