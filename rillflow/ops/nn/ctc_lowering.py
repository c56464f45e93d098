"""The XLA lowering of `CTCLossDense` (`tf.nn.ctc_loss` with dense labels):
ctc_kernels.ctc_loss_dense's forward-backward algorithm in JAX, its two
Python loops over frames as `lax.scan`s, and what the NumPy kernel computes
with index assignments (the final states of each label length, a label's
one-hot rows) as comparisons, since label lengths are run-time values here.
The loss and its gradient agree with the kernel within float tolerance.
"""
import numpy as np

from ...framework import lowering as XL
from .ctc_kernels import _LOG_0

__all__ = []

_NEG_INF = -np.inf


def _lse(x, axis):
    """ctc_kernels._reduce_lse: the max is subtracted where it is finite."""
    jnp = XL.jnp
    m = jnp.max(x, axis=axis, keepdims=True)
    m = jnp.where(jnp.isfinite(m), m, jnp.zeros((), x.dtype))
    return jnp.squeeze(jnp.log(jnp.sum(jnp.exp(x - m), axis=axis, keepdims=True)) + m,
                       axis=axis)


def _label_lse(states, labels, nc):
    """ctc_kernels._label_lse: per class c >= 1, the log of the summed
    probabilities of the label states whose label is c."""
    jnp = XL.jnp
    t_max, nb, nl = states.shape
    hit = (labels >= 1) & (labels < nc)
    onehot = (labels[:, :, None] - 1 == jnp.arange(nc - 1)[None, None, :]) & hit[:, :, None]
    if nl:
        m = jnp.max(states, axis=2, keepdims=True)
        m = jnp.where(jnp.isfinite(m), m, 0)
    else:
        m = jnp.zeros((t_max, nb, 1), np.float32)
    e = jnp.exp(states.astype(np.float64) - m)
    sums = jnp.einsum("tbk,bkc->tbc", e, onehot.astype(np.float64))
    return (jnp.log(sums) + m).astype(np.float32)


def ctc_loss_dense(logits, labels, label_length, logit_length):
    """(loss, gradient) as ctc_kernels.ctc_loss_dense computes them, in JAX."""
    jnp, lax = XL.jnp, XL.lax
    t_max, nb, nc = logits.shape
    nl = labels.shape[1]
    ns = 2 * (nl + 1)
    f32 = np.float32
    logits = jnp.asarray(logits, f32)
    logp = XL.jax.nn.log_softmax(logits, axis=2)
    labels = jnp.asarray(labels).astype(np.int64)
    in_range = (labels >= 0) & (labels < nc)
    lab = jnp.where(in_range, labels, 0)
    obs_labels = jnp.take_along_axis(logp, jnp.broadcast_to(lab, (t_max, nb, nl)), axis=2)
    obs_labels = jnp.where(in_range, obs_labels, f32(0))
    bad = ~jnp.all(jnp.isfinite(logp), axis=2, keepdims=True)
    obs_labels = jnp.where(bad, f32(np.nan), obs_labels)
    obs = jnp.concatenate([jnp.full((t_max, nb, 1), _NEG_INF, f32), obs_labels,
                           jnp.repeat(logp[:, :, :1], nl + 1, axis=2)], axis=2)
    allowed = jnp.ones((nb, nl), bool)
    if nl > 1:
        allowed = allowed.at[:, 1:].set(labels[:, 1:] != labels[:, :-1])
    inf = jnp.full((nb, 1), _NEG_INF, f32)
    none = jnp.full((nb, nl + 1), _NEG_INF, f32)

    def forward(prev):
        lab_prev = jnp.where(allowed, prev[:, :nl], _NEG_INF)
        to_labels = jnp.stack([prev[:, 1:nl + 1], prev[:, nl + 1:2 * nl + 1], lab_prev])
        to_blanks = jnp.stack([prev[:, nl + 1:], prev[:, :nl + 1], none])
        start = jnp.stack([prev[:, :1], inf, inf])
        return _lse(jnp.concatenate([start, to_labels, to_blanks], axis=2), 0)

    def backward(nxt):
        lab_next = jnp.where(allowed, nxt[:, 1:nl + 1], _NEG_INF)
        from_labels = jnp.stack([nxt[:, :nl + 1], nxt[:, nl + 1:],
                                 jnp.concatenate([lab_next, inf], axis=1)])
        from_blanks = jnp.stack([nxt[:, nl + 1:],
                                 jnp.concatenate([nxt[:, 1:nl + 1], inf], axis=1), none])
        return _lse(jnp.concatenate([from_labels, from_blanks], axis=2), 0)

    initial = jnp.full((nb, ns), _LOG_0, f32).at[:, 0].set(0)
    k = jnp.asarray(label_length).astype(np.int64)
    ok = (k >= 0) & (k <= nl)
    pos = jnp.arange(ns)
    final_mask = (((pos[None, :] == k[:, None]) | (pos[None, :] == k[:, None] + nl + 1))
                  & ok[:, None]).astype(f32)
    final = (f32(1) - final_mask) * _LOG_0
    mask = (jnp.arange(t_max)[:, None] <
            jnp.asarray(logit_length)[None, :]).astype(f32)   # [t, b]
    if t_max == 0:
        return -final[:, 0], jnp.zeros(logits.shape, f32)

    def fwd_step(prev, o):
        s = forward(prev) + o
        s = s - _lse(s, 1)[:, None]
        return s, s
    _, fwd = lax.scan(fwd_step, initial, obs)               # states after frames 1..T

    def bwd_step(carry, xs):
        nxt, cum = carry
        o, m_t = xs
        s = backward(nxt + o)
        norm = _lse(s, 1)
        s = s - norm[:, None]
        cum = cum + norm * m_t
        m = m_t[:, None]
        b = s * m + final * (f32(1) - m)
        return (b, cum), b
    (b0, cum), bwd = lax.scan(bwd_step, (final, jnp.zeros(nb, f32)), (obs, mask),
                              reverse=True)                 # bwd[t] for t = 0..T-1
    bwd_next = jnp.concatenate([bwd[1:], final[None]], axis=0)
    fb = fwd + bwd_next
    fb = fb - _lse(fb, 2)[:, :, None]
    fb = fb + jnp.log(mask)[:, :, None]
    loss = -(b0[:, 0] + cum)
    blank = _lse(fb[:, :, nl + 1:], 2)[:, :, None]
    olabel = jnp.concatenate([blank, _label_lse(fb[:, :, 1:nl + 1], labels, nc)], axis=2) \
        if nc > 1 else blank
    grad = (jnp.exp(logp) - jnp.exp(olabel)) * mask[:, :, None]
    return loss.astype(f32), grad.astype(f32)


XL.set_lowerings({"CTCLossDense": lambda ctx, op, *values: list(ctc_loss_dense(*values))})
