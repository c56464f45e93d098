"""Compiled loops of the `jit` extra (Numba) for the layer kernels whose
NumPy versions make several passes over memory: float32 max and average
pooling and their gradients (pool_kernels.py has the NumPy code and the
rules they follow, which these loops follow too, element by element).

The loops load on a background thread, as the other compiled kernels do
(ops/kernels/jit_kernels.py): the first large request starts the load, and
until it is done the NumPy code runs, with the same bits. RILLFLOW_JIT=0
turns them off.
"""
import atexit
import threading

import numpy as np

from ..kernels import jit_kernels as _jk

MIN_ELEMENTS = _jk.MIN_ELEMENTS

_loops = None
_loader = []
_why_off = []
_lock = threading.Lock()


def loops(size):
    """The compiled loops (a dict by name) for a tensor of `size` elements,
    or None (small, not loaded yet, jit extra absent or off)."""
    if _loops is not None:
        return _loops
    if size >= MIN_ELEMENTS and not _loader and _jk.available():
        with _lock:
            if not _loader:
                t = threading.Thread(target=_load, name="rillflow-jit-load-nn", daemon=True)
                _loader.append(t)
                t.start()
                atexit.register(t.join)
    return None


def status():
    """"on", "loading", or why the compiled layer loops are off."""
    if _loops is not None:
        return "on"
    if not _jk.available():
        return _jk.status()
    if _why_off:
        return _why_off[-1]
    return "loading" if _loader and _loader[0].is_alive() else "not loaded yet"


def wait(timeout=None):
    """Starts loading the loops (unless off), waits for them, returns status()."""
    loops(MIN_ELEMENTS)
    if _loader:
        _loader[0].join(timeout)
    return status()


def _load():
    global _loops
    try:
        from . import jit_nn_loops as L
        x = np.zeros((1, 3, 3, 2), np.float32)
        y = np.zeros((1, 1, 1, 2), np.float32)
        L.max_pool(x, y, 2, 2, 1, 1, 0, 0)
        L.max_pool_grad(x, y, x.copy(), 2, 2, 1, 1, 0, 0)
        L.avg_pool(x, y, 2, 2, 1, 1, 0, 0)
        L.avg_pool_grad(y, x.copy(), 2, 2, 1, 1, 0, 0)
    except Exception as e:   # cannot compile, refuses this NumPy version, ...
        _why_off.append("off: numba could not load the layer loops (%s: %s)"
                        % (type(e).__name__, e))
        return
    _loops = {"max_pool": L.max_pool, "max_pool_grad": L.max_pool_grad,
              "avg_pool": L.avg_pool, "avg_pool_grad": L.avg_pool_grad}
