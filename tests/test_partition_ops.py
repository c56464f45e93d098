"""ensure_shape, unravel_index, dynamic_partition/dynamic_stitch,
confusion_matrix, multiply_no_nan, reciprocal_no_nan, scalar_mul,
global_norm: results as TensorFlow 2.21 gives them."""
import numpy as np
import pytest

import rillflow as tf
from helpers import runner

X = tf.constant([[1.0, 2.0], [3.0, 4.0]])


def test_ensure_shape():
    assert tf.ensure_shape(X, [2, None]) is not None
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input \[2,2\] is not compatible with expected shape \[3,2\]"):
        tf.ensure_shape(X, [3, 2])

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
    def f(v):
        return tf.ensure_shape(v, [None, 2])
    assert f.get_concrete_function().output_shapes == tf.TensorShape([None, 2])
    np.testing.assert_array_equal(f(X).numpy(), X.numpy())
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[3\].*\[\?,2\]"):
        f(tf.ones([3]))
    with pytest.raises(ValueError):
        tf.function(lambda v: tf.ensure_shape(v, [3]))(tf.ones([2]))


def test_unravel_index():
    assert tf.unravel_index(tf.constant([5, 7]), tf.constant([3, 4])).numpy().tolist() == \
        [[1, 1], [1, 3]]
    assert tf.unravel_index(tf.constant(5), tf.constant([3, 4])).numpy().tolist() == [1, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bound"):
        tf.unravel_index(tf.constant([12]), tf.constant([3, 4]))


@pytest.mark.parametrize("in_function", [False, True])
def test_dynamic_partition_and_stitch_with_gradients(in_function):
    run = runner(in_function)
    parts = run(lambda: tf.dynamic_partition(tf.constant([10, 20, 30, 40]),
                                             tf.constant([0, 1, 0, 1]), 2))
    assert [p.numpy().tolist() for p in parts] == [[10, 30], [20, 40]]
    stitched = run(lambda: tf.dynamic_stitch([tf.constant([0, 2]), tf.constant([1, 3])],
                                             [tf.constant([1., 2.]), tf.constant([3., 4.])]))
    assert stitched.numpy().tolist() == [1.0, 3.0, 2.0, 4.0]
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])

    def grads():
        with tf.GradientTape() as t:
            t.watch(data)
            a, b = tf.dynamic_partition(data, tf.constant([1, 0, 1]), 2)
            y = tf.reduce_sum(a * 2.0) + tf.reduce_sum(b * b)
        return t.gradient(y, data)
    np.testing.assert_array_equal(run(grads).numpy(), [[2, 4], [2, 2], [10, 12]])


def test_confusion_matrix():
    cm = tf.math.confusion_matrix([0, 1, 2, 1], [0, 2, 2, 1])
    assert cm.dtype == tf.int32 and cm.numpy().tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    weighted = tf.math.confusion_matrix([0, 1], [1, 1], num_classes=3, dtype=tf.float32)
    assert weighted.numpy().tolist() == [[0, 1, 0], [0, 1, 0], [0, 0, 0]]


def test_no_nan_products_scalar_mul_and_global_norm():
    y = tf.math.multiply_no_nan(tf.constant([float("inf"), 2.0]), tf.constant([0.0, 3.0]))
    assert y.numpy().tolist() == [0.0, 6.0]
    a, b = tf.constant([float("inf"), 2.0]), tf.constant([0.0, 3.0])
    with tf.GradientTape() as t:
        t.watch([a, b])
        z = tf.reduce_sum(tf.math.multiply_no_nan(a, b))
    ga, gb = t.gradient(z, [a, b])
    assert ga.numpy().tolist() == [0.0, 3.0] and gb.numpy().tolist()[1] == 2.0
    assert tf.math.reciprocal_no_nan(tf.constant([0.0, 4.0])).numpy().tolist() == [0.0, 0.25]
    assert tf.math.scalar_mul(2.0, X).numpy().tolist() == [[2, 4], [6, 8]]
    assert float(tf.linalg.global_norm([tf.constant([3.0]), None, tf.constant([4.0])])) == 5.0


def test_dynamic_stitch_gradient_through_partition():
    # The gradient of DynamicStitch gathers g at each indices input (a regression: it
    # imported gather from a module without it). TensorFlow 2.21 gives the same values.
    x = tf.constant([1., 2., 3., 4.])
    for run in (lambda f: f(), lambda f: tf.function(f)()):
        def grad():
            with tf.GradientTape() as t:
                t.watch(x)
                parts = tf.dynamic_partition(x, [0, 1, 0, 1], 2)
                y = tf.dynamic_stitch([[0, 2], [1, 3]], [parts[0] * 2., parts[1] * 3.])
                loss = tf.reduce_sum(y * tf.constant([1., 10., 100., 1000.]))
            return t.gradient(loss, x)
        assert run(grad).numpy().tolist() == [2.0, 30.0, 200.0, 3000.0]
