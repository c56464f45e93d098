"""Checkpoints written by TensorFlow 2.21 (tests/data/tf_checkpoints/, from
tools/tf_checkpoint_fixtures.py) read and restored by rillflow, rillflow
writing TensorFlow's bytes, and (with RILLFLOW_TF_PYTHON set to a Python that
has TensorFlow) TensorFlow restoring what rillflow writes."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.io import checkpoint_pb, tensor_bundle
from rillflow.saved_model import checkpoint as checkpoint_module

import checkpoint_structures as cs

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_checkpoints")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(DATA, "values.json")) as _f:
    VALUES = json.load(_f)

needs_bf16 = pytest.mark.skipif(cs.ml_dtypes is None, reason="bfloat16 needs ml_dtypes")


def _expected(prefix):
    return {k: cs.from_json(v) for k, v in VALUES[prefix].items()}


def _assert_same(have, want, what=""):
    have = np.asarray(have, dtype=object if want.dtype == object else None)
    assert have.shape == want.shape, what
    assert have.dtype == want.dtype, what
    np.testing.assert_array_equal(have, want, err_msg=what)


@needs_bf16
def test_raw_bundle_values_and_rillflow_writes_the_same_bytes(tmp_path):
    prefix = os.path.join(DATA, "raw", "bundle")
    got = tensor_bundle.read_tensors(prefix)
    want = _expected("raw/bundle")
    assert sorted(got) == sorted(want)
    for name in want:
        _assert_same(got[name], want[name], name)
    # The same tensors written by rillflow: TensorFlow's SaveV2 bytes exactly.
    tensor_bundle.write_tensors(str(tmp_path / "bundle"), cs.module_values())
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as f:
            theirs = f.read()
        assert (tmp_path / ("bundle" + suffix)).read_bytes() == theirs, suffix


@needs_bf16
def test_reader_api_on_a_tensorflow_checkpoint():
    directory = os.path.join(DATA, "module")
    assert tf.train.latest_checkpoint(directory) == os.path.join(directory, "ckpt-1")
    want = _expected("module/ckpt-1")
    listed = tf.train.list_variables(directory)
    assert [k for k, _ in listed] == ["_CHECKPOINTABLE_OBJECT_GRAPH"] + sorted(want)
    assert dict(listed)["model/f32/.ATTRIBUTES/VARIABLE_VALUE"] == [2, 3]
    reader = tf.train.load_checkpoint(directory)
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["model/bf16/.ATTRIBUTES/VARIABLE_VALUE"] == tf.bfloat16
    assert dtypes["model/words/.ATTRIBUTES/VARIABLE_VALUE"] == tf.string
    for key, value in want.items():
        _assert_same(reader.get_tensor(key), value, key)
    assert reader.get_tensor("model/title/.ATTRIBUTES/VARIABLE_VALUE") == b"rillflow"
    assert tf.train.load_variable(directory, "step/.ATTRIBUTES/VARIABLE_VALUE") == 42
    assert tf.compat.v1.train.NewCheckpointReader(os.path.join(directory, "ckpt-1")) \
        .has_tensor("model/i8/.ATTRIBUTES/VARIABLE_VALUE")
    assert b"model/f32/.ATTRIBUTES/VARIABLE_VALUE (DT_FLOAT) [2,3]\n" in reader.debug_string()


@needs_bf16
def test_restore_a_tensorflow_checkpoint_into_the_same_structure():
    values = cs.module_values()
    ckpt = tf.train.Checkpoint(**cs.build_net(tf, cs.zeros_like(values)))
    status = ckpt.restore(tf.train.latest_checkpoint(os.path.join(DATA, "module")))
    status.assert_consumed()
    net = ckpt.model
    for name, value in values.items():
        _assert_same(getattr(net, name).numpy(), value, name)
    assert int(ckpt.step.numpy()) == 42 and int(ckpt.save_counter.numpy()) == 1
    assert net.table["b/c.d"].numpy().tolist() == [3, 4]
    assert net.layers[1].deeper.count.numpy() == 7
    assert net.pair[1].numpy() == b"x"


def test_rillflow_writes_tensorflows_keys_and_object_graph(tmp_path):
    """The same structure saved by rillflow: the keys, shapes and object
    graph of TensorFlow's checkpoint (node order, names, checkpoint values)."""
    ckpt = tf.train.Checkpoint(**cs.build_net(tf, cs.module_values()))
    path = ckpt.save(str(tmp_path / "ckpt"))
    theirs = os.path.join(DATA, "module", "ckpt-1")
    ours_list = tf.train.list_variables(path)
    theirs_list = [(k, s) for k, s in tf.train.list_variables(theirs)
                   if cs.ml_dtypes is not None or "bf16" not in k]
    assert ours_list == theirs_list
    if cs.ml_dtypes is None:
        return
    graph_key = "_CHECKPOINTABLE_OBJECT_GRAPH"
    ours = tensor_bundle.BundleReader(path).get(graph_key).item()
    theirs = tensor_bundle.BundleReader(theirs).get(graph_key).item()
    assert ours == theirs


def _dense_and_slot_adam():
    model = cs.build_dense_model(tf)
    optimizer = cs.make_slot_adam(tf, checkpoint_module.slot_created)()
    return model, optimizer


def test_slot_variables_restore_when_the_optimizer_creates_them():
    want = _expected("v1_adam/ckpt")
    model, opt = _dense_and_slot_adam()
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    status = ckpt.read(os.path.join(DATA, "v1_adam", "ckpt"))
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()  # the slots do not exist yet
    kernel = model.dense.kernel
    _assert_same(kernel.numpy(), want["model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"])
    _assert_same(opt.beta1_power.numpy(), want["optimizer/beta1_power/.ATTRIBUTES/VARIABLE_VALUE"])
    # Created on first use, slots get their saved values before the step.
    slot_m = opt._slot(kernel, "m")
    _assert_same(slot_m.numpy(),
                 want["model/dense/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"])
    for var in (kernel, model.dense.bias):
        opt._slot(var, "m"), opt._slot(var, "v")
    status.assert_consumed()
    key = "model/dense/bias/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE"
    _assert_same(opt.get_slot(model.dense.bias, "v").numpy(), want[key])


def test_existing_slots_restore_at_once_and_save_under_tensorflows_keys(tmp_path):
    model, opt = _dense_and_slot_adam()
    cs.dense_steps(tf, model, opt)
    path = tf.train.Checkpoint(model=model, optimizer=opt).write(str(tmp_path / "ckpt"))
    theirs = os.path.join(DATA, "v1_adam", "ckpt")
    assert tf.train.list_variables(path) == tf.train.list_variables(theirs)
    # The same object graph but for `full_name`s (the variables' names:
    # TensorFlow's v1 slots are named "kernel/Adam_1" and the like).
    graphs = []
    for prefix in (path, theirs):
        nodes = checkpoint_pb.decode_object_graph(
            tf.train.load_checkpoint(prefix).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
        for node in nodes:
            for attribute in node["attributes"]:
                attribute.pop("full_name")
        graphs.append(nodes)
    assert graphs[0] == graphs[1]
    status = tf.train.Checkpoint(model=model, optimizer=opt).read(theirs)
    status.assert_consumed()
    want = _expected("v1_adam/ckpt")
    _assert_same(opt.get_slot(model.dense.kernel, "v").numpy(), want[
        "model/dense/kernel/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE"])


def test_keras_optimizer_variable_list_restored_when_assigned():
    """Keras 3's Adam saves its variables as a list; a structure that
    assigns the list after restore() gets the values then."""
    want = _expected("keras_adam/ckpt")
    model = cs.build_dense_model(tf)
    opt = tf.Module()
    opt._iterations = tf.Variable(0, dtype=tf.int64)
    opt._learning_rate = tf.Variable(0.0)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    status = ckpt.read(os.path.join(DATA, "keras_adam", "ckpt"))
    assert int(opt._iterations.numpy()) == 2
    slots = [tf.Variable(tf.zeros_like(v)) for v in
             (model.dense.kernel, model.dense.kernel, model.dense.bias, model.dense.bias)]
    opt._variables = [opt._iterations, opt._learning_rate] + slots
    status.assert_consumed()
    for i, slot in enumerate(slots, 2):
        _assert_same(slot.numpy(), want[f"optimizer/_variables/{i}/.ATTRIBUTES/VARIABLE_VALUE"])


def test_manager_recovers_tensorflows_state_file(tmp_path):
    directory = tmp_path / "manager"
    shutil.copytree(os.path.join(DATA, "manager"), directory)
    ckpt = tf.train.Checkpoint(v=tf.Variable([0.0, 0.0]))
    manager = tf.train.CheckpointManager(ckpt, str(directory), max_to_keep=2)
    assert manager.latest_checkpoint == str(directory / "ckpt-3")
    assert manager.checkpoints == [str(directory / "ckpt-2"), str(directory / "ckpt-3")]
    assert manager.restore_or_initialize() == str(directory / "ckpt-3")
    assert ckpt.v.numpy().tolist() == [4.0, 5.0] and int(ckpt.save_counter.numpy()) == 3
    state = tf.train.get_checkpoint_state(str(directory))
    assert len(state.all_model_checkpoint_timestamps) == 2
    manager.save()
    assert sorted(os.listdir(directory)) == [
        "checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
        "ckpt-4.data-00000-of-00001", "ckpt-4.index"]


@pytest.mark.skipif(not os.environ.get("RILLFLOW_TF_PYTHON"),
                    reason="set RILLFLOW_TF_PYTHON to a Python with TensorFlow")
def test_tensorflow_restores_rillflows_checkpoints(tmp_path):
    """tools/tf_checkpoint_check.py: rillflow writes, TensorFlow restores
    into the same structures (in a subprocess) and compares every value."""
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "tf_checkpoint_check.py"),
         "--tensorflow", os.environ["RILLFLOW_TF_PYTHON"], "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all checks passed" in proc.stdout
