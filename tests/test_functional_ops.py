"""map_fn, scan, foldl, foldr, vectorized_map: results, dtypes and shapes as
TensorFlow 2.21 gives them (values checked against it), eagerly, inside
tf.function, and differentiated."""
import numpy as np
import pytest

import rillflow as tf
from helpers import runner

M = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def result(t):
    return t.numpy().tolist(), t.dtype.name, tuple(t.shape)


@pytest.mark.parametrize("in_function", [False, True])
def test_map_fn(in_function):
    run = runner(in_function)
    assert result(run(lambda: tf.map_fn(lambda r: tf.reduce_sum(r), M))) == \
        ([3.0, 7.0, 11.0], "float32", (3,))
    assert result(run(lambda: tf.map_fn(lambda r: r * 2, M)))[0] == [[2, 4], [6, 8], [10, 12]]
    as_int = run(lambda: tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r), tf.int32), M,
                                   fn_output_signature=tf.int32))
    assert result(as_int) == ([3, 7, 11], "int32", (3,))
    pairs = run(lambda: tf.map_fn(lambda xy: (xy[0] + xy[1], xy[0] * 2),
                                  (tf.constant([1, 2]), tf.constant([10, 20]))))
    assert [result(t)[0] for t in pairs] == [[11, 22], [2, 4]]


def test_map_fn_edge_cases():
    assert result(tf.map_fn(lambda r: r * 2, tf.zeros([0, 2])))[2] == (0,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="fn_output_signature=int32"):
        tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r), tf.int32), M)
    with pytest.raises(ValueError, match="1\\+ dimensional"):
        tf.map_fn(lambda r: r, tf.constant(1.0))


@pytest.mark.parametrize("in_function", [False, True])
def test_scan_and_folds(in_function):
    run = runner(in_function)
    v = tf.constant([1, 2, 3, 4])
    assert result(run(lambda: tf.scan(lambda a, x: a + x, v)))[0] == [1, 3, 6, 10]
    assert result(run(lambda: tf.scan(lambda a, x: a * x, v, initializer=2)))[0] == \
        [2, 4, 12, 48]
    assert result(run(lambda: tf.scan(lambda a, x: a + x, v, reverse=True)))[0] == \
        [10, 9, 7, 4]
    both = run(lambda: tf.scan(lambda a, x: (a[0] + x, a[1] * x), tf.constant([1, 2, 3]),
                               initializer=(tf.constant(0), tf.constant(1))))
    assert [result(t)[0] for t in both] == [[1, 3, 6], [1, 2, 6]]
    assert int(run(lambda: tf.foldl(lambda a, x: a - x, tf.constant([1, 2, 3])))) == -4
    assert int(run(lambda: tf.foldr(lambda a, x: a - x, tf.constant([1, 2, 3])))) == 0
    assert float(run(lambda: tf.foldl(lambda a, x: a + x, tf.constant([1.0, 2.0]),
                                      initializer=10.0))) == 13.0


def test_vectorized_map_learns_the_output_signature():
    assert result(tf.vectorized_map(lambda r: tf.reduce_sum(r * r), M)) == \
        ([5.0, 25.0, 61.0], "float32", (3,))
    doubled, as_float = tf.vectorized_map(
        lambda xy: (xy[0] * 2, tf.cast(xy[1], tf.float32)), (M, tf.constant([1, 2, 3])))
    assert result(as_float) == ([1.0, 2.0, 3.0], "float32", (3,))


@pytest.mark.parametrize("in_function", [False, True])
def test_gradients_through_map_fn_and_scan(in_function):
    x = tf.Variable(2.0)

    def through_map():
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.map_fn(lambda r: r * x * x, M))
        return t.gradient(y, x)

    def through_scan():
        with tf.GradientTape() as t:
            t.watch(M)
            y = tf.scan(lambda a, r: a * r, M)
        return t.gradient(y, M)
    run = runner(in_function)
    assert float(run(through_map)) == 84.0
    np.testing.assert_array_equal(run(through_scan).numpy(), [[19, 29], [6, 14], [3, 8]])


# --- map_fn over SparseTensor elements (values from TensorFlow 2.21) -----------------

@pytest.mark.parametrize("in_function", [False, True])
def test_map_fn_over_sparse_and_dense_elements(in_function):
    a = tf.sparse.from_dense(tf.constant([[[1., 0, 2]], [[0, 0, 3]]]))
    b = tf.constant([[[1.], [2.], [3.]], [[4.], [5.], [6.]]])

    def run(a, b):
        return tf.map_fn(lambda x: tf.sparse.sparse_dense_matmul(x[0], x[1]), elems=(a, b),
                         fn_output_signature=tf.float32)
    out = tf.function(run)(a, b) if in_function else run(a, b)
    np.testing.assert_array_equal(out.numpy(), [[[7.]], [[18.]]])
    rows = tf.map_fn(tf.sparse.reduce_sum, a, fn_output_signature=tf.float32)
    np.testing.assert_array_equal(rows.numpy(), [3., 3.])


def test_map_fn_over_sparse_elements_needs_a_dense_signature():
    a = tf.sparse.from_dense(tf.constant([[1., 0], [0, 2]]))
    with pytest.raises(NotImplementedError, match="dense fn_output_signature"):
        tf.map_fn(lambda s: s, a)
