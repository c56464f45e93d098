"""glibc 2.36's float32 tanf, sinf, cosf, atan2f, expf and powf, bit for bit.

TensorFlow's CPU kernels call the C library where Eigen has no packet code
(tan on every element) and for the last `size % 8` elements of a packet
kernel (sin, cos, atan2, pow, and the exp inside erfc). TensorFlow's x86
wheels run on glibc, whose float functions are not correctly rounded, so the
float64 function rounded to float32 differs from them in the last bit for a
few percent of inputs. This module redoes glibc's algorithms (reimplemented
from their published descriptions, with their constants):

- tanf, atan2f: fdlibm's float code (k_tanf, s_atanf), run in float32, after a
  float64 range reduction (tanf). glibc builds them for baseline x86-64: no
  fused multiply-add.
- sinf, cosf, expf, powf: float64 polynomials and tables (ARM's optimized
  routines). On a CPU with FMA and AVX2, glibc picks variants compiled with
  FMA, and the compiler fuses every `a * b + c` whose product feeds only
  sums; `_fma` reproduces those fused steps exactly.

TensorFlow runs them with flush-to-zero and denormals-are-zero set (ftz.py):
glibc's float arithmetic reads subnormal operands as zeros and its float64
to float32 conversions flush subnormal results, while its integer tests of
the bits see subnormals as they are; expf, powf and atan2f do the same here.
(sinf, cosf and tanf return a tiny input untouched, without arithmetic.)

Only IEEE-exact operations (float32/float64 +, -, *, /, conversions, integer
and bit operations, nextafter): the bits do not depend on NumPy's SIMD paths.
"""
import numpy as np

from . import ftz

_F64 = np.float64
_U32, _U64, _I32, _I64 = np.uint32, np.uint64, np.int32, np.int64


def _as_f32(x):
    return np.ascontiguousarray(x, np.float32)


def _bits(x):
    return _as_f32(x).view(_U32)


def _abstop12(bits):
    # The sign-less top 12 bits of a float32: glibc's coarse range tests.
    return (bits >> _U32(20)) & _U32(0x7FF)


def _d(h):
    return float.fromhex(h)


# --- an exact fused multiply-add in float64 --------------------------------------------------

_VELTKAMP = _F64(134217729.0)   # 2**27 + 1


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _fma(a, b, c):
    """a * b + c rounded once (Boldo and Melquiond: an exact product, an exact
    sum, the low parts added with rounding to odd, then one rounding)."""
    a, b, c = (np.asarray(v, _F64) for v in (a, b, c))
    p = a * b
    ga, gb = _VELTKAMP * a, _VELTKAMP * b
    ah = (a - ga) + ga
    bh = (b - gb) + gb
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    th, tl = _two_sum(c, p)
    v, err = _two_sum(tl, e)
    # Round to odd: an inexact sum with an even last bit moves to its odd neighbour.
    even = (np.ascontiguousarray(v).view(_U64) & _U64(1)) == 0
    v = np.where((err != 0) & even, np.nextafter(v, np.where(err > 0, np.inf, -np.inf)), v)
    return th + v


# --- range reduction shared by sinf, cosf and tanf -------------------------------------------

_HPI_INV = _d("0x1.45F306DC9C883p+23")   # 2/pi * 2**24
_HPI = _d("0x1.921FB54442D18p0")
_PI63 = _d("0x1.921FB54442D18p-62")
_INV_PIO4 = np.array([
    0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
    0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd,
    0xf534ddc0, 0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43,
    0x993c4390, 0x3c439041], np.uint64)


def _reduce_fast(x, fused):
    """x - n*pi/2 for |x| < 120, n rounded through a 2**24-scaled truncation."""
    r = x * _HPI_INV
    n = (r.astype(_I32) + 0x800000) >> 24
    nd = n.astype(_F64)
    return (_fma(-nd, _HPI, x) if fused else x - nd * _HPI), n


def _reduce_large(bits):
    """Payne-Hanek with 4/pi to 192 bits: (x mod pi/2 in double, quadrant)."""
    arr = ((bits >> _U32(26)) & _U32(15)).astype(np.intp)
    shift = ((bits >> _U32(23)) & _U32(7)).astype(_U64)
    m = (((bits & _U32(0xFFFFFF)) | _U32(0x800000)).astype(_U64) << shift)
    t = _INV_PIO4
    res0 = (m * t[arr]) & _U64(0xFFFFFFFF)
    res1 = m * t[arr + 4]
    res2 = m * t[arr + 8]
    res0 = ((res2 >> _U64(32)) | (res0 << _U64(32))) + res1
    n = (res0 + _U64(1 << 61)) >> _U64(62)
    res0 = res0 - (n << _U64(62))
    return res0.view(_I64).astype(_F64) * _PI63, n.astype(_I32)


# --- tanf ------------------------------------------------------------------------------------

_T = [np.uint32(b).view(np.float32) for b in (
    0x3eaaaaab, 0x3e088889, 0x3d5d0dd1, 0x3cb327a4, 0x3c11371f, 0x3b6b6916, 0x3abede48,
    0x3a1a26c8, 0x398137b9, 0x38a3f445, 0x3895c07a, 0xb79bae5f, 0x37d95384)]
_PIO4_F, _PIO4LO_F = np.uint32(0x3f490fda).view(np.float32), np.uint32(0x33222168).view(np.float32)
_ONE_F, _TWO_F = np.float32(1.0), np.float32(2.0)


def _kernel_tanf(x, y, iy):
    """fdlibm's float tan kernel on x + y in [-pi/4, pi/4]; iy = 1 (tan) or -1 (-1/tan)."""
    hx = x.view(_I32)
    ix = hx & 0x7FFFFFFF
    sign_f = np.where(hx < 0, np.float32(-1.0), _ONE_F)
    iy_f = iy.astype(np.float32)
    big = ix >= 0x3f2ca140
    x = np.where(big & (hx < 0), -x, x)
    y = np.where(big & (hx < 0), -y, y)
    xb = (_PIO4_F - x) + (_PIO4LO_F - y)
    x = np.where(big, xb, x)
    y = np.where(big, np.float32(0.0), y)
    z = x * x
    w = z * z
    r = _T[1] + w * (_T[3] + w * (_T[5] + w * (_T[7] + w * (_T[9] + w * _T[11]))))
    v = z * (_T[2] + w * (_T[4] + w * (_T[6] + w * (_T[8] + w * (_T[10] + w * _T[12])))))
    s = z * x
    r = y + z * (s * (r + v) + y)
    r = r + _T[0] * s
    w = x + r
    out_big = sign_f * (iy_f - _TWO_F * (x - (w * w / (w + iy_f) - r)))
    # -1/(x + r) to full accuracy: split w and the quotient at 12 bits.
    zh = (w.view(_U32) & _U32(0xFFFFF000)).view(np.float32)
    v = r - (zh - x)
    a = -_ONE_F / w
    t = (a.view(_U32) & _U32(0xFFFFF000)).view(np.float32)
    s = _ONE_F + t * zh
    out = np.where(iy == 1, w, t + a * (s + t * v))
    out = np.where(big, out_big, out)
    # Close to pi/4 after the reflection, and tiny arguments: short cuts.
    near = big & (np.abs(xb) < np.float32(2.0 ** -13))
    out = np.where(near, (sign_f * iy_f) * (_ONE_F - (_TWO_F * iy_f) * xb), out)
    tiny = ix < 0x39000000
    tiny_out = np.where(iy == 1, x, -_ONE_F / x)
    tiny_out = np.where((ix == 0) & (iy == -1), _ONE_F / np.abs(x), tiny_out)
    return np.where(tiny, tiny_out, out)


def tanf(x):
    """glibc's tanf on a float32 array."""
    x = _as_f32(x)
    shape = x.shape
    x = x.reshape(-1)
    with np.errstate(all="ignore"):
        bits = x.view(_U32)
        ab = bits & _U32(0x7FFFFFFF)
        dx = x.astype(_F64)
        fast = _abstop12(bits) < _U32(0x42F)
        d_fast, n_fast = _reduce_fast(dx, fused=False)
        d, n = d_fast, n_fast
        large = ~fast & (ab < _U32(0x7F800000))
        if large.any():
            d_large, n_large = _reduce_large(bits[large])
            d = d.copy()
            n = n.copy()
            d[large] = np.where(bits[large] >> _U32(31) != 0, -d_large, d_large)
            n[large] = n_large
        y0 = d.astype(np.float32)
        y1 = (d - y0.astype(_F64)).astype(np.float32)
        small = ab <= _U32(0x3f490fda)
        y0 = np.where(small, x, y0)
        y1 = np.where(small, np.float32(0.0), y1)
        iy = np.where(small, 1, 1 - ((n & 1) << 1)).astype(_I32)
        out = _kernel_tanf(y0, y1, iy)
        out = np.where(ab >= _U32(0x7F800000), x - x, out)
    return out.reshape(shape)


# --- sinf and cosf ---------------------------------------------------------------------------

# Cosine (c0..c4) and sine (s1..s3) polynomials; quadrants 2 and 3 use the
# negated cosine polynomial.
_COS_C = [_d(h) for h in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5",
                          "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16")]
_SIN_S = [_d(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7",
                          "-0x1.994eb3774cf24p-13")]
_QUADRANT_SIGN = np.array([1.0, -1.0, -1.0, 1.0])


def _sinf_poly(x, x2, n, neg_cos):
    """sin(x) for even n, else cos(x) (negated where neg_cos), every step fused."""
    x3 = x * x2
    s1 = _fma(x2, _SIN_S[2], _SIN_S[1])
    x7 = x3 * x2
    s = _fma(x3, _SIN_S[0], x)
    sin = _fma(x7, s1, s)
    c = [np.where(neg_cos, -k, k) for k in _COS_C]
    x4 = x2 * x2
    c2 = _fma(x2, c[4], c[3])
    c1 = _fma(x2, c[1], c[0])
    x6 = x4 * x2
    cc = _fma(x4, c[2], c1)
    cos = _fma(x6, c2, cc)
    return np.where((n & 1) == 0, sin, cos)


def _sincosf(y, cosine):
    y = _as_f32(y)
    shape = y.shape
    y = y.reshape(-1)
    with np.errstate(all="ignore"):
        bits = y.view(_U32)
        top = _abstop12(bits)
        x = y.astype(_F64)
        sign = (bits >> _U32(31)).astype(_I32)
        # |y| < 0.75 (abstop12(pi/4)): the polynomial directly.
        small = top < _U32(0x3F4)
        r, n = _reduce_fast(x, fused=True)
        large = (top >= _U32(0x42F)) & (top < _U32(0x7F8))
        q = n
        if large.any():
            r = r.copy()
            q = q.copy()
            r[large], nl = _reduce_large(bits[large])
            n = n.copy()
            n[large] = nl
            q[large] = nl + sign[large]
        q = np.where(small, 0, q)
        n = np.where(small, 0, n)
        r = np.where(small, x, r)
        xs = np.where(small, x, r * _QUADRANT_SIGN[q & 3])
        out = _sinf_poly(xs, r * r, n ^ 1 if cosine else n, (q & 2) != 0)
        out = out.astype(np.float32)
        tiny = top < _U32(0x398)     # |y| < 2**-12
        out = np.where(tiny, np.float32(1.0) if cosine else y, out)
        out = np.where(top >= _U32(0x7F8), y - y, out)
    return out.reshape(shape)


def sinf(x):
    """glibc's sinf (its FMA build) on a float32 array."""
    return _sincosf(x, False)


def cosf(x):
    """glibc's cosf (its FMA build) on a float32 array."""
    return _sincosf(x, True)


# --- expf and powf: 2**(k/32) from a table times a cubic --------------------------------------

_EXP2F_TAB = np.array([
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540],
    np.uint64)
_EXP2F_POLY = [_d(h) for h in ("0x1.c6af84b912394p-5", "0x1.ebfce50fac4f3p-3",
                               "0x1.62e42ff0c52d6p-1")]
_SHIFT = _d("0x1.8p+52")
_INVLN2_N = _d("0x1.71547652b82fep+0") * 32


def _exp2_table(ki, r, poly, sign_bias=None):
    """2**(ki/32) * (1 + poly(r)) with the table's scale built from ki's bits."""
    t = _EXP2F_TAB[(ki % _U64(32)).astype(np.intp)]
    ski = ki if sign_bias is None else ki + sign_bias
    s = (t + (ski << _U64(47))).view(_F64)
    z = _fma(poly[0], r, poly[1])
    r2 = r * r
    y = _fma(poly[2], r, 1.0)
    y = _fma(z, r2, y)
    return y * s


_EXPF_UNDER = np.float32(87.0)


def expf(x):
    """glibc's expf (its FMA build) on a float32 array."""
    x = _as_f32(x)
    shape = x.shape
    x = x.reshape(-1)
    with np.errstate(all="ignore"):
        xd = x.astype(_F64)
        # z = InvLn2N * xd feeds only sums, so both sums are fused with it.
        kd = _fma(_INVLN2_N, xd, _SHIFT)
        ki = kd.view(_U64)
        kd = kd - _SHIFT
        r = _fma(_INVLN2_N, xd, -kd)
        poly = [c / 32.0 ** (3 - i) for i, c in enumerate(_EXP2F_POLY)]
        out = _exp2_table(ki, r, poly).astype(np.float32)
        top = _abstop12(x.view(_U32))
        special = top >= _U32(0x42B)       # |x| >= 88 or NaN
        if special.any():
            sp = np.where(x > np.float32(88.72283172607421875), np.float32(np.inf), out)
            sp = np.where(x < np.float32(-103.97207641601562), np.float32(0.0), sp)
            sp = np.where(top >= _U32(0x7F8), x + x, sp)
            sp = np.where(x == np.float32(-np.inf), np.float32(0.0), sp)
            out = np.where(special, sp, out)
        # FTZ: the conversion to float32 flushes results below 2**-126
        # (x < -87.3).
        if ftz.any_below(-x, _EXPF_UNDER):
            ftz.flush(out)
    return out.reshape(shape)


# powf: log2(x) from a 16-entry table (1/c, log2(c)) and a degree 5 polynomial.
_POWF_INVC = [_d(h) for h in (
    "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
    "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
    "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
    "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
    "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1")]
_POWF_LOGC = [_d(h) for h in (
    "-0x1.efec65b963019p-2", "-0x1.b0b6832d4fca4p-2", "-0x1.7418b0a1fb77bp-2",
    "-0x1.39de91a6dcf7bp-2", "-0x1.01d9bf3f2b631p-2", "-0x1.97c1d1b3b7afp-3",
    "-0x1.2f9e393af3c9fp-3", "-0x1.960cbbf788d5cp-4", "-0x1.a6f9db6475fcep-5", "0x0p+0",
    "0x1.338ca9f24f53dp-4", "0x1.476a9543891bap-3", "0x1.e840b4ac4e4d2p-3",
    "0x1.40645f0c6651cp-2", "0x1.88e9c2c1b9ff8p-2", "0x1.ce0a44eb17bccp-2")]
_POWF_A = [_d(h) for h in ("0x1.27616c9496e0bp-2", "-0x1.71969a075c67ap-2",
                           "0x1.ec70a6ca7baddp-2", "-0x1.7154748bef6c8p-1",
                           "0x1.71547652ab82bp0")]
_POWF_TABS = (np.array(_POWF_INVC), np.array(_POWF_LOGC))
_SIGN_BIAS = _U64(1 << 16)


def _checkint(iy):
    """0: not an integer, 1: odd integer, 2: even integer (nonzero finite iy bits)."""
    e = ((iy >> _U32(23)) & _U32(0xFF)).astype(_I32)
    shift = np.clip(0x7F + 23 - e, 0, 31).astype(_U32)
    frac = iy & ((_U32(1) << shift) - _U32(1))
    odd = (iy & (_U32(1) << shift)) != 0
    out = np.where(odd, 1, 2)
    out = np.where(frac != 0, 0, out)
    out = np.where(e > 0x7F + 23, 2, out)
    return np.where(e < 0x7F, 0, out)


def _log2_inline(ix):
    tmp = ix - _U32(0x3f330000)
    i = ((tmp >> _U32(19)) % _U32(16)).astype(np.intp)
    top = tmp & _U32(0xff800000)
    iz = ix - top
    k = top.view(_I32) >> 23
    invc, logc = _POWF_TABS[0][i], _POWF_TABS[1][i]
    z = iz.view(np.float32).astype(_F64)
    r = _fma(z, invc, -1.0)
    y0 = logc + k.astype(_F64)
    a = _POWF_A
    r2 = r * r
    y = _fma(a[0], r, a[1])
    p = _fma(a[2], r, a[3])
    r4 = r2 * r2
    q = _fma(a[4], r, y0)
    q = _fma(p, r2, q)
    return _fma(y, r4, q)


def _nan_sum(a, b):
    """glibc's `a + b` where a or b is NaN: a's NaN made quiet, else b's (x86's
    addss). NumPy's add picks either of two NaNs depending on its SIMD loop
    (its baseline loop takes b's), so the payload is set here."""
    quiet = _U32(0x400000)
    return np.where(a != a, (a.view(_U32) | quiet).view(np.float32),
                    (b.view(_U32) | quiet).view(np.float32))


def _zeroinfnan(i):
    return (_U32(2) * i - _U32(1)) >= _U32(2 * 0x7f800000 - 1)


def powf(x, y):
    """glibc's powf (its FMA build) on float32 arrays (broadcast)."""
    x, y = np.broadcast_arrays(_as_f32(x), _as_f32(y))
    shape = x.shape
    x, y = np.ascontiguousarray(x).reshape(-1), np.ascontiguousarray(y).reshape(-1)
    one, zero, inf = np.float32(1.0), np.float32(0.0), np.float32(np.inf)
    with np.errstate(all="ignore"):
        ix, iy = x.view(_U32), y.view(_U32)
        sign_bias = np.zeros(x.shape, _U64)
        x_neg = (ix >> _U32(31)) != 0
        yint = _checkint(iy)
        # Finite negative x: NaN unless y is an integer, negative for odd y.
        sign_bias = np.where(x_neg & (yint == 1), _SIGN_BIAS, sign_bias)
        ixa = ix & _U32(0x7FFFFFFF)
        sub = ixa < _U32(0x00800000)
        # glibc scales a subnormal x by 2**23 in float arithmetic, which DAZ
        # makes 0: its bits minus 23 << 23 (wrapping) then give log2 = -150
        # for every subnormal x (checked against TensorFlow's tails).
        ixn = np.where(sub, _U32(0) - _U32(23 << 23), ixa)
        logx = _log2_inline(ixn)
        # DAZ: the conversion of y to double reads a subnormal as +-0.
        ylogx = ftz.daz(y).astype(_F64) * logx
        kd = ylogx + _d("0x1.8p+52") / 32
        ki = kd.view(_U64)
        kd = kd - _d("0x1.8p+52") / 32
        out = _exp2_table(ki, ylogx - kd, _EXP2F_POLY, sign_bias).astype(np.float32)
        neg_inf_sign = np.where(sign_bias != 0, np.float32(-1.0), one)
        out = np.where(ylogx > _d("0x1.fffffffd1d571p+6"), neg_inf_sign * inf, out)
        out = np.where(ylogx <= -150.0, neg_inf_sign * zero, out)
        out = np.where(x_neg & (yint == 0), np.float32(np.nan), out)
        # x zero, infinite or NaN: x*x, negated for odd y, inverted for negative y.
        x2 = x * x
        x2 = np.where(x_neg & (yint == 1), -x2, x2)
        out = np.where(_zeroinfnan(ix), np.where((iy >> _U32(31)) != 0, one / x2, x2), out)
        # y zero, infinite or NaN.
        two_ix, two_iy = _U32(2) * ix, _U32(2) * iy
        yo = np.where((two_ix < _U32(2 * 0x3f800000)) == ((iy >> _U32(31)) == 0), zero, y * y)
        yo = np.where(two_ix == _U32(2 * 0x3f800000), one, yo)
        yo = np.where((two_ix > _U32(2 * 0x7f800000)) | (two_iy > _U32(2 * 0x7f800000)),
                      _nan_sum(x, y), yo)
        yo = np.where(ix == _U32(0x3f800000), one, yo)
        yo = np.where(two_iy == 0, one, yo)
        out = np.where(_zeroinfnan(iy), yo, out)
        # FTZ: the final conversion to float32 flushes a subnormal result.
        ftz.flush(out)
    return out.reshape(shape)


# --- atan2f: fdlibm's float code -------------------------------------------------------------

def _hexf(*bits):
    return [np.uint32(b).view(np.float32) for b in bits]


_ATANHI = _hexf(0x3eed6338, 0x3f490fda, 0x3f7b985e, 0x3fc90fda)
_ATANLO = _hexf(0x31ac3769, 0x33222168, 0x33140fb4, 0x33a22168)
# The decimal literals glibc compiles (3.3333334327e-01 is 0x3eaaaaab, not the
# 0x3eaaaaaa its comment says).
_AT = [np.float32(v) for v in (
    3.3333334327e-01, -2.0000000298e-01, 1.4285714924e-01, -1.1111110449e-01,
    9.0908870101e-02, -7.6918758452e-02, 6.6610731184e-02, -5.8335702866e-02,
    4.9768779427e-02, -3.6531571299e-02, 1.6285819933e-02)]
_PI_O_4, _PI_O_2, _PI, _PI_LO = _hexf(0x3f490fdb, 0x3fc90fdb, 0x40490fdb, 0xb3bbbd2e)
_TINY = np.float32(1.0e-30)


def _atanf(x):
    hx = x.view(_I32)
    ix = hx & 0x7FFFFFFF
    ax = np.abs(x)
    one = _ONE_F
    # Reduce |x| to about [-7/16, 7/16] around atan(0.5), atan(1), atan(1.5) or atan(inf).
    ident = ix < 0x3ee00000
    id_ = np.where(ix < 0x3f300000, 0,
                   np.where(ix < 0x3f980000, 1, np.where(ix < 0x401c0000, 2, 3)))
    t = np.where(id_ == 0, (_TWO_F * ax - one) / (_TWO_F + ax),
                 np.where(id_ == 1, (ax - one) / (ax + one),
                          np.where(id_ == 2, (ax - np.float32(1.5)) / (one + np.float32(1.5) * ax),
                                   -one / ax)))
    t = np.where(ident, x, t)
    z = t * t
    w = z * z
    a = _AT
    s1 = z * (a[0] + w * (a[2] + w * (a[4] + w * (a[6] + w * (a[8] + w * a[10])))))
    s2 = w * (a[1] + w * (a[3] + w * (a[5] + w * (a[7] + w * a[9]))))
    hi = np.array(_ATANHI)[np.where(ident, 0, id_)]
    lo = np.array(_ATANLO)[np.where(ident, 0, id_)]
    zz = hi - ((t * (s1 + s2) - lo) - t)
    out = np.where(ident, t - t * (s1 + s2), np.where(hx < 0, -zz, zz))
    out = np.where(ix < 0x31000000, x, out)
    big = np.where(hx > 0, _ATANHI[3] + _ATANLO[3], -_ATANHI[3] - _ATANLO[3])
    out = np.where(ix >= 0x4c000000, big, out)
    return np.where(ix > 0x7f800000, x + x, out)


def atan2f(y, x):
    """glibc's atan2f on float32 arrays (broadcast)."""
    y, x = np.broadcast_arrays(_as_f32(y), _as_f32(x))
    shape = y.shape
    y, x = np.ascontiguousarray(y).reshape(-1), np.ascontiguousarray(x).reshape(-1)
    with np.errstate(all="ignore"):
        hx, hy = x.view(_I32), y.view(_I32)
        ix, iy = hx & 0x7FFFFFFF, hy & 0x7FFFFFFF
        m = ((hy >> 31) & 1) | ((hx >> 30) & 2)
        k = (iy - ix) >> 23
        # DAZ: subnormal operands of the division read as +-0 (0/0 is NaN);
        # FTZ: a subnormal quotient is 0. The integer tests around it (k, ix,
        # iy) and atanf(y) for x == 1, which returns a tiny y untouched, see
        # the bits as they are.
        z = _atanf(ftz.flush(np.abs(ftz.daz(y) / ftz.daz(x))))
        z = np.where(k > 60, _PI_O_2 + np.float32(0.5) * _PI_LO, z)
        z = np.where((hx < 0) & (k < -60), np.float32(0.0), z)
        general = [z, -z, _PI - (z - _PI_LO), (z - _PI_LO) - _PI]
        out = np.choose(m, general)
        pi_half = np.where(hy < 0, -_PI_O_2 - _TINY, _PI_O_2 + _TINY)
        out = np.where(iy == 0x7f800000, pi_half, out)
        # x infinite.
        both_inf = np.choose(m, [_PI_O_4 + _TINY, -_PI_O_4 - _TINY,
                                 np.float32(3.0) * _PI_O_4 + _TINY,
                                 np.float32(-3.0) * _PI_O_4 - _TINY])
        x_inf = np.choose(m, [np.float32(0.0), np.float32(-0.0), _PI + _TINY, -_PI - _TINY])
        out = np.where(ix == 0x7f800000, np.where(iy == 0x7f800000, both_inf, x_inf), out)
        out = np.where(ix == 0, pi_half, out)
        y_zero = np.choose(m, [y, y, _PI + _TINY, -_PI - _TINY])
        out = np.where(iy == 0, y_zero, out)
        out = np.where(hx == 0x3f800000, _atanf(y), out)
        out = np.where((ix > 0x7f800000) | (iy > 0x7f800000), _nan_sum(x, y), out)
    return out.reshape(shape)
