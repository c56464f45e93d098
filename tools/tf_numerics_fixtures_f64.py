"""Records TensorFlow's CPU float64 results for exp, log, expm1, log1p,
sigmoid, softplus, log_sigmoid, tanh, erf, erfc, atanh, atan2 and the softmax family into
tests/data/tf_numerics_f64.npz,
which tests/test_numerics_f64.py compares with rillflow's bit for bit.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_numerics_fixtures_f64.py

Eigen evaluates a float64 tensor in packets of 4 elements and the last
`size % 4` with the C library, so each op is recorded on an array whose
size is a multiple of 4 ("packet") and on three-element tensors
("scalar", all three from the C library).
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_numerics_f64.npz")
rng = np.random.default_rng(20261128)
F64 = np.float64


def near(values, ulps=2):
    """Each float64 value and its neighbours up to `ulps` ulps away."""
    v = np.asarray(values, F64)
    bits = v.view(np.int64)[:, None] + np.arange(-ulps, ulps + 1, dtype=np.int64)
    return bits.reshape(-1).view(F64)


def inputs():
    """Specials, subnormals, the exp/log range edges, random bit patterns
    and normal values at several scales."""
    specials = F64([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, 2.0, 5e-324, -5e-324,
                    1e-310, -1e-310, 2.2250738585072014e-308, 1.7976931348623157e308,
                    -1.7976931348623157e308, 1e-300, -1e-300])
    k = np.arange(-1074, 1024, 19, dtype=F64)
    edges = near(np.concatenate([[709.784, -745.519, 709.78, -708.4, -745.1, 36.04365338911715,
                                  -34.04365338911715, 34.04365338911715],
                                 2.0 ** k, (np.arange(-1075, 1025, 23) + 0.5) * np.log(2.0)]))
    randbits = rng.integers(0, 2 ** 63, 600, dtype=np.int64).view(F64)
    randbits[::2] *= -1
    scaled = np.concatenate([rng.standard_normal(400) * s for s in (1e-9, 0.1, 1, 5, 40, 300)])
    return np.concatenate([specials, edges, randbits, scaled, rng.uniform(0.5, 2, 400),
                           rng.uniform(-1, 1, 400), np.exp(rng.uniform(-740, 705, 400)),
                           # atanh's switch at |x| = 1/2 and its poles; erf's at |x| = 1
                           near([0.5, -0.5, 1.0, -1.0, 0.99999999, -0.9999999, 0.7], 3),
                           rng.uniform(-1, 1, 400) ** 3, rng.uniform(0.45, 1.0, 200)])


OPS = {"exp": tf.math.exp, "log": tf.math.log, "expm1": tf.math.expm1,
       "log1p": tf.math.log1p, "sigmoid": tf.math.sigmoid, "softplus": tf.math.softplus,
       "log_sigmoid": tf.math.log_sigmoid, "tanh": tf.math.tanh, "erf": tf.math.erf,
       "erfc": tf.math.erfc, "atanh": tf.math.atanh}


def record_softmax(data):
    """Rows of several lengths (all of them small enough that TensorFlow
    evaluates the exps untiled): softmax, log_softmax, the cross entropies,
    reduce_logsumexp over the last and the first axis."""
    for cols in (1, 3, 4, 7, 16, 17, 33, 100, 1000):
        rows = max(2, min(30, 2500 // cols))
        x = rng.standard_normal((rows, cols)) * rng.choice([0.5, 3, 30], (rows, 1))
        if cols > 3:
            x[0, 1] = np.inf if cols % 2 else -np.inf
            x[1, 2] = -np.inf
        labels = rng.integers(0, cols, rows)
        soft = rng.random((rows, cols))
        soft /= soft.sum(1, keepdims=True)
        key = "smax/%d/" % cols
        data[key + "x"], data[key + "labels"], data[key + "soft"] = x, labels, soft
        data[key + "softmax"] = tf.nn.softmax(x).numpy()
        data[key + "log_softmax"] = tf.nn.log_softmax(x).numpy()
        data[key + "xent"] = tf.nn.softmax_cross_entropy_with_logits(soft, x).numpy()
        data[key + "sparse"] = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x).numpy()
        data[key + "lse1"] = tf.math.reduce_logsumexp(x, axis=1).numpy()
        data[key + "lse0"] = tf.math.reduce_logsumexp(x, axis=0).numpy()


def main():
    x = inputs()
    x = np.concatenate([x, np.ones(-x.size % 4)])
    data = {"x": x}
    xs = x[: x.size // 3 * 3]
    for name, fn in OPS.items():
        data[name + "/packet"] = fn(tf.constant(x)).numpy()
        data[name + "/scalar"] = np.concatenate(
            [fn(tf.constant(xs[i:i + 3])).numpy() for i in range(0, xs.size, 3)])
    # atan2 (Eigen's packets, the C library's atan2 on the tail): x against x reversed.
    y = x[::-1].copy()
    data["atan2/packet"] = tf.math.atan2(tf.constant(x), tf.constant(y)).numpy()
    data["atan2/scalar"] = np.concatenate(
        [tf.math.atan2(tf.constant(xs[i:i + 3]), tf.constant(y[i:i + 3])).numpy()
         for i in range(0, xs.size, 3)])
    record_softmax(data)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **data)
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(data), "arrays")


if __name__ == "__main__":
    main()
