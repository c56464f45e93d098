"""The NumPy kernels of the CTC losses (ctc_ops holds the ops and the public
functions):

- `ctc_loss`: TensorFlow's CTCLoss kernel (ctc_loss_op.cc and
  ctc_loss_calculator.h): its checks and messages in its order, the softmax
  of each frame, the pruned forward and backward recursions in log space
  with its pairwise LogSumExp, and the gradient with respect to the logits.
  The recursions run over the whole batch at once, one frame at a time.
- `ctc_loss_dense`: the batched forward-backward algorithm TensorFlow's
  `ctc_loss_dense` builds from ops (a While loop over frames of
  normalized state log probabilities, Sim et al. 2017), as one kernel that
  returns the loss and the gradient its custom gradient multiplies.

Both compute in the logits' dtype as TensorFlow does, so that impossible
alignments, out-of-range labels and padding give TensorFlow's values (inf,
~707 from its finite log(0), 0 for an out-of-range label's log
probability); sums of probabilities the two kernels do in one order where
TensorFlow uses another differ from it by rounding only.
"""
import numpy as np

from ...framework import errors
from ...framework.sparse_tensor import _check_indices
from .softmax_losses import _log_softmax_kernel

__all__ = ["ctc_loss", "ctc_loss_dense"]

_IAE = errors.InvalidArgumentError
_NEG_INF = -np.inf


def _error(msg):
    return _IAE(None, None, msg)


# --- CTCLoss -------------------------------------------------------------------------

def _log_sum_exp(a, b):
    """TensorFlow's pairwise LogSumExp (ctc_loss_util.h), elementwise: a -inf
    operand returns the other; otherwise the larger plus log1p(exp(smaller -
    larger)), the correction computed in float (log1pf, expf) for any T."""
    with np.errstate(invalid="ignore", over="ignore"):
        gt = a > b
        hi = np.where(gt, a, b)
        lo = np.where(gt, b, a)
        r = hi + np.log1p(np.exp((lo - hi).astype(np.float32))).astype(a.dtype)
    return np.where(a == _NEG_INF, b, np.where(b == _NEG_INF, a, r))


def _join(v):
    return ",".join(str(int(x)) for x in v)


def _label_sequences(indices, values, batch_size):
    """The label values of each batch entry, after the kernel's validation of
    the SparseTensor (shape [batch, max index + 1], row-major order)."""
    if indices.shape[1] != 2:
        raise _error("Order length must be SparseTensor rank.")
    max_len = int(indices[:, 1].max()) + 1 if indices.shape[0] else 0
    try:
        _check_indices(indices, [batch_size, max(max_len, 0)])
    except errors.InvalidArgumentError as e:
        raise _error(f"label SparseTensor is not valid: {e.message}") from None
    labels = [[] for _ in range(batch_size)]
    for (b, _), v in zip(indices.tolist(), values.tolist()):
        labels[b].append(v)
    return labels


def _l_prime(labels, num_classes, seq_len, collapse, ignore_longer):
    """PopulateLPrimes: the labels of each entry up to the first null label
    (>= num_classes - 1), checked, with a blank before each and at the end."""
    blank = num_classes - 1
    out = []
    for b, label in enumerate(labels):
        if not label:
            raise _error(f"Labels length is zero in batch {b}")
        seq, finished = [], False
        for i, v in enumerate(label):
            if i and collapse and v == label[i - 1]:
                continue
            if v >= blank:
                finished = True
            elif finished:
                raise _error("Saw a non-null label (index >= num_classes - 1) following a null "
                             f"label, batch: {b} num_classes: {num_classes} labels: "
                             f"{_join(label)} labels seen so far: {_join(seq)}")
            else:
                seq.append(v)
        if any(v < 0 for v in seq):
            raise _error(f"All labels must be nonnegative integers, batch: {b} labels: "
                         f"{_join(seq)}")
        if not ignore_longer and len(label) > seq_len[b]:
            raise _error(f"Not enough time for target transition sequence (required: "
                         f"{len(label)}, available: {seq_len[b]}){b}You can turn this error "
                         "into a warning by using the flag ignore_longer_outputs_than_inputs")
        lp = [blank] * (2 * len(seq) + 1)
        lp[1::2] = seq
        out.append(lp)
    return out


def _softmax_frames(x):
    """Each frame's softmax as the calculator computes it: exp(x - max),
    divided by the sum, in the input's dtype."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def ctc_loss(inputs, labels_indices, labels_values, sequence_length,
             preprocess_collapse_repeated=False, ctc_merge_repeated=True,
             ignore_longer_outputs_than_inputs=False, T=None):
    """CTCLoss: (loss [batch], gradient [max_time, batch, num_classes]) of
    time-major logits whose last class is the blank."""
    if inputs.ndim != 3:
        raise _error("inputs is not a 3-Tensor")
    if sequence_length.ndim != 1:
        raise _error("sequence_length is not a vector")
    if labels_indices.ndim != 2:
        raise _error("labels_indices is not a matrix")
    if labels_indices.shape[1] <= 1:
        raise _error(f"labels_indices second dimension must be >= 1. Received "
                     f"{labels_indices.shape[1]}")
    if labels_values.ndim != 1:
        raise _error("labels_values is not a vector")
    max_time, batch, num_classes = inputs.shape
    if sequence_length.shape[0] != batch:
        raise _error(f"len(sequence_length) != batch_size.  len(sequence_length):  "
                     f"{sequence_length.shape[0]} batch_size: {batch}")
    if labels_indices.shape[0] != labels_values.shape[0]:
        raise _error(f"labels_indices and labels_values must contain the same number of rows, "
                     f"but saw shapes: [{','.join(map(str, labels_indices.shape))}] vs. "
                     f"[{labels_values.shape[0]}]")
    if batch == 0:
        raise _error("batch_size must not be 0")
    labels = _label_sequences(labels_indices, labels_values, batch)
    seq_len = [int(v) for v in sequence_length]
    for b, n in enumerate(seq_len):
        if n > max_time:
            raise _error(f"sequence_length({b}) <= {max_time}")
    for b, n in enumerate(seq_len):
        if n < 0:
            raise _error(f"seq_len({b}) < 0")
    lps = _l_prime(labels, num_classes, seq_len, preprocess_collapse_repeated,
                   ignore_longer_outputs_than_inputs)
    dtype = inputs.dtype
    loss = np.zeros(batch, dtype)
    grad = np.zeros(inputs.shape, dtype)
    # Empty sequences, and labels longer than the input when that is
    # ignored, keep loss 0 and gradient 0.
    todo = [b for b in range(batch) if seq_len[b] > 0 and not (
        ignore_longer_outputs_than_inputs and len(labels[b]) > seq_len[b])]
    if not todo:
        return loss, grad
    x = inputs[:, todo]
    y = _softmax_frames(x)
    with np.errstate(divide="ignore"):
        log_y = np.log(y)
    lens = np.array([seq_len[b] for b in todo])
    lp_list = [lps[b] for b in todo]
    alpha, beta, lp, u_len = _alpha_beta(log_y, lp_list, lens, num_classes - 1,
                                         ctc_merge_repeated)
    # log p(z|x): the pairs alpha(u, 0) + beta(u, 0) summed in u's order;
    # only u = 0 and 1 can be nonzero at t = 0.
    s0 = alpha[0] + beta[0]
    log_p = _log_sum_exp(s0[:, 0], np.where(u_len > 1, s0[:, 1], _NEG_INF))
    loss[todo] = -log_p
    g = _ctc_gradient(y, alpha, beta, lp, u_len, lens, log_p, num_classes)
    grad[:, todo] = g
    return loss, grad


def _alpha_beta(log_y, lp_list, lens, blank, merge):
    """The forward and backward variables, [time, batch, U] each: the
    calculator's recursions over all entries at once, with its pruning of
    states that cannot be on a path (they stay -inf)."""
    t_max, nb, _ = log_y.shape
    u_len = np.array([len(v) for v in lp_list])
    u_max = int(u_len.max())
    lp = np.full((nb, u_max), blank, np.int64)
    for i, v in enumerate(lp_list):
        lp[i, :len(v)] = v
    dtype = log_y.dtype
    ly = np.take_along_axis(log_y, np.broadcast_to(lp, (t_max,) + lp.shape), axis=2)
    u = np.arange(u_max)
    is_blank = lp == blank
    self_ok = np.ones_like(is_blank) if merge else is_blank
    prev2 = np.concatenate([np.full((nb, 2), -1), lp[:, :-2]], axis=1)
    skip_in = (u >= 2) & ~is_blank & ~(merge & (lp == prev2))
    next2 = np.concatenate([lp[:, 2:], np.full((nb, 2), -1)], axis=1)
    skip_out = (u + 2 < u_len[:, None]) & ~is_blank & ~(merge & (lp == next2))
    step_out = u + 1 < u_len[:, None]
    inf_col = np.full((nb, 1), _NEG_INF, dtype)
    inf_col2 = np.full((nb, 2), _NEG_INF, dtype)

    def live(t):
        # States u with U - 2(T - t) <= u < min(U, 2(t + 1)), for t < T.
        lo = np.maximum(0, u_len - 2 * (lens - t))[:, None]
        hi = np.minimum(u_len, 2 * (t + 1))[:, None]
        return (u >= lo) & (u < hi) & (t < lens)[:, None]

    alpha = np.full((t_max, nb, u_max), _NEG_INF, dtype)
    alpha[0, :, 0] = log_y[0, :, blank]
    has_label = u_len > 1
    alpha[0, has_label, 1] = ly[0, has_label, 1]
    for t in range(1, t_max):
        prev = alpha[t - 1]
        s = np.where(self_ok, prev, _NEG_INF)
        s = _log_sum_exp(s, np.concatenate([inf_col, prev[:, :-1]], axis=1))
        s = np.where(skip_in, _log_sum_exp(s, np.concatenate([inf_col2, prev[:, :-2]], axis=1)),
                     s)
        alpha[t] = np.where(live(t), ly[t] + s, _NEG_INF)

    beta = np.full((t_max, nb, u_max), _NEG_INF, dtype)
    idx = np.arange(nb)
    last = lens - 1
    beta[last, idx, np.maximum(u_len - 2, 0)] = 0
    beta[last, idx, u_len - 1] = 0
    # The calculator's initialization writes beta(U - 2, T - 1) with U = 1
    # (labels that are all null) one element before the column, which is
    # beta(0, T - 2): TensorFlow starts that sum at log 1.
    odd = (u_len == 1) & (lens >= 2)
    beta[lens[odd] - 2, idx[odd], 0] = 0
    for t in range(t_max - 2, -1, -1):
        nxt = beta[t + 1] + ly[t + 1]
        cur = beta[t]
        s = np.where(self_ok, _log_sum_exp(cur, nxt), cur)
        s = np.where(step_out, _log_sum_exp(s, np.concatenate([nxt[:, 1:], inf_col], axis=1)), s)
        s = np.where(skip_out, _log_sum_exp(s, np.concatenate([nxt[:, 2:], inf_col2], axis=1)),
                     s)
        beta[t] = np.where(live(t) & (t <= lens - 2)[:, None], s, cur)
    return alpha, beta, lp, u_len


def _ctc_gradient(y, alpha, beta, lp, u_len, lens, log_p, num_classes):
    """dy(l, t) = y(l, t) - exp(logsumexp over u with l'(u) = l of
    alpha(u, t) + beta(u, t) - log p), for t < T; y itself where no path
    exists (log p = -inf)."""
    t_max, nb, u_max = alpha.shape
    with np.errstate(invalid="ignore", over="ignore"):
        terms = np.exp((alpha + beta).astype(np.float64) - log_p[None, :, None])
    terms[:, u_len[:, None] <= np.arange(u_max)] = 0
    terms[np.isnan(terms)] = 0
    neg = np.zeros((t_max, nb, num_classes))
    _scatter_labels(neg, terms, lp)
    dy = (y - neg.astype(y.dtype)).astype(y.dtype)
    no_path = log_p == _NEG_INF
    dy[:, no_path] = y[:, no_path]
    dy[np.arange(t_max)[:, None] >= lens[None, :]] = 0
    return dy


def _scatter_labels(neg, terms, lp):
    """neg[t, b, lp[b, u]] += terms[t, b, u] for every t, b, u."""
    nb, u_max = lp.shape
    for b in range(nb):
        np.add.at(neg[:, b], (slice(None), lp[b]), terms[:, b])


# --- the dense-label loss (TensorFlow's ctc_loss_dense) ---------------------------------

# TensorFlow's log(0) in ctc_state_log_probs: float32(log(1e-307)), finite.
_LOG_0 = np.float32(np.log(np.float64(0) + 1e-307))


def _reduce_lse(x, axis):
    """tf.reduce_logsumexp: the max is subtracted where it is finite."""
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, np.zeros((), x.dtype))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return np.squeeze(r, axis=axis)


def ctc_loss_dense(logits, labels, label_length, logit_length):
    """(loss [batch], gradient [frames, batch, classes]) of time-major
    float32 logits whose blank is class 0, and padded dense labels: the
    computation of TensorFlow's ctc_loss_and_grad.

    States: 0 is the start, 1..L the labels, L+1..2L+1 the blank after each
    label state; each step's state log probabilities are normalized, and
    the normalizers summed give the log likelihood.

    Raises:
      InvalidArgumentError: where TensorFlow's ops fail (mismatched batch).
    """
    t_max, nb, nc = logits.shape
    if labels.shape[0] != nb:
        nl = labels.shape[1]
        raise _error(f"Incompatible shapes: [{t_max},{nb},1,{nc}] vs. [1,{labels.shape[0]},"
                     f"{nl},{nc}] [Op:Mul]")
    nl = labels.shape[1]
    ns = 2 * (nl + 1)
    logp = _log_softmax_kernel(logits) if logits.size else logits.copy()
    labels = labels.astype(np.int64)
    in_range = (labels >= 0) & (labels < nc)
    # Observed log probabilities of the states: TensorFlow sums logp times a
    # one-hot row, so an out-of-range label gets 0 and a non-finite log
    # probability anywhere in the frame gives NaN (-inf * 0).
    lab = np.where(in_range, labels, 0)
    obs_labels = np.take_along_axis(logp, np.broadcast_to(lab, (t_max, nb, nl)), axis=2)
    obs_labels = np.where(in_range, obs_labels, np.float32(0))
    bad = ~np.isfinite(logp).all(axis=2, keepdims=True)
    obs_labels = np.where(bad, np.float32(np.nan), obs_labels)
    obs = np.concatenate([np.full((t_max, nb, 1), _NEG_INF, np.float32), obs_labels,
                          np.repeat(logp[:, :, :1], nl + 1, axis=2)], axis=2)
    # Label k follows label k-1 unless the two are equal (k >= 2); the start
    # state leads to label 1.
    allowed = np.ones((nb, nl), bool)
    if nl > 1:
        allowed[:, 1:] = labels[:, 1:] != labels[:, :-1]
    inf = np.full((nb, 1), _NEG_INF, np.float32)

    def forward(prev):
        lab_prev = np.where(allowed, prev[:, :nl], _NEG_INF)          # label k-1 -> label k
        to_labels = np.stack([prev[:, 1:nl + 1], prev[:, nl + 1:2 * nl + 1], lab_prev])
        to_blanks = np.stack([prev[:, nl + 1:], prev[:, :nl + 1],
                              np.full((nb, nl + 1), _NEG_INF, np.float32)])
        start = np.stack([prev[:, :1], inf, inf])
        return _reduce_lse(np.concatenate([start, to_labels, to_blanks], axis=2), 0)

    def backward(nxt):
        lab_next = np.where(allowed, nxt[:, 1:nl + 1], _NEG_INF)   # label k -> label k+1
        from_labels = np.stack([nxt[:, :nl + 1], nxt[:, nl + 1:],
                                np.concatenate([lab_next, inf], axis=1)])
        from_blanks = np.stack([nxt[:, nl + 1:], np.concatenate([nxt[:, 1:nl + 1], inf], axis=1),
                                np.full((nb, nl + 1), _NEG_INF, np.float32)])
        return _reduce_lse(np.concatenate([from_labels, from_blanks], axis=2), 0)

    initial = np.full((nb, ns), _LOG_0, np.float32)
    initial[:, 0] = 0
    k = label_length.astype(np.int64)
    final_mask = np.zeros((nb, ns), np.float32)
    ok = (k >= 0) & (k <= nl)
    final_mask[np.nonzero(ok)[0], k[ok]] = 1
    final_mask[np.nonzero(ok)[0], k[ok] + nl + 1] = 1
    final = (np.float32(1) - final_mask) * _LOG_0
    mask = (np.arange(t_max)[:, None] < logit_length[None, :]).astype(np.float32)  # [t, b]
    if t_max == 0:
        return -final[:, 0], np.zeros(logits.shape, np.float32)

    with np.errstate(invalid="ignore"):
        fwd = np.empty((t_max + 1, nb, ns), np.float32)
        fwd[0] = initial
        for t in range(t_max):
            s = forward(fwd[t]) + obs[t]
            fwd[t + 1] = s - _reduce_lse(s, 1)[:, None]
        bwd = np.empty((t_max + 1, nb, ns), np.float32)
        bwd[t_max] = final
        cum = np.zeros(nb, np.float32)
        for t in range(t_max - 1, -1, -1):
            s = backward(bwd[t + 1] + obs[t])
            norm = _reduce_lse(s, 1)
            s = s - norm[:, None]
            cum = cum + norm * mask[t]
            m = mask[t][:, None]
            bwd[t] = s * m + final * (np.float32(1) - m)
        fb = fwd[1:] + bwd[1:]
        fb = fb - _reduce_lse(fb, 2)[:, :, None]
        with np.errstate(divide="ignore"):
            fb = fb + np.log(mask)[:, :, None]
        loss = -(bwd[0, :, 0] + cum)
        olabel = np.empty((t_max, nb, nc), np.float32)
        olabel[:, :, 0] = _reduce_lse(fb[:, :, nl + 1:], 2)
        if nc > 1:
            olabel[:, :, 1:] = _label_lse(fb[:, :, 1:nl + 1], labels, nc)
        grad = (np.exp(logp) - np.exp(olabel)) * mask[:, :, None]
    return loss.astype(np.float32), grad.astype(np.float32)


def _label_lse(states, labels, nc):
    """For each class c >= 1, the log of the summed probabilities of the
    label states whose label is c (-inf for classes not in the labels)."""
    t_max, nb, nl = states.shape
    onehot = np.zeros((nb, nl, nc - 1))
    hit = (labels >= 1) & (labels < nc)
    b_idx, k_idx = np.nonzero(hit)
    onehot[b_idx, k_idx, labels[b_idx, k_idx] - 1] = 1
    m = np.max(states, axis=2, keepdims=True) if nl else np.zeros((t_max, nb, 1), np.float32)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.exp(states.astype(np.float64) - m)
        sums = np.einsum("tbk,bkc->tbc", e, onehot)
        return (np.log(sums) + m).astype(np.float32)
