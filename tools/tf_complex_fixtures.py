"""Records TensorFlow's CPU complex multiplication, division, reciprocal,
square, sqrt, rsqrt, exp, sigmoid and log (and the ops built on them: Div, DivNoNan, MulNoNan,
SquaredDifference), and complex sums and means, into
tests/data/tf_complex_arith.npz, for
tests/test_complex_arith.py (ops/kernels/complex_arith.py bit for bit).

Run with TensorFlow's own interpreter, never rillflow's:

    /work/tfref/bin/python tools/tf_complex_fixtures.py

The operands mix ordinary values with zeros, infinities, NaNs, the largest
and smallest normal values, subnormals and machine epsilons; the sizes
leave a scalar tail after Eigen's packets (4 complex64, 2 complex128), and
0-d operands take the scalar path alone.
"""
import os

import numpy as np

N = 1003
SCALARS = 120
# reduce_sum / reduce_mean: (shape, axis) over all axes or a trailing run
# (Eigen's inner-most reducer on complex packets; rows split past 1024 packets)
REDUCTIONS = [((3,), None), ((8,), None), ((17,), None), ((1001,), None), ((5000,), None),
              ((9000,), None), ((4, 33), 1), ((3, 2, 700), (1, 2))]


def operands(rng, dt):
    """Two complex arrays of N values of dtype `dt`."""
    f = np.float32 if dt == "complex64" else np.float64
    fi = np.finfo(f)
    specials = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, fi.max, -fi.max,
                         fi.max / 3, fi.tiny, fi.tiny / 8, -fi.tiny / 3, fi.eps, fi.eps / 3], f)

    def part():
        v = (rng.standard_normal(N) * rng.choice([1e-3, 1, 1e3], N)).astype(f)
        m = rng.random(N) < 0.3
        v[m] = rng.choice(specials, m.sum())
        return v
    return [(part() + 1j * part()).astype(dt) for _ in range(2)]


def main():
    """Writes the fixture file."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    rng = np.random.default_rng(20261128)
    out = {}
    with np.errstate(all="ignore"):
        for dt in ("complex64", "complex128"):
            x, y = operands(rng, dt)
            X, Y = tf.constant(x), tf.constant(y)
            out["x_" + dt], out["y_" + dt] = x, y
            out["mul_" + dt] = (X * Y).numpy()
            out["div_" + dt] = (X / Y).numpy()
            out["rawdiv_" + dt] = tf.raw_ops.Div(x=X, y=Y).numpy()
            out["rec_" + dt] = tf.math.reciprocal(Y).numpy()
            out["square_" + dt] = tf.square(X).numpy()
            out["sqrt_" + dt] = tf.sqrt(X).numpy()
            out["rsqrt_" + dt] = tf.math.rsqrt(X).numpy()
            out["exp_" + dt] = tf.exp(X).numpy()
            out["sigmoid_" + dt] = tf.math.sigmoid(X).numpy()
            out["log_" + dt] = tf.math.log(X).numpy()
            out["slog_" + dt] = np.array([tf.math.log(x[i]).numpy() for i in range(SCALARS)])
            out["sqdiff_" + dt] = tf.math.squared_difference(X, Y).numpy()
            out["divnonan_" + dt] = tf.math.divide_no_nan(X, Y).numpy()
            out["mulnonan_" + dt] = tf.math.multiply_no_nan(X, Y).numpy()
            out["bdiv_" + dt] = (X[:103] / tf.constant(y[5])).numpy()
            out["bmul_" + dt] = (tf.reshape(X[:12], [3, 4]) * tf.reshape(Y[:4], [1, 4])).numpy()
            out["sdiv_" + dt] = np.array([(tf.constant(x[i]) / tf.constant(y[i])).numpy()
                                          for i in range(SCALARS)])
            out["smul_" + dt] = np.array([(tf.constant(x[i]) * tf.constant(y[i])).numpy()
                                          for i in range(SCALARS)])
            out["ssqrt_" + dt] = np.array([tf.sqrt(x[i]).numpy() for i in range(SCALARS)])
            out["srsqrt_" + dt] = np.array([tf.math.rsqrt(x[i]).numpy() for i in range(SCALARS)])
            out["sexp_" + dt] = np.array([tf.exp(x[i]).numpy() for i in range(SCALARS)])
        for i, (shape, axis) in enumerate(REDUCTIONS):
            for dt in ("complex64", "complex128"):
                z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
                out["rz_%d_%s" % (i, dt)] = z
                out["rsum_%d_%s" % (i, dt)] = tf.reduce_sum(z, axis=axis).numpy()
                out["rmean_%d_%s" % (i, dt)] = tf.reduce_mean(z, axis=axis).numpy()
                out["rvar_%d_%s" % (i, dt)] = tf.math.reduce_variance(z, axis=axis).numpy()
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                        "data", "tf_complex_arith.npz")
    np.savez_compressed(path, **out)
    print("wrote", path)


if __name__ == "__main__":
    main()
