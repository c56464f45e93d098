"""TensorFlow's CPU bits for complex multiplication, division and reciprocal.

TensorFlow's complex kernels run Eigen's AVX packets over the flat
(broadcast) output, 4 complex64 or 2 complex128 values at a time, and
std::complex's scalar arithmetic on the last size % 4 (or % 2) values and on
0-d tensors:

- a product is (a c - b d) + (a d + b c) i, each product rounded (Eigen's
  pmul; the scalar path computes the same and, where both parts came out
  NaN, recovers infinities as C99's Annex G says: libgcc's __mulsc3);
- a quotient in a packet scales the divisor by max(|c|, |d|) first (Eigen's
  pdiv_complex): x * conj(y') / |y'|^2 / max; on the scalar path it is
  libgcc's __divsc3/__divdc3 (Smith's algorithm and C99's recovery of
  infinities);
- a reciprocal is 1 / y, the same two ways;
- divide_no_nan and multiply_no_nan mask the packets' results (0 where y
  is 0, or for the quotient where x * conj(y) is), as Eigen's masked ops do;
- sqrt is Eigen's psqrt_complex on packets and its scalar complex_sqrt on
  the tail (NumPy's csqrt differed in 10-13%), rsqrt its complex_rsqrt;
- complex64 exp is Eigen's pexp_complex on packets, glibc's cexpf on the
  tail (NumPy's differed in 25%).

NumPy's complex multiply differed from TensorFlow's in about a quarter of
the values (and depends on its SIMD path: fused multiply-adds), its division
(Smith's algorithm everywhere) in 60-70%. All arithmetic here is on the real
and imaginary parts as float32/float64 arrays, one rounding per operation,
under TensorFlow's flush-to-zero and denormals-are-zero (its threads' MXCSR).
"""
import ctypes
import math

import numpy as np

from . import exp_log, exp_log_f64, glibc_float, libm, trig

PACKETS = {np.dtype(np.complex64): 4, np.dtype(np.complex128): 2}


def _ftz(v):
    """FTZ/DAZ: v's subnormal elements become +-0 (v itself when it has none)."""
    if v.size == 0:
        return v
    tiny = np.finfo(v.dtype).tiny
    a = np.abs(v)
    if not (np.fmin.reduce(a, axis=None) < tiny):
        return v
    return np.where((a < tiny) & (a > 0), np.copysign(v.dtype.type(0), v), v)


def _parts(z):
    z = np.asarray(z)
    return _ftz(np.ascontiguousarray(z.real)), _ftz(np.ascontiguousarray(z.imag))


def _complex(re, im, dtype, flush=True):
    out = np.empty(np.shape(re), dtype)
    out.real = _ftz(np.asarray(re)) if flush else re
    out.imag = _ftz(np.asarray(im)) if flush else im
    return out


def _split(kernel_packet, kernel_scalar, x, y):
    """Applies the packet kernel to the whole packets of the flat broadcast
    output and the scalar kernel to the rest; x and y are complex arrays."""
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    dtype = np.result_type(x, y)
    n = x.size
    p = PACKETS[dtype]
    whole = n - n % p
    xf = np.ascontiguousarray(x, dtype).reshape(-1)
    yf = np.ascontiguousarray(y, dtype).reshape(-1)
    out = np.empty(n, dtype)
    with np.errstate(all="ignore"):
        if whole:
            out[:whole] = kernel_packet(xf[:whole], yf[:whole])
        if whole < n:
            out[whole:] = kernel_scalar(xf[whole:], yf[whole:])
    return out.reshape(x.shape)


# --- products -------------------------------------------------------------------------------

def _mul_packet(x, y):
    a, b = _parts(x)
    c, d = _parts(y)
    ac, bd, ad, bc = _ftz(a * c), _ftz(b * d), _ftz(a * d), _ftz(b * c)
    return _complex(ac - bd, ad + bc, x.dtype)


def _mul_scalar(x, y):
    out = _mul_packet(x, y)
    lost = np.isnan(out.real) & np.isnan(out.imag)
    if lost.any():
        i = np.flatnonzero(lost)
        a, b = _parts(x[i])
        c, d = _parts(y[i])
        re, im = _mulc3_recover(a, b, c, d, out.real[i].copy(), out.imag[i].copy())
        out[i] = _complex(re, im, x.dtype)
    return out


def _box(v, inf):
    """copysign(1 if inf else 0, v): Annex G's boxing of an infinity."""
    one, zero = v.dtype.type(1), v.dtype.type(0)
    return np.copysign(np.where(inf, one, zero), v)


def _mulc3_recover(a, b, c, d, x, y):
    """libgcc's __mulsc3 after the plain product came out NaN + NaN i."""
    f = a.dtype.type
    recalc = np.zeros(a.shape, bool)
    ab_inf = np.isinf(a) | np.isinf(b)
    cd_inf = np.isinf(c) | np.isinf(d)
    a = np.where(ab_inf, _box(a, np.isinf(a)), a)
    b = np.where(ab_inf, _box(b, np.isinf(b)), b)
    c = np.where(ab_inf & np.isnan(c), np.copysign(f(0), c), c)
    d = np.where(ab_inf & np.isnan(d), np.copysign(f(0), d), d)
    recalc |= ab_inf
    c2 = np.where(cd_inf, _box(c, np.isinf(c)), c)
    d2 = np.where(cd_inf, _box(d, np.isinf(d)), d)
    a = np.where(cd_inf & np.isnan(a), np.copysign(f(0), a), a)
    b = np.where(cd_inf & np.isnan(b), np.copysign(f(0), b), b)
    c, d = c2, d2
    recalc |= cd_inf
    ac, bd, ad, bc = a * c, b * d, a * d, b * c
    other = ~recalc & (np.isinf(ac) | np.isinf(bd) | np.isinf(ad) | np.isinf(bc))
    a = np.where(other & np.isnan(a), np.copysign(f(0), a), a)
    b = np.where(other & np.isnan(b), np.copysign(f(0), b), b)
    c = np.where(other & np.isnan(c), np.copysign(f(0), c), c)
    d = np.where(other & np.isnan(d), np.copysign(f(0), d), d)
    recalc |= other
    inf = f(np.inf)
    x = np.where(recalc, inf * (a * c - b * d), x)
    y = np.where(recalc, inf * (a * d + b * c), y)
    return x, y


def multiply(x, y):
    """x * y of complex64/complex128 arrays (broadcast) with TensorFlow's bits."""
    return _split(_mul_packet, _mul_scalar, x, y)


# --- quotients ------------------------------------------------------------------------------

def _div_packet(x, y):
    a, b = _parts(x)
    c, d = _parts(y)
    ymax = np.maximum(np.abs(c), np.abs(d))
    cs, ds = _ftz(c / ymax), _ftz(d / ymax)
    denom = _ftz(_ftz(cs * cs) + _ftz(ds * ds))
    re = _ftz(_ftz(a * cs) + _ftz(b * ds))
    im = _ftz(_ftz(b * cs) - _ftz(a * ds))
    return _complex(_ftz(re / denom) / ymax, _ftz(im / denom) / ymax, x.dtype)


def _div_scalar(x, y):
    a, b = _parts(x)
    c, d = _parts(y)
    return _complex(*_divc3(a, b, c, d), x.dtype)


def _divc3(a, b, c, d):
    """libgcc's __divsc3/__divdc3 as TensorFlow's build calls it, on arrays:
    Smith's algorithm (the ratio of the divisor's smaller part to its larger
    one; none of GCC 12's rescaling of huge and tiny operands: checked on
    them), then C99 Annex G's recovery of infinities and zeros."""
    first = np.abs(c) < np.abs(d)          # Smith's first case: |c| < |d|
    r1 = _ftz(c / d)
    den1 = _ftz(_ftz(c * r1) + d)
    x1 = _ftz(_ftz(a * r1) + b)
    y1 = _ftz(_ftz(b * r1) - a)
    r2 = _ftz(d / c)
    den2 = _ftz(_ftz(d * r2) + c)
    x2 = _ftz(_ftz(b * r2) + a)
    y2 = _ftz(b - _ftz(a * r2))
    x = _ftz(np.where(first, x1 / den1, x2 / den2))
    y = _ftz(np.where(first, y1 / den1, y2 / den2))
    lost = np.isnan(x) & np.isnan(y)
    if lost.any():
        x, y = _divc3_recover(a, b, c, d, x, y, lost)
    return x, y


def _divc3_recover(a, b, c, d, x, y, lost):
    """C99 Annex G: nonzero / zero, infinite / finite and finite / infinite
    quotients that came out NaN + NaN i."""
    f = a.dtype.type
    inf = f(np.inf)
    zero_div = lost & (c == 0) & (d == 0) & (~np.isnan(a) | ~np.isnan(b))
    s = np.copysign(inf, c)
    x = np.where(zero_div, s * a, x)
    y = np.where(zero_div, s * b, y)
    rest = lost & ~zero_div
    inf_num = rest & (np.isinf(a) | np.isinf(b)) & np.isfinite(c) & np.isfinite(d)
    a2, b2 = _box(a, np.isinf(a)), _box(b, np.isinf(b))
    x = np.where(inf_num, inf * (a2 * c + b2 * d), x)
    y = np.where(inf_num, inf * (b2 * c - a2 * d), y)
    inf_den = rest & ~inf_num & (np.isinf(c) | np.isinf(d)) & np.isfinite(a) & np.isfinite(b)
    c2, d2 = _box(c, np.isinf(c)), _box(d, np.isinf(d))
    x = np.where(inf_den, f(0) * (a * c2 + b * d2), x)
    y = np.where(inf_den, f(0) * (b * c2 - a * d2), y)
    return x, y


def divide(x, y):
    """x / y of complex64/complex128 arrays (broadcast) with TensorFlow's bits."""
    return _split(_div_packet, _div_scalar, x, y)


def reciprocal(y):
    """1 / y of a complex64/complex128 array with TensorFlow's bits."""
    y = np.asarray(y)
    return divide(np.ones((), y.dtype), y)


def _zero(z):
    """Eigen's pcmp_eq(z, 0) of complex values: both parts zero, read under
    denormals-are-zero (a subnormal part counts as zero)."""
    re, im = _parts(z)
    return (re == 0) & (im == 0)


def _masked(kernel, when):
    def run(x, y):
        return np.where(when(x, y), np.zeros((), x.dtype), kernel(x, y))
    return run


def _no_nan_quotient(x, y):
    # TensorFlow's complex div_no_nan: 0 where y is 0 or x * conj(y) is (the
    # quotient of tiny values whose scaled division would not underflow).
    return _zero(y) | _zero(_mul_packet(x, np.conj(y)))


def divide_no_nan(x, y):
    """tf.math.divide_no_nan of complex arrays: x / y, 0 where y == 0 or
    x * conj(y) == 0, with TensorFlow's bits."""
    return _split(_masked(_div_packet, _no_nan_quotient), _masked(_div_scalar, _no_nan_quotient),
                  x, y)


def multiply_no_nan(x, y):
    """tf.math.multiply_no_nan of complex arrays: x * y, 0 where y == 0,
    with TensorFlow's bits."""
    def zero_y(x, y):
        return _zero(y)
    return _split(_masked(_mul_packet, zero_y), _masked(_mul_scalar, zero_y), x, y)


def or_numpy(complex_kernel, numpy_kernel):
    """The kernel `f(x, y)` taking `complex_kernel` for complex operands and
    `numpy_kernel` for the others."""
    def kernel(x, y):
        if x.dtype.kind == "c":
            return complex_kernel(x, y)
        return numpy_kernel(x, y)
    kernel.__name__ = numpy_kernel.__name__
    return kernel


# --- square roots ---------------------------------------------------------------------------

def _hypot(ax, ay):
    """Eigen's positive_real_hypot of |x| and |y|: p sqrt(1 + (q/p)^2) with
    p the larger, q the smaller; 0 for 0, infinite for an infinite part."""
    f = ax.dtype.type
    p, q = np.maximum(ax, ay), np.minimum(ax, ay)
    qp = _ftz(q / p)
    h = np.where(p == 0, f(0), _ftz(p * np.sqrt(_ftz(f(1) + _ftz(qp * qp)))))
    return np.where(np.isinf(ax) | np.isinf(ay), f(np.inf), h)


def _sqrt_packet(z, _=None):
    """Eigen's psqrt_complex."""
    x, y = _parts(z)
    f = x.dtype.type
    ax, ay = np.abs(x), np.abs(y)
    mx, mn = np.maximum(ax, ay), np.minimum(ax, ay)
    r = _ftz(mn / mx)
    l = np.where(mn == 0, mx, _ftz(mx * np.sqrt(_ftz(f(1) + _ftz(r * r)))))
    rho = np.sqrt(_ftz(f(0.5) * _ftz(ax + l)))
    eta = np.where(mx == 0, f(0), _ftz(f(0.5) * _ftz(y / rho)))
    neg = x < 0
    re = np.where(neg, np.abs(eta), rho)
    im = np.where(neg, np.copysign(rho, y), eta)
    inf = f(np.inf)
    x_inf, y_inf = np.isinf(x), np.isinf(y)
    re = np.where(x_inf, np.where(neg, ay * f(0), inf), re)
    im = np.where(x_inf, np.where(neg, inf, ay * f(0)), im)
    re = np.where(y_inf, inf, re)
    im = np.where(y_inf, y, im)
    return _complex(re, im, z.dtype)


def _sqrt_scalar(z, _=None):
    """Eigen's scalar complex_sqrt."""
    x, y = _parts(z)
    f = x.dtype.type
    ax, ay = np.abs(x), np.abs(y)
    w = np.sqrt(_ftz(f(0.5) * _ftz(ax + _hypot(ax, ay))))
    half = _ftz(y / _ftz(f(2) * w))
    signed_w = np.where(y < 0, -w, w)
    re = np.where(x < 0, _ftz(ay / _ftz(f(2) * w)), w)
    im = np.where(x == 0, signed_w, np.where(x > 0, half, signed_w))
    re = np.where(np.isinf(y), f(np.inf), re)
    im = np.where(np.isinf(y), y, im)
    return _complex(re, im, z.dtype)


def sqrt(z):
    """The principal square root of a complex64/complex128 array with
    TensorFlow's bits (Eigen's psqrt_complex on packets, its scalar
    complex_sqrt on the tail)."""
    z = np.asarray(z)
    return _split(_sqrt_packet, _sqrt_scalar, z, z)


def rsqrt(z):
    """1 / sqrt(z) of a complex64/complex128 array with TensorFlow's bits
    (Eigen's complex_rsqrt: w / |z| and y / (2 w |z|) with w = sqrt((|x| +
    |z|) / 2); (inf, NaN) at 0 and 0 for infinite parts)."""
    z = np.asarray(z)

    def kernel(z, _):
        x, y = _parts(z)
        f = x.dtype.type
        ax, ay = np.abs(x), np.abs(y)
        absz = _hypot(ax, ay)
        w = np.sqrt(_ftz(f(0.5) * _ftz(ax + absz)))
        woz = _ftz(w / absz)
        two_w_z = _ftz(_ftz(f(2) * w) * absz)
        minus_signed = np.where(y < 0, woz, -woz)
        re = np.where(x < 0, _ftz(ay / two_w_z), woz)
        im = np.where(x > 0, _ftz(-y / two_w_z), minus_signed)
        inf_part = np.isinf(x) | np.isinf(y)
        re = np.where(inf_part, f(0), re)
        im = np.where(inf_part, f(0), im)
        re = np.where(absz == 0, f(np.inf), re)
        im = np.where(absz == 0, f(np.nan), im)
        return _complex(re, im, z.dtype)
    return _split(kernel, kernel, z, z)


# --- exp ------------------------------------------------------------------------------------

def _exp_packet(z, _=None):
    """Eigen's pexp_complex for complex64: its float exp of the real part
    times its packet cos and sin of the imaginary part; +-1 for cis(y) where
    x is -inf, (sign(y) inf, 0 ...) where x is +inf and cis(y) is NaN, and the
    real result where y is 0."""
    x, y = np.ascontiguousarray(z.real), np.ascontiguousarray(z.imag)
    f = x.dtype.type
    ex = exp_log.exp_packets(x)
    c, s = trig._cos_packet(y), trig._sin_packet(y)
    ninf = x == -np.inf
    c = np.where(ninf, np.copysign(f(1), c), c)
    s = np.where(ninf, np.copysign(f(1), s), s)
    lost = (x == np.inf) & (np.isnan(c) | np.isnan(s))
    c = np.where(lost, np.copysign(f(1), y), c)
    s = np.where(lost, f(0), s)
    re, im = _ftz(ex * c), _ftz(ex * s)
    real = y == 0
    return _complex(np.where(real, ex, re), np.where(real, y, im), z.dtype)


def _exp_scalar(z, _=None):
    """glibc's cexpf (std::exp of a complex<float>): sincosf and expf, the
    real part brought below 88 in steps (exp(88) folded into cos and sin)
    before it overflows, and C99's special values."""
    x, y = _parts(z)
    x = np.array(x, copy=True)
    f = np.float32
    big = np.abs(y) > f(np.finfo(f).tiny)
    yy = np.where(big, y, f(0))
    sin_y = np.where(big, glibc_float.sinf(yy), y)
    cos_y = np.where(big, glibc_float.cosf(yy), f(1))
    t = f(88)
    exp_t = glibc_float.expf(np.array([t], f))[0]
    for _ in range(2):
        step = np.isfinite(x) & (x > t)
        x = np.where(step, x - t, x)
        sin_y = np.where(step, _ftz(sin_y * exp_t), sin_y)
        cos_y = np.where(step, _ftz(cos_y * exp_t), cos_y)
    over = x > t
    ex = glibc_float.expf(np.where(over, f(0), x))
    scale = np.where(over, f(np.finfo(f).max), ex)
    re, im = _ftz(scale * cos_y), _ftz(scale * sin_y)
    x0, y0 = _parts(z)
    y_raw = np.ascontiguousarray(z.imag)      # (returned as it is: no arithmetic)
    x_fin, y_fin = np.isfinite(x0), np.isfinite(y0)
    nan = f(np.nan)
    # finite real part, infinite or NaN imaginary part: NaN + NaN i
    re = np.where(x_fin & ~y_fin, nan, re)
    im = np.where(x_fin & ~y_fin, nan, im)
    # infinite real part
    xinf = np.isinf(x0)
    value = np.where(np.signbit(x0), f(0), f(np.inf))
    fin_im = xinf & y_fin
    re = np.where(fin_im & (y0 == 0), value, np.where(fin_im, np.copysign(value, cos_y), re))
    im = np.where(fin_im & (y0 == 0), y_raw, np.where(fin_im, np.copysign(value, sin_y), im))
    pos = xinf & ~y_fin & ~np.signbit(x0)
    neg = xinf & ~y_fin & np.signbit(x0)
    re = np.where(pos, f(np.inf), np.where(neg, f(0), re))
    im = np.where(pos, y0 - y0, np.where(neg, np.copysign(f(0), y0), im))
    # NaN real part
    xnan = np.isnan(x0)
    re = np.where(xnan, nan, re)
    im = np.where(xnan, np.where(y0 == 0, y_raw, nan), im)
    return _complex(re, im, z.dtype, flush=False)


_CEXP = libm.complex_function("cexp")
_HYPOT = libm.c_function2("hypot", ctypes.c_double)

def _log_packet128(z, _=None):
    """Eigen's plog_complex on complex128 packets: the log of
    phypot_complex's modulus (sqrt(a^2 + b^2) corrected by
    h - ((h h - h^2) - (b b + (a^2 - h^2)) - (a a - a^2)) / 2h, without
    fused multiply-adds; 0 for 0) by plog_double, +inf for an infinite part,
    and patan2(b, a)."""
    a = exp_log_f64.ftz(np.array(z.real))
    b = exp_log_f64.ftz(np.array(z.imag))
    a2, b2 = a * a, b * b
    h = np.sqrt(a2 + b2)
    h_sq = h * h
    x = ((h * h + -h_sq) - (np.abs(b) * np.abs(b) + (a2 - h_sq))) - (np.abs(a) * np.abs(a) + -a2)
    h = h - x / (2.0 * h)
    h = np.where((a == 0) & (b == 0), 0.0, h)
    re = exp_log_f64.plog_double(exp_log_f64.ftz(h))
    re = np.where(np.isinf(a) | np.isinf(b), np.inf, re)
    return _complex(re, trig.atan2_packets_f64(b, a), z.dtype)      # (a subnormal angle flushed)


def _log_scalar128(z, _=None):
    """Eigen's complex_log (std::complex's scalar path): the C library's
    log of its hypot, and its atan2."""
    out = np.empty(z.shape, z.dtype)
    flat, o = z.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat.tolist()):
        h = _HYPOT(v.real, v.imag)
        o[i] = complex(math.log(h) if h > 0 else (-math.inf if h == 0 else math.nan),
                       math.atan2(v.imag, v.real))
    return _complex(out.real, out.imag, z.dtype)


def log(z):
    """TensorFlow's log of complex128 values: Eigen's plog_complex on packets
    of 2, its complex_log (the C library's hypot, log, atan2) on the last
    size % 2 and 0-d tensors. Parts that are subnormal differ (TensorFlow's
    flush-to-zero rules there are not reproduced). complex64, or without a
    C library: NumPy's log (complex64's packets use the vendor-dependent
    rcpps estimate in atan)."""
    z = np.asarray(z)
    if z.dtype != np.complex128 or _HYPOT is None:
        return np.log(z)
    with np.errstate(all="ignore"):
        return _split(_log_packet128, _log_scalar128, z, z)


def sigmoid(z):
    """TensorFlow's logistic function of complex values: Eigen's complex
    functor has no packet path, so every element takes std::exp (complex64:
    glibc's cexpf, `_exp_scalar`; complex128: the C library's cexp, called),
    then 1 where its real part is infinite, else e / (e + 1) by libgcc's
    division (`_divc3`). complex128 without a C library to call: NumPy's
    1 / (1 + exp(-z))."""
    z = np.asarray(z)
    if z.dtype == np.complex64:
        e = _exp_scalar(z)
    elif _CEXP is not None:
        # (called outside TensorFlow's flush-to-zero mode: a subnormal part
        # is flushed after, as TensorFlow's last multiplication writes it)
        e = np.array([_CEXP(v) for v in z.ravel().tolist()], z.dtype).reshape(z.shape)
        e = _complex(*_parts(e), z.dtype)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            return 1.0 / (1.0 + np.exp(-z))
    a, b = _parts(e)
    one = a.dtype.type(1)
    with np.errstate(all="ignore"):
        out = _complex(*_divc3(a, b, _ftz(a + one), b + a.dtype.type(0)), z.dtype)
    return np.where(np.isinf(a), z.dtype.type(1), out)


def exp(z):
    """exp of a complex array with TensorFlow's bits for complex64 (Eigen's
    pexp_complex on packets, glibc's cexpf on the tail); complex128: NumPy's
    (TensorFlow's std::exp, the C library's; not compared bit for bit)."""
    z = np.asarray(z)
    if z.dtype != np.complex64:
        return np.exp(z)
    return _split(_exp_packet, _exp_scalar, z, z)
