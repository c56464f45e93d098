"""`tf.sets` (ops/sparse/set_ops.py) against TensorFlow 2.21: the cases in
tools/tf_sets_fixtures.py, recorded by it into tests/data/tf_sets.npz, must
give TensorFlow's SparseTensors (indices, values, dense_shape), dtypes,
static shapes in `tf.function`, and errors."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_sets_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_sets.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_v1_names():
    assert tf.compat.v1.sets.set_intersection is tf.sets.intersection
    assert tf.compat.v1.sets.set_size is tf.sets.size


def test_sparse_tensor_value_input():
    v = tf.compat.v1.SparseTensorValue([[0, 0], [0, 1]], [3, 3], [1, 2])
    np.testing.assert_array_equal(tf.sets.size(v).numpy(), [1])
