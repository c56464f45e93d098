"""Connectionist Temporal Classification (`tf.nn.ctc_*`): the losses, the
greedy and beam search decoders, `ctc_unique_labels` and `collapse_repeated`.

The ops, as TensorFlow registers them: CTCLoss (sparse labels, blank = last
class; its second output is the gradient, which the gradient function
multiplies and guards against second derivatives as TensorFlow does),
CTCGreedyDecoder and CTCBeamSearchDecoder (not differentiable). TensorFlow
builds `ctc_loss_dense` (dense labels, blank = class 0) from some fifty ops
in a While loop under a custom gradient; rillflow runs the same algorithm as
one op of its own, CTCLossDense, whose second output is that gradient. The
public functions move the blank the way TensorFlow does (slices and a
concat of the logits, shifted labels), so their gradients come from the
same ops. Kernels: ctc_kernels (losses), ctc_beam_search (beam search).
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..control_flow.functional_ops import map_fn
from ..core import op_util as U
from ..core.broadcast_ops import where
from ..core.constant_ops import ones_like
from ..core.creation_ops import range as range_, sequence_mask
from ..core.dim_ops import expand_dims, transpose
from ..core.gather_ops import boolean_mask
from ..core.join_ops import concat
from ..core.math_ops import add, cast, less, logical_and, multiply, not_equal, subtract
from ..core.reduction_ops import reduce_max, reduce_sum
from ..core.repeat_unique_roll_ops import unique
from ..core.scatter_ops import scatter_nd
from ..core.shape_ops import prevent_gradient, reshape, shape
from ..core.slicing import getitem
from ..core.split_pad_ops import pad
from . import ctc_beam_search, ctc_kernels
from .nn_util import _scope
from .softmax_losses import _LogSoftmax

__all__ = ["ctc_loss", "ctc_loss_v2", "ctc_loss_v3", "ctc_greedy_decoder",
           "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2", "ctc_unique_labels",
           "collapse_repeated"]

_state = _context.state
_FLOATS = (D.float32, D.float64)
_ONE_HOT_INDICES = (D.uint8, D.int8, D.int32, D.int64)
_IAE = errors.InvalidArgumentError


def _fixed(value, dtype, op, index, param):
    """An input of fixed dtype: Python values are converted to it; a tensor
    of another dtype fails as TensorFlow's op does (InvalidArgumentError
    eagerly, TypeError while building a graph)."""
    if isinstance(value, Tensor):
        if value.dtype is not dtype:
            if _state.graph is None:
                raise _IAE(None, None, f"cannot compute {op} as input #{index}(zero-based) was "
                           f"expected to be a {U.tf_type_name(dtype)} tensor but is a "
                           f"{U.tf_type_name(value.dtype)} tensor [Op:{op}]")
            raise TypeError(f"Input '{param}' of '{op}' Op has type {value.dtype.name} that "
                            f"does not match expected type of {dtype.name}.")
        return value
    return convert_to_tensor(value, dtype=dtype, name=param)


def _float_input(value, op, name):
    """The float32/float64 input `T` of a CTC op (Python and NumPy values of
    other dtypes become float32, TensorFlow's default for `T`)."""
    t = convert_to_tensor(value, name=name)
    if t.dtype not in _FLOATS and not isinstance(value, Tensor):
        t = convert_to_tensor(value, dtype=D.float32, name=name)
    U.check_dtype(op, t, _FLOATS, "T", name)
    return t


def _with_rank(s, r):
    if s.rank is not None and s.rank != r:
        raise ValueError(f"Shape must be rank {r} but is rank {s.rank}")


def _merge(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _dim(s, i):
    return s[i] if s.rank is not None else None


# --- CTCLoss -------------------------------------------------------------------------

def _ctc_loss_infer(inputs, attrs):
    x, ind, vals, lens = inputs
    U.check_graph_dtype(x, _FLOATS, "inputs")
    for t, r in ((x, 3), (ind, 2), (vals, 1), (lens, 1)):
        _with_rank(t.shape, r)
    _merge(_dim(ind.shape, 0), _dim(vals.shape, 0))
    batch = _merge(_dim(x.shape, 1), _dim(lens.shape, 0))
    xs = x.shape.as_list() if x.shape.rank is not None else [None] * 3
    return [(TensorShape([batch]), x.dtype),
            (TensorShape([xs[0], batch, xs[2]]), x.dtype)]


def _broadcast_mul(vec, mat):
    """TensorFlow's _BroadcastMul: vec [batch] times mat [time, batch, classes]."""
    return multiply(expand_dims(vec, -1), mat)


def _ctc_loss_grad(op, grad_loss, _):
    # TensorFlow blocks second derivatives: the fused kernel's gradient
    # output has no gradient of its own.
    g = prevent_gradient(op.outputs[1], message=(
        "Currently there is no way to take the second  derivative of ctc_loss due to the "
        "fused implementation's interaction  with tf.gradients()"))
    return [_broadcast_mul(grad_loss, g), None, None, None]


_CTCLoss = register("CTCLoss", ctc_kernels.ctc_loss, _ctc_loss_infer, _ctc_loss_grad,
                    allowed=_FLOATS)


def _ctc_loss_impl(labels, inputs, sequence_length, preprocess_collapse_repeated,
                   ctc_merge_repeated, ignore_longer_outputs_than_inputs, time_major, logits):
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected argument `labels` to be a SparseTensor. Received "
                        f"labels={labels} of type: {type(labels).__name__}")
    if inputs is not None and logits is not None:
        raise ValueError("Cannot specify both 'inputs' and 'logits'.")
    inputs = convert_to_tensor(logits if inputs is None else inputs, name="logits")
    if not time_major:
        inputs = transpose(inputs, [1, 0, 2])   # (B,T,N) => (T,B,N)
    orig = inputs.dtype
    if orig in (D.float16, D.bfloat16):
        inputs = cast(inputs, D.float32)
    if inputs.dtype not in _FLOATS and _state.graph is None:
        raise U.eager_dtype_error("CTCLoss", "T", inputs.dtype, _FLOATS)
    indices = convert_to_tensor(labels.indices, dtype=D.int64)
    values = convert_to_tensor(labels.values, dtype=D.int32)
    lens = _fixed(sequence_length, D.int32, "CTCLoss", 3, "sequence_length")
    loss, _ = apply(_CTCLoss, [inputs, indices, values, lens],
                    {"preprocess_collapse_repeated": bool(preprocess_collapse_repeated),
                     "ctc_merge_repeated": bool(ctc_merge_repeated),
                     "ignore_longer_outputs_than_inputs": bool(ignore_longer_outputs_than_inputs),
                     "T": inputs.dtype}, name="CTCLoss", multi=True)
    return cast(loss, orig) if orig in (D.float16, D.bfloat16) else loss


@export("compat.v1.nn.ctc_loss")
def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False, time_major=True,
             logits=None):
    """TensorFlow 1's CTC loss: the negative log probability of the
    SparseTensor `labels` (int32, [batch, max_label_length]) given
    `inputs` (logits, [time, batch, classes], or batch-major when
    `time_major` is False), whose last class is the blank, for each batch
    entry over its first `sequence_length[b]` frames.

    `preprocess_collapse_repeated` merges repeated labels first;
    `ctc_merge_repeated=False` counts repeated labels without blanks
    between as separate (non-standard CTC); `ignore_longer_outputs_than_inputs`
    gives loss 0 and gradient 0 where the labels are longer than the input.

    Raises:
      TypeError: if `labels` is not a SparseTensor.
      InvalidArgumentError: for invalid labels or lengths (TensorFlow's
        kernel's checks and messages).
    """
    return _ctc_loss_impl(labels, inputs, sequence_length, preprocess_collapse_repeated,
                          ctc_merge_repeated, ignore_longer_outputs_than_inputs, time_major,
                          logits)


def _num_classes(logits):
    d = _dim(logits.shape, 2)
    if d is None:
        return shape(logits)[2]
    return d


def _classes_last(logits, blank_index):
    """Moves class `blank_index` last; labels above it shift down by one."""
    return concat([getitem(logits, (slice(None), slice(None), slice(None, blank_index))),
                   getitem(logits, (slice(None), slice(None), slice(blank_index + 1, None))),
                   getitem(logits, (slice(None), slice(None),
                                    slice(blank_index, blank_index + 1)))], axis=2)


def _labels_below(labels, blank_index):
    return SparseTensor(labels.indices,
                        where(less(labels.values, blank_index), labels.values,
                              subtract(labels.values, 1)), labels.dense_shape)


@export("compat.v1.nn.ctc_loss_v2")
def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True,
                unique=None, blank_index=None, name=None):
    """TensorFlow 1's `ctc_loss_v2`: `tf.nn.ctc_loss` (dense or sparse labels,
    blank class 0 unless `blank_index` is given) as TensorFlow 1 routes it.

    Raises:
      ValueError: if `labels` is a SparseTensor and `blank_index` is None.
    """
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when labels is a "
                             "SparseTensor.")
        logits = convert_to_tensor(logits, name="logits")
        n = _num_classes(logits)
        if blank_index < 0:
            blank_index += n
        if not isinstance(n, int) or blank_index != n - 1:
            logits = _classes_last(logits, blank_index)
            labels = _labels_below(labels, blank_index)
        return ctc_loss(labels, inputs=logits, sequence_length=logit_length,
                        time_major=logits_time_major)
    return ctc_loss_dense(labels, logits, label_length, logit_length, logits_time_major,
                          unique, 0 if blank_index is None else blank_index, name)


@export("nn.ctc_loss")
def ctc_loss_v3(labels, logits, label_length, logit_length, logits_time_major=True,
                unique=None, blank_index=None, name=None):
    """The CTC loss (Graves et al., 2006): for each batch entry, the negative
    log probability of its label sequence given the logits, summed over all
    alignments. Applies the softmax itself.

    Args:
      labels: int `[batch, max_label_length]` padded labels, or a
        SparseTensor (then `label_length` is unused and `blank_index`
        required).
      logits: `[frames, batch, classes]` (`[batch, frames, classes]` when
        `logits_time_major` is False).
      label_length: `[batch]` lengths of the dense labels.
      logit_length: `[batch]` number of frames of each entry.
      unique: optional `ctc_unique_labels(labels)`; it only makes TPUs
        faster, the loss is the same.
      blank_index: the blank class (default 0 for dense labels; negative
        counts from the end).

    Returns:
      `[batch]` float losses, of the logits' dtype.

    Raises:
      ValueError: if `labels` is a SparseTensor and `blank_index` is None.
    """
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a "
                             "`SparseTensor`.")
        logits = convert_to_tensor(logits, name="logits")
        if blank_index < 0:
            blank_index += _num_classes(logits)
        return ctc_loss(_labels_below(labels, blank_index),
                        inputs=_classes_last(logits, blank_index),
                        sequence_length=logit_length, time_major=logits_time_major)
    return ctc_loss_dense(labels, logits, label_length, logit_length, logits_time_major,
                          unique, 0 if blank_index is None else blank_index, name)


# --- the dense-label loss ----------------------------------------------------------------

def _dense_infer(inputs, attrs):
    logits, labels = inputs[0], inputs[1]
    batch = _merge(_dim(logits.shape, 1), _dim(labels.shape, 0))
    xs = logits.shape.as_list() if logits.shape.rank is not None else [None] * 3
    return [(TensorShape([batch]), D.float32),
            (TensorShape([xs[0], batch, xs[2]]), D.float32)]


def _dense_grad(op, grad_loss, _):
    # TensorFlow's custom gradient: grad_loss times the computed gradient.
    return [multiply(reshape(grad_loss, [1, -1, 1]), op.outputs[1]), None, None, None]


# Not a TensorFlow op: TensorFlow composes this loss from other ops.
_CTCLossDense = register("CTCLossDense", ctc_kernels.ctc_loss_dense, _dense_infer, _dense_grad)


def _int_input(value, name):
    t = convert_to_tensor(value, name=name)
    U.check_dtype("OneHot", t, _ONE_HOT_INDICES, "TI", "indices")
    return t


def ctc_loss_dense(labels, logits, label_length, logit_length, logits_time_major=True,
                   unique=None, blank_index=0, name=None):
    """TensorFlow's `ctc_loss_dense`: padded dense labels, blank class
    `blank_index` (moved to class 0 first), float32 arithmetic (float16 and
    bfloat16 logits are cast; float64 logits fail as in TensorFlow)."""
    with _scope(name or "ctc_loss_dense"):
        logits = convert_to_tensor(logits, name="logits")
        labels = _int_input(labels, "labels")
        label_length = _int_input(label_length, "label_length")
        logit_length = _int_input(logit_length, "logit_length")
        orig = logits.dtype
        if orig in (D.float16, D.bfloat16):
            logits = cast(logits, D.float32)
        if logits.dtype is D.float64:
            if _state.graph is None:
                raise _IAE(None, None, "cannot compute Mul as input #1(zero-based) was expected "
                           "to be a double tensor but is a float tensor [Op:Mul]")
            raise TypeError("Input 'y' of 'Mul' Op has type float32 that does not match type "
                            "float64 of argument 'x'.")
        U.check_dtype("LogSoftmax", logits, _LogSoftmax.allowed, "T", "logits")
        if not logits_time_major:
            logits = transpose(logits, [1, 0, 2])
        if blank_index != 0:
            if blank_index < 0:
                blank_index += _num_classes(logits)
            logits = concat([getitem(logits, (slice(None), slice(None),
                                              slice(blank_index, blank_index + 1))),
                             getitem(logits, (slice(None), slice(None), slice(None, blank_index))),
                             getitem(logits, (slice(None), slice(None),
                                              slice(blank_index + 1, None)))], axis=2)
            labels = where(less(labels, blank_index), add(labels, 1), labels)
        if unique:
            # TensorFlow's unique-label path sums the same probabilities in
            # another way (faster on TPUs); the loss is the same.
            unique_y, unique_idx = unique   # noqa: F841 - TensorFlow's unpacking
        loss, _ = apply(_CTCLossDense, [logits, labels, label_length, logit_length],
                        name="ctc_loss_dense", multi=True)
        return cast(loss, orig) if orig in (D.float16, D.bfloat16) else loss


# --- decoders ------------------------------------------------------------------------

def _check_decoder_inputs(inputs, seq_len):
    """CTCDecodeHelper::ValidateInputsGenerateOutputs."""
    if inputs.ndim != 3:
        raise _IAE(None, None, "inputs is not a 3-Tensor")
    if inputs.size == 0:
        raise _IAE(None, None, "inputs must not be empty")
    if seq_len.ndim != 1:
        raise _IAE(None, None, "sequence_length is not a vector")
    max_time, batch = inputs.shape[:2]
    if seq_len.shape[0] != batch:
        raise errors.FailedPreconditionError(
            None, None, f"len(sequence_length) != batch_size.  len(sequence_length):  "
            f"{seq_len.shape[0]} batch_size: {batch}")
    for b, n in enumerate(seq_len.tolist()):
        if n > max_time:
            raise errors.FailedPreconditionError(None, None, f"sequence_length({b}) <= {max_time}")


def _sparse_outputs(sequences, batch):
    """StoreAllDecodedSequences for one path: indices [n, 2], values [n],
    dense shape [batch, longest]."""
    n = sum(len(s) for s in sequences)
    indices = np.zeros((n, 2), np.int64)
    values = np.zeros(n, np.int64)
    at = 0
    for b, s in enumerate(sequences):
        indices[at:at + len(s), 0] = b
        indices[at:at + len(s), 1] = np.arange(len(s))
        values[at:at + len(s)] = s
        at += len(s)
    longest = max((len(s) for s in sequences), default=0)
    return indices, values, np.array([batch, longest], np.int64)


def _row_max(x):
    """RowMax of each frame: the first strictly greatest class, starting from
    class 0 (NaN later in the row never wins; a NaN class 0 always does)."""
    first_nan = np.isnan(x[..., 0])
    y = np.where(np.isnan(x), -np.inf, x)
    idx = np.argmax(y, axis=-1)
    idx[first_nan] = 0
    return idx, np.take_along_axis(x, idx[..., None], axis=-1)[..., 0]


def _greedy_kernel(inputs, sequence_length, merge_repeated=False, blank_index=-1, T=None):
    _check_decoder_inputs(inputs, sequence_length)
    max_time, batch, num_classes = inputs.shape
    blank = num_classes + blank_index if blank_index < 0 else blank_index
    if not 0 <= blank < num_classes:
        raise _IAE(None, None, f"blank_index expected to be between {-num_classes} and "
                   f"{num_classes - 1} but was {blank_index}")
    idx, best = _row_max(inputs)
    log_prob = np.zeros((batch, 1), inputs.dtype)
    sequences = []
    for b in range(batch):
        n = max(int(sequence_length[b]), 0)
        if n:
            # log_prob(b) += -max, frame after frame, in T.
            log_prob[b, 0] = np.cumsum(-best[:n, b], dtype=inputs.dtype)[-1]
        seq, prev = [], -1
        for c in idx[:n, b].tolist():
            if c != blank and not (merge_repeated and c == prev):
                seq.append(c)
            prev = c
        sequences.append(seq)
    return (*_sparse_outputs(sequences, batch), log_prob)


def _decoder_infer(n_paths):
    def infer(inputs, attrs):
        x, lens = inputs
        U.check_graph_dtype(x, _FLOATS, "inputs")
        _with_rank(x.shape, 3)
        _with_rank(lens.shape, 1)
        batch = _merge(_dim(x.shape, 1), _dim(lens.shape, 0))
        k = n_paths(attrs)
        return ([(TensorShape([None, 2]), D.int64)] * k + [(TensorShape([None]), D.int64)] * k
                + [(TensorShape([2]), D.int64)] * k + [(TensorShape([batch, k]), x.dtype)])
    return infer


def _not_differentiable(op, *grads):
    return [None] * len(op.inputs)


_CTCGreedyDecoder = register("CTCGreedyDecoder", _greedy_kernel, _decoder_infer(lambda a: 1),
                             _not_differentiable, allowed=_FLOATS)


@export("nn.ctc_greedy_decoder", "compat.v1.nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding: the most likely class of each frame, repeats
    merged (when `merge_repeated`) and blanks removed.

    Args:
      inputs: `[max_time, batch, classes]` float32/float64 logits.
      sequence_length: int32 `[batch]` frames of each entry.
      blank_index: the blank class (default `classes - 1`; negative counts
        from the end).

    Returns:
      `([decoded], neg_sum_logits)`: a SparseTensor of int64 labels
      `[batch, longest]`, and `[batch, 1]` minus the sum over frames of
      the largest logit.

    Raises:
      InvalidArgumentError: for empty or non-3-D inputs or a blank_index out
        of range; FailedPreconditionError for lengths that do not fit.
    """
    x = _float_input(inputs, "CTCGreedyDecoder", "inputs")
    lens = _fixed(sequence_length, D.int32, "CTCGreedyDecoder", 1, "sequence_length")
    attrs = {"merge_repeated": bool(merge_repeated),
             "blank_index": -1 if blank_index is None else int(blank_index), "T": x.dtype}
    ix, val, dshape, log_prob = apply(_CTCGreedyDecoder, [x, lens], attrs,
                                      name="CTCGreedyDecoder", multi=True)
    return [SparseTensor(ix, val, dshape)], log_prob


def _beam_kernel(inputs, sequence_length, beam_width, top_paths, merge_repeated=True, T=None):
    _check_decoder_inputs(inputs, sequence_length)
    batch = inputs.shape[1]
    paths, log_probs = ctc_beam_search.beam_search(inputs, sequence_length, beam_width,
                                                   top_paths, merge_repeated, inputs.dtype)
    parts = [_sparse_outputs([paths[b][p] for b in range(batch)], batch)
             for p in range(top_paths)]
    return [q[0] for q in parts] + [q[1] for q in parts] + [q[2] for q in parts] + [log_probs]


_CTCBeamSearchDecoder = register("CTCBeamSearchDecoder", _beam_kernel,
                                 _decoder_infer(lambda a: a["top_paths"]), _not_differentiable,
                                 allowed=_FLOATS)


def _min_attr(v, name, op):
    if v < 1:
        if _state.graph is None:
            raise _IAE(None, None, f"Value for attr '{name}' of {v} must be at least minimum 1"
                       f"\n\t; NodeDef: {{{{node {op}}}}} [Op:{op}]")
        raise ValueError(f"Attr '{name}' of '{op}' Op passed {v} less than minimum 1.")
    return v


@export("compat.v1.nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1,
                            merge_repeated=True):
    """TensorFlow 1's beam search decoder: `merge_repeated` also merges
    repeated labels of the decoded paths (which TensorFlow 2 dropped: it
    returns low-probability paths)."""
    op = "CTCBeamSearchDecoder"
    x = _float_input(inputs, op, "inputs")
    lens = _fixed(sequence_length, D.int32, op, 1, "sequence_length")
    attrs = {"beam_width": _min_attr(int(beam_width), "beam_width", op),
             "top_paths": _min_attr(int(top_paths), "top_paths", op),
             "merge_repeated": bool(merge_repeated), "T": x.dtype}
    out = apply(_CTCBeamSearchDecoder, [x, lens], attrs, name=op, multi=True)
    k = attrs["top_paths"]
    return ([SparseTensor(out[i], out[k + i], out[2 * k + i]) for i in range(k)], out[3 * k])


@export("nn.ctc_beam_search_decoder", "compat.v1.nn.ctc_beam_search_decoder_v2")
def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """Beam search decoding (TensorFlow's prefix beam search, blank = last
    class; blanks end a label, unlike `ctc_greedy_decoder`).

    Args:
      inputs: `[max_time, batch, classes]` float32/float64 logits (the
        decoder normalizes each frame with a softmax).
      sequence_length: int32 `[batch]`.
      beam_width: prefixes kept at each frame (>= 1).
      top_paths: paths returned (1 <= top_paths <= beam_width).

    Returns:
      `(decoded, log_probabilities)`: `top_paths` SparseTensors of int64
      labels, best first, and their `[batch, top_paths]` log probabilities.

    Raises:
      InvalidArgumentError: if `top_paths` exceeds `beam_width` or the
        beam holds fewer prefixes than `top_paths`.
    """
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths,
                                   merge_repeated=False)


# --- label helpers ---------------------------------------------------------------------

@export("nn.ctc_unique_labels", "compat.v1.nn.ctc_unique_labels")
def ctc_unique_labels(labels, name=None):
    """For each row of `labels` `[batch, max_label_length]`: its distinct
    labels in order, zero-padded (int64), and the position of each label
    among them (int32), for `ctc_loss`'s `unique` argument."""
    with _scope(name or "ctc_unique_labels"):
        labels = convert_to_tensor(labels, name="labels")

        def _unique(x):
            u = unique(x)
            y = pad(u.y, [[0, subtract(shape(u.idx)[0], shape(u.y)[0])]])
            return [cast(y, D.int64), u.idx]
        return map_fn(_unique, labels, dtype=[D.int64, D.int32])


@export("nn.collapse_repeated", "compat.v1.nn.collapse_repeated")
def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of a repeated label into one: `[[A, A, B, B, A]]` with
    length 5 becomes `[[A, B, A]]` with length 3, zero-padded to the longest
    new length. Returns `(collapsed_labels, new_seq_length)`."""
    with _scope(name or "collapse_repeated_labels"):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        first = ones_like(getitem(labels, (slice(None), slice(None, 1))), D.bool_)
        label_mask = concat([first, not_equal(getitem(labels, (slice(None), slice(1, None))),
                                              getitem(labels, (slice(None), slice(None, -1))))],
                            axis=1)
        maxlen = _dim(labels.shape, 1)
        if maxlen is None:
            maxlen = shape(labels)[1]
        label_mask = logical_and(label_mask, sequence_mask(seq_length, maxlen=maxlen))
        new_len = reduce_sum(cast(label_mask, D.int32), axis=1)
        idx_mask = sequence_mask(new_len, maxlen=reduce_max(new_len))
        flat_labels = reshape(labels, [-1])
        flat_label_mask = reshape(label_mask, [-1])
        flat_idx_mask = reshape(idx_mask, [-1])
        idx = range_(shape(flat_idx_mask)[0])
        flat = scatter_nd(expand_dims(boolean_mask(idx, flat_idx_mask), axis=1),
                          boolean_mask(flat_labels, flat_label_mask), shape(flat_idx_mask))
        batch = _dim(labels.shape, 0)
        if batch is None:
            batch = shape(labels)[0]
        return (reshape(flat, [batch, reduce_max(new_len)]),
                cast(new_len, seq_length.dtype))
