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
