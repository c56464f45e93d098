"""File readers: `TextLineDataset`, `experimental.CsvDataset` and
`experimental.make_csv_dataset`. Files are read line by line as the
pipeline pulls, so any file size runs in constant memory."""
import collections
import csv
import glob as _glob
import gzip
import io
import itertools
import zlib

import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from . import dataset_ops as DS
from . import runtime as R
from .sources import from_tensor_slices
from ..ops.core.shape_ops import reshape

_STRING = TensorSpec([], D.string)


def _names(filenames):
    return [f.decode() if isinstance(f, bytes) else str(f)
            for f in np.reshape(np.asarray(filenames, dtype=object), -1)]


def _compression(value):
    if isinstance(value, np.ndarray):
        value = value[()] if value.ndim == 0 else value.reshape(-1)[0]
    v = value.decode() if isinstance(value, bytes) else str(value)
    v = v.upper()
    if v not in ("", "GZIP", "ZLIB"):
        raise errors.InvalidArgumentError(None, None, f"Unsupported compression type: {v}")
    return v


def _open_binary(path, compression):
    try:
        if compression == "GZIP":
            return gzip.open(path, "rb")
        f = open(path, "rb")
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if compression == "ZLIB":
        return _ZlibReader(f)
    return f


class _ZlibReader(io.RawIOBase):
    """A streaming reader of a zlib-compressed file."""

    def __init__(self, f):
        self._f = f
        self._d = zlib.decompressobj()
        self._buf = b""

    def readable(self):
        return True

    def readinto(self, b):
        while not self._buf:
            chunk = self._f.read(1 << 16)
            if not chunk:
                self._buf = self._d.flush()
                if not self._buf:
                    return 0
                break
            self._buf = self._d.decompress(chunk)
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self):
        self._f.close()
        super().close()


def _lines(path, compression):
    raw = _open_binary(path, compression)
    f = io.BufferedReader(raw) if isinstance(raw, _ZlibReader) else raw
    with f:
        for line in f:
            if line.endswith(b"\n"):
                line = line[:-1]
                if line.endswith(b"\r"):
                    line = line[:-1]
            yield line


# --- TextLineDataset -------------------------------------------------------------------------

class TextLineNode(R.Node):
    """The lines of text files, without line endings, as string scalars."""

    __slots__ = ("files", "compression")

    def __init__(self, files, compression):
        self.files, self.compression = files, compression

    def _all_lines(self):
        for path in self.files:
            yield from _lines(path, self.compression)

    def __iter__(self):
        for line in self._all_lines():
            a = np.empty((), dtype=object)
            a[()] = line
            yield (a,)

    def batches(self, size, drop_remainder):
        return self._batches(size, drop_remainder)

    def _batches(self, size, drop_remainder):
        # Whole batches of lines, without a 0-d array per line.
        it = self._all_lines()
        while True:
            chunk = list(itertools.islice(it, size))
            if not chunk or (len(chunk) < size and drop_remainder):
                return
            a = np.empty(len(chunk), dtype=object)
            a[:] = chunk
            yield (a,)
            if len(chunk) < size:
                return


def _text_kernel(filenames, compression_type, buffer_size, **_):
    return TextLineNode(_names(filenames), _compression(compression_type))


_TextLine = DS.register_dataset_op("TextLineDataset", _text_kernel)


def _string_input(v, name):
    t = v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=D.string, name=name)
    if t.dtype is not D.string:
        raise TypeError(f"`{name}` must be a string tensor, got {t.dtype.name}")
    return t


class _ReaderMeta(type):
    """Reader classes build plain Datasets (so a reader's dataset traces like
    any other dataset of the same element_spec); `isinstance` recognizes
    them by kind."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, DS.Dataset) and getattr(obj, "_kind", None) == cls._reader_kind


@export("data.TextLineDataset")
class TextLineDataset(DS.Dataset, metaclass=_ReaderMeta):
    """The lines of one or more text files (`tf.data.TextLineDataset`).

    Args:
      filenames: a file name, a list of them, a string tensor, or a dataset
        of file names.
      compression_type: "" (none), "GZIP" or "ZLIB".
      buffer_size, num_parallel_reads: accepted.
    """

    _reader_kind = "TextLineDatasetV2"

    def __new__(cls, filenames, compression_type=None, buffer_size=None,
                num_parallel_reads=None, name=None):
        if isinstance(filenames, DS.Dataset):
            ds = filenames.flat_map(
                lambda f: TextLineDataset(f, compression_type, buffer_size))
            return DS.make_dataset(cls._reader_kind, ds._variant_tensor, _STRING)
        ins = [_string_input(filenames, "filenames"),
               _string_input(compression_type or "", "compression_type"),
               DS.scalar(buffer_size or 0, D.int64, "buffer_size")]
        return DS.build(cls._reader_kind, _TextLine, ins, {}, _STRING, name)


# --- CsvDataset ------------------------------------------------------------------------------

class CsvNode(R.Node):
    """The records of CSV files as tuples of scalars parsed per column type."""

    __slots__ = ("files", "compression", "defaults", "dtypes", "header", "delim", "quote",
                 "na_value", "cols")

    def __init__(self, files, compression, defaults, dtypes, header, delim, quote, na_value,
                 cols):
        self.files, self.compression = files, compression
        self.defaults, self.dtypes = defaults, dtypes
        self.header, self.delim, self.quote = header, delim, quote
        self.na_value, self.cols = na_value, cols

    def __iter__(self):
        for path in self.files:
            text = (line.decode("utf-8", "surrogateescape")
                    for line in _lines(path, self.compression))
            reader = csv.reader(text, delimiter=self.delim,
                                quoting=csv.QUOTE_MINIMAL if self.quote else csv.QUOTE_NONE)
            if self.header:
                next(reader, None)
            for row in reader:
                if not row:
                    continue
                yield self._record(row)

    def _record(self, row):
        cols = self.cols if self.cols is not None else range(len(row))
        n = len(self.dtypes)
        if self.cols is None and len(row) != n:
            raise errors.InvalidArgumentError(
                None, None, f"Expect {n} fields but have {'more' if len(row) > n else len(row)}"
                f" in record")
        out = []
        for k, c in enumerate(cols):
            if c >= len(row):
                raise errors.InvalidArgumentError(
                    None, None, f"Expect {max(cols) + 1} fields but have {len(row)} in record")
            field = row[c]
            dtype = self.dtypes[k]
            if field == "" or field == self.na_value:
                d = self.defaults[k]
                if d is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Field {k} is required but missing in record!")
                out.append(d)
                continue
            out.append(_parse(field, dtype, k))
        return tuple(out)


def _parse(field, dtype, k):
    if dtype is D.string:
        a = np.empty((), dtype=object)
        a[()] = field.encode("utf-8", "surrogateescape")
        return a
    try:
        if dtype.is_integer:
            v = int(field.strip())
            info = np.iinfo(dtype._np)
            if not info.min <= v <= info.max:
                raise ValueError
            return dtype._np.type(v)
        return dtype._np.type(float(field.strip()))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Field {k} in record is not a valid {dtype.name}: {field}") from None


def _csv_kernel(filenames, compression_type, *defaults, header, field_delim, use_quote_delim,
                na_value, select_cols, output_types=(), _required=(), **_):
    values = [None if req else (d[()] if isinstance(d, np.ndarray) and d.ndim == 0 and
                                d.dtype.kind != "O" else d)
              for d, req in zip(defaults, _required)]
    return CsvNode(_names(filenames), _compression(compression_type), values,
                   list(output_types), header, field_delim, use_quote_delim, na_value,
                   select_cols)


_Csv = DS.register_dataset_op("CSVDatasetV2", _csv_kernel)
_CSV_TYPES = (D.int32, D.int64, D.float32, D.float64, D.string)


@export("data.experimental.CsvDataset")
class CsvDataset(DS.Dataset, metaclass=_ReaderMeta):
    """The records of CSV files (`tf.data.experimental.CsvDataset`).

    Args:
      filenames: file name(s).
      record_defaults: one entry per (selected) column: a dtype (the column
        is required) or a default value (used for empty fields).
      header: skip the first line of each file.
      field_delim, use_quote_delim, na_value: CSV syntax.
      select_cols / exclude_cols: the column indices to keep / drop.
    """

    _reader_kind = "CsvDatasetV2"

    def __new__(cls, filenames, record_defaults, compression_type=None, buffer_size=None,
                header=False, field_delim=",", use_quote_delim=True, na_value="",
                select_cols=None, exclude_cols=None, name=None):
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("Either select_cols or exclude_cols should be empty")
        defaults, dtypes, required = [], [], []
        for i, d in enumerate(record_defaults):
            if isinstance(d, D.DType) or (isinstance(d, type) and not isinstance(d, Tensor)):
                dt = D.as_dtype(d)
                defaults.append(convert_to_tensor(np.zeros((), dt._np) if dt is not D.string
                                                  else b"", dtype=dt))
                required.append(True)
            else:
                t = d if isinstance(d, Tensor) else convert_to_tensor(d)
                if t.shape.rank not in (0, None) and t.shape.num_elements() != 1:
                    raise ValueError(f"record_defaults[{i}] must be a scalar or a "
                                     "one-element tensor.")
                dt = t.dtype
                if t.shape.rank not in (0, None):
                    t = reshape(t, [])
                defaults.append(t)
                required.append(False)
            if dt not in _CSV_TYPES:
                raise TypeError(f"record_defaults[{i}] has unsupported dtype {dt.name}; use "
                                "int32, int64, float32, float64 or string.")
            dtypes.append(dt)
        cols = None
        if select_cols is not None:
            cols = sorted(int(c) for c in select_cols)
            if len(cols) != len(dtypes):
                raise ValueError("Expected len(record_defaults) to match len(select_cols).")
        elif exclude_cols is not None:
            raise ValueError("exclude_cols needs the number of columns; use select_cols.")
        spec = tuple(TensorSpec([], dt) for dt in dtypes)
        ins = [_string_input(filenames, "filenames"),
               _string_input(compression_type or "", "compression_type")] + defaults
        attrs = {"header": bool(header), "field_delim": field_delim,
                 "use_quote_delim": bool(use_quote_delim), "na_value": na_value,
                 "select_cols": cols, "_required": tuple(required)}
        return DS.build(cls._reader_kind, _Csv, ins, attrs, spec, name)


CsvDatasetV2 = CsvDataset


# --- make_csv_dataset --------------------------------------------------------------------------

def _files(file_pattern):
    pats = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    out = []
    for p in pats:
        p = p.decode() if isinstance(p, bytes) else p
        found = sorted(_glob.glob(p))
        if not found:
            raise ValueError(f"No files match `file_pattern` {p}.")
        out.extend(found)
    return out


def _infer_type(values, na_value):
    kinds = [D.int32, D.int64, D.float32, D.string]
    best = 0
    for v in values:
        if v == "" or v == na_value:
            continue
        while best < 3:
            try:
                if best < 2:
                    x = int(v)
                    if best == 0 and not -2 ** 31 <= x < 2 ** 31:
                        best = 1
                    if best == 1 and not -2 ** 63 <= x < 2 ** 63:
                        raise ValueError
                else:
                    float(v)
                break
            except ValueError:
                best = 2 if best < 2 else 3
    return kinds[best]


def _peek(path, delim, quote, header, n):
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        reader = csv.reader(f, delimiter=delim,
                            quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE)
        rows = []
        for row in reader:
            if row:
                rows.append(row)
            if len(rows) > n:
                break
    head = rows[0] if header and rows else None
    return head, rows[1:] if header else rows


@export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """Batches of CSV records as `(OrderedDict of columns, label)` (or just
    the dict without `label_name`); column types are inferred from the first
    rows when `column_defaults` is not given. Repeats forever unless
    `num_epochs` is set; shuffles unless `shuffle=False`."""
    files = _files(file_pattern)
    head, rows = _peek(files[0], field_delim, use_quote_delim, header,
                       num_rows_for_inference)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` to be specified.")
        column_names = head
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Expected `column_names` to be unique.")
    if select_columns is not None:
        idx = [column_names.index(c) if isinstance(c, str) else int(c)
               for c in select_columns]
        idx = sorted(idx)
    else:
        idx = list(range(len(column_names)))
    names = [column_names[i] for i in idx]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. "
                         f"Received: {label_name}.")
    if column_defaults is None:
        column_defaults = []
        for i in idx:
            dt = _infer_type([r[i] for r in rows if i < len(r)], na_value)
            column_defaults.append(convert_to_tensor(b"" if dt is D.string else
                                                     np.zeros((), dt._np), dtype=dt))
    elif len(column_defaults) != len(idx):
        raise ValueError("The number of `column_defaults` must match the number of "
                         "(selected) columns.")
    ds = from_tensor_slices(files)
    if shuffle:
        ds = ds.shuffle(len(files), seed=shuffle_seed)

    def read(f):
        return CsvDataset(f, column_defaults, compression_type=compression_type,
                          header=header, field_delim=field_delim,
                          use_quote_delim=use_quote_delim, na_value=na_value,
                          select_cols=idx if select_columns is not None else None)
    ds = ds.interleave(read, cycle_length=num_parallel_reads or 1, block_length=1)
    if ignore_errors:
        ds = ds.ignore_errors()
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)

    def to_dict(*columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    ds = ds.map(to_dict)
    return ds.prefetch(-1 if prefetch_buffer_size is None else prefetch_buffer_size)
