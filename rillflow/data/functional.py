"""Transformations driven by a user function: `map`, `filter`, `scan`,
`take_while`, `reduce`, plus `unique`, `get_single_element` and
`ignore_errors`.

Each function is traced once (functions.py) and runs as compiled code on
the component values of each element.
"""
import numpy as np

from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.component_batching import slice_iter
from ..framework.execute import apply
from ..framework.op_registry import register
from ..framework.tensor_spec import TensorSpec
from . import dataset_ops as DS
from . import functions as F
from . import registry
from . import runtime as R
from . import structure as S


# --- map -------------------------------------------------------------------------------

class MapNode(R.Node):
    """`f(element)` for each element."""

    __slots__ = ("input", "f", "captured")

    def __init__(self, input_node, f, captured):
        self.input, self.f, self.captured = input_node, f, captured

    def __iter__(self):
        if self.f.vectorizable:
            # A source that slices whole arrays: map chunks of elements in
            # one call each and hand out their rows (the same values).
            chunks = self.input.batches(_CHUNK, False)
            if chunks is not None:
                return _MappedRows(chunks, self.f.batch_caller(self.captured),
                                   self.f.caller(self.captured))
        return map(self.f.caller(self.captured), self.input)

    def batches(self, size, drop_remainder):
        # map then batch == batch then map, for an elementwise function
        # (TensorFlow's map-and-batch fusion, with the map vectorized).
        if not self.f.vectorizable:
            return None
        inner = self.input.batches(size, drop_remainder)
        if inner is None:
            inner = R.stacked_batches(self.input, size, drop_remainder)
        return map(self.f.batch_caller(self.captured), inner)

    def cardinality(self):
        return self.input.cardinality()


# Elements mapped per call when a vectorizable map reads a sliced source.
_CHUNK = 256


class _MappedRows:
    """The rows of a vectorizable map run on chunks of elements. A chunk
    whose call fails is mapped element by element instead, so the error
    comes at its element, and iteration can go on after it (as
    `ignore_errors` does), exactly as without chunks."""

    __slots__ = ("chunks", "batch_fn", "element_fn", "rows", "pending")

    def __init__(self, chunks, batch_fn, element_fn):
        self.chunks, self.batch_fn, self.element_fn = chunks, batch_fn, element_fn
        self.rows = iter(())
        self.pending = iter(())

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            row = next(self.rows, None)
            if row is not None:
                return row
            element = next(self.pending, None)
            if element is not None:
                return self.element_fn(element)
            chunk = next(self.chunks)
            try:
                outs = self.batch_fn(chunk)
            except Exception:
                self.pending = zip(*(slice_iter(a) for a in chunk))
                continue
            self.rows = zip(*(slice_iter(o) for o in outs))


_Map = DS.register_dataset_op("MapDataset",
                              lambda inp, *caps, f, **_: MapNode(inp, f, caps))
_ParallelMap = DS.register_dataset_op(
    "ParallelMapDatasetV2", lambda inp, num_parallel_calls, *caps, f, **_: MapNode(inp, f, caps))


@registry.implements("Dataset.map")
def map_(ds, map_func, num_parallel_calls=None, name=None):
    """See `Dataset.map`."""
    f = F.trace(map_func, ds.element_spec, "Dataset_map")
    if num_parallel_calls is None:
        return DS.build("_MapDataset", _Map, [ds._variant_tensor] + f.capture_inputs(),
                        {"f": f}, f.output_spec, name)
    npc = DS.scalar(num_parallel_calls, D.int64, "num_parallel_calls")
    return DS.build("_ParallelMapDataset", _ParallelMap,
                    [ds._variant_tensor, npc] + f.capture_inputs(), {"f": f},
                    f.output_spec, name)


# --- filter and take_while ------------------------------------------------------------------

def _predicate(fn, spec, what):
    f = F.trace(fn, spec, what)
    out = f.output_spec
    if not isinstance(out, TensorSpec) or out.dtype is not D.bool_ or \
            out.shape.rank not in (0, None):
        # TensorFlow's take_while message lacks the comma and a space.
        sep = (" but its return type is" if what == "Dataset_take_while" else
               ", but its return type is ")
        raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                         f"tensor{sep}{out!r}.")
    return f


class FilterNode(R.Node):
    """The elements for which the predicate holds."""

    __slots__ = ("input", "f", "captured")

    def __init__(self, input_node, f, captured):
        self.input, self.f, self.captured = input_node, f, captured

    def __iter__(self):
        pred = self.f.caller(self.captured)
        for e in self.input:
            if pred(e)[0]:
                yield e


class TakeWhileNode(FilterNode):
    """The elements before the first for which the predicate fails."""

    __slots__ = ()

    def __iter__(self):
        pred = self.f.caller(self.captured)
        for e in self.input:
            if not pred(e)[0]:
                return
            yield e


_Filter = DS.register_dataset_op(
    "FilterDataset", lambda inp, *caps, predicate, **_: FilterNode(inp, predicate, caps))
_TakeWhile = DS.register_dataset_op("TakeWhileDataset",
                                    lambda inp, *caps, predicate, **_:
                                    TakeWhileNode(inp, predicate, caps))


@registry.implements("Dataset.filter")
def filter_(ds, predicate, name=None):
    """See `Dataset.filter`."""
    f = _predicate(predicate, ds.element_spec, "Dataset_filter")
    return DS.build("_FilterDataset", _Filter, [ds._variant_tensor] + f.capture_inputs(),
                    {"predicate": f}, ds.element_spec, name)


@registry.implements("Dataset.take_while")
def take_while(ds, predicate, name=None):
    """See `Dataset.take_while`."""
    f = _predicate(predicate, ds.element_spec, "Dataset_take_while")
    return DS.build("_TakeWhileDataset", _TakeWhile,
                    [ds._variant_tensor] + f.capture_inputs(), {"predicate": f},
                    ds.element_spec, name)


# --- scan and reduce ----------------------------------------------------------------------

def _initial_state(initial_state):
    state = S.normalize_element(initial_state)
    return state, S.element_spec_of(state)


class ScanNode(R.Node):
    """`(state, out) = f(state, element)`; yields `out`."""

    __slots__ = ("input", "f", "state", "captured")

    def __init__(self, input_node, f, state, captured):
        self.input, self.f, self.state, self.captured = input_node, f, state, captured

    def __iter__(self):
        call = self.f.caller2(self.captured)
        state = self.state
        n = len(state)
        for e in self.input:
            out = call(state, e)
            state = out[:n]
            yield out[n:]

    def cardinality(self):
        return self.input.cardinality()


def _scan_kernel(inp, *args, f, n_state, **_):
    return ScanNode(inp, f, tuple(args[:n_state]), args[n_state:])


_Scan = DS.register_dataset_op("ScanDataset", _scan_kernel)


def _scan_output(spec):
    if not isinstance(spec, tuple) or len(spec) != 2:
        raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of "
                        f"new state and the output value but its return type is {spec!r}.")
    return spec[0]


@registry.implements("Dataset.scan")
def scan(ds, initial_state, scan_func, name=None):
    """See `Dataset.scan`."""
    state, state_spec = _initial_state(initial_state)
    f, state_spec = F.trace_state_function(scan_func, state_spec, ds.element_spec,
                                           "Dataset_scan", _scan_output,
                                           "Invalid `scan_func`. ")
    ins = [ds._variant_tensor] + S.flat_tensors(state) + f.capture_inputs()
    return DS.build("_ScanDataset", _Scan, ins,
                    {"f": f, "n_state": len(S.flat_component_specs(state_spec))},
                    f.output_spec[1], name)


def _reduce_kernel(inp, *args, f, n_state, **_):
    F.restart_random_streams([inp, f])
    call = f.caller2(args[n_state:])
    state = tuple(args[:n_state])
    for e in inp:
        state = call(state, e)
    return list(state)


def _typed_infer(inputs, attrs):
    return list(zip(attrs["output_shapes"], attrs["output_types"]))


# Stateful: the loop it runs may print, assign variables or pull from Python
# generators, and it must run even when its result is unused.
_Reduce = register("ReduceDataset", _reduce_kernel, _typed_infer, stateful=True)


@registry.implements("Dataset.reduce")
def reduce_(ds, initial_state, reduce_func, name=None):
    """See `Dataset.reduce`."""
    state, state_spec = _initial_state(initial_state)
    f, state_spec = F.trace_state_function(reduce_func, state_spec, ds.element_spec,
                                           "reduce", lambda out: out, "")
    ins = [ds._variant_tensor] + S.flat_tensors(state) + f.capture_inputs()
    attrs = {"f": f, "n_state": len(S.flat_component_specs(state_spec))}
    attrs.update(DS.type_attrs(state_spec))
    outs = apply(_Reduce, ins, attrs, name=name or "ReduceDataset", multi=True)
    return S.pack_tensors(state_spec, outs)


# --- single elements, unique, ignore_errors -------------------------------------------------

def _single_kernel(inp, **_):
    it = iter(inp)
    first = next(it, None)
    if first is None:
        raise errors.InvalidArgumentError(None, None, "Dataset was empty.")
    if next(it, None) is not None:
        raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
    return list(first)


_Single = register("DatasetToSingleElement", _single_kernel, _typed_infer, stateful=True)


@registry.implements("Dataset.get_single_element")
def get_single_element(ds, name=None):
    """See `Dataset.get_single_element`."""
    outs = apply(_Single, [ds._variant_tensor], DS.type_attrs(ds.element_spec),
                 name=name or "DatasetToSingleElement", multi=True)
    return S.pack_tensors(ds.element_spec, outs)


class UniqueNode(R.Node):
    """The first occurrence of each element (tensors compare by shape and
    values)."""

    __slots__ = ("input",)

    def __init__(self, input_node):
        self.input = input_node

    def __iter__(self):
        seen = set()
        for e in self.input:
            v = e[0]
            if isinstance(v, np.ndarray):
                key = v[()] if v.ndim == 0 else (v.shape, tuple(v.ravel().tolist()))
            else:
                key = v
            if key not in seen:
                seen.add(key)
                yield e


_Unique = DS.register_dataset_op("UniqueDataset", lambda inp, **_: UniqueNode(inp))


@registry.implements("Dataset.unique")
def unique(ds, name=None):
    """See `Dataset.unique`."""
    spec = ds.element_spec
    for leaf in S.leaf_specs(spec):
        dtype = getattr(leaf, "dtype", None)
        if dtype not in (D.int32, D.int64, D.string):
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {dtype} -- only "
                            "`tf.int32`, `tf.int64`, and `tf.string` are supported.")
    if nest.is_nested(spec):
        raise errors.InvalidArgumentError(
            None, None, "UniqueDataset only supports inputs with a single component. "
            "[Op:UniqueDataset]")
    if not isinstance(spec, TensorSpec):
        # TensorFlow's one (variant) component of a composite.
        raise errors.InvalidArgumentError(
            None, None, "UniqueDataset only supports inputs with a single `tf.int32`, "
            "`tf.int64`, or `tf.string` component. [Op:UniqueDataset]")
    return DS.build("_UniqueDataset", _Unique, [ds._variant_tensor], {}, spec, name)


class IgnoreErrorsNode(R.Node):
    """The elements whose production did not fail (failures are skipped)."""

    __slots__ = ("input",)

    def __init__(self, input_node):
        self.input = input_node

    def __iter__(self):
        it = iter(self.input)
        while True:
            try:
                e = next(it)
            except StopIteration:
                return
            except errors.InvalidArgumentError:
                continue
            yield e


_IgnoreErrors = DS.register_dataset_op("IgnoreErrorsDataset",
                                       lambda inp, **_: IgnoreErrorsNode(inp))


@registry.implements("Dataset.ignore_errors")
def ignore_errors(ds, log_warning=False, name=None):
    """See `Dataset.ignore_errors`."""
    return DS.build("_IgnoreErrorsDataset", _IgnoreErrors, [ds._variant_tensor], {},
                    ds.element_spec, name)
