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


def _openblas():
    from rillflow.framework import blas_threads
    return blas_threads._openblas() if blas_threads._openblas() else None


@pytest.mark.skipif(_openblas() is None, reason="NumPy's BLAS is not an OpenBLAS with set/get")
@pytest.mark.parametrize("alone", [True, False])
def test_blas_chunks_hold_openblas_to_one_thread_and_give_the_count_back(monkeypatch, alone):
    import threading
    _, _, getter = _openblas()
    default = getter()
    monkeypatch.setattr(threads, "alone", lambda: alone)
    seen = []

    def chunk(k):
        # A chunk's own blas chunks run in order, still held.
        inner = threads.run_blas_chunks(lambda j: getter(), 2)
        seen.append((threading.get_ident(), getter(), tuple(inner)))
        a = np.full((200, 300), 0.5, np.float64)
        return float((a @ a.T)[k % 200, 7])
    assert threads.run_blas_chunks(chunk, 6) == [75.0] * 6
    assert {s[1:] for s in seen} == {(1, (1, 1))}
    assert getter() == default
    # OpenBLAS's own threads work again afterwards (stopped when alone).
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 400))
    b = rng.standard_normal((400, 200))
    np.testing.assert_allclose(a @ b, np.einsum("ij,jk->ik", a, b), rtol=1e-10, atol=1e-10)


@pytest.mark.skipif(_openblas() is None, reason="NumPy's BLAS is not an OpenBLAS with set/get")
def test_single_thread_holds_nest_across_threads():
    import threading
    from rillflow.framework import blas_threads
    _, _, getter = _openblas()
    default = getter()
    assert blas_threads.single_thread_begin()
    other = []
    t = threading.Thread(target=lambda: other.append(
        (blas_threads.single_thread_begin(), getter(), blas_threads.single_thread_end())))
    t.start()
    t.join()
    assert other == [(True, 1, None)]
    assert getter() == 1                  # the first hold still runs
    blas_threads.single_thread_end()
    assert getter() == default


def test_alone_sees_another_python_thread():
    import threading
    release = threading.Event()
    t = threading.Thread(target=release.wait)
    t.start()
    try:
        assert not threads.alone()
    finally:
        release.set()
        t.join()


def test_winograd_bits_do_not_depend_on_other_threads(monkeypatch):
    """Alone, the chunks spread with OpenBLAS's idle threads stopped; beside
    another thread, they spread with them running; with the kernels mode's
    setting, through run_chunks: one-thread GEMMs each time, the same bits."""
    from rillflow.ops.nn import conv_geometry, winograd
    rng = np.random.default_rng(11)
    x = rng.standard_normal((8, 16, 14, 32)).astype(np.float32)
    f = (rng.standard_normal((3, 3, 32, 48)) / 17).astype(np.float32)
    geo = conv_geometry.geometry(x.shape, (3, 3), [1] * 4, [1] * 4, "SAME", ())
    dy = rng.standard_normal((8, 16, 14, 48)).astype(np.float32)
    monkeypatch.setattr(winograd, "CHUNK_BYTES", 1 << 14)

    def run():
        return (winograd.conv(x, f, geo), winograd.backprop_input(x.shape, f, dy, geo),
                winograd.backprop_filter(x, dy, geo))
    monkeypatch.setattr(threads, "alone", lambda: True)
    first = run()
    monkeypatch.setattr(threads, "alone", lambda: False)
    second = run()
    monkeypatch.setattr(threads, "SPREADING", True)
    third = run()
    for a, b, c in zip(first, second, third):
        np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))
        np.testing.assert_array_equal(a.view(np.int32), c.view(np.int32))
