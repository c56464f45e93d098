"""Image metrics: `total_variation`, `image_gradients`, `psnr`, `ssim` and
`ssim_multiscale`, compositions of existing ops as in TensorFlow (the ops of
other families that MS-SSIM uses are looked up in the export table when called)."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import EXPORTS, export
from ...framework.convert import convert_to_tensor
from ..core import shape_ops, constant_ops, join_ops, broadcast_ops
from ..core import math_ops as M
from ..core.creation_ops import name_scope
from .image_color import convert_image_dtype
from ..core.creation_ops import range as range_
from ..core.reduction_ops import reduce_all, reduce_mean, reduce_sum
from ..core.unary_ops import abs as abs_, log
from ..debugging.logging_ops import Assert
from ..nn.conv_ops import depthwise_conv2d
from ..nn.softmax_losses import softmax

__all__ = ["total_variation", "image_gradients", "psnr", "ssim"]


@export("image.total_variation")
def total_variation(images, name=None):
    """Sum of absolute differences between neighbouring pixels, per image
    for a 4-D batch, a scalar for one 3-D image.

    Raises:
      ValueError: for images of rank other than 3 or 4.
    """
    with name_scope(name or "total_variation"):
        images = convert_to_tensor(images, name="images")
        rank = images.shape.rank
        if rank == 3:
            d1 = images[1:, :, :] - images[:-1, :, :]
            d2 = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif rank == 4:
            d1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            d2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return reduce_sum(abs_(d1), axis=axis) + reduce_sum(abs_(d2), axis=axis)


@export("image.image_gradients")
def image_gradients(image):
    """Forward differences (dy, dx) of an NHWC batch, each the image's
    shape, zero in the last row (dy) or column (dx).

    Raises:
      ValueError: for an image that is not 4-D.
    """
    image = convert_to_tensor(image, name="image")
    if image.shape.rank != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.shape}.")
    shape = shape_ops.shape(image, out_type="int32")
    n, h, w, d = shape[0], shape[1], shape[2], shape[3]
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = shape_ops.reshape(join_ops.concat(
        [dy, constant_ops.zeros(join_ops.stack([n, 1, w, d]), image.dtype)], 1), shape)
    dx = shape_ops.reshape(join_ops.concat(
        [dx, constant_ops.zeros(join_ops.stack([n, h, 1, d]), image.dtype)], 2), shape)
    return dy, dx


def _verify_compatible(a, b):
    s1, s2 = a.shape, b.shape
    for s in (s1, s2):
        if s.rank is not None and s.rank < 3:
            raise ValueError(f"Shape {s} must have rank at least 3")
    if s1.rank is None or s2.rank is None:
        return
    if not _dims_compatible(list(s1)[-3:], list(s2)[-3:]):
        raise ValueError(f"Shapes {s1} and {s2} are incompatible")
    for d1, d2 in zip(reversed(list(s1)[:-3]), reversed(list(s2)[:-3])):
        if not (d1 == 1 or d2 == 1 or d1 is None or d2 is None or d1 == d2):
            raise ValueError(f"Two images are not compatible: {s1} and {s2}")


def _dims_compatible(a, b):
    """Whether two lists of static dims (None = unknown) can be equal."""
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


@export("image.psnr")
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio between images `a` and `b` (over the last
    three dimensions), with `max_val` the dynamic range of their dtype."""
    with name_scope(name or "PSNR"):
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        max_val = convert_image_dtype(M.cast(max_val, a.dtype), D.float32)
        a = convert_image_dtype(a, D.float32)
        b = convert_image_dtype(b, D.float32)
        mse = reduce_mean(M.squared_difference(a, b), [-3, -2, -1])
        # TensorFlow checks the shapes after computing (a broadcast error
        # comes first).
        _verify_compatible(a, b)
        return M.subtract(20 * log(max_val) / log(10.0), np.float32(10 / np.log(10)) * log(mse))


def _fspecial_gauss(size, sigma):
    size = convert_to_tensor(size, D.int32)
    sigma = convert_to_tensor(sigma)
    coords = M.cast(range_(size), sigma.dtype)
    coords -= M.cast(size - 1, sigma.dtype) / 2.0
    g = coords * coords
    g *= -0.5 / (sigma * sigma)
    g = shape_ops.reshape(g, [1, -1]) + shape_ops.reshape(g, [-1, 1])
    g = softmax(shape_ops.reshape(g, [1, -1]))
    return shape_ops.reshape(g, join_ops.stack([size, size, 1, 1]))


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2):
    size = convert_to_tensor(filter_size, D.int32)
    sigma = convert_to_tensor(filter_sigma, img1.dtype)
    for img in (img1, img2):
        shape = shape_ops.shape(img, out_type="int32")
        Assert(reduce_all(M.greater_equal(shape[-3:-1], size)), [shape, size], summarize=8)
    kernel = _fspecial_gauss(size, sigma)
    kernel = broadcast_ops.tile(
        kernel, join_ops.stack([1, 1, shape_ops.shape(img1, out_type="int32")[-1], 1]))

    def reducer(x):
        shape = shape_ops.shape(x, out_type="int32")
        x = shape_ops.reshape(x, join_ops.concat([[-1], shape[-3:]], 0))
        y = depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return shape_ops.reshape(
            y, join_ops.concat([shape[:-3], shape_ops.shape(y, out_type="int32")[1:]], 0))

    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = mean0 * mean0 + mean1 * mean1
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(img1 * img1 + img2 * img2)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return reduce_mean(luminance * cs, [-3, -2]), reduce_mean(cs, [-3, -2])


@export("image.ssim")
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity of two images (or batches), averaged over
    channels: Gaussian-weighted local statistics in an 11x11 window.

    Raises:
      NotImplementedError: for `return_index_map=True`.
    """
    if return_index_map:
        raise NotImplementedError("ssim(return_index_map=True) is not supported")
    with name_scope("SSIM"):
        img1 = convert_to_tensor(img1, name="img1")
        img2 = convert_to_tensor(img2, name="img2")
        _verify_compatible(img1, img2)
        max_val = convert_image_dtype(M.cast(max_val, img1.dtype), D.float32)
        img1 = convert_image_dtype(img1, D.float32)
        img2 = convert_image_dtype(img2, D.float32)
        per_channel = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1,
                                        k2)[0]
        return reduce_mean(per_channel, [-1])


# The weights of the five scales of Wang, Simoncelli and Bovik's MS-SSIM.
_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


@export("image.ssim_multiscale")
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM: the contrast-structure terms of successive 2x
    average-pooled scales (symmetric padding to even sizes) and the SSIM of
    the last, raised to `power_factors` and multiplied; averaged over channels."""
    with name_scope("MS-SSIM"):
        img1 = convert_to_tensor(img1, name="img1")
        img2 = convert_to_tensor(img2, name="img2")
        _verify_compatible(img1, img2)
        max_val = convert_image_dtype(M.cast(max_val, img1.dtype), D.float32)
        imgs = [convert_image_dtype(img1, D.float32), convert_image_dtype(img2, D.float32)]
        shapes = [shape_ops.shape(x, out_type="int32") for x in imgs]
        heads = [s_[:-3] for s_ in shapes]
        tails = [s_[-3:] for s_ in shapes]
        divisor = [1, 2, 2, 1]
        divisor_tensor = convert_to_tensor(divisor[1:], D.int32)

        def do_pad(images, remainder):
            padding = EXPORTS["expand_dims"](remainder, -1)
            padding = EXPORTS["pad"](padding, [[1, 0], [1, 0]])
            return [EXPORTS["pad"](x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        for k in range(len(power_factors)):
            with name_scope("Scale%d" % k):
                if k > 0:
                    flat = [shape_ops.reshape(x, join_ops.concat([[-1], t], 0))
                            for x, t in zip(imgs, tails)]
                    remainder = tails[0] % divisor_tensor
                    need_padding = EXPORTS["reduce_any"](M.not_equal(remainder, 0))
                    padded = EXPORTS["cond"](need_padding, lambda: do_pad(flat, remainder),
                                             lambda: flat)
                    down = [EXPORTS["nn.avg_pool"](x, ksize=divisor, strides=divisor,
                                                   padding="VALID") for x in padded]
                    tails = [x[1:] for x in EXPORTS["shape_n"](down)]
                    imgs = [shape_ops.reshape(x, join_ops.concat([h, t], 0))
                            for x, h, t in zip(down, heads, tails)]
                per_channel, cs = _ssim_per_channel(*imgs, max_val=max_val,
                                                    filter_size=filter_size,
                                                    filter_sigma=filter_sigma, k1=k1, k2=k2)
                mcs.append(EXPORTS["nn.relu"](cs))
        mcs.pop()  # the last scale contributes its SSIM, not its cs
        both = join_ops.stack(mcs + [EXPORTS["nn.relu"](per_channel)], axis=-1)
        ms = EXPORTS["reduce_prod"](EXPORTS["pow"](both, power_factors), [-1])
        return reduce_mean(ms, [-1])
