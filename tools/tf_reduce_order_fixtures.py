"""Records TensorFlow's CPU reduce_sum and reduce_mean of float32 and float64
tensors, their Euclidean norms and products, and the kernels with sums of their own (L2Loss, AdjustContrastv2's
folded means, BiasAddGrad), into tests/data/tf_reduce_order.npz (tests/test_reduce_order.py
compares rillflow with them bit for bit: the order in which Eigen adds).

Run with TensorFlow's own interpreter, never rillflow's:

    /work/tfref/bin/python tools/tf_reduce_order_fixtures.py

The cases cover the patterns whose order rillflow follows (ops/core/
float_sums.py): all axes, a trailing run, a leading run, a middle run
(kept values filling whole packets, fewer than a packet, or neither), axes
that are not one run, axes of one value, -0.0 and non-finite values.
"""
import os
import sys

import numpy as np

CASES = [
    ((7,), None), ((1000,), None), ((8192,), None), ((10001,), None), ((262144,), None),
    ((64, 3), None), ((3, 5, 7), None),
    ((64, 3), (1,)), ((64, 13), (1,)), ((16, 48), (1,)), ((8, 1000), (1,)), ((4, 9000), (1,)),
    ((2, 3, 40), (2,)), ((3, 4, 5), (1, 2)), ((6, 100), (-1,)),
    ((20, 30), (0,)), ((300, 8), (0,)), ((1000, 3), (0,)), ((17, 13), (0,)), ((6272, 64), (0,)),
    ((32, 14, 14, 16), (0, 1, 2)), ((15, 8), (0,)), ((16, 9), (0,)),
    ((4, 20, 8), (1,)), ((3, 100, 16), (1,)), ((32, 49, 64), (1,)), ((2, 5000, 3), (1,)),
    ((1, 50, 7), (1,)), ((8, 7, 7, 32), (1, 2)),
    ((1, 64, 3), (1,)), ((5, 1, 8), (1,)), ((1, 1), (0, 1)), ((4, 1, 6), (0, 1)),
    # middle runs before kept values that are neither whole packets nor fewer
    ((2, 300, 33), (1,)), ((4, 70, 12), (1,)), ((7, 20, 10), (1,)), ((3, 15, 20), (1,)),
    ((2, 64, 100), (1,)), ((5, 3, 40, 9), (1, 2)), ((3, 17, 5), (1,)),
    # axes that are not one run
    ((30, 5, 40), (0, 2)), ((64, 4, 8), (0, 2)), ((6, 30, 5, 40), (1, 3)),
    ((5, 3, 7, 2, 30), (0, 2, 4)), ((3, 20, 4, 10, 5), (1, 3)), ((20, 5, 30, 16), (0, 2)),
]

IMAGES = [(2, 4, 4, 3), (1, 7, 5, 3), (3, 16, 16, 1), (2, 1, 1, 4), (1, 33, 17, 8)]
L2_SIZES = [1, 7, 42, 1000, 30001]
HALF_CASES = [((64, 7), (1,)), ((64, 40), (1,)), ((32, 300), (1,)), ((1000,), None),
              ((5000,), None), ((4, 9000), (1,)), ((40, 16), (0,)), ((300, 13), (0,)),
              ((3, 40, 16), (1,)), ((2, 50, 3), (1,)), ((3, 40, 13), (1,))]
# BiasAddGrad (NHWC): small (the rows one after another on any machine), wide
# (channels over 32 per thread), and large (one block per thread).
BIAS_GRADS = [(32, 10), (8, 7, 7, 16), (1000, 33), (3, 100), (4000, 32), (16000, 10), (2000, 64),
              (1, 5)]


def inputs(rng, shape, dtype):
    x = rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3], shape)
    x = x.astype(dtype)
    x.ravel()[rng.integers(0, x.size, max(1, x.size // 50))] = -0.0
    return x


def main():
    """Writes the fixture file."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    rng = np.random.default_rng(20261128)
    out = {}
    for i, (shape, axes) in enumerate(CASES):
        for dt in ("float32", "float64"):
            x = inputs(rng, shape, dt)
            ax = None if axes is None else list(axes)
            out["x_%d_%s" % (i, dt)] = x
            out["sum_%d_%s" % (i, dt)] = tf.reduce_sum(tf.constant(x), axis=ax).numpy()
            out["mean_%d_%s" % (i, dt)] = tf.reduce_mean(tf.constant(x), axis=ax).numpy()
            out["norm_%d_%s" % (i, dt)] = tf.math.reduce_euclidean_norm(
                tf.constant(x), axis=ax).numpy()
            # Products of values near 1 (no overflow): ProdReducer's order.
            near1 = (1 + 0.02 * np.tanh(x)).astype(dt)
            out["p_%d_%s" % (i, dt)] = near1
            out["prod_%d_%s" % (i, dt)] = tf.reduce_prod(tf.constant(near1), axis=ax).numpy()
    for i, shape in enumerate(IMAGES):
        x = (rng.standard_normal(shape) * 100 + 3).astype(np.float32)
        out["image_%d" % i] = x
        out["contrast_%d" % i] = tf.image.adjust_contrast(tf.constant(x), 1.7).numpy()
    for i, n in enumerate(L2_SIZES):
        for dt in ("float32", "float64"):
            x = (rng.standard_normal(n) * 3).astype(dt)
            out["l2x_%d_%s" % (i, dt)] = x
            out["l2_%d_%s" % (i, dt)] = tf.nn.l2_loss(tf.constant(x)).numpy()
    for i, shape in enumerate(BIAS_GRADS):
        for dt in ("float32", "float64"):
            x = rng.standard_normal(shape).astype(dt)
            out["bg_x_%d_%s" % (i, dt)] = x
            out["bg_%d_%s" % (i, dt)] = tf.raw_ops.BiasAddGrad(out_backprop=tf.constant(x)).numpy()
    # float16 (half arithmetic, float32 horizontal sums, leaves of 200
    # packets) and bfloat16 (summed in float32): values stored as float32.
    for i, (shape, axes) in enumerate(HALF_CASES):
        for dt in ("float16", "bfloat16"):
            x = tf.cast(tf.constant(rng.standard_normal(shape).astype(np.float32)),
                        getattr(tf, dt))
            ax = None if axes is None else list(axes)
            out["hx_%d_%s" % (i, dt)] = tf.cast(x, tf.float32).numpy()
            out["hsum_%d_%s" % (i, dt)] = tf.cast(tf.reduce_sum(x, axis=ax), tf.float32).numpy()
            out["hmean_%d_%s" % (i, dt)] = tf.cast(tf.reduce_mean(x, axis=ax),
                                                   tf.float32).numpy()
    # TensorFlow's thread count here: its BiasAddGrad of large inputs cuts
    # the rows into one block per thread.
    out["threads"] = np.array(len(os.sched_getaffinity(0)))
    z = np.full((40, 8), -0.0, np.float32)
    out["negzero_sum"] = tf.reduce_sum(tf.constant(z), axis=0).numpy()
    out["negzero_all"] = tf.reduce_sum(tf.constant(z)).numpy()
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "tests", "data", "tf_reduce_order.npz")
    np.savez_compressed(path, tf_version=np.array(tf.__version__), **out)
    print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    main()
