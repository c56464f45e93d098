"""The `jit` extra's compiled glibc functions (rillflow/ops/kernels/jit_glibc.py):
the bits of glibc_float's NumPy replicas (which give TensorFlow's) on random bit
patterns, special values, arguments near multiples of pi/2 and around each range
threshold; the branch-free tanf loop on every mix of its paths; no fused
multiply-add in the generated code; and tiny tensors through the compiled code
once it is loaded."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.kernels import glibc_float, jit_kernels

pytest.importorskip("numba")

_SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39,
                     1.17549435e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 0.5, -0.5, 2.0,
                     -3.0, 0.7853982, 120.0, -128.0, 1e9, 88.72284, -103.97208, 1e-30],
                    np.float32)
# glibc's range tests: pi/4, 0.75, 120, 2**-12, 2**-13, expf's 88 and -104,
# atanf's 7/16, 11/16, 19/16, 39/16, 2**-29, 2**25, and the normal threshold.
_THRESHOLDS = np.array([0.7853982, 0.75, 120.0, 2.0 ** -12, 2.0 ** -13, 0.6744, 88.0,
                        88.72283, -103.97207, 0.4375, 0.6875, 1.1875, 2.4375, 2.0 ** -29,
                        2.0 ** 25, 2.0 ** -126, 1.0], np.float32)


@pytest.fixture(scope="module")
def kernels():
    if not jit_kernels.available():
        pytest.skip("the jit extra is turned off (RILLFLOW_JIT=0)")
    assert jit_kernels.wait_elementwise(timeout=300), jit_kernels.elementwise_status()
    from rillflow.ops.kernels import jit_glibc
    return jit_glibc.KERNELS


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    random_bits = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    scaled = rng.standard_normal(n) * rng.choice([1e-6, 1e-3, 1.0, 4.0, 100.0, 3e4, 1e7], n)
    # The float32 neighbours of k * pi/2: the reduced argument is tiny.
    near = (rng.integers(-100_000, 100_000, n) * (np.pi / 2)).astype(np.float32)
    near = (near.view(np.int32) + rng.integers(-3, 4, n).astype(np.int32)).view(np.float32)
    steps = np.arange(-64, 64, dtype=np.int32)
    around = (_THRESHOLDS.view(np.int32)[:, None] + steps).reshape(-1).view(np.float32)
    return np.concatenate([random_bits, scaled.astype(np.float32), near, around, -around,
                           _SPECIAL])


def _bits(a):
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def _run(loop, *args):
    out = np.empty(args[0].size, np.float32)
    loop(*args, out)
    return out


@pytest.mark.parametrize("name", ["sinf", "cosf", "tanf", "expf"])
def test_unary_functions_give_glibc_floats_bits(kernels, name):
    x = _inputs(100_000, 1)
    np.testing.assert_array_equal(_bits(_run(kernels[name], x)),
                                  _bits(getattr(glibc_float, name)(x)))


@pytest.mark.parametrize("name", ["powf", "atan2f"])
def test_binary_functions_give_glibc_floats_bits(kernels, name):
    rng = np.random.default_rng(2)
    a = _inputs(60_000, 3)
    b = rng.permutation(a)
    if name == "powf":    # integer and small exponents: odd/even signs, overflow, underflow
        ints = rng.integers(-40, 40, a.size).astype(np.float32)
        with np.errstate(invalid="ignore"):
            b = np.where(rng.random(a.size) < 0.4, ints, b * np.float32(0.01))
        a = np.concatenate([a, np.abs(a)])
        b = np.concatenate([b, rng.permutation(b)])
    grid = np.array(np.meshgrid(_SPECIAL, _SPECIAL)).reshape(2, -1)
    a, b = np.concatenate([a, grid[0]]), np.concatenate([b, grid[1]])
    np.testing.assert_array_equal(_bits(_run(kernels[name], a, b)),
                                  _bits(getattr(glibc_float, name)(a, b)))


def test_nan_plus_nan_keeps_the_first_operands_payload(kernels):
    # glibc's `x + y` for NaN arguments, as x86's addss: x's NaN made quiet,
    # else y's. (LLVM may swap an fadd's operands; NumPy's own add picks
    # either one for two NaNs, one of them signaling, depending on the loop.)
    nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFA00000], np.uint32).view(np.float32)
    a, b = np.array(np.meshgrid(nans, nans)).reshape(2, -1)
    want = _bits(a) | 0x400000
    np.testing.assert_array_equal(_bits(_run(kernels["powf"], a, b)), want)
    np.testing.assert_array_equal(_bits(_run(kernels["atan2f"], b, a)), want)   # x + y


@pytest.mark.parametrize("mix", ["small", "reduced", "large", "mixed", "tiny", "large_then_small"])
def test_tanf_loop_on_every_mix_of_paths(kernels, mix):
    # The vectorized pass covers |x| < 120 with a reduced argument >= 2**-13;
    # blocks holding other elements redo them one by one, or all of the block.
    rng = np.random.default_rng(4)
    n = 5 * 512 + 7
    x = {"small": rng.uniform(-0.78, 0.78, n), "reduced": rng.uniform(-119, 119, n),
         "large": rng.uniform(-1e6, 1e6, n), "tiny": rng.uniform(-1e-4, 1e-4, n),
         "mixed": rng.choice([1.0, 100.0, 1e5, 1e-5], n) * rng.standard_normal(n),
         # blocks straight to the scalar code after a block of |x| >= 120, and back
         "large_then_small": np.concatenate([rng.uniform(200, 1e4, 3 * 512),
                                             rng.uniform(-3, 3, n - 3 * 512)])}[mix]
    x = x.astype(np.float32)
    x[::97] = _inputs(10, 5)[: x[::97].size]
    np.testing.assert_array_equal(_bits(_run(kernels["tanf"], x)), _bits(glibc_float.tanf(x)))


def test_no_fused_multiply_add_in_the_generated_code(kernels):
    # The FMA emulation must stay a sequence of separately rounded operations.
    # (Compiled afresh: the loaded loops come from Numba's cache.)
    import numba
    z = np.zeros(8, np.float32)
    for name, loop in kernels.items():
        args = (z, z) if name in ("powf", "atan2f") else (z,)
        fresh = numba.njit(nogil=True, error_model="numpy")(loop.py_func)
        fresh(*args, np.empty(8, np.float32))
        sig = fresh.signatures[0]
        ir = fresh.inspect_llvm(sig)
        assert "llvm.fma" not in ir and "fmuladd" not in ir, name
        assert not any(" contract " in line or " fast " in line
                       for line in ir.splitlines() if " = f" in line), name
        asm = fresh.inspect_asm(sig)
        assert "vfmadd" not in asm and "vfmsub" not in asm and "vfnm" not in asm, name


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (7,), (9,)])
def test_tiny_tensors_use_the_compiled_code_with_the_same_bits(kernels, shape, monkeypatch):
    rng = np.random.default_rng(6)
    x = rng.uniform(-20, 20, shape).astype(np.float32)
    y = rng.uniform(0.5, 3, shape).astype(np.float32)
    calls = [(tf.sin, (x,)), (tf.cos, (x,)), (tf.tan, (x,)), (tf.math.atan2, (x, y)),
             (tf.pow, (np.abs(x), y)), (tf.pow, (x, np.float32(2.5)))]
    got = [f(*args).numpy() for f, args in calls]
    monkeypatch.setattr(jit_kernels, "_elementwise", {})     # the NumPy replicas
    for (f, args), g in zip(calls, got):
        np.testing.assert_array_equal(_bits(g), _bits(f(*args).numpy()))
