"""Keeps large freed arrays' memory in the process (glibc's malloc).

A training step allocates and frees the same large arrays every call. With
glibc's defaults a freed block of more than a few MB goes back to the
operating system (munmap, or trimming the heap), and the next step's array
of the same size faults every page in again, zero-filled by the kernel:
that was a third of the CPU time of a small CNN's step (13 ms -> 7.5 ms
with the settings below). TensorFlow keeps its buffers in its own
allocator; rillflow's arrays are NumPy's, so it asks malloc instead to
serve blocks of up to 32 MB (glibc's maximum for this setting) from the
heap and to keep up to 256 MB of free heap before returning memory (a
language model's step frees ~200 MB at its end, which a lower threshold
would hand back to the system only to fault it in again the next step).

Arrays above 32 MB would still be mmapped afresh each step (a language
model's [batch, vocabulary] logits are 45 MB: each step faulted in four
such arrays eagerly, 2-3 ms each, and the steady-state peak a step added
was ~150 MB where TensorFlow's allocator adds nothing). So malloc is also
told never to mmap (M_MMAP_MAX = 0): every block comes from the heap,
whose freed blocks the next step reuses, as TensorFlow's BFC allocator
reuses its chunks. The cost is TensorFlow's too: a large block freed in
the middle of the heap stays resident until reused (the heap's free top
beyond 256 MB still goes back to the system). glibc falls back to mmap by
itself when the heap cannot grow.

`tune()` runs once when rillflow is imported. It changes nothing when the
C library has no `mallopt` (not glibc), when the user set glibc's own
MALLOC_* or GLIBC_TUNABLES variables, or when RILLFLOW_MALLOC=system.
"""
import ctypes
import os
import sys

# mallopt's parameter numbers (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_MMAP_MAX = -4

MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 256 << 20

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                  "GLIBC_TUNABLES")
_state = {"tuned": False, "why": "not tried"}


def tune():
    """Applies the settings above where they apply; returns whether it did."""
    if _state["why"] != "not tried":
        return _state["tuned"]
    if os.environ.get("RILLFLOW_MALLOC", "").strip().lower() in ("system", "0", "off"):
        _state["why"] = "RILLFLOW_MALLOC=system"
    elif any(k in os.environ for k in _USER_SETTINGS):
        _state["why"] = "the environment sets malloc's parameters"
    elif not sys.platform.startswith("linux"):
        _state["why"] = "not Linux"
    else:
        try:
            mallopt = ctypes.CDLL(None).mallopt
        except (OSError, AttributeError):
            _state["why"] = "the C library has no mallopt"
        else:
            mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
            mallopt.restype = ctypes.c_int
            ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
            ok = mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
            ok = mallopt(_M_MMAP_MAX, 0) == 1 and ok
            _state["tuned"] = ok
            _state["why"] = "tuned" if ok else "mallopt refused the settings"
    return _state["tuned"]


def status():
    """Why malloc is or is not tuned ("tuned", "RILLFLOW_MALLOC=system", ...)."""
    return _state["why"]
