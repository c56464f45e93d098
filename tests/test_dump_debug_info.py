"""tf.debugging.experimental.enable_dump_debug_info: tfdbg2's event files.
The per-output summaries are TensorFlow's DebugNumericSummaryV2 values
(recorded by tools/tf_infra_fixtures.py); the files are TFRecords of
DebugEvent protos that, with RILLFLOW_TF_PYTHON set, TensorFlow's own
DebugDataReader reads."""
import glob
import os
import subprocess
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.framework import dtypes as D
from rillflow.io import tfrecord, wire
from rillflow.ops.debugging.dump_debug_info import summary

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tf_fixture_cases  # noqa: E402

fixtures = tf_fixture_cases.load("tf_infra_fixtures")
_DATA = np.load(os.path.join(tf_fixture_cases.DATA, "tf_infra.npz"))


def test_summaries_are_tensorflows():
    k = 0
    for key in sorted(fixtures.SUMMARY_INPUTS):
        for mode in sorted(fixtures.SUMMARY_MODES):
            x = fixtures.SUMMARY_INPUTS[key]()
            if mode == "CURT_HEALTH" and x.dtype == np.bool_:
                continue
            want = _DATA["debug_numeric_summaries__%d" % k]
            k += 1
            got = summary(x, D.as_dtype(x.dtype), mode)
            np.testing.assert_array_equal(got, want, err_msg=f"{key} {mode}")


def _events(path):
    out = []
    for record in tfrecord.iter_records(path):
        fields = {n: v for n, _, v in wire.iter_fields(memoryview(record))}
        out.append(fields)
    return out


def _run(tmp_path, mode="CONCISE_HEALTH", **kw):
    w = tf.debugging.experimental.enable_dump_debug_info(str(tmp_path), tensor_debug_mode=mode,
                                                         **kw)
    try:
        x = tf.constant([1.0, 0.0])
        tf.math.log(x) * 2.0

        @tf.function
        def f(a):
            return tf.sqrt(a) + 1.0
        f(x)
    finally:
        tf.debugging.experimental.disable_dump_debug_info()
    return w


def test_files_and_events(tmp_path):
    _run(tmp_path)
    files = sorted(os.path.basename(p).rsplit(".", 1)[1] for p in glob.glob(
        str(tmp_path / "tfdbg_events.*")))
    assert files == sorted(["metadata", "source_files", "stack_frames", "graphs", "execution",
                            "graph_execution_traces"])
    meta = _events(glob.glob(str(tmp_path / "*.metadata"))[0])
    assert len(meta) == 1 and 3 in meta[0]
    execs = _events(glob.glob(str(tmp_path / "*.execution"))[0])
    types = [bytes(dict((n, v) for n, _, v in wire.iter_fields(e[9]))[1]).decode()
             for e in execs]
    assert types[:2] == ["Log", "Mul"] and types[2].startswith("__inference_f")
    graphs = _events(glob.glob(str(tmp_path / "*.graphs"))[0])
    assert any(7 in e for e in graphs) and any(8 in e for e in graphs)


def test_circular_buffer_keeps_the_last_executions(tmp_path):
    tf.debugging.experimental.enable_dump_debug_info(str(tmp_path), circular_buffer_size=2)
    try:
        for _ in range(5):
            tf.constant(1.0) + 1.0
    finally:
        tf.debugging.experimental.disable_dump_debug_info()
    assert len(_events(glob.glob(str(tmp_path / "*.execution"))[0])) == 2


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="Invalid value in tensor_debug_mode"):
        tf.debugging.experimental.enable_dump_debug_info(str(tmp_path), tensor_debug_mode="X")
    tf.debugging.experimental.enable_dump_debug_info(str(tmp_path / "a"))
    try:
        with pytest.raises(ValueError, match="already a dumping callback"):
            tf.debugging.experimental.enable_dump_debug_info(str(tmp_path / "b"))
    finally:
        tf.debugging.experimental.disable_dump_debug_info()
    tf.debugging.experimental.disable_dump_debug_info()     # off already: nothing


@pytest.mark.skipif(not os.environ.get("RILLFLOW_TF_PYTHON"),
                    reason="set RILLFLOW_TF_PYTHON to a Python with TensorFlow")
def test_tensorflow_reads_the_dump(tmp_path):
    _run(tmp_path, mode="FULL_HEALTH")
    code = ("import sys\n"
            "from tensorflow.python.debug.lib import debug_events_reader as R\n"
            "with R.DebugDataReader(sys.argv[1]) as r:\n"
            "    r.update()\n"
            "    for e in r.executions(digest=False):\n"
            "        print(e.op_type, [list(v) for v in e.debug_tensor_values])\n"
            "    print([d.op_type for d in r.graph_op_digests()])\n")
    out = subprocess.run([os.environ["RILLFLOW_TF_PYTHON"], "-c", code, str(tmp_path)],
                         capture_output=True, text=True, check=True).stdout
    assert "Log [[-1.0, -1.0, 1.0, 1.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]]" in out
    assert "'Sqrt'" in out
