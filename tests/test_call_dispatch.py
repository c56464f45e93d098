"""The call of a tf.function used with one signature (function/fast_call.py's
make_dispatch): the generated `__call__` checks the signature and runs the
fast path inline; every other call takes the general path and gives the
same answers."""
import inspect
import weakref

import numpy as np
import pytest

import rillflow as tf


def _dispatching(f):
    return "_call" in vars(f)


def test_one_signature_then_others_give_the_python_answers():
    def py(x, n):
        return x * n + 1.0
    f = tf.function(py)
    x = tf.constant(np.arange(3, dtype=np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(f(x, 2).numpy(), [1.0, 3.0, 5.0])
    assert _dispatching(f)
    # Another value of the Python argument, another dtype and shape, a
    # keyword, a NumPy array: all the general path, each its own answer.
    np.testing.assert_array_equal(f(x, 3).numpy(), [1.0, 4.0, 7.0])
    np.testing.assert_array_equal(f(x, 2).numpy(), [1.0, 3.0, 5.0])
    np.testing.assert_array_equal(f(x, n=2).numpy(), [1.0, 3.0, 5.0])
    xd = tf.constant(np.arange(2, dtype=np.float64))
    np.testing.assert_array_equal(f(xd, 2).numpy(), [1.0, 3.0])
    assert f(xd, 2).dtype == tf.float64
    np.testing.assert_array_equal(f(np.ones(2, np.float32), 2).numpy(), [3.0, 3.0])
    assert f(x, 2.0).dtype == tf.float32 and float(f(x, True)[1]) == 2.0
    assert not _dispatching(f)       # several signatures: the general call


@pytest.mark.parametrize("jit", [None, True])
def test_scalars_and_zero_d_arrays_of_one_signature(jit):
    if jit and __import__("importlib").util.find_spec("jax") is None:
        pytest.skip("needs JAX (the xla extra)")
    f = tf.function(lambda x: x * 2, jit_compile=jit)
    s = tf.constant(np.float32(1.5))        # a NumPy scalar inside
    a = tf.constant(np.array(2.5, np.float32))
    for _ in range(2):
        assert float(f(s)) == 3.0
    assert float(f(a)) == 5.0 and float(f(s)) == 3.0
    i = tf.constant(4)
    assert int(f(i)) == 8 and f(i).dtype == tf.int32
    assert f.experimental_get_tracing_count() == 2


def test_tapes_graphs_and_eager_mode_take_the_general_path():
    f = tf.function(lambda x: x * x)
    x = tf.constant(3.0)
    f(x), f(x)
    assert _dispatching(f)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(tape.gradient(y, x)) == 6.0

    @tf.function
    def outer(x):
        return f(x) + 1.0
    assert float(outer(x)) == 10.0
    calls = []

    def py(x):
        calls.append(1)
        return x + 1.0
    g = tf.function(py)
    g(x), g(x)
    tf.config.run_functions_eagerly(True)
    try:
        assert float(g(x)) == 4.0 and len(calls) == 2   # ran as Python
    finally:
        tf.config.run_functions_eagerly(False)
    assert float(g(x)) == 4.0 and len(calls) == 2


def test_errors_signature_and_the_function_object():
    @tf.function
    def f(x, y=2):
        """Doc."""
        tf.debugging.assert_positive(x)
        return x * y
    x = tf.constant([1.0, 2.0])
    f(x, 2), f(x, 2)
    assert _dispatching(f)
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([-1.0, 2.0]), 2)
    assert str(inspect.signature(f)) == "(x, y=2)" and f.__doc__ == "Doc."
    np.testing.assert_array_equal(f.__call__(x).numpy(), [2.0, 4.0])
    assert callable(f)
    r = weakref.ref(f)
    del f
    assert r() is None          # no reference cycle through the generated call


def test_methods_get_their_own_dispatch():
    class M(tf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = tf.Variable(k)

        @tf.function
        def __call__(self, x):
            return x * self.k
    a, b = M(2.0), M(3.0)
    x = tf.constant(1.5)
    for _ in range(3):
        assert float(a(x)) == 3.0 and float(b(x)) == 4.5
    a.k.assign(4.0)
    assert float(a(x)) == 6.0 and float(b(x)) == 4.5
