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
