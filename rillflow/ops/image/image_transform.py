"""Projective transforms of images: the ImageProjectiveTransformV2 and V3 ops
(`tf.raw_ops` only; Keras' affine transforms and random rotations, zooms
and translations call V3) and their gradient.

Each output pixel (x, y) of image b reads the input at
`((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)`, `k = c0 x + c1 y + 1`,
with the eight numbers of `transforms[b]` (or of its only row). Points
outside the image are mapped back by `fill_mode` (REFLECT, WRAP, NEAREST)
or stay outside (CONSTANT), then are read by NEAREST or BILINEAR
interpolation, pixels outside the image reading as `fill_value`. The arithmetic is TensorFlow's CPU kernel's
(image_ops.h), in float32 and in its order, so the values are its values:
the coordinate maps mix float32 with 64-bit integer steps, rounding is
half away from zero, and bilinear weights apply to the pixel values read
as float32 (also for float64 images), the result converted back to the
image dtype.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.constant_ops import ones
from ..core.join_ops import concat
from ..core.shape_ops import reshape, shape
from ..linalg.solve_ops import inv

__all__ = []

_F32 = np.float32
_TYPES = (D.uint8, D.int32, D.int64, D.float16, D.bfloat16, D.float32, D.float64)
_MODES = ("REFLECT", "WRAP", "CONSTANT", "NEAREST")


def _reflect(c, n):
    """Reflects [abcd] to [dcba|abcd|dcba] (MapCoordinate<FILL_REFLECT>)."""
    if n <= 1:
        return np.where(np.isnan(c), c, _F32(0))
    sz2 = np.int64(2 * n)
    with np.errstate(invalid="ignore"):
        lo = c < 0
        k = np.trunc(-c / _F32(sz2)).astype(np.int64)
        m = (sz2 * k).astype(_F32) + c
        m = np.where(m < _F32(-n), m + _F32(sz2), -m - _F32(1))
        hi = c > _F32(n - 1)
        p = c - (sz2 * np.trunc(c / _F32(sz2)).astype(np.int64)).astype(_F32)
        p = np.where(p >= _F32(n), _F32(sz2) - p - _F32(1), p)
    return np.where(lo, m, np.where(hi, p, c))


def _wrap(c, n):
    """Wraps [abcd] to [abcd|abcd|abcd] (MapCoordinate<FILL_WRAP>: the turns
    are counted in steps of n - 1, as TensorFlow does)."""
    if n <= 1:
        return np.where(np.isnan(c), c, _F32(0))
    sz = _F32(n - 1)
    with np.errstate(invalid="ignore"):
        lo = c < 0
        m = c + (np.int64(n) * (np.trunc(-c / sz).astype(np.int64) + 1)).astype(_F32)
        hi = c > sz
        p = c - (np.int64(n) * np.trunc(c / sz).astype(np.int64)).astype(_F32)
    return np.where(lo, m, np.where(hi, p, c))


def _map(c, n, mode):
    if mode == "REFLECT":
        c = _reflect(c, n)
    elif mode == "WRAP":
        c = _wrap(c, n)
    elif mode == "CONSTANT":
        return c
    # Eigen's clamp, max then min (NaN stays NaN).
    return np.minimum(np.maximum(c, _F32(0)), _F32(n - 1))


def _check(images, transforms, output_shape, fill_value, interpolation, fill_mode):
    op = "ImageProjectiveTransformV3"
    if images.ndim != 4:
        raise U.op_error(op, "Input images must have rank 4")
    if not (transforms.ndim == 2 and transforms.shape[0] in (images.shape[0], 1)
            and transforms.shape[1] == 8):
        raise U.op_error(op, "Input transform should be num_images x 8 or 1 x 8")
    if output_shape.ndim != 1:
        raise U.op_error(op, f"output shape must be 1-dimensional{_dims(output_shape)}")
    if output_shape.size != 2:
        raise U.op_error(op, f"output shape must have two elements{_dims(output_shape)}")
    if not (output_shape[0] > 0 and output_shape[1] > 0):
        raise U.op_error(op, "output dimensions must be positive")
    if fill_value is not None and np.ndim(fill_value) != 0:
        raise U.op_error(op, f"fill_value must be a scalar{_dims(fill_value)}")
    # TensorFlow only logs these and goes on with an unset mode; an error is kinder.
    if interpolation not in ("NEAREST", "BILINEAR"):
        raise U.op_error(op, f"Invalid interpolation {interpolation}. Supported types: "
                         "NEAREST, BILINEAR")
    if fill_mode not in _MODES:
        raise U.op_error(op, f"Invalid mode {fill_mode}. Supported types: REFLECT, WRAP, "
                         "CONSTANT, NEAREST")


def _dims(a):
    return "[" + ",".join(str(d) for d in np.shape(a)) + "]"


def _transform(images, transforms, output_shape, fill_value, interpolation, fill_mode):
    _check(images, transforms, output_shape, fill_value, interpolation, fill_mode)
    n, h, w, c = images.shape
    oh, ow = (int(v) for v in output_shape)
    dt = images.dtype
    fill = np.array(_F32(0 if fill_value is None else fill_value)).astype(dt)
    t = np.broadcast_to(transforms.astype(_F32), (n, 8))[:, :, None, None]
    xs = np.arange(ow, dtype=np.int64).astype(_F32)[None, None, :]
    ys = np.arange(oh, dtype=np.int64).astype(_F32)[None, :, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        proj = t[:, 6] * xs + t[:, 7] * ys + _F32(1)
        in_x = (t[:, 0] * xs + t[:, 1] * ys + t[:, 2]) / proj
        in_y = (t[:, 3] * xs + t[:, 4] * ys + t[:, 5]) / proj
    x = _map(in_x, w, fill_mode)
    y = _map(in_y, h, fill_mode)
    b = np.arange(n)[:, None, None]

    def read(yi, xi):
        # Pixels outside the image read as the fill value.
        ok = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        v = images[b, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return np.where(ok[..., None], v, fill)

    with np.errstate(invalid="ignore", over="ignore"):
        if interpolation == "NEAREST":
            out = read(_index(_round(y)), _index(_round(x)))
        else:
            yf, xf = np.floor(y), np.floor(x)
            yc, xc = yf + _F32(1), xf + _F32(1)
            yi, xi = _index(yf), _index(xf)
            yj, xj = _index(yc), _index(xc)
            wx0, wx1 = (xc - x)[..., None], (x - xf)[..., None]
            wy0, wy1 = (yc - y)[..., None], (y - yf)[..., None]
            top = wx0 * read(yi, xi).astype(_F32) + wx1 * read(yi, xj).astype(_F32)
            bottom = wx0 * read(yj, xi).astype(_F32) + wx1 * read(yj, xj).astype(_F32)
            v = wy0 * top + wy1 * bottom
            # T(float): truncation toward zero for the integer dtypes.
            out = (np.trunc(v) if dt.kind in "iu" else v).astype(dt)
    # A zero projection is a point at infinity: the fill value.
    return np.where((proj != 0)[..., None], out, fill)


def _round(c):
    """std::round: halves away from zero (in float64, where c + 0.5 is exact)."""
    c = c.astype(np.float64)
    return np.copysign(np.floor(np.abs(c) + 0.5), c)


def _index(c):
    """DenseIndex(c): truncation; x86 gives INT64_MIN (outside the image) for
    NaN and values out of range."""
    c = np.asarray(c, np.float64)
    ok = np.isfinite(c) & (np.abs(c) < 2.0 ** 62)
    return np.where(ok, np.trunc(np.where(ok, c, 0)), -(2 ** 62)).astype(np.int64)


def _v3_kernel(images, transforms, output_shape, fill_value, interpolation,
               fill_mode="CONSTANT", dtype=None):
    return _transform(images, transforms, output_shape, fill_value, interpolation, fill_mode)


def _v2_kernel(images, transforms, output_shape, interpolation, fill_mode="CONSTANT",
               dtype=None):
    return _transform(images, transforms, output_shape, None, interpolation, fill_mode)


def _infer(inputs, attrs):
    images, _, size = inputs[:3]
    U.check_graph_dtype(images, _TYPES, "images")
    if images.shape.rank is not None and images.shape.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {images.shape.rank}")
    dims = [None] * 4 if images.shape.rank is None else list(images.shape.as_list())
    c = U.constant_value(size)
    dims[1:3] = [None, None] if c is None else [int(v) for v in np.reshape(c, -1)[:2]]
    return [(TensorShape(dims), images.dtype)]


def _inverse_flat(transforms):
    """The flat transforms of the inverse matrices (TensorFlow's gradient
    maps the output gradient back through the inverse transform)."""
    t = reshape(transforms, [-1, 8])
    m = reshape(concat([t, ones([shape(t)[0], 1])], axis=1), [-1, 3, 3])
    flat = reshape(inv(m), [-1, 9])
    return (flat / flat[:, 8:9])[:, :8]


def _grad(op, grad):
    images, transforms = op.inputs[0], op.inputs[1]
    if images.dtype not in _TYPES:
        raise TypeError(f"Invalid dtype {images.dtype}.")
    if transforms.shape.rank not in (1, 2):
        raise TypeError("Transforms should have rank 1 or 2.")
    v3 = op.type.endswith("V3")
    ins = [grad, _inverse_flat(transforms), shape(images)[1:3]]
    ins += [convert_to_tensor(0.0, dtype=D.float32)] if v3 else []
    out = apply(_V3 if v3 else _V2, ins, {"interpolation": op.get_attr("interpolation"),
                                          "fill_mode": op.get_attr("fill_mode")},
                name=op.type)
    return [out, None, None] + ([None] if v3 else [])


_V2 = register("ImageProjectiveTransformV2", _v2_kernel, _infer, _grad, allowed=_TYPES)
_V3 = register("ImageProjectiveTransformV3", _v3_kernel, _infer, _grad, allowed=_TYPES)
