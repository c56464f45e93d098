"""Transformations combining several datasets: `zip`, `concatenate`,
`enumerate`, `flat_map`, `interleave`, `choose_from_datasets`,
`sample_from_datasets`."""
import os

import numpy as np

from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from . import dataset_ops as DS
from . import functions as F
from . import registry
from . import runtime as R
from . import structure as S
from .sources import range_
from ..framework import context
from ..framework.convert import convert_to_tensor
from ..framework.tensor import EagerTensor
from ..ops.random.seeding import get_seed


# --- zip -------------------------------------------------------------------------------

class ZipNode(R.Node):
    """Tuples of elements of several datasets, until the shortest ends."""

    __slots__ = ("inputs",)

    def __init__(self, inputs):
        self.inputs = tuple(inputs)

    def __iter__(self):
        its = [iter(n) for n in self.inputs]
        if len(its) == 2:
            a, b = its
            for x in a:
                y = next(b, None)
                if y is None:
                    return
                yield x + y
            return
        while True:
            out = ()
            for it in its:
                e = next(it, None)
                if e is None:
                    return
                out += e
            yield out

    def cardinality(self):
        result = R.INFINITE
        for n in self.inputs:
            c = n.cardinality()
            if c == R.UNKNOWN:
                return R.UNKNOWN
            if c == R.INFINITE:
                continue
            result = c if result == R.INFINITE else min(result, c)
        return result


def _zip_kernel(*inputs, **_):
    return ZipNode(inputs)


_Zip = DS.register_dataset_op("ZipDataset", _zip_kernel)


@registry.implements("Dataset.zip")
def zip_(*args, datasets=None, name=None):
    """See `Dataset.zip`."""
    if datasets is not None:
        if args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
    elif len(args) == 1:
        datasets = args[0]
    elif args:
        datasets = tuple(args)
    else:
        raise TypeError("Must pass at least one dataset to `zip`.")
    if isinstance(datasets, list):
        raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures "
                        "of `tf.data.Dataset` objects. Python `list` is not supported and you "
                        "should use `tuple` instead.")
    flat = nest.flatten(datasets)
    for d in flat:
        if not isinstance(d, DS.Dataset):
            raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) "
                            f"structures of `tf.data.Dataset` objects but encountered object "
                            f"of type {type(d)}.")
    spec = nest.map_structure(lambda d: d.element_spec, datasets)
    return DS.build("_ZipDataset", _Zip, [d._variant_tensor for d in flat], {}, spec, name)


# --- concatenate ------------------------------------------------------------------------

class ConcatenateNode(R.Node):
    """The elements of one dataset, then of another."""

    __slots__ = ("first", "second")
    _lazy_inputs = ("second",) + R.Node._lazy_inputs

    def __init__(self, first, second):
        self.first, self.second = first, second

    def __iter__(self):
        yield from self.first
        yield from self.second

    def cardinality(self):
        a, b = self.first.cardinality(), self.second.cardinality()
        if R.INFINITE in (a, b):
            return R.INFINITE
        if R.UNKNOWN in (a, b):
            return R.UNKNOWN
        return a + b


_Concatenate = DS.register_dataset_op("ConcatenateDataset",
                                      lambda a, b, **_: ConcatenateNode(a, b))


@registry.implements("Dataset.concatenate")
def concatenate(ds, other, name=None):
    """See `Dataset.concatenate`."""
    DS._check_dataset(other, "concatenate")
    spec = S.most_specific_compatible(ds.element_spec, other.element_spec)
    if spec is None:
        raise TypeError(f"Incompatible dataset elements:\n  {ds.element_spec!r} vs. "
                        f"  {other.element_spec!r}")
    return DS.build("_ConcatenateDataset", _Concatenate,
                    [ds._variant_tensor, other._variant_tensor], {}, spec, name)


@registry.implements("Dataset.enumerate")
def enumerate_(ds, start=0, name=None):
    """See `Dataset.enumerate`."""
    counter = range_(start, np.iinfo(np.int64).max)
    return zip_((counter, ds), name=name)


# --- flat_map and interleave ------------------------------------------------------------

def _dataset_function(fn, spec, what):
    f = F.trace(fn, spec, what)
    if not isinstance(f.output_spec, S.DatasetSpec):
        raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                        f"{f.output_spec!r}.")
    return f


class FlatMapNode(R.Node):
    """The concatenation of the datasets a function returns for each element."""

    __slots__ = ("input", "f", "captured")

    def __init__(self, input_node, f, captured):
        self.input, self.f, self.captured = input_node, f, captured

    def __iter__(self):
        call = self.f.caller(self.captured)
        for e in self.input:
            yield from call(e)[0]


_FlatMap = DS.register_dataset_op(
    "FlatMapDataset", lambda inp, *caps, f, **_: FlatMapNode(inp, f, caps))


@registry.implements("Dataset.flat_map")
def flat_map(ds, map_func, name=None):
    """See `Dataset.flat_map`."""
    f = _dataset_function(map_func, ds.element_spec, "Dataset_flat_map")
    return DS.build("_FlatMapDataset", _FlatMap, [ds._variant_tensor] + f.capture_inputs(),
                    {"f": f}, f.output_spec.element_spec, name)


class InterleaveNode(R.Node):
    """Round robin over `cycle_length` open datasets, `block_length` elements
    at a time; an exhausted dataset's slot is refilled from the input."""

    __slots__ = ("input", "f", "captured", "cycle_length", "block_length")

    def __init__(self, input_node, f, captured, cycle_length, block_length):
        self.input, self.f, self.captured = input_node, f, captured
        self.cycle_length, self.block_length = cycle_length, block_length

    def __iter__(self):
        call = self.f.caller(self.captured)
        source = iter(self.input)
        n, block = self.cycle_length, self.block_length
        slots = [None] * n
        open_count = 0
        index = 0
        taken = 0
        end_of_input = False
        while not end_of_input or open_count > 0:
            it = slots[index]
            if it is not None:
                e = next(it, None)
                if e is not None:
                    yield e
                    taken += 1
                    if taken == block:
                        taken = 0
                        index = (index + 1) % n
                    continue
                slots[index] = None
                open_count -= 1
                taken = 0
                index = (index + 1) % n
            elif not end_of_input:
                args = next(source, None)
                if args is None:
                    end_of_input = True
                else:
                    slots[index] = iter(call(args)[0])
                    open_count += 1
            else:
                taken = 0
                index = (index + 1) % n


def _interleave_kernel(inp, cycle_length, block_length, *caps, f, **_):
    cycle, block = int(cycle_length), int(block_length)
    if cycle == DS.AUTOTUNE:
        cycle = os.cpu_count() or 1
    if cycle <= 0:
        raise errors.InvalidArgumentError(None, None,
                                          "cycle_length must be greater than zero.")
    if block <= 0:
        raise errors.InvalidArgumentError(None, None,
                                          "block_length must be greater than zero.")
    return InterleaveNode(inp, f, caps, cycle, block)


_Interleave = DS.register_dataset_op("InterleaveDataset", _interleave_kernel)
_ParallelInterleave = DS.register_dataset_op("ParallelInterleaveDatasetV4",
                                             _interleave_kernel)


@registry.implements("Dataset.interleave")
def interleave(ds, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
               name=None):
    """See `Dataset.interleave`."""
    f = _dataset_function(map_func, ds.element_spec, "Dataset_interleave")
    op = _Interleave if num_parallel_calls is None else _ParallelInterleave
    ins = [ds._variant_tensor,
           DS.scalar(DS.AUTOTUNE if cycle_length is None else cycle_length, D.int64,
                     "cycle_length"),
           DS.scalar(1 if block_length is None else block_length, D.int64, "block_length")]
    return DS.build("_InterleaveDataset" if num_parallel_calls is None else
                    "_ParallelInterleaveDataset", op, ins + f.capture_inputs(), {"f": f},
                    f.output_spec.element_spec, name)


# --- choosing among datasets ---------------------------------------------------------------

class ChooseNode(R.Node):
    """Elements of `inputs[i]` for each index `i` the selector yields."""

    __slots__ = ("selector", "inputs", "stop_on_empty")

    def __init__(self, selector, inputs, stop_on_empty):
        self.selector, self.inputs, self.stop_on_empty = selector, inputs, stop_on_empty

    def __iter__(self):
        its = [iter(n) for n in self.inputs]
        live = len(its)
        for (i,) in self.selector:
            i = int(i)
            if not 0 <= i < len(its):
                raise errors.InvalidArgumentError(
                    None, None, f"Selector index out of range: {i} >= {len(its)}")
            if its[i] is None:
                continue
            e = next(its[i], None)
            if e is None:
                if self.stop_on_empty:
                    return
                its[i] = None
                live -= 1
                if live == 0:
                    return
                continue
            yield e

    def cardinality(self):
        # TensorFlow's DirectedInterleave: infinite when an input is, else unknown
        # (even when the selector is finite).
        if any(n.cardinality() == R.INFINITE for n in self.inputs):
            return R.INFINITE
        return R.UNKNOWN


class RandomIndexNode(R.Node):
    """An infinite dataset of indices drawn with probabilities `weights`."""

    __slots__ = ("weights", "seed")

    def __init__(self, weights, seed):
        self.weights, self.seed = weights, seed

    def __iter__(self):
        rng = np.random.default_rng(self.seed)
        p = np.asarray(self.weights, dtype=np.float64)
        p = p / p.sum()
        while True:
            for v in rng.choice(len(p), size=256, p=p):
                yield (np.int64(v),)

    def cardinality(self):
        return R.INFINITE


_Choose = DS.register_dataset_op(
    "DirectedInterleaveDataset",
    lambda selector, *inputs, stop_on_empty_dataset=True, **_:
        ChooseNode(selector, inputs, stop_on_empty_dataset))


@registry.implements("Dataset.choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """See `Dataset.choose_from_datasets`."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(choice_dataset, DS.Dataset):
        raise TypeError("Invalid `choice_dataset`. `choice_dataset` should be a "
                        f"`tf.data.Dataset` but is {type(choice_dataset)}.")
    cs = choice_dataset.element_spec
    if not isinstance(cs, TensorSpec) or cs.dtype is not D.int64 or cs.shape.rank not in \
            (0, None):
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be "
                        f"scalar `tf.int64` tensors but are {cs!r}.")
    spec = datasets[0].element_spec
    for i, d in enumerate(datasets[1:], 1):
        spec = S.most_specific_compatible(spec, d.element_spec)
        if spec is None:
            raise TypeError(f"Invalid `datasets`. `datasets` must have compatible element "
                            f"specs.\n Dataset 0 element_spec={datasets[0].element_spec}.\n"
                            f"Dataset {i} element_spec={d.element_spec}.")
    return DS.build("_DirectedInterleave", _Choose,
                    [choice_dataset._variant_tensor] + [d._variant_tensor for d in datasets],
                    {"stop_on_empty_dataset": bool(stop_on_empty_dataset)}, spec, None)


@registry.implements("Dataset.sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """See `Dataset.sample_from_datasets`."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if weights is None:
        weights = [1.0] * len(datasets)
    if isinstance(weights, Tensor):
        if not weights.shape.is_compatible_with([len(datasets)]):
            raise ValueError("Invalid `weights`. The shape of `weights` should be compatible "
                             f"with `[len(datasets)]` but is {weights.shape}.")
        w = np.asarray(weights.numpy(), dtype=np.float64)
    else:
        if len(weights) != len(datasets):
            raise ValueError("Invalid `weights`. `weights` should have the same length as "
                             f"`datasets` but got `len(weights)={len(weights)}` vs. "
                             f"`len(datasets)={len(datasets)}`.")
        # As TensorFlow does, datasets of weight 0 are left out (so they never
        # end the sampling with stop_on_empty_dataset, nor make it infinite).
        kept = [(d, float(x)) for d, x in zip(datasets, weights) if float(x) > 0]
        datasets, weights = ([d for d, _ in kept], [x for _, x in kept]) if kept else \
            ([datasets[0].take(0)], [1.0])
        w = np.asarray(weights, dtype=np.float64)
    if len(datasets) == 1:
        return datasets[0]
    s1, s2 = get_seed(seed)
    rng_seed = None if s1 is None else [s1, s2]
    selector = DS.make_dataset("_RandomIndex", _random_index(w, rng_seed),
                               TensorSpec([], D.int64))
    return choose_from_datasets(datasets, selector, stop_on_empty_dataset)


def _random_index(weights, seed):
    node = RandomIndexNode(weights, seed)
    if context.state.graph is None:
        return EagerTensor(node)
    return convert_to_tensor(EagerTensor(node))
