"""Smoke test of the model benchmarks (benchmarks/model_workloads.py and
model_bench.py) at tiny sizes: each training step runs eagerly and under
tf.function with the same loss, and the loss goes down over a few steps."""
import importlib.util
import math
import mmap
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "benchmarks"))
import model_bench  # noqa: E402
import model_workloads  # noqa: E402


@pytest.mark.parametrize("name", sorted(model_workloads.BUILDERS))
def test_eager_and_function_agree_and_loss_decreases(name):
    model = model_workloads.BUILDERS[name](tf, "tiny")
    eager = [float(model.run_eager()) for _ in range(3)]
    model.reset()
    fn = model.make_function()
    traced = [float(fn()) for _ in range(3)]
    np.testing.assert_allclose(traced, eager, rtol=1e-5)
    for _ in range(3):
        last = float(fn())
    assert all(math.isfinite(v) for v in eager)
    assert eager[1] < eager[0] and last < traced[-1]


def test_reset_restores_the_first_loss():
    model = model_workloads.build_resnet_block(tf, "tiny")
    first = float(model.run_eager())
    model.run_eager()
    model.reset()
    assert float(model.run_eager()) == first


def test_peak_added_bytes_sees_a_large_temporary():
    def touch_64_mib():
        if sys.platform.startswith("linux"):
            # Fresh pages from the kernel: malloc may serve even a large
            # array from heap memory that is already resident (rillflow asks
            # glibc to keep freed memory, framework/allocator.py).
            with mmap.mmap(-1, 64 << 20) as m:
                for i in range(0, 64 << 20, 4096):
                    m[i] = 1
        else:
            np.ones(64 << 20, np.uint8).sum()
    added, method = model_bench.peak_added_bytes(touch_64_mib)
    assert method
    # 64 MiB allocated and touched inside the call (tracemalloc or VmHWM).
    assert added > 32 << 20


def test_run_models_through_a_worker():
    lines = []
    results = model_bench.run_models("cnn_step", size="tiny", min_time=0.01, rounds=1,
                                     memory=False, out=lines.append)
    rf = results["cnn"]["rillflow"]
    assert rf["eager"] > 0 and rf["function"] > 0
    assert rf["build"]["loss_eager"] == pytest.approx(rf["build"]["loss_function"], rel=1e-5)
    assert "cnn_step" in "\n".join(lines)


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs JAX (the xla extra)")
def test_xla_mode_times_rillflow_and_hand_written_jax_from_the_same_weights():
    lines = []
    results = model_bench.run_models("cnn_step", size="tiny", min_time=0.01, rounds=1,
                                     memory=False, out=lines.append, xla=True)
    rf, jx = results["cnn"]["rillflow"], results["cnn"]["jax"]
    assert rf["xla"] > 0 and rf["cpu_xla"] > 0 and jx["xla"] > 0
    assert rf["build"]["loss_xla"] == pytest.approx(jx["build"]["loss_eager"], rel=1e-4)
    assert rf["build"]["loss_xla"] == pytest.approx(rf["build"]["loss_eager"], rel=1e-4)
    assert "rf xla/jax" in "\n".join(lines)
