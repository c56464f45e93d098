"""`tf.data.Dataset`: a lazily evaluated pipeline of elements.

A Dataset is a `variant` tensor whose value is a runtime dataset (see
runtime.py), together with its `element_spec`. Every source and
transformation is an op whose kernel builds the runtime dataset from its
inputs; so the same code runs eagerly (the kernel runs at once) and while
tracing a function (the op is added to the graph, and its kernel runs each
time the compiled function runs). A dataset passed to a `tf.function` is a
composite value of that one tensor, traced by its element_spec alone.

This module holds the `Dataset` class and the helpers for building dataset
ops. The sources and transformations behind its methods (`range`, `map`,
`batch`, ...) live in the modules built on it, which register them in
registry.py; each method looks its implementation up there.
"""
from ..framework import context as _context
from ..framework import dtypes as D
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.execute import apply
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from . import registry
from . import runtime as R
from . import structure as S
from .options import Options
from ..ops.core.math_ops import cast

_state = _context.state

AUTOTUNE = -1
INFINITE_CARDINALITY = R.INFINITE
UNKNOWN_CARDINALITY = R.UNKNOWN


# --- building dataset ops ----------------------------------------------------------

def _variant_infer(inputs, attrs):
    return [(TensorShape([]), D.variant)]


def register_dataset_op(name, kernel, stateful=False):
    """Registers an op producing a runtime dataset (never folded: datasets are
    built when the graph runs)."""
    return register(name, kernel, _variant_infer, stateful=stateful, no_fold=True)


def type_attrs(spec):
    """The `output_types` / `output_shapes` attrs describing an element spec."""
    comps = S.flat_component_specs(spec)
    return {"output_types": [c.dtype for c in comps], "output_shapes": [c.shape for c in comps]}


def scalar(value, dtype, name):
    """A scalar argument of a dataset op as a tensor input."""
    if isinstance(value, Tensor):
        if value.dtype is not dtype:
            value = cast(value, dtype)
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def build(kind, opdef, inputs, attrs, element_spec, name=None):
    """Runs (or adds) a dataset op and wraps its variant output as a Dataset."""
    attrs = dict(attrs)
    attrs.update(type_attrs(element_spec))
    variant = apply(opdef, list(inputs), attrs, name=name or opdef.name)
    return make_dataset(kind, variant, element_spec)


@registry.implements("make_dataset")
def make_dataset(kind, variant, element_spec):
    """A Dataset over the variant tensor `variant` (`kind` names it in repr)."""
    ds = Dataset.__new__(Dataset)
    ds._variant_tensor = variant
    ds._element_spec = element_spec
    ds._kind = kind
    return ds


def runtime_node(ds):
    """The runtime dataset of an eager dataset."""
    t = ds._variant_tensor
    if not isinstance(t, EagerTensor):
        raise RuntimeError("This operation needs an eager dataset (not one being traced "
                           "into a graph).")
    return t._v


def _cardinality_kernel(input_dataset):
    import numpy as np
    return np.int64(input_dataset.cardinality())


_Cardinality = register("DatasetCardinality", _cardinality_kernel,
                        lambda inputs, attrs: [(TensorShape([]), D.int64)], no_fold=True)


def _check_dataset(ds, what):
    if not isinstance(ds, Dataset):
        raise TypeError(f"`{what}` expects a `tf.data.Dataset`, got {ds!r} of type "
                        f"{type(ds).__name__}.")
    return ds


def _impl(method):
    """The function implementing `Dataset.<method>`: sources and transformations
    live in the modules built on this one (sources.py, functional.py, ...),
    which register them (see registry.py)."""
    return registry.lookup("Dataset." + method)


@export("data.Dataset")
@registry.implements("Dataset")
class Dataset:
    """A sequence of elements flowing through a pipeline (`tf.data.Dataset`).

    Build one with a source (`Dataset.range`, `from_tensor_slices`,
    `from_generator`, `TextLineDataset`, ...) and chain transformations
    (`map`, `filter`, `batch`, `shuffle`, ...). Iterate it eagerly with a
    Python `for` loop or `iter()`, or inside a `tf.function`, where
    `for x in dataset` becomes a single `ReduceDataset` op.
    """

    def __init__(self, variant_tensor, element_spec=None):
        if element_spec is None:
            raise TypeError("Dataset needs an element_spec; build datasets with the "
                            "`tf.data.Dataset` factory methods.")
        self._variant_tensor = variant_tensor
        self._element_spec = element_spec
        self._kind = type(self).__name__

    # --- properties and Python protocol ----------------------------------------
    @property
    def element_spec(self):
        """The type specification of an element (a nest of TensorSpecs)."""
        return self._element_spec

    def __repr__(self):
        return "<%s element_spec=%r>" % (self._kind, self._element_spec)

    def __bool__(self):
        return True

    __nonzero__ = __bool__

    def __iter__(self):
        """An iterator over the elements (eagerly, or inside a tf.function)."""
        g = _state.graph
        if g is not None and not getattr(g, "is_function_graph", False):
            raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in "
                               "eager mode or within tf.function.")
        return _impl("__iter__")(self)

    def __len__(self):
        """The number of elements (eager only).

        Raises:
          TypeError: if the dataset is infinite or its length is unknown.
          RuntimeError: inside a graph.
        """
        if _state.graph is not None or not isinstance(self._variant_tensor, EagerTensor):
            raise RuntimeError("`tf.data.Dataset` only supports `len` in eager mode. Use "
                               "`tf.data.Dataset.cardinality()` instead.")
        n = runtime_node(self).cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def cardinality(self):
        """The number of elements as an int64 scalar tensor; -1 (INFINITE) or
        -2 (UNKNOWN) when not known."""
        return apply(_Cardinality, [self._variant_tensor], name="DatasetCardinality")

    def as_numpy_iterator(self):
        """An iterator yielding the elements as NumPy values (eager only)."""
        return _impl("as_numpy_iterator")(self)

    # --- composite protocol (tf.function arguments and results) ---------------------
    def _component_specs(self):
        return [TensorSpec([], D.variant)]

    def _to_components(self):
        return [self._variant_tensor]

    def _from_components(self, tensors):
        return make_dataset(self._kind, tensors[0], self._element_spec)

    def _trace_key(self):
        return ("Dataset", S.spec_key(self._element_spec))

    @property
    def _arg_spec(self):
        return S.DatasetSpec(self._element_spec)

    @property
    def _type_spec(self):
        return S.DatasetSpec(self._element_spec)

    def __tf_tensor__(self, dtype=None, name=None):
        return self._variant_tensor

    # --- sources ---------------------------------------------------------------------
    @staticmethod
    def range(*args, **kwargs):
        """`range(stop)`, `range(start, stop[, step])`: int64 elements (or
        `output_type`), like Python's range."""
        return _impl("range")(*args, **kwargs)

    @staticmethod
    def counter(start=0, step=1, dtype=D.int64, name=None):
        """start, start + step, ... without end."""
        return _impl("counter")(start, step, dtype, name)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """Random int64 elements in [0, 2**32) without end."""
        return _impl("random")(seed, rerandomize_each_iteration, name)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element, `tensors`."""
        return _impl("from_tensors")(tensors, name)

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset of the slices of `tensors` along their first dimension."""
        return _impl("from_tensor_slices")(tensors, name)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """A dataset of the elements a Python generator yields; `generator` is
        called anew for each iteration."""
        return _impl("from_generator")(generator, output_types, output_shapes, args,
                                       output_signature, name)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """A dataset of the file names matching `file_pattern` (shuffled by default)."""
        return _impl("list_files")(file_pattern, shuffle, seed, name)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """A dataset of tuples (or dicts) of elements of `datasets`, stopping
        with the shortest."""
        return _impl("zip")(*args, datasets=datasets, name=name)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Elements of `datasets[i]` for each `i` of `choice_dataset`."""
        return _impl("choose_from_datasets")(datasets, choice_dataset,
                                             stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements drawn at random from `datasets` with probabilities `weights`."""
        return _impl("sample_from_datasets")(datasets, weights, seed, stop_on_empty_dataset)

    # --- transformations ---------------------------------------------------------------
    def concatenate(self, dataset, name=None):
        """This dataset's elements followed by `dataset`'s."""
        return _impl("concatenate")(self, dataset, name)

    def enumerate(self, start=0, name=None):
        """Pairs `(index, element)`, indices counting from `start` (int64)."""
        return _impl("enumerate")(self, start, name)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        """Applies `map_func` to each element (traced once, with AutoGraph).

        Tuple elements are passed as separate arguments. `num_parallel_calls`
        is accepted; results keep the input order.
        """
        return _impl("map")(self, map_func, num_parallel_calls, name)

    def filter(self, predicate, name=None):
        """The elements for which `predicate` returns True (a bool scalar)."""
        return _impl("filter")(self, predicate, name)

    def flat_map(self, map_func, name=None):
        """Concatenates the datasets `map_func` returns for each element."""
        return _impl("flat_map")(self, map_func, name)

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """Interleaves the datasets `map_func` returns: `cycle_length` of them
        at a time, `block_length` consecutive elements from each."""
        return _impl("interleave")(self, map_func, cycle_length, block_length,
                                   num_parallel_calls, name)

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds `reduce_func(state, element)` over the dataset; returns the
        final state. Inside a function this is one `ReduceDataset` op."""
        return _impl("reduce")(self, initial_state, reduce_func, name)

    def scan(self, initial_state, scan_func, name=None):
        """Like `map` with a state: `scan_func(state, element)` returns
        `(new_state, output_element)`."""
        return _impl("scan")(self, initial_state, scan_func, name)

    def take_while(self, predicate, name=None):
        """The elements up to (not including) the first for which `predicate`
        is False; no element is pulled after that."""
        return _impl("take_while")(self, predicate, name)

    def unique(self, name=None):
        """The elements of a dataset of scalars without repetitions."""
        return _impl("unique")(self, name)

    def get_single_element(self, name=None):
        """The only element of the dataset.

        Raises:
          InvalidArgumentError: if the dataset does not have exactly one element.
        """
        return _impl("get_single_element")(self, name)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stacks `batch_size` consecutive elements; the static batch dimension
        is None unless `drop_remainder`."""
        return _impl("batch")(self, batch_size, drop_remainder, name,
                              num_parallel_calls is not None)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Like `batch`, padding components to a common shape."""
        return _impl("padded_batch")(self, batch_size, padded_shapes, padding_values,
                                     drop_remainder, name)

    def unbatch(self, name=None):
        """Splits each element into its slices along the first dimension."""
        return _impl("unbatch")(self, name)

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=D.int64,
                     name=None):
        """Like `batch`, for elements of different shapes: each tensor whose
        static shape is not fully known is batched as a RaggedTensor (ragged
        up to its last dimension of unknown size)."""
        return _impl("ragged_batch")(self, batch_size, drop_remainder, row_splits_dtype, name)

    def sparse_batch(self, batch_size, row_shape, name=None):
        """Batches tensor elements of different shapes (within `row_shape`)
        into SparseTensors of dense shape `[batch, *row_shape]`."""
        return _impl("sparse_batch")(self, batch_size, row_shape, name)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """Re-batches a batched dataset into batches of `batch_size`."""
        return _impl("rebatch")(self, batch_size, drop_remainder, name)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        """Groups elements by the int64 key `key_func` gives; each group of
        `window_size` elements (or `window_size_func(key)`) is passed as a
        dataset to `reduce_func(key, dataset)`, whose datasets are concatenated."""
        return _impl("group_by_window")(self, key_func, reduce_func, window_size,
                                        window_size_func, name)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        """Batches elements of similar length together: each element goes to the
        bucket of its `element_length_func` length among `bucket_boundaries`,
        and each bucket is (padded-)batched with its `bucket_batch_sizes` entry."""
        return _impl("bucket_by_sequence_length")(
            self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, drop_remainder, name)

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows, each a dataset of up to `size` elements."""
        return _impl("window")(self, size, shift, stride, drop_remainder, name)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Shuffles with a buffer of `buffer_size` elements."""
        return _impl("shuffle")(self, buffer_size, seed, reshuffle_each_iteration, name)

    def repeat(self, count=None, name=None):
        """Repeats the dataset `count` times (forever when None or -1)."""
        return _impl("repeat")(self, count, name)

    def take(self, count, name=None):
        """At most the first `count` elements (all when -1)."""
        return _impl("take")(self, count, name)

    def skip(self, count, name=None):
        """All but the first `count` elements (none when -1)."""
        return _impl("skip")(self, count, name)

    def shard(self, num_shards, index, name=None):
        """Every `num_shards`-th element, starting at `index`."""
        return _impl("shard")(self, num_shards, index, name)

    def prefetch(self, buffer_size, name=None):
        """Produces elements ahead in a background thread, up to `buffer_size`."""
        return _impl("prefetch")(self, buffer_size, name)

    def cache(self, filename="", name=None):
        """Keeps the elements in memory after the first full iteration."""
        return _impl("cache")(self, filename, name)

    def ignore_errors(self, log_warning=False, name=None):
        """Drops elements whose production raised an InvalidArgumentError."""
        return _impl("ignore_errors")(self, log_warning, name)

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a Dataset."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. "
                            f"Got {type(out)}.")
        return out

    def with_options(self, options, name=None):
        """This dataset with `options` (accepted; they do not change results)."""
        ds = make_dataset(self._kind, self._variant_tensor, self._element_spec)
        ds._options = options
        return ds

    def options(self):
        """The options set with `with_options`."""
        return getattr(self, "_options", None) or Options()


DatasetV2 = Dataset
