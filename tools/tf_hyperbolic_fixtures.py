"""Records TensorFlow's CPU sinh, cosh, asinh, acosh, lgamma, atanh, atan, asin,
acos and reciprocal into
tests/data/tf_hyperbolic.npz (tests/test_libm_kernels.py compares rillflow with
them bit for bit).

Run with TensorFlow's own interpreter, never rillflow's:

    /work/tfref/bin/python tools/tf_hyperbolic_fixtures.py

TensorFlow's kernels for the first five call the C library (glibc's sinhf,
... and sinh, ...; half precision through float32), so the fixture is glibc's
results on the machine that records it: tests compare with it only where the
machine's C library gives the recorded values for a sample (the test checks).
float32 atanh, atan, asin and acos are Eigen's packet code on whole packets of 8 and the
C library's float function on the last size % 8 elements: their arrays have
tails.
Inputs are deterministic (seeded): uniform ranges, values near the functions'
regime changes (2**-28, 2**-12, 1, 2, 22, 88.7 for sinh/cosh; 1, 2, 2**28 for
acosh), subnormals, +-0, +-inf, NaN and 0-d tensors.
"""
import os
import sys

import numpy as np


def _inputs(rng, dtype, acosh=False):
    """The inputs of one dtype (float32 or float64)."""
    parts = [rng.uniform(-1, 1, 1200), rng.uniform(-30, 30, 1200),
             rng.uniform(-100, 100, 400), np.exp(rng.uniform(np.log(1e-30), np.log(1e4), 1200))
             * rng.choice([-1, 1], 1200)]
    edges = [2.0 ** -28, 2.0 ** -12, 2.0 ** -15, 0.5, 1.0, 2.0, 22.0, 88.7, 89.5, 710.0,
             2.0 ** 28, 1e30]
    for e in edges:
        parts.append(e * (1 + rng.uniform(-1e-3, 1e-3, 64)) * rng.choice([-1, 1], 64))
    x = np.concatenate(parts)
    if acosh:
        x = 1 + np.abs(x)
        x = np.concatenate([x, 1 + rng.uniform(0, 1e-3, 512), [1.0, 1.0 + 2 ** -20]])
    x = x.astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-310],
                        np.float64).astype(dtype)
    return np.concatenate([x, specials])


def _halves(tf, out, name, fn, x16, bfloat16=True):
    """Records `fn` on float16 `x16` and on the same values as bfloat16."""
    out["%s_float16_x" % name] = x16
    out["%s_float16_y" % name] = fn(tf.constant(x16)).numpy()
    if bfloat16:
        xb = tf.cast(tf.constant(x16.astype(np.float32)), tf.bfloat16)
        out["%s_bfloat16_x_bits" % name] = tf.bitcast(xb, tf.uint16).numpy()
        out["%s_bfloat16_y_bits" % name] = tf.bitcast(fn(xb), tf.uint16).numpy()


def _packets_and_tails(tf, out, name, fn, x, tails):
    """Records a float32 packet-path op: on `x` (whole packets and a tail), on
    `tails` five at a time (all tail), on 0-d tensors of x's last 64 values,
    and in half precision on x's first 1501."""
    out["%s_float32_x" % name] = x
    out["%s_float32_y" % name] = fn(tf.constant(x)).numpy()
    out["%s_float32_tails_x" % name] = tails
    out["%s_float32_tails_y" % name] = np.concatenate(
        [fn(tf.constant(tails[i:i + 5])).numpy() for i in range(0, tails.size, 5)])
    out["%s_float32_scalar_y" % name] = np.array(
        [fn(tf.constant(v)).numpy() for v in x[-64:]], np.float32)
    _halves(tf, out, name, fn, x[:1501].astype(np.float16))


def main():
    import tensorflow as tf
    if "rillflow" in sys.modules or "rillflow" in tf.__name__:
        sys.exit("run with TensorFlow's interpreter")
    rng = np.random.default_rng(20261127)
    out = {}
    for name in ("sinh", "cosh", "asinh", "acosh", "lgamma"):
        fn = getattr(tf.math, name)
        for dtype in ("float32", "float64"):
            x = _inputs(rng, np.dtype(dtype), acosh=name == "acosh")
            out["%s_%s_x" % (name, dtype)] = x
            out["%s_%s_y" % (name, dtype)] = fn(tf.constant(x)).numpy()
            scalars = x[:64]
            out["%s_%s_scalar_y" % (name, dtype)] = np.array(
                [fn(tf.constant(v)).numpy() for v in scalars], x.dtype)
        x16 = _inputs(rng, np.dtype("float32"), acosh=name == "acosh")[:1500].astype(np.float16)
        # (No bfloat16 lgamma on the CPU: NotFoundError.)
        _halves(tf, out, name, fn, x16, bfloat16=name != "lgamma")
    # atanh: whole packets, tails (sizes 8k + 1..7), 0-d tensors; subnormals,
    # +-1, beyond +-1, +-0, +-inf, NaN.
    x = np.concatenate([rng.uniform(-1, 1, 2000), rng.uniform(-1e-3, 1e-3, 600),
                        rng.uniform(0.9, 1, 300) * rng.choice([-1, 1], 300),
                        np.exp(rng.uniform(np.log(1e-30), np.log(0.5), 600))
                        * rng.choice([-1, 1], 600)])
    specials = [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40,
                0.5, -0.5, 2.0 ** -28, 2.0 ** -29]
    x32 = np.concatenate([x, specials, rng.uniform(-1, 1, 3)]).astype(np.float32)  # 3518: tail 6
    tails = np.concatenate([np.array(specials, np.float32), x32[:40]])
    _packets_and_tails(tf, out, "atanh", tf.math.atanh, x32, tails)
    x64 = np.concatenate([x, specials]).astype(np.float64)
    out["atanh_float64_x"] = x64
    out["atanh_float64_y"] = tf.math.atanh(tf.constant(x64)).numpy()
    out["atanh_float64_scalar_y"] = np.array(
        [tf.math.atanh(tf.constant(v)).numpy() for v in x64[:64]], np.float64)
    # atan (float32: Eigen's packets, glibc's atanf on the tail): the same
    # layout as atanh's, wider inputs.
    xa = np.concatenate([x32[:2000] * 30, x32[2000:], [1e30, -1e30, 3e38]]).astype(np.float32)
    _packets_and_tails(tf, out, "atan", tf.math.atan, xa,
                       np.concatenate([tails, tails * 40]).astype(np.float32))
    # asin and acos: as atan, on [-1, 1] and a little beyond.
    xs = np.concatenate([x32[:2000], x32[2000:] * 0.99, [1.0, -1.0, 1.0000001, -1.5],
                         np.float32(1) - rng.uniform(0, 1e-4, 7)]).astype(np.float32)
    ts = np.concatenate([tails, tails * 0.5]).astype(np.float32)
    for name in ("asin", "acos"):
        _packets_and_tails(tf, out, name, getattr(tf.math, name), xs, ts)
    # reciprocal (float32: the rcpps estimate and a Newton step on packets, a
    # division on the tail): wide magnitudes, zeros, subnormals, huge values.
    xr = np.concatenate([xa, xa[:500] * 1e-35, xa[:500] * 1e35, [3e38, -3e38, 1e-38]]).astype(
        np.float32)
    tr = np.concatenate([tails, tails * 1e36, [3e38, -3e38, 0.0, 1e-39]]).astype(np.float32)
    _packets_and_tails(tf, out, "reciprocal", tf.math.reciprocal, xr, tr)
    # The elementwise gradient ops (tests/test_elementwise_grad_ops.py).
    gy = rng.uniform(-3, 3, 2000).astype(np.float32)
    gd = rng.uniform(-3, 3, 2000).astype(np.float32)
    out["grad_y"], out["grad_dy"] = gy, gd
    for name in ("TanhGrad", "SigmoidGrad", "ReciprocalGrad", "InvGrad", "RsqrtGrad"):
        out["grad_" + name] = getattr(tf.raw_ops, name)(y=gy, dy=gd).numpy()
    out["grad_SqrtGrad"] = tf.raw_ops.SqrtGrad(y=np.abs(gy) + np.float32(0.01), dy=gd).numpy()
    for name in ("SoftplusGrad", "SoftsignGrad"):
        out["grad_" + name] = getattr(tf.raw_ops, name)(gradients=gd, features=gy).numpy()
    out["grad_Inv"] = tf.raw_ops.Inv(x=gy).numpy()
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "tests", "data", "tf_hyperbolic.npz")
    np.savez_compressed(path, tf_version=tf.__version__, **out)
    print("wrote", os.path.normpath(path), sum(v.size for v in out.values()), "values")


if __name__ == "__main__":
    main()
