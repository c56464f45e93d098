"""The geometry and data movement that every convolution shares, over any
number of spatial axes (1-D is run as 2-D, as TensorFlow does; 2-D and 3-D
convolutions call these directly): output sizes and paddings, the input
windows as a strided view, im2col (the windows as one matrix for one GEMM),
and the per-filter-offset products of the input gradient.

Layouts are channels-last: input (N, *spatial, C), filter (*K, C, O);
`strides` and `dilations` are TensorFlow's full attribute lists (1 for the
batch and channel axes). TensorFlow's padding rules: SAME pads
`total // 2` before and the rest after.
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...framework import errors
from ..kernels import xla_gemm

__all__ = ["out_and_pads", "geometry", "pad", "offset_view", "windows", "im2col", "im2col_t",
           "backprop_input", "offsets", "scatter_windows", "check_backprop"]


def out_and_pads(size, k, stride, dilation, padding, explicit=None):
    """(output size, pad before, pad after) along one spatial axis."""
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = explicit if explicit is not None else (0, 0)
    span = size + before + after - eff
    return (span // stride + 1 if span >= 0 else 0), before, after


def geometry(shape, k, strides, dilations, padding, explicit_paddings=()):
    """Per spatial axis: (output size, pad before, pad after), for input
    `shape` (N, *spatial, C) and filter spatial sizes `k`."""
    nd = len(k)
    explicit = None
    if padding == "EXPLICIT":
        explicit = [explicit_paddings[2 * a:2 * a + 2] for a in range(1, nd + 1)]
    return [out_and_pads(shape[1 + a], k[a], strides[1 + a], dilations[1 + a], padding,
                         explicit[a] if explicit else None) for a in range(nd)]


def check_backprop(label, in_shape, filter_shape, out_shape, geo, strides, dilations):
    """TensorFlow's checks of a convolution gradient's operands
    (ConvBackpropComputeDimensionsV2), with its messages under `label`
    ("Conv2DCustomBackpropInput", ...): batch sizes, depths, and each spatial
    size of `out_backprop` against the one the forward convolution gives."""
    def fail(msg):
        return errors.InvalidArgumentError(None, None, f"{label}: {msg}")
    if in_shape[0] != out_shape[0]:
        raise fail(f"input and out_backprop must have the same batch size. Input batch: "
                   f"{in_shape[0]}, outbackprop batch: {out_shape[0]}, batch_dim: 0")
    if filter_shape[-2] == 0 or in_shape[-1] % filter_shape[-2]:
        raise fail("input depth must be evenly divisible by filter depth")
    if filter_shape[-1] != out_shape[-1]:
        raise fail("filter and out_backprop must have the same out_depth")
    for a, (o, _, _) in enumerate(geo):
        if out_shape[1 + a] != o:
            raise fail(f"Size of out_backprop doesn't match computed: actual = "
                       f"{out_shape[1 + a]}, computed = {o} spatial_dim: {1 + a} input: "
                       f"{in_shape[1 + a]} filter: {filter_shape[a]} output: "
                       f"{out_shape[1 + a]} stride: {strides[1 + a]} dilation: "
                       f"{dilations[1 + a]}")


def pad(x, geo, fill=0):
    """`x` padded on its spatial axes as `geo` says (no copy when none).
    (A filled array and one slice copy: np.pad's own Python took ~30 us,
    as long as the copy of a 100 KB activation.)"""
    if not any(b or a for _, b, a in geo):
        return x
    shape = (x.shape[0],) + tuple(x.shape[1 + i] + b + a for i, (_, b, a) in
                                  enumerate(geo)) + (x.shape[-1],)
    out = np.full(shape, fill, x.dtype) if fill else np.zeros(shape, x.dtype)
    out[(slice(None),) + tuple(slice(b, b + x.shape[1 + i]) for i, (_, b, _) in
                               enumerate(geo))] = x
    return out


def offsets(k):
    """Every filter offset (a tuple per spatial axis), row-major."""
    return list(np.ndindex(*k))


def offset_view(xp, offset, strides, dilations, geo):
    """The (N, *out, C) strided view of padded `xp` read by filter offset
    `offset` at every output position."""
    idx = [slice(None)]
    for a, (o, _, _) in enumerate(geo):
        s, start = strides[1 + a], offset[a] * dilations[1 + a]
        idx.append(slice(start, start + (o - 1) * s + 1, s))
    return xp[tuple(idx) + (slice(None),)]


def windows(x, k, strides, dilations, geo, fill=0):
    """The input window of every output position as a view:
    (N, *out, C, *K)."""
    nd = len(k)
    xp = pad(x, geo, fill)
    eff = [(k[a] - 1) * dilations[1 + a] + 1 for a in range(nd)]
    if any(xp.shape[1 + a] < eff[a] for a in range(nd)):
        return np.zeros((x.shape[0],) + (0,) * nd + (x.shape[-1],) + tuple(k), x.dtype)
    w = sliding_window_view(xp, eff, axis=tuple(range(1, nd + 1)))
    idx = (slice(None),) + tuple(slice(None, geo[a][0] * strides[1 + a], strides[1 + a])
                                 for a in range(nd)) + (slice(None),) + tuple(
        slice(None, None, dilations[1 + a]) for a in range(nd))
    return w[idx]


def im2col(x, k, strides, dilations, geo):
    """The windows as one (N*prod(out), prod(K)*C) matrix and the leading
    shape (N, *out): a (*K, C, O) filter is already the matching
    (prod(K)*C, O) matrix. Many channels: C-contiguous, rows copying runs of
    C contiguous values. Few: the transpose of a C-contiguous
    (prod(K)*C, N*prod(out)) matrix (`im2col_t`), whose copies run along
    the images' rows (the filter gradient's product then reads it as is)."""
    nd = len(k)
    outs = tuple(o for o, _, _ in geo)
    if x.shape[-1] < 16 and all(outs):
        return im2col_t(x, k, strides, dilations, geo).T, (x.shape[0],) + outs
    win = windows(x, k, strides, dilations, geo)
    perm = tuple(range(1 + nd)) + tuple(range(2 + nd, 2 + 2 * nd)) + (1 + nd,)
    win = win.transpose(perm)
    lead = win.shape[:1 + nd]
    return np.ascontiguousarray(win).reshape(int(np.prod(lead)), -1), lead


def im2col_t(x, k, strides, dilations, geo):
    """im2col's matrix transposed, C-contiguous: (prod(K)*C, N*prod(out)),
    row (offset, c) the channel's values read by that filter offset at every
    output position. The padded input is made channels-first once, so each
    row is one strided block copy (a gather of C-value runs, or copies into
    rows prod(K)*C apart, were 2-4x slower with few channels: 32 images of
    28x28x3, 3x3 filter: 1.6 -> 0.45 ms)."""
    nd = len(k)
    n, c = x.shape[0], x.shape[-1]
    outs = tuple(o for o, _, _ in geo)
    xp = pad(x, geo)
    first = np.ascontiguousarray(np.moveaxis(xp, -1, 0)) if c > 1 else xp[..., 0]
    cols = np.empty(tuple(k) + (c, n) + outs, x.dtype)
    for off in offsets(k):
        idx = [slice(None)] * (2 if c > 1 else 1)
        for a, (o, _, _) in enumerate(geo):
            s, start = strides[1 + a], off[a] * dilations[1 + a]
            idx.append(slice(start, start + (o - 1) * s + 1, s))
        cols[off] = first[tuple(idx)] if c > 1 else first[tuple(idx)][None]
    return cols.reshape(int(np.prod(k)) * c, -1)


def backprop_input(in_shape, filter, dy, strides, dilations, geo):
    """The input gradient of a convolution of an `in_shape` input with a
    (*K, C, O) `filter`, given the output gradient `dy`: one product per
    filter offset, each added into its strided view of the (padded) input
    gradient, so no window-sized temporary and no scatter."""
    nd = len(geo)
    o = filter.shape[-1]
    padded = (in_shape[0],) + tuple(in_shape[1 + a] + geo[a][1] + geo[a][2]
                                    for a in range(nd)) + (in_shape[-1],)
    out = np.zeros(padded, dy.dtype)
    crop = (slice(None),) + tuple(slice(geo[a][1], geo[a][1] + in_shape[1 + a])
                                  for a in range(nd)) + (slice(None),)
    if out.size == 0 or dy.size == 0:
        return out[crop]
    flat = dy.reshape(-1, o)
    for off in offsets(filter.shape[:nd]):
        target = offset_view(out, off, strides, dilations, geo)
        part = xla_gemm.matmul(flat, filter[off].T).reshape(target.shape)
        np.add(target, part, out=target, casting="unsafe")
    return out[crop]


def scatter_windows(cols, in_shape, k, strides, dilations, geo):
    """Adds each window's values back into an input-shaped array (the
    transpose of `windows`); `cols` is (N, *out, *K, C)."""
    nd = len(k)
    padded = (in_shape[0],) + tuple(in_shape[1 + a] + geo[a][1] + geo[a][2]
                                    for a in range(nd)) + (in_shape[-1],)
    out = np.zeros(padded, cols.dtype)
    lead = (slice(None),) * (1 + nd)
    for off in offsets(k):
        target = offset_view(out, off, strides, dilations, geo)
        target += cols[lead + off]
    return out[(slice(None),) + tuple(slice(geo[a][1], geo[a][1] + in_shape[1 + a])
                                      for a in range(nd))]
