"""Image resizing: `tf.image.resize` and the resize ops it is built on
(ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea; the
sampling-kernel op ScaleAndTranslate is in image_scale_translate.py) with
their gradient ops.

The kernels reproduce TensorFlow's CPU kernels' float32 arithmetic in the
same order (sampling positions, interpolation weights and sums), so results
are bit-identical to TensorFlow's for float32. They are vectorised over the
output positions; only loops over the few taps of a filter remain in Python.
Gradient kernels add each contribution with `np.add.at`, which adds in index
order, the order of TensorFlow's loops.

The same kernels are the ops' XLA lowerings: sampling positions and weights
depend on the static sizes only (NumPy tables), and the gathers, sums and
scatter-adds apply as well to JAX arrays (`_add_at`, `_where` pick the
array module).
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from .image_scale_translate import scale_and_translate
from .resize_common import _F32, _RESIZE_TYPES, _dims, _like_infer, _resize_infer, _sizes
from ..core.constant_ops import zeros
from ..core.creation_ops import name_scope
from ..core.dim_ops import expand_dims, squeeze
from ..core.join_ops import stack
from ..core.math_ops import cast, minimum, multiply, truediv
from ..core.shape_ops import shape
from ..core.slicing import strided_slice
from ..core.unary_ops import round as round_

__all__ = ["resize", "ResizeMethod", "resize_bilinear", "resize_nearest_neighbor",
           "resize_bicubic", "resize_area"]

_RESIZE_GRAD_TYPES = (D.float32, D.bfloat16, D.float16, D.float64)


# --- shared geometry -----------------------------------------------------------------

def _resize_scale(in_size, out_size, align_corners):
    """Input pixels per output pixel, in float32 as TensorFlow computes it."""
    if align_corners and out_size > 1:
        return _F32(in_size - 1) / _F32(out_size - 1)
    return _F32(in_size) / _F32(out_size)


def _source(out_size, scale, half_pixel, offset=True):
    """The (float32) input coordinate of each output pixel centre; the
    nearest-neighbour variant (`offset=False`) keeps the +0.5."""
    i = np.arange(out_size, dtype=_F32)
    if not half_pixel:
        return i * scale
    src = (i + _F32(0.5)) * scale
    return src - _F32(0.5) if offset else src


def _validate(op, images, size, align_corners, half_pixel_centers):
    """The checks of TensorFlow's resize kernels; returns (out_h, out_w)."""
    if half_pixel_centers and align_corners:
        raise U.op_error(op, "If half_pixel_centers is True, align_corners must be False.")
    if images.ndim != 4:
        raise U.op_error(op, f"input must be 4-dimensional{_dims(images.shape)}")
    oh, ow = _sizes(op, size)
    if oh <= 0 or ow <= 0:
        raise U.op_error(op, "output dimensions must be positive")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise U.op_error(op, "input image must be of non-zero size")
    return oh, ow


def _add_at(shape, dtype, ys, xs, values):
    """Zeros of `shape` with values[n, i, j, k, c] added at [n, ys[i,j,k],
    xs[i,j,k], c], in index order (a scatter-add, for a JAX array)."""
    if not isinstance(values, (np.ndarray, np.generic)):
        return XL.jnp.zeros(shape, dtype).at[:, ys, xs].add(values)
    out = np.zeros(shape, dtype)
    np.add.at(out, (slice(None), ys, xs), values)
    return out


def _where(cond, a, b):
    """`np.where`, or `jnp.where` when a value is a JAX array."""
    if isinstance(a, (np.ndarray, np.generic)) and isinstance(b, (np.ndarray, np.generic)):
        return np.where(cond, a, b)
    return XL.jnp.where(cond, a, b)


# --- bilinear ------------------------------------------------------------------------

def _linear_taps(out_size, in_size, scale, half_pixel):
    """Per output position: lower and upper input index and the lerp weight."""
    src = _source(out_size, scale, half_pixel)
    floor = np.floor(src)
    lower = np.minimum(np.maximum(floor.astype(np.int64), 0), in_size - 1)
    upper = np.minimum(np.ceil(src).astype(np.int64), in_size - 1)
    return lower, np.maximum(upper, 0), src - floor


def _bilinear_kernel(images, size, align_corners=False, half_pixel_centers=False, T=None):
    oh, ow = _validate("ResizeBilinear", images, size, align_corners, half_pixel_centers)
    n, ih, iw, c = images.shape
    x = images.astype(_F32)
    if (oh, ow) == (ih, iw):
        return x
    y0, y1, wy = _linear_taps(oh, ih, _resize_scale(ih, oh, align_corners), half_pixel_centers)
    x0, x1, wx = _linear_taps(ow, iw, _resize_scale(iw, ow, align_corners), half_pixel_centers)
    wx = wx[:, None]
    top, bottom = x[:, y0], x[:, y1]
    tl, tr, bl, br = top[:, :, x0], top[:, :, x1], bottom[:, :, x0], bottom[:, :, x1]
    t = tl + (tr - tl) * wx
    b = bl + (br - bl) * wx
    return t + (b - t) * wy[:, None, None]


def _bilinear_grad_kernel(grads, original_image, align_corners=False, half_pixel_centers=False,
                          T=None):
    n, ih, iw, c = original_image.shape
    _, rh, rw, _ = grads.shape
    dt = original_image.dtype
    y0, y1, wy = _linear_taps(rh, ih, _resize_scale(ih, rh, align_corners), half_pixel_centers)
    x0, x1, wx = _linear_taps(rw, iw, _resize_scale(iw, rw, align_corners), half_pixel_centers)
    # Each contribution is computed in float32 and added in the image's dtype.
    iy, ix = _F32(1) - wy, _F32(1) - wx
    ys = np.stack([y0, y0, y1, y1], -1)[:, None, :]
    xs = np.stack([x0, x1, x0, x1], -1)[None, :, :]
    ys, xs = np.broadcast_arrays(ys, xs)
    fy = np.stack([iy, iy, wy, wy], -1)[:, None, :, None]
    fx = np.stack([ix, wx, ix, wx], -1)[None, :, :, None]
    vals = grads.astype(_F32)[:, :, :, None, :] * fy * fx
    return _add_at((n, ih, iw, c), dt, ys, xs, vals.astype(dt))


# --- nearest neighbour ---------------------------------------------------------------

def _nearest_index(out_size, in_size, scale, align_corners, half_pixel):
    src = _source(out_size, scale, half_pixel, offset=False)
    floor = np.floor(src)
    # roundf rounds halves away from zero (the coordinates are never negative).
    idx = floor + (src - floor >= 0.5) if align_corners else floor
    idx = np.minimum(idx.astype(np.int64), in_size - 1)
    return np.maximum(idx, 0) if half_pixel else idx


def _nearest_kernel(images, size, align_corners=False, half_pixel_centers=False, T=None):
    oh, ow = _validate("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers)
    n, ih, iw, c = images.shape
    ys = _nearest_index(oh, ih, _resize_scale(ih, oh, align_corners), align_corners,
                        half_pixel_centers)
    xs = _nearest_index(ow, iw, _resize_scale(iw, ow, align_corners), align_corners,
                        half_pixel_centers)
    return images[:, ys][:, :, xs]


def _nearest_grad_kernel(grads, size, align_corners=False, half_pixel_centers=False, T=None):
    op = "ResizeNearestNeighborGrad"
    if half_pixel_centers and align_corners:
        raise U.op_error(op, "If half_pixel_centers is True, align_corners must be False.")
    if grads.ndim != 4:
        raise U.op_error(op, f"input must be 4-dimensional{_dims(grads.shape)}")
    ih, iw = _sizes(op, size)
    n, rh, rw, c = grads.shape
    ys = _nearest_index(rh, ih, _resize_scale(ih, rh, align_corners), align_corners,
                        half_pixel_centers)
    xs = _nearest_index(rw, iw, _resize_scale(iw, rw, align_corners), align_corners,
                        half_pixel_centers)
    ys, xs = np.broadcast_arrays(ys[:, None], xs[None, :])
    return _add_at((n, ih, iw, c), grads.dtype, ys, xs, grads)


def _nearest_grad_infer(inputs, attrs):
    g = inputs[0]
    c = U.constant_value(inputs[1])
    hw = [int(v) for v in np.reshape(c, -1)] if c is not None else [None, None]
    dims = [None] * 4 if g.shape.rank is None else list(g.shape)
    return [(TensorShape([dims[0]] + hw + [dims[3]]), g.dtype)]


# --- bicubic -------------------------------------------------------------------------

_TABLE_SIZE = 1024


def _coeffs_table(a):
    """TensorFlow's table of cubic-convolution weights, computed in double
    and stored as float, at 1/1024 steps."""
    x = (np.arange(_TABLE_SIZE + 1) * 1.0 / _TABLE_SIZE).astype(_F32)
    xd = x.astype(np.float64)
    near = (((a + 2) * xd - (a + 3)) * xd * xd + 1).astype(_F32)
    x1 = (x + _F32(1)).astype(np.float64)
    far = (((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a).astype(_F32)
    return near, far


_TABLES = {}


def _cubic_taps(out_size, in_size, scale, half_pixel):
    """Per output position: 4 input indices and 4 float32 weights, shaped
    (4, out_size). Half-pixel centres use Keys' cubic (a=-0.5) with weights
    outside the image dropped and the rest renormalised; the legacy mode
    uses a=-0.75 and repeats edge pixels."""
    a = -0.5 if half_pixel else -0.75
    if a not in _TABLES:
        _TABLES[a] = _coeffs_table(a)
    near, far = _TABLES[a]
    src = _source(out_size, scale, half_pixel)
    loc = np.floor(src).astype(np.int64)
    delta = src - loc.astype(_F32)
    off = np.rint(delta * _F32(_TABLE_SIZE)).astype(np.int64)
    raw = np.stack([loc - 1, loc, loc + 1, loc + 2])
    idx = np.clip(raw, 0, in_size - 1)
    w = np.stack([far[off], near[off], near[_TABLE_SIZE - off], far[_TABLE_SIZE - off]])
    if half_pixel:
        w = np.where(idx == raw, w, _F32(0))
        total = ((w[0] + w[1]) + w[2]) + w[3]
        ok = np.abs(total) >= _F32(1000) * np.finfo(_F32).tiny
        inv = _F32(1) / np.where(ok, total, _F32(1))
        w = np.where(ok, w * inv, w)
    return idx, w


def _cubic_sum(parts):
    return ((parts[0] + parts[1]) + parts[2]) + parts[3]


def _bicubic_kernel(images, size, align_corners=False, half_pixel_centers=False, T=None):
    oh, ow = _validate("ResizeBicubic", images, size, align_corners, half_pixel_centers)
    n, ih, iw, c = images.shape
    yi, wy = _cubic_taps(oh, ih, _resize_scale(ih, oh, align_corners), half_pixel_centers)
    xi, wx = _cubic_taps(ow, iw, _resize_scale(iw, ow, align_corners), half_pixel_centers)
    x = images.astype(_F32)
    # Columns first, then rows, as TensorFlow's cached interpolation does.
    cols = _cubic_sum([x[:, yi[k]] * wy[k][:, None, None] for k in range(4)])
    return _cubic_sum([cols[:, :, xi[k]] * wx[k][:, None] for k in range(4)])


def _bicubic_grad_kernel(grads, original_image, align_corners=False, half_pixel_centers=False,
                         T=None):
    n, ih, iw, c = original_image.shape
    _, rh, rw, _ = grads.shape
    dt = original_image.dtype
    yi, wy = _cubic_taps(rh, ih, _resize_scale(ih, rh, align_corners), half_pixel_centers)
    xi, wx = _cubic_taps(rw, iw, _resize_scale(iw, rw, align_corners), half_pixel_centers)
    # Contributions in TensorFlow's order: row tap major, column tap minor.
    ys = np.broadcast_to(yi.T[:, None, :, None], (rh, rw, 4, 4)).reshape(rh, rw, 16)
    xs = np.broadcast_to(xi.T[None, :, None, :], (rh, rw, 4, 4)).reshape(rh, rw, 16)
    fy = np.broadcast_to(wy.T[:, None, :, None], (rh, rw, 4, 4)).reshape(rh, rw, 16, 1)
    fx = np.broadcast_to(wx.T[None, :, None, :], (rh, rw, 4, 4)).reshape(rh, rw, 16, 1)
    g = grads.astype(np.promote_types(dt, _F32))[:, :, :, None, :]
    return _add_at((n, ih, iw, c), dt, ys, xs, (g * fy * fx).astype(dt))


# --- area ----------------------------------------------------------------------------

def _area_spans(out_size, in_size, scale):
    """Per output position: first input index, the number of input pixels
    it covers, and each one's coverage, shaped (span, out_size)."""
    i = np.arange(out_size)
    lo = i.astype(_F32) * scale
    hi = (i + 1).astype(_F32) * scale
    start = np.floor(lo).astype(np.int64)
    end = np.ceil(hi).astype(np.int64)
    span = int((end - start).max())
    k = np.arange(span)[:, None]
    v = start[None, :] + k
    vf, v1 = v.astype(_F32), (v + 1).astype(_F32)
    cover = np.where(vf < lo, np.where(v1 > hi, scale, v1 - lo),
                     np.where(v1 > hi, hi - vf, _F32(1))).astype(_F32)
    return start, end, cover, k


def _area_kernel(images, size, align_corners=False, T=None):
    oh, ow = _validate("ResizeArea", images, size, align_corners, False)
    n, ih, iw, c = images.shape
    hs, ws = _resize_scale(ih, oh, align_corners), _resize_scale(iw, ow, align_corners)
    scale = _F32(1.0 / np.float64(hs * ws))
    x = images.astype(_F32)
    # Each input row's weighted sum over every output column's span: the
    # first and last pixels weighted by their coverage, whole ones added.
    xs, xe, xcov, xk = _area_spans(ow, iw, ws)
    xlen = xe - xs
    rows = None
    for k in range(xcov.shape[0]):
        idx = np.clip(xs + k, 0, iw - 1)
        px = x[:, :, idx]
        if k == 0:
            rows = px * xcov[0][:, None]
            continue
        last = (k == xlen - 1)[:, None]
        term = _where(last, px * xcov[k][:, None], px)
        rows = _where((k < xlen)[:, None], rows + term, rows)
    ys, ye, ycov, _ = _area_spans(oh, ih, hs)
    total = np.zeros((n, oh, ow, c), _F32)
    for k in range(ycov.shape[0]):
        idx = np.clip(ys + k, 0, ih - 1)
        inside = (ys + k < ye)[:, None, None]
        total = _where(inside, total + rows[:, idx] * ycov[k][:, None, None], total)
    return total * scale


# --- registry ------------------------------------------------------------------------

def _flags(op):
    return {"align_corners": op.get_attr("align_corners"),
            "half_pixel_centers": op.get_attr("half_pixel_centers")}


def _bilinear_grad(op, grad):
    return [apply(_ResizeBilinearGrad, [grad, op.inputs[0]], _flags(op)), None]


def _nearest_grad(op, grad):
    image = op.inputs[0]
    hw = image.shape[1:3]
    size = convert_to_tensor(list(hw), D.int32) if hw.is_fully_defined() else \
        strided_slice(shape(image, out_type="int32"), [1], [3], [1])
    return [apply(_ResizeNearestNeighborGrad, [grad, size], _flags(op)), None]


def _bicubic_grad(op, grad):
    if op.inputs[0].dtype not in (D.float32, D.float64):
        return [None, None]
    return [apply(_ResizeBicubicGrad, [grad, op.inputs[0]], _flags(op)), None]


_ResizeBilinear = register("ResizeBilinear", _bilinear_kernel, _resize_infer(D.float32),
                           _bilinear_grad, allowed=_RESIZE_TYPES)
_ResizeBilinearGrad = register("ResizeBilinearGrad", _bilinear_grad_kernel, _like_infer(1),
                               allowed=_RESIZE_GRAD_TYPES)
_ResizeNearestNeighbor = register("ResizeNearestNeighbor", _nearest_kernel, _resize_infer(),
                                  _nearest_grad, allowed=_RESIZE_TYPES)
_ResizeNearestNeighborGrad = register("ResizeNearestNeighborGrad", _nearest_grad_kernel,
                                      _nearest_grad_infer)
_ResizeBicubic = register("ResizeBicubic", _bicubic_kernel, _resize_infer(D.float32),
                          _bicubic_grad, allowed=_RESIZE_TYPES)
_ResizeBicubicGrad = register("ResizeBicubicGrad", _bicubic_grad_kernel, _like_infer(1),
                              allowed=_RESIZE_GRAD_TYPES)
# No gradient, as in TensorFlow.
_ResizeArea = register("ResizeArea", _area_kernel, _resize_infer(D.float32),
                       allowed=_RESIZE_TYPES)


def _lowered(kernel, size_input=None):
    """The XLA rule of a resize op: its kernel on the JAX image (or
    gradient), with the size input (`size_input`) known at compile time."""
    def rule(ctx, op, *values):
        values = list(values)
        if size_input is not None:
            values[size_input] = ctx.static(op, size_input, values[size_input])
        values[0] = XL.jnp.asarray(values[0])
        attrs = {k: v for k, v in op.attrs.items() if not k.startswith("_")}
        return kernel(*values, **attrs)
    return rule


XL.set_lowerings({
    "ResizeBilinear": _lowered(_bilinear_kernel, 1),
    "ResizeBilinearGrad": _lowered(_bilinear_grad_kernel),
    "ResizeNearestNeighbor": _lowered(_nearest_kernel, 1),
    "ResizeNearestNeighborGrad": _lowered(_nearest_grad_kernel, 1),
    "ResizeBicubic": _lowered(_bicubic_kernel, 1),
    "ResizeBicubicGrad": _lowered(_bicubic_grad_kernel),
    "ResizeArea": _lowered(_area_kernel, 1)})
def _resize_op(opdef, images, size, align_corners, half_pixel_centers, name):
    images = convert_to_tensor(images, name="images")
    U.check_dtype(opdef.name, images, _RESIZE_TYPES, param="images")
    size = convert_to_tensor(size, dtype=D.int32, name="size")
    attrs = {"align_corners": bool(align_corners)}
    if opdef is not _ResizeArea:
        attrs["half_pixel_centers"] = bool(half_pixel_centers)
    return apply(opdef, [images, size], attrs, name=name or opdef.name)


@export("compat.v1.image.resize_bilinear")
def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """TF1's bilinear resize, with the legacy corner flags."""
    return _resize_op(_ResizeBilinear, images, size, align_corners, half_pixel_centers, name)


@export("compat.v1.image.resize_nearest_neighbor")
def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    """TF1's nearest-neighbour resize, with the legacy corner flags."""
    return _resize_op(_ResizeNearestNeighbor, images, size, align_corners, half_pixel_centers,
                      name)


@export("compat.v1.image.resize_bicubic")
def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """TF1's bicubic resize, with the legacy corner flags."""
    return _resize_op(_ResizeBicubic, images, size, align_corners, half_pixel_centers, name)


@export("compat.v1.image.resize_area")
def resize_area(images, size, align_corners=False, name=None):
    """TF1's area resize."""
    return _resize_op(_ResizeArea, images, size, align_corners, False, name)


# --- tf.image.resize -----------------------------------------------------------------

class ResizeMethod:
    """The `method` names `tf.image.resize` accepts."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


export("image.ResizeMethod")(ResizeMethod)

_SCALE_AND_TRANSLATE = (ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN,
                        ResizeMethod.MITCHELLCUBIC)


def _resize_fn(method, antialias):
    def with_kernel(images, size, kernel):
        hw = strided_slice(shape(images, out_type="int32"), [1], [3], [1])
        scale = truediv(cast(size, D.float32), cast(hw, D.float32))
        return scale_and_translate(images, size, scale, zeros([2]), kernel_type=kernel,
                                   antialias=antialias)

    def fn(images, size):
        if method == ResizeMethod.BILINEAR:
            if antialias:
                return with_kernel(images, size, "triangle")
            return _resize_op(_ResizeBilinear, images, size, False, True, None)
        if method == ResizeMethod.NEAREST_NEIGHBOR:
            return _resize_op(_ResizeNearestNeighbor, images, size, False, True, None)
        if method == ResizeMethod.BICUBIC:
            if antialias:
                return with_kernel(images, size, "keyscubic")
            return _resize_op(_ResizeBicubic, images, size, False, True, None)
        if method == ResizeMethod.AREA:
            return _resize_op(_ResizeArea, images, size, False, False, None)
        return with_kernel(images, size, method)
    return fn


@export("image.resize")
def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """Resizes 3-D (HWC) or 4-D (NHWC) `images` to `size` = [height, width].

    Bilinear, bicubic, area and the sampling-kernel methods give float32;
    nearest keeps the input dtype. `preserve_aspect_ratio` scales both sides
    by the same factor so the result fits in `size`; `antialias` low-pass
    filters when shrinking (bilinear, bicubic and the kernel methods).

    Raises:
      ValueError: for images of another rank, a `size` that is not two
        int32 values, or an unknown method.
    """
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR, ResizeMethod.BICUBIC,
                      ResizeMethod.AREA) + _SCALE_AND_TRANSLATE:
        raise ValueError(f"Resize method is not implemented: {method}")
    with name_scope(name or "resize"):
        return _resize_common(images, _resize_fn(method, antialias), size,
                              preserve_aspect_ratio)


def _resize_common(images, resize_fn, size, preserve_aspect_ratio):
    images = convert_to_tensor(images, name="images")
    rank = images.shape.rank
    if rank is None:
        raise ValueError("'images' contains no shape.")
    if rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    if rank == 3:
        images = expand_dims(images, 0)
    try:
        size = convert_to_tensor(size, D.int32, name="size")
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if not size.shape.is_compatible_with([2]):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if preserve_aspect_ratio:
        h, w = _spatial_dims(images)
        fh, fw = cast(h, D.float32), cast(w, D.float32)
        factor = minimum(truediv(cast(size[0], D.float32), fh),
                         truediv(cast(size[1], D.float32), fw))
        size = stack([cast(round_(multiply(factor, fh)), D.int32),
                      cast(round_(multiply(factor, fw)), D.int32)])
    out = resize_fn(images, size)
    return squeeze(out, axis=[0]) if rank == 3 else out


def _spatial_dims(images):
    """Height and width of NHWC `images`: ints when static, else tensors."""
    dyn = None
    dims = []
    for a in (1, 2):
        d = images.shape[a]
        if d is None:
            dyn = shape(images, out_type="int32") if dyn is None else dyn
            d = dyn[a]
        dims.append(d)
    return dims
