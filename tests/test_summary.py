"""tf.summary without TensorBoard: checksums, encoders, histogram buckets,
summaries without a writer, and the ImportError naming the extra."""
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import rillflow as tf
import rillflow.summary  # noqa: F401  (until rillflow/__init__ imports it)
from rillflow.io import crc32c
from rillflow.summary import plugin_data, protos
from rillflow.summary.png import encode_png
from rillflow.summary.wav import encode_wav


# --- CRC-32C ----------------------------------------------------------------

def test_crc32c_known_values():
    assert crc32c.crc32c(b"") == 0
    assert crc32c.crc32c(b"123456789") == 0xE3069283
    assert crc32c.crc32c(b"\x00" * 32) == 0x8A9136AA
    # TFRecord's mask: rotate right by 15 and add 0xa282ead8.
    c = crc32c.crc32c(b"abc")
    assert crc32c.masked_crc32c(b"abc") == (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


@pytest.mark.parametrize("n", [8191, 8192, 8192 + 63, 70000, 65536 * 2 + 5])
def test_crc32c_long_records_match_bytewise(n):
    data = np.random.RandomState(n).randint(0, 256, n).astype(np.uint8).tobytes()
    assert crc32c.crc32c(data) == crc32c._update_py(0xFFFFFFFF, data) ^ 0xFFFFFFFF


# --- encoders ------------------------------------------------------------------

def decode_png(data):
    """Pixels of a PNG written with filter type 0 (as encode_png writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + n
    w, h, depth, color = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, -1)
    assert depth == 8 and (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(h, w, channels)


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_png_round_trip(channels):
    img = np.random.RandomState(channels).randint(0, 256, (5, 7, channels)).astype(np.uint8)
    np.testing.assert_array_equal(decode_png(encode_png(img)), img)


def test_png_rejects_bad_images():
    with pytest.raises(ValueError, match="1, 2, 3, or 4 channels, got 5"):
        encode_png(np.zeros((2, 2, 5), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((2, 2, 3), np.float32))


def test_wav_header_and_samples():
    data = encode_wav(np.array([[0.0], [1.0], [-1.0], [2.0]]), 8000)
    assert data[:4] == b"RIFF" and data[8:16] == b"WAVEfmt "
    assert struct.unpack("<I", data[4:8])[0] == len(data) - 8
    fmt = struct.unpack("<HHIIHH", data[20:36])
    assert fmt == (1, 1, 8000, 16000, 2, 16)
    assert data[36:40] == b"data"
    assert np.frombuffer(data[44:], "<i2").tolist() == [0, 32767, -32767, 32767]


def test_image_dtype_conversion_matches_convert_image_dtype():
    f = plugin_data.to_uint8(np.array([0.0, 0.5, 1.0, 1.5, -1.0], np.float32))
    assert f.tolist() == [0, 127, 255, 255, 0]
    assert plugin_data.to_uint8(np.array([0, 256, 65535], np.uint16)).tolist() == [0, 1, 255]
    assert plugin_data.to_uint8(np.array([0, 2 ** 31 - 1], np.int32)).tolist() == [0, 255]
    assert plugin_data.to_uint8(np.array([0, 127], np.int8)).tolist() == [0, 254]


# --- histogram buckets (values from TensorFlow 2.21 / TensorBoard) ---------------

def test_histogram_buckets_like_tensorboard():
    h = plugin_data.histogram_buckets(np.arange(10.0), 5)
    np.testing.assert_allclose(h, [[0, 1.8, 2], [1.8, 3.6, 2], [3.6, 5.4, 2],
                                   [5.4, 7.2, 2], [7.2, 9, 2]])
    h = plugin_data.histogram_buckets([1.0, 2.0, 2.5, 10.0])
    assert h.shape == (30, 3) and h.dtype == np.float64
    assert h[:, 2].sum() == 4 and h[0].tolist() == [1.0, 1.3, 1.0]
    assert h[-1, 1] == 10.0 and h[-1, 2] == 1  # the maximum falls in the last bucket
    assert h[5, 2] == 1 and h[3, 2] == 1
    same = plugin_data.histogram_buckets([3.0, 3.0])
    assert (same[:, :2] == 3).all() and same[:, 2].tolist() == [0] * 29 + [2]
    assert plugin_data.histogram_buckets(np.zeros([0])).tolist() == [[0.0, 0.0, 0.0]] * 30
    assert plugin_data.histogram_buckets([1.0, 2.0], 0).shape == (0, 3)
    assert plugin_data.histogram_buckets([1.0, 2.0], -3).shape == (0, 3)


# --- no writer ----------------------------------------------------------------

def test_summaries_without_writer_return_false():
    r = tf.summary.scalar("x", 1.0, step=1)
    assert repr(r) == "<tf.Tensor: shape=(), dtype=bool, numpy=False>"
    r = tf.summary.scalar("x", 1.0)  # no step needed: nothing is recorded
    assert r.dtype == tf.bool and not r.numpy()
    assert not tf.summary.histogram("h", [1.0]).numpy()
    assert not tf.summary.text("t", "a").numpy()
    assert not tf.summary.image("i", np.zeros((1, 2, 2, 1))).numpy()
    assert not tf.summary.write("w", 3).numpy()
    assert not tf.summary.should_record_summaries().numpy()
    assert tf.summary.flush() is None


def test_checks_that_run_without_a_writer():
    with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(2,\)"):
        tf.summary.scalar("x", [1.0, 2.0], step=1)
    with pytest.raises(TypeError, match="tensor must be of type tf.string; got tf.float32"):
        tf.summary.text("t", 1.0, step=1)
    with pytest.raises(ValueError, match="Unknown encoding: 'mp3'"):
        tf.summary.audio("a", np.zeros((1, 4, 1)), 8000, step=1, encoding="mp3")


def test_step_state():
    assert tf.summary.experimental.get_step() is None
    tf.summary.experimental.set_step(5)
    try:
        assert tf.summary.experimental.get_step() == 5
    finally:
        tf.summary.experimental.set_step(None)


def test_noop_writer_records_nothing():
    w = tf.summary.create_noop_writer()
    assert isinstance(w, tf.summary.SummaryWriter)
    with w.as_default(step=3) as entered:
        assert entered is w
        assert tf.summary.experimental.get_step() == 3
        assert not tf.summary.scalar("x", 1.0).numpy()
        assert not tf.summary.should_record_summaries().numpy()
    assert tf.summary.experimental.get_step() is None
    w.flush()
    w.close()


def test_summary_scope_tags():
    with tf.summary.experimental.summary_scope("q") as (tag, scope):
        assert tag == "q" and scope == "q/"
    with tf.name_scope("outer"):
        with tf.summary.experimental.summary_scope("a b") as (tag, scope):
            assert tag == "outer/a b" and scope == "outer/ab/"


# --- the optional extra ----------------------------------------------------------

def test_create_file_writer_without_tensorboard_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setattr(protos, "_loaded", None)
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    for n in list(sys.modules):
        if n.startswith("tensorboard."):
            monkeypatch.delitem(sys.modules, n)
    with pytest.raises(ImportError, match=r'pip install "rillflow\[tensorboard\]"'):
        tf.summary.create_file_writer(str(tmp_path))
    assert not os.listdir(tmp_path)
    with pytest.raises(ValueError, match="Argument `logdir` cannot be None"):
        tf.summary.create_file_writer(None)


def test_import_works_without_tensorboard():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "import rillflow as tf, rillflow.summary\n"
            "print(bool(tf.summary.scalar('x', 1.0, step=1).numpy()))\n"
            "try:\n"
            "    tf.summary.create_file_writer('unused')\n"
            "except ImportError as e:\n"
            "    print('ImportError', 'rillflow[tensorboard]' in str(e))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "ImportError", "True"]


def test_histogram_buckets_with_nan_and_inf_as_tensorboard():
    # TensorBoard's histogram op on TensorFlow 2.21 (summary_v2._buckets):
    # NaN data makes every edge NaN and counts nothing; an infinite maximum
    # counts the finite values in the first bucket.
    from rillflow.summary.plugin_data import histogram_buckets
    got = histogram_buckets([1.0, 2.0, np.nan, 3.0, 4.0], 3)
    assert np.isnan(got[:, :2]).all() and got[:, 2].tolist() == [0.0, 0.0, 0.0]
    got = histogram_buckets([1.0, 2.0, np.inf, 3.0], 3)
    np.testing.assert_array_equal(got, [[1.0, np.inf, 3.0], [np.inf, np.inf, 0.0],
                                        [np.inf, np.inf, 0.0]])
