"""A minimal PNG encoder (8-bit gray, gray+alpha, RGB or RGBA) for image summaries."""
import struct
import zlib

import numpy as np

__all__ = ["encode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# PNG colour type for 1, 2, 3 and 4 channels.
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def encode_png(image, compression=6):
    """PNG bytes of a uint8 array of shape [height, width, channels].

    Raises:
      ValueError: for another rank, dtype, or a channel count other than 1-4.
    """
    image = np.asarray(image)
    if image.ndim != 3 or image.dtype != np.uint8:
        raise ValueError(f"image must be a uint8 array of shape [height, width, channels], "
                         f"got {image.dtype} {image.shape}")
    height, width, channels = image.shape
    if channels not in _COLOR_TYPES:
        raise ValueError(f"image must have 1, 2, 3, or 4 channels, got {channels}")
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    # Each row starts with its filter type byte (0: none).
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)
    rows[:, 1:] = image.reshape(height, width * channels)
    data = zlib.compress(rows.tobytes(), compression)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")
