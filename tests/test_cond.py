"""tf.cond corner cases (see also the control-flow tests)."""
import rillflow as tf


def test_nested_cond_of_branches_returning_nothing():
    # Keras' LossScaleOptimizer: a cond whose branches only assign, inside
    # another cond's branch (it raised StopIteration while tracing).
    v = tf.Variable(0)
    s = tf.Variable(1.0)

    def inner_true():
        v.assign(0)
        s.assign(s * 2.0)

    def inner_false():
        v.assign_add(1)

    @tf.function(autograph=False)
    def f(p, q):
        def outer_true():
            return tf.cond(q, inner_true, inner_false)

        def outer_false():
            s.assign(s * 0.5)
        assert tf.cond(p, outer_true, outer_false) is None
        return v.read_value()

    assert int(f(tf.constant(True), tf.constant(False))) == 1 and float(s.numpy()) == 1.0
    assert int(f(tf.constant(True), tf.constant(True))) == 0 and float(s.numpy()) == 2.0
    assert int(f(tf.constant(False), tf.constant(True))) == 0 and float(s.numpy()) == 1.0
