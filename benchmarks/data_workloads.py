"""tf.data benchmark workloads: a `map` + `batch` pipeline over a million
elements, rillflow versus the same pipeline as a plain Python generator.

Each function returns callables running the whole pipeline end to end
(`eager`: rillflow's tf.data, `numpy`: plain Python generators and NumPy),
plus `check()` asserting that both produce the same batches.
"""
import numpy as np

import rillflow as tf
import rillflow.data  # noqa: F401  (tf.data, until rillflow/__init__ imports it)

N = 1_000_000
BATCH = 1024


def _python_map_batch(source, fn, batch):
    """`source` -> map(fn) -> batch(batch), as plain Python generators."""
    buf = []
    for x in source:
        buf.append(fn(x))
        if len(buf) == batch:
            yield np.array(buf)
            buf = []
    if buf:
        yield np.array(buf)


def _drain(batches):
    n = 0
    for b in batches:
        n += len(b)
    return n


def _count(ds):
    """The number of elements in a dataset of batches (rillflow's or TF's)."""
    return sum(b.shape[0] for b in ds)


def map_batch_1m():
    """range(1M) -> map(x + 1) -> batch(1024), consumed to the end."""
    ds = tf.data.Dataset.range(N).map(lambda x: x + 1).batch(BATCH)

    def eager():
        return _count(ds)

    def numpy():
        return _drain(_python_map_batch(range(N), lambda x: x + 1, BATCH))

    def check():
        got = [b.numpy() for b in ds.take(3)]
        want = [b for _, b in zip(range(3), _python_map_batch(range(N), lambda x: x + 1,
                                                                 BATCH))]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        assert eager() == numpy() == N
    return {"eager": eager, "numpy": numpy, "check": check}


def map_batch_1m_tf(tf_ref):
    """The same pipeline in TensorFlow (for --compare-tensorflow)."""
    ds = tf_ref.data.Dataset.range(N).map(lambda x: x + 1).batch(BATCH)

    return lambda: _count(ds)


def generator_map_batch_100k():
    """A Python generator of 100k ints -> map(x * 2, not vectorizable through
    the generator) -> batch(1024): the element-by-element path."""
    n = 100_000
    ds = tf.data.Dataset.from_generator(lambda: iter(range(n)),
                                        output_signature=tf.TensorSpec([], tf.int64))
    ds = ds.map(lambda x: x * 2).batch(BATCH)

    def eager():
        return _count(ds)

    def numpy():
        return _drain(_python_map_batch(range(n), lambda x: x * 2, BATCH))

    def check():
        first = next(iter(ds)).numpy()
        np.testing.assert_array_equal(first, np.arange(BATCH) * 2)
        assert eager() == numpy() == n
    return {"eager": eager, "numpy": numpy, "check": check}


if __name__ == "__main__":
    import timeit
    for build in (map_batch_1m, generator_map_batch_100k):
        fns = build()
        fns["check"]()
        for kind in ("eager", "numpy"):
            t = min(timeit.repeat(fns[kind], number=1, repeat=3))
            print("%-26s %-6s %.3f s" % (build.__name__, kind, t))
