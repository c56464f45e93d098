"""tf.data.experimental's tables from datasets (DatasetInitializer,
table_from_dataset, index_table_from_dataset) against TensorFlow 2.21: the
cases of tools/tf_infra_fixtures.py."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))
_NAMES = sorted(n for n in fixtures.CASES.fns if n.startswith("table_from_dataset"))


@pytest.mark.parametrize("name", _NAMES)
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_table_in_a_function_reads_the_dataset_once():
    table = tf.data.experimental.index_table_from_dataset(
        tf.data.Dataset.from_tensor_slices(["a", "b", "c"]))

    @tf.function
    def f(x):
        return table.lookup(x)
    np.testing.assert_array_equal(f(tf.constant(["c", "a", "q"])).numpy(), [2, 0, -1])
    assert int(table.size()) == 3
