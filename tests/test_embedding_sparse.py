"""`tf.nn.embedding_lookup_sparse` and `tf.nn.safe_embedding_lookup_sparse`
(ops/nn/embedding_sparse.py) against TensorFlow 2.21: values and gradients
of the cases of tools/tf_embedding_sparse_fixtures.py, recorded into
tests/data/tf_embedding_sparse.npz (float tolerance: the sums run through
BLAS/SIMD-dependent reductions)."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_embedding_sparse_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_embedding_sparse.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)
