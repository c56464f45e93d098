"""The compiler: optimizations preserve semantics (a differential test of a
corpus of graphs with and without them), and the generated code is what we
expect (specialized expressions, CSE, pruning, fusion, readable source)."""

import numpy as np
import pytest

import rillflow as tf
from rillflow.compiler import fusion
from helpers import optimizations
from kernel_modes import default_products
from rillflow.ops.kernels import threads


def run_both(fn, *args):
    with optimizations(False):
        plain = tf.function(fn)(*args)
    with optimizations(True):
        opt_fn = tf.function(fn)
        opt = opt_fn(*args)
    return plain, opt, opt_fn


def as_np(x):
    if isinstance(x, (list, tuple)):
        return [as_np(v) for v in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _arith(x, y):
    a = x * y + x / (y + 1.0) - tf.maximum(x, y) ** 2.0
    b = x * y + x / (y + 1.0)   # CSE with a's first half
    return a, b, -a, tf.cast(a, tf.int32), tf.cast(x > y, tf.float32)


def _int_ops(a, b):
    return a // 3, a % 4, a * b - b, a ** 2, tf.minimum(a, b), a // b


def _slices(x, i):
    return x[i], x[1:3], x[::-1], x[i, 1:], x[..., 0], x[:, None, 2], x[-1, -2]


def _matmuls(a, b):
    return tf.matmul(a, b), tf.matmul(a, b, transpose_a=True), tf.matmul(a, b, transpose_b=True)


def _control(n, x):
    total = x * 0.0
    for i in tf.range(n):
        if i % 2 == 0:
            total = total + x[i % 3]
        else:
            total = total - 1.0
    return total


def _grads(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.tanh(x) * x + tf.sin(x) ** 2)
    return y, tape.gradient(y, x)


def _fused(x):
    big = tf.tanh(x) * 2.0 + tf.sin(x) ** 2.0 - x / 3.0
    other = tf.maximum(big, 0.0) + tf.exp(-x * x)
    return big, other, tf.reduce_sum(other)


def _variables(v, x):
    v.assign_add(x * 2.0)
    v.assign_sub(x)
    return v.read_value() + 0.0


CORPUS = [
    (_arith, lambda: (tf.constant([1.5, -2.0, 3.0]), tf.constant([0.5, 4.0, -1.5]))),
    (_int_ops, lambda: (tf.constant([7, -9, 12]), tf.constant([2, 5, -3]))),
    (_slices, lambda: (tf.constant(np.arange(24).reshape(4, 6)), tf.constant(2))),
    (_matmuls, lambda: (tf.constant(np.arange(9.0).reshape(3, 3)),
                        tf.constant(np.eye(3) * 2.0))),
    (_control, lambda: (tf.constant(7), tf.constant([1.0, 2.0, 3.0]))),
    (_grads, lambda: (tf.constant(np.linspace(-2, 2, 5)),)),
    (_fused, lambda: (tf.constant(np.linspace(-3, 3, 1 << 17).astype(np.float32)),)),
]


@pytest.mark.parametrize("fn,make_args", CORPUS, ids=[f.__name__ for f, _ in CORPUS])
def test_optimized_and_unoptimized_code_agree(fn, make_args):
    plain, opt, _ = run_both(fn, *make_args())
    for a, b in zip(as_np(plain), as_np(opt)):
        np.testing.assert_array_equal(a, b)


def test_variables_agree_with_and_without_optimizations():
    results = []
    for on in (False, True):
        v = tf.Variable([1.0, 2.0])
        with optimizations(on):
            f = tf.function(_variables)
            r = f(v, tf.constant([0.5, 0.5]))
            r = f(v, tf.constant([0.5, 0.5]))
        results.append((r.numpy(), v.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], [2.0, 3.0])


def test_specialized_expressions_cse_and_pruning():
    _, _, f = run_both(_arith, tf.constant([1.0]), tf.constant([2.0]))
    src = f.get_concrete_function(tf.constant([1.0]), tf.constant([2.0])).generated_source
    assert "mul = x * y" in src
    assert src.count("x * y") == 1          # the repeated subexpression is computed once
    assert "k_Mul" not in src and "k_AddV2" not in src


def test_slices_become_python_indexing_and_index_math_is_pruned():
    @tf.function
    def f(x, i):
        return x[i] + x[i + 1]
    src = f.get_concrete_function(tf.constant(np.zeros((4, 3))), tf.constant(1)).generated_source
    assert "x[i]" in src and "Pack" not in src


def test_fusion_applies_to_large_elementwise_chains_only():
    _, _, f = run_both(_fused, tf.constant(np.zeros(1 << 17, np.float32)))
    src = f.get_concrete_function(tf.constant(np.zeros(1 << 17, np.float32))).generated_source
    assert "def fused_" in src and "run_chunks" in src
    small = tf.function(lambda x: tf.tanh(x) * 2.0 + 1.0)
    assert "fused_" not in small.get_concrete_function(tf.constant([1.0])).generated_source


@pytest.mark.parametrize("e", [2.0, 3.0, 0.5, -0.5, -1.0, 1.5])
def test_fused_chains_keep_the_constant_powers_graph_rewrites(e):
    # A fused chain took every one-input Pow template for x * x: x ** -1,
    # x ** 0.5, x ** 3 (TensorFlow's Reciprocal, Sqrt, x * Square(x)) came
    # out as x ** 2 (DAG fuzz seed 932384: the gradient of pow(x, 0)).
    x = tf.constant(np.linspace(0.5, 3.0, 1 << 17, dtype=np.float32))
    plain, opt, f = run_both(lambda t: tf.sin(t) * t ** e + 1.0, x)
    assert "def fused_" in f.get_concrete_function(x).generated_source
    np.testing.assert_array_equal(opt.numpy().view(np.int32), plain.numpy().view(np.int32))
    want = np.sin(x.numpy().astype(np.float64)) * x.numpy().astype(np.float64) ** e + 1.0
    np.testing.assert_allclose(opt.numpy(), want, rtol=1e-5, atol=1e-6)


def test_run_chunks_covers_every_index_once():
    hits = np.zeros(fusion.CHUNK * 9 + 17, np.int64)

    def work(lo, hi):
        hits[lo:hi] += 1
    fusion.run_chunks(work, len(hits))
    assert hits.min() == 1 and hits.max() == 1


def test_fused_chains_stay_on_the_calling_thread_in_functions_that_call_blas():
    # OpenBLAS's idle threads spin after a GEMM: chunks handed to a kernel
    # thread would compete with them. Same results either way. (With
    # RILLFLOW_BLAS_THREADS=kernels OpenBLAS has no idle threads: they spread.)
    x = np.linspace(-3, 3, 1 << 17, dtype=np.float32)
    w = np.full((1 << 9, 4), 0.5, np.float32)

    def chain(t):
        return tf.tanh(t) * 2.0 + tf.sin(t) ** 2 - t / 3.0
    plain = tf.function(chain)
    with_gemm = tf.function(lambda t, m: (chain(t), tf.matmul(tf.reshape(t, [-1, 512]), m)))

    def looped(t, m):
        return chain(t), tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a @ a),
                                       (0, m))[1]
    in_loop = tf.function(looped)

    def switched(t, m, k):
        return chain(t), tf.switch_case(k, [lambda: m @ m, lambda: m + m])
    in_case = tf.function(switched)
    xt, wt, sq = tf.constant(x), tf.constant(w), tf.constant(np.eye(4, dtype=np.float32))
    globals_of = lambda f, *a: f.get_concrete_function(*a)._ensure_compiled().fn.__globals__
    serial = fusion.run_chunks if threads.spreading() else fusion.run_chunks_serial
    assert globals_of(plain, xt)["run_chunks"] is fusion.run_chunks
    assert globals_of(with_gemm, xt, wt)["run_chunks"] is serial
    assert globals_of(in_loop, xt, sq)["run_chunks"] is serial
    assert globals_of(in_case, xt, sq, tf.constant(1))["run_chunks"] is serial
    want = plain(xt).numpy()
    np.testing.assert_array_equal(with_gemm(xt, wt)[0].numpy(), want)
    np.testing.assert_array_equal(in_loop(xt, sq)[0].numpy(), want)


def test_errors_in_fused_kernels_and_expressions_keep_tensorflow_classes():
    @tf.function
    def f(x, i):
        return x[i]
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"slice index 7 of dimension 0 out of bounds\. \[\[\{\{node "
                             r"strided_slice\}\}\]\](.|\n)*return x\[i\]"):
        f(tf.constant([1, 2, 3]), tf.constant(7))


def test_zeros_and_ones_like_of_known_shapes_are_constants():
    @tf.function
    def f(x, n):
        dynamic = tf.fill([n], 2.0)
        return tf.ones_like(x * 2), tf.zeros_like(x, dtype=tf.int32), tf.ones_like(dynamic)
    x, n = tf.constant([[1.5, 2.5]]), tf.constant(3)
    src = f.get_concrete_function(x, n).generated_source
    assert "k_OnesLike(mul" not in src and "k_ZerosLike" not in src and "mul = " not in src
    assert "k_OnesLike(" in src          # the shape known only at run time
    ones, zeros, dyn = f(x, n)
    assert ones.dtype == tf.float32 and zeros.dtype == tf.int32
    np.testing.assert_array_equal(ones.numpy(), [[1.0, 1.0]])
    np.testing.assert_array_equal(zeros.numpy(), [[0, 0]])
    np.testing.assert_array_equal(dyn.numpy(), [1.0, 1.0, 1.0])


def test_shapes_that_clash_at_run_time_read_as_tensorflow_says():
    spec = tf.TensorSpec([None, None], tf.float32)

    @tf.function(input_signature=[spec, spec])
    def f(x, y):
        return x * y - 1.0
    assert "x * y" in f.get_concrete_function().generated_source
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Incompatible shapes: \[2,3\] vs\. \[3,2\] \[\[\{\{node mul\}\}\]\]"):
        f(tf.ones([2, 3]), tf.ones([3, 2]))


def test_equality_of_unbroadcastable_run_time_shapes_is_false_when_compiled():
    spec = tf.TensorSpec([None], tf.int32)

    @tf.function(input_signature=[spec, spec])
    def f(x, y):
        return x == y, x != y
    eq, ne = f(tf.constant([1, 2, 3]), tf.constant([1, 2]))
    assert eq.shape == () and not bool(eq) and bool(ne)
    eq, _ = f(tf.constant([1, 2, 3]), tf.constant([1, 5, 3]))
    assert eq.numpy().tolist() == [True, False, True]


@default_products
def test_transposed_float_matmuls_are_expressions_with_the_same_bits():
    a = tf.constant(np.arange(12.0, dtype=np.float32).reshape(3, 4) / 7)
    b = tf.constant(np.arange(12.0, dtype=np.float32).reshape(3, 4) / 3)
    plain, opt, f = run_both(lambda a, b: (tf.matmul(a, b, transpose_a=True),
                                           tf.matmul(a, b, transpose_b=True)), a, b)
    for x, y in zip(as_np(plain), as_np(opt)):
        np.testing.assert_array_equal(x, y)
    src = f.get_concrete_function(a, b).generated_source
    assert "a.T @ b" in src and "a @ b.T" in src and "k_MatMul" not in src


def test_scalar_inputs_that_loops_read_become_numpy_scalars_on_entry():
    @tf.function
    def f(x, n, scale):
        acc = tf.zeros_like(x)
        for _ in tf.range(n):
            acc = acc + x * scale
        return acc, n, scale
    x = tf.constant([1.0, 2.0])
    src = f.get_concrete_function(x, tf.constant(3), tf.constant(0.5)).generated_source
    assert "    n = n[()] if" in src and "scale = scale[()] if" in src and "x = x[()]" not in src
    acc, n, scale = f(x, tf.constant(3), tf.constant(0.5))
    np.testing.assert_array_equal(acc.numpy(), [1.5, 3.0])
    assert (n.dtype, n.shape, n.numpy()) == (tf.int32, (), 3)
    assert (scale.dtype, scale.shape, float(scale.numpy())) == (tf.float32, (), 0.5)
    acc0, _, _ = f(x, tf.constant(0), tf.constant(0.5))
    np.testing.assert_array_equal(acc0.numpy(), [0.0, 0.0])


def _in_place_cases():
    big = np.arange(64 * 32, dtype=np.float32).reshape(64, 32) / 100.0
    w = np.eye(32, dtype=np.float32) * 0.5
    return big, w


@default_products
def test_dead_products_and_variable_updates_reuse_their_buffers():
    big, w = _in_place_cases()
    v = tf.Variable(big)

    def step(x, w):
        g = tf.matmul(x, w)           # fresh, read once: the product reuses it
        v.assign_sub(0.1 * g)         # and the update reuses that
        return v.read_value() + 1.0
    plain_v = tf.Variable(big)

    def plain_step(x, w):
        g = tf.matmul(x, w)
        plain_v.assign_sub(0.1 * g)
        return plain_v.read_value() + 1.0
    x, wt = tf.constant(big), tf.constant(w)
    f = tf.function(step)
    src = f.get_concrete_function(x, wt).generated_source
    assert "uf_multiply(" in src and "uf_subtract(" in src and "out=MatMul" in src
    with optimizations(False):
        want = tf.function(plain_step)(x, wt)
    got = f(x, wt)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(v.numpy(), plain_v.numpy())
    np.testing.assert_array_equal(x.numpy(), big)       # inputs untouched
    got2 = f(x, wt)
    with optimizations(False):
        want2 = tf.function(plain_step)(x, wt)
    np.testing.assert_array_equal(got2.numpy(), want2.numpy())


def _no_reuse_cases(x, w, flag):
    m = tf.matmul(x, w)
    kept = m * 2.0                    # m is read again below: not free here
    y = m + kept
    n = tf.matmul(x, w) + 1.0
    passed = tf.cond(flag, lambda: n, lambda: n * 3.0)  # a branch may return n itself
    z = n * 2.0                       # so n is not free, even at its last read
    row = x[0] * 2.0                  # a view of an input
    inp = x * 3.0                     # an input
    return y, passed, z, row, inp


@default_products
def test_buffers_that_are_not_free_are_not_reused():
    big, w = _in_place_cases()
    args = (tf.constant(big), tf.constant(w), tf.constant(True))
    plain, opt, f = run_both(_no_reuse_cases, *args)
    for a, b in zip(as_np(plain), as_np(opt)):
        np.testing.assert_array_equal(a, b)
    src = f.get_concrete_function(*args).generated_source
    # Two reuses (`y` into `kept`, `n` into the matmul that CSE shares with
    # `m`, read there for the last time); `z` must not reuse `n`, which the
    # cond passes through: the comparison above would see `passed` change.
    assert src.count("out=") == 2 and "out=x" not in src and "out=strided" not in src
    np.testing.assert_array_equal(args[0].numpy(), big)


def test_rows_of_stacked_loop_values_are_not_written_in_place():
    xs = np.random.default_rng(0).standard_normal((6, 32, 64)).astype(np.float32)
    w = (np.eye(64) * 0.5).astype(np.float32)

    def loop(xs, w):
        acc = tf.zeros([32, 64])
        for t in tf.range(6):
            acc = acc + tf.matmul(xs[t], w) * 2.0
        return acc
    plain, opt, f = run_both(loop, tf.constant(xs), tf.constant(w))
    np.testing.assert_array_equal(plain.numpy(), opt.numpy())
    np.testing.assert_allclose(opt.numpy(), (xs @ w * 2.0).sum(0), rtol=1e-5)
    assert "_stacked[" in f.get_concrete_function(tf.constant(xs), tf.constant(w)).generated_source
