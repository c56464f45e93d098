"""exp_log_f64.py's float64 packets compiled by Numba: each element runs the
same operations in the same order as the NumPy code (one float64 rounding
each, no fast-math, so no contracted multiply-adds), one loop over the
elements. The loops take the elements that fill whole packets; the caller
(jit_kernels.accelerated) computes the last size % 4 with exp_log_f64's C
library tails. Imported only by jit_kernels.py's loader thread.
"""
import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from . import exp_log_f64 as _f

jit = numba.njit(cache=True, nogil=True, error_model="numpy")
lane = numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")

_TINY = 2.0 ** -1022
_EXP_HI, _EXP_LO, _LOG2EF, _C1, _C2 = _f._EXP_HI, _f._EXP_LO, _f._LOG2EF, _f._C1, _f._C2
_EP0, _EP1, _EP2 = _f._EP
_EQ0, _EQ1, _EQ2, _EQ3 = _f._EQ
_LP0, _LP1, _LP2, _LP3, _LP4, _LP5 = _f._LOG_P
_LQ0, _LQ1, _LQ2, _LQ3, _LQ4, _LQ5 = _f._LOG_Q
_LN2, _SQRTHF, _SP_T = _f._LN2, _f._SQRTHF, _f._SOFTPLUS_T


@lane
def _daz(x):
    """x read as +-0 when subnormal (denormals-are-zero)."""
    return x * 0.0 if abs(x) < _TINY else x


@lane
def _ftz(y):
    """y written as +-0 when subnormal (flush-to-zero); NaN stays."""
    return y * 0.0 if abs(y) < _TINY else y


@intrinsic
def _from_bits(typingctx, k):
    """The float64 whose bits are the int64 k."""
    if k != types.int64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(k), codegen


@lane
def _pow2(k):
    """2.0**k for an integer k in [-1022, 1023], from its bits."""
    return _from_bits((k + 1023) << 52)


@lane
def exp_p(x):
    """exp_log_f64.exp_packets of one element (x already read with DAZ)."""
    xc = _EXP_HI if x > _EXP_HI else x          # np.minimum: NaN stays NaN
    fx = _LOG2EF * xc
    fx = fx + 0.5
    fx = math.floor(fx)
    g = xc - fx * _C1
    g = g - fx * _C2
    g2 = g * g
    px = _EP0 * g2
    px = px + _EP1
    px = px * g2
    px = px + _EP2
    px = px * g
    qx = _EQ0 * g2
    qx = qx + _EQ1
    qx = qx * g2
    qx = qx + _EQ2
    qx = qx * g2
    qx = qx + _EQ3
    qx = qx - px
    px = px / qx
    px = px * 2.0
    px = px + 1.0
    # _ldexp: four factors 2**b, 2**b, 2**b, 2**(k - 3b), k clamped to +-2099
    # (a NaN fx only where px is NaN already).
    # (Selects rather than branches, so that the loop vectorizes.)
    kf = fx if fx == fx else 0.0
    kf = -2099.0 if kf < -2099.0 else kf
    kf = 2099.0 if kf > 2099.0 else kf
    k = np.int64(kf)
    b = k >> 2
    c = _pow2(b)
    y = px * c
    y = y * c
    y = y * c
    y = y * _pow2(k - 3 * b)
    nan = (x != x) | (y != y)
    y = x if x > y else y                       # np.maximum(y, x): NaN wins
    y = x + px if nan else y
    y = _ftz(y)
    return 0.0 if x < _EXP_LO else y


@intrinsic
def _bits(typingctx, v):
    """The bits of the float64 v as an int64."""
    if v != types.float64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(v), codegen


@lane
def log_p(v):
    """exp_log_f64.plog_double of one element (v already read with DAZ).
    frexp from the bits (v is normal here, or a special value the selects
    at the end replace), so that the loop vectorizes."""
    b = _bits(v)
    m = _from_bits((b & -0x7FF0000000000001) | 0x3FE0000000000000)
    e = np.float64(((b >> 52) & 0x7FF) - 1022)
    low = m < _SQRTHF
    x = (m - 1.0) + (m if low else 0.0)
    e = e - 1.0 if low else e
    x2 = x * x
    x3 = x2 * x
    num = ((_LP0 * x + _LP1) * x + _LP2) * x3 + ((_LP3 * x + _LP4) * x + _LP5)
    den = ((_LQ0 * x + _LQ1) * x + _LQ2) * x3 + ((_LQ3 * x + _LQ4) * x + _LQ5)
    y = (num * x3) / den
    y = -0.5 * x2 + y
    r = e * _LN2 + (x + y)
    r = math.inf if v == math.inf else r
    r = r if v >= 0.0 else math.nan
    return -math.inf if v == 0.0 else r


@lane
def log1p_p(x0):
    """exp_log_f64._log1p_packets of one element."""
    x = _daz(x0)
    xp1 = x + 1.0
    log1 = log_p(xp1)
    if xp1 == 1.0 or xp1 == log1:
        return x
    return (log1 / (xp1 - 1.0)) * x


@jit
def exp_f64(x, out):
    """out = exp_log_f64's exp packets of 1-D float64 x (whole packets)."""
    for i in range(x.size):
        out[i] = exp_p(_daz(x[i]))


@jit
def log_f64(x, out):
    """out = exp_log_f64's log packets."""
    for i in range(x.size):
        out[i] = log_p(_daz(x[i]))


@jit
def expm1_f64(x, out):
    """out = exp_log_f64._expm1_packets."""
    for i in range(x.size):
        x0 = x[i]
        v = _daz(x0)
        u = exp_p(v)
        um1 = u - 1.0
        logu = log_p(u)
        r = (v / logu) * um1
        if logu == u:
            r = u
        if um1 == -1.0:
            r = -1.0
        if u == 1.0:
            r = x0
        out[i] = r


@jit
def log1p_f64(x, out):
    """out = exp_log_f64._log1p_packets."""
    for i in range(x.size):
        out[i] = log1p_p(x[i])


@jit
def sigmoid_f64(x, out):
    """out = exp_log_f64's sigmoid packets: e / (1 + e), 1 where e is +inf."""
    for i in range(x.size):
        e = exp_p(_daz(x[i]))
        r = e / (1.0 + e)
        out[i] = 1.0 if e == math.inf else _ftz(r)


@jit
def softplus_f64(x, out):
    """out = exp_log_f64's softplus packets."""
    for i in range(x.size):
        v = x[i]
        e = exp_p(_daz(v))
        r = log1p_p(e)
        if v < _SP_T:
            r = e
        if v > -_SP_T:
            r = v
        out[i] = r


KERNELS = {"exp": exp_f64, "log": log_f64, "expm1": expm1_f64, "log1p": log1p_f64,
           "sigmoid": sigmoid_f64, "softplus": softplus_f64}
