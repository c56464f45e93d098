"""TensorFlow's results of `tf.nn.embedding_lookup_sparse` and
`tf.nn.safe_embedding_lookup_sparse` (combiners, weights, max_norm, default
ids, partitioned tables) and their gradients, recorded for
tests/test_embedding_sparse.py.

    /work/tfref/bin/python tools/tf_embedding_sparse_fixtures.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tf_fixture_cases import Cases  # noqa: E402

CASES = Cases()
case = CASES.case

PARAMS = (np.arange(24, dtype=np.float32).reshape(6, 4) - 7.5) / 3.0


def _ids(tf):
    return tf.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [3, 0], [3, 1]],
                                  tf.constant([1, 3, 1, 5, 0, 2], tf.int64), [4, 3])


def _weights(tf):
    return tf.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [3, 0], [3, 1]],
                                  [0.5, 2.0, 1.5, -1.0, 3.0, 0.25], [4, 3])


@case(rtol=1e-6)
def combiners(tf):
    return [tf.nn.embedding_lookup_sparse(PARAMS, _ids(tf), None, combiner=c)
            for c in ("sum", "mean", "sqrtn")] + \
        [tf.nn.embedding_lookup_sparse(PARAMS, _ids(tf), _weights(tf), combiner=c)
         for c in ("sum", "mean", "sqrtn")]


@case(rtol=1e-6)
def max_norm_and_fast_lookup(tf):
    return [tf.nn.embedding_lookup_sparse(PARAMS, _ids(tf), None, combiner="mean",
                                          max_norm=2.0),
            tf.nn.embedding_lookup_sparse(PARAMS, _ids(tf), _weights(tf), combiner="sum",
                                          max_norm=1.5),
            tf.nn.embedding_lookup_sparse(PARAMS, _ids(tf), _weights(tf), combiner="sqrtn",
                                          allow_fast_lookup=True)]


@case(rtol=1e-6)
def partitioned_params(tf):
    parts = [PARAMS[:2], PARAMS[2:4], PARAMS[4:]]
    return [tf.nn.embedding_lookup_sparse(parts, _ids(tf), None, combiner="sum"),
            tf.nn.embedding_lookup_sparse(parts, _ids(tf), _weights(tf), combiner="mean")]


@case(rtol=1e-6)
def float64_and_rank3_params(tf):
    p = np.arange(6 * 2 * 3, dtype=np.float64).reshape(6, 2, 3) / 7.0
    w = tf.sparse.SparseTensor(_ids(tf).indices, tf.constant([1.0, 2, 3, 4, 5, 6],
                                                             tf.float64), [4, 3])
    return [tf.nn.embedding_lookup_sparse(p, _ids(tf), None),
            tf.nn.embedding_lookup_sparse(p, _ids(tf), w, combiner="sqrtn")]


@case(rtol=1e-3)
def float16_params(tf):
    w = tf.sparse.SparseTensor(_ids(tf).indices, tf.constant([1.0, 2, 3, 4, 5, 6],
                                                             tf.float16), [4, 3])
    return tf.nn.embedding_lookup_sparse(PARAMS.astype(np.float16), _ids(tf), w)


@case
def bad_combiner(tf):
    return tf.nn.embedding_lookup_sparse(PARAMS, _ids(tf), None, combiner="max")


@case
def dense_ids(tf):
    return tf.nn.embedding_lookup_sparse(PARAMS, [[1, 2]], None)


@case(rtol=1e-6)
def safe_lookup(tf):
    ids = tf.sparse.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1]],
                                 tf.constant([1, -1, 4, 2, 3], tf.int64), [2, 3, 2])
    w = tf.sparse.SparseTensor(ids.indices, [2.0, 1.0, -0.5, 0.0, 1.5], [2, 3, 2])
    return [tf.nn.safe_embedding_lookup_sparse(PARAMS, ids),
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, combiner="sum"),
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, w),
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, w, combiner="sum"),
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, w, combiner="sqrtn",
                                               default_id=5),
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, None, max_norm=1.0,
                                               default_id=0),
            tf.nn.safe_embedding_lookup_sparse([PARAMS[:3], PARAMS[3:]], _ids(tf))]


@case(rtol=1e-6)
def gradients(tf):
    p = tf.Variable(PARAMS)
    out = []
    for weights in (None, _weights(tf)):
        for c in ("sum", "mean", "sqrtn"):
            with tf.GradientTape() as tape:
                y = tf.nn.embedding_lookup_sparse(p, _ids(tf), weights, combiner=c)
                loss = tf.reduce_sum(y * tf.reshape(tf.range(16, dtype=tf.float32), [4, 4]))
            out.append(tf.convert_to_tensor(tape.gradient(loss, p)))
    return out


@case(rtol=1e-6)
def gradients_wrt_weights_and_safe(tf):
    wv = tf.Variable([0.5, 2.0, 1.5, -1.0, 3.0, 0.25])
    p = tf.Variable(PARAMS)
    with tf.GradientTape(persistent=True) as tape:
        w = tf.sparse.SparseTensor(_ids(tf).indices, wv * 1.0, [4, 3])
        y = tf.nn.embedding_lookup_sparse(p, _ids(tf), w, combiner="mean", max_norm=2.0)
        z = tf.nn.safe_embedding_lookup_sparse(p, _ids(tf), w, combiner="sqrtn")
        loss = tf.reduce_sum(y * y) + tf.reduce_sum(z * 3.0)
    return [tf.convert_to_tensor(tape.gradient(loss, wv)),
            tf.convert_to_tensor(tape.gradient(loss, p))]


@case(rtol=1e-6)
def in_function(tf):
    @tf.function
    def f(p, ids, w):
        a = tf.nn.embedding_lookup_sparse(p, ids, w, combiner="mean")
        b = tf.nn.safe_embedding_lookup_sparse(p, ids, None, combiner="sqrtn")
        return a, b, np.array(b.shape.as_list()) if None not in b.shape.as_list() else \
            tf.constant([-1 if d is None else d for d in b.shape.as_list()])
    return list(f(tf.constant(PARAMS), _ids(tf), _weights(tf)))


if __name__ == "__main__":
    CASES.main("tf_embedding_sparse.npz")
