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


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_zeta_and_polygamma_bits(dtype):
    """Eigen's scalar zeta_impl and polygamma_impl in the type, the C
    library's pow, exp and lgamma, subnormal steps flushed."""
    s, q = DATA[dtype + "/zeta_x"], DATA[dtype + "/zeta_q"]
    n = DATA[dtype + "/polygamma_n"]
    it = np.int32 if dtype == "float32" else np.int64
    for got, want in ((tf.math.zeta(tf.constant(s), tf.constant(q)), DATA[dtype + "/zeta"]),
                      (tf.function(tf.math.zeta)(tf.constant(s), tf.constant(q)),
                       DATA[dtype + "/zeta"]),
                      (tf.math.polygamma(tf.constant(n), tf.constant(q)),
                       DATA[dtype + "/polygamma"])):
        got = got.numpy()
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        bad = got.view(it)[~nan] != want.view(it)[~nan]
        assert not bad.any(), "%d of %d differ" % (bad.sum(), bad.size)


def test_zeta_without_the_compiled_loops_and_far_negative_q():
    """The Python path gives the compiled loops' bits; a q so far below zero
    that TensorFlow's sum would run a million terms takes the float64
    evaluation (finite time, a value)."""
    from rillflow.ops.kernels import zeta as Z
    from rillflow.ops.core.special_math_ops import _zeta64
    s, q, want = DATA["float64/zeta_x"][:300], DATA["float64/zeta_q"][:300], \
        DATA["float64/zeta"][:300]
    saved = Z.LOAD.value
    Z.LOAD.value = None
    try:
        got = Z.zeta(s, q, _zeta64)
    finally:
        Z.LOAD.value = saved
    nan = np.isnan(want)
    np.testing.assert_array_equal(got[~nan].view(np.int64), want[~nan].view(np.int64))
    far = tf.math.zeta(tf.constant([2.0, 4.0], tf.float64),
                       tf.constant([-3e7 + 0.5, -3e7 + 0.5], tf.float64)).numpy()
    assert np.isfinite(far).all()
    # Nine float32 terms from a negative q (TensorFlow 2.21's values).
    np.testing.assert_allclose(tf.math.zeta(tf.constant([3.0]), tf.constant([-7.75])).numpy(),
                               [-2908.48], rtol=1e-6)
    np.testing.assert_allclose(tf.math.zeta(tf.constant([3.0], tf.float64),
                                            tf.constant([-7.75], tf.float64)).numpy(),
                               [62.01987279], rtol=1e-8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_igamma_and_igammac_bits_compiled_and_python(dtype):
    """Eigen's series and continued fraction in the type, the C library's
    log, exp and lgamma; the Python path gives the compiled loops' bits."""
    from rillflow.ops.kernels import igamma as G
    a, x = DATA[dtype + "/ig_a"], DATA[dtype + "/ig_x"]
    it = np.int32 if dtype == "float32" else np.int64

    def check(got, want):
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        bad = got.view(it)[~nan] != want.view(it)[~nan]
        assert not bad.any(), "%d of %d differ" % (bad.sum(), bad.size)
    for name, fn in (("igamma", tf.math.igamma), ("igammac", tf.math.igammac)):
        want = DATA[dtype + "/" + name]
        check(fn(tf.constant(a), tf.constant(x)).numpy(), want)
        saved = G.LOAD.value
        G.LOAD.value = None
        try:
            check(getattr(G, name)(a[:200], x[:200]), want[:200])
        finally:
            G.LOAD.value = saved


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_betainc_bits(dtype):
    """Eigen's float and double betainc: continued fractions, power series,
    the small-a transformation, the C library's log, log1p, exp and lgamma
    (a NaN a still gives 0 at x = 0)."""
    a, b, x = DATA[dtype + "/bi_a"], DATA[dtype + "/bi_b"], DATA[dtype + "/bi_x"]
    want = DATA[dtype + "/betainc"]
    it = np.int32 if dtype == "float32" else np.int64
    got = tf.math.betainc(tf.constant(a), tf.constant(b), tf.constant(x)).numpy()
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bad = got.view(it)[~nan] != want.view(it)[~nan]
    assert not bad.any(), "%d of %d differ" % (bad.sum(), bad.size)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_igamma_gradient_in_a_bits(dtype):
    """IgammaGradA as Eigen's igamma_der_a: forward differentiation of the
    series and the continued fraction, digamma for the leading factor."""
    a, x = DATA[dtype + "/ig_a"][:400], DATA[dtype + "/ig_x"][:400]
    want = DATA[dtype + "/igamma_grad_a"]
    it = np.int32 if dtype == "float32" else np.int64
    got = tf.raw_ops.IgammaGradA(a=tf.constant(a), x=tf.constant(x)).numpy()
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bad = got.view(it)[~nan] != want.view(it)[~nan]
    assert not bad.any(), "%d of %d differ" % (bad.sum(), bad.size)
