"""tf.profiler.experimental: sessions, Trace spans, the files written (an
XSpace that TensorFlow's xplane proto parses, checked with
RILLFLOW_TF_PYTHON set, and a Chrome trace), and the errors TensorFlow
raises for misuse."""
import glob
import gzip
import json
import os
import subprocess

import pytest

import rillflow as tf
from rillflow.framework import op_registry

P = tf.profiler.experimental


def _trace_events(logdir):
    path = glob.glob(os.path.join(str(logdir), "plugins", "profile", "*", "*.trace.json.gz"))
    assert len(path) == 1
    with gzip.open(path[0], "rt") as f:
        return [e for e in json.load(f)["traceEvents"] if e["ph"] == "X"]


def test_session_records_ops_and_trace_spans(tmp_path):
    kernel = op_registry.get("Log").kernel
    P.start(str(tmp_path))
    try:
        x = tf.constant([1.0, 2.0])
        with P.Trace("train", step_num=3):
            tf.math.log(x) * 2.0
    finally:
        P.stop()
    assert op_registry.get("Log").kernel is kernel         # put back
    events = _trace_events(tmp_path)
    names = [e["name"] for e in events]
    assert "Log" in names and "Mul" in names and "train" in names
    train = next(e for e in events if e["name"] == "train")
    log = next(e for e in events if e["name"] == "Log")
    assert train["args"] == {"step_num": 3}
    assert train["ts"] <= log["ts"] and log["ts"] + log["dur"] <= train["ts"] + train["dur"]
    assert glob.glob(str(tmp_path / "plugins" / "profile" / "*" / "*.xplane.pb"))


def test_misuse_errors(tmp_path):
    with pytest.raises(tf.errors.UnavailableError, match="No profiler is running"):
        P.stop()
    with P.Profile(str(tmp_path)):
        with pytest.raises(tf.errors.AlreadyExistsError, match="Another profiler is running"):
            P.start(str(tmp_path))
    with pytest.raises(tf.errors.UnimplementedError, match="profiler server"):
        P.server.start(6009)
    with pytest.raises(RuntimeError, match="UNAVAILABLE"):
        P.client.trace("grpc://localhost:6009", str(tmp_path), 100)


def test_stop_without_saving_writes_nothing(tmp_path):
    P.start(str(tmp_path))
    tf.constant(1.0) + 1.0
    P.stop(save=False)
    assert not os.path.exists(tmp_path / "plugins")


def test_trace_without_session_is_a_no_op():
    with P.Trace("nothing", step_num=1):
        tf.constant(1.0) + 1.0
    assert P.ProfilerOptions() == (2, 0, 1, None)


@pytest.mark.skipif(not os.environ.get("RILLFLOW_TF_PYTHON"),
                    reason="set RILLFLOW_TF_PYTHON to a Python with TensorFlow")
def test_tensorflow_parses_the_xspace(tmp_path):
    with P.Profile(str(tmp_path)):
        with P.Trace("step", step_num=1):
            tf.math.exp(tf.constant([1.0]))
    path = glob.glob(str(tmp_path / "plugins" / "profile" / "*" / "*.xplane.pb"))[0]
    code = ("import sys\n"
            "try:\n"
            "    from tsl.profiler.protobuf import xplane_pb2\n"
            "except ImportError:\n"
            "    from tensorflow.tsl.profiler.protobuf import xplane_pb2\n"
            "x = xplane_pb2.XSpace.FromString(open(sys.argv[1], 'rb').read())\n"
            "p = x.planes[0]\n"
            "print(p.name, sorted(p.event_metadata[e.metadata_id].name for l in p.lines "
            "for e in l.events), x.planes[1].name)\n")
    out = subprocess.run([os.environ["RILLFLOW_TF_PYTHON"], "-c", code, path],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("/host:CPU") and "'Exp'" in out and "'step'" in out
    assert "Task Environment" in out
