"""The compiled random fills of the `jit` extra (jit_philox.py), loaded on a
background thread as the other compiled kernels are (ops/kernels/jit_kernels.py).

distributions.py asks `fills(n)` for a request of n values: the table of
compiled fills once they are loaded and n >= MIN_ELEMENTS, else None, and
then runs its NumPy code, which gives the same bits. The first large
request starts the load (a second or two of Numba, more for the first
compile after install), so no call waits for it; RILLFLOW_JIT=0 turns it
off. Its own thread and table: the loader in jit_kernels.py is shared with
other kernel families, and ops/kernels may not import ops/random.
"""
import numpy as np

from ..kernels import jit_kernels as _jk

# Small requests stay on the NumPy code: they cost microseconds there, and
# would only start a second of compiling.
MIN_ELEMENTS = _jk.MIN_ELEMENTS


def fills(n):
    """The compiled fills (jit_philox.KERNELS) for a request of `n` values,
    or None (small request, not loaded yet, jit extra absent or off)."""
    if n < MIN_ELEMENTS:
        return None
    k = LOAD.get(n)
    return k if k is not None and _jk.available() else None


def status():
    """"on", "loading", or why the compiled random fills are off."""
    if not _jk.available():
        return _jk.status() if _jk.status().startswith("off") else "off"
    return LOAD.status()


def wait(timeout=None):
    """Starts loading the compiled fills (unless off), waits for them, and
    returns status()."""
    return LOAD.wait(timeout) if _jk.available() else status()


def _load():
    from . import jit_philox
    k = jit_philox.KERNELS
    a, b, c, d = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    # Compiles each once (or loads it from Numba's disk cache).
    k["uniform_low_bits"](a, b, c, d, 7, np.empty(5, np.float32))
    k["words_mod32"](a, b, c, d, np.uint64(7), np.uint64(1), np.empty(5, np.uint32))
    k["words_mod64"](a, b, c, d, np.uint64(7), np.uint64(1), np.empty(5, np.uint64))
    for name, dt in (("uniform_f32", np.float32), ("uniform_f64", np.float64),
                     ("normal_f32", np.float32), ("normal_f64", np.float64),
                     ("truncated_f32", np.float32), ("truncated_f64", np.float64)):
        k[name](a, b, c, d, np.empty(5, dt))
    return dict(k)


LOAD = _jk.BackgroundLoad("rillflow-jit-load-random", _load, "the random fills")
