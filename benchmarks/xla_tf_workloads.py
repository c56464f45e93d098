"""TensorFlow's side of the xla mode of the core benchmarks (run.py --xla
--compare-tensorflow): the workloads of xla_workloads.py under TensorFlow's
`tf.function(jit_compile=True)`, timed in TensorFlow's own interpreter (no
rillflow imported: `python xla_tf_workloads.py NAME...` prints one JSON
line per workload, {"name", "wall", "cpu"}: best seconds per call).
"""
import json
import sys
import time

import numpy as np


def _power_x():
    return np.array([[(i * 7 + j * 3) % 3 - 1 for j in range(10)] for i in range(10)],
                    dtype=np.int32)


def _tf_simple(make):
    def build(tfr):
        fn, args = make(tfr)
        g = tfr.function(fn, jit_compile=True)
        g(*args)
        return lambda: g(*args)
    return build


def _tf_mlp(tfr):
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((64, 784)).astype(np.float32)
    yb = rng.integers(0, 10, 64).astype(np.int32)
    w1 = tfr.Variable((rng.standard_normal((784, 256)) * 0.05).astype(np.float32))
    w2 = tfr.Variable((rng.standard_normal((256, 10)) * 0.05).astype(np.float32))
    x, y = tfr.constant(xb), tfr.constant(yb)

    @tfr.function(jit_compile=True)
    def step(x, y):
        with tfr.GradientTape() as tape:
            logits = tfr.matmul(tfr.nn.relu(tfr.matmul(x, w1)), w2)
            loss = tfr.reduce_mean(
                tfr.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.1 * g1)
        w2.assign_sub(0.1 * g2)
        return loss
    step(x, y)
    return lambda: step(x, y)


def _tf_rnn(tfr):
    rng = np.random.default_rng(2)
    steps, batch, units = 100, 32, 64
    xs = tfr.constant(rng.standard_normal((steps, batch, units)).astype(np.float32))
    w = tfr.constant((rng.standard_normal((units, units)) * 0.1).astype(np.float32))
    u = tfr.constant((rng.standard_normal((units, units)) * 0.1).astype(np.float32))

    def rnn(xs, w, u):
        states = tfr.TensorArray(tfr.float32, size=steps)
        h = tfr.zeros([batch, units])
        for t in tfr.range(steps):
            h = tfr.tanh(tfr.matmul(xs[t], w) + tfr.matmul(h, u))
            states = states.write(t, h)
        return states.stack()
    return rnn, (xs, w, u)


def _tf_power(tfr, loop):
    x = tfr.constant(_power_x())

    def p(x, y):
        result = tfr.eye(10, dtype=tfr.int32)
        for _ in (tfr.range(y) if loop else range(y)):
            result = tfr.matmul(x, result)
        return result
    return p, (x, tfr.constant(100) if loop else 100)


def _tf_collatz(tfr):
    def c(a):
        def body(a, n):
            a = tfr.cond(a % 2 == 0, lambda: a // 2, lambda: 3 * a + 1)
            return a, n + 1
        return tfr.while_loop(lambda a, n: a != 1, body, [a, tfr.constant(0)])[1]
    return c, (tfr.constant(27),)


def _tf_collatz_autograph(tfr):
    def c(a):
        counter = 0
        while a != 1:
            if a % 2 == 0:
                a = a // 2
            else:
                a = 3 * a + 1
            counter = counter + 1
        return counter
    return c, (tfr.constant(27),)


def _first_call_source():
    """workloads.py's `_FIRST_CALL_SRC`, read without importing workloads.py
    (which imports rillflow)."""
    import ast
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads.py")
    with open(path) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == \
                "_FIRST_CALL_SRC":
            return ast.literal_eval(node.value)
    raise LookupError("_FIRST_CALL_SRC")


def _tf_first_call(tfr):
    """A new function's first call under jit_compile=True: AutoGraph,
    tracing and XLA's compile each time."""
    import linecache
    src = _first_call_source()
    counter = [0]
    x, n = tfr.constant([1.0, 2.0]), tfr.constant(5)

    def fresh_call():
        counter[0] += 1
        filename = "<first_call_xla_%d>" % counter[0]
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns = {"tf": tfr, "__name__": "benchmark_first_call"}
        exec(compile(src, filename, "exec"), ns)
        out = tfr.function(ns["fifteen_lines"], jit_compile=True)(x, n)
        del linecache.cache[filename]
        return out
    fresh_call()
    return fresh_call


TF_BUILDERS = {
    "call_overhead": _tf_simple(lambda tfr: (lambda x: x + 1.0, (tfr.constant(1.0),))),
    "power_unrolled": _tf_simple(lambda tfr: _tf_power(tfr, False)),
    "power_loop": _tf_simple(lambda tfr: _tf_power(tfr, True)),
    "collatz": _tf_simple(_tf_collatz_autograph),
    "collatz_while_loop": _tf_simple(_tf_collatz),
    "mlp_train_step": _tf_mlp,
    "elementwise_1m": _tf_simple(lambda tfr: (
        lambda x: tfr.tanh(x) * 2 + tfr.sin(x) ** 2 - x / 3,
        (tfr.constant(np.random.default_rng(1).standard_normal(1_000_000).astype(
            np.float32)),))),
    "rnn_tensorarray": _tf_simple(_tf_rnn),
    "first_call_latency": _tf_first_call,
}


def best_time(fn, min_time=0.2, rounds=5):
    """Best (wall, cpu) seconds per call over `rounds` rounds of about
    `min_time` / 5 seconds each."""
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= min_time / 5 or n >= 1 << 20:
            break
        n *= 4
    wall = cpu = float("inf")
    for _ in range(rounds):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(n):
            fn()
        wall = min(wall, (time.perf_counter() - t0) / n)
        cpu = min(cpu, (time.process_time() - c0) / n)
    return wall, cpu


def main(argv):
    """Times the named workloads on TensorFlow; one JSON line each."""
    import tensorflow as tfr
    min_time = float(argv[0])
    for name in argv[1:]:
        call = TF_BUILDERS[name](tfr)
        fn = (lambda: call().numpy())    # waits for the result
        wall, cpu = best_time(fn, min_time)
        print(json.dumps({"name": name, "wall": wall, "cpu": cpu}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
