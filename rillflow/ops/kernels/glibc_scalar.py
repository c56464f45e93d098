"""glibc_float's sinf, cosf, tanf, expf, powf and atan2f one element at a
time in plain Python (NumPy scalars, Python ints and floats), for tensors
under a packet: 0-d tensors and the last `size % 8` elements of Eigen's
packet kernels, when the `jit` extra is not loaded.

glibc_float's NumPy code spends a ufunc call (about a microsecond) on each
of its hundred or more steps whatever the size; on one element the same
operations as NumPy scalars cost a few microseconds. This is jit_glibc.py's
and jit_trig.py's per-element code, run uncompiled: float32 steps on
np.float32 scalars, float64 steps on Python floats (both IEEE, rounding
once: there is no fused multiply-add in Python; glibc's fused steps go
through the same exact emulation `_fma`), integer steps on int64 scalars.
tests/test_glibc_scalar.py checks the bits against glibc_float's.
TensorFlow's flush-to-zero and denormals-are-zero modes apply as in
glibc_float (`_flush` where glibc's float arithmetic would flush).
glibc's `x + y` with two NaN arguments gives x's (made quiet), as x86's addss
(`_nan_sum`); NumPy's add in glibc_float may pick either of two NaNs when one
is signaling, depending on its loop.
"""
import math
import struct

import numpy as np

from . import glibc_float as _g
from .ftz import flush_scalar as _flush

_F32, _F64, _U32, _U64, _I32, _I64 = (np.float32, np.float64, np.uint32, np.uint64,
                                      np.int32, np.int64)
_M32 = 0xFFFFFFFF
_ONE_F, _ZERO_F, _NAN_F, _INF_F = _F32(1.0), _F32(0.0), _F32(np.nan), _F32(np.inf)
_MINUS_ONE_F, _MINUS_ZERO_F = _F32(-1.0), _F32(-0.0)
_ABS32 = _U32(0x7FFFFFFF)
_ONE, _TWO, _ZERO = _ONE_F, _F32(2.0), _ZERO_F
_NEAR = _F32(2.0 ** -13)


def _bits32(v):
    return _F32(v).view(_U32)


def _bits(v):
    """A float32's bits as a nonnegative int64."""
    return int(_F32(v).view(_U32))


def _float(b):
    return _U32(b & _M32).view(_F32)


def _signed(b):
    """32 bits as the int32 they are (for arithmetic shifts and signed tests)."""
    b &= _M32
    return b - 0x100000000 if b & 0x80000000 else b


def _nan_sum(a, b):
    """a + b for a or b NaN as x86's addss gives it (a's NaN, else b's, made
    quiet): LLVM may swap the operands of an fadd, which picks the other
    payload when both are NaN."""
    return _float(_bits(a) | 0x400000) if a != a else _float(_bits(b) | 0x400000)


# --- glibc_float._fma --------------------------------------------------------------------------

_VELTKAMP = float(_g._VELTKAMP)
_D, _Q = struct.Struct("<d"), struct.Struct("<Q")
_M64 = (1 << 64) - 1


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma(a, b, c):
    """a * b + c rounded once, by glibc_float._fma's exact steps."""
    p = a * b
    ga = _VELTKAMP * a
    gb = _VELTKAMP * b
    ah = (a - ga) + ga
    bh = (b - gb) + gb
    al = a - ah
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    th, tl = _two_sum(c, p)
    v, err = _two_sum(tl, e)
    if err != 0 and not _Q.unpack(_D.pack(v))[0] & 1:
        v = math.nextafter(v, math.inf if err > 0 else -math.inf)
    return th + v


# --- sinf and cosf (glibc_float._sincosf) ----------------------------------------------------

_HPI_INV, _HPI = _g._HPI_INV, _g._HPI
_QUADRANT_SIGN = [float(v) for v in _g._QUADRANT_SIGN]
_C0, _C1, _C2, _C3, _C4 = _g._COS_C
_S0, _S1, _S2 = _g._SIN_S


def _sincosf(y, cosine):
    b = _bits(y)
    top = (b >> 20) & 0x7FF
    if top >= 0x7F8:
        return y - y
    if top < 0x398:     # |y| < 2**-12
        return _ONE_F if cosine else y
    x = float(y)
    if top < 0x3F4:     # |y| < 0.75: the polynomial directly
        r, n, q, xs = x, 0, 0, x
    else:
        if top < 0x42F:
            n = (int(x * _HPI_INV) + 0x800000) >> 24     # int() truncates, as C
            r = _fma(-float(n), _HPI, x)
            q = n
        else:
            r, n = _reduce_large(b)
            q = n + (b >> 31)
        xs = r * _QUADRANT_SIGN[q & 3]
    x2 = r * r
    if cosine:
        n = n ^ 1
    if (n & 1) == 0:
        x3 = xs * x2
        s1 = _fma(x2, _S2, _S1)
        x7 = x3 * x2
        s = _fma(x3, _S0, xs)
        return _F32(_fma(x7, s1, s))
    neg = (q & 2) != 0
    c0, c1, c2, c3, c4 = (-_C0, -_C1, -_C2, -_C3, -_C4) if neg else (_C0, _C1, _C2, _C3, _C4)
    x4 = x2 * x2
    cc2 = _fma(x2, c4, c3)
    cc1 = _fma(x2, c1, c0)
    x6 = x4 * x2
    cc = _fma(x4, c2, cc1)
    return _F32(_fma(x6, cc2, cc))


# --- expf and powf (glibc_float.expf, powf) --------------------------------------------------

_EXP2F_TAB = [int(v) for v in _g._EXP2F_TAB]
_EP0, _EP1, _EP2 = _g._EXP2F_POLY
_SEP0, _SEP1, _SEP2 = [c / 32.0 ** (3 - i) for i, c in enumerate(_g._EXP2F_POLY)]
_SHIFT, _INVLN2_N = _g._SHIFT, _g._INVLN2_N
_SHIFT_32 = _g._d("0x1.8p+52") / 32
_EXPF_HI, _EXPF_LO = _F32(88.72283172607421875), _F32(-103.97207641601562)


def _exp2_table(ki, r, p0, p1, p2, sign_bias):
    t = _EXP2F_TAB[ki & 31]
    s = _D.unpack(_Q.pack((t + ((ki + sign_bias) << 47)) & _M64))[0]
    z = _fma(p0, r, p1)
    r2 = r * r
    y = _fma(p2, r, 1.0)
    y = _fma(z, r2, y)
    return y * s


def _expf(x):
    top = (_bits(x) >> 20) & 0x7FF
    if top >= 0x42B:        # |x| >= 88 or NaN
        if x == -_INF_F:
            return _ZERO_F
        if top >= 0x7F8:
            return x + x
        if x < _EXPF_LO:
            return _ZERO_F
        if x > _EXPF_HI:
            return _INF_F
    xd = float(x)
    kd = _fma(_INVLN2_N, xd, _SHIFT)
    ki = _Q.unpack(_D.pack(kd))[0]
    kd = kd - _SHIFT
    r = _fma(_INVLN2_N, xd, -kd)
    # FTZ: the conversion to float32 flushes a subnormal result.
    return _flush(_F32(_exp2_table(ki, r, _SEP0, _SEP1, _SEP2, 0)))


_POWF_INVC = list(_g._POWF_INVC)
_POWF_LOGC = list(_g._POWF_LOGC)
_A0, _A1, _A2, _A3, _A4 = _g._POWF_A
_OFLOW = _g._d("0x1.fffffffd1d571p+6")


def _checkint(iy):
    """0: not an integer, 1: odd integer, 2: even integer (nonzero finite iy bits)."""
    e = (iy >> 23) & 0xFF
    if e < 0x7F:
        return 0
    if e > 0x7F + 23:
        return 2
    shift = 0x7F + 23 - e
    if iy & ((1 << shift) - 1):
        return 0
    return 1 if iy & (1 << shift) else 2


def _zeroinfnan(i):
    return ((2 * i - 1) & _M32) >= 2 * 0x7f800000 - 1


def _log2_inline(ix):
    tmp = (ix - 0x3f330000) & _M32
    i = (tmp >> 19) % 16
    top = tmp & 0xff800000
    iz = (ix - top) & _M32
    k = _signed(top) >> 23
    z = float(_float(iz))
    r = _fma(z, _POWF_INVC[i], -1.0)
    y0 = _POWF_LOGC[i] + float(k)
    r2 = r * r
    y = _fma(_A0, r, _A1)
    p = _fma(_A2, r, _A3)
    r4 = r2 * r2
    q = _fma(_A4, r, y0)
    q = _fma(p, r2, q)
    return _fma(y, r4, q)


def _powf(x, y):
    ix, iy = _bits(x), _bits(y)
    if _zeroinfnan(iy):
        two_ix, two_iy = (2 * ix) & _M32, (2 * iy) & _M32
        if two_iy == 0 or ix == 0x3f800000:
            return _ONE_F
        if two_ix > 2 * 0x7f800000 or two_iy > 2 * 0x7f800000:
            return _nan_sum(x, y)
        if two_ix == 2 * 0x3f800000:
            return _ONE_F
        return _ZERO_F if (two_ix < 2 * 0x3f800000) == ((iy >> 31) == 0) else y * y
    x_neg = (ix >> 31) != 0
    yint = _checkint(iy)
    odd_neg = x_neg and yint == 1
    if _zeroinfnan(ix):
        x2 = x * x
        if odd_neg:
            x2 = -x2
        return _ONE_F / x2 if (iy >> 31) != 0 else x2
    if x_neg and yint == 0:
        return _NAN_F
    ixa = ix & 0x7FFFFFFF
    if ixa < 0x00800000:
        # x * 2**23 reads a subnormal x as 0 (DAZ): log2 = -150 follows.
        ixa = (0 - (23 << 23)) & _M32
    ylogx = float(_flush(y)) * _log2_inline(ixa)
    if ylogx <= -150.0:
        return _MINUS_ZERO_F if odd_neg else _ZERO_F
    if ylogx > _OFLOW:
        return -_INF_F if odd_neg else _INF_F
    kd = ylogx + _SHIFT_32
    ki = _Q.unpack(_D.pack(kd))[0]
    kd = kd - _SHIFT_32
    sign_bias = (1 << 16) if odd_neg else 0
    return _flush(_F32(_exp2_table(ki, ylogx - kd, _EP0, _EP1, _EP2, sign_bias)))


# --- atan2f (glibc_float.atan2f) -------------------------------------------------------------

_ATANHI = np.array(_g._ATANHI, np.float32)
_ATANLO = np.array(_g._ATANLO, np.float32)
_AT0, _AT1, _AT2, _AT3, _AT4, _AT5, _AT6, _AT7, _AT8, _AT9, _AT10 = _g._AT
_PI_O_4, _PI_O_2, _PI, _PI_LO = _g._PI_O_4, _g._PI_O_2, _g._PI, _g._PI_LO
_TINY = _g._TINY
_TWO_F, _HALF_F, _THREE_F, _ONE_HALF_F = _F32(2.0), _F32(0.5), _F32(3.0), _F32(1.5)


def _atanf(x):
    hx = _signed(_bits(x))
    ix = hx & 0x7FFFFFFF
    if ix > 0x7f800000:
        return x + x
    if ix >= 0x4c000000:
        return _ATANHI[3] + _ATANLO[3] if hx > 0 else -_ATANHI[3] - _ATANLO[3]
    if ix < 0x31000000:
        return x
    ident = ix < 0x3ee00000
    ax = abs(x)
    i = 0
    if ident:
        t = x
    elif ix < 0x3f300000:
        t = (_TWO_F * ax - _ONE_F) / (_TWO_F + ax)
    elif ix < 0x3f980000:
        i = 1
        t = (ax - _ONE_F) / (ax + _ONE_F)
    elif ix < 0x401c0000:
        i = 2
        t = (ax - _ONE_HALF_F) / (_ONE_F + _ONE_HALF_F * ax)
    else:
        i = 3
        t = -_ONE_F / ax
    z = t * t
    w = z * z
    s1 = z * (_AT0 + w * (_AT2 + w * (_AT4 + w * (_AT6 + w * (_AT8 + w * _AT10)))))
    s2 = w * (_AT1 + w * (_AT3 + w * (_AT5 + w * (_AT7 + w * _AT9))))
    if ident:
        return t - t * (s1 + s2)
    zz = _ATANHI[i] - ((t * (s1 + s2) - _ATANLO[i]) - t)
    return -zz if hx < 0 else zz


def _atan2f(y, x):
    hx, hy = _signed(_bits(x)), _signed(_bits(y))
    ix, iy = hx & 0x7FFFFFFF, hy & 0x7FFFFFFF
    if ix > 0x7f800000 or iy > 0x7f800000:
        return _nan_sum(x, y)
    if hx == 0x3f800000:
        return _atanf(y)
    m = ((hy >> 31) & 1) | ((hx >> 30) & 2)
    if iy == 0:
        return y if m < 2 else (_PI + _TINY if m == 2 else -_PI - _TINY)
    pi_half = -_PI_O_2 - _TINY if hy < 0 else _PI_O_2 + _TINY
    if ix == 0:
        return pi_half
    if ix == 0x7f800000:
        if iy == 0x7f800000:
            if m == 0:
                return _PI_O_4 + _TINY
            if m == 1:
                return -_PI_O_4 - _TINY
            if m == 2:
                return _THREE_F * _PI_O_4 + _TINY
            return _F32(-3.0) * _PI_O_4 - _TINY
        if m == 0:
            return _ZERO_F
        if m == 1:
            return _MINUS_ZERO_F
        return _PI + _TINY if m == 2 else -_PI - _TINY
    if iy == 0x7f800000:
        return pi_half
    k = (iy - ix) >> 23
    if k > 60:
        z = _PI_O_2 + _HALF_F * _PI_LO
    elif hx < 0 and k < -60:
        z = _ZERO_F
    else:
        # DAZ on the operands, FTZ on the quotient (glibc_float.atan2f).
        z = _atanf(abs(_flush(_flush(y) / _flush(x))))
    if m == 0:
        return z
    if m == 1:
        return -z
    if m == 2:
        return _PI - (z - _PI_LO)
    return (z - _PI_LO) - _PI



# --- tanf (jit_trig._tanf) ----------------------------------------------------------------

_HPI_INV, _HPI, _PI63 = _g._HPI_INV, _g._HPI, _g._PI63
_INV_PIO4 = _g._INV_PIO4.copy()
_T0, _T1, _T2, _T3, _T4, _T5, _T6, _T7, _T8, _T9, _T10, _T11, _T12 = _g._T
_PIO4_F, _PIO4LO_F = _g._PIO4_F, _g._PIO4LO_F
_ZERO = _F32(0.0)
_NEAR = _F32(2.0 ** -13)


def _reduce_large(bits):
    """glibc_float._reduce_large for one float32's bits: (x mod pi/2, quadrant)."""
    b = _U64(bits)
    arr = _I64((b >> _U64(26)) & _U64(15))
    shift = (b >> _U64(23)) & _U64(7)
    m = ((b & _U64(0xFFFFFF)) | _U64(0x800000)) << shift
    res0 = (m * _INV_PIO4[arr]) & _M32
    res1 = m * _INV_PIO4[arr + 4]
    res2 = m * _INV_PIO4[arr + 8]
    res0 = ((res2 >> _U64(32)) | (res0 << _U64(32))) + res1
    n = (res0 + _U64(1 << 61)) >> _U64(62)
    res0 = res0 - (n << _U64(62))
    return _F64(_U64(res0).view(_I64)) * _PI63, _I64(n)


def _kernel_tanf(x, y, iy):
    """glibc_float._kernel_tanf for one element (iy = 1: tan, -1: -1/tan)."""
    hx = _I64(np.int32(_bits32(x)))
    ix = hx & 0x7FFFFFFF
    sign_f = _F32(-1.0) if hx < 0 else _ONE
    iy_f = _F32(iy)
    big = ix >= 0x3f2ca140
    if big and hx < 0:
        x = -x
        y = -y
    xb = (_PIO4_F - x) + (_PIO4LO_F - y)
    if big:
        x = xb
        y = _ZERO
    z = x * x
    w = z * z
    r = _T1 + w * (_T3 + w * (_T5 + w * (_T7 + w * (_T9 + w * _T11))))
    v = z * (_T2 + w * (_T4 + w * (_T6 + w * (_T8 + w * (_T10 + w * _T12)))))
    s = z * x
    r = y + z * (s * (r + v) + y)
    r = r + _T0 * s
    w = x + r
    if big:
        out = sign_f * (iy_f - _TWO * (x - (w * w / (w + iy_f) - r)))
        if abs(xb) < _NEAR:
            out = (sign_f * iy_f) * (_ONE - (_TWO * iy_f) * xb)
        return out
    if ix < 0x39000000:
        if iy == 1:
            return x
        if ix == 0:
            return _ONE / abs(x)
        return -_ONE / x
    if iy == 1:
        return w
    zh = _float(_bits32(w) & _U32(0xFFFFF000))
    v = r - (zh - x)
    a = -_ONE / w
    t = _float(_bits32(a) & _U32(0xFFFFF000))
    s = _ONE + t * zh
    return t + a * (s + t * v)


def _tanf(x):
    bits = _bits32(x)
    ab = bits & _ABS32
    if ab >= _U32(0x7F800000):
        return x - x
    if ab <= _U32(0x3f490fda):
        return _kernel_tanf(x, _ZERO, 1)
    if ((bits >> _U32(20)) & _U32(0x7FF)) < _U32(0x42F):
        dx = float(x)
        r = dx * _HPI_INV
        n = (int(r) + 0x800000) >> 24
        d = dx - float(n) * _HPI
    else:
        d, n = _reduce_large(bits)
        if bits >> _U32(31):
            d = -d
    y0 = _F32(d)
    y1 = _F32(d - float(y0))
    return _kernel_tanf(y0, y1, 1 - ((n & 1) << 1))




# --- the array functions ---------------------------------------------------------------------

SMALL = 8   # at most this many elements one by one; more through glibc_float


def _unary(element, vector):
    def f(x):
        x = np.asarray(x, np.float32)
        if x.size > SMALL:
            return vector(x)
        out = np.empty(x.shape, np.float32)
        flat = out.reshape(-1)
        with np.errstate(all="ignore"):    # 1 / 0, inf - inf: the IEEE results, quietly
            for i, v in enumerate(x.reshape(-1)):
                flat[i] = element(v)
        return out
    f.__name__ = vector.__name__
    f.__doc__ = vector.__doc__ + " (Tiny arrays one element at a time, same bits.)"
    return f


def _binary(element, vector):
    def f(a, b):
        a, b = np.broadcast_arrays(np.asarray(a, np.float32), np.asarray(b, np.float32))
        if a.size > SMALL:
            return vector(a, b)
        out = np.empty(a.shape, np.float32)
        flat = out.reshape(-1)
        with np.errstate(all="ignore"):
            for i, (u, v) in enumerate(zip(a.reshape(-1), b.reshape(-1))):
                flat[i] = element(u, v)
        return out
    f.__name__ = vector.__name__
    f.__doc__ = vector.__doc__ + " (Tiny arrays one element at a time, same bits.)"
    return f


sinf = _unary(lambda v: _sincosf(v, False), _g.sinf)
cosf = _unary(lambda v: _sincosf(v, True), _g.cosf)
tanf = _unary(_tanf, _g.tanf)
expf = _unary(_expf, _g.expf)
powf = _binary(_powf, _g.powf)
atan2f = _binary(_atan2f, _g.atan2f)
