"""Sparse (IndexedSlices) gradients in the backprop engine.

The gradient of a gather along axis 0 is an IndexedSlices (gather_ops.py).
TensorFlow keeps it sparse on its way back to the gathered tensor or
variable only through the ops whose gradient is a plain pass-through or
acts row by row (identity, variable reads, casts, additions that need no
broadcasting, negation, concatenation); every other gradient function
sees it densified. Several gradients of one tensor add up: IndexedSlices
by concatenating their rows, a mix with dense gradients by densifying.

This module holds those rules, so that the engine (backprop.py) and the
op modules stay as they were: the engine asks `call_gradient` only when an
upstream gradient is an IndexedSlices.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework.convert import convert_to_tensor
from ...framework.indexed_slices import IndexedSlices, densify
from ...framework.tensor import EagerTensor
from .. import late
from ..core.op_util import constant_value

__all__ = ["aggregate", "call_gradient", "densify_all", "sparse_gather_gradient"]

_state = _context.state

# Gradient functions that densify an IndexedSlices knowingly (TensorFlow's
# use no warning there: the dense shape is that of their own input).
_QUIET = frozenset(("GatherV2", "ResourceGather", "Reshape", "Squeeze", "ExpandDims", "Tile",
                    "DynamicStitch", "ParallelDynamicStitch", "ExtractImagePatches",
                    "ExtractVolumePatches"))


def _dense(g, op_type=None):
    if g.__class__ is IndexedSlices:
        return densify(g, warn=op_type not in _QUIET)
    return g


def densify_all(grads):
    """`grads` with every IndexedSlices made dense (for graph outputs that
    must be tensors: branch and loop-body gradients)."""
    return [_dense(g) for g in grads]


# --- aggregation -------------------------------------------------------------

def aggregate(grads):
    """The sum of several gradients of one tensor, some IndexedSlices: their
    rows concatenated when all are IndexedSlices (int32 indices become
    int64 when mixed with int64 ones), else the dense sum."""
    grads = [g for g in grads if g is not None]
    if len(grads) == 1:
        return grads[0]
    if any(g.__class__ is not IndexedSlices for g in grads):
        return late.add_n([_dense(g) for g in grads])
    wide = any(convert_to_tensor(g.indices).dtype is D.int64 for g in grads)
    values, indices = [], []
    for g in grads:
        v, i = _flat(g)
        values.append(v)
        indices.append(late.cast(i, D.int64) if wide and i.dtype is not D.int64 else i)
    return IndexedSlices(late.concat(values, 0), late.concat(indices, 0), grads[0].dense_shape)


def _flat(g):
    """values and indices of `g` with the indices made 1-D (and the values'
    leading dimensions merged to match), as concatenation needs."""
    v = convert_to_tensor(g.values)
    i = convert_to_tensor(g.indices)
    if i.shape.rank == 1:
        return v, i
    vs = v.shape
    if i.shape.rank is not None and vs.rank is not None and vs[i.shape.rank:].is_fully_defined():
        return late.reshape(v, [-1] + vs[i.shape.rank:].as_list()), late.reshape(i, [-1])
    return late.reshape(v, late.concat([[-1], late.shape(v)[i.shape.rank:]], 0)), late.reshape(i, [-1])


# --- gradient functions that take an IndexedSlices ---------------------------

def call_gradient(op, fn, dys):
    """The input gradients of `op` (gradient function `fn`) for output
    gradients `dys`, some of them IndexedSlices: kept sparse where
    TensorFlow keeps them, densified for every other gradient function."""
    rule = None if "_grad_fn" in op.attrs else _SPARSE_RULES.get(op.type)
    if rule is not None:
        out = rule(op, fn, *dys)
        if out is not NotImplemented:
            return out
    return fn(op, *[_dense(d, op.type) for d in dys])


def _pass_through(op, fn, g):
    return [g]


def _neg(op, fn, g):
    return [-g]


def _cast(op, fn, g):
    src = op.inputs[0].dtype
    if (src.is_floating or src.is_complex) and (g.dtype.is_floating or g.dtype.is_complex):
        return [IndexedSlices(late.cast(g.values, src), g.indices, g.dense_shape)]
    return [None]


def _same_static_shape(x, out):
    """Whether `x` needs no reduction of the output gradient: TensorFlow
    passes an IndexedSlices straight through an addition to an input whose
    shape is fully known and that of the output."""
    s = x.shape
    return s.is_fully_defined() and s == out.shape


def _add_or_sub(op, fn, g):
    out = op.outputs[0]
    keep = [_same_static_shape(x, out) for x in op.inputs]
    if all(keep):
        dense = [None] * len(op.inputs)
    else:
        dense = list(fn(op, densify(g)))
    res = []
    for k, (x, d) in enumerate(zip(op.inputs, dense)):
        if not keep[k]:
            res.append(d)
        elif k == 1 and op.type == "Sub":
            res.append(-g)
        else:
            res.append(g)
    return res


def _concat(op, fn, g):
    """Each input's share of an IndexedSlices gradient: along axis 0 the rows
    that fall in its range, renumbered; along another axis every row, cut
    to the input's columns."""
    *xs, axis = op.inputs
    a = constant_value(axis)
    rank = xs[0].shape.rank
    if a is None or (int(a) < 0 and rank is None):
        return NotImplemented
    a = int(a) % rank if int(a) < 0 else int(a)
    if a > 0:
        v = convert_to_tensor(g.values)
        parts = late.split(v, late._axis_sizes(xs, axis), axis=a, num=len(xs))
        return [IndexedSlices(p, g.indices, late.shape(x)) for p, x in zip(parts, xs)] + [None]
    v, i = _flat(g)
    out = []
    if _state.graph is None and not _state.tapes and isinstance(v, EagerTensor):
        start = 0
        iv = i._v
        for x in xs:
            end = start + x._v.shape[0]
            sel = np.flatnonzero((iv >= start) & (iv < end))
            out.append(IndexedSlices(EagerTensor(v._v[sel]),
                                     EagerTensor((iv[sel] - start).astype(iv.dtype)),
                                     EagerTensor(np.array(x._v.shape, np.int32))))
            start = end
        return out + [None]
    start = convert_to_tensor(0, dtype=i.dtype)
    for x in xs:
        size = late.shape(x)
        rows = size[0] if i.dtype is D.int32 else late.cast(size[0], i.dtype)
        end = start + rows
        sel = late.squeeze(late.where(late.logical_and(i >= start, i < end)), axis=[1])
        out.append(IndexedSlices(late.gather(v, sel), late.gather(i, sel) - start, size))
        start = end
    return out + [None]


_SPARSE_RULES = {
    "Identity": _pass_through,
    "ReadVariableOp": _pass_through,
    "Snapshot": _pass_through,
    "Cast": _cast,
    "Neg": _neg,
    "AddV2": _add_or_sub,
    "Add": _add_or_sub,
    "Sub": _add_or_sub,
    "ConcatV2": _concat,
}


# --- the gradient of a gather along axis 0 -----------------------------------

def sparse_gather_gradient(params, indices, grad):
    """The IndexedSlices gradient of `gather(params, indices)` along axis 0:
    `grad` with its leading (index) dimensions merged into one row
    dimension, the flattened indices, and params' shape (int32)."""
    if grad.__class__ is IndexedSlices:
        grad = densify(grad, warn=False)
    if _state.graph is None and not _state.tapes and grad.__class__ is EagerTensor \
            and params.__class__ is EagerTensor and indices.__class__ is EagerTensor:
        # The usual eager case: plain NumPy reshapes (views), no op dispatch.
        pshape = params._v.shape
        iv = indices._v
        n = iv.size
        return IndexedSlices(EagerTensor(grad._v.reshape((n,) + pshape[1:])),
                             EagerTensor(iv.reshape(n)),
                             EagerTensor(np.array(pshape, np.int32)))
    ps, ishape = params.shape, indices.shape
    if ps.is_fully_defined():
        dense_shape = convert_to_tensor(np.array(ps.as_list(), np.int32))
        tail = ps.as_list()[1:]
    else:
        dense_shape = late.shape(params)
        tail = dense_shape[1:]
    if ishape.is_fully_defined():
        n = [int(np.prod(ishape.as_list(), dtype=np.int64))]
    else:
        n = late.reshape(late.size(indices), [1])
    if isinstance(n, list) and isinstance(tail, list):
        values = late.reshape(grad, n + tail)
    else:
        values = late.reshape(grad, late.concat([n, tail], 0))
    return IndexedSlices(values, late.reshape(indices, n), dense_shape)
