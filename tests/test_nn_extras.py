"""The tf.nn / tf.random leftovers of issue 22 against TensorFlow 2.21: the
cases in tools/tf_nn_extras_fixtures.py, recorded by it into
tests/data/tf_nn_extras.npz, must give TensorFlow's values (the seeded
samplers' exact candidates), gradients, dtypes, shapes and errors."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_nn_extras_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_nn_extras.npz"))


@pytest.fixture(autouse=True)
def _no_global_seed():
    yield
    tf.random.set_seed(None)


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_learned_unigram_learns_the_true_classes():
    # Class 3 as the only true class, many times: it comes to dominate.
    tc = np.full((50, 1), 3, np.int64)
    for _ in range(20):
        s = tf.random.learned_unigram_candidate_sampler(tc, 1, 8, False, 10, seed=11)
    counts = s.sampled_expected_count.numpy()
    assert np.all(s.sampled_candidates.numpy() == 3)
    # The 20th run samples before its own update: 1 + 19 * 50 of 10 + 19 * 50.
    np.testing.assert_allclose(counts, 8 * 951 / 960, rtol=1e-6)


def test_unseeded_samplers_are_distributed_as_asked():
    tc = np.zeros((1, 1), np.int64)
    draws = np.concatenate([tf.random.uniform_candidate_sampler(tc, 1, 100, False, 7)[0].numpy()
                            for _ in range(30)])
    assert set(draws.tolist()) == set(range(7))
    assert abs(np.bincount(draws).std() / draws.size * 7) < 0.1


def test_fractional_pools_unseeded_regions_are_valid():
    x = np.random.RandomState(0).randn(1, 23, 17, 2).astype(np.float32)
    for pseudo in (False, True):
        r = tf.nn.fractional_max_pool(x, [1, 2.3, 1.7, 1], pseudo_random=pseudo)
        for seq, n in ((r.row_pooling_sequence.numpy(), 23), (r.col_pooling_sequence.numpy(), 17)):
            assert seq[0] == 0 and seq[-1] == n
            assert set(np.diff(seq).tolist()) <= {n // (len(seq) - 1), n // (len(seq) - 1) + 1}


def test_fractional_pool_second_order_gradients():
    x = tf.Variable(np.random.RandomState(1).randn(1, 7, 7, 2))
    for fn in (tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = fn(x, [1, 1.5, 1.5, 1], seed=3)[0]
                loss = tf.reduce_sum(y * y)
            g = inner.gradient(loss, x)
            gsum = tf.reduce_sum(g * g)
        gg = outer.gradient(gsum, x)
        assert gg is not None and gg.shape == x.shape
