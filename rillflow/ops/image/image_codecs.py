"""Image files: `tf.io.decode_png`, `decode_jpeg`, `decode_gif`, `decode_bmp`,
`decode_image`, `decode_and_crop_jpeg`, `encode_png`, `encode_jpeg`,
`extract_jpeg_shape`, `is_jpeg` (also under `tf.image`), and
`tf.image.adjust_jpeg_quality` with its random variants.

As in TensorFlow 2.21, every decode op is one kernel that recognizes the
format from the first bytes and only refuses the combinations TensorFlow
refuses (a BMP through DecodePng, an animated GIF through DecodeJpeg, ...),
with TensorFlow's messages. The formats are in rillflow/io/: png.py and
gif.py (GIF and BMP) in NumPy, jpeg.py through Pillow (the `image` extra).
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ...io import gif as _gif
from ...io import jpeg as _jpeg
from ...io import png as _png
from ...io import webp as _webp
from ..core.op_util import tf_type_name
from ..core import math_ops
from ..core.creation_ops import name_scope
from ..random import stateful_ops, stateless_ops
from ..strings.string_ops import substr
from .image_color import convert_image_dtype

_STRING = (D.string,)


def _invalid(msg):
    return _errors.InvalidArgumentError(None, None, msg)


def _format(data):
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == _png.SIGNATURE:
        return "PNG"
    if data[:3] == b"GIF":
        return "GIF"
    if data[:2] == b"BM":
        return "BMP"
    if _webp.is_webp(data):
        return "WebP"
    return None


def _decode_webp(op_type, data, channels, dtype, expand_animations):
    """Every decode op decodes WebP alike: uint8 [frames, height, width, 3
    or 4] (the file's alpha decides for channels=0), the first frame alone
    for decode_image(expand_animations=False)."""
    if channels not in (0, 1, 3, 4):
        raise _invalid(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    if channels == 1:
        raise _invalid("WebP only supports 3 or 4 channels")
    if dtype is not D.uint8:
        raise _invalid("WebP only supports uint8 for dtype")
    try:
        has_alpha, animated = _webp.webp_features(data)
        file_channels = 4 if has_alpha else 3
        if channels and channels != file_channels:
            raise _invalid("Number of channels requested does not match input")
        if animated and channels and channels != 4:
            raise _invalid("WebP Animation must be 4 channel RGBA")
        px = _webp.decode_webp(data, channels or file_channels)
    except _webp.WebpError as e:
        raise _invalid(str(e)) from None
    if op_type == "DecodeImage" and not expand_animations:
        px = px[0]
    return px


_CHANNEL_RULES = {
    "JPEG": ((0, 1, 3), lambda c: "JPEG does not support 4 channels" if c == 4 else
             f"channels must be 0, 1, or 3 for JPEG, got {c}"),
    "PNG": ((0, 1, 3, 4), lambda c: f"channels must be 0, 1, 3, or 4 for PNG, got {c}"),
    "GIF": ((0, 3), lambda c: f"channels must be 0 or 3 for GIF, got {c}"),
    "BMP": ((0, 3, 4), lambda c: f"`channels` must be 0, 3 or 4 for BMP, but got {c}"),
}
_RIGHT_OP = {"JPEG": "decode_jpeg", "PNG": "decode_png", "GIF": "decode_gif"}


def _to_channels(px, channels):
    """8-bit pixels with `channels` channels (gray replicated, alpha 255 added
    or dropped), as TensorFlow's BMP path converts."""
    c = px.shape[-1]
    if not channels or channels == c:
        return px
    if c == 1:
        px = np.concatenate([px] * 3, -1)
    if channels == 3:
        return px[..., :3]
    return np.concatenate([px[..., :3], np.full(px.shape[:-1] + (1,), 255, px.dtype)], -1)


def _decode(op_type, contents, channels=0, dtype=D.uint8, expand_animations=True, ratio=1,
            try_recover_truncated=False, crop_window=None):
    """The DecodeImageV2 kernel shared by every decode op."""
    data = contents.item() if isinstance(contents, np.ndarray) else contents
    data = bytes(data)
    if not data:
        raise _invalid("Input is empty.")
    fmt = _format(data)
    if fmt is None:
        raise _invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP "
                       "required.")
    if fmt == "WebP":
        return _decode_webp(op_type, data, channels, dtype, expand_animations)
    allowed, message = _CHANNEL_RULES[fmt]
    if channels not in allowed:
        raise _invalid(message(channels))
    if op_type == "DecodeBmp" and fmt != "BMP":
        raise _invalid(f"Trying to decode {fmt} format using DecodeBmp op. Use "
                       f"`{_RIGHT_OP[fmt]}` or `decode_image` instead.")
    if fmt == "BMP" and op_type not in ("DecodeBmp", "DecodeImage"):
        raise _invalid("Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                       f"`decode_image` instead. Op used: {op_type}")
    want16 = dtype in (D.uint16, D.float32)
    if op_type == "DecodeGif" and fmt != "GIF":
        channels = 3   # DecodeGif's frames are RGB whatever the file
    try:
        if fmt == "PNG":
            px = _png.decode_png(data, channels, np.uint16 if want16 else np.uint8)
            top = 65535 if want16 else 255
        elif fmt == "JPEG":
            px = _jpeg.decode_jpeg(data, channels, ratio, try_recover_truncated)
            top = 255
        elif fmt == "BMP":
            px = _to_channels(_gif.decode_bmp(data), channels)
            top = 255
        else:
            px = _gif.decode_gif(data)
            top = 255
            if op_type in ("DecodeJpeg", "DecodePng", "DecodeAndCropJpeg") or (
                    op_type == "DecodeImage" and not expand_animations):
                if px.shape[0] > 1 and op_type != "DecodeImage":
                    raise _invalid(f"Got {px.shape[0]} frames, but animated gifs can only be "
                                   "decoded by tf.io.decode_gif or tf.io.decode_image")
                px = px[0]
    except (_png.PngError, _gif.GifError, _jpeg.JpegError) as e:
        raise _invalid(str(e)) from None
    if crop_window is not None:
        y, x, h, w = (int(v) for v in crop_window)
        if h <= 0 or w <= 0 or y < 0 or x < 0 or y + h > px.shape[0] or x + w > px.shape[1]:
            raise _invalid("jpeg::Uncompress failed. Invalid JPEG data or crop window.")
        px = px[y:y + h, x:x + w]
    if op_type == "DecodeGif" and px.ndim == 3:
        px = px[None]
    if dtype is D.float32:
        # TensorFlow multiplies by the reciprocal (not the same bits as dividing).
        return px.astype(np.float32) * np.float32(1.0 / top)
    if dtype is D.uint16 and top == 255:
        return px.astype(np.uint16) * np.uint16(257)
    return px


def _decode_infer(rank, channels_attr="channels"):
    def infer(inputs, attrs):
        if inputs[0].shape.rank not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {inputs[0].shape.rank}")
        ch = attrs.get(channels_attr) or None
        dtype = attrs.get("dtype", D.uint8)
        if rank == 4:
            return [(TensorShape([None, None, None, 3]), D.uint8)]
        if rank is None and attrs.get("expand_animations", True):
            return [(TensorShape(None), dtype)]
        return [(TensorShape([None, None, ch]), dtype)]
    return infer


def _jpeg_kernel(op_type):
    def kernel(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
               acceptable_fraction=1.0, dct_method=""):
        return _decode(op_type, contents, channels, D.uint8, ratio=ratio,
                       try_recover_truncated=try_recover_truncated)
    return kernel


_DecodeJpeg = register("DecodeJpeg", _jpeg_kernel("DecodeJpeg"), _decode_infer(3))
_DecodePng = register(
    "DecodePng", lambda contents, channels=0, dtype=D.uint8: _decode(
        "DecodePng", contents, channels, dtype), _decode_infer(3))
_DecodeGif = register("DecodeGif", lambda contents: _decode("DecodeGif", contents),
                      _decode_infer(4))
_DecodeBmp = register("DecodeBmp", lambda contents, channels=0: _decode(
    "DecodeBmp", contents, channels), _decode_infer(3))
_DecodeWebP = register(
    "DecodeWebP", lambda contents, channels=0, dtype=D.uint8: _decode(
        "DecodeWebP", contents, channels, dtype),
    lambda inputs, attrs: [(TensorShape([None, None, None, attrs.get("channels") or None]),
                            D.uint8)])
_DecodeImage = register(
    "DecodeImage", lambda contents, channels=0, dtype=D.uint8, expand_animations=True: _decode(
        "DecodeImage", contents, channels, dtype, expand_animations), _decode_infer(None))


def _crop_kernel(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                 try_recover_truncated=False, acceptable_fraction=1.0, dct_method=""):
    window = np.asarray(crop_window).reshape(-1)
    if window.size != 4:
        raise _invalid(f"crop_window must be shape [4], but got shape {list(np.shape(crop_window))}")
    return _decode("DecodeAndCropJpeg", contents, channels, ratio=ratio,
                   try_recover_truncated=try_recover_truncated, crop_window=window)


_DecodeAndCropJpeg = register("DecodeAndCropJpeg", _crop_kernel, _decode_infer(3))


def _contents(contents):
    t = convert_to_tensor(contents, D.string)
    return t


@export("io.decode_jpeg", "image.decode_jpeg")
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """The uint8 [height, width, channels] pixels of a JPEG (also of a PNG,
    BMP-free data or single-frame GIF, as TensorFlow's op decodes those too).

    Args:
      contents: a scalar string tensor, the file's bytes.
      channels: 0 (the file's), 1 (gray) or 3 (RGB).
      ratio: downscaling while decoding: 1, 2, 4 or 8.
      fancy_upscaling, acceptable_fraction: accepted; see io/jpeg.py.
      try_recover_truncated: decode what a truncated file holds.
      dct_method: "", "INTEGER_FAST" or "INTEGER_ACCURATE"; all decode with
        libjpeg's accurate IDCT (TensorFlow's "INTEGER_ACCURATE"), see
        docs/image_codecs.md.

    Raises:
      InvalidArgumentError: for data that is not an image it can decode.
    """
    attrs = {"channels": int(channels), "ratio": int(ratio),
             "fancy_upscaling": bool(fancy_upscaling),
             "try_recover_truncated": bool(try_recover_truncated),
             "acceptable_fraction": float(acceptable_fraction), "dct_method": str(dct_method)}
    return apply(_DecodeJpeg, [_contents(contents)], attrs, name=name or "DecodeJpeg")


@export("io.decode_and_crop_jpeg", "image.decode_and_crop_jpeg")
def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="",
                         name=None):
    """`decode_jpeg` of the window `crop_window` ([y, x, height, width]) only.

    Raises:
      InvalidArgumentError: a window outside the image, or undecodable data.
    """
    attrs = {"channels": int(channels), "ratio": int(ratio),
             "fancy_upscaling": bool(fancy_upscaling),
             "try_recover_truncated": bool(try_recover_truncated),
             "acceptable_fraction": float(acceptable_fraction), "dct_method": str(dct_method)}
    return apply(_DecodeAndCropJpeg, [_contents(contents), convert_to_tensor(crop_window,
                                                                             D.int32)],
                 attrs, name=name or "DecodeAndCropJpeg")


@export("io.decode_png", "image.decode_png")
def decode_png(contents, channels=0, dtype=D.uint8, name=None):
    """The [height, width, channels] pixels of a PNG, uint8 or uint16, with
    libpng's conversions (exact; see rillflow/io/png.py).

    Raises:
      InvalidArgumentError: for data that is not an image it can decode.
    """
    dtype = D.as_dtype(dtype)
    return apply(_DecodePng, [_contents(contents)], {"channels": int(channels), "dtype": dtype},
                 name=name or "DecodePng")


@export("io.decode_gif", "image.decode_gif")
def decode_gif(contents, name=None):
    """The uint8 [frames, height, width, 3] frames of a GIF (each drawn over
    the previous one, as TensorFlow draws them).

    Raises:
      InvalidArgumentError: for data that is not an image it can decode.
    """
    return apply(_DecodeGif, [_contents(contents)], {}, name=name or "DecodeGif")


@export("io.decode_bmp", "image.decode_bmp")
def decode_bmp(contents, channels=0, name=None):
    """The uint8 [height, width, channels] pixels of a BMP (channels 0, 3 or 4).

    Raises:
      InvalidArgumentError: for data that is not a BMP it can decode.
    """
    return apply(_DecodeBmp, [_contents(contents)], {"channels": int(channels)},
                 name=name or "DecodeBmp")


@export("io.decode_webp", "image.decode_webp", "compat.v1.io.decode_webp",
        "compat.v1.image.decode_webp")
def decode_webp(contents, channels=0, dtype=D.uint8, name=None):
    """The uint8 [frames, height, width, channels] pixels of a WebP file (one
    frame for a still image), through Pillow's libwebp (the `image` extra).

    Args:
      contents: a scalar string tensor, the file's bytes.
      channels: 0 (the file's: 4 with alpha, else 3), 3 or 4 (which must be
        the file's).
      dtype: uint8 only.

    Raises:
      InvalidArgumentError: for other channels or dtypes, or data it cannot
        decode.
    """
    dtype = D.as_dtype(dtype)
    if dtype is not D.uint8:
        raise _invalid(f"Value for attr 'dtype' of {tf_type_name(dtype)} is not in the list "
                       "of allowed values: uint8")
    return apply(_DecodeWebP, [_contents(contents)], {"channels": int(channels), "dtype": dtype},
                 name=name or "DecodeWebP")


@export("io.decode_image", "image.decode_image")
def decode_image(contents, channels=None, dtype=D.uint8, name=None, expand_animations=True):
    """Any of the formats: [height, width, channels], or [frames, height,
    width, 3] for a GIF unless `expand_animations=False` (its first frame).
    `dtype` float32 scales to [0, 1]; other dtypes go through
    `convert_image_dtype` from uint16.

    Raises:
      InvalidArgumentError: for data that is not an image it can decode.
    """
    with name_scope(name or "decode_image"):
        channels = 0 if channels is None else channels
        dtype = D.as_dtype(dtype)
        decode_dtype = dtype if dtype in (D.float32, D.uint8, D.uint16) else D.uint16
        image = apply(_DecodeImage, [_contents(contents)],
                      {"channels": int(channels), "dtype": decode_dtype,
                       "expand_animations": bool(expand_animations)}, name="DecodeImage")
        if decode_dtype != dtype:
            image = convert_image_dtype(image, dtype)
        return image


# --- encoding ------------------------------------------------------------------------------------

def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _encode_png_kernel(image, compression=-1):
    # A batch of images ([..., height, width, channels]) gives a batch of strings.
    if image.ndim < 3:
        raise _invalid(f"images must be at least rank 3{_dims(image.shape)}")
    if image.shape[-1] not in (1, 2, 3, 4):
        raise _invalid(f"images must have 1, 2, 3, or 4 channels, got {image.shape[-1]}")
    flat = image.reshape((int(np.prod(image.shape[:-3])),) + image.shape[-3:])
    out = np.empty(len(flat), dtype=object)
    failed = []
    for i, im in enumerate(flat):
        if im.size == 0:
            failed.append(i)   # libpng refuses an empty image
        else:
            out[i] = _png.encode_png(im, compression)
    if failed:
        raise _errors.InternalError(None, None, "PNG encoding failed at the following "
                                    "flattened batch indices: " + ", ".join(map(str, failed)))
    return out.reshape(image.shape[:-3])


def _encode_infer(inputs, attrs):
    s = inputs[0].shape
    return [(TensorShape(None) if s.rank is None else s[:-3], D.string)]


_EncodePng = register("EncodePng", _encode_png_kernel, _encode_infer,
                      allowed=(D.uint8, D.uint16))


@export("io.encode_png", "image.encode_png")
def encode_png(image, compression=-1, name=None):
    """The PNG bytes of a uint8 or uint16 [height, width, channels] image
    (TensorFlow's bytes: libpng's filters and zlib settings); a batch of
    images [..., height, width, channels] gives a batch of strings.

    Raises:
      InvalidArgumentError: for an image of rank < 3 or not 1 to 4 channels.
      InternalError: for an empty image.
    """
    image = convert_to_tensor(image)
    return apply(_EncodePng, [image], {"compression": int(compression)},
                 name=name or "EncodePng")


def _encode_jpeg_kernel(image, format="", quality=95, progressive=False,  # noqa: A002
                        optimize_size=False, chroma_downsampling=True, density_unit="in",
                        x_density=300, y_density=300, xmp_metadata=""):
    if image.ndim != 3:
        raise _invalid(f"image must be 3-dimensional{_dims(image.shape)}")
    c = image.shape[2]
    want = {"grayscale": 1, "rgb": 3}.get(format)
    if want is None and c not in (1, 3):
        raise _invalid(f"image must have 1 or 3 channels, got {_dims(image.shape)}")
    if want is not None and c != want:
        raise _invalid(f"format {format} expects {want} channels, got {_dims(image.shape)}")
    if not 0 <= quality <= 100:
        raise _invalid(f"quality must be in [0,100], got {quality}")
    return np.array(_jpeg.encode_jpeg(image, quality, progressive, optimize_size,
                                      chroma_downsampling, density_unit, x_density, y_density,
                                      xmp_metadata), dtype=object)


_EncodeJpeg = register("EncodeJpeg", _encode_jpeg_kernel,
                       lambda i, a: [(TensorShape([]), D.string)], allowed=(D.uint8,))
_EncodeJpegVariableQuality = register(
    "EncodeJpegVariableQuality",
    lambda images, quality: _encode_jpeg_kernel(images, quality=int(quality)),
    lambda i, a: [(TensorShape([]), D.string)], allowed=(D.uint8,))


@export("io.encode_jpeg", "image.encode_jpeg")
def encode_jpeg(image, format="", quality=95, progressive=False,  # noqa: A002
                optimize_size=False, chroma_downsampling=True, density_unit="in",
                x_density=300, y_density=300, xmp_metadata="", name=None):
    """The JPEG bytes of a uint8 [height, width, 1 or 3] image (TensorFlow's
    bytes: libjpeg-turbo through Pillow with TensorFlow's settings).

    Raises:
      InvalidArgumentError: a bad channel count or quality.
    """
    attrs = {"format": format, "quality": int(quality), "progressive": bool(progressive),
             "optimize_size": bool(optimize_size),
             "chroma_downsampling": bool(chroma_downsampling), "density_unit": density_unit,
             "x_density": int(x_density), "y_density": int(y_density),
             "xmp_metadata": xmp_metadata}
    return apply(_EncodeJpeg, [convert_to_tensor(image)], attrs, name=name or "EncodeJpeg")


# --- the header ----------------------------------------------------------------------------------

def _shape_kernel(contents, output_type=D.int32):
    data = bytes(contents.item() if isinstance(contents, np.ndarray) else contents)
    try:
        return np.array(_jpeg.jpeg_shape(data), output_type.as_numpy_dtype)
    except _jpeg.JpegError as e:
        raise _invalid(str(e)) from None


_ExtractJpegShape = register(
    "ExtractJpegShape", _shape_kernel,
    lambda i, a: [(TensorShape([3]), a.get("output_type", D.int32))])


@export("io.extract_jpeg_shape", "image.extract_jpeg_shape")
def extract_jpeg_shape(contents, output_type=D.int32, name=None):
    """[height, width, channels] of a JPEG, read from its header.

    Raises:
      InvalidArgumentError: if the data has no JPEG frame header.
    """
    return apply(_ExtractJpegShape, [_contents(contents)],
                 {"output_type": D.as_dtype(output_type)}, name=name or "ExtractJpegShape")


@export("io.is_jpeg", "image.is_jpeg")
def is_jpeg(contents, name=None):
    """Whether the data starts like a JPEG (`\\xff\\xd8\\xff`): a bool tensor."""
    with name_scope(name or "is_jpeg"):
        return math_ops.equal(substr(contents, 0, 3), b"\xff\xd8\xff", name=name)


# --- JPEG quality ----------------------------------------------------------------------------------

@export("image.adjust_jpeg_quality")
def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None):
    """The image after a JPEG round trip at `jpeg_quality` (0-100), in its own
    dtype (see `decode_jpeg` for the IDCT used)."""
    with name_scope(name or "adjust_jpeg_quality"):
        image = convert_to_tensor(image)
        channels = image.shape.as_list()[-1]
        orig = image.dtype
        image = convert_image_dtype(image, D.uint8, saturate=True)
        quality = convert_to_tensor(jpeg_quality, D.int32)
        encoded = apply(_EncodeJpegVariableQuality, [image, quality], {},
                        name="EncodeJpegVariableQuality")
        image = decode_jpeg(encoded, channels=channels, dct_method=dct_method)
        return convert_image_dtype(image, orig, saturate=True)


def _check_quality_range(lo, hi):
    if lo < 0 or hi < 0 or lo > 100 or hi > 100:
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if lo >= hi:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


@export("image.random_jpeg_quality")
def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None):
    """`adjust_jpeg_quality` at a quality drawn uniformly from
    [min_jpeg_quality, max_jpeg_quality).

    Raises:
      ValueError: for a range outside [0, 100] or an empty one.
    """
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    q = stateful_ops.uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=D.int32)
    return adjust_jpeg_quality(image, q)


@export("image.stateless_random_jpeg_quality")
def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed):
    """`adjust_jpeg_quality` at a quality drawn from [min, max) with the
    stateless generator and `seed` (shape [2]).

    Raises:
      ValueError: for a range outside [0, 100] or an empty one.
    """
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    q = stateless_ops.stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality,
                                        dtype=D.int32)
    return adjust_jpeg_quality(image, q)
