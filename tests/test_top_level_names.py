"""Top-level names of issue 22 against TensorFlow 2.21: the cases of
tools/tf_names_fixtures.py, recorded by it into tests/data/tf_names.npz, and
checks of behaviour a fixture cannot hold (threads, registries)."""
import os
import sys
import threading

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_names_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_names.npz"))


@pytest.mark.parametrize("name", sorted(fixtures.CASES.fns))
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_tensor_proto_round_trips_through_bytes():
    p = tf.make_tensor_proto(np.arange(6, dtype=np.float32).reshape(2, 3))
    q = type(p).FromString(p.SerializeToString())
    assert q == p and [d.size for d in q.tensor_shape.dim] == [2, 3]
    np.testing.assert_array_equal(tf.make_ndarray(q), np.arange(6).reshape(2, 3))
    assert tf.make_tensor_proto(p) is p


def test_no_gradient_on_a_registered_op_type_stops_gradients():
    from rillflow.framework import gradient_registry, op_registry
    from rillflow.framework.execute import apply
    op_registry.register("Issue22Double", lambda x: x * 2,
                         lambda i, a: [(i[0].shape, i[0].dtype)])
    try:
        tf.no_gradient("Issue22Double")
        x = tf.constant(2.0)
        with tf.GradientTape() as t:
            t.watch(x)
            y = apply(op_registry.get("Issue22Double"), [x]) + x
        assert float(t.gradient(y, x)) == 1.0
        with pytest.raises(KeyError, match="Registering two gradient with name 'Issue22Double'"):
            tf.no_gradient("Issue22Double")
    finally:
        # Other tests in this process list the registry (tf.raw_ops's coverage).
        del op_registry.REGISTRY["Issue22Double"]
        del gradient_registry._REGISTRY["Issue22Double"]


def test_critical_section_eager_and_traced():
    cs = tf.CriticalSection()
    v = tf.Variable(1.0)

    def fn():
        v.assign_add(1.0)
        return v.read_value(), {"a": v * 2}

    r = cs.execute(fn)
    assert float(r[0]) == 2.0 and float(r[1]["a"]) == 4.0
    r = tf.function(lambda: cs.execute(fn))()
    assert float(r[0]) == 3.0 and float(r[1]["a"]) == 6.0
    with pytest.raises(ValueError, match="Attempting to lock a CriticalSection"):
        cs.execute(lambda: cs.execute(lambda: tf.constant(1.)))
    with pytest.raises(ValueError, match="Attempting to lock a CriticalSection"):
        tf.function(lambda: cs.execute(lambda: cs.execute(lambda: tf.constant(1.))))()


def test_critical_section_serializes_threads():
    cs = tf.CriticalSection()
    w = tf.Variable(0)
    step = tf.function(lambda: cs.execute(lambda: w.assign(w.read_value() + 1)))

    def run():
        for _ in range(100):
            step()
            cs.execute(lambda: w.assign(w.read_value() + 1))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(w.numpy()) == 800


def test_critical_section_released_after_a_failing_run():
    cs = tf.CriticalSection()

    @tf.function
    def bad():
        return cs.execute(lambda: tf.py_function(lambda: 1 / 0, [], tf.float32))

    with pytest.raises(Exception):
        bad()
    assert float(cs.execute(lambda: tf.constant(2.0))) == 2.0


def test_critical_section_exclusive_resources():
    v = tf.Variable(1.)
    cs1, cs2 = tf.CriticalSection(), tf.CriticalSection()

    @tf.function
    def both(exclusive):
        return (cs1.execute(lambda: v + 1, exclusive_resource_access=exclusive),
                cs2.execute(lambda: v + 2, exclusive_resource_access=exclusive))

    with pytest.raises(ValueError, match="requested exclusive resource access"):
        both(True)
    assert [float(x) for x in both(False)] == [2.0, 3.0]


def test_version():
    assert tf.version.VERSION == "2.21.0"
    assert tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER == 0
    assert isinstance(tf.version.GIT_VERSION, str) and isinstance(tf.version.COMPILER_VERSION, str)


def test_checkpoints_iterator(tmp_path):
    ck = tf.train.Checkpoint(v=tf.Variable(1.))
    first = ck.save(str(tmp_path / "ck"))
    seen = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.2))
    assert seen == [first]
    calls = []
    seen = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.1,
                                              timeout_fn=lambda: calls.append(1) or True))
    assert seen == [first] and calls == [1]
