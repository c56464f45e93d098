"""The compiler's buffer reuse around kernels and sums of gradients
(compiler/in_place.py, compiler/accumulate.py): the optimized code gives
what the plain path (one kernel call per op) gives, and reuses the buffers
the tests name."""
import numpy as np

import rillflow as tf

from helpers import optimizations, passes_off
from kernel_modes import default_products


def run_both(fn, *args):
    with optimizations(False):
        plain = tf.function(fn)(*args)
    with optimizations(True):
        opt_fn = tf.function(fn)
        opt = opt_fn(*args)
    return plain, opt, opt_fn.get_concrete_function(*args).generated_source


def _as_np(xs):
    return [np.asarray(x.numpy()) for x in xs]


@default_products
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



def test_conv_bias_relu_and_their_gradients_reuse_dead_buffers():
    """conv + bias goes into the convolution's buffer, the relu after it into
    the same, and the relu's gradient over the max-pool gradient's; the
    values are the plain path's bit for bit, NaN and -0 included. (The
    pairs are joined into one kernel each unless kernel_fusion is off:
    test_kernel_fusion.py.)"""
    rng = np.random.default_rng(5)
    xv = rng.standard_normal((4, 12, 12, 3)).astype(np.float32)
    xv[0, 0, 0, 0] = np.nan
    xv[1, 2, 3, 1] = -0.0
    x = tf.constant(xv)
    k = tf.constant(rng.standard_normal((3, 3, 3, 16)).astype(np.float32) / 3)
    b = tf.constant(rng.standard_normal(16).astype(np.float32))

    def step(x, k, b):
        with tf.GradientTape() as tape:
            tape.watch([k, b])
            h = tf.nn.relu(tf.nn.conv2d(x, k, 1, "SAME") + b)
            p = tf.nn.max_pool2d(h, 2, 2, "VALID")
            loss = tf.reduce_sum(p * p)
        return [h, loss] + tape.gradient(loss, [k, b])
    with passes_off("kernel_fusion"):
        plain, opt, src = run_both(step, x, k, b)
    for a, c in zip(_as_np(plain), _as_np(opt)):
        np.testing.assert_array_equal(a.view(np.int32), c.view(np.int32))
    assert "out=Conv2D)" in src and "k_Relu(Conv2D, out=Conv2D)" in src
    assert "k_ReluGrad(MaxPoolGrad, " in src and "out=MaxPoolGrad)" in src
    # The relu's output is returned (and read by the gradient): it keeps
    # its own buffer, which nothing writes over.
    np.testing.assert_array_equal(opt[0].numpy(), np.maximum(plain[0].numpy(), 0))



def test_a_buffer_read_by_a_reduction_is_reused_after_it():
    """A reduction to fewer elements computes a new array, so the tensor it
    read may take the last product's result; a 'reduction' over axes of size
    1 may be a view of its input, and keeps the buffer from being reused."""
    rng = np.random.default_rng(6)
    a = tf.constant(rng.standard_normal((64, 40)).astype(np.float32))
    b = tf.constant(rng.standard_normal((64, 40)).astype(np.float32))
    c = tf.constant(rng.standard_normal((64, 1, 40)).astype(np.float32))

    def f(a, b, c):
        t = a * b
        s = tf.reduce_sum(t, axis=0)
        u = c * 3.0
        v = tf.reduce_sum(u, axis=1)          # size-1 axis: as many elements
        return s, t * a, v, u * 2.0
    plain, opt, src = run_both(f, a, b, c)
    for x, y in zip(_as_np(plain), _as_np(opt)):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(opt[3].numpy(), c.numpy() * np.float32(3) * np.float32(2))
    assert "uf_multiply(mul, a, out=mul)" in src or "uf_multiply(a, mul, out=mul)" in src
    assert "out=mul_1)" not in src


def _unrolled_rnn(xs, w, h0):
    # The gradient of w is an AddN of one matmul per step.
    with tf.GradientTape() as tape:
        tape.watch([w, xs])
        h = h0
        for t in range(6):
            h = tf.tanh(tf.matmul(tf.concat([xs[t], h], 1), w))
        loss = tf.reduce_sum(h * h)
    return tape.gradient(loss, [w, xs])


def test_sums_of_gradient_terms_are_accumulated_as_the_terms_are_made():
    rng = np.random.default_rng(5)
    xs = tf.constant(rng.standard_normal((6, 8, 40)).astype(np.float32))
    w = tf.constant((rng.standard_normal((72, 32)) * 0.2).astype(np.float32))
    h0 = tf.constant(rng.standard_normal((8, 32)).astype(np.float32))
    plain, opt, src = run_both(_unrolled_rnn, xs, w, h0)
    for a, b in zip(_as_np(plain), _as_np(opt)):
        np.testing.assert_array_equal(a, b)
    eager = _unrolled_rnn(xs, w, h0)
    for a, b in zip(_as_np(eager), _as_np(opt)):
        np.testing.assert_array_equal(a, b)
    # Two sums of six terms (the weight's matmuls, the inputs' slices), each
    # started by a `+` and continued in place.
    calls = [line for line in src.splitlines() if "k_AddN(" in line]
    assert all(line.endswith("N=2)") for line in calls)     # pairs stay kernel calls
    assert src.count("uf_add(AddN") == 8


def _sums_out_of_order(a, b):
    x = a * 2.0
    y = a + b
    z = b * 3.0
    s1 = tf.add_n([z, x, y])          # terms made in another order than summed
    s2 = tf.add_n([x, x, z])          # a term twice: the kernel stays
    return s1, s2, x + 1.0            # x is read after the sums


def test_sums_keep_their_order_and_repeated_terms():
    rng = np.random.default_rng(6)
    a = tf.constant(rng.standard_normal((64, 40)).astype(np.float32))
    b = tf.constant(rng.standard_normal((64, 40)).astype(np.float32))
    plain, opt, src = run_both(_sums_out_of_order, a, b)
    for p, o in zip(_as_np(plain), _as_np(opt)):
        np.testing.assert_array_equal(p, o)
    an, bn = a.numpy(), b.numpy()
    x, y, z = an * np.float32(2), an + bn, bn * np.float32(3)
    np.testing.assert_array_equal(opt[0].numpy(), (z + x) + y)
    assert src.count("k_AddN(") == 1


def test_a_sum_of_a_result_written_into_a_transposed_operand_is_the_plain_sum():
    # DAG fuzz seed 921802 (minimized): `uf_multiply(mul_1, sub, out=mul_1)`
    # kept mul_1's transposed layout where the plain path's product is
    # row-major, and NumPy adds a strided array in memory order: the
    # gradient of the broadcast scalar differed in the last bit. Sums now
    # run over row-major values.
    rng = np.random.default_rng(921802)
    a = tf.constant(rng.standard_normal((4, 5, 52)).astype(np.float32) * 3)
    s = tf.constant(np.float32(0.5))

    def f(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            t = tf.sin(tf.transpose(tf.math.squared_difference(y, x), [2, 0, 1]))
            loss = tf.reduce_sum(t)
        return tape.gradient(loss, [x, y])
    plain, opt, src = run_both(f, a, s)
    assert "out=" in src                   # the product written into its operand
    eager = f(a, s)
    for p, o, e in zip(_as_np(plain), _as_np(opt), _as_np(eager)):
        np.testing.assert_array_equal(o.view(np.int32), p.view(np.int32))
        np.testing.assert_array_equal(e.view(np.int32), p.view(np.int32))
    # The same values summed from a transposed view or a new array: same bits.
    v = rng.standard_normal((64, 3, 50)).astype(np.float32)
    view = np.transpose(v, [2, 0, 1])
    np.testing.assert_array_equal(
        tf.reduce_sum(tf.constant(np.ascontiguousarray(view))).numpy().view(np.int32),
        tf.raw_ops.Sum(input=tf.transpose(tf.constant(v), [2, 0, 1]), axis=[0, 1, 2]
                       ).numpy().view(np.int32))
