"""`tf.summary`: TensorBoard event files (scalars, histograms, text, images,
audio, graphs) written with the `tensorboard` package's protos.

    writer = tf.summary.create_file_writer(logdir)
    with writer.as_default(step=0):
        tf.summary.scalar("loss", loss)

The `tensorboard` package is the optional extra `rillflow[tensorboard]`;
without it rillflow imports fine and `create_file_writer` raises an
ImportError saying how to install it.
"""
from . import experimental
from .ops import write
from .summaries import audio, histogram, image, scalar, text
from .trace import graph, trace_export, trace_off, trace_on
from .writer import (SummaryWriter, create_file_writer, create_noop_writer, flush, record_if,
                     should_record_summaries)

__all__ = ["SummaryWriter", "audio", "create_file_writer", "create_noop_writer",
           "experimental", "flush", "graph", "histogram", "image", "record_if", "scalar",
           "should_record_summaries", "text", "trace_export", "trace_off", "trace_on",
           "write"]
