"""TensorFlow's tensor bundle: the files of a checkpoint (`tf.train.Checkpoint`,
SavedModel variables), written and read as TensorFlow 2 does.

A bundle `prefix` is

  `prefix.index`                      an SSTable (`sstable.py`): the empty key
                                      holds a BundleHeaderProto (number of
                                      shards, endianness, version), every other
                                      key a tensor's BundleEntryProto (dtype,
                                      shape, shard, offset, size, masked
                                      CRC-32C of its bytes); `checkpoint_pb.py`
  `prefix.data-00000-of-0000N`        the shards: the tensors' bytes

A number tensor is its little-endian bytes in C order (bfloat16 and half as
their 16 bits). A string tensor is the varint lengths of its elements, the
masked CRC-32C of those lengths, then the elements' bytes. The checksums
cover each length as a little-endian uint32 (uint64 when it does not fit:
TensorFlow's WriteStringTensor keeps the old 32-bit form for compatibility);
the entry's checksum continues over the 4-byte length checksum and the bytes.

rillflow writes one shard, tensors in key order (so the bytes equal
TensorFlow's `SaveV2` of the same tensors by sorted name). Reading accepts
any number of shards and trusts nothing in the files: dtypes come from a
fixed table, every size and offset is checked against the shapes and the
files' real sizes before anything is read or allocated, and checksums are
verified. A corrupt file raises `DataLossError` naming it; a valid bundle
rillflow cannot represent (a partitioned tensor, a dtype like `resource`,
big-endian data) raises `InvalidArgumentError`.
"""
import math
import os

import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from . import checkpoint_pb, crc32c, sstable, wire

__all__ = ["write_tensors", "read_tensors", "BundleReader", "exists", "data_filename",
           "index_filename"]

_MAX_RANK = 254  # TensorFlow's TensorShape limit
_VERSION = 1     # kTensorBundleVersion: what we write and the newest we read


def data_filename(prefix, shard=0, num_shards=1):
    """Shard `shard` of bundle `prefix` (`prefix.data-00000-of-00001`)."""
    return "%s.data-%05d-of-%05d" % (os.fspath(prefix), shard, num_shards)


def index_filename(prefix):
    """The index file of bundle `prefix` (`prefix.index`)."""
    return os.fspath(prefix) + ".index"


def exists(prefix):
    """Whether a bundle with this prefix has been written (its index exists)."""
    return os.path.isfile(index_filename(prefix))


def _numpy_dtype(dtype):
    """The little-endian NumPy dtype of a number DType, None for strings,
    or raises for a dtype a bundle cannot hold here."""
    if dtype is D.string:
        return None
    npd = dtype.as_numpy_dtype
    if npd is None or dtype.name in ("resource", "variant"):
        raise TypeError(f"Cannot save a tensor of dtype {dtype.name} in a checkpoint.")
    return np.dtype(npd).newbyteorder("<")


def _dtype_of(array):
    if array.dtype.kind in "OSU":
        return D.string
    try:
        return D.as_dtype(array.dtype.newbyteorder("=") if array.dtype.kind != "V"
                          else array.dtype)
    except (TypeError, ValueError, KeyError):
        raise TypeError(f"Cannot save an array of dtype {array.dtype} in a checkpoint.") \
            from None


def _length_bytes(lengths):
    """The bytes the string checksums cover for these element lengths."""
    if all(n <= 0xFFFFFFFF for n in lengths):
        return np.array(lengths, dtype="<u4").tobytes()
    return b"".join(n.to_bytes(4 if n <= 0xFFFFFFFF else 8, "little") for n in lengths)


def _string_bytes(array):
    """(bytes, raw CRC-32C) of a string tensor in TensorFlow's layout."""
    items = [x if isinstance(x, bytes) else
             bytes(x) if isinstance(x, (bytearray, memoryview, np.bytes_)) else
             str(x).encode("utf-8") for x in array.reshape(-1).tolist()]
    lengths = [len(x) for x in items]
    crc = crc32c.crc32c(_length_bytes(lengths))
    length_crc = crc32c.mask(crc).to_bytes(4, "little")
    crc = crc32c.crc32c(length_crc, crc)
    body = b"".join(items)
    crc = crc32c.crc32c(body, crc)
    header = b"".join(wire.encode_varint(n) for n in lengths)
    return header + length_crc + body, crc


def _encode(array):
    """(DType, bytes, masked CRC-32C) of one array."""
    dtype = _dtype_of(array)
    if dtype is D.string:
        data, crc = _string_bytes(array)
    else:
        data = np.ascontiguousarray(array, dtype=_numpy_dtype(dtype)).tobytes()
        crc = crc32c.crc32c(data)
    return dtype, data, crc32c.mask(crc)


def _atomic_write(path, chunks):
    """Writes `chunks` to `path` through a temporary file and a rename, so a
    reader never sees a half-written file."""
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def write_tensors(prefix, tensors):
    """Writes `tensors` (a dict of name -> NumPy array or array-like) as
    bundle `prefix`: one data shard and the index, in TensorFlow's format.

    Creates the parent directory if needed. The data file is written first
    and the index last, so an index always describes a complete data file.

    Raises:
      TypeError: for a non-string name or a dtype a checkpoint cannot hold.
    """
    prefix = os.fspath(prefix)
    for key in tensors:
        if not isinstance(key, str):
            raise TypeError(f"Tensor names must be strings, got {key!r}.")
    keys = sorted(tensors, key=lambda k: k.encode("utf-8"))
    items = [(b"", checkpoint_pb.encode_header(1, _VERSION))]
    chunks = []
    offset = 0
    for key in keys:
        array = np.asarray(tensors[key])
        dtype, data, crc = _encode(array)
        entry = checkpoint_pb.BundleEntry(dtype.as_datatype_enum, array.shape, 0, offset,
                                          len(data), crc)
        items.append((key.encode("utf-8"), checkpoint_pb.encode_entry(entry)))
        chunks.append(data)
        offset += len(data)
    parent = os.path.dirname(prefix)
    if parent:
        os.makedirs(parent, exist_ok=True)
    _atomic_write(data_filename(prefix), chunks)
    _atomic_write(index_filename(prefix), [sstable.write_table(items)])


# --- reading ---------------------------------------------------------------------------------

def _table_error(prefix, why):
    return errors.DataLossError(
        None, None, f"Unable to open table file {index_filename(prefix)}: DATA_LOSS: {why}: "
        "perhaps your file is in a different file format and you need to use a different "
        "restore operator?")


class BundleReader:
    """Reads one bundle, tensor by tensor.

    Opening reads and checks the whole index and the sizes of the data files;
    `get(name)` reads and checks one tensor's bytes.

    Raises (on construction):
      NotFoundError: if `prefix.index` does not exist.
      DataLossError: if the index is not a valid bundle index, or a data
        file is missing or too short for the entries that point into it.
      InvalidArgumentError: for a bundle version or endianness rillflow
        cannot read.
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
            items = sstable.read_table(raw)
        except sstable.TableError as e:
            raise _table_error(self.prefix, str(e)) from None
        if not items or items[0][0] != b"":
            raise _table_error(self.prefix, "the index has no bundle header")
        self._num_shards = self._check_header(items[0][1])
        self._entries = {}
        for key, value in items[1:]:
            try:
                name = key.decode("utf-8")
                entry = checkpoint_pb.decode_entry(value)
            except (UnicodeDecodeError, wire.DecodeError):
                raise _table_error(self.prefix, f"corrupt entry for key {key!r}") from None
            self._check_entry(name, entry)
            self._entries[name] = entry
        self._check_shards()

    def _check_header(self, value):
        try:
            num_shards, endianness, _, min_consumer, bad = checkpoint_pb.decode_header(value)
        except wire.DecodeError:
            raise _table_error(self.prefix, "corrupt bundle header") from None
        if not 0 < num_shards <= 99999:
            raise _table_error(self.prefix, f"bad number of shards {num_shards}")
        if endianness != checkpoint_pb.LITTLE:
            raise errors.InvalidArgumentError(
                None, None, f"{index_filename(self.prefix)} was written on a big-endian "
                "machine; rillflow reads little-endian checkpoints only.")
        if min_consumer > _VERSION or _VERSION in bad:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {index_filename(self.prefix)} needs a newer reader "
                f"(min consumer {min_consumer}, this reader is version {_VERSION}).")
        return num_shards

    def _check_entry(self, name, entry):
        """Validates one entry before any use: dtype, shape, shard, sizes."""
        def bad(why):
            return _table_error(self.prefix, f"{why} for tensor {name!r}")
        if entry.sliced:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor {name!r} in {index_filename(self.prefix)} is saved in "
                "slices (a partitioned variable); rillflow reads whole tensors only.")
        dtype = D._BY_ENUM.get(entry.dtype)
        if dtype is None or dtype.name in ("resource", "variant"):
            raise bad(f"unsupported dtype enum {entry.dtype}")
        if len(entry.shape) > _MAX_RANK:
            raise bad("too many dimensions")
        if not 0 <= entry.shard_id < self._num_shards:
            raise bad(f"shard id {entry.shard_id} out of range")
        if entry.offset < 0 or entry.size < 0:
            raise bad("negative offset or size")
        count = math.prod(entry.shape)
        if dtype is D.string:
            # Each element has at least a one-byte length, then the checksum.
            if count + 4 > entry.size and not (count == 0 and entry.size in (0, 4)):
                raise bad("size does not match the shape")
        elif dtype.as_numpy_dtype is not None and \
                count * np.dtype(dtype.as_numpy_dtype).itemsize != entry.size:
            raise bad("size does not match the shape")

    def _check_shards(self):
        sizes = {}
        for name, entry in self._entries.items():
            shard = entry.shard_id
            if shard not in sizes:
                path = data_filename(self.prefix, shard, self._num_shards)
                try:
                    sizes[shard] = os.path.getsize(path)
                except OSError:
                    raise errors.DataLossError(
                        None, None, f"The data file {path} of checkpoint {self.prefix} is "
                        "missing.") from None
            if entry.offset + entry.size > sizes[shard]:
                raise errors.DataLossError(
                    None, None, f"Tensor {name!r} extends past the end of "
                    f"{data_filename(self.prefix, shard, self._num_shards)} (offset "
                    f"{entry.offset} + size {entry.size} > {sizes[shard]} bytes).")

    def names(self):
        """The tensor names, sorted."""
        return sorted(self._entries)

    def __contains__(self, name):
        return name in self._entries

    def dtype(self, name):
        """The stored `tf.DType` of tensor `name`."""
        return D._BY_ENUM[self._entries[name].dtype]

    def shape(self, name):
        """The stored shape as a list of ints."""
        return list(self._entries[name].shape)

    def get(self, name):
        """The tensor `name` as a NumPy array (object array of bytes for strings).

        Raises:
          KeyError: if there is no such tensor.
          DataLossError: if its bytes are corrupt.
          InvalidArgumentError: for bfloat16 without ml_dtypes installed.
        """
        entry = self._entries[name]
        path = data_filename(self.prefix, entry.shard_id, self._num_shards)
        with open(path, "rb") as f:
            f.seek(entry.offset)
            data = f.read(entry.size)
        if len(data) != entry.size:
            raise errors.DataLossError(None, None, f"Read less bytes than requested for "
                                       f"tensor {name!r} from {path}")
        return self._decode(name, entry, data, path)

    def get_many(self, names=None):
        """A dict name -> array of `names` (all tensors by default)."""
        names = self.names() if names is None else list(names)
        return {name: self.get(name) for name in names}

    def _decode(self, name, entry, data, path):
        dtype = D._BY_ENUM[entry.dtype]
        if dtype is D.string:
            return self._decode_strings(name, entry, data, path)
        if dtype.as_numpy_dtype is None:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor {name!r} in {path} is {dtype.name}, which needs the "
                "ml_dtypes package.")
        self._check_crc(name, entry, crc32c.crc32c(data), path)
        npd = np.dtype(dtype.as_numpy_dtype)
        array = np.frombuffer(data, dtype=npd.newbyteorder("<")).reshape(entry.shape)
        # A native-order, writable copy: variables keep the arrays they are
        # assigned, and frombuffer's view would be read-only.
        return array.astype(npd, copy=True)

    def _check_crc(self, name, entry, crc, path):
        if crc32c.mask(crc) != entry.crc32c:
            raise errors.DataLossError(
                None, None, f"Checksum does not match: stored {entry.crc32c} vs. calculated "
                f"on the restored bytes {crc32c.mask(crc)} for tensor {name!r} in {path}")

    def _decode_strings(self, name, entry, data, path):
        count = math.prod(entry.shape)

        def corrupt(why):
            return errors.DataLossError(None, None, f"Corrupt string tensor {name!r} in "
                                        f"{path}: {why}")
        if count == 0 and not data:
            return np.empty(entry.shape, dtype=object)
        lengths, pos = [], 0
        try:
            for _ in range(count):
                n, pos = wire.read_varint(data, pos)
                lengths.append(n)
        except wire.DecodeError:
            raise corrupt("truncated lengths") from None
        if pos + 4 + sum(lengths) != len(data):
            raise corrupt("the lengths do not match its size")
        crc = crc32c.crc32c(_length_bytes(lengths))
        if crc32c.mask(crc).to_bytes(4, "little") != data[pos:pos + 4]:
            raise corrupt("checksum of the lengths does not match")
        self._check_crc(name, entry, crc32c.crc32c(memoryview(data)[pos:], crc), path)
        out = np.empty(count, dtype=object)
        pos += 4
        for i, n in enumerate(lengths):
            out[i] = data[pos:pos + n]
            pos += n
        return out.reshape(entry.shape)


def read_tensors(prefix, names=None):
    """The tensors of bundle `prefix`: a dict name -> NumPy array of all
    tensors, or only `names`.

    Raises:
      NotFoundError: if the bundle does not exist.
      DataLossError: if it is not a valid bundle or is corrupt.
      KeyError: if a name in `names` is not in the bundle.
    """
    return BundleReader(prefix).get_many(names)
