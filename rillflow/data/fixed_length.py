"""`tf.data.FixedLengthRecordDataset`: the fixed-size records of binary files
(after a header and before a footer) as string scalars, read as the
pipeline pulls. As in TensorFlow, an uncompressed file whose body is not a
whole number of records is an error; a compressed one's partial last record
is dropped."""
import io
import os

import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.tensor_spec import TensorSpec
from . import dataset_ops as DS
from . import runtime as R
from .readers import _ReaderMeta, _ZlibReader, _compression, _names, _open_binary, \
    _string_input

__all__ = ["FixedLengthRecordDataset"]

_STRING = TensorSpec([], D.string)


class FixedLengthNode(R.Node):
    """The records of the files, one after another."""

    __slots__ = ("files", "record", "header", "footer", "compression")

    def __init__(self, files, record, header, footer, compression):
        self.files, self.record, self.header = files, record, header
        self.footer, self.compression = footer, compression

    def __iter__(self):
        for path in self.files:
            raw = _open_binary(path, self.compression)
            if not self.compression:
                body = os.path.getsize(path) - self.header - self.footer
                if body % self.record:
                    raw.close()
                    raise errors.InvalidArgumentError(
                        None, None, f"Excluding the header ({self.header} bytes) and footer "
                        f"({self.footer} bytes), input file \"{path}\" has body length {body} "
                        f"bytes, which is not an exact multiple of the record length "
                        f"({self.record} bytes).")
            f = io.BufferedReader(raw) if isinstance(raw, _ZlibReader) else raw
            with f:
                f.read(self.header)
                # Keep `footer` bytes back: they end the file, not a record.
                pending = b""
                while True:
                    chunk = f.read(max(self.record * 64, 1 << 16))
                    if not chunk:
                        break
                    pending += chunk
                    usable = len(pending) - self.footer
                    n = max(usable, 0) // self.record
                    for k in range(n):
                        yield (_scalar(pending[k * self.record:(k + 1) * self.record]),)
                    pending = pending[n * self.record:]


def _scalar(b):
    a = np.empty((), dtype=object)
    a[()] = b
    return a


def _fixed_length_kernel(filenames, header_bytes, record_bytes, footer_bytes, buffer_size,
                         compression_type, **_):
    record, header, footer = int(record_bytes), int(header_bytes), int(footer_bytes)
    if record <= 0:
        raise errors.InvalidArgumentError(None, None, "`record_bytes` must be > 0")
    if header < 0:
        raise errors.InvalidArgumentError(None, None, "`header_bytes` must be >= 0")
    if footer < 0:
        raise errors.InvalidArgumentError(None, None, "`footer_bytes` must be >= 0")
    return FixedLengthNode(_names(filenames), record, header, footer,
                           _compression(compression_type))


_FixedLength = DS.register_dataset_op("FixedLengthRecordDatasetV2", _fixed_length_kernel)


@export("data.FixedLengthRecordDataset")
class FixedLengthRecordDataset(DS.Dataset, metaclass=_ReaderMeta):
    """The `record_bytes`-long records of binary files, after `header_bytes`
    and before `footer_bytes` in each (`tf.data.FixedLengthRecordDataset`).

    Args:
      filenames: a file name, a list of them, a string tensor, or a dataset
        of file names.
      record_bytes, header_bytes, footer_bytes: the layout of each file.
      buffer_size: accepted (files are read through Python's buffering).
      compression_type: "" or None (none), "GZIP" or "ZLIB".
      num_parallel_reads: with several files, records are interleaved from
        that many files at a time.

    Reading raises InvalidArgumentError for a non-positive `record_bytes`
    and NotFoundError for a missing file.
    """

    _reader_kind = "FixedLengthRecordDatasetV2"

    def __new__(cls, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                buffer_size=None, compression_type=None, num_parallel_reads=None, name=None):
        def one(f):
            return FixedLengthRecordDataset(f, record_bytes, header_bytes, footer_bytes,
                                            buffer_size, compression_type)

        if isinstance(filenames, DS.Dataset) or (num_parallel_reads or 1) > 1:
            files = filenames if isinstance(filenames, DS.Dataset) else \
                DS.Dataset.from_tensor_slices(_string_input(filenames, "filenames"))
            if (num_parallel_reads or 1) > 1:
                ds = files.interleave(one, cycle_length=int(num_parallel_reads), block_length=1)
            else:
                ds = files.flat_map(one)
            return DS.make_dataset(cls._reader_kind, ds._variant_tensor, _STRING)
        ins = [_string_input(filenames, "filenames"),
               DS.scalar(header_bytes or 0, D.int64, "header_bytes"),
               DS.scalar(record_bytes, D.int64, "record_bytes"),
               DS.scalar(footer_bytes or 0, D.int64, "footer_bytes"),
               DS.scalar(buffer_size or 0, D.int64, "buffer_size"),
               _string_input(compression_type or "", "compression_type")]
        return DS.build(cls._reader_kind, _FixedLength, ins, {}, _STRING, name)
