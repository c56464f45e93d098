"""CRC-32C (Castagnoli), the checksum of TFRecord framing, in Python and
NumPy, and TensorFlow's "masked" form of it.

Short inputs (record headers, small records) run a table-driven byte loop
in Python. Long inputs are cut into K rows of L bytes whose CRCs NumPy
computes side by side, one column of bytes per step (slicing-by-4 over the
rows), and the row CRCs are then chained: the CRC register is linear over
GF(2), so running L more bytes through it is a fixed 32x32 bit matrix,
applied with four 256-entry tables. That makes the cost O(L + K) Python
steps for L * K bytes.
"""
import functools

import numpy as np

__all__ = ["crc32c", "mask", "unmask", "masked_crc32c"]

_POLY = 0x82F63B78  # the reflected Castagnoli polynomial


def _make_tables():
    t0 = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        t0.append(c)
    tables = [t0]
    for _ in range(3):
        prev = tables[-1]
        tables.append([(prev[n] >> 8) ^ t0[prev[n] & 0xFF] for n in range(256)])
    return tables


_T = _make_tables()
_T0 = _T[0]
_NT = np.array(_T, dtype=np.uint32)  # slicing-by-4 tables for the NumPy path
_SMALL = 1024  # below this many bytes the Python loop is faster (measured)


def _update_py(crc, data):
    t = _T0
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def _rows_crc(rows):
    """The raw register (start 0, no final xor) after each row of the uint8
    matrix `rows` (K x L, L a multiple of 4), computed for all rows at once."""
    words = np.ascontiguousarray(rows).view("<u4")
    t0, t1, t2, t3 = _NT
    crc = np.zeros(rows.shape[0], np.uint32)
    for j in range(words.shape[1]):
        x = crc ^ words[:, j]
        crc = t3[x & 0xFF] ^ t2[(x >> 8) & 0xFF] ^ t1[(x >> 16) & 0xFF] ^ t0[x >> 24]
    return crc


@functools.lru_cache(maxsize=32)
def _shift_tables(length):
    """Four 256-entry tables giving the register after `length` zero bytes,
    byte by byte of the starting register (the map is linear)."""
    basis = np.zeros((32, length), np.uint8)
    # Register value 1 << i is equivalent to feeding that bit pattern as the
    # first four bytes of the row (then L - 4 zero bytes) from a zero register.
    start = (np.uint32(1) << np.arange(32, dtype=np.uint32))
    basis_rows = np.concatenate([start.view(np.uint8).reshape(32, 4), basis[:, 4:]], axis=1)
    cols = _rows_crc(basis_rows)  # column i = image of bit i
    tables = np.zeros((4, 256), np.uint32)
    for k in range(4):
        for bit in range(8):
            sel = (np.arange(256) >> bit) & 1
            tables[k] ^= np.where(sel == 1, cols[8 * k + bit], np.uint32(0))
    return [list(map(int, t)) for t in tables]


def crc32c(data, crc=0):
    """The CRC-32C of `data` (bytes-like), continuing from `crc`."""
    mv = memoryview(data).cast("B")
    n = len(mv)
    reg = crc ^ 0xFFFFFFFF
    if n < _SMALL:
        return _update_py(reg, mv) ^ 0xFFFFFFFF
    # Row length: a power of two near sqrt(n / 8), which balances the NumPy
    # column steps (about 3.5 calls per byte column) against the Python
    # steps chaining the rows; a few sizes only, so their tables stay cached.
    length = max(16, 1 << ((n // 8).bit_length() // 2))
    k = n // length
    body = np.frombuffer(mv, np.uint8, count=k * length).reshape(k, length)
    rows = _rows_crc(body).tolist()
    s0, s1, s2, s3 = _shift_tables(length)
    # The register entering row i+1 is the shifted register entering row i,
    # xor the row's own contribution.
    for r in rows:
        reg = s0[reg & 0xFF] ^ s1[(reg >> 8) & 0xFF] ^ s2[(reg >> 16) & 0xFF] ^ \
            s3[reg >> 24] ^ r
    return _update_py(reg, mv[k * length:]) ^ 0xFFFFFFFF


_MASK_DELTA = 0xA282EAD8


def mask(crc):
    """TensorFlow's masked CRC (rotate right 15 bits, add a constant): CRCs
    of data that itself holds CRCs stay well distributed."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    """The CRC that `mask` turned into `masked`."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data):
    """`mask(crc32c(data))`, the form stored in TFRecord files."""
    return mask(crc32c(data))
