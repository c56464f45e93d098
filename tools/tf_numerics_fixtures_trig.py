"""Records TensorFlow's CPU results for sin, cos, tan, atan2, pow, rsqrt, erf
and erfc into tests/data/tf_numerics_trig.npz (tests/test_numerics_trig.py
compares rillflow with them bit for bit).

Run with TensorFlow's own interpreter, never rillflow's:

    /work/tfref/bin/python tools/tf_numerics_fixtures_trig.py

Inputs are deterministic (seeded). Each packet-path array has a multiple of 8
elements, so TensorFlow computes all of them with Eigen's vectorized code;
the `*_scalar` arrays hold results of 0-d tensors, which go through the C
library's scalar functions instead. The inputs include subnormals, tiny
normal values and inputs whose intermediates or results are subnormal (erfc
near 9.5, atan2 of tiny ratios, pow near 2**-126): TensorFlow's threads
flush those to zero, and rillflow reproduces where.
"""
import os
import sys

import numpy as np

N = 6144
SCALARS = 256


def tiny_values(rng, n):
    """Subnormals of both signs (random bits) and tiny normal values."""
    f32 = np.float32
    sub = (rng.integers(1, 2 ** 23, n // 2).astype(np.uint32)
           | (rng.integers(0, 2, n // 2).astype(np.uint32) << np.uint32(31))).view(f32)
    tiny = (np.exp(rng.uniform(np.log(1e-38), np.log(1e-20), n - n // 2))
            * rng.choice([-1, 1], n - n // 2)).astype(f32)
    out = np.concatenate([sub, tiny])
    return out[rng.permutation(n)]


def unary_inputs(rng, trig=False):
    f32 = np.float32
    parts = [
        tiny_values(rng, 48),            # the first SCALARS go to 0-d tensors too
        rng.standard_normal(800).astype(f32),
        (rng.standard_normal(400) * 10).astype(f32),
        (np.exp(rng.uniform(np.log(1e-38), np.log(3e38), 600)) * rng.choice([-1, 1], 600)).astype(f32),
        rng.integers(0, 2 ** 32, 300, dtype=np.uint64).astype(np.uint32).view(f32),
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1.1754942e-38,
                  1.1754944e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 0.5, 2.0, 4.0, 11.0,
                  -11.0, 16.0, 25966.0, 18838.0, 25965.998, 18837.998, 117435.99, 71476.06],
                 f32),
        (rng.integers(1, 2 ** 23, 40).astype(np.uint32)).view(f32),   # subnormals
        rng.uniform(-6, 6, 400).astype(f32),
        tiny_values(rng, 300),
        rng.uniform(8.5, 10.5, 200).astype(f32),     # erfc's exp(-x**2) and result underflow
    ]
    if trig:
        k = np.concatenate([np.arange(-40, 41), rng.integers(-200000, 200000, 200)])
        near = (k * (np.pi / 2)).astype(f32)
        bits = near.view(np.int32)
        for d in (-2, -1, 1, 2):
            parts.append((bits + d).view(f32))
        parts.append(near)
        parts.append((np.exp(rng.uniform(np.log(1e4), np.log(1e38), 400))
                      * rng.choice([-1, 1], 400)).astype(f32))
    x = np.concatenate(parts)
    x = np.concatenate([x, rng.standard_normal(N).astype(f32)])[:N]
    return x


def binary_inputs(rng, op):
    f32 = np.float32
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
                        3.0, -3.0, 1e-45, 1e30, -1e30, 3e-39, -1e-40], f32)
    sx, sy = np.meshgrid(special, special)
    xs = [sx.ravel()]
    ys = [sy.ravel()]
    n = 1200
    xs.append(rng.standard_normal(n).astype(f32))
    ys.append(rng.standard_normal(n).astype(f32))
    mag = lambda m: (np.exp(rng.uniform(np.log(1e-30), np.log(1e30), m))
                     * rng.choice([-1, 1], m)).astype(f32)
    xs.append(mag(800))
    ys.append(mag(800))
    if op == "pow":
        base = np.abs(rng.standard_normal(600) * 3).astype(f32)
        xs.append(base)
        ys.append((rng.standard_normal(600) * 8).astype(f32))
        xs.append(-base)                                          # negative bases
        ys.append(rng.integers(-12, 13, 600).astype(f32))         # integer exponents
        xs.append(-base[:200])
        ys.append((rng.standard_normal(200) * 3).astype(f32))     # non-integer: NaN
        xs.append(np.exp(rng.uniform(-80, 80, 300)).astype(f32))
        ys.append(rng.uniform(-2, 2, 300).astype(f32))
        # Results near the underflow threshold: y * log2(x) in [-155, -120].
        base = rng.uniform(0.01, 100, 300).astype(f32)
        xs.append(base)
        ys.append((rng.uniform(-155, -120, 300) / np.log2(base.astype(np.float64))).astype(f32))
        t = tiny_values(rng, 200)                                 # subnormal/tiny x and y
        xs += [t, mag(100), t[:100]]
        ys += [np.concatenate([(rng.standard_normal(150) * 3).astype(f32),
                               np.array([1.0, -1.0, 2.0, -3.0, 0.5] * 10, f32)]),
               t[100:], t[:100][::-1]]
    else:
        a = rng.standard_normal(400).astype(f32)
        xs.append(a)
        ys.append(a * rng.choice([-1, 1], 400).astype(f32))       # |x| == |y|
        xs.append(rng.uniform(-1, 1, 400).astype(f32))
        ys.append(rng.uniform(-1e-3, 1e-3, 400).astype(f32))
        # Tiny ratios (a subnormal y / x), subnormal operands and pairs.
        t = tiny_values(rng, 300)
        xs += [t[:150], mag(150), t[150:]]
        ys += [(np.exp(rng.uniform(np.log(1e2), np.log(1e38), 150))
                * rng.choice([-1, 1], 150)).astype(f32), t[:150], t[:150][::-1]]
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    fill = N - len(x)
    x = np.concatenate([x, rng.standard_normal(fill).astype(f32)])[:N]
    y = np.concatenate([y, rng.standard_normal(fill).astype(f32)])[:N]
    return x, y


def main():
    import tensorflow as tf
    from tensorflow.python.framework import dtypes
    bf16 = dtypes.bfloat16.as_numpy_dtype

    rng = np.random.default_rng(20240521)
    data = {}
    unary = {"sin": tf.sin, "cos": tf.cos, "tan": tf.tan, "rsqrt": tf.math.rsqrt,
             "erf": tf.math.erf, "erfc": tf.math.erfc}
    for name, fn in unary.items():
        x = unary_inputs(rng, trig=name in ("sin", "cos", "tan"))
        if name == "rsqrt":
            x = np.concatenate([np.abs(x[: N // 2]), x[N // 2:]])
        data[name + "_x"] = x
        data[name + "_y"] = fn(tf.constant(x)).numpy()
        xs = x[:SCALARS]
        data[name + "_scalar"] = np.array([fn(tf.constant(v)).numpy() for v in xs], np.float32)
        for tag, dt in (("f16", np.float16), ("bf16", bf16)):
            xh = x.astype(dt)
            yh = fn(tf.constant(xh)).numpy()
            data["%s_%s_y" % (name, tag)] = yh.view(np.uint16)
            # 0-d half tensors: Eigen's scalar path (rsqrt: two rounded ops).
            data["%s_%s_scalar" % (name, tag)] = np.array(
                [fn(tf.constant(v)).numpy() for v in xh[:SCALARS]], dt).view(np.uint16)
    binary = {"atan2": tf.math.atan2, "pow": tf.pow}
    for name, fn in binary.items():
        a, b = binary_inputs(rng, name)
        # atan2 takes (y, x); pow takes (x, y): both stored as first, second.
        data[name + "_a"] = a
        data[name + "_b"] = b
        data[name + "_y"] = fn(tf.constant(a), tf.constant(b)).numpy()
        data[name + "_scalar"] = np.array(
            [fn(tf.constant(u), tf.constant(v)).numpy()
             for u, v in zip(a[:SCALARS + 68], b[:SCALARS + 68])], np.float32)
        for tag, dt in (("f16", np.float16), ("bf16", bf16)):
            yh = fn(tf.constant(a.astype(dt)), tf.constant(b.astype(dt))).numpy()
            data["%s_%s_y" % (name, tag)] = yh.view(np.uint16)
        # A scalar exponent / second operand broadcast against a vector.
        data[name + "_bcast_y"] = fn(tf.constant(a), tf.constant(np.float32(2.5))).numpy()
    # One odd-sized tensor per op: the last size % 8 elements take the scalar path.
    data["sin_odd_y"] = tf.sin(tf.constant(data["sin_x"][:1003])).numpy()
    data["rsqrt_odd_y"] = tf.math.rsqrt(tf.constant(data["rsqrt_x"][:1003])).numpy()
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                       "tf_numerics_trig.npz")
    np.savez_compressed(out, **data)
    print("wrote", out, os.path.getsize(out), "bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
