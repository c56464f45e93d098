"""Records TensorFlow's CPU results for pow, tan and the C library tails of
sin, cos, atan2, erfc and pow into tests/data/tf_numerics_pow.npz
(tests/test_numerics_pow.py compares rillflow with them bit for bit).

Run with TensorFlow's own interpreter, never rillflow's:

    /work/tfref/bin/python tools/tf_numerics_fixtures_pow.py

Inputs are deterministic (seeded). `*_odd_y` hold results for tensors of 1003
elements, whose last 3 take glibc's scalar function; `*_scalar` results of 0-d
tensors (all glibc); `pow_fn_*` results of tf.function, where TensorFlow's graph
optimizer rewrites constant exponents 2, 3, 0.5 and -0.5. The inputs include
subnormals, tiny values and results near the underflow threshold, which
TensorFlow's threads flush to zero.
"""
import os
import sys

import numpy as np

N = 10240
SCALARS = 384
ODD = 1003


def pow_inputs(rng):
    f32 = np.float32
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0,
                        3.0, -3.0, 1e-45, 1e30, -1e30, 1e-30, 127.0, -127.0, 0.25, 1e10,
                        3e-39, -1e-40, 1.2e-38], f32)
    sx, sy = np.meshgrid(special, special)
    xs, ys = [sx.ravel()], [sy.ravel()]
    n = 1500
    bits = lambda m: rng.integers(0, 2 ** 32, m, dtype=np.uint64).astype(np.uint32).view(f32)
    xs.append(bits(n))
    ys.append(bits(n))
    base = np.abs(rng.standard_normal(n) * 3).astype(f32)
    xs += [base, -base, -base[:500], (1 + rng.uniform(-1e-3, 1e-3, n)).astype(f32)]
    ys += [(rng.standard_normal(n) * 8).astype(f32),
           rng.integers(-40, 41, n).astype(f32),                    # negative base, integer y
           (rng.standard_normal(500) * 3).astype(f32),              # non-integer: NaN
           (rng.standard_normal(n) * 1e4).astype(f32)]              # near 1, huge y
    xs.append(np.exp(rng.uniform(-80, 80, n)).astype(f32))
    ys.append(rng.uniform(-2, 2, n).astype(f32))
    # Results near the underflow threshold (y * log2(x) in [-155, -120]), of
    # both signs, and subnormal bases and exponents.
    near = rng.uniform(0.01, 100, 600).astype(f32)
    yn = (rng.uniform(-155, -120, 600) / np.log2(near.astype(np.float64))).astype(f32)
    xs += [near, -near[:200]]
    ys += [yn, np.round(yn[:200])]
    sub = (rng.integers(1, 2 ** 23, 400).astype(np.uint32)
           | (rng.integers(0, 2, 400).astype(np.uint32) << np.uint32(31))).view(f32)
    xs += [sub, (rng.standard_normal(200) * 4).astype(f32)]
    ys += [np.concatenate([(rng.standard_normal(300) * 3).astype(f32),
                           np.array([1.0, -1.0, 2.0, -3.0, 0.5], f32).repeat(20)]), sub[:200]]
    x = np.concatenate(xs)[:N]
    y = np.concatenate(ys)[:N]
    fill = N - len(x)
    x = np.concatenate([x, rng.standard_normal(fill).astype(f32)])
    y = np.concatenate([y, rng.standard_normal(fill).astype(f32)])
    perm = rng.permutation(N)     # specials spread over packets and tails
    return x[perm], y[perm]


def unary_inputs(rng):
    f32 = np.float32
    bits = rng.integers(0, 2 ** 32, N // 4, dtype=np.uint64).astype(np.uint32).view(f32)
    k = rng.integers(-100000, 100000, N // 8)
    near = (k * (np.pi / 2)).astype(f32)
    parts = [bits, rng.uniform(-130, 130, N // 4).astype(f32), rng.standard_normal(N // 8).astype(f32),
             near, near.view(np.int32).__add__(1).view(f32),
             (np.exp(rng.uniform(np.log(1e-8), np.log(1e38), N // 8))
              * rng.choice([-1, 1], N // 8)).astype(f32)]
    # First, as the tail of `parts` is cut at N: subnormals, tiny values,
    # erfc's underflow band and the special values.
    parts = [
        (rng.integers(1, 2 ** 23, N // 16).astype(np.uint32)        # subnormals
         | (rng.integers(0, 2, N // 16).astype(np.uint32) << np.uint32(31))).view(f32),
        (np.exp(rng.uniform(np.log(1e-38), np.log(1e-20), N // 16))
         * rng.choice([-1, 1], N // 16)).astype(f32),
        rng.uniform(8.5, 10.5, N // 16).astype(f32),     # erfc's underflow
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.75, -0.75, 120.0, -120.0,
                  0.785398, 2.0 ** -12, 2.0 ** -13, 88.0, -88.0, -104.0, 89.0, 1.0], f32),
    ] + parts
    x = np.concatenate(parts)
    x = np.concatenate([x, rng.standard_normal(N).astype(f32)])[:N]
    return x[rng.permutation(N)]


def main():
    import tensorflow as tf
    from tensorflow.python.framework import dtypes
    bf16 = dtypes.bfloat16.as_numpy_dtype

    rng = np.random.default_rng(20240611)
    data = {}
    a, b = pow_inputs(rng)
    data["pow_a"], data["pow_b"] = a, b
    data["pow_y"] = tf.pow(tf.constant(a), tf.constant(b)).numpy()
    data["pow_fn_y"] = tf.function(tf.pow)(tf.constant(a), tf.constant(b)).numpy()
    data["pow_odd_y"] = tf.pow(tf.constant(a[:ODD]), tf.constant(b[:ODD])).numpy()
    data["pow_scalar"] = np.array([tf.pow(tf.constant(u), tf.constant(v)).numpy()
                                   for u, v in zip(a[:SCALARS], b[:SCALARS])], np.float32)
    for tag, dt in (("f16", np.float16), ("bf16", bf16)):
        yh = tf.pow(tf.constant(a.astype(dt)), tf.constant(b.astype(dt))).numpy()
        data["pow_%s_y" % tag] = yh.view(np.uint16)
    for c in (2.0, 3.0, 0.5, -0.5, 2.5, -3.0):
        tag = str(c).replace("-", "m").replace(".", "p")
        data["pow_c%s_y" % tag] = tf.pow(tf.constant(a), c).numpy()
        data["pow_fn_c%s_y" % tag] = tf.function(lambda t, c=c: tf.pow(t, c))(tf.constant(a)).numpy()
    unary = {"tan": tf.tan, "sin": tf.sin, "cos": tf.cos, "erfc": tf.math.erfc}
    for name, fn in unary.items():
        x = unary_inputs(rng)
        if name == "erfc":
            x = np.concatenate([rng.uniform(-10, 10, N // 2).astype(np.float32), x[N // 2:]])
        data[name + "_x"] = x
        if name == "tan":
            data["tan_y"] = fn(tf.constant(x)).numpy()
            for tag, dt in (("f16", np.float16), ("bf16", bf16)):
                data["tan_%s_y" % tag] = fn(tf.constant(x.astype(dt))).numpy().view(np.uint16)
        data[name + "_odd_y"] = fn(tf.constant(x[:ODD])).numpy()
        data[name + "_scalar"] = np.array([fn(tf.constant(v)).numpy() for v in x[:SCALARS]],
                                          np.float32)
    ya = np.concatenate([rng.standard_normal(N // 2), rng.integers(0, 2 ** 32, N // 2).astype(
        np.uint32).view(np.float32)]).astype(np.float32)
    xa = np.concatenate([rng.standard_normal(N // 2), rng.integers(0, 2 ** 32, N // 2).astype(
        np.uint32).view(np.float32)]).astype(np.float32)
    perm = rng.permutation(N)
    data["atan2_a"], data["atan2_b"] = ya[perm], xa[perm]
    data["atan2_odd_y"] = tf.math.atan2(tf.constant(ya[perm][:ODD]), tf.constant(xa[perm][:ODD])).numpy()
    data["atan2_scalar"] = np.array([tf.math.atan2(tf.constant(u), tf.constant(v)).numpy()
                                     for u, v in zip(ya[perm][:SCALARS], xa[perm][:SCALARS])],
                                    np.float32)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                       "tf_numerics_pow.npz")
    np.savez_compressed(out, **data)
    print("wrote", out, os.path.getsize(out), "bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
