"""Seeded randomness in tf.data as in TensorFlow 2.21: the random ops of a
dataset's functions start over for each iterator (and each `for` loop over a
dataset in a tf.function) and go on within one (repeat, inner datasets),
and a reshuffling `shuffle` takes each iterator's epoch when the iterator
is made. The cases are in tools/tf_data_random_fixture.py, which recorded
TensorFlow's numbers into tests/data/tf_data_random.json."""
import importlib.util
import json
import os

import pytest

import rillflow as tf

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "tf_data_random_fixture", os.path.join(_HERE, "..", "tools", "tf_data_random_fixture.py"))
fixture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixture)

with open(os.path.join(_HERE, "data", "tf_data_random.json")) as _f:
    _WANT = json.load(_f)


@pytest.fixture(scope="module")
def got():
    try:
        yield fixture.cases(tf)
    finally:
        tf.random.set_seed(None)


@pytest.mark.parametrize("case", sorted(_WANT))
def test_matches_tensorflow(got, case):
    assert got[case] == _WANT[case]


def test_map_with_random_op_is_not_run_once_per_batch():
    # A function whose random op does not depend on the element must still
    # draw once per element (it used to be vectorized over the elements).
    tf.random.set_seed(5)
    try:
        values = [float(v) for v in tf.data.Dataset.range(4).map(
            lambda x: tf.random.uniform([]))]
    finally:
        tf.random.set_seed(None)
    assert len(set(values)) == 4
