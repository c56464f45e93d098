"""Embedding lookups combined over the ids of each row of a SparseTensor:
`tf.nn.embedding_lookup_sparse` and `tf.nn.safe_embedding_lookup_sparse`.

Both are TensorFlow's compositions of public ops (embedding_ops.py), step
by step, so their values, dtypes and gradients are those of the ops they
use: without weights, the sparse segment reductions over the ids
(SparseSegmentSum/Mean/SqrtN); with weights, the rows scaled by their
weights, summed by row (SegmentSum) and divided by the sum of the weights
("mean") or the square root of the sum of their squares ("sqrtn"). A list
of `params` is a table split along axis 0 in order ("div" partitioning,
TensorFlow 2's), looked up as their concatenation.
"""
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core.broadcast_ops import tile, where
from ..core.constant_ops import ones, ones_like, zeros_like
from ..core.creation_ops import name_scope
from ..core.gather_ops import gather
from ..core.join_ops import concat, stack
from ..core.math_ops import cast, div_no_nan, greater, greater_equal, logical_and, multiply
from ..core.math_ops import pow as pow_
from ..core.reduction_ops import reduce_prod
from ..core.repeat_unique_roll_ops import unique
from ..core.segment_ops import segment_sum
from ..core.shape_ops import rank, reshape, shape, size
from ..core.slicing import slice as slice_
from ..core.dim_ops import expand_dims
from ..core.unary_ops import sqrt
from ..sparse import sparse_math_ops as SM
from ..sparse.sparse_array_ops import fill_empty_rows, retain
from ..sparse.sparse_ops import reshape as sparse_reshape
from .dropout_embedding import embedding_lookup

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def _is_variable(p):
    return hasattr(p, "_dense_var_to_tensor")


def _lookup_combined(params, segment_ids, sp_weights, ids, combiner, ignore_weights,
                     max_norm, allow_fast_lookup, name):
    """embedding_lookup_sparse_impl: the rows of `params` at `ids`, combined
    by `segment_ids`."""
    segment_ids = convert_to_tensor(segment_ids, name="segment_ids")
    if len(params) == 1 and not isinstance(params[0], Tensor) and not _is_variable(params[0]):
        params = [convert_to_tensor(params[0], name="params")]
    if len(params) == 1 and max_norm is None and (allow_fast_lookup or ignore_weights):
        # TensorFlow's fast path: the reductions read the table at the ids.
        idx, embeddings = ids, params[0]
        if _is_variable(embeddings):
            embeddings = convert_to_tensor(embeddings)
    else:
        ids, idx = unique(ids)
        embeddings = embedding_lookup(params, ids, max_norm=max_norm)
    if ignore_weights:
        if segment_ids.dtype not in (D.int32, D.int64):
            segment_ids = cast(segment_ids, D.int32)
        reduce = {"sum": SM.segment_sum, "mean": SM.segment_mean,
                  "sqrtn": SM.segment_sqrt_n}[combiner]
        return reduce(embeddings, idx, segment_ids, name=name)
    if segment_ids.dtype != D.int32:
        segment_ids = cast(segment_ids, D.int32)
    weights = sp_weights.values
    embeddings = gather(embeddings, idx)
    original_dtype = embeddings.dtype
    if embeddings.dtype in (D.float16, D.bfloat16):
        embeddings = cast(embeddings, D.float32)
    if weights.dtype != embeddings.dtype:
        weights = cast(weights, embeddings.dtype)
    # Weights of shape [n, 1, ..., 1], to scale each looked-up row.
    ones_shape = expand_dims(rank(embeddings) - 1, 0)
    weights_shape = shape(weights)
    orig_weights_shape = weights.shape
    weights = reshape(weights, concat([weights_shape, ones(ones_shape, dtype=D.int32)], 0))
    if embeddings.shape.rank is not None:
        weights.set_shape(orig_weights_shape.concatenate(
            [1] * (embeddings.shape.rank - 1)))
    embeddings = multiply(embeddings, weights)
    if combiner == "sum":
        embeddings = segment_sum(embeddings, segment_ids, name=name)
    elif combiner == "mean":
        embeddings = segment_sum(embeddings, segment_ids)
        embeddings = div_no_nan(embeddings, segment_sum(weights, segment_ids), name=name)
    else:
        embeddings = segment_sum(embeddings, segment_ids)
        weight_sum = segment_sum(pow_(weights, 2), segment_ids)
        embeddings = div_no_nan(embeddings, sqrt(weight_sum), name=name)
    if embeddings.dtype != original_dtype:
        embeddings = cast(embeddings, original_dtype)
    return embeddings


@export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                            name=None, allow_fast_lookup=False):
    """For each row of the SparseTensor `sp_ids` (`[batch, ...]`), the
    embeddings `params[id]` of its ids combined: summed ("sum"), averaged
    ("mean", the default) or summed and divided by the square root of the
    number of ids ("sqrtn"); weighted by `sp_weights` (a SparseTensor like
    `sp_ids`) when given. Rows without ids are missing from the result (or
    zero before the last row that has some). `max_norm` clips each
    embedding's L2 norm.

    Raises:
      ValueError: for an unknown combiner.
      TypeError: if `sp_ids` (or a given `sp_weights`) is not a SparseTensor.
    """
    if combiner is None:
        combiner = "mean"
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(params, list):
        params = list(params) if isinstance(params, tuple) else [params]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor,got "
                            f"{type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with name_scope(name or "embedding_lookup_sparse"):
        return _lookup_combined(params, sp_ids.indices[:, 0], sp_weights, sp_ids.values,
                                combiner, ignore_weights, max_norm, allow_fast_lookup, name)


def _prune_invalid_ids(sparse_ids, sparse_weights):
    """The entries with id >= 0 only."""
    valid = greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        valid = logical_and(valid, ones_like(sparse_weights.values, dtype=D.bool_))
    sparse_ids = retain(sparse_ids, valid)
    if sparse_weights is not None:
        sparse_weights = retain(sparse_weights, valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    """The entries with weight > 0 only."""
    if sparse_weights is not None:
        valid = greater(sparse_weights.values, 0)
        sparse_ids = retain(sparse_ids, valid)
        sparse_weights = retain(sparse_weights, valid)
    return sparse_ids, sparse_weights


@export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, max_norm=None, name=None,
                                 allow_fast_lookup=False):
    """`embedding_lookup_sparse` for SparseTensors of any rank >= 2 (`[d0,
    ..., dn-1, k]` gives `[d0, ..., dn-1, dim]`) that also tolerates bad
    input: ids < 0 are dropped, and (unless "sum") entries with weights <= 0;
    rows left without ids give the embedding of `default_id`, or zeros.

    Raises:
      ValueError: if `embedding_weights` is missing or empty.
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if not isinstance(embedding_weights, list):
        embedding_weights = list(embedding_weights) if isinstance(embedding_weights, tuple) \
            else [embedding_weights]
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [
        w if _is_variable(w) and dtype in (None, w.dtype) else convert_to_tensor(w, dtype=dtype)
        for w in embedding_weights]
    with name_scope(name or "embedding_lookup"):
        original_shape = sparse_ids.dense_shape
        original_rank_dim = sparse_ids.dense_shape.shape[0]
        original_rank = size(original_shape) if original_rank_dim is None \
            else original_rank_dim
        # As a 2-D SparseTensor: [d0 * ... * dn-1, k].
        sparse_ids = sparse_reshape(sparse_ids, [
            reduce_prod(slice_(original_shape, [0], [original_rank - 1])),
            gather(original_shape, original_rank - 1)])
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                          sparse_ids.dense_shape)
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights,
                                         combiner=combiner, max_norm=max_norm,
                                         allow_fast_lookup=allow_fast_lookup)
        if default_id is None:
            # Rows that had no valid ids are zeros.
            is_row_empty = tile(reshape(is_row_empty, [-1, 1]),
                                stack([1, shape(result)[1]]))
            result = where(is_row_empty, zeros_like(result), result)
        final = reshape(result, concat([
            slice_(cast(original_shape, D.int32), [0], [original_rank - 1]),
            slice_(shape(result), [1], [-1])], 0))
        lead = TensorShape(None) if original_rank_dim is None else \
            TensorShape([None] * (original_rank_dim - 1))
        final.set_shape(lead.concatenate(result.shape[1:]))
        return final
