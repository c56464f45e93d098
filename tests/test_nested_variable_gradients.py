"""Gradients for variables read in a branch or loop nested in a loop body
(the variable's handle reaches the inner graph as a capture of the loop
body, or directly as the eager handle). Expected values: TensorFlow 2.21."""
import numpy as np
import pytest

import rillflow as tf


def _for_cond(x, w):
    total = tf.constant(0.0)
    for i in tf.range(4):
        if tf.reduce_sum(x) > 0:
            total += tf.reduce_sum(x * w)
        else:
            total -= 1.0
    return total


def _nested_loops(x, w):
    total = tf.constant(0.0)
    for i in tf.range(3):
        for j in tf.range(2):
            total += tf.reduce_sum(x * w) * tf.cast(j + 1, tf.float32)
    return total


def _cond_in_cond(x, w):
    total = tf.constant(0.0)
    for i in tf.range(3):
        if tf.reduce_sum(x) > 0:
            if i > 0:
                total += tf.reduce_sum(x * w * w)
            else:
                total -= tf.reduce_sum(w)
    return total


def _loop_in_cond_in_loop(x, w):
    total = tf.constant(0.0)
    for i in tf.range(2):
        if i > 0:
            for j in tf.range(3):
                total += tf.reduce_sum(w * x)
    return total


def _while_with_cond(x, w):
    total = tf.constant(0.0)
    while total < 20.0:
        if total < 5.0:
            total += tf.reduce_sum(x * w) * 2.0
        else:
            total += tf.reduce_sum(x * w)
    return total


CASES = [(_for_cond, 10.0, [12.0, 4.0]), (_nested_loops, 22.5, [27.0, 9.0]),
         (_cond_in_cond, 6.0, [11.0, -3.0]), (_loop_in_cond_in_loop, 7.5, [9.0, 3.0]),
         (_while_with_cond, 20.0, [24.0, 8.0])]


@pytest.mark.parametrize("body,value,grad", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_of_a_variable_read_in_nested_control_flow(body, value, grad):
    w = tf.Variable([1.0, -0.5])
    x = tf.constant([3.0, 1.0])
    f = tf.function(lambda x: body(x, w))
    with tf.GradientTape() as tape:
        y = f(x)
    assert float(y) == value
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), grad)

    @tf.function
    def inside(x):
        with tf.GradientTape() as t:
            y = body(x, w)
        return t.gradient(y, w)
    np.testing.assert_array_equal(inside(x).numpy(), grad)


def test_loop_with_tensor_array_and_counter_gives_tensorflows_gradients():
    w = tf.Variable([1.0, -0.5])
    count = tf.Variable(0, trainable=False)

    @tf.function
    def loop(x, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        total = tf.constant(0.0)
        for i in tf.range(n):
            if tf.reduce_sum(x) > 0:
                total += tf.reduce_sum(x * w)
            else:
                total -= 1.0
            count.assign_add(1)
            ta = ta.write(i, total)
        return ta.stack(), total
    with tf.GradientTape(persistent=True) as tape:
        s, total = loop(tf.constant([3.0, 1.0]), tf.constant(4))
        y = tf.reduce_sum(s)
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [30.0, 10.0])
    np.testing.assert_array_equal(tape.gradient(total, w).numpy(), [12.0, 4.0])
