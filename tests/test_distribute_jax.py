"""tf.distribute with several replicas on JAX (rillflow/distribute/spmd.py,
mirrored.py, multi_worker.py): MirroredStrategy over four JAX CPU devices,
MultiWorkerMirroredStrategy over two processes on 127.0.0.1, and Keras' fit
under MirroredStrategy. Each runs in a child process (the device count is
fixed when JAX starts, and a process joins one cluster), bounded in time;
the expected values are the same training on one device with the global
batch (and NumPy's), which is what TensorFlow's replicas reach too."""
import importlib.util
import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("jax")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "tests", "distribute_scripts")


def _env(devices, **extra):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") +
                        " --xla_force_host_platform_device_count=%d" % devices).strip()
    env.pop("TF_CONFIG", None)
    env.pop("KERAS_BACKEND", None)
    env.update(extra)
    return env


def _run(script, devices, *args, timeout=600):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args],
                          capture_output=True, text=True, env=_env(devices), cwd=ROOT,
                          timeout=timeout)


def test_mirrored_four_devices_matches_one_device():
    r = _run("mirrored_checks.py", 4)
    assert r.returncode == 0, r.stderr[-4000:]
    assert r.stdout.strip().splitlines()[-1] == "OK"


def test_mirrored_logical_cpus_batched_on_one_device_match_one_device():
    # JAX started with one host device; the four logical CPUs' replicas run
    # batched (jax.vmap with the replica axis) on it.
    r = _run("mirrored_checks.py", 1, "batched")
    assert r.returncode == 0, r.stderr[-4000:]
    assert r.stdout.strip().splitlines()[-1] == "OK"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _result(stdout):
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, stdout[-2000:]
    return json.loads(lines[-1][len("RESULT "):])


def test_multi_worker_two_processes_match_one_process():
    port = _free_port()
    cluster = {"worker": ["127.0.0.1:%d" % port, "127.0.0.1:%d" % _free_port()]}
    procs = []
    for i in range(2):
        cfg = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}})
        procs.append(subprocess.Popen(
            [sys.executable, os.path.join(SCRIPTS, "mw_train.py")], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=_env(1, TF_CONFIG=cfg), cwd=ROOT))
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=300)
            assert p.returncode == 0, err[-4000:]
            outs.append(_result(out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    single = subprocess.run([sys.executable, os.path.join(SCRIPTS, "mw_train.py")],
                            capture_output=True, text=True, env=_env(1), cwd=ROOT, timeout=300)
    assert single.returncode == 0, single.stderr[-4000:]
    one = _result(single.stdout)
    assert one["replicas"] == 1
    assert [o["replicas"] for o in outs] == [2, 2] and [o["worker"] for o in outs] == [0, 1]
    # Both workers hold the same weights (worker 1 started from its own draw:
    # worker 0's values were broadcast) and they are the one-process run's.
    assert outs[0]["w"] == outs[1]["w"] and outs[0]["b"] == outs[1]["b"]
    np.testing.assert_allclose(outs[0]["w"], one["w"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[0]["b"], one["b"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[0]["losses"], one["losses"], rtol=1e-5)


@pytest.mark.skipif(importlib.util.find_spec("keras") is None,
                    reason="keras not installed (pip install rillflow[keras])")
def test_keras_fit_under_mirrored_strategy_matches_one_device():
    r = _run("keras_fit.py", 4)
    assert r.returncode == 0, r.stderr[-4000:]
    assert r.stdout.strip().splitlines()[-1] == "OK"


_COMPILED_THEN_REPLICATED = '''
import numpy as np, rillflow as tf
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
with strategy.scope():
    v = tf.Variable(np.array([1.0, 2.0], np.float32))
f = tf.function(lambda: v * 3.0, jit_compile=True)
v.assign([2.0, 4.0])
print(f().numpy().tolist())

@tf.function
def step():
    return strategy.reduce("SUM", strategy.run(lambda: tf.reduce_sum(v.read_value())),
                           axis=None)
print(float(step()))
'''


def test_a_variable_read_by_a_compiled_call_then_by_replicas():
    # A compiled call that reads an eagerly assigned value for the first
    # time remembers it without a device copy; the replicated program must
    # then be given the value itself (it was given None).
    out = subprocess.run([sys.executable, "-c", _COMPILED_THEN_REPLICATED],
                         capture_output=True, text=True, env=_env(2), cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split("\n")[:2] == ["[6.0, 12.0]", "12.0"], out.stdout
