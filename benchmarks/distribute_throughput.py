"""Throughput of a training step under tf.distribute.MirroredStrategy with
N = 1, 2, 4 JAX CPU devices (docs/distribute.md).

Each N runs in its own process (XLA_FLAGS=--xla_force_host_platform_device_count=N
must be set before JAX starts). The model is an MLP (784-512-512-10, float32)
trained with SGD on a fixed global batch; the step is `strategy.run` inside
a `tf.function`. N = 1 is the one-replica strategy running the same step
under `jit_compile=True` (one XLA computation, no sharding). Reported:
examples per second by wall clock and by the process's CPU time.

    python benchmarks/distribute_throughput.py [--batch 512] [--steps 30]

The N devices are host devices of one machine: they share its cores, so
more replicas do not add compute; the figure says what splitting the batch
costs or saves (XLA's per-device thread pools, the all-reduce).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child(n, batch, steps):
    import numpy as np
    import rillflow as tf

    devices = ["/cpu:%d" % i for i in range(n)]
    strategy = tf.distribute.MirroredStrategy(devices)
    rng = np.random.RandomState(0)
    x = rng.randn(batch, 784).astype(np.float32)
    y = rng.randint(0, 10, size=batch).astype(np.int32)
    with strategy.scope():
        sizes = [784, 512, 512, 10]
        ws = [tf.Variable((rng.randn(a, b) * np.sqrt(2.0 / a)).astype(np.float32))
              for a, b in zip(sizes[:-1], sizes[1:])]
        bs = [tf.Variable(np.zeros(b, np.float32)) for b in sizes[1:]]
    params = ws + bs
    ds = tf.data.Dataset.from_tensors((x, y)).repeat()
    it = iter(strategy.experimental_distribute_dataset(ds))

    def step(xb, yb):
        with tf.GradientTape() as tape:
            h = xb
            for i, (w, b) in enumerate(zip(ws, bs)):
                h = tf.matmul(h, w) + b
                if i < len(ws) - 1:
                    h = tf.nn.relu(h)
            loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(yb, h)) / batch
        grads = tape.gradient(loss, params)
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        for p, g in zip(params, grads):
            p.assign_sub(0.01 * g)
        return loss

    inner = tf.function(step, jit_compile=True) if n == 1 else step

    @tf.function
    def train(xb, yb):
        return strategy.reduce("SUM", strategy.run(inner, args=(xb, yb)), axis=None)

    for _ in range(3):
        train(*next(it))
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        loss = train(*next(it))
    float(loss)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"n": n, "batch": batch, "steps": steps, "wall_s": wall, "cpu_s": cpu,
            "examples_per_s_wall": batch * steps / wall, "examples_per_s_cpu": batch * steps / cpu}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=512)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--devices", type=int, nargs="*", default=[1, 2, 4])
    p.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child is not None:
        print(json.dumps(child(a.child, a.batch, a.steps)))
        return
    print(f"{'N':>3} {'examples/s (wall)':>18} {'examples/s (cpu)':>17} {'ms/step':>8}")
    for n in a.devices:
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   XLA_FLAGS="--xla_force_host_platform_device_count=%d" % n)
        out = subprocess.run([sys.executable, __file__, "--child", str(n), "--batch",
                              str(a.batch), "--steps", str(a.steps)], capture_output=True,
                             text=True, env=env, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{n:>3} {r['examples_per_s_wall']:>18.0f} {r['examples_per_s_cpu']:>17.0f} "
              f"{1000 * r['wall_s'] / r['steps']:>8.1f}")


if __name__ == "__main__":
    main()
