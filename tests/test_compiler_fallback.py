"""A compiler pass that fails on a graph never fails the user's call: the
graph is compiled without that pass (in the end on the plain path), and the
debug flag (RILLFLOW_COMPILER_DEBUG=1, or fallback.set_debug) says which
pass gave up, on which graph, and why. The user's own errors surface as
before."""
import logging

import numpy as np
import pytest

import rillflow as tf
from rillflow.compiler import (accumulate, codegen, fallback, fusion, in_place, loop_invariant,
                              specialize)


def _model(x, w):
    # Large enough for fusion and in-place reuse; a loop for the loop passes.
    h = tf.tanh(tf.matmul(x, w)) * 2.0 + 1.0
    h = h * h - h / 3.0
    total = tf.zeros_like(h)
    for i in tf.range(3):
        total = total + h * tf.cast(i, tf.float32) + tf.transpose(w)[0, 0]
    return tf.reduce_sum(total, axis=1), h


def _args():
    rng = np.random.RandomState(0)
    return (tf.constant(rng.standard_normal((512, 128)).astype(np.float32)),
            tf.constant(rng.standard_normal((128, 256)).astype(np.float32) * 0.1))


def _broken(*args, **kwargs):
    raise RuntimeError("injected failure")


@pytest.fixture
def debug_on():
    saved = fallback.debug_enabled()
    fallback.set_debug(True)
    yield
    fallback.set_debug(saved)


@pytest.mark.parametrize("module, attr, pass_name", [
    (fusion, "fuse", "fusion"),
    (in_place, "try_emit", "in_place"),
    (accumulate, "accumulate_sums", "accumulate"),
    (loop_invariant, "split_invariant", "loop_invariant"),
    (specialize, "specialize", "specialize"),
    (codegen, "_cse", "cse"),
])
def test_a_failing_pass_falls_back_and_the_debug_flag_names_it(
        monkeypatch, caplog, debug_on, module, attr, pass_name):
    x, w = _args()
    expected = _model(x, w)
    monkeypatch.setattr(module, attr, _broken)
    before = len(fallback.records())
    with caplog.at_level(logging.WARNING, logger="rillflow.compiler"):
        got = tf.function(_model)(x, w)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.numpy(), e.numpy())
    new = fallback.records()[before:]
    assert [r.pass_name for r in new] == [pass_name]
    assert isinstance(new[0].exception, RuntimeError)
    text = caplog.text
    assert "the %s pass gave up" % pass_name in text and "injected failure" in text
    assert "_model" in new[0].graph and new[0].graph in text


def test_a_pass_breaking_code_generation_later_is_found(monkeypatch):
    # A pass may not fail itself but leave plans code generation trips on
    # (the attention step's fusion bug: a KeyError in Emitter.value).
    real = fusion.fuse

    def bad_fuse(plans, protected):
        out = real(plans, protected)
        return out[1:] if len(out) > 1 else out
    monkeypatch.setattr(fusion, "fuse", bad_fuse)
    x, w = _args()
    before = len(fallback.records())
    got = tf.function(_model)(x, w)
    np.testing.assert_array_equal(got[0].numpy(), _model(x, w)[0].numpy())
    assert [r.pass_name for r in fallback.records()[before:]] == ["fusion"]


def test_when_no_single_pass_is_to_blame_the_plain_path_runs(monkeypatch):
    calls = []

    def fails_when_optimizing(op):
        if codegen.options.optimize:
            calls.append(op)
            raise RuntimeError("always")
        return None
    # graph_rewrite runs with or without optimizations; this one fails only
    # with them on, whatever single pass is off.
    monkeypatch.setattr(specialize, "graph_rewrite", fails_when_optimizing)
    x, w = _args()
    before = len(fallback.records())
    got = tf.function(_model)(x, w)
    np.testing.assert_array_equal(got[1].numpy(), _model(x, w)[1].numpy())
    assert [r.pass_name for r in fallback.records()[before:]] == ["optimizations"]


def test_without_the_flag_fallbacks_log_only_at_debug_level(monkeypatch, caplog):
    saved = fallback.debug_enabled()
    fallback.set_debug(False)
    try:
        monkeypatch.setattr(fusion, "fuse", _broken)
        with caplog.at_level(logging.WARNING, logger="rillflow.compiler"):
            tf.function(_model)(*_args())
        assert "gave up" not in caplog.text
        with caplog.at_level(logging.DEBUG, logger="rillflow.compiler"):
            tf.function(_model)(*_args())
        assert "the fusion pass gave up" in caplog.text
    finally:
        fallback.set_debug(saved)


def test_strict_mode_raises_the_pass_failure(monkeypatch):
    monkeypatch.setattr(fusion, "fuse", _broken)
    with fallback.strict():
        with pytest.raises(RuntimeError, match="injected failure"):
            tf.function(_model)(*_args())


def test_user_errors_still_surface(monkeypatch):
    monkeypatch.setattr(fusion, "fuse", _broken)
    before = len(fallback.records())

    @tf.function
    def divide(a, b):
        return tf.math.floordiv(a, b) + 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        divide(tf.constant([1, 2]), tf.constant([1, 0]))
    # An unfed placeholder (a v1 session) is the user's error, not a pass's.
    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, [2])
        y = p * 2.0
    with tf.compat.v1.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
            sess.run(y)
    assert all(r.pass_name == "fusion" for r in fallback.records()[before:])


def test_the_environment_variable_turns_the_flag_on(tmp_path):
    import subprocess
    import sys
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = (
        "import rillflow as tf\n"
        "from rillflow.compiler import fusion\n"
        "def broken(*a):\n"
        "    raise RuntimeError('injected')\n"
        "fusion.fuse = broken\n"
        "print(tf.function(lambda x: x * 2.0 + 1.0)(tf.constant([1.0])).numpy())\n")
    env = dict(os.environ, RILLFLOW_COMPILER_DEBUG="1", PYTHONPATH=root)
    r = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "[3.]" in r.stdout
    assert "the fusion pass gave up" in r.stderr and "RuntimeError: injected" in r.stderr
