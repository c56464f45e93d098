"""`tf.saved_model.Asset`: the file is copied into assets/ on save and the
loaded functions read the copy, from rillflow's saved_model.json and from
TensorFlow's saved_model.pb (its asset_file_def and bound inputs; with
RILLFLOW_TF_PYTHON set, TensorFlow 2.21 itself loads it)."""
import os
import shutil
import subprocess

import pytest

import rillflow as tf
from rillflow.io import proto_codec


def _model(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "vocab.txt").write_text("hello world\n")
    (src / "other").mkdir()
    (src / "other" / "vocab.txt").write_text("second\n")
    m = tf.Module()
    m.a = tf.saved_model.Asset(str(src / "vocab.txt"))
    m.b = tf.saved_model.Asset(str(src / "other" / "vocab.txt"))
    m.v = tf.Variable(2.0)

    @tf.function(input_signature=[])
    def f():
        return tf.strings.join([tf.io.read_file(m.a.asset_path),
                                tf.io.read_file(m.b.asset_path)])
    m.f = f
    return m, src


def test_asset_path_is_a_string_tensor(tmp_path):
    a = tf.saved_model.Asset(str(tmp_path / "x.txt"))
    assert a.asset_path.dtype == tf.string
    assert a.asset_path.numpy() == str(tmp_path / "x.txt").encode()
    assert tf.saved_model.Asset(a.asset_path).asset_path.numpy() == a.asset_path.numpy()
    with pytest.raises(TypeError, match="Asset path must be"):
        tf.saved_model.Asset(3)


@pytest.mark.parametrize("pb_only", [False, True])
def test_assets_are_copied_and_repointed(tmp_path, pb_only):
    m, src = _model(tmp_path)
    tf.saved_model.save(m, str(tmp_path / "sm"))
    assert sorted(os.listdir(tmp_path / "sm" / "assets")) == ["vocab.txt", "vocab_1.txt"]
    shutil.rmtree(src)
    shutil.move(str(tmp_path / "sm"), str(tmp_path / "moved"))
    if pb_only:
        os.remove(tmp_path / "moved" / "saved_model.json")
    loaded = tf.saved_model.load(str(tmp_path / "moved"))
    assert loaded.a.asset_path.numpy().decode() == str(tmp_path / "moved" / "assets" /
                                                        "vocab.txt")
    assert loaded.f().numpy() == b"hello world\nsecond\n"
    assert loaded.signatures["serving_default"]()["output_0"].numpy() == \
        b"hello world\nsecond\n"


def test_saved_model_pb_names_the_assets(tmp_path):
    m, _ = _model(tmp_path)
    tf.saved_model.save(m, str(tmp_path / "sm"))
    with open(tmp_path / "sm" / "saved_model.pb", "rb") as f:
        proto = proto_codec.decode(f.read(), "tensorflow.SavedModel")
    mg = proto["meta_graphs"][0]
    assert [a["filename"] for a in mg["asset_file_def"]] == ["vocab.txt", "vocab_1.txt"]
    nodes = mg["object_graph_def"]["nodes"]
    assets = [i for i, n in enumerate(nodes) if "asset" in n]
    assert len(assets) == 2
    bound = [c.get("bound_inputs", []) for c in
             mg["object_graph_def"]["concrete_functions"].values()]
    assert any(set(assets) <= set(b) for b in bound)


def test_missing_asset_file_fails_the_save(tmp_path):
    m = tf.Module()
    m.a = tf.saved_model.Asset(str(tmp_path / "nope.txt"))
    with pytest.raises(tf.errors.NotFoundError, match="nope.txt"):
        tf.saved_model.save(m, str(tmp_path / "sm"))


def test_checkpoint_holds_an_asset_as_a_node(tmp_path):
    m = tf.Module()
    m.a = tf.saved_model.Asset("x")
    m.v = tf.Variable(1.0)
    path = tf.train.Checkpoint(m=m).write(str(tmp_path / "ck"))
    assert [n for n, _ in tf.train.list_variables(path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "m/v/.ATTRIBUTES/VARIABLE_VALUE"]


@pytest.mark.skipif(not os.environ.get("RILLFLOW_TF_PYTHON"),
                    reason="set RILLFLOW_TF_PYTHON to a Python with TensorFlow")
def test_tensorflow_loads_the_assets(tmp_path):
    m, src = _model(tmp_path)
    tf.saved_model.save(m, str(tmp_path / "sm"))
    shutil.rmtree(src)
    code = ("import sys, tensorflow as tf\n"
            "l = tf.saved_model.load(sys.argv[1])\n"
            "print(l.f().numpy(), l.a.asset_path.numpy())\n")
    out = subprocess.run([os.environ["RILLFLOW_TF_PYTHON"], "-c", code, str(tmp_path / "sm")],
                         capture_output=True, text=True, check=True).stdout
    assert "hello world\\nsecond\\n" in out and "sm/assets/vocab.txt" in out
