"""The benchmark workloads. Each `build()` returns callables for rillflow
eager, rillflow function and hand-written NumPy (and a `check` that the
results agree)."""
import numpy as np

import rillflow as tf


class Workload:
    """A named benchmark with its target (as text, for the table)."""

    def __init__(self, name, build, target="", build_tensorflow=None):
        self.name = name
        self.build = build
        self.target = target
        if build_tensorflow is not None:
            self.build_tensorflow = build_tensorflow


def _eager_add():
    a = tf.constant(np.ones((2, 2), np.float32))
    b = tf.constant(np.ones((2, 2), np.float32))
    an, bn = a.numpy(), b.numpy()
    return {"eager": lambda: tf.add(a, b), "numpy": lambda: np.add(an, bn)}


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


def _power_x():
    return np.array([[(i * 7 + j * 3) % 3 - 1 for j in range(10)] for i in range(10)],
                    dtype=np.int32)


def _power_unrolled():
    xn = _power_x()
    x = tf.constant(xn)

    def power(x, y):
        result = tf.eye(10, dtype=tf.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result
    g = tf.function(power)

    def np_power(x, y):
        result = np.eye(10, dtype=np.int32)
        for _ in range(y):
            result = np.matmul(x, result)
        return result
    g(x, 100)

    def check():
        np.testing.assert_array_equal(g(x, 100).numpy(), np_power(xn, 100))
        np.testing.assert_array_equal(power(x, 100).numpy(), np_power(xn, 100))
    return {"eager": lambda: power(x, 100), "function": lambda: g(x, 100),
            "numpy": lambda: np_power(xn, 100), "check": check}


def _power_unrolled_tf(tf_ref):
    x = tf_ref.constant(_power_x())

    def power(x, y):
        result = tf_ref.eye(10, dtype=tf_ref.int32)
        for _ in range(y):
            result = tf_ref.matmul(x, result)
        return result
    g = tf_ref.function(power)
    g(x, 100)
    return lambda: g(x, 100)


ALL = [
    Workload("eager_add_2x2", _eager_add, "tf.add within 3 us of np.add"),
    Workload("call_overhead", _call_overhead, "< 5 us per call", _call_overhead_tf),
    Workload("power_unrolled", _power_unrolled, "fn/numpy <= 1.2", _power_unrolled_tf),
]
