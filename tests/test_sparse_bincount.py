"""`tf.sparse.bincount` and `tf.math.bincount` on SparseTensors and
RaggedTensors (ops/sparse/bincount_ops.py) against TensorFlow 2.21: the
cases of tools/tf_bincount_fixtures.py, recorded into
tests/data/tf_bincount.npz."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_bincount_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_bincount.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_plain_bincount_is_not_dispatched():
    # Dense arguments take tf.math.bincount's own path.
    np.testing.assert_array_equal(tf.math.bincount([1, 1, 3]).numpy(), [0, 2, 0, 1])
