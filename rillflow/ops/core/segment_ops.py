"""Segment reductions: sum, mean, prod, max and min over the rows that share a segment id,
with sorted ids (segment_*) or ids in any order (unsorted_segment_*, plus mean and
sqrt_n), and bincount, which is a segment sum keyed by the values themselves
(DenseBincount).
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.execute import apply, apply2
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, dims_text
from . import op_util as U
from .. import late
from .reduction_util import NUMERIC, REAL, _IDX, _index_tensor, _invalid, _scope
from .reduction_ops import _int_mean, reduce_max


# --- segment reductions (sorted segment ids) -----------------------------------

_SORTED_IDX = U.INDEX
_UNSORTED_IDX = (D.int16, D.int32, D.int64)


def _sorted_segments(data, ids):
    """Validates sorted segment ids; returns (number of segments, run starts)."""
    if data.ndim < 1:
        raise _invalid("input must be at least rank 1")
    if ids.ndim != 1:
        raise _invalid("segment_ids should be a vector.")
    if ids.shape[0] != data.shape[0]:
        raise _invalid("segment_ids should be the same size as dimension 0 of input.")
    if ids.shape[0] == 0:
        return 0, np.zeros(0, dtype=np.intp)
    n = int(ids[-1]) + 1
    if ids[0] < 0:
        raise _invalid(f"Segment id {int(ids[0])} out of range [0, {n}), possibly because "
                       "'segment_ids' input is not sorted.")
    step = ids[1:] != ids[:-1]
    if np.any(ids[1:] < ids[:-1]):
        raise _invalid("segment ids are not increasing")
    starts = np.concatenate([[0], np.flatnonzero(step) + 1])
    return n, starts


def _ordered_reduce(ufunc, data, segment_ids, starts):
    """The segments' sums (or products) in TensorFlow's order: a one-row
    segment is its row; a longer one accumulates its rows in order from the
    identity, as Eigen's reduction over the outer dimension does. (NumPy's
    reduceat adds the first row to the pairwise sum of the others, which
    rounds differently for floats.)"""
    if data.dtype.kind not in "fc" and data.dtype.kind != "V":
        return ufunc.reduceat(data, starts, axis=0, dtype=data.dtype)
    seg = np.repeat(np.arange(starts.size), np.diff(np.append(starts, data.shape[0])))
    out = np.full((starts.size,) + data.shape[1:], ufunc.identity, dtype=data.dtype)
    ufunc.at(out, seg, data)
    single = np.flatnonzero(np.diff(np.append(starts, data.shape[0])) == 1)
    out[single] = data[starts[single]]
    return out


def _segment_kernel(ufunc, empty):
    def kernel(data, segment_ids):
        n, starts = _sorted_segments(data, segment_ids)
        out = np.full((n,) + data.shape[1:], empty, dtype=data.dtype)
        if starts.size:
            out[segment_ids[starts]] = (
                _ordered_reduce(ufunc, data, segment_ids, starts)
                if ufunc is np.add or ufunc is np.multiply
                else ufunc.reduceat(data, starts, axis=0, dtype=data.dtype))
        return out
    return kernel


def _divide_by_count(sums, counts):
    """`sums / counts` as TensorFlow's kernels divide: a complex sum's real and
    imaginary parts each by the count (NumPy's complex division by a complex
    count rounds differently)."""
    if sums.dtype.kind != "c":
        return sums / counts.astype(sums.dtype)
    c = counts.astype(sums.real.dtype)
    out = np.empty_like(sums)
    out.real = sums.real / c
    out.imag = sums.imag / c
    return out


def _segment_mean_kernel(data, segment_ids):
    n, starts = _sorted_segments(data, segment_ids)
    out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
    if starts.size:
        sums = _ordered_reduce(np.add, data, segment_ids, starts)
        counts = np.diff(np.append(starts, data.shape[0])).reshape(
            (-1,) + (1,) * (data.ndim - 1))
        if data.dtype.kind in "iu":
            out[segment_ids[starts]] = _int_mean(sums, counts, data.dtype)
        else:
            out[segment_ids[starts]] = _divide_by_count(sums, counts)
    return out


def _segment_infer(op_name, allowed):
    def infer(inputs, attrs):
        data, ids = inputs
        U.check_graph_dtype(data, allowed, "data")
        U.check_graph_dtype(ids, _SORTED_IDX, "segment_ids")
        if ids.shape.rank is not None and ids.shape.rank != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {ids.shape.rank}")
        s = data.shape
        if s.rank is None:
            return [(TensorShape(None), data.dtype)]
        if s.rank == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        return [(TensorShape([None] + s.as_list()[1:]), data.dtype)]
    return infer


def _gather(params, indices):
    return late.gather(params, indices)


def _rows_like(t, like):
    """A 1-D `t` of one value per segment reshaped to broadcast against `like`
    (whose first dimension is the segments)."""
    r = like.shape.rank
    if r is not None:
        return late.reshape(t, [-1] + [1] * (r - 1))
    ones = late.fill(late.reshape(late.rank(like) - 1, [1]), 1)
    return late.reshape(t, late.concat([convert_to_tensor([-1]), ones], 0))


def _segment_sum_grad(op, g):
    return [_gather(g, op.inputs[1]), None]


def _segment_mean_grad(op, g):
    data, ids = op.inputs
    counts = segment_sum(late.cast(late.ones_like(ids), g.dtype), ids)
    counts = late.maximum(counts, convert_to_tensor(1, dtype=g.dtype))
    return [_gather(late.truediv(g, _rows_like(counts, g)), ids), None]


def _segment_min_or_max_grad(op, g):
    """Ties within a segment share its gradient equally."""
    data, ids = op.inputs
    is_selected = late.equal(data, _gather(op.outputs[0], ids))
    num_selected = segment_sum(late.cast(is_selected, g.dtype), ids)
    weighted = late.truediv(g, num_selected)
    return [late.where(is_selected, _gather(weighted, ids), late.zeros_like(data)), None]


def _prod_without_self(data, gathered_prod, gathered_prod_nonzero, gathered_num_zeros,
                       is_zero, safe):
    """The product of the other elements of each element's segment."""
    at_zero = late.where(late.equal(gathered_num_zeros, 1), gathered_prod_nonzero,
                         late.zeros_like(data))
    return late.where(is_zero, at_zero, late.truediv(gathered_prod, safe))


def _segment_prod_grad(op, g):
    data, ids = op.inputs
    is_zero = late.equal(data, late.zeros_like(data))
    num_zeros = segment_sum(late.cast(is_zero, D.int32), ids)
    safe = late.where(is_zero, late.ones_like(data), data)
    prod_nonzero = segment_prod(safe, ids)
    others = _prod_without_self(data, _gather(op.outputs[0], ids), _gather(prod_nonzero, ids),
                                _gather(num_zeros, ids), is_zero, safe)
    return [late.multiply(_gather(g, ids), late.conj(others)), None]


_SegmentSum = register("SegmentSum", _segment_kernel(np.add, 0),
                       _segment_infer("SegmentSum", NUMERIC), _segment_sum_grad,
                       allowed=NUMERIC)
_SegmentMean = register("SegmentMean", _segment_mean_kernel,
                        _segment_infer("SegmentMean", NUMERIC), _segment_mean_grad,
                        allowed=NUMERIC)
_SegmentProd = register("SegmentProd", _segment_kernel(np.multiply, 1),
                        _segment_infer("SegmentProd", NUMERIC), _segment_prod_grad,
                        allowed=NUMERIC)
_SegmentMax = register("SegmentMax", _segment_kernel(np.maximum, 0),
                       _segment_infer("SegmentMax", REAL), _segment_min_or_max_grad,
                       allowed=REAL)
_SegmentMin = register("SegmentMin", _segment_kernel(np.minimum, 0),
                       _segment_infer("SegmentMin", REAL), _segment_min_or_max_grad,
                       allowed=REAL)


def _segment(opdef, data, segment_ids, name):
    data = convert_to_tensor(data)
    U.check_dtype(opdef.name, data, opdef.allowed, param="data")
    ids = _index_tensor(segment_ids, name, "segment_ids", strict=False)
    U.check_dtype(opdef.name, ids, _SORTED_IDX, attr="Tindices", param="segment_ids")
    return apply2(opdef, data, ids, name=name)


@export("math.segment_sum")
def segment_sum(data, segment_ids, name=None):
    """Sums the rows of `data` that share a (sorted) segment id; output row i
    is segment i (0 for ids that do not occur)."""
    return _segment(_SegmentSum, data, segment_ids, name or "SegmentSum")


@export("math.segment_mean")
def segment_mean(data, segment_ids, name=None):
    """The mean of the rows of each segment (sorted ids; 0 for empty segments;
    integer means truncate)."""
    return _segment(_SegmentMean, data, segment_ids, name or "SegmentMean")


@export("math.segment_prod")
def segment_prod(data, segment_ids, name=None):
    """The product of the rows of each segment (sorted ids; 1 for empty segments)."""
    return _segment(_SegmentProd, data, segment_ids, name or "SegmentProd")


@export("math.segment_max")
def segment_max(data, segment_ids, name=None):
    """The maximum of the rows of each segment (sorted ids; 0 for empty segments)."""
    return _segment(_SegmentMax, data, segment_ids, name or "SegmentMax")


@export("math.segment_min")
def segment_min(data, segment_ids, name=None):
    """The minimum of the rows of each segment (sorted ids; 0 for empty segments)."""
    return _segment(_SegmentMin, data, segment_ids, name or "SegmentMin")


# --- unsorted segment reductions -------------------------------------------------

def _unsorted_kernel(op_name, ufunc, init):
    def kernel(data, segment_ids, num_segments):
        if np.ndim(num_segments) != 0:
            raise _invalid(f"num_segments should be a scalar, not shape "
                           f"{dims_text(np.shape(num_segments))}", op_name)
        n = int(num_segments)
        if n < 0:
            raise _invalid(f"Input num_segments == {n} must not be negative.")
        k = segment_ids.ndim
        if data.shape[:k] != segment_ids.shape:
            raise _invalid(f"data.shape = {dims_text(data.shape)} does not start with "
                           f"segment_ids.shape = {dims_text(segment_ids.shape)}", op_name)
        ids = segment_ids.reshape(-1)
        rows = data.reshape((ids.size,) + data.shape[k:])
        too_big = ids >= n
        if too_big.any():
            i = int(np.argmax(too_big))
            raise _invalid(f"segment_ids[{i}] = {int(ids[i])} is out of range [0, {n})")
        out = np.full((n,) + data.shape[k:], init(data.dtype), dtype=data.dtype)
        keep = ids >= 0
        if not keep.all():
            # Negative ids drop their rows, as in TensorFlow.
            ids = ids[keep]
            rows = rows[keep]
        ufunc.at(out, ids, rows)
        return out
    return kernel


def _unsorted_infer(op_name, allowed):
    def infer(inputs, attrs):
        data, ids, num = inputs
        U.check_graph_dtype(data, allowed, "data")
        U.check_graph_dtype(ids, _UNSORTED_IDX, "segment_ids")
        U.check_graph_dtype(num, _IDX, "num_segments")
        if num.shape.rank is not None and num.shape.rank != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {num.shape.rank}")
        n = U.constant_value(num)
        n = None if n is None else int(n)
        s, si = data.shape, ids.shape
        if s.rank is None or si.rank is None:
            return [(TensorShape(None), data.dtype)]
        if si.rank > s.rank:
            raise ValueError(f"Shape must be at least rank {si.rank} but is rank {s.rank}")
        for a, b in zip(s.as_list()[:si.rank], si.as_list()):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
        return [(TensorShape([n] + s.as_list()[si.rank:]), data.dtype)]
    return infer


def _zero(dtype):
    return 0


def _one(dtype):
    return 1


def _seg_lowest(dtype):
    if dtype.name == "bfloat16":      # (ml_dtypes' kind is "V")
        return D.bfloat16.min
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _seg_highest(dtype):
    if dtype.name == "bfloat16":
        return D.bfloat16.max
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def _mask_like(mask, like):
    """A bool mask over the segment ids broadcast to `like` (ids' shape plus
    the trailing dimensions of the data)."""
    rm, rl = mask.shape.rank, like.shape.rank
    if rm is not None and rl is not None:
        for _ in range(rl - rm):
            mask = late.expand_dims(mask, -1)
        return mask
    ones = late.fill(late.reshape(late.rank(like) - late.rank(mask), [1]), 1)
    return late.reshape(mask, late.concat([late.shape(mask), ones], 0))


def _gather_drop_negatives(params, ids, clipped=None, is_positive=None):
    """gather(params, ids) with zeros where an id is negative (dropped rows)."""
    if clipped is None:
        clipped = late.maximum(ids, late.zeros_like(ids))
    gathered = _gather(params, clipped)
    if is_positive is None:
        is_positive = _mask_like(late.greater_equal(ids, late.zeros_like(ids)), gathered)
    return late.where(is_positive, gathered, late.zeros_like(gathered)), clipped, is_positive


def _unsorted_sum_grad(op, g):
    return [_gather_drop_negatives(g, op.inputs[1])[0], None, None]


def _unsorted_min_or_max_grad(op, g):
    data, ids, num = op.inputs
    gathered_y, clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    is_selected = late.logical_and(late.equal(data, gathered_y), is_positive)
    num_selected = unsorted_segment_sum(late.cast(is_selected, g.dtype), ids, num)
    weighted = late.truediv(g, num_selected)
    gathered_g, _, _ = _gather_drop_negatives(weighted, ids, clipped, is_positive)
    return [late.where(is_selected, gathered_g, late.zeros_like(gathered_g)), None, None]


def _unsorted_prod_grad(op, g):
    data, ids, num = op.inputs
    is_zero = late.equal(data, late.zeros_like(data))
    num_zeros = unsorted_segment_sum(late.cast(is_zero, D.int32), ids, num)
    safe = late.where(is_zero, late.ones_like(data), data)
    prod_nonzero = unsorted_segment_prod(safe, ids, num)
    gathered_prod, clipped, is_positive = _gather_drop_negatives(op.outputs[0], ids)
    gathered_nonzero = _gather_drop_negatives(prod_nonzero, ids, clipped, is_positive)[0]
    gathered_zeros = _gather_drop_negatives(num_zeros, ids, clipped, is_positive)[0]
    others = _prod_without_self(data, gathered_prod, gathered_nonzero, gathered_zeros,
                                is_zero, safe)
    gathered_g = _gather_drop_negatives(g, ids, clipped, is_positive)[0]
    return [late.multiply(gathered_g, late.conj(others)), None, None]


def _register_unsorted(name, ufunc, init, grad, allowed):
    return register(name, _unsorted_kernel(name, ufunc, init), _unsorted_infer(name, allowed),
                    grad, allowed=allowed)


_UnsortedSegmentSum = _register_unsorted("UnsortedSegmentSum", np.add, _zero,
                                         _unsorted_sum_grad, NUMERIC)
_UnsortedSegmentProd = _register_unsorted("UnsortedSegmentProd", np.multiply, _one,
                                          _unsorted_prod_grad, NUMERIC)
_UnsortedSegmentMax = _register_unsorted("UnsortedSegmentMax", np.maximum, _seg_lowest,
                                         _unsorted_min_or_max_grad, REAL)
_UnsortedSegmentMin = _register_unsorted("UnsortedSegmentMin", np.minimum, _seg_highest,
                                         _unsorted_min_or_max_grad, REAL)


def _unsorted(opdef, data, segment_ids, num_segments, name):
    data = convert_to_tensor(data)
    U.check_dtype(opdef.name, data, opdef.allowed, param="data")
    ids = _index_tensor(segment_ids, name, "segment_ids", strict=False)
    U.check_dtype(opdef.name, ids, _UNSORTED_IDX, attr="Tindices", param="segment_ids")
    num = _index_tensor(num_segments, name, "num_segments", strict=False)
    U.check_dtype(opdef.name, num, _IDX, attr="Tnumsegments", param="num_segments")
    return apply(opdef, [data, ids, num], name=name)


@export("math.unsorted_segment_sum")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums the slices of `data` by segment id (ids in any order, any shape
    that prefixes data's); output has `num_segments` rows, 0 where a
    segment is empty; rows with negative ids are dropped."""
    return _unsorted(_UnsortedSegmentSum, data, segment_ids, num_segments,
                     name or "UnsortedSegmentSum")


@export("math.unsorted_segment_prod")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of the slices of each segment (1 for empty segments)."""
    return _unsorted(_UnsortedSegmentProd, data, segment_ids, num_segments,
                     name or "UnsortedSegmentProd")


@export("math.unsorted_segment_max")
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The maximum of the slices of each segment; empty segments get the
    dtype's lowest finite value."""
    return _unsorted(_UnsortedSegmentMax, data, segment_ids, num_segments,
                     name or "UnsortedSegmentMax")


@export("math.unsorted_segment_min")
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """The minimum of the slices of each segment; empty segments get the
    dtype's highest finite value."""
    return _unsorted(_UnsortedSegmentMin, data, segment_ids, num_segments,
                     name or "UnsortedSegmentMin")


def _segment_counts(data, ids, num_segments):
    """How many rows each segment has (at least 1), shaped to broadcast
    against the segment reduction of `data`."""
    if ids.shape.is_fully_defined():
        ones_ = late.ones(ids.shape, dtype=data.dtype)
    else:
        ones_ = late.fill(late.shape(ids), convert_to_tensor(1, dtype=data.dtype))
    n = unsorted_segment_sum(ones_, ids, num_segments)
    rd, ri = data.shape.rank, ids.shape.rank
    if rd is not None and ri is not None:
        n = late.reshape(n, [-1] + [1] * (rd - ri))
    else:
        extra = late.fill(late.reshape(late.rank(data) - late.rank(ids), [1]), 1)
        n = late.reshape(n, late.concat([convert_to_tensor([-1]), extra], 0))
    return late.maximum(n, convert_to_tensor(1, dtype=data.dtype))


@export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the slices of each segment (0 for empty segments).

    Integer data gives a floating mean (true division), as in TensorFlow.
    """
    with _scope(name or "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        ids = _index_tensor(segment_ids)
        n = _segment_counts(data, ids, num_segments)
        return late.truediv(unsorted_segment_sum(data, ids, num_segments), n)


@export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of the slices of each segment divided by sqrt(segment size)."""
    with _scope(name or "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        ids = _index_tensor(segment_ids)
        n = _segment_counts(data, ids, num_segments)
        return late.truediv(unsorted_segment_sum(data, ids, num_segments), late.sqrt(n))


# --- bincount --------------------------------------------------------------------

_BINCOUNT_T = (D.int32, D.int64, D.float32, D.float64)


def _dense_bincount_kernel(input, size, weights, binary_output=False):  # noqa: A002
    if np.ndim(size) != 0:
        raise _invalid(f"Shape must be rank 0 but is rank {np.ndim(size)}")
    n = int(size)
    if n < 0:
        raise _invalid(f"size ({n}) must be non-negative")
    if input.ndim > 2:
        raise _invalid(f"Shape must be at most rank 2 but is rank {input.ndim}")
    if input.size and input.min() < 0:
        raise _invalid("Input arr must be non-negative!")
    has_weights = weights.size > 0
    if has_weights and weights.shape != input.shape:
        raise _invalid("`weights` must be the same shape as `arr` or a length-0 `Tensor`, in "
                       "which case it acts as all weights equal to 1. Received "
                       f"{dims_text(weights.shape)}", "DenseBincount")
    if input.ndim == 2:
        rows = input.shape[0]
        index = (input + np.arange(rows, dtype=input.dtype)[:, None] * n).reshape(-1)
        keep = input.reshape(-1) < n
        out_shape = (rows, n)
    else:
        index = input.reshape(-1)
        keep = index < n
        out_shape = (n,)
    out = np.zeros(int(np.prod(out_shape)), dtype=weights.dtype)
    if not keep.all():
        index = index[keep]
    if binary_output:
        out[index] = 1
    elif has_weights:
        w = weights.reshape(-1)
        np.add.at(out, index, w if keep.all() else w[keep])
    else:
        np.add.at(out, index, 1)
    return out.reshape(out_shape)


def _dense_bincount_infer(inputs, attrs):
    arr, size, weights = inputs
    U.check_graph_dtype(arr, _IDX, "input")
    U.check_graph_dtype(weights, _BINCOUNT_T, "weights")
    n = U.constant_value(size)
    n = None if n is None else int(n)
    r = arr.shape.rank
    if r is None:
        return [(TensorShape(None), weights.dtype)]
    if r > 2:
        raise ValueError(f"Shape must be at most rank 2 but is rank {r}")
    if r == 2:
        # TensorFlow leaves the number of rows unknown too.
        return [(TensorShape([None, n]), weights.dtype)]
    return [(TensorShape([n]), weights.dtype)]


# No gradient, as in TensorFlow (differentiating the weights raises LookupError).
_DenseBincount = register("DenseBincount", _dense_bincount_kernel, _dense_bincount_infer,
                          allowed=_BINCOUNT_T)


def _bincount_size(arr, minlength, maxlength):
    """The output length: max(arr) + 1 (0 for empty `arr`), clipped to
    [minlength, maxlength]; a Python int when `arr` is known now."""
    v = U.constant_value(arr)
    if v is not None:
        n = int(np.max(v)) + 1 if np.size(v) else 0
        if minlength is not None and U.constant_value(minlength) is not None:
            n = max(int(U.constant_value(minlength)), n)
            minlength = None
        if maxlength is not None and U.constant_value(maxlength) is not None:
            n = min(int(U.constant_value(maxlength)), n)
            maxlength = None
        if minlength is None and maxlength is None:
            return convert_to_tensor(n, dtype=arr.dtype)
        size = convert_to_tensor(n, dtype=arr.dtype)
    else:
        nonempty = late.cast(late.greater(late.size(arr), 0), arr.dtype)
        size = late.multiply(nonempty, reduce_max(arr) + convert_to_tensor(1, dtype=arr.dtype))
    if minlength is not None:
        size = late.maximum(late.cast(convert_to_tensor(minlength), arr.dtype), size)
    if maxlength is not None:
        size = late.minimum(late.cast(convert_to_tensor(maxlength), arr.dtype), size)
    return size


@export("math.bincount")
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=D.int32, name=None,
             axis=None, binary_output=False):
    """Counts the occurrences of each value of a non-negative integer array.

    Output i is the number of times i occurs (or the sum of the `weights`
    of those elements; the output then has the weights' dtype). Its length
    is max(arr) + 1, at least `minlength` and at most `maxlength` (larger
    values are ignored). `axis=-1` counts each row of a 2-D `arr`
    separately; `binary_output` gives 1 for values that occur.

    Raises:
      ValueError: for another `axis`, or `weights` with `binary_output`.
      InvalidArgumentError: for negative values.
    """
    if weights is not None and binary_output:
        raise ValueError("Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    if axis is None:
        axis = 0
    if axis not in (0, -1):
        raise ValueError(f"Unsupported value for argument axis={axis}. Only 0 and -1 are "
                         "currently supported.")
    with _scope(name or "bincount"):
        arr = convert_to_tensor(arr)
        if not arr.dtype.is_integer:
            arr = late.cast(arr, D.int32)
        # As TensorFlow: other integer types reach DenseBincount, which
        # takes int32 and int64 only.
        U.check_dtype("DenseBincount", arr, _IDX, "Tidx", "input")
        if weights is not None:
            weights = convert_to_tensor(weights)
        else:
            weights = constant_value_tensor(np.zeros(0, dtype=D.as_dtype(dtype)._np))
        U.check_dtype("DenseBincount", weights, _BINCOUNT_T, param="weights")
        if axis == 0:
            arr = late.reshape(arr, [-1])
            if weights.shape.num_elements() != 0:
                weights = late.reshape(weights, [-1])
        size = _bincount_size(arr, minlength, maxlength)
        return apply(_DenseBincount, [arr, size, weights],
                     {"binary_output": bool(binary_output)}, name="DenseBincount")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

_XLA_SEGMENT = {"Sum": ("add", _zero), "Prod": ("multiply", _one), "Max": ("max", _seg_lowest),
                "Min": ("min", _seg_highest), "Mean": ("add", _zero)}


def _xla_segments(data, ids, num, kind, empty_zero):
    data, ids = XL.jnp.asarray(data), XL.jnp.asarray(ids)
    rest = XL.jnp.shape(data)[XL.jnp.ndim(ids):]
    flat = XL.jnp.reshape(data, (-1,) + tuple(rest))
    ids = XL.jnp.reshape(ids, -1)
    ids = XL.jnp.where(ids < 0, num, ids)  # negative ids are dropped, as in TensorFlow
    method, init = _XLA_SEGMENT[kind]
    out = XL.jnp.full((num,) + tuple(rest), init(np.dtype(data.dtype)), data.dtype)
    out = getattr(out.at[ids], method)(flat, mode="drop")
    if kind == "Mean" or empty_zero:
        counts = XL.jnp.zeros((num,), np.int64).at[ids].add(1, mode="drop")
        counts = XL.jnp.reshape(counts, (num,) + (1,) * len(rest))
        if kind == "Mean":
            out = out / XL.jnp.maximum(counts, 1).astype(out.dtype)
        out = XL.jnp.where(counts == 0, XL.jnp.zeros((), out.dtype), out)
    return out


def _lower_segment(ctx, op, data, ids):
    n = int(np.max(ctx.static(op, 1, ids), initial=-1)) + 1
    return _xla_segments(data, ids, n, op.type[len("Segment"):], True)


def _lower_unsorted_segment(ctx, op, data, ids, num):
    n = XL.ints(ctx.static(op, 2, num))[0]
    return _xla_segments(data, ids, n, op.type[len("UnsortedSegment"):], False)


XL.set_lowerings(dict({"Segment" + k: _lower_segment for k in _XLA_SEGMENT},
                      **{"UnsortedSegment" + k: _lower_unsorted_segment
                         for k in ("Sum", "Prod", "Max", "Min")}))
