"""tf.Variable and tf.Module."""
import numpy as np
import pytest

import rillflow as tf


def test_variable_creation_forms():
    v = tf.Variable(1.0)
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    w = tf.Variable([[1, 2]], name="w")
    assert repr(w) == ("<tf.Variable 'w:0' shape=(1, 2) dtype=int32, numpy=array([[1, 2]], "
                       "dtype=int32)>")
    c = tf.Variable(lambda: tf.ones([2]), dtype=tf.float32)
    np.testing.assert_array_equal(c.numpy(), [1.0, 1.0])
    d = tf.Variable(3, dtype=tf.float64)
    assert d.dtype == tf.float64 and float(d) == 3.0
    assert tf.Variable(1.0, trainable=False).trainable is False
    with pytest.raises(ValueError):
        tf.Variable(None)


def test_assign_family_and_read_value():
    v = tf.Variable([1.0, 2.0])
    r = v.assign([3.0, 4.0])
    assert repr(r).startswith("<tf.Variable 'UnreadVariable' shape=(2,)")
    np.testing.assert_array_equal(v.read_value().numpy(), [3.0, 4.0])
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    assert v.assign([0.0, 0.0], read_value=False) is None
    with pytest.raises(ValueError, match="Shape mismatch|incompatible"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises((TypeError, ValueError)):
        v.assign(["a", "b"])


def test_update_shape_errors_match_tensorflow():
    v = tf.Variable([1.0, 2.0], name="w")
    with pytest.raises(ValueError, match=r"^Cannot assign value to variable ' w:0': Shape "
                       r"mismatch.The variable shape \(2,\), and the assigned value shape "
                       r"\(3,\) are incompatible.$"):
        v.assign([1.0, 2.0, 3.0])
    # assign_add / assign_sub do not broadcast: the shapes must be equal.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot update variable with shape \[2\] using a Tensor with shape "
                       r"\[\], shapes must be equal. \[Op:AssignAddVariableOp\]"):
        v.assign_add(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot update variable with shape \[2\] using a Tensor with shape "
                       r"\[1,2\], shapes must be equal. \[Op:AssignSubVariableOp\]"):
        v.assign_sub([[1.0, 1.0]])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_unvalidated_shape_allows_reshaping():
    v = tf.Variable([1.0], shape=tf.TensorShape(None))
    v.assign([1.0, 2.0, 3.0])
    assert v.numpy().shape == (3,)


def test_reads_before_writes_keep_their_values():
    v = tf.Variable(1.0)
    before = v.read_value()
    v.assign(5.0)
    assert float(before) == 1.0 and float(v) == 5.0


def test_variable_operators_and_protocols():
    v = tf.Variable([1.0, 2.0, 3.0])
    np.testing.assert_array_equal((v + 1).numpy(), [2, 3, 4])
    np.testing.assert_array_equal((2 * v).numpy(), [2, 4, 6])
    np.testing.assert_array_equal(v[1:].numpy(), [2, 3])
    np.testing.assert_array_equal((v > 1.5).numpy(), [False, True, True])
    assert np.asarray(v).tolist() == [1.0, 2.0, 3.0]
    # TensorFlow's variables have no len() and are no list indices.
    with pytest.raises(TypeError, match="object of type 'ResourceVariable' has no len"):
        len(v)
    s = tf.Variable(4)
    assert int(s) == 4 and float(s) == 4.0
    with pytest.raises(TypeError, match="not ResourceVariable"):
        [0, 1, 2, 3, 4, 5][s]
    with pytest.raises(TypeError, match="unhashable"):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1


def test_variable_in_name_scope_and_module_scope():
    with tf.name_scope("outer"):
        v = tf.Variable(1.0, name="v")
    assert v.name == "outer/v:0"

    class Dense(tf.Module):
        def __init__(self, n, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([2, n]), name="w")
                self.b = tf.Variable(tf.zeros([n]), name="b", trainable=False)

        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b

    d = Dense(3)
    assert d.name == "dense"
    assert d.w.name == "dense/w:0"
    assert [v.name for v in d.trainable_variables] == ["dense/w:0"]
    assert [v.name for v in d.non_trainable_variables] == ["dense/b:0"]
    np.testing.assert_array_equal(d(tf.ones([1, 2])).numpy(), [[2.0, 2.0, 2.0]])


def test_module_tracks_submodules_and_nested_containers():
    class Leaf(tf.Module):
        def __init__(self, k):
            super().__init__(name="leaf%d" % k)
            self.v = tf.Variable(float(k))

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Leaf(1), Leaf(2)]
            self.extra = {"shared": self.layers[0]}
            self.scale = tf.Variable(10.0)

    m = Model()
    assert m.name == "model"
    assert len(m.submodules) == 2
    assert sorted(float(v) for v in m.variables) == [1.0, 2.0, 10.0]
    with pytest.raises(ValueError):
        tf.Module(name="not valid")


def test_with_name_scope_decorator():
    class M(tf.Module):
        @tf.Module.with_name_scope
        def make(self):
            return tf.Variable(1.0, name="x")
    assert M(name="m").make().name == "m/x:0"


def test_variable_created_in_graph_needs_initializer():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(3.0, name="gv")
        y = v * 2.0
        init = tf.compat.v1.global_variables_initializer()
        with tf.compat.v1.Session() as sess:
            sess.run(init)
            assert sess.run(y) == 6.0


def test_sliced_variable_assignment():
    v = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    v[0, 1].assign(9.0)
    v[1].assign([7.0, 8.0, 9.0])
    assert v.numpy().tolist() == [[1.0, 9.0, 3.0], [7.0, 8.0, 9.0]]
    v[:, 0].assign(0.0)                                   # broadcast to the slice
    v[:, ::2].assign([[1.0, 1.0], [2.0, 2.0]])
    assert v.numpy().tolist() == [[1.0, 9.0, 1.0], [2.0, 8.0, 2.0]]
    assert hasattr(v[0], "assign") and not hasattr(tf.constant(1.0), "assign")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot broadcast input shape \[2\] into final shape \[3\]"):
        v[0].assign([1.0, 2.0])

    @tf.function
    def scale_row(i):
        v[i].assign(v[i] * 10)
        return v.read_value()
    assert scale_row(tf.constant(0)).numpy().tolist() == [[10.0, 90.0, 10.0], [2.0, 8.0, 2.0]]
    w = tf.Variable([1, 2, 3])
    w[1:].assign([5, 6])
    assert w.numpy().tolist() == [1, 5, 6]
    with tf.GradientTape() as t:
        y = tf.reduce_sum(v[0] * 2)
    assert t.gradient(y, v).numpy().tolist() == [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]
