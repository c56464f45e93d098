"""`tf.tile` of a RaggedTensor, as TensorFlow's `ragged_array_ops.tile`:
each ragged dimension's rows are repeated by gathering index ranges
(`_repeat_ranges`), the row lengths of every ragged dimension are repeated
the same way, and the uniform dimensions (the outermost and those inside
the flat values) are tiled with the dense `tile`. Whole-array core ops
only, so it runs eagerly and in a graph alike.
"""
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ..core.broadcast_ops import tile as dense_tile
from ..core.constant_ops import zeros
from ..core.creation_ops import range as tf_range
from ..core.gather_ops import gather
from ..core.join_ops import concat
from ..core.math_ops import cast
from ..core.repeat_unique_roll_ops import repeat
from ..core.scan_ops import cumsum
from ..core.slicing import getitem
from .ragged_tensor import RaggedTensor, _eager


def _splits_of(lengths, dtype):
    return concat([zeros([1], dtype), cumsum(cast(lengths, dtype))], 0)


def _repeat_ranges(params, splits, times):
    """`params`' ranges `splits[i]:splits[i+1]`, each repeated `times` times
    in a row (TensorFlow's `ragged_util.repeat_ranges`)."""
    starts = repeat(getitem(splits, slice(None, -1)), times)
    limits = repeat(getitem(splits, slice(1, None)), times)
    lengths = limits - starts
    out_splits = _splits_of(lengths, splits.dtype)
    # Item j of range i is params[starts[i] + j - out_splits[i]].
    idx = repeat(starts - getitem(out_splits, slice(None, -1)), lengths) + \
        tf_range(getitem(out_splits, -1), dtype=splits.dtype)
    return gather(params, idx)


def tile(input, multiples, name=None):  # noqa: A002
    """`input` repeated `multiples[d]` times along each dimension d (ragged
    rows are repeated within their row, as TensorFlow does).

    Raises:
      InvalidArgumentError: when `multiples` has the wrong length or a
        negative entry.
    """
    rt = input
    dtype = rt.row_splits.dtype
    m = cast(convert_to_tensor(multiples, dtype_hint=D.int64), dtype)
    rank = rt.shape.rank
    if m.shape.rank != 1 or (m.shape[0] is not None and rank is not None
                             and m.shape[0] != rank):
        raise errors.InvalidArgumentError(
            None, None, f"Expected multiples argument to be a vector of length {rank} but got "
            f"length {m.shape[0] if m.shape.rank == 1 else m.shape}")
    if _eager(m) and (m._v < 0).any():
        raise errors.InvalidArgumentError(
            None, None, f"Expected multiples[{int((m._v < 0).argmax())}] >= 0, but got "
            f"{int(m._v[(m._v < 0).argmax()])}")
    r = rt.ragged_rank
    splits = list(rt.nested_row_splits)
    mult = [getitem(m, i) for i in range(r + 1)]

    # The flat values: ids into them, repeated innermost ragged axis first.
    ids = tf_range(getitem(splits[-1], -1), dtype=dtype)
    prev = None
    for axis in range(r, 0, -1):
        s = splits[axis - 1]
        if prev is not None:
            # Point this axis' splits into `ids` as tiled so far.
            s = gather(prev * mult[axis + 1], s)
        ids = _repeat_ranges(ids, s, mult[axis])
        prev = s
    values = gather(rt.flat_values, ids)
    inner = concat([getitem(m, slice(0, 1)), getitem(m, slice(r + 1, None))], 0)
    values = dense_tile(values, inner)

    # projected[src][dst]: the rows of axis `src` as splits into axis `dst`'s values.
    projected = [{i: splits[i]} for i in range(r)]
    for src in range(r):
        for dst in range(src + 1, r - 1):
            projected[src][dst] = gather(splits[dst], projected[src][dst - 1])
    out_splits = []
    for axis in range(r):
        lengths = (getitem(splits[axis], slice(1, None)) -
                   getitem(splits[axis], slice(None, -1))) * mult[axis + 1]
        times = 1
        for d in range(axis - 1, -1, -1):
            lengths = _repeat_ranges(lengths, projected[d][axis - 1] * times, mult[d + 1])
            times = times * mult[d + 1]
        lengths = dense_tile(lengths, getitem(m, slice(0, 1)))
        out_splits.append(_splits_of(lengths, dtype))
    return RaggedTensor.from_nested_row_splits(values, out_splits, validate=False)
