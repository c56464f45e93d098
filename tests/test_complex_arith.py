"""Complex multiplication, division, reciprocal, square, sqrt, rsqrt, sigmoid
and (complex64) exp give TensorFlow's bits (ops/kernels/complex_arith.py: Eigen's packets, std::complex's scalar
tail), eagerly and inside tf.function, with zeros, infinities, NaNs and
extreme magnitudes among the operands; recorded from TensorFlow 2.21 by
tools/tf_complex_fixtures.py."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.kernels import complex_arith

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools"))
from tf_complex_fixtures import REDUCTIONS  # noqa: E402

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_complex_arith.npz"))
DTYPES = ["complex64", "complex128"]


def _assert_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    u = np.uint32 if np.real(want).dtype == np.float32 else np.uint64
    for part in ("real", "imag"):
        g = np.ascontiguousarray(getattr(got, part))
        w = np.ascontiguousarray(getattr(want, part))
        same = (g.view(u) == w.view(u)) | (np.isnan(g) & np.isnan(w))
        assert same.all(), "%s (%s): %d of %d differ, first at %s" % (
            what, part, (~same).sum(), same.size, np.flatnonzero(~same.reshape(-1))[:5])


OPS = {
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "rawdiv": lambda x, y: tf.raw_ops.Div(x=x, y=y),
    "rec": lambda x, y: tf.math.reciprocal(y),
    "square": lambda x, y: tf.square(x),
    "sqrt": lambda x, y: tf.sqrt(x),
    "rsqrt": lambda x, y: tf.math.rsqrt(x),
    "exp": lambda x, y: tf.exp(x),
    "sigmoid": lambda x, y: tf.math.sigmoid(x),
    "sqdiff": tf.math.squared_difference,
    "divnonan": tf.math.divide_no_nan,
    "mulnonan": tf.math.multiply_no_nan,
}


# (complex128 exp is NumPy's: TensorFlow's packets are Eigen's pexp_complex on its
# double sin and cos, not reproduced; complex128 sigmoid calls the C library's cexp)
@pytest.mark.parametrize("dt,name", [(dt, name) for dt in DTYPES for name in sorted(OPS)
                                     if (dt, name) != ("complex128", "exp")])
def test_elementwise_eager_and_traced(dt, name):
    x, y = tf.constant(DATA["x_" + dt]), tf.constant(DATA["y_" + dt])
    want = DATA["%s_%s" % (name, dt)]
    with np.errstate(all="ignore"):
        _assert_bits(OPS[name](x, y).numpy(), want, name)
        _assert_bits(tf.function(OPS[name])(x, y).numpy(), want, name + " in tf.function")


@pytest.mark.parametrize("dt", DTYPES)
def test_scalars_and_broadcasts(dt):
    x, y = DATA["x_" + dt], DATA["y_" + dt]
    n = len(DATA["sdiv_" + dt])
    with np.errstate(all="ignore"):
        _assert_bits([(tf.constant(x[i]) / tf.constant(y[i])).numpy() for i in range(n)],
                     DATA["sdiv_" + dt], "0-d quotients (the scalar path)")
        _assert_bits([(tf.constant(x[i]) * tf.constant(y[i])).numpy() for i in range(n)],
                     DATA["smul_" + dt], "0-d products")
        _assert_bits([tf.sqrt(x[i]).numpy() for i in range(n)], DATA["ssqrt_" + dt], "0-d sqrt")
        _assert_bits([tf.math.rsqrt(x[i]).numpy() for i in range(n)], DATA["srsqrt_" + dt],
                     "0-d rsqrt")
        if dt == "complex64":     # (complex128 exp: the C library's, NumPy's here)
            _assert_bits([tf.exp(x[i]).numpy() for i in range(n)], DATA["sexp_" + dt], "0-d exp")
        _assert_bits((tf.constant(x[:103]) / tf.constant(y[5])).numpy(), DATA["bdiv_" + dt],
                     "an array over a scalar")
        _assert_bits((tf.reshape(x[:12], [3, 4]) * tf.reshape(y[:4], [1, 4])).numpy(),
                     DATA["bmul_" + dt], "broadcast rows")


def test_packets_and_the_scalar_tail_differ_as_in_tensorflow():
    # The same quotient in a packet (Eigen's scaled formula) and in the tail
    # (Smith's algorithm) can differ in the last bit; by position, as TF.
    x = DATA["x_complex64"][:8]
    y = DATA["y_complex64"][:8]
    with np.errstate(all="ignore"):
        whole = complex_arith.divide(x, y)
        tails = np.array([complex_arith.divide(x[i], y[i]) for i in range(8)])
        _assert_bits(whole, DATA["div_complex64"][:8], "packets")
        _assert_bits(tails, DATA["sdiv_complex64"][:8], "scalar path")
    # 1 / 0 is NaN in a packet (0 / 0 scaling), infinite on the scalar path.
    z = np.zeros(5, np.complex64)
    q = complex_arith.divide(np.ones(5, np.complex64), z)
    assert np.isnan(q[:4].real).all() and np.isinf(q[4].real)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("i", range(len(REDUCTIONS)))
def test_sums_and_means_in_tensorflows_order(dt, i):
    # Complex packets add the real and imaginary parts as separate lanes (4
    # per complex64 packet, 2 per complex128 one); a mean divides each part;
    # a variance is the mean of conj(d) * d with TensorFlow's products.
    _, axis = REDUCTIONS[i]
    z = tf.constant(DATA["rz_%d_%s" % (i, dt)])
    for name, op in (("rsum", tf.reduce_sum), ("rmean", tf.reduce_mean),
                     ("rvar", tf.math.reduce_variance)):
        want = DATA["%s_%d_%s" % (name, i, dt)]
        _assert_bits(op(z, axis=axis).numpy(), want, name)
        _assert_bits(tf.function(lambda t: op(t, axis=axis))(z).numpy(), want,
                     name + " in tf.function")


def test_complex128_log_packets_and_scalar_path():
    """complex128 log: Eigen's plog_complex on packets of 2, its complex_log
    (the C library's hypot, log, atan2) on the tail and 0-d tensors. Parts
    that are subnormal are left out (TensorFlow's flush-to-zero rules for
    them are not reproduced)."""
    x = DATA["x_complex128"]
    tiny = np.finfo(np.float64).tiny
    normal = ~(((np.abs(x.real) < tiny) & (x.real != 0)) | ((np.abs(x.imag) < tiny) & (x.imag != 0)))
    with np.errstate(all="ignore"):
        _assert_bits(tf.math.log(tf.constant(x)).numpy()[normal], DATA["log_complex128"][normal],
                     "log")
        _assert_bits(tf.function(tf.math.log)(tf.constant(x)).numpy()[normal],
                     DATA["log_complex128"][normal], "log in tf.function")
        n = len(DATA["slog_complex128"])
        got = np.array([tf.math.log(x[i]).numpy() for i in range(n)])
        _assert_bits(got[normal[:n]], DATA["slog_complex128"][normal[:n]], "0-d log")
