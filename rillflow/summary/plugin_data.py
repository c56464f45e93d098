"""What TensorBoard's plugins expect: the summary metadata naming each
plugin, and the tensors they read (histogram buckets, encoded images and
audio), computed from NumPy values when a summary is written."""
import functools

import numpy as np

from ..framework import errors
from . import protos
from .png import encode_png
from .wav import encode_wav

__all__ = ["metadata", "histogram_buckets", "ImageEncoder", "AudioEncoder"]

DEFAULT_BUCKET_COUNT = 30
# AudioPluginData(encoding=WAV): field 2, varint 11.
_AUDIO_WAV_CONTENT = b"\x10\x0b"


@functools.lru_cache(maxsize=256)
def metadata(plugin_name, description=None, content=b""):
    """A SummaryMetadata proto for `plugin_name` (content: the plugin's own
    serialized data, empty for version 0 of the scalar, histogram, text and
    image plugins). Shared between calls: copy it, never change it."""
    P = protos.load()
    return P.summary_pb2.SummaryMetadata(
        summary_description=description or "",
        plugin_data=P.summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin_name,
                                                             content=content))


def audio_metadata(description=None):
    """SummaryMetadata for the audio plugin (WAV encoding)."""
    return metadata("audio", description, _AUDIO_WAV_CONTENT)


def check_scalar(value):
    """The float32 scalar, or InvalidArgumentError for another shape (at run time)."""
    value = np.asarray(value)
    if value.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"Expected scalar shape, saw shape: {value.shape}.")
    return value


def histogram_buckets(data, bucket_count=DEFAULT_BUCKET_COUNT):
    """The `[k, 3]` float64 array of (left edge, right edge, count) rows that
    TensorBoard's histogram plugin reads.

    `bucket_count` equal-width buckets span the data's range, the last one
    closed; all-equal data puts every count in the last of `bucket_count`
    zero-width buckets; empty data gives zero rows of zeros, and a bucket
    count of zero (or less) gives no rows.
    """
    k = max(0, int(bucket_count))
    data = np.asarray(data, dtype=np.float64).reshape(-1)
    if data.size == 0 or k == 0:
        return np.zeros((k, 3), dtype=np.float64)
    lo, hi = data.min(), data.max()
    if lo == hi:
        counts = np.zeros(k, dtype=np.float64)
        counts[-1] = data.size
        edges = np.full(k, hi, dtype=np.float64)
        return np.stack([edges, edges, counts], axis=1)
    width = (hi - lo) / k
    with np.errstate(invalid="ignore"):   # NaN data, inf / inf
        q = np.floor((data - lo) / width)
    # TensorBoard's histogram op casts these to int32 and one-hot encodes
    # them: NaN and infinite positions (NaN data, an infinite range) cast to
    # a negative index and land in no bucket.
    q = q[np.isfinite(q)]
    index = np.minimum(q.astype(np.int64), k - 1)
    counts = np.bincount(index, minlength=k).astype(np.float64)
    with np.errstate(invalid="ignore"):   # an infinite range: inf * 0
        edges = np.linspace(lo, hi, k + 1)
    # TensorFlow's LinSpace writes the start itself (not start + 0 * step)
    # and TensorBoard replaces the last edge by the maximum.
    edges[0], edges[-1] = lo, hi
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def to_uint8(images):
    """Images of any float or integer dtype as uint8, as
    `tf.image.convert_image_dtype(..., tf.uint8, saturate=True)` scales them:
    floats in [0, 1] times 255.5, integers by their range."""
    images = np.asarray(images)
    kind = images.dtype.kind
    if images.dtype == np.uint8:
        return images
    if kind == "f":
        scaled = images.astype(np.float64) * 255.5
        return np.clip(np.nan_to_num(scaled, nan=0.0), 0, 255).astype(np.uint8)
    if kind in "iu":
        bits = images.dtype.itemsize * 8 - (1 if kind == "i" else 0)
        if bits > 8:
            out = images.astype(np.int64) >> (bits - 8)
        else:
            out = images.astype(np.int64) << (8 - bits)
        return np.clip(out, 0, 255).astype(np.uint8)
    raise errors.InvalidArgumentError(None, None,
                                      f"image dtype {images.dtype} is not a number type")


class ImageEncoder:
    """Prepares image data `[k, h, w, c]`: the width and height as strings,
    then the first `max_outputs` images as PNG."""

    def __init__(self, max_outputs):
        self.max_outputs = max_outputs

    def __call__(self, images):
        images = np.asarray(images)
        if images.ndim != 4:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor  must have rank 4.  Received rank {images.ndim}, "
                f"shape {images.shape}")
        if not 1 <= images.shape[3] <= 4:
            raise errors.InvalidArgumentError(
                None, None, f"image must have 1, 2, 3, or 4 channels, got {images.shape[3]}")
        pixels = to_uint8(images[:self.max_outputs])
        out = [str(images.shape[2]).encode(), str(images.shape[1]).encode()]
        out.extend(encode_png(im) for im in pixels)
        return _strings(out)

    def __repr__(self):
        return "ImageEncoder(max_outputs=%d)" % self.max_outputs


class AudioEncoder:
    """Prepares audio data `[k, frames, channels]` in [-1, 1]: rows of (WAV
    bytes, empty label) for the first `max_outputs` clips."""

    def __init__(self, sample_rate, max_outputs):
        self.sample_rate = sample_rate
        self.max_outputs = max_outputs

    def __call__(self, audio):
        audio = np.asarray(audio)
        if audio.ndim != 3:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor  must have rank 3.  Received rank {audio.ndim}, "
                f"shape {audio.shape}")
        rate = int(np.asarray(self.sample_rate))
        clips = [encode_wav(a, rate) for a in audio[:self.max_outputs]]
        out = np.empty((len(clips), 2), dtype=object)
        out[:, 0] = clips
        out[:, 1] = b""
        return out

    def __repr__(self):
        return "AudioEncoder(max_outputs=%d)" % self.max_outputs


def _strings(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out
