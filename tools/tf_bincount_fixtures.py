"""TensorFlow's results of `tf.sparse.bincount` and of `tf.math.bincount` on
SparseTensors and RaggedTensors (the SparseBincount, RaggedBincount and
*CountSparseOutput ops), recorded for tests/test_sparse_bincount.py.

    /work/tfref/bin/python tools/tf_bincount_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case

DENSE = [[3, 1, 1, 7], [0, 0, 2, 7]]
W = [[0.5, 1.25, 2.0, -1.0], [3.0, 0.25, 1.0, 4.0]]


def _sp(tf, dtype=None):
    return tf.sparse.SparseTensor([[0, 0], [0, 2], [1, 1], [1, 3], [3, 0], [3, 1]],
                                  tf.constant([4, 1, 1, 1, 9, 4], dtype), [4, 5])


def _rt(tf, dtype=None):
    return tf.ragged.constant([[3, 1, 1], [], [0, 5], [2, 2, 2, 2]], dtype=dtype)


@case
def sparse_bincount_dense_input(tf):
    return [tf.sparse.bincount(DENSE), tf.sparse.bincount(DENSE, axis=-1),
            tf.sparse.bincount(DENSE, axis=-1, binary_output=True),
            tf.sparse.bincount(DENSE, weights=W), tf.sparse.bincount(DENSE, weights=W, axis=-1),
            tf.sparse.bincount(DENSE, minlength=10), tf.sparse.bincount(DENSE, maxlength=3),
            tf.sparse.bincount(DENSE, minlength=2, maxlength=4, axis=-1),
            tf.sparse.bincount(np.array([1, 2], np.int64))]


@case
def sparse_bincount_negative(tf):
    return tf.sparse.bincount([5, -1, 2, 5])


@case
def sparse_bincount_negative_sparse(tf):
    return tf.sparse.bincount(tf.sparse.SparseTensor([[0, 0]], [-3], [2, 2]), axis=-1)


@case
def sparse_bincount_negative_ragged(tf):
    return tf.sparse.bincount(tf.ragged.constant([[1], [-2]]), axis=-1)


@case
def math_bincount_negative_sparse(tf):
    return tf.math.bincount(tf.sparse.SparseTensor([[0, 0]], [-3], [2, 2]), axis=-1)


@case
def math_bincount_negative_ragged(tf):
    return tf.math.bincount(tf.ragged.constant([[1], [-2]]), axis=-1)


@case
def sparse_bincount_sparse_input(tf):
    sp = _sp(tf)
    w = tf.sparse.SparseTensor(sp.indices, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], sp.dense_shape)
    return [tf.sparse.bincount(sp), tf.sparse.bincount(sp, axis=-1),
            tf.sparse.bincount(sp, axis=-1, binary_output=True),
            tf.sparse.bincount(sp, weights=w, axis=-1), tf.sparse.bincount(sp, weights=w),
            tf.sparse.bincount(sp, maxlength=5, axis=-1),
            tf.sparse.bincount(_sp(tf, tf.int64), minlength=12)]


@case
def sparse_bincount_ragged_input(tf):
    rt = _rt(tf)
    w = tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0, 5.0], [0.5, 0.5, 0.5, 0.5]])
    return [tf.sparse.bincount(rt), tf.sparse.bincount(rt, axis=-1),
            tf.sparse.bincount(rt, axis=-1, binary_output=True),
            tf.sparse.bincount(rt, weights=w, axis=-1), tf.sparse.bincount(rt, weights=w),
            tf.sparse.bincount(rt, minlength=8, axis=-1)]


@case
def sparse_bincount_empty(tf):
    return [tf.sparse.bincount(np.zeros([0], np.int32)),
            tf.sparse.bincount(np.zeros([0], np.int32), minlength=3)]


@case
def sparse_bincount_errors_axis(tf):
    return tf.sparse.bincount(DENSE, axis=1)


@case
def sparse_bincount_errors_binary_weights(tf):
    return tf.sparse.bincount(DENSE, weights=W, binary_output=True)


@case
def sparse_bincount_rank3(tf):
    return tf.sparse.bincount(np.zeros([2, 2, 2], np.int32), axis=-1)


@case
def sparse_bincount_dense_weights_for_sparse(tf):
    return tf.sparse.bincount(_sp(tf), weights=[1.0] * 6)


@case
def math_bincount_sparse(tf):
    sp = _sp(tf)
    w = tf.sparse.SparseTensor(sp.indices, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], sp.dense_shape)
    return [tf.math.bincount(sp), tf.math.bincount(sp, axis=-1),
            tf.math.bincount(sp, axis=-1, binary_output=True),
            tf.math.bincount(sp, weights=w), tf.math.bincount(sp, weights=w, axis=-1),
            tf.math.bincount(sp, minlength=12, dtype=tf.float32),
            tf.math.bincount(sp, maxlength=3, axis=-1),
            tf.math.bincount(_sp(tf, tf.int64), axis=-1)]


@case
def math_bincount_ragged(tf):
    rt = _rt(tf)
    w = tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0, 5.0], [0.5, 0.5, 0.5, 0.5]])
    return [tf.math.bincount(rt), tf.math.bincount(rt, axis=-1),
            tf.math.bincount(rt, axis=-1, binary_output=True),
            tf.math.bincount(rt, weights=w), tf.math.bincount(rt, weights=w, axis=-1),
            tf.math.bincount(rt, minlength=9, axis=-1, dtype=tf.int64),
            tf.math.bincount(tf.ragged.constant([[[1, 2], [3]], [[4]]]))]


@case
def math_bincount_ragged_float_values(tf):
    return tf.math.bincount(tf.ragged.constant([[1.7, 2.2], [0.1]]), axis=-1)


@case
def in_function(tf):
    @tf.function
    def f(sp, rt, d):
        return (tf.sparse.bincount(sp, axis=-1), tf.sparse.bincount(rt, axis=-1),
                tf.sparse.bincount(d, axis=-1, minlength=9), tf.math.bincount(sp, axis=-1),
                tf.math.bincount(rt, axis=-1))
    return list(f(_sp(tf), _rt(tf), tf.constant(DENSE)))


@case
def raw_ops(tf):
    return [tf.raw_ops.DenseCountSparseOutput(values=DENSE, weights=[], binary_output=False,
                                              minlength=-1, maxlength=-1),
            tf.raw_ops.RaggedBincount(splits=[0, 2, 2, 5], values=[1, 1, 0, 3, 1], size=4,
                                      weights=[]),
            tf.raw_ops.SparseBincount(indices=[[0, 0], [2, 1]], values=[3, 1],
                                      dense_shape=[3, 3], size=5, weights=[2.5, 1.5])]


if __name__ == "__main__":
    CASES.main("tf_bincount.npz")
