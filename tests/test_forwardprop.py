"""`tf.autodiff.ForwardAccumulator` against TensorFlow 2.21: the cases of
tools/tf_infra_fixtures.py (recorded into tests/data/tf_infra.npz), and the
behaviour a fixture cannot hold."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))
_NAMES = sorted(n for n in fixtures.CASES.fns if n.startswith(("jvp", "hvp")))


@pytest.mark.parametrize("name", _NAMES)
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_jvp_matches_a_finite_difference():
    x = tf.constant([0.3, -0.7], tf.float64)
    v = tf.constant([1.0, 2.0], tf.float64)

    def f(a):
        return tf.reduce_sum(tf.sin(a) * tf.exp(a[::-1]))
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = f(x)
    eps = 1e-6
    fd = (f(x + eps * v) - f(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(acc.jvp(y).numpy(), fd.numpy(), rtol=1e-8)


def test_jvp_outside_the_context_and_without_entering():
    x = tf.constant(2.0)
    acc = tf.autodiff.ForwardAccumulator(x, tf.constant(3.0))
    assert float(acc.jvp(x)) == 3.0          # watched at construction, as in TensorFlow
    y = x * x                                # not recorded: the block was never entered
    assert acc.jvp(y) is None


def test_accumulators_do_not_see_each_others_outer_computation():
    x = tf.constant(1.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as outer:
        with tf.autodiff.ForwardAccumulator(x, tf.constant(2.0)) as inner:
            y = x * x
        assert float(inner.jvp(y)) == 4.0
        # the outer accumulator's tangent computation is hidden from the inner one
        assert inner.jvp(outer.jvp(y)) is None


def test_a_tape_inside_an_accumulator_still_gives_gradients():
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x ** 3)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 12.0])


def test_bad_primal_is_an_attribute_error():
    with pytest.raises(AttributeError, match="'int' object has no attribute 'dtype'"):
        tf.autodiff.ForwardAccumulator(3, 4)
