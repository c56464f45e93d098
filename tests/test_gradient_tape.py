"""GradientTape: watching, persistence, variables, stop_recording, reset,
jacobians, higher-order gradients, unconnected gradients, stop_gradient and
custom_gradient."""
import numpy as np
import pytest

import rillflow as tf


def test_gradient_of_nested_targets_and_sources():
    x = tf.constant(2.0)
    y = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        out = {"a": x * y, "b": [x * x, y]}
    grads = tape.gradient(out, {"x": x, "y": y})
    assert float(grads["x"]) == 3.0 + 4.0
    assert float(grads["y"]) == 2.0 + 1.0


def test_non_persistent_tape_can_be_used_once():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_persistent_tape_allows_several_gradients():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(y, x)) == 6.0
    assert float(tape.gradient(z, x)) == 108.0


def test_variables_are_watched_automatically_unless_disabled():
    v = tf.Variable(2.0)
    frozen = tf.Variable(5.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * frozen
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 5.0 and gf is None
    assert tape.watched_variables() == (v,)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * v
    assert float(tape.gradient(y, v)) == 4.0


def test_stop_recording_and_reset():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * x   # not recorded
        w = y * 3.0
    assert tape.gradient(z, x) is None
    assert float(tape.gradient(w, x)) == 12.0
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        y = x * 5.0
    assert float(tape.gradient(y, x)) == 5.0


def test_unconnected_gradients():
    x = tf.constant(1.0)
    y = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * 2.0
    assert tape.gradient(z, y) is None
    g = tape.gradient(z, y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(g) == 0.0
    g = tape.gradient(z, [x, y], unconnected_gradients="zero")
    assert [float(v) for v in g] == [2.0, 0.0]


def test_output_gradients_weight_the_targets():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=tf.constant([10.0, 100.0]))
    np.testing.assert_array_equal(g.numpy(), [20.0, 400.0])


def test_integer_sources_get_no_gradient_with_logged_warning(caplog, monkeypatch):
    # TensorFlow logs (on its "tensorflow" logger, at most 5 times) rather
    # than raising a Python warning.
    from rillflow.eager import tape as tape_module
    monkeypatch.setattr(tape_module, "_watch_warnings", [0])
    x = tf.constant(3)
    with caplog.at_level("WARNING", logger="tensorflow"):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
    assert tape.gradient(y, x) is None
    assert [r.getMessage() for r in caplog.records] == [
        "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32"]


def test_watch_rejects_non_tensors():
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError):
            tape.watch("not a tensor")


def test_higher_order_gradients_with_nested_tapes():
    x = tf.constant(2.0)
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = x * x * x
        dy = t1.gradient(y, x)
    d2y = t2.gradient(dy, x)
    assert float(dy) == 12.0 and float(d2y) == 12.0


def test_jacobian_and_batch_jacobian():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = tf.reduce_sum(x) * x
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), np.diag([2.0, 4.0, 6.0]))
    expected = np.full((3, 3), 1.0) * x.numpy()[:, None] + np.eye(3) * 6.0
    np.testing.assert_allclose(tape.jacobian(z, x).numpy(), expected)
    b = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(b)
        out = b * b
    bj = tape.batch_jacobian(out, b)
    assert bj.shape == (2, 2, 2)
    np.testing.assert_array_equal(bj.numpy()[1], np.diag([6.0, 8.0]))


def test_stop_gradient_blocks_backprop():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x)
    assert float(tape.gradient(y, x)) == 3.0


def test_custom_gradient_replaces_the_gradient():
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -1.0, 1.0)
        return x * 1.0, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = clip_grad(x) * 10.0
    assert float(tape.gradient(y, x)) == 1.0

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad
    x = tf.constant(100.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0


def test_custom_gradient_with_variables():
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * v, [dy * 100.0]
        return x * v, grad
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    gx, gv = tape.gradient(y, [x, v])
    assert float(gx) == 3.0 and float(gv) == 100.0


def test_custom_gradient_inside_function():
    @tf.custom_gradient
    def double_grad(x):
        return x * 1.0, lambda dy: dy * 2.0

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = double_grad(x)
        return tape.gradient(y, x)
    assert float(f(tf.constant(1.0))) == 2.0


def test_compute_gradient_matches_numeric():
    theoretical, numeric = tf.test.compute_gradient(lambda x: x * x * x, [tf.constant([1.0, 2.0],
                                                                           tf.float64)])
    np.testing.assert_allclose(theoretical[0], numeric[0], rtol=1e-6)
    np.testing.assert_allclose(theoretical[0], np.diag([3.0, 12.0]))


def test_watching_an_outside_tensor_inside_a_function():
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])

    @tf.function
    def g():
        with tf.GradientTape() as t:
            t.watch(m)
            y = m * m
        return t.gradient(y, m)
    np.testing.assert_array_equal(g().numpy(), [[2.0, 4.0], [6.0, 8.0]])


def _freed_during_backward(persistent):
    """Whether an activation only the tape holds is freed by the time the
    gradient of an op before it runs."""
    import weakref
    seen = {}

    @tf.custom_gradient
    def first(x):
        def grad(dy):
            seen["alive"] = seen["ref"]() is not None
            return dy * 2.0
        return x * 2.0, grad
    x = tf.constant(np.ones((64, 64), np.float32))
    with tf.GradientTape(persistent=persistent) as tape:
        tape.watch(x)
        big = first(x) * 3.0
        seen["ref"] = weakref.ref(big)
        loss = tf.reduce_sum(big * big)
        del big
    g = tape.gradient(loss, x)
    np.testing.assert_array_equal(g.numpy(), np.full((64, 64), 72.0, np.float32))
    if persistent:
        np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), g.numpy())
    return not seen["alive"]


def test_a_non_persistent_tape_frees_activations_during_the_backward_pass():
    assert _freed_during_backward(persistent=False)
    assert not _freed_during_backward(persistent=True)


# --- custom_gradient: arguments that are tensor-likes, grad_fn's `variables` ---

class _Boxed:
    """A tensor-like that is neither a Tensor nor a variable (as Keras' variables
    are to TensorFlow): `tf.is_tensor` is true and it converts to its value."""
    _is_tensor_like = True

    def __init__(self, variable):
        self.variable = variable


tf.register_tensor_conversion_function(
    _Boxed, lambda b, dtype=None, name=None, as_ref=False: tf.convert_to_tensor(b.variable))


def test_custom_gradient_reads_tensor_like_arguments_and_routes_their_gradient():
    # Inside a function TensorFlow converts every argument of a custom-gradient
    # function before calling it, so a tensor-like argument is read (and
    # captured) even when the forward pass does not use it, and the gradient
    # returned for it reaches the variable (Keras' float8 layers rely on it).
    # rillflow converts eagerly too; TensorFlow's eager mode instead passes the
    # objects through and counts reads inside `f` as variables.
    in_function = True
    scale = tf.Variable(2.0)
    history = tf.Variable(5.0)

    @tf.custom_gradient
    def f(x, s, h):
        def grad(up, variables=None):   # no variable is read inside f
            return up * tf.convert_to_tensor(s), tf.constant(7.0), tf.convert_to_tensor(h) + 1.0
        return x * tf.convert_to_tensor(s), grad

    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x, _Boxed(scale), _Boxed(history))
        return tape.gradient(y, [x, scale, history])

    x = tf.constant(3.0)
    grads = tf.function(step)(x) if in_function else step(x)
    assert [float(g) for g in grads] == [2.0, 7.0, 6.0]
    if in_function:
        cf = tf.function(lambda x: f(x, _Boxed(scale), _Boxed(history))).get_concrete_function(x)
        assert {v.name for v in cf.variables} == {scale.name, history.name}


def test_custom_gradient_grad_fn_with_variables_keyword_and_no_variables():
    @tf.custom_gradient
    def f(x):
        def grad(up, variables=None):
            return up * 3.0
        return x * 2.0, grad

    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(tape.gradient(y, x)) == 3.0
