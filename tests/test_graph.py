"""tf.Graph, Operation, GraphDef view, name scopes, control dependencies,
tf.gradients and compat.v1 Session."""
import numpy as np
import pytest

import rillflow as tf


def test_graph_names_types_and_graph_def():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1, name="a")
        b = a + a
        c = tf.add(a, b)
        d = tf.matmul([[1.0]], [[2.0]])
        e = b * 2
        assert not tf.executing_eagerly()
    assert str(a) == 'Tensor("a:0", shape=(), dtype=int32)'
    assert repr(b) == "<tf.Tensor 'add:0' shape=() dtype=int32>"
    assert (b.name, c.name, d.name, e.name) == ("add:0", "Add_1:0", "MatMul:0", "mul:0")
    gd = g.as_graph_def()
    nodes = {n.name: n for n in gd.node}
    assert nodes["add"].op == "AddV2" and list(nodes["add"].input) == ["a", "a"]
    assert nodes["a"].op == "Const" and nodes["MatMul"].op == "MatMul"
    assert nodes["add"].attr["T"].type is tf.int32
    assert 'op: "AddV2"' in str(nodes["add"])
    assert g.get_operation_by_name("add") is b.op
    assert g.get_tensor_by_name("mul:0") is e
    assert [op.name for op in g.get_operations()][:3] == ["a", "add", "Add_1"]
    with pytest.raises(KeyError):
        g.get_operation_by_name("nope")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("add")


def test_name_scopes_and_control_dependencies():
    g = tf.Graph()
    with g.as_default():
        with tf.name_scope("outer"):
            x = tf.constant(1.0, name="x")
            with tf.name_scope("inner"):
                y = x * 2.0
        with tf.name_scope("outer"):
            z = tf.constant(3.0, name="z")
        with tf.control_dependencies([y]):
            w = tf.identity(z)
    assert x.name == "outer/x:0" and y.name == "outer/inner/mul:0"
    assert z.name == "outer_1/z:0"
    assert y.op in w.op.control_inputs
    node = [n for n in g.as_graph_def().node if n.name == w.op.name][0]
    assert "^outer/inner/mul" in node.input


def test_symbolic_tensor_misuse_raises():
    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, [None, 3], name="p")
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
            bool(p)
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
            iter(p)
        with pytest.raises(TypeError):
            len(p)
        # TensorFlow 2.21: no numpy() on a graph tensor; NumPy conversion refused.
        with pytest.raises(AttributeError,
                           match="^'SymbolicTensor' object has no attribute 'numpy'$"):
            p.numpy()
        with pytest.raises(NotImplementedError, match=r"^Cannot convert a symbolic tf.Tensor "
                                                      r"\(p:0\) to a numpy array\."):
            np.array(p)
    assert repr(p) == "<tf.Tensor 'p:0' shape=(None, 3) dtype=float32>"


def test_static_shape_inference_with_partial_shapes():
    g = tf.Graph()
    with g.as_default():
        p = tf.compat.v1.placeholder(tf.float32, [None, 3])
        q = tf.matmul(p, tf.ones([3, 4]))
        assert q.shape.as_list() == [None, 4]
        r = tf.reduce_sum(q, axis=1)
        assert r.shape.as_list() == [None]
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            p + tf.ones([4])
        u = tf.compat.v1.placeholder(tf.float32)
        assert (u * 2.0).shape.rank is None


def test_session_runs_with_feeds_and_nested_fetches():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None], name="x")
        y = x * 2.0 + 1.0
        s = tf.reduce_sum(y)
        with tf.compat.v1.Session() as sess:
            out = sess.run({"y": y, "both": [s, (y, s)]}, feed_dict={x: [1.0, 2.0]})
            np.testing.assert_array_equal(out["y"], [3.0, 5.0])
            assert out["both"][0] == 8.0
            assert sess.run("add:0", {x: [0.0]}).tolist() == [1.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
                sess.run(y)
            with pytest.raises(ValueError):
                sess.run(y, {x: [[1.0]]})
    with pytest.raises(RuntimeError):
        sess.run(y, {x: [1.0]})
    with pytest.raises(RuntimeError):
        tf.compat.v1.placeholder(tf.float32)


def test_session_runs_only_what_fetches_need():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0, name="counter")
        inc = v.assign_add(1)
        other = tf.constant(5) * 2
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            assert sess.run(other) == 10
            sess.run(inc)
            sess.run(inc)
            assert sess.run(v.read_value()) == 2


def test_tf_gradients_in_graphs():
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [])
        y = x * x * 3.0
        (dx,) = tf.gradients(y, [x])
        with tf.compat.v1.Session() as sess:
            assert sess.run(dx, {x: 2.0}) == 12.0
    with pytest.raises(RuntimeError):
        tf.gradients(tf.constant(1.0), [tf.constant(1.0)])


def test_graph_of_function_shows_ops_and_library():
    @tf.function
    def f(x):
        for i in tf.range(3):
            tf.print(i)
        return tf.cond(x > 0, lambda: x, lambda: -x)
    gd = f.get_concrete_function(tf.constant(1)).graph.as_graph_def()
    names = {n.name: n.op for n in gd.node}
    assert names["while"] in ("While", "StatelessWhile")
    assert names["cond"] == "StatelessIf"
    lib = [fn.name for fn in gd.library.function]
    assert any("while_body" in n for n in lib) or lib
    body_ops = [n.op for fn in gd.library.function for n in fn.node_def]
    assert "PrintV2" in body_ops


def test_python_operands_become_constants_named_after_the_argument():
    @tf.function
    def f(x):
        return (x + 1) * 2 - tf.add(x, 3), 5 - x
    names = [op.name for op in f.get_concrete_function(tf.constant(1)).graph.get_operations()]
    # TensorFlow 2.21's names (uniqueness ignores case: `Add_1` after `add`).
    assert names[:10] == ["x", "add/y", "add", "mul/y", "mul", "Add_1/y", "Add_1", "sub",
                          "sub_1/x", "sub_1"]


def test_dtype_errors_while_building_name_no_node():
    @tf.function
    def f(x, y):
        return tf.add(x, y)
    with pytest.raises(TypeError) as info:
        f(tf.constant(1), tf.constant(1, tf.int64))
    # TensorFlow 2.21's message: the user's frame, then the error (no node).
    lines = str(info.value).splitlines()
    assert lines[0] == "in user code:"
    assert lines[2].endswith(", in f  *")
    assert lines[3] == "        return tf.add(x, y)"
    assert lines[5:] == ["    TypeError: Input 'y' of 'AddV2' Op has type int64 that does not "
                         "match type int32 of argument 'x'."]


def test_graph_def_text_spells_dtypes_as_tensorflow_datatype_enums():
    # TensorFlow 2.21 prints `type: DT_HALF` / `dtype: DT_HALF` for float16.
    @tf.function
    def f(x):
        return x * 2.0
    for spec, name in ((tf.float16, "DT_HALF"), (tf.float32, "DT_FLOAT"),
                       (tf.float64, "DT_DOUBLE")):
        text = str(f.get_concrete_function(tf.TensorSpec([2], spec)).graph.as_graph_def())
        assert f"type: {name}" in text
        assert "DT_FLOAT16" not in text and "DT_FLOAT32" not in text
