"""String hashing: `tf.strings.to_hash_bucket` (TensorFlow's legacy `Hash64`,
one string at a time: lookup/table_kernels.hash64), `to_hash_bucket_fast` (FarmHash Fingerprint64,
the `farmhashna::Hash64` variant TensorFlow's `Fingerprint64` calls) and
`tf.strings.to_hash_bucket_strong` (SipHash-2-4 keyed by two uint64s, the
`highwayhash::SipHash` behind TensorFlow's `StrongKeyedHash`), and
`tf.fingerprint` (FarmHash of each row's bytes).

FarmHash and SipHash are computed for all strings of a tensor at once on NumPy
uint64 arrays (which wrap modulo 2**64 like the C++ `uint64_t`): the bytes
are packed into one flat buffer and every 8-byte "Fetch" is a gather at a
per-string offset; the loops of the long-string paths run over block
indices, with the strings still active selected by a mask, never over
strings.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..lookup.table_kernels import hash64
from .string_util import _no_grads, _same_shape_infer, _string_input

_U = np.uint64
K0 = _U(0xc3a5c85c97cb3127)
K1 = _U(0xb492b66fbe98f273)
K2 = _U(0x9ae16a3b2f90404f)


def _pack(strings):
    """(flat uint8 buffer, start offsets, lengths) of a list of bytes; the
    buffer ends with 8 zero bytes so a Fetch near the end never runs off."""
    lengths = np.fromiter((len(s) for s in strings), dtype=np.int64, count=len(strings))
    starts = np.zeros(len(strings), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    buf = np.frombuffer(b"".join(strings) + b"\0" * 8, dtype=np.uint8)
    return buf, starts, lengths


def _fetch(buf, pos, nbytes=8):
    """The little-endian unsigned integers of `nbytes` bytes at each `pos`."""
    idx = pos[:, None] + np.arange(nbytes)
    b = buf[idx].astype(_U)
    shifts = (np.arange(nbytes, dtype=_U) * _U(8))
    return np.bitwise_or.reduce(b << shifts, axis=1) if len(pos) else np.zeros(0, _U)


def _rot(v, s):
    """Rotate right by `s` (0 < s < 64), farmhash's `Rotate64`."""
    return (v >> _U(s)) | (v << _U(64 - s))


def _shift_mix(v):
    return v ^ (v >> _U(47))


def _hash_len16(u, v, mul):
    a = (u ^ v) * mul
    a ^= a >> _U(47)
    b = (v ^ a) * mul
    b ^= b >> _U(47)
    return b * mul


def _len0to16(buf, s, n):
    """farmhashna HashLen0to16 for strings at `s` of lengths `n` (<= 16)."""
    out = np.full(len(s), K2, dtype=_U)
    nu = n.astype(_U)
    m = n >= 8
    if m.any():
        ss, nn = s[m], nu[m]
        mul = K2 + nn * _U(2)
        a = _fetch(buf, ss) + K2
        b = _fetch(buf, ss + n[m] - 8)
        c = _rot(b, 37) * mul + a
        d = (_rot(a, 25) + b) * mul
        out[m] = _hash_len16(c, d, mul)
    m = (n >= 4) & (n < 8)
    if m.any():
        ss, nn = s[m], nu[m]
        mul = K2 + nn * _U(2)
        a = _fetch(buf, ss, 4)
        out[m] = _hash_len16(nn + (a << _U(3)), _fetch(buf, ss + n[m] - 4, 4), mul)
    m = (n > 0) & (n < 4)
    if m.any():
        ss, nl = s[m], n[m]
        a = buf[ss].astype(_U)
        b = buf[ss + (nl >> 1)].astype(_U)
        c = buf[ss + nl - 1].astype(_U)
        y = a + (b << _U(8))                       # uint32 in C++, never above 2**16
        z = nl.astype(_U) + (c << _U(2))
        out[m] = _shift_mix(y * K2 ^ z * K0) * K2
    return out


def _len17to32(buf, s, n):
    mul = K2 + n.astype(_U) * _U(2)
    a = _fetch(buf, s) * K1
    b = _fetch(buf, s + 8)
    c = _fetch(buf, s + n - 8) * mul
    d = _fetch(buf, s + n - 16) * K2
    return _hash_len16(_rot(a + b, 43) + _rot(c, 30) + d, a + _rot(b + K2, 18) + c, mul)


def _len33to64(buf, s, n):
    mul = K2 + n.astype(_U) * _U(2)
    a = _fetch(buf, s) * K2
    b = _fetch(buf, s + 8)
    c = _fetch(buf, s + n - 8) * mul
    d = _fetch(buf, s + n - 16) * K2
    y = _rot(a + b, 43) + _rot(c, 30) + d
    z = _hash_len16(y, a + _rot(b + K2, 18) + c, mul)
    e = _fetch(buf, s + 16) * mul
    f = _fetch(buf, s + 24)
    g = (y + _fetch(buf, s + n - 32)) * mul
    h = (z + _fetch(buf, s + n - 24)) * mul
    return _hash_len16(_rot(e + f, 43) + _rot(g, 30) + h, e + _rot(f + a, 18) + g, mul)


def _weak32(buf, p, a, b):
    """WeakHashLen32WithSeeds(s + p, a, b) -> (first, second)."""
    w, x, y, z = (_fetch(buf, p + k) for k in (0, 8, 16, 24))
    a = a + w
    b = _rot(b + a + z, 21)
    c = a
    a = a + x + y
    b = b + _rot(a, 44)
    return a + z, b + c


def _len_over64(buf, s, n):
    """farmhashna Hash64's loop over 64-byte blocks, all strings in step."""
    seed = _U(81)
    cnt = len(s)
    x = np.full(cnt, seed, _U) * K2 + _fetch(buf, s)
    y = np.full(cnt, seed * K1 + _U(113), _U)
    z = _shift_mix(y * K2 + _U(113)) * K2
    v0 = np.zeros(cnt, _U)
    v1 = np.zeros(cnt, _U)
    w0 = np.zeros(cnt, _U)
    w1 = np.zeros(cnt, _U)
    blocks = (n - 1) // 64
    for k in range(int(blocks.max())):
        i = np.nonzero(blocks > k)[0]              # the strings with a k-th block
        p = s[i] + 64 * k
        xi = _rot(x[i] + y[i] + v0[i] + _fetch(buf, p + 8), 37) * K1
        yi = _rot(y[i] + v1[i] + _fetch(buf, p + 48), 42) * K1
        xi ^= w1[i]
        yi += v0[i] + _fetch(buf, p + 40)
        zi = _rot(z[i] + w0[i], 33) * K1
        nv0, nv1 = _weak32(buf, p, v1[i] * K1, xi + w0[i])
        nw0, nw1 = _weak32(buf, p + 32, zi + w1[i], yi + _fetch(buf, p + 16))
        x[i], y[i], z[i] = zi, yi, xi              # std::swap(z, x)
        v0[i], v1[i], w0[i], w1[i] = nv0, nv1, nw0, nw1
    mul = K1 + ((z & _U(0xff)) << _U(1))
    p = s + n - 64                                 # the last 64 bytes
    w0 = w0 + ((n - 1) & 63).astype(_U)
    v0 = v0 + w0
    w0 = w0 + v0
    x = _rot(x + y + v0 + _fetch(buf, p + 8), 37) * mul
    y = _rot(y + v1 + _fetch(buf, p + 48), 42) * mul
    x ^= w1 * _U(9)
    y += v0 * _U(9) + _fetch(buf, p + 40)
    z = _rot(z + w0, 33) * mul
    v0, v1 = _weak32(buf, p, v1 * mul, x + w0)
    w0, w1 = _weak32(buf, p + 32, z + w1, y + _fetch(buf, p + 16))
    x, z = z, x
    return _hash_len16(_hash_len16(v0, w0, mul) + _shift_mix(y) * K0 + z,
                       _hash_len16(v1, w1, mul) + x, mul)


def fingerprint64(strings):
    """FarmHash Fingerprint64 (farmhashna::Hash64) of each bytes object in
    the list `strings`, as a uint64 array (TensorFlow's `Fingerprint64`)."""
    buf, s, n = _pack(strings)
    out = np.empty(len(strings), dtype=_U)
    with np.errstate(over="ignore"):
        for lo, hi, fn in ((0, 16, _len0to16), (17, 32, _len17to32),
                           (33, 64, _len33to64), (65, None, _len_over64)):
            m = (n >= lo) if hi is None else (n >= lo) & (n <= hi)
            if m.any():
                out[m] = fn(buf, s[m], n[m])
    return out


def _sip_round(v0, v1, v2, v3):
    v0 = v0 + v1
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = v2 + v3
    v3 = _rotl(v3, 16) ^ v2
    v0 = v0 + v3
    v3 = _rotl(v3, 21) ^ v0
    v2 = v2 + v1
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def _rotl(v, s):
    return (v << _U(s)) | (v >> _U(64 - s))


def siphash24(strings, key0, key1):
    """SipHash-2-4 of each bytes object in `strings` under the 128-bit key
    (`key0`, `key1`), as a uint64 array (TensorFlow's `StrongKeyedHash`)."""
    buf, s, n = _pack(strings)
    cnt = len(strings)
    k0, k1 = _U(key0 & (2**64 - 1)), _U(key1 & (2**64 - 1))
    v0 = np.full(cnt, k0 ^ _U(0x736f6d6570736575), _U)
    v1 = np.full(cnt, k1 ^ _U(0x646f72616e646f6d), _U)
    v2 = np.full(cnt, k0 ^ _U(0x6c7967656e657261), _U)
    v3 = np.full(cnt, k1 ^ _U(0x7465646279746573), _U)
    blocks = n // 8
    with np.errstate(over="ignore"):
        for k in range(int(blocks.max()) if cnt else 0):
            i = np.nonzero(blocks > k)[0]
            m = _fetch(buf, s[i] + 8 * k)
            a, b, c, d = v0[i], v1[i], v2[i], v3[i] ^ m
            for _ in range(2):
                a, b, c, d = _sip_round(a, b, c, d)
            v0[i], v1[i], v2[i], v3[i] = a ^ m, b, c, d
        # The last block: the 0-7 bytes left, then the length's low byte on top.
        tail = _fetch(buf, s + 8 * blocks)
        left = (n & 7).astype(_U)
        mask = np.where(left > 0, (_U(1) << (left * _U(8))) - _U(1), _U(0))
        m = (tail & mask) | ((n.astype(_U) & _U(0xff)) << _U(56))
        v3 ^= m
        for _ in range(2):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= m
        v2 ^= _U(0xff)
        for _ in range(4):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


def _buckets(x, hashes, num_buckets):
    return (hashes % _U(num_buckets)).astype(np.int64).reshape(x.shape)


def _fast_kernel(x, num_buckets):
    return _buckets(x, fingerprint64(list(x.reshape(-1))), num_buckets)


def _strong_kernel(x, num_buckets, key):
    return _buckets(x, siphash24(list(x.reshape(-1)), int(key[0]), int(key[1])), num_buckets)


def _legacy_kernel(x, num_buckets):
    flat = [hash64(v) for v in x.reshape(-1)]
    return _buckets(x, np.array(flat, dtype=np.uint64), num_buckets)


_Legacy = register("StringToHashBucket", _legacy_kernel,
                   _same_shape_infer("StringToHashBucket", D.int64), _no_grads)
_Fast = register("StringToHashBucketFast", _fast_kernel,
                 _same_shape_infer("StringToHashBucketFast", D.int64), _no_grads)
_Strong = register("StringToHashBucketStrong", _strong_kernel,
                   _same_shape_infer("StringToHashBucketStrong", D.int64), _no_grads)


def _check_buckets(num_buckets, op_name):
    if int(num_buckets) < 1:
        raise U.op_error(op_name, f"Value for attr 'num_buckets' of {int(num_buckets)} must be "
                         "at least minimum 1")


@export("strings.to_hash_bucket")
def to_hash_bucket(input, num_buckets, name=None):  # noqa: A002
    """Each string's legacy TensorFlow `Hash64` (MurmurHash64A-style, seed
    0xDECAFCAFFE) modulo `num_buckets` (int64); deprecated in TensorFlow in
    favour of `to_hash_bucket_fast`, kept for the buckets old models used."""
    x = _string_input(input, "StringToHashBucket")
    _check_buckets(num_buckets, "StringToHashBucket")
    return apply(_Legacy, [x], {"num_buckets": int(num_buckets)},
                 name=name or "StringToHashBucket")


@export("strings.to_hash_bucket_fast")
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002
    """Each string's FarmHash Fingerprint64 modulo `num_buckets` (int64),
    TensorFlow's fast, unkeyed, deterministic bucketing."""
    x = _string_input(input, "StringToHashBucketFast")
    _check_buckets(num_buckets, "StringToHashBucketFast")
    return apply(_Fast, [x], {"num_buckets": int(num_buckets)},
                 name=name or "StringToHashBucketFast")


@export("strings.to_hash_bucket_strong")
def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002
    """Each string's SipHash-2-4 under `key` (two integers) modulo
    `num_buckets` (int64): bucketing an adversary cannot steer without the key.

    Raises:
      ValueError: when `key` does not hold exactly two integers.
    """
    x = _string_input(input, "StringToHashBucketStrong")
    key = [int(k) for k in np.asarray(convert_to_tensor(key).numpy()
                                      if hasattr(key, "numpy") else key).reshape(-1)]
    if len(key) != 2:
        raise ValueError("Key must have 2 elements")
    _check_buckets(num_buckets, "StringToHashBucketStrong")
    return apply(_Strong, [x], {"num_buckets": int(num_buckets), "key": key},
                 name=name or "StringToHashBucketStrong")


def _le_bytes(hashes):
    """Each uint64 as its 8 little-endian bytes: a [n, 8] uint8 array."""
    return hashes.astype("<u8").view(np.uint8).reshape(-1, 8)


def _fingerprint_kernel(data, method=b"farmhash64"):
    if data.ndim < 1:
        raise U.op_error("Fingerprint", f"`data` should have at least one dimension: "
                         f"{list(data.shape)}")
    n = data.shape[0]
    rows = data.reshape(n, -1)
    if data.dtype == object:
        # A string row: FarmHash of each string, and with several strings, of
        # their fingerprints' bytes laid end to end (TensorFlow's FingerprintOp).
        h = fingerprint64(list(rows.reshape(-1)))
        if rows.shape[1] != 1:
            cat = _le_bytes(h).reshape(n, -1)
            h = fingerprint64([r.tobytes() for r in cat])
    else:
        # A numeric row: FarmHash of its bytes in memory (little-endian).
        flat = np.ascontiguousarray(rows.astype(rows.dtype.newbyteorder("<")))
        h = fingerprint64([r.tobytes() for r in flat])
    return _le_bytes(h).reshape(n, 8)


def _fingerprint_infer(inputs, attrs):
    d = inputs[0].shape
    if d.rank is not None and d.rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {d.rank}")
    return [(TensorShape([None if d.rank is None else d[0], 8]), D.uint8)]


_Fingerprint = register("Fingerprint", _fingerprint_kernel, _fingerprint_infer, _no_grads)


@export("fingerprint")
def fingerprint(data, method="farmhash64", name=None):
    """A 64-bit FarmHash fingerprint of each row (`data[i]`) as 8 uint8
    bytes, little-endian: shape `[data.shape[0], 8]`, the same on every
    platform (TensorFlow's `tf.fingerprint`).

    Raises:
      InvalidArgumentError: a method other than "farmhash64".
    """
    x = convert_to_tensor(data)
    if method != "farmhash64":
        raise U.op_error("Fingerprint", f"Unsupported fingerprint method: {method}")
    return apply(_Fingerprint, [x, convert_to_tensor(method)], {}, name=name or "Fingerprint")
