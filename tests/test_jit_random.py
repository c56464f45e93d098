"""The compiled random fills of the jit extra (ops/random/jit_philox.py) give
the bits of the NumPy code (ops/random/distributions.py), which
test_random_tf_parity.py checks against TensorFlow's recorded numbers."""
import os

import ml_dtypes
import numpy as np
import pytest

pytest.importorskip("numba")

from rillflow.ops.random import distributions as d  # noqa: E402
from rillflow.ops.random import jit_random  # noqa: E402

_POSITIONS = [(0x1234567890ABCDEF, (5 << 64) | 77),
              (3, (1 << 64) - 1000),            # the low counter word wraps
              ((1 << 64) - 1, (1 << 128) - 700)]  # and the whole counter
_FLOATS = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]


@pytest.fixture(scope="module")
def fills():
    if os.environ.get("RILLFLOW_JIT", "1").strip() == "0":
        pytest.skip("the jit extra is turned off (RILLFLOW_JIT=0)")
    assert jit_random.wait() == "on", jit_random.status()
    return jit_random.fills(jit_random.MIN_ELEMENTS)


def _numpy(monkeypatch, f, *args):
    with monkeypatch.context() as m:
        m.setattr(jit_random, "fills", lambda n: None)
        return f(*args)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("n", [1024, 1027, 4099, 100003])
@pytest.mark.parametrize("dt", _FLOATS, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("name", ["uniform", "normal", "truncated_normal"])
def test_compiled_floats_equal_numpy(fills, monkeypatch, name, dt, n):
    if np.dtype(dt) == np.float64 and name != "uniform" and n > 5000:
        n = 5001   # the NumPy float64 normals call math.log per value: slow
    for pos in _POSITIONS:
        f = getattr(d, name)
        _same(f(pos, n, dt), _numpy(monkeypatch, f, pos, n, dt))


@pytest.mark.parametrize("n", [1024, 1025, 65539])
@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint32, np.uint64, np.int8])
def test_compiled_ints_equal_numpy(fills, monkeypatch, dt, n):
    wide = np.dtype(dt).itemsize == 8
    bounds = [(0, 10), (-5, 1000003), (0, 2 ** 31 - 1)] + (
        [(-2 ** 63, 2 ** 63 - 1), (7, 2 ** 40 + 3)] if wide else [(-2 ** 31, 2 ** 31 - 1)])
    for pos in _POSITIONS:
        for lo, hi in bounds:
            _same(d.uniform_int(pos, n, lo, hi, dt),
                  _numpy(monkeypatch, d.uniform_int, pos, n, lo, hi, dt))
        if np.dtype(dt).itemsize in (4, 8):
            _same(d.full_int(pos, n, dt), _numpy(monkeypatch, d.full_int, pos, n, dt))


def test_small_requests_run_the_numpy_code(fills):
    assert jit_random.fills(jit_random.MIN_ELEMENTS - 1) is None
    assert jit_random.fills(jit_random.MIN_ELEMENTS) is fills


def test_ops_use_the_compiled_fills(fills, monkeypatch):
    import rillflow as tf
    calls = []
    table = {k: (lambda f: lambda *a: calls.append(1) or f(*a))(f) for k, f in fills.items()}
    monkeypatch.setattr(jit_random, "fills", lambda n: table if n >= 1024 else None)
    a = tf.random.stateless_normal([4096], seed=[1, 2]).numpy()
    b = tf.random.stateless_normal([4096], seed=[1, 2]).numpy()
    assert len(calls) == 2
    _same(a, b)


def test_no_fused_multiply_add_in_the_generated_code(fills):
    # A contracted a * b + c rounds once instead of twice: other bits. The
    # loaded fills come from Numba's cache, which cannot be inspected, so the
    # same functions are compiled afresh here.
    import numba
    from rillflow.ops.random import jit_philox
    u = np.uint64(1)
    for name in ("normal_f32", "truncated_f32", "uniform_f32"):
        fresh = numba.njit(nogil=True, error_model="numpy")(jit_philox.KERNELS[name].py_func)
        fresh(u, u, u, u, np.empty(8, np.float32))
        sig = fresh.signatures[0]
        ir = fresh.inspect_llvm(sig)
        assert "llvm.fma" not in ir and "fmuladd" not in ir, name
        assert not any(" contract " in line or " fast " in line
                       for line in ir.splitlines() if " = f" in line), name
        asm = fresh.inspect_asm(sig)
        assert "vfmadd" not in asm and "vfmsub" not in asm and "vfnm" not in asm, name
