"""Stacks of matrix products as batched OpenBLAS calls (ops/kernels/
blas_batch.py): every layout a GEMM reads in place, the bits of one-thread
GEMMs whatever OpenBLAS's thread count, and NumPy's matmul where the call
does not apply."""
import itertools

import numpy as np
import pytest

from rillflow.framework import blas_threads
from rillflow.ops.kernels import blas_batch

pytestmark = pytest.mark.skipif(not blas_batch.available(np.float32),
                                reason="NumPy's OpenBLAS has no cblas_sgemm_batch_strided")


def _one_thread_matmul(a, b):
    assert blas_threads.single_thread_begin()
    try:
        return np.matmul(a, b)
    finally:
        blas_threads.single_thread_end()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bs, m, k, n", [(2, 128, 64, 128), (5, 100, 100, 101),
                                         (3, 17, 300, 250), (7, 33, 129, 257)])
def test_every_transpose_gives_one_thread_gemms_bits(dtype, bs, m, k, n):
    rng = np.random.default_rng(m + n)
    for ta, tb in itertools.product((False, True), repeat=2):
        a = rng.standard_normal((bs, k, m) if ta else (bs, m, k)).astype(dtype)
        b = rng.standard_normal((bs, n, k) if tb else (bs, k, n)).astype(dtype)
        a = a.transpose(0, 2, 1) if ta else a
        b = b.transpose(0, 2, 1) if tb else b
        got = blas_batch.matmul(a, b)
        assert got is not None and got.shape == (bs, m, n) and got.dtype == dtype
        want = _one_thread_matmul(a, b)
        np.testing.assert_array_equal(got, want)
        exact = np.matmul(a.astype(np.float64), b.astype(np.float64))
        np.testing.assert_allclose(got, exact, rtol=1e-4, atol=1e-3 * np.sqrt(k))


def test_batch_axes_that_do_not_merge_take_a_call_per_outer_index():
    # Attention's heads: (batch, heads, tokens, depth) views of
    # (batch, tokens, heads, depth) arrays.
    rng = np.random.default_rng(1)
    q = rng.standard_normal((8, 128, 4, 64)).astype(np.float32).transpose(0, 2, 1, 3)
    k = rng.standard_normal((8, 128, 4, 64)).astype(np.float32).transpose(0, 2, 3, 1)
    got = blas_batch.matmul(q, k)
    assert got.shape == (8, 4, 128, 128) and got.flags.c_contiguous
    np.testing.assert_array_equal(got, _one_thread_matmul(q, k))
    c = rng.standard_normal((2, 3, 5, 110, 100)).astype(np.float32)
    d = rng.standard_normal((2, 3, 5, 100, 120)).astype(np.float32)
    np.testing.assert_array_equal(blas_batch.matmul(c, d), _one_thread_matmul(c, d))


def test_the_bits_do_not_depend_on_openblas_thread_count():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((6, 96, 200)).astype(np.float32)
    b = rng.standard_normal((6, 200, 90)).astype(np.float32)
    many = blas_batch.matmul(a, b)
    assert blas_threads.single_thread_begin()
    try:
        one = blas_batch.matmul(a, b)
    finally:
        blas_threads.single_thread_end()
    np.testing.assert_array_equal(many, one)


def test_products_it_does_not_take():
    rng = np.random.default_rng(3)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)   # noqa: E731
    # At most 100**3 multiply-adds (OpenBLAS 0.3.31's batched call crashes
    # on its small-matrix path there), a single row, one matrix, ints,
    # broadcast batch dims, a reversed view.
    assert blas_batch.matmul(f(4, 100, 100), f(4, 100, 100)) is None
    assert blas_batch.matmul(f(4, 1, 2000), f(4, 2000, 600)) is None
    assert blas_batch.matmul(f(1, 200, 200), f(1, 200, 200)) is None
    assert blas_batch.matmul(np.ones((3, 200, 200), np.int64),
                             np.ones((3, 200, 200), np.int64)) is None
    assert blas_batch.matmul(f(3, 200, 200), f(1, 200, 200)) is None
    assert blas_batch.matmul(f(3, 200, 200)[:, ::-1], f(3, 200, 200)) is None
