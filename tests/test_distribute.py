"""tf.distribute with one replica (the default strategy and MirroredStrategy
on the CPU) and tf.config logical device configuration. Expected values are
TensorFlow 2.21's on a machine with one CPU and no GPU."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.framework import device as _device


@pytest.fixture
def fresh_devices():
    saved = dict(_device._logical_config), _device._initialized[0]
    _device._logical_config.clear()
    _device._initialized[0] = False
    yield
    _device._logical_config.clear()
    _device._logical_config.update(saved[0])
    _device._initialized[0] = saved[1]


def _rows():
    return tf.data.Dataset.from_tensor_slices(tf.reshape(tf.range(12), (3, 4)))


def test_mirrored_strategy_one_replica():
    s = tf.distribute.MirroredStrategy()
    assert isinstance(s, tf.distribute.Strategy)
    assert s.num_replicas_in_sync == 1
    assert s.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    assert tf.distribute.MirroredStrategy(devices=["/cpu:0"]).extended.worker_devices == \
        ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with pytest.raises(AssertionError, match=r"^No duplicates allowed in `devices` argument: "
                       r"\('/job:localhost/replica:0/task:0/device:CPU:0', "
                       r"'/job:localhost/replica:0/task:0/device:CPU:0'\)$"):
        tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:0"])
    dd = s.experimental_distribute_dataset(_rows())
    assert dd.element_spec == tf.TensorSpec([4], tf.int32)
    sums, means = [], []
    for x in dd:      # one replica: the elements themselves
        assert isinstance(x, tf.Tensor) and x.shape == [4]
        sums.append(s.reduce("SUM", x, axis=0).numpy())
        m = s.reduce("MEAN", x, axis=0)
        assert m.dtype == tf.float64
        means.append(m.numpy())
        np.testing.assert_array_equal(s.reduce(tf.distribute.ReduceOp.SUM, x, axis=None), x)
    assert sums == [6, 22, 38] and means == [1.5, 5.5, 9.5]
    it = iter(dd)
    np.testing.assert_array_equal(next(it).numpy(), [0, 1, 2, 3])
    assert s.run(lambda a: a + 1, args=(tf.constant(1),)).numpy() == 2
    assert s.experimental_local_results(3) == (3,)
    r = s.reduce("MEAN", tf.constant([[1.5, 2], [3, 4]]), axis=1)
    assert r.dtype == tf.float32
    np.testing.assert_array_equal(r.numpy(), [1.75, 3.5])
    r = s.reduce("MEAN", tf.constant([[1, 2], [3, 4]], tf.int64), axis=0)
    assert r.dtype == tf.float64
    np.testing.assert_array_equal(r.numpy(), [2.0, 3.0])
    with pytest.raises(ValueError, match="^'PROD' is not a valid ReduceOp$"):
        s.reduce("PROD", tf.constant(1), axis=None)
    assert list(s.distribute_datasets_from_function(
        lambda ctx: tf.data.Dataset.range(ctx.num_replicas_in_sync + 1))) == [0, 1]


def test_contexts():
    d = tf.distribute.get_strategy()
    assert type(d).__name__ == "_DefaultDistributionStrategy" and d.num_replicas_in_sync == 1
    ds = tf.data.Dataset.range(3)
    assert d.experimental_distribute_dataset(ds) is ds
    assert not tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context()
    assert tf.distribute.get_replica_context() is not None
    s = tf.distribute.MirroredStrategy()
    with s.scope():
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        assert tf.distribute.get_strategy() is s and tf.distribute.has_strategy()
        assert s.run(lambda: (tf.distribute.in_cross_replica_context(),
                              tf.distribute.get_replica_context().num_replicas_in_sync,
                              tf.distribute.get_strategy() is s)) == (False, 1, True)
    assert s.run(lambda: tf.distribute.get_strategy() is s)
    assert repr(tf.distribute.ReduceOp.SUM) == "<ReduceOp.SUM: 'SUM'>"
    assert str(tf.distribute.ReduceOp("MEAN")) == "ReduceOp.MEAN"


def test_loops_over_distributed_datasets_and_iterators():
    s = tf.distribute.MirroredStrategy()

    def loop(strat, iterable):
        total = 0
        for pr in iterable:
            total = total * 100 + strat.reduce("SUM", pr, axis=0)
        return total

    def take_two(strat, iterable):
        itr = iter(iterable)
        return strat.reduce("SUM", next(itr), axis=0) * 10 + strat.reduce("SUM", next(itr),
                                                                          axis=0)

    for make in (lambda: s.experimental_distribute_dataset(_rows()),
                 lambda: iter(s.experimental_distribute_dataset(_rows()))):
        assert loop(s, make()).numpy() == 62238
        assert tf.function(loop)(s, make()).numpy() == 62238
    assert tf.function(take_two)(s, s.experimental_distribute_dataset(_rows())).numpy() == 82

    @tf.function
    def until_exhausted(strat, itr):
        while tf.constant(True):
            strat.reduce("SUM", next(itr), axis=0)

    with pytest.raises(tf.errors.OutOfRangeError):
        until_exhausted(s, iter(s.experimental_distribute_dataset(_rows())))


def test_loop_variables_keep_their_shapes_over_distributed_datasets():
    # Unlike dataset loops, TensorFlow's loops over distributed datasets
    # check the loop variables' shapes.
    def grow(l):
        t = tf.constant([1])
        for _ in l:
            t = tf.constant([1, 1])
        return t

    dd = tf.distribute.MirroredStrategy().experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices([[1, 2, 3]] * 2))
    with pytest.raises(ValueError, match=r"'t' has shape \(1,\) before the loop, but shape "
                       r"\(2,\) after"):
        tf.function(grow)(dd)
    np.testing.assert_array_equal(
        tf.function(grow)(tf.data.Dataset.from_tensor_slices([[1, 2, 3]] * 2)).numpy(), [1, 1])


def test_logical_device_configuration(fresh_devices):
    cpu, = tf.config.list_physical_devices("CPU")
    C = tf.config.LogicalDeviceConfiguration
    assert tf.config.experimental.VirtualDeviceConfiguration is C
    assert tf.config.experimental.set_virtual_device_configuration is \
        tf.config.set_logical_device_configuration
    assert repr(C()) == ("LogicalDeviceConfiguration(memory_limit=None, "
                         "experimental_priority=None, experimental_device_ordinal=None)")
    assert tf.config.get_logical_device_configuration(cpu) is None
    with pytest.raises(ValueError, match="^Setting memory limit on CPU virtual devices is "
                       "currently not supported$"):
        tf.config.set_logical_device_configuration(cpu, [C(memory_limit=10)])
    with pytest.raises(ValueError, match="^Unrecognized device: 'CPU:0'$"):
        tf.config.set_logical_device_configuration("CPU:0", [C()])
    with pytest.raises(TypeError, match="'NoneType' object is not iterable"):
        tf.config.set_logical_device_configuration(cpu, None)
    tf.config.set_logical_device_configuration(cpu, [C(), C(), C()])
    assert tf.config.get_logical_device_configuration(cpu) == [C(), C(), C()]
    tf.config.set_logical_device_configuration(cpu, [C(), C()])
    assert tf.config.list_logical_devices("CPU") == [
        tf.config.LogicalDevice("/device:CPU:0", "CPU"),
        tf.config.LogicalDevice("/device:CPU:1", "CPU")]
    tf.config.set_logical_device_configuration(cpu, [C(), C()])   # unchanged: accepted
    with pytest.raises(RuntimeError, match="^Virtual devices cannot be modified after being "
                       "initialized$"):
        tf.config.set_logical_device_configuration(cpu, [C()])
