"""The summary functions of TensorBoard's plugins: `tf.summary.scalar`,
`histogram`, `text`, `image` and `audio`.

Each checks its data where TensorFlow does (scalar and text at once;
histogram, image and audio only when the summary is recorded), and writes
through `ops.write_summary`, which writes now or, in a function, on every
call.
"""
import functools

from ..framework import dtypes as D
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import EagerTensor, Tensor
from ..ops.core.math_ops import cast
from . import plugin_data
from .ops import summary_scope, write_summary

__all__ = ["scalar", "histogram", "text", "image", "audio"]


def _cast(t, dtype):
    if t.dtype is dtype:
        return t
    return cast(t, dtype)


@export("summary.scalar")
def scalar(name, data, step=None, description=None):
    """Writes a scalar summary (`tf.summary.scalar`): one number per step,
    drawn as a curve by TensorBoard's Scalars dashboard.

    Args:
      name: the summary's name; its tag is the name under the current name
        scope.
      data: a real number or scalar tensor (written as float32).
      step: the step (an int, `tf.Variable` or int64 tensor); None uses the
        default step (`tf.summary.experimental.set_step`).
      description: a longer description, shown by TensorBoard.

    Returns:
      A bool tensor: True if the summary was written, False when there is no
      default writer or recording is off.

    Raises:
      ValueError: if `data` is not a scalar, or no step is given or set
        when the summary is recorded.
    """
    with summary_scope(name, "scalar_summary", values=[data, step]) as (tag, _):
        t = convert_to_tensor(data)
        if t.shape.rank is not None and t.shape.rank != 0:
            raise ValueError(f"Expected scalar shape, saw shape: {_shape_str(t.shape)}.")
        t = _cast(t, D.float32)
        check = None if t.shape.rank == 0 else plugin_data.check_scalar
        return write_summary(tag, t, step,
                             lambda: plugin_data.metadata("scalars", description),
                             prepare=check)


@export("summary.histogram")
def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram summary (`tf.summary.histogram`): the distribution
    of the values of `data` at this step, in `buckets` equal-width buckets
    (default 30) spanning their range.

    Args:
      name: the summary's name (tag: the name under the current name scope).
      data: a tensor of any shape of real numbers.
      step: the step, or None for the default step.
      buckets: the number of buckets (an int).
      description: a longer description, shown by TensorBoard.

    Returns:
      A bool tensor: whether the summary was written.
    """
    with summary_scope(name, "histogram_summary", values=[data, buckets, step]) as (tag, _):
        def tensor():
            t = _cast(convert_to_tensor(data), D.float64)
            return t
        return write_summary(tag, tensor, step,
                             lambda: plugin_data.metadata("histograms", description),
                             prepare=functools.partial(plugin_data.histogram_buckets,
                                                       bucket_count=_bucket_count(buckets)))


def _bucket_count(buckets):
    if buckets is None:
        return plugin_data.DEFAULT_BUCKET_COUNT
    t = buckets if isinstance(buckets, Tensor) else convert_to_tensor(buckets)
    if t.dtype is not D.int32:
        raise TypeError(f"tensor must be of type tf.int32; got tf.{t.dtype.name}")
    value = t.numpy() if isinstance(t, EagerTensor) else t._const
    if value is None:
        raise ValueError("histogram `buckets` must be known when the function is traced "
                         "(a Python int or a constant)")
    return int(value)


@export("summary.text")
def text(name, data, step=None, description=None):
    """Writes a text summary (`tf.summary.text`): strings (Markdown) shown by
    TensorBoard's Text dashboard; a string tensor of any shape (2-D ones are
    shown as tables).

    Raises:
      TypeError: if `data` is not a string tensor.
    """
    with summary_scope(name, "text_summary", values=[data, step]) as (tag, _):
        t = convert_to_tensor(data)
        if t.dtype is not D.string:
            raise TypeError(f"tensor must be of type tf.string; got tf.{t.dtype.name}")
        return write_summary(tag, t, step, lambda: plugin_data.metadata("text", description))


@export("summary.image")
def image(name, data, step=None, max_outputs=3, description=None):
    """Writes an image summary (`tf.summary.image`).

    Args:
      name: the summary's name (tag: the name under the current name scope).
      data: images `[k, height, width, channels]` with 1 (grayscale), 2
        (grayscale and alpha), 3 (RGB) or 4 (RGBA) channels; floats in
        [0, 1], or integers (uint8 in [0, 255]).
      step: the step, or None for the default step.
      max_outputs: at most this many images of the batch are written.
      description: a longer description, shown by TensorBoard.

    Returns:
      A bool tensor: whether the summary was written.
    """
    with summary_scope(name, "image_summary", values=[data, max_outputs, step]) as (tag, _):
        def tensor():
            t = convert_to_tensor(data)
            if t.shape.rank is not None and t.shape.rank != 4:
                raise ValueError(f"Tensor  must have rank 4.  Received rank {t.shape.rank}, "
                                 f"shape {_shape_str(t.shape)}")
            if not (t.dtype.is_floating or t.dtype.is_integer):
                raise AttributeError("image dtype must be either floating point or integer")
            return t
        return write_summary(tag, tensor, step,
                             lambda: plugin_data.metadata("images", description),
                             prepare=plugin_data.ImageEncoder(_max_outputs(max_outputs)))


def _max_outputs(max_outputs):
    n = max_outputs.numpy() if isinstance(max_outputs, EagerTensor) else max_outputs
    n = int(n)
    if n < 0:
        raise ValueError(f"max_outputs must be non-negative, got {n}")
    return n


@export("summary.audio")
def audio(name, data, sample_rate, step=None, max_outputs=3, encoding=None,
          description=None):
    """Writes an audio summary (`tf.summary.audio`) of clips
    `[k, frames, channels]` with samples in [-1, 1], encoded as WAV.

    Raises:
      ValueError: for an encoding other than "wav".
    """
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    with summary_scope(name, "audio_summary", values=[data, sample_rate, max_outputs,
                                                      step]) as (tag, _):
        def tensor():
            t = convert_to_tensor(data)
            if t.shape.rank is not None and t.shape.rank != 3:
                raise ValueError(f"Tensor  must have rank 3.  Received rank {t.shape.rank}, "
                                 f"shape {_shape_str(t.shape)}")
            return _cast(t, D.float32)
        rate = sample_rate.numpy() if isinstance(sample_rate, EagerTensor) else sample_rate
        return write_summary(tag, tensor, step,
                             lambda: plugin_data.audio_metadata(description),
                             prepare=plugin_data.AudioEncoder(rate, _max_outputs(max_outputs)))


def _shape_str(shape):
    return str(tuple(shape.as_list())) if shape.rank is not None else "<unknown>"
