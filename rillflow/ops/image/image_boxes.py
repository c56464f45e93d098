"""Boxes on images: `tf.image.crop_and_resize` (CropAndResize, with its
gradient ops CropAndResizeGradImage and CropAndResizeGradBoxes) and
`tf.image.draw_bounding_boxes` (DrawBoundingBoxesV2) and `tf.image.extract_glimpse`
(ExtractGlimpseV2).

The kernels follow TensorFlow's crop_and_resize_op.cc in its arithmetic:
sampling positions in float32 (double where TensorFlow's C++ promotes to
double), bilinear weights in float32, and the gradients accumulated in
TensorFlow's loop order (np.add.at and np.add.accumulate add sequentially).
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.shape_ops import shape as _shape

_F32 = np.float32


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


def _positions(lo, hi, size, crop):
    """TensorFlow's sampling positions (float32) along one axis, per box: [n, crop]."""
    lo, hi = lo.astype(_F32)[:, None], hi.astype(_F32)[:, None]
    if crop > 1:
        scale = (hi - lo) * _F32(size - 1) / _F32(crop - 1)
        return lo * _F32(size - 1) + np.arange(crop, dtype=_F32)[None] * scale
    # 0.5 * (lo + hi) * (size - 1) is computed in double in TensorFlow's C++.
    return (0.5 * (lo + hi).astype(np.float64) * (size - 1)).astype(_F32) * np.ones(
        (1, crop), _F32)


def _check_boxes(image_shape, boxes, box_ind, crop):
    if len(image_shape) != 4:
        raise _invalid(f"input image must be 4-D{_dims(image_shape)}")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise _invalid(f"boxes must be 2-D[num_boxes, 4]{_dims(boxes.shape)}")
    if box_ind.ndim != 1 or box_ind.shape[0] != boxes.shape[0]:
        raise _invalid("box_index has incompatible shape")
    if len(crop) != 2:
        raise _invalid("crop_size must be a 1-D tensor of length 2")
    if crop[0] <= 0 or crop[1] <= 0:
        raise _invalid("crop dimensions must be positive")
    if box_ind.size and (box_ind.min() < 0 or box_ind.max() >= image_shape[0]):
        raise _errors.OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _grid(boxes, h, w, ch, cw):
    in_y = _positions(boxes[:, 0], boxes[:, 2], h, ch)
    in_x = _positions(boxes[:, 1], boxes[:, 3], w, cw)
    ok_y = (in_y >= 0) & (in_y <= h - 1)
    ok_x = (in_x >= 0) & (in_x <= w - 1)
    return in_y, in_x, ok_y, ok_x


def _crop_and_resize_kernel(image, boxes, box_ind, crop_size, method="bilinear",
                            extrapolation_value=0.0, **_):
    crop = [int(c) for c in np.asarray(crop_size).reshape(-1)]
    _check_boxes(image.shape, boxes, box_ind, crop)
    n = boxes.shape[0]
    _, h, w, depth = image.shape
    ch, cw = crop
    out = np.full((n, ch, cw, depth), _F32(extrapolation_value), _F32)
    if n == 0:
        return out
    in_y, in_x, ok_y, ok_x = _grid(boxes, h, w, ch, cw)
    img = image.astype(_F32)
    for b in range(n):
        src = img[box_ind[b]]
        ys, xs = in_y[b], in_x[b]
        ok = ok_y[b][:, None] & ok_x[b][None, :]
        if method == "bilinear":
            ty = np.floor(np.where(ok_y[b], ys, 0)).astype(np.int64)
            by = np.ceil(np.where(ok_y[b], ys, 0)).astype(np.int64)
            lx = np.floor(np.where(ok_x[b], xs, 0)).astype(np.int64)
            rx = np.ceil(np.where(ok_x[b], xs, 0)).astype(np.int64)
            yl = (ys - np.floor(ys))[:, None, None]
            xl = (xs - np.floor(xs))[None, :, None]
            tl, tr = src[ty][:, lx], src[ty][:, rx]
            bl, br = src[by][:, lx], src[by][:, rx]
            top = tl + (tr - tl) * xl
            bottom = bl + (br - bl) * xl
            val = top + (bottom - top) * yl
        else:
            # roundf: half away from zero (positions here are >= 0).
            cy = np.floor(np.where(ok_y[b], ys, 0) + _F32(0.5)).astype(np.int64)
            cx = np.floor(np.where(ok_x[b], xs, 0) + _F32(0.5)).astype(np.int64)
            val = src[cy][:, cx]
        out[b] = np.where(ok[:, :, None], val, out[b])
    return out


def _crop_infer(inputs, attrs):
    crop = U.constant_value(inputs[3])
    n = inputs[1].shape[0] if inputs[1].shape.rank == 2 else None
    d = inputs[0].shape[3] if inputs[0].shape.rank == 4 else None
    ch, cw = (None, None) if crop is None else (int(crop[0]), int(crop[1]))
    return [(TensorShape([n, ch, cw, d]), D.float32)]


def _grad_image_kernel(grads, boxes, box_ind, image_size, T=D.float32, method="bilinear"):
    batch, h, w, depth = (int(v) for v in np.asarray(image_size).reshape(-1))
    n, ch, cw, _ = grads.shape
    out = np.zeros((batch, h, w, depth), T.as_numpy_dtype)
    if n == 0:
        return out
    in_y, in_x, ok_y, ok_x = _grid(boxes, h, w, ch, cw)
    g = grads.astype(_F32)
    rows, vals = [], []
    for b in range(n):
        for y in np.nonzero(ok_y[b])[0]:
            iy = in_y[b, y]
            xs = np.nonzero(ok_x[b])[0]
            if not len(xs):
                continue
            ix = in_x[b, xs]
            gy = g[b, y, xs]                                   # [nx, depth]
            if method == "bilinear":
                ty, by = int(np.floor(iy)), int(np.ceil(iy))
                yl = _F32(iy - np.floor(iy))
                lx, rx = np.floor(ix).astype(np.int64), np.ceil(ix).astype(np.int64)
                xl = (ix - np.floor(ix)).astype(_F32)[:, None]
                dtop = (_F32(1) - yl) * gy
                dbot = yl * gy
                # TensorFlow's order per pixel: top-left, top-right, bottom-left, bottom-right.
                parts = [(ty, lx, (_F32(1) - xl) * dtop), (ty, rx, xl * dtop),
                         (by, lx, (_F32(1) - xl) * dbot), (by, rx, xl * dbot)]
                for k in range(len(xs)):
                    for yy, xx, v in parts:
                        rows.append((box_ind[b], yy, int(xx[k])))
                        vals.append(v[k])
            else:
                cy = int(np.floor(iy + _F32(0.5)))
                cx = np.floor(ix + _F32(0.5)).astype(np.int64)
                for k in range(len(xs)):
                    rows.append((box_ind[b], cy, int(cx[k])))
                    vals.append(gy[k])
    if rows:
        idx = np.array(rows)
        # Each term is cast to T and added in T, in TensorFlow's order.
        vals = np.array(vals, _F32).astype(out.dtype)
        for d in range(depth):
            np.add.at(out[..., d], (idx[:, 0], idx[:, 1], idx[:, 2]), vals[:, d])
    return out


def _grad_boxes_kernel(grads, image, boxes, box_ind, method="bilinear", **_):
    n, ch, cw, depth = grads.shape
    _, h, w, _ = image.shape
    out = np.zeros((n, 4), _F32)
    hr = _F32(_F32(h - 1) / _F32(ch - 1)) if ch > 1 else _F32(0)
    wr = _F32(_F32(w - 1) / _F32(cw - 1)) if cw > 1 else _F32(0)
    img = image.astype(_F32)
    g = grads.astype(_F32)
    for b in range(n):
        y1, x1, y2, x2 = (_F32(v) for v in boxes[b])
        hs = _F32((y2 - y1) * hr) if ch > 1 else _F32(0)
        ws = _F32((x2 - x1) * wr) if cw > 1 else _F32(0)
        terms = [[], [], [], []]
        src = img[box_ind[b]]
        for y in range(ch):
            iy = _F32(y1 * _F32(h - 1) + _F32(y) * hs) if ch > 1 else \
                _F32(0.5 * float(_F32(y1 + y2)) * (h - 1))
            if iy < 0 or iy > h - 1:
                continue
            ty, by = int(np.floor(iy)), int(np.ceil(iy))
            yl = _F32(iy - _F32(ty))
            for x in range(cw):
                ix = _F32(x1 * _F32(w - 1) + _F32(x) * ws) if cw > 1 else \
                    _F32(0.5 * float(_F32(x1 + x2)) * (w - 1))
                if ix < 0 or ix > w - 1:
                    continue
                lx, rx = int(np.floor(ix)), int(np.ceil(ix))
                xl = _F32(ix - _F32(lx))
                tl, tr, bl, br = src[ty, lx], src[ty, rx], src[by, lx], src[by, rx]
                gy = ((_F32(1) - xl) * (bl - tl) + xl * (br - tr)) * g[b, y, x]
                gx = ((_F32(1) - yl) * (tr - tl) + yl * (br - bl)) * g[b, y, x]
                if ch > 1:
                    terms[0].append(gy * _F32(_F32(h - 1) - _F32(y) * hr))
                    terms[2].append(gy * _F32(_F32(y) * hr))
                else:
                    half = (gy.astype(np.float64) * 0.5 * (h - 1))
                    terms[0].append(half)
                    terms[2].append(half)
                if cw > 1:
                    terms[1].append(gx * _F32(_F32(w - 1) - _F32(x) * wr))
                    terms[3].append(gx * _F32(_F32(x) * wr))
                else:
                    half = (gx.astype(np.float64) * 0.5 * (w - 1))
                    terms[1].append(half)
                    terms[3].append(half)
        for k in range(4):
            acc = _F32(0)
            for t in terms[k]:
                for v in t:   # one channel at a time, as TensorFlow's loop over depth
                    acc = _F32(acc + v) if v.dtype == _F32 else _F32(float(acc) + float(v))
            out[b, k] = acc
    return out


def _crop_grad(op, grad):
    image, boxes, box_ind = op.inputs[0], op.inputs[1], op.inputs[2]
    method = op.get_attr("method")
    gi = apply(_GradImage, [grad, boxes, box_ind, _shape(image, out_type=D.int32)],
               {"T": image.dtype, "method": method}, name="CropAndResizeGradImage") \
        if image.dtype.is_floating else None
    # TensorFlow asks for the boxes' gradient with the bilinear method always.
    gb = apply(_GradBoxes, [grad, image, boxes, box_ind], {"method": "bilinear"},
               name="CropAndResizeGradBoxes")
    return [gi, gb, None, None]


_REAL = tuple(d for d in (D.uint8, D.uint16, D.int8, D.int16, D.int32, D.int64, D.float16,
                          D.bfloat16, D.float32, D.float64) if d is not None)
_CropAndResize = register("CropAndResize", _crop_and_resize_kernel, _crop_infer, _crop_grad,
                          allowed=_REAL)
_GradImage = register(
    "CropAndResizeGradImage", _grad_image_kernel,
    lambda i, a: [(TensorShape([None, None, None, None]) if U.constant_value(i[3]) is None
                   else TensorShape([int(v) for v in U.constant_value(i[3])]), a["T"])])
_GradBoxes = register("CropAndResizeGradBoxes", _grad_boxes_kernel,
                      lambda i, a: [(TensorShape([i[2].shape[0] if i[2].shape.rank else None,
                                                  4]), D.float32)])


@export("image.crop_and_resize")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None):
    """Crops boxes ([n, 4] of normalized [y1, x1, y2, x2]; y2 < y1 flips) out
    of images `box_indices` of a [batch, h, w, depth] image and resizes each to
    `crop_size` ([ch, cw]) with bilinear or nearest sampling: float32
    [n, ch, cw, depth]; samples outside the image are `extrapolation_value`.

    Raises:
      InvalidArgumentError: malformed boxes, indices outside the batch, or a
        non-positive crop size.
    """
    if method not in ("bilinear", "nearest"):
        raise ValueError("method must be 'bilinear' or 'nearest'")
    args = [convert_to_tensor(image), convert_to_tensor(boxes, D.float32),
            convert_to_tensor(box_indices, D.int32), convert_to_tensor(crop_size, D.int32)]
    return apply(_CropAndResize, args, {"method": method,
                                        "extrapolation_value": float(extrapolation_value)},
                 name=name or "CropAndResize")


# --- draw_bounding_boxes -------------------------------------------------------------------------

_DEFAULT_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                            [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                            [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw_kernel(images, boxes, colors, **_):
    if images.ndim != 4:
        raise _invalid(f"The rank of the images should be 4")
    depth = images.shape[3]
    if depth not in (1, 3, 4):
        raise _invalid(f"Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if boxes.ndim != 3 or boxes.shape[0] != images.shape[0] or boxes.shape[2] != 4:
        raise _invalid("boxes must be 3-D [batch, num_boxes, 4]")
    table = np.asarray(colors, np.float32).reshape(-1, np.shape(colors)[-1]) \
        if np.size(colors) else np.empty((0, 4), np.float32)
    if table.shape[0] == 0:
        table = _DEFAULT_COLORS.copy()
        if depth == 1:
            table[:, 0] = 1   # gray images: every box white
    elif table.shape[1] < depth:
        raise _invalid(f"Color table must have at least {depth} channels")
    out = images.copy()
    _, h, w, _ = images.shape
    for b in range(images.shape[0]):
        for k in range(boxes.shape[1]):
            color = table[k % len(table)][:depth].astype(out.dtype)
            # int64 of a float32 product: truncation toward zero.
            r0 = int(np.float32(boxes[b, k, 0]) * np.float32(h - 1))
            r1 = int(np.float32(boxes[b, k, 2]) * np.float32(h - 1))
            c0 = int(np.float32(boxes[b, k, 1]) * np.float32(w - 1))
            c1 = int(np.float32(boxes[b, k, 3]) * np.float32(w - 1))
            if r0 > r1 or c0 > c1:
                continue   # inverted: not drawn
            if r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                continue   # outside: not drawn
            r0c, r1c, c0c, c1c = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                out[b, r0, c0c:c1c + 1] = color
            if r1 < h:
                out[b, r1, c0c:c1c + 1] = color
            if c0 >= 0:
                out[b, r0c:r1c + 1, c0] = color
            if c1 < w:
                out[b, r0c:r1c + 1, c1] = color
    return out


_DrawBoundingBoxesV2 = register("DrawBoundingBoxesV2", _draw_kernel,
                                lambda i, a: [(i[0].shape, i[0].dtype)],
                                allowed=(D.float32, D.float16))


@export("image.draw_bounding_boxes")
def draw_bounding_boxes(images, boxes, colors, name=None):
    """Draws the outlines of boxes ([batch, n, 4] of normalized [y_min,
    x_min, y_max, x_max]) on float images [batch, h, w, 1/3/4], box k in
    color k modulo the colors (TensorFlow's default table if `colors` is
    empty; white on gray images)."""
    imgs = convert_to_tensor(images)
    return apply(_DrawBoundingBoxesV2, [imgs, convert_to_tensor(boxes, D.float32),
                                        convert_to_tensor(colors, D.float32)],
                 name=name or "DrawBoundingBoxesV2")


# --- extract_glimpse -----------------------------------------------------------------------------

def _glimpse_kernel(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    uniform_noise=True, noise="uniform", **_):
    if input.ndim != 4:
        raise _invalid(f"input must be 4-dimensional{_dims(input.shape)}")
    gh, gw = (int(v) for v in np.asarray(size).reshape(-1))
    batch, h, w, depth = input.shape
    off = np.asarray(offsets, np.float32)
    if off.shape != (batch, 2):
        raise _invalid("offsets must be a matrix with the batch size rows and 2 columns")
    if noise not in ("uniform", "gaussian", "zero", ""):
        raise _invalid(f"noise must be one of uniform, gaussian, zero or empty, got {noise}")
    out = np.zeros((batch, gh, gw, depth), input.dtype)
    for i in range(batch):
        # Eigen's ExtractGlimpses (V2), in float32: a normalized centered offset
        # is the window's center; otherwise the offset (from the center when
        # centered) is its upper-left corner. Truncated toward zero.
        y, x = off[i, 0], off[i, 1]
        if normalized:
            x, y = _F32(x * _F32(w)), _F32(y * _F32(h))
            if centered:
                x = _F32(_F32(_F32(x / _F32(2)) + _F32(_F32(w) / _F32(2))) - _F32(gw) / _F32(2))
                y = _F32(_F32(_F32(y / _F32(2)) + _F32(_F32(h) / _F32(2))) - _F32(gh) / _F32(2))
        elif centered:
            x, y = _F32(x + _F32(w) / _F32(2)), _F32(y + _F32(h) / _F32(2))
        x, y = int(x), int(y)
        src = input[i]
        inside = x >= 0 and y >= 0 and x + gw < w and y + gh < h
        if inside:
            out[i] = src[y:y + gh, x:x + gw]
            continue
        if noise == "zero":
            fill = np.zeros((gh, gw, depth), np.float64)
        else:
            # Random noise (not TensorFlow's numbers: Eigen's unseeded generator).
            lo, hi = float(src.min()), float(src.max())
            rng = np.random.default_rng()
            fill = lo + (rng.random((gh, gw, depth)) if noise in ("uniform", "") or
                         uniform_noise else rng.standard_normal((gh, gw, depth))) * (hi - lo)
        out[i] = fill.astype(input.dtype)
        ys, xs = max(y, 0), max(x, 0)
        ye, xe = min(y + gh, h), min(x + gw, w)
        if ye > ys and xe > xs:
            out[i, ys - y:ye - y, xs - x:xe - x] = src[ys:ye, xs:xe]
    return out


def _glimpse_infer(inputs, attrs):
    s = U.constant_value(inputs[1])
    b = inputs[0].shape[0] if inputs[0].shape.rank == 4 else None
    d = inputs[0].shape[3] if inputs[0].shape.rank == 4 else None
    gh, gw = (None, None) if s is None else (int(s[0]), int(s[1]))
    return [(TensorShape([b, gh, gw, d]), D.float32)]


_ExtractGlimpseV2 = register("ExtractGlimpseV2", _glimpse_kernel, _glimpse_infer,
                             stateful=True, allowed=(D.float32,))


@export("image.extract_glimpse")
def extract_glimpse(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    noise="uniform", name=None):
    """Windows of `size` ([h, w]) of a float32 [batch, h, w, c] image at
    `offsets` ([batch, 2] of (y, x): normalized and/or relative to the
    center as the flags say). A window that leaves the image is filled by
    `noise` ("zero"; "uniform"/"gaussian": random noise, not TensorFlow's
    numbers) where it does.

    Raises:
      InvalidArgumentError: malformed input, size or offsets.
    """
    return apply(_ExtractGlimpseV2, [convert_to_tensor(input, D.float32),
                                     convert_to_tensor(size, D.int32),
                                     convert_to_tensor(offsets, D.float32)],
                 {"centered": bool(centered), "normalized": bool(normalized),
                  "uniform_noise": False, "noise": noise}, name=name or "ExtractGlimpseV2")
