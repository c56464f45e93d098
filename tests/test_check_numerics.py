"""`tf.debugging.enable_check_numerics` and the `CheckNumericsV2` op against
TensorFlow 2.21 (cases of tools/tf_infra_fixtures.py), and the traced and
threaded behaviour a fixture cannot hold."""
import os
import sys
import threading

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))
_NAMES = sorted(n for n in fixtures.CASES.fns if n.startswith("check_numerics"))


@pytest.fixture
def checking():
    tf.debugging.enable_check_numerics()
    try:
        yield
    finally:
        tf.debugging.disable_check_numerics()


@pytest.mark.parametrize("name", _NAMES)
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_traced_function_names_the_graph_op(checking):
    @tf.function
    def f(x):
        return tf.sqrt(x - 2.0)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0, 3.0]))
    text = str(info.value)
    assert 'Detected Infinity or NaN in output 0 of graph op "Sqrt" (# of outputs: 1)' in text
    assert 'Input tensor: Tensor("sub:0", shape=(2,), dtype=float32)' in text
    assert 'Graph name: "f"' in text
    assert "Tensor had NaN values" in text
    np.testing.assert_allclose(f(tf.constant([3.0, 6.0])).numpy(), [1.0, 2.0])


def test_functions_traced_before_enabling_are_not_checked():
    f = tf.function(lambda x: tf.math.log(x))
    f(tf.constant([1.0]))
    tf.debugging.enable_check_numerics()
    try:
        assert np.isneginf(f(tf.constant([0.0])).numpy()).all()
    finally:
        tf.debugging.disable_check_numerics()


def test_gradients_still_flow(checking):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.exp(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.exp([1.0, 2.0]), rtol=1e-6)


def test_gradient_producing_nan_is_caught(checking):
    x = tf.constant([0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sqrt(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had"):
        tape.gradient(y, x)


def test_only_the_enabling_thread_is_checked(checking):
    out = []
    t = threading.Thread(target=lambda: out.append(tf.math.log(tf.constant(0.0))))
    t.start()
    t.join()
    assert np.isneginf(out[0].numpy())
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.math.log(tf.constant(0.0))


def test_variable_holding_nan_is_reported_when_used(checking):
    v = tf.Variable([1.0, np.nan])
    with pytest.raises(tf.errors.InvalidArgumentError, match='op "Mul"|op "ReadVariableOp"'):
        v * 2.0


def test_gradients_through_functions_with_control_flow(checking, tmp_path):
    x = tf.Variable(1.0)

    @tf.function
    def loop(a):
        i = tf.constant(0)
        while i < 3:
            a = a * 2.0
            i += 1
        return a

    @tf.function
    def branch(a):
        if tf.reduce_sum(a) > 0:
            a = tf.sqrt(a)
        else:
            a = -a
        return a
    for f, want in ((loop, 24.0), (branch, 1.2071068)):
        with tf.GradientTape() as tape:
            y = f(tf.constant([1.0, 2.0]) * x)
        np.testing.assert_allclose(float(tape.gradient(y, x)), want, rtol=1e-6)
