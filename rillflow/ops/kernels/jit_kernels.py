"""Compiled kernels from the optional `jit` extra (`pip install rillflow[jit]`,
which brings Numba).

TensorFlow's tanh, exp, log, sigmoid, ... are approximations of a few dozen
dependent float operations (tanh_kernel.py, exp_log.py, erf.py,
x86_estimates.py). In NumPy each is a ufunc call over the whole array, with
~0.6 us of overhead and a pass through memory, so the exact kernels cost
several times NumPy's own `np.exp`. Compiled, the same operations in the
same order (no fused multiply-add, no fast-math reassociation) give the
same bits in one loop, as fast as NumPy's routines or faster
(jit_tanh.py, jit_exp_log.py, jit_softmax.py, jit_erf.py).

Compiled graphs bind `tanh()` (compiler/specialize.py); the other kernels
are the ops' own kernels (`exp_kernel`, ... below, registered by
ops/core/), so eager calls and graphs use them alike, and the softmax
family passes `softmax_ops()` to softmax_kernel. Importing Numba and
loading the kernels takes a second or two even from Numba's disk cache
(much longer for the first compile after install), so it happens on a
background thread, started by the first tensor of at least MIN_ELEMENTS
elements; until it is done the NumPy kernels run, with the same bits, and
a first call never waits. Once loaded, the compiled kernels serve tensors
of any size (a call costs well under a microsecond). Set RILLFLOW_JIT=0 to
turn them off; `status()` says whether they are on, loading, or why they
are off.
"""
import atexit
import importlib.util
import os
import threading

import numpy as np

from . import erf as _erf
from . import exp_log as _el
from . import softmax_kernel as _sk
from . import tanh_kernel as _tk
from . import x86_estimates as _x86

# Graphs use the kernels for tensors of at least this many elements (or of
# unknown size): loading Numba costs a second of CPU, which a script that
# takes the tanh of a few numbers would only wait for.
MIN_ELEMENTS = 1024

_F32 = np.dtype(np.float32)
_lock = threading.Lock()
_kernels = None      # (name, dtype) -> compiled kernel, once loaded
_softmax = None      # jit_softmax.ops(), once loaded
_loader = []         # the loading thread, once started
_why_off = []
_found = []          # whether numba is installed, once looked up


def available():
    """Whether the jit extra is installed and not turned off (imports nothing)."""
    if os.environ.get("RILLFLOW_JIT", "1").strip() == "0":
        return False
    if not _found:   # find_spec walks sys.path: once is enough
        try:
            _found.append(importlib.util.find_spec("numba") is not None)
        except (ImportError, ValueError):
            _found.append(False)
    return _found[0]


def status():
    """"on", "loading", or why the compiled kernels are off."""
    if _kernels is not None:
        return "on"
    if not available():
        return ("off: RILLFLOW_JIT=0" if os.environ.get("RILLFLOW_JIT", "1").strip() == "0"
                else "off: numba is not installed (pip install rillflow[jit])")
    if _why_off:
        return _why_off[-1]
    return "loading" if _loader and _loader[0].is_alive() else "not loaded yet"


def wait(timeout=None, start=True):
    """Waits until the kernels are loaded (or failed to load), first starting
    the load unless `start` is False (then only a load already under way is
    waited for); returns status()."""
    if available():
        if start:
            _start()
        if _loader:
            _loader[0].join(timeout)
    return status()


def tanh():
    """A function `f(x)` computing TensorFlow's tanh of an array or NumPy
    scalar with the bits of tanh_kernel.tanh_kernel, compiled for float32 and
    float64 once loaded; None when the jit extra is absent or turned off."""
    if not available():
        return None
    _start()
    return _tanh


def _tanh(x):
    kernel = None if _kernels is None else _kernels.get(("tanh", x.dtype))
    if kernel is None:
        return _tk.tanh_kernel(x)
    return _run(kernel, x)


def _run(kernel, x):
    a = np.asarray(x, order="C")
    out = np.empty(a.shape, a.dtype)
    kernel(a.reshape(-1), out.reshape(-1))
    return out if out.ndim or isinstance(x, np.ndarray) else out[()]


def accelerated(name, numpy_kernel):
    """The kernel `f(x)` for elementwise op `name`: the compiled kernel for
    float32 once loaded, else `numpy_kernel` (same bits); a float32 tensor
    of at least MIN_ELEMENTS elements starts the loading."""
    key = (name, _F32)

    def kernel(x):
        if x.dtype == _F32:
            ks = _kernels
            if ks is not None:
                k = ks.get(key)
                if k is not None:
                    return _run(k, x)
            elif x.size >= MIN_ELEMENTS and not _loader and available():
                _start()
        return numpy_kernel(x)
    kernel.__name__ = numpy_kernel.__name__ if hasattr(numpy_kernel, "__name__") else name
    kernel.__doc__ = "%s, compiled when the jit extra is loaded." % name
    return kernel


exp_kernel = accelerated("exp", _el.exp_kernel)
log_kernel = accelerated("log", _el.log_kernel)
expm1_kernel = accelerated("expm1", _el.expm1_kernel)
log1p_kernel = accelerated("log1p", _el.log1p_kernel)
sigmoid_kernel = accelerated("sigmoid", _el.sigmoid_kernel)
softplus_kernel = accelerated("softplus", _el.softplus_kernel)
rsqrt_kernel = accelerated("rsqrt", _x86.rsqrt_kernel)


def erf_kernel(fallback):
    """erf.erf_kernel with `fallback` for other dtypes, compiled for float32."""
    return accelerated("erf", lambda x: _erf.erf_kernel(x, fallback))


def erfc_kernel(fallback):
    """erf.erfc_kernel with `fallback` for other dtypes, compiled for float32."""
    return accelerated("erfc", lambda x: _erf.erfc_kernel(x, fallback))


def softmax_ops(size):
    """The primitives for softmax_kernel's functions (their `k`) for a
    float32 tensor of `size` elements: compiled once loaded, else
    softmax_kernel.NUMPY_OPS (same bits); a large tensor starts the load."""
    if _softmax is not None:
        return _softmax
    if size >= MIN_ELEMENTS and not _loader and available():
        _start()
    return _sk.NUMPY_OPS


def _start():
    if _loader:
        return
    with _lock:
        if not _loader:
            t = threading.Thread(target=_load, name="rillflow-jit-load", daemon=True)
            _loader.append(t)
            t.start()
            # A short script may end while Numba is still loading: let the
            # load finish before the interpreter (and LLVM) shut down.
            atexit.register(t.join)


def _load():
    global _kernels, _softmax
    try:
        from . import jit_erf, jit_exp_log, jit_softmax, jit_tanh
        f64 = np.dtype(np.float64)
        kernels = {("tanh", _F32): jit_tanh.tanh_f32, ("tanh", f64): jit_tanh.tanh_f64}
        for name, k in {**jit_exp_log.KERNELS, **jit_erf.KERNELS}.items():
            kernels[(name, _F32)] = k
        for (_, dt), k in kernels.items():   # compiles, or loads from the disk cache
            k(np.zeros(9, dt), np.empty(9, dt))
        softmax = jit_softmax.ops()
        softmax["sum_exp"](np.zeros((2, 9), np.float32))
        softmax["row_sums"](np.zeros((1, 2 * _sk._LEAF + 9), np.float32))
        softmax["log_scalar"](np.zeros(2, np.float32))
    except Exception as e:   # refuses this NumPy version, cannot compile, ...
        _why_off.append("off: numba could not load the kernels (%s: %s)"
                        % (type(e).__name__, e))
        return
    _softmax = softmax      # before _kernels: status() "on" means all are there
    _kernels = kernels
