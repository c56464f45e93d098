"""Image files against TensorFlow 2.21: the cases of
tools/tf_image_codec_fixtures.py (input files in tests/data/images/, results
in tests/data/tf_image_codecs.npz). PNG, GIF and BMP need nothing more; JPEG
needs Pillow (the `image` extra), and its cases skip without it."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_image_codec_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_image_codecs.npz"))
try:
    import PIL  # noqa: F401  (the optional `image` extra)
    HAVE_PILLOW = True
except ImportError:
    HAVE_PILLOW = False
_JPEG_WORDS = ("jpg", "jpeg")


def _needs_pillow(name):
    return any(w in name for w in _JPEG_WORDS) and name != "is_jpeg"


@pytest.mark.parametrize("name", sorted(n for n in fixtures.CASES.fns
                                        if n != "jpeg_default_idct"))
def test_equals_tensorflow(name):
    if _needs_pillow(name) and not HAVE_PILLOW:
        pytest.skip("JPEG needs Pillow (the image extra)")
    fixtures.CASES.check(name, tf, _DATA)


@pytest.mark.skipif(not HAVE_PILLOW, reason="JPEG needs Pillow (the image extra)")
def test_default_jpeg_idct_is_within_a_few_levels():
    # TensorFlow's default is libjpeg's fast IDCT; rillflow decodes with the
    # accurate one (docs/image_codecs.md).
    kind, _, got = fixtures.CASES.run("jpeg_default_idct", tf)
    for i, g in enumerate(got):
        want = _DATA[f"jpeg_default_idct__{i}"]
        assert g.shape == want.shape
        assert np.abs(g.astype(int) - want).max() <= 4


def test_png_round_trips_without_pillow(monkeypatch):
    from rillflow.io import png

    def no_pillow(rows, bpp):
        raise ImportError
    monkeypatch.setattr(png, "_unfilter_pillow", no_pillow)
    for name in ("rgb.png", "rgba16.png", "rgb_interlaced.png", "palette_trns.png"):
        data = fixtures.read(name)
        want = _DATA[f"decode_{name.replace('.', '_')}_decode_png__0"]
        np.testing.assert_array_equal(tf.io.decode_png(data).numpy(), want)
    img = np.random.default_rng(0).integers(0, 65536, (9, 11, 3)).astype(np.uint16)
    np.testing.assert_array_equal(
        tf.io.decode_png(tf.io.encode_png(img), dtype=tf.uint16).numpy(), img)
