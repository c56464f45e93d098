"""End to end: a real `tensorboard --logdir` server serves what rillflow wrote
(scalars plugin, graphs plugin). Skipped when the `tensorboard` extra is absent."""
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pytest

pytest.importorskip("tensorboard")

import rillflow as tf  # noqa: E402
import rillflow.summary  # noqa: E402,F401

_STARTUP_SECONDS = 90


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(base, path, **query):
    url = base + path + ("?" + urllib.parse.urlencode(query) if query else "")
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode("utf-8")


def _wait_for(base, path, ready, proc, **query):
    """Polls `path` until `ready(body)` holds (TensorBoard loads files in the background)."""
    deadline = time.time() + _STARTUP_SECONDS
    last = None
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail("tensorboard exited: " + proc.stdout.read().decode(errors="replace"))
        try:
            last = _get(base, path, **query)
            if ready(last):
                return last
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.5)
    pytest.fail(f"tensorboard did not serve {path} in time; last answer: {last!r}")


def _write_logs(logdir):
    writer = tf.summary.create_file_writer(str(logdir))
    step = tf.Variable(0, dtype=tf.int64)
    tf.summary.trace_on(graph=True)

    @tf.function
    def train_step(x):
        def body(i, acc):
            return i + 1, acc + tf.cast(i, tf.float32)
        _, total = tf.while_loop(lambda i, acc: i < 3, body, [tf.constant(0), x])
        loss = tf.cond(total > 5.0, lambda: total * 0.5, lambda: total)
        tf.summary.scalar("loss", loss, step=step)
        return loss

    with writer.as_default():
        for i in range(4):
            step.assign(i)
            train_step(tf.constant(float(i)))
        tf.summary.trace_export(name="train_step", step=0)
        tf.summary.histogram("weights", np.linspace(-1.0, 1.0, 50), step=0)
    writer.close()


def test_tensorboard_serves_scalars_and_graph(tmp_path):
    _write_logs(tmp_path)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", str(tmp_path),
         "--host", "127.0.0.1", "--port", str(port), "--reload_interval", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        base = "http://127.0.0.1:%d" % port
        tags = json.loads(_wait_for(base, "/data/plugin/scalars/tags",
                                    lambda b: "loss" in b, proc))
        assert "loss" in tags["."]
        points = json.loads(_get(base, "/data/plugin/scalars/scalars", run=".", tag="loss"))
        # Rows are [wall_time, step, value]; loss is 0+0+1+2=3, 4, 5, then 6 halved.
        assert [(p[1], p[2]) for p in points] == [(0, 3.0), (1, 4.0), (2, 5.0), (3, 3.0)]

        info = json.loads(_get(base, "/data/plugin/graphs/info"))
        assert info["."]["tags"]["train_step"]["op_graph"] is True
        graph = _get(base, "/data/plugin/graphs/graph", run=".", tag="train_step")
        names = set(_pbtxt_values(graph, "name"))
        ops = set(_pbtxt_values(graph, "op"))
        assert {"x", "while", "cond", "loss/write_summary"} <= names
        assert {"_Arg", "StatelessWhile", "StatelessIf", "WriteSummary", "_Retval"} <= ops
        assert "while_body" in names and "cond_true" in names   # the library's signatures

        hist = _get(base, "/data/plugin/histograms/tags")
        assert "weights" in hist
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _pbtxt_values(text, field):
    prefix = field + ': "'
    return [line.strip()[len(prefix):-1] for line in text.splitlines()
            if line.strip().startswith(prefix)]
