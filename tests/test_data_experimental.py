"""tf.data.FixedLengthRecordDataset, tf.data.experimental's sources and
transformations, and tf.config's settings against TensorFlow 2.21: the cases
of tools/tf_data_config_fixtures.py, recorded by it into
tests/data/tf_data_config.npz."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_data_config_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_data_config.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_counter_and_random_in_a_function():
    @tf.function
    def first_three():
        ds = tf.data.experimental.Counter(5).take(3)
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
    assert int(first_three()) == 18
