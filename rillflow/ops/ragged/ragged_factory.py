"""`tf.ragged.constant`: a RaggedTensor from nested Python lists, with
TensorFlow's rules for the ragged rank, the inner shape and its errors."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ..core.constant_ops import constant as dense
from .ragged_tensor import RaggedTensor


def _is_nested(x):
    """Whether `x` is a list level (a list, tuple or array of rank > 0)."""
    return isinstance(x, (list, tuple)) or np.ndim(x) != 0


def _depths(pylist):
    """(depth of the scalars or None when there are none, depth of the deepest
    list counting empty ones); a scalar has depths (0, 0).

    Raises:
      ValueError: scalars at different depths.
    """
    if not _is_nested(pylist):
        return 0, 0
    scalar, deepest = None, 1
    for item in pylist:
        s, d = _depths(item)
        if s is not None:
            if scalar is not None and scalar != s + 1:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar = s + 1
        deepest = max(deepest, d + 1)
    return scalar, deepest


def _uniform_inner_shape(pylist, ragged_rank):
    """The shape of the values below `ragged_rank` ragged levels, from the
    first of them; every other must have it.

    Raises:
      ValueError: fewer list levels than `ragged_rank`, or values of
        different shapes.
    """
    flat = list(pylist)
    for level in range(ragged_rank):
        if not all(_is_nested(v) for v in flat):
            raise ValueError(f"pylist has scalar values depth {level + 1}, but ragged_rank="
                             f"{ragged_rank} requires scalar value depth greater than "
                             f"{ragged_rank}")
        flat = [x for v in flat for x in v]
    shape, probe = [], flat
    while _is_nested(probe):
        shape.append(len(probe))
        if not len(probe):
            break
        probe = probe[0]
    shape = tuple(shape[1:])

    def check(item, dims):
        if _is_nested(item) != bool(dims) or dims and dims[0] != len(item):
            raise ValueError("inner values have inconsistent shape")
        for child in (item if dims else ()):
            check(child, dims[1:])

    check(flat, (len(flat),) + shape)
    return shape


@export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=D.int64):
    """A RaggedTensor of the nested Python list `pylist` (`tf.ragged.constant`).

    Unless given, `ragged_rank` is the nesting depth of the scalars less one
    (less `inner_shape`'s rank), and at least 1; a list whose rows all have
    the same length is still ragged. A scalar, a flat list, or
    `ragged_rank=0` gives a plain Tensor. Empty lists give float32 values
    unless `dtype` says otherwise.

    Raises:
      ValueError: scalars at different depths, deeper empty lists than
        scalars, or a `ragged_rank` / `inner_shape` that does not fit.
      TypeError: `pylist` is already a RaggedTensor.
    """
    if isinstance(pylist, RaggedTensor):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    splits_dtype = D.as_dtype(row_splits_dtype)
    if not _is_nested(pylist):
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"ragged_rank={ragged_rank}")
        if inner_shape:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"dim(inner_shape)={len(inner_shape)}")
        return dense(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _depths(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater than "
                             "scalar value nesting")
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(f"Invalid pylist={pylist}, max depth smaller than "
                             f"ragged_rank={ragged_rank}")
    if inner_shape is not None and ragged_rank is not None:
        depth = ragged_rank + len(inner_shape) + 1
        if depth != scalar_depth if scalar_depth is not None else depth < max_depth:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                             f"{ragged_rank} and dim(inner_shape)={len(inner_shape)}")
    if ragged_rank == 0 or ragged_rank is None and (
            max_depth < 2 or inner_shape is not None and max_depth - len(inner_shape) < 2):
        return dense(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _uniform_inner_shape(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        depth = max_depth if scalar_depth is None else scalar_depth - len(inner_shape)
        ragged_rank = max(1, depth - 1)
    levels, rows = [], list(pylist)
    for _ in range(ragged_rank):
        lengths = [len(r) for r in rows]
        levels.append(np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]))
        rows = [x for r in rows for x in r]
    out = dense(rows, dtype, (len(rows),) + inner_shape, name="values")
    for splits in reversed(levels):
        out = RaggedTensor(out, convert_to_tensor(splits.astype(splits_dtype._np)))
    return out
