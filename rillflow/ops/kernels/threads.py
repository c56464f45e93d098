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
own. `run_blas_chunks` does the same in the default mode for kernels whose
chunks are GEMMs too small for OpenBLAS's own two threads (the Winograd
convolutions): OpenBLAS is held to one thread while they run, and its idle
threads, which spin for a while after each multithreaded call, are
stopped first when nothing else can be using them (two OpenBLAS calls at
once with its threads on fought over the cores: a convolution took 3.3 ms
instead of 1.7 ms).
"""
import concurrent.futures
import os
import threading

from ...framework import blas_threads

__all__ = ["cores", "executor", "run_parts", "run_chunks", "run_blas_chunks", "spreading",
           "SPREADING"]

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
    if not spreading():
        return [fn(k) for k in range(n)]
    return _spread(fn, n)


def _spread(fn, n):
    """run_chunks' spreading (whatever `spreading()` says)."""
    if n < 2 or cores() < 2 or not _spreading.acquire(blocking=False):
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


def alone():
    """Whether no Python thread but this one and the pool's workers is
    alive, and no kernel is spread over the workers (they run only what this
    module hands them): then nothing else in the process can be inside
    OpenBLAS while this thread holds the GIL."""
    if _spreading.locked():
        return False
    n = threading.active_count()
    if n == 1:
        return True
    pool = _pool[0]
    workers = len(getattr(pool, "_threads", ())) if pool is not None else 0
    return n <= 1 + workers and all(
        t is threading.current_thread() or t.name.startswith("rillflow-kernel")
        for t in threading.enumerate())


def run_blas_chunks(fn, n):
    """`run_chunks` for chunks that call OpenBLAS (the Winograd
    convolutions' GEMMs): each chunk's GEMMs run on one OpenBLAS thread,
    whatever the mode, so their bits do not depend on how the chunks were
    spread. With RILLFLOW_BLAS_THREADS=kernels that is OpenBLAS's setting
    already; otherwise OpenBLAS is held to one thread while the chunks run
    (blas_threads.single_thread_begin) and they spread over this thread
    and the pool's, with OpenBLAS's idle threads stopped when no other
    thread could be using it (`alone`). Products of (tiles, 64) x (64, 64)
    or (64, tiles) x (tiles, 64) gain little from OpenBLAS's two threads
    (88-125 GFLOP/s against 100 for one, measured on two cores), and two
    of them at once, one per core, nearly double that: ResNet block step
    30 -> 23 ms, CNN step 10.0 -> 9.5 ms (model_bench, two-core Sapphire
    Rapids VM). Where NumPy's BLAS is not an OpenBLAS, the chunks run in
    order on this thread."""
    if SPREADING:
        return run_chunks(fn, n)
    if not blas_threads.single_thread_begin(stop_idle=n > 1 and cores() > 1 and alone()):
        return [fn(k) for k in range(n)]
    try:
        return _spread(fn, n)
    finally:
        blas_threads.single_thread_end()
