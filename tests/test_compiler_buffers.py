"""The compiler's buffer reuse around kernels and sums of gradients
(compiler/in_place.py, compiler/accumulate.py): the optimized code gives
what the plain path (one kernel call per op) gives, and reuses the buffers
the tests name."""
import numpy as np

import rillflow as tf

from helpers import optimizations


def run_both(fn, *args):
    with optimizations(False):
        plain = tf.function(fn)(*args)
    with optimizations(True):
        opt_fn = tf.function(fn)
        opt = opt_fn(*args)
    return plain, opt, opt_fn.get_concrete_function(*args).generated_source


def _as_np(xs):
    return [np.asarray(x.numpy()) for x in xs]


def test_sparse_xent_writes_its_backprop_over_dead_logits():
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((48, 64)).astype(np.float32))
    w = tf.constant(rng.standard_normal((64, 200)).astype(np.float32))
    labels = tf.constant(rng.integers(0, 200, 48).astype(np.int32))

    def step(x, w, labels):
        with tf.GradientTape() as tape:
            tape.watch(w)
            logits = tf.matmul(x, w) + 0.5
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=logits))
        return loss, tape.gradient(loss, w)
    plain, opt, src = run_both(step, x, w, labels)
    for a, b in zip(_as_np(plain), _as_np(opt)):
        np.testing.assert_array_equal(a, b)
    assert "k_SparseSoftmaxCrossEntropyWithLogits(MatMul, labels, out=MatMul)" in src
    # The backprop is then scaled by the loss's gradient in its own buffer.
    assert "WithLogits_1, out=SparseSoftmaxCrossEntropyWithLogits_" in src


def test_sparse_xent_keeps_logits_that_are_read_later():
    rng = np.random.default_rng(4)
    x = tf.constant(rng.standard_normal((40, 64)).astype(np.float32))
    w = tf.constant(rng.standard_normal((64, 100)).astype(np.float32))
    labels = tf.constant(rng.integers(0, 100, 40).astype(np.int32))

    def f(x, w, labels):
        logits = tf.matmul(x, w)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        return loss, logits * 2.0
    plain, opt, src = run_both(f, x, w, labels)
    for a, b in zip(_as_np(plain), _as_np(opt)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(opt[1].numpy(), (x.numpy() @ w.numpy()) * 2.0)
    assert "out=MatMul)" not in src.split("k_SparseSoftmax")[1].split("\n")[0]
