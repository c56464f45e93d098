"""JPEG for `tf.io.decode_jpeg` / `encode_jpeg`: the header parsed here, the
pixels through Pillow (the optional `image` extra), which runs libjpeg-turbo
as TensorFlow does.

Encoding gives TensorFlow's bytes: the same libjpeg settings (quality,
4:2:0 or 4:4:4 chroma, progressive, optimized Huffman tables, JFIF density;
TensorFlow writes an XMP packet as an APP1 marker after JFIF).

Decoding is libjpeg-turbo's with its accurate integer IDCT (JDCT_ISLOW),
which is TensorFlow's `dct_method="INTEGER_ACCURATE"` exactly, including
`ratio` (libjpeg's scaled IDCT) and gray output of color files (the Y
plane). TensorFlow's default (`dct_method=""`, the same as "INTEGER_FAST")
uses libjpeg's fast integer IDCT, which Pillow cannot select: those values
differ from TensorFlow's by a few levels (at most 4 in our tests); and
`fancy_upscaling=False` (box chroma upsampling) is decoded with libjpeg's
fancy upsampling all the same. docs/image_codecs.md lists these differences.
"""
import io
import struct

import numpy as np

__all__ = ["JpegError", "is_jpeg", "jpeg_shape", "decode_jpeg", "encode_jpeg"]

_SOF = frozenset((0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE,
                  0xCF))


class JpegError(ValueError):
    """Data libjpeg cannot decode."""


def is_jpeg(data):
    """Whether `data` starts with a JPEG's SOI marker and a marker byte."""
    return bytes(data[:3]) == b"\xff\xd8\xff"


def jpeg_shape(data):
    """(height, width, components) from a JPEG's frame header.

    Raises:
      JpegError: if no frame header is found.
    """
    data = bytes(data)
    if data[:2] != b"\xff\xd8":
        raise JpegError("Invalid JPEG data, size %d" % len(data))
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise JpegError("Invalid JPEG data, size %d" % len(data))
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        n, = struct.unpack(">H", data[pos + 2:pos + 4])
        if marker in _SOF:
            if pos + 10 > len(data):
                break
            h, w = struct.unpack(">HH", data[pos + 5:pos + 9])
            return h, w, data[pos + 9]
        if marker in (0xD9, 0xDA):
            break
        pos += 2 + n
    raise JpegError("Invalid JPEG data, size %d" % len(data))


def _pillow():
    try:
        from PIL import Image, ImageFile
    except ImportError:
        raise ImportError("decoding and encoding JPEG needs Pillow: pip install "
                          "'rillflow[image]'") from None
    return Image, ImageFile


def decode_jpeg(data, channels=0, ratio=1, try_recover_truncated=False):
    """The [height / ratio, width / ratio, channels] uint8 pixels of a JPEG
    (channels 0: the file's, 1: gray, 3: RGB).

    Raises:
      JpegError: for data libjpeg cannot decode.
    """
    image_mod, image_file = _pillow()
    data = bytes(data)
    h, w, comps = jpeg_shape(data)
    try:
        im = image_mod.open(io.BytesIO(data))
        gray = channels == 1 or (channels == 0 and comps == 1)
        mode = "L" if gray else "RGB"
        if ratio > 1 or (gray and im.mode != "L"):
            # draft(): libjpeg's scale_denom and its own gray output (the Y plane).
            im.draft(mode, (max(1, w // ratio), max(1, h // ratio)) if ratio > 1 else im.size)
        saved = image_file.LOAD_TRUNCATED_IMAGES
        image_file.LOAD_TRUNCATED_IMAGES = bool(try_recover_truncated)
        try:
            im.load()
        finally:
            image_file.LOAD_TRUNCATED_IMAGES = saved
        if im.mode != mode:
            im = im.convert(mode)
        out = np.asarray(im)
    except (OSError, SyntaxError, ValueError) as e:
        raise JpegError("jpeg::Uncompress failed. Invalid JPEG data or crop window.") from e
    return out[:, :, None] if out.ndim == 2 else out


def encode_jpeg(image, quality=95, progressive=False, optimize_size=False,
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata=b""):
    """The JPEG bytes TensorFlow writes for a [height, width, 1 or 3] uint8 array."""
    image_mod, _ = _pillow()
    img = np.asarray(image, np.uint8)
    im = image_mod.fromarray(img[:, :, 0] if img.shape[2] == 1 else img)
    kw = dict(quality=int(quality), progressive=bool(progressive),
              optimize=bool(optimize_size), dpi=(int(x_density), int(y_density)),
              subsampling=2 if chroma_downsampling and img.shape[2] == 3 else 0)
    if xmp_metadata:
        kw["xmp"] = xmp_metadata if isinstance(xmp_metadata, bytes) else \
            str(xmp_metadata).encode("utf-8")
    buf = io.BytesIO()
    im.save(buf, "JPEG", **kw)
    out = bytearray(buf.getvalue())
    if density_unit == "cm" and out[6:11] == b"JFIF\x00":
        out[13] = 2   # Pillow writes dots per inch; TensorFlow can write per cm
    return bytes(out)
