"""The compiled kernels of the `jit` extra (rillflow/ops/kernels/jit_kernels.py): the
same bits as the NumPy kernels and TensorFlow, used by compiled graphs, and
a clean fallback when Numba is absent or turned off."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rillflow as tf
import test_numerics_exp
import test_numerics_trig
from rillflow.ops.core import float_sums
from rillflow.ops.kernels import erf, exp_log, jit_kernels, softmax_kernel, tanh_kernel
from rillflow.ops.kernels import x86_estimates
from test_unary_ops import TANH_F32_EDGES, TANH_F32_REFERENCE, TANH_F64_REFERENCE

pytest.importorskip("numba")
# RILLFLOW_JIT=0: only the tests that check the fallback run.
needs_jit = pytest.mark.skipif(not jit_kernels.available(), reason="RILLFLOW_JIT=0")


@pytest.fixture(scope="module")
def jit_on():
    if not jit_kernels.available():
        pytest.skip("RILLFLOW_JIT=0")
    assert jit_kernels.wait(timeout=300) == "on", jit_kernels.status()


@pytest.fixture(scope="module")
def jit_tanh(jit_on):
    return jit_kernels.tanh()


@needs_jit
def test_numpy_kernel_runs_until_the_compiled_ones_are_loaded(monkeypatch):
    # A load another test started must end first: its thread would set the
    # globals this test patches.
    jit_kernels.wait(timeout=300)
    x = np.linspace(-9, 9, 4001, dtype=np.float32)
    monkeypatch.setattr(jit_kernels, "_kernels", None)
    before = jit_kernels.tanh()(x)
    assert jit_kernels.status() in ("loading", "not loaded yet") or \
        jit_kernels.status().startswith("off")
    monkeypatch.undo()
    assert jit_kernels.wait(timeout=120) == "on"
    np.testing.assert_array_equal(_bits(before), _bits(tanh_kernel.tanh_kernel(x)))
    np.testing.assert_array_equal(_bits(jit_kernels.tanh()(x)), _bits(before))


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def test_float32_matches_tensorflow_bits(jit_tanh):
    pairs = TANH_F32_REFERENCE + TANH_F32_EDGES
    x = np.array([p[0] for p in pairs], np.uint32).view(np.float32)
    np.testing.assert_array_equal(_bits(jit_tanh(x)), [p[1] for p in pairs])


def test_float64_matches_tensorflow_bits(jit_tanh):
    x = np.array([p[0] for p in TANH_F64_REFERENCE], np.uint64).view(np.float64)
    # Packet values: padded to whole packets of 4 (the last size % 4 elements
    # of a tensor are the C library's tanh).
    padded = np.concatenate([x, np.zeros(-x.size % 4)])
    np.testing.assert_array_equal(_bits(jit_tanh(padded))[:x.size],
                                  np.array([p[1] for p in TANH_F64_REFERENCE], np.uint64))


@pytest.mark.parametrize("dtype,scale", [(np.float32, 3.0), (np.float64, 6.0)])
def test_same_bits_as_the_numpy_kernel(jit_tanh, dtype, scale):
    rng = np.random.default_rng(7)
    x = np.concatenate([
        rng.standard_normal(200_000) * scale,
        rng.uniform(-20, 20, 50_000),
        [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300, -5e-324, 1e-40, -1e-45],
    ]).astype(dtype)
    np.testing.assert_array_equal(_bits(jit_tanh(x)), _bits(tanh_kernel.tanh_kernel(x.copy())))


def test_shapes_scalars_and_strided_inputs(jit_tanh):
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(2, 3, 4)
    want = tanh_kernel.tanh_kernel(x.copy())
    got = jit_tanh(x)
    assert got.shape == (2, 3, 4) and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(jit_tanh(x[:, ::2, 1:]), want[:, ::2, 1:])
    s = jit_tanh(np.float32(0.5))
    assert isinstance(s, np.float32) and _bits(np.array(s)) == 0x3eec9a9e
    z = jit_tanh(np.array(0.5, np.float32))
    assert isinstance(z, np.ndarray) and z.shape == ()
    assert jit_tanh(np.zeros((0, 3), np.float32)).shape == (0, 3)
    h = jit_tanh(np.array([0.5, 12.0], np.float16))   # other dtypes: the NumPy kernel
    assert h.dtype == np.float16 and h[1] == 1.0


def test_compiled_graphs_use_the_jit_kernel_and_keep_eager_bits(jit_tanh):
    x = tf.constant(np.random.default_rng(1).standard_normal((32, 64)).astype(np.float32) * 3)

    @tf.function
    def cell(v, w):
        return tf.tanh(tf.matmul(v, w))
    w = tf.constant(np.eye(64, dtype=np.float32) * 0.9)
    got = cell(x, w)
    assert "tanh_jit(" in cell.get_concrete_function(x, w).generated_source
    eager = tf.tanh(tf.matmul(x, w))
    np.testing.assert_array_equal(_bits(got.numpy()), _bits(eager.numpy()))


def test_rnn_loop_with_jit_tanh_equals_eager(jit_tanh):
    xs = tf.constant(np.random.default_rng(2).standard_normal((20, 16, 64)).astype(np.float32))
    u = tf.constant(np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32) * 0.1)

    def rnn(xs, u):
        states = tf.TensorArray(tf.float32, size=20)
        h = tf.zeros([16, 64])
        for t in tf.range(20):
            h = tf.tanh(xs[t] + tf.matmul(h, u))
            states = states.write(t, h)
        return states.stack()
    f = tf.function(rnn)
    assert "tanh_jit(" in f.get_concrete_function(xs, u).generated_source
    np.testing.assert_array_equal(f(xs, u).numpy(), rnn(xs, u).numpy())


@needs_jit
def test_small_tensors_keep_the_numpy_kernel():
    # Loading Numba would cost a short script more than it saves.
    f = tf.function(lambda v: tf.tanh(v))
    src = f.get_concrete_function(tf.constant([0.5, 0.25, 0.75])).generated_source
    assert "tanh_jit(" not in src and "k_Tanh(" in src
    src = f.get_concrete_function(tf.TensorSpec([None, 8], tf.float32)).generated_source
    assert "tanh_jit(" in src     # unknown sizes may be large


def test_gradient_through_a_jit_tanh(jit_tanh):
    xn = np.linspace(-4, 4, 2048, dtype=np.float32).reshape(2, 1024)
    x = tf.constant(xn)

    def grad(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = tf.reduce_sum(tf.tanh(v))
        return tape.gradient(y, v)
    g = tf.function(grad)
    assert "tanh_jit(" in g.get_concrete_function(x).generated_source
    t = tanh_kernel.tanh_kernel(xn)
    np.testing.assert_allclose(grad(x).numpy(), 1 - t * t, rtol=1e-6)
    np.testing.assert_array_equal(g(x).numpy(), grad(x).numpy())


def test_rillflow_jit_0_turns_the_kernels_off():
    code = ("import numpy as np, rillflow as tf\n"
            "from rillflow.ops.kernels import jit_kernels\n"
            "f = tf.function(lambda v: tf.tanh(v))\n"
            "x = tf.fill([2048], 0.5)\n"
            "print(jit_kernels.status())\n"
            "print('tanh_jit(' in f.get_concrete_function(x).generated_source, f(x).numpy()[0])\n")
    env = dict(os.environ, RILLFLOW_JIT="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out == ["off: RILLFLOW_JIT=0", "False 0.46211714"]


# --- exp, log, ..., erf, erfc, rsqrt and the softmax row sums -------------------------

NUMPY_KERNELS = {
    "exp": exp_log.exp_kernel, "log": exp_log.log_kernel, "expm1": exp_log.expm1_kernel,
    "log1p": exp_log.log1p_kernel, "sigmoid": exp_log.sigmoid_kernel,
    "softplus": exp_log.softplus_kernel, "erf": lambda x: erf.erf_kernel(x),
    "erfc": lambda x: erf.erfc_kernel(x), "rsqrt": x86_estimates.rsqrt_kernel}


def _mixed_inputs(n, seed):
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):   # exp(90) overflows float32, NaN bits: on purpose
        x = np.concatenate([
            rng.integers(0, 2 ** 32, n // 4, dtype=np.uint64).astype(np.uint32).view(np.float32),
            rng.standard_normal(n // 4) * 3, rng.uniform(-120, 100, n // 4),
            np.exp(rng.uniform(-100, 90, n // 4)) * rng.choice([-1, 1], n // 4),
        ]).astype(np.float32)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 1e-45, -1e-45,
                         1.1754944e-38, 88.72, 88.73, -104.0, -104.1, 16.64, -1.0, 1.0, 3.4e38,
                         -3.4e38, 1e-8, 11.0, -11.0, 9.0], np.float32)
    x[rng.integers(0, x.size, 40 * specials.size)] = np.tile(specials, 40)
    return x


def _same(got, want, x):
    """Same bits; for a NaN input only NaN-ness (which payload a NaN-NaN
    operation keeps differs between NumPy's own SIMD and scalar loops)."""
    g, w = got.view(np.uint32), want.view(np.uint32)
    ok = (g == w) | (np.isnan(x) & np.isnan(got) & np.isnan(want))
    assert ok.all(), "%d differ, first inputs %s" % ((~ok).sum(), x[~ok][:5])


@pytest.mark.parametrize("name", sorted(NUMPY_KERNELS))
def test_compiled_kernel_has_the_numpy_kernels_bits(jit_on, name):
    compiled = getattr(jit_kernels, name + "_kernel")
    if name in ("erf", "erfc"):
        compiled = compiled(None)
    x = _mixed_inputs(200_000, len(name))
    with np.errstate(all="ignore"):
        for n in (x.size, x.size - 1, x.size - 3, x.size - 7):   # every size % 8 matters
            _same(compiled(x[:n]), NUMPY_KERNELS[name](x[:n].copy()), x[:n])
        for n in range(0, 26):      # all libm, or packets and a tail
            for start in range(0, 2000, 97):
                xs = x[start:start + n]
                _same(compiled(xs), NUMPY_KERNELS[name](xs.copy()), xs)
        got = compiled(x[:24].reshape(2, 3, 4))
        assert got.shape == (2, 3, 4) and got.dtype == np.float32
        s = compiled(np.float32(0.5))
        assert isinstance(s, np.float32) and s == NUMPY_KERNELS[name](np.float32(0.5))


def test_half_types_and_float64_keep_the_numpy_kernels(jit_on):
    x = np.linspace(-5, 5, 2048)
    for dt in (np.float16, np.float64):
        np.testing.assert_array_equal(jit_kernels.exp_kernel(x.astype(dt)),
                                      exp_log.exp_kernel(x.astype(dt)))


@pytest.mark.parametrize("cols", [1, 7, 8, 31, 32, 100, 1000, 8199, 20001])
def test_compiled_row_sums_and_softmax_family(jit_on, cols):
    rng = np.random.default_rng(cols)
    rows = max(1, 40_000 // cols)
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    x[0, :min(cols, 3)] = [np.inf, -np.inf, np.nan][:min(cols, 3)]
    if rows > 3:
        x[2] = -np.abs(x[2])             # a negative NaN, -0 and -inf in one row
        x[2, 0] = -np.inf
        x[2, -1] = -np.float32(np.nan)
        x[3, ::2] = -0.0
    labels = rng.integers(0, cols, rows)
    soft = rng.dirichlet(np.ones(cols), rows).astype(np.float32)
    fast, slow = jit_kernels.softmax_ops(x.size), softmax_kernel.NUMPY_OPS
    assert fast is not slow
    b = softmax_kernel.shifted_rows(x[1:])
    for k in ("row_sums", "sum_exp", "exp_all", "log_all", "log_scalar"):
        arg = b.reshape(-1) if k in ("exp_all", "log_all", "log_scalar") else b
        with np.errstate(all="ignore"):
            _bits_equal(fast[k](arg), slow[k](arg))
    _bits_equal(fast["row_sums"](x[1:], first=5), slow["row_sums"](x[1:], first=5))
    # The shift keeps a row's first NaN (its sign too) on both paths.
    assert fast["shift_rows"](x).tobytes() == slow["shift_rows"](x).tobytes()
    for f, args in [(softmax_kernel.softmax_2d, (x,)), (softmax_kernel.log_softmax_2d, (x,)),
                    (softmax_kernel.softmax_xent_2d, (soft, x)),
                    (softmax_kernel.sparse_xent_2d, (labels, x))]:
        got, want = f(*args, fast), f(*args, slow)
        for g, w in zip(got if isinstance(got, tuple) else [got],
                        want if isinstance(want, tuple) else [want]):
            _bits_equal(g, w)


def _bits_equal(got, want):
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got.view(np.uint32)[ok], want.view(np.uint32)[ok])


def test_tensorflow_fixtures_with_the_compiled_kernels(jit_on):
    # tests/test_numerics_*.py check TensorFlow's bits whichever kernels run;
    # here they run with the compiled ones loaded.
    m = test_numerics_exp
    for name in m.OPS:
        for tag in m.DTYPES:
            m.test_packet_path_eager(name, tag)
            m.test_scalar_path_one_element_tensors(name, tag)
        m.test_sizes_mix_packets_and_tail(name)
        m.test_in_tf_function(name)
    m.test_large_fused_chain_keeps_tail_rule()
    for cols in m.COLS:
        for traced in (False, True):
            m.test_softmax_family(cols, traced)
    t = test_numerics_trig
    for name in ("erf", "erfc", "rsqrt"):
        if name in t.UNARY:
            t.test_unary_float32_eager_bitwise(name)
            t.test_unary_float32_in_function_bitwise(name)
    t.test_scalar_path_exact("rsqrt")
    t.test_scalar_path_exact("erf")
    t.test_odd_size_tail()


@needs_jit
def test_first_large_call_starts_the_load_and_waits_a_bounded_time(monkeypatch):
    jit_kernels.wait(timeout=300)   # no loading thread may set the patched globals
    monkeypatch.setattr(jit_kernels, "_kernels", None)
    monkeypatch.setattr(jit_kernels, "_softmax", None)
    monkeypatch.setattr(jit_kernels, "_loader", [])
    started = []
    # The call that starts the load waits for it at most FIRST_WAIT seconds;
    # a load that is not done by then leaves the NumPy kernel to run.
    monkeypatch.setattr(jit_kernels, "_start", lambda first_wait=0.0: started.append(first_wait))
    monkeypatch.setattr(jit_kernels, "_numba_started", [])
    x = np.linspace(-3, 3, 7, dtype=np.float32)
    np.testing.assert_array_equal(tf.exp(x).numpy(), exp_log.exp_kernel(x))
    assert not started                       # a short tensor never loads Numba
    big = np.linspace(-3, 3, 4096, dtype=np.float32)
    np.testing.assert_array_equal(tf.exp(big).numpy(), exp_log.exp_kernel(big))
    assert started == [jit_kernels.FIRST_WAIT]
    assert jit_kernels.softmax_ops(10) is softmax_kernel.NUMPY_OPS
    # Once another family loads Numba (a model's layer loops), short tensors
    # start this family's load too, without waiting for it.
    del started[:]
    monkeypatch.setattr(jit_kernels, "_numba_started", ["rillflow-jit-load-nn"])
    np.testing.assert_array_equal(tf.exp(x).numpy(), exp_log.exp_kernel(x))
    assert jit_kernels.softmax_ops(10) is softmax_kernel.NUMPY_OPS
    assert started == [0.0, 0.0]


def test_a_family_that_loads_counts_as_loading_numba(monkeypatch):
    monkeypatch.setattr(jit_kernels, "_numba_started", [])
    fam = jit_kernels.BackgroundLoad("rillflow-test-family", lambda: "loaded", "a test")
    assert not jit_kernels._numba_started
    monkeypatch.setattr(jit_kernels, "available", lambda: True)
    fam.start(first_wait=5)
    assert jit_kernels._numba_started and fam.value == "loaded"


def test_eager_ops_and_graphs_use_the_compiled_kernels(jit_on, monkeypatch):
    calls = []
    real = jit_kernels._run
    monkeypatch.setattr(jit_kernels, "_run", lambda k, x: calls.append(k) or real(k, x))
    x = tf.constant(np.linspace(-9, 9, 3001, dtype=np.float32))
    eager = [tf.exp(x), tf.math.log1p(x), tf.sigmoid(x), tf.nn.softplus(x), tf.math.erfc(x)]
    assert len(calls) == 5
    f = tf.function(lambda v: [tf.exp(v), tf.math.log1p(v), tf.sigmoid(v), tf.nn.softplus(v),
                               tf.math.erfc(v)])
    for g, e in zip(f(x), eager):
        np.testing.assert_array_equal(g.numpy().view(np.uint32), e.numpy().view(np.uint32))
    assert len(calls) == 10


def test_background_load_first_request_waits_up_to_first_wait(monkeypatch):
    import threading
    import time
    monkeypatch.setattr(jit_kernels, "available", lambda: True)
    quick = jit_kernels.BackgroundLoad("rillflow-test-quick", lambda: "loaded", "a test")
    assert quick.get(10) is None                     # small: nothing starts
    assert quick.get(jit_kernels.MIN_ELEMENTS) == "loaded"   # waited for the load
    release = threading.Event()

    def slow():
        release.wait(30)
        return "late"
    monkeypatch.setattr(jit_kernels, "FIRST_WAIT", 0.05)
    late = jit_kernels.BackgroundLoad("rillflow-test-slow", slow, "a test")
    start = time.monotonic()
    assert late.get(jit_kernels.MIN_ELEMENTS) is None    # gave up: NumPy code runs
    assert time.monotonic() - start < 10
    assert late.status() == "loading"
    release.set()
    assert late.wait(30) == "on" and late.get(1) == "late"


@needs_jit
def test_compiled_column_sums_give_numpys_bits():
    # float_sums' leading and middle runs in TensorFlow's order: the loop
    # (jit_reduce.column_sums) and softmax_kernel's NumPy steps agree.
    assert jit_kernels.REDUCE.wait(timeout=300) == "on", jit_kernels.REDUCE.status()
    loop = jit_kernels.REDUCE.value["column_sums"]
    rng = np.random.default_rng(5)
    # (kept values in whole packets, fewer than a packet, and neither: packets
    # across two slices, a last partial one)
    for shape in [(1, 3, 5), (1, 16, 8), (1, 17, 13), (4, 40, 16), (3, 100, 3), (2, 5000, 9),
                  (1, 15, 4), (6, 33, 32), (3, 40, 13), (2, 20, 33), (5, 17, 12), (4, 16, 3)]:
        for dt, lanes in ((np.float32, 8), (np.float64, 4)):
            x = (rng.standard_normal(shape) * rng.choice([1e-3, 1, 1e3], shape)).astype(dt)
            x.ravel()[rng.integers(0, x.size, 5)] = -0.0
            out = np.empty((shape[0], shape[2]), dt)
            loop(x, out, lanes)
            if shape[0] == 1:
                want = softmax_kernel.column_sums(x[0])[None]
            else:
                want = np.where(float_sums._packed(shape[0], shape[2], lanes),
                                float_sums._column_sums_3d(x), softmax_kernel.ordered_sum(x, 1))
            np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))
    z = np.full((1, 20, 8), -0.0, np.float32)       # from zero: +0
    out = np.empty((1, 8), np.float32)
    loop(z, out, 8)
    assert not np.signbit(out).any()
