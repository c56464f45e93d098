"""Records TensorFlow's CPU results for the activations and their gradients
(relu, relu6, leaky_relu, elu, selu, silu, gelu) in float32, float16 and
bfloat16 into tests/data/tf_activations.npz, which
tests/test_activation_bits.py compares with rillflow's bit for bit.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_activation_fixtures.py

Inputs hold no subnormal numbers: TensorFlow's CPU kernels run with
denormals flushed to zero, which rillflow does not reproduce (see
docs/numerics.md).
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_activations.npz")
rng = np.random.default_rng(20261127)

FUNCTIONS = {
    "relu": tf.nn.relu, "relu6": tf.nn.relu6, "leaky_relu": lambda v: tf.nn.leaky_relu(v, 0.2),
    "elu": tf.nn.elu, "selu": tf.nn.selu, "silu": tf.nn.silu, "gelu": tf.nn.gelu,
    "gelu_tanh": lambda v: tf.nn.gelu(v, approximate=True),
}
DTYPES = ("float32", "float16", "bfloat16")


def inputs():
    """Specials, small and large values, and ties of the selects (0, -0, 6)."""
    specials = [0.0, -0.0, 1.0, -1.0, 6.0, -6.0, np.inf, -np.inf, np.nan, 20.0, -20.0, -88.0,
                -104.0, 100.0, 1e-3, -1e-3]
    scaled = np.concatenate([rng.standard_normal(400) * s for s in (0.05, 1, 4)])
    x = np.concatenate([specials, scaled]).astype(np.float32)
    return x[(np.abs(x) >= np.finfo(np.float32).tiny) | (x == 0) | np.isnan(x)]


def main():
    """Writes the fixture file."""
    x = inputs()
    g = rng.standard_normal(x.size).astype(np.float32)
    out = {"x": x, "g": g}
    for dt in DTYPES:
        xt, gt = tf.cast(tf.constant(x), dt), tf.cast(tf.constant(g), dt)
        for name, fn in FUNCTIONS.items():
            def step(fn=fn):
                with tf.GradientTape() as t:
                    t.watch(xt)
                    y = fn(xt)
                return y, t.gradient(y, xt, output_gradients=gt)
            # Eagerly and in a tf.function, whose graph Grappler rewrites
            # (pow(x, 3) becomes x * x * x, for one).
            for mode, run in (("eager", step), ("function", tf.function(step))):
                y, d = run()
                out[f"{name}/{dt}/{mode}/y"] = tf.cast(y, tf.float32).numpy()
                out[f"{name}/{dt}/{mode}/dy"] = tf.cast(d, tf.float32).numpy()
    np.savez_compressed(OUT, **out)
    print("wrote", OUT, len(out), "arrays of", x.size)


if __name__ == "__main__":
    main()
