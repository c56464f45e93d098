"""Records TensorFlow's CPU results for exp, expm1, log, log1p, sigmoid,
softplus and the softmax family into tests/data/tf_numerics_exp.npz, which
tests/test_numerics_exp.py compares with rillflow's bit for bit.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_numerics_fixtures_exp.py

Eigen evaluates a tensor in packets of 8 float32 elements and the last
`size % 8` elements with the C library, so each op is recorded twice: on
arrays whose size is a multiple of 8 ("packet"), and element by element
as 1-element tensors ("scalar").
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_numerics_exp.npz")
rng = np.random.default_rng(20250615)
F32 = np.float32


def near(values, ulps=3):
    """Each float32 value and its neighbours up to `ulps` ulps away."""
    v = np.asarray(values, F32)
    bits = v.view(np.int32)[:, None] + np.arange(-ulps, ulps + 1, dtype=np.int32)
    return bits.reshape(-1).view(F32)


def common_inputs():
    """Inputs every op sees: specials, subnormals, random bit patterns,
    normal values at several scales."""
    specials = F32([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, -np.nan, 0.5, 2.0,
                    np.finfo(F32).max, -np.finfo(F32).max, np.finfo(F32).tiny,
                    -np.finfo(F32).tiny, 1e-45, -1e-45, 1e-40, -1e-40, 1e-38])
    randbits = rng.integers(0, 2 ** 32, 600, dtype=np.uint64).astype(np.uint32).view(F32)
    scaled = np.concatenate([rng.standard_normal(300) * s for s in (1e-6, 0.1, 1, 5, 30)])
    return np.concatenate([specials, randbits, scaled.astype(F32)])


def exp_inputs():
    ln2 = np.log(2.0)
    k = np.arange(-151, 129)
    edges = near(np.concatenate([(k + 0.5) * ln2, [88.72283, 88.723, -87.33654, -103.97208,
                                                   -103.27893, -104.0, 87.0, -87.0]]), 2)
    return np.concatenate([common_inputs(), edges,
                           rng.uniform(-110, 90, 1500).astype(F32)])


def log_inputs():
    k = np.arange(-149, 128, 3, dtype=np.float64)
    edges = near(np.concatenate([2.0 ** k, np.sqrt(0.5) * 2.0 ** k[::4], [1.0]]), 2)
    return np.concatenate([common_inputs(), np.abs(common_inputs()), edges,
                           (10.0 ** rng.uniform(-40, 38, 1500)).astype(F32),
                           rng.uniform(0.5, 2, 500).astype(F32)])


def log1p_inputs():
    edges = near(F32([-1.0, 0.0, 2.0 ** -24, -(2.0 ** -24), 2.0 ** -23, 1e-7, np.sqrt(0.5) - 1,
                      np.sqrt(2) - 1, 1e30]), 3)
    return np.concatenate([log_inputs(), edges, rng.uniform(-1, 1, 800).astype(F32),
                           (-(10.0 ** rng.uniform(-10, 0, 300))).astype(F32)])


def expm1_inputs():
    edges = near(F32([0.0, 1e-7, -1e-7, 2.0 ** -24, 88.7, -17.0, -16.6]), 3)
    return np.concatenate([exp_inputs(), edges, rng.uniform(-1, 1, 800).astype(F32),
                           (10.0 ** rng.uniform(-10, 0, 300)).astype(F32)])


def sigmoid_inputs():
    edges = near(F32([16.6355324, -104.0, -87.33654, -88.0, -103.0, 9.0, -9.0]), 3)
    return np.concatenate([exp_inputs(), edges, rng.uniform(-20, 20, 1000).astype(F32)])


def softplus_inputs():
    edges = near(F32([13.942385, -13.942385, 20.0, -20.0, -87.3, 88.7]), 3)
    return np.concatenate([sigmoid_inputs(), edges])


def pad8(x):
    """x padded with ones to a multiple of 8 elements (all on the packet path)."""
    return np.concatenate([x, np.ones(-x.size % 8, x.dtype)])


ELEMENTWISE = {
    "exp": (tf.exp, exp_inputs),
    "expm1": (tf.math.expm1, expm1_inputs),
    "log": (tf.math.log, log_inputs),
    "log1p": (tf.math.log1p, log1p_inputs),
    "sigmoid": (tf.sigmoid, sigmoid_inputs),
    "softplus": (tf.math.softplus, softplus_inputs),
}


def as_bits(a):
    """float32/float16 arrays as they are; bfloat16 as its uint16 bits."""
    a = np.asarray(a)
    return a.view(np.uint16) if a.dtype.name == "bfloat16" else a


def record_elementwise(data):
    for name, (fn, inputs) in ELEMENTWISE.items():
        x = pad8(inputs())
        data[name + "/f32/x"] = x
        data[name + "/f32/packet"] = fn(tf.constant(x)).numpy()
        # The scalar path on a sample (one call per element).
        xs = x[:: max(1, x.size // 700)]
        data[name + "/f32/xs"] = xs
        data[name + "/f32/scalar"] = np.array([fn(tf.constant(v[None])).numpy()[0] for v in xs])
        for dt, tag in ((tf.float16, "f16"), (tf.bfloat16, "bf16")):
            xt = tf.cast(tf.constant(x[::3][: x.size // 3 // 8 * 8]), dt)
            data["%s/%s/x" % (name, tag)] = as_bits(xt.numpy())
            data["%s/%s/packet" % (name, tag)] = as_bits(fn(xt).numpy())
            xs = xt[:: max(1, xt.shape[0] // 200)]
            data["%s/%s/xs" % (name, tag)] = as_bits(xs.numpy())
            data["%s/%s/scalar" % (name, tag)] = np.concatenate(
                [as_bits(fn(xs[i:i + 1]).numpy()) for i in range(xs.shape[0])])
        # Mixed sizes: which elements take which path.
        for n in (1, 7, 9, 13, 21):
            data["%s/f32/n%d" % (name, n)] = fn(tf.constant(x[:n])).numpy()


def record_softmax(data):
    """Rows of several lengths: softmax, log_softmax, logsumexp, the losses."""
    for cols in (1, 3, 7, 8, 10, 16, 33, 100, 257, 1000, 2500):
        rows = max(2, min(40, 6000 // cols))
        x = (rng.standard_normal((rows, cols)) * rng.choice([0.5, 3, 20], (rows, 1))).astype(F32)
        if cols > 3:
            x[0, 1] = np.inf if cols % 2 else -np.inf
            x[1, 2] = -np.inf
        labels = rng.integers(0, cols, rows)
        onehot = np.eye(cols, dtype=F32)[labels]
        soft = rng.random((rows, cols)).astype(F32)
        soft /= soft.sum(1, keepdims=True)
        key = "smax/%d/" % cols
        data[key + "x"] = x
        data[key + "labels"] = labels.astype(np.int32)
        data[key + "soft"] = soft
        data[key + "softmax"] = tf.nn.softmax(x).numpy()
        data[key + "log_softmax"] = tf.nn.log_softmax(x).numpy()
        data[key + "lse"] = tf.math.reduce_logsumexp(x, axis=1).numpy()
        data[key + "lse0"] = tf.math.reduce_logsumexp(x, axis=0).numpy()
        data[key + "lse_all"] = tf.math.reduce_logsumexp(x).numpy()
        data[key + "xent"] = tf.nn.softmax_cross_entropy_with_logits(soft, x).numpy()
        data[key + "xent_hard"] = tf.nn.softmax_cross_entropy_with_logits(onehot, x).numpy()
        data[key + "sparse"] = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels, x).numpy()
    x = (rng.standard_normal(3000) * 8).astype(F32)
    z = (rng.random(3000) < 0.5).astype(F32)
    z[::7] = rng.random(z[::7].size)
    data["sce/x"], data["sce/z"] = x, z
    data["sce/out"] = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x).numpy()


def main():
    data = {}
    record_elementwise(data)
    record_softmax(data)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    np.savez_compressed(OUT, **data)
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(data), "arrays")


if __name__ == "__main__":
    main()
