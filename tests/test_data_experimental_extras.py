"""The rest of tf.data.experimental: make_batched_features_dataset,
get_model_proto, rejection_resample, the in-process tf.data service and
distributed_save, ServiceOptions; against TensorFlow 2.21 where values are
deterministic (cases of tools/tf_infra_fixtures.py), by their distributions
where they are random."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))
_NAMES = ["batched_features_dataset", "batched_features_bad_label", "get_model_proto_errors",
          "service_configs_and_modes"]


@pytest.mark.parametrize("name", _NAMES)
def test_equals_tensorflow(name):
    fixtures.CASES.check(name, tf, _DATA)


def test_get_model_proto_of_an_iterator_is_not_found():
    with pytest.raises(tf.errors.NotFoundError, match="analytical model"):
        tf.data.experimental.get_model_proto(iter(tf.data.Dataset.range(2)))


def test_make_saveable_from_iterator_points_to_checkpoints(capsys):
    with pytest.raises(AttributeError, match="Tensor.name is undefined"):
        tf.data.experimental.make_saveable_from_iterator(iter(tf.data.Dataset.range(2)))
    assert "tf.train.Checkpoint" in capsys.readouterr().out


def _classes(ds):
    return np.array([int(c) for c, _ in ds.as_numpy_iterator()])


def test_rejection_resample_reaches_the_target_distribution():
    tf.random.set_seed(5)
    labels = np.array(([0] * 8 + [1] * 2) * 300, np.int32)
    ds = tf.data.Dataset.from_tensor_slices(labels)
    out = _classes(ds.apply(tf.data.experimental.rejection_resample(
        lambda x: x, [0.5, 0.5], initial_dist=[0.8, 0.2], seed=3)))
    share = np.mean(out == 1)
    assert 0.4 < share < 0.6 and len(out) < len(labels)
    out = _classes(ds.apply(tf.data.experimental.rejection_resample(
        lambda x: x, [0.5, 0.5], seed=3)))
    assert 0.35 < np.mean(out == 1) < 0.65


def test_rejection_resample_keeps_everything_when_already_at_target():
    ds = tf.data.Dataset.from_tensor_slices((np.array([0, 1, 1, 0], np.int32),
                                             [1.0, 2.0, 3.0, 4.0]))
    out = list(ds.apply(tf.data.experimental.rejection_resample(
        lambda c, v: c, [0.5, 0.5], initial_dist=[0.5, 0.5], seed=1)).as_numpy_iterator())
    assert [(int(c), float(v[1])) for c, v in out] == [(0, 1.0), (1, 2.0), (1, 3.0), (0, 4.0)]


def test_service_runs_in_process(tmp_path):
    s = tf.data.experimental.service
    d = s.DispatchServer()
    assert d.target.startswith("grpc://localhost:")
    ds = tf.data.Dataset.range(4)
    with pytest.raises(tf.errors.FailedPreconditionError, match="no workers"):
        ds.apply(s.distribute("parallel_epochs", d.target))
    s.WorkerServer(s.WorkerConfig(d.target.split("://")[1]))
    assert list(ds.apply(s.distribute("distributed_epoch", d.target)).as_numpy_iterator()) \
        == [0, 1, 2, 3]
    s.WorkerServer(s.WorkerConfig(d.target.split("://")[1]))
    both = list(ds.apply(s.distribute("parallel_epochs", d.target)).as_numpy_iterator())
    assert sorted(both) == [0, 0, 1, 1, 2, 2, 3, 3]
    dataset_id = s.register_dataset(d.target, ds)
    assert dataset_id.dtype == tf.string
    got = s.from_dataset_id(s.ShardingPolicy.DYNAMIC, d.target, dataset_id,
                            element_spec=ds.element_spec)
    assert list(got.as_numpy_iterator()) == [0, 1, 2, 3]
    tf.data.experimental.distributed_save(ds, str(tmp_path / "saved"),
                                          d.target.split("://")[1])
    assert list(tf.data.experimental.load(str(tmp_path / "saved")).as_numpy_iterator()) == \
        [0, 1, 2, 3]
    d.stop()
    with pytest.raises(tf.errors.UnavailableError, match="in-process"):
        ds.apply(s.distribute("parallel_epochs", d.target))
