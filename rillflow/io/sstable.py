"""LevelDB's table (SSTable) format, as TensorFlow's `tensorflow/core/lib/io/
table*` writes it: the `.index` file of a checkpoint.

A table is a sorted map of byte-string keys to byte-string values:

  data block 0 .. data block N-1   sorted entries, prefix-compressed
  metaindex block                  empty (TensorFlow writes no filters)
  index block                      per data block: a key >= its last key and
                                   < the next block's first key -> its handle
  footer (48 bytes)                metaindex and index handles (varint
                                   offset + size, zero-padded to 40 bytes),
                                   magic 0xdb4775248b80fb57 (little-endian)

A block is its entries (varint shared-prefix length, varint unshared length,
varint value length, the unshared key bytes, the value), a restart point
(uint32 offset of an entry stored with no shared prefix) every 16 entries,
and the number of restart points (uint32). Each block is followed by a
5-byte trailer: the compression type (0: none; TensorFlow's bundles never
compress) and the masked CRC-32C of the block and that type byte.

The writer reproduces TensorFlow's bytes (block size, restart interval,
the shortest separator keys of the index block). The reader trusts nothing:
every length, offset and checksum is checked against the bytes it has, and
errors are `TableError`s, which callers turn into `DataLossError`s naming
the file.
"""
import struct

from . import crc32c

__all__ = ["TableError", "write_table", "read_table", "BLOCK_SIZE", "MAGIC"]

MAGIC = 0xdb4775248b80fb57
BLOCK_SIZE = 262144        # TensorFlow's table::Options().block_size
RESTART_INTERVAL = 16      # ... and block_restart_interval
_FOOTER_SIZE = 48          # two handles of at most 20 bytes each, and the magic
_TRAILER_SIZE = 5
_NO_COMPRESSION = 0


class TableError(Exception):
    """The bytes are not a valid table (the message says what is wrong)."""


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_varint(buf, pos, end, limit_bits=64):
    """(value, next position) of the varint at `pos`, which must end before
    `end` and fit in `limit_bits` bits."""
    result = shift = 0
    while True:
        if pos >= end or shift >= limit_bits:
            raise TableError("bad varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if result >> limit_bits:
                raise TableError("bad varint")
            return result, pos
        shift += 7


# --- writing ---------------------------------------------------------------------------------

def _shortest_separator(start, limit):
    """LevelDB's BytewiseComparator::FindShortestSeparator: a short key k
    with start <= k < limit."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes((b + 1,))
    return start


def _short_successor(key):
    """LevelDB's FindShortSuccessor: a short key >= `key`."""
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes((b + 1,))
    return key


class _BlockBuilder:
    """Accumulates the entries of one block."""

    def __init__(self):
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""

    def add(self, key, value):
        shared = 0
        if self.counter < RESTART_INTERVAL:
            n = min(len(key), len(self.last_key))
            while shared < n and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        self.buf += _varint(shared) + _varint(len(key) - shared) + _varint(len(value))
        self.buf += key[shared:] + value
        self.last_key = key
        self.counter += 1

    def size_estimate(self):
        return len(self.buf) + 4 * len(self.restarts) + 4

    def empty(self):
        return not self.buf

    def finish(self):
        return bytes(self.buf) + struct.pack(f"<{len(self.restarts)}I", *self.restarts) + \
            struct.pack("<I", len(self.restarts))


def write_table(items, block_size=BLOCK_SIZE):
    """The bytes of a table holding `items`, (key bytes, value bytes) pairs
    in strictly increasing key order (bytewise).

    Raises:
      ValueError: if the keys are not strictly increasing.
    """
    out = bytearray()
    index = _BlockBuilder()
    block = _BlockBuilder()
    pending = None  # handle of the last flushed data block, awaiting its index key
    last_key = None

    def flush_block(builder):
        contents = builder.finish()
        offset = len(out)
        trailer = bytes((_NO_COMPRESSION,))
        out.extend(contents)
        out.extend(trailer + struct.pack("<I", crc32c.mask(crc32c.crc32c(trailer,
                                                                         crc32c.crc32c(contents)))))
        return _varint(offset) + _varint(len(contents))

    for key, value in items:
        key, value = bytes(key), bytes(value)
        if last_key is not None and key <= last_key:
            raise ValueError(f"Table keys must be strictly increasing: {key!r} after {last_key!r}")
        if pending is not None:
            index.add(_shortest_separator(last_key, key), pending)
            pending = None
        block.add(key, value)
        last_key = key
        if block.size_estimate() >= block_size:
            pending = flush_block(block)
            block = _BlockBuilder()
    if not block.empty():
        pending = flush_block(block)
    if pending is not None:
        index.add(_short_successor(last_key), pending)
    metaindex_handle = flush_block(_BlockBuilder())
    index_handle = flush_block(index)
    footer = metaindex_handle + index_handle
    out += footer + bytes(40 - len(footer)) + struct.pack("<Q", MAGIC)
    return bytes(out)


# --- reading ---------------------------------------------------------------------------------

def _read_handle(buf, pos, end):
    offset, pos = _read_varint(buf, pos, end)
    size, pos = _read_varint(buf, pos, end)
    return offset, size, pos


def _block(data, offset, size):
    """The contents of the block at (offset, size), its trailer checked."""
    if offset + size + _TRAILER_SIZE > len(data) - _FOOTER_SIZE:
        raise TableError("block handle points past the end of the file")
    contents = data[offset:offset + size + 1]  # with the compression type byte
    (stored,) = struct.unpack_from("<I", data, offset + size + 1)
    if crc32c.crc32c(contents) != crc32c.unmask(stored):
        raise TableError("block checksum mismatch")
    if contents[-1] != _NO_COMPRESSION:
        raise TableError(f"unsupported block compression type {contents[-1]}")
    return contents[:-1]


def _entries(block):
    """Yields the (key, value) pairs of one block's contents."""
    if len(block) < 4:
        raise TableError("bad block contents")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    if num_restarts == 0 or num_restarts > (len(block) - 4) // 4:
        raise TableError("bad block contents")
    end = len(block) - 4 - 4 * num_restarts
    restarts = struct.unpack_from(f"<{num_restarts}I", block, end)
    if restarts[0] != 0 or any(r >= max(end, 1) for r in restarts) or \
            list(restarts) != sorted(restarts):
        raise TableError("bad block restart points")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _read_varint(block, pos, end, 32)
        unshared, pos = _read_varint(block, pos, end, 32)
        value_len, pos = _read_varint(block, pos, end, 32)
        if shared > len(key) or pos + unshared + value_len > end:
            raise TableError("bad entry in block")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        yield key, block[pos:pos + value_len]
        pos += value_len


def read_table(data):
    """The (key, value) pairs of the table `data` (bytes), in file order,
    after checking that the keys are strictly increasing and each data
    block lies within the key range its index entry gives it.

    Raises:
      TableError: if `data` is not a valid table.
    """
    data = bytes(data)
    if len(data) < _FOOTER_SIZE:
        raise TableError("file is too short to be an sstable")
    (magic,) = struct.unpack_from("<Q", data, len(data) - 8)
    if magic != MAGIC:
        raise TableError("not an sstable (bad magic number)")
    footer_start = len(data) - _FOOTER_SIZE
    _, _, pos = _read_handle(data, footer_start, len(data) - 8)  # the metaindex: unused
    index_offset, index_size, _ = _read_handle(data, pos, len(data) - 8)
    index = _block(data, index_offset, index_size)
    out = []
    last = None
    for index_key, handle in _entries(index):
        offset, size, used = _read_handle(handle, 0, len(handle))
        if used != len(handle):
            raise TableError("bad block handle")
        for key, value in _entries(_block(data, offset, size)):
            if (last is not None and key <= last) or key > index_key:
                raise TableError("keys out of order")
            out.append((key, value))
            last = key
    return out
