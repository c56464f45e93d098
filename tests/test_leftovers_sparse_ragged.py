"""tf.ragged.cross / cross_hashed, tf.ragged_fill_empty_rows(_grad),
tf.sparse.mask and tf.sparse.sampled_addmm against TensorFlow's results
(recorded by tools/tf_leftovers_fixtures.py)."""
import json
import os

import numpy as np
import pytest

import rillflow as tf

with open(os.path.join(os.path.dirname(__file__), "data", "tf_leftovers.json")) as _f:
    DATA = json.load(_f)


def _cross_inputs():
    r1 = tf.ragged.constant([["a", "b"], [], ["c"]])
    r2 = tf.ragged.constant([[1, 2], [3], [4, 5, 6]], dtype=tf.int64)
    d = tf.constant([["x"], ["y"], ["z"]])
    di = tf.constant([[7], [8], [9]], tf.int64)
    s = tf.sparse.from_dense(tf.constant([["p", ""], ["q", "r"], ["", ""]]))
    si = tf.sparse.from_dense(tf.constant([[10, 0], [11, 12], [0, 13]], tf.int64))
    r3 = tf.RaggedTensor.from_row_splits(tf.constant([5, 6, 7], tf.int32),
                                         tf.constant([0, 1, 3, 3], tf.int32))
    return {"r1_r2": [r1, r2], "d_r1": [d, r1], "r2_d_s": [r2, d, s], "di_r2": [di, r2],
            "si_r1_d": [si, r1, d], "r2_di_si": [r2, di, si], "r3_d": [r3, d],
            "r1_r2_r1": [r1, r2, r1]}


@pytest.mark.parametrize("key", sorted(_cross_inputs()))
def test_ragged_cross(key):
    inputs = _cross_inputs()[key]
    c = tf.ragged.cross(inputs)
    assert [[list(b) for b in row] for row in c.to_list()] == DATA["cross_" + key]
    assert c.row_splits.dtype.name == DATA["crosssplits_" + key]
    h = tf.ragged.cross_hashed(inputs)
    assert h.dtype == tf.int64 and h.to_list() == DATA["hashed_" + key]
    assert tf.ragged.cross_hashed(inputs, num_buckets=100, hash_key=123).to_list() == \
        DATA["hashed100_" + key]


def test_ragged_cross_errors():
    r1 = tf.ragged.constant([["a", "b"], [], ["c"]])
    with pytest.raises(ValueError, match="only supports inputs with rank=2"):
        tf.ragged.cross([r1, tf.ragged.constant([[["a"]], [], [["b"]]])])
    with pytest.raises(tf.errors.InvalidArgumentError, match="only supports inputs with rank"):
        tf.ragged.cross([r1, tf.constant(["a", "b", "c"])])
    with pytest.raises(ValueError, match=r"Unexpected dtype for inputs\[1\]"):
        tf.ragged.cross([r1, tf.constant([[1.5], [2.], [3.]])])


def test_ragged_fill_empty_rows():
    r = tf.ragged_fill_empty_rows(value_rowids=tf.constant([0, 0, 2, 4, 2], tf.int64),
                                  values=tf.constant([1., 2., 3., 4., 5.]),
                                  nrows=tf.constant(6, tf.int64),
                                  default_value=tf.constant(-1.))
    assert [t.numpy().tolist() for t in r] == DATA["fill"]
    assert r.output_values.dtype == tf.float32 and r.empty_row_indicator.dtype == tf.bool
    g = tf.ragged_fill_empty_rows_grad(reverse_index_map=r.reverse_index_map,
                                       grad_values=tf.range(1., 9.))
    assert [t.numpy().tolist() for t in g] == DATA["fill_grad"]
    v = tf.constant([1., 2., 3.])
    with tf.GradientTape() as tape:
        tape.watch(v)
        o = tf.ragged_fill_empty_rows(value_rowids=tf.constant([0, 0, 2], tf.int64), values=v,
                                      nrows=tf.constant(4, tf.int64),
                                      default_value=tf.constant(0.))
        y = tf.reduce_sum(o.output_values * tf.constant([1., 2., 3., 4., 5.]))
    assert tape.gradient(y, v).numpy().tolist() == DATA["fill_tape"]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\(1, 0\) is invalid"):
        tf.ragged_fill_empty_rows(value_rowids=tf.constant([0, 5], tf.int64), values=[1, 2],
                                  nrows=tf.constant(3, tf.int64), default_value=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="default_value must be a scalar"):
        tf.raw_ops.RaggedFillEmptyRows(value_rowids=tf.constant([0], tf.int64), values=[1],
                                       nrows=tf.constant(3, tf.int64), default_value=[0])


def test_sparse_mask():
    a = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), tf.constant([12, 26, 37]),
                         tf.constant([40, 2]))
    m = tf.sparse.mask(a, [12, 45])
    assert isinstance(m, tf.IndexedSlices)
    assert m.indices.numpy().tolist() == [26, 37] and m.indices.dtype == tf.int32
    assert m.values.numpy().tolist() == [[3., 4.], [5., 6.]]
    assert m.dense_shape.numpy().tolist() == [40, 2]
    m = tf.sparse.mask(tf.IndexedSlices(tf.constant([1, 2, 3]), tf.constant([5, 3, 5], tf.int64)),
                       tf.constant([5], tf.int64))
    assert m.indices.numpy().tolist() == [3] and m.values.numpy().tolist() == [2]
    assert m.dense_shape is None


def test_sampled_addmm():
    m1, m2 = np.asarray(DATA["addmm_m1"], np.float32), np.asarray(DATA["addmm_m2"], np.float32)
    ind = np.array([[0, 0], [1, 3], [2, 4], [2, 1]], np.int64)
    vals = np.asarray(DATA["addmm_vals"], np.float32)
    i, v, s = tf.sparse.sampled_addmm(ind, vals, [3, 5], m1, m2, beta=0.5, alpha=2.0)
    assert v.dtype == tf.float32 and s.dtype == tf.int32 and i.dtype == tf.int64
    np.testing.assert_allclose(v, DATA["addmm"], rtol=1e-6, atol=1e-6)
    bind = np.array([[[0, 0], [2, 1]], [[1, 1], [0, 1]]], np.int64)
    _, v2, _ = tf.sparse.sampled_addmm(bind, [[1., 2.], [3., 4.]], [[3, 2], [3, 2]],
                                       np.asarray(DATA["addmm_b1"]),
                                       np.asarray(DATA["addmm_b2"]), output_type=tf.float64)
    np.testing.assert_allclose(v2, DATA["addmm_batched"], rtol=1e-12)
    with pytest.raises(ValueError, match="does not match output shape"):
        tf.sparse.sampled_addmm(ind, vals, [3, 3], m1, m2)
    x = tf.constant(m1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        _, v, _ = tf.sparse.sampled_addmm(ind, vals, [3, 5], x, m2)
        y = tf.reduce_sum(v)
    want = np.zeros_like(m1)
    for r, c in ind:
        want[r] += m2[:, c]
    np.testing.assert_allclose(tf.convert_to_tensor(tape.gradient(y, x)), want, rtol=1e-6)
