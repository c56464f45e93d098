"""Prints the NumPy SIMD features this machine would dispatch to, as a value for
NPY_DISABLE_CPU_FEATURES, so a second test run exercises NumPy's baseline code paths.

    NPY_DISABLE_CPU_FEATURES="$(python tools/numpy_simd_off.py)" python -m pytest

NumPy picks a code path per CPU at import time (AVX-512, AVX2, NEON/SVE variants...), and
some of its float routines round differently on each. rillflow's results must not depend on
that choice (docs/numerics.md), so CI runs the suite once with the dispatched paths and once
without. Only features that are available and dispatchable here are printed: NumPy rejects
disabling a baseline feature, and feature names differ between NumPy versions and CPUs.
"""


def dispatched_features():
    """The optional SIMD features NumPy dispatches to on this CPU."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy < 2
        from numpy.core import _multiarray_umath as umath
    available = umath.__cpu_features__
    return [f for f in umath.__cpu_dispatch__ if available.get(f)]


if __name__ == "__main__":
    print(" ".join(dispatched_features()))
