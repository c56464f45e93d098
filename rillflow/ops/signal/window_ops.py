"""Window functions for spectral analysis (`tf.signal.hann_window`,
`hamming_window`, `kaiser_window`, `kaiser_bessel_derived_window`,
`vorbis_window`) and the `BesselI0e` op (`tf.math.bessel_i0e`) the Kaiser
windows need.

The windows are built from the public ops in the order and dtype in which
TensorFlow builds them (a float32 window is computed in float32), so their
values round as TensorFlow's do and they trace into the same kind of graph.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ..core import op_util as U
from ..core.constant_ops import ones
from ..core.join_ops import concat
from ..core.creation_ops import range as _range
from ..core.math_ops import cast, floormod, multiply, pow as _pow, truediv
from ..core.scan_ops import cumsum
from ..nn.activations import relu
from ..core.unary_ops import cos, exp, sin, sqrt, square
from ..control_flow.cond import cond
from ..core.math_ops import equal

__all__ = ["hann_window", "hamming_window", "kaiser_window", "kaiser_bessel_derived_window",
           "vorbis_window", "bessel_i0e"]

# Cephes' Chebyshev coefficients of exp(-x) I0(x) on [0, 8] (A) and of
# exp(-x) sqrt(x) I0(x) on (8, inf) (B). Eigen (TensorFlow's kernel) uses all
# of them for double and only the trailing 18 and 7 for float.
_I0E_A = (-4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16,
          1.715391285555133e-15, -1.1685332877993451e-14, 7.676185498604936e-14,
          -4.856446783111929e-13, 2.95505266312964e-12, -1.726826291441556e-11,
          9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
          -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07,
          1.1173875391201037e-06, -4.4167383584587505e-06, 1.6448448070728896e-05,
          -5.754195010082104e-05, 0.00018850288509584165, -0.0005763755745385824,
          0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
          -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
          0.17162090152220877, -0.3046826723431984, 0.6767952744094761)
_I0E_B = (-7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17,
          3.461222867697461e-17, -2.8276239805165836e-16, -3.425485619677219e-16,
          1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15,
          -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
          7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11,
          -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
          3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07,
          2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
          0.8044904110141088)


def _chebyshev(x, coefs):
    """Clenshaw's recurrence for a Chebyshev series, in x's dtype."""
    t = x.dtype.type
    b0, b1, b2 = np.full_like(x, t(coefs[0])), np.zeros_like(x), np.zeros_like(x)
    for c in coefs[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 + (t(c) - b2)
    return t(0.5) * (b0 - b2)


def _i0e_kernel(x, T=None):
    wide = x.dtype == np.float64
    y = np.abs(x.astype(np.promote_types(x.dtype, np.float32)))
    t = y.dtype.type
    a, b = (_I0E_A, _I0E_B) if wide else (_I0E_A[12:], _I0E_B[18:])
    with np.errstate(divide="ignore", invalid="ignore"):
        small = _chebyshev(t(0.5) * y - t(2), a)
        large = _chebyshev(t(32) / y - t(2), b) * (t(1) / np.sqrt(y))
    return np.where(y <= 8, small, large).astype(x.dtype)


_BesselI0e = register("BesselI0e", _i0e_kernel, U.unary_infer("BesselI0e"), allowed=U.FLOATS)


@export("math.bessel_i0e", "math.special.bessel_i0e")
def bessel_i0e(x, name=None):
    """The exponentially scaled modified Bessel function of order 0,
    exp(-|x|) I0(x), elementwise (finite where I0 itself overflows)."""
    return U.unary(_BesselI0e, x, name=name or "BesselI0e")


def _window_length(window_length, dtype):
    """Checks the arguments every window takes; returns the int32 length."""
    dtype = D.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    n = convert_to_tensor(window_length, dtype=D.int32)
    n.shape.assert_has_rank(0)
    return n, dtype


def _raised_cosine(window_length, periodic, dtype, a, b):
    """a - b cos(2 pi k / N) for k < window_length, where N is the length
    minus one, or the length itself for an even periodic window."""
    n, dtype = _window_length(window_length, dtype)
    known = U.constant_value(n)
    if known is not None and int(known) == 1:
        return ones([1], dtype=dtype)
    periodic = cast(convert_to_tensor(periodic, dtype=D.bool_), D.int32)
    periodic.shape.assert_has_rank(0)
    even = 1 - floormod(n, 2)
    denom = cast(n + periodic * even - 1, dtype)
    count = cast(_range(n), dtype)
    arg = convert_to_tensor(2 * np.pi, dtype=dtype) * count / denom
    if known is not None:
        return cast(a - b * cos(arg), dtype)
    # A length known only at run time may still be 1 (0/0 otherwise).
    return cond(equal(n, 1), lambda: ones([n], dtype=dtype),
                lambda: cast(a - b * cos(arg), dtype))


@export("signal.hann_window")
def hann_window(window_length, periodic=True, dtype=D.float32, name=None):
    """The Hann window 0.5 - 0.5 cos(2 pi n / N); periodic (the default, for
    spectral analysis) when N is the length for even lengths, else symmetric."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


@export("signal.hamming_window")
def hamming_window(window_length, periodic=True, dtype=D.float32, name=None):
    """The Hamming window 0.54 - 0.46 cos(2 pi n / N) (N as in `hann_window`)."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


@export("signal.kaiser_window")
def kaiser_window(window_length, beta=12., dtype=D.float32, name=None):
    """The Kaiser window I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta),
    computed with the exponentially scaled I0 so large betas do not overflow."""
    n, dtype = _window_length(window_length, dtype)
    known = U.constant_value(n)
    if known is not None and int(known) == 1:
        return ones([1], dtype=dtype)
    # The positions are made in float32 (TensorFlow's range has no float16).
    half = (cast(n, D.float32) - 1.0) / 2.0
    arg = cast(_range(-half, half + 0.1, dtype=D.float32), dtype)
    beta = cast(beta, dtype)
    one = cast(1.0, dtype)
    half = cast(half, dtype)
    num = beta * sqrt(relu(one - square(arg / half)))
    return exp(num - beta) * bessel_i0e(num) / bessel_i0e(beta)


@export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length, beta=12., dtype=D.float32, name=None):
    """The Kaiser-Bessel-derived window (used by MDCTs): square roots of the
    normalised running sums of a Kaiser window of half the length, mirrored."""
    n, dtype = _window_length(window_length, dtype)
    kaiser = kaiser_window(n // 2 + 1, beta, dtype=dtype)
    csum = cumsum(kaiser)
    half = sqrt(csum[:-1] / csum[-1])
    return concat((half, half[::-1]), axis=0)


@export("signal.vorbis_window")
def vorbis_window(window_length, dtype=D.float32, name=None):
    """The Vorbis power-complementary window sin(pi/2 sin^2(pi (n + 0.5) / N))."""
    n, dtype = _window_length(window_length, dtype)
    arg = cast(_range(n), dtype)
    # pi / N is computed in double, as NumPy's pi divides the int32 length.
    step = convert_to_tensor(truediv(convert_to_tensor(np.pi, D.float64), cast(n, D.float64)))
    step = cast(step, dtype)
    inner = _pow(sin(multiply(step, arg + 0.5)), 2.0)
    return sin(multiply(convert_to_tensor(np.pi / 2.0, dtype), inner))

