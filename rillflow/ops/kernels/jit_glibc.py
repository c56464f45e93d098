"""glibc_float's sinf, cosf, tanf, expf, powf and atan2f compiled by Numba, one
element at a time: the scalar tails of Eigen's packet kernels, tensors too
small for a packet, and tan on every element (TensorFlow calls glibc's tanf
for all of a tensor). tanf is jit_trig's `_tanf` for one element, and for
whole arrays a branch-free loop LLVM vectorizes (`tanf_f32`).

The same float operations in the same order as glibc_float.py's NumPy code;
where that code computes every branch and selects with np.where, this code
computes only the branch it returns, which holds the same operations. The
fused multiply-adds of glibc's FMA builds go through the same exact
emulation (`_fma`: Veltkamp products, two-sums, rounding to odd), never a
hardware fma: Numba sets no fast-math flags, so LLVM contracts nothing and
each float64 operation rounds once (tests/test_jit_glibc.py checks the
generated code).

Numba widens integers to 64 bits and turns mixed signed/unsigned 64-bit
arithmetic into floats, so the bits are int64 values masked to 32 bits where
the NumPy code wraps around in uint32, and the uint64 steps stay uint64
with uint64 constants. Imported only by jit_kernels.py, which checks that
Numba is there. Module-level functions, so Numba's disk cache serves later
processes.

TensorFlow's flush-to-zero/denormals-are-zero (glibc_float's docstring):
`flush` on expf's and powf's results and atan2f's quotient and operands.
"""
import numba
import numpy as np

from . import glibc_float as _g
from .jit_exp_log import flush
from .jit_trig import _reduce_large, _tanf

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_inline = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

_F32, _F64, _U32, _U64, _I32, _I64 = (np.float32, np.float64, np.uint32, np.uint64,
                                      np.int32, np.int64)
_M32 = 0xFFFFFFFF
_ONE_F, _ZERO_F, _NAN_F, _INF_F = _F32(1.0), _F32(0.0), _F32(np.nan), _F32(np.inf)
_MINUS_ONE_F, _MINUS_ZERO_F = _F32(-1.0), _F32(-0.0)


@_inline
def _bits(v):
    """A float32's bits as a nonnegative int64."""
    return _I64(_F32(v).view(_U32))


@_inline
def _float(b):
    return _U32(b & _M32).view(_F32)


@_inline
def _signed(b):
    """32 bits as the int32 they are (for arithmetic shifts and signed tests)."""
    return _I64(_U32(b & _M32).view(_I32))


@_inline
def _nan_sum(a, b):
    """a + b for a or b NaN as x86's addss gives it (a's NaN, else b's, made
    quiet): LLVM may swap the operands of an fadd, which picks the other
    payload when both are NaN."""
    return _float(_bits(a) | 0x400000) if a != a else _float(_bits(b) | 0x400000)


# --- glibc_float._fma --------------------------------------------------------------------------

_VELTKAMP = _F64(_g._VELTKAMP)


@_inline
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@_inline
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
    if err != 0 and (_F64(v).view(_U64) & _U64(1)) == _U64(0):
        v = np.nextafter(v, np.inf if err > 0 else -np.inf)
    return th + v


# --- sinf and cosf (glibc_float._sincosf) ----------------------------------------------------

_HPI_INV, _HPI = _g._HPI_INV, _g._HPI
_QUADRANT_SIGN = _g._QUADRANT_SIGN.copy()
_C0, _C1, _C2, _C3, _C4 = _g._COS_C
_S0, _S1, _S2 = _g._SIN_S


@_inline
def _sincosf(y, cosine):
    b = _bits(y)
    top = (b >> 20) & 0x7FF
    if top >= 0x7F8:
        return y - y
    if top < 0x398:     # |y| < 2**-12
        return _ONE_F if cosine else y
    x = _F64(y)
    if top < 0x3F4:     # |y| < 0.75: the polynomial directly
        r, n, q, xs = x, _I64(0), _I64(0), x
    else:
        if top < 0x42F:
            n = (_I64(np.int32(x * _HPI_INV)) + 0x800000) >> 24
            r = _fma(-_F64(n), _HPI, x)
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

_EXP2F_TAB = _g._EXP2F_TAB.copy()
_EP0, _EP1, _EP2 = _g._EXP2F_POLY
_SEP0, _SEP1, _SEP2 = [c / 32.0 ** (3 - i) for i, c in enumerate(_g._EXP2F_POLY)]
_SHIFT, _INVLN2_N = _g._SHIFT, _g._INVLN2_N
_SHIFT_32 = _g._d("0x1.8p+52") / 32
_EXPF_HI, _EXPF_LO = _F32(88.72283172607421875), _F32(-103.97207641601562)


@_inline
def _exp2_table(ki, r, p0, p1, p2, sign_bias):
    t = _EXP2F_TAB[_I64(ki & _U64(31))]
    s = _U64(t + ((ki + sign_bias) << _U64(47))).view(_F64)
    z = _fma(p0, r, p1)
    r2 = r * r
    y = _fma(p2, r, 1.0)
    y = _fma(z, r2, y)
    return y * s


@_inline
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
    xd = _F64(x)
    kd = _fma(_INVLN2_N, xd, _SHIFT)
    ki = _F64(kd).view(_U64)
    kd = kd - _SHIFT
    r = _fma(_INVLN2_N, xd, -kd)
    # FTZ: the conversion to float32 flushes a subnormal result.
    return flush(_F32(_exp2_table(ki, r, _SEP0, _SEP1, _SEP2, _U64(0))))


_POWF_INVC = np.array(_g._POWF_INVC)
_POWF_LOGC = np.array(_g._POWF_LOGC)
_A0, _A1, _A2, _A3, _A4 = _g._POWF_A
_OFLOW = _g._d("0x1.fffffffd1d571p+6")


@_inline
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


@_inline
def _zeroinfnan(i):
    return ((2 * i - 1) & _M32) >= 2 * 0x7f800000 - 1


@_inline
def _log2_inline(ix):
    tmp = (ix - 0x3f330000) & _M32
    i = (tmp >> 19) % 16
    top = tmp & 0xff800000
    iz = (ix - top) & _M32
    k = _signed(top) >> 23
    z = _F64(_float(iz))
    r = _fma(z, _POWF_INVC[i], -1.0)
    y0 = _POWF_LOGC[i] + _F64(k)
    r2 = r * r
    y = _fma(_A0, r, _A1)
    p = _fma(_A2, r, _A3)
    r4 = r2 * r2
    q = _fma(_A4, r, y0)
    q = _fma(p, r2, q)
    return _fma(y, r4, q)


@_inline
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
    ylogx = _F64(flush(y)) * _log2_inline(ixa)
    if ylogx <= -150.0:
        return _MINUS_ZERO_F if odd_neg else _ZERO_F
    if ylogx > _OFLOW:
        return -_INF_F if odd_neg else _INF_F
    kd = ylogx + _SHIFT_32
    ki = _F64(kd).view(_U64)
    kd = kd - _SHIFT_32
    sign_bias = _U64(1 << 16) if odd_neg else _U64(0)
    return flush(_F32(_exp2_table(ki, ylogx - kd, _EP0, _EP1, _EP2, sign_bias)))


# --- atan2f (glibc_float.atan2f) -------------------------------------------------------------

_ATANHI = np.array(_g._ATANHI, np.float32)
_ATANLO = np.array(_g._ATANLO, np.float32)
_AT0, _AT1, _AT2, _AT3, _AT4, _AT5, _AT6, _AT7, _AT8, _AT9, _AT10 = _g._AT
_PI_O_4, _PI_O_2, _PI, _PI_LO = _g._PI_O_4, _g._PI_O_2, _g._PI, _g._PI_LO
_TINY = _g._TINY
_TWO_F, _HALF_F, _THREE_F, _ONE_HALF_F = _F32(2.0), _F32(0.5), _F32(3.0), _F32(1.5)


@_inline
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


@_inline
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
        z = _atanf(abs(flush(flush(y) / flush(x))))   # DAZ, FTZ
    if m == 0:
        return z
    if m == 1:
        return -z
    if m == 2:
        return _PI - (z - _PI_LO)
    return (z - _PI_LO) - _PI


# --- tanf without branches (glibc_float.tanf, jit_trig._tanf) -------------------------------
# jit_trig's `_tanf` branches on the range and on the quadrant, which random
# inputs mispredict half the time (~15 ns an element). Here every element
# runs the fast reduction (|x| < 120) and all of fdlibm's kernel, and selects;
# inputs with other paths (|x| >= 120, inf, NaN, and a reduced argument under
# 2**-13) are flagged and redone by `_tanf`. Selects do not change values: the
# same operations as `_tanf` on every element it keeps.

_T0, _T1, _T2, _T3, _T4, _T5, _T6, _T7, _T8, _T9, _T10, _T11, _T12 = _g._T
_PIO4_F, _PIO4LO_F = _g._PIO4_F, _g._PIO4LO_F
_NEAR = _F32(2.0 ** -13)


@_inline
def _tan_common(x):
    """(tanf(x), 0), or (anything, 1) for |x| >= 120, inf, NaN, and a tiny
    reduced argument (fdlibm's kernel returns x or -1/x for those)."""
    b = _bits(x)
    ab = b & 0x7FFFFFFF
    small = ab <= 0x3f490fda
    dx = _F64(x)
    r = dx * _HPI_INV
    n = (_I64(np.int32(r)) + 0x800000) >> 24
    d = dx - _F64(n) * _HPI
    y0r = _F32(d)
    y1r = _F32(d - _F64(y0r))
    y0 = x if small else y0r
    y1 = _ZERO_F if small else y1r
    iy_f = _ONE_F if small else _F32(1 - ((n & 1) << 1))
    minus = iy_f < _ZERO_F
    # glibc_float._kernel_tanf on (y0, y1, iy)
    hx = _signed(_bits(y0))
    ix = hx & 0x7FFFFFFF
    neg = hx < 0
    sign_f = _MINUS_ONE_F if neg else _ONE_F
    big = ix >= 0x3f2ca140
    flip = big & neg
    xk = -y0 if flip else y0
    yk = -y1 if flip else y1
    xb = (_PIO4_F - xk) + (_PIO4LO_F - yk)
    xk = xb if big else xk
    yk = _ZERO_F if big else yk
    z = xk * xk
    w = z * z
    rr = _T1 + w * (_T3 + w * (_T5 + w * (_T7 + w * (_T9 + w * _T11))))
    v = z * (_T2 + w * (_T4 + w * (_T6 + w * (_T8 + w * (_T10 + w * _T12)))))
    s = z * xk
    rr = yk + z * (s * (rr + v) + yk)
    rr = rr + _T0 * s
    w = xk + rr
    # One division per lane: w*w / (w + iy) where `big`, else -1 / w (the
    # lanes keep the quotient they use; each is the same division as before).
    q = (w * w if big else _MINUS_ONE_F) / ((w + iy_f) if big else w)
    out_big = sign_f * (iy_f - _TWO_F * (xk - (q - rr)))
    out_near = (sign_f * iy_f) * (_ONE_F - (_TWO_F * iy_f) * xb)
    out_big = out_near if abs(xb) < _NEAR else out_big
    zh = _float(_bits(w) & 0xFFFFF000)
    v = rr - (zh - xk)
    a = q
    t = _float(_bits(a) & 0xFFFFF000)
    s = _ONE_F + t * zh
    out_inv = t + a * (s + t * v)
    out = out_inv if minus else w
    out = out_big if big else out
    miss = (((b >> 20) & 0x7FF) >= 0x42F) | (ix < 0x39000000)
    return out, _I64(miss)


# --- loops on 1-D contiguous float32 arrays --------------------------------------------------

@_jit
def sinf_f32(x, out):
    """out[i] = glibc's sinf(x[i])."""
    for i in range(x.size):
        out[i] = _sincosf(x[i], False)


@_jit
def cosf_f32(x, out):
    """out[i] = glibc's cosf(x[i])."""
    for i in range(x.size):
        out[i] = _sincosf(x[i], True)


_TAN_BLOCK = 1024


@_jit
def _tan_fast(x, out):
    # `_tan_common` on every element, in a loop LLVM vectorizes (a separate
    # function: inside the block loop below LLVM vectorizes it far worse);
    # returns how many elements it does not cover.
    missed = 0
    for i in range(x.size):
        v, miss = _tan_common(x[i])
        out[i] = v
        missed += miss
    return missed


@_jit
def _tan_slow(v):
    # Not inlined: the call keeps the fix-up loop scalar and short.
    return _tanf(v)


@_jit
def _tan_fix(x, out, missed):
    if missed > x.size // 8:    # mostly |x| >= 120: all of the block
        for i in range(x.size):
            out[i] = _tan_slow(x[i])
    else:
        for i in range(x.size):
            if _tan_common(x[i])[1]:
                out[i] = _tan_slow(x[i])


@_jit
def tanf_f32(x, out):
    """out[i] = glibc's tanf(x[i]): `_tan_common` on every element in a loop
    LLVM vectorizes (no branches: both sides computed, then selected), then
    jit_trig's `_tanf` again, in the blocks of _TAN_BLOCK elements that held
    any, for the elements `_tan_common` does not cover (for all of a block
    that held many: checking each would cost more)."""
    n = x.size
    for lo in range(0, n, _TAN_BLOCK):
        hi = min(lo + _TAN_BLOCK, n)
        missed = _tan_fast(x[lo:hi], out[lo:hi])
        if missed:
            _tan_fix(x[lo:hi], out[lo:hi], missed)


@_jit
def expf_f32(x, out):
    """out[i] = glibc's expf(x[i])."""
    for i in range(x.size):
        out[i] = _expf(x[i])


@_jit
def powf_f32(x, y, out):
    """out[i] = glibc's powf(x[i], y[i])."""
    for i in range(x.size):
        out[i] = _powf(x[i], y[i])


@_jit
def atan2f_f32(y, x, out):
    """out[i] = glibc's atan2f(y[i], x[i])."""
    for i in range(y.size):
        out[i] = _atan2f(y[i], x[i])


KERNELS = {"sinf": sinf_f32, "cosf": cosf_f32, "tanf": tanf_f32, "expf": expf_f32,
           "powf": powf_f32, "atan2f": atan2f_f32}
