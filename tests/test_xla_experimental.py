"""`tf.xla.experimental.compile` and `jit_scope`: TensorFlow 2.21's results,
result structures and errors (taken from TensorFlow, eager and in graphs)."""
import collections
import importlib.util

import numpy as np
import pytest

import rillflow as tf

C = tf.xla.experimental.compile
needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                               reason="needs JAX (the xla extra)")


def values(r):
    return tf.nest.map_structure(lambda t: t.numpy().tolist(), r)


def test_compile_returns_a_list_for_flat_results():
    assert values(C(lambda x, y: x + y, [tf.constant(1.0), tf.constant(2.0)])) == [3.0]
    assert values(C(lambda: tf.constant(3.0))) == [3.0]
    x = tf.constant([1.0, 2.0])
    assert values(C(lambda x: [x * 2, x + 1], [x])) == [[2.0, 4.0], [2.0, 3.0]]
    assert values(C(lambda x: (x * 2, x + 1), (x,))) == [[2.0, 4.0], [2.0, 3.0]]
    pair = collections.namedtuple("Pair", "a b")
    assert values(C(lambda x: pair(x, x), [tf.constant(1.0)])) == [1.0, 1.0]
    out = C(lambda: [3, tf.constant(1)])
    assert [t.dtype for t in out] == [tf.int32, tf.int32] and values(out) == [3, 1]


def test_compile_keeps_nested_results_and_converts_nested_inputs():
    assert values(C(lambda x: {"a": x}, [tf.constant([1.0, 2.0])])) == {"a": [1.0, 2.0]}
    assert values(C(lambda x: [[x, x]], [tf.constant(1.0)])) == [[1.0, 1.0]]
    assert values(C(lambda x: x, [[1.0, 2.0]])) == [1.0, 2.0]
    assert values(C(lambda x, y: x[0] + y,
                    [[tf.constant(1.0), tf.constant(2.0)], tf.constant(5.0)])) == [6.0]
    out = C(lambda x: x * 2, [np.arange(3)])
    assert out[0].dtype == tf.int64 and values(out) == [[0, 2, 4]]


def test_compile_runs_returned_operations_and_assignments():
    v = tf.Variable(1.0)
    assert values(C(lambda: v.assign_add(2.0))) == [3.0] and float(v) == 3.0
    out = C(lambda x: [x + 1, tf.group(v.assign_add(1.0))], [tf.constant(1.0)])
    assert values(out) == [2.0] and float(v) == 4.0


def test_compile_inside_a_function():
    f = tf.function(lambda a: C(lambda x: x * 3, [a]))
    assert values(f(tf.constant(2.0))) == [6.0]


def test_compile_errors():
    with pytest.raises(TypeError, match="found return value of type Operation"):
        C(lambda x: None, [tf.constant(1.0)])
    with pytest.raises(TypeError, match="found return value of type Operation"):
        C(lambda: [])
    with pytest.raises(TypeError, match="inputs must be a list"):
        C(lambda x: x, tf.constant(1.0))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        C(lambda x, y: x, [tf.constant(1.0)])


@needs_jax
def test_compile_rejects_ops_xla_cannot_compile():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Detected unsupported operations"):
        C(lambda x: tf.strings.length(x), [tf.constant("ab")])


def test_jit_scope_is_refused_eagerly():
    with pytest.raises(RuntimeError, match="jit_scope is not supported when eager execution "
                                           "is enabled. Try use it inside tf.function."):
        with tf.xla.experimental.jit_scope():
            pass


def test_jit_scope_marks_graph_ops_and_changes_no_result():
    @tf.function
    def f(x):
        with tf.xla.experimental.jit_scope():
            return x + 1
    assert float(f(tf.constant(1.0))) == 2.0
    with tf.compat.v1.Graph().as_default():
        with tf.xla.experimental.jit_scope(compile_ops=lambda node_def: True,
                                           separate_compiled_gradients=True):
            c = tf.constant(1.0) + 1
        assert c.op.get_attr("_XlaCompile") is True
        assert c.op.get_attr("_XlaScope") == b"jit_scope_0"
        assert c.op.get_attr("_XlaSeparateCompiledGradients") is True
        with tf.xla.experimental.jit_scope(compile_ops=False):
            d = c * 2
        assert d.op.get_attr("_XlaCompile") is False
        assert d.op.get_attr("_XlaScope") == b"jit_scope_1"
        with pytest.raises(ValueError, match="has no attr named '_XlaCompile'"):
            (c + 1).op.get_attr("_XlaCompile")
        with tf.compat.v1.Session() as sess:
            assert sess.run(d) == 4.0


def test_nested_jit_scopes_share_the_outer_scope():
    with tf.compat.v1.Graph().as_default():
        with tf.xla.experimental.jit_scope():
            c = tf.constant(1.0) + 1
            with tf.xla.experimental.jit_scope(
                    compile_ops=lambda node_def: "mul" in node_def.op.lower()):
                d = c * 2
                e = d + 1
        with tf.xla.experimental.jit_scope():
            f = c * 2
        assert [t.op.get_attr("_XlaScope") for t in (c, d, e, f)] == \
            [b"jit_scope_0", b"jit_scope_0", b"jit_scope_0", b"jit_scope_1"]
        assert [t.op.get_attr("_XlaCompile") for t in (c, d, e)] == [True, True, False]
        assert d.op.get_attr("_XlaSeparateCompiledGradients") is False
