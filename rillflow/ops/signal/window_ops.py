"""Window functions for spectral analysis (`tf.signal.hann_window`,
`hamming_window`, `kaiser_window`, `kaiser_bessel_derived_window`,
`vorbis_window`); the Kaiser windows use `tf.math.bessel_i0e`
(ops/core/special_functions.py), re-exported here.

The windows are built from the public ops in the order and dtype in which
TensorFlow builds them (a float32 window is computed in float32), so their
values round as TensorFlow's do and they trace into the same kind of graph.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ..core import op_util as U
from ..core.constant_ops import ones
from ..core.join_ops import concat
from ..core.creation_ops import range as _range
from ..core.math_ops import cast, floormod, multiply, pow as _pow, truediv
from ..core.scan_ops import cumsum
from ..nn.activations import relu
from ..core.unary_ops import cos, exp, sin, sqrt, square
from ..core.special_functions import bessel_i0e
from ..control_flow.cond import cond
from ..core.math_ops import equal

__all__ = ["hann_window", "hamming_window", "kaiser_window", "kaiser_bessel_derived_window",
           "vorbis_window", "bessel_i0e"]


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

