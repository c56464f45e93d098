"""TFRecord files: the framing TensorFlow writes and reads, optionally in a
GZIP or ZLIB stream, with `tf.io.TFRecordWriter` and `tf.io.TFRecordOptions`.

Each record is

    uint64 length (little endian)
    uint32 masked CRC-32C of the 8 length bytes
    byte   data[length]
    uint32 masked CRC-32C of the data

Reading checks both CRCs and reports corruption with TensorFlow's
DataLossError messages.
"""
import struct
import zlib

from ..framework import errors
from ..framework.api_export import export
from .crc32c import masked_crc32c

__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType", "encode_record",
           "iter_records", "compression_string"]

_HEADER = 12


def encode_record(data):
    """The framed bytes of one record."""
    n = struct.pack("<Q", len(data))
    return n + struct.pack("<I", masked_crc32c(n)) + data + struct.pack("<I", masked_crc32c(data))


# --- compression options ---------------------------------------------------------------------

@export("io.TFRecordCompressionType", "compat.v1.io.TFRecordCompressionType",
        "compat.v1.python_io.TFRecordCompressionType")
class TFRecordCompressionType:
    """The compression types of TFRecord files, as integers."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


_TYPE_NAMES = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
               TFRecordCompressionType.GZIP: "GZIP"}


def compression_string(value):
    """"", "GZIP" or "ZLIB" for a TFRecordOptions, a string, an integer
    compression type or None.

    Raises:
      ValueError: for anything else, with TensorFlow's message.
    """
    if value is None:
        return ""
    if isinstance(value, TFRecordOptions):
        return compression_string(value.compression_type)
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, int) and value in _TYPE_NAMES:
        return _TYPE_NAMES[value]
    if value in ("", "GZIP", "ZLIB"):
        return value
    raise ValueError(f'Not a valid compression_type: "{value}"')


@export("io.TFRecordOptions", "compat.v1.io.TFRecordOptions",
        "compat.v1.python_io.TFRecordOptions")
class TFRecordOptions:
    """How a TFRecord file is compressed: `compression_type` is "", "GZIP"
    or "ZLIB"; `compression_level` (0-9) tunes the deflate stream. The
    other zlib knobs are accepted for compatibility."""

    compression_type_map = dict(_TYPE_NAMES)

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        compression_string(compression_type)  # validates
        self.compression_type = compression_type
        self.flush_mode, self.input_buffer_size = flush_mode, input_buffer_size
        self.output_buffer_size, self.window_bits = output_buffer_size, window_bits
        self.compression_level, self.compression_method = compression_level, compression_method
        self.mem_level, self.compression_strategy = mem_level, compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """The compression type string ("", "GZIP", "ZLIB") of `options`."""
        return compression_string(options)


# --- writing ---------------------------------------------------------------------------------

# TensorFlow's gzip member header: no name, mtime 0, OS 3 (Unix).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"


class _Deflater:
    """A GZIP or ZLIB stream over a binary file, with TensorFlow's zlib
    settings (default level, memory level 9) so the bytes match."""

    def __init__(self, f, kind, level):
        self._f, self._kind = f, kind
        level = -1 if level is None else level
        wbits = -15 if kind == "GZIP" else 15
        self._z = zlib.compressobj(level, zlib.DEFLATED, wbits, 9)
        self._crc = self._size = 0
        if kind == "GZIP":
            f.write(_GZIP_HEADER)

    def write(self, data):
        if self._kind == "GZIP":
            self._crc = zlib.crc32(data, self._crc)
            self._size += len(data)
        self._f.write(self._z.compress(data))

    def flush(self):
        self._f.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._f.flush()

    def close(self):
        self._f.write(self._z.flush(zlib.Z_FINISH))
        if self._kind == "GZIP":
            self._f.write(struct.pack("<II", self._crc, self._size & 0xFFFFFFFF))
        self._f.close()


def _open(path, mode):
    try:
        return open(path, mode)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None


@export("io.TFRecordWriter", "compat.v1.io.TFRecordWriter",
        "compat.v1.python_io.TFRecordWriter")
class TFRecordWriter:
    """Writes records to a TFRecord file (`tf.io.TFRecordWriter`).

    Args:
      path: the file to create (truncated if it exists).
      options: a `TFRecordOptions`, a compression type string, or None.

    Raises:
      NotFoundError: if the file cannot be created.
    """

    def __init__(self, path, options=None):
        path = path.decode() if isinstance(path, bytes) else str(path)
        kind = compression_string(options)
        level = options.compression_level if isinstance(options, TFRecordOptions) else None
        f = _open(path, "wb")
        self._out = _Deflater(f, kind, level) if kind else f

    def _check_open(self):
        if self._out is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")

    def write(self, record):
        """Appends one record (bytes; a str is written as UTF-8)."""
        self._check_open()
        if isinstance(record, str):
            record = record.encode("utf-8")
        self._out.write(encode_record(bytes(record)))

    def flush(self):
        """Pushes buffered records to the file."""
        self._check_open()
        self._out.flush()

    def close(self):
        """Finishes the file; closing twice is harmless."""
        if self._out is not None:
            self._out.close()
            self._out = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing to report to at interpreter exit
            pass


# --- reading ---------------------------------------------------------------------------------

class _Inflater:
    """`read(n)` over a GZIP or ZLIB compressed file."""

    def __init__(self, f, kind):
        self._f = f
        self._z = zlib.decompressobj(31 if kind == "GZIP" else 15)
        self._buf = bytearray()

    def read(self, n):
        while len(self._buf) < n and not self._z.eof:
            chunk = self._f.read(1 << 16)
            try:
                self._buf += self._z.decompress(chunk) if chunk else self._z.flush()
            except zlib.error as e:
                raise _inflate_error(e) from None
            if not chunk:
                break
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def close(self):
        self._f.close()


def _inflate_error(e):
    # Python: "Error -3 while decompressing data: incorrect header check";
    # TensorFlow: "inflate() failed with error -3: incorrect header check".
    text = str(e)
    parts = text.split(" ", 2)
    if len(parts) == 3 and parts[0] == "Error" and ":" in text:
        code, detail = parts[1], text.split(": ", 1)[1]
        text = f"inflate() failed with error {code}: {detail}"
    return errors.DataLossError(None, None, text)


def iter_records(path, compression=""):
    """Yields the records of one TFRecord file, checking their CRCs.

    Raises:
      NotFoundError: if the file does not exist.
      DataLossError: for a corrupted or truncated record, with
        TensorFlow's message.
    """
    f = _open(path, "rb")
    stream = _Inflater(f, compression) if compression else f
    offset = 0
    try:
        while True:
            head = stream.read(_HEADER)
            if len(head) < _HEADER:
                return  # end of file (TensorFlow also ends at a partial header)
            if struct.unpack("<I", head[8:])[0] != masked_crc32c(head[:8]):
                suffix = " (Is this even a TFRecord file?)" if offset == 0 else ""
                raise errors.DataLossError(None, None, f"corrupted record at {offset}{suffix}")
            length = struct.unpack("<Q", head[:8])[0]
            body = stream.read(length + 4)
            if len(body) < length + 4:
                raise errors.DataLossError(
                    None, None, f"truncated record at {offset}' failed with Read less bytes "
                    "than requested")
            data = body[:length]
            if struct.unpack("<I", body[length:])[0] != masked_crc32c(data):
                raise errors.DataLossError(None, None,
                                           f"corrupted record at {offset + _HEADER}")
            yield data
            offset += _HEADER + length + 4
    finally:
        stream.close()


@export("compat.v1.io.tf_record_iterator", "compat.v1.python_io.tf_record_iterator")
def tf_record_iterator(path, options=None):
    """The records of a TFRecord file, as bytes, one by one."""
    path = path.decode() if isinstance(path, bytes) else str(path)
    return iter_records(path, compression_string(options))
