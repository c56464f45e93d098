"""The feature columns of `tf.feature_column`: immutable descriptions (named
tuples, printed as TensorFlow prints them) of how a feature of a `features`
dict becomes model input, each with its `parse_example_spec` and its
transformation:

- dense columns (`numeric_column`, `bucketized_column`, `indicator_column`,
  `embedding_column`, shared embeddings) give `get_dense_tensor`;
- categorical columns (identity, vocabulary list/file, hash bucket,
  crossed, weighted, bucketized) give `get_sparse_tensors`: a SparseTensor
  of int64 ids (and optional weights), with TensorFlow's id assignment:
  Fingerprint64 hash buckets, vocabulary tables with Fingerprint64 OOV
  buckets, `SparseCrossHashed` crosses.

Ops are called through their public names (the `export` table), as
TensorFlow's feature_column module calls the public ops.
"""
import collections
import math

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework.api_export import EXPORTS
from ..framework.sparse_tensor import SparseTensor


def _op(name):
    """The public function `tf.<name>`."""
    return EXPORTS[name]


class FeatureColumn:
    """What every column shares: a `name`, a `parse_example_spec` and its
    transformation of the features (through a `FeatureCache`)."""

    @property
    def _is_v2_column(self):
        return True


class DenseColumn(FeatureColumn):
    """A column whose output is a dense tensor of `variable_shape` per example."""


class CategoricalColumn(FeatureColumn):
    """A column whose output is a SparseTensor of ids in [0, num_buckets)."""


IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])


class _KeyColumn:
    """A column of one raw feature `key`, named after it."""

    @property
    def name(self):
        """The key."""
        return self.key


class _VarLenKeyColumn(_KeyColumn):
    """A key column parsed as a VarLenFeature of its `dtype`."""

    @property
    def parse_example_spec(self):
        """{key: VarLenFeature(dtype)}."""
        return {self.key: _op("io.VarLenFeature")(self.dtype)}


class _OverCategorical:
    """A column over `categorical_column`: its parse spec, and its id/weight
    pair as the transformed feature."""

    @property
    def parse_example_spec(self):
        """The categorical column's spec."""
        return self.categorical_column.parse_example_spec

    def _transform_feature(self, cache):
        return self.categorical_column.get_sparse_tensors(cache)


def _unweighted_ids(doc):
    """A `get_sparse_tensors` method giving the transformed feature as the ids,
    no weights, documented `doc`."""
    def get_sparse_tensors(self, cache, state=None):
        return IdWeightPair(cache.get(self), None)
    get_sparse_tensors.__doc__ = doc
    return get_sparse_tensors


def _suffixed_name(suffix, doc):
    """A `name` property: the categorical column's name plus `suffix`,
    documented `doc`."""
    def name(self):
        return f"{self.categorical_column.name}{suffix}"
    return property(name, doc=doc)


class FeatureCache:
    """The transformed features of one call: each key or column is
    transformed once (a column used by two others shares its result)."""

    def __init__(self, features):
        if not isinstance(features, dict):
            raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                             f"{type(features)}")
        self._features = dict(features)
        self._cache = {}
        self.variables = {}

    def raw(self, key):
        """The raw feature `key` as a tensor, rank-1 features as [batch, 1]."""
        if key in self._cache:
            return self._cache[key]
        if key not in self._features:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        t = self._features[key]
        if not isinstance(t, SparseTensor):
            t = _op("convert_to_tensor")(t)
        rank = t.shape.rank
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {t}")
        if rank == 1:
            t = (_op("sparse.reshape")(t, [-1, 1]) if isinstance(t, SparseTensor)
                 else _op("expand_dims")(t, -1))
        self._cache[key] = t
        return t

    def get(self, key):
        """The transformed feature of a column (or the raw feature of a key)."""
        if isinstance(key, str):
            return self.raw(key)
        if key not in self._cache:
            self._cache[key] = key._transform_feature(self)
        return self._cache[key]


def to_sparse_input(t, ignore_value=None):
    """A dense feature as a SparseTensor of its values other than
    `ignore_value` ('' for strings, -1 for integers); SparseTensors as given."""
    if isinstance(t, SparseTensor):
        return t
    if ignore_value is None:
        ignore_value = "" if t.dtype == D.string else -1
    ignore = _op("cast")(ignore_value, t.dtype) if t.dtype != D.string else ignore_value
    indices = _op("where")(_op("math.not_equal")(t, ignore))
    return SparseTensor(indices, _op("gather_nd")(t, indices),
                        _op("shape")(t, out_type=D.int64))


# --- dense: numeric, bucketized ---------------------------------------------------

class NumericColumn(_KeyColumn, DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A real-valued feature (`numeric_column`)."""

    @property
    def parse_example_spec(self):
        """{key: FixedLenFeature(shape, dtype, default_value)}."""
        return {self.key: _op("io.FixedLenFeature")(self.shape, self.dtype, self.default_value)}

    @property
    def variable_shape(self):
        """The shape of one example's output."""
        from ..framework.tensor_shape import TensorShape
        return TensorShape(self.shape)

    def _transform_feature(self, cache):
        t = cache.raw(self.key)
        if isinstance(t, SparseTensor):
            raise ValueError("The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        return _op("cast")(t, D.float32)

    def get_dense_tensor(self, cache, state=None):
        """The feature as float32, normalized."""
        return cache.get(self)


class BucketizedColumn(DenseColumn, CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ("source_column", "boundaries"))):
    """A numeric column discretized by boundaries (`bucketized_column`)."""

    @property
    def name(self):
        """`<source>_bucketized`."""
        return f"{self.source_column.name}_bucketized"

    @property
    def parse_example_spec(self):
        """The source column's spec."""
        return self.source_column.parse_example_spec

    @property
    def num_buckets(self):
        """One bucket per boundary gap, for each source element."""
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    @property
    def variable_shape(self):
        """The source shape plus a one-hot axis."""
        from ..framework.tensor_shape import TensorShape
        return TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    def _transform_feature(self, cache):
        source = cache.get(self.source_column)
        return _op("raw_ops.Bucketize")(input=source, boundaries=list(self.boundaries))

    def get_dense_tensor(self, cache, state=None):
        """The buckets one-hot encoded."""
        buckets = cache.get(self)
        return _op("one_hot")(_op("cast")(buckets, D.int64), depth=len(self.boundaries) + 1,
                              on_value=1., off_value=0.)

    def get_sparse_tensors(self, cache, state=None):
        """Ids `bucket + i * (len(boundaries) + 1)` for source element i."""
        buckets = cache.get(self)
        shape = _op("shape")(buckets)
        batch = shape[0]
        source_dim = self.source_column.shape[0]
        i1 = _op("reshape")(_op("tile")(_op("expand_dims")(_op("range")(0, batch), 1),
                                        [1, source_dim]), (-1,))
        i2 = _op("tile")(_op("range")(0, source_dim), [batch])
        ids = (_op("reshape")(buckets, (-1,)) + (len(self.boundaries) + 1) * i2)
        indices = _op("cast")(_op("transpose")(_op("stack")((i1, i2))), D.int64)
        dense_shape = _op("cast")(_op("stack")([batch, source_dim]), D.int64)
        return IdWeightPair(SparseTensor(indices, _op("cast")(ids, D.int64), dense_shape), None)


# --- categorical ------------------------------------------------------------------

class IdentityCategoricalColumn(_KeyColumn, CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ("key", "number_buckets", "default_value"))):
    """Integer ids used as they are (`categorical_column_with_identity`)."""

    @property
    def num_buckets(self):
        """`num_buckets`."""
        return self.number_buckets

    @property
    def parse_example_spec(self):
        """{key: VarLenFeature(int64)}."""
        return {self.key: _op("io.VarLenFeature")(D.int64)}

    def _transform_feature(self, cache):
        t = to_sparse_input(cache.raw(self.key))
        if not t.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {t.dtype}")
        values = _op("cast")(t.values, D.int64)
        if self.default_value is not None:
            # (without a default, TensorFlow 2.21 passes out-of-range ids on)
            bad = _op("math.logical_or")(values < 0, values >= self.number_buckets)
            values = _op("where")(bad, _op("fill")(_op("shape")(values), _op("cast")(
                self.default_value, D.int64)), values)
        return SparseTensor(t.indices, values, t.dense_shape)

    get_sparse_tensors = _unweighted_ids("The ids, no weights.")


def _lookup_sparse(t, table):
    return SparseTensor(t.indices, table.lookup(t.values), t.dense_shape)


def _check_input_dtype(key, column_dtype, input_dtype):
    if column_dtype == D.string and input_dtype != D.string:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {key}, "
                         f"column dtype: {column_dtype}, tensor dtype: {input_dtype}")
    if column_dtype.is_integer and not input_dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {key}, "
                         f"column dtype: {column_dtype}, tensor dtype: {input_dtype}")


class _VocabularyColumn(_VarLenKeyColumn, CategoricalColumn):
    """Ids from a vocabulary table, OOV keys to default_value or hash buckets."""

    def _transform_feature(self, cache):
        t = to_sparse_input(cache.raw(self.key))
        _check_input_dtype(self.key, self.dtype, t.dtype)
        if self.dtype.is_integer != t.dtype.is_integer:
            raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. "
                             f"key: {self.key}, column dtype: {self.dtype}, "
                             f"tensor dtype: {t.dtype}")
        key_dtype = self.dtype
        if t.dtype.is_integer:
            # TensorFlow's integer vocabularies are int64 tables.
            key_dtype = D.int64
            t = SparseTensor(t.indices, _op("cast")(t.values, D.int64), t.dense_shape)
        return _lookup_sparse(t, self._table(key_dtype))

    get_sparse_tensors = _unweighted_ids("The ids, no weights.")

    def _finish_table(self, init, key_dtype):
        if self.num_oov_buckets:
            return _op("lookup.StaticVocabularyTable")(init, self.num_oov_buckets,
                                                       lookup_key_dtype=key_dtype)
        return _op("lookup.StaticHashTable")(init, self.default_value)


class VocabularyListCategoricalColumn(_VocabularyColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn",
        ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    """`categorical_column_with_vocabulary_list`."""

    @property
    def num_buckets(self):
        """The vocabulary plus the OOV buckets."""
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _table(self, key_dtype):
        keys = _op("constant")(list(self.vocabulary_list), dtype=key_dtype)
        init = _op("lookup.KeyValueTensorInitializer")(
            keys, _op("range")(0, len(self.vocabulary_list), dtype=D.int64))
        return self._finish_table(init, key_dtype)


class VocabularyFileCategoricalColumn(_VocabularyColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn",
        ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype",
         "default_value", "file_format"))):
    """`categorical_column_with_vocabulary_file`."""

    @property
    def num_buckets(self):
        """The vocabulary plus the OOV buckets."""
        return self.vocabulary_size + self.num_oov_buckets

    def _table(self, key_dtype):
        index = _op("lookup.TextFileIndex")
        init = _op("lookup.TextFileInitializer")(
            self.vocabulary_file, key_dtype, index.WHOLE_LINE, D.int64, index.LINE_NUMBER,
            vocab_size=self.vocabulary_size)
        return self._finish_table(init, key_dtype)


class HashedCategoricalColumn(_VarLenKeyColumn, CategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """Fingerprint64 hash buckets (`categorical_column_with_hash_bucket`)."""

    @property
    def num_buckets(self):
        """`hash_bucket_size`."""
        return self.hash_bucket_size

    def _transform_feature(self, cache):
        t = to_sparse_input(cache.raw(self.key))
        if not (t.dtype == D.string or t.dtype.is_integer):
            raise ValueError("SparseColumn input must be a SparseTensor.")
        _check_input_dtype(self.key, self.dtype, t.dtype)
        values = t.values if t.dtype == D.string else _op("strings.as_string")(t.values)
        ids = _op("strings.to_hash_bucket_fast")(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(t.indices, ids, t.dense_shape)

    get_sparse_tensors = _unweighted_ids("The bucket ids, no weights.")


_DEFAULT_HASH_KEY = 0xDECAFCAFFE


class CrossedColumn(CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """Hashed crosses of features (`crossed_column`): TensorFlow's
    `SparseCrossHashed`."""

    @property
    def name(self):
        """The sorted names joined by `_X_`."""
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self.keys))

    @property
    def num_buckets(self):
        """`hash_bucket_size`."""
        return self.hash_bucket_size

    @property
    def parse_example_spec(self):
        """The specs of the crossed columns; string keys as VarLenFeature(string)."""
        spec = {}
        for k in self.keys:
            if isinstance(k, FeatureColumn):
                spec.update(k.parse_example_spec)
            else:
                spec[k] = _op("io.VarLenFeature")(D.string)
        return spec

    def _transform_feature(self, cache):
        inputs = []
        for k in self.keys:
            if isinstance(k, str):
                inputs.append(cache.raw(k))
            else:
                pair = k.get_sparse_tensors(cache)
                if pair.weight_tensor is not None:
                    raise ValueError("crossed_column does not support weight_tensor, but the "
                                     f"given column populates weight_tensor. Given column: "
                                     f"{k.name}")
                inputs.append(pair.id_tensor)
        return _op("sparse.cross_hashed")(inputs, num_buckets=self.hash_bucket_size,
                                          hash_key=self.hash_key)

    get_sparse_tensors = _unweighted_ids("The crossed ids, no weights.")


class WeightedCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    """Ids with a weight feature (`weighted_categorical_column`)."""

    @property
    def name(self):
        """`<ids>_weighted_by_<weight key>`."""
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def num_buckets(self):
        """The id column's buckets."""
        return self.categorical_column.num_buckets

    @property
    def parse_example_spec(self):
        """The id column's spec and {weight key: VarLenFeature(dtype)}."""
        spec = dict(self.categorical_column.parse_example_spec)
        if self.weight_feature_key in spec:
            raise ValueError(f"Parse config {spec[self.weight_feature_key]} already exists for "
                             f"{self.weight_feature_key}.")
        spec[self.weight_feature_key] = _op("io.VarLenFeature")(self.dtype)
        return spec

    def _transform_feature(self, cache):
        weights = cache.raw(self.weight_feature_key)
        if weights.dtype != self.dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weights.dtype}.")
        if not isinstance(weights, SparseTensor):
            weights = to_sparse_input(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = SparseTensor(weights.indices, _op("cast")(weights.values, D.float32),
                                   weights.dense_shape)
        return (self.categorical_column.get_sparse_tensors(cache).id_tensor, weights)

    def get_sparse_tensors(self, cache, state=None):
        """The ids and their weights."""
        ids, weights = cache.get(self)
        return IdWeightPair(ids, weights)


# --- dense views of categorical columns ----------------------------------------

class IndicatorColumn(_OverCategorical, DenseColumn, collections.namedtuple(
        "IndicatorColumn", ("categorical_column",))):
    """Multi-hot counts (or summed weights) of the ids (`indicator_column`)."""

    name = _suffixed_name("_indicator", "`<categorical>_indicator`.")

    @property
    def variable_shape(self):
        """[num_buckets]."""
        from ..framework.tensor_shape import TensorShape
        return TensorShape([1, self.categorical_column.num_buckets])[1:]

    def _transform_feature(self, cache):
        _check_not_sequence("indicator_column", self)
        pair = self.categorical_column.get_sparse_tensors(cache)
        ids, weights = pair.id_tensor, pair.weight_tensor
        depth = self.categorical_column.num_buckets
        if weights is not None:
            # Weighted: each row's weights summed per id (scatter_nd adds).
            row = ids.indices[:, :-1]
            idx = _op("concat")([row, _op("expand_dims")(ids.values, 1)], axis=1)
            shape = _op("concat")([ids.dense_shape[:-1], [depth]], axis=0)
            return _op("scatter_nd")(idx, weights.values, shape)
        dense = _op("sparse.to_dense")(ids, default_value=-1)
        one_hot = _op("one_hot")(dense, depth=depth, on_value=1.0, off_value=0.0)
        return _op("math.reduce_sum")(one_hot, axis=[-2])

    def get_dense_tensor(self, cache, state=None):
        """The multi-hot tensor."""
        return cache.get(self)


def _check_not_sequence(kind, column):
    cat = column.categorical_column
    if isinstance(cat, SequenceCategoricalColumn):
        raise ValueError(
            f"In {kind}: {column.name}. categorical_column must not be of type "
            "_SequenceCategoricalColumn. Suggested fix A: If you wish to use DenseFeatures, use "
            "a non-sequence categorical_column_with_*. Suggested fix B: If you wish to create "
            "sequence input, use SequenceFeatures instead of DenseFeatures. Given (type "
            f"{type(cat)}): {cat}")


def _embedding_variable(cache, column, num_buckets, trainable, name):
    from ..ops.state.variables import Variable
    if name in cache.variables:
        return cache.variables[name]
    init = column.initializer
    shape = (num_buckets, column.dimension)
    # The initial value is computed eagerly: a v1 graph's variables start
    # from constants (global_variables_initializer runs those).
    with _context.init_scope(), _context.eager_mode():
        if init is None:
            # TensorFlow's default: truncated normal, stddev 1/sqrt(dimension).
            value = _op("random.truncated_normal")(shape, mean=0.0,
                                                   stddev=1 / math.sqrt(column.dimension))
        else:
            value = init(shape=shape, dtype=D.float32)
    var = Variable(value, trainable=trainable, name=name)
    cache.variables[name] = var
    return var


def _embed(weights, pair, combiner, max_norm, safe):
    if safe:
        return _op("nn.safe_embedding_lookup_sparse")(
            [weights], pair.id_tensor, pair.weight_tensor, combiner=combiner,
            max_norm=max_norm)
    return _op("nn.embedding_lookup_sparse")(weights, pair.id_tensor, pair.weight_tensor,
                                             combiner=combiner, max_norm=max_norm)


class EmbeddingColumn(_OverCategorical, DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer",
                            "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                            "trainable", "use_safe_embedding_lookup"))):
    """Ids looked up in a trainable table, combined per example
    (`embedding_column`)."""

    name = _suffixed_name("_embedding", "`<categorical>_embedding`.")

    @property
    def variable_shape(self):
        """[dimension]."""
        from ..framework.tensor_shape import TensorShape
        return TensorShape([self.dimension])

    def get_dense_tensor(self, cache, state=None, scope="input_layer"):
        """The combined embeddings ([batch, dimension])."""
        _check_not_sequence("embedding_column", self)
        weights = _embedding_variable(cache, self, self.categorical_column.num_buckets,
                                      self.trainable, f"{scope}/{self.name}/embedding_weights")
        return _embed(weights, cache.get(self), self.combiner, self.max_norm,
                      self.use_safe_embedding_lookup)


class SharedEmbeddingColumnCreator:
    """The table shared by the columns of one `shared_embeddings` call."""

    def __init__(self, dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                 num_buckets, trainable, name):
        self.dimension = dimension
        self.initializer = initializer
        self.ckpt_to_load_from = ckpt_to_load_from
        self.tensor_name_in_ckpt = tensor_name_in_ckpt
        self.num_buckets = num_buckets
        self.trainable = trainable
        self.name = name
        self.variable = None

    def weights(self, cache):
        """The shared table, made on first use."""
        if self.variable is None:
            self.variable = _embedding_variable(cache, self, self.num_buckets, self.trainable,
                                                self.name)
        return self.variable


class SharedEmbeddingColumn(_OverCategorical, DenseColumn, collections.namedtuple(
        "SharedEmbeddingColumn", ("categorical_column", "shared_embedding_column_creator",
                                  "combiner", "max_norm", "use_safe_embedding_lookup"))):
    """A column of `shared_embeddings`: its ids looked up in the shared table."""

    name = _suffixed_name("_shared_embedding", "`<categorical>_shared_embedding`.")

    @property
    def variable_shape(self):
        """[dimension]."""
        from ..framework.tensor_shape import TensorShape
        return TensorShape([self.shared_embedding_column_creator.dimension])

    def get_dense_tensor(self, cache, state=None):
        """The combined embeddings ([batch, dimension])."""
        weights = self.shared_embedding_column_creator.weights(cache)
        return _embed(weights, cache.get(self), self.combiner, self.max_norm,
                      self.use_safe_embedding_lookup)


class _SharedEmbeddingColumn(_OverCategorical, DenseColumn, collections.namedtuple(
        "_SharedEmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer",
                                   "shared_embedding_collection_name", "ckpt_to_load_from",
                                   "tensor_name_in_ckpt", "max_norm", "trainable",
                                   "use_safe_embedding_lookup"))):
    """A column of `tf.compat.v1.feature_column.shared_embedding_columns`: the
    columns of one call share the table `<scope>/<collection name>/embedding_weights`
    (graphs only)."""

    name = _suffixed_name("_shared_embedding", "`<categorical>_shared_embedding`.")

    @property
    def variable_shape(self):
        """[dimension]."""
        from ..framework.tensor_shape import TensorShape
        return TensorShape([self.dimension])

    def get_dense_tensor(self, cache, state=None, scope="input_layer"):
        """The combined embeddings ([batch, dimension]) from the shared table."""
        weights = _embedding_variable(
            cache, self, self.categorical_column.num_buckets, self.trainable,
            f"{scope}/{self.shared_embedding_collection_name}/embedding_weights")
        return _embed(weights, cache.get(self), self.combiner, self.max_norm,
                      self.use_safe_embedding_lookup)


# The v1 column's public spelling.
SharedEmbeddingColumnV1 = _SharedEmbeddingColumn


# --- sequence columns --------------------------------------------------------------

class SequenceDenseColumn(FeatureColumn):
    """A column of sequences (for `SequenceFeatures`, not `input_layer`)."""


class SequenceCategoricalColumn(_OverCategorical, CategoricalColumn, collections.namedtuple(
        "SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column over sequences (`sequence_categorical_column_with_*`)."""

    @property
    def name(self):
        """The categorical column's name."""
        return self.categorical_column.name

    @property
    def num_buckets(self):
        """The categorical column's buckets."""
        return self.categorical_column.num_buckets

    def get_sparse_tensors(self, cache, state=None):
        """The ids with a trailing axis, as TensorFlow's sequence columns give."""
        pair = cache.get(self)
        ids = pair.id_tensor
        rank = ids.dense_shape.shape[0]
        if rank == 2:
            ids = _op("sparse.expand_dims")(ids, -1)
            weights = pair.weight_tensor
            if weights is not None:
                weights = _op("sparse.expand_dims")(weights, -1)
            return IdWeightPair(ids, weights)
        return pair


class SequenceNumericColumn(_VarLenKeyColumn, SequenceDenseColumn, collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A numeric column over sequences (`sequence_numeric_column`)."""

    @property
    def variable_shape(self):
        """The shape of one step's value."""
        from ..framework.tensor_shape import TensorShape
        return TensorShape(self.shape)
