"""The tensor file format of rillflow checkpoints (and SavedModel variables).

A checkpoint `prefix` is two files, named as TensorFlow names them:

  `prefix.index`                 JSON: format tag, the caller's metadata, and
                                 for every tensor its dtype, shape, byte
                                 offset, byte length and CRC-32.
  `prefix.data-00000-of-00001`   the tensors' bytes, one after another.

The format is ours, not TensorFlow's TensorBundle: it is meant to be safe to
load from an untrusted source. Nothing is unpickled or evaluated; a dtype is
looked up by name in a fixed table, shapes and offsets are checked against the
file sizes, and every tensor's bytes are checked against its CRC-32.

Numbers are stored little-endian in C order (`bfloat16` as its two raw bytes).
A string tensor (NumPy object array of `bytes`) is stored as its element
lengths (uint64, little-endian) followed by the concatenated bytes.

API (stable; `tf.train.Checkpoint` and `tf.saved_model` both use it):

  write_tensors(prefix, tensors, metadata=None)   -> None
  read_tensors(prefix, names=None)                -> (tensors, metadata)
  TensorFileReader(prefix)                        -> lazy reader of one file
  exists(prefix)                                  -> bool
  data_filename(prefix), index_filename(prefix)   -> str
"""
import json
import math
import os
import zlib

import numpy as np

from ..framework import errors

try:
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None

__all__ = ["write_tensors", "read_tensors", "TensorFileReader", "exists",
           "data_filename", "index_filename", "FORMAT"]

FORMAT = "rillflow-tensors"
_VERSION = 1
_STRING = "string"

# The only dtypes a file may name: a file cannot make us build anything else.
_NUMERIC = {
    name: np.dtype(name).newbyteorder("<") for name in (
        "float16", "float32", "float64", "int8", "int16", "int32", "int64",
        "uint8", "uint16", "uint32", "uint64", "complex64", "complex128", "bool")
}
if _ml_dtypes is not None:
    _NUMERIC["bfloat16"] = np.dtype(_ml_dtypes.bfloat16)


def data_filename(prefix):
    """The data file of checkpoint `prefix` (`prefix.data-00000-of-00001`)."""
    return os.fspath(prefix) + ".data-00000-of-00001"


def index_filename(prefix):
    """The index file of checkpoint `prefix` (`prefix.index`)."""
    return os.fspath(prefix) + ".index"


def exists(prefix):
    """Whether a checkpoint with this prefix has been written (its index exists)."""
    return os.path.isfile(index_filename(prefix))


def _dtype_name(array):
    dt = array.dtype
    if dt.kind in "OSU":
        return _STRING
    for name, known in _NUMERIC.items():
        if dt == known or (dt.kind != "V" and dt.newbyteorder("<") == known):
            return name
    raise TypeError(f"Cannot save an array of dtype {dt} in a checkpoint.")


def _encode(array):
    """(dtype name, bytes) of one array."""
    name = _dtype_name(array)
    if name == _STRING:
        items = [x if isinstance(x, bytes) else str(x).encode("utf-8")
                 for x in array.reshape(-1).tolist()]
        lengths = np.array([len(x) for x in items], dtype="<u8")
        return name, lengths.tobytes() + b"".join(items)
    data = np.ascontiguousarray(array, dtype=_NUMERIC[name])
    return name, data.tobytes()


def _atomic_write(path, data):
    """Writes `data` to `path` through a temporary file and a rename, so a
    reader never sees a half-written file."""
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def write_tensors(prefix, tensors, metadata=None):
    """Writes `tensors` (a dict of name -> NumPy array or array-like) and a
    JSON-serializable `metadata` dict as checkpoint `prefix`.

    Creates the parent directory if needed. The data file is written first and
    the index last, so an index always describes a complete data file.

    Raises:
      TypeError: if an array has a dtype the format cannot store, or the
        metadata is not JSON-serializable.
    """
    prefix = os.fspath(prefix)
    entries = {}
    chunks = []
    offset = 0
    for key in sorted(tensors):
        if not isinstance(key, str):
            raise TypeError(f"Tensor names must be strings, got {key!r}.")
        array = np.asarray(tensors[key])
        dtype, data = _encode(array)
        entries[key] = {"dtype": dtype, "shape": list(array.shape), "offset": offset,
                        "length": len(data), "crc32": zlib.crc32(data)}
        chunks.append(data)
        offset += len(data)
    index = json.dumps({"format": FORMAT, "version": _VERSION,
                        "metadata": metadata if metadata is not None else {},
                        "tensors": entries}, sort_keys=True)
    parent = os.path.dirname(prefix)
    if parent:
        os.makedirs(parent, exist_ok=True)
    _atomic_write(data_filename(prefix), b"".join(chunks))
    _atomic_write(index_filename(prefix), index.encode("utf-8"))


def _corrupt(prefix, why):
    return errors.DataLossError(
        None, None, f"Unable to open table file {index_filename(prefix)}: DATA_LOSS: {why}: "
        "perhaps your file is in a different file format and you need to use a different "
        "restore operator?")


def _check_entry(prefix, key, entry, data_size):
    """Validates one index entry (types, dtype name, sizes) before any use."""
    if not isinstance(entry, dict):
        raise _corrupt(prefix, f"bad entry for {key!r}")
    dtype, shape = entry.get("dtype"), entry.get("shape")
    offset, length, crc = entry.get("offset"), entry.get("length"), entry.get("crc32")
    if dtype != _STRING and dtype not in _NUMERIC:
        raise _corrupt(prefix, f"unknown dtype {dtype!r} for {key!r}")
    if (not isinstance(shape, list) or
            not all(type(d) is int and d >= 0 for d in shape) or
            not all(type(x) is int and x >= 0 for x in (offset, length, crc))):
        raise _corrupt(prefix, f"bad shape or offsets for {key!r}")
    if offset + length > data_size:
        raise _corrupt(prefix, f"tensor {key!r} extends past the end of the data file")
    count = math.prod(shape)
    if dtype != _STRING and count * _NUMERIC[dtype].itemsize != length:
        raise _corrupt(prefix, f"size of tensor {key!r} does not match its shape")
    if dtype == _STRING and count * 8 > length:
        raise _corrupt(prefix, f"size of string tensor {key!r} does not match its shape")


def _decode(prefix, key, entry, data):
    if zlib.crc32(data) != entry["crc32"]:
        raise errors.DataLossError(
            None, None, f"Checksum does not match: stored {entry['crc32']} vs. calculated on "
            f"the restored bytes {zlib.crc32(data)} for tensor {key!r} in "
            f"{data_filename(prefix)}")
    shape = tuple(entry["shape"])
    if entry["dtype"] != _STRING:
        dt = _NUMERIC[entry["dtype"]]
        array = np.frombuffer(data, dtype=dt).reshape(shape)
        # A native-order, writable copy: variables keep the arrays they are
        # assigned, and frombuffer's view would be read-only.
        return array.astype(dt.newbyteorder("="), copy=True)
    count = math.prod(shape)
    lengths = np.frombuffer(data, dtype="<u8", count=count)
    if int(lengths.sum()) != len(data) - 8 * count:
        raise _corrupt(prefix, f"string lengths of tensor {key!r} do not match its size")
    out = np.empty(count, dtype=object)
    pos = 8 * count
    for i, n in enumerate(lengths.tolist()):
        out[i] = data[pos:pos + n]
        pos += n
    return out.reshape(shape)


class TensorFileReader:
    """Reads one checkpoint written by `write_tensors`, tensor by tensor.

    Opening reads and validates only the index; `get(name)` reads and checks
    one tensor's bytes.

    Raises (on construction):
      NotFoundError: if `prefix.index` does not exist.
      DataLossError: if the index is not a valid rillflow tensor index, or the
        data file is missing or too short.
    """

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        path = index_filename(self.prefix)
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise errors.NotFoundError(
                None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
                f"matching files for {self.prefix}") from None
        try:
            index = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise _corrupt(self.prefix, "not a rillflow checkpoint index") from None
        if (not isinstance(index, dict) or index.get("format") != FORMAT or
                not isinstance(index.get("tensors"), dict) or
                not isinstance(index.get("metadata"), dict)):
            raise _corrupt(self.prefix, "not a rillflow checkpoint index")
        if index.get("version") != _VERSION:
            raise _corrupt(self.prefix, f"unsupported format version {index.get('version')!r}")
        try:
            data_size = os.path.getsize(data_filename(self.prefix))
        except OSError:
            raise errors.DataLossError(
                None, None, f"The data file {data_filename(self.prefix)} of checkpoint "
                f"{self.prefix} is missing.") from None
        for key, entry in index["tensors"].items():
            _check_entry(self.prefix, key, entry, data_size)
        self._entries = index["tensors"]
        self.metadata = index["metadata"]

    def names(self):
        """The tensor names, sorted."""
        return sorted(self._entries)

    def __contains__(self, name):
        return name in self._entries

    def dtype_name(self, name):
        """The stored dtype's TensorFlow name (`"float32"`, `"string"`, ...)."""
        return self._entries[name]["dtype"]

    def shape(self, name):
        """The stored shape as a list of ints."""
        return list(self._entries[name]["shape"])

    def get(self, name):
        """The tensor `name` as a NumPy array (object array of bytes for strings).

        Raises:
          KeyError: if there is no such tensor.
          DataLossError: if its bytes are corrupt.
        """
        entry = self._entries[name]
        with open(data_filename(self.prefix), "rb") as f:
            f.seek(entry["offset"])
            data = f.read(entry["length"])
        if len(data) != entry["length"]:
            raise _corrupt(self.prefix, f"data file too short for tensor {name!r}")
        return _decode(self.prefix, name, entry, data)

    def get_many(self, names=None):
        """A dict name -> array of `names` (all tensors by default), reading
        the data file once."""
        names = self.names() if names is None else list(names)
        with open(data_filename(self.prefix), "rb") as f:
            blob = f.read()
        out = {}
        for name in names:
            entry = self._entries[name]
            data = blob[entry["offset"]:entry["offset"] + entry["length"]]
            out[name] = _decode(self.prefix, name, entry, data)
        return out


def read_tensors(prefix, names=None):
    """Reads checkpoint `prefix`: returns `(tensors, metadata)`, a dict of
    name -> NumPy array (all tensors, or only `names`) and the metadata dict
    given to `write_tensors`.

    Raises:
      NotFoundError: if the checkpoint does not exist.
      DataLossError: if it is not a valid rillflow checkpoint or is corrupt.
      KeyError: if a name in `names` is not in the checkpoint.
    """
    reader = TensorFileReader(prefix)
    return reader.get_many(names), reader.metadata
