"""Records TensorFlow's CPU digamma, zeta, polygamma, igamma, igammac and betainc
(float32, float64) into tests/data/tf_digamma.npz, which
tests/test_digamma_bits.py compares with rillflow's bit for bit (Eigen's
scalar Cephes code on every element).

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_digamma_fixtures.py
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_digamma.npz")


def main():
    rng = np.random.default_rng(20261128)
    data = {}
    for dt in (np.float32, np.float64):
        x = np.concatenate([
            rng.uniform(-10, 10, 2500), rng.uniform(0, 1e-3, 300),
            np.exp(rng.uniform(-20, 40, 800)), -np.exp(rng.uniform(-5, 10, 600)),
            np.arange(-5, 5, 0.25), np.arange(-3, 3) + 0.5,
            [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-310, -1e-310, 1e8, 1e17, 2e8,
             3e17, 9.999999, 10.0, 10.000001]]).astype(dt)
        name = np.dtype(dt).name
        data[name + "/x"] = x
        data[name + "/digamma"] = tf.math.digamma(tf.constant(x)).numpy()
        s = np.concatenate([rng.uniform(1, 12, 1500), rng.uniform(0.5, 1.5, 200),
                            [1.0, 2.0, 3.0, 4.0, 2.5, 1.0000001, np.nan, np.inf]]).astype(dt)
        q = np.concatenate([rng.uniform(0, 20, 700), rng.uniform(-5, 5, 500),
                            np.exp(rng.uniform(-10, 8, 500)),
                            [1.0, 0.5, -1.0, 0.0, -2.0, -2.5, 2176.7434, 1963.8745]]).astype(dt)
        data[name + "/zeta_x"], data[name + "/zeta_q"] = s, q
        data[name + "/zeta"] = tf.math.zeta(tf.constant(s), tf.constant(q)).numpy()
        n = np.concatenate([rng.integers(0, 5, q.size - 4), [-1, 1.5, 0, 7]]).astype(dt)
        data[name + "/polygamma_n"] = n
        data[name + "/polygamma"] = tf.math.polygamma(tf.constant(n), tf.constant(q)).numpy()
        a = np.concatenate([rng.uniform(0.01, 10, 700), np.exp(rng.uniform(-5, 6, 300)),
                            [0.0, -1.0, 1.0, 2.0, np.nan, np.inf, 1e-30, 50.0]]).astype(dt)
        v = np.concatenate([rng.uniform(0, 12, 700), np.exp(rng.uniform(-8, 6, 300)),
                            [1.0, 1.0, 0.0, np.inf, 1.0, 1.0, 0.5, 49.0]]).astype(dt)
        data[name + "/ig_a"], data[name + "/ig_x"] = a, v
        data[name + "/igamma"] = tf.math.igamma(tf.constant(a), tf.constant(v)).numpy()
        data[name + "/igammac"] = tf.math.igammac(tf.constant(a), tf.constant(v)).numpy()
        data[name + "/igamma_grad_a"] = tf.raw_ops.IgammaGradA(a=tf.constant(a[:400]),
                                                               x=tf.constant(v[:400])).numpy()
        b = np.concatenate([rng.uniform(0.05, 5, 500), np.exp(rng.uniform(-3, 5, 200)),
                            [1.0, 1.0, 0.0, 3.0, 1.0, 20.0, 0.5]]).astype(dt)
        ba = np.concatenate([rng.uniform(0.05, 5, 500), np.exp(rng.uniform(-3, 5, 200)),
                             [0.0, -1.0, 1.0, 2.0, np.nan, 0.5, 30.0]]).astype(dt)
        bx = np.concatenate([rng.uniform(0, 1, 500), rng.uniform(0, 1, 200) ** 3,
                             [0.5, 0.5, 0.5, 0.0, 0.0, 1.0, 1.5]]).astype(dt)
        data[name + "/bi_a"], data[name + "/bi_b"], data[name + "/bi_x"] = ba, b, bx
        data[name + "/betainc"] = tf.math.betainc(tf.constant(ba), tf.constant(b),
                                                  tf.constant(bx)).numpy()
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **data)
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(data), "arrays")


if __name__ == "__main__":
    main()
