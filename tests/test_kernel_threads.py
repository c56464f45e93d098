"""ops/kernels/threads.py and the row kernels that split their rows over it
(jit_softmax.py): split or not, the same bits."""
import numpy as np
import pytest

from rillflow.ops.kernels import jit_kernels, threads

pytest.importorskip("numba")


def test_run_parts_runs_every_span_and_reraises():
    seen = []
    threads.run_parts(lambda lo, hi: seen.append((lo, hi)), [0, 3, 3, 7, 10])
    assert sorted(seen) == [(0, 3), (3, 7), (7, 10)]

    def fail(lo, hi):
        if lo:
            raise ValueError("part %d" % lo)
    with pytest.raises(ValueError, match="part 5"):
        threads.run_parts(fail, [0, 5, 9])


@pytest.mark.parametrize("rows, n", [(1120, 1000), (1301, 1003), (3999, 333), (137, 7777),
                                     (1513, 1001)])
def test_row_kernels_split_over_threads_give_the_same_bits(monkeypatch, rows, n):
    if not jit_kernels.available():
        pytest.skip("RILLFLOW_JIT=0")
    jit_kernels.wait()
    from rillflow.ops.kernels import jit_softmax
    rng = np.random.default_rng(rows)
    x = (rng.standard_normal((rows, n)) * 20).astype(np.float32)
    x[0, :2] = [-1e30, 88]
    labels = rng.integers(0, n, rows)
    ops = jit_softmax.ops()

    def run():
        loss, back = ops["sparse_xent"](labels, x)
        return [loss, back, ops["softmax"](x), ops["log_softmax"](x)]
    monkeypatch.setattr(threads, "cores", lambda: 1)
    whole = run()
    monkeypatch.setattr(threads, "cores", lambda: 3)
    assert len(jit_softmax._row_bounds(rows, n)) == 4    # really split
    for a, b in zip(whole, run()):
        np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


def test_run_chunks_returns_results_in_order_and_reraises_the_first_failure(monkeypatch):
    import threading
    monkeypatch.setattr(threads, "SPREADING", True)
    where = set()

    def square(k):
        where.add(threading.get_ident())
        return k * k
    assert threads.run_chunks(square, 40) == [k * k for k in range(40)]
    assert threads.run_chunks(square, 1) == [0]
    assert threads.run_chunks(square, 0) == []

    def fail(k):
        if k in (5, 9):
            raise ValueError("chunk %d" % k)
        return k
    with pytest.raises(ValueError, match="chunk 5"):
        threads.run_chunks(fail, 12)
    # A chunk's own run_chunks runs in order on its thread (no second spread).
    inner = threads.run_chunks(lambda k: threads.run_chunks(lambda j: (k, j), 3), 4)
    assert inner == [[(k, j) for j in range(3)] for k in range(4)]


def test_run_chunks_runs_in_order_when_not_spreading(monkeypatch):
    monkeypatch.setattr(threads, "SPREADING", False)
    seen = []
    assert threads.run_chunks(lambda k: seen.append(k) or -k, 5) == [0, -1, -2, -3, -4]
    assert seen == [0, 1, 2, 3, 4]


def test_winograd_chunks_spread_over_threads_give_the_same_bits(monkeypatch):
    from rillflow.ops.nn import conv_geometry, winograd
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 12, 10, 16)).astype(np.float32)
    f = (rng.standard_normal((3, 3, 16, 24)) / 12).astype(np.float32)
    geo = conv_geometry.geometry(x.shape, (3, 3), [1] * 4, [1] * 4, "SAME", ())
    dy = rng.standard_normal((6, 12, 10, 24)).astype(np.float32)
    monkeypatch.setattr(winograd, "CHUNK_BYTES", 1)          # one image per chunk

    def run():
        return (winograd.conv(x, f, geo), winograd.backprop_input(x.shape, f, dy, geo),
                winograd.backprop_filter(x, dy, geo))
    monkeypatch.setattr(threads, "SPREADING", False)
    alone = run()
    monkeypatch.setattr(threads, "SPREADING", True)
    for a, b in zip(alone, run()):
        np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))
    # An inf in a chunk that a worker may take: the layer is handed to the
    # direct path (None) as it is when the chunks run in order.
    x[4, 3, 3, 5] = np.inf
    dy[5, 0, 0, 1] = np.nan
    assert run() == (None, None, None)


@pytest.mark.parametrize("a_shape, b_shape, dtype", [
    ((300, 70), (70, 120), np.float32),          # more rows than columns: rows cut
    ((20, 300), (300, 700), np.float32),         # columns cut
    ((5, 64, 40), (5, 40, 90), np.float64),      # batch cut
    ((3, 2, 50, 60), (3, 2, 60, 70), np.float32),
    ((1, 90, 80), (1, 80, 100), np.complex64),   # a batch of one: rows cut
])
def test_large_products_cut_over_threads_match_one_product(monkeypatch, a_shape, b_shape,
                                                           dtype):
    from rillflow.ops.kernels import xla_gemm
    rng = np.random.default_rng(len(a_shape))
    a = rng.standard_normal(a_shape).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(a_shape).astype(dtype)
    monkeypatch.setattr(threads, "SPREADING", True)
    monkeypatch.setattr(xla_gemm, "SPREAD_WORK", 1)
    calls = []
    real = threads.run_chunks
    monkeypatch.setattr(threads, "run_chunks", lambda fn, n: calls.append(n) or real(fn, n))
    got = xla_gemm.matmul(a, b)
    assert calls, "the product was not cut"
    assert got.shape == (a @ b).shape and got.dtype == (a @ b).dtype
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got, a @ b, rtol=tol, atol=tol * 10)
