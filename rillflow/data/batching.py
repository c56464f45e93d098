"""Transformations that group or split elements: `batch`, `padded_batch`,
`unbatch`, `rebatch`, `window`."""
import itertools

import numpy as np

from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.component_batching import slice_iter, stack_components
from ..framework.tensor import Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.tensor_spec import TensorSpec
from ..ops.core import op_util as U
from . import dataset_ops as DS
from . import registry
from . import runtime as R
from . import structure as S
from .functional import MapNode
from .sources import ListNode
from ..framework.convert import convert_to_tensor
from ..framework.sparse_tensor import SparseTensorSpec
from ..ops.ragged.ragged_spec import RaggedTensorSpec


def _static_int(v):
    c = U.constant_value(v) if isinstance(v, Tensor) else v
    return None if c is None else int(c)


def _static_bool(v):
    c = U.constant_value(v) if isinstance(v, Tensor) else v
    return None if c is None else bool(c)


def _batch_cardinality(n, size, drop):
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


# --- batch ---------------------------------------------------------------------------------

class BatchNode(R.Node):
    """Consecutive elements stacked `size` at a time (composite leaves
    batched by their specs with `batcher`, see structure.batcher)."""

    __slots__ = ("input", "size", "drop", "ncomp", "fusable", "batcher")

    def __init__(self, input_node, size, drop, ncomp, fusable=True, batcher=None):
        self.input, self.size, self.drop, self.ncomp = input_node, size, drop, ncomp
        self.fusable = fusable
        self.batcher = batcher

    def __iter__(self):
        fused = self.fusable and isinstance(self.input, MapNode)
        if self.batcher is not None:
            return _grouped(self.input, self.size, self.drop, self.batcher, fused)
        fast = self.input.batches(self.size, self.drop)
        if fast is not None:
            return fast
        return R.stacked_batches(self.input, self.size, self.drop, fused)

    def cardinality(self):
        return _batch_cardinality(self.input.cardinality(), self.size, self.drop)


def _grouped(node, size, drop, batcher, fused=False):
    """The batches of `node`'s elements, `size` at a time, made by `batcher`."""
    it = iter(node)
    while True:
        rows = list(itertools.islice(it, size))
        if not rows or (len(rows) < size and drop):
            return
        yield batcher(rows, fused)
        if len(rows) < size:
            return


def _check_batch_size(size):
    size = int(size)
    if size <= 0:
        raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
    return size


def _batch_kernel(inp, batch_size, drop_remainder, output_types=(), _spec=None, **_):
    return BatchNode(inp, _check_batch_size(batch_size), bool(drop_remainder),
                     len(output_types), batcher=_batcher(_spec))


def _batcher(spec):
    return None if spec is None else S.batcher(spec)


_Batch = DS.register_dataset_op("BatchDatasetV2", _batch_kernel)
# TensorFlow fuses a map into a following batch, but not into a parallel batch.
_ParallelBatch = DS.register_dataset_op(
    "ParallelBatchDataset",
    lambda inp, batch_size, drop_remainder, output_types=(), _spec=None, **_: BatchNode(
        inp, _check_batch_size(batch_size), bool(drop_remainder), len(output_types), False,
        _batcher(_spec)))


def _spec_attrs(spec):
    """The attrs telling a kernel the element spec of its input, when it has
    composite leaves (their specs batch and unbatch them)."""
    return {} if S.all_tensors(spec) else {"_spec": spec}


def _batch_dim(batch_size, drop_remainder):
    size = _static_int(batch_size)
    drop = _static_bool(drop_remainder)
    return size if drop and size is not None and size > 0 else None


@registry.implements("Dataset.batch")
def batch(ds, batch_size, drop_remainder=False, name=None, parallel=False):
    """See `Dataset.batch` (`parallel`: `num_parallel_calls` was given)."""
    spec = S.batch_spec(ds.element_spec, _batch_dim(batch_size, drop_remainder))
    ins = [ds._variant_tensor, DS.scalar(batch_size, D.int64, "batch_size"),
           DS.scalar(drop_remainder, D.bool_, "drop_remainder")]
    attrs = _spec_attrs(ds.element_spec)
    if parallel:
        return DS.build("_ParallelBatchDataset", _ParallelBatch, ins, attrs, spec, name)
    return DS.build("_BatchDataset", _Batch, ins, attrs, spec, name)


# --- padded_batch ------------------------------------------------------------------------------

class PaddedBatchNode(R.Node):
    """Batches whose components are padded to `shapes` (None: the largest in
    the batch) with `values`."""

    __slots__ = ("input", "size", "drop", "shapes", "values")

    def __init__(self, input_node, size, drop, shapes, values):
        self.input, self.size, self.drop = input_node, size, drop
        self.shapes, self.values = shapes, values

    def __iter__(self):
        it = iter(self.input)
        while True:
            rows = list(itertools.islice(it, self.size))
            if not rows or (len(rows) < self.size and self.drop):
                return
            yield tuple(self._pad(rows, i) for i in range(len(self.shapes)))
            if len(rows) < self.size:
                return

    def _pad(self, rows, i):
        vals = [np.asarray(r[i]) for r in rows]
        target = self.shapes[i]
        rank = vals[0].ndim
        if any(v.ndim != rank for v in vals) or (target is not None and len(target) != rank):
            raise errors.InvalidArgumentError(
                None, None, f"All elements in a batch must have the same rank as the padded "
                f"shape for component {i}: expected rank {len(target or ())} but got "
                f"{[v.ndim for v in vals]}.")
        dims = []
        for d in range(rank):
            biggest = max(v.shape[d] for v in vals)
            want = None if target is None else target[d]
            if want is None or want < 0:
                want = biggest
            elif biggest > want:
                raise errors.DataLossError(
                    None, None, "Attempted to pad to a smaller size than the input element.")
            dims.append(want)
        pad_value = self.values[i]
        out = np.full([len(vals)] + dims, pad_value, dtype=vals[0].dtype)
        for k, v in enumerate(vals):
            out[(k,) + tuple(slice(0, s) for s in v.shape)] = v
        return out

    def cardinality(self):
        return _batch_cardinality(self.input.cardinality(), self.size, self.drop)


def _padded_batch_kernel(inp, batch_size, *args, n, **_):
    shapes = [None if s is None else [int(d) for d in np.reshape(s, -1)] for s in args[:n]]
    values = [np.asarray(v)[()] if np.ndim(v) == 0 else v for v in args[n:2 * n]]
    drop = bool(args[2 * n])
    return PaddedBatchNode(inp, _check_batch_size(batch_size), drop, shapes, values)


_PaddedBatch = DS.register_dataset_op("PaddedBatchDatasetV2", _padded_batch_kernel)


def _padded_shape(shape, leaf, i):
    """The padded shape of component `i` as a static TensorShape and a tensor."""
    if isinstance(shape, Tensor):
        static = U.constant_shape(shape) if shape.shape.rank == 1 else TensorShape(None)
        t = shape if shape.dtype is D.int64 else DS.scalar(shape, D.int64, "padded_shape")
    else:
        if isinstance(shape, (list, tuple)):
            shape = [None if d is not None and int(d) < 0 else d for d in shape]
        static = as_shape(shape)
        if static.rank is None:
            raise ValueError("Padded shape must have a known rank.")
        t = convert_to_tensor(np.array([-1 if d is None else d for d in static],
                                        dtype=np.int64))
        static = TensorShape([None if d is None or d < 0 else d for d in static])
    if leaf.shape.rank is not None and static.rank is not None:
        if leaf.shape.rank != static.rank:
            raise ValueError(f"The padded shape {static} is not compatible with the shape "
                             f"{leaf.shape} of the corresponding input component.")
        for a, b in zip(leaf.shape, static):
            if a is not None and b is not None and a > b:
                raise ValueError(f"The padded shape {static} is not compatible with the shape "
                                 f"{leaf.shape} of the corresponding input component.")
    return static, t


@registry.implements("Dataset.padded_batch")
def padded_batch(ds, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False,
                 name=None):
    """See `Dataset.padded_batch`."""
    spec = ds.element_spec
    leaves = S.leaf_specs(spec)
    for s in leaves:
        if isinstance(s, S.DatasetSpec):
            raise TypeError("`padded_batch` is not supported for datasets of datasets")
        if not isinstance(s, TensorSpec):
            raise TypeError("`padded_batch` is only supported for datasets that produce tensor "
                            "elements but type spec of elements in the input dataset is not a "
                            f"subclass of TensorSpec: `{s}`.")
    if padded_shapes is None:
        for i, s in enumerate(leaves):
            if s.shape.rank is None:
                raise ValueError(f"You must provide `padded_shapes` argument because component "
                                 f"{i} has unknown rank.")
        shapes = [s.shape for s in leaves]
    else:
        shapes = nest.flatten_up_to(spec, padded_shapes) if nest.is_nested(spec) else \
            [padded_shapes]
    if padding_values is None:
        values = [None] * len(leaves)
    elif nest.is_nested(spec) and not nest.is_nested(padding_values):
        values = [padding_values] * len(leaves)
    else:
        values = nest.flatten_up_to(spec, padding_values) if nest.is_nested(spec) else \
            [padding_values]
    values = [(b"" if s.dtype is D.string else np.zeros((), s.dtype._np)) if v is None else v
              for v, s in zip(values, leaves)]
    statics, shape_ts, value_ts = [], [], []
    for i, (leaf, shp, val) in enumerate(zip(leaves, shapes, values)):
        st, t = _padded_shape(shp, leaf, i)
        statics.append(st)
        shape_ts.append(t)
        # Converted without the component's dtype, as TensorFlow does: a Python
        # int pads int32 components, an int64 component needs an int64 value.
        v = convert_to_tensor(val, name="padding_value")
        if not v.shape.is_compatible_with(TensorShape([])):
            raise ValueError(f"Invalid `padding_values`. `padding_values` values should be "
                             f"scalars, but got {v.shape}.")
        if v.dtype is not leaf.dtype:
            raise TypeError(f"Invalid `padding_values`. `padding_values` values type "
                            f"{v.dtype} does not match type {leaf.dtype} of the "
                            f"corresponding input component.")
        value_ts.append(v)
    dim = _batch_dim(batch_size, drop_remainder)
    out = nest.pack_sequence_as(spec, [
        TensorSpec(TensorShape([dim]).concatenate(st), leaf.dtype)
        for st, leaf in zip(statics, leaves)]) if nest.is_nested(spec) else \
        TensorSpec(TensorShape([dim]).concatenate(statics[0]), leaves[0].dtype)
    ins = [ds._variant_tensor, DS.scalar(batch_size, D.int64, "batch_size")] + shape_ts + \
        value_ts + [DS.scalar(drop_remainder, D.bool_, "drop_remainder")]
    return DS.build("_PaddedBatchDataset", _PaddedBatch, ins, {"n": len(leaves)}, out, name)


# --- unbatch and rebatch ------------------------------------------------------------------------

class UnbatchNode(R.Node):
    """The slices of each element along its first dimension (composite leaves
    split by their specs with `unbatch`, see structure.unbatcher)."""

    __slots__ = ("input", "unbatch")

    def __init__(self, input_node, unbatch=None):
        self.input = input_node
        self.unbatch = unbatch

    def __iter__(self):
        if self.unbatch is not None:
            unbatch = self.unbatch
            for e in self.input:
                yield from unbatch(e)
            return
        for e in self.input:
            sizes = {np.shape(c)[0] if np.ndim(c) else None for c in e}
            if None in sizes:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot unbatch an input with scalar components.")
            if len(sizes) > 1:
                raise R.batch_size_error([np.shape(c)[0] for c in e])
            if len(e) == 1:
                for v in slice_iter(e[0]):
                    yield (v,)
            else:
                yield from zip(*[slice_iter(c) for c in e])


_Unbatch = DS.register_dataset_op(
    "UnbatchDataset", lambda inp, _spec=None, **_: UnbatchNode(inp, _unbatcher(_spec)))


def _unbatcher(spec):
    return None if spec is None else S.unbatcher(spec)


@registry.implements("Dataset.unbatch")
def unbatch(ds, name=None):
    """See `Dataset.unbatch`."""
    spec = S.unbatch_spec(ds.element_spec)
    return DS.build("_UnbatchDataset", _Unbatch, [ds._variant_tensor],
                    _spec_attrs(ds.element_spec), spec, name)


class RebatchNode(R.Node):
    """Batches of the given sizes (cycled) made from the rows of the input's batches."""

    __slots__ = ("input", "sizes", "drop", "spec")

    def __init__(self, input_node, sizes, drop, spec=None):
        self.input, self.sizes, self.drop, self.spec = input_node, sizes, drop, spec

    def __iter__(self):
        spec = self.spec
        rows = iter(UnbatchNode(self.input, _unbatcher(spec)))
        batcher = None if spec is None else S.batcher(S.unbatch_spec(spec))
        for size in itertools.cycle(self.sizes):
            batch = list(itertools.islice(rows, size))
            if not batch or (len(batch) < size and self.drop):
                return
            if batcher is not None:
                yield batcher(batch)
            else:
                yield tuple(stack_components(batch, i) for i in range(len(batch[0])))
            if len(batch) < size:
                return


def _rebatch_kernel(inp, batch_sizes, drop_remainder, _spec=None, **_):
    sizes = [int(s) for s in np.reshape(batch_sizes, -1)]
    if not sizes or any(s <= 0 for s in sizes):
        raise errors.InvalidArgumentError(None, None, "Batch size must be greater than zero.")
    return RebatchNode(inp, sizes, bool(drop_remainder), _spec)


_Rebatch = DS.register_dataset_op("RebatchDatasetV2", _rebatch_kernel)


@registry.implements("Dataset.rebatch")
def rebatch(ds, batch_size, drop_remainder=False, name=None):
    """See `Dataset.rebatch`."""
    if any(getattr(leaf, "shape", None) is not None and leaf.shape.rank == 0
           for leaf in S.leaf_specs(ds.element_spec)):
        raise ValueError("Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found "
                         "a dataset with scalar elements. Fix the issue by adding the `batch` "
                         "transformation to the dataset.")
    c = U.constant_value(batch_size) if isinstance(batch_size, Tensor) else \
        np.asarray(batch_size)
    if c is not None and not _static_bool(drop_remainder):
        # TensorFlow compares the static batch dimensions when it works out
        # whether partial batches may form.
        known = [leaf.shape[0] for leaf in S.leaf_specs(ds.element_spec)
                 if isinstance(leaf, TensorSpec) and leaf.shape.rank and
                 leaf.shape[0] is not None]
        if any(d != known[0] for d in known):
            raise ValueError(f"Invalid `input_dataset.` The batch dimension of component 0 is "
                             f"{known[0]}, while the batch dimension of component i is "
                             f"{np.asarray(known)}.")
    inner = S.unbatch_spec(ds.element_spec, what="rebatch")
    size = int(c) if c is not None and np.ndim(c) == 0 else None
    spec = S.batch_spec(inner, size if _static_bool(drop_remainder) else None)
    sizes = convert_to_tensor(batch_size, dtype=D.int64, name="batch_sizes") \
        if not isinstance(batch_size, Tensor) else batch_size
    ins = [ds._variant_tensor, sizes, DS.scalar(drop_remainder, D.bool_, "drop_remainder")]
    return DS.build("_RebatchDataset", _Rebatch, ins, _spec_attrs(ds.element_spec), spec, name)


# --- window ---------------------------------------------------------------------------------------

class WindowNode(R.Node):
    """Windows of up to `size` elements, `stride` apart, starting every
    `shift` elements; each window element is a tuple of datasets, one per
    component."""

    __slots__ = ("input", "size", "shift", "stride", "drop", "ncomp", "leaves")

    def __init__(self, input_node, size, shift, stride, drop, ncomp, leaves=None):
        self.input, self.size, self.shift = input_node, size, shift
        self.stride, self.drop, self.ncomp = stride, drop, ncomp
        # (first, end) component indices of each leaf: a composite leaf's
        # window is one dataset of its values.
        self.leaves = leaves

    def __iter__(self):
        it = iter(self.input)
        span = (self.size - 1) * self.stride + 1
        buf = []
        exhausted = False
        while True:
            while len(buf) < span and not exhausted:
                e = next(it, None)
                if e is None:
                    exhausted = True
                else:
                    buf.append(e)
            if not buf:
                return
            window = buf[0:span:self.stride]
            if len(window) < self.size and exhausted and self.drop:
                return
            if self.leaves is None:
                yield tuple(ListNode([(e[i],) for e in window]) for i in range(self.ncomp))
            else:
                yield tuple(ListNode([e[a:b] for e in window]) for a, b in self.leaves)
            if self.shift >= len(buf):
                skip = self.shift - len(buf)
                buf = []
                for _ in range(skip):
                    if next(it, None) is None:
                        exhausted = True
                        break
                if exhausted:
                    return
            else:
                del buf[:self.shift]

    def cardinality(self):
        n = self.input.cardinality()
        if n < 0:
            return n
        if self.drop:
            span = (self.size - 1) * self.stride + 1
            return 0 if n < span else (n - span) // self.shift + 1
        return -(-n // self.shift)


def _window_kernel(inp, size, shift, stride, drop_remainder, output_types=(), _spec=None,
                   **_):
    size, shift, stride = int(size), int(shift), int(stride)
    for what, v in (("size", size), ("shift", shift), ("stride", stride)):
        if v <= 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"Window {what} must be greater than zero.")
    leaves = None if _spec is None else [(a, b) for _, a, b in S.leaf_plan(_spec)]
    return WindowNode(inp, size, shift, stride, bool(drop_remainder), len(output_types),
                      leaves)


_Window = DS.register_dataset_op("WindowDataset", _window_kernel)


@registry.implements("Dataset.window")
def window(ds, size, shift=None, stride=1, drop_remainder=False, name=None):
    """See `Dataset.window`."""
    spec = ds.element_spec
    for leaf in S.leaf_specs(spec):
        if isinstance(leaf, S.DatasetSpec):
            raise TypeError("window does not support datasets of datasets.")
    out = nest.map_structure(lambda s: S.DatasetSpec(s), spec)
    ins = [ds._variant_tensor, DS.scalar(size, D.int64, "size"),
           DS.scalar(size if shift is None else shift, D.int64, "shift"),
           DS.scalar(stride, D.int64, "stride"),
           DS.scalar(drop_remainder, D.bool_, "drop_remainder")]
    return DS.build("_WindowDataset", _Window, ins, _spec_attrs(spec), out, name)


# --- ragged_batch and sparse_batch ------------------------------------------------------------

def _ragged_rank_for(leaf):
    """The ragged rank `ragged_batch` gives a tensor leaf before batching
    (its last dimension of unknown size), or None to leave it as it is."""
    if not isinstance(leaf, TensorSpec) or leaf.shape.rank is None or \
            leaf.shape.is_fully_defined():
        return None
    return max(axis for axis, d in enumerate(leaf.shape.as_list()) if d is None)


def _dense_to_ragged_components(value, ragged_rank):
    """The components of the RaggedTensor of ragged rank `ragged_rank` holding
    the dense array `value` (rows of uniform length)."""
    value = np.asarray(value)
    dims = value.shape
    out = [value.reshape((-1,) + dims[ragged_rank + 1:])]
    rows = 1
    for j in range(1, ragged_rank + 1):
        rows *= dims[j - 1]
        out.append(np.arange(rows + 1, dtype=np.int64) * dims[j])
    return out


class DenseToRaggedNode(R.Node):
    """The elements with some tensor components re-encoded as RaggedTensors
    (`plan`: (first component, ragged rank or None, splits NumPy dtype) per leaf)."""

    __slots__ = ("input", "plan")

    def __init__(self, input_node, plan):
        self.input, self.plan = input_node, plan

    def __iter__(self):
        plan = self.plan
        for e in self.input:
            out = []
            for i, k, splits_np in plan:
                if not k:
                    out.append(e[i])
                else:
                    comps = _dense_to_ragged_components(e[i], k)
                    out.append(comps[0])
                    out.extend(s.astype(splits_np, copy=False) for s in comps[1:])
            yield tuple(out)

    def cardinality(self):
        return self.input.cardinality()


def _dense_to_ragged_kernel(inp, _plan=(), **_):
    return DenseToRaggedNode(inp, _plan)


_DenseToRagged = DS.register_dataset_op("DenseToRaggedDataset", _dense_to_ragged_kernel)


@registry.implements("Dataset.ragged_batch")
def ragged_batch(ds, batch_size, drop_remainder=False, row_splits_dtype=D.int64, name=None):
    """See `Dataset.ragged_batch`."""
    splits = D.as_dtype(row_splits_dtype)
    spec = ds.element_spec
    plan, leaves = [], []
    for leaf, a, _ in S.leaf_plan(spec):
        k = _ragged_rank_for(leaf)
        plan.append((a, k, splits._np))
        leaves.append(leaf if k is None else
                      RaggedTensorSpec(leaf.shape, leaf.dtype, k, splits))
    ragged = nest.pack_sequence_as(spec, leaves)
    if any(k for _, k, _ in plan):
        ds = DS.build("_DenseToRaggedDataset", _DenseToRagged, [ds._variant_tensor],
                      {"_plan": tuple(plan)}, ragged, name)
    else:
        # Ragged rank 0 keeps the dense components: only the spec changes.
        ds = DS.make_dataset("_DenseToRaggedDataset", ds._variant_tensor, ragged)
    return batch(ds, batch_size, drop_remainder, name)


class SparseBatchNode(R.Node):
    """Dense elements of any shape within `row_shape`, `size` at a time, as
    the components of one SparseTensor of dense shape [n] + row_shape."""

    __slots__ = ("input", "size", "row_shape")

    def __init__(self, input_node, size, row_shape):
        self.input, self.size, self.row_shape = input_node, size, row_shape

    def __iter__(self):
        it = iter(self.input)
        row = self.row_shape
        rank = len(row)
        while True:
            rows = [np.asarray(e[0]) for e in itertools.islice(it, self.size)]
            if not rows:
                return
            indices, values = [], []
            for i, v in enumerate(rows):
                if v.ndim != rank:
                    raise errors.InvalidArgumentError(
                        None, None, f"Input element had shape ({_dims(v.shape)}) that is "
                        f"incompatible with the row shape ({_dims(row)}).")
                if any(d > r for d, r in zip(v.shape, row)):
                    raise errors.DataLossError(
                        None, None, f"Input element had shape ({_dims(v.shape)}) that is "
                        f"larger than the row shape ({_dims(row)}).")
                where = np.indices(v.shape).reshape(rank, -1).T
                indices.append(np.concatenate(
                    [np.full((len(where), 1), i, np.int64), where], axis=1))
                values.append(v.reshape(-1))
            yield (np.concatenate(indices).astype(np.int64).reshape(-1, rank + 1),
                   np.concatenate(values),
                   np.array([len(rows)] + list(row), dtype=np.int64))
            if len(rows) < self.size:
                return

    def cardinality(self):
        return _batch_cardinality(self.input.cardinality(), self.size, False)


def _dims(shape):
    return "[%s]" % ",".join(str(int(d)) for d in shape)


def _sparse_batch_kernel(inp, batch_size, row_shape, **_):
    return SparseBatchNode(inp, _check_batch_size(batch_size),
                           [int(d) for d in np.reshape(row_shape, -1)])


_SparseBatch = DS.register_dataset_op("DenseToSparseBatchDataset", _sparse_batch_kernel)


@registry.implements("Dataset.sparse_batch")
def sparse_batch(ds, batch_size, row_shape, name=None):
    """See `Dataset.sparse_batch`."""
    spec = ds.element_spec
    if not isinstance(spec, TensorSpec):
        raise TypeError("`dense_to_sparse_batch` requires an input dataset whose elements have "
                        "a single component, but the given dataset has the following "
                        f"component types: {nest.map_structure(S.value_class, spec)}.")
    if isinstance(row_shape, Tensor):
        shape = U.constant_shape(row_shape) if row_shape.shape.rank == 1 else \
            TensorShape(None)
        row = row_shape if row_shape.dtype is D.int64 else DS.scalar(row_shape, D.int64,
                                                                     "row_shape")
    else:
        shape = as_shape(row_shape)
        row = convert_to_tensor(np.array(shape.as_list(), dtype=np.int64), name="row_shape")
    out = SparseTensorSpec(TensorShape([None]).concatenate(shape), spec.dtype)
    ins = [ds._variant_tensor, DS.scalar(batch_size, D.int64, "batch_size"), row]
    return DS.build("_DenseToSparseBatchDataset", _SparseBatch, ins, {}, out, name)
