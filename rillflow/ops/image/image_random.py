"""`tf.image`'s stateless random adjustments (`stateless_random_brightness`,
`_contrast`, `_hue`, `_saturation`, `_crop`) and the YIQ color space
(`rgb_to_yiq`, `yiq_to_rgb`), compositions of the public ops as TensorFlow
writes them: the random draws are `tf.random.stateless_uniform`'s, so the
values are TensorFlow's for the same seed."""
from ...framework import dtypes as D
from ...framework.api_export import EXPORTS, export
from ...framework.convert import convert_to_tensor
from ..core.creation_ops import name_scope
from ..random.stateless_ops import stateless_uniform

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]


def _convert(images, kernel):
    images = convert_to_tensor(images, name="images")
    k = convert_to_tensor(kernel, dtype=images.dtype, name="kernel")
    ndims = images.shape.rank
    return EXPORTS["tensordot"](images, k, axes=[[ndims - 1], [0]])


@export("image.rgb_to_yiq")
def rgb_to_yiq(images):
    """RGB (last dimension 3) to YIQ, by TensorFlow's 3x3 matrix."""
    return _convert(images, _RGB_TO_YIQ)


@export("image.yiq_to_rgb")
def yiq_to_rgb(images):
    """YIQ (last dimension 3) to RGB, by TensorFlow's 3x3 matrix."""
    return _convert(images, _YIQ_TO_RGB)


@export("image.stateless_random_brightness")
def stateless_random_brightness(image, max_delta, seed):
    """`adjust_brightness` by a delta drawn from [-max_delta, max_delta).

    Raises:
      ValueError: for a negative `max_delta`.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = stateless_uniform(shape=[], minval=-max_delta, maxval=max_delta, seed=seed)
    return EXPORTS["image.adjust_brightness"](image, delta)


@export("image.stateless_random_contrast")
def stateless_random_contrast(image, lower, upper, seed):
    """`adjust_contrast` by a factor drawn from [lower, upper).

    Raises:
      ValueError: for upper <= lower or a negative lower.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = stateless_uniform(shape=[], minval=lower, maxval=upper, seed=seed)
    return EXPORTS["image.adjust_contrast"](image, factor)


@export("image.stateless_random_hue")
def stateless_random_hue(image, max_delta, seed):
    """`adjust_hue` by a delta drawn from [-max_delta, max_delta).

    Raises:
      ValueError: for `max_delta` outside [0, 0.5].
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = stateless_uniform(shape=[], minval=-max_delta, maxval=max_delta, seed=seed)
    return EXPORTS["image.adjust_hue"](image, delta)


@export("image.stateless_random_saturation")
def stateless_random_saturation(image, lower, upper, seed=None):
    """`adjust_saturation` by a factor drawn from [lower, upper).

    Raises:
      ValueError: for upper <= lower or a negative lower.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = stateless_uniform(shape=[], minval=lower, maxval=upper, seed=seed)
    return EXPORTS["image.adjust_saturation"](image, factor)


@export("image.stateless_random_crop")
def stateless_random_crop(value, size, seed, name=None):
    """A slice of `value` of shape `size` at an offset drawn with `seed`.

    Raises:
      InvalidArgumentError: if `value` is smaller than `size`.
    """
    with name_scope(name or "random_crop"):
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=D.int32, name="size")
        shape = EXPORTS["shape"](value)
        check = EXPORTS["debugging.Assert"](
            EXPORTS["reduce_all"](shape >= size),
            ["Need value.shape >= size, got ", shape, size], summarize=1000)
        with EXPORTS["control_dependencies"]([check]):
            shape = EXPORTS["identity"](shape)
        limit = shape - size + 1
        offset = stateless_uniform(EXPORTS["shape"](shape), dtype=size.dtype,
                                   maxval=size.dtype.max, seed=seed) % limit
        return EXPORTS["slice"](value, offset, size, name=name)
