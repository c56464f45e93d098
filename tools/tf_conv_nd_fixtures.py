"""Regenerates tests/data/tf_conv_nd.npz: TensorFlow 2.21's outputs for 3-D
pooling (values and gradients, with ties, NaN, -0 and -inf in the inputs),
max_pool_with_argmax and the N-D convolutions, which
tests/test_conv_nd_ops.py compares with rillflow's.

Run with TensorFlow's interpreter: /work/tfref/bin/python tools/tf_conv_nd_fixtures.py
"""
import os

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "tf_conv_nd.npz")

POOL3D = [  # (input shape, ksize, strides, padding)
    ((2, 4, 5, 6, 1), [2, 2, 2], [1, 1, 1], "SAME"),
    ((1, 5, 4, 6, 4), [3, 2, 3], [2, 1, 2], "VALID"),
    ((1, 3, 6, 5, 8), [2, 3, 3], [1, 2, 1], "SAME"),
    ((2, 4, 4, 4, 17), [2, 2, 2], [2, 2, 2], "SAME"),
    ((1, 6, 5, 7, 3), [3, 3, 3], [1, 1, 1], "SAME"),
]
ARGMAX = [((2, 5, 6, 3), [1, 2, 2, 1], [1, 1, 1, 1], "SAME"),
          ((1, 7, 6, 8), [1, 3, 2, 1], [1, 2, 2, 1], "VALID")]
CONV3D = [  # (x shape, filter shape, strides, padding, dilations)
    ((2, 5, 6, 7, 3), (2, 3, 2, 3, 4), [1, 1, 1, 1, 1], "SAME", [1, 1, 1, 1, 1]),
    ((1, 6, 5, 7, 20), (3, 2, 2, 20, 5), [1, 2, 1, 2, 1], "VALID", [1, 1, 1, 1, 1]),
    ((1, 7, 6, 5, 2), (2, 2, 3, 2, 3), [1, 1, 1, 1, 1], "SAME", [1, 2, 1, 2, 1]),
]


def special(rng, shape):
    """Small integers (many ties) with NaN, -0, -inf, +inf and lowest sprinkled."""
    x = rng.integers(-3, 4, shape).astype(np.float32)
    flat = x.reshape(-1)
    for v, frac in ((np.nan, 0.04), (-0.0, 0.1), (-np.inf, 0.03), (np.inf, 0.01),
                    (np.finfo(np.float32).min, 0.01), (1e-6, 0.05)):
        flat[rng.random(flat.size) < frac] = v
    return x


def main():
    rng = np.random.default_rng(16)
    out = {}
    for i, (shape, k, s, pad) in enumerate(POOL3D):
        for kind, fn in (("max", tf.nn.max_pool3d), ("avg", tf.nn.avg_pool3d)):
            x = special(rng, shape) if kind == "max" else rng.standard_normal(shape).astype(
                np.float32)
            xt = tf.constant(x)
            with tf.GradientTape() as t:
                t.watch(xt)
                y = fn(xt, k, s, pad)
            g = rng.standard_normal(y.shape).astype(np.float32)
            dx = t.gradient(y, xt, output_gradients=tf.constant(g))
            out.update({f"pool{i}_{kind}_x": x, f"pool{i}_{kind}_g": g,
                        f"pool{i}_{kind}_y": y.numpy(), f"pool{i}_{kind}_dx": dx.numpy()})
            if kind == "max":
                gg = rng.standard_normal(x.shape).astype(np.float32)
                out[f"pool{i}_max_gg"] = gg
                out[f"pool{i}_max_ggout"] = tf.raw_ops.MaxPool3DGradGrad(
                    orig_input=xt, orig_output=y, grad=tf.constant(gg), ksize=[1] + k + [1],
                    strides=[1] + s + [1], padding=pad).numpy()
    for i, (shape, k, s, pad) in enumerate(ARGMAX):
        x = special(rng, shape)
        for b in (False, True):
            v, a = tf.nn.max_pool_with_argmax(x, k, s, pad, include_batch_in_index=b)
            g = rng.standard_normal(v.shape).astype(np.float32)
            dx = tf.raw_ops.MaxPoolGradWithArgmax(input=x, grad=g, argmax=a, ksize=k,
                                                  strides=s, padding=pad,
                                                  include_batch_in_index=b)
            out.update({f"am{i}_{b}_x": x, f"am{i}_{b}_v": v.numpy(), f"am{i}_{b}_a": a.numpy(),
                        f"am{i}_{b}_g": g, f"am{i}_{b}_dx": dx.numpy()})
    for i, (xs, fs, s, pad, d) in enumerate(CONV3D):
        x = rng.standard_normal(xs).astype(np.float32)
        f = rng.standard_normal(fs).astype(np.float32)
        xt, ft = tf.constant(x), tf.constant(f)
        with tf.GradientTape(persistent=True) as t:
            t.watch([xt, ft])
            y = tf.nn.conv3d(xt, ft, s, pad, dilations=d)
        g = rng.standard_normal(y.shape).astype(np.float32)
        dx, df = t.gradient(y, [xt, ft], output_gradients=tf.constant(g))
        out.update({f"c3_{i}_x": x, f"c3_{i}_f": f, f"c3_{i}_y": y.numpy(), f"c3_{i}_g": g,
                    f"c3_{i}_dx": dx.numpy(), f"c3_{i}_df": df.numpy()})
    # transposes, atrous, depthwise backprop
    v = rng.standard_normal((2, 3, 3, 3, 4)).astype(np.float32)
    f = rng.standard_normal((3, 2, 3, 2, 4)).astype(np.float32)
    out["t3_v"], out["t3_f"] = v, f
    out["t3_y"] = tf.nn.conv3d_transpose(v, f, [2, 6, 5, 6, 2], [1, 2, 2, 2, 1]).numpy()
    v1 = rng.standard_normal((2, 5, 3)).astype(np.float32)
    f1 = rng.standard_normal((3, 2, 3)).astype(np.float32)
    out["t1_v"], out["t1_f"] = v1, f1
    out["t1_y"] = tf.nn.conv1d_transpose(v1, f1, [2, 10, 2], 2).numpy()
    out["t1_yv"] = tf.nn.conv1d_transpose(v1, f1, [2, 11, 2], 2, "VALID").numpy()
    a = rng.standard_normal((1, 7, 8, 3)).astype(np.float32)
    af = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)
    out["at_x"], out["at_f"] = a, af
    out["at_same"] = tf.nn.atrous_conv2d(a, af, 2, "SAME").numpy()
    out["at_valid"] = tf.nn.atrous_conv2d(a, af, 2, "VALID").numpy()
    atf = rng.standard_normal((3, 3, 2, 3)).astype(np.float32)
    out["att_f"] = atf
    out["att_same"] = tf.nn.atrous_conv2d_transpose(a, atf, [1, 7, 8, 2], 2, "SAME").numpy()
    out["att_valid"] = tf.nn.atrous_conv2d_transpose(a, atf, [1, 11, 12, 2], 2,
                                                     "VALID").numpy()
    dwf = rng.standard_normal((3, 2, 3, 2)).astype(np.float32)
    dy = rng.standard_normal((1, 4, 4, 6)).astype(np.float32)
    out["dw_f"], out["dw_dy"] = dwf, dy
    out["dw_in"] = tf.nn.depthwise_conv2d_backprop_input([1, 7, 8, 3], dwf, dy, [1, 2, 2, 1],
                                                         "SAME").numpy()
    out["dw_filt"] = tf.nn.depthwise_conv2d_backprop_filter(a, [3, 2, 3, 2], dy, [1, 2, 2, 1],
                                                            "SAME").numpy()
    np.savez_compressed(OUT, **out)
    print("wrote", OUT, len(out), "arrays")


if __name__ == "__main__":
    main()
