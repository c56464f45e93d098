"""XLA lowerings of image resizing, `tf.random.Generator` ops and loops
with static trip counts: each compared with the uncompiled function on the
same inputs (values and gradients)."""
import importlib.util

import numpy as np
import pytest

import rillflow as tf

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                                reason="needs JAX (the xla extra)")


def both(fn, *args):
    """(jit_compile=True results, plain tf.function results) as NumPy."""
    def flat(r):
        return [np.asarray(t) for t in tf.nest.flatten(r)]
    return flat(tf.function(fn, jit_compile=True)(*args)), flat(tf.function(fn)(*args))


def assert_both(fn, *args, rtol=1e-5, atol=1e-5):
    xla, plain = both(fn, *args)
    assert len(xla) == len(plain)
    for a, b in zip(xla, plain):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def assert_lowered(fn, *args):
    """The function compiles with XLA (no op left without a lowering)."""
    f = tf.function(fn, jit_compile=True)
    compiled = f.get_concrete_function(*args)._ensure_compiled()
    assert type(compiled).__name__ == "XlaCompiledGraph"


IMAGE = np.random.default_rng(0).standard_normal((2, 5, 7, 3)).astype(np.float32)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
@pytest.mark.parametrize("size", [(9, 4), (3, 11), (5, 7)])
def test_resize_methods_match(method, size):
    def f(x):
        return tf.image.resize(x, size, method=method)
    assert_lowered(f, tf.constant(IMAGE))
    assert_both(f, tf.constant(IMAGE))


@pytest.mark.parametrize("op", [tf.compat.v1.image.resize_bilinear,
                                tf.compat.v1.image.resize_nearest_neighbor,
                                tf.compat.v1.image.resize_bicubic])
@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True)])
def test_resize_corner_modes_and_gradients_match(op, flags):
    align, half = flags

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = op(x, [8, 10], align_corners=align, half_pixel_centers=half)
            loss = tf.reduce_sum(y * y)
        return y, tape.gradient(loss, x)
    assert_lowered(f, tf.constant(IMAGE))
    assert_both(f, tf.constant(IMAGE), rtol=1e-4, atol=1e-4)


def test_resize_area_of_integers_and_a_size_from_a_shape():
    img = np.arange(2 * 6 * 6 * 1).reshape(2, 6, 6, 1).astype(np.uint8)

    def f(x):
        return tf.compat.v1.image.resize_area(x, tf.shape(x)[1:3] // 2, align_corners=True)
    assert_both(f, tf.constant(img))


def _generator_draws(jit, state):
    g = tf.random.Generator.from_state(state, alg="philox")

    @tf.function(jit_compile=jit)
    def f():
        total = tf.zeros([2])
        for _ in tf.range(3):      # the state threads through the loop
            total += g.normal([2])
        return (g.uniform([5]), g.normal([3]), g.uniform([4], 0, 10, dtype=tf.int32),
                g.uniform([2], 0, 10 ** 12, dtype=tf.int64),
                g.uniform_full_int([3], tf.uint64), g.uniform([3], dtype=tf.float64),
                g.normal([3], dtype=tf.float64), g.uniform_full_int([2], tf.int32), total)
    if jit:
        assert type(f.get_concrete_function()._ensure_compiled()).__name__ == "XlaCompiledGraph"
    out = [t.numpy() for t in f() + f()]
    return out, g.state.numpy()


@pytest.mark.parametrize("state", [[1234, 0, 0], [2 ** 64 - 300, 5, 77]])
def test_generator_ops_draw_tensorflows_numbers_and_advance_the_state(state):
    state = np.array(state, np.uint64).view(np.int64)
    xla, xla_state = _generator_draws(True, state)
    plain, plain_state = _generator_draws(False, state)
    np.testing.assert_array_equal(xla_state, plain_state)
    for a, b in zip(xla, plain):
        assert a.dtype == b.dtype
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, b)


def test_generator_state_read_and_drawn_in_one_function():
    def run(jit):
        g = tf.random.Generator.from_seed(7)

        @tf.function(jit_compile=jit)
        def f():
            before = g.state.read_value()
            x = g.uniform([4])
            return before, x, g.state.read_value()
        return [t.numpy() for t in f()], g.state.numpy()
    (a, sa), (b, sb) = run(True), run(False)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(sa, sb)


N = tf.constant(4)


def _sin_loop(kind):
    """A loop gradient whose trip count is known when tracing (or, for an
    integer argument, per value of it)."""
    def f(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x
            if kind == "range":
                for _ in tf.range(5):
                    y = tf.sin(y)
            elif kind == "captured":
                for _ in tf.range(N):
                    y = tf.sin(y)
            elif kind == "argument":
                for _ in tf.range(n):
                    y = tf.sin(y)
            elif kind == "steps":
                for i in tf.range(1, 10, 3):
                    y = tf.sin(y) * tf.cast(i, tf.float32)
            elif kind == "down":
                for _ in tf.range(10, 0, -2):
                    y = tf.sin(y)
            elif kind == "shape":
                for _ in tf.range(tf.shape(x)[0]):
                    y = tf.sin(y)
            else:
                y = tf.while_loop(lambda i, y: i <= 2 * 3, lambda i, y: (i + 2, tf.sin(y)),
                                  [0, y])[1]
        return y, tape.gradient(y, x)
    return f


@pytest.mark.parametrize("kind", ["range", "captured", "argument", "steps", "down", "shape",
                                  "while"])
def test_loop_gradients_with_static_trip_counts_match(kind):
    x = tf.constant([0.5, 1.0, 2.0])
    assert_both(_sin_loop(kind), x, tf.constant(3))
    if kind == "argument":
        f = tf.function(_sin_loop(kind), jit_compile=True)
        for n in (2, 5, 2):
            want = tf.function(_sin_loop(kind))(x, tf.constant(n))
            got = f(x, tf.constant(n))
            for a, b in zip(got, want):
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["plain", "blank_last", "batch_major", "impossible", "empty"])
def test_ctc_loss_with_dense_labels_and_its_gradient_match(case):
    rng = np.random.default_rng(3)
    t, b, c = 12, 3, 6
    logits = rng.standard_normal((t, b, c)).astype(np.float32)
    labels = np.array([[1, 2, 2, 3], [4, 1, 0, 0], [5, 5, 5, 5]], np.int32)
    label_length, logit_length = [4, 2, 3], [12, 9, 11]
    blank, major = 0, True
    if case == "blank_last":
        labels, blank = labels - 1, -1
    elif case == "batch_major":
        logits, major = np.transpose(logits, (1, 0, 2)).copy(), False
    elif case == "impossible":
        logit_length = [3, 9, 2]      # shorter than the labels need: TensorFlow's huge loss
    elif case == "empty":
        labels, label_length = np.zeros((3, 0), np.int32), [0, 0, 0]

    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.nn.ctc_loss(tf.constant(labels), x, tf.constant(label_length),
                                  tf.constant(logit_length), logits_time_major=major,
                                  blank_index=blank)
            total = tf.reduce_sum(loss * tf.constant([1.0, 2.0, 3.0]))
        return loss, tape.gradient(total, x)
    assert_lowered(f, tf.constant(logits))
    assert_both(f, tf.constant(logits), rtol=1e-5, atol=1e-5)


def test_elu_and_selu_gradients_select_as_tensorflows_xla_kernels():
    # TensorFlow 2.21 with jit_compile=True (its XLA kernels select on
    # output > 0, the CPU kernels on output < 0): at 0, at a tiny negative
    # whose exp(x) - 1 rounds to 0 on the CPU, and at NaN.
    v = tf.constant([0.0, -0.0, np.nan, -1e-9, 1.0, -1.0])

    @tf.function(jit_compile=True)
    def grads(v):
        with tf.GradientTape(persistent=True) as t:
            t.watch(v)
            y = tf.reduce_sum(tf.nn.selu(v) * 3.0)
            z = tf.reduce_sum(tf.nn.elu(v) * 3.0)
        return t.gradient(y, v), t.gradient(z, v)
    selu, elu = grads(v)
    np.testing.assert_allclose(selu.numpy(), [5.274297714233398, 5.274297714233398, np.nan,
                                              5.274297714233398, 3.1521029472351074,
                                              1.9403057098388672], rtol=1e-7)
    np.testing.assert_allclose(elu.numpy(), [3.0, 3.0, np.nan, 3.0, 3.0, 1.1036384105682373],
                               rtol=1e-7)
