"""Lookup tables from datasets: `tf.data.experimental.DatasetInitializer`,
`table_from_dataset` and `index_table_from_dataset`.

The initializer reads the dataset's (key, value) elements when the table is
initialized (eagerly, as rillflow makes tables in the outermost context) and
imports them with `LookupTableImportV2`, as TensorFlow's
`InitializeTableFromDataset` fills the table. Out-of-vocabulary buckets are
TensorFlow's: `vocab_size + Fingerprint64(key) % num_oov_buckets`.
"""
import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_spec import TensorSpec
from ..ops.lookup import lookup_ops as L
from ..ops.lookup import table_ops as T
from . import dataset_ops as DS
from .exports import assert_cardinality

__all__ = ["DatasetInitializer", "table_from_dataset", "index_table_from_dataset"]

_BASE_ERROR = ("Datasets used to initialize lookup tables must produce elements in the form "
               "(key, value), where the keys and values are scalar tensors. ")


def _check_element_spec(spec):
    """TensorFlow's checks of a table dataset's element spec.

    Raises:
      ValueError: unless the elements are (scalar key, scalar value) pairs.
    """
    n = len(spec)    # TypeError for a single tensor, as in TensorFlow
    if n != 2:
        raise ValueError(_BASE_ERROR + f"However, the given dataset produces {n} components "
                         f"instead of two (key, value) components. Full dataset element spec: "
                         f"{spec}.")
    for k, what in ((0, "keys"), (1, "values")):
        if not isinstance(spec[k], TensorSpec):
            raise ValueError(_BASE_ERROR + "However, the given dataset produces non-Tensor "
                             f"{what} of type {type(spec[k])}.")
    for k, what in ((0, "key"), (1, "value")):
        if spec[k].shape.rank not in (None, 0):
            raise ValueError(_BASE_ERROR + f"However, the given dataset produces non-scalar "
                             f"{what} Tensors of rank {spec[k].shape.rank}.")


@export("data.experimental.DatasetInitializer")
class DatasetInitializer(L.TableInitializerBase):
    """Initializes a lookup table from a dataset of (key, value) scalar pairs.

    Raises:
      ValueError: for a dataset of other elements.
    """

    def __init__(self, dataset):
        self.dataset = dataset
        spec = dataset.element_spec
        _check_element_spec(spec)
        super().__init__(spec[0].dtype, spec[1].dtype)

    def initialize(self, table):
        """Fills `table` with the dataset's pairs.

        Raises:
          TypeError: when the dtypes do not match the table's.
          RuntimeError: for a dataset that only exists in a graph being built.
        """
        L.check_table_dtypes(table, self._key_dtype, self._value_dtype)
        with _context.init_scope():
            if not isinstance(self.dataset._variant_tensor, EagerTensor):
                raise RuntimeError("DatasetInitializer needs a dataset made eagerly (outside "
                                   "tf.function) in rillflow.")
            keys, values = [], []
            try:
                for k, v in self.dataset:
                    keys.append(k.numpy())
                    values.append(v.numpy())
            except errors.OpError as e:
                # Reported as the initializing op, as TensorFlow reports it.
                raise type(e)(None, None, e.message.replace(
                    "[Op:IteratorGetNext]", "[Op:InitializeTableFromDataset]")) from None
            keys = convert_to_tensor(np.array(keys, dtype=_np(self._key_dtype)),
                                     dtype=self._key_dtype)
            values = convert_to_tensor(np.array(values, dtype=_np(self._value_dtype)),
                                       dtype=self._value_dtype)
        op = T.lookup_table_import(table.resource_handle, keys, values,
                                   name="InitializeTableFromDataset")
        L._add_initializer(op)
        return op


def _np(dtype):
    return object if dtype is D.string else dtype.as_numpy_dtype


@export("data.experimental.table_from_dataset")
def table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None,
                       hasher_spec=None, key_dtype=D.string, name=None):
    """A lookup table from a dataset of (key, value) scalar pairs; with
    `num_oov_buckets`, missing keys are hashed into that many ids after the
    vocabulary (values must then be int64).

    Raises:
      ValueError: for a bad element spec, a negative `num_oov_buckets`, a
        `vocab_size` below 1, or no `default_value` for values that are not
        numbers.
      TypeError: for a `key_dtype` that is neither integer nor string.
    """
    spec = dataset.element_spec
    _check_element_spec(spec)
    if default_value is None:
        default_value = -1
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError("`default_value` must be specified when creating a table from a "
                             f"dataset that produces values of type {spec[1].dtype}.")
    if num_oov_buckets < 0:
        raise ValueError("`num_oov_buckets` must be greater than or equal to 0, got "
                         f"{num_oov_buckets}.")
    if not isinstance(vocab_size, Tensor) and vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    key_dtype = D.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype is not D.string:
        raise TypeError("`key_dtype` must be either an integer or string type, but got "
                        f"{key_dtype}")
    if vocab_size is not None:
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    initializer = DatasetInitializer(dataset)
    if num_oov_buckets:
        if spec[1].dtype is not D.int64:
            raise TypeError(f"Invalid `value_dtype`: expected int64 but got {spec[1].dtype}.")
        return L.StaticVocabularyTable(initializer, num_oov_buckets, lookup_key_dtype=key_dtype,
                                       name=name)
    return L.StaticHashTableV1(initializer, default_value, name=name)


@export("data.experimental.index_table_from_dataset")
def index_table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None,
                             default_value=-1, hasher_spec=None, key_dtype=D.string,
                             name=None):
    """A table mapping each element of a dataset of scalar keys to its
    position (int64), missing keys to `default_value` or, with
    `num_oov_buckets`, to hashed ids after the vocabulary.

    Raises:
      ValueError, TypeError: as `table_from_dataset`.
    """
    return table_from_dataset(dataset.enumerate().map(lambda v, k: (k, v)), num_oov_buckets,
                              vocab_size, default_value, hasher_spec, key_dtype, name)
