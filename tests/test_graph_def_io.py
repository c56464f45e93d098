"""`tf.import_graph_def` and `tf.io.write_graph` (saved_model/graph_def_io.py)
against TensorFlow 2.21: GraphDefs TensorFlow wrote
(tools/tf_graph_def_fixtures.py records them, their inputs and TensorFlow's
outputs into tests/data/tf_graph_def.npz) import into a `tf.Graph` or a
`tf.function` and give TensorFlow's values; write_graph's text is
TensorFlow's; rillflow's own graphs round-trip."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.io import proto_codec

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_graph_def_fixtures as F  # noqa: E402

_DATA = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                             "tf_graph_def.npz"))
_NAMES = ("basic", "control", "cnn")


def _bytes(key):
    return _DATA[key].tobytes()


def _feeds(name):
    return {k: _DATA[f"{name}__feed__{k}"] for k in _DATA[f"{name}__feeds"]}


def _expected(name, fetch):
    a = _DATA[f"{name}__out__{fetch}"]
    if f"{name}__outlens__{fetch}" not in _DATA.files:
        return a
    data, out, pos = a.tobytes(), [], 0
    for n in _DATA[f"{name}__outlens__{fetch}"]:
        out.append(data[pos:pos + n])
        pos += n
    return np.array(out, dtype=object).reshape(tuple(_DATA[f"{name}__outshape__{fetch}"]))


def _check(name, values):
    for fetch, got in zip(_DATA[f"{name}__fetches"], values):
        want = _expected(name, fetch)
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape, fetch
        if got.dtype.kind == "f":   # (convolutions sum in another order)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=fetch)
        else:
            np.testing.assert_array_equal(got, want, err_msg=fetch)


def _run(graph, name, prefix=""):
    feeds = {graph.get_tensor_by_name(prefix + k): v for k, v in _feeds(name).items()}
    with tf.compat.v1.Session(graph=graph) as sess:
        return sess.run([prefix + f for f in _DATA[f"{name}__fetches"]], feeds)


@pytest.mark.parametrize("name", _NAMES)
def test_tensorflow_graph_def_runs_with_tensorflow_results(name):
    with tf.Graph().as_default() as g:
        assert tf.import_graph_def(_bytes(name + "__pb")) is None
    _check(name, _run(g, name, "import/"))


@pytest.mark.parametrize("name", _NAMES)
def test_import_in_a_function_with_input_map(name):
    feeds = _feeds(name)
    fetches = [str(f) for f in _DATA[f"{name}__fetches"]]
    pb = _bytes(name + "__pb")

    @tf.function
    def f(*args):
        return tf.import_graph_def(pb, input_map=dict(zip(sorted(feeds), args)),
                                   return_elements=fetches)
    _check(name, [t.numpy() for t in f(*[tf.constant(feeds[k]) for k in sorted(feeds)])])


def test_return_elements_and_prefixes():
    pb = _bytes("basic__pb")
    with tf.Graph().as_default() as g:
        z, t, sp1 = tf.import_graph_def(pb, return_elements=["z:0", "t", "sp:1"])
        assert (z.name, t.name, sp1.name) == ("import/z:0", "import/t", "import/sp:1")
        assert t.type == "AddV2" and z.shape.as_list() == [None, 1]
        (z2,) = tf.import_graph_def(pb, return_elements=["z"])
        assert z2.name == "import_1/z"
        (z3,) = tf.import_graph_def(pb, return_elements=["z:0"], name="")
        assert z3.name == "z:0" and g.get_operation_by_name("sp").type == "Split"
        assert tf.graph_util.import_graph_def is tf.import_graph_def


def test_rillflow_graph_round_trips(tmp_path):
    for name, build in (("basic", F._basic), ("control", F._control), ("cnn", F._cnn)):
        g = tf.Graph()
        with g.as_default():
            build(tf)
        _check(name, _run(g, name))
        for src in (g.as_graph_def(), tf.io.write_graph(g, str(tmp_path), name + ".pb",
                                                        as_text=False)):
            if isinstance(src, str):
                with open(src, "rb") as fh:
                    src = fh.read()
            with tf.Graph().as_default() as g2:
                tf.import_graph_def(src, name="")
            _check(name, _run(g2, name))


@pytest.mark.parametrize("name", _NAMES)
def test_write_graph_text_is_tensorflows(name, tmp_path):
    path = tf.io.write_graph(_bytes(name + "__pb"), str(tmp_path / "sub"), "g.pbtxt")
    assert path == os.path.join(str(tmp_path / "sub"), "g.pbtxt")
    with open(path, "rb") as fh:
        assert fh.read() == _bytes(name + "__text")
    path = tf.io.write_graph(_bytes(name + "__pb"), str(tmp_path), "g.pb", as_text=False)
    with open(path, "rb") as fh:
        data = fh.read()
    assert proto_codec.decode(data, "tensorflow.GraphDef") == \
        proto_codec.decode(_bytes(name + "__pb"), "tensorflow.GraphDef")


def test_write_graph_of_rillflow_graph_is_tensorflows_text(tmp_path):
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
        w = tf.constant([[1.0], [2.5]], name="w")
        tf.nn.relu(tf.matmul(x, w, name="y") - 3.0, name="z")
    text = open(tf.io.write_graph(g, str(tmp_path), "g.pbtxt")).read()
    want = _bytes("basic__text").decode()
    # TensorFlow's file has the same first nodes (x, w, y, sub/y, sub, z).
    assert want.startswith(text[:text.index("versions {")])
    assert text.endswith("versions {\n  producer: 2474\n}\n")


def test_errors():
    pb = _bytes("basic__pb")
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Requested return tensor 'zz:0' not found"):
            tf.import_graph_def(pb, return_elements=["zz:0"])
        with pytest.raises(ValueError, match="Requested return node 'zz' not found"):
            tf.import_graph_def(pb, return_elements=["zz"])
        with pytest.raises(ValueError, match=r"Invalid return output 5 of node 'z', which has "
                                             r"1 output\(s\)"):
            tf.import_graph_def(pb, return_elements=["z:5"])
        with pytest.raises(ValueError, match=r"not found in graph_def: \[q:0\]"):
            tf.import_graph_def(pb, input_map={"q:0": tf.constant(1.0)})
        with pytest.raises(TypeError, match="must be a GraphDef proto"):
            tf.import_graph_def("x")
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid GraphDef"):
            tf.import_graph_def(b"\x0a\xff\xff\xff")
        unknown = proto_codec.encode({"node": [{"name": "a", "op": "FooBar"}]},
                                     "tensorflow.GraphDef")
        with pytest.raises(tf.errors.NotFoundError, match="Op type not registered 'FooBar'"):
            tf.import_graph_def(unknown)
        dangling = proto_codec.encode({"node": [{"name": "a", "op": "Identity",
                                                 "input": ["nope"]}]}, "tensorflow.GraphDef")
        with pytest.raises(ValueError, match="Node 'a': Unknown input node 'nope'"):
            tf.import_graph_def(dangling)
        cycle = proto_codec.encode({"node": [
            {"name": "a", "op": "Identity", "input": ["b"]},
            {"name": "b", "op": "Identity", "input": ["a"]}]}, "tensorflow.GraphDef")
        with pytest.raises(ValueError, match="cycle"):
            tf.import_graph_def(cycle)
    with pytest.raises(RuntimeError, match="tf.Graph"):
        tf.import_graph_def(pb)


def test_compat_v1_graph_def_message(tmp_path):
    gd = tf.compat.v1.GraphDef()
    assert gd.ParseFromString(_bytes("basic__pb")) == len(_bytes("basic__pb"))
    assert [n.name for n in gd.node][:3] == ["x", "w", "y"] and gd.node[2].op == "MatMul"
    assert list(gd.node[2].input) == ["x", "w"]
    assert str(gd) == _bytes("basic__text").decode()
    again = tf.compat.v1.GraphDef()
    again.ParseFromString(gd.SerializeToString())
    assert again == gd
    gd.node[-1].name = "renamed"
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        assert g.get_operation_by_name("renamed").type == "Sum"
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.compat.v1.GraphDef().ParseFromString(b"\x0a\x05ab")


def test_input_map_dtype_is_checked():
    with tf.Graph().as_default():
        c = tf.constant([[1, 2]])
        with pytest.raises(ValueError, match=r"^Input 0 of node import/y was passed int32 from "
                                             r"Const:0 incompatible with expected float\.$"):
            tf.import_graph_def(_bytes("basic__pb"), input_map={"x:0": c})


def test_wrap_function_and_prune_run_a_frozen_graph():
    # TensorFlow 2's recipe for running a frozen GraphDef.
    for name in _NAMES:
        gd = tf.compat.v1.GraphDef()
        gd.ParseFromString(_bytes(name + "__pb"))
        wrapped = tf.compat.v1.wrap_function(
            lambda: tf.compat.v1.import_graph_def(gd, name=""), [])
        g = wrapped.graph
        feeds = sorted(_feeds(name))
        fetches = [str(f) for f in _DATA[f"{name}__fetches"]]
        pruned = wrapped.prune(tf.nest.map_structure(g.as_graph_element, feeds),
                               tf.nest.map_structure(g.as_graph_element, fetches))
        out = pruned(*[tf.constant(_feeds(name)[k]) for k in feeds])
        _check(name, [t.numpy() for t in out])
        if name == "control":
            single = wrapped.prune("x:0", "cv:0")
    assert single(tf.constant(1)).numpy() == 0


def test_wrap_function_with_a_signature():
    w = tf.compat.v1.wrap_function(lambda x: x * 2.0 + 1.0, [tf.TensorSpec([None], tf.float32)])
    np.testing.assert_array_equal(w(tf.constant([1.0, 2.0])).numpy(), [3.0, 5.0])
    assert w.graph.inputs[0].shape.as_list() == [None]
    with pytest.raises(TypeError, match="TensorSpec"):
        tf.compat.v1.wrap_function(lambda x: x, [1])
