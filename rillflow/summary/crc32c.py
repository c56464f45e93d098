"""CRC-32C (Castagnoli) and TFRecord's masked form of it.

Event files frame every record with masked CRC-32C checksums. Python's
zlib only has the IEEE polynomial, so this computes the Castagnoli one:
byte by byte from a table for short records (most events are a few dozen
bytes), and for long ones (images, graphs) on many slices at once with
NumPy, joining the slices' checksums with the linearity of CRCs.
"""
import numpy as np

__all__ = ["crc32c", "masked_crc32c"]

_POLY = 0x82F63B78  # the Castagnoli polynomial, bit-reversed


def _make_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()
_NP_TABLE = np.array(_TABLE, dtype=np.uint32)
# Records at least this long take the vectorized path.
_VECTOR_MIN = 8192
_shift_tables = {}  # slice length -> tables (see `_shift`)


def _update(crc, data):
    """Advances the raw (un-inverted) CRC register `crc` over `data`."""
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def _registers(rows, start):
    """Advances one register per row of the uint8 matrix `rows` over its row."""
    reg = start
    table = _NP_TABLE
    for j in range(rows.shape[1]):
        reg = table[(reg ^ rows[:, j]) & 0xFF] ^ (reg >> 8)
    return reg


def _shift(length):
    """Tables for advancing a register over `length` zero bytes, one per byte of it.

    Advancing over zeros is linear in the register, so it is the XOR of the
    advances of the register's four bytes taken alone.
    """
    tables = _shift_tables.get(length)
    if tables is None:
        byte_values = np.arange(256, dtype=np.uint32)
        zeros = np.zeros((256, length), dtype=np.uint8)
        tables = _shift_tables[length] = [
            _registers(zeros, byte_values << np.uint32(8 * k)).tolist() for k in range(4)]
    return tables


def _update_long(crc, data):
    # Short slices cost fewer NumPy steps, long ones fewer Python joins.
    length = 64 if len(data) < 65536 else 256
    n = len(data) // length
    rows = np.frombuffer(data, dtype=np.uint8, count=n * length).reshape(n, length)
    parts = _registers(rows, np.zeros(n, dtype=np.uint32)).tolist()
    t0, t1, t2, t3 = _shift(length)
    for p in parts:
        crc = (t0[crc & 0xFF] ^ t1[(crc >> 8) & 0xFF] ^ t2[(crc >> 16) & 0xFF] ^
               t3[crc >> 24] ^ p)
    return _update(crc, memoryview(data)[n * length:])


def crc32c(data):
    """The CRC-32C checksum of the bytes `data`, as an int."""
    data = bytes(data) if not isinstance(data, (bytes, bytearray)) else data
    if len(data) >= _VECTOR_MIN:
        return _update_long(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    return _update(0xFFFFFFFF, data) ^ 0xFFFFFFFF


def masked_crc32c(data):
    """The masked CRC-32C that TFRecord files store (rotated, plus a constant)."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
