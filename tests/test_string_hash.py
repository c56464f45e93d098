"""tf.strings.to_hash_bucket_fast / _strong against TensorFlow 2.21's values
(tests/data/string_hash_tf.json, written by tools/tf_hash_fixtures.py)."""
import json
import os

import numpy as np
import pytest

import rillflow as tf

with open(os.path.join(os.path.dirname(__file__), "data", "string_hash_tf.json")) as f:
    DATA = json.load(f)
STRINGS = [bytes.fromhex(h) for h in DATA["strings"]]


def test_fast_matches_tensorflow():
    assert tf.strings.to_hash_bucket_fast(STRINGS, 2**63 - 1).numpy().tolist() == \
        DATA["fast_big"]
    assert tf.strings.to_hash_bucket_fast(STRINGS, 1000).numpy().tolist() == DATA["fast_1000"]


def test_strong_matches_tensorflow():
    assert tf.strings.to_hash_bucket_strong(STRINGS, 2**63 - 1, [1, 2]).numpy().tolist() == \
        DATA["strong_big"]
    got = tf.strings.to_hash_bucket_strong(STRINGS, 1024, [123456789012, 987654321])
    assert got.numpy().tolist() == DATA["strong_1024"]


def test_shape_dtype_and_graph():
    x = np.array(STRINGS[:12], dtype=object).reshape(3, 4)
    eager = tf.strings.to_hash_bucket_fast(x, 1000)
    assert eager.dtype == tf.int64 and eager.shape == (3, 4)
    traced = tf.function(lambda s: tf.strings.to_hash_bucket_fast(s, 1000))(tf.constant(x))
    np.testing.assert_array_equal(traced.numpy(), eager.numpy())


def test_ragged_input():
    rt = tf.ragged.constant([["Who", "is"], [], ["Dan"]])
    got = tf.strings.to_hash_bucket_fast(rt, 1000)
    assert isinstance(got, tf.RaggedTensor)
    words = [b"Who", b"is", b"Dan"]
    want = [DATA["fast_1000"][STRINGS.index(w)] for w in words]
    assert got.flat_values.numpy().tolist() == want
    assert got.row_splits.numpy().tolist() == [0, 2, 2, 3]


def test_bad_arguments():
    with pytest.raises(ValueError, match="Key must have 2 elements"):
        tf.strings.to_hash_bucket_strong(["a"], 10, [1])
    with pytest.raises(TypeError):
        tf.strings.to_hash_bucket_fast([1, 2], 10)


def test_fingerprint_matches_tensorflow():
    assert tf.fingerprint(STRINGS).numpy().tolist() == DATA["fingerprint"]
    pairs = tf.reshape(tf.constant(STRINGS[:200]), [100, 2])
    assert tf.fingerprint(pairs).numpy().tolist() == DATA["fingerprint_pairs"]
    ints = tf.reshape(tf.range(60, dtype=tf.int64), [10, 6])
    assert tf.fingerprint(ints).numpy().tolist() == DATA["fingerprint_int64"]
    floats = tf.reshape(tf.range(21, dtype=tf.float32) * 0.5, [7, 3])
    assert tf.fingerprint(floats).numpy().tolist() == DATA["fingerprint_float32"]
    assert tf.fingerprint(ints).dtype == tf.uint8
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unsupported fingerprint method"):
        tf.fingerprint(["a"], method="md5")
