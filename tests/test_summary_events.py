"""tf.summary event files read back with TensorBoard's own loader
(EventAccumulator): scalars, histograms, text, images, audio, graphs, and
summaries inside tf.function."""
import os
import re
import struct

import numpy as np
import pytest

pytest.importorskip("tensorboard")

from tensorboard.backend.event_processing import event_accumulator as ea_module  # noqa: E402
from tensorboard.compat.proto import config_pb2, event_pb2  # noqa: E402
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

import rillflow as tf  # noqa: E402
import rillflow.summary  # noqa: E402,F401
from test_summary import decode_png  # noqa: E402


@pytest.fixture(autouse=True)
def _reset_summary_state():
    yield
    from rillflow.summary.writer import state
    state.writer, state.step, state.is_recording = None, None, True
    tf.summary.trace_off()


def load(logdir):
    acc = ea_module.EventAccumulator(str(logdir), size_guidance={
        ea_module.TENSORS: 0, ea_module.GRAPH: 0, ea_module.SCALARS: 0})
    acc.Reload()
    return acc


def values(acc, tag):
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def plugin(acc, tag):
    return acc.SummaryMetadata(tag).plugin_data.plugin_name


def raw_records(path):
    """The records of a TFRecord file, checking both masked CRCs of each."""
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        header = data[pos:pos + 8]
        n, = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[pos + 8:pos + 12])[0] == masked_crc32c(header)
        body = data[pos + 12:pos + 12 + n]
        assert struct.unpack("<I", data[pos + 12 + n:pos + 16 + n])[0] == masked_crc32c(body)
        out.append(event_pb2.Event.FromString(body))
        pos += 16 + n
    return out


# --- files ----------------------------------------------------------------------

def test_event_file_name_and_framing(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        tf.summary.scalar("loss", 0.25, step=7)
        # Large enough for the vectorized checksum path.
        tf.summary.histogram("big", np.arange(5000.0), step=7, buckets=1000)
    w.close()
    files = os.listdir(tmp_path)
    assert len(files) == 1
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\.[^.]+(\.[^.]+)*\.%d\.\d+\.v2" %
                        os.getpid(), files[0]), files[0]
    events = raw_records(os.path.join(tmp_path, files[0]))
    assert events[0].file_version == "brain.Event:2"
    assert events[1].step == 7 and events[1].summary.value[0].tag == "loss"
    assert len(events[2].SerializeToString()) > 8192


def test_filename_suffix_and_queue(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path), max_queue=3, flush_millis=10 ** 7,
                                      filename_suffix=".mine")
    (name,) = os.listdir(tmp_path)
    assert name.endswith(".mine")
    path = os.path.join(tmp_path, name)
    size0 = os.path.getsize(path)
    with w.as_default(step=1):
        tf.summary.scalar("a", 1.0)
        tf.summary.scalar("a", 2.0)
        assert os.path.getsize(path) == size0        # queued
        tf.summary.scalar("a", 3.0)                  # the queue is full: flushed
        assert os.path.getsize(path) > size0
        tf.summary.scalar("a", 4.0)
        size1 = os.path.getsize(path)
    assert os.path.getsize(path) > size1             # leaving as_default flushes


# --- plugin summaries ----------------------------------------------------------------

def test_scalars(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=3):
        assert tf.summary.scalar("loss", 0.5).numpy()
        assert tf.summary.scalar("loss", 2, step=4).numpy()
        assert tf.summary.scalar("loss", tf.constant(1.5, tf.float64), step=np.int32(5)).numpy()
        with tf.name_scope("outer"):
            tf.summary.scalar("acc", 0.75, description="accuracy")
    w.flush()
    acc = load(tmp_path)
    assert values(acc, "loss") == [(3, 0.5), (4, 2.0), (5, 1.5)]
    assert values(acc, "loss")[0][1].dtype == np.float32
    assert plugin(acc, "loss") == "scalars"
    assert values(acc, "outer/acc") == [(3, 0.75)]
    assert acc.SummaryMetadata("outer/acc").summary_description == "accuracy"


def test_histograms(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        tf.summary.histogram("h", [1.0, 2.0, 2.5, 10.0], step=0)
        tf.summary.histogram("h5", tf.range(10), step=1, buckets=5)
        tf.summary.histogram("empty", tf.zeros([0]), step=2)
    w.flush()
    acc = load(tmp_path)
    assert plugin(acc, "h") == "histograms"
    (step, h), = values(acc, "h")
    assert step == 0 and h.shape == (30, 3) and h.dtype == np.float64
    assert h[:, 2].sum() == 4 and h[0, 0] == 1.0 and h[-1, 1] == 10.0
    (_, h5), = values(acc, "h5")
    np.testing.assert_allclose(h5, [[0, 1.8, 2], [1.8, 3.6, 2], [3.6, 5.4, 2], [5.4, 7.2, 2],
                                    [7.2, 9, 2]])
    assert values(acc, "empty")[0][1].tolist() == [[0.0, 0.0, 0.0]] * 30


def test_text(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=1):
        tf.summary.text("t", "hello **world**")
        tf.summary.text("table", [["a", "b"], ["c", "d"]])
    w.flush()
    acc = load(tmp_path)
    assert plugin(acc, "t") == "text"
    assert values(acc, "t")[0][1] == b"hello **world**"
    assert values(acc, "table")[0][1].tolist() == [[b"a", b"b"], [b"c", b"d"]]


def test_images(tmp_path):
    rgb = np.random.RandomState(0).rand(4, 3, 5, 3).astype(np.float32)
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=2):
        tf.summary.image("rgb", rgb, max_outputs=2)
        tf.summary.image("gray", np.arange(4, dtype=np.uint8).reshape(1, 2, 2, 1))
    w.flush()
    acc = load(tmp_path)
    assert plugin(acc, "rgb") == "images"
    (_, t), = values(acc, "rgb")
    assert t.shape == (4,) and t[0] == b"5" and t[1] == b"3"   # width, height, 2 PNGs
    for png, img in zip(t[2:], rgb):
        np.testing.assert_array_equal(decode_png(png),
                                      np.clip(img * 255.5, 0, 255).astype(np.uint8))
    (_, g), = values(acc, "gray")
    assert decode_png(g[2])[:, :, 0].tolist() == [[0, 1], [2, 3]]


def test_audio(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=0):
        tf.summary.audio("sound", np.zeros((2, 8, 1), np.float32), 8000, max_outputs=1)
    w.flush()
    acc = load(tmp_path)
    assert plugin(acc, "sound") == "audio"
    assert acc.SummaryMetadata("sound").plugin_data.content == b"\x10\x0b"  # WAV
    (_, t), = values(acc, "sound")
    assert t.shape == (1, 2) and t[0, 0][:4] == b"RIFF" and t[0, 1] == b""


def test_generic_write_and_raw_pb(tmp_path):
    from tensorboard.compat.proto import summary_pb2
    meta = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="custom"))
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=4):
        tf.summary.write("gen", tf.constant([1, 2, 3]))
        tf.summary.write("lazy", lambda: tf.constant(7), metadata=meta)
        tf.summary.write("bytes_meta", 1.5, metadata=meta.SerializeToString())
        raw = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="raw", simple_value=2.0)])
        tf.summary.experimental.write_raw_pb(raw.SerializeToString(), step=9)
    w.flush()
    acc = load(tmp_path)
    (step, v), = values(acc, "gen")
    assert step == 4 and v.tolist() == [1, 2, 3] and v.dtype == np.int32
    assert values(acc, "lazy")[0][1] == 7 and plugin(acc, "lazy") == "custom"
    assert plugin(acc, "bytes_meta") == "custom"
    assert [(e.step, e.value) for e in acc.Scalars("raw")] == [(9, 2.0)]


# --- writer state ------------------------------------------------------------------

def test_record_if_and_should_record(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default(step=1):
        assert tf.summary.should_record_summaries().numpy()
        with tf.summary.record_if(False):
            assert not tf.summary.should_record_summaries().numpy()
            assert not tf.summary.scalar("x", 1.0).numpy()
        with tf.summary.record_if(lambda: tf.constant(True)):
            assert tf.summary.scalar("x", 2.0).numpy()
        with tf.summary.record_if(tf.constant(False)):
            assert not tf.summary.scalar("x", 3.0).numpy()
    w.flush()
    assert [v for _, v in values(load(tmp_path), "x")] == [2.0]


def test_default_step_and_writer_state(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        with pytest.raises(ValueError, match="No step set. Please specify one either through "
                                             "the `step` argument or through "
                                             r"tf.summary.experimental.set_step\(\)"):
            tf.summary.scalar("x", 1.0)
    step = tf.Variable(10, dtype=tf.int64)
    tf.summary.experimental.set_step(step)
    assert tf.summary.experimental.get_step() is step
    w.set_as_default()
    tf.summary.scalar("x", 1.0)
    step.assign_add(1)
    tf.summary.scalar("x", 2.0)
    with w.as_default(step=99):
        assert tf.summary.experimental.get_step() == 99
        tf.summary.scalar("x", 3.0)
    assert tf.summary.experimental.get_step() is step
    w.as_default()  # without `with`: no effect
    tf.summary.flush()
    assert values(load(tmp_path), "x") == [(10, 1.0), (11, 2.0), (99, 3.0)]


def test_closed_writer(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    w.init()
    w.set_as_default(step=1)
    w.close()
    w.close()
    w.flush()
    with pytest.raises(tf.errors.NotFoundError):
        tf.summary.scalar("x", 1.0)
    with pytest.raises(RuntimeError, match="is already closed"):
        w.as_default()
    with pytest.raises(RuntimeError, match="is already closed"):
        w.init()


def test_step_errors(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int64"):
            tf.summary.scalar("x", 1.0, step=1.5)
        with pytest.raises(ValueError, match="requested dtype int64"):
            tf.summary.scalar("x", 1.0, step=tf.constant(2))
        with pytest.raises(TypeError, match="tensor must be of type tf.int32; got tf.float32"):
            tf.summary.histogram("h", [1.0], step=1, buckets=2.5)
        with pytest.raises(ValueError, match="must have rank 4"):
            tf.summary.image("i", np.zeros((2, 2, 2)), step=1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="got 5"):
            tf.summary.image("i", np.zeros((1, 2, 2, 5)), step=1)


# --- inside tf.function ---------------------------------------------------------------

def test_summaries_in_function_run_on_every_call(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def train(x):
        tf.summary.scalar("loss", x * 2.0, step=step)
        return tf.summary.histogram("hist", x, step=step)

    with w.as_default():
        for i in range(3):
            step.assign(i)
            assert train(tf.constant(float(i))).numpy()
    # The writer was chosen when the function was traced.
    step.assign(5)
    train(tf.constant(5.0))
    assert train.experimental_get_tracing_count() == 1
    w.flush()
    acc = load(tmp_path)
    assert values(acc, "loss") == [(0, 0.0), (1, 2.0), (2, 4.0), (5, 10.0)]
    assert [s for s, _ in values(acc, "hist")] == [0, 1, 2, 5]
    ops = train.get_concrete_function(tf.constant(1.0)).graph.get_operations()
    summaries = [op for op in ops if op.type == "WriteSummary"]
    assert [op.name for op in summaries] == ["loss/write_summary", "hist/write_summary"]


def test_function_default_step_and_record_if_tensor(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    step = tf.Variable(0, dtype=tf.int64)
    tf.summary.experimental.set_step(step)

    @tf.function
    def f(x):
        with tf.summary.record_if(lambda: tf.equal(step % 2, 0)):
            return tf.summary.scalar("even", x)

    with w.as_default():
        results = []
        for i in range(4):
            step.assign(i)
            results.append(bool(f(tf.constant(float(i))).numpy()))
    assert results == [True, False, True, False]
    w.flush()
    assert values(load(tmp_path), "even") == [(0, 0.0), (2, 2.0)]


def test_function_without_writer_writes_nothing(tmp_path):
    @tf.function
    def f(x):
        return tf.summary.scalar("x", x, step=1)

    assert not f(tf.constant(1.0)).numpy()
    graph = f.get_concrete_function(tf.constant(1.0)).graph
    assert not any(op.type == "WriteSummary" for op in graph.get_operations())


def test_flush_inside_function(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path), max_queue=100)
    (name,) = os.listdir(tmp_path)
    path = os.path.join(tmp_path, name)

    @tf.function
    def f(x):
        tf.summary.scalar("x", x, step=1)
        tf.summary.flush()
        return x

    w.set_as_default()
    f.get_concrete_function(tf.constant(1.0))
    size = os.path.getsize(path)
    f(tf.constant(1.0))
    assert os.path.getsize(path) > size


# --- graphs ---------------------------------------------------------------------------

def _loop_and_cond():
    @tf.function
    def myadd(a, b):
        def body(i):
            tf.print(i)
            return i + 1
        tf.while_loop(lambda i: i < tf.range(3)[-1], body, [tf.constant(0)])
        c = tf.cond(tf.reduce_sum(a) > 0, lambda: a * 2.0, lambda: a - 1.0)
        return c + b
    return myadd


def _check_function_graph(gd, arg_op):
    nodes = {n.name: n for n in gd.node}
    assert nodes["a"].op == arg_op and nodes["b"].op == arg_op
    while_node = next(n for n in gd.node if n.op == "While")
    if_node = next(n for n in gd.node if n.op in ("If", "StatelessIf"))
    assert list(if_node.input) == [next(n.name for n in gd.node if n.op == "Greater"), "a"]
    lib = {f.signature.name: f for f in gd.library.function}
    body = lib[while_node.attr["body"].func.name]
    cond = lib[while_node.attr["cond"].func.name]
    then = lib[if_node.attr["then_branch"].func.name]
    assert [n.op for n in body.node_def if n.op in ("PrintV2", "AddV2")] == ["PrintV2", "AddV2"]
    assert body.signature.is_stateful
    assert [a.type for a in body.signature.input_arg] == [3]       # DT_INT32
    assert [a.type for a in cond.signature.output_arg] == [10]     # DT_BOOL
    (arg,) = then.signature.input_arg
    mul = next(n for n in then.node_def if n.op == "Mul")
    assert mul.input[0] == arg.name and mul.input[1].endswith(":output:0")
    (out,) = then.signature.output_arg
    assert then.ret[out.name] == mul.name + ":output:0"
    add = next(n for n in gd.node if n.op == "AddV2")
    assert add.attr["T"].type == 1                                 # DT_FLOAT
    assert add.attr["_output_shapes"].list.shape[0].dim[0].size == 1
    const = next(n for n in gd.node if n.op == "Const")
    assert const.attr["value"].tensor.dtype == const.attr["dtype"].type
    return lib


def test_graph_summary(tmp_path):
    f = _loop_and_cond()
    graph = f.get_concrete_function(tf.constant([1.0]), tf.constant([2.0])).graph
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        assert tf.summary.graph(graph).numpy()
        with pytest.raises(ValueError, match="is not tf.Graph or tf.compat.v1.GraphDef"):
            tf.summary.graph(3)
    w.flush()
    gd = load(tmp_path).Graph()
    _check_function_graph(gd, "Placeholder")


def test_graph_summary_of_graph_def_view(tmp_path):
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="one") + tf.constant(2.0, name="two")
    w = tf.summary.create_file_writer(str(tmp_path))
    with w.as_default():
        tf.summary.graph(g.as_graph_def())
    w.flush()
    gd = load(tmp_path).Graph()
    assert [(n.name, n.op) for n in gd.node] == [("one", "Const"), ("two", "Const"),
                                                 ("add", "AddV2")]
    assert list(gd.node[2].input) == ["one", "two"]


def test_graph_cannot_be_written_in_function():
    @tf.function
    def f():
        return tf.summary.graph(tf.Graph())
    with pytest.raises(ValueError, match="graph\\(\\) cannot be invoked inside a graph context"):
        f()


def test_trace_export(tmp_path):
    before = _loop_and_cond()
    before(tf.constant([1.0]), tf.constant([2.0]))   # traced before trace_on: not exported
    w = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True, profiler=False)
    f = _loop_and_cond()
    f(tf.constant([1.0]), tf.constant([2.0]))
    f(tf.constant([3.0]), tf.constant([4.0]))        # no new trace
    with w.as_default():
        with pytest.raises(ValueError, match="No step set"):
            tf.summary.trace_export(name="autograph")
        assert tf.summary.trace_export(name="autograph", step=0) is None
        with pytest.raises(ValueError, match="Must enable trace before export"):
            tf.summary.trace_export(name="autograph", step=0)
    w.flush()
    acc = load(tmp_path)
    assert plugin(acc, "autograph") == "graph_run_metadata_graph"
    assert acc.SummaryMetadata("autograph").plugin_data.content == b"1"
    (step, raw), = values(acc, "autograph")
    rm = config_pb2.RunMetadata.FromString(raw.item())
    assert step == 0 and len(rm.function_graphs) == 1
    gd = rm.function_graphs[0].pre_optimization_graph
    _check_function_graph(gd, "_Arg")
    assert [n.attr["index"].i for n in gd.node if n.op == "_Arg"] == [0, 1]
    (ret,) = [n for n in gd.node if n.op == "_Retval"]
    assert list(ret.input) == ["Identity"]


def test_trace_export_without_writer_stops_tracing(capsys):
    tf.summary.trace_on()
    tf.summary.trace_on()
    # Logged as TensorFlow 2.21 logs it.
    assert capsys.readouterr().err == "WARNING:tensorflow:Trace already enabled\n"
    assert tf.summary.trace_export("x") is None
    with pytest.raises(ValueError, match="Must enable trace"):
        tf.summary.trace_export("x", step=0)
    tf.summary.trace_off()


def test_summaries_in_autograph_loop_and_branch(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))

    @tf.function
    def train(n):
        for i in tf.range(n):
            tf.summary.scalar("i", tf.cast(i, tf.float32) * 10, step=tf.cast(i, tf.int64))
            if i % 2 == 0:
                tf.summary.text("even", tf.strings.as_string(i), step=tf.cast(i, tf.int64))
        return n

    with w.as_default():
        train(tf.constant(4))
    acc = load(tmp_path)
    assert values(acc, "i") == [(0, 0.0), (1, 10.0), (2, 20.0), (3, 30.0)]
    assert values(acc, "even") == [(0, b"0"), (2, b"2")]


def test_writer_default_inside_function(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path), max_queue=100)
    (name,) = os.listdir(tmp_path)
    path = os.path.join(tmp_path, name)

    @tf.function
    def f(x):
        with w.as_default(step=3):   # leaving it flushes, on every call
            tf.summary.scalar("x", x)
        return x

    f.get_concrete_function(tf.constant(1.0))
    size = os.path.getsize(path)
    f(tf.constant(1.0))
    assert os.path.getsize(path) > size
    f(tf.constant(2.0))
    assert values(load(tmp_path), "x") == [(3, 1.0), (3, 2.0)]
    assert tf.summary.experimental.get_step() is None


def test_trace_export_autograph_range_loop_and_if(tmp_path):
    w = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.trace_on(graph=True)

    @tf.function(autograph=True)
    def myadd(a, b):
        for i in tf.range(3):
            tf.print(i)
        if tf.reduce_sum(a) > 0:
            c = a * 2.0
        else:
            c = a - 1.0
        return c + b

    myadd(tf.constant([1.0]), tf.constant([2.0]))
    with w.as_default():
        tf.summary.trace_export(name="autograph", step=0)
    w.flush()
    (_, raw), = values(load(tmp_path), "autograph")
    gd = config_pb2.RunMetadata.FromString(raw.item()).function_graphs[0].pre_optimization_graph
    ops = {n.op for n in gd.node}
    assert {"_Arg", "Range", "While", "AddV2", "_Retval"} <= ops
    lib = {f.signature.name: f for f in gd.library.function}
    loop = next(n for n in gd.node if n.op == "While")
    body_ops = [n.op for n in lib[loop.attr["body"].func.name].node_def]
    assert "PrintV2" in body_ops
    branch = next(n for n in gd.node if n.op in ("If", "StatelessIf"))
    assert [n.op for n in lib[branch.attr["then_branch"].func.name].node_def
            if n.op == "Mul"] == ["Mul"]
    assert [n.op for n in lib[branch.attr["else_branch"].func.name].node_def
            if n.op == "Sub"] == ["Sub"]


def test_trace_warnings_are_logged_as_tensorflow(capsys):
    # TensorFlow 2.21's log lines for the same calls.
    @tf.function
    def f(x):
        tf.summary.trace_on(graph=True)
        tf.summary.trace_export("x", step=0)
        return x
    f(tf.constant(1))
    tf.summary.trace_on(graph=True, profiler=True)
    tf.summary.trace_off()
    assert capsys.readouterr().err == (
        "WARNING:tensorflow:Cannot enable trace inside a tf.function.\n"
        "WARNING:tensorflow:Cannot export trace inside a tf.function.\n"
        "WARNING:tensorflow:No `profiler_outdir` passed to trace_on(). Profiler won't be "
        "enabled.\n"
        "WARNING:tensorflow:Error while stopping profiler: Cannot export profiling results. No "
        "profiler is running.\n")
