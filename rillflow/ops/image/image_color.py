"""Image dtypes and colour: `convert_image_dtype`, brightness, contrast,
gamma, hue and saturation adjustments (and their random versions), colour
space conversions and `per_image_standardization` (the metrics are in
image_metrics.py).

TensorFlow's dedicated ops (RGBToHSV, HSVToRGB, AdjustContrastv2,
AdjustHue, AdjustSaturation) are registry entries whose NumPy kernels
follow TensorFlow's float32 arithmetic step by step (AdjustHue and
AdjustSaturation also its C++ NaN handling and flush-to-zero); the rest
are compositions of existing ops, as in TensorFlow.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.context import executing_eagerly
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ..core import shape_ops, constant_ops, join_ops, dim_ops, broadcast_ops
from ..core import math_ops as M
from ..core import op_util as U
from ..core.creation_ops import name_scope
from ..core.reduction_ops import reduce_mean, reduce_prod, reduce_std
from ..core.unary_ops import rsqrt
from ..kernels import ftz as _ftz
from ..linalg.einsum_ops import tensordot
from ..random.stateful_ops import uniform
from .image_ops import _check_at_least_3d

__all__ = ["convert_image_dtype", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_saturation", "adjust_hue", "rgb_to_grayscale", "grayscale_to_rgb",
           "rgb_to_hsv", "hsv_to_rgb", "rgb_to_yuv", "yuv_to_rgb",
           "per_image_standardization", "random_brightness", "random_contrast",
           "random_saturation", "random_hue"]

_F32 = np.float32
_HSV_TYPES = (D.float16, D.bfloat16, D.float32, D.float64)


# --- dtype conversion ----------------------------------------------------------------

@export("image.convert_image_dtype")
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts an image between dtypes, rescaling values: floats span
    [0, 1], integers [0, dtype.max]. Integer narrowing divides, widening
    multiplies; float to integer scales by `max + 0.5` and truncates.
    `saturate` clips to the target range before casting.

    Raises:
      AttributeError: for a dtype (or image dtype) that is neither floating
        point nor integer.
    """
    image = convert_to_tensor(image, name="image")
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return shape_ops.identity(image, name=name)
    cast = M.saturate_cast if saturate else M.cast
    with name_scope(name or "convert_image"):
        src = image.dtype
        if src.is_integer and dtype.is_integer:
            if src.max > dtype.max:
                # Divide first so src.max lands in [dtype.max, dtype.max + 1).
                return cast(M.floordiv(image, (src.max + 1) // (dtype.max + 1)), dtype)
            return M.multiply(cast(image, dtype), (dtype.max + 1) // (src.max + 1))
        if src.is_floating and dtype.is_floating:
            return M.cast(image, dtype)
        if src.is_integer:
            return M.multiply(M.cast(image, dtype), 1.0 / src.max)
        # +0.5 so that values just below 1.0 still reach dtype.max.
        return cast(M.multiply(image, dtype.max + 0.5), dtype)


def _as_float(image):
    """The image in float32 (float16 and float32 stay as they are), and its dtype."""
    image = convert_to_tensor(image, name="image")
    if image.dtype in (D.float16, D.float32):
        return image, image.dtype
    return convert_image_dtype(image, D.float32), image.dtype


# --- brightness, contrast, gamma -----------------------------------------------------

@export("image.adjust_brightness")
def adjust_brightness(image, delta):
    """Adds `delta` to every value of an image (in [0, 1] float scale for
    integer images, whose result saturates)."""
    with name_scope("adjust_brightness"):
        flt, orig = _as_float(image)
        adjusted = M.add(flt, M.cast(delta, flt.dtype))
        return convert_image_dtype(adjusted, orig, saturate=True)


def _contrast_kernel(images, contrast_factor, T=None):
    if images.ndim < 3:
        raise U.op_error("AdjustContrastv2", "input must be at least 3-D, got shape"
                         f"[{','.join(str(d) for d in images.shape)}]")
    x = images.astype(_F32)
    h, w, c = x.shape[-3:]
    mean = _folded_means(x.reshape(-1, h * w, c)).reshape(x.shape[:-3] + (1, 1, c))
    out = (x - mean) * _F32(contrast_factor) + mean
    return out.astype(images.dtype)


def _folded_means(x3):
    """TensorFlow's AdjustContrastv2 means of (batch, pixels, channels)
    `x3`: each image's pixels folded in halves (the right half added into
    the left, the middle pixel of an odd count carried) until one is left,
    then multiplied by float32 1/pixels."""
    n = x3.shape[1]
    if n == 0:
        return np.zeros((x3.shape[0], x3.shape[2]), _F32)
    right = n // 2
    left = n - right
    s = np.empty((x3.shape[0], max(left, 1), x3.shape[2]), _F32)
    s[:, :right] = x3[:, left:left + right] + x3[:, :right]
    if left > right:
        s[:, right] = x3[:, right]
    n = left
    while n > 1:
        right = n // 2
        left = n - right
        s[:, :right] += s[:, left:left + right]
        n = left
    return s[:, 0] * (_F32(1) / _F32(x3.shape[1]))


def _contrast_infer(inputs, attrs):
    x = inputs[0]
    return [(x.shape, x.dtype)]


_AdjustContrastv2 = register("AdjustContrastv2", _contrast_kernel, _contrast_infer,
                             allowed=(D.float16, D.float32))


@export("image.adjust_contrast")
def adjust_contrast(images, contrast_factor):
    """Moves each channel's values away from (factor > 1) or towards its
    mean over the image: (x - mean) * contrast_factor + mean."""
    with name_scope("adjust_contrast"):
        flt, orig = _as_float(images)
        factor = convert_to_tensor(contrast_factor, D.float32, name="contrast_factor")
        adjusted = apply(_AdjustContrastv2, [flt, factor], {"T": flt.dtype},
                         name="AdjustContrastv2")
        return convert_image_dtype(adjusted, orig, saturate=True)


@export("image.adjust_gamma")
def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction: gain * image ** gamma (on [0, 1] float values for
    integer images, whose result saturates).

    Raises:
      ValueError: for a negative Python `gamma`.
    """
    with name_scope("adjust_gamma"):
        flt, orig = _as_float(image)
        if not U.constant_value(gamma) is None and np.any(np.asarray(
                U.constant_value(gamma)) < 0):
            raise ValueError("Gamma should be a non-negative real number.")
        adjusted = gain * flt ** gamma
        return convert_image_dtype(adjusted, orig, saturate=True)


# --- HSV -----------------------------------------------------------------------------

def _check_rgb(op, x):
    if x.ndim < 1 or x.shape[-1] != 3:
        n = x.shape[-1] if x.ndim else 0
        if op == "RGBToHSV" or op == "HSVToRGB":
            raise U.op_error(op, f"input must have 3 channels but input only has {n} channels.",
                             errors.FailedPreconditionError)
        raise U.op_error(op, f"input must have 3 channels but instead has {n} channels.")


def _rgb_to_hsv_kernel(images, T=None):
    _check_rgb("RGBToHSV", images)
    dt = images.dtype
    r, g, b = images[..., 0], images[..., 1], images[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, dt.type(0))
        norm = (dt.type(1) / rng) * (dt.type(1) / dt.type(6))
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + dt.type(2) / dt.type(6),
                              norm * (r - g) + dt.type(4) / dt.type(6)))
    h = np.where(rng > 0, h, dt.type(0))
    h = np.where(h < 0, h + dt.type(1), h)
    return np.stack([h, s, v], -1).astype(dt)


def _hsv_to_rgb_kernel(images, T=None):
    _check_rgb("HSVToRGB", images)
    dt = images.dtype
    one, two = dt.type(1), dt.type(2)
    h, s, v = images[..., 0], images[..., 1], images[..., 2]
    dh = h * dt.type(6)
    dr = np.clip(np.abs(dh - dt.type(3)) - one, 0, 1).astype(dt)
    dg = np.clip(-np.abs(dh - two) + two, 0, 1).astype(dt)
    db = np.clip(-np.abs(dh - dt.type(4)) + two, 0, 1).astype(dt)
    one_s = -s + one
    return np.stack([(one_s + s * d) * v for d in (dr, dg, db)], -1).astype(dt)


def _rgb_infer(inputs, attrs):
    x = inputs[0]
    if x.shape.rank == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if x.shape.rank is not None and x.shape[-1] not in (None, 3):
        raise ValueError(f"Dimension must be 3 but is {x.shape[-1]}")
    return [(x.shape, x.dtype)]


_RGBToHSV = register("RGBToHSV", _rgb_to_hsv_kernel, _rgb_infer, allowed=_HSV_TYPES)
_HSVToRGB = register("HSVToRGB", _hsv_to_rgb_kernel, _rgb_infer, allowed=_HSV_TYPES)


def _hsv_op(opdef, images, name):
    images = convert_to_tensor(images, name="images")
    U.check_dtype(opdef.name, images, _HSV_TYPES, param="images")
    return apply(opdef, [images], {"T": images.dtype}, name=name or opdef.name)


@export("image.rgb_to_hsv")
def rgb_to_hsv(images, name=None):
    """RGB to HSV (all in [0, 1]) on the last dimension of float images."""
    return _hsv_op(_RGBToHSV, images, name)


@export("image.hsv_to_rgb")
def hsv_to_rgb(images, name=None):
    """HSV to RGB (all in [0, 1]) on the last dimension of float images."""
    return _hsv_op(_HSVToRGB, images, name)


def _f(v):
    """A float32 result of TensorFlow's arithmetic: flushed to zero if
    subnormal (its CPU threads run with flush-to-zero)."""
    return _ftz.flush(np.asarray(v, _F32))


def _max(a, b):
    """std::max(a, b): b only if a < b, so a NaN second operand is ignored
    and a NaN first one kept."""
    return np.where(a < b, b, a)


def _min(a, b):
    """std::min(a, b): b only if b < a."""
    return np.where(b < a, b, a)


def _category(h, top):
    """static_cast<int>(h) for a switch over 0..top: NaN (INT_MIN on x86)
    and anything outside come back as -1, the switch's default."""
    with np.errstate(invalid="ignore"):
        cat = np.where(np.isfinite(h), np.trunc(h), -1).astype(np.int64)
    return np.where((cat < 0) | (cat > top), -1, cat)


def _float_kernel_only(op, images):
    """TensorFlow's AdjustHue and AdjustSaturation accept half images but
    have only a float CPU kernel (adjust_hue and adjust_saturation pass
    float16 images through unconverted)."""
    if images.dtype == np.float16:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_HALF]")


def _saturation_kernel(images, scale, T=None):
    _check_rgb("AdjustSaturation", images)
    _float_kernel_only("AdjustSaturation", images)
    # TensorFlow's per-pixel HSV round trip in float32 (some constants are
    # doubles), with std::max/min's NaN handling and its CPU's
    # denormals-are-zero: subnormal inputs read as 0, subnormal results are
    # written as 0 (a hue of -1e-39 stays negative-zero instead of wrapping
    # to 1, which made the pixel black).
    x = _ftz.daz(images.astype(_F32))
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    with np.errstate(all="ignore"):
        v = _max(r, _max(g, b))
        rng = _f(v - _min(r, _min(g, b)))
        s = np.where(v > 0, _f(rng / v), _F32(0))
        norm = _f(_F32(1) / _f(_F32(6) * rng))
        h = np.where(r == v, _f(norm * _f(g - b)), np.where(
            g == v, _f((_f(norm * _f(b - r)).astype(np.float64) + 2.0 / 6.0).astype(_F32)),
            _f((_f(norm * _f(r - g)).astype(np.float64) + 4.0 / 6.0).astype(_F32))))
        h = np.where(rng <= 0, _F32(0), h)
        h = np.where(h < 0, _f(h + _F32(1)), h)
        s = _min(_F32(1), _max(_F32(0), _f(s * _F32(scale))))
        c = _f(s * v)
        m = _f(v - c)
        dh = _f(h * _F32(6))
        cat = _category(dh, 5)
        fm = _f(_wrap(dh, _F32(2)))
        xx = _f(c * _f(_F32(1) - np.abs(_f(fm - _F32(1)))))
    z = np.zeros_like(c)
    table = {0: (c, xx, z), 1: (xx, c, z), 2: (z, c, xx), 3: (z, xx, c), 4: (xx, z, c),
             5: (c, z, xx)}
    out = [_f(np.select([cat == k for k in range(6)], [table[k][i] for k in range(6)], z) + m)
           for i in range(3)]
    return np.stack(out, -1).astype(images.dtype)


def _wrap(v, period):
    """Brings v into (0, period) or [0, period) by repeated +-period, as
    TensorFlow's kernels do (the steps are exact; NumPy's mod also is, for
    what is left after a few steps)."""
    for _ in range(4):
        low = v <= 0
        if not low.any():
            break
        v = np.where(low, v + period, v)
    return np.where(v >= period, np.mod(v, period), v)


def _hue_kernel(images, delta, T=None):
    _check_rgb("AdjustHue", images)
    _float_kernel_only("AdjustHue", images)
    # TensorFlow's per-pixel arithmetic, with denormals-are-zero and
    # flush-to-zero as on its CPU threads: arithmetic and comparisons read
    # a subnormal channel as 0. Its compiled code writes the smallest
    # channel to the output as it is, and the largest one too for pixels
    # of hue category 0 or 1, but flushed for the others (TensorFlow 2.21,
    # probed on all orders of subnormal, normal and special channels).
    raw = images.astype(_F32)
    x = _ftz.daz(raw)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    # The hue category (0..5) from the order of r, g and b, as TensorFlow's
    # kernel decides it (a NaN compares false).
    rg = r < g
    cat = np.where(rg, np.where(b < r, 1, np.where(b > g, 3, 2)),
                   np.where(b < g, 0, np.where(b > r, 4, 5)))
    lo_raw = np.choose(cat, [raw[..., i] for i in (2, 2, 0, 0, 1, 1)])
    hi_out = np.where(cat < 2, np.choose(cat, [raw[..., i] for i in (0, 1, 1, 2, 2, 0)]),
                      np.choose(cat, [r, g, g, b, b, r]))
    vmax = np.choose(cat, [r, g, g, b, b, r])
    vmid = np.choose(cat, [g, r, b, g, r, b])
    vmin = np.choose(cat, [b, b, r, r, g, g])
    with np.errstate(all="ignore"):
        ratio = _f(_f(vmid - vmin) / _f(vmax - vmin))
        increase = (cat & 1) == 0
        h = _f(cat.astype(_F32) + np.where(increase, ratio, _f(_F32(1) - ratio)))
        h = np.where(vmax == vmin, _F32(0), h).astype(_F32)
        h = _f(h + _f(_F32(delta) * _F32(6)))
        # TensorFlow brings h into [0, 6) by repeated +-6 (exact steps); one
        # step each way covers |delta| <= 1, the rest is rare enough to loop
        # on. (An h so large that h - 6 == h would loop forever there.)
        for _ in range(8):
            low, high = h < 0, h >= 6
            if not (low.any() or high.any()):
                break
            h = np.where(low, h + _F32(6), np.where(high, h - _F32(6), h))
        h = np.where(np.isfinite(h) & ((h < 0) | (h >= 6)), np.mod(h, _F32(6)), h)
        # static_cast<int>(NaN) is INT_MIN: even, so the ratio is not
        # mirrored, and the switch's default (category 5's layout) runs.
        cat = _category(h, 5)
        ratio = _f(h - np.where(cat < 0, _F32(0), cat).astype(_F32))
        ratio = np.where((cat & 1) == 1, _f(_F32(1) - ratio), ratio)
        vmid = _f(vmin + _f(ratio * _f(vmax - vmin)))
    cat = np.where(cat < 0, 5, cat)
    vmax, vmin = hi_out, lo_raw
    rr = np.choose(cat, [vmax, vmid, vmin, vmin, vmid, vmax])
    gg = np.choose(cat, [vmid, vmax, vmax, vmid, vmin, vmin])
    bb = np.choose(cat, [vmin, vmin, vmid, vmax, vmax, vmid])
    return np.stack([rr, gg, bb], -1).astype(images.dtype)


_AdjustSaturation = register("AdjustSaturation", _saturation_kernel, _rgb_infer,
                             allowed=(D.float16, D.float32))
_AdjustHue = register("AdjustHue", _hue_kernel, _rgb_infer, allowed=(D.float16, D.float32))


@export("image.adjust_saturation")
def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the HSV saturation of RGB images by `saturation_factor`
    (clipped to [0, 1])."""
    with name_scope(name or "adjust_saturation"):
        flt, orig = _as_float(image)
        factor = convert_to_tensor(saturation_factor, D.float32, name="scale")
        adjusted = apply(_AdjustSaturation, [flt, factor], {"T": flt.dtype},
                         name="AdjustSaturation")
        return convert_image_dtype(adjusted, orig)


@export("image.adjust_hue")
def adjust_hue(image, delta, name=None):
    """Rotates the hue of RGB images by `delta` (a fraction of a turn, in [-1, 1]).

    Raises:
      ValueError: (eager) delta is outside [-1, 1], as in TensorFlow.
    """
    with name_scope(name or "adjust_hue"):
        if executing_eagerly() and (delta < -1 or delta > 1):
            raise ValueError("delta must be in the interval [-1, 1]")
        flt, orig = _as_float(image)
        delta = convert_to_tensor(delta, D.float32, name="delta")
        adjusted = apply(_AdjustHue, [flt, delta], {"T": flt.dtype}, name="AdjustHue")
        return convert_image_dtype(adjusted, orig)


# --- other colour spaces -------------------------------------------------------------

def _last_axis_product(images, kernel):
    k = convert_to_tensor(kernel, dtype=images.dtype, name="kernel")
    return tensordot(images, k, axes=[[images.shape.rank - 1], [0]])


@export("image.rgb_to_grayscale")
def rgb_to_grayscale(images, name=None):
    """Luma (0.2989 R + 0.587 G + 0.114 B) of RGB images, keeping a last
    dimension of size 1 and the input dtype."""
    with name_scope(name or "rgb_to_grayscale"):
        images = convert_to_tensor(images, name="images")
        orig = images.dtype
        flt = convert_image_dtype(images, D.float32)
        # TensorFlow contracts with a 3-element MatMul, which its CPU kernel sums in order
        # without fused multiply-adds: ((r w0 + g w1) + b w2), each step rounded. The same
        # sum written out gives its bits on every CPU; a BLAS call would not (OpenBLAS
        # picks FMA kernels on some CPUs).
        w = [convert_to_tensor(c, D.float32) for c in (0.2989, 0.5870, 0.1140)]
        gray = (flt[..., 0] * w[0] + flt[..., 1] * w[1]) + flt[..., 2] * w[2]
        return convert_image_dtype(dim_ops.expand_dims(gray, -1), orig)


@export("image.grayscale_to_rgb")
def grayscale_to_rgb(images, name=None):
    """Repeats the single channel of grayscale images three times.

    Raises:
      ValueError: for an image of rank < 2 or a last dimension other than 1.
    """
    with name_scope(name or "grayscale_to_rgb"):
        images = convert_to_tensor(images, name="images")
        shape = images.shape
        if shape.rank is not None:
            if shape.rank < 2:
                raise ValueError(f"A grayscale image (shape {shape}) must be at least "
                                 "two-dimensional.")
            if shape[-1] is not None and shape[-1] != 1:
                raise ValueError("Last dimension of a grayscale image should be size 1.")
        rank = shape_ops.rank(images)
        multiples = join_ops.concat([constant_ops.ones(dim_ops.expand_dims(rank - 1, 0), D.int32),
                              dim_ops.expand_dims(3, 0)], 0)
        return broadcast_ops.tile(images, multiples)


_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


@export("image.rgb_to_yuv")
def rgb_to_yuv(images):
    """RGB (in [0, 1]) to YUV on the last dimension of float images."""
    return _last_axis_product(convert_to_tensor(images, name="images"), _RGB_TO_YUV)


@export("image.yuv_to_rgb")
def yuv_to_rgb(images):
    """YUV to RGB on the last dimension of float images."""
    return _last_axis_product(convert_to_tensor(images, name="images"), _YUV_TO_RGB)


# --- standardisation and random adjustments ------------------------------------------

@export("image.per_image_standardization")
def per_image_standardization(image):
    """Scales each image (the last three dimensions) to zero mean and unit
    variance: (x - mean) / max(stddev, 1 / sqrt(num_pixels)), in float32.

    Raises:
      ValueError: for an image of rank < 3.
    """
    with name_scope("per_image_standardization"):
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        image = M.cast(image, D.float32)
        num_pixels = reduce_prod(shape_ops.shape(image, out_type="int32")[-3:])
        mean = reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        std = reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        adjusted = M.maximum(std, rsqrt(M.cast(num_pixels, D.float32)))
        return M.divide(image - mean, adjusted)


def _random_delta(lo, hi, seed):
    return uniform([], lo, hi, seed=seed)


@export("image.random_brightness")
def random_brightness(image, max_delta, seed=None):
    """`adjust_brightness` by a delta drawn uniformly from [-max_delta, max_delta).

    Raises:
      ValueError: for a negative max_delta.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _random_delta(-max_delta, max_delta, seed))


def _check_factor_range(lower, upper):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


@export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None):
    """`adjust_contrast` by a factor drawn uniformly from [lower, upper).

    Raises:
      ValueError: unless 0 <= lower < upper.
    """
    _check_factor_range(lower, upper)
    return adjust_contrast(image, _random_delta(lower, upper, seed))


@export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None):
    """`adjust_saturation` by a factor drawn uniformly from [lower, upper).

    Raises:
      ValueError: unless 0 <= lower < upper.
    """
    _check_factor_range(lower, upper)
    return adjust_saturation(image, _random_delta(lower, upper, seed))


@export("image.random_hue")
def random_hue(image, max_delta, seed=None):
    """`adjust_hue` by a delta drawn uniformly from [-max_delta, max_delta).

    Raises:
      ValueError: unless 0 <= max_delta <= 0.5.
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _random_delta(-max_delta, max_delta, seed))
