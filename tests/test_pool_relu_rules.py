"""Pooling and relu follow TensorFlow's CPU kernels' rules on ties, NaN,
signed zeros and the order of additions (checked against TensorFlow 2.21;
the expected values below are what it printed). Random inputs are compared
with loop-by-loop references written from those kernels' algorithms."""
import numpy as np
import pytest

import rillflow as tf

LOWEST = float(np.finfo(np.float32).min)


def _pool(kind, x, k, s, padding):
    x = tf.constant(np.asarray(x, np.float32))
    with tf.GradientTape() as t:
        t.watch(x)
        fn = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
        y = fn(x, k, s, padding)
    return y.numpy(), t.gradient(y, x).numpy()


def _row(vals):
    return np.asarray(vals, np.float32).reshape(1, 1, -1, 1)


def _signs(a):
    return [("-" if np.signbit(v) else "+") if v == 0 else v for v in np.ravel(a).tolist()]


def test_max_pool_ties_nan_and_lowest_as_tensorflow():
    inf = np.inf
    y, g = _pool("max", _row([-inf, -inf, -0., 0., 0., -0., np.nan, -inf, 1, 1]), [1, 2],
                 [1, 2], "VALID")
    # The first of equal values wins; NaN never does; nothing greater than
    # the lowest finite value leaves it.
    assert _signs(y) == [LOWEST, "-", "+", LOWEST, 1.0]
    assert g.ravel().tolist() == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]


def test_max_pool_grad_leading_nan_keeps_the_gradient():
    y, g = _pool("max", _row([np.nan, 2, 3, np.nan, 5]), [1, 2], [1, 2], "SAME")
    assert y.ravel().tolist() == [2.0, 3.0, 5.0]
    assert g.ravel().tolist() == [1, 0, 1, 0, 1]
    y, g = _pool("max", _row([np.nan, 2, 3, np.nan, 5, 1, 1]), [1, 3], [1, 2], "SAME")
    assert y.ravel().tolist() == [2.0, 3.0, 5.0, 1.0]
    assert g.ravel().tolist() == [1, 0, 1, 1, 0, 1, 0]


def test_max_pool_grad_of_minus_zero_is_plus_zero():
    # TensorFlow 2.21 adds each window's gradient to zeros, also where the
    # windows are apart: 0 + (-0) is +0 everywhere (eager and tf.function).
    x = tf.constant(_row([1., 3., 2., 0.]))
    y = tf.nn.max_pool2d(x, [1, 2], [1, 2], "VALID")
    g = tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=y, grad=tf.constant(_row([-0., -0.])),
                               ksize=[1, 1, 2, 1], strides=[1, 1, 2, 1], padding="VALID")
    assert _signs(g) == ["+", "+", "+", "+"]


def test_max_pool_grad_routes_only_the_gradient_of_the_max():
    x = tf.constant(_row([1., 2., 3., 4.]))
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.nn.max_pool2d(x, [1, 2], [1, 2], "VALID")
    g = t.gradient(y, x, output_gradients=tf.constant(_row([np.inf, -1.])))
    assert _signs(g) == ["+", np.inf, "+", -1.0]


def _windows(n_in, k, s, padding):
    """[(start, stop)] of each window's real elements along one axis."""
    if padding == "SAME":
        out = -(-n_in // s)
        before = max((out - 1) * s + k - n_in, 0) // 2
    else:
        out, before = (n_in - k) // s + 1, 0
    return [(max(o * s - before, 0), min(o * s - before + k, n_in)) for o in range(out)]


def _ref_max(x, g, k, s, padding):
    """TensorFlow's MaxPool and MaxPoolGrad loops, one element at a time."""
    n, h, w, c = x.shape
    rows, cols = _windows(h, k[0], s[0], padding), _windows(w, k[1], s[1], padding)
    y = np.full((n, len(rows), len(cols), c), LOWEST, np.float32)
    dx = np.zeros_like(x)
    for b in range(n):
        for oi, (r0, r1) in enumerate(rows):
            for oj, (c0, c1) in enumerate(cols):
                for d in range(c):
                    best, arg = None, None
                    for r in range(r0, r1):
                        for q in range(c0, c1):
                            v = x[b, r, q, d]
                            if y[b, oi, oj, d] < v:
                                y[b, oi, oj, d] = v
                            if arg is None or best < v:
                                best, arg = v, (r, q)
                    dx[b, arg[0], arg[1], d] += g[b, oi, oj, d]
    return y, dx


def _ref_avg(x, g, k, s, padding):
    """TensorFlow's AvgPool and (oneDNN's) AvgPoolGrad, one element at a time:
    the gradient shares reach an input from window rows in order and, within
    a row, from its columns in reverse."""
    n, h, w, c = x.shape
    rows, cols = _windows(h, k[0], s[0], padding), _windows(w, k[1], s[1], padding)
    y = np.zeros((n, len(rows), len(cols), c), np.float32)
    dx = np.zeros_like(x)
    for b in range(n):
        for oi, (r0, r1) in enumerate(rows):
            for oj in reversed(range(len(cols))):
                c0, c1 = cols[oj]
                count = np.float32((r1 - r0) * (c1 - c0))
                for d in range(c):
                    acc = np.float32(0)
                    for r in range(r0, r1):
                        for q in range(c0, c1):
                            acc = np.float32(acc + x[b, r, q, d])
                            dx[b, r, q, d] = np.float32(dx[b, r, q, d]
                                                        + np.float32(g[b, oi, oj, d] / count))
                    y[b, oi, oj, d] = acc / count
    return y, dx


@pytest.mark.parametrize("k,s,padding", [((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"),
                                         ((3, 2), (1, 2), "SAME"), ((2, 3), (3, 1), "VALID"),
                                         ((3, 3), (1, 1), "SAME")])
def test_pooling_matches_the_kernels_loops(k, s, padding):
    rng = np.random.default_rng(sum(k) * 10 + sum(s) + len(padding))
    # Small integers make ties; a few NaN, -0 and -inf make the rules matter.
    x = rng.integers(-3, 4, (2, 7, 6, 3)).astype(np.float32)
    x.ravel()[rng.integers(0, x.size, 6)] = np.nan
    x.ravel()[rng.integers(0, x.size, 6)] = -0.0
    x.ravel()[rng.integers(0, x.size, 3)] = -np.inf
    xt = tf.constant(x)
    for kind, ref in (("max", _ref_max), ("avg", _ref_avg)):
        fn = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
        with tf.GradientTape() as t:
            t.watch(xt)
            y = fn(xt, list(k), list(s), padding)
        g = rng.standard_normal(y.shape).astype(np.float32)
        dx = t.gradient(y, xt, output_gradients=tf.constant(g)).numpy()
        want_y, want_dx = ref(x, g, k, s, padding)
        np.testing.assert_array_equal(y.numpy().view(np.int32), want_y.view(np.int32))
        np.testing.assert_array_equal(dx.view(np.int32), want_dx.view(np.int32))


def test_integer_max_pool():
    x = tf.constant(np.array([3, -7, 5, 5, -128, -128], np.int8).reshape(1, 1, 6, 1))
    assert tf.nn.max_pool2d(x, [1, 2], [1, 2], "VALID").numpy().ravel().tolist() == [3, 5, -128]


@pytest.mark.parametrize("dtype,lanes", [(tf.float32, 8), (tf.float64, 4), (tf.float16, 0),
                                         (tf.bfloat16, 0)])
def test_relu_signed_zeros_as_tensorflow(dtype, lanes):
    n = 19
    v = np.full(n, -0.0)
    v[[3, n - 2]] = np.nan
    v[5], v[n - 3], v[7] = -2, -3, 9
    r = tf.nn.relu(tf.constant(v, dtype=dtype)).numpy().astype(np.float64)
    r6 = tf.nn.relu6(tf.constant(v, dtype=dtype)).numpy().astype(np.float64)
    tail = n - n % lanes if lanes else 0
    # TensorFlow's packets turn -0 into +0; its scalar tail (and half
    # precision) keeps -0; a negative number gives +0 everywhere.
    want = [np.nan if np.isnan(a) else (9.0 if a == 9 else (
        -0.0 if a == 0 and i >= tail else 0.0)) for i, a in enumerate(v)]
    for got, top in ((r, 9.0), (r6, 6.0)):
        w = [top if a == 9.0 else a for a in want]
        assert [str(a) for a in got] == [str(a) for a in w]


def test_relu_grad_multiplies_as_tensorflow():
    x = tf.constant([-1., -0., 0., 2., 7., np.inf, -np.inf, np.nan])
    g = tf.constant([-1., np.inf, np.nan, 2., -3, 5, 1, -2])
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        y, y6 = tf.nn.relu(x), tf.nn.relu6(x)
    assert str(_signs(t.gradient(y, x, g))) == str(["-", np.nan, np.nan, 2.0, -3.0, 5.0, "+",
                                                     "-"])
    assert str(_signs(t.gradient(y6, x, g))) == str(["-", np.nan, np.nan, 2.0, "-", "+", "+",
                                                      "-"])


def test_compiled_pooling_loops_give_the_numpy_kernels_bits():
    pytest.importorskip("numba")
    from rillflow.ops.nn import jit_nn, pool_kernels as P
    if jit_nn.wait() != "on":
        pytest.skip("jit extra turned off: " + jit_nn.status())
    loops = jit_nn.LOAD.value
    rng = np.random.default_rng(11)
    for k, s, pad in [((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"),
                      ((3, 2), (1, 2), "SAME"), ((2, 3), (3, 1), "VALID"),
                      ((3, 3), (1, 1), "SAME"), ((5, 4), (2, 3), "SAME"),
                      ((2, 2), (3, 3), "SAME"), ((2, 2), (2, 2), "SAME")]:
        # (2, 8, 6, 16): 2x2 windows tile it exactly (max_pool_grad_disjoint
        # writes every element, no zeroing pass).
        for shape in ((3, 9, 8, 5), (2, 7, 6, 16), (1, 3, 2, 1), (2, 8, 6, 16)):
            x = rng.integers(-3, 4, shape).astype(np.float32)
            x.ravel()[rng.integers(0, x.size, 6)] = np.nan
            x.ravel()[rng.integers(0, x.size, 6)] = -0.0
            x.ravel()[rng.integers(0, x.size, 3)] = -np.inf
            K, S = [1, *k, 1], [1, *s, 1]
            got, want = [], []
            for use in (True, False):
                jit_nn.LOAD.value = loops if use else None
                try:
                    y = P.max_pool(x, K, S, pad)
                    g = np.random.default_rng(3).standard_normal(y.shape).astype(np.float32)
                    g.ravel()[::7] = -0.0
                    (got if use else want).extend([
                        y, P.max_pool_grad(x, g, K, S, pad), P.avg_pool(x, K, S, pad),
                        P.avg_pool_grad(x.shape, g, K, S, pad)])
                finally:
                    jit_nn.LOAD.value = loops
            for a, b in zip(got, want):
                np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))


def _zero_signs(t):
    return "".join("-" if np.signbit(v) else "+" for v in np.ravel(t.numpy()).astype(np.float64))


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.float16])
def test_maximum_minimum_zero_ties_as_tensorflow(dtype):
    # TensorFlow 2.21: a tie of -0 and +0 gives the second operand in
    # float32/float64 packets, the first in the scalar tail, 0-d tensors and
    # half precision.
    lanes = {tf.float32: 8, tf.float64: 4}.get(dtype, 0)
    for n in (0, 1, 2, 5, 8, 9, 17):
        shape = [] if n == 0 else [n]
        m = max(n, 1)
        neg = tf.constant(np.full(m, -0.0).reshape(shape), dtype)
        pos = tf.constant(np.zeros(m).reshape(shape), dtype)
        tail = m if n == 0 or not lanes else m % lanes
        for fn in (tf.maximum, tf.minimum):
            assert _zero_signs(fn(neg, pos)) == "+" * (m - tail) + "-" * tail
            assert _zero_signs(fn(pos, neg)) == "-" * (m - tail) + "+" * tail
    nan = tf.constant([np.nan, 1.0, 2.0], dtype)
    one = tf.constant([1.0, np.nan, 3.0], dtype)
    assert str(tf.maximum(nan, one).numpy().tolist()) == "[nan, nan, 3.0]"


def test_compiled_relu_loops_give_the_numpy_kernels_bits():
    pytest.importorskip("numba")
    from rillflow.ops.nn import activations as A, jit_nn
    if jit_nn.wait() != "on":
        pytest.skip("jit extra turned off: " + jit_nn.status())
    loops = jit_nn.LOAD.value
    rng = np.random.default_rng(12)
    for n in (1, 7, 8, 1029, 4096):
        x = rng.integers(-3, 4, n).astype(np.float32)
        g = rng.standard_normal(n).astype(np.float32)
        for a in (x, g):
            a[rng.integers(0, n, 3)] = -0.0
            a[rng.integers(0, n, 2)] = np.nan
            a[rng.integers(0, n, 2)] = -np.inf
        x[-1] = -0.0                            # the tail keeps -0
        results = []
        for use in (True, False):
            jit_nn.LOAD.value = loops if use else None
            try:
                results.append((A._relu_kernel(x), A._relu_grad_kernel(g, x),
                                A._relu_kernel(x.reshape(-1, 1)[::-1])))
            finally:
                jit_nn.LOAD.value = loops
        for a, b in zip(*results):
            np.testing.assert_array_equal(a.view(np.int32), b.view(np.int32))
