"""The compiled kernels of the `jit` extra (rillflow/ops/kernels/jit_kernels.py): the
same bits as the NumPy kernels and TensorFlow, used by compiled graphs, and
a clean fallback when Numba is absent or turned off."""
import os
import subprocess
import sys

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.kernels import jit_kernels, tanh_kernel
from test_unary_ops import TANH_F32_EDGES, TANH_F32_REFERENCE, TANH_F64_REFERENCE

pytest.importorskip("numba")


@pytest.fixture(scope="module")
def jit_tanh():
    assert jit_kernels.wait(timeout=120) == "on", jit_kernels.status()
    return jit_kernels.tanh()


def test_numpy_kernel_runs_until_the_compiled_ones_are_loaded(monkeypatch):
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
    np.testing.assert_array_equal(_bits(jit_tanh(x)),
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
