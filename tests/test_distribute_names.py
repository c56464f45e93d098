"""The rest of tf.distribute's public names (cluster resolvers, options,
cross-device ops, partitioners, the parameter-server names, preemption),
against TensorFlow 2.21's values (recorded by running the same calls)."""
import json

import numpy as np
import pytest

import rillflow as tf

D = tf.distribute
CR = tf.distribute.cluster_resolver


def test_tf_config_cluster_resolver(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({
        "cluster": {"worker": ["127.0.0.1:2001", "127.0.0.1:2002"], "chief": ["127.0.0.1:2000"]},
        "task": {"type": "worker", "index": 1}}))
    r = CR.TFConfigClusterResolver()
    assert repr(r.cluster_spec()) == ("ClusterSpec({'chief': ['127.0.0.1:2000'], 'worker': "
                                      "['127.0.0.1:2001', '127.0.0.1:2002']})")
    assert (r.task_type, r.task_id, r.rpc_layer, r.environment) == ("worker", 1, None, None)
    assert r.master() == "127.0.0.1:2002"
    assert r.master("chief", 0, "grpc") == "grpc://127.0.0.1:2000"
    s = CR.SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a:1"]}), task_type="worker",
                                 task_id=0, master="grpc://a:1")
    assert (s.master(), s.task_type, s.task_id, s.num_accelerators(), s.rpc_layer) == \
        ("grpc://a:1", "worker", 0, {}, None)
    u = CR.UnionResolver(r, s)
    assert u.cluster_spec().as_dict() == {"chief": ["127.0.0.1:2000"], "worker": [
        "127.0.0.1:2001", "127.0.0.1:2002", "a:1"]}
    assert (u.task_type, u.task_id, u.master()) == ("worker", 1, "127.0.0.1:2002")
    with pytest.raises(ValueError, match="^At least one ClusterResolver is required.$"):
        CR.UnionResolver()
    with pytest.raises(TypeError, match="^All arguments must be a sub-class of "):
        CR.UnionResolver(1)
    assert CR.ClusterResolver.__abstractmethods__ == frozenset({"cluster_spec", "master"})
    monkeypatch.setenv("TF_CONFIG", "{bad")
    with pytest.raises(json.JSONDecodeError):
        CR.TFConfigClusterResolver().cluster_spec()
    monkeypatch.delenv("TF_CONFIG")
    r = CR.TFConfigClusterResolver()
    assert (repr(r.cluster_spec()), r.task_type, r.task_id, r.master()) == \
        ("ClusterSpec({})", None, None, "")


def test_options_and_cross_device_ops():
    assert repr(D.RunOptions()) == ("RunOptions(experimental_enable_dynamic_batch_size=True, "
                                    "experimental_bucketizing_dynamic_shape=False, "
                                    "experimental_xla_options=None)")
    o = D.InputOptions()
    assert o.experimental_fetch_to_device is True
    assert o.experimental_replication_mode is D.InputReplicationMode.PER_WORKER
    assert [m.value for m in D.InputReplicationMode] == ["PER_WORKER", "PER_REPLICA"]
    E = D.experimental
    assert E.CollectiveCommunication is E.CommunicationImplementation
    assert [m.value for m in E.CommunicationImplementation] == ["AUTO", "RING", "NCCL"]
    c = E.CommunicationOptions()
    assert (c.bytes_per_pack, c.timeout_seconds, c.implementation) == \
        (0, None, E.CommunicationImplementation.AUTO)
    v = E.ValueContext()
    assert str(v) == "tf.distribute.ValueContext(replica id 0,  total replicas in sync: 1)"
    for ops in (D.ReductionToOneDevice(), D.NcclAllReduce(), D.HierarchicalCopyAllReduce(2)):
        assert isinstance(ops, D.CrossDeviceOps)
        assert ops.reduce("SUM", tf.constant(3.0), None).numpy() == 3.0
    per = tf.types.experimental.distributed.PerReplica(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(D.NcclAllReduce().reduce("MEAN", per, None), [2.0, 3.0])
    np.testing.assert_array_equal(D.ReductionToOneDevice().reduce("SUM", per, None), [4.0, 6.0])
    s = D.OneDeviceStrategy("/cpu:0")
    assert s.num_replicas_in_sync == 1
    assert s.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    assert s.run(lambda a: a * 2, args=(tf.constant(2),)).numpy() == 4


def test_partitioners():
    P = D.experimental.partitioners
    assert P.FixedShardsPartitioner(3)(tf.TensorShape([10, 4]), tf.float32) == [3, 1]
    assert P.FixedShardsPartitioner(20)(tf.TensorShape([10, 4]), tf.float32) == [10, 1]
    assert P.MinSizePartitioner(min_shard_bytes=16, max_shards=4)(
        tf.TensorShape([10, 4]), tf.float32) == [4, 1]
    assert P.MinSizePartitioner()(tf.TensorShape([10, 4]), tf.string) == [1, 1]
    assert P.MaxSizePartitioner(max_shard_bytes=48)(tf.TensorShape([10, 4]), tf.float32) == \
        [4, 1]
    assert P.MaxSizePartitioner(100, max_shards=2)(tf.TensorShape([10, 4]), tf.string) == [2, 1]
    with pytest.raises(ValueError, match="^Argument `min_shard_bytes` must be positive. "
                       "Received: 0$"):
        P.MinSizePartitioner(min_shard_bytes=0)
    with pytest.raises(ValueError, match="^Argument `max_shard_bytes` must be positive. "
                       "Received 0$"):
        P.MaxSizePartitioner(0)


def test_global_strategy_and_runtime_names():
    s = D.MirroredStrategy()
    D.experimental_set_strategy(s)
    try:
        assert D.get_strategy() is s and D.has_strategy() and D.in_cross_replica_context()
    finally:
        D.experimental_set_strategy(None)
    assert not D.has_strategy()
    f = tf.config.experimental.ClusterDeviceFilters()
    f.set_device_filters("worker", 0, ["/job:ps"])
    assert f._device_filters == {"worker": {0: ["/job:ps"]}}
    assert D.Server.create_local_server().target.startswith("grpc://localhost:")
    srv = D.Server({"worker": ["h:1", "h:2"]}, job_name="worker", task_index=1, start=False)
    assert srv.target == "grpc://h:2"
    with pytest.raises(NotImplementedError, match="MultiWorkerMirroredStrategy"):
        srv.join()
    with pytest.raises(NotImplementedError):
        D.ParameterServerStrategy(CR.SimpleClusterResolver(tf.train.ClusterSpec({})))
    with pytest.raises(RuntimeError, match="^Cannot retrieve the worker index."):
        D.coordinator.experimental_get_current_worker_index()
    with pytest.raises(ValueError, match="^Only `tf.distribute.experimental."
                       "ParameterServerStrategy` is supported"):
        D.coordinator.ClusterCoordinator(s)
    tf.config.experimental_connect_to_cluster(tf.train.ClusterSpec({"localhost": ["l:1"]}))
    tf.config.experimental_connect_to_host(None)
    with pytest.raises(NotImplementedError):
        tf.config.experimental_connect_to_host("10.0.0.1:8470")
    assert vars(D.experimental.TerminationConfig()) == {
        "termination_watcher_fn": None, "exit_fn": None, "grace_period": None, "save_fn": None}


def test_preemption_checkpoint_handler_saves_and_restores(tmp_path):
    v = tf.Variable(1.0)
    ckpt = tf.train.Checkpoint(v=v)
    stop = [False]
    exits = []
    cfg = D.experimental.TerminationConfig(termination_watcher_fn=lambda: stop[0],
                                           exit_fn=lambda: exits.append(1))
    h = D.experimental.PreemptionCheckpointHandler(None, ckpt, str(tmp_path), cfg)
    assert h.run(lambda: v.assign_add(1.0)).numpy() == 2.0 and not exits
    stop[0] = True
    h.run(lambda: v.assign_add(1.0))
    assert exits == [1] and h.total_run_calls == 2
    v.assign(0.0)
    D.experimental.PreemptionCheckpointHandler(None, ckpt, str(tmp_path), cfg)
    assert v.numpy() == 3.0   # restored from the checkpoint saved on termination
