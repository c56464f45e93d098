"""The sampled losses `tf.nn.nce_loss` and `tf.nn.sampled_softmax_loss`,
composed from public ops (so their gradients are those of the ops): the
logits of the true classes and of a sample of classes (by default from the
log-uniform candidate sampler, random/candidate_sampling.py), corrected by the
log of their expected counts, then a sigmoid (NCE) or softmax cross entropy.
With `sampled_values` given the result is deterministic."""
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from .dropout_embedding import embedding_lookup
from .nn_util import _scope
from .softmax_losses import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits
from ..core.constant_ops import ones, ones_like, zeros_like
from ..core.dim_ops import expand_dims
from ..core.join_ops import concat, stack
from ..core.math_ops import add, cast, multiply, subtract, truediv
from ..core.shape_ops import reshape, shape, stop_gradient
from ..core.slicing import slice as slice_
from ..core.unary_ops import log
from ..linalg.matmul_ops import matmul
from ..random.candidate_sampling import compute_accidental_hits, log_uniform_candidate_sampler
from ..sparse.sparse_ops import _SparseToDense


def _sum_rows(x):
    """Row sums of a matrix as a product with a column of ones (TensorFlow
    sums them this way, so the rounding is a matmul's)."""
    cols = shape(x)[1]
    return reshape(matmul(x, ones(stack([cols, 1]), x.dtype)), [-1])


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true, sampled_values, remove_accidental_hits, seed):
    """(logits, labels) of shape [batch_size, num_true + num_sampled]: the
    true classes' logits first, then the sampled ones, each less the log of
    its expected count; labels are 1 / num_true for true classes, else 0."""
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    weights = list(weights)
    inputs = convert_to_tensor(inputs, name="inputs")
    labels = convert_to_tensor(labels, name="labels")
    if labels.dtype != D.int64:
        labels = cast(labels, D.int64)
    labels_flat = reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
            range_max=num_classes, seed=seed)
    sampled, true_expected_count, sampled_expected_count = (
        stop_gradient(s) for s in sampled_values)
    sampled = cast(sampled, D.int64)
    all_ids = concat([labels_flat, sampled], 0)
    all_w = embedding_lookup(weights if len(weights) > 1 else weights[0], all_ids)
    if all_w.dtype != inputs.dtype:
        all_w = cast(all_w, inputs.dtype)
    n_true = shape(labels_flat)[0]
    true_w = slice_(all_w, [0, 0], stack([n_true, -1]))
    sampled_w = slice_(all_w, stack([n_true, 0]), [-1, -1])
    sampled_logits = matmul(inputs, sampled_w, transpose_b=True)
    all_b = embedding_lookup(biases, all_ids)
    if all_b.dtype != inputs.dtype:
        all_b = cast(all_b, inputs.dtype)
    true_b = slice_(all_b, [0], shape(labels_flat))
    sampled_b = slice_(all_b, shape(labels_flat), [-1])
    dim = shape(true_w)[1:2]
    row_wise_dots = multiply(expand_dims(inputs, 1),
                             reshape(true_w, concat([[-1, num_true], dim], 0)))
    dots_as_matrix = reshape(row_wise_dots, concat([[-1], dim], 0))
    true_logits = reshape(_sum_rows(dots_as_matrix), [-1, num_true])
    true_logits = add(true_logits, reshape(true_b, [-1, num_true]))
    sampled_logits = add(sampled_logits, sampled_b)
    if remove_accidental_hits:
        acc_indices, acc_ids, acc_weights = compute_accidental_hits(labels, sampled,
                                                                    num_true=num_true)
        sparse_indices = concat([reshape(acc_indices, [-1, 1]),
                                 reshape(cast(acc_ids, D.int32), [-1, 1])], 1)
        dense_shape = concat([shape(labels)[:1], [num_sampled]], 0)
        if sampled_logits.dtype != acc_weights.dtype:
            acc_weights = cast(acc_weights, sampled_logits.dtype)
        zero = convert_to_tensor(0.0, dtype=sampled_logits.dtype)
        # Set (not added) at each hit: a class repeated among the true ones
        # is removed once, as SparseToDense assigns.
        hits = apply(_SparseToDense, [sparse_indices, dense_shape, acc_weights, zero],
                     {"validate_indices": False}, name="SparseToDense")
        sampled_logits = add(sampled_logits, hits)
    true_logits = subtract(true_logits, log(true_expected_count))
    sampled_logits = subtract(sampled_logits, log(sampled_expected_count))
    out_logits = concat([true_logits, sampled_logits], 1)
    out_labels = concat([truediv(ones_like(true_logits), num_true),
                         zeros_like(sampled_logits)], 1)
    return out_logits, out_labels


@export("nn.nce_loss")
def nce_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, name="nce_loss"):
    """Noise-contrastive estimation loss, one value per example ([batch_size]).

    `weights` ([num_classes, dim], or a list of shards of it split along
    axis 0) and `biases` ([num_classes]) are the class embeddings; `labels`
    the [batch_size, num_true] int true classes; `inputs` the
    [batch_size, dim] activations. Classes are sampled by
    `log_uniform_candidate_sampler` unless `sampled_values` (a sampler's
    three outputs) is given. The loss is the summed sigmoid cross entropy of
    the true logits against 1 / num_true and of the sampled ones against 0.
    """
    with _scope(name or "nce_loss"):
        logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
                                                 num_classes, num_true, sampled_values,
                                                 remove_accidental_hits, None)
        return _sum_rows(sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))


@export("nn.sampled_softmax_loss")
def sampled_softmax_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         seed=None, name="sampled_softmax_loss"):
    """Sampled softmax loss ([batch_size]): the softmax cross entropy over the
    true classes and `num_sampled` sampled classes (accidental hits, sampled
    classes equal to a true one, removed by default), a cheap estimate of the
    full softmax loss for training. Arguments as `nce_loss`; `seed` seeds the
    default sampler.
    """
    with _scope(name or "sampled_softmax_loss"):
        logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
                                                 num_classes, num_true, sampled_values,
                                                 remove_accidental_hits, seed)
        labels = stop_gradient(labels, name="labels_stop_gradient")
        return softmax_cross_entropy_with_logits(labels=labels, logits=logits)

