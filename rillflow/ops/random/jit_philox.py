"""TensorFlow's random numbers compiled by Numba: Philox4x32-10 (philox.py),
the bit-to-value conversions, Box-Muller and truncated-normal rejection
(distributions.py) and the glibc logf/sincosf replicas (libm_float.py), one
Philox call at a time, with the same operations in the same order, so the
same bits as the NumPy code in one pass instead of a hundred.

No fast-math and no fused multiply-add (LLVM forms them only under
fast-math flags, which Numba sets only with `fastmath=True`); where
libm_float.py emulates glibc's fused multiply-add near a rounding midpoint,
so does `_fma` here. Numba widens integers to 64 bits, so the uint32
wrap-arounds are redone with masks. Imported only by jit_random.py, which
checks that Numba is there; module-level functions, so Numba's disk cache
serves later processes. The float64 normals call the C library's log, sin
and cos as Python's math module does (LLVM's intrinsics lower to them).
"""
import math

import numba
import numpy as np

from . import libm_float as _lm

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

_F32, _F64, _U32, _U64, _I64 = np.float32, np.float64, np.uint32, np.uint64, np.int64
_M32 = _U64(0xFFFFFFFF)
_M0, _M1 = _U64(0xD2511F53), _U64(0xCD9E8D57)
_W0, _W1 = _U64(0x9E3779B9), _U64(0xBB67AE85)
_S32 = _U64(32)


# --- Philox ---------------------------------------------------------------------------

@_inline
def _philox(k0, k1, lo, hi):
    """The four words (uint64 below 2**32) of the call at counter lo + hi * 2**64."""
    c0, c1, c2, c3 = lo & _M32, lo >> _S32, hi & _M32, hi >> _S32
    for _ in range(10):
        p0 = c0 * _M0      # the full 32x32-bit product
        p1 = c2 * _M1
        n0 = (p1 >> _S32) ^ c1 ^ k0
        n2 = (p0 >> _S32) ^ c3 ^ k1
        c1 = p1 & _M32
        c3 = p0 & _M32
        c0 = n0
        c2 = n2
        k0 = (k0 + _W0) & _M32
        k1 = (k1 + _W1) & _M32
    return c0, c1, c2, c3


@_inline
def _next(lo, hi):
    """The counter after (lo, hi): a wrapped low word carries, as Skip does."""
    lo = lo + _U64(1)
    if lo == _U64(0):
        hi = hi + _U64(1)
    return lo, hi


# --- bits to [0, 1) -------------------------------------------------------------------

@_inline
def _u32f(w):
    return _U32((w & _U64(0x7FFFFF)) | _U64(0x3F800000)).view(_F32) - _F32(1)


@_inline
def _u64d(hi_word, lo_word):
    man = ((hi_word & _U64(0xFFFFF)) << _S32) | lo_word
    return _U64(man | _U64(1023 << 52)).view(_F64) - 1.0


# --- glibc logf and sincosf (libm_float.py) ---------------------------------------------

_SPLIT = _lm._SPLIT


@_inline
def _fma(a, b, c):
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


@_inline
def _near(y, small):
    t = (_F64(y).view(_U64) - _U64((1 << 28) - 4095)) & _U64((1 << 29) - 1)
    return t < _U64(8191) or abs(y) < small


_TAB = _lm._LOGF_TAB.copy()
_LN2 = _lm._LN2
_A0, _A1, _A2 = _lm._LOGF_A


@_inline
def _logf_double(x, fused):
    ix = _U64(_F32(x).view(_U32))
    tmp = (ix - _U64(0x3f330000)) & _M32
    i = _I64((tmp >> _U64(19)) & _U64(15))
    st = _I64(tmp) - (_I64(1) << 32 if tmp >= _U64(1 << 31) else _I64(0))
    k = _F64(st >> 23)
    iz = (ix - (tmp & _U64(0xFF800000))) & _M32
    invc = _TAB[i, 0]
    logc = _TAB[i, 1]
    z = _F64(_U32(iz).view(_F32))
    if fused:
        r = _fma(z, invc, -1.0)
        y0 = _fma(k, _LN2, logc)
        r2 = r * r
        y = _fma(_A1, r, _A2)
        y = _fma(_A0, r2, y)
        return _fma(y, r2, y0 + r)
    r = z * invc + -1.0
    y0 = k * _LN2 + logc
    r2 = r * r
    y = _A1 * r + _A2
    y = _A0 * r2 + y
    return y * r2 + (y0 + r)


@_inline
def _logf(x):
    y = _logf_double(x, False)
    if _near(y, 0.0):
        y = _logf_double(x, True)
    if x == _F32(1):
        return _F32(0)
    return _F32(y)


_HPI_INV, _HPI = _lm._HPI_INV, _lm._HPI
_C0, _C1, _C2, _C3, _C4 = _lm._C
_S0, _S1, _S2 = _lm._S
_TINY_TOP = _U64(_lm._TINY_TOP)


@_inline
def _sincosf_double(y, fused):
    x = _F64(y)
    n = (_I64(x * _HPI_INV) + 0x800000) >> 24
    if fused:
        xr = _fma(_F64(n) * -1.0, _HPI, x)
    else:
        xr = _F64(n) * -1.0 * _HPI + x
    x2 = xr * xr
    x3 = x2 * xr
    x4 = x2 * x2
    c2 = x2 * _C4 + _C3
    s1 = x2 * _S2 + _S1
    c1 = x2 * _C1 + _C0
    x5 = x3 * x2
    x6 = x4 * x2
    if fused:
        sp = _fma(x5, s1, _fma(x3, _S0, xr))
        cp = _fma(x6, c2, _fma(x4, _C2, c1))
    else:
        sp = x5 * s1 + (x3 * _S0 + xr)
        cp = x6 * c2 + (x4 * _C2 + c1)
    if n & 1:
        sp, cp = cp, sp
    if n & 2:
        sp = -sp
    if (n + 1) & 2:
        cp = -cp
    return sp, cp


@_inline
def _sincosf(y):
    if (_U64(_F32(y).view(_U32)) >> _U64(20)) & _U64(0x7ff) < _TINY_TOP:
        return y, _F32(1)
    s, c = _sincosf_double(y, False)
    if _near(s, 2.0 ** -8) or _near(c, 2.0 ** -8):
        s, c = _sincosf_double(y, True)
    return _F32(s), _F32(c)


# --- Box-Muller -----------------------------------------------------------------------

_TWO_PI = 2.0 * np.pi
_EPS32 = _F32(1e-7)


@_inline
def _bm32(x0, x1):
    u1 = _u32f(x0)
    if u1 < _EPS32:
        u1 = _EPS32
    v1 = _F32(_TWO_PI * _F64(_u32f(x1)))
    u2 = np.sqrt(_F32(-2) * _logf(u1))
    s, c = _sincosf(v1)
    return s * u2, c * u2


@_inline
def _bm64(x0, x1, x2, x3):
    u1 = _u64d(x0, x1)
    if u1 < 1e-7:
        u1 = 1e-7
    v1 = _TWO_PI * _u64d(x2, x3)
    u2 = math.sqrt(-2.0 * math.log(u1))
    return math.sin(v1) * u2, math.cos(v1) * u2


# --- the fills ------------------------------------------------------------------------
# Each writes the first len(out) values of the stream at (k0, k1, lo, hi):
# value group i from call i, a partial last group the first values of a call.

@_jit
def uniform_f32(k0, k1, lo, hi, out):
    n = out.size
    for i in range(0, n, 4):
        w = _philox(k0, k1, lo, hi)
        for j in range(min(4, n - i)):
            out[i + j] = _u32f(w[j])
        lo, hi = _next(lo, hi)


@_jit
def uniform_low_bits(k0, k1, lo, hi, bits, out):
    """float16/bfloat16 uniforms in float32 (exact there): the low `bits` bits / 2**bits."""
    n = out.size
    mask = (_U64(1) << _U64(bits)) - _U64(1)
    scale = _F32(2.0 ** -bits)
    for i in range(0, n, 4):
        w = _philox(k0, k1, lo, hi)
        for j in range(min(4, n - i)):
            out[i + j] = _F32(w[j] & mask) * scale
        lo, hi = _next(lo, hi)


@_jit
def uniform_f64(k0, k1, lo, hi, out):
    n = out.size
    for i in range(0, n, 2):
        w = _philox(k0, k1, lo, hi)
        out[i] = _u64d(w[0], w[1])
        if i + 1 < n:
            out[i + 1] = _u64d(w[2], w[3])
        lo, hi = _next(lo, hi)


@_jit
def normal_f32(k0, k1, lo, hi, out):
    n = out.size
    for i in range(0, n, 4):
        w = _philox(k0, k1, lo, hi)
        a, b = _bm32(w[0], w[1])
        out[i] = a
        if i + 1 < n:
            out[i + 1] = b
        if i + 2 < n:
            a, b = _bm32(w[2], w[3])
            out[i + 2] = a
            if i + 3 < n:
                out[i + 3] = b
        lo, hi = _next(lo, hi)


@_jit
def normal_f64(k0, k1, lo, hi, out):
    n = out.size
    for i in range(0, n, 2):
        w = _philox(k0, k1, lo, hi)
        a, b = _bm64(w[0], w[1], w[2], w[3])
        out[i] = a
        if i + 1 < n:
            out[i + 1] = b
        lo, hi = _next(lo, hi)


@_jit
def truncated_f32(k0, k1, lo, hi, out):
    """Group g of 4 values takes the first normals within (-2, 2) of its own
    stream, which starts 256 calls after group g - 1's."""
    n = out.size
    for g in range(0, (n + 3) // 4):
        glo = lo + _U64(g) * _U64(256)
        ghi = hi + _U64(1) if glo < lo else hi
        got = 0
        need = min(4, n - 4 * g)
        while got < need:
            w = _philox(k0, k1, glo, ghi)
            for p in range(2):
                a, b = _bm32(w[2 * p], w[2 * p + 1])
                if abs(a) < _F32(2) and got < need:
                    out[4 * g + got] = a
                    got += 1
                if abs(b) < _F32(2) and got < need:
                    out[4 * g + got] = b
                    got += 1
            glo, ghi = _next(glo, ghi)


@_jit
def truncated_f64(k0, k1, lo, hi, out):
    """Group g of 2 values: its stream starts 128 calls after group g - 1's."""
    n = out.size
    for g in range(0, (n + 1) // 2):
        glo = lo + _U64(g) * _U64(128)
        ghi = hi + _U64(1) if glo < lo else hi
        got = 0
        need = min(2, n - 2 * g)
        while got < need:
            w = _philox(k0, k1, glo, ghi)
            a, b = _bm64(w[0], w[1], w[2], w[3])
            if abs(a) < 2.0 and got < need:
                out[2 * g + got] = a
                got += 1
            if abs(b) < 2.0 and got < need:
                out[2 * g + got] = b
                got += 1
            glo, ghi = _next(glo, ghi)


@_jit
def words_mod32(k0, k1, lo, hi, rng, base, out):
    """uint32 out[i] = word i % rng + base (mod 2**32); rng 0 keeps the words."""
    n = out.size
    for i in range(0, n, 4):
        w = _philox(k0, k1, lo, hi)
        for j in range(min(4, n - i)):
            v = w[j] % rng if rng != _U64(0) else w[j]
            out[i + j] = _U32((v + base) & _M32)
        lo, hi = _next(lo, hi)


@_jit
def words_mod64(k0, k1, lo, hi, rng, base, out):
    """uint64 out[i] = (word pair, low word first) % rng + base (mod 2**64);
    rng 0 keeps the bits."""
    n = out.size
    for i in range(0, n, 2):
        w = _philox(k0, k1, lo, hi)
        v = w[0] | (w[1] << _S32)
        out[i] = (v % rng if rng != _U64(0) else v) + base
        if i + 1 < n:
            v = w[2] | (w[3] << _S32)
            out[i + 1] = (v % rng if rng != _U64(0) else v) + base
        lo, hi = _next(lo, hi)


KERNELS = {"uniform_f32": uniform_f32, "uniform_low_bits": uniform_low_bits,
           "uniform_f64": uniform_f64, "normal_f32": normal_f32, "normal_f64": normal_f64,
           "truncated_f32": truncated_f32, "truncated_f64": truncated_f64,
           "words_mod32": words_mod32, "words_mod64": words_mod64}
