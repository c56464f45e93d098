"""Arithmetic on broadcast values computed once per distinct value
(compiler/broadcast_sink.py): the same bits as the plain path, NaN,
infinities and signed zeros included; results that are returned, read in
place or fused stay correct."""
import numpy as np
import pytest

import rillflow as tf

from helpers import compare_with_pass_off


def _hostile(rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    for v in (np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -3e38):
        flat[rng.integers(0, flat.size)] = v
    return x


def _compare(fn, *args):
    return compare_with_pass_off(fn, args, "broadcast_sink")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_mean_and_batch_norm_gradients(dtype):
    rng = np.random.default_rng(1)
    with np.errstate(over="ignore"):     # -3e38 is -inf in float16
        x = tf.constant(_hostile(rng, (4, 6, 6, 8)).astype(dtype))
    w = tf.constant(rng.standard_normal((4, 6, 6, 8)).astype(dtype))

    def step(x, w):
        with tf.GradientTape() as tape:
            tape.watch(x)
            m, v = tf.nn.moments(x, [0, 1, 2])
            y = tf.nn.batch_normalization(x, m, v, tf.constant(0.5, x.dtype),
                                          tf.constant(2.0, x.dtype), 1e-3)
            pooled = tf.reduce_mean(tf.nn.relu(y) * w, [1, 2])
            loss = tf.reduce_mean(pooled * pooled)
        return [loss, tape.gradient(loss, x)]
    src = _compare(step, x, w)
    assert "np.broadcast_to(" in src


def test_chains_scalars_and_rank_changes():
    rng = np.random.default_rng(2)
    v = tf.constant(_hostile(rng, (5,)))
    s = tf.constant(_hostile(rng, (3, 1, 5)))
    big = tf.constant(_hostile(rng, (2, 3, 4, 5)))
    c = tf.constant(np.float32(-0.0))

    def fn(v, s, big, c):
        a = tf.broadcast_to(v, [2, 3, 4, 5])
        b = tf.broadcast_to(s, [2, 3, 4, 5])
        k = tf.broadcast_to(c, [2, 3, 4, 5])
        t = ((a / 3.0 - b) * a + k) / b       # sunk all along
        u = -t * t
        return [tf.reduce_sum(u * big, 3), u + big, tf.exp(t) * big]
    src = _compare(fn, v, s, big, c)
    assert src.count("np.broadcast_to(") >= 4


def test_returned_values_stay_full_tensors():
    rng = np.random.default_rng(3)
    v = tf.constant(_hostile(rng, (1, 7)))

    def fn(v):
        t = tf.broadcast_to(v, [6, 7]) * 2.0
        return [t, t + 1.0]
    src = _compare(fn, v)
    out = tf.function(fn)(v)
    assert out[0].numpy().flags.writeable or out[0].numpy().strides[0] != 0
    assert "np.broadcast_to(t" not in src.replace("np.broadcast_to(BroadcastTo", "")


def test_a_sunk_value_is_never_written_in_place():
    """An owned temporary added to a sunk view: the sum goes into the
    temporary (the view is read-only and shared by every row)."""
    rng = np.random.default_rng(4)
    v = tf.constant(_hostile(rng, (64,)))
    x = tf.constant(_hostile(rng, (32, 64)))
    w = tf.constant(rng.standard_normal((64, 64)).astype(np.float32))

    def fn(v, x, w):
        t = tf.broadcast_to(v, [32, 64]) / 7.0
        h = tf.matmul(x, w)
        return [tf.reduce_sum((h + t) * (t - h), 0)]
    _compare(fn, v, x, w)


def test_exp_and_relu_keep_their_position_rules():
    """Kernels whose bits depend on an element's position (packets and the
    scalar tail) are not sunk."""
    rng = np.random.default_rng(5)
    v = tf.constant(_hostile(rng, (1, 1, 9)))

    def fn(v):
        b = tf.broadcast_to(v, [3, 3, 9])
        return [tf.exp(b), tf.nn.relu(b), tf.maximum(b, 0.0)]
    src = _compare(fn, v)
    assert "np.broadcast_to(" not in src
