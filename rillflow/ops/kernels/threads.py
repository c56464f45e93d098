"""The worker threads that kernels releasing the GIL share.

NumPy's loops and the jit extra's compiled kernels (nogil) run outside the
GIL, so a large kernel can split its work over the CPU's cores with plain
threads: the compiler's fused elementwise chains (compiler/fusion.py) and
the row kernels of the softmax family (jit_softmax.py) do. One pool serves
them all, with one thread fewer than the cores: the calling thread takes
the first part itself.
"""
import concurrent.futures
import os
import threading

__all__ = ["cores", "executor", "run_parts"]

_pool = [None]
_lock = threading.Lock()


def cores():
    """How many parts a kernel splits its work into."""
    return os.cpu_count() or 1


def executor():
    """The shared ThreadPoolExecutor (made on first use)."""
    if _pool[0] is None:
        with _lock:
            if _pool[0] is None:
                _pool[0] = concurrent.futures.ThreadPoolExecutor(
                    max_workers=max(1, cores() - 1), thread_name_prefix="rillflow-kernel")
    return _pool[0]


def run_parts(fn, bounds):
    """Calls fn(lo, hi) for each consecutive pair of `bounds` (ascending
    integers), the first on this thread and the others on the pool, and
    returns when all are done (re-raising the first failure)."""
    spans = [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    if not spans:
        return
    futures = [executor().submit(fn, lo, hi) for lo, hi in spans[1:]]
    try:
        fn(*spans[0])
    finally:
        concurrent.futures.wait(futures)   # never leave workers writing after a failure
    for f in futures:
        f.result()
