"""`tf.sets`: intersection, union, difference and size of the sets along the
last dimension of dense tensors and SparseTensors.

The ops are TensorFlow's (DenseToDenseSetOperation,
DenseToSparseSetOperation, SparseToSparseSetOperation, SetSize; no
gradients). As TensorFlow's kernels (set_kernels.cc), a "group" is one
index of all but the last dimension; the result is a SparseTensor holding,
for each group with a nonempty result in row-major order, its sorted
values at positions 0, 1, ... of the last dimension, whose size is the
largest result. Sparse inputs are read group by group in the order of their
indices (consecutive entries with the same group form one group), checked
for order and bounds when `validate_indices`.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor, SparseTensorValue
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from . import sparse_kernels as K

__all__ = ["intersection", "union", "difference", "size"]

_I64 = D.int64
_TYPES = (D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16, D.string)
# TensorFlow's messages print its frozenset of these dtypes, in this order.
_TYPES_TEXT = ("frozenset({tf.int32, tf.uint8, tf.int16, tf.int8, tf.string, tf.int64, "
               "tf.uint16})")
_OPERATIONS = ("a-b", "b-a", "intersection", "union")


def _error(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _internal(msg):
    return errors.InternalError(None, None, msg)


def _join(dims):
    return ",".join(str(int(d)) for d in dims)


def _group_shape(shape):
    if len(shape) < 2:
        raise _error(f"Shape [{_join(shape)}] has rank {len(shape)} < 2")
    return tuple(int(d) for d in shape[:-1])


def _group_shapes(shape1, shape2):
    g1, g2 = _group_shape(shape1), _group_shape(shape2)
    if g1 != g2:
        raise _error(f"Mismatched shapes [{_join(g1)}] vs [{_join(g2)}]")
    return g1


def _sparse_input(indices, values, shape, validate_indices):
    """The checks of SparseTensorFromContext: a 1-D shape of rank >= 2, and
    (when validating) indices in bounds, in order and distinct."""
    if np.ndim(shape) != 1:
        raise _error("Shape must be a 1D tensor.")
    shape = np.asarray(shape, np.int64)
    if shape.size < 2:
        raise _error(f"Invalid rank {shape.size}.")
    if indices.ndim != 2 or indices.shape[1] != shape.size or \
            indices.shape[0] != values.shape[0]:
        raise _error(f"Invalid sparse tensor: indices {list(indices.shape)}, values "
                     f"{list(values.shape)}, shape [{_join(shape)}]")
    if validate_indices:
        K._check_sorted(indices, shape)
    return shape


def _sparse_groups(indices, values, shape):
    """[(group index tuple, values)] for the runs of entries with equal group
    indices, in their order (sparse::SparseTensor::group), with CheckGroup's
    bounds checks."""
    n = indices.shape[0]
    if n == 0:
        return []
    for j, d in enumerate(shape):
        if d <= 0:
            raise _internal(f"Invalid dim_size[{j}] = {int(d)}.")
    bad = np.argwhere(indices >= shape)
    if bad.size:
        i, j = (int(v) for v in bad[0])
        raise _internal(f"indices[{i}, {j}] expected < {int(shape[j])}, got "
                        f"{int(indices[i, j])}.")
    keys = indices[:, :-1]
    starts = np.concatenate([[0], np.nonzero(np.any(keys[1:] != keys[:-1], axis=1))[0] + 1,
                             [n]])
    return [(tuple(int(v) for v in keys[a]), values[a:b])
            for a, b in zip(starts[:-1], starts[1:])]


def _apply_operation(op, s1, s2):
    if op == "a-b":
        return s1 - s2
    if op == "b-a":
        return s2 - s1
    if op == "intersection":
        return s1 & s2
    return s1 | s2


def _set_of(values):
    return set(values.tolist())


def _output(groups, group_shape, dtype):
    """The result SparseTensor's components from [(group index, set)]."""
    groups = [(g, sorted(s)) for g, s in groups if s]
    width = max((len(s) for _, s in groups), default=0)
    rank = len(group_shape) + 1
    n = sum(len(s) for _, s in groups)
    indices = np.zeros((n, rank), np.int64)
    values = np.empty(n, dtype)
    i = 0
    for g, s in groups:
        k = len(s)
        indices[i:i + k, :-1] = g
        indices[i:i + k, -1] = np.arange(k)
        values[i:i + k] = s
        i += k
    return indices, values, np.array(list(group_shape) + [width], np.int64)


def _operation(set_operation):
    op = set_operation.lower()
    if op not in _OPERATIONS:
        raise _error(f"Invalid set_operation {op}.")
    return op


def _dense_rows(x, group_shape):
    return x.reshape(int(np.prod(group_shape, dtype=np.int64)), x.shape[-1])


def _dense_dense_kernel(set1, set2, set_operation, validate_indices=True, T=None):
    op = _operation(set_operation)
    group_shape = _group_shapes(set1.shape, set2.shape)
    rows1, rows2 = _dense_rows(set1, group_shape), _dense_rows(set2, group_shape)
    groups = [(tuple(int(v) for v in np.unravel_index(i, group_shape)),
               _apply_operation(op, _set_of(r1), _set_of(r2)))
              for i, (r1, r2) in enumerate(zip(rows1, rows2))]
    return _output(groups, group_shape, set1.dtype)


def _dense_sparse_kernel(set1, set2_indices, set2_values, set2_shape, set_operation,
                         validate_indices=True, T=None):
    op = _operation(set_operation)
    shape2 = _sparse_input(set2_indices, set2_values, set2_shape, validate_indices)
    group_shape = _group_shapes(set1.shape, shape2)
    rows1 = _dense_rows(set1, group_shape)
    sparse_groups = _sparse_groups(set2_indices, set2_values, shape2)
    groups, k = [], 0
    for i, r1 in enumerate(rows1):
        g = tuple(int(v) for v in np.unravel_index(i, group_shape))
        s2 = set()
        # The sparse groups are matched in order: one that does not come
        # next in row-major order is never read (as in TensorFlow).
        if k < len(sparse_groups) and sparse_groups[k][0] == g:
            s2 = _set_of(sparse_groups[k][1])
            k += 1
        groups.append((g, _apply_operation(op, _set_of(r1), s2)))
    return _output(groups, group_shape, set1.dtype)


def _sparse_sparse_kernel(set1_indices, set1_values, set1_shape, set2_indices, set2_values,
                          set2_shape, set_operation, validate_indices=True, T=None):
    op = _operation(set_operation)
    shape1 = _sparse_input(set1_indices, set1_values, set1_shape, validate_indices)
    shape2 = _sparse_input(set2_indices, set2_values, set2_shape, validate_indices)
    group_shape = _group_shapes(shape1, shape2)
    g1 = _sparse_groups(set1_indices, set1_values, shape1)
    g2 = _sparse_groups(set2_indices, set2_values, shape2)
    groups, i, j = [], 0, 0
    # Both inputs' groups in one pass, in order, as TensorFlow's CompareGroups.
    while i < len(g1) or j < len(g2):
        if i == len(g1):
            cmp = 1
        elif j == len(g2):
            cmp = -1
        else:
            cmp = (g1[i][0] > g2[j][0]) - (g1[i][0] < g2[j][0])
        s1 = s2 = set()
        if cmp <= 0:
            key, s1 = g1[i][0], _set_of(g1[i][1])
            i += 1
        if cmp >= 0:
            key, s2 = g2[j][0], _set_of(g2[j][1])
            j += 1
        groups.append((key, _apply_operation(op, s1, s2)))
    return _output(groups, group_shape, set1_values.dtype)


def _set_size_kernel(set_indices, set_values, set_shape, validate_indices=True, T=None):
    shape = _sparse_input(set_indices, set_values, set_shape, validate_indices)
    group_shape = _group_shape(shape)
    out = np.zeros(group_shape, np.int32)
    flat = out.reshape(-1)
    strides = np.cumprod((1,) + group_shape[::-1])[::-1][1:] if group_shape else ()
    for g, vals in _sparse_groups(set_indices, set_values, shape):
        i = int(np.dot(g, strides))
        if i >= flat.size:
            raise _error(f"Index out of range, {list(g)} vs [{_join(group_shape)}]")
        flat[i] = len(_set_of(vals))
    return out


# --- shape inference (SetShapeFn) -----------------------------------------------------

def _at_least_2(shape):
    if shape.rank is not None and shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {shape.rank}")


def _merge_groups(s1, s2):
    """The rank of the result, checking the group dimensions agree."""
    if s1.rank is None or s2.rank is None:
        return s1.rank if s1.rank is not None else s2.rank
    if s1.rank != s2.rank:
        raise ValueError(f"Shape must be rank {s1.rank} but is rank {s2.rank}")
    for i in range(s1.rank - 1):
        a, b = s1[i], s2[i]
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"Dimension {i} in both shapes must be equal, but are {a} and {b}. "
                f"Shapes are [{_join(s1.as_list()[:-1])}] and [{_join(s2.as_list()[:-1])}].")
    return s1.rank


def _sparse_rank(shape_tensor):
    c = U.constant_value(shape_tensor)
    if c is not None:
        return TensorShape([None] * int(np.size(c)))
    n = shape_tensor.shape[0] if shape_tensor.shape.rank == 1 else None
    return TensorShape(None if n is None else [None] * n)


def _outputs(rank, dtype):
    return [(TensorShape([None, rank]), _I64), (TensorShape([None]), dtype),
            (TensorShape([rank]), _I64)]


def _dense_dense_infer(inputs, attrs):
    s1, s2 = inputs[0].shape, inputs[1].shape
    _at_least_2(s1)
    _at_least_2(s2)
    return _outputs(_merge_groups(s1, s2), inputs[0].dtype)


def _dense_sparse_infer(inputs, attrs):
    s1, s2 = inputs[0].shape, _sparse_rank(inputs[3])
    _at_least_2(s1)
    _at_least_2(s2)
    return _outputs(_merge_groups(s1, s2), inputs[0].dtype)


def _sparse_sparse_infer(inputs, attrs):
    s1, s2 = _sparse_rank(inputs[2]), _sparse_rank(inputs[5])
    _at_least_2(s1)
    _at_least_2(s2)
    return _outputs(_merge_groups(s1, s2), inputs[1].dtype)


def _set_size_infer(inputs, attrs):
    return [(TensorShape(None), D.int32)]


_DenseToDense = register("DenseToDenseSetOperation", _dense_dense_kernel, _dense_dense_infer,
                         allowed=_TYPES)
_DenseToSparse = register("DenseToSparseSetOperation", _dense_sparse_kernel,
                          _dense_sparse_infer, allowed=_TYPES)
_SparseToSparse = register("SparseToSparseSetOperation", _sparse_sparse_kernel,
                           _sparse_sparse_infer, allowed=_TYPES)
_SetSize = register("SetSize", _set_size_kernel, _set_size_infer, allowed=_TYPES)


# --- the public functions ---------------------------------------------------------------

def _dtype_text(dtype):
    return f"<dtype: '{dtype.name}'>"


def _convert(x, name):
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    if isinstance(x, SparseTensor):
        return x
    return convert_to_tensor(x, name=name)


def _convert_pair(a, b):
    """(a, b, flipped): converted, a sparse `a` with a dense `b` swapped (the
    ops take dense-sparse only)."""
    a = _convert(a, "a")
    if a.dtype not in _TYPES:
        raise TypeError(f"'a' has invalid dtype `{_dtype_text(a.dtype)}` not in supported "
                        f"dtypes: `{_TYPES_TEXT}`.")
    b = _convert(b, "b")
    if b.dtype != a.dtype:
        raise TypeError(f"Types don't match, {_dtype_text(a.dtype)} vs "
                        f"{_dtype_text(b.dtype)}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices):
    attrs = {"set_operation": set_operation, "validate_indices": bool(validate_indices)}
    if isinstance(a, SparseTensor):
        ins, opdef = [a.indices, a.values, a.dense_shape, b.indices, b.values,
                      b.dense_shape], _SparseToSparse
    elif isinstance(b, SparseTensor):
        ins, opdef = [a, b.indices, b.values, b.dense_shape], _DenseToSparse
    else:
        ins, opdef = [a, b], _DenseToDense
    indices, values, shape = apply(opdef, ins, attrs, name=opdef.name, multi=True)
    return SparseTensor(indices, values, shape)


@export("sets.intersection", "compat.v1.sets.intersection",
        "compat.v1.sets.set_intersection")
def intersection(a, b, validate_indices=True):
    """The intersection of the sets along the last dimension of `a` and `b`
    (dense tensors or SparseTensors with indices in row-major order; all
    but the last dimension equal), as a SparseTensor: each group's sorted
    elements at positions 0, 1, ... of the last dimension.

    Raises:
      TypeError: for dtypes other than int8/16/32/64, uint8/16 and string,
        or `a` and `b` of different dtypes.
    """
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


@export("sets.union", "compat.v1.sets.union", "compat.v1.sets.set_union")
def union(a, b, validate_indices=True):
    """The union of the sets along the last dimension of `a` and `b`, as a
    SparseTensor of sorted elements (see `tf.sets.intersection`)."""
    a, b, _ = _convert_pair(a, b)
    return _set_operation(a, b, "union", validate_indices)


@export("sets.difference", "compat.v1.sets.difference", "compat.v1.sets.set_difference")
def difference(a, b, aminusb=True, validate_indices=True):
    """The elements of each set along the last dimension of `a` not in `b`'s
    (`aminusb`), or of `b` not in `a`'s, as a SparseTensor of sorted
    elements (see `tf.sets.intersection`)."""
    a, b, flipped = _convert_pair(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


@export("sets.size", "compat.v1.sets.size", "compat.v1.sets.set_size")
def size(a, validate_indices=True):
    """The number of distinct elements along the last dimension of the
    SparseTensor `a`: an int32 tensor of `a`'s other dimensions.

    Raises:
      TypeError: if `a` is not a SparseTensor or has an unsupported dtype.
    """
    a = _convert(a, "a")
    if not isinstance(a, SparseTensor):
        raise TypeError("Expected `SparseTensor`, got %s." % (a,))
    if a.values.dtype not in _TYPES:
        raise TypeError(f"Invalid dtype `{_dtype_text(a.values.dtype)}` not in supported "
                        f"dtypes: `{_TYPES_TEXT}`.")
    return apply(_SetSize, [a.indices, a.values, a.dense_shape],
                 {"validate_indices": bool(validate_indices)}, name="SetSize")
