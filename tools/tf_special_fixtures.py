"""Records TensorFlow's CPU results for the Cephes special functions
(tf.math.erfinv, ndtri, the Bessel functions, tf.math.special.dawsn, expint,
fresnel_cos, fresnel_sin, spence) and their gradients, in float16, float32
and float64, and for tf.bitwise.left_shift/right_shift (every integer dtype,
amounts in and out of range), tf.histogram_fixed_width_bins and
tf.image.sobel_edges (values and gradients), into tests/data/tf_special.npz,
which tests/test_linalg_special_names.py compares with rillflow's.

Run with a Python that has TensorFlow (never rillflow's own environment):

    /path/to/tf-venv/bin/python tools/tf_special_fixtures.py

Every input array has 8k + 5 elements, so both of Eigen's paths (packets of
8 and the scalar tail) are recorded.
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "tf_special.npz")
rng = np.random.default_rng(20261128)

SPECIAL = tf.math.special
FUNCTIONS = {
    "erfinv": tf.math.erfinv, "ndtri": tf.math.ndtri,
    "bessel_i0": tf.math.bessel_i0, "bessel_i0e": tf.math.bessel_i0e,
    "bessel_i1": tf.math.bessel_i1, "bessel_i1e": tf.math.bessel_i1e,
    "bessel_k0": SPECIAL.bessel_k0, "bessel_k0e": SPECIAL.bessel_k0e,
    "bessel_k1": SPECIAL.bessel_k1, "bessel_k1e": SPECIAL.bessel_k1e,
    "bessel_j0": SPECIAL.bessel_j0, "bessel_j1": SPECIAL.bessel_j1,
    "bessel_y0": SPECIAL.bessel_y0, "bessel_y1": SPECIAL.bessel_y1,
    "dawsn": SPECIAL.dawsn, "expint": SPECIAL.expint, "fresnel_cos": SPECIAL.fresnel_cos,
    "fresnel_sin": SPECIAL.fresnel_sin, "spence": SPECIAL.spence,
}
# The Bessel functions also have float16 kernels; the others only float32/64.
HALF = {n for n in FUNCTIONS if n.startswith("bessel")}


def inputs(name):
    """Specials, each branch's range and its boundaries, wide random values."""
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 5.0, 8.0, 1e-3,
                1e-5, 1e-40, -1e-40]
    if name == "erfinv":
        body = [rng.uniform(-1, 1, 400), 1 - 10.0 ** rng.uniform(-7, -1, 50),
                [0.5, -0.5, 1e-8, 0.999999, 1.5, -1.5]]
    elif name == "ndtri":
        body = [rng.uniform(0, 1, 300), 10.0 ** rng.uniform(-37, -1, 100),
                1 - 10.0 ** rng.uniform(-7, -1, 50), [0.5, 0.13533528, 0.86466472, 1.5, -0.5]]
    else:
        body = [rng.standard_normal(200) * 3, rng.uniform(-40, 40, 120),
                10.0 ** rng.uniform(-8, 4, 100), -(10.0 ** rng.uniform(-8, 4, 40)),
                [3.25, 6.25, 1.6, 36974.0, 36975.0, 1e10, -1e10, 0.5, 1.5, 64.0, 88.0, 90.0]]
    x = np.concatenate([specials] + body)
    return x[:(len(x) - 5) // 8 * 8 + 5]


INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def misc():
    """The shifts, histogram bins and Sobel edges."""
    out = {}
    for dt in INTS:
        info = np.iinfo(dt)
        x = np.array([0, 1, 5, 7, info.max, info.min, info.max // 3, 100], dt)
        y = np.arange(-70, 71, dtype=np.int64)
        if info.min == 0:
            y = np.abs(y)
        y = y.astype(dt)
        out[f"shift/{dt}/x"], out[f"shift/{dt}/y"] = x, y
        xt, yt = tf.constant(x[:, None]), tf.constant(y[None, :])
        out[f"shift/{dt}/left"] = tf.bitwise.left_shift(xt, yt).numpy()
        out[f"shift/{dt}/right"] = tf.bitwise.right_shift(xt, yt).numpy()
    v = np.concatenate([rng.uniform(-3, 9, 200), [0.0, 5.0, 6.0, -np.inf, np.inf, np.nan,
                                                  4.999999, 1.0, 2.0]])
    out["bins/x"] = v
    for dt in ("float32", "float64"):
        out[f"bins/{dt}"] = tf.histogram_fixed_width_bins(
            tf.constant(v, dt), tf.constant([0.0, 6.0], dt), nbins=7).numpy()
    image = rng.uniform(0, 1, (2, 6, 7, 3))
    out["sobel/x"] = image
    for dt in ("float32", "float64"):
        it = tf.constant(image, dt)
        with tf.GradientTape() as tape:
            tape.watch(it)
            edges = tf.image.sobel_edges(it)
            loss = tf.reduce_sum(edges ** 2)
        out[f"sobel/{dt}"] = edges.numpy()
        out[f"sobel/{dt}/d"] = tape.gradient(loss, it).numpy()
    return out


def main():
    """Writes the fixture file."""
    out = {}
    for name, fn in FUNCTIONS.items():
        x = inputs(name)
        out[f"{name}/x"] = x
        for dt in (["float16"] if name in HALF else []) + ["float32", "float64"]:
            xt = tf.constant(x, dt)
            with tf.GradientTape() as tape:
                tape.watch(xt)
                y = fn(xt)
            out[f"{name}/{dt}/y"] = y.numpy()
            if dt != "float16":
                out[f"{name}/{dt}/dy"] = tape.gradient(y, xt).numpy()
    out.update(misc())
    np.savez_compressed(OUT, **out)
    print("wrote", OUT, len(out), "arrays")


if __name__ == "__main__":
    main()
