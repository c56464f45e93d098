"""Records TensorFlow's CPU xlogy, xlog1py and xdivy (float32, float64)
into tests/data/tf_xlogy.npz, which tests/test_xlogy_bits.py compares with
rillflow's bit for bit: Eigen's packets select x itself where x == 0 (a -0
stays -0), its scalar path on the last size % lanes elements writes +0, and
the log is TensorFlow's own.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_xlogy_fixtures.py
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_xlogy.npz")
rng = np.random.default_rng(20261128)
OPS = {"xlogy": tf.math.xlogy, "xlog1py": tf.math.xlog1py, "xdivy": tf.math.xdivy}
# (x shape, y shape): equal shapes, and broadcasts whose results are not
# whole packets.
SHAPES = [((1003,), (1003,)), ((37, 29), (29,)), ((5, 1, 7), (1, 6, 7)), ((13,), ())]


def operands(shape_x, shape_y, dt):
    x = rng.uniform(-3, 3, shape_x).astype(dt)
    y = (np.abs(rng.standard_normal(shape_y)) * rng.choice([0.01, 1, 50], shape_y)).astype(dt)
    fx, fy = x.reshape(-1), y.reshape(-1)
    fx[rng.integers(0, fx.size, max(2, fx.size // 8))] = 0.0
    fx[rng.integers(0, fx.size, max(2, fx.size // 8))] = -0.0
    if fy.size > 8:
        fy[rng.integers(0, fy.size, 3)] = 0.0
        fy[rng.integers(0, fy.size, 2)] = -1.0
        fy[rng.integers(0, fy.size, 2)] = np.inf
        fx[rng.integers(0, fx.size, 2)] = np.nan
    return x, y


def main():
    data = {}
    for dt in (np.float32, np.float64):
        for i, (sx, sy) in enumerate(SHAPES):
            x, y = operands(sx, sy, dt)
            key = "%s/%d/" % (np.dtype(dt).name, i)
            data[key + "x"], data[key + "y"] = x, y
            for name, fn in OPS.items():
                data[key + name] = fn(tf.constant(x), tf.constant(y)).numpy()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **data)
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(data), "arrays")


if __name__ == "__main__":
    main()
