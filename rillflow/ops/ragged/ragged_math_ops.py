"""Math on RaggedTensors, as TensorFlow dispatches it: elementwise ops on the
flat values (with TensorFlow's broadcasting between ragged, dense and
scalar operands), reductions along any axis (unsorted segment reductions
over the row ids: empty rows give the reduction's identity, as in
TensorFlow), `tf.ragged.map_flat_values`, and the Python operators
(installed on RaggedTensor when this module is imported).

Everything is a few whole-array core ops on the components, so it runs
eagerly and in graphs alike and gradients reach the flat values.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import EagerTensor
from ..core import math_ops as M
from ..core.broadcast_ops import broadcast_to
from ..core.constant_ops import ones_like
from ..core.unary_ops import abs as tf_abs, sqrt, square
from ..core.gather_ops import gather
from ..core.join_ops import concat
from ..core.repeat_unique_roll_ops import repeat
from ..core.creation_ops import range as tf_range
from ..core.dim_ops import expand_dims, squeeze
from ..core.reduction_ops import reduce_all, reduce_any, reduce_max, reduce_min, \
    reduce_prod, reduce_sum
from ..core.scan_ops import cumsum
from ..core.segment_ops import unsorted_segment_max, unsorted_segment_min, \
    unsorted_segment_prod, unsorted_segment_sum
from ..core.shape_ops import reshape
from ..core.slicing import getitem
from ..core.constant_ops import zeros
from .ragged_tensor import RaggedTensor, _eager
from .ragged_conversion import from_tensor
from . import ragged_tile


# --- elementwise ----------------------------------------------------------------------

def _assert_same_splits(x, y):
    """TensorFlow's `assert_equal` on two row-splits vectors (eagerly)."""
    if not _eager(x, y):
        return
    a, b = x._v, y._v
    if a.shape != b.shape:
        raise errors.InvalidArgumentError(
            None, None, "Condition x == y did not hold.\nFirst 1 elements of x:\n[False]\n"
            "First 1 elements of y:\n[ True]")
    diff = np.nonzero(a != b)[0]
    if diff.size:
        d = diff[:3]
        raise errors.InvalidArgumentError(
            None, None, "Condition x == y did not hold.\nIndices of first "
            f"{d.size} different values:"
            f"\n{d.reshape(-1, 1)}\nCorresponding x values:\n{a[d]}\nCorresponding y "
            f"values:\n{b[d]}\nFirst 3 elements of x:\n{a[:3]}\nFirst 3 elements of y:\n"
            f"{b[:3]}")


def _same_partition(x, y):
    """Checks that two RaggedTensors have the same row partitions.

    Raises:
      ValueError: different ragged ranks.
      InvalidArgumentError: different splits.
    """
    if x.ragged_rank != y.ragged_rank:
        raise ValueError(f"Ragged ranks differ: {x.ragged_rank} and {y.ragged_rank}")
    for a, b in zip(x.nested_row_splits, y.nested_row_splits):
        if a is not b:
            _assert_same_splits(a, b)


def _outer_rowids(rt):
    """For each flat value, the index of its outermost row."""
    ids = rt.value_rowids()
    level = rt.values
    while isinstance(level, RaggedTensor):
        ids = gather(ids, level.value_rowids())
        level = level.values
    return ids


def _broadcast_dense(rt, d):
    """The dense `d` broadcast to `rt`'s flat values (`rt` ragged, `d` a
    Tensor), or a RaggedTensor of `d` with its own partition where `d` has
    full-size ragged dimensions (TensorFlow then checks the partitions)."""
    rank = rt.shape.rank
    k = rt.ragged_rank
    drank = d.shape.rank
    inner = rank - k - 1     # the uniform dims below the ragged ones
    if drank is None or drank <= inner:
        return d
    dims = [1] * (rank - drank) + d.shape.as_list()
    n = rt.nrows_value()
    if dims[0] not in (1, None) and n is not None and dims[0] != n:
        # The outer dimensions differ: TensorFlow's failed assert_equal.
        raise errors.InvalidArgumentError(
            None, None, "Condition x == y did not hold.\nFirst 1 elements of x:\n[False]\n"
            "First 1 elements of y:\n[ True]")
    ragged_dims = dims[1:k + 1]
    if all(x == 1 for x in ragged_dims):
        d = reshape(d, [dims[0]] + dims[k + 1:])
        if dims[0] == 1:
            return squeeze(d, [0])
        return gather(d, _outer_rowids(rt))
    if drank < rank or (dims[0] == 1 and n is not None):
        # A size-1 outer dimension broadcasts to the rows before partitioning.
        d = broadcast_to(reshape(d, dims), [rt.nrows_value()] + dims[1:]) \
            if dims[0] == 1 else reshape(d, dims)
    return from_tensor(RaggedTensor, d, ragged_rank=k, row_splits_dtype=rt.row_splits.dtype)


def _dense_of_higher_rank(func, rt, d, rt_first):
    """`func` of RaggedTensor `rt` and a dense `d` of higher rank: `rt` is
    repeated along `d`'s extra outer dimensions (as broadcasting does). The
    copies are laid end to end as rows, `d` is folded the same way, the
    same-rank broadcast does the work, then the extra dimensions are put
    back as uniform row partitions."""
    extra = d.shape.rank - rt.shape.rank
    dims = d.shape.as_list()
    lead, rest = dims[:extra], dims[extra:]
    k = rt.nrows_value()
    if None in lead or k is None or rest[0] is None:
        raise NotImplementedError("broadcasting a RaggedTensor against a dense tensor of "
                                  "higher rank with unknown dimensions")
    if rest[0] not in (1, k):
        raise errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: {dims} vs. {rt.shape}")
    count = int(np.prod(lead))
    folded = broadcast_to(reshape(d, [count] + rest), [count, k] + rest[1:])
    folded = reshape(folded, [count * k] + rest[1:])
    copies = ragged_tile.tile(rt, [count] + [1] * (rt.shape.rank - 1))
    out = binary_elementwise(func, copies, folded) if rt_first else \
        binary_elementwise(func, folded, copies)
    out = RaggedTensor.from_uniform_row_length(out, k, nrows=count, validate=False)
    for j in range(len(lead) - 1, 0, -1):
        out = RaggedTensor.from_uniform_row_length(out, lead[j], nrows=int(np.prod(lead[:j])),
                                                   validate=False)
    return out


def _raise_ragged_rank(rt, ragged_rank):
    """`rt` with its uniform inner dimensions up to `ragged_rank` turned into
    row partitions (same values), so it can meet a tensor of that ragged rank."""
    extra = ragged_rank - rt.ragged_rank
    if extra <= 0:
        return rt
    return rt.with_flat_values(from_tensor(RaggedTensor, rt.flat_values, ragged_rank=extra,
                                           row_splits_dtype=rt.row_splits.dtype))


def binary_elementwise(func, x, y):
    """`func(x, y)` where either is ragged: on the flat values, the dense or
    scalar operand broadcast to them (a dense operand of higher rank repeats
    the ragged one along its extra outer dimensions; two ragged operands of
    one rank but different ragged ranks meet at the higher ragged rank)."""
    x_r, y_r = isinstance(x, RaggedTensor), isinstance(y, RaggedTensor)
    if not x_r:
        x = convert_to_tensor(x, dtype_hint=y.dtype)
    if not y_r:
        y = convert_to_tensor(y, dtype_hint=x.dtype)
    rx, ry = x.shape.rank, y.shape.rank
    if x_r and not y_r and rx is not None and ry is not None and ry > rx:
        return _dense_of_higher_rank(func, x, y, True)
    if y_r and not x_r and rx is not None and ry is not None and rx > ry:
        return _dense_of_higher_rank(func, y, x, False)
    if x_r and y_r and rx is not None and rx == ry and x.ragged_rank != y.ragged_rank:
        k = max(x.ragged_rank, y.ragged_rank)
        x, y = _raise_ragged_rank(x, k), _raise_ragged_rank(y, k)
    if x_r and not y_r:
        y = _broadcast_dense(x, y)
        if isinstance(y, RaggedTensor):
            _same_partition(y, x)
            return x.with_flat_values(func(x.flat_values, y.flat_values))
        return x.with_flat_values(func(x.flat_values, y))
    if y_r and not x_r:
        x = _broadcast_dense(y, x)
        if isinstance(x, RaggedTensor):
            _same_partition(x, y)
            return y.with_flat_values(func(x.flat_values, y.flat_values))
        return y.with_flat_values(func(x, y.flat_values))
    _same_partition(x, y)
    return x.with_flat_values(func(x.flat_values, y.flat_values))


def unary_elementwise(func, x):
    """`func` on the flat values of the RaggedTensor `x`."""
    return x.with_flat_values(func(x.flat_values))


@export("ragged.map_flat_values")
def map_flat_values(op, *args, **kwargs):
    """`op(*args, **kwargs)` with every RaggedTensor argument replaced by its
    flat values; the result has their (common) row partition.

    Raises:
      ValueError: RaggedTensors whose flat values differ in length.
    """
    found = []

    def flat(x):
        if isinstance(x, RaggedTensor):
            found.append(x)
            return x.flat_values
        if isinstance(x, (list, tuple)):
            return type(x)(flat(v) for v in x)
        if isinstance(x, dict):
            return {k: flat(v) for k, v in x.items()}
        return x

    fargs = flat(list(args))
    fkwargs = flat(dict(kwargs))
    if not found:
        return op(*args, **kwargs)
    sizes = {r.flat_values.shape[0] for r in found}
    if len(sizes) > 1 and None not in sizes:
        raise ValueError("Input RaggedTensors' flat_values must all have the same "
                         f"outer-dimension size.  Got sizes: {sizes}")
    for r in found[1:]:
        for a, b in zip(found[0].nested_row_splits, r.nested_row_splits):
            if a is not b:
                _assert_same_splits(a, b)
    out = op(*fargs, **fkwargs)
    return found[0].with_flat_values(out)


# --- reductions -------------------------------------------------------------------------

def _segment_aggregate(seg_op, data, segment_ids, num_segments):
    """`seg_op` over the rows of `data` (a Tensor or RaggedTensor) by
    `segment_ids`: for ragged data, row j of segment s adds into row s
    item by item (TensorFlow's `_ragged_segment_aggregate`)."""
    if not isinstance(data, RaggedTensor):
        return seg_op(data, segment_ids, num_segments)
    dtype = data.row_splits.dtype
    lengths = data.row_lengths()
    out_lengths = M.maximum(unsorted_segment_max(lengths, segment_ids, num_segments),
                            M.cast(0, dtype))
    out_splits = concat([zeros([1], dtype), cumsum(out_lengths)], 0)
    starts = gather(out_splits, segment_ids)
    # Item j of data row i goes to output item starts[i] + j.
    item_ids = repeat(starts - getitem(data.row_splits, slice(None, -1)), lengths) + \
        tf_range(getitem(data.row_splits, -1), dtype=dtype)
    values = _segment_aggregate(seg_op, data.values, item_ids, getitem(out_splits, -1))
    return RaggedTensor(values, out_splits)


def _position_in_row(rt):
    """For each item of `rt.values`, its position within its row."""
    dtype = rt.row_splits.dtype
    n = getitem(rt.row_splits, -1)
    return tf_range(n, dtype=dtype) - gather(rt.row_starts(), rt.value_rowids())


def _reduce_one(seg_op, dense_op, rt, axis):
    if not isinstance(rt, RaggedTensor):
        return dense_op(rt, axis)
    if axis == 0:
        lengths = rt.row_lengths()
        num = M.maximum(reduce_max(lengths), M.cast(0, lengths.dtype)) \
            if not _eager(lengths) else convert_to_tensor(
                np.array(lengths._v.max() if lengths._v.size else 0, lengths._v.dtype))
        return _segment_aggregate(seg_op, rt.values, _position_in_row(rt), num)
    if axis == 1:
        return _segment_aggregate(seg_op, rt.values, rt.value_rowids(), rt.nrows())
    return rt.with_values(_reduce_one(seg_op, dense_op, rt.values, axis - 1))


def _reduce(seg_op, dense_op, rt, axis, keepdims):
    if axis is None:
        out = dense_op(rt.flat_values, None)
        if keepdims:
            out = reshape(out, [1] * rt.shape.rank)
        return out
    rank = rt.shape.rank
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(
        axis.numpy().reshape(-1) if isinstance(axis, EagerTensor) else axis)
    axes = sorted({int(a) + rank if int(a) < 0 else int(a) for a in axes})
    for a in axes:
        if not 0 <= a < rank:
            raise ValueError(f"axis={a} out of bounds: expected {-rank}<=axis<{rank}")
    out = rt
    for a in reversed(axes):
        out = _reduce_one(seg_op, dense_op, out, a)
    if keepdims:
        for a in axes:
            out = expand_dims(out, a) if not isinstance(out, RaggedTensor) else \
                _expand_ragged(out, a)
    return out


def _expand_ragged(rt, axis):
    if axis == 0:
        return RaggedTensor.from_uniform_row_length(rt, rt.nrows(), nrows=1)
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(rt, 1, nrows=rt.nrows_value())
    return rt.with_values(expand_dims(rt.values, axis - 1) if not isinstance(
        rt.values, RaggedTensor) else _expand_ragged(rt.values, axis - 1))


def _dense(op):
    return lambda t, axis: op(t, axis=axis)


_REDUCTIONS = {
    "sum": (unsorted_segment_sum, _dense(reduce_sum)),
    "prod": (unsorted_segment_prod, _dense(reduce_prod)),
    "max": (unsorted_segment_max, _dense(reduce_max)),
    "min": (unsorted_segment_min, _dense(reduce_min)),
}


def reduce(kind, rt, axis=None, keepdims=False):
    """The ragged reduction `kind` ('sum', 'prod', 'max', 'min', 'mean',
    'any', 'all', 'variance', 'std') of `rt` over `axis`, as TensorFlow:
    empty rows give the identity (the lowest value for max), the mean of
    an integer tensor is float64."""
    if kind in _REDUCTIONS:
        seg, dense = _REDUCTIONS[kind]
        return _reduce(seg, dense, rt, axis, keepdims)
    if kind in ("any", "all"):
        # As TensorFlow: through int32 sums / products of the booleans.
        ints = rt.with_flat_values(M.cast(rt.flat_values, D.int32))
        if axis is None:
            return (reduce_any if kind == "any" else reduce_all)(rt.flat_values,
                                                                  keepdims=keepdims)
        # any: a positive count of trues; all: no false (an empty min is the
        # largest int, true as TensorFlow gives).
        out = reduce("sum" if kind == "any" else "min", ints, axis, keepdims)
        return map_flat_values(M.cast, out, D.bool_) if isinstance(out, RaggedTensor) else \
            M.cast(out, D.bool_)
    if kind == "mean":
        x = rt if rt.dtype.is_floating or rt.dtype.is_complex else \
            rt.with_flat_values(M.cast(rt.flat_values, D.float64))
        total = reduce("sum", x, axis, keepdims)
        count = reduce("sum", x.with_flat_values(ones_like(x.flat_values)), axis, keepdims)
        return binary_elementwise(M.truediv, total, count) \
            if isinstance(total, RaggedTensor) else M.truediv(total, count)
    if kind in ("variance", "std"):
        # TensorFlow's formula: E[x^2] - E[x]^2, clipped at 0.
        mean = reduce("mean", rt, axis, keepdims)
        mean_sq = reduce("mean", unary_elementwise(square, rt), axis, keepdims)
        var = binary_elementwise(M.maximum, binary_elementwise(M.subtract, mean_sq,
                                                               map_flat_values(square, mean)),
                                 0) if isinstance(mean, RaggedTensor) else \
            M.maximum(mean_sq - square(mean), M.cast(0, mean.dtype))
        if kind == "variance":
            return var
        return map_flat_values(sqrt, var) if isinstance(var, RaggedTensor) else sqrt(var)
    raise ValueError(f"unknown reduction {kind}")


# --- the Python operators ---------------------------------------------------------------

def _eq(self, other, fn=M.equal):
    """`==` item by item, as TensorFlow's RaggedTensor (None: not equal)."""
    if other is None:
        return fn is not M.equal
    return binary_elementwise(fn, self, other)


def _install_operators():
    """`+`, `*`, `<`, `-x`, ... on RaggedTensor, through the elementwise rules."""
    binary = {"add": M.add, "sub": M.subtract, "mul": M.multiply, "truediv": M.truediv,
              "floordiv": M.floordiv, "mod": M.floormod, "pow": M.pow,
              "and": M.logical_and, "or": M.logical_or, "xor": M.logical_xor}
    for name, fn in binary.items():
        def op(self, other, _fn=fn):
            return binary_elementwise(_fn, self, other)

        def rop(self, other, _fn=fn):
            return binary_elementwise(_fn, other, self)
        setattr(RaggedTensor, f"__{name}__", op)
        setattr(RaggedTensor, f"__r{name}__", rop)
    RaggedTensor.__div__ = RaggedTensor.__truediv__
    for name, fn in {"lt": M.less, "le": M.less_equal, "gt": M.greater,
                     "ge": M.greater_equal}.items():
        setattr(RaggedTensor, f"__{name}__",
                lambda self, other, _fn=fn: binary_elementwise(_fn, self, other))
    RaggedTensor.__eq__ = _eq
    RaggedTensor.__ne__ = lambda self, other: _eq(self, other, M.not_equal)
    # Still hashable by identity (tf.data and the trace cache key values by id).
    RaggedTensor.__hash__ = object.__hash__
    RaggedTensor.__neg__ = lambda self: unary_elementwise(M.negative, self)
    RaggedTensor.__abs__ = lambda self: unary_elementwise(tf_abs, self)
    RaggedTensor.__invert__ = lambda self: unary_elementwise(M.logical_not, self)


_install_operators()

