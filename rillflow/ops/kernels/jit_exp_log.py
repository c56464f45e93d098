"""TensorFlow's float32 exp, expm1, log, log1p, sigmoid and softplus compiled
by Numba: exp_log.py's operations, in its order, one float32 rounding each,
one loop over the elements (no temporaries). Imported only by
jit_kernels.py, which checks that Numba is there.

exp_log.py works on whole arrays: it clamps with np.minimum, replaces
special lanes with np.putmask afterwards. Here each element runs the same
operations as scalars, and every NumPy idiom is spelled out so that it keeps
NumPy's result, NaN included (np.minimum(x, c) keeps a NaN x: `c if x > c
else x`; np.fmax(m, c) drops a NaN m: `m if m >= c else c`). The scalar
tail (the last size % 8 elements) calls the same C library functions as
exp_log's ctypes path: `expf` etc. are declared as external symbols, which
the JIT links to the process's libm, so the compiled code stays cacheable.

No fastmath: it would contract multiply-adds and reorder sums. Module-level
functions only, so Numba's disk cache serves later processes.
"""
import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from . import exp_log as _el

# error_model="numpy": no ZeroDivisionError branch, so loops vectorize.
jit = numba.njit(cache=True, nogil=True, error_model="numpy")
# Per-element helpers are inlined into the loops by Numba itself: LLVM does
# not always inline a call of a large helper, and a call per element (with
# Numba's calling convention) costs more than the arithmetic and keeps the
# loop from vectorizing.
lane = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")
PACKET = _el.PACKET


# --- bit casts and libm calls, as LLVM instructions --------------------------------

@intrinsic
def as_bits(typingctx, x):
    """The bits of a float32 as a non-negative int64 (x.view(np.uint32))."""
    if x != types.float32:
        return None

    def codegen(context, builder, sig, args):
        return builder.zext(builder.bitcast(args[0], ir.IntType(32)), ir.IntType(64))
    return types.int64(types.float32), codegen


@intrinsic
def from_bits(typingctx, k):
    """The float32 whose bits are the low 32 bits of the integer k."""
    if not isinstance(k, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        v, width = args[0], sig.args[0].bitwidth
        if width > 32:
            v = builder.trunc(v, ir.IntType(32))
        elif width < 32:
            v = builder.zext(v, ir.IntType(32))
        return builder.bitcast(v, ir.FloatType())
    return types.float32(k), codegen


def _libm(name):
    # A call of the C library's float function `name`: the symbol the
    # ctypes path in exp_log.py calls, resolved when the code is loaded.
    @intrinsic
    def call(typingctx, x):
        if x != types.float32:
            return None

        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(ir.FloatType(), [ir.FloatType()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, name)
            return builder.call(fn, args)
        return types.float32(types.float32), codegen
    call.__name__ = name
    return call


expf, logf, expm1f, log1pf = (_libm(n) for n in ("expf", "logf", "expm1f", "log1pf"))


# Globals are frozen into the compiled code as float32 constants.
def _f(a):
    return np.float32(a[()])


_ZERO, _HALF, _ONE, _MONE = _f(_el._ZERO), _f(_el._HALF), _f(_el._ONE), _f(_el._MONE)
_INF, _NINF, _NAN = _f(_el._INF), _f(_el._NINF), _f(_el._NAN)
_TINY = np.float32(_el._TINY)
_EXP_HI, _EXP_LO, _LOG2EF = _f(_el._EXP_HI), _f(_el._EXP_LO), _f(_el._LOG2EF)
_C1, _C2 = _f(_el._C1), _f(_el._C2)
_P2, _P3, _P4, _P5, _P6 = (_f(c) for c in (_el._P2, _el._P3, _el._P4, _el._P5, _el._P6))
_SQRTHF, _LN2 = _f(_el._SQRTHF), _f(_el._LN2)
_LA0, _LA1, _LA2 = (_f(c) for c in _el._LA)
_LB0, _LB1, _LB2, _LB3 = (_f(c) for c in _el._LB)
_SIG_HI = _f(_el._SIG_HI)
_S2, _S3, _S4, _S5 = (_f(c) for c in (_el._S2, _el._S3, _el._S4, _el._S5))
_LOGF_SUBNORMAL = np.float32(_el._LOGF_SUBNORMAL)
_M126 = np.float32(126.0)
_TINY_NORMAL, _ZERO_F = np.float32(2.0 ** -126), np.float32(0.0)
_M150, _P128, _M127 = np.float32(-150.0), np.float32(128.0), np.float32(-127.0)


@lane
def flush(y):
    """Flush-to-zero: +-0 for a subnormal y (exp_log._flush)."""
    b = as_bits(y)
    if (b & 0x7F800000) < 0x00800000:
        return from_bits(b & 0x80000000)
    return y


@lane
def subnormal(v):
    """Whether the float32 v is subnormal (nonzero, below 2**-126)."""
    return (abs(v) < _TINY_NORMAL) & (v != _ZERO_F)


@jit
def zero_subnormals(x, out):
    """out[i] = +-0 (x[i]'s sign) where x[i] is subnormal: the result of
    reading it as zero (DAZ) in sin and erf. Run only when the main loop's
    flag says there is one, so that loop stays vectorized and unflushed."""
    for i in range(x.size):
        if subnormal(x[i]):
            out[i] = x[i] * _ZERO_F


@lane
def pow2(k):
    """2.0**k for integer k in [-126, 127] (exp_log._pow2)."""
    return from_bits((k + 127) << 23)


# --- the packet path, one lane ------------------------------------------------------

@lane
def exp_p(x):
    """exp_log.exp_packets for one element."""
    xc = _EXP_HI if x > _EXP_HI else x
    m = xc * _LOG2EF
    m = m + _HALF
    m = np.floor(m)
    r = m * _C1
    r = r + xc
    t = m * _C2
    r = r + t
    r2 = r * r
    y = r2 * _P6
    y = y + _P4
    y = y * r2
    y = y + _P2
    t = r2 * _P5
    t = t + _P3
    t = t * r
    y = y + t
    y = y * r2
    y = y + (r + _ONE)
    # _scale: fmax/fmin drop a NaN m (y is NaN there anyway).
    if not m >= _M150:
        m = _M150
    if m > _P128:
        m = _P128
    k = np.int32(m)
    k1 = k >> 1
    y = y * pow2(k1)
    y = y * pow2(k - k1)
    if x > y:                  # np.maximum(y, x): a NaN y stays
        y = x
    if x < _EXP_LO:
        return _ZERO
    return flush(y)


@lane
def log_p(x):
    """exp_log.log_packets for one element."""
    bits = as_bits(x)
    mant = from_bits((bits & 0x807FFFFF) | 0x3F000000)
    e = np.float32((bits >> 23) & 0xFF)
    e = e - _M126
    xm = mant - _ONE
    if mant < _SQRTHF:
        e = e - _ONE
        xm = xm + mant
    p = xm * _LA0
    p = p + _LA1
    p = p * xm
    p = p + _LA2
    p = p * xm
    q = xm * _LB0
    q = q + _LB1
    q = q * xm
    q = q + _LB2
    q = q * xm
    q = q + _LB3
    p = p / q
    e = e * _LN2
    e = e + p
    if abs(x) < _TINY:         # zeros and subnormals: denormals-are-zero
        return _NINF
    if not x >= _ZERO:         # negatives and NaN
        return _NAN
    if x == _INF:
        return _INF
    return e


@lane
def expm1_p(x):
    """exp_log.expm1_packets for one element."""
    u = exp_p(x)
    um1 = u - _ONE
    logu = log_p(u)
    out = x / logu
    out = out * um1
    if u == _ONE:
        return x
    if um1 == _MONE:
        return _MONE
    if logu == u:
        return u
    return out


@lane
def log1p_p(x):
    """exp_log.log1p_packets for one element."""
    xp1 = x + _ONE
    log1 = log_p(xp1)
    den = xp1 - _ONE
    q = log1 / den
    out = q * x
    if x != x:
        # Both factors NaN: x86 keeps the first one's bits (q's), as NumPy's
        # SIMD loops do, and LLVM may swap a product's operands, so say it.
        # (NumPy's scalar loops may keep x's: NaN payloads are not part of
        # the bits these kernels promise.)
        out = q
    if xp1 == _ONE or xp1 == log1:
        out = x
    return flush(out)


@lane
def sigmoid_p(x):
    """exp_log.sigmoid_packets for one element."""
    h = _SIG_HI if x > _SIG_HI else x
    h = h * _HALF
    m = h * _LOG2EF
    m = m + _HALF
    m = np.floor(m)
    r = m * _C1
    r = r + h
    t = m * _C2
    r = r + t
    r2 = r * r
    p = r2 * _S4
    p = p + _S2
    t = r2 * _S5
    t = t + _S3
    t = t * r
    p = p + t
    p = p * r2
    p = p + (r + _ONE)
    if not m >= _M127:
        m = _M127
    if m > _P128:
        m = _P128
    p = p * pow2(np.int32(m))
    p = p * p
    p = flush(p)
    den = p + _ONE
    p = flush(p / den)
    if x < _EXP_LO:
        return _ZERO
    return p


# --- the scalar tail, one element ---------------------------------------------------

@lane
def exp_s(x):
    return flush(expf(x))


@lane
def log_s(x):
    """exp_log.log_scalar: glibc's result for subnormals under DAZ."""
    if abs(x) < _TINY and x != _ZERO:
        return _LOGF_SUBNORMAL if x > _ZERO else _NAN
    return logf(x)


@lane
def expm1_s(x):
    return flush(expm1f(x))


@lane
def log1p_s(x):
    return log1pf(x)


@lane
def sigmoid_s(x):
    e = exp_s(_SIG_HI if x > _SIG_HI else x)
    den = e + _ONE
    return flush(e / den)


# --- whole tensors: packets for the first size - size % 8, libm for the rest -------

@jit
def exp_f32(x, out):
    """out = exp_log.exp_kernel(x) for 1-D contiguous float32 arrays."""
    n = x.size
    head = n - n % PACKET
    for i in range(head):
        out[i] = exp_p(x[i])
    for i in range(head, n):
        out[i] = exp_s(x[i])


@jit
def log_f32(x, out):
    """out = exp_log.log_kernel(x)."""
    n = x.size
    head = n - n % PACKET
    for i in range(head):
        out[i] = log_p(x[i])
    for i in range(head, n):
        out[i] = log_s(x[i])


@jit
def expm1_f32(x, out):
    """out = exp_log.expm1_kernel(x)."""
    n = x.size
    head = n - n % PACKET
    for i in range(head):
        out[i] = expm1_p(x[i])
    for i in range(head, n):
        out[i] = expm1_s(x[i])


@jit
def log1p_f32(x, out):
    """out = exp_log.log1p_kernel(x)."""
    n = x.size
    head = n - n % PACKET
    for i in range(head):
        out[i] = log1p_p(x[i])
    for i in range(head, n):
        out[i] = log1p_s(x[i])


@jit
def sigmoid_f32(x, out):
    """out = exp_log.sigmoid_kernel(x)."""
    n = x.size
    head = n - n % PACKET
    for i in range(head):
        out[i] = sigmoid_p(x[i])
    for i in range(head, n):
        out[i] = sigmoid_s(x[i])


_SOFTPLUS_T = np.float32(_el._softplus_threshold(np.dtype(np.float32))[()])


@lane
def softplus_p(v):
    if v > -_SOFTPLUS_T:
        return v
    e = exp_p(v)
    return e if v < _SOFTPLUS_T else log1p_p(e)


@lane
def softplus_s(v):
    if v > -_SOFTPLUS_T:
        return v
    e = exp_s(v)
    return e if v < _SOFTPLUS_T else log1p_s(e)


@jit
def softplus_f32(x, out):
    """out = exp_log.softplus_kernel(x): x above -t, exp(x) below t, else
    log1p(exp(x)), exp and log1p split by flat position as two kernels are."""
    n = x.size
    head = n - n % PACKET
    for i in range(head):      # two loops: a libm call would keep this
        out[i] = softplus_p(x[i])   # one from vectorizing
    for i in range(head, n):
        out[i] = softplus_s(x[i])


KERNELS = {"exp": exp_f32, "log": log_f32, "expm1": expm1_f32, "log1p": log1p_f32,
           "sigmoid": sigmoid_f32, "softplus": softplus_f32}
