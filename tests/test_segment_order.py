"""Sorted segment reductions add (and multiply) in TensorFlow's order, so that
float results have TensorFlow's bits: fixtures recorded from TensorFlow 2.21 by
tools/tf_segment_order_fixtures.py."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
from tf_segment_order_fixtures import cases  # noqa: E402

_F = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_segment_order.npz"))
_OPS = {"sum": tf.math.segment_sum, "mean": tf.math.segment_mean, "prod": tf.math.segment_prod}


@pytest.mark.parametrize("name,data,ids", cases(), ids=[c[0] for c in cases()])
def test_segment_reduction_bits_equal_tensorflows(name, data, ids):
    got = _OPS[name.split("_")[0]](data, ids).numpy()
    want = _F[name]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_in_a_function_too():
    name, data, ids = cases()[0]
    got = tf.function(tf.math.segment_sum)(data, ids).numpy()
    np.testing.assert_array_equal(got.view(np.uint32), _F[name].view(np.uint32))
