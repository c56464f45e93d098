"""digamma against TensorFlow 2.21's CPU results, bit for bit
(tests/data/tf_digamma.npz, recorded by tools/tf_digamma_fixtures.py):
Eigen's scalar digamma_impl in the tensor's own precision, the C library's
log and tan, NaN at the poles and for subnormals (denormals-are-zero)."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_digamma.npz"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_digamma_bits_eager_graph_and_0d(dtype):
    x, want = DATA[dtype + "/x"], DATA[dtype + "/digamma"]
    it = np.int32 if dtype == "float32" else np.int64
    for got in (tf.math.digamma(tf.constant(x)).numpy(),
                tf.function(tf.math.digamma)(tf.constant(x)).numpy(),
                np.array([tf.math.digamma(tf.constant(v)).numpy() for v in x[:300]])):
        w = want[:got.size]
        nan = np.isnan(w)
        np.testing.assert_array_equal(np.isnan(got), nan)
        bad = got.view(it)[~nan] != w.view(it)[~nan]
        assert not bad.any(), "%d of %d differ" % (bad.sum(), bad.size)


def test_lgamma_gradient_is_digamma():
    x = tf.constant(DATA["float32/x"][:200])
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.math.lgamma(x)
    g = t.gradient(y, x).numpy()
    want = DATA["float32/digamma"][:200]
    np.testing.assert_array_equal(np.isnan(g), np.isnan(want))
    np.testing.assert_array_equal(g[~np.isnan(g)], want[~np.isnan(want)])
