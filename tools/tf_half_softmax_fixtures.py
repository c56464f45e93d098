"""Records TensorFlow's CPU log_softmax and softmax of float16 and bfloat16
rows, and their cumulative_logsumexp along every axis (exclusive and
reversed too), into tests/data/tf_half_softmax.npz, which
tests/test_half_softmax.py compares with rillflow's bit for bit.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_half_softmax_fixtures.py

Row lengths around the half packet (8) and the leaf split of long rows,
batches below and above a packet of sums (the log of the sums takes the
packet path for whole packets of 8 rows); each array is stored as its bits.
"""
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import dtypes

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_half_softmax.npz")


def main():
    rng = np.random.default_rng(20261128)
    data = {}
    types = (("f16", np.float16), ("bf16", dtypes.bfloat16.as_numpy_dtype))
    for tag, dt in types:
        for n in (1, 3, 7, 8, 9, 16, 33, 100, 1000, 2000):
            for rows in (1, 3, 9, 17):
                x = (rng.standard_normal((rows, n)) * rng.choice([0.5, 3, 10])).astype(dt)
                if n > 8 and rows > 2:
                    x[1, 3] = -np.inf
                    x[2, 5] = np.inf
                key = "%s/%d/%d/" % (tag, rows, n)
                data[key + "x"] = x.view(np.uint16)
                data[key + "log_softmax"] = tf.nn.log_softmax(x).numpy().view(np.uint16)
                data[key + "softmax"] = tf.nn.softmax(x).numpy().view(np.uint16)
    for tag, dt in types:
        for shape in [(3,), (1000,), (17, 100), (100, 17), (5, 9, 11)]:
            x = (rng.standard_normal(shape) * 3).astype(dt)
            x.reshape(-1)[::37] = -np.inf
            for axis in range(len(shape)):
                for exclusive in (False, True):
                    for reverse in (False, True):
                        key = "cumlse/%s/%s/%d/%d/%d/" % (
                            tag, "x".join(map(str, shape)), axis, exclusive, reverse)
                        data[key + "x"] = x.view(np.uint16)
                        data[key + "y"] = tf.math.cumulative_logsumexp(
                            x, axis=axis, exclusive=exclusive, reverse=reverse).numpy().view(
                                np.uint16)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **data)
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(data), "arrays")


if __name__ == "__main__":
    main()
