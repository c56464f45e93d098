"""The `jit` extra's compiled sin, cos, tan, atan2 and pow loops
(rillflow/ops/kernels/jit_trig.py, jit_pow.py): the same bits as the NumPy
kernels (which give TensorFlow's) on random bit patterns and the special
values, for every size mod 8 (Eigen's scalar tail), no fused multiply-add in
the generated code, and the NumPy kernels until the loops are loaded."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.kernels import glibc_float, jit_kernels, trig
from rillflow.ops.kernels import pow as pow_kernels
from rillflow.ops.kernels.x86_estimates import packet_then_scalar
from test_numerics_trig import _FTZ_CASES
from test_numerics_trig import test_subnormal_rules as _subnormal_rules

pytest.importorskip("numba")

# The kernels as the op families register them: the compiled loop first.
_SIN = jit_kernels.compiled_first("sin", trig.sin_kernel)
_COS = jit_kernels.compiled_first("cos", trig.cos_kernel)
_TAN = jit_kernels.compiled_first("tan", trig.tan_kernel)
_ATAN2 = jit_kernels.compiled_first("atan2", trig.atan2_kernel)
_POW = jit_kernels.compiled_first("pow", pow_kernels.pow_kernel)

_SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39,
                     1.17549435e-38, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 0.5, -0.5, 2.0,
                     -3.0, 25966.0, 18838.0, -25965.998, 0.7853982, 120.0, -128.0, 1e9,
                     7.4e8, -7.5e8, 1e-30], np.float32)


@pytest.fixture(scope="module")
def loops():
    if not jit_kernels.available():
        pytest.skip("the jit extra is turned off (RILLFLOW_JIT=0)")
    assert jit_kernels.wait_elementwise(timeout=300), jit_kernels.elementwise_status()
    return jit_kernels._elementwise


def _inputs(n, seed):
    rng = np.random.default_rng(seed)
    random_bits = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    scaled = (rng.standard_normal(n) * rng.choice([1e-3, 1.0, 4.0, 100.0, 3e4, 1e7], n))
    return np.concatenate([random_bits, scaled.astype(np.float32), _SPECIAL])


def _bits(a):
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def _run(loop, *args):
    out = np.empty(np.size(args[-1]) if np.ndim(args[0]) == 0 else np.size(args[0]), np.float32)
    loop(*args, out)
    return out


@pytest.mark.parametrize("name,numpy_packet", [
    ("sin", trig._sin_packet), ("cos", trig._cos_packet), ("tan", glibc_float.tanf)])
def test_unary_loops_give_the_numpy_kernels_bits(loops, name, numpy_packet):
    x = _inputs(150_000, 1)
    np.testing.assert_array_equal(_bits(_run(loops[name], x)), _bits(numpy_packet(x)))


def test_atan2_loop_gives_the_numpy_kernels_bits(loops):
    y = _inputs(150_000, 2)
    x = np.random.default_rng(3).permutation(y)
    specials = np.array(np.meshgrid(_SPECIAL, _SPECIAL)).reshape(2, -1)
    y, x = np.concatenate([y, specials[0]]), np.concatenate([x, specials[1]])
    np.testing.assert_array_equal(_bits(_run(loops["atan2"], y, x)),
                                  _bits(trig._atan2_packet(y, x)))


def test_pow_loops_give_the_numpy_kernels_bits(loops):
    x = _inputs(100_000, 4)
    rng = np.random.default_rng(5)
    exponents = np.array([2, 3, 0.5, -1, -2, 1, 0, -0.5, 1.5, 4, -3, 100, 1e9, -1e9], np.float32)
    y = np.where(rng.random(x.size) < 0.5, rng.permutation(x), rng.choice(exponents, x.size))
    x = np.concatenate([x, np.abs(x)])
    y = np.concatenate([y, rng.permutation(y)])
    specials = np.array(np.meshgrid(_SPECIAL, _SPECIAL)).reshape(2, -1)
    x, y = np.concatenate([x, specials[0]]), np.concatenate([y, specials[1]])
    want = pow_kernels.pow_packet(x, y)
    np.testing.assert_array_equal(_bits(_run(loops["pow"], x, y)), _bits(want))
    for c in (2.0, 0.5, -1.0, 3.0):
        c = np.float32(c)
        np.testing.assert_array_equal(_bits(_run(loops["pow_scalar_y"], x, c)),
                                      _bits(pow_kernels.pow_packet(x, c)))
        np.testing.assert_array_equal(_bits(_run(loops["pow_scalar_x"], c, y)),
                                      _bits(pow_kernels.pow_packet(c, y)))


@pytest.mark.parametrize("size", range(1024, 1024 + 9))
def test_every_size_mod_8_keeps_the_scalar_tail(loops, size):
    x = _inputs(size, size)[:size].copy()    # random bits, specials among them
    x[::3] = np.linspace(-50, 50, x[::3].size, dtype=np.float32)
    y = np.linspace(-3, 3, size, dtype=np.float32)
    cases = [(_SIN, trig._sin_packet, glibc_float.sinf, (x,)),
             (_COS, trig._cos_packet, glibc_float.cosf, (x,)),
             (_TAN, glibc_float.tanf, glibc_float.tanf, (x,)),
             (_ATAN2, trig._atan2_packet, glibc_float.atan2f, (x, y)),
             (_POW, pow_kernels.pow_packet, glibc_float.powf, (np.abs(x), y)),
             (_POW, pow_kernels.pow_packet, glibc_float.powf,
              (x, np.array(2.0, np.float32)))]
    for kernel, packet, scalar, args in cases:
        want = packet_then_scalar(packet, scalar, *args)
        np.testing.assert_array_equal(_bits(kernel(*args)), _bits(want))


def test_shapes_broadcasting_and_small_dtypes(loops):
    x = np.linspace(-6, 6, 4 * 1030, dtype=np.float32).reshape(4, 1030)
    y = np.linspace(0.5, 3, 1030, dtype=np.float32)
    got = _POW(np.abs(x), y)
    assert got.shape == (4, 1030) and got.dtype == np.float32
    want = packet_then_scalar(pow_kernels.pow_packet, glibc_float.powf, np.abs(x), y)
    np.testing.assert_array_equal(_bits(got), _bits(want))
    want = packet_then_scalar(trig._atan2_packet, glibc_float.atan2f, x.T, y[:4])
    np.testing.assert_array_equal(_bits(_ATAN2(x.T, y[:4])), _bits(want))
    h = x.astype(np.float16)
    want = packet_then_scalar(trig._sin_packet, glibc_float.sinf, h.astype(np.float32))
    np.testing.assert_array_equal(_SIN(h), want.astype(np.float16))


def test_no_fused_multiply_add_in_the_generated_code(loops):
    # A contracted a * b + c rounds once instead of twice: other bits. The
    # loaded loops come from Numba's cache, which cannot be inspected, so the
    # same functions are compiled afresh here, as the cache would hold them.
    import numba
    from rillflow.ops.kernels import jit_pow, jit_trig
    z = np.zeros(8, np.float32)
    for loop, args in ((jit_pow.pow_f32, (z, z)), (jit_trig.tan_f32, (z,)),
                       (jit_trig.sin_f32, (z,)), (jit_trig.atan2_f32, (z, z))):
        fresh = numba.njit(nogil=True, error_model="numpy")(loop.py_func)
        fresh(*args, np.empty(8, np.float32))
        sig = fresh.signatures[0]
        ir = fresh.inspect_llvm(sig)
        assert "llvm.fma" not in ir and "fmuladd" not in ir, loop
        assert not any(" contract " in line or " fast " in line
                       for line in ir.splitlines() if " = f" in line), loop
        asm = fresh.inspect_asm(sig)
        assert "vfmadd" not in asm and "vfmsub" not in asm and "vfnm" not in asm, loop


def test_numpy_kernels_run_until_the_loops_are_loaded(loops, monkeypatch):
    x = np.linspace(-9, 9, 4001, dtype=np.float32)
    want = _SIN(x)
    monkeypatch.setattr(jit_kernels, "_elementwise", {})
    assert jit_kernels.packet_then_scalar("sin", glibc_float.sinf, x) is None
    np.testing.assert_array_equal(_bits(_SIN(x)), _bits(want))


def test_eager_and_compiled_graphs_use_the_loops(loops):
    x = tf.constant(np.linspace(-4, 4, 3001, dtype=np.float32))
    # (An exponent TensorFlow's graph optimizer leaves alone: a constant 2 becomes
    # sin * sin in graphs, see specialize.graph_rewrite.)
    f = tf.function(lambda v: (tf.sin(v) + 2.0) ** 2.5 + tf.math.atan2(v, v + 1) - tf.tan(v))
    xn = x.numpy()
    want = packet_then_scalar(trig._sin_packet, glibc_float.sinf, xn) + np.float32(2.0)
    want = packet_then_scalar(pow_kernels.pow_packet, glibc_float.powf, want, np.float32(2.5))
    want = want + packet_then_scalar(trig._atan2_packet, glibc_float.atan2f, xn, xn + 1)
    want = want - glibc_float.tanf(xn)
    np.testing.assert_array_equal(_bits(f(x).numpy()), _bits(want))
    np.testing.assert_array_equal(_bits(f(x).numpy()), _bits(f.python_function(x).numpy()))


def test_rillflow_jit_0_keeps_the_numpy_kernels():
    code = ("import numpy as np, rillflow as tf\n"
            "from rillflow.ops.kernels import jit_kernels\n"
            "y = tf.sin(tf.fill([4096], 0.5)) ** 2.0\n"
            "print(jit_kernels._elementwise_loader == [], y.numpy()[0])\n")
    env = dict(os.environ, RILLFLOW_JIT="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out == ["True 0.22984886"]


@pytest.mark.parametrize("shapes", [((), ()), ((1,), ()), ((), (3,)), ((2, 5), ()), ((9,), (1,)),
                                    ((1, 1), (1,)), ((3, 4), (3, 4)), ((2, 1), (1, 3))])
def test_short_paths_keep_shapes_and_bits(loops, shapes):
    # jit_kernels' short paths for one input, equal shapes and a scalar:
    # the broadcast shape (0-d stays 0-d) and the NumPy kernels' bits.
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(-4, 4, s).astype(np.float32) for s in shapes)
    a = np.abs(a)
    for fast, slow in ((_POW, pow_kernels.pow_kernel), (_ATAN2, trig.atan2_kernel)):
        got, want = fast(a, b), slow(a, b)
        assert np.shape(got) == np.shape(want) == np.broadcast_shapes(*shapes)
        np.testing.assert_array_equal(np.asarray(got).view(np.uint32),
                                      np.asarray(want).view(np.uint32))
    for fast, slow in ((_SIN, trig.sin_kernel), (_TAN, trig.tan_kernel)):
        got, want = fast(b), slow(b)
        assert np.shape(got) == np.shape(want) == np.shape(b)
        np.testing.assert_array_equal(np.asarray(got).view(np.uint32),
                                      np.asarray(want).view(np.uint32))


def test_packet_loops_vectorize(loops):
    # The packet loops are straight-line code with selects so that LLVM
    # vectorizes them (packed `mulps`, on xmm, ymm or zmm registers by CPU);
    # a branch or a call left in the loop body would make them scalar.
    import re
    import numba
    from rillflow.ops.kernels import jit_erf, jit_glibc, jit_pow, jit_trig
    z = np.zeros(8, np.float32)
    for loop, args in ((jit_trig.sin_f32, (z,)), (jit_trig.cos_f32, (z,)),
                       (jit_trig.atan2_f32, (z, z)), (jit_pow.pow_f32, (z, z)),
                       (jit_glibc.tanf_f32, (z,)), (jit_erf.erfc_f32, (z,))):
        fresh = numba.njit(nogil=True, error_model="numpy")(loop.py_func)
        fresh(*args, np.empty(8, np.float32))
        asm = fresh.inspect_asm(fresh.signatures[0])
        assert re.search(r"\bv?mulps\b", asm), loop


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_half_atan2_and_pow_compiled_are_glibc_everywhere(loops, dtype):
    # float16/bfloat16 atan2 and pow: glibc's function on every element,
    # compiled as in the NumPy kernels (trig.atan2_kernel, pow.pow_kernel).
    dt = np.dtype(tf.bfloat16.as_numpy_dtype) if dtype == "bfloat16" else np.dtype(dtype)
    rng = np.random.default_rng(8)
    for n in (3, 8, 1001):
        a = rng.uniform(-20, 20, n).astype(dt)
        b = rng.uniform(-3, 3, n).astype(dt)
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        for fast, want in ((_ATAN2(a, b), glibc_float.atan2f(a32, b32)),
                           (_POW(np.abs(a), b), glibc_float.powf(np.abs(a32), b32))):
            assert fast.dtype == dt
            np.testing.assert_array_equal(fast.astype(np.float32), want.astype(dt).astype(np.float32))


@pytest.mark.parametrize("fn,args,packet,scalar", _FTZ_CASES)
def test_subnormal_rules_compiled(loops, fn, args, packet, scalar):
    # TensorFlow's flush-to-zero/denormals-are-zero bits (test_numerics_trig)
    # from the compiled loops, packets and glibc tails (erf and rsqrt too).
    assert jit_kernels.wait(timeout=300) == "on", jit_kernels.status()
    _subnormal_rules(fn, args, packet, scalar)


def test_a_failed_load_is_tried_again_and_its_error_kept(monkeypatch):
    for t in jit_kernels._elementwise_loader:   # no real load may fill the patched dict
        t.join(300)
    attempts = []

    def flaky():
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("index written by another process")
        return {"sin": "the loop"}
    monkeypatch.setattr(jit_kernels, "_compile_elementwise", flaky)
    monkeypatch.setattr(jit_kernels, "_elementwise", {})
    monkeypatch.setattr(jit_kernels, "_elementwise_errors", [])
    monkeypatch.setattr(jit_kernels, "_elementwise_loader", [None])
    monkeypatch.setattr(jit_kernels, "available", lambda: True)
    jit_kernels._load_elementwise()
    assert jit_kernels._elementwise == {"sin": "the loop"} and len(attempts) == 2
    assert jit_kernels.elementwise_status() == \
        "on; attempt 1: OSError: index written by another process"
    # Two failures leave the loops off, both errors named.
    monkeypatch.setattr(jit_kernels, "_elementwise", {})
    monkeypatch.setattr(jit_kernels, "_elementwise_errors", [])
    monkeypatch.setattr(jit_kernels, "_compile_elementwise", lambda: 1 / 0)
    monkeypatch.setattr(jit_kernels, "_elementwise_loader", [threading.Thread(target=int)])
    jit_kernels._elementwise_loader[0].start()
    jit_kernels._elementwise_loader[0].join()
    jit_kernels._load_elementwise()
    assert jit_kernels._elementwise == {}
    assert jit_kernels.elementwise_status() == ("off; attempt 1: ZeroDivisionError: division by "
                                                "zero; attempt 2: ZeroDivisionError: division by zero")
