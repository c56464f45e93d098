"""Batches of matrix products as one OpenBLAS call: `cblas_sgemm_batch_strided`
and `cblas_dgemm_batch_strided` (OpenBLAS 0.3.30 and later, NumPy's bundled
scipy-openblas among them).

NumPy's matmul of a (B, M, K) by a (B, K, N) stack calls GEMM once per
matrix, and OpenBLAS splits each of those small products over its threads
and waits for them: attention's 32 products of (128, 64) x (64, 128) took
0.63-0.99 ms on two cores, about one core's speed. The batched call hands
whole matrices to OpenBLAS's threads instead, each computed by one thread
(0.40 ms; the Winograd filter gradient's (16, 64, 256) x (16, 256, 64)
chunks 0.38 -> 0.19 ms). A matrix's sums are one thread's GEMM's whatever the
thread count, so the bits do not depend on how OpenBLAS shares the batch
out (they are those of NumPy's matmul with OpenBLAS at one thread).

`matmul(a, b)` returns None where the call does not apply (other dtypes,
layouts a GEMM cannot read, no such symbol), and the caller uses NumPy.
The symbol is checked once against NumPy on a small batch before use.
"""
import ctypes

import numpy as np

from ...framework import blas_threads

__all__ = ["matmul", "available"]

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# OpenBLAS 0.3.31's batched call crashes on products of at most 100**3
# multiply-adds (SkylakeX's small-matrix kernels, which it takes for them)
# and gave wrong results with one row or column (its GEMV shortcut): only
# products above both limits take it.
MIN_WORK = 100 ** 3
MIN_SIDE = 8
_DTYPES = {np.dtype(np.float32): ("s", ctypes.c_float), np.dtype(np.float64): ("d", ctypes.c_double)}
# dtype -> the ctypes function, or False (absent or failed its check).
_fns = {}


def _load(dtype):
    handle = blas_threads._openblas()
    letter, scalar = _DTYPES[dtype]
    fn = getattr(handle[0], "cblas_%sgemm_batch_strided" % letter, None) if handle else None
    if fn is None:
        return False
    # Integers as 64-bit values: OpenBLAS's ILP64 builds (NumPy's) take
    # them so, and an LP64 build reads the low half of each slot (x86-64 and
    # AArch64 pass every argument in its own register or 8-byte stack slot).
    i = ctypes.c_int64
    fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, i, i, i, scalar, ctypes.c_void_p,
                   i, i, ctypes.c_void_p, i, i, scalar, ctypes.c_void_p, i, i, i]
    fn.restype = None
    _fns[dtype] = fn
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 104, 100)).astype(dtype)
    b = rng.standard_normal((2, 100, 100)).astype(dtype).transpose(0, 2, 1)
    got = matmul(a, b)
    if got is None or not np.allclose(got, np.matmul(a, b), rtol=1e-5, atol=1e-5):
        return False
    return fn


def available(dtype=np.float32):
    """Whether the batched call runs `dtype`'s products."""
    dtype = np.dtype(dtype)
    if dtype not in _DTYPES:
        return False
    fn = _fns.get(dtype)
    if fn is None:
        _fns[dtype] = False          # while loading: matmul's own check uses the function
        _fns[dtype] = _load(dtype)
        fn = _fns[dtype]
    return fn is not False


def _operand(x, rows, cols):
    """(transpose flag, leading dimension, batch stride) in elements for a
    (..., B, rows, cols) operand whose matrices a GEMM can read in place, B
    the last batch axis, or None."""
    item = x.itemsize
    sb, sr, sc = x.strides[-3:]
    if sb % item or sr % item or sc % item or sb <= 0:
        return None
    if sc == item and (sr >= cols * item or rows == 1):
        return _NO_TRANS, max(sr // item, cols, 1), sb // item
    if sr == item and (sc >= rows * item or cols == 1):
        return _TRANS, max(sc // item, rows, 1), sb // item
    return None


def _merged(x):
    """`x` with its batch axes merged into one where their strides allow it
    without a copy (a (B, rows, cols) view), else `x` itself."""
    if x.ndim == 3:
        return x
    st, sh = x.strides, x.shape
    for i in range(x.ndim - 3):
        if st[i] != st[i + 1] * sh[i + 1]:
            return x
    n = 1
    for d in sh[:-2]:
        n *= d
    return np.lib.stride_tricks.as_strided(x, (n,) + sh[-2:], st[-3:])


def matmul(a, b):
    """`a @ b` of stacks of float32/float64 matrices with equal batch dims
    by batched OpenBLAS calls (one per index of the batch axes before the
    last, when they do not merge: attention's heads interleaved with its
    tokens), or None where the call does not apply."""
    if a.ndim < 3 or a.ndim != b.ndim or a.dtype != b.dtype or a.shape[:-2] != b.shape[:-2]:
        return None
    fn = _fns.get(a.dtype)
    if fn is None:
        if not available(a.dtype):
            return None
        fn = _fns[a.dtype]
    elif fn is False:
        return None
    m, k = a.shape[-2:]
    n = b.shape[-1]
    if b.shape[-2] != k or min(m, n, k) < MIN_SIDE or m * n * k <= MIN_WORK:
        return None
    a3, b3 = _merged(a), _merged(b)
    if a3.ndim != b3.ndim:
        a3, b3 = a, b
    batch = a3.shape[-3]
    pa, pb = _operand(a3, m, k), _operand(b3, k, n)
    if batch < 2 or pa is None or pb is None:
        return None
    out = np.empty(a3.shape[:-1] + (n,), a.dtype)
    step_a, step_b = a3.strides[:-3], b3.strides[:-3]
    step_o = out.strides[:-3]
    pa0, pb0, po0 = a3.ctypes.data, b3.ctypes.data, out.ctypes.data
    for idx in np.ndindex(a3.shape[:-3]):
        oa = sum(i * s for i, s in zip(idx, step_a))
        ob = sum(i * s for i, s in zip(idx, step_b))
        oo = sum(i * s for i, s in zip(idx, step_o))
        fn(_ROW_MAJOR, pa[0], pb[0], m, n, k, 1.0, pa0 + oa, pa[1], pa[2],
           pb0 + ob, pb[1], pb[2], 0.0, po0 + oo, n, m * n, batch)
    return out.reshape(a.shape[:-1] + (n,))
