"""The call path of `tf.function(jit_compile=True)` (compiler/xla_compile.py):
device arrays cached for values that cannot change, arrays that can change
passed afresh, variables written back, the PRNG key threaded between calls."""
import importlib.util
import threading

import numpy as np
import pytest

import rillflow as tf
from rillflow.compiler import xla_compile

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                                reason="needs JAX (the xla extra)")


def test_a_result_fed_back_gives_the_uncompiled_results():
    f = tf.function(lambda x: x * 2.0 + 1.0, jit_compile=True)
    g = tf.function(lambda x: x * 2.0 + 1.0)
    x = y = tf.constant(np.linspace(-1, 1, 7, dtype=np.float32))
    for _ in range(5):
        x, y = f(x), g(y)
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)


def test_a_numpy_array_changed_in_place_is_passed_afresh():
    a = np.arange(4, dtype=np.float32)
    x = tf.constant(a)           # a copy of a, as in TensorFlow
    f = tf.function(lambda x: tf.reduce_sum(x), jit_compile=True)
    assert float(f(x)) == 6.0 and float(f(a)) == 6.0
    a[:] = 10.0
    assert float(f(x)) == 6.0
    assert float(f(a)) == 40.0   # the array itself, passed again, is read again


def test_numpy_scalars_are_cached_by_identity_and_value():
    f = tf.function(lambda x: x + 1, jit_compile=True)
    for k in range(5):
        assert int(f(tf.constant(k))) == k + 1
    x = tf.constant(41)
    assert int(f(x)) == int(f(x)) == 42


def test_the_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(xla_compile, "_IMMUTABLE_LIMIT", 8)
    f = tf.function(lambda x: x * 3, jit_compile=True)
    for k in range(40):
        assert int(f(tf.constant(k))) == 3 * k
    assert len(xla_compile._immutable) <= 8


def test_variables_read_only_and_written_are_current_each_call():
    w = tf.Variable([1.0, 2.0])
    c = tf.Variable(0.0)

    @tf.function(jit_compile=True)
    def step(x):
        c.assign_add(tf.reduce_sum(w * x))
        return c.read_value()
    assert float(step(tf.constant([1.0, 1.0]))) == 3.0
    w.assign([10.0, 20.0])       # changed eagerly between calls
    assert float(step(tf.constant([1.0, 1.0]))) == 33.0
    c.assign(1.0)
    assert float(step(tf.constant([0.0, 1.0]))) == 21.0
    assert float(c) == 21.0


def test_random_draws_differ_per_call_and_only_random_functions_thread_a_key():
    r = tf.function(lambda: tf.random.uniform([4]), jit_compile=True)
    a, b = r().numpy(), r().numpy()
    assert not np.array_equal(a, b)
    p = tf.function(lambda x: x + 1.0, jit_compile=True)
    p(tf.constant(1.0))
    assert r.get_concrete_function()._ensure_compiled()._uses_key
    assert not p.get_concrete_function(tf.constant(1.0))._ensure_compiled()._uses_key


def test_concurrent_random_calls_draw_distinct_numbers():
    r = tf.function(lambda: tf.random.uniform([3]), jit_compile=True)
    r()
    out = []

    def work():
        for _ in range(20):
            out.append(tuple(r().numpy()))
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == len(out) == 80
