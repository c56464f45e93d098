"""The constructors of `tf.feature_column` and `make_parse_example_spec`, with
TensorFlow's argument checks and messages; the columns themselves are in
columns.py."""
import os

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework.api_export import export
from . import columns as C

_state = _context.state


def _assert_key_is_string(key):
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def _assert_string_or_int(dtype, prefix):
    if dtype != D.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def _nested(v):
    return isinstance(v, (list, tuple))


def _create_tuple(shape, value):
    if shape:
        return tuple(_create_tuple(shape[1:], value) for _ in range(shape[0]))
    return value


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if _nested(value) else value


def _shape_matches(value, shape):
    if not shape:
        return not _nested(value)
    if not _nested(value) or len(value) != shape[0]:
        return False
    return all(_shape_matches(v, shape[1:]) for v in value)


def _flatten(v):
    if _nested(v):
        return [x for item in v for x in _flatten(item)]
    return [v]


def _check_default_value(shape, default_value, dtype, key):
    """`default_value` as a tuple of `shape`, checked against the dtype."""
    if default_value is None:
        return None
    if isinstance(default_value, int):
        return _create_tuple(shape, default_value)
    if isinstance(default_value, float) and dtype.is_floating:
        return _create_tuple(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if _nested(default_value):
        if not _shape_matches(default_value, shape):
            raise ValueError("The shape of default_value must be equal to given shape. "
                             f"default_value: {default_value}, shape: {shape}, key: {key}")
        flat = _flatten(default_value)
        if all(isinstance(v, int) for v in flat):
            return _as_tuple(default_value)
        if any(isinstance(v, float) for v in flat) and dtype.is_floating:
            return _as_tuple(default_value)
    raise TypeError("default_value must be compatible with dtype. "
                    f"default_value: {default_value}, dtype: {dtype}, key: {key}")


def _check_shape(shape, key):
    if shape is None:
        raise ValueError("shape cannot be None.")
    if isinstance(shape, int):
        shape = [shape]
    shape = tuple(shape)
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                             f"key: {key}")
    return shape


@export("feature_column.numeric_column")
def numeric_column(key, shape=(1,), default_value=None, dtype=D.float32, normalizer_fn=None):
    """A column of real values: the feature `key` of `shape` per example,
    cast to float32 (after `normalizer_fn`).

    Raises:
      TypeError: for a non-integer shape, a default of the wrong dtype, or a
        `normalizer_fn` that is not callable.
      ValueError: for a bad shape, default shape or non-numeric dtype.
    """
    shape = _check_shape(shape, key)
    dtype = D.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    _assert_key_is_string(key)
    return C.NumericColumn(key, shape, default_value, dtype, normalizer_fn)


@export("feature_column.bucketized_column")
def bucketized_column(source_column, boundaries):
    """A numeric column discretized: value v falls in bucket i when
    boundaries[i-1] <= v < boundaries[i].

    Raises:
      ValueError: unless `source_column` is a 1-D numeric_column and
        `boundaries` a non-empty sorted list.
    """
    if not isinstance(source_column, C.NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for a, b in zip(boundaries, boundaries[1:]):
        if a >= b:
            raise ValueError("boundaries must be a sorted list.")
    return C.BucketizedColumn(source_column, tuple(boundaries))


@export("feature_column.categorical_column_with_hash_bucket")
def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=D.string):
    """Ids `Fingerprint64(value) % hash_bucket_size` (integers hashed as
    their decimal text).

    Raises:
      ValueError: when `hash_bucket_size` < 1 or `dtype` is neither string
        nor integer.
    """
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    _assert_key_is_string(key)
    dtype = D.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return C.HashedCategoricalColumn(key, hash_bucket_size, dtype)


@export("feature_column.categorical_column_with_vocabulary_file")
def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            dtype=D.string, default_value=None,
                                            num_oov_buckets=0, file_format=None):
    """Ids of the lines of `vocabulary_file`; other values get
    `default_value` (-1 by default) or one of `num_oov_buckets` hash buckets.

    Raises:
      ValueError: for a missing file, a bad size, both OOV buckets and a
        default, or a dtype that is neither string nor integer.
    """
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not os.path.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with open(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = D.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _assert_key_is_string(key)
    return C.VocabularyFileCategoricalColumn(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value, dtype=dtype,
        file_format=file_format)


@export("feature_column.categorical_column_with_vocabulary_list")
def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """Ids of the values' positions in `vocabulary_list`; other values get
    `default_value` or one of `num_oov_buckets` hash buckets after it.

    Raises:
      ValueError: for an empty or duplicated vocabulary, both OOV buckets
        and a default, or mismatched dtypes.
    """
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    arr = np.array(vocabulary_list)
    vocab_dtype = D.string if arr.dtype.kind in "USO" else D.as_dtype(arr.dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    _assert_string_or_int(vocab_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocab_dtype
    else:
        dtype = D.as_dtype(dtype)
        if dtype.is_integer != vocab_dtype.is_integer:
            raise ValueError(f"dtype {dtype} and vocabulary dtype {vocab_dtype} do not match, "
                             f"column_name: {key}")
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _assert_key_is_string(key)
    return C.VocabularyListCategoricalColumn(key=key, vocabulary_list=tuple(vocabulary_list),
                                             dtype=dtype, default_value=default_value,
                                             num_oov_buckets=num_oov_buckets)


@export("feature_column.categorical_column_with_identity")
def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer values used as ids in [0, num_buckets); others get
    `default_value` (or fail when it is None).

    Raises:
      ValueError: when `num_buckets` < 1 or `default_value` is out of range.
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    _assert_key_is_string(key)
    return C.IdentityCategoricalColumn(key=key, number_buckets=num_buckets,
                                       default_value=default_value)


@export("feature_column.indicator_column")
def indicator_column(categorical_column):
    """The multi-hot view of a categorical column (counts, or summed weights)."""
    if not isinstance(categorical_column, C.CategoricalColumn):
        raise ValueError("Unsupported input type. Input must be a CategoricalColumn. "
                         f"Given: {categorical_column}")
    return C.IndicatorColumn(categorical_column)


@export("feature_column.weighted_categorical_column")
def weighted_categorical_column(categorical_column, weight_feature_key, dtype=D.float32):
    """A categorical column whose ids carry the weights of feature
    `weight_feature_key`.

    Raises:
      ValueError: when `dtype` is not a float dtype.
    """
    dtype = D.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return C.WeightedCategoricalColumn(categorical_column=categorical_column,
                                       weight_feature_key=weight_feature_key, dtype=dtype)


@export("feature_column.crossed_column")
def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Hashed crosses of string features and categorical columns
    (TensorFlow's `SparseCrossHashed`, FingerprintCat64 with `hash_key`).

    Raises:
      ValueError: for fewer than two keys, a bucket size <= 1, or a hash
        bucket column among the keys.
    """
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, C.CategoricalColumn)):
            raise ValueError("Unsupported key type. All keys must be either string, or "
                             "categorical column except HashedCategoricalColumn. "
                             f"Given: {key}")
        if isinstance(key, C.HashedCategoricalColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for "
                             "crossing. Hashing before crossing will increase probability of "
                             f"collision. Instead, use the feature name as a string. "
                             f"Given: {key}")
    return C.CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size,
                           hash_key=hash_key)


def _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")


@export("feature_column.embedding_column")
def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True, use_safe_embedding_lookup=True):
    """The ids of a categorical column looked up in a trainable
    [num_buckets, dimension] table, combined per example by `combiner`
    ("mean", "sum" or "sqrtn"); the table starts from `initializer`
    (truncated normal with stddev 1/sqrt(dimension) by default).

    Raises:
      ValueError: for a bad dimension, a checkpoint half given, or an
        initializer that is not callable.
    """
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer)
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified. Embedding of "
                         f"column_name: {categorical_column.name}")
    return C.EmbeddingColumn(
        categorical_column=categorical_column, dimension=dimension, combiner=combiner,
        initializer=initializer, ckpt_to_load_from=ckpt_to_load_from,
        tensor_name_in_ckpt=tensor_name_in_ckpt, max_norm=max_norm, trainable=trainable,
        use_safe_embedding_lookup=use_safe_embedding_lookup)


@export("feature_column.shared_embeddings")
def shared_embeddings(categorical_columns, dimension, combiner="mean", initializer=None,
                      shared_embedding_collection_name=None, ckpt_to_load_from=None,
                      tensor_name_in_ckpt=None, max_norm=None, trainable=True,
                      use_safe_embedding_lookup=True):
    """Embedding columns of several categorical columns (of one kind and
    bucket count) sharing one table. Returns a list in the given order.

    Raises:
      ValueError: as `embedding_column`, and for columns of different kinds
        or bucket counts.
    """
    if _state.graph is None:
        raise RuntimeError("shared_embedding_columns are not supported when eager execution "
                           "is enabled.")
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt, initializer)
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    cols = list(categorical_columns)
    c0 = cols[0]
    if not isinstance(c0, C.CategoricalColumn):
        raise ValueError("All categorical_columns must be subclasses of CategoricalColumn. "
                         f"Given: {c0}, of type: {type(c0)}")

    def base(c):
        while isinstance(c, (C.WeightedCategoricalColumn, C.SequenceCategoricalColumn)):
            c = c.categorical_column
        return c

    for c in cols[1:]:
        if type(base(c)) is not type(base(c0)):
            raise ValueError("To use shared_embedding_column, all categorical_columns must "
                             "have the same type, or be weighted_categorical_column or "
                             f"sequence column of the same type. Given column: {c0} of type: "
                             f"{type(c0)} does not match given column: {c} of type: {type(c)}")
        if c.num_buckets != c0.num_buckets:
            raise ValueError("To use shared_embedding_column, all categorical_columns must "
                             f"have the same number of buckets. Given column: {c0} with "
                             f"buckets: {c0.num_buckets} does  not match column: {c} with "
                             f"buckets: {c.num_buckets}")
    name = shared_embedding_collection_name or "_".join(sorted(c.name for c in cols)) \
        + "_shared_embedding"
    creator = C.SharedEmbeddingColumnCreator(dimension, initializer, ckpt_to_load_from,
                                             tensor_name_in_ckpt, c0.num_buckets, trainable,
                                             name)
    return [C.SharedEmbeddingColumn(c, creator, combiner, max_norm, use_safe_embedding_lookup)
            for c in cols]


@export("feature_column.sequence_numeric_column")
def sequence_numeric_column(key, shape=(1,), default_value=0., dtype=D.float32,
                            normalizer_fn=None):
    """A sequence of real values per example (for sequence models).

    Raises:
      TypeError: when `normalizer_fn` is not callable.
      ValueError: for a bad shape or a non-float dtype.
    """
    shape = _check_shape(shape, key)
    dtype = D.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return C.SequenceNumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                                   normalizer_fn=normalizer_fn)


@export("feature_column.sequence_categorical_column_with_identity")
def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """`categorical_column_with_identity` over sequences."""
    return C.SequenceCategoricalColumn(
        categorical_column_with_identity(key, num_buckets, default_value))


@export("feature_column.sequence_categorical_column_with_hash_bucket")
def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=D.string):
    """`categorical_column_with_hash_bucket` over sequences."""
    return C.SequenceCategoricalColumn(
        categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


@export("feature_column.sequence_categorical_column_with_vocabulary_file")
def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                                     num_oov_buckets=0, default_value=None,
                                                     dtype=D.string):
    """`categorical_column_with_vocabulary_file` over sequences."""
    return C.SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size=vocabulary_size, num_oov_buckets=num_oov_buckets,
        default_value=default_value, dtype=dtype))


@export("feature_column.sequence_categorical_column_with_vocabulary_list")
def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                                     default_value=-1, num_oov_buckets=0):
    """`categorical_column_with_vocabulary_list` over sequences."""
    return C.SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype=dtype, default_value=default_value,
        num_oov_buckets=num_oov_buckets))


@export("feature_column.make_parse_example_spec")
def make_parse_example_spec(feature_columns):
    """The `tf.io.parse_example` spec of the columns: their specs merged.

    Raises:
      ValueError: for something other than a feature column, or two specs
        of one key that differ.
    """
    result = {}
    for column in feature_columns:
        if not isinstance(column, C.FeatureColumn):
            raise ValueError(f"All feature_columns must be FeatureColumn instances. "
                             f"Given: {column}")
        config = column.parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. "
                                 f"Given {value} and {result[key]}")
        result.update(config)
    return result


# TensorFlow's v1 namespace has the same constructors (its v1 columns differ
# only in the graph-era state they keep).
for _name in ("numeric_column", "bucketized_column", "categorical_column_with_hash_bucket",
              "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list",
              "categorical_column_with_identity", "indicator_column",
              "weighted_categorical_column", "crossed_column", "embedding_column",
              "make_parse_example_spec", "sequence_numeric_column",
              "sequence_categorical_column_with_identity",
              "sequence_categorical_column_with_hash_bucket",
              "sequence_categorical_column_with_vocabulary_file",
              "sequence_categorical_column_with_vocabulary_list"):
    export("compat.v1.feature_column." + _name)(globals()[_name])


@export("compat.v1.feature_column.shared_embedding_columns")
def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None,
                             tensor_name_in_ckpt=None, max_norm=None, trainable=True,
                             use_safe_embedding_lookup=True):
    """The v1 form of `shared_embeddings`, whose columns `input_layer`
    accepts (in graphs: TensorFlow refuses it eagerly).

    Raises:
      RuntimeError: when executing eagerly.
      ValueError: as `shared_embeddings`.
    """
    cols = shared_embeddings(categorical_columns, dimension, combiner, initializer,
                             shared_embedding_collection_name, ckpt_to_load_from,
                             tensor_name_in_ckpt, max_norm, trainable, use_safe_embedding_lookup)
    name = cols[0].shared_embedding_column_creator.name
    return [C.SharedEmbeddingColumnV1(c.categorical_column, dimension, combiner, initializer,
                                      name, ckpt_to_load_from, tensor_name_in_ckpt, max_norm,
                                      trainable, use_safe_embedding_lookup) for c in cols]
