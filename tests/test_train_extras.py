"""tf.train's protos (ClusterDef, JobDef, ServerDef), CheckpointOptions,
CheckpointView and tf.train.experimental (PythonState, sharding policies)
against TensorFlow 2.21: the cases of tools/tf_infra_fixtures.py."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))
_NAMES = ["cluster_protos", "server_def_bad_type", "job_def_bad_key", "server_def_has_field",
          "checkpoint_options_bad_sharding", "sharding_policies",
          "checkpoint_view_and_python_state"]


@pytest.mark.parametrize("name", _NAMES)
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_server_def_keeps_undeclared_fields():
    # field 4 (default_session_config) is not declared: kept as unknown bytes
    data = bytes.fromhex("1206776f726b6572") + bytes.fromhex("2202080a")
    sd = tf.train.ServerDef.FromString(data)
    assert sd.job_name == "worker" and sd.SerializeToString() == data


def test_corrupt_server_def_is_a_decode_error():
    with pytest.raises(Exception, match="Error parsing message"):
        tf.train.ServerDef.FromString(b"\x0a\xff")


def test_checkpoint_view_of_a_file_that_is_no_checkpoint(tmp_path):
    p = tmp_path / "x.index"
    p.write_bytes(b"not a table")
    with pytest.raises((tf.errors.DataLossError, tf.errors.NotFoundError)):
        tf.train.CheckpointView(str(tmp_path / "x"))


def test_max_shard_size_policy_splits_by_bytes():
    st = tf.train.experimental.ShardableTensor
    ts = [st(None, np.zeros(4, np.float32), tf.float32, None, f"t{i}", [4], "", f"k{i}", None)
          for i in range(3)]
    shards = tf.train.experimental.MaxShardSizePolicy(20)(ts)
    assert [sorted(s) for s in shards] == [["k0"], ["k1"], ["k2"]]
    assert len(tf.train.experimental.ShardByTaskPolicy()(ts)) == 1
