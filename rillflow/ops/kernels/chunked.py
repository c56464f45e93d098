"""Runs an elementwise NumPy kernel over cache-sized blocks.

The bit-exact kernels (pow, trig, glibc_float) are dozens of ufunc passes
with a temporary each. On a large tensor every pass streams the whole
array through main memory; on a block of 16K elements the temporaries stay
in the L2 cache, which makes the same passes several times faster. Every
operation is elementwise, so the blocks give the same bits as one call.
"""
import numpy as np

BLOCK = 16384


def chunked(kernel, *args, **flags):
    """kernel(*args, **flags) for elementwise float32 `kernel`, block by block
    over the flat broadcast shape (size-1 inputs stay scalars, not broadcast
    copies); `flags` are passed through as they are."""
    args = [np.asarray(a, np.float32) for a in args]
    shape = args[0].shape if len(args) == 1 else np.broadcast_shapes(*(a.shape for a in args))
    n = int(np.prod(shape))
    if n <= 2 * BLOCK:
        return kernel(*(np.broadcast_arrays(*args) if len(args) > 1 else args), **flags)
    flats = [a.reshape(()) if a.size == 1 else
             np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1) for a in args]
    out = np.empty(shape, np.float32)
    flat = out.reshape(-1)
    for lo in range(0, n, BLOCK):
        hi = min(lo + BLOCK, n)
        flat[lo:hi] = kernel(*[a if a.ndim == 0 else a[lo:hi] for a in flats], **flags)
    return out
