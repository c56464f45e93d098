"""The order in which float reductions add (and multiply) their values.

Sum, Mean, Prod and EuclideanNorm reduce the values in row-major order
whatever the input's memory layout (`row_major`), so eager execution,
compiled code and fused chains agree bit for bit. Sums over a run of axes
before kept trailing values (bias gradients, batch statistics, global
average pools) add blocks of ROW_BLOCK rows in order and then the blocks'
sums pairwise (`float_sum`), the jit extra's loop (ops/kernels/jit_reduce.py)
in the same order.
"""
import numpy as np

from ..kernels import jit_kernels as _jk

__all__ = ["row_major", "float_sum", "ROW_BLOCK"]

_add_reduce = np.add.reduce


def row_major(x):
    """x, or a row-major copy of a strided float or complex x: NumPy reduces a
    strided array in its memory order, so its sums and products would
    depend on how it was laid out (see float_sum)."""
    if x.ndim > 1 and not x.flags.c_contiguous and x.dtype.kind in "fc":
        return np.ascontiguousarray(x)
    return x


def float_sum(x, ax, keep_dims):
    """The sum over axes `ax` in `x`'s dtype: NumPy's (pairwise along a
    reduced last axis), or, over a run of axes before kept trailing values
    (bias gradients, batch norm statistics, global average pools), the
    blocked order of `_blocked_row_sum` (the jit extra's loop for rows of up
    to SUM_ROW_MAX values).

    Always over the values in row-major order: NumPy adds a strided array
    in its memory order, so a transposed view summed to other last bits
    than the same values in a new array, and an elementwise result's layout
    depends on how it was computed (into an operand's buffer, in a fused
    chain, or by a ufunc following its inputs' layout): compiled code
    differed from eager execution (DAG fuzz seed 921802). TensorFlow's
    tensors are always row-major."""
    x = row_major(x)
    rows = _jk.axis_run(x.shape, ax)
    if rows is not None and x.dtype.kind == "f" and x.dtype.itemsize >= 4:
        out = _jk.sum_rows(x, rows)
        if out is None and rows[1] > ROW_BLOCK and rows[2] >= 2 and x.flags.c_contiguous:
            out = _blocked_row_sum(x.reshape(rows))
        if out is not None:
            return out.reshape(_jk.kept_shape(x.shape, ax, keep_dims))
    return _add_reduce(x, axis=ax, dtype=x.dtype, keepdims=keep_dims)


# NumPy adds the rows of a sum over leading axes one after another (pairwise
# only along a reduced last axis): the mean of 32 channels of 32,768 values
# near 3 was off by up to 88 ulp (27 on average), TensorFlow's by 22 (8).
# Blocks of this many rows are added in order, then the block sums pairwise.
ROW_BLOCK = _jk.ROW_BLOCK       # (the jit extra's loop is given it)


def _blocked_row_sum(x3):
    """The (P, C) sums over axis 1 of (P, R, C) `x3`: a block of ROW_BLOCK
    rows at a time in row order from 0 (NumPy's reduction over a middle
    axis), then the block sums pairwise, level by level, an odd last one
    carried up."""
    p, r, c = x3.shape
    nb = r // ROW_BLOCK
    parts = [_add_reduce(x3[:, :nb * ROW_BLOCK].reshape(p, nb, ROW_BLOCK, c), axis=2,
                         dtype=x3.dtype)]
    if r % ROW_BLOCK:
        parts.append(_add_reduce(x3[:, nb * ROW_BLOCK:], axis=1, dtype=x3.dtype,
                                 keepdims=True))
    s = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
    while s.shape[1] > 1:
        k = s.shape[1]
        t = s[:, 0:k - 1:2] + s[:, 1:k:2]
        s = np.concatenate([t, s[:, k - 1:]], axis=1) if k % 2 else t
    return s[:, 0]
