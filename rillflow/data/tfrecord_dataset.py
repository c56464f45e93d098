"""`tf.data.TFRecordDataset`: the records of TFRecord files as string
scalars, read as the pipeline pulls (framing and CRC checks in
rillflow/io/tfrecord.py)."""
import numpy as np

from ..framework import dtypes as D
from ..framework.api_export import export
from ..framework.tensor_spec import TensorSpec
from ..io.tfrecord import iter_records
from . import dataset_ops as DS
from . import runtime as R
from .readers import _ReaderMeta, _compression, _names, _string_input

__all__ = ["TFRecordDataset"]

_STRING = TensorSpec([], D.string)


class TFRecordNode(R.Node):
    """The records of the files, one after another, as string scalars."""

    __slots__ = ("files", "compression")

    def __init__(self, files, compression):
        self.files, self.compression = files, compression

    def __iter__(self):
        for path in self.files:
            for record in iter_records(path, self.compression):
                a = np.empty((), dtype=object)
                a[()] = record
                yield (a,)


def _tfrecord_kernel(filenames, compression_type, buffer_size, **_):
    return TFRecordNode(_names(filenames), _compression(compression_type))


_TFRecord = DS.register_dataset_op("TFRecordDataset", _tfrecord_kernel)


@export("data.TFRecordDataset")
class TFRecordDataset(DS.Dataset, metaclass=_ReaderMeta):
    """The records of one or more TFRecord files (`tf.data.TFRecordDataset`).

    Args:
      filenames: a file name, a list of them, a string tensor, or a dataset
        of file names.
      compression_type: "" or None (none), "GZIP" or "ZLIB".
      buffer_size: accepted (files are read through Python's buffering).
      num_parallel_reads: with several files, records are interleaved from
        that many files at a time, as TensorFlow does.

    Reading raises DataLossError for a corrupted or truncated record and
    NotFoundError for a missing file.
    """

    _reader_kind = "TFRecordDatasetV2"

    def __new__(cls, filenames, compression_type=None, buffer_size=None,
                num_parallel_reads=None, name=None):
        if isinstance(filenames, DS.Dataset) or (num_parallel_reads or 1) > 1:
            files = filenames if isinstance(filenames, DS.Dataset) else \
                DS.Dataset.from_tensor_slices(_string_input(filenames, "filenames"))
            if (num_parallel_reads or 1) > 1:
                ds = files.interleave(
                    lambda f: TFRecordDataset(f, compression_type, buffer_size),
                    cycle_length=int(num_parallel_reads), block_length=1)
            else:
                ds = files.flat_map(lambda f: TFRecordDataset(f, compression_type, buffer_size))
            return DS.make_dataset(cls._reader_kind, ds._variant_tensor, _STRING)
        ins = [_string_input(filenames, "filenames"),
               _string_input(compression_type or "", "compression_type"),
               DS.scalar(buffer_size or 0, D.int64, "buffer_size")]
        return DS.build(cls._reader_kind, _TFRecord, ins, {}, _STRING, name)
