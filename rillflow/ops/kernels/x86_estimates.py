"""The x86 reciprocal and reciprocal-square-root estimates TensorFlow's CPU
kernels start from, and Eigen's Newton step after them.

Eigen's AVX kernels compute float32 1/x (inside atan, atan2 and erfc) and
1/sqrt(x) (rsqrt) from the `rcpps`/`rsqrtps` instructions' 12-bit estimates
refined by one Newton step, not by a division. The Newton step's rounding
depends on every bit of the estimate, so matching TensorFlow takes the exact
estimates. They are a table lookup in hardware: the result depends only on the
sign, the exponent (for rsqrt its parity) and the top 12 mantissa bits of the
input, and has 12 significant bits. The tables below were read from the AMD
EPYC (Zen) processor the reference results were recorded on, enumerating all
inputs. Intel processors implement different tables, so TensorFlow itself gives
other last bits there.

The tables are stored as their difference from the rounded ideal value at each
interval's midpoint, which is always -1, 0 or +1 (zlib, base64).
"""
import base64
import zlib

import numpy as np

from . import ftz
from .chunked import chunked

_RESIDUALS = (
    "eNrFWo3C2yAIhHv/h96+xigHh6Zdt6VNU8KfGsUTY+bjwOuwh3S+z9dwP8hN+anXXFne+VhyywumXqQv7SnP5bBX"
    "JX5X46cmNl0RcRWfbo3bwN0eS3jxl0j419H8TYcV5tBc/gS9LNkkXrUwQ5R/PUYbFXh9cNE3lejJXxrzH+72sPWk"
    "Ij/LH+hoZB4kH/hR/5afJWb67hC3jfvhDk74N5/vqrCDnzbABNE3n1WCvcTRHaAepUNIWvSk60s9b4zjUENb3dzD"
    "QBwDe95+QtcRfA9QH+eS9zVEb/4MBLP8Pvsq3dR0kF8By8zvIFVCC0UfzGJS68QLh6kavZguYc0B8YjYvxDL9mMl"
    "f8JZbLSfKhPtla6dq96Lh4rEu86aD//LB/CJS7RWXo1qD7z6rmUE3RsT/nJFUHstCeR/rD3tX55yl0OcSe/CrHnf"
    "0vxP8mkI8QjpohnjhilPvfTyN8obaxb958G0wplofJS48iZtwVwIWOnH04/Q9xQveXiueIVaCMssRHlE+RfOsSAa"
    "Ij/CySF/Ip41ZSj5cJqceGZp2R5YP1TbYjgHin3ms/7gBYw6WSB7YmLlKRVMAALgPaP9CPj0xG38PeEFKIC5sWcD"
    "AjIugRegM662Ot9m+sDq8XCHsDNQ22VvFiVdvbkfrredZJ/8UnlkC4efZQ9gPWj56Ue2dccv+tG+hR809iJauiEw"
    "RZhen8thQWFewjB7TFuxF5cSAX/HPwz41QLIuKBKn4IayRstLKJ9XvjkdYcpvmf+KhENQKrmQ/k81W/0mcbJ3p62"
    "cTylM0LKq/tevtNX8mfEpcZwox/tm0JgjKllXRffagakRD+0GQ/fZzwglwpNJoTLYVYzLU2bICEsQlMTOwwEYcZo"
    "yu2EoJHt9fxtJL7RSsFWXVtM+QZtjhYQWIrwDOETM8Yv9bF/mbZ38BIKNg04I+G1mNVafJtISc3oBQUhoKsob7ov"
    "lLSYQFUPaP8cNR1Rl8I+lM/xDtNAL2kY6yT7O4wlMVLBQmzn3TjZFBcpjZhyio7SclAd2LS9BH5aeWl/xy/6xb4F"
    "/yt/mu2BAlNEF4xefn+tLFJ2Y7tLL4i82CkLk1I9Gh2ZJ7Tl/KfCmJA75fn8VizZSvpgxytZDyGxtS7872SH/Dlb"
    "4wVfPRX/f5+381/vWWzdgNL7Ut44rCn866j2Eh9b/s6+euSp/yd7JhYYERymUuXFy2zd1waR+SkYowx8HpN5sEKH"
    "n0LjQDf60Z+LmCDWXxYABpA2UeIKlOKoaANhT4SsqG+eAA4eyBf77SiKi3NAT45h5+jArzD5zI+4kzMY35BvyrsA"
    "TU6z1NkGBa5gV4SSkUG4mZC+NVnWd2bXNjg+sydyRKgQ7TQjz7rECicgBBSw19qPi7mNnQMALvvDFQCbBiYV+V/f"
    "tWGeVw4zPyk2uHcb3h/kM6v8Nj+q8qe71StoD9ep8RmLm+oCH9HTXnnY6bH1qUgbG34idRn8NanN+2I1E5hnLgr7"
    "1mYO9a6pmveazOCJ9o7WWNcP2NnLIgBqsekpE4eCh9qGQ9SX5YNn4Na1p+f1TLa/Srnx9w/R7RupPCr+QztS/gma"
    "NwkGIr5z33UOK0ASCT/ycknJN9A1IaPgz2KevQLZ/fwH76r8bAQ2uFXk8bGZMym/joQhoTFkpx/LVxwbbYgk+2oK"
    "pLC7x4t+wHsiSqOkSJ/KN/Z5u6jkUht98dpMv5fnjDm7K750/TooK/uFZQqEqycOkSAEY5L6BpZYPzEAqfKmX+8C"
    "Hm0Ip/yk5OPA9wQ3qX7719X29v6dvNav9bH+W8HifvWhc9G6LKpuf0Jv7ffla3oT5cvlywoPXzN03ZYVnwt7TUpZ"
    "6m9emKQtiuqv2yiQ9us7KXhkb11q/Vp/H/Or/eo/bg5S+c3VK6nLZ94Aa+Tm7tSfyjevlSS9tRtmftQXNpJ/0+Ww"
    "8xYL+hPiTP42Pnfn945fxcg24g=="
)


def _decode_tables():
    raw = np.frombuffer(zlib.decompress(base64.b64decode("".join(_RESIDUALS))), np.uint8)
    residual = raw.astype(np.int64) - 1
    mid = 1.0 + (np.arange(4096) + 0.5) / 4096.0
    # The ideal 12-bit mantissas: float64 division and sqrt are correctly
    # rounded, so this is the same on every machine.
    rcp = np.rint(8192.0 / mid - 4096.0).astype(np.int64) + residual[:4096]
    rsqrt_even = np.rint(8192.0 / np.sqrt(mid) - 4096.0).astype(np.int64) + residual[4096:8192]
    rsqrt_odd = np.rint(8192.0 / np.sqrt(2.0 * mid) - 4096.0).astype(np.int64) + residual[8192:]
    # Result mantissas as bits 22..11 of a float32 with exponent field 126.
    as_bits = lambda k: (k.astype(np.uint32) << np.uint32(11)) | np.uint32(126 << 23)
    return as_bits(rcp), np.concatenate([as_bits(rsqrt_even), as_bits(rsqrt_odd)])


_RCP_BITS, _RSQRT_BITS = (t.view(np.int32) for t in _decode_tables())
PACKET = 8   # float32 lanes of an AVX register
_U = np.uint32
_SIGN = _U(0x80000000)
_NAN_BITS = np.int32(-4194304)     # 0xFFC00000, the x86 default NaN
_INF_BITS = np.int32(0x7F800000)
_MIN_NORMAL = np.int32(0x00800000)


def _fields(a):
    bits = np.ascontiguousarray(a, np.float32).view(np.int32)
    e = (bits >> 23) & 0xFF
    return bits, e, (bits >> 11) & 0xFFF


def rcp_estimate(a):
    """The `rcpps` estimate of 1/a for a float32 array, bit for bit."""
    bits, e, idx = _fields(a)
    # 1/(m * 2**k) = (1/m) * 2**-k: the table holds exponent field 126 (k = 0).
    out = np.take(_RCP_BITS, idx) - ((e - 127) << 23)
    out |= bits & np.int32(-0x80000000)
    special = (e == 0) | (e >= 253)
    if special.any():   # zeros, subnormals, tiny results, infinities, NaNs
        sign = bits & np.int32(-0x80000000)
        out = np.where(e >= 253, sign, out)          # results below FLT_MIN flush to zero
        out = np.where(e == 0, _INF_BITS | sign, out)
        nan = (e == 255) & ((bits & 0x7FFFFF) != 0)
        out = np.where(nan, bits | 0x400000, out)
    return out.view(np.float32)


def rsqrt_estimate(a):
    """The `rsqrtps` estimate of 1/sqrt(a) for a float32 array, bit for bit."""
    bits, e, idx = _fields(a)
    # 1/sqrt(m * 2**(2j + odd)) = table(m, odd) * 2**-j, j = floor((e - 127) / 2).
    out = np.take(_RSQRT_BITS, idx | ((~e & 1) << 12)) - (((e - 127) >> 1) << 23)
    # Anything but a positive normal finite number (sign bit, zero exponent or
    # all-ones exponent) needs the special cases below.
    special = (bits - _MIN_NORMAL).view(_U) >= _U(0x7F000000)
    if special.any():
        out = np.where(bits < 0, _NAN_BITS, out)
        out = np.where(e == 0, _INF_BITS | (bits & np.int32(-0x80000000)), out)
        out = np.where(bits == _INF_BITS, 0, out)
        nan = (e == 255) & ((bits & 0x7FFFFF) != 0)
        out = np.where(nan, bits | 0x400000, out)
    return out.view(np.float32)


_ONE = np.float32(1.0)
_MINUS_ONE = np.float32(-1.0)
_MINUS_HALF = np.float32(-0.5)


def reciprocal(a):
    """Eigen's AVX float32 reciprocal: the estimate and one Newton step."""
    x = rcp_estimate(a)
    with np.errstate(all="ignore"):
        t = a * x
        np.subtract(_ONE, t, out=t)
        y = x * t
        # Flush-to-zero: for results below ~2**-112 the correction is
        # subnormal and TensorFlow's threads drop it (the estimate stays).
        if ftz.any_below(np.abs(y)):
            ftz.flush(y)
        y += x
        if np.isnan(t).any():   # zero or infinite a: keep the estimate
            y = np.where(t == t, y, x)
        return y


def rsqrt(a):
    """Eigen's AVX float32 1/sqrt(a): the estimate and one Newton step."""
    y0 = rsqrt_estimate(a)
    with np.errstate(all="ignore"):
        h = a * y0
        h *= y0
        h += _MINUS_ONE
        y = y0 * _MINUS_HALF
        y *= h
        y += y0
        nan = np.isnan(y)
        if nan.any():   # zero, infinite or NaN a: keep the estimate
            y = np.where(nan, y0, y)
        return y


def packet_then_scalar(packet, scalar, *args):
    """Applies `packet` to every element and `scalar` to the last `size % 8`
    of the flat (broadcast) output, as Eigen's executor does."""
    args = [np.asarray(a) for a in args]
    if len(args) > 1:
        args = np.broadcast_arrays(*args)
    n = args[0].size
    tail = n % PACKET
    if tail == n:   # fewer elements than a packet (0-d tensors too): all scalar
        return np.asarray(scalar(*args), np.float32).reshape(args[0].shape)
    out = packet(*args)
    if tail:
        out = np.ascontiguousarray(out)
        flat = out.reshape(-1)
        lo = n - tail
        flat[lo:] = scalar(*[np.ascontiguousarray(a).reshape(-1)[lo:] for a in args])
    return out


def _rsqrt_scalar(x):
    # Eigen's scalar rsqrt is a division by the correctly rounded sqrt; sqrtss
    # reads a subnormal as +-0 (DAZ): +-inf, as TensorFlow gives.
    with np.errstate(all="ignore"):
        return _ONE / np.sqrt(ftz.daz(x))


def _rsqrt_packet(x):
    # Cache-sized blocks: a dozen passes, each in L2 instead of memory.
    return chunked(rsqrt, x)


def rsqrt_kernel(x):
    """Elementwise 1/sqrt(x) with TensorFlow's CPU bits for float32/16 and bfloat16."""
    dt = x.dtype
    if dt == np.float32:
        return packet_then_scalar(_rsqrt_packet, _rsqrt_scalar, x)
    if dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16":
        return packet_then_scalar(_rsqrt_packet, _half_rsqrt_scalar(dt),
                                  x.astype(np.float32)).astype(dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.reciprocal(np.sqrt(x))


def _half_rsqrt_scalar(dt):
    """Eigen's scalar rsqrt of a half or bfloat16 (the last size % 8 elements
    and small tensors): 1 / sqrt(x) as two operations of the type, each
    computed in float32 and rounded to it (the packets round one float32
    rsqrt once): 1/sqrt(4.3125) is float16 0.48169 there, 0.48145 by the
    packets. Takes and returns float32 values (rounded to `dt` after)."""
    def scalar(x):
        with np.errstate(all="ignore"):
            # (sqrtss reads a subnormal as +-0: bfloat16's are float32's)
            s = np.sqrt(ftz.daz(x)).astype(dt).astype(np.float32)
            return _ONE / s
    return scalar


def _reciprocal_scalar(x):
    # Eigen's scalar inverse is a division: divss reads a subnormal as +-0
    # (+-inf) and writes +-0 for a subnormal quotient (flush-to-zero).
    with np.errstate(all="ignore"):
        out = np.asarray(_ONE / ftz.daz(x), np.float32)
    return ftz.flush(out) if ftz.any_below(np.abs(out)) else out


def _reciprocal_packet(x):
    # Denormals-are-zero: a subnormal reads as +-0, whose estimate +-inf stays.
    return chunked(reciprocal, ftz.daz(x))


def reciprocal_kernel(x):
    """Elementwise 1/x with TensorFlow's CPU bits for float32/16 and bfloat16:
    the rcpps estimate and a Newton step on whole packets, a division on the
    tail; other dtypes NumPy's division."""
    dt = x.dtype
    if dt == np.float32:
        return packet_then_scalar(_reciprocal_packet, _reciprocal_scalar, x)
    if dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16":
        return packet_then_scalar(_reciprocal_packet, _reciprocal_scalar,
                                  x.astype(np.float32)).astype(dt)
    with np.errstate(divide="ignore"):
        return np.reciprocal(x)
