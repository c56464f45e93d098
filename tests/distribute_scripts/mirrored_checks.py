"""Run by tests/test_distribute_jax.py in a child process with four JAX CPU
devices (XLA_FLAGS set by the parent before JAX starts): MirroredStrategy
over them against the same training on one device with the global batch,
and the per-replica values' operations against NumPy. Prints "OK".

With the argument "batched", JAX starts with one host device and the CPU is
split into four logical devices afterwards: the four replicas are batched on
that one device, with the same results."""
import sys

import numpy as np

import rillflow as tf

DEVICES = ["/cpu:0", "/cpu:1", "/cpu:2", "/cpu:3"]
GLOBAL_BATCH = 16


def data():
    rng = np.random.RandomState(0)
    x = rng.randn(64, 3).astype(np.float32)
    y = (np.tanh(x @ np.array([[1.0], [2.0], [-1.0]], np.float32)) + 0.5).astype(np.float32)
    return x, y


def train(strategy, mode):
    """Three passes of SGD on a one-layer tanh model; `mode` is "eager"
    (strategy.run called eagerly), "function" (inside a tf.function, the
    dataset iterated in it) or "jit" (an outer jit_compile=True function)."""
    x, y = data()
    with strategy.scope():
        w = tf.Variable(np.full((3, 1), 0.1, np.float32))
        b = tf.Variable(np.zeros((1,), np.float32))
        seen = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
    dist = strategy.experimental_distribute_dataset(ds)

    def step(xb, yb):
        with tf.GradientTape() as tape:
            err = tf.tanh(tf.matmul(xb, w) + b) - yb
            loss = tf.reduce_sum(err * err) / GLOBAL_BATCH
        grads = tape.gradient(loss, [w, b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.5 * grads[0])
        b.assign_sub(0.5 * grads[1])
        seen.assign_add(tf.cast(tf.shape(xb)[0], tf.float32))
        return loss

    def dstep(xb, yb):
        return strategy.reduce("SUM", strategy.run(step, args=(xb, yb)), axis=None)

    losses = []
    if mode == "eager":
        for _ in range(3):
            for xb, yb in dist:
                losses.append(float(dstep(xb, yb)))
    else:
        compiled = tf.function(dstep, jit_compile=(mode == "jit"))

        @tf.function
        def epoch(d):
            total = 0.0
            for xb, yb in d:
                total += compiled(xb, yb)
            return total

        for _ in range(3):
            losses.append(float(epoch(dist)))
    return w.numpy(), b.numpy(), losses, float(seen.numpy())


def check_training():
    one = tf.distribute.MirroredStrategy()
    four = tf.distribute.MirroredStrategy(DEVICES)
    assert one.num_replicas_in_sync == 1 and four.num_replicas_in_sync == 4
    for mode in ("eager", "function", "jit"):
        w1, b1, l1, seen1 = train(one, mode)
        w4, b4, l4, seen4 = train(four, mode)
        np.testing.assert_allclose(w4, w1, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b4, b1, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(l4, l1, rtol=1e-5)
        assert seen1 == seen4 == 192.0, (seen1, seen4)
    # Against NumPy: the same SGD on the global batch.
    x, y = data()
    w, b = np.full((3, 1), 0.1, np.float64), np.zeros((1,))
    for _ in range(3):
        for i in range(0, 64, GLOBAL_BATCH):
            xb, yb = x[i:i + GLOBAL_BATCH], y[i:i + GLOBAL_BATCH]
            t = np.tanh(xb @ w + b)
            d = 2 * (t - yb) * (1 - t * t) / GLOBAL_BATCH
            w, b = w - 0.5 * xb.T @ d, b - 0.5 * d.sum(0)
    np.testing.assert_allclose(w4, w, rtol=1e-4, atol=1e-5)


def check_values():
    s = tf.distribute.MirroredStrategy(DEVICES)
    ds = tf.data.Dataset.from_tensor_slices(np.arange(16, dtype=np.float32).reshape(8, 2))
    x = next(iter(s.experimental_distribute_dataset(ds.batch(8))))
    assert isinstance(x, tf.distribute.DistributedValues)
    local = s.experimental_local_results(x)
    assert len(local) == 4
    np.testing.assert_array_equal(local[1].numpy(), [[4, 5], [6, 7]])
    np.testing.assert_array_equal(s.reduce("SUM", x, axis=None).numpy(), [[24, 28], [32, 36]])
    np.testing.assert_array_equal(s.reduce("MEAN", x, axis=None).numpy(), [[6, 7], [8, 9]])
    np.testing.assert_array_equal(s.reduce("SUM", x, axis=0).numpy(), [56, 64])
    np.testing.assert_array_equal(s.reduce("MEAN", x, axis=0).numpy(), [7, 8])
    np.testing.assert_array_equal(s.gather(x, axis=0).numpy(),
                                  np.arange(16).reshape(8, 2))
    np.testing.assert_array_equal(s.reduce("SUM", (x, {"a": x}), axis=None)[1]["a"].numpy(),
                                  [[24, 28], [32, 36]])

    def fn(v, c):
        ctx = tf.distribute.get_replica_context()
        assert ctx.num_replicas_in_sync == 4
        rid = ctx.replica_id_in_sync_group
        return {"id": rid, "mean": ctx.all_reduce(tf.distribute.ReduceOp.MEAN, v),
                "plus": v + c}

    out = s.run(fn, args=(x, tf.constant(1.0)))
    np.testing.assert_array_equal([t.numpy() for t in s.experimental_local_results(out["id"])],
                                  [0, 1, 2, 3])
    for t in s.experimental_local_results(out["mean"]):
        np.testing.assert_array_equal(t.numpy(), [[6, 7], [8, 9]])
    np.testing.assert_array_equal(s.gather(out["plus"], 0).numpy(),
                                  np.arange(16).reshape(8, 2) + 1)
    # One replica's batches from a function: consecutive elements.
    dd = s.distribute_datasets_from_function(
        lambda ctx: tf.data.Dataset.range(8).batch(ctx.get_per_replica_batch_size(8)))
    first = next(iter(dd))
    np.testing.assert_array_equal([t.numpy() for t in s.experimental_local_results(first)],
                                  [[0, 1], [2, 3], [4, 5], [6, 7]])
    try:
        next(iter(s.experimental_distribute_dataset(ds.batch(6, drop_remainder=True))))
    except ValueError as e:
        assert "not divisible by the 4 replicas" in str(e), e
    else:
        raise AssertionError("an uneven batch was split")
    uneven = s.experimental_distribute_dataset(ds.batch(6))   # 6, then 2: sizes at run time
    try:
        next(iter(uneven))
    except tf.errors.InvalidArgumentError as e:
        assert "not divisible by the 4 replicas" in str(e), e
    else:
        raise AssertionError("an uneven batch was split")
    try:
        tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:7"])
    except ValueError as e:
        assert "/device:CPU:7 is not available" in str(e), e
    else:
        raise AssertionError("a missing device was accepted")


if __name__ == "__main__":
    if sys.argv[1:] == ["batched"]:
        import jax
        assert len(jax.devices()) == 1   # JAX's backend starts with one host device
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(4)])
        assert tf.distribute.MirroredStrategy(DEVICES)._runner.mesh is None
    check_training()
    check_values()
    print("OK")
