"""The benchmark workloads (issue 7's table). Each `build()` returns callables
for rillflow eager, rillflow function and the same computation hand-written
in NumPy, plus `check()` asserting that their results agree."""
import numpy as np

import rillflow as tf


class Workload:
    """A named benchmark with its target (as text, for the table)."""

    def __init__(self, name, build, target="", build_tensorflow=None, ratio_target=None):
        self.name = name
        self.build = build
        self.target = target
        self.ratio_target = ratio_target
        if build_tensorflow is not None:
            self.build_tensorflow = build_tensorflow


def _close(a, b, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


# --- eager op overhead --------------------------------------------------------------------

def _eager_add():
    a = tf.constant(np.ones((2, 2), np.float32))
    b = tf.constant(np.ones((2, 2), np.float32))
    an, bn = a.numpy(), b.numpy()
    return {"eager": lambda: tf.add(a, b), "numpy": lambda: np.add(an, bn)}


# --- call overhead --------------------------------------------------------------------------

def _call_overhead():
    f = tf.function(lambda x: x + 1.0)
    x = tf.constant(1.0)
    xn = np.float32(1.0)
    f(x)

    def check():
        assert float(f(x)) == 2.0
    return {"eager": lambda: x + 1.0, "function": lambda: f(x),
            "numpy": lambda: xn + np.float32(1.0), "check": check}


def _call_overhead_tf(tf_ref):
    f = tf_ref.function(lambda x: x + 1.0)
    x = tf_ref.constant(1.0)
    f(x)
    return lambda: f(x)


# --- seed 001's power benchmark -------------------------------------------------------------

def _power_x():
    return np.array([[(i * 7 + j * 3) % 3 - 1 for j in range(10)] for i in range(10)],
                    dtype=np.int32)


def power(x, y):
    """Seed 001's benchmark: y matmuls in a Python loop (unrolled in graphs)."""
    result = tf.eye(10, dtype=tf.int32)
    for _ in range(y):
        result = tf.matmul(x, result)
    return result


def np_power(x, y):
    """`power` hand-written in NumPy."""
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = np.matmul(x, result)
    return result


def _power_unrolled():
    xn = _power_x()
    x = tf.constant(xn)
    g = tf.function(power)
    g(x, 100)

    def check():
        np.testing.assert_array_equal(g(x, 100).numpy(), np_power(xn, 100))
        np.testing.assert_array_equal(power(x, 100).numpy(), np_power(xn, 100))
    return {"eager": lambda: power(x, 100), "function": lambda: g(x, 100),
            "numpy": lambda: np_power(xn, 100), "check": check}


def _power_unrolled_tf(tf_ref):
    x = tf_ref.constant(_power_x())

    def p(x, y):
        result = tf_ref.eye(10, dtype=tf_ref.int32)
        for _ in range(y):
            result = tf_ref.matmul(x, result)
        return result
    g = tf_ref.function(p)
    g(x, 100)
    return lambda: g(x, 100)


def power_loop(x, y):
    """`power` with a graph loop (`for _ in tf.range(y)`)."""
    result = tf.eye(10, dtype=tf.int32)
    for _ in tf.range(y):
        result = tf.matmul(x, result)
    return result


def _power_loop():
    xn = _power_x()
    x = tf.constant(xn)
    y = tf.constant(100)
    g = tf.function(power_loop)
    g(x, y)

    def check():
        np.testing.assert_array_equal(g(x, y).numpy(), np_power(xn, 100))
    return {"eager": lambda: power_loop(x, y), "function": lambda: g(x, y),
            "numpy": lambda: np_power(xn, 100), "check": check}


# --- collatz ------------------------------------------------------------------------------------

def collatz(a):
    """Steps of the Collatz sequence from `a` (seed 002)."""
    counter = 0
    while a != 1:
        if a % 2 == 0:
            a = a // 2
        else:
            a = 3 * a + 1
        counter = counter + 1
    return counter


def np_collatz(a):
    """`collatz` on NumPy int32 scalars."""
    counter = np.int32(0)
    one, two, three = np.int32(1), np.int32(2), np.int32(3)
    while a != one:
        if a % two == 0:
            a = a // two
        else:
            a = three * a + one
        counter = counter + one
    return counter


def _collatz():
    a = tf.constant(27)
    g = tf.function(collatz)
    g(a)

    def check():
        assert int(g(a)) == 111 == int(np_collatz(np.int32(27)))
    return {"eager": lambda: collatz(a), "function": lambda: g(a),
            "numpy": lambda: np_collatz(np.int32(27)), "check": check}


def collatz_while_loop(a):
    """`collatz` written directly with tf.while_loop and tf.cond."""
    def body(a, n):
        a = tf.cond(a % 2 == 0, lambda: a // 2, lambda: 3 * a + 1)
        return a, n + 1
    return tf.while_loop(lambda a, n: a != 1, body, [a, tf.constant(0)])[1]


def _collatz_while_loop():
    a = tf.constant(27)
    g = tf.function(collatz_while_loop)
    g(a)

    def check():
        assert int(g(a)) == int(collatz_while_loop(a)) == 111
    return {"eager": lambda: collatz_while_loop(a), "function": lambda: g(a),
            "numpy": lambda: np_collatz(np.int32(27)), "check": check}


# --- MLP train step --------------------------------------------------------------------------

def _mlp():
    rng = np.random.default_rng(0)
    xb = rng.standard_normal((64, 784)).astype(np.float32)
    yb = rng.integers(0, 10, 64).astype(np.int32)
    w1_0 = (rng.standard_normal((784, 256)) * 0.05).astype(np.float32)
    w2_0 = (rng.standard_normal((256, 10)) * 0.05).astype(np.float32)
    lr = np.float32(0.1)
    w1 = tf.Variable(w1_0)
    w2 = tf.Variable(w2_0)
    x, y = tf.constant(xb), tf.constant(yb)

    def step(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1))
            logits = tf.matmul(h, w2)
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(lr * g1)
        w2.assign_sub(lr * g2)
        return loss
    g = tf.function(step)
    state = {"w1": w1_0.copy(), "w2": w2_0.copy()}

    def np_step(x, y):
        w1n, w2n = state["w1"], state["w2"]
        a = x @ w1n
        h = np.maximum(a, 0)
        logits = h @ w2n
        m = logits.max(axis=1, keepdims=True)
        e = np.exp(logits - m)
        s = e.sum(axis=1, keepdims=True)
        p = e / s
        loss = np.mean(np.log(s[:, 0]) + m[:, 0] - logits[np.arange(len(y)), y])
        d = p
        d[np.arange(len(y)), y] -= 1
        d /= len(y)
        g2 = h.T @ d
        dh = d @ w2n.T
        dh[a <= 0] = 0
        g1 = x.T @ dh
        state["w1"] = w1n - lr * g1
        state["w2"] = w2n - lr * g2
        return loss
    g(x, y)

    def check():
        w1.assign(w1_0)
        w2.assign(w2_0)
        state["w1"], state["w2"] = w1_0.copy(), w2_0.copy()
        for _ in range(3):
            l_f = float(g(x, y))
            l_n = float(np_step(xb, yb))
            _close(l_f, l_n, rtol=1e-4)
        _close(w1.numpy(), state["w1"], rtol=1e-3, atol=1e-5)
    return {"eager": lambda: step(x, y), "function": lambda: g(x, y),
            "numpy": lambda: np_step(xb, yb), "check": check}


# --- elementwise on 1M elements ---------------------------------------------------------------

def _elementwise():
    xn = np.random.default_rng(1).standard_normal(1_000_000).astype(np.float32)
    x = tf.constant(xn)

    def f(x):
        return tf.tanh(x) * 2 + tf.sin(x) ** 2 - x / 3
    g = tf.function(f)
    g(x)

    def np_f(x):
        return np.tanh(x) * 2 + np.sin(x) ** 2 - x / 3

    def check():
        _close(g(x).numpy(), np_f(xn), rtol=1e-5, atol=1e-5)
    return {"eager": lambda: f(x), "function": lambda: g(x), "numpy": lambda: np_f(xn),
            "check": check}


# --- RNN with a TensorArray -------------------------------------------------------------------

def _rnn():
    rng = np.random.default_rng(2)
    steps, batch, units = 100, 32, 64
    xs_n = rng.standard_normal((steps, batch, units)).astype(np.float32)
    w_n = (rng.standard_normal((units, units)) * 0.1).astype(np.float32)
    u_n = (rng.standard_normal((units, units)) * 0.1).astype(np.float32)
    xs, w, u = tf.constant(xs_n), tf.constant(w_n), tf.constant(u_n)

    def rnn(xs, w, u):
        states = tf.TensorArray(tf.float32, size=steps)
        h = tf.zeros([batch, units])
        for t in tf.range(steps):
            h = tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, u))
            states = states.write(t, h)
        return states.stack()
    g = tf.function(rnn)
    g(xs, w, u)

    def np_rnn(xs, w, u):
        h = np.zeros((batch, units), np.float32)
        out = np.empty((steps, batch, units), np.float32)
        for t in range(steps):
            h = np.tanh(xs[t] @ w + h @ u)
            out[t] = h
        return out

    def check():
        _close(g(xs, w, u).numpy(), np_rnn(xs_n, w_n, u_n), rtol=1e-4, atol=1e-5)
    return {"eager": lambda: rnn(xs, w, u), "function": lambda: g(xs, w, u),
            "numpy": lambda: np_rnn(xs_n, w_n, u_n), "check": check}


# --- first-call latency ------------------------------------------------------------------------

_FIRST_CALL_SRC = '''
def fifteen_lines(x, n):
    total = tf.constant(0.0)
    i = 0
    while i < n:
        if i % 2 == 0:
            total = total + tf.reduce_sum(x) * 2.0
        else:
            total = total - 1.0
        i += 1
    for k in tf.range(3):
        total = total + tf.cast(k, tf.float32)
    scaled = total / 2.0
    if scaled > 100.0:
        scaled = scaled - 100.0
    return scaled
'''


def _first_call():
    import linecache
    counter = [0]
    x, n = tf.constant([1.0, 2.0]), tf.constant(5)

    def fresh_call():
        # A new function object with a new code object each time, so nothing
        # is cached: parse + convert + trace + compile + run.
        counter[0] += 1
        filename = "<first_call_%d>" % counter[0]
        linecache.cache[filename] = (len(_FIRST_CALL_SRC), None,
                                     _FIRST_CALL_SRC.splitlines(True), filename)
        ns = {"tf": tf, "__name__": "benchmark_first_call"}
        exec(compile(_FIRST_CALL_SRC, filename, "exec"), ns)
        out = tf.function(ns["fifteen_lines"])(x, n)
        del linecache.cache[filename]
        return out

    def check():
        assert abs(float(fresh_call()) - 9.5) < 1e-6, float(fresh_call())
    return {"function": fresh_call, "check": check}


def _map_batch():
    import data_workloads
    return data_workloads.map_batch_1m()


def _generator_map_batch():
    import data_workloads
    return data_workloads.generator_map_batch_100k()


ALL = [
    Workload("eager_add_2x2", _eager_add, "tf.add within 3 us of np.add"),
    Workload("call_overhead", _call_overhead, "< 5 us per call", _call_overhead_tf),
    Workload("power_unrolled", _power_unrolled, "<= 1.2", _power_unrolled_tf, 1.2),
    Workload("power_loop", _power_loop, "<= 1.2", ratio_target=1.2),
    Workload("collatz", _collatz, "<= 2.0", ratio_target=2.0),
    Workload("collatz_while_loop", _collatz_while_loop, "(tf.while_loop form)"),
    Workload("mlp_train_step", _mlp, "<= 1.05", ratio_target=1.05),
    Workload("elementwise_1m", _elementwise, "<= 0.8", ratio_target=0.8),
    Workload("rnn_tensorarray", _rnn, "<= 1.2", ratio_target=1.2),
    Workload("first_call_latency", _first_call, "< 15 ms"),
    Workload("data_map_batch_1m", _map_batch, "vs plain generator"),
    Workload("data_generator_map_batch", _generator_map_batch, "vs plain generator"),
]
