"""Large float32 products through XLA's dot (rillflow/ops/kernels/xla_gemm.py,
opt-in by RILLFLOW_XLA_GEMM=1): which products go to XLA, their results
against NumPy's within float32 tolerance (the sums' order differs, never
compared bit for bit), writable results, and the ops and compiled functions
using it. Skipped without JAX, except the switch's own rules."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.framework import lowering
from rillflow.ops.kernels import xla_gemm
from kernel_modes import default_products


def _close(got, want):
    # float32 sums of K terms: a few ulp of the largest partial sums.
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())


@pytest.fixture
def xla_on(monkeypatch):
    """The routing on, JAX required; yields the set of routed patterns."""
    pytest.importorskip("jax")
    monkeypatch.setitem(xla_gemm._state, "on", True)
    monkeypatch.setitem(xla_gemm._state, "shapes", set())
    return xla_gemm._state["shapes"]


@pytest.mark.parametrize("flag, on", [("", False), ("0", False), ("1", True), ("on", True)])
def test_switch(monkeypatch, flag, on):
    monkeypatch.setenv("RILLFLOW_XLA_GEMM", flag)
    monkeypatch.setitem(xla_gemm._state, "on", None)
    assert xla_gemm.enabled() == (on and lowering.available())
    if not on:
        assert xla_gemm.status().startswith("off")


@default_products
def test_off_is_numpys_product(monkeypatch):
    monkeypatch.setitem(xla_gemm._state, "on", False)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 256), dtype=np.float32)
    b = rng.standard_normal((256, 256), dtype=np.float32)
    np.testing.assert_array_equal(xla_gemm.matmul(a, b), a @ b)


def test_large_products_go_to_xla(xla_on):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 160), dtype=np.float32)
    b = rng.standard_normal((160, 200), dtype=np.float32)
    bt = np.ascontiguousarray(b.T)
    for x, y in ((a, b), (a, bt.T)):            # b itself and b as a transposed view
        got = xla_gemm.matmul(x, y)
        assert got.shape == (300, 200) and got.dtype == np.float32
        _close(got, a.astype(np.float64) @ b.astype(np.float64))
    assert len(xla_on) == 2
    # The result is an ordinary writable array (compiled code updates it in place).
    got *= 2
    _close(got, 2 * (a.astype(np.float64) @ b.astype(np.float64)))


def test_batches_and_transposed_views(xla_on):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 128, 96), dtype=np.float32)
    b = rng.standard_normal((3, 96, 480), dtype=np.float32)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    _close(xla_gemm.matmul(a, b), want)
    # b as the adjoint view of a (3, 480, 96) array.
    _close(xla_gemm.matmul(a, np.ascontiguousarray(b.transpose(0, 2, 1)).transpose(0, 2, 1)),
           want)
    # a (batch, rows, K) view of a (rows, batch, K) array, as Winograd's tiles.
    tile_major = np.ascontiguousarray(a.transpose(1, 0, 2))
    _close(xla_gemm.matmul(tile_major.transpose(1, 0, 2), b), want)
    assert len(xla_on) == 3


@default_products
def test_small_skinny_or_left_transposed_products_stay_with_numpy(xla_on):
    rng = np.random.default_rng(3)
    big = rng.standard_normal((512, 512), dtype=np.float32)
    cases = [(big[:16], big),                         # few rows
             (big, big[:, :8]),                       # few columns
             (big[:, :16], big[:16]),                 # short sums
             (big[:64, :64], big[:64, :64]),          # little work
             (big.T, big),                            # sums down the left operand's columns
             (big.astype(np.float64), big.astype(np.float64)),
             (big[::2], big[:, :256]),                # not a view of a contiguous array
             (np.ones((2, 128, 128), np.float32), np.ones((1, 128, 128), np.float32))]
    for a, b in cases:
        np.testing.assert_array_equal(xla_gemm.matmul(a, b), np.matmul(a, b))
    assert not xla_on


def test_matmul_ops_and_compiled_functions(xla_on):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((256, 128), dtype=np.float32)
    b = rng.standard_normal((128, 192), dtype=np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    _close(tf.matmul(a, b).numpy(), want)
    _close(tf.matmul(a, np.ascontiguousarray(b.T), transpose_b=True).numpy(), want)
    f = tf.function(lambda x, y: tf.matmul(x, y) * 2.0)
    _close(f(tf.constant(a), tf.constant(b)).numpy(), 2 * want)
    x3 = rng.standard_normal((4, 64, 128), dtype=np.float32)
    y3 = rng.standard_normal((4, 128, 640), dtype=np.float32)
    _close(tf.linalg.matmul(x3, y3).numpy(),
           np.matmul(x3.astype(np.float64), y3.astype(np.float64)))
    assert xla_on


def test_conv2d_through_xla_products(xla_on, monkeypatch):
    monkeypatch.setattr(xla_gemm, "MIN_WORK", 1 << 16)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 12, 12, 24), dtype=np.float32)
    f = (rng.standard_normal((3, 3, 24, 40)) / 15).astype(np.float32)
    with tf.GradientTape() as tape:
        xv = tf.constant(x)
        tape.watch(xv)
        y = tf.nn.conv2d(xv, f, 1, "SAME")
        loss = tf.reduce_sum(y * y)
    dx = tape.gradient(loss, xv).numpy()
    monkeypatch.setitem(xla_gemm._state, "on", False)
    with tf.GradientTape() as tape:
        xv = tf.constant(x)
        tape.watch(xv)
        y2 = tf.nn.conv2d(xv, f, 1, "SAME")
        loss = tf.reduce_sum(y2 * y2)
    _close(y.numpy(), y2.numpy())
    _close(dx, tape.gradient(loss, xv).numpy())
    assert xla_on
