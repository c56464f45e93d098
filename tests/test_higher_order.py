"""Gradients of gradients through calls of tf.functions (function/higher_order.py):
the same values as the same computation without tf.function, eagerly and
inside another function."""
import numpy as np
import pytest

import rillflow as tf


def nested_grads(fn, x, order):
    """[f'(x), f''(x), ...] up to `order`, by nested tapes."""
    tapes = [tf.GradientTape() for _ in range(order)]
    for t in tapes:
        t.__enter__()
        t.watch(x)
    y = fn(x)
    out = []
    for t in reversed(tapes):
        t.__exit__(None, None, None)
        y = t.gradient(y, x)
        out.append(y)
    return [float(v) for v in out]


def in_function_grads(fn, x):
    """[f'(x), f''(x)] by nested tapes inside one tf.function."""
    @tf.function
    def both(x):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = fn(x)
            d1 = t1.gradient(y, x)
        return d1, t2.gradient(d1, x)
    return [float(v) for v in both(x)]


def cubic_sin(x):
    return x ** 3 + tf.sin(x)


def branchy(x):
    if x > 0:
        y = x ** 3 * tf.cos(x)
    else:
        y = -x
    return y


def inner(x):
    return tf.sin(x) * x


def outer(x):
    return tf.function(inner)(x) ** 2 + tf.exp(-x)


def plain_outer(x):
    return inner(x) ** 2 + tf.exp(-x)


@pytest.mark.parametrize("fn,plain", [(cubic_sin, cubic_sin), (outer, plain_outer),
                                      (branchy, branchy)])
def test_eager_nested_tapes_through_a_function_call(fn, plain):
    x = tf.constant(1.3)
    got = nested_grads(tf.function(fn), x, 3)
    np.testing.assert_allclose(got, nested_grads(plain, x, 3), rtol=1e-5)


def test_known_derivatives_of_a_power():
    got = nested_grads(tf.function(lambda x: x ** 4), tf.constant(1.5), 3)
    assert got == [4 * 1.5 ** 3, 12 * 1.5 ** 2, 24 * 1.5]


def test_nested_tapes_inside_a_function_calling_a_function():
    x = tf.constant(0.7)
    np.testing.assert_allclose(in_function_grads(tf.function(outer), x),
                               nested_grads(plain_outer, x, 2), rtol=1e-5)


def test_hessian_of_a_variable_through_a_function():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def energy(s):
        return tf.reduce_sum(v ** 3) * s
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            e = energy(tf.constant(2.0))
        g = t1.gradient(e, v)
    np.testing.assert_array_equal(g.numpy(), [6.0, 24.0])
    np.testing.assert_array_equal(t2.jacobian(g, v).numpy(), [[12.0, 0.0], [0.0, 24.0]])


def test_gradient_penalty_reaches_the_weights():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])

    def critic(inp):
        return tf.reduce_sum(tf.tanh(tf.matmul(inp, w)))

    def penalty_grad(model):
        inp = tf.constant([[0.1, 0.2]])
        with tf.GradientTape() as outer_tape:
            with tf.GradientTape() as inner_tape:
                inner_tape.watch(inp)
                out = model(inp)
            penalty = tf.reduce_sum(inner_tape.gradient(out, inp) ** 2)
        return outer_tape.gradient(penalty, w).numpy()
    np.testing.assert_allclose(penalty_grad(tf.function(critic)), penalty_grad(critic),
                               rtol=1e-6)


def test_random_numbers_of_the_call_are_reused():
    @tf.function
    def noisy(x):
        return x ** 3 * tf.random.uniform([], 0.5, 1.5)
    x = tf.constant(2.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = noisy(x)
        d1 = t1.gradient(y, x)
    d2 = t2.gradient(d1, x)
    r = float(y) / 8.0
    np.testing.assert_allclose([float(d1), float(d2)], [12.0 * r, 12.0 * r], rtol=1e-6)


def test_prints_run_once(capfd):
    @tf.function
    def chatty(x):
        tf.print("forward")
        return x ** 3
    assert nested_grads(chatty, tf.constant(1.0), 2) == [3.0, 6.0]
    assert capfd.readouterr().err.count("forward") == 1


def test_functions_that_change_variables_say_so():
    v = tf.Variable(1.0)

    @tf.function
    def bump(x):
        v.assign_add(1.0)
        return x * v.read_value()
    x = tf.constant(3.0)
    with tf.GradientTape() as t1:
        t1.watch(x)
        y = bump(x)
    assert float(t1.gradient(y, x)) == 2.0    # first order works
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = bump(x)
        with pytest.raises(tf.errors.UnimplementedError, match="bump.*AssignAddVariableOp"):
            t1.gradient(y, x)


def test_first_order_gradients_keep_the_saved_intermediates_path():
    f = tf.function(cubic_sin)
    x = tf.constant(0.5)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    assert float(t.gradient(y, x)) == pytest.approx(3 * 0.25 + np.cos(0.5))
    assert f.get_concrete_function(x)._gradient()._gradient_function is None


def test_second_order_through_a_graph_conditional():
    x = tf.constant(1.3)
    got = in_function_grads(lambda v: tf.cond(v > 0, lambda: v ** 3 * tf.cos(v), lambda: -v), x)
    np.testing.assert_allclose(got, nested_grads(lambda v: v ** 3 * tf.cos(v), x, 2), rtol=1e-5)


def power_loop(x):
    y = x
    for _ in tf.range(3):
        if y > 0:
            y = y * x
        else:
            y = y - x
    return y


def test_eager_nested_tapes_through_a_graph_loop():
    x = tf.constant(1.5)
    got = nested_grads(tf.function(power_loop), x, 3)
    assert got == [4 * 1.5 ** 3, 12 * 1.5 ** 2, 24 * 1.5]
    loop = lambda v: tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * v), (0, v))[1]
    assert nested_grads(loop, x, 3) == got


def test_second_order_through_a_loop_inside_a_function():
    def rnn(x):
        h = tf.zeros([2])
        for t in tf.range(4):
            h = tf.tanh(h * x + tf.cast(t, tf.float32) * x)
        return tf.reduce_sum(h)

    def plain(x):
        h = tf.zeros([2])
        for t in range(4):
            h = tf.tanh(h * x + float(t) * x)
        return tf.reduce_sum(h)
    x = tf.constant(0.4)
    np.testing.assert_allclose(in_function_grads(rnn, x), nested_grads(plain, x, 2), rtol=1e-5)
