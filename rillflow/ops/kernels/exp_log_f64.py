"""TensorFlow's CPU float64 exp, log, expm1, log1p, sigmoid and softplus, bit
for bit (exp_log.py does float32 and the half types).

Eigen evaluates a float64 tensor in packets of 4 lanes (AVX) with its own
approximations, Cephes' rational functions: `pexp_double` (x = n ln2 + g,
exp(g) = 1 + 2 g P(g^2) / (Q(g^2) - g P(g^2)), then ldexp by four factors)
and `plog_double` (the mantissa in [sqrt(1/2), sqrt(2)) minus 1, then
x - x^2/2 + x^3 P(x) / Q(x) plus e ln2), and builds expm1 and log1p on them
with Kahan's formulas, the logistic function as e / (1 + e), and softplus
from exp and log1p around two thresholds. The elements after the last
full packet (the last `size % 4`) take the scalar path, which calls the
C library (exp, log, expm1, log1p: Python's math module calls the same
functions). NumPy's float64 exp and log are its own SIMD routines and
differed from TensorFlow's in the last bit for 10-40% of values.

TensorFlow's threads run with flush-to-zero and denormals-are-zero, so
subnormal operands of arithmetic read as zero and subnormal results are
written as zero: exp(-720) is 0, log of a subnormal is -inf; where a
kernel returns its input itself (expm1 and log1p of tiny values in the
packets, log1p in the C library) a subnormal stays. Each rule below was
checked against TensorFlow 2.21 on 128,000 values (the packets) and 3,000
three-element tensors (the C library), tools/tf_numerics_fixtures_f64.py.

Only + - * /, floor, comparisons and bit manipulation run on NumPy arrays,
which round exactly as IEEE requires on every CPU; no multiply-add is
contracted (the wheel has none: every pmadd rounds twice). Under the jit
extra, jit_exp_log_f64.py runs the same packets compiled (jit_kernels
hands them to `run_compiled`): 1-4x NumPy's own float64 routines' time on
large tensors, where this NumPy code takes 15-25x.
"""
import math

import numpy as np

__all__ = ["PACKET_F64", "exp", "log", "expm1", "log1p", "sigmoid", "softplus",
           "plog_double", "split", "run_compiled", "TAILS"]

PACKET_F64 = 4                  # float64 lanes per AVX packet
_F64 = np.dtype(np.float64)
_EXP_MASK = np.int64(0x7FF0000000000000)
_SIGN = np.int64(-0x8000000000000000)
_TINY = 2.0 ** -1022            # the smallest normal float64

# pexp_double (Cephes): the clamp, log2(e), ln2 in two parts, P and Q.
_EXP_HI, _EXP_LO = 709.784, -745.519
_LOG2EF = 1.4426950408889634073599
_C1, _C2 = 0.693145751953125, 1.42860682030941723212e-6
_EP = (1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1)
_EQ = (3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1,
       2.00000000000000000009e0)

# plog_double (Cephes): log(1 + x) = x - x**2 / 2 + x**3 P(x) / Q(x).
_LOG_P = (1.01875663804580931796E-4, 4.97494994976747001425E-1, 4.70579119878881725854E0,
          1.44989225341610930846E1, 1.79368678507819816313E1, 7.70838733755885391666E0)
_LOG_Q = (1.0, 1.12873587189167450590E1, 4.52279145837532221105E1, 8.29875266912776603211E1,
          7.11544750618563894466E1, 2.31251620126765340583E1)
_LN2 = 0.693147180559945309417232121458
_SQRTHF = 0.70710678118654752440

# TensorFlow's softplus thresholds: log(epsilon) + 2 (std::log of 2**-52).
_SOFTPLUS_T = math.log(2.0 ** -52) + 2.0


def ftz(y):
    """y's subnormal elements as +-0, in place (y is returned; a NumPy
    scalar or 0-d array comes back flushed as a new one)."""
    if not isinstance(y, np.ndarray) or y.ndim == 0:
        v = float(y)
        if v != 0.0 and abs(v) < _TINY:
            return np.asarray(math.copysign(0.0, v))[()] if not isinstance(y, np.ndarray) \
                else np.array(math.copysign(0.0, v))
        return y
    bits = y.view(np.int64)
    sub = (bits & _EXP_MASK) == 0
    if sub.any():
        bits[sub] &= _SIGN
    return y


def _daz(x):
    """A copy of x with its subnormals read as +-0 (denormals-are-zero)."""
    return ftz(np.array(x, np.float64))


def _ldexp(a, e):
    """Eigen's pldexp of float64 packets: a * 2**e for an integral float64 e,
    by four factors 2**b, 2**b, 2**b and 2**(e - 3b), b = floor(e / 4), so
    that no factor overflows; e clamped to [-2099, 2099]."""
    k = np.clip(e, -2099.0, 2099.0).astype(np.int64)
    b = k >> 2
    c = ((b + 1023) << 52).view(np.float64)
    out = a * c
    out *= c
    out *= c
    k -= 3 * b
    out *= ((k + 1023) << 52).view(np.float64)
    return out


def exp_packets(x):
    """pexp_double of 1-D float64 x (subnormals already read as zero)."""
    xc = np.minimum(x, _EXP_HI)
    fx = _LOG2EF * xc
    fx += 0.5
    np.floor(fx, out=fx)
    g = xc - fx * _C1
    g -= fx * _C2
    g2 = g * g
    px = _EP[0] * g2
    px += _EP[1]
    px *= g2
    px += _EP[2]
    px *= g
    qx = _EQ[0] * g2
    qx += _EQ[1]
    qx *= g2
    qx += _EQ[2]
    qx *= g2
    qx += _EQ[3]
    qx -= px
    px /= qx
    px *= 2.0
    px += 1.0
    y = _ldexp(px, fx)
    np.maximum(y, x, out=y)             # +inf stays +inf, NaN stays NaN
    y[x < _EXP_LO] = 0.0
    return ftz(y)


def plog_double(v):
    """plog_double of float64 v (any shape; subnormals already read as
    zero): the packets of Eigen's float64 log."""
    m, e = np.frexp(v)
    e = e.astype(np.float64)
    low = m < _SQRTHF
    x = (m - 1.0) + np.where(low, m, 0.0)
    e -= low
    x2 = x * x
    x3 = x2 * x
    p, q = _LOG_P, _LOG_Q
    num = ((p[0] * x + p[1]) * x + p[2]) * x3 + ((p[3] * x + p[4]) * x + p[5])
    den = ((q[0] * x + q[1]) * x + q[2]) * x3 + ((q[3] * x + q[4]) * x + q[5])
    y = (num * x3) / den
    y = -0.5 * x2 + y
    out = e * _LN2 + (x + y)
    out[v == np.inf] = np.inf
    out[~(v >= 0)] = np.nan
    out[v == 0] = -np.inf
    return out


def _expm1_packets(x0):
    x = _daz(x0)
    u = exp_packets(x)
    um1 = u - 1.0
    logu = plog_double(u)
    out = x / logu
    out *= um1
    np.putmask(out, logu == u, u)                 # exp(x) = +inf
    np.putmask(out, um1 == -1.0, -1.0)
    np.putmask(out, u == 1.0, x0)                 # tiny x: x itself, subnormal or not
    return out


def _log1p_packets(x0):
    x = _daz(x0)
    xp1 = x + 1.0
    log1 = plog_double(xp1)
    keep = (xp1 == 1.0) | (xp1 == log1)
    out = log1 / (xp1 - 1.0)
    out *= x
    np.putmask(out, keep, x)
    return out


def _daz1(v):
    return v * 0.0 if abs(v) < _TINY else v


def _exp1(v):
    try:
        return _daz1(math.exp(_daz1(v)))          # flushed as TensorFlow's exp writes it
    except OverflowError:
        return math.inf


def _log1(v):
    v = _daz1(v)
    if v > 0.0:
        return math.log(v)      # +inf and NaN come back as they are
    return -math.inf if v == 0.0 else math.nan if v == v else v


def _expm1_1(v):
    try:
        return math.expm1(_daz1(v))
    except OverflowError:
        return math.inf


def _log1p_1(v):
    if v > -1.0:
        return math.log1p(v)    # a subnormal v comes back as it is
    return -math.inf if v == -1.0 else math.nan if v == v else v


def _sigmoid1(v):
    e = _exp1(v)
    return 1.0 if e == math.inf else _daz1(e / (1.0 + e))


def _softplus1(v):
    if v > -_SOFTPLUS_T:
        return v
    e = _exp1(v)
    return e if v < _SOFTPLUS_T else _log1p_1(e)


# The scalar path, element by element (at most three elements of a tensor,
# or a 0-d one): the C library through Python's math module.
TAILS = {"exp": _exp1, "log": _log1, "expm1": _expm1_1, "log1p": _log1p_1,
         "sigmoid": _sigmoid1, "softplus": _softplus1,
         "tanh": lambda v: math.tanh(_daz1(v))}     # tanh_kernel's packets, jit_tanh's loop


_CHUNK = 1 << 13    # a multiple of PACKET_F64: a kernel's passes stay in cache


def split(x, packets, name, loop=None, tail=None):
    """`packets` (or the compiled `loop(x, out)`) on the elements of float64
    x that fill whole packets in row-major order, the C library's `name` on
    the rest (or `tail`, a function of the 1-D array of the rest); a new
    array of x's shape (a NumPy scalar for one)."""
    a = np.asarray(x, np.float64)
    flat = np.ascontiguousarray(a).reshape(-1)
    n = flat.size
    head = n - n % PACKET_F64
    out = np.empty(n, np.float64)
    if head:
        if loop is not None:
            loop(flat[:head], out[:head])
        else:
            with np.errstate(all="ignore"):
                for lo in range(0, head, _CHUNK):
                    hi = min(head, lo + _CHUNK)
                    out[lo:hi] = packets(flat[lo:hi])
    if head < n and tail is not None:
        out[head:] = tail(flat[head:])
    elif head < n:
        one = TAILS[name]
        out[head:] = [one(v) for v in flat[head:].tolist()]
    out = out.reshape(a.shape)
    return out if isinstance(x, np.ndarray) else out[()]


def run_compiled(name, loop, x):
    """`name` of float64 x with jit_exp_log_f64's compiled packet `loop`."""
    return split(x, None, name, loop)


def exp(x):
    """TensorFlow's float64 exp of a NumPy array (or scalar)."""
    return split(x, lambda v: exp_packets(_daz(v)), "exp")


def log(x):
    """TensorFlow's float64 log of a NumPy array (or scalar)."""
    return split(x, lambda v: plog_double(_daz(v)), "log")


def expm1(x):
    """TensorFlow's float64 expm1 of a NumPy array (or scalar)."""
    return split(x, _expm1_packets, "expm1")


def log1p(x):
    """TensorFlow's float64 log1p of a NumPy array (or scalar)."""
    return split(x, _log1p_packets, "log1p")


def _logistic(e):
    out = e / (1.0 + e)
    np.putmask(out, e == np.inf, 1.0)
    return ftz(out)


def sigmoid(x):
    """TensorFlow's float64 logistic function: e / (1 + e) of its exp
    (1 where e is +inf)."""
    return split(x, lambda v: _logistic(exp_packets(_daz(v))), "sigmoid")


def _softplus_packets(v):
    e = exp_packets(_daz(v))
    out = _log1p_packets(e)
    np.copyto(out, e, where=v < _SOFTPLUS_T)
    np.copyto(out, v, where=v > -_SOFTPLUS_T)
    return out


def softplus(x):
    """TensorFlow's float64 softplus: x above -t, exp(x) below t, else
    log1p(exp(x)) (t = log(epsilon) + 2), the packets' or the C library's."""
    return split(x, _softplus_packets, "softplus")
