"""WebP for `tf.io.decode_webp` (and the other decode ops, which decode
WebP files too): the RIFF header read here (alpha and animation flags, as
libwebp's WebPGetFeatures reports them), the pixels through Pillow's
libwebp (the optional `image` extra). Still images are one frame;
animations are composited frame by frame onto the canvas, as libwebp's
animation decoder does.
"""
import io
import struct

import numpy as np

__all__ = ["WebpError", "is_webp", "webp_features", "decode_webp"]


class WebpError(ValueError):
    """Data libwebp cannot decode."""


def is_webp(data):
    """Whether `data` starts with a RIFF header of a WebP file."""
    data = bytes(data[:12])
    return data[:4] == b"RIFF" and data[8:12] == b"WEBP"


def webp_features(data):
    """(has_alpha, animated) of a WebP file.

    Raises:
      WebpError: if the first chunk is not a VP8, VP8L or VP8X header.
    """
    data = bytes(data)
    if len(data) < 20 or not is_webp(data):
        raise WebpError("Failed to decode WebP header.")
    chunk = data[12:16]
    size, = struct.unpack("<I", data[16:20])
    body = data[20:20 + size]
    if chunk == b"VP8X" and len(body) >= 10:
        flags = body[0]
        return bool(flags & 0x10), bool(flags & 0x02)
    if chunk == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
        bits, = struct.unpack("<I", body[1:5])
        return bool((bits >> 28) & 1), False
    if chunk == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
        return False, False
    raise WebpError("Failed to decode WebP header.")


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("decoding WebP needs Pillow: pip install 'rillflow[image]'") from None
    return Image


def decode_webp(data, channels):
    """The uint8 [frames, height, width, channels] pixels (channels 3 or 4).

    Raises:
      WebpError: for data libwebp cannot decode.
    """
    image_mod = _pillow()
    mode = "RGBA" if channels == 4 else "RGB"
    try:
        im = image_mod.open(io.BytesIO(bytes(data)))
        frames = []
        for i in range(getattr(im, "n_frames", 1)):
            im.seek(i)
            frames.append(np.asarray(im.convert(mode), dtype=np.uint8))
    except (OSError, ValueError, SyntaxError) as e:
        raise WebpError(f"Failed to decode WebP image: {e}") from None
    return np.stack(frames)
