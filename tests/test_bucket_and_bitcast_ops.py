"""searchsorted, histogram_fixed_width and bitcast, with the results
TensorFlow 2.21 gives (eagerly and in a function)."""
import numpy as np
import pytest

import rillflow as tf
from helpers import runner


@pytest.mark.parametrize("in_function", [False, True])
def test_searchsorted(in_function):
    run = runner(in_function)
    s, v = tf.constant([1, 3, 5, 7]), tf.constant([0, 3, 6, 9])
    left = run(lambda: tf.searchsorted(s, v))
    assert left.dtype == tf.int32 and left.numpy().tolist() == [0, 1, 3, 4]
    right = run(lambda: tf.searchsorted(s, v, side="right", out_type=tf.int64))
    assert right.dtype == tf.int64 and right.numpy().tolist() == [0, 2, 3, 4]
    rows = run(lambda: tf.searchsorted(tf.constant([[1., 3.], [2., 4.]]),
                                       tf.constant([[2.], [5.]])))
    assert rows.numpy().tolist() == [[1], [2]]
    with pytest.raises(ValueError, match="side"):
        tf.searchsorted(s, v, side="middle")


def test_histogram_fixed_width():
    h = tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 9.0]), [0.0, 5.0],
                                 nbins=5)
    assert h.dtype == tf.int32 and h.numpy().tolist() == [2, 1, 1, 0, 2]
    h64 = tf.histogram_fixed_width(tf.constant([1, 2, 3]), [0, 4], nbins=2, dtype=tf.int64)
    assert h64.dtype == tf.int64 and h64.numpy().tolist() == [1, 2]
    assert tf.function(lambda v: tf.histogram_fixed_width(v, [0.0, 5.0], nbins=5))(
        tf.constant([1.0, 4.9])).shape == (5,)


def test_bitcast():
    assert int(tf.bitcast(tf.constant(1.0), tf.int32)) == 1065353216
    halves = tf.bitcast(tf.constant([1.0, 2.0]), tf.int16)
    assert halves.shape == (2, 2) and halves.numpy().tolist() == [[0, 16256], [0, 16384]]
    joined = tf.bitcast(tf.constant([[1, 2], [3, 4]], tf.int16), tf.int32)
    assert joined.numpy().tolist() == [131073, 262147]
    assert tf.function(lambda x: tf.bitcast(x, tf.int16))(tf.constant([1.0])).shape == (1, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot bitcast from 5 to 3"):
        tf.bitcast(tf.constant([1, 2, 3], tf.int16), tf.int32)
    with pytest.raises(ValueError, match="Cannot bitcast from 5 to 3"):
        tf.function(lambda x: tf.bitcast(x, tf.int32))(tf.constant([1, 2, 3], tf.int16))
