"""`tf.feature_column` (rillflow/feature_column/) against TensorFlow 2.21:
the cases of tools/tf_feature_column_fixtures.py, recorded into
tests/data/tf_feature_column.npz; then what the fixtures cannot show."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_feature_column_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_feature_column.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_input_layer_in_a_function_creates_variables_once_only():
    # As in TensorFlow: each call makes new embedding variables, which a
    # tf.function refuses after its first trace.
    fc = tf.feature_column
    col = fc.embedding_column(fc.categorical_column_with_identity("i", 3), 2,
                              initializer=tf.constant_initializer(1.0))

    @tf.function
    def f(x):
        return tf.compat.v1.feature_column.input_layer({"i": x}, [col])

    with pytest.raises(ValueError, match="singleton tf.Variables"):
        f(tf.constant([[1]], tf.int64))


def test_input_layer_without_variables_in_a_function():
    fc = tf.feature_column
    cols = [fc.numeric_column("a"), fc.indicator_column(
        fc.categorical_column_with_hash_bucket("s", 4))]

    @tf.function
    def f(a, s):
        return tf.compat.v1.feature_column.input_layer({"a": a, "s": s}, cols)

    eager = tf.compat.v1.feature_column.input_layer(
        {"a": tf.constant([[1.], [2.]]), "s": tf.constant([["x"], ["y"]])}, cols)
    np.testing.assert_array_equal(f(tf.constant([[1.], [2.]]), tf.constant([["x"], ["y"]])),
                                  eager)


def test_default_embedding_initializer_is_a_truncated_normal():
    fc = tf.feature_column
    col = fc.embedding_column(fc.categorical_column_with_identity("i", 50), 4)
    cols_to_out = {}
    tf.compat.v1.feature_column.input_layer({"i": tf.reshape(tf.range(50, dtype=tf.int64),
                                                            [50, 1])}, [col],
                                            cols_to_output_tensors=cols_to_out)
    table = cols_to_out[col].numpy()          # each id's row, one per example
    assert table.shape == (50, 4) and np.all(np.abs(table) <= 2 * 0.5 + 1e-6)
    assert 0.3 < table.std() < 0.6


def test_sequence_columns_are_refused_by_input_layer():
    fc = tf.feature_column
    il = tf.compat.v1.feature_column.input_layer
    with pytest.raises(ValueError, match="must be a _FeatureColumn. Given .type <class"):
        il({"q": tf.constant([[1.]])}, [fc.sequence_numeric_column("q")])
    seq = fc.sequence_categorical_column_with_identity("q", 3)
    with pytest.raises(ValueError, match="In embedding_column: q_embedding. categorical_column "
                       "must not be of type _SequenceCategoricalColumn"):
        il({"q": tf.constant([[1]], tf.int64)}, [fc.embedding_column(seq, 2)])
