"""TensorFlow's results of the image file ops (decode/encode PNG, JPEG, GIF,
BMP, decode_image, extract_jpeg_shape, is_jpeg, adjust_jpeg_quality) for
tests/test_image_codecs.py. Writes the input files into tests/data/images/
(PNG and JPEG by TensorFlow's encoders and a small PNG writer here for the
layouts TensorFlow does not write: palettes, tRNS, interlacing, 1-bit; GIF and
BMP by Pillow) and the results into tests/data/tf_image_codecs.npz.

    /work/tfref/bin/python tools/tf_image_codec_fixtures.py
"""
import os
import struct
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import DATA, Cases  # noqa: E402

CASES = Cases()
case = CASES.case
IMAGES = os.path.join(DATA, "images")


def image(h=13, w=17, c=3, seed=0, dtype=np.uint8):
    """A smooth image with noise, so that the PNG filters and JPEG blocks vary."""
    rng = np.random.default_rng(seed)
    top = 65535 if dtype == np.uint16 else 255
    yy, xx = np.mgrid[0:h, 0:w]
    base = (xx[..., None] * 11 + yy[..., None] * 17 + np.arange(c) * 40) * (top // 255)
    return ((base + rng.integers(0, top // 8, (h, w, c))) % (top + 1)).astype(dtype)


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def write_png(samples, depth, ctype, plte=None, trns=None, interlace=False):
    """A PNG of raw samples ([h, w, n] at `depth` bits) with filter None."""
    h, w = samples.shape[:2]

    def rows_of(px):
        if depth == 16:
            return [b"\x00" + r.astype(">u2").tobytes() for r in px]
        if depth == 8:
            return [b"\x00" + r.astype(np.uint8).tobytes() for r in px]
        out = []
        for r in px[:, :, 0]:
            bits = np.unpackbits(r.astype(np.uint8)[:, None], axis=1)[:, 8 - depth:]
            out.append(b"\x00" + np.packbits(bits.reshape(-1)).tobytes())
        return out

    if interlace:
        raw = []
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                               (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
            sub = samples[y0::dy, x0::dx]
            if sub.size:
                raw += rows_of(sub)
    else:
        raw = rows_of(samples)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype,
                                                            0, 0, int(interlace)))
    if plte is not None:
        out += _chunk(b"PLTE", np.asarray(plte, np.uint8).tobytes())
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(b"".join(raw))) + _chunk(b"IEND", b"")


def make_files(tf):
    """Writes the input files (with TensorFlow's Python); returns their names."""
    from PIL import Image
    os.makedirs(IMAGES, exist_ok=True)
    files = {}
    rgb = image()
    files["rgb.png"] = tf.io.encode_png(rgb).numpy()
    files["rgba.png"] = tf.io.encode_png(image(c=4, seed=1)).numpy()
    files["gray.png"] = tf.io.encode_png(image(c=1, seed=2)).numpy()
    files["ga.png"] = tf.io.encode_png(image(c=2, seed=3)).numpy()
    files["rgb16.png"] = tf.io.encode_png(image(dtype=np.uint16, seed=4)).numpy()
    files["rgba16.png"] = tf.io.encode_png(image(c=4, dtype=np.uint16, seed=5)).numpy()
    files["gray16.png"] = tf.io.encode_png(image(c=1, dtype=np.uint16, seed=6)).numpy()
    files["ga16.png"] = tf.io.encode_png(image(c=2, dtype=np.uint16, seed=7)).numpy()
    pal = np.random.default_rng(8).integers(0, 256, (16, 3))
    idx = image(c=1, seed=9) % 16
    files["palette4.png"] = write_png(idx, 4, 3, pal)
    files["palette_trns.png"] = write_png(idx, 8, 3, pal, bytes([0, 128, 255, 7]))
    files["bit1.png"] = write_png(image(c=1, seed=10) % 2, 1, 0)
    files["gray2_interlaced.png"] = write_png(image(c=1, seed=11) % 4, 2, 0, interlace=True)
    files["rgb_interlaced.png"] = write_png(image(h=19, w=23, seed=12), 8, 2, interlace=True)
    files["gray_key.png"] = write_png(image(c=1, seed=13) % 4 * 60, 8, 0,
                                      trns=struct.pack(">H", 60))
    key = image(seed=14) // 64 * 64
    files["rgb_key.png"] = write_png(key, 8, 2, trns=struct.pack(">HHH", *key[0, 0]))
    files["q90.jpg"] = tf.io.encode_jpeg(rgb, quality=90, chroma_downsampling=False).numpy()
    files["q75_420.jpg"] = tf.io.encode_jpeg(image(h=29, w=35, seed=15), quality=75).numpy()
    files["gray.jpg"] = tf.io.encode_jpeg(image(c=1, seed=16), quality=80).numpy()
    files["progressive.jpg"] = tf.io.encode_jpeg(image(h=21, w=18, seed=17),
                                                 progressive=True).numpy()
    frames = [Image.fromarray(np.roll(image(h=15, w=19, seed=18), 3 * i, 1)).convert(
        "P", palette=Image.ADAPTIVE, colors=32) for i in range(3)]
    path = os.path.join(IMAGES, "anim.gif")
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=50, loop=0)
    Image.fromarray(image(seed=19)).convert("P").save(os.path.join(IMAGES, "one.gif"))
    Image.fromarray(image(seed=20)).save(os.path.join(IMAGES, "rgb.bmp"))
    Image.fromarray(image(c=4, seed=21)).save(os.path.join(IMAGES, "rgba.bmp"))
    Image.fromarray(image(c=1, seed=22)[:, :, 0]).save(os.path.join(IMAGES, "gray.bmp"))
    for name, data in files.items():
        with open(os.path.join(IMAGES, name), "wb") as f:
            f.write(bytes(data))
    return sorted(os.listdir(IMAGES))


def read(name):
    with open(os.path.join(IMAGES, name), "rb") as f:
        return f.read()


FILES = sorted(os.listdir(IMAGES)) if os.path.isdir(IMAGES) else []
_OPS = ("decode_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_image")


def _decode_case(fname, op):
    def fn(tf):
        data = read(fname)
        out = []
        for ch in ([None] if op == "decode_gif" else [None, 0, 1, 3, 4]):
            kw = {} if ch is None else {"channels": ch}
            if op == "decode_jpeg":
                kw["dct_method"] = "INTEGER_ACCURATE"
            try:
                t = getattr(tf.io, op)(data, **kw)
                # A JPEG through the other ops decodes with TensorFlow's fast
                # IDCT (docs/image_codecs.md): shapes only.
                out.append(t if not fname.endswith(".jpg") or op == "decode_jpeg"
                           else str(t.shape) + t.dtype.name)
            except tf.errors.InvalidArgumentError as e:
                out.append(str(e).split("}}")[-1].split(" [Op:")[0].strip())
        return out
    fn.__name__ = "decode_%s_%s" % (fname.replace(".", "_"), op)
    return fn


for _f in FILES:
    for _op in _OPS:
        case(_decode_case(_f, _op))


def _png_dtypes_case(fname):
    def fn(tf):
        data = read(fname)
        return [tf.io.decode_png(data, channels=c, dtype=d) for c in (0, 1, 3, 4)
                for d in (tf.uint8, tf.uint16)] + \
            [tf.io.decode_image(data, dtype=d) for d in (tf.float32, tf.uint16, tf.float64,
                                                        tf.int32)]
    fn.__name__ = "png_dtypes_" + fname.replace(".", "_")
    return fn


for _f in FILES:
    if _f.endswith(".png"):
        case(_png_dtypes_case(_f))


@case
def jpeg_ratios_and_crops(tf):
    out = []
    for f in ("q90.jpg", "q75_420.jpg", "gray.jpg", "progressive.jpg"):
        data = read(f)
        for ratio in (1, 2, 4, 8):
            for ch in (0, 1, 3):
                out.append(tf.io.decode_jpeg(data, channels=ch, ratio=ratio,
                                             dct_method="INTEGER_ACCURATE"))
        # libjpeg decodes a crop as an image of whole MCU columns, so a crop of
        # subsampled chroma is the full decode's only where it ends at the
        # image's right edge (docs/image_codecs.md).
        width = int(tf.io.extract_jpeg_shape(data)[1])
        out.append(tf.io.decode_and_crop_jpeg(data, [2, 3, 7, 9 if f in (
            "q90.jpg", "gray.jpg") else width - 3], dct_method="INTEGER_ACCURATE"))
        out.append(tf.io.extract_jpeg_shape(data))
        out.append(tf.io.extract_jpeg_shape(data, tf.int64))
        out.append(tf.io.decode_image(tf.io.encode_png(tf.io.decode_jpeg(
            data, dct_method="INTEGER_ACCURATE")), dtype=tf.float32))
    return out


@case
def jpeg_default_idct(tf):
    # TensorFlow's default IDCT (INTEGER_FAST): compared within a tolerance.
    return [tf.io.decode_jpeg(read(f)) for f in ("q90.jpg", "q75_420.jpg", "gray.jpg")]


@case
def encode_png(tf):
    out = []
    for c in (1, 2, 3, 4):
        for dt in (np.uint8, np.uint16):
            for hw in ((1, 1), (5, 7), (40, 60), (130, 90)):
                img = image(*hw, c=c, dtype=dt, seed=hw[0] * c)
                out.append(tf.io.encode_png(img))
                out.append(tf.io.encode_png(img, compression=9))
    out.append(tf.io.encode_png(np.stack([image(4, 5, seed=1), image(4, 5, seed=2)])))
    return out


@case
def encode_png_empty(tf):
    return tf.io.encode_png(np.zeros((3, 0, 3), np.uint8))


@case
def encode_jpeg(tf):
    rgb, gray = image(h=20, w=30, seed=30), image(h=20, w=30, c=1, seed=31)
    return [tf.io.encode_jpeg(rgb), tf.io.encode_jpeg(gray), tf.io.encode_jpeg(rgb, quality=50),
            tf.io.encode_jpeg(rgb, progressive=True), tf.io.encode_jpeg(rgb, optimize_size=True),
            tf.io.encode_jpeg(rgb, chroma_downsampling=False),
            tf.io.encode_jpeg(rgb, density_unit="cm", x_density=72, y_density=40),
            tf.io.encode_jpeg(rgb, xmp_metadata="<x:xmpmeta>hi</x:xmpmeta>"),
            tf.io.encode_jpeg(gray, format="grayscale", quality=10),
            tf.io.encode_jpeg(rgb, format="rgb", quality=100)]


@case
def encode_jpeg_wrong_channels(tf):
    return tf.io.encode_jpeg(image(c=4))


@case
def encode_jpeg_format_mismatch(tf):
    return tf.io.encode_jpeg(image(c=1), format="rgb")


@case
def encode_png_wrong_rank(tf):
    return tf.io.encode_png(np.zeros((3, 3), np.uint8))


@case
def is_jpeg(tf):
    return [tf.io.is_jpeg(read("q90.jpg")), tf.io.is_jpeg(read("rgb.png")), tf.io.is_jpeg(b""),
            tf.image.is_jpeg(tf.constant([read("gray.jpg"), b"xx"]))]


@case
def adjust_jpeg_quality(tf):
    img = image(h=16, w=16, seed=40)
    f = image(h=16, w=16, seed=41).astype(np.float32) / 255.
    return [tf.image.adjust_jpeg_quality(img, 30, dct_method="INTEGER_ACCURATE"),
            tf.image.adjust_jpeg_quality(f, 60, dct_method="INTEGER_ACCURATE"),
            tf.image.stateless_random_jpeg_quality(img, 10, 90, seed=[1, 2]).shape]


@case
def jpeg_quality_range(tf):
    return tf.image.random_jpeg_quality(image(), 50, 40)


def _bad(data, op="decode_image"):
    def fn(tf):
        return getattr(tf.io, op)(data)
    return fn


for _name, _data, _op in (("empty", b"", "decode_image"), ("garbage", b"abc", "decode_png"),
                          ("garbage_shape", b"abc", "extract_jpeg_shape"),
                          ("truncated_png", b"\x89PNG\r\n\x1a\n\x00\x00", "decode_png")):
    _fn = _bad(_data, _op)
    _fn.__name__ = "bad_" + _name
    case(_fn)


@case
def traced_shapes(tf):
    out = []

    @tf.function
    def f(s):
        for t in (tf.io.decode_png(s), tf.io.decode_png(s, channels=3, dtype=tf.uint16),
                  tf.io.decode_jpeg(s, channels=1), tf.io.decode_gif(s),
                  tf.io.decode_bmp(s, channels=4), tf.io.decode_image(s),
                  tf.io.decode_image(s, channels=3, expand_animations=False),
                  tf.io.encode_png(tf.zeros([2, 2, 3], tf.uint8)),
                  tf.io.extract_jpeg_shape(s)):
            out.append(str(t.shape) + " " + t.dtype.name)
        return tf.io.decode_png(s)

    res = f(tf.constant(read("rgb.png")))
    return out + [res]


if __name__ == "__main__":
    import tensorflow as tf_  # TensorFlow's Python, not rillflow
    FILES[:] = make_files(tf_)
    for _f in FILES:
        for _op in _OPS:
            case(_decode_case(_f, _op))
        if _f.endswith(".png"):
            case(_png_dtypes_case(_f))
    CASES.main("tf_image_codecs.npz")
