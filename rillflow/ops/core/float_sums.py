"""The order in which float reductions add (and multiply) their values.

float32 and float64 sums take TensorFlow's order (Eigen's reductions) where
the reduced axes form one of the patterns it is known for, after axes of
one value are dropped and neighbouring axes of the same kind merged, as
TensorFlow's ReductionHelper does: all axes or a trailing run
(Eigen's InnerMostDimReducer, softmax_kernel.row_sums: four accumulators
of packets, rows split in halves past 1024 packets), a leading run
(softmax_kernel.column_sums: four accumulators of rows for the whole
packets of outputs), and a middle run before kept values (`_columns`:
Eigen takes the flat output a packet at a time, and a packet that lies
within one leading slice adds its rows in four accumulators, the others
one output at a time, rows in order); reduced axes that are not one run
as TensorFlow's ReductionOp takes them (`_scattered`). Checked against
TensorFlow 2.21 (tests/data/tf_reduce_order.npz). Means divide these sums; products (`float_prod`)
take the same orders with *, rows never split in halves.
float16 takes the same orders with half packets of 8 whose lanes are
added in float32 and rounded once (Eigen's predux for half), rows split
in halves past 200 packets; bfloat16 is summed in float32 and rounded once;
complex sums over all axes or a trailing run add the parts as the lanes of
Eigen's complex packets (`_complex_row_sums`).

Other dtypes reduce the values in row-major order whatever the input's
memory layout (`row_major`): NumPy's order. The jit extra compiles the middle and leading runs' loop
(ops/kernels/jit_reduce.py) in the same order. Eager execution, compiled
code and fused chains call this one function, so they agree bit for bit.
"""
import math

import numpy as np

from ..kernels import jit_kernels as _jk
from ..kernels.softmax_kernel import (column_products, column_sums, ordered_reduce, ordered_sum,
                                     row_products, row_sums, row_sums_of)

__all__ = ["row_major", "float_sum", "float_prod"]

_add_reduce = np.add.reduce


def row_major(x):
    """x, or a row-major copy of a strided float or complex x: NumPy reduces a
    strided array in its memory order, so its sums and products would
    depend on how it was laid out (see float_sum)."""
    if x.ndim > 1 and not x.flags.c_contiguous and x.dtype.kind in "fc":
        return np.ascontiguousarray(x)
    return x


def float_sum(x, ax, keep_dims):
    """The sum over axes `ax` in `x`'s dtype: TensorFlow's order for
    float16/32/64 and the patterns `_eigen_sum` knows (bfloat16: summed in
    float32), else NumPy's (pairwise along a reduced last axis).

    Always over the values in row-major order: NumPy adds a strided array
    in its memory order, so a transposed view summed to other last bits
    than the same values in a new array, and an elementwise result's layout
    depends on how it was computed (into an operand's buffer, in a fused
    chain, or by a ufunc following its inputs' layout): compiled code
    differed from eager execution (DAG fuzz seed 921802). TensorFlow's
    tensors are always row-major."""
    x = row_major(x)
    if x.dtype == _F32 or x.dtype == _F64 or x.dtype == _F16:
        out = _eigen_sum(x, ax)
        if out is not None:
            return out.reshape(_jk.kept_shape(x.shape, ax, keep_dims))
    elif x.dtype.name == "bfloat16":
        # TensorFlow sums bfloat16 in float32 (its casting specialization of
        # the sum reducer), rounding the result once.
        return float_sum(x.astype(_F32), ax, keep_dims).astype(x.dtype)
    elif x.dtype.kind == "c" and x.size and ax:
        out = _complex_row_sums(x, ax)
        if out is not None:
            return out.reshape(_jk.kept_shape(x.shape, ax, keep_dims))
    return _add_reduce(x, axis=ax, dtype=x.dtype, keepdims=keep_dims)


_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _pattern(shape, ax):
    """TensorFlow's view of a reduction of `shape` over axes `ax`: axes of
    one value dropped, neighbours of the same kind merged; a list of
    (size, reduced)."""
    merged = []
    for a, d in enumerate(shape):
        if d == 1:
            continue
        r = a in ax
        if merged and merged[-1][1] == r:
            merged[-1][0] *= d
        else:
            merged.append([d, r])
    return merged


def float_prod(x, ax, keep_dims):
    """The product over axes `ax` in `x`'s dtype: TensorFlow's order (Eigen's
    ProdReducer, the sums' order with *) for float32/float64 and the
    patterns float_sum knows, else NumPy's over the row-major values."""
    x = row_major(x)
    if x.dtype == _F32 or x.dtype == _F64:
        out = _eigen_sum(x, ax, np.multiply)
        if out is not None:
            return out.reshape(_jk.kept_shape(x.shape, ax, keep_dims))
    return np.multiply.reduce(x, axis=ax, dtype=x.dtype, keepdims=keep_dims)


def _eigen_sum(x, ax, op=np.add):
    """The sum (op np.multiply: the product) of C-contiguous float32/float64
    `x` over `ax` in TensorFlow's order, flat (the kept values in order), or
    None for a pattern whose order is not known (see the module docstring)."""
    if x.size == 0 or not ax:
        return None
    x = np.ascontiguousarray(x)    # (a strided 1-D x; the compiled loops take C order)
    merged = _pattern(x.shape, ax)
    kinds = [r for _, r in merged]
    if not kinds or kinds == [False]:
        return x.reshape(-1).copy()     # only axes of one value: nothing is added
    if op is not np.add:
        return _eigen_product(x, merged, kinds)
    if kinds == [True] or kinds == [False, True]:
        return _row_sums(x.reshape(-1, merged[-1][0]))
    lanes = 4 if x.dtype == _F64 else 8
    if kinds == [True, False]:
        (r, _), (c, _) = merged
        return _columns(x.reshape(1, r, c), lanes)
    if kinds == [False, True, False]:
        (p, _), (r, _), (c, _) = merged
        return _columns(x.reshape(p, r, c), lanes)
    return _scattered(x, merged, kinds, np.add)


def _complex_row_sums(x, ax):
    """The sums of complex `x` over all axes or a trailing run in
    TensorFlow's order, flat, or None for other patterns: Eigen's
    inner-most reducer on complex packets (4 complex64 or 2 complex128
    values), which adds the real and the imaginary parts as separate lanes:
    row_sums of each part with that many lanes (their predux: (l0 + l2) +
    (l1 + l3), or l0 + l1)."""
    merged = _pattern(x.shape, ax)
    kinds = [r for _, r in merged]
    if kinds != [True] and kinds != [False, True]:
        return None
    rows = np.ascontiguousarray(x).reshape(-1, merged[-1][0])
    lanes = 4 if x.dtype == np.complex64 else 2
    out = np.empty(rows.shape[0], x.dtype)
    out.real = row_sums_of(np.ascontiguousarray(rows.real), lanes=lanes)
    out.imag = row_sums_of(np.ascontiguousarray(rows.imag), lanes=lanes)
    return out


def _row_sums(rows):
    """softmax_kernel.row_sums of (n, k) `rows` (compiled for float32)."""
    if rows.dtype == _F32:
        if not rows.flags.writeable:
            rows = rows.copy()     # (the compiled loops' signatures)
        return _jk.softmax_ops(rows.size)["row_sums"](rows)
    return row_sums(rows)


def _scattered(x, merged, kinds, op):
    """A reduction over axes that are not one run, as TensorFlow's
    ReductionOp takes it: over (reduced, kept, reduced) axes, Eigen's
    generic reducer, each output's values in order from zero, the last
    reduced axis outermost; over any other, the tensor transposed so that
    the kept axes come first and the reduced ones last, then the
    trailing-run order of its rows (checked against TensorFlow 2.21)."""
    dims = [d for d, _ in merged]
    if kinds == [True, False, True]:
        a, b, c = dims
        return ordered_reduce(np.transpose(x.reshape(dims), (1, 2, 0)).reshape(b, c * a), 1, op)
    kept = [i for i, r in enumerate(kinds) if not r]
    red = [i for i, r in enumerate(kinds) if r]
    rows = np.ascontiguousarray(np.transpose(x.reshape(dims), kept + red))
    rows = rows.reshape(-1, math.prod(dims[i] for i in red))
    return _row_sums(rows) if op is np.add else row_products(rows)


def _eigen_product(x, merged, kinds):
    """_eigen_sum's patterns for products (NumPy's steps only)."""
    if kinds == [True] or kinds == [False, True]:
        return row_products(x.reshape(-1, merged[-1][0]))
    lanes = 8 if x.dtype == _F32 else 4
    if kinds == [True, False]:
        return column_products(x.reshape(merged[0][0], merged[1][0]))
    if kinds == [False, True, False]:
        (p, _), (r, _), (c, _) = merged
        x3 = x.reshape(p, r, c)
        return np.where(_packed(p, c, lanes), _column_sums_3d(x3, np.multiply),
                        ordered_reduce(x3, 1, np.multiply))
    return _scattered(x, merged, kinds, np.multiply)


def _columns(x3, lanes):
    """softmax_kernel.column_sums of each slice x3[p], (P, C): the jit
    extra's loop once loaded, else NumPy's steps (the same bits)."""
    p, r, c = x3.shape
    ks = _jk.REDUCE.get(x3.size) if x3.dtype != _F16 else None
    if ks is not None:
        if not x3.flags.writeable:
            x3 = x3.copy()
        out = np.empty((p, c), x3.dtype)
        ks["column_sums"](x3, out, lanes)
        return out
    if c < lanes:
        return ordered_sum(x3, 1)     # (column_sums of no whole packet)
    if p == 1:
        return column_sums(x3[0])[None]
    if c % lanes == 0:
        return _column_sums_3d(x3)
    return np.where(_packed(p, c, lanes), _column_sums_3d(x3), ordered_sum(x3, 1))


def _packed(p, c, lanes):
    """Which outputs (p, c) of a reduction over the middle axis of
    (P, R, C) Eigen computes in a packet: it evaluates the flat output
    (p * C + c) a packet of `lanes` at a time, and a packet that lies
    within one slice p adds its rows in four accumulators; a packet across
    two slices (and the last, partial one) is taken one output at a time,
    its rows in order (checked against TensorFlow 2.21)."""
    f = np.arange(p * c)
    s = f - f % lanes
    return (((s % c) + lanes <= c) & (s + lanes <= p * c)).reshape(p, c)


def _column_sums_3d(x3, op=np.add):
    """softmax_kernel.column_sums (op np.multiply: column_products) of each
    slice x3[p], all of its columns taken as whole packets, all at once."""
    p, r, c = x3.shape
    if r < 16:
        return ordered_reduce(x3, 1, op)
    r4 = r - r % 4
    accs = ordered_reduce(x3[:, :r4].reshape(p, r4 // 4, 4, c), 1, op)
    out = op(accs[:, 0], accs[:, 1])
    op(out, accs[:, 2], out=out)
    op(out, accs[:, 3], out=out)
    for j in range(r4, r):
        op(out, x3[:, j], out=out)
    return out
