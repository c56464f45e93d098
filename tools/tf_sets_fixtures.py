"""TensorFlow's results of `tf.sets` (intersection, union, difference, size)
on dense and sparse inputs, recorded for tests/test_sets.py, with the
errors, eagerly and in `tf.function`.

    /work/tfref/bin/python tools/tf_sets_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case

A = [[2, 3, 5, 7], [7, 9, 0, 0]]
B = [[4, 5, 6], [9, 10, 0]]


def _sparse(tf, entries, shape, dtype=None):
    keys = list(entries)
    vals = [entries[k] for k in keys]
    return tf.sparse.SparseTensor(keys, tf.constant(vals, dtype=dtype), dense_shape=shape)


def _sa(tf, dtype=None):
    return _sparse(tf, {(0, 0, 0): 1, (0, 0, 1): 2, (0, 1, 0): 3, (1, 0, 0): 4,
                        (1, 1, 0): 5, (1, 1, 1): 6}, [2, 2, 2], dtype)


def _sb(tf, dtype=None):
    return _sparse(tf, {(0, 0, 0): 1, (0, 0, 1): 3, (0, 1, 0): 2, (1, 0, 0): 4,
                        (1, 0, 1): 5, (1, 1, 0): 5, (1, 1, 1): 6, (1, 1, 2): 7,
                        (1, 1, 3): 8}, [2, 2, 4], dtype)


@case
def dense_dense(tf):
    return [tf.sets.intersection(A, B), tf.sets.union(A, B), tf.sets.difference(A, B),
            tf.sets.difference(A, B, aminusb=False)]


@case
def dense_dense_dtypes(tf):
    out = []
    for d in (tf.int8, tf.int16, tf.int64, tf.uint8, tf.uint16):
        a, b = tf.constant(A, d), tf.constant([[4, 5, 6, 6], [9, 10, 0, 7]], d)
        out += [tf.sets.union(a, b), tf.sets.intersection(a, b)]
    return out


@case
def dense_strings(tf):
    a = [["b", "a", "c"], ["x", "x", ""]]
    b = [["c", "d", "a"], ["", "y", "ab"]]
    return [tf.sets.intersection(a, b), tf.sets.union(a, b), tf.sets.difference(a, b),
            tf.sets.size(tf.sparse.from_dense(tf.constant(a)))]


@case
def dense_rank3(tf):
    a = np.arange(24).reshape(2, 3, 4) % 5
    b = np.arange(12).reshape(2, 3, 2) % 4
    return [tf.sets.union(a, b), tf.sets.difference(a, b), tf.sets.intersection(a, b)]


@case
def empty_results(tf):
    return [tf.sets.intersection([[1, 2], [3, 4]], [[5, 6], [7, 8]]),
            tf.sets.difference([[1, 2]], [[2, 1]]),
            tf.sets.union(np.zeros([2, 0], np.int32), np.zeros([2, 0], np.int32))]


@case
def sparse_sparse(tf):
    a, b = _sa(tf), _sb(tf)
    return [tf.sets.intersection(a, b), tf.sets.union(a, b), tf.sets.difference(a, b),
            tf.sets.difference(a, b, aminusb=False), tf.sets.size(a), tf.sets.size(b)]


@case
def dense_sparse(tf):
    a = tf.constant([[[1, 2], [3, 3]], [[4, 9], [5, 6]]], tf.int64)
    b = _sb(tf, tf.int64)
    return [tf.sets.intersection(a, b), tf.sets.union(a, b), tf.sets.difference(a, b),
            tf.sets.difference(a, b, aminusb=False)]


@case
def sparse_dense_flips(tf):
    # A sparse first argument with a dense second is flipped (aminusb too).
    a = _sb(tf, tf.int64)
    b = tf.constant([[[1, 2], [3, 3]], [[4, 9], [5, 6]]], tf.int64)
    return [tf.sets.intersection(a, b), tf.sets.difference(a, b),
            tf.sets.difference(a, b, aminusb=False)]


@case
def sparse_groups_missing(tf):
    # Groups present in only one of the inputs, and empty rows.
    a = _sparse(tf, {(0, 0): 1, (0, 1): 1, (2, 0): 7, (3, 1): 9}, [5, 3])
    b = _sparse(tf, {(1, 0): 4, (2, 0): 8, (2, 2): 7, (4, 0): 2}, [5, 4])
    return [tf.sets.union(a, b), tf.sets.intersection(a, b), tf.sets.difference(a, b),
            tf.sets.size(a), tf.sets.size(b)]


@case
def size_dense_rank3(tf):
    st = tf.sparse.from_dense(tf.constant([[[1, 1, 0], [2, 3, 2]], [[0, 0, 0], [5, 5, 5]]]))
    return tf.sets.size(st)


@case
def unsorted_sparse_input(tf):
    a = tf.sparse.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 2])
    return tf.sets.size(a)


@case
def unsorted_sparse_not_validated(tf):
    a = tf.sparse.SparseTensor([[0, 1], [0, 0], [1, 1]], [1, 2, 2], [2, 2])
    b = tf.sparse.SparseTensor([[0, 0], [1, 0]], [2, 5], [2, 2])
    return [tf.sets.size(a, validate_indices=False),
            tf.sets.union(a, b, validate_indices=False)]


@case
def repeated_sparse_index(tf):
    a = tf.sparse.SparseTensor([[0, 0], [0, 0]], [1, 2], [2, 2])
    return tf.sets.union(a, a)


@case
def out_of_bounds_sparse_index(tf):
    a = tf.sparse.SparseTensor([[0, 0], [0, 5]], [1, 2], [2, 2])
    return tf.sets.size(a)


@case
def mismatched_group_shapes(tf):
    return tf.sets.union([[1, 2], [3, 4]], [[1, 2, 3]])


@case
def mismatched_sparse_group_shapes(tf):
    a = tf.sparse.SparseTensor([[0, 0]], [1], [2, 2])
    b = tf.sparse.SparseTensor([[0, 0]], [1], [3, 2])
    return tf.sets.intersection(a, b)


@case
def rank1_dense(tf):
    return tf.sets.union([1, 2], [2, 3])


@case
def rank1_sparse_size(tf):
    return tf.sets.size(tf.sparse.SparseTensor([[0]], [1], [3]))


@case
def float_dtype(tf):
    return tf.sets.union([[1.0]], [[2.0]])


@case
def mismatched_dtypes(tf):
    return tf.sets.union(tf.constant([[1]], tf.int32), tf.constant([[1]], tf.int64))


@case
def size_of_dense(tf):
    return tf.sets.size([[1, 2]])


@case
def size_float(tf):
    return tf.sets.size(tf.sparse.SparseTensor([[0, 0]], [1.0], [1, 1]))


def _static(shape):
    """A static shape as an array (-1 for unknown dimensions, [-2] unknown rank)."""
    if shape.rank is None:
        return np.array([-2])
    return np.array([-1 if d is None else d for d in shape.as_list()])


@case
def in_function(tf):
    shapes = []

    @tf.function
    def f(a, b, sp):
        u = tf.sets.union(a, b)
        d = tf.sets.difference(a, sp)
        n = tf.sets.size(u)
        shapes.extend([_static(u.shape), _static(u.indices.shape), _static(d.shape),
                       _static(n.shape)])
        return u, d, n
    return list(f(tf.constant(A), tf.constant(B), tf.sparse.from_dense(tf.constant(B)))) + \
        shapes


def _graph_error(tf, a, b):
    @tf.function
    def f(a, b):
        return tf.sets.union(a, b)
    try:
        f(tf.constant(a), tf.constant(b))
    except ValueError as e:
        # The message's last line, without TensorFlow's node description.
        line = [ln for ln in str(e).split("\n") if ln.strip()][-1].strip()
        return np.array(line.split(" for '")[0])


@case
def in_function_graph_errors(tf):
    return [_graph_error(tf, [[1, 2]], [[1], [2]]), _graph_error(tf, [1, 2], [[1], [2]])]


@case
def raw_ops(tf):
    return [tf.raw_ops.DenseToDenseSetOperation(set1=A, set2=B, set_operation="b-a"),
            tf.raw_ops.SetSize(set_indices=[[0, 0], [0, 1]], set_values=[3, 3],
                               set_shape=[1, 2])]


@case
def raw_ops_bad_operation(tf):
    return tf.raw_ops.DenseToDenseSetOperation(set1=A, set2=B, set_operation="xor")


if __name__ == "__main__":
    CASES.main("tf_sets.npz")
