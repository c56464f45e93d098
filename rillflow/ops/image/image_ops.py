"""Image geometry: flips, rotations, crops and pads, random crops and flips,
`resize_with_pad` and `extract_patches` (`tf.image.*`), and `sobel_edges`.

Everything but `extract_patches` (TensorFlow's ExtractImagePatches op) is
a composition of existing ops, as in TensorFlow, so graphs, gradients and
dtype checks come from those ops. Checks that can be decided from static
shapes raise at once (ValueError, as TensorFlow's Python checks do); ones
that depend on runtime values become assertions in the graph.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core import shape_ops, join_ops, dim_ops
from ..core import math_ops as M
from ..core import op_util as U
from ..nn.conv_ops import _geometry, _scatter_windows, _windows
from ..core.creation_ops import name_scope
from ..control_flow.cond import case, cond
from ..core.gather_ops import reverse
from ..core.broadcast_ops import tile
from ..core.join_ops import concat, stack
from ..core.reduction_ops import reduce_all
from ..core.shape_ops import reshape
from ..core.slicing import slice as slice_
from ..core.split_pad_ops import pad
from ..core.unary_ops import floor, round as round_
from ..debugging.logging_ops import Assert
from ..random.stateful_ops import uniform
from ..random.stateless_ops import stateless_uniform
from ..nn.conv_ops import depthwise_conv2d
from .image_resize import resize

__all__ = ["flip_left_right", "flip_up_down", "rot90", "transpose", "central_crop",
           "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad",
           "resize_with_pad", "random_crop", "random_flip_left_right", "random_flip_up_down",
           "stateless_random_flip_left_right", "stateless_random_flip_up_down",
           "extract_patches"]


# --- shape checks --------------------------------------------------------------------

def _is_tensor(x):
    return isinstance(x, Tensor)


def _check_at_least_3d(image):
    """TensorFlow's static checks of an image of rank >= 3."""
    shape = image.shape
    if shape.rank is not None and shape.rank < 3:
        raise ValueError(f"'image' (shape {shape}) must be at least three-dimensional.")
    if shape.rank is not None and any(d == 0 for d in list(shape)[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")


def _require(cond, msg):
    """A check on Python values raises ValueError now; one on tensors
    becomes an assertion that raises InvalidArgumentError when it runs."""
    if _is_tensor(cond):
        Assert(cond, [msg])
    elif not cond:
        raise ValueError(msg)


def _as_batch(image):
    """(4-D image, whether the input was already a batch)."""
    image = convert_to_tensor(image, name="image")
    rank = image.shape.rank
    if rank == 3:
        return dim_ops.expand_dims(image, 0), False
    if rank is None:
        return _set_shape(dim_ops.expand_dims(image, 0), [None] * 4), False
    if rank != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


def _set_shape(t, dims):
    """Refines a graph tensor's static shape (eager tensors know theirs)."""
    if hasattr(t, "set_shape") and not hasattr(t, "numpy"):
        t.set_shape(dims)
    return t


def _dims4(image):
    """[batch, height, width, depth]: ints where static, else scalar tensors."""
    dyn = None
    out = []
    for a in range(4):
        d = image.shape[a] if image.shape.rank is not None else None
        if d is None:
            dyn = shape_ops.shape(image, out_type="int32") if dyn is None else dyn
            d = dyn[a]
        out.append(d)
    return out


def _max(x, y):
    return M.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def _min(x, y):
    return M.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def _unbatch(image, is_batch):
    return image if is_batch else dim_ops.squeeze(image, axis=[0])


# --- flips and rotations -------------------------------------------------------------

def _flip(image, axis, scope):
    with name_scope(scope):
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        rank = image.shape.rank
        if rank == 3:
            return reverse(image, [axis])
        if rank == 4:
            return reverse(image, [axis + 1])
        return reverse(image, [axis - 3])


@export("image.flip_left_right")
def flip_left_right(image):
    """Mirrors 3-D (HWC) or 4-D (NHWC) images horizontally (reverses width)."""
    return _flip(image, 1, "flip_left_right")


@export("image.flip_up_down")
def flip_up_down(image):
    """Mirrors 3-D (HWC) or 4-D (NHWC) images vertically (reverses height)."""
    return _flip(image, 0, "flip_up_down")


@export("image.rot90")
def rot90(image, k=1, name=None):
    """Rotates images counter-clockwise by `k` quarter turns (k may be a tensor).

    Raises:
      ValueError: for an image of rank other than 3 or 4.
    """
    with name_scope(name or "rot90"):
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        rank = image.shape.rank
        if rank not in (3, 4):
            raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 "
                             "dimensions.")
        o = rank - 3
        perm = list(range(o)) + [o + 1, o, o + 2]
        turns = [lambda: image,
                 lambda: dim_ops.transpose(reverse(image, [o + 1]), perm),
                 lambda: reverse(image, [o, o + 1]),
                 lambda: reverse(dim_ops.transpose(image, perm), [o + 1])]
        if not _is_tensor(k):
            return turns[int(k) % 4]()
        k = M.floormod(convert_to_tensor(k, D.int32, name="k"), 4)
        return case([(M.equal(k, i), turns[i]) for i in (1, 2, 3)], default=turns[0],
                    exclusive=True)


@export("image.transpose", "image.transpose_image")
def transpose(image, name=None):
    """Swaps the height and width of 3-D or 4-D images.

    Raises:
      ValueError: for an image of rank other than 3 or 4.
    """
    with name_scope(name or "transpose"):
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        rank = image.shape.rank
        if rank == 3:
            return dim_ops.transpose(image, [1, 0, 2])
        if rank == 4:
            return dim_ops.transpose(image, [0, 2, 1, 3])
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def _random_flip(image, axis, uniform, scope):
    with name_scope(scope):
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        rank = image.shape.rank
        if rank == 3:
            flip = M.less(uniform([]), 0.5)
            return cond(flip, lambda: reverse(image, [axis]), lambda: image)
        if rank == 4:
            batch = shape_ops.shape(image, out_type="int32")[0]
            flips = M.cast(round_(shape_ops.reshape(uniform(shape_ops.reshape(batch, [1])),
                                                    [-1, 1, 1, 1])),
                           image.dtype)
            return flips * reverse(image, [axis + 1]) + (1 - flips) * image
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def _stateful_uniform(seed):
    return lambda shape: uniform(shape, 0, 1.0, seed=seed)


def _stateless_uniform(seed):
    return lambda shape: stateless_uniform(shape, seed, 0, 1.0)


@export("image.random_flip_left_right")
def random_flip_left_right(image, seed=None):
    """Mirrors an image (each image of a batch independently) horizontally
    with probability 1/2."""
    return _random_flip(image, 1, _stateful_uniform(seed), "random_flip_left_right")


@export("image.random_flip_up_down")
def random_flip_up_down(image, seed=None):
    """Mirrors an image (each image of a batch independently) vertically
    with probability 1/2."""
    return _random_flip(image, 0, _stateful_uniform(seed), "random_flip_up_down")


@export("image.stateless_random_flip_left_right")
def stateless_random_flip_left_right(image, seed):
    """`random_flip_left_right` decided by the [2] int `seed` alone."""
    return _random_flip(image, 1, _stateless_uniform(seed), "stateless_random_flip_left_right")


@export("image.stateless_random_flip_up_down")
def stateless_random_flip_up_down(image, seed):
    """`random_flip_up_down` decided by the [2] int `seed` alone."""
    return _random_flip(image, 0, _stateless_uniform(seed), "stateless_random_flip_up_down")


# --- crops and pads ------------------------------------------------------------------

@export("image.central_crop")
def central_crop(image, central_fraction):
    """The central `central_fraction` (in (0, 1]) of each side of 3-D or 4-D images.

    Raises:
      ValueError: for a fraction outside (0, 1] or an image of another rank.
    """
    with name_scope("central_crop"):
        image = convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        _check_at_least_3d(image)
        rank = image.shape.rank
        if rank not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                             f"Had rank = {rank}.")
        o = rank - 3
        starts, sizes = [], []
        for a in (o, o + 1):
            d = image.shape[a]
            if d is None:
                d = shape_ops.shape(image, out_type="int32")[a]
                fd = M.cast(d, D.float64)
                start = M.cast((fd - fd * central_fraction) / 2, D.int32)
            else:
                start = int((float(d) - float(d) * central_fraction) / 2)
            starts.append(start)
            sizes.append(d - start * 2)
        begin = stack(([0] if rank == 4 else []) + starts + [0])
        size = stack(([-1] if rank == 4 else []) + sizes + [-1])
        out = slice_(image, begin, size)
        static = [None if _is_tensor(v) else v for v in sizes]
        return _set_shape(out, ([image.shape[0]] if rank == 4 else []) + static
                          + [image.shape[rank - 1]])


@export("image.crop_to_bounding_box")
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The `target_height` x `target_width` window of 3-D or 4-D images whose
    top-left corner is at (`offset_height`, `offset_width`).

    Raises:
      ValueError: (static shapes) for a window outside the image.
      InvalidArgumentError: (when it runs) for the same, with tensor sizes.
    """
    with name_scope("crop_to_bounding_box"):
        image, is_batch = _as_batch(image)
        _check_at_least_3d(image)
        batch, height, width, depth = _dims4(image)
        _require(_ge(offset_width, 0), "offset_width must be >= 0.")
        _require(_ge(offset_height, 0), "offset_height must be >= 0.")
        _require(_gt(target_width, 0), "target_width must be > 0.")
        _require(_gt(target_height, 0), "target_height must be > 0.")
        _require(_ge(width, _add(target_width, offset_width)),
                 "width must be >= target + offset.")
        _require(_ge(height, _add(target_height, offset_height)),
                 "height must be >= target + offset.")
        dyn = shape_ops.shape(image, out_type="int32")
        cropped = slice_(image, stack([0, offset_height, offset_width, 0]),
                         stack([dyn[0], target_height, target_width, dyn[3]]))
        cropped = _set_shape(cropped, [None if _is_tensor(v) else v for v in
                                           (batch, target_height, target_width, depth)])
        return _unbatch(cropped, is_batch)


def _ge(x, y):
    return M.greater_equal(x, y) if _is_tensor(x) or _is_tensor(y) else x >= y


def _gt(x, y):
    return M.greater(x, y) if _is_tensor(x) or _is_tensor(y) else x > y


def _add(x, y):
    return M.add(x, y) if _is_tensor(x) or _is_tensor(y) else x + y


def _sub(x, y):
    return M.subtract(x, y) if _is_tensor(x) or _is_tensor(y) else x - y


@export("image.pad_to_bounding_box")
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pads 3-D or 4-D images to `target_height` x `target_width`, with
    `offset_height` rows above and `offset_width` columns left of the image.

    Raises:
      ValueError: (static shapes) for an image that does not fit.
      InvalidArgumentError: (when it runs) for the same, with tensor sizes.
    """
    with name_scope("pad_to_bounding_box"):
        image, is_batch = _as_batch(image)
        _check_at_least_3d(image)
        batch, height, width, depth = _dims4(image)
        after_w = _sub(_sub(target_width, offset_width), width)
        after_h = _sub(_sub(target_height, offset_height), height)
        _require(_ge(offset_height, 0), "offset_height must be >= 0")
        _require(_ge(offset_width, 0), "offset_width must be >= 0")
        _require(_ge(after_w, 0), "width must be <= target - offset")
        _require(_ge(after_h, 0), "height must be <= target - offset")
        paddings = reshape(stack([0, 0, offset_height, after_h, offset_width, after_w, 0, 0]),
                           [4, 2])
        padded = pad(image, paddings)
        padded = _set_shape(padded, [None if _is_tensor(v) else v for v in
                                         (batch, target_height, target_width, depth)])
        return _unbatch(padded, is_batch)


@export("image.resize_with_crop_or_pad", "image.resize_image_with_crop_or_pad")
def resize_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops and/or zero-pads 3-D or 4-D images to `target_height`
    x `target_width`.

    Raises:
      ValueError: (static values) for a target size that is not positive.
    """
    with name_scope("resize_image_with_crop_or_pad"):
        image, is_batch = _as_batch(image)
        _check_at_least_3d(image)
        _require(_gt(target_width, 0), "target_width must be > 0.")
        _require(_gt(target_height, 0), "target_height must be > 0.")
        _, height, width, _ = _dims4(image)
        dw, dh = _sub(target_width, width), _sub(target_height, height)
        crop_w, pad_w = _max(_floordiv2(_neg(dw)), 0), _max(_floordiv2(dw), 0)
        crop_h, pad_h = _max(_floordiv2(_neg(dh)), 0), _max(_floordiv2(dh), 0)
        cropped = crop_to_bounding_box(image, crop_h, crop_w, _min(target_height, height),
                                       _min(target_width, width))
        resized = pad_to_bounding_box(cropped, pad_h, pad_w, target_height, target_width)
        return _unbatch(resized, is_batch)


def _neg(x):
    return M.negative(x) if _is_tensor(x) else -x


def _floordiv2(x):
    return M.floordiv(x, 2) if _is_tensor(x) else x // 2


@export("image.resize_with_pad")
def resize_with_pad(image, target_height, target_width, method="bilinear", antialias=False):
    """Resizes 3-D or 4-D images to fit in `target_height` x `target_width`
    keeping their aspect ratio, then zero-pads them to that size (centred).

    Raises:
      ValueError: for an image of another rank or a non-positive target size.
    """
    with name_scope("resize_image_with_pad"):
        image, is_batch = _as_batch(image)
        _check_at_least_3d(image)
        _require(_gt(target_width, 0), "target_width must be > 0.")
        _require(_gt(target_height, 0), "target_height must be > 0.")
        _, height, width, _ = _dims4(image)
        f = [M.cast(v, D.float32) for v in (height, width, target_height, target_width)]
        fh, fw, fth, ftw = f
        ratio = M.maximum(fw / ftw, fh / fth)
        rh, rw = fh / ratio, fw / ratio
        new_h, new_w = M.cast(floor(rh), D.int32), M.cast(floor(rw), D.int32)
        pad_h = M.maximum(0, M.cast(floor((fth - rh) / 2), D.int32))
        pad_w = M.maximum(0, M.cast(floor((ftw - rw) / 2), D.int32))
        resized = resize(image, join_ops.stack([new_h, new_w]), method, antialias=antialias)
        padded = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
        return _unbatch(padded, is_batch)


@export("image.random_crop", "random_crop")
def random_crop(value, size, seed=None, name=None):
    """A uniformly placed window of shape `size` from `value` (any rank).

    Raises:
      InvalidArgumentError: (when it runs) if `size` exceeds `value`'s shape.
    """
    with name_scope(name or "random_crop"):
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=D.int32, name="size")
        shape = shape_ops.shape(value, out_type="int32")
        Assert(reduce_all(M.greater_equal(shape, size)),
               ["Need value.shape >= size, got ", shape, size], summarize=1000)
        limit = shape - size + 1
        offset = M.floormod(uniform(shape_ops.shape(shape, out_type="int32"), dtype=D.int32,
                                    maxval=D.int32.max, seed=seed), limit)
        return slice_(value, offset, size)


# --- patches -------------------------------------------------------------------------

def _patch_geometry(shape, ksizes, strides, rates, padding):
    return _geometry(shape, ksizes[1:3], strides, rates, padding, ())


def _patches_kernel(images, ksizes, strides, rates, padding, T=None):
    if images.ndim != 4:
        raise U.op_error("ExtractImagePatches", f"input must be 4-dimensional"
                         f"[{','.join(str(d) for d in images.shape)}]")
    geo = _patch_geometry(images.shape, ksizes, strides, rates, padding)
    win = _windows(images, ksizes[1:3], strides, rates, geo)   # (N, OH, OW, C, KH, KW)
    n, oh, ow = win.shape[:3]
    return np.ascontiguousarray(win.transpose(0, 1, 2, 4, 5, 3)).reshape(n, oh, ow, -1)


def _patches_grad_kernel(grads, input_sizes, ksizes, strides, rates, padding, T=None):
    shape = tuple(int(d) for d in np.reshape(input_sizes, -1))
    geo = _patch_geometry(shape, ksizes, strides, rates, padding)
    n, oh, ow, _ = grads.shape
    cols = grads.reshape(n, oh, ow, ksizes[1], ksizes[2], shape[3])
    return _scatter_windows(cols, shape, ksizes[1:3], strides, rates, geo)


def _patches_infer(inputs, attrs):
    x = inputs[0].shape
    if x.rank is not None and x.rank != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.rank}")
    if x.rank is None:
        return [(TensorShape([None] * 4), inputs[0].dtype)]
    k = attrs["ksizes"]
    dims = [x[0]]
    for a in (1, 2):
        dims.append(None if x[a] is None else _patch_geometry(
            [1, x[1] or 1, x[2] or 1, 1], k, attrs["strides"], attrs["rates"],
            attrs["padding"])[a - 1][0])
    depth = None if x[3] is None else k[1] * k[2] * x[3]
    return [(TensorShape(dims + [depth]), inputs[0].dtype)]


def _patches_grad(op, grad):
    attrs = {k: op.get_attr(k) for k in ("ksizes", "strides", "rates", "padding")}
    return [apply(_ExtractImagePatchesGrad, [grad, shape_ops.shape(op.inputs[0], out_type="int32")],
                  attrs)]


def _patches_grad_infer(inputs, attrs):
    c = U.constant_value(inputs[1])
    shape = TensorShape([int(d) for d in np.reshape(c, -1)]) if c is not None \
        else TensorShape([None] * 4)
    return [(shape, inputs[0].dtype)]


def _patches_grad_grad(op, grad):
    attrs = {k: op.get_attr(k) for k in ("ksizes", "strides", "rates", "padding")}
    return [apply(_ExtractImagePatches, [grad], attrs), None]


_ExtractImagePatches = register("ExtractImagePatches", _patches_kernel, _patches_infer,
                                _patches_grad, allowed=U.REAL + U.COMPLEX + (D.bool_,))
# TensorFlow differentiates ExtractImagePatches through a sparse matrix
# product; here the transpose of the window gather is an op of its own.
_ExtractImagePatchesGrad = register("ExtractImagePatchesGrad", _patches_grad_kernel,
                                    _patches_grad_infer, _patches_grad_grad)


def _four(name, v):
    v = list(v)
    if len(v) != 4:
        raise ValueError(f"{name} must be a list of 4 ints, got {v}")
    return [int(x) for x in v]


@export("image.extract_patches")
def extract_patches(images, sizes, strides, rates, padding, name=None):
    """The `sizes[1]` x `sizes[2]` patches of NHWC `images`, every
    `strides`, sampled every `rates` pixels, flattened into the depth
    dimension (row, column, channel order) of an [N, rows, cols, ...] tensor.

    Raises:
      ValueError: for a padding other than "SAME" or "VALID".
    """
    if padding not in ("SAME", "VALID"):
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'padding' of \"{padding}\" is not in the list of "
            "allowed values: \"SAME\", \"VALID\"\n\t; NodeDef: {{node ExtractImagePatches}}")
    images = convert_to_tensor(images, name="images")
    attrs = {"ksizes": _four("ksizes", sizes), "strides": _four("strides", strides),
             "rates": _four("rates", rates), "padding": padding}
    if attrs["ksizes"][0] != 1 or attrs["ksizes"][3] != 1 or attrs["strides"][0] != 1 or \
            attrs["strides"][3] != 1 or attrs["rates"][0] != 1 or attrs["rates"][3] != 1:
        raise errors.UnimplementedError(
            None, None, "Only support ksizes across space.")
    return apply(_ExtractImagePatches, [images], attrs, name=name or "ExtractImagePatches")


# The vertical and horizontal Sobel filters, as [3, 3, 1, 2] (height, width,
# in channel, filter).
_SOBEL = np.expand_dims(np.transpose(np.array(
    [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]), (1, 2, 0)), -2)


@export("image.sobel_edges", "compat.v1.image.sobel_edges")
def sobel_edges(image):
    """The Sobel edge maps of a [batch, height, width, channels] float image:
    [batch, height, width, channels, 2], dy then dx for each channel,
    computed on the image padded by reflection (as TensorFlow, a depthwise
    convolution with the two 3 x 3 filters)."""
    image = convert_to_tensor(image)
    static_image_shape = image.shape
    image_shape = shape_ops.shape(image)
    filters = tile(convert_to_tensor(_SOBEL, dtype=image.dtype),
                   stack([1, 1, image_shape[-1], 1]), name="sobel_filters")
    padded = pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    output = reshape(output, concat([image_shape, [2]], 0))
    output.set_shape(static_image_shape.concatenate([2]))
    return output
