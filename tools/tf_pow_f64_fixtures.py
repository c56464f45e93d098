"""Records TensorFlow's CPU float64 pow into tests/data/tf_pow_f64.npz
(tests/test_pow_f64.py compares rillflow with it bit for bit).

Run with TensorFlow's own interpreter, never rillflow's:

    /work/tfref/bin/python tools/tf_pow_f64_fixtures.py

Inputs are deterministic (seeded): special values crossed with each other,
random bit patterns, ordinary bases with ordinary, integer and huge
exponents, negative bases, results near the underflow and overflow
thresholds and subnormal operands (read as zero by TensorFlow's threads).
`x`, `y`, `out`: one tensor of N elements (a multiple of 4: every element
takes Eigen's packet code); `odd_*`: a tensor of 1003 elements, whose last
3 take the C library's pow; `scalar_*`: 0-d tensors (all the C library's).
"""
import os
import sys

import numpy as np

N = 8192
ODD = 1003
SCALARS = 200


def inputs(rng):
    f64 = np.float64
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
                        3.0, -3.0, 5e-324, 1e300, -1e300, 1e-300, 1023.0, -1023.0, 0.25, 1e20,
                        2.2e-308, -1e-310, 7.0, -4.0], f64)
    sx, sy = np.meshgrid(special, special)
    xs, ys = [sx.ravel()], [sy.ravel()]
    n = 1000
    xs.append(rng.integers(0, 2 ** 63, n, dtype=np.int64).view(f64) * rng.choice([-1, 1], n))
    ys.append(rng.integers(0, 2 ** 63, n, dtype=np.int64).view(f64) * rng.choice([-1, 1], n))
    base = np.abs(rng.standard_normal(n) * 3)
    xs += [base, -base, -base[:400], 1 + rng.uniform(-1e-6, 1e-6, n), base]
    ys += [rng.standard_normal(n) * 8, rng.integers(-60, 61, n).astype(f64),
           rng.standard_normal(400) * 3, rng.standard_normal(n) * 1e8,
           rng.choice([2.0, 3.0, 0.5, -1.0, -0.5, 4.0, 1.5, 10.0], n)]
    xs.append(np.exp(rng.uniform(-700, 700, n)))
    ys.append(rng.uniform(-2, 2, n))
    near = rng.uniform(0.01, 100, 500)
    lo = rng.uniform(-1080, -1015, 500) / np.log2(near)      # near the underflow threshold
    hi = rng.uniform(1015, 1030, 300) / np.log2(near[:300] + 1.5)
    xs += [near, -near[:200], near[:300] + 1.5]
    ys += [lo, np.round(lo[:200]), hi]
    sub = rng.integers(1, 2 ** 52, 200, dtype=np.int64).view(f64) * rng.choice([-1, 1], 200)
    xs += [sub, rng.standard_normal(100) * 4]
    ys += [rng.standard_normal(200) * 3, sub[:100]]
    x = np.concatenate(xs)[:N]
    y = np.concatenate(ys)[:N]
    fill = N - len(x)
    x = np.concatenate([x, rng.standard_normal(fill)])
    y = np.concatenate([y, rng.standard_normal(fill)])
    perm = rng.permutation(N)
    return x[perm], y[perm]


def main():
    """Writes the fixture file."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    rng = np.random.default_rng(20261128)
    x, y = inputs(rng)
    out = tf.pow(tf.constant(x), tf.constant(y)).numpy()
    ox, oy = x[:ODD], y[:ODD]
    odd = tf.pow(tf.constant(ox), tf.constant(oy)).numpy()
    sx, sy = x[-SCALARS:], y[-SCALARS:]
    # 0-d tensors made from 1-element arrays: TensorFlow's eager cache of
    # scalar constants would hand back an earlier -0.0 for 0.0.
    scalar = np.array([tf.pow(tf.reshape(tf.constant([a]), []), tf.reshape(tf.constant([b]), []))
                       .numpy() for a, b in zip(sx, sy)])
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "tests", "data", "tf_pow_f64.npz")
    np.savez_compressed(path, x=x, y=y, out=out, odd_x=ox, odd_y=oy, odd_out=odd,
                        scalar_x=sx, scalar_y=sy, scalar_out=scalar,
                        tf_version=np.array(tf.__version__))
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
