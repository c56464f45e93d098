"""SavedModels written by TensorFlow 2.21 (tests/data/tf_saved_models/,
from tools/tf_saved_model_fixtures.py) loaded by rillflow: every saved
function and signature gives TensorFlow's results on rillflow's kernels."""
import json
import os
import shutil

import numpy as np
import pytest

import rillflow as tf
from rillflow.io import proto_codec

import saved_model_structures as ss

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_saved_models")
with open(os.path.join(DATA, "expected.json")) as _f:
    EXPECTED = json.load(_f)


@pytest.mark.parametrize("name", ["module", "control_flow", "training", "keras_export"])
def test_functions_and_signatures_give_tensorflows_results(name):
    obj = tf.saved_model.load(os.path.join(DATA, name))
    for spec, want in zip(ss.CALLS[name], EXPECTED[name]):
        what = f"{name}: {spec.get('path') or spec.get('signature')}"
        ss.assert_matches(ss.call(tf, obj, spec), want, what)


def test_loaded_objects():
    obj = tf.saved_model.load(os.path.join(DATA, "module"))
    np.testing.assert_array_equal(obj.v.numpy(), [1.0, 2.0, 3.0])
    assert [float(v.numpy()) for v in obj.table] == [0.5, -2.0]
    assert obj.inner.w.shape == (3, 2) and obj.v.trainable
    assert sorted(obj.signatures) == ["scaled", "serving_default"]
    sig = obj.signatures["serving_default"]
    assert sig.structured_input_signature == (
        (), {"x": tf.TensorSpec([None, 3], tf.float32, name="x")})
    assert sorted(sig.structured_outputs) == ["total", "y"]
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        obj.scale(tf.constant([1.0, 2.0, 3.0]))


def test_gradients_through_a_loaded_function():
    obj = tf.saved_model.load(os.path.join(DATA, "module"))
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(obj(x)["total"])
    np.testing.assert_allclose(tape.gradient(total, obj.v).numpy(), x.numpy().sum(0))


def test_assigned_variables_persist_between_calls():
    obj = tf.saved_model.load(os.path.join(DATA, "module"))
    obj.v.assign([0.0, 0.0, 0.0])
    out = obj(tf.ones([1, 3]))["total"]
    np.testing.assert_allclose(out.numpy(), [1.5])


def _rewrite(tmp_path, name, change):
    """A copy of fixture `name` whose saved_model.pb went through `change`
    (a function of the decoded proto)."""
    target = tmp_path / name
    shutil.copytree(os.path.join(DATA, name), target)
    pb = target / "saved_model.pb"
    proto = proto_codec.decode(pb.read_bytes(), "tensorflow.SavedModel")
    change(proto)
    pb.write_bytes(proto_codec.encode(proto, "tensorflow.SavedModel"))
    return str(target)


def test_missing_ops_are_listed_at_once(tmp_path):
    def change(proto):
        renamed = iter(["FancyOp", "OtherOp"])
        for fd in proto["meta_graphs"][0]["graph_def"]["library"]["function"]:
            for node in fd.get("node_def", []):
                if node["op"] in ("Mul", "MatMul"):
                    node["op"] = next(renamed, node["op"])
    path = _rewrite(tmp_path, "module", change)
    with pytest.raises(tf.errors.NotFoundError) as e:
        tf.saved_model.load(path)
    assert "FancyOp" in str(e.value) and "OtherOp" in str(e.value)


def test_truncated_and_garbage_files(tmp_path):
    target = tmp_path / "m"
    shutil.copytree(os.path.join(DATA, "module"), target)
    pb = target / "saved_model.pb"
    data = pb.read_bytes()
    pb.write_bytes(data[:len(data) // 2])
    with pytest.raises(tf.errors.DataLossError):
        tf.saved_model.load(str(target))
    pb.write_bytes(b"\xff" * 100)
    with pytest.raises(tf.errors.DataLossError):
        tf.saved_model.load(str(target))


@pytest.mark.parametrize("name", ["module", "control_flow", "training"])
def test_rillflow_reads_its_own_saved_model_pb(name, tmp_path):
    """rillflow's saved_model.pb alone (its saved_model.json removed)
    loads back with TensorFlow's results."""
    build = {"module": ss.build_module, "control_flow": ss.build_control_flow,
             "training": ss.build_training}[name]
    obj, signatures = build(tf)
    path = tmp_path / name
    tf.saved_model.save(obj, str(path), signatures=signatures)
    (path / "saved_model.json").unlink()
    loaded = tf.saved_model.load(str(path))
    for spec, want in zip(ss.CALLS[name], EXPECTED[name]):
        ss.assert_matches(ss.call(tf, loaded, spec), want, f"{name}: {spec}")


def test_a_changed_saved_model_pb_is_read_instead_of_the_json(tmp_path):
    """saved_model.json records the digest of the saved_model.pb written
    with it; another saved_model.pb (TensorFlow saved over it) wins."""
    obj, signatures = ss.build_module(tf)
    path = tmp_path / "m"
    tf.saved_model.save(obj, str(path), signatures=signatures)
    shutil.copy(os.path.join(DATA, "module", "saved_model.pb"), path / "saved_model.pb")
    shutil.rmtree(path / "variables")
    shutil.copytree(os.path.join(DATA, "module", "variables"), path / "variables")
    loaded = tf.saved_model.load(str(path))
    assert sorted(loaded.signatures) == ["scaled", "serving_default"]
    assert type(loaded.signatures["scaled"]).__name__ == "SignatureFunction"


@pytest.mark.skipif(not os.environ.get("RILLFLOW_TF_PYTHON"),
                    reason="set RILLFLOW_TF_PYTHON to a Python with TensorFlow")
def test_tensorflow_loads_rillflows_saved_models(tmp_path):
    """tools/tf_saved_model_check.py: rillflow saves, TensorFlow loads (in a
    subprocess), every call gives TensorFlow's own results, and
    saved_model_cli describes the files."""
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run(
        [sys.executable, os.path.join(root, "tools", "tf_saved_model_check.py"),
         "--tensorflow", os.environ["RILLFLOW_TF_PYTHON"], "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=600, env=dict(os.environ, PYTHONPATH=root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all checks passed" in proc.stdout


_PROTOBUF_CHECK = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
from rillflow.io import proto_codec
from tensorflow.core.protobuf import saved_model_pb2

def strip(m):
    # Full-type annotations: skipped by rillflow's tables.
    for mg in m.meta_graphs:
        for op in mg.meta_info_def.stripped_op_list.op:
            for arg in list(op.input_arg) + list(op.output_arg):
                arg.ClearField("experimental_full_type")
        for fd in mg.graph_def.library.function:
            for node in fd.node_def:
                node.ClearField("experimental_type")
        for node in mg.graph_def.node:
            node.ClearField("experimental_type")

for name in sys.argv[2:]:
    data = open(name, "rb").read()
    back = proto_codec.encode(proto_codec.decode(data, "tensorflow.SavedModel"),
                              "tensorflow.SavedModel")
    a, b = saved_model_pb2.SavedModel(), saved_model_pb2.SavedModel()
    a.ParseFromString(data)
    b.ParseFromString(back)
    strip(a)
    assert a == b, name
print("protos equal")
"""


@pytest.mark.skipif(not os.environ.get("RILLFLOW_TF_PYTHON"),
                    reason="set RILLFLOW_TF_PYTHON to a Python with TensorFlow")
def test_codec_round_trip_parses_as_tensorflows_protos(tmp_path):
    """Each fixture decoded and re-encoded by rillflow's codec is, for
    protobuf with TensorFlow's descriptors, the message TensorFlow wrote;
    rillflow's own saved_model.pb parses too."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    obj, signatures = ss.build_control_flow(tf)
    tf.saved_model.save(obj, str(tmp_path / "cf"), signatures=signatures)
    files = [os.path.join(DATA, n, "saved_model.pb") for n in ("module", "control_flow",
                                                               "keras_export")]
    files.append(str(tmp_path / "cf" / "saved_model.pb"))
    proc = subprocess.run([os.environ["RILLFLOW_TF_PYTHON"], "-c", _PROTOBUF_CHECK, root] + files,
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert proc.returncode == 0 and "protos equal" in proc.stdout, proc.stdout + proc.stderr
