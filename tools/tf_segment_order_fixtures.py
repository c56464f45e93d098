"""Records TensorFlow 2.21's sorted segment sums, means and products of float32
data whose sums round differently in other orders, into
tests/data/tf_segment_order.npz (tests/test_segment_order.py). Run with
TensorFlow's Python: /work/tfref/bin/python tools/tf_segment_order_fixtures.py"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "tests", "data", "tf_segment_order.npz")


def cases():
    """The inputs: (name, data, segment_ids), also imported by the test."""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((200, 3)) * rng.choice([1e-3, 1, 1e4], (200, 1))).astype(np.float32)
    ids = np.sort(rng.integers(0, 20, 200))
    ids1 = np.sort(rng.integers(0, 120, 200))
    return [("sum_2d", x, ids), ("mean_2d", x, ids), ("prod_2d", x[:40] * 0.9 + 1, ids[:40]),
            ("sum_1d", x[:, 0].copy(), ids1),
            ("sum_negative_zeros", np.array([-0.0, -0.0, -0.0], np.float32), np.array([0, 0, 1])),
            ("sum_f64", x.astype(np.float64) * 1.1, ids),
            ("mean_complex64", (x[:, :2] + 1j * x[:, 1:]).astype(np.complex64), ids),
            ("sum_f16", (x[:, 0] * 1e-3).astype(np.float16), ids)]


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    ops = {"sum": tf.math.segment_sum, "mean": tf.math.segment_mean, "prod": tf.math.segment_prod}
    out = {}
    for name, data, ids in cases():
        out[name] = ops[name.split("_")[0]](data, ids).numpy()
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
