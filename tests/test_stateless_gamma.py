"""`tf.random.stateless_gamma`, `stateless_poisson` and `stateless_binomial`
(ops/random/samplers.py, stateless_ops.py) give TensorFlow 2.21's numbers
bit for bit: the cases of tools/tf_stateless_samplers_fixtures.py, recorded
into tests/data/tf_stateless_samplers.npz. The vector paths of the
samplers agree with their scalar replay of TensorFlow's loops."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.random import philox, samplers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_stateless_samplers_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_stateless_samplers.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


_POS = philox.scramble_seed(11, 12)[0]


def test_gamma_vector_path_equals_scalar_replay():
    alphas = np.array([0.2, 0.9, 1.0, 2.0, 40.0])
    out = samplers.gamma(_POS, alphas, 30)
    for i in range(alphas.size * 30):
        a, k = divmod(i, 30)
        assert out[k, a] == samplers._gamma_scalar(_POS, i, float(alphas[a]))


def test_poisson_and_binomial_vector_paths_equal_scalar_replay():
    rates = np.array([0.5, 3.0, 9.5])
    out = samplers.poisson(_POS, rates, 20, 2.0 ** 31)
    for i in range(60):
        r, k = divmod(i, 20)
        assert out[k, r] == samplers._poisson_knuth_scalar(_POS, i, float(rates[r]), 2.0 ** 31)
    counts, probs = np.array([5.0, 30.0]), np.array([0.3, 0.1])
    out = samplers.binomial(_POS, counts, probs, 20, np.dtype(np.float64))
    for i in range(40):
        b, k = divmod(i, 20)
        assert out[k, b] == samplers._inversion_scalar(_POS, i, counts[b], probs[b])


def test_rejection_vector_paths_equal_scalar_replay():
    rates = np.array([10.0, 37.5, 2000.0])
    out = samplers.poisson(_POS, rates, 25, 2.0 ** 31)
    for i in range(75):
        r, k = divmod(i, 25)
        assert out[k, r] == samplers._poisson_hormann_scalar(_POS, i, float(rates[r]), 2.0 ** 31)
    counts, probs = np.array([40.0, 1000.0, 77.0]), np.array([0.3, 0.02, 0.5])
    out = samplers.binomial(_POS, counts, probs, 25, np.dtype(np.float64))
    for i in range(75):
        b, k = divmod(i, 25)
        assert out[k, b] == samplers._btrs_scalar(_POS, i, counts[b], probs[b])
