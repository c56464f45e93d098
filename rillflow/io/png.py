"""PNG, as TensorFlow's `tf.io.decode_png` / `encode_png` read and write it
(TensorFlow's png_io.cc on libpng), in NumPy and zlib.

Decoding is exact (PNG is lossless); the conversions between channel counts
and bit depths are libpng's: palettes and tRNS expand to RGB(A), 1/2/4-bit
gray scales to 8 bits, RGB becomes gray with libpng's fixed-point weights for
(0.299, 0.587) (truncated at 8 bits, rounded at 16), 16 bits become 8 by
dropping the low byte, 8 become 16 by multiplying by 257, a missing alpha is
filled with the source's maximum (`(1 << bit_depth) - 1`, TensorFlow's
filler), a palette's tRNS is its alpha, a gray or RGB color key (tRNS)
gives alpha 0 only when 4 channels are asked for. Unfiltering runs row by row in NumPy; Avg and Paeth rows need a loop
over pixels, so with Pillow installed (the `image` extra) whole images are
unfiltered by Pillow's C code instead, same bytes.

Encoding gives TensorFlow's bytes: libpng's filter choice (per row, the
filter with the least sum of absolute signed bytes, ties to the first),
zlib with memLevel 9 and Z_FILTERED, libpng's window size for small images
and its rewriting of the zlib header, IDAT chunks of 8192 bytes.
"""
import io
import struct
import zlib

import numpy as np

__all__ = ["PngError", "decode_png", "encode_png", "png_info"]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}    # color type -> samples per pixel
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
          (0, 1, 1, 2))
# libpng's png_set_rgb_to_gray_fixed(1, 29900, 58700) weights, in 1/32768.
_RC, _GC = 29900 * 32768 // 100000, 58700 * 32768 // 100000
_BC = 32768 - _RC - _GC


class PngError(ValueError):
    """Data that is not a PNG TensorFlow can decode."""


def _chunks(data):
    """{type: payload} of the chunks before IEND, and the joined IDAT payload."""
    if data[:8] != SIGNATURE or len(data) < 33 or data[12:16] != b"IHDR":
        raise PngError("Invalid PNG. Failed to initialize decoder.")
    pos, chunks, idat = 8, {}, []
    while pos + 8 <= len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if len(body) != n or pos + 12 + n > len(data):
            raise PngError("Invalid PNG data, size %d" % len(data))
        crc = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        if crc != zlib.crc32(kind + body) & 0xFFFFFFFF and kind[:1].isupper():
            raise PngError("Invalid PNG data, size %d" % len(data))
        pos += 12 + n
        if kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        else:
            chunks.setdefault(kind, body)
    if b"IHDR" not in chunks or not idat:
        raise PngError("Invalid PNG data, size %d" % len(data))
    return chunks, b"".join(idat)


def png_info(data):
    """(height, width, bit depth, color type, interlaced) of a PNG's header."""
    chunks, _ = _chunks(data)
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    if ctype not in _CHANNELS or depth not in (1, 2, 4, 8, 16):
        raise PngError("Invalid PNG data, size %d" % len(data))
    return h, w, depth, ctype, bool(interlace)


# --- unfiltering ---------------------------------------------------------------------------------

def _unfilter_numpy(rows, bpp):
    """Reconstructs filtered rows ([h, 1 + rowbytes] uint8) row by row."""
    h, n = rows.shape[0], rows.shape[1] - 1
    out = np.zeros((h, n), np.uint8)
    prev = np.zeros(n, np.int32)
    for y in range(h):
        f = rows[y, 0]
        x = rows[y, 1:].astype(np.int32)
        if f == 0:
            cur = x
        elif f == 1:
            # Sub: a running sum along each byte lane of the pixels.
            cur = (np.cumsum(x.reshape(-1, bpp), axis=0) & 255).reshape(-1)
        elif f == 2:
            cur = (x + prev) & 255
        elif f in (3, 4):
            cur = x.copy()
            for i in range(n):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                if f == 3:
                    p = (a + b) >> 1
                else:
                    c = prev[i - bpp] if i >= bpp else 0
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (cur[i] + p) & 255
        else:
            raise PngError("bad adaptive filter value")
        out[y] = cur
        prev = cur.astype(np.int32)
    return out


def _unfilter_pillow(rows, bpp):
    """The same reconstruction by Pillow's decoder: the rows are given to it as
    an 8-bit image whose pixels have `bpp` bytes (filters work on bytes, so
    the result is the same), compressed at level 0."""
    from PIL import Image  # the optional `image` extra
    h, n = rows.shape[0], rows.shape[1] - 1
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[bpp]
    png = SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", n // bpp, h, 8, ctype, 0, 0, 0)) \
        + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 0)) + _chunk(b"IEND", b"")
    return np.asarray(Image.open(io.BytesIO(png))).reshape(h, n)


def _unfilter(rows, bpp):
    if bpp <= 4 and rows.shape[0] and rows.shape[1] > 1 and (rows[:, 0] >= 3).any():
        try:
            return _unfilter_pillow(rows, bpp)
        except ImportError:
            pass
    return _unfilter_numpy(rows, bpp)


def _samples(raw, h, w, depth, nch):
    """[h, w, nch] samples of one (sub)image's unfiltered bytes."""
    if depth == 16:
        return raw.reshape(h, -1)[:, :w * nch * 2].copy().view(">u2").astype(np.uint16) \
            .reshape(h, w, nch)
    if depth == 8:
        return raw.reshape(h, w, nch)
    bits = np.unpackbits(raw.reshape(h, -1), axis=1)[:, :w * depth].reshape(h, w, depth)
    vals = np.zeros((h, w), np.uint8)
    for k in range(depth):
        vals = (vals << 1) | bits[:, :, k]
    return vals[:, :, None]


def _decompress(idat, length):
    try:
        return zlib.decompress(idat)
    except zlib.error:
        raise PngError("Invalid PNG data, size %d" % length) from None


def _pixels(data):
    """(samples [h, w, n] of the file's own bit depth, depth, color type, chunks)."""
    chunks, idat = _chunks(data)
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    if ctype not in _CHANNELS or depth not in (1, 2, 4, 8, 16):
        raise PngError("Invalid PNG data, size %d" % len(data))
    nch = _CHANNELS[ctype]
    bpp = max(1, depth * nch // 8)
    raw = np.frombuffer(_decompress(idat, len(data)), np.uint8)
    out = np.zeros((h, w, nch), np.uint16 if depth == 16 else np.uint8)
    passes = _ADAM7 if interlace else ((0, 0, 1, 1),)
    pos = 0
    for x0, y0, dx, dy in passes:
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw <= 0 or ph <= 0:
            continue
        rb = (pw * depth * nch + 7) // 8
        size = ph * (rb + 1)
        if pos + size > raw.size:
            raise PngError("Invalid PNG data, size %d" % len(data))
        rows = raw[pos:pos + size].reshape(ph, rb + 1)
        pos += size
        out[y0::dy, x0::dx] = _samples(_unfilter(rows, bpp), ph, pw, depth, nch)
    return out, depth, ctype, chunks


# --- libpng's conversions ------------------------------------------------------------------------

def decode_png(data, channels=0, dtype=np.uint8):
    """The [height, width, channels] array of a PNG (`tf.io.decode_png`).

    Args:
      data: the file's bytes.
      channels: 0 (the file's), 1 (gray), 3 (RGB) or 4 (RGBA).
      dtype: np.uint8 or np.uint16.

    Raises:
      PngError: for data that is not a valid PNG.
    """
    px, depth, ctype, chunks = _pixels(bytes(data))
    px = px.astype(np.int64)
    want16 = np.dtype(dtype) == np.uint16
    trns = chunks.get(b"tRNS")
    key = None
    if ctype == 3:
        pal = np.frombuffer(chunks.get(b"PLTE", b""), np.uint8)
        pal = pal[:len(pal) // 3 * 3].reshape(-1, 3).astype(np.int64)
        if pal.size == 0:
            raise PngError("Invalid PNG data, size %d" % len(data))
        index = np.minimum(px[:, :, 0], len(pal) - 1)
        rgb = pal[index]
        if trns is not None:
            alpha = np.full(len(pal), 255, np.int64)
            t = np.frombuffer(trns, np.uint8)[:len(pal)]
            alpha[:len(t)] = t
            rgb = np.concatenate([rgb, alpha[index][:, :, None]], -1)
        px, bits8 = rgb, True
    else:
        bits8 = False
        if trns is not None and ctype in (0, 2):
            # A gray or RGB color key becomes alpha only where an alpha channel
            # is asked for (channels=4), as in TensorFlow.
            key = (px == np.frombuffer(trns, ">u2").astype(np.int64)[:px.shape[-1]]).all(-1)
    if depth < 8 and not bits8:
        px = px * (255 // ((1 << depth) - 1))
    src16 = depth == 16
    n = px.shape[-1]
    color, alpha = n >= 3, n in (2, 4)
    out_ch = channels or n
    if out_ch < 3 and color:
        r, g, b = px[..., 0], px[..., 1], px[..., 2]
        gray = (_RC * r + _GC * g + _BC * b + (16384 if src16 else 0)) >> 15
        gray = np.where((r == g) & (g == b), r, gray)
        px = np.concatenate([gray[..., None], px[..., 3:]], -1) if alpha else gray[..., None]
    if out_ch in (1, 3) and alpha:
        px = px[..., :-1]
    if src16 and not want16:
        px = px >> 8
    elif want16 and not src16:
        px = px * 257
    if out_ch >= 3 and px.shape[-1] < 3:
        px = np.concatenate([px[..., :1]] * 3 + [px[..., 1:]], -1)
    if out_ch == 4 and px.shape[-1] == 3:
        top = 65535 if want16 else 255
        if key is not None:
            fill = np.where(key, 0, top)[:, :, None]
        else:
            # TensorFlow's filler is (1 << bit_depth) - 1 of the file's depth.
            fill = np.full(px.shape[:2] + (1,), top if src16 else
                           ((1 << depth) - 1) * (257 if want16 else 1))
        px = np.concatenate([px, fill], -1)
    return px.astype(dtype)


# --- encoding -----------------------------------------------------------------------------------

def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _filter_rows(rows, bpp):
    """libpng's adaptive filtering of [h, rowbytes] bytes: [h, 1 + rowbytes]."""
    x = rows.astype(np.int16)
    h, n = x.shape
    up = np.vstack([np.zeros((1, n), np.int16), x[:-1]])
    left = np.hstack([np.zeros((h, bpp), np.int16), x[:, :-bpp]])
    upleft = np.hstack([np.zeros((h, bpp), np.int16), up[:, :-bpp]])
    p = left + up - upleft
    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - upleft)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upleft))
    cands = np.stack([x, x - left, x - up, x - ((left + up) >> 1), x - paeth]) & 255
    # libpng's cost: the bytes as signed values, summed by magnitude.
    cost = np.minimum(cands, 256 - cands).sum(axis=2, dtype=np.int64)
    best = np.argmin(cost, axis=0)
    out = np.empty((h, n + 1), np.uint8)
    out[:, 0] = best
    out[:, 1:] = cands[best, np.arange(h)]
    return out


def _optimize_cmf(comp, size):
    """libpng's rewrite of the zlib header's window size for small images."""
    if size > 16384:
        return comp
    z = comp[0]
    if (z & 0x0F) != 8 or (z & 0xF0) > 0x70:
        return comp
    cinfo = z >> 4
    half = 1 << (cinfo + 7)
    if size > half:
        return comp
    while True:
        half >>= 1
        cinfo -= 1
        if not (cinfo > 0 and size <= half):
            break
    z = (z & 0x0F) | (cinfo << 4)
    flg = comp[1] & 0xE0
    flg += 0x1F - ((z << 8) + flg) % 0x1F
    return bytes((z, flg)) + comp[2:]


def encode_png(image, compression=-1):
    """The PNG bytes TensorFlow writes for a [height, width, channels] uint8 or
    uint16 array (1 to 4 channels) at zlib level `compression` (-1: zlib's
    default)."""
    img = np.asarray(image)
    h, w, c = img.shape
    depth = 16 if img.dtype == np.uint16 else 8
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = (img.astype(">u2").view(np.uint8) if depth == 16 else img).reshape(h, -1)
    data = _filter_rows(rows, c * depth // 8).tobytes() if h and w else b""
    size = len(data)
    wbits = 15
    if size <= 16384:
        half = 1 << 14
        while size + 262 <= half:
            half >>= 1
            wbits -= 1
    z = zlib.compressobj(compression, zlib.DEFLATED, max(wbits, 9), 9, zlib.Z_FILTERED)
    comp = _optimize_cmf(z.compress(data) + z.flush(), size)
    out = [SIGNATURE, _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))]
    out += [_chunk(b"IDAT", comp[i:i + 8192]) for i in range(0, len(comp), 8192)]
    out.append(_chunk(b"IEND", b""))
    return b"".join(out)
