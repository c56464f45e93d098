"""Compiled kernels from the optional `jit` extra (`pip install rillflow[jit]`,
which brings Numba).

TensorFlow's tanh is a rational approximation, twenty dependent float
operations (tanh_kernel.py). In NumPy each is a ufunc call with ~0.6 us of
overhead, so on the small arrays of a recurrent cell the exact kernel costs
twice NumPy's own `np.tanh`. Compiled, the same operations in the same order
(no fused multiply-add, no fast-math reassociation) give the same bits in one
call, several times faster than either.

Only compiled graphs use these kernels (compiler/specialize.py): importing
Numba costs ~0.4 s and a first compile ~1 s (cached on disk afterwards), a
price paid once per process when a tf.function is compiled, never by an
eager op. Set RILLFLOW_JIT=0 to turn them off; `status()` says why they are
off when they are.
"""
import os
import threading

import numpy as np

from . import tanh_kernel as _tk

_lock = threading.Lock()
_loaded = {}   # name -> callable, or None when unavailable
_why_off = []


def status():
    """`"on"`, or why the compiled kernels are not used."""
    tanh()
    return "on" if _loaded.get("tanh") is not None else _why_off[-1]


def tanh():
    """A function `f(x)` computing TensorFlow's tanh of a float32 or float64
    array or NumPy scalar (the bits of tanh_kernel.tanh_kernel), or None when
    the jit extra is absent or turned off."""
    try:
        return _loaded["tanh"]
    except KeyError:
        pass
    with _lock:
        if "tanh" not in _loaded:
            _loaded["tanh"] = _load_tanh()
    return _loaded["tanh"]


def _numba():
    if os.environ.get("RILLFLOW_JIT", "1").strip() == "0":
        _why_off.append("off: RILLFLOW_JIT=0")
        return None
    try:
        import numba
    except Exception as e:   # absent, or refusing this NumPy version
        _why_off.append("off: numba is not importable (%s: %s)" % (type(e).__name__, e))
        return None
    return numba


def _load_tanh():
    if _numba() is None:
        return None
    try:
        from . import jit_tanh
        kernels = {np.dtype(np.float32): jit_tanh.tanh_f32,
                   np.dtype(np.float64): jit_tanh.tanh_f64}
        # Compiled (or loaded from the disk cache) now, while the graph
        # compiles, not in the middle of its first run.
        for dt, k in kernels.items():
            k(np.zeros(1, dt), np.empty(1, dt))
    except Exception as e:
        _why_off.append("off: numba could not compile the kernels (%s: %s)"
                        % (type(e).__name__, e))
        return None
    fallback = _tk.tanh_kernel

    def tanh(x):
        kernel = kernels.get(x.dtype)
        if kernel is None:
            return fallback(x)
        a = np.asarray(x, order="C")
        out = np.empty(a.shape, a.dtype)
        kernel(a.reshape(-1), out.reshape(-1))
        return out if out.ndim or isinstance(x, np.ndarray) else out[()]
    tanh.__doc__ = "TensorFlow's tanh, compiled by Numba (see rillflow.ops.jit_kernels)."
    return tanh
