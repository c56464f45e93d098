"""The compiler's joined op pairs (compiler/kernel_fusion.py): relu(x + bias)
and the relu's gradient through a max-pool each run as one kernel, and give
the plain path's bits (one kernel call per op), NaN, infinities, signed zeros
and ties included, with and without the jit extra's loops."""
import numpy as np
import pytest

import rillflow as tf

from helpers import canonical_bits, compare_with_pass_off, optimizations, passes_off


def _hostile(rng, shape, scale=1.0):
    """Small integers (ties in every window) with NaN, +-inf, -0 and +0."""
    x = rng.integers(-3, 4, shape).astype(np.float32) * np.float32(scale)
    flat = x.reshape(-1)
    for v, n in ((np.nan, 3), (np.inf, 2), (-np.inf, 2), (-0.0, 6), (0.0, 6)):
        flat[rng.integers(0, flat.size, n)] = v
    return x


def _compare(fn, *args):
    return compare_with_pass_off(fn, args, "kernel_fusion")


def _conv_step(add, pool=(2, 2, "VALID"), returns_h=False):
    k_, s_, pad = pool

    def step(x, k, b):
        with tf.GradientTape() as tape:
            tape.watch([x, k, b])
            c = tf.nn.conv2d(x, k, 1, "SAME")
            h = tf.nn.relu(add(c, b))
            p = tf.nn.max_pool2d(h, k_, s_, pad)
            loss = tf.reduce_sum(p * p * 0.5)
        out = [loss] + tape.gradient(loss, [x, k, b])
        return out + [h] if returns_h else out
    return step


ADDS = {"x + b": lambda c, b: c + b, "b + x": lambda c, b: b + c,
        "bias_add": lambda c, b: tf.nn.bias_add(c, b)}


@pytest.mark.parametrize("add", sorted(ADDS))
@pytest.mark.parametrize("shape", [(4, 12, 12, 3), (3, 9, 11, 5)])
def test_conv_bias_relu_max_pool_step_joins_both_pairs(add, shape):
    rng = np.random.default_rng(len(add) * 7 + shape[1])
    x = tf.constant(_hostile(rng, shape))
    k = tf.constant(rng.integers(-2, 3, (3, 3, shape[3], 6)).astype(np.float32))
    b = tf.constant(_hostile(rng, (6,)))
    src = _compare(_conv_step(ADDS[add]), x, k, b)
    assert "k_BiasRelu(" in src and "k_MaxPoolGradRelu(" in src
    assert "k_Relu(" not in src and "k_ReluGrad(" not in src and "MaxPoolGrad(" not in \
        src.replace("k_MaxPoolGradRelu(", "")


@pytest.mark.parametrize("pool", [(2, 2, "SAME"), (3, 2, "SAME"), (3, 3, "VALID"),
                                  (2, 3, "VALID")])
def test_windows_that_overlap_or_leave_elements_out(pool):
    """Overlapping windows take the two kernels; windows that skip rows and
    columns leave +0 there (the relu's buffer is not written over)."""
    rng = np.random.default_rng(sum(map(hash, pool[:2])) % 1000)
    x = tf.constant(_hostile(rng, (2, 11, 10, 4)))
    k = tf.constant(rng.integers(-2, 3, (3, 3, 4, 8)).astype(np.float32))
    b = tf.constant(_hostile(rng, (8,)))
    src = _compare(_conv_step(ADDS["x + b"], pool), x, k, b)
    assert "k_MaxPoolGradRelu(" in src


def test_a_returned_relu_is_not_written_over():
    rng = np.random.default_rng(4)
    x = tf.constant(_hostile(rng, (2, 8, 8, 3)))
    k = tf.constant(rng.integers(-2, 3, (3, 3, 3, 8)).astype(np.float32))
    b = tf.constant(_hostile(rng, (8,)))
    step = _conv_step(ADDS["x + b"], returns_h=True)
    src = _compare(step, x, k, b)
    assert "k_MaxPoolGradRelu(" in src and "out=Relu)" not in src
    h = canonical_bits([tf.function(step)(x, k, b)[-1]])[0]
    with optimizations(False):
        np.testing.assert_array_equal(h, canonical_bits([tf.function(step)(x, k, b)[-1]])[0])


def test_a_sum_read_elsewhere_stays_unjoined():
    """conv + b also returned: the add is materialized and the relu is its own op."""
    rng = np.random.default_rng(5)
    x = tf.constant(_hostile(rng, (2, 6, 6, 2)))
    k = tf.constant(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
    b = tf.constant(rng.standard_normal(4).astype(np.float32))

    def fn(x, k, b):
        s = tf.nn.conv2d(x, k, 1, "SAME") + b
        return tf.nn.relu(s), s
    src = _compare(fn, x, k, b)
    assert "k_BiasRelu(" not in src and "k_Relu(" in src


def test_dense_relu_and_odd_sizes():
    """relu(x @ w + b) joined too; sizes that are not whole 8-lane packets
    keep the relu's scalar tail rule (-0 stays -0 there)."""
    rng = np.random.default_rng(6)
    for rows, cols in ((37, 29), (5, 3), (64, 128)):
        xv = _hostile(rng, (rows, 7))
        w = tf.constant(rng.integers(-2, 3, (7, cols)).astype(np.float32))
        bv = _hostile(rng, (cols,))
        bv[-1] = -0.0
        xv[-1] = 0.0      # the last row's sums are -0 + ... in the tail
        src = _compare(lambda x, w, b: [tf.nn.relu(tf.matmul(x, w) + b)], tf.constant(xv), w,
                       tf.constant(bv))
        assert "k_BiasRelu(" in src


def test_joined_kernels_without_the_jit_loops():
    """The kernels give the same bits when the jit extra's loops are absent
    (the two ops' own kernels, one after the other) as with them."""
    pytest.importorskip("numba")
    from rillflow.ops.nn import fused_kernels as F, jit_nn
    if jit_nn.wait() != "on":
        pytest.skip("jit extra turned off: " + jit_nn.status())
    loops = jit_nn.LOAD.value
    rng = np.random.default_rng(7)
    for shape, pool in (((3, 9, 11, 5), (2, 2, "VALID")), ((2, 8, 8, 16), (2, 2, "VALID")),
                        ((2, 7, 7, 3), (2, 2, "SAME")), ((2, 7, 7, 3), (3, 2, "SAME"))):
        x = _hostile(rng, shape)
        b = _hostile(rng, shape[-1:])
        K, S = [1, pool[0], pool[0], 1], [1, pool[1], pool[1], 1]
        results = []
        for use in (True, False):
            jit_nn.LOAD.value = loops if use else None
            try:
                r = F.bias_relu(x, b)
                y = tf.nn.max_pool2d(r, pool[0], pool[1], pool[2]).numpy()
                g = _hostile(np.random.default_rng(3), y.shape, 0.5)
                own = r.copy()      # its buffer may take the gradient
                results.append([r, F.max_pool_grad_relu(r, y, g, K, S, pool[2]),
                                F.max_pool_grad_relu(own, y, g, K, S, pool[2], out=own)])
            finally:
                jit_nn.LOAD.value = loops
        for a, c in zip(*results):
            np.testing.assert_array_equal(*canonical_bits([a, c]))
        np.testing.assert_array_equal(*canonical_bits([results[0][1], results[0][2]]))


def test_the_pass_can_be_switched_off_and_falls_back_alone():
    from rillflow.compiler import fallback
    assert "kernel_fusion" in fallback.PASSES
    rng = np.random.default_rng(8)
    x = tf.constant(rng.standard_normal((2, 6, 6, 2)).astype(np.float32))
    k = tf.constant(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
    b = tf.constant(rng.standard_normal(4).astype(np.float32))
    with passes_off("kernel_fusion"):
        f = tf.function(_conv_step(ADDS["x + b"]))
        f(x, k, b)
        src = f.get_concrete_function(x, k, b).generated_source
    assert "k_BiasRelu(" not in src and "k_MaxPoolGradRelu(" not in src


def _bn_relu_step(residual):
    def step(x, k, gamma, beta):
        with tf.GradientTape() as tape:
            tape.watch([x, k, gamma, beta])
            c = tf.nn.conv2d(x, k, 1, "SAME")
            m, v = tf.nn.moments(c, [0, 1, 2])
            y = tf.nn.batch_normalization(c, m, v, beta, gamma, 1e-3)
            if residual:
                y = y + x
            h = tf.nn.relu(y)
            loss = tf.reduce_sum(h * h)
        return [loss, h] + tape.gradient(loss, [x, k, gamma, beta])
    return step


@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("shape", [(4, 6, 6, 8), (3, 5, 7, 8)])
def test_batch_norm_relu_and_residual_joined(residual, shape):
    """x * inv + shift before a relu (batch normalization's) runs as one
    kernel, with a residual skip connection too; the plain path's bits."""
    rng = np.random.default_rng(shape[1] * 10 + residual)
    x = tf.constant(_hostile(rng, shape))
    k = tf.constant(rng.integers(-2, 3, (3, 3, shape[3], shape[3])).astype(np.float32))
    gamma = tf.constant(_hostile(rng, shape[-1:]))
    beta = tf.constant(_hostile(rng, shape[-1:]))
    src = _compare(_bn_relu_step(residual), x, k, gamma, beta)
    assert ("k_ScaleBiasAddRelu(" if residual else "k_ScaleBiasRelu(") in src


def test_scale_read_elsewhere_keeps_the_product():
    rng = np.random.default_rng(9)
    x = tf.constant(_hostile(rng, (5, 9)))
    s = tf.constant(_hostile(rng, (9,)))
    b = tf.constant(_hostile(rng, (9,)))

    def fn(x, s, b):
        p = x * s
        return [tf.nn.relu(p + b), p]
    src = _compare(fn, x, s, b)
    assert "k_ScaleBiasRelu(" not in src and "k_BiasRelu(" in src


def test_scaled_kernels_without_the_jit_loops():
    pytest.importorskip("numba")
    from rillflow.ops.nn import fused_kernels as F, jit_nn
    if jit_nn.wait() != "on":
        pytest.skip("jit extra turned off: " + jit_nn.status())
    loops = jit_nn.LOAD.value
    rng = np.random.default_rng(10)
    for shape in ((3, 9, 11, 5), (2, 8, 8, 16), (37, 3)):
        x, r = _hostile(rng, shape), _hostile(rng, shape)
        s, b = _hostile(rng, shape[-1:]), _hostile(rng, shape[-1:])
        results = []
        for use in (True, False):
            jit_nn.LOAD.value = loops if use else None
            try:
                own = x.copy()
                results.append([F.scale_bias_relu(x, s, b), F.scale_bias_add_relu(x, s, b, r),
                                F.scale_bias_add_relu(own, s, b, r, out=own)])
            finally:
                jit_nn.LOAD.value = loops
        for a, c in zip(*results):
            np.testing.assert_array_equal(np.isnan(a), np.isnan(c))
            ok = ~np.isnan(a)
            np.testing.assert_array_equal(a[ok].view(np.int32), c[ok].view(np.int32))


def test_loops_in_place_give_the_bits_of_loops_into_another_array():
    """The `*_inplace` loops (one array read and written, so that LLVM
    vectorizes them) against the same loops writing a separate array, on
    -0, NaN, inf and sizes with a tail of 1 to 7 elements."""
    pytest.importorskip("numba")
    from rillflow.ops.nn import jit_nn
    if jit_nn.wait() != "on":
        pytest.skip("jit extra turned off: " + jit_nn.status())
    L = jit_nn.LOAD.value
    rng = np.random.default_rng(11)
    for shape in ((3, 9, 11, 5), (2, 8, 8, 16), (37, 3), (1, 7), (4096, 32)):
        x, r = _hostile(rng, shape), _hostile(rng, shape)
        c = shape[-1]
        s, b = _hostile(rng, (c,)), _hostile(rng, (c,))
        x2, r2 = x.reshape(-1, c), r.reshape(-1, c)
        cases = [("relu", (x.ravel(),), ()), ("relu_grad", (x.ravel(),), (r.ravel(),)),
                 ("bias_relu", (x2,), (b,)), ("scale_bias_relu", (x2,), (s, b)),
                 ("scale_bias_add_relu", (x2,), (s, b, r2))]
        for name, (a,), rest in cases:
            want = np.empty_like(a)
            L[name](a, *rest, want)
            got = a.copy()
            L[name + "_inplace"](got, *rest)
            np.testing.assert_array_equal(*canonical_bits([got, want]), err_msg=name)
