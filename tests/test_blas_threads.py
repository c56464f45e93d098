"""OpenBLAS's thread count following the machine's load (framework/blas_threads.py)."""
import numpy as np
import pytest

from rillflow.framework import blas_threads as bt


@pytest.fixture
def fresh(monkeypatch):
    bt.reset()
    yield monkeypatch
    bt.reset()


@pytest.mark.parametrize("others, cores, default, current, want", [
    (0.0, 2, 2, 2, 2),       # quiet: OpenBLAS's default
    (0.4, 2, 2, 2, 2),       # under half a core: keep both threads
    (0.6, 2, 2, 2, 1),       # over half a core busy: one thread
    (1.9, 2, 2, 2, 1),
    (5.0, 2, 2, 2, 1),       # never fewer than one
    (0.3, 2, 2, 1, 1),       # hysteresis: 0.3 busy is not quiet enough to go back up
    (0.2, 2, 2, 1, 2),       # quiet again: back to the default
    (0.0, 8, 4, 4, 4),       # never above the default
    (3.4, 8, 8, 8, 5),       # N cores: each thread keeps a free core
    (3.6, 8, 8, 8, 4),
    (3.4, 8, 8, 4, 4),       # 3.4 busy leaves 4.6 cores: raising to 5 waits
    (3.1, 8, 8, 4, 5),
    (0.0, 8, 8, 1, 8),       # a quiet machine restores the whole default at once
])
def test_decide(others, cores, default, current, want):
    assert bt.decide(others, cores, default, current) == want


def test_off_by_default_and_respects_environment(fresh):
    fresh.delenv("RILLFLOW_BLAS_THREADS", raising=False)
    bt.check()
    assert bt.status().startswith("RILLFLOW_BLAS_THREADS=") and bt.threads() is None
    bt.reset()
    fresh.setenv("RILLFLOW_BLAS_THREADS", "dynamic")
    fresh.setenv("OPENBLAS_NUM_THREADS", "2")
    bt.check()
    assert bt.status() == "the environment sets the thread count" and bt.threads() is None


def _found():
    try:
        return bt._find_openblas()
    except Exception:   # pragma: no cover
        return None


@pytest.mark.skipif(_found() is None, reason="NumPy's BLAS is not an OpenBLAS with set/get")
def test_setter_and_getter():
    _, setter, getter = _found()
    default = getter()
    try:
        setter(1)
        assert getter() == 1
        a = np.ones((64, 64), np.float64)
        assert (a @ a == 64.0).all()
    finally:
        setter(default)
    assert getter() == default


@pytest.mark.skipif(_found() is None, reason="NumPy's BLAS is not an OpenBLAS with set/get")
def test_policy_follows_simulated_load(fresh):
    _, setter, getter = _found()
    default = getter()
    if default < 2:
        pytest.skip("OpenBLAS runs one thread")
    for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        fresh.delenv(k, raising=False)
    fresh.setenv("RILLFLOW_BLAS_THREADS", "dynamic")
    clock = [1000.0]
    jiffies = [0, 0]                                   # all busy, our own
    fresh.setattr(bt, "_monotonic", lambda: clock[0])
    fresh.setattr(bt, "_cpu_times", lambda: tuple(jiffies))
    fresh.setattr(bt, "_HZ", 100)

    def run(others_cores, seconds=0.3):
        clock[0] += seconds
        jiffies[0] += int(others_cores * 100 * seconds)
        bt.check()

    bt.check()                                          # setup, first baseline
    assert bt.status() == "dynamic" and bt.threads() == default
    cores = bt._state["cores"]
    run(cores)                                          # the others take every core
    assert bt.threads() == 1 and getter() == 1
    last = bt._state["last"]
    clock[0] += 0.1
    bt.check()                                          # within INTERVAL: nothing read
    assert bt._state["last"] is last and bt.threads() == 1
    run(0.0)
    assert bt.threads() == default and getter() == default
    run(cores, seconds=10.0)                            # a stale window only re-baselines
    assert bt.threads() == default


def test_kernels_mode_gives_openblas_one_thread_and_the_same_results(tmp_path):
    """RILLFLOW_BLAS_THREADS=kernels (decided at import, so in a new process):
    NumPy's OpenBLAS runs one thread, a library loaded later is told so by
    the environment, and a convolution step and large products agree with
    the default mode's."""
    import subprocess
    import sys
    if bt._find_openblas() is None or not sys.platform.startswith("linux"):
        pytest.skip("NumPy's BLAS is not a loaded OpenBLAS with set/get_num_threads")
    script = tmp_path / "step.py"
    script.write_text(
        "import os, sys, numpy as np\n"
        "import rillflow as tf\n"
        "from rillflow.framework import blas_threads as bt\n"
        "from rillflow.ops.kernels import threads\n"
        "rng = np.random.default_rng(3)\n"
        "x = tf.constant(rng.standard_normal((8, 14, 14, 32)).astype(np.float32))\n"
        "w = tf.Variable(rng.standard_normal((3, 3, 32, 64)).astype(np.float32) / 17)\n"
        "a = tf.constant(rng.standard_normal((300, 400)).astype(np.float32))\n"
        "b = tf.constant(rng.standard_normal((400, 500)).astype(np.float32))\n"
        "@tf.function\n"
        "def step():\n"
        "    with tf.GradientTape() as tape:\n"
        "        y = tf.nn.conv2d(x, w, 1, 'SAME')\n"
        "        loss = tf.reduce_sum(tf.square(y)) + tf.reduce_sum(tf.matmul(a, b))\n"
        "    return loss, tape.gradient(loss, w), tf.matmul(a, b)\n"
        "loss, g, p = step()\n"
        "found = bt._find_openblas()\n"
        "np.savez(sys.argv[1], loss=loss.numpy(), g=g.numpy(), p=p.numpy(),\n"
        "         on=bt.kernel_threads(), spreading=threads.spreading(),\n"
        "         blas=found[2](), env=os.environ.get('OPENBLAS_NUM_THREADS', ''))\n")
    results = {}
    for mode in ("fixed", "kernels"):
        env = {k: v for k, v in __import__("os").environ.items()
               if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
        env["RILLFLOW_BLAS_THREADS"] = mode
        out = tmp_path / (mode + ".npz")
        subprocess.run([sys.executable, str(script), str(out)], env=env, check=True,
                       timeout=300)
        results[mode] = dict(np.load(out))
    fixed, kernels = results["fixed"], results["kernels"]
    assert not fixed["on"] and fixed["env"] == ""
    assert kernels["on"] and kernels["blas"] == 1 and kernels["env"] == "1"
    assert kernels["spreading"] == ((__import__("os").cpu_count() or 1) > 1)
    for name in ("loss", "g", "p"):
        np.testing.assert_allclose(kernels[name], fixed[name], rtol=2e-5, atol=1e-3)


def test_numpys_openblas_is_found_beside_scipys():
    """SciPy bundles a second OpenBLAS, often mapped first: the count must
    be set on NumPy's (setting SciPy's changed nothing of NumPy's GEMMs)."""
    pytest.importorskip("scipy.linalg")
    import os
    if _found() is None:
        pytest.skip("NumPy's BLAS is not an OpenBLAS with set/get")
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "openblas" in line.lower()}
    numpy_libs = [p for p in paths if os.path.basename(os.path.dirname(p)).startswith("numpy")]
    if not numpy_libs or len(paths) < 2:
        pytest.skip("not NumPy's and SciPy's bundled OpenBLAS side by side")
    assert bt._find_openblas()[0]._name in numpy_libs
