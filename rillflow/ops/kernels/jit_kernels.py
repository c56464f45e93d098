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
elements (or by any, once another family of compiled kernels is loading:
`_numba_started`); until it is done the NumPy kernels run, with the same bits. The
call that starts a load waits for it up to FIRST_WAIT seconds (from Numba's
disk cache a load takes about half a second): otherwise the calls that follow
share the interpreter with the loading thread and run many times slower
until it is done, which is what a user timing a warmed-up step would see. A
first compile after install takes longer than FIRST_WAIT; the NumPy kernels
run meanwhile. Once loaded, the compiled kernels serve tensors
of any size (a call costs well under a microsecond). Set RILLFLOW_JIT=0 to
turn them off; `status()` says whether they are on, loading, or why they
are off.
"""
import atexit
import math
import importlib.util
import os
import threading

import numpy as np

from . import erf as _erf
from . import exp_log_f64 as _f64
from . import glibc_scalar as _glibc_scalar
from . import pow_f64 as _pow_f64
from . import exp_log as _el
from . import softmax_kernel as _sk
from . import tanh_kernel as _tk
from . import x86_estimates as _x86

# Graphs use the kernels for tensors of at least this many elements (or of
# unknown size): loading Numba costs a second of CPU, which a script that
# takes the tanh of a few numbers would only wait for.
MIN_ELEMENTS = 1024

# How long the call that starts a load waits for it (seconds).
FIRST_WAIT = 5.0

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_lock = threading.Lock()
_kernels = None      # (name, dtype) -> compiled kernel, once loaded
_softmax = None      # jit_softmax.ops(), once loaded
_loader = []         # the loading thread, once started
_why_off = []
_found = []          # whether numba is installed, once looked up
# Non-empty once another family of compiled kernels (a BackgroundLoad: the
# layer loops, ...; the trig loops) started loading: the process already pays
# for Numba (so available() held), and a small tensor then starts this
# family's load too, without waiting for it (a CNN's (32, 10) logits: the
# NumPy sparse cross entropy took 0.17 ms of a 5 ms step, the compiled one
# 0.03 ms). A small tensor alone never loads Numba.
_numba_started = []


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


class BackgroundLoad:
    """One family's compiled kernels, loaded once on a daemon thread named
    `thread_name` (the first large request starts it; until it is done the
    family's NumPy code runs, with the same bits, so no call waits).
    `load()` compiles (or loads from Numba's disk cache) and returns the
    kernels; an exception turns the family off, `status()` says why."""

    def __init__(self, thread_name, load, what):
        self._thread_name, self._load, self._what = thread_name, load, what
        self.value = None       # load()'s result, once loaded
        self._thread = None
        self._why_off = None
        self._lock = threading.Lock()

    def start(self, first_wait=0.0):
        """Starts the load unless it started already or the extra is off; the
        caller that starts it waits up to `first_wait` seconds for it."""
        if self._thread is not None or not available():
            return
        with self._lock:
            if self._thread is not None:
                return
            t = threading.Thread(target=self._run, name=self._thread_name, daemon=True)
            self._thread = t
            _numba_started.append(self._thread_name)
            t.start()
            # A short script may end while Numba is still loading: let
            # the load finish before the interpreter (and LLVM) shut down.
            atexit.register(t.join)
        if first_wait:
            t.join(first_wait)

    def get(self, size):
        """The kernels for a tensor of `size` elements, or None (not loaded
        yet, extra absent or off); a large tensor starts the load."""
        if self.value is not None:
            return self.value
        if size >= MIN_ELEMENTS:
            self.start(FIRST_WAIT)
            return self.value
        return None

    def wait(self, timeout=None):
        """Starts the load (unless off), waits for it, returns status()."""
        self.start()
        if self._thread is not None:
            self._thread.join(timeout)
        return self.status()

    def status(self):
        """"on", "loading", or why these kernels are off."""
        if not available():
            return status()
        if self.value is not None:
            return "on"
        if self._why_off:
            return self._why_off
        return "loading" if self._thread is not None and self._thread.is_alive() \
            else "not loaded yet"

    def _run(self):
        try:
            self.value = self._load()
        except Exception as e:   # cannot compile, refuses this NumPy version, ...
            self._why_off = "off: numba could not load %s (%s: %s)" % (
                self._what, type(e).__name__, e)


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
    if x.dtype == _F64:
        return _f64.run_compiled("tanh", kernel, x)
    return _run(kernel, x)


def _run(kernel, x):
    if x.__class__ is np.ndarray and x.flags.c_contiguous:
        # (ravel is a view here, and costs half a reshape: the common case)
        out = np.empty(x.shape, x.dtype)
        kernel(x.ravel(), out.ravel())
        return out
    a = np.asarray(x, order="C")
    out = np.empty(a.shape, a.dtype)
    kernel(a.reshape(-1), out.reshape(-1))
    return out if out.ndim or isinstance(x, np.ndarray) else out[()]


def accelerated(name, numpy_kernel):
    """The kernel `f(x)` for elementwise op `name`: the compiled kernel for
    float32 once loaded, else `numpy_kernel` (same bits); a float32 tensor
    of at least MIN_ELEMENTS elements starts the loading."""
    key = (name, _F32)

    key64 = (name, _F64)

    def kernel(x):
        if x.dtype == _F32:
            ks = _kernels
            if ks is not None:
                k = ks.get(key)
                if k is not None:
                    return _run(k, x)
            elif x.size >= MIN_ELEMENTS:
                if not _loader and available():
                    _start(FIRST_WAIT)
                    k = None if _kernels is None else _kernels.get(key)
                    if k is not None:
                        return _run(k, x)
            elif _numba_started and not _loader:
                _start()        # another family loads Numba (_numba_started)
        elif x.dtype == _F64:
            # float64: exp_log_f64's packets compiled, its C library tail.
            ks = _kernels
            if ks is None and x.size >= MIN_ELEMENTS and not _loader and available():
                _start(FIRST_WAIT)
                ks = _kernels
            k = None if ks is None else ks.get(key64)
            if k is not None:
                return _f64.run_compiled(name, k, x)
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
    if size >= MIN_ELEMENTS:
        if not _loader and available():
            _start(FIRST_WAIT)
            if _softmax is not None:
                return _softmax
    elif _numba_started and not _loader:
        _start()
    return _sk.NUMPY_OPS


def _start(first_wait=0.0):
    """Starts the load once; the caller that starts it waits up to
    `first_wait` seconds for it."""
    if _loader:
        return
    with _lock:
        if _loader:
            return
        t = threading.Thread(target=_load, name="rillflow-jit-load", daemon=True)
        _loader.append(t)
        t.start()
        # A short script may end while Numba is still loading: let the
        # load finish before the interpreter (and LLVM) shut down.
        atexit.register(t.join)
    if first_wait:
        t.join(first_wait)


def _load():
    global _kernels, _softmax
    try:
        from . import jit_erf, jit_exp_log, jit_exp_log_f64, jit_softmax, jit_tanh
        f64 = np.dtype(np.float64)
        kernels = {("tanh", _F32): jit_tanh.tanh_f32, ("tanh", f64): jit_tanh.tanh_f64}
        for name, k in {**jit_exp_log.KERNELS, **jit_erf.KERNELS}.items():
            kernels[(name, _F32)] = k
        for name, k in jit_exp_log_f64.KERNELS.items():
            kernels[(name, f64)] = k
        for (_, dt), k in kernels.items():   # compiles, or loads from the disk cache
            k(np.zeros(9, dt), np.empty(9, dt))
        softmax = jit_softmax.ops()
        softmax["sum_exp"](np.zeros((2, 9), np.float32))
        softmax["row_sums"](np.zeros((1, 2 * _sk._LEAF + 9), np.float32))
        softmax["log_scalar"](np.zeros(2, np.float32))
        for name in ("softmax", "log_softmax", "shift_rows"):
            softmax[name](np.zeros((2, 9), np.float32))
            softmax[name](np.zeros((1, 2 * _sk._LEAF + 9), np.float32))
        softmax["divide_rows_flush"](np.ones((2, 9), np.float32), np.ones(2, np.float32))
        softmax["sparse_xent"](np.zeros(2, np.int64), np.zeros((2, 9), np.float32))
        softmax["sparse_xent"](np.zeros(1, np.int64), np.zeros((1, 2 * _sk._LEAF + 9), np.float32))
    except Exception as e:   # refuses this NumPy version, cannot compile, ...
        _why_off.append("off: numba could not load the kernels (%s: %s)"
                        % (type(e).__name__, e))
        return
    _softmax = softmax      # before _kernels: status() "on" means all are there
    _kernels = kernels


# --- sin, cos, tan, atan2 and pow (jit_trig, jit_pow) ---------------------------------------
# Their own loading thread and table, so this block stands alone. The kernels
# (trig.py, pow.py) ask `elementwise_packet` for float32 tensors of at least
# MIN_ELEMENTS; it returns None (the NumPy code runs, with the same bits)
# until the compiled loops are loaded, so no call ever waits for Numba. Once
# loaded, smaller tensors use them too, with jit_glibc's compiled C library
# functions for the scalar tails.

_elementwise = {}       # name -> compiled loop, once loaded
_elementwise_loader = []


def elementwise_packet(name):
    """The compiled packet loop `name` ("sin", "cos", "tan", "atan2", "pow",
    "pow_scalar_x", "pow_scalar_y"): `f(*inputs, out)` on 1-D contiguous
    float32 arrays; None until loaded, or when the jit extra is off."""
    kernel = _elementwise.get(name)
    if kernel is None and not _elementwise_loader and available():
        with _lock:
            if not _elementwise_loader:
                t = threading.Thread(target=_load_elementwise, daemon=True,
                                     name="rillflow-jit-load-elementwise")
                _elementwise_loader.append(t)
                _numba_started.append("elementwise")
                t.start()
                atexit.register(t.join)
    return kernel


def wait_elementwise(timeout=None):
    """Starts loading the compiled sin/cos/tan/atan2/pow loops (unless off) and
    waits for them; returns whether they are on."""
    elementwise_packet("sin")
    if _elementwise_loader:
        _elementwise_loader[0].join(timeout)
    return bool(_elementwise)


def elementwise_status():
    """"on", "loading", or why the sin/cos/tan/atan2/pow loops are off; with
    the error of a first attempt that failed (the load is tried twice)."""
    if _elementwise:
        state = "on"
    elif not available():
        state = status()
    elif not _elementwise_loader:
        state = "not loaded yet"
    elif _elementwise_loader[0].is_alive():
        state = "loading"
    else:
        state = "off"
    return "; ".join([state] + _elementwise_errors)


_elementwise_errors = []   # each failed attempt: "attempt N: Class: message"


def _load_elementwise():
    # Twice: a clean CI clone once found these loops off in one test worker
    # while the other worker compiled the same modules into the shared disk
    # cache (the error went unrecorded); a second attempt compiles or loads
    # again, and elementwise_status() keeps the first error.
    for attempt in (1, 2):
        try:
            kernels = _compile_elementwise()
        except Exception as e:
            _elementwise_errors.append("attempt %d: %s: %s" % (attempt, type(e).__name__, e))
            continue
        _elementwise.update(kernels)
        return


def _compile_elementwise():
    from . import jit_glibc, jit_pow, jit_trig
    kernels = {"sin": jit_trig.sin_f32, "cos": jit_trig.cos_f32, "tan": jit_glibc.tanf_f32,
               "atan2": jit_trig.atan2_f32, "pow": jit_pow.pow_f32,
               "pow_scalar_x": jit_pow.pow_f32_scalar_x,
               "pow_scalar_y": jit_pow.pow_f32_scalar_y}
    # glibc's sinf, cosf, tanf, expf, powf, atan2f: the tails and tiny tensors.
    kernels.update(jit_glibc.KERNELS)
    z, one = np.zeros(1, np.float32), np.float32(1.0)
    first = {"pow_scalar_x": (one, z), "pow_scalar_y": (z, one), "atan2": (z, z), "pow": (z, z),
             "atan2f": (z, z), "powf": (z, z)}
    for name, k in kernels.items():    # compiles, or loads from the disk cache
        k(*first.get(name, (z,)), np.empty(1, np.float32))
    return kernels


def packet_then_scalar(name, scalar, *args):
    """x86_estimates.packet_then_scalar with the compiled loop `name` for the
    packets and jit_glibc's compiled C library function for the last
    `size % 8` elements (float32 inputs, broadcast): the float32 result, or
    None where the NumPy code should run (loops not loaded yet, jit off).
    Tensors under MIN_ELEMENTS do not start the loading, but use the loops
    once loaded: a few elements cost microseconds compiled, a hundred or
    more through the NumPy replicas of glibc. (`scalar`, the NumPy tail, is
    the caller's fallback; the loops and the tails load together.)"""
    if not _elementwise:
        if math.prod(np.broadcast_shapes(*(np.shape(a) for a in args))) >= MIN_ELEMENTS:
            elementwise_packet(name)   # starts the loading
        return None
    if len(args) == 1:
        return _unary_loaded(name, args[0])
    out = _binary_loaded(name, *args)
    if out is None:   # another broadcast: the inputs in memory at the output's shape
        x, y = _at_one_shape(*args)
        out = _binary_loaded(name, x, y)
    return out


def _unary_loaded(name, x):
    # packet_then_scalar's short path for one input once the loops are
    # loaded: few checks, no broadcasting (tiny tensors cost ~1 us here).
    a = np.asarray(x, np.float32, order="C")   # (ascontiguousarray makes 0-d 1-d)
    out = np.empty(a.shape, np.float32)
    flat, src = out.reshape(-1), a.reshape(-1)
    n = src.size
    lo = n - n % 8
    if lo:
        _elementwise[name](src, flat)   # the tail is overwritten below
    if lo < n:
        _elementwise[_SCALAR_TAILS[name]](src[lo:], flat[lo:])
    return out


def _binary_loaded(name, x, y):
    # The short path for two inputs of one shape, or a tensor and a scalar
    # (x**2), once the loops are loaded; None for other broadcasts.
    a = np.asarray(x, np.float32, order="C")   # (ascontiguousarray makes 0-d 1-d)
    b = np.asarray(y, np.float32, order="C")
    if a.shape == b.shape:
        shape, scalar_arg = a.shape, None
    elif b.size == 1 and b.ndim <= a.ndim:
        shape, scalar_arg = a.shape, 1
    elif a.size == 1 and a.ndim <= b.ndim:
        shape, scalar_arg = b.shape, 0
    else:
        return None
    out = np.empty(shape, np.float32)
    flat = out.reshape(-1)
    n = flat.size
    lo = n - n % 8
    fa, fb = a.reshape(-1), b.reshape(-1)
    if lo:
        if scalar_arg is None:
            _elementwise[name](fa, fb, flat)
        elif name == "pow":    # the scalar stays a scalar, not a broadcast copy
            if scalar_arg == 1:
                _elementwise["pow_scalar_y"](fa, fb[0], flat)
            else:
                _elementwise["pow_scalar_x"](fa[0], fb, flat)
        else:
            return None
    if lo < n:
        ta = fa[lo:] if fa.size == n else np.full(n - lo, fa[0], np.float32)
        tb = fb[lo:] if fb.size == n else np.full(n - lo, fb[0], np.float32)
        _elementwise[_SCALAR_TAILS[name]](ta, tb, flat[lo:])
    return out


def _at_one_shape(x, y):
    """x and y as float32 arrays of their broadcast shape, the broadcast ones
    copied: np.broadcast_arrays' views made Numba's argument check warn
    (a FutureWarning on their writeable flag) when one was passed on."""
    a, b = np.asarray(x, np.float32), np.asarray(y, np.float32)
    shape = np.broadcast_shapes(a.shape, b.shape)
    return tuple(v if v.shape == shape else np.broadcast_to(v, shape).copy() for v in (a, b))


def _all_scalar(name, x, y):
    # jit_glibc's compiled atan2f/powf on every element (broadcast), or None
    # until the loops are loaded.
    compiled = _elementwise.get(_SCALAR_TAILS[name])
    if compiled is None:
        return None
    a, b = _at_one_shape(x, y)
    out = np.empty(a.shape, np.float32)
    compiled(np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1),
             out.reshape(-1))
    return out


_SCALAR_TAILS = {"sin": "sinf", "cos": "cosf", "tan": "tanf", "atan2": "atan2f", "pow": "powf"}


def compiled_first(name, kernel):
    """`kernel` (trig.sin_kernel, pow.pow_kernel, ...: the NumPy code for the
    compiled loop `name`), running the compiled loop instead for float32,
    float16 and bfloat16 tensors (of any size) once it is loaded. The op
    families register this, so eager calls and compiled graphs use it; the
    NumPy kernels stay free of Numba (the compiled loops import them)."""
    scalar = getattr(_glibc_scalar, _SCALAR_TAILS[name])

    def run(*args):
        dt = args[0].dtype
        if dt == _F64 and name == "pow" and args[1].dtype == _F64:
            x, y = args
            return _pow_f64.pow_f64(x, y, POW_F64.get(max(x.size, y.size)))
        if dt == _F32 and _elementwise:   # the common cases, shortest
            if len(args) == 1:
                return _unary_loaded(name, args[0])
            if args[1].dtype == _F32:
                out = _binary_loaded(name, *args)
                if out is not None:
                    return out
        if all(a.dtype == dt for a in args[1:]) and (
                dt == np.float32 or dt.kind == "f" and dt.itemsize < 4 or dt.name == "bfloat16"):
            if dt != np.float32 and len(args) == 2:
                # float16/bfloat16 atan2 and pow: glibc's function on every
                # element, as trig.atan2_kernel and pow.pow_kernel say.
                out = _all_scalar(name, *args)
                if out is not None:
                    return out.astype(dt)
                return kernel(*args)
            as32 = args if dt == np.float32 else [a.astype(np.float32) for a in args]
            out = packet_then_scalar(name, scalar, *as32)
            if out is not None:
                return out if dt == np.float32 else out.astype(dt)
        return kernel(*args)
    run.__name__, run.__doc__ = kernel.__name__, kernel.__doc__
    return run


# --- Eigen's column sums (jit_reduce) --------------------------------------------------------
# A family of its own (BackgroundLoad): float_sums asks REDUCE for the loop of
# its leading and middle runs, and runs NumPy's steps (the same bits) until
# it is loaded.

def _load_reduce():
    from . import jit_reduce
    for dt in (np.float32, np.float64):
        jit_reduce.column_sums(np.zeros((1, 2, 3), dt), np.empty((1, 3), dt), 4)
    return {"column_sums": jit_reduce.column_sums}


REDUCE = BackgroundLoad("rillflow-jit-load-reduce", _load_reduce, "the reduction loops")


def kept_shape(shape, axes, keepdims):
    """The shape of a reduction of `shape` over `axes`."""
    if keepdims:
        return tuple(1 if a in axes else d for a, d in enumerate(shape))
    return tuple(d for a, d in enumerate(shape) if a not in axes)


# --- float64 pow (jit_pow_f64) ---------------------------------------------------------------
# A family of its own: compiled_first("pow", ...) hands pow_f64.pow_f64 the
# packets' loop once loaded; until then its NumPy steps run (the same bits).

def _load_pow_f64():
    from . import jit_pow_f64
    x = np.full(8, 0.75)
    jit_pow_f64.pow_f64_packets(x, x, np.empty(8))     # compiles, or loads from the disk cache
    return jit_pow_f64.pow_f64_packets


POW_F64 = BackgroundLoad("rillflow-jit-load-pow-f64", _load_pow_f64, "the float64 pow loop")
