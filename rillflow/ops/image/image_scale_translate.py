"""ScaleAndTranslate: resampling with a sampling kernel (lanczos3/5,
gaussian, box, triangle, Keys cubic, Mitchell cubic), low-pass filtered when
shrinking, and its gradient op: what antialiased and kernel-method
`tf.image.resize` run on. Same float32 arithmetic, in the same order, as
TensorFlow's CPU kernel (see image_resize.py)."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ..core import op_util as U
from .resize_common import _F32, _RESIZE_TYPES, _dims, _like_infer, _resize_infer, _sizes

__all__ = ["scale_and_translate"]

# --- scale and translate (antialiased resizing) --------------------------------------

def _lanczos(radius):
    def f(x):
        x = np.abs(x)
        pi = _F32(3.14159265359)
        with np.errstate(invalid="ignore", divide="ignore"):
            v = (_F32(radius) * _sinf(pi * x) * _sinf(pi * x / _F32(radius))
                 / (pi * pi * x * x)).astype(_F32)
        return np.where(x > radius, _F32(0), np.where(x <= _F32(1e-3), _F32(1), v))
    return f, float(radius)


def _load_sinf():
    try:
        import ctypes
        import ctypes.util
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        f = libm.sinf
        f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
        return np.frompyfunc(lambda v: f(float(v)), 1, 1)
    except (OSError, AttributeError, TypeError):
        return None


_LIBM_SINF = _load_sinf()


def _sinf(x):
    """float32 sine as the C library's sinf (TensorFlow's kernel calls it)
    computes it: NumPy's own float32 sine differs in the last bit for many
    arguments. Only the few filter taps go through it."""
    if _LIBM_SINF is None:
        return np.sin(x.astype(np.float64)).astype(_F32)
    return _LIBM_SINF(x).astype(_F32)


def _gaussian(x):
    x = np.abs(x)
    sigma = np.float64(_F32(1.5) / _F32(3))
    v = np.exp((-x * x).astype(np.float64) / (2.0 * sigma * sigma))
    return np.where(x >= _F32(1.5), _F32(0), v.astype(_F32))


def _box(x):
    x = np.abs(x)
    return np.where(x < _F32(0.5), _F32(1), np.where(x == _F32(0.5), _F32(0.5), _F32(0)))


def _triangle(x):
    x = np.abs(x)
    return np.where(x < _F32(1), _F32(1) - x, _F32(0))


def _keys_cubic(x):
    x = np.abs(x)
    outer = ((_F32(-0.5) * x + _F32(2.5)) * x - _F32(4)) * x + _F32(2)
    inner = ((_F32(1.5) * x - _F32(2.5)) * x) * x + _F32(1)
    return np.where(x >= 2, _F32(0), np.where(x >= 1, outer, inner))


def _mitchell_cubic(x):
    x = np.abs(x)
    outer = (((_F32(-7.0 / 18.0)) * x + _F32(2)) * x - _F32(10.0 / 3.0)) * x + _F32(16.0 / 9.0)
    inner = (((_F32(7.0 / 6.0)) * x - _F32(2)) * x) * x + _F32(8.0 / 9.0)
    return np.where(x >= 2, _F32(0), np.where(x >= 1, outer, inner))


_SAMPLING_KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (_gaussian, 1.5), "box": (_box, 1.0), "triangle": (_triangle, 1.0),
    "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell_cubic, 2.0)}


def _spans(kernel_type, out_size, in_size, scale, translate, antialias):
    """Per output position: the first input index and the (span, out_size)
    normalised float32 weights of the input pixels from there."""
    func, radius = _SAMPLING_KERNELS[kernel_type]
    inv_scale = _F32(1.0 / np.float64(scale))
    inv_translate = -inv_scale * _F32(translate)
    kscale = max(inv_scale, _F32(1)) if antialias else _F32(1)
    span = min(2 * int(np.ceil(_F32(radius) * kscale)) + 1, in_size)
    sample = (np.arange(out_size, dtype=_F32) + _F32(0.5)) * inv_scale + inv_translate
    reach = _F32(radius) * kscale
    start = np.clip(np.ceil(sample - reach - _F32(0.5)).astype(np.int64), 0, in_size - 1)
    end = np.clip(np.floor(sample + reach - _F32(0.5)).astype(np.int64), 0, in_size - 1) + 1
    k = np.arange(span)[:, None]
    src = start[None, :] + k
    inside = src < end[None, :]
    w = func(np.abs((src.astype(_F32) + _F32(0.5) - sample) * (_F32(1) / kscale)))
    w = np.where(inside, w.astype(_F32), _F32(0))
    total = np.zeros(out_size, _F32)
    for row in w:
        total = total + row
    ok = np.abs(total) >= _F32(1000) * np.finfo(_F32).tiny
    w = np.where(ok, w * (_F32(1) / np.where(ok, total, _F32(1))), _F32(0))
    outside = (sample < 0) | (sample > in_size)
    w = np.where(outside, _F32(0), w)
    start = np.where(outside, 0, start)
    return start, w


def _gather(x, axis, start, w):
    """Sum over taps of w[k] * x[start + k] along `axis` (1 or 2), in tap
    order, taps past the input's end dropped as TensorFlow does."""
    size = x.shape[axis]
    shape = [1, 1, 1, 1]
    shape[axis] = -1
    out = np.zeros(x.shape[:axis] + (len(start),) + x.shape[axis + 1:], _F32)
    for k in range(w.shape[0]):
        idx = start + k
        ok = idx < size
        px = np.take(x, np.minimum(idx, size - 1), axis=axis)
        out = np.where(ok.reshape(shape), out + w[k].reshape(shape) * px, out)
    return out


def _scale_and_translate_kernel(images, size, scale, translation, kernel_type="lanczos3",
                                antialias=True, T=None):
    op = "ScaleAndTranslate"
    if images.ndim != 4:
        raise U.op_error(op, f"input must be 4-dimensional{_dims(images.shape)}")
    oh, ow = _sizes(op, size)
    if oh <= 0 or ow <= 0:
        raise U.op_error(op, "output dimensions must be positive")
    if kernel_type not in _SAMPLING_KERNELS:
        raise U.op_error(op, f"Unrecognized kernel type: {kernel_type}")
    n, ih, iw, c = images.shape
    sy, sx = (_F32(v) for v in np.reshape(scale, -1))
    ty, tx = (_F32(v) for v in np.reshape(translation, -1))
    rs, rw = _spans(kernel_type, oh, ih, sy, ty, antialias)
    cs, cw = _spans(kernel_type, ow, iw, sx, tx, antialias)
    # Rows first into an (out_h, in_w) buffer, then columns.
    return _gather(_gather(images.astype(_F32), 1, rs, rw), 2, cs, cw)


def _scale_and_translate_grad_kernel(grads, original_image, scale, translation,
                                     kernel_type="lanczos3", antialias=True, T=None):
    n, ih, iw, c = original_image.shape
    _, oh, ow, _ = grads.shape
    sy, sx = (_F32(v) for v in np.reshape(scale, -1))
    ty, tx = (_F32(v) for v in np.reshape(translation, -1))
    rs, rw = _grad_spans(*_spans(kernel_type, oh, ih, sy, ty, antialias), ih)
    cs, cw = _grad_spans(*_spans(kernel_type, ow, iw, sx, tx, antialias), iw)
    return _gather(_gather(grads.astype(_F32), 1, rs, rw), 2, cs, cw) \
        .astype(original_image.dtype)


def _grad_spans(start, w, in_size):
    """The spans of the transposed resampling: for each input position,
    the output positions its nonzero weights reach, from the first one."""
    out_size = len(start)
    m = np.zeros((in_size, out_size), _F32)
    for k in range(w.shape[0]):
        idx = start + k
        ok = (idx < in_size) & (w[k] != 0)
        m[idx[ok], np.arange(out_size)[ok]] = w[k][ok]
    nz = m != 0
    first = np.where(nz.any(1), nz.argmax(1), 0)
    last = np.where(nz.any(1), out_size - 1 - nz[:, ::-1].argmax(1), -1)
    span = max(int((last - first + 1).max()), 0)
    k = np.arange(span)[:, None]
    idx = np.minimum(first[None, :] + k, out_size - 1)
    gw = np.where(first[None, :] + k < out_size, m[np.arange(in_size)[None, :], idx], _F32(0))
    return first, gw


def _scale_and_translate_grad(op, grad):
    attrs = {"kernel_type": op.get_attr("kernel_type"), "antialias": op.get_attr("antialias")}
    return [apply(_ScaleAndTranslateGrad, [grad, op.inputs[0], op.inputs[2], op.inputs[3]],
                  attrs), None, None, None]


_ScaleAndTranslate = register("ScaleAndTranslate", _scale_and_translate_kernel,
                              _resize_infer(D.float32), _scale_and_translate_grad,
                              allowed=_RESIZE_TYPES)
_ScaleAndTranslateGrad = register("ScaleAndTranslateGrad", _scale_and_translate_grad_kernel,
                                  _like_infer(1))


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3",
                        antialias=True, name=None):
    """Resamples images at `scale` and `translation` with a sampling kernel
    (low-pass filtered when `antialias` and shrinking): TensorFlow's
    ScaleAndTranslate op, behind antialiased `tf.image.resize`."""
    images = convert_to_tensor(images, name="images")
    U.check_dtype("ScaleAndTranslate", images, _RESIZE_TYPES, param="images")
    size = convert_to_tensor(size, dtype=D.int32)
    scale = convert_to_tensor(scale, dtype=D.float32)
    translation = convert_to_tensor(translation, dtype=D.float32)
    return apply(_ScaleAndTranslate, [images, size, scale, translation],
                 {"kernel_type": kernel_type, "antialias": bool(antialias)},
                 name=name or "ScaleAndTranslate")
