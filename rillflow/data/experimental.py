"""`tf.data.experimental`'s sources and transformations beyond the Dataset
methods: `Counter`, `RandomDataset` (Philox words as TensorFlow's
RandomDataset draws them), `SqlDataset` (SQLite, through Python's sqlite3),
`from_list`, `group_by_reducer` with `Reducer`, `map_and_batch`,
`parallel_interleave`, `shuffle_and_repeat`, `unique`, `pad_to_cardinality`,
`parse_example_dataset`, `copy_to_device`/`prefetch_to_device` (one CPU:
the identity), `at`, `get_structure`, `to_variant`/`from_variant`,
`TFRecordWriter`, `SHARD_HINT` and
`enable_debug_mode`. Where TensorFlow writes one with other Dataset methods,
so does this module, in the same way."""
import collections
import sqlite3

import numpy as np

from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.api_export import EXPORTS, export, export_value
from ..framework.convert import convert_to_tensor
from ..framework.tensor_spec import TensorSpec
from ..io.tfrecord import TFRecordWriter as _RecordWriter
from ..ops.random import philox
from ..ops.random.seeding import get_seed
from . import dataset_ops as DS
from . import iterator_ops, registry
from .readers import _ReaderMeta
from . import runtime as R

export_value(-1, "data.experimental.SHARD_HINT")
_INT64_MAX = (1 << 63) - 1


# --- Counter, RandomDataset ---------------------------------------------------------------------

@export("data.experimental.Counter")
@registry.implements("Dataset.counter")
def Counter(start=0, step=1, dtype=D.int64, name=None):  # noqa: N802 - TensorFlow's name
    """start, start + step, start + 2 * step, ... without end (`dtype`)."""
    start = convert_to_tensor(start, dtype=dtype, name="start")
    step = convert_to_tensor(step, dtype=dtype, name="step")
    return DS.Dataset.from_tensors(0, name=name).repeat(None, name=name).scan(
        start, lambda state, _: (state + step, state), name=name)


class RandomNode(R.Node):
    """uint32 words of Philox(seed, seed2), one per element, as int64."""

    __slots__ = ("seed", "seed2")

    def __init__(self, seed, seed2):
        self.seed, self.seed2 = seed, seed2

    def __iter__(self):
        seed, seed2 = self.seed, self.seed2
        if seed == 0 and seed2 == 0:
            seed, seed2 = philox.random_seed64(), philox.random_seed64()
        pos = philox.from_seeds(seed, seed2)
        while True:
            for w in philox.blocks(pos[0], pos[1], 256).reshape(-1):
                yield (np.int64(w),)
            pos = philox.skip(pos, 256)

    def cardinality(self):
        return -1   # infinite


def _random_kernel(seed, seed2, **_):
    return RandomNode(int(seed), int(seed2))


_Random = DS.register_dataset_op("RandomDataset", _random_kernel)
_INT64_SCALAR = TensorSpec([], D.int64)


@export("data.experimental.RandomDataset")
@registry.implements("Dataset.random")
class RandomDataset(DS.Dataset, metaclass=_ReaderMeta):
    """Random int64 elements in [0, 2**32) without end: the words of a Philox
    generator seeded by `seed` (with the global seed, as random ops are).
    Each iteration repeats the same numbers when seeded.

    A class as in TensorFlow (`isinstance(ds, RandomDataset)` holds for its
    datasets); calling it builds a plain Dataset of that kind."""

    _reader_kind = "RandomDataset"

    def __new__(cls, seed=None, rerandomize_each_iteration=None, name=None):
        seed, seed2 = get_seed(seed)
        ins = [DS.scalar(seed or 0, D.int64, "seed"), DS.scalar(seed2 or 0, D.int64, "seed2")]
        return DS.build(cls._reader_kind, _Random, ins, {}, _INT64_SCALAR, name)


# --- SqlDataset ---------------------------------------------------------------------------------

class SqlNode(R.Node):
    """The rows of an SQLite query, one tuple of scalars per row."""

    __slots__ = ("path", "query", "dtypes")

    def __init__(self, path, query, dtypes):
        self.path, self.query, self.dtypes = path, query, dtypes

    def __iter__(self):
        try:
            conn = sqlite3.connect(self.path)
        except sqlite3.Error as e:
            raise errors.UnknownError(None, None, str(e)) from None
        try:
            cursor = conn.execute(self.query)
            for row in cursor:
                if len(row) != len(self.dtypes):
                    raise errors.InvalidArgumentError(
                        None, None, f"The number of columns in the query ({len(row)}) must "
                        f"match the number of elements in output_types ({len(self.dtypes)}).")
                yield tuple(_sql_value(v, d) for v, d in zip(row, self.dtypes))
        except sqlite3.Error as e:
            raise errors.UnknownError(None, None, str(e)) from None
        finally:
            conn.close()


def _sql_value(v, dtype):
    if dtype is D.string:
        a = np.empty((), dtype=object)
        a[()] = v.encode("utf-8") if isinstance(v, str) else bytes(v)
        return a
    return np.asarray(v, dtype.as_numpy_dtype)


def _sql_kernel(driver_name, data_source_name, query, output_types=(), **_):
    driver = _text(driver_name)
    if driver != "sqlite":
        raise errors.InvalidArgumentError(None, None, "The database type, " + driver +
                                          ", is not supported by SqlDataset. The set of "
                                          "supported databases is: {'sqlite'}.")
    return SqlNode(_text(data_source_name), _text(query), list(output_types))


def _text(v):
    v = v.item() if isinstance(v, np.ndarray) else v
    return v.decode() if isinstance(v, bytes) else str(v)


_Sql = DS.register_dataset_op("SqlDataset", _sql_kernel)


@export("data.experimental.SqlDataset")
class SqlDataset(DS.Dataset, metaclass=_ReaderMeta):
    """The rows of an SQL `query` on an SQLite database file, as tuples of
    scalars of `output_types` (driver "sqlite" only, as in TensorFlow)."""

    _reader_kind = "SqlDataset"

    def __new__(cls, driver_name, data_source_name, query, output_types):
        types = tuple(D.as_dtype(t) for t in nest.flatten(output_types))
        spec = nest.pack_sequence_as(output_types, [TensorSpec([], t) for t in types])
        ins = [convert_to_tensor(driver_name, D.string),
               convert_to_tensor(data_source_name, D.string),
               convert_to_tensor(query, D.string)]
        return DS.build(cls._reader_kind, _Sql, ins, {}, spec, None)


# --- transformations ----------------------------------------------------------------------------

@export("data.experimental.Reducer")
class Reducer:
    """What `group_by_reducer` does with each group: `init_func(key)` gives a
    state, `reduce_func(state, element)` the next, `finalize_func(state)` the
    group's output element."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        """The initial state of a group, from its int64 key."""
        return self._init_func

    @property
    def reduce_func(self):
        """The next state, from a state and an element."""
        return self._reduce_func

    @property
    def finalize_func(self):
        """A group's output element, from its last state."""
        return self._finalize_func


@export("data.experimental.group_by_reducer")
def group_by_reducer(key_func, reducer):
    """A transformation: one output per key (`key_func(element)`, int64),
    reducing the elements of that key with `reducer`; the groups come out
    in order of their keys when the input ends."""
    def reduce_window(key, window):
        state = window.reduce(reducer.init_func(key), reducer.reduce_func)
        return DS.Dataset.from_tensors(reducer.finalize_func(state))

    def apply(ds):
        return ds.group_by_window(key_func, reduce_window, window_size=_INT64_MAX)
    return apply


@export("data.experimental.map_and_batch")
def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """`map(map_func)` then `batch(batch_size, drop_remainder)`, fused in
    TensorFlow, the same elements."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`map_and_batch` allows only one of `num_parallel_batches` and "
                         "`num_parallel_calls` to be set, but `num_parallel_batches` was set "
                         f"to {num_parallel_batches} and `num_parallel_calls` as set to "
                         f"{num_parallel_calls}.")
    return lambda ds: ds.map(map_func).batch(batch_size, drop_remainder=drop_remainder)


@export("data.experimental.parallel_interleave")
def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """`interleave(map_func, cycle_length, block_length)` (in order: rillflow
    is deterministic, which `sloppy=False` asks for)."""
    return lambda ds: ds.interleave(map_func, cycle_length=cycle_length,
                                    block_length=block_length)


@export("data.experimental.shuffle_and_repeat")
def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """`shuffle(buffer_size, seed)` then `repeat(count)`, reshuffling each epoch."""
    return lambda ds: ds.shuffle(buffer_size, seed=seed,
                                 reshuffle_each_iteration=True).repeat(count)


@export("data.experimental.unique")
def unique():
    """`Dataset.unique` as a transformation."""
    return lambda ds: ds.unique()


@export("data.experimental.copy_to_device")
def copy_to_device(target_device, source_device="/cpu:0"):
    """Moving the elements to `target_device`: every device is the CPU here,
    so the elements are unchanged."""
    return lambda ds: ds


@export("data.experimental.prefetch_to_device")
def prefetch_to_device(device, buffer_size=None):
    """`prefetch(buffer_size)` (the device is the CPU)."""
    return lambda ds: ds.prefetch(buffer_size if buffer_size is not None else -1)


@export("data.experimental.pad_to_cardinality")
def pad_to_cardinality(cardinality, mask_key="valid"):
    """Pads a dataset of dicts to `cardinality` elements with zero elements;
    each element gets `mask_key`: True for the original ones.

    Raises (when applied):
      ValueError: an unknown or larger cardinality, or elements that are
        not dicts.
    """
    def apply(ds):
        n = int(ds.cardinality())
        if n < 0:
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a known "
                             f"cardinalty, but has cardinality {n}")
        if n > cardinality:
            raise ValueError("The dataset passed into `pad_to_cardinality` must have a "
                             f"cardinalty less than the target cardinality ({cardinality}), "
                             f"but has cardinality {n}")
        if not isinstance(ds.element_spec, collections.abc.Mapping):
            raise ValueError("`pad_to_cardinality` requires its input dataset to be a "
                             "dictionary.")
        filler = nest.map_structure(lambda spec: EXPORTS["zeros"](spec.shape, spec.dtype),
                                    ds.element_spec)
        filler[mask_key] = False
        filler = DS.Dataset.from_tensors(filler).repeat(cardinality - n)

        def valid(x):
            x[mask_key] = True
            return x
        return ds.map(valid).concatenate(filler)
    return apply


@export("data.experimental.parse_example_dataset")
def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """Parses a dataset of batches of serialized `tf.train.Example`s with
    `tf.io.parse_example(..., features)`.

    Raises:
      ValueError: if `features` is None.
    """
    if features is None:
        raise ValueError("Argument `features` is required, but not specified.")
    return lambda ds: ds.map(lambda x: EXPORTS["io.parse_example"](x, features))


# --- elements, structures, variants --------------------------------------------------------------

@export("data.experimental.from_list")
def from_list(elements, name=None):
    """A dataset of the elements of the list `elements` (each a nest of
    values of one structure; shapes may differ between elements, the spec is
    their most specific common one).

    Raises:
      ValueError: for an empty list.
    """
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty. If you want an "
                         "empty dataset, use `tf.data.Dataset.range(0)`.")
    if not isinstance(elements, list):
        raise ValueError("Invalid `elements`. `elements` must be a list of elements.")
    datasets = [DS.Dataset.from_tensors(e, name=name) for e in elements]
    out = datasets[0]
    for d in datasets[1:]:
        out = out.concatenate(d)
    return out


@export("data.experimental.get_structure")
def get_structure(dataset_or_iterator):
    """The element spec of a dataset or iterator.

    Raises:
      TypeError: for anything else.
    """
    spec = getattr(dataset_or_iterator, "element_spec", None)
    if spec is None or not isinstance(dataset_or_iterator, (DS.Dataset,
                                                            iterator_ops.OwnedIterator)):
        raise TypeError("Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
                        "`tf.data.Dataset` or tf.data.Iterator object, but got "
                        f"{type(dataset_or_iterator)}.")
    return spec


@export("data.experimental.at")
def at(dataset, index):
    """The element at `index` of `dataset`.

    Raises:
      OutOfRangeError: for an index outside the dataset.
    """
    n = int(dataset.cardinality())
    index = int(index)
    if index < 0 or (n >= 0 and index >= n):
        raise errors.OutOfRangeError(None, None, f"Index out of range [0, {n}):{index}")
    return dataset.skip(index).take(1).get_single_element()


@export("data.experimental.to_variant")
def to_variant(dataset):
    """The dataset's variant tensor."""
    return dataset._variant_tensor


@export("data.experimental.from_variant")
def from_variant(variant, structure):
    """The dataset of element spec `structure` that `variant` (a dataset's
    variant tensor) holds."""
    return DS.make_dataset("FromVariant", variant, structure)


@export("data.experimental.TFRecordWriter")
class TFRecordWriter:
    """Writes a dataset of strings to a TFRecord file (`write(dataset)`).

    Args:
      filename: the file.
      compression_type: "", "GZIP" or "ZLIB".
    """

    def __init__(self, filename, compression_type=None):
        self._filename = filename
        self._compression = compression_type or ""

    def write(self, dataset):
        """Writes every element of `dataset` (string scalars) as a record.

        Raises:
          TypeError: if the elements are not string scalars.
        """
        spec = dataset.element_spec
        if not isinstance(spec, TensorSpec) or spec.dtype is not D.string or \
                spec.shape.rank not in (None, 0):
            raise TypeError("Invalid `dataset.` Expected a`dataset` that produces scalar "
                            f"`tf.string` elements, but got a dataset which produces elements "
                            f"with shapes {spec.shape} and types {spec.dtype}.")
        w = _RecordWriter(self._filename, self._compression)
        try:
            for record in dataset.as_numpy_iterator():
                w.write(record)
        finally:
            w.close()


# --- options and modes --------------------------------------------------------------------------

_DEBUG_MODE = [False]


@export("data.experimental.enable_debug_mode")
def enable_debug_mode():
    """Runs dataset functions eagerly and in order, for debugging; rillflow's
    pipelines are deterministic already, so this records the mode."""
    _DEBUG_MODE[0] = True


