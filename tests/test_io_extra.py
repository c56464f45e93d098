"""The `tf.io` functions of issue 22 against TensorFlow 2.21: the cases of
tools/tf_io_fixtures.py, recorded by it into tests/data/tf_io.npz
(decode_csv, sparse serialization, sequence example parsing,
decode_json_example), values, dtypes, shapes and errors."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_io_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_io.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_csv_static_shapes_in_graph():
    @tf.function
    def f(x):
        out = tf.io.decode_csv(x, [[0], [0.0], ["a"]])
        assert [t.shape.as_list() for t in out] == [[None, 1]] * 3
        assert [t.dtype for t in out] == [tf.int32, tf.float32, tf.string]
        return out
    f.get_concrete_function(tf.TensorSpec([None, 1], tf.string))


def test_csv_hostile_records_do_not_hang():
    rec = '"' + '""' * 5000 + ',' * 3
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.decode_csv([rec], [["x"]])
    out = tf.io.decode_csv([",".join(["1"] * 10000)], [[0]] * 10000)
    assert len(out) == 10000


def test_match_filenames_once(tmp_path):
    for f in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / f).write_bytes(b"")
    v = tf.io.match_filenames_once(str(tmp_path / "*.txt"))
    assert isinstance(v, tf.Variable) and not v.trainable and v.dtype == tf.string
    assert v.name == "Variable:0" and v.shape.as_list() == [2]
    assert [os.path.basename(p) for p in v.numpy()] == [b"a.txt", b"b.txt"]
    v = tf.io.match_filenames_once([str(tmp_path / "*.txt"), str(tmp_path / "*.csv")])
    assert v.shape.as_list() == [3]
    # Nothing matching is an empty list (TensorFlow's MatchingFiles), ...
    assert tf.io.match_filenames_once(str(tmp_path / "none*")).numpy().shape == (0,)
    assert tf.io.matching_files(str(tmp_path / "none*")).numpy().shape == (0,)
    # ... while Dataset.list_files asserts.
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
        tf.data.Dataset.list_files(str(tmp_path / "none*"))
    with pytest.raises(ValueError, match="singleton tf.Variables"):
        tf.function(lambda: tf.io.match_filenames_once(str(tmp_path / "*")))()
