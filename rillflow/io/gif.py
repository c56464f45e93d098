"""GIF and BMP, decoded as TensorFlow's `tf.io.decode_gif` / `decode_bmp` do.

GIF (TensorFlow's gif_io.cc on giflib): every frame is drawn on a copy of the
previous one (disposal methods are ignored, as TensorFlow ignores them); a
pixel of the frame's transparent color index keeps the previous frame's
value (black on the first frame), and so does everything outside the frame's
rectangle. The LZW decoder is in Python (one step per code).

BMP (TensorFlow's decode_bmp): the header's offset, width, height (negative:
top-down rows) and bits per pixel (8, 24 or 32; an 8-bit palette is not
applied: indices come out as gray), rows padded to 4 bytes, BGR(A) to RGB(A).
"""
import struct

import numpy as np

__all__ = ["GifError", "decode_gif", "decode_bmp"]


class GifError(ValueError):
    """Data that TensorFlow's GIF or BMP decoder rejects."""


def _lzw(data, min_code_size, count):
    """The first `count` color indices of an LZW-compressed GIF raster."""
    clear = 1 << min_code_size
    end = clear + 1
    out = bytearray()
    table = [bytes((i,)) for i in range(clear)] + [b"", b""]
    size = min_code_size + 1
    prev = None
    bits = int.from_bytes(data, "little")
    nbits = len(data) * 8
    pos = 0
    while pos + size <= nbits and len(out) < count:
        code = (bits >> pos) & ((1 << size) - 1)
        pos += size
        if code == clear:
            table = table[:end + 1]
            size = min_code_size + 1
            prev = None
            continue
        if code == end:
            break
        if code < len(table):
            entry = table[code]
            if prev is not None:
                table.append(prev + entry[:1])
        elif prev is not None and code == len(table):
            entry = prev + prev[:1]
            table.append(entry)
        else:
            raise GifError("Failed to read gif data")
        out += entry
        prev = entry
        if len(table) == (1 << size) and size < 12:
            size += 1
    if len(out) < count:
        out += bytes(count - len(out))
    return np.frombuffer(bytes(out[:count]), np.uint8)


def _deinterlace(rows):
    h = rows.shape[0]
    order = list(range(0, h, 8)) + list(range(4, h, 8)) + list(range(2, h, 4)) + \
        list(range(1, h, 2))
    out = np.empty_like(rows)
    out[order] = rows
    return out


def _color_table(data, pos, flags):
    n = 3 * (2 << (flags & 7))
    table = np.frombuffer(data[pos:pos + n], np.uint8)
    if table.size != n:
        raise GifError("Failed to read gif data")
    return table.reshape(-1, 3), pos + n


def _sub_blocks(data, pos):
    out = bytearray()
    while True:
        if pos >= len(data):
            raise GifError("Failed to read gif data")
        n = data[pos]
        pos += 1
        if n == 0:
            return bytes(out), pos
        out += data[pos:pos + n]
        pos += n


def decode_gif(data):
    """The [frames, height, width, 3] uint8 frames of a GIF.

    Raises:
      GifError: for data giflib cannot read.
    """
    data = bytes(data)
    if data[:3] != b"GIF" or len(data) < 13:
        raise GifError("Failed to open gif data")
    width, height, flags = struct.unpack("<HHB", data[6:11])
    pos = 13
    global_table = None
    if flags & 0x80:
        global_table, pos = _color_table(data, pos, flags)
    frames = []
    transparent = None
    while pos < len(data):
        block = data[pos]
        pos += 1
        if block == 0x3B:  # trailer
            break
        if block == 0x21:  # extension
            label = data[pos]
            body, pos = _sub_blocks(data, pos + 1)
            if label == 0xF9 and len(body) >= 4:
                transparent = body[3] if body[0] & 1 else None
            continue
        if block != 0x2C:
            raise GifError("Failed to read gif data")
        left, top, w, h, iflags = struct.unpack("<HHHHB", data[pos:pos + 9])
        pos += 9
        table = global_table
        if iflags & 0x80:
            table, pos = _color_table(data, pos, iflags)
        min_code = data[pos]
        raster, pos = _sub_blocks(data, pos + 1)
        indices = _lzw(raster, min_code, w * h).reshape(h, w)
        if iflags & 0x40:
            indices = _deinterlace(indices)
        frames.append((left, top, w, h, table, indices, transparent))
        transparent = None
    if not frames:
        raise GifError("Failed to read gif data")
    out = np.zeros((len(frames), height, width, 3), np.uint8)
    for k, (left, top, w, h, table, indices, transparent) in enumerate(frames):
        if k:
            out[k] = out[k - 1]
        if table is None:
            raise GifError("missing color map")
        y0, x0 = max(top, 0), max(left, 0)
        y1, x1 = min(top + h, height), min(left + w, width)
        if y1 <= y0 or x1 <= x0:
            continue
        idx = indices[y0 - top:y1 - top, x0 - left:x1 - left]
        keep = idx == transparent if transparent is not None else np.zeros(idx.shape, bool)
        if (idx[~keep] >= len(table)).any():
            bad = int(idx[~keep][idx[~keep] >= len(table)][0])
            raise GifError(f"found color index {bad} outside of color map range "
                           f"{len(table)}")
        region = out[k, y0:y1, x0:x1]
        region[~keep] = table[idx[~keep]]
    return out


def decode_bmp(data):
    """The [height, width, channels] uint8 pixels of a BMP (channels: the
    file's bits per pixel / 8).

    Raises:
      GifError: for a header TensorFlow rejects.
    """
    data = bytes(data)
    if len(data) < 54:
        raise GifError(f"Incomplete bmp content, requires at least 54 bytes to find the header "
                       f"size, width, height and bpp, got {len(data)} bytes")
    offset, = struct.unpack("<i", data[10:14])
    width, height = struct.unpack("<ii", data[18:26])
    bpp, = struct.unpack("<h", data[28:30])
    channels = bpp // 8
    if channels not in (1, 3, 4):
        raise GifError(f"Number of channels must be 1, 3 or 4, was {channels}")
    if width <= 0:
        raise GifError(f"Width must be positive, got {width}")
    if height == 0:
        raise GifError("Height must be nonzero")
    top_down = height < 0
    h = abs(height)
    row = (channels * width + 3) // 4 * 4
    if offset < 0 or offset + row * (h - 1) + channels * width > len(data):
        raise GifError(f"Buffer size {len(data)} is too small for the image")
    pix = np.frombuffer(data, np.uint8, count=row * h - (row - channels * width),
                        offset=offset)
    pix = np.pad(pix, (0, row - channels * width)).reshape(h, row)[:, :channels * width]
    pix = pix.reshape(h, width, channels)
    if not top_down:
        pix = pix[::-1]
    if channels >= 3:
        pix = pix[:, :, [2, 1, 0, 3][:channels]]
    return np.ascontiguousarray(pix)
