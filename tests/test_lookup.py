"""`tf.lookup` (ops/lookup/), `tf.sparse.cross`/`cross_hashed`
(ops/sparse/sparse_cross_ops.py), `SparseTensor.set_shape`,
`tf.strings.ngrams`, ragged `tf.one_hot`, `tf.required_space_to_batch_paddings`
and `tf.compat.as_text` against TensorFlow 2.21: the cases of
tools/tf_lookup_fixtures.py, recorded into tests/data/tf_lookup.npz; then
what the fixtures cannot show (graph ops, v1 graphs, hashes)."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.lookup import table_kernels
from rillflow.ops.sparse import sparse_cross_ops

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_lookup_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_lookup.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def _table():
    return tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([1, 2], tf.int64)), -1)


def test_function_graph_uses_table_ops():
    t = _table()
    m = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, 0)

    @tf.function
    def f(x):
        m.insert(x, t.lookup(x))
        m.remove(tf.constant(["b"]))
        return m.lookup(x), m.size(), m.export()

    cf = f.get_concrete_function(tf.TensorSpec([None], tf.string))
    types = {op.type for op in cf.graph.get_operations()}
    assert {"LookupTableFindV2", "LookupTableInsertV2", "LookupTableRemoveV2",
            "LookupTableSizeV2", "LookupTableExportV2"} <= types
    # The tables are made once, outside the function (init_scope).
    assert "HashTableV2" not in types and "MutableHashTableV2" not in types
    assert cf.structured_outputs[0].shape.as_list() == [None]
    values, size, _ = f(tf.constant(["a", "b", "z"]))
    np.testing.assert_array_equal(values.numpy(), [1, 0, -1])
    assert int(size) == 2


def test_table_created_in_function_initializes_once():
    @tf.function
    def f(x):
        t = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["x", "y"], [1, 2]),
                                      -1)
        return t.lookup(x)

    np.testing.assert_array_equal(f(tf.constant(["x", "q", "y"])).numpy(), [1, -1, 2])
    np.testing.assert_array_equal(f(tf.constant(["y"])).numpy(), [2])


def test_dataset_map_with_tables():
    t = _table()
    v = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([0, 1], tf.int64)), 3)
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "c"]).map(
        lambda s: (t.lookup(s), v.lookup(s)))
    got = [(int(a), int(b)) for a, b in ds]
    assert got[:2] == [(1, 0), (2, 1)] and got[2][0] == -1 and 2 <= got[2][1] < 5


def test_v1_graph_tables_initializer():
    g = tf.Graph()
    with g.as_default():
        t = tf.compat.v1.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b"], tf.constant([1, 2], tf.int64)), -1)
        out = t.lookup(tf.constant(["b", "q"]))
        init = tf.compat.v1.tables_initializer()
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(init)
            np.testing.assert_array_equal(sess.run(out), [2, -1])
            np.testing.assert_array_equal(sess.run(out), [2, -1])


def test_keras_placeholder_initializer_dtype_names():
    # Keras restores tables through an initializer whose dtypes are names.
    class Null(tf.lookup.KeyValueTensorInitializer):
        def __init__(self):
            self._key_dtype, self._value_dtype = "string", "int64"

        key_dtype = property(lambda self: self._key_dtype)
        value_dtype = property(lambda self: self._value_dtype)

        def initialize(self, table):
            pass

    t = tf.lookup.StaticHashTable(Null(), -1)
    assert int(t.size()) == 0 and t.key_dtype == tf.string
    with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized."):
        t.lookup(tf.constant(["a"]))


def test_hash64_and_fingerprint_cat64():
    # TensorFlow's Hash64 (seed 0xDECAFCAFFE) places these keys in the buckets
    # the dense_hash_table fixtures record; check the tail lengths directly.
    assert table_kernels.hash64(b"") == table_kernels.hash64(b"")
    hs = {table_kernels.hash64(b"x" * n) for n in range(20)}
    assert len(hs) == 20
    # FingerprintCat64 is not commutative and mixes both arguments.
    a, b = np.uint64(1), np.uint64(2)
    assert sparse_cross_ops.fingerprint_cat64(a, b) != sparse_cross_ops.fingerprint_cat64(b, a)


def test_raw_sparse_cross_ops():
    a = tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    out = tf.raw_ops.SparseCrossV2(indices=[a.indices], values=[a.values],
                                   shapes=[a.dense_shape],
                                   dense_inputs=[tf.constant([[1], [2]], tf.int64)], sep="+")
    assert out.output_values.numpy().tolist() == [b"a+1", b"b+2", b"c+2"]
