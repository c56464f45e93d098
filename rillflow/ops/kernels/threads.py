"""The worker threads that kernels releasing the GIL share.

NumPy's loops and the jit extra's compiled kernels (nogil) run outside the
GIL, so a large kernel can split its work over the CPU's cores with plain
threads: the compiler's fused elementwise chains (compiler/fusion.py) and
the row kernels of the softmax family (jit_softmax.py) do. One pool serves
them all, with one thread fewer than the cores: the calling thread takes
the first part itself.

`run_chunks` spreads a kernel cut into chunks (the Winograd convolutions'
images, a large GEMM's rows) over the same threads when
RILLFLOW_BLAS_THREADS=kernels has OpenBLAS run one thread per call
(framework/blas_threads.kernel_threads): each thread's GEMMs are then its
own. With OpenBLAS's threads on, two OpenBLAS calls at once fought over the
cores (a convolution took 3.3 ms instead of 1.7 ms), and holding OpenBLAS to
one thread only while a kernel's chunks run made the model steps slower:
its threads, woken by the products between, spin on the cores.
"""
import concurrent.futures
import os
import threading

from ...framework import blas_threads

__all__ = ["cores", "executor", "run_parts", "run_chunks", "spreading", "SPREADING"]

_pool = [None]
_lock = threading.Lock()
# Held while run_chunks spreads a kernel: a second one at the same time (a
# chunk's own kernels, another thread's) runs its chunks itself.
_spreading = threading.Lock()


# Read once: os.cpu_count() reads /sys on every call (~5 us, more than a
# small softmax's whole kernel).
_CORES = os.cpu_count() or 1


def cores():
    """How many parts a kernel splits its work into."""
    return _CORES


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
    if len(spans) < 2:
        if spans:
            fn(*spans[0])
        return
    futures = [executor().submit(fn, lo, hi) for lo, hi in spans[1:]]
    try:
        fn(*spans[0])
    finally:
        concurrent.futures.wait(futures)   # never leave workers writing after a failure
    for f in futures:
        f.result()


# Whether run_chunks spreads chunks over threads: RILLFLOW_BLAS_THREADS=kernels
# (read when rillflow is imported) on a machine of two or more cores. A
# constant, so that the products' hot path (xla_gemm.matmul) reads one name.
SPREADING = blas_threads.kernel_threads() and cores() > 1


def spreading():
    """`SPREADING`: whether run_chunks spreads chunks over threads."""
    return SPREADING


def run_chunks(fn, n):
    """[fn(0), ..., fn(n - 1)]: with `spreading()`, the chunks spread over
    this thread and the pool's workers (each takes the next chunk when done
    with one, so a worker that the machine's other work slows takes fewer).
    In order on this thread otherwise, for one chunk, or while another call
    spreads its chunks.
    A failing chunk's exception is raised (the first by chunk order) once
    no worker runs any more."""
    if n < 2 or not spreading() or not _spreading.acquire(blocking=False):
        return [fn(k) for k in range(n)]
    try:
        results = [None] * n
        errors = {}
        taken = iter(range(n))
        take = threading.Lock()           # hands each chunk to one thread

        def work():
            while True:
                with take:
                    k = next(taken, None)
                if k is None:
                    return
                try:
                    results[k] = fn(k)
                except BaseException as e:     # noqa: B036  (re-raised below)
                    errors[k] = e
        futures = [executor().submit(work) for _ in range(min(n, cores()) - 1)]
        try:
            work()
        finally:
            concurrent.futures.wait(futures)
        if errors:
            raise errors[min(errors)]
        return results
    finally:
        _spreading.release()
