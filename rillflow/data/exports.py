"""The `tf.data` and `tf.data.experimental` names that are constants or
aliases of Dataset methods."""
from ..framework.api_export import export, export_value
from . import dataset_ops as DS
from .ordering import assert_cardinality as _assert_cardinality

export_value(DS.AUTOTUNE, "data.AUTOTUNE", "data.experimental.AUTOTUNE")
export_value(DS.INFINITE_CARDINALITY, "data.INFINITE_CARDINALITY",
             "data.experimental.INFINITE_CARDINALITY")
export_value(DS.UNKNOWN_CARDINALITY, "data.UNKNOWN_CARDINALITY",
             "data.experimental.UNKNOWN_CARDINALITY")


@export("data.experimental.cardinality")
def cardinality(dataset):
    """`dataset.cardinality()`."""
    return dataset.cardinality()


@export("data.experimental.get_single_element")
def get_single_element(dataset):
    """`dataset.get_single_element()`."""
    return dataset.get_single_element()


@export("data.experimental.scan")
def scan(initial_state, scan_func):
    """A function for `Dataset.apply` that calls `Dataset.scan`."""
    return lambda ds: ds.scan(initial_state, scan_func)


@export("data.experimental.take_while")
def take_while(predicate):
    """A function for `Dataset.apply` that calls `Dataset.take_while`."""
    return lambda ds: ds.take_while(predicate)


@export("data.experimental.unbatch")
def unbatch():
    """A function for `Dataset.apply` that calls `Dataset.unbatch`."""
    return lambda ds: ds.unbatch()


@export("data.experimental.dense_to_ragged_batch")
def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype="int64"):
    """A function for `Dataset.apply` that calls `Dataset.ragged_batch`."""
    return lambda ds: ds.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


@export("data.experimental.dense_to_sparse_batch")
def dense_to_sparse_batch(batch_size, row_shape):
    """A function for `Dataset.apply` that calls `Dataset.sparse_batch`."""
    return lambda ds: ds.sparse_batch(batch_size, row_shape)


@export("data.experimental.enumerate_dataset")
def enumerate_dataset(start=0):
    """A function for `Dataset.apply` that calls `Dataset.enumerate`."""
    return lambda ds: ds.enumerate(start)


@export("data.experimental.ignore_errors")
def ignore_errors(log_warning=False):
    """A function for `Dataset.apply` that drops elements whose production fails."""
    return lambda ds: ds.ignore_errors(log_warning)


@export("data.experimental.choose_from_datasets")
def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """`Dataset.choose_from_datasets`."""
    return DS.Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


@export("data.experimental.sample_from_datasets")
def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """`Dataset.sample_from_datasets`."""
    return DS.Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


@export("data.experimental.assert_cardinality")
def assert_cardinality(expected_cardinality):
    """A function for `Dataset.apply` asserting the dataset's number of
    elements: iterating raises FailedPreconditionError when it differs, and
    `cardinality()` reports `expected_cardinality`."""
    return lambda ds: _assert_cardinality(ds, expected_cardinality)


@export("data.experimental.group_by_window")
def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """A function for `Dataset.apply`: see `Dataset.group_by_window`."""
    return lambda ds: ds.group_by_window(key_func, reduce_func, window_size, window_size_func)


@export("data.experimental.bucket_by_sequence_length")
def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """A function for `Dataset.apply`: see `Dataset.bucket_by_sequence_length`."""
    return lambda ds: ds.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)
