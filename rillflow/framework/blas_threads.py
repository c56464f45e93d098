"""OpenBLAS's thread count following the load of the machine (opt-in).

NumPy's OpenBLAS splits a GEMM over all cores and waits for every part.
When other processes load the cores, one of its threads is often
descheduled and the call waits for that thread's next time slice: on a
loaded 2-core machine a 0.4 ms GEMM took several ms, and a Keras MLP step
65 ms where TensorFlow took 11 ms (quiet, both are about equal). One thread
fixes the loaded case but doubles quiet GEMMs, so the count has to follow
the load.

`check()` is the hook: the compiled-function calls and the eager MatMul and
Conv2D kernels call it. It reads a monotonic clock and returns (~100 ns);
at most every `INTERVAL` seconds it measures the CPU time that OTHER
processes used since the last measurement (/proc/stat's busy jiffies minus
this process's utime+stime from /proc/self/stat, over the wall interval)
and sets OpenBLAS's threads to `decide(...)`: as many as leave each of our
threads a core, never more than OpenBLAS's own default.

Why it is OFF by default: OpenBLAS's float32 GEMM (sgemm, Haswell kernels,
0.3.31) gives different last bits for 1, 2, 3 or 4 threads (about 15% of
the elements of a (128,784)@(784,256) product differ by an ulp or so;
float64 and complex64 were identical), so a count that follows the load
would make results depend on what else runs on the machine. Set
RILLFLOW_BLAS_THREADS=dynamic to trade that for speed under load.

RILLFLOW_BLAS_THREADS=kernels is the third way (`kernel_threads()`):
OpenBLAS runs one thread and rillflow's kernels split their products over
their own threads.

Nothing changes when RILLFLOW_BLAS_THREADS is unset or "fixed", when the
user set OPENBLAS_NUM_THREADS or OMP_NUM_THREADS (their count is kept),
off Linux, or when NumPy's BLAS is not a loaded OpenBLAS with a
set/get_num_threads pair.
"""
import ctypes
import os
import sys
import threading
import time

INTERVAL = 0.25          # seconds between measurements
# Whether the policy was asked for when rillflow was imported: the hooks on
# the call paths test this flag, so the default (off) costs them nothing.
ENABLED = os.environ.get("RILLFLOW_BLAS_THREADS", "fixed").strip().lower() == "dynamic"
STALE = 2.0              # a longer gap is only a new baseline: an old average
HYSTERESIS = 0.25        # cores: raising the count needs this much more room

# (setter, getter) names, NumPy's bundled scipy-openblas first.
_SYMBOLS = (("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
            ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
            ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
            ("openblas_set_num_threads", "openblas_get_num_threads"))

_monotonic = time.monotonic
_next_check = 0.0        # monotonic time of the next measurement (inf: off)
_state = {"why": "not tried", "lib": None, "set": None, "get": None, "default": 1,
          "current": 1, "cores": 1, "last": None, "others": None}


def decide(others_cores, cores, default, current):
    """The thread count for OpenBLAS: a pure function of the measurements.

    `others_cores`: the CPU other processes used, in cores (1.5 = one and a
    half cores busy on average); `cores`: the cores this process may run
    on; `default`: OpenBLAS's count at start, the most we ever use;
    `current`: the count now. Each of our threads should find a free core:
    `cores - round(others_cores)` threads, at least 1. Raising the count
    again needs HYSTERESIS more free room, so a load near a rounding
    boundary does not flip the count at every measurement.
    """
    target = max(1, min(default, cores - int(others_cores + 0.5)))
    if target > current and cores - others_cores < target - 0.5 + HYSTERESIS:
        target = max(current, min(default, target - 1))
    return target


def _find_openblas():
    """(set, get) of the OpenBLAS NumPy loaded, or None."""
    import numpy  # NumPy loads its BLAS when imported
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()[-1]
                if "openblas" in p.lower() and p not in paths and p.startswith("/"):
                    paths.append(p)
    except OSError:
        pass
    # NumPy's own first: SciPy (which Numba imports) loads a second
    # OpenBLAS, often mapped below NumPy's, whose count changes nothing of
    # NumPy's products (wheels bundle theirs in numpy.libs / scipy.libs).
    paths.sort(key=lambda p: not os.path.basename(os.path.dirname(p)).startswith("numpy")
               and not p.startswith(os.path.dirname(os.path.abspath(numpy.__file__))))
    for p in paths:
        try:
            lib = ctypes.CDLL(p)
        except OSError:
            continue
        for set_name, get_name in _SYMBOLS:
            setter = getattr(lib, set_name, None)
            getter = getattr(lib, get_name, None)
            if setter is not None and getter is not None:
                setter.argtypes = (ctypes.c_int,)
                setter.restype = None
                getter.argtypes = ()
                getter.restype = ctypes.c_int
                return lib, setter, getter
    return None


# OpenBLAS's handle, looked up once: (lib, set, get), or False where NumPy's
# BLAS is not a loaded OpenBLAS with a set/get_num_threads pair (or off Linux).
_handle = [None]


def _openblas():
    if _handle[0] is None:
        found = _find_openblas() if sys.platform.startswith("linux") else None
        _handle[0] = found or False
    return _handle[0]


def _cpu_times():
    """(all processes' busy jiffies, this process's jiffies) from /proc."""
    with open("/proc/stat", "rb") as f:
        v = f.readline().split()
    # user nice system idle iowait irq softirq steal (guest is inside user)
    busy = int(v[1]) + int(v[2]) + int(v[3]) + int(v[6]) + int(v[7]) + int(v[8])
    with open("/proc/self/stat", "rb") as f:
        s = f.read()
    fields = s[s.rindex(b")") + 2:].split()
    return busy, int(fields[11]) + int(fields[12])     # utime, stime


def _setup():
    """Finds OpenBLAS and decides whether the policy runs; returns whether."""
    mode = os.environ.get("RILLFLOW_BLAS_THREADS", "fixed").strip().lower()
    if mode != "dynamic":
        _state["why"] = "RILLFLOW_BLAS_THREADS=%s" % (mode or "fixed")
    elif any(os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")):
        _state["why"] = "the environment sets the thread count"
    elif not sys.platform.startswith("linux"):
        _state["why"] = "not Linux"
    else:
        found = _openblas()
        if not found:
            _state["why"] = "no OpenBLAS with set/get_num_threads loaded"
            return False
        lib, setter, getter = found
        default = getter()
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
        if default <= 1 or cores <= 1:
            _state["why"] = "one thread already"
            return False
        try:
            _cpu_times()
        except (OSError, ValueError, IndexError):
            _state["why"] = "no /proc CPU times"
            return False
        _state.update(lib=lib, set=setter, get=getter, default=default, current=default,
                      cores=cores, why="dynamic")
        return True
    return False


def _measure(now):
    global _next_check
    _next_check = now + INTERVAL
    try:
        busy, own = _cpu_times()
    except (OSError, ValueError, IndexError):
        return
    last = _state["last"]
    _state["last"] = (now, busy, own)
    if last is None or now - last[0] > STALE:
        return
    wall = now - last[0]
    others = max(0.0, ((busy - last[1]) - (own - last[2])) / _HZ / wall)
    _state["others"] = others
    threads = decide(others, _state["cores"], _state["default"], _state["current"])
    if threads != _state["current"]:
        _state["set"](threads)
        _state["current"] = threads


def check():
    """The hook: measures and adjusts at most every INTERVAL seconds."""
    global _next_check
    now = _monotonic()
    if now < _next_check:
        return
    if _state["why"] == "not tried":
        if not _setup():
            _next_check = float("inf")
            return
    _measure(now)


def kernel_threads():
    """Whether rillflow's kernel threads run the GEMMs and convolutions
    (RILLFLOW_BLAS_THREADS=kernels, decided when rillflow is imported):
    OpenBLAS runs one thread per call and the kernels cut their products by
    rows, images or batch over the threads of ops/kernels/threads.py, which
    take the next part when done with one, so a thread that other work
    slows does less (OpenBLAS's own threads wait for their slowest)."""
    return _KERNELS


def _take_over():
    """RILLFLOW_BLAS_THREADS=kernels: every OpenBLAS of the process to one
    thread; True when NumPy's was found. The loaded one is set and its
    threads stopped (idle, they spin on the cores: 98% of one, measured,
    whatever count it is set to); one loaded later (SciPy's, which Numba
    loads) reads OPENBLAS_NUM_THREADS=1 from the environment."""
    if os.environ.get("RILLFLOW_BLAS_THREADS", "").strip().lower() != "kernels" or \
            not sys.platform.startswith("linux"):
        return False
    found = _openblas()
    if not found:
        return False
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    found[1](1)
    stop = getattr(found[0], "blas_thread_shutdown_", None)
    if stop is not None:
        stop.restype = ctypes.c_int
        stop()
    return True


_KERNELS = _take_over()


# --- one thread per call, for a while (single_thread_begin/end) -----------------------------
_hold_lock = threading.Lock()
_hold = {"depth": 0, "saved": 1}

def single_thread_begin(stop_idle=False):
    """Holds OpenBLAS to one thread per call until the matching
    `single_thread_end()` (calls nest, from any thread: the count comes
    back when the last hold ends). Returns False, holding nothing, where
    NumPy's BLAS is not an OpenBLAS whose count can be set.

    A kernel that spreads its own GEMMs over threads holds this so that
    each GEMM is one thread's (and gets one thread's bits, which differ from
    two threads' in the last bits on some CPUs' kernels). With `stop_idle`
    OpenBLAS's idle threads are stopped too: after a multithreaded call they
    spin (sched_yield) for ~2**28 cycles, taking a core from the kernel's
    threads (ResNet block step 10% faster with them stopped, the CNN step's
    Winograd layer slower than not spreading at all with them spinning);
    setting the count back starts them again. Only
    pass it when no other thread can be inside OpenBLAS (stopping joins
    the idle threads and frees their buffers): the caller checks that no
    other Python thread runs and no kernel is spread (threads.py `alone`);
    it is ignored under another hold."""
    handle = _openblas()
    if not handle:
        return False
    lib, setter, getter = handle
    with _hold_lock:
        first = _hold["depth"] == 0
        if first:
            _hold["saved"] = getter()
            if _hold["saved"] != 1:
                setter(1)
        _hold["depth"] += 1
        # Only the first hold: under another one, that hold's kernel may be
        # inside OpenBLAS on another thread.
        if stop_idle and first and _hold["saved"] != 1:
            stop = getattr(lib, "blas_thread_shutdown_", None)
            if stop is not None:
                stop.restype = ctypes.c_int
                stop()
    return True


def single_thread_end():
    """Ends a `single_thread_begin()` that returned True."""
    lib, setter, getter = _openblas()
    with _hold_lock:
        _hold["depth"] -= 1
        if _hold["depth"] == 0 and _hold["saved"] != 1:
            setter(_hold["saved"])


def status():
    """Why the policy runs or not ("dynamic", "RILLFLOW_BLAS_THREADS=fixed", ...)."""
    return _state["why"]


def threads():
    """OpenBLAS's thread count as this module last set it (None: not managing it)."""
    return _state["current"] if _state["why"] == "dynamic" else None


def reset():
    """Restores OpenBLAS's default count and forgets the setup (tests, env changes)."""
    global _next_check
    if _state["why"] == "dynamic" and _state["current"] != _state["default"]:
        _state["set"](_state["default"])
    _state.update(why="not tried", last=None, others=None, current=_state["default"])
    _next_check = 0.0


try:
    _HZ = os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):
    _HZ = 100
