"""Large float32 matrix products through XLA's dot, on request
(RILLFLOW_XLA_GEMM=1, with JAX, the `xla` extra, installed).

NumPy's float32 GEMM is OpenBLAS's, which this kind of machine runs with
its Haswell (AVX2) kernels at about half the speed of TensorFlow's oneDNN;
XLA's CPU dot is 1.5-1.9x faster than OpenBLAS on the square-ish products
of a model's layers (1024x256 by 256x256: 1.05 ms NumPy, 0.66 ms XLA, one
core). Skinny products lose (XLA's fixed cost per call, ~12 us, and its
copy of inputs that are not 64-byte aligned), and so do products that
contract the first axis of the left operand (a weight gradient `x^T g`).
So `matmul(a, b)` sends a product to XLA only where it measured faster: a
float32 product of 2-D matrices or equal-sized batches of them, every
operand a (possibly transposed) view of a C-contiguous array, the left
operand's rows contiguous, at least MIN_M rows, MIN_N columns and MIN_K
terms per sum, and MIN_WORK multiply-adds per matrix (a batch of small
products, as Winograd's, loses); everything else is NumPy's `a @ b`.

The sums are the same up to their order: XLA's result may differ from
NumPy's in the last bits (as BLAS's own results differ between thread
counts). JAX is imported at the first product large enough; each
dimension-number pattern is one cached `jax.jit` of `lax.dot_general`
(compiled once per shape by jax.jit). The result is a writable NumPy array
over XLA's output buffer (no copy; the compiled code updates products in
place).

Off unless RILLFLOW_XLA_GEMM=1: measured on the model steps
(benchmarks/model_bench.py, 2 cores), it wins on one core (process pinned:
LSTM language model step 189 -> 152 ms, attention block 17.0 -> 15.7 ms)
but loses with OpenBLAS's threads on (attention 10 -> 12 ms: OpenBLAS's
idle threads spin while XLA's pool runs), and with it on a result would
depend on whether JAX is installed.
"""
import os

import numpy as np

from ...framework import lowering
from . import blas_batch as _blas_batch
from . import threads as _threads

__all__ = ["matmul", "enabled", "status"]

# The thresholds, measured per shape on one core (OpenBLAS's Haswell sgemm
# against XLA's dot, JAX 0.10): below them NumPy is as fast or faster.
MIN_M = 64
MIN_N = 32
MIN_K = 64
MIN_WORK = 1 << 22
# Distinct shapes compiled at most (a jax.jit compilation takes ~20 ms):
# a program whose products change shape every call keeps NumPy's GEMM.
MAX_SHAPES = 256

# With RILLFLOW_BLAS_THREADS=kernels, a NumPy product of at least this many
# multiply-adds is cut over the kernel threads (a part's hand-over to a
# thread, ~20 us, is small beside ~40 us of one-thread GEMM).
SPREAD_WORK = 1 << 21

_F32 = np.dtype(np.float32)
_state = {"on": None, "why": "not decided", "shapes": set()}
_fns = {}


def enabled():
    """Whether large float32 products go to XLA: RILLFLOW_XLA_GEMM=1 and JAX
    installed (decided once per process)."""
    on = _state["on"]
    if on is None:
        flag = os.environ.get("RILLFLOW_XLA_GEMM", "").strip().lower()
        if flag not in ("1", "on", "true", "yes"):
            on, why = False, "off (RILLFLOW_XLA_GEMM=1 turns it on)"
        elif not lowering.available():
            on, why = False, "JAX is not installed (the xla extra)"
        else:
            on, why = True, "on"
        _state["on"], _state["why"] = on, why
    return on


def status():
    """"on", or why products stay with NumPy."""
    enabled()
    return _state["why"]


def _layout(x):
    """(C-contiguous base, the base axis of each of x's axes) when x is the
    base or a transpose of its last two axes; else None."""
    if x.flags.c_contiguous:
        return x, tuple(range(x.ndim))
    if x.ndim == 2:
        if x.flags.f_contiguous:
            return x.T, (1, 0)
        return None
    # A batch: the last two axes swapped (an adjoint), or, for Winograd's
    # tiles, a (16, tiles, C) view of a tile-major (tiles, 16, C) array.
    for perm in ((0, 2, 1), (1, 0, 2)):
        base = x.transpose(perm)
        if base.flags.c_contiguous:
            return base, perm
    return None


class _Buffer:
    """Exposes an XLA output's memory to NumPy as writable: XLA allocated it
    for this call alone, and the array `held` keeps it alive."""

    __slots__ = ("__array_interface__", "held")

    def __init__(self, view):
        self.held = view
        iface = dict(view.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface


def _dot(dims, a, b):
    fn = _fns.get(dims)
    if fn is None:
        jax = lowering.load()
        lax = lowering.lax
        dn = (((dims[0],), (dims[1],)), (dims[2], dims[3]))
        fn = jax.jit(lambda x, y: lax.dot_general(x, y, dn))
        _fns[dims] = fn
    out = np.asarray(fn(a, b))
    return np.asarray(_Buffer(out))


def _numpy(a, b):
    """`a @ b` by NumPy's GEMM; a stack of products as one batched OpenBLAS
    call (blas_batch.py) where it applies; with the kernel threads on
    (threads.spreading: RILLFLOW_BLAS_THREADS=kernels) a large product's
    batch, or rows, are cut over them, each part one OpenBLAS call."""
    nd = a.ndim
    if nd > 2:
        out = _blas_batch.matmul(a, b)
        if out is not None:
            return out
    if not _threads.SPREADING or nd < 2 or b.ndim != nd or a.dtype != b.dtype or \
            a.dtype.kind not in "fc":
        return a @ b
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if b.shape[-2] != k or a.shape[:-2] != b.shape[:-2] or \
            a.size // max(1, m * k) * m * n * k < SPREAD_WORK:
        return a @ b
    out = np.empty(a.shape[:-1] + (n,), a.dtype)
    parts = _threads.cores()
    if nd > 2 and a.shape[0] >= parts:
        cut = [a.shape[0] * q // parts for q in range(parts + 1)]

        def part(q):
            lo, hi = cut[q], cut[q + 1]
            np.matmul(a[lo:hi], b[lo:hi], out=out[lo:hi])
    elif m >= n:
        # Each thread packs the part of the larger operand it reads.
        cut = [m * q // parts for q in range(parts + 1)]

        def part(q):
            lo, hi = cut[q], cut[q + 1]
            np.matmul(a[..., lo:hi, :], b, out=out[..., lo:hi, :])
    else:
        cut = [n * q // parts for q in range(parts + 1)]

        def part(q):
            lo, hi = cut[q], cut[q + 1]
            np.matmul(a, b[..., lo:hi], out=out[..., lo:hi])
    _threads.run_chunks(part, parts)
    return out


def matmul(a, b):
    """`a @ b`, through XLA's dot where that is faster (see the module
    docstring), else NumPy's (`_numpy`)."""
    if a.dtype != _F32 or b.dtype != _F32 or not enabled():
        return _numpy(a, b) if _threads.SPREADING or a.ndim > 2 else a @ b
    nd = a.ndim
    if nd != b.ndim or nd not in (2, 3) or (nd == 3 and a.shape[0] != b.shape[0]):
        return _numpy(a, b)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if m < MIN_M or n < MIN_N or k < MIN_K or b.shape[-2] != k or m * n * k < MIN_WORK:
        return _numpy(a, b)
    la, lb = _layout(a), _layout(b)
    if la is None or lb is None or la[1][-1] != nd - 1:
        # The left operand's sums must run along its base's rows.
        return _numpy(a, b)
    (base_a, ax_a), (base_b, ax_b) = la, lb
    shapes = _state["shapes"]
    key = (base_a.shape, base_b.shape, ax_a, ax_b)
    if key not in shapes:
        if len(shapes) >= MAX_SHAPES:
            return _numpy(a, b)
        shapes.add(key)
    # Axes of the bases: contracting, then batch (none for matrices).
    if nd == 2:
        dims = (ax_a[1], ax_b[0], (), ())
    else:
        dims = (ax_a[2], ax_b[1], (ax_a[0],), (ax_b[0],))
    return _dot(dims, base_a, base_b)
