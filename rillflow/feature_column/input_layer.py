"""`tf.compat.v1.feature_column.input_layer`: the dense input of a model from
a features dict and dense columns, each column's output flattened to
[batch, n] and concatenated in the order of the columns' names."""
from ..framework import context as _context
from ..framework.api_export import export
from . import columns as C

_state = _context.state
_SHARED_V2 = ("SharedEmbeddingColumns are not supported in `linear_model` or `input_layer`. "
              "Please use `DenseFeatures` or `LinearModel` instead.")


def _check_columns(feature_columns):
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    if isinstance(feature_columns, C.FeatureColumn):
        feature_columns = [feature_columns]
    feature_columns = list(feature_columns)
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    return feature_columns


@export("compat.v1.feature_column.input_layer")
def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """A [batch, sum of the columns' sizes] float32 tensor of `features`.

    Embedding tables are new variables of each call, named
    `input_layer/<column>/embedding_weights`; `cols_to_vars` (a dict) gets
    each column's variables, `cols_to_output_tensors` each column's output.

    Raises:
      ValueError: for no columns, a dict of columns, a column that is not
        dense (wrap categorical columns in `embedding_column` or
        `indicator_column`), or a missing feature.
    """
    feature_columns = _check_columns(feature_columns)
    for column in feature_columns:
        if isinstance(column, C.SharedEmbeddingColumn):
            raise ValueError(_SHARED_V2)
        if isinstance(column, C.SequenceDenseColumn):
            raise ValueError("Items of feature_columns must be a _FeatureColumn. Given (type "
                             f"{type(column)}): {column}.")
        if not isinstance(column, C.DenseColumn):
            raise ValueError("Items of feature_columns must be a _DenseColumn. You can wrap a "
                             "categorical column with an embedding_column or "
                             f"indicator_column. Given: {column}")
    cache = C.FeatureCache(features)
    outputs = []
    for column in sorted(feature_columns, key=lambda c: c.name):
        before = set(cache.variables)
        tensor = column.get_dense_tensor(cache)
        num_elements = column.variable_shape.num_elements()
        batch = C._op("shape")(tensor)[0]
        out = C._op("reshape")(tensor, C._op("stack")([batch, num_elements]))
        outputs.append(out)
        if cols_to_vars is not None:
            # TensorFlow collects the variables through graph collections:
            # eagerly the lists stay empty.
            cols_to_vars[column] = [] if _state.graph is None else [
                cache.variables[n] for n in cache.variables if n not in before]
        if cols_to_output_tensors is not None:
            cols_to_output_tensors[column] = out
    return C._op("concat")(outputs, 1)


@export("compat.v1.feature_column.linear_model")
def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """A [batch, units] linear prediction: each column's weights (new
    zero-initialized variables `linear_model/<column>/weights`) applied to its
    dense output, or for categorical columns summed over its ids by
    `sparse_combiner`, plus a zero bias `linear_model/bias_weights`.

    Raises:
      ValueError: for no columns, a column neither dense nor categorical,
        or shared embedding columns.
    """
    from ..ops.state.variables import Variable
    feature_columns = _check_columns(feature_columns)
    for column in feature_columns:
        if isinstance(column, (C.SharedEmbeddingColumn, C.SharedEmbeddingColumnV1)):
            raise ValueError(_SHARED_V2)
        if not isinstance(column, (C.DenseColumn, C.CategoricalColumn)) or isinstance(
                column, C.SequenceCategoricalColumn):
            raise ValueError("Items of feature_columns must be either a _DenseColumn or "
                             f"_CategoricalColumn. Given: {column}")
    cache = C.FeatureCache(features)
    zeros = C._op("zeros")
    outputs = []
    for column in sorted(feature_columns, key=lambda c: c.name):
        if isinstance(column, C.CategoricalColumn):
            rows = column.num_buckets
        else:
            rows = column.variable_shape.num_elements()
        weights = Variable(zeros([rows, units]), trainable=trainable,
                           name=f"linear_model/{column.name}/weights")
        if isinstance(column, C.CategoricalColumn):
            pair = column.get_sparse_tensors(cache)
            out = C._op("nn.safe_embedding_lookup_sparse")(
                [weights], pair.id_tensor, pair.weight_tensor, combiner=sparse_combiner)
        else:
            tensor = column.get_dense_tensor(cache)
            batch = C._op("shape")(tensor)[0]
            flat = C._op("reshape")(tensor, C._op("stack")([batch, rows]))
            out = C._op("linalg.matmul")(flat, weights)
        outputs.append(out)
        if cols_to_vars is not None:
            cols_to_vars[column] = [] if _state.graph is None else [weights]
    bias = Variable(zeros([units]), trainable=trainable, name="linear_model/bias_weights")
    if cols_to_vars is not None:
        cols_to_vars["bias"] = [bias]
    return C._op("nn.bias_add")(C._op("math.add_n")(outputs), bias)
