"""The loop passes of the compiler. loop_batch.py: ops indexed by a counted
loop's counter run once, stacked, ahead of the loop, with the same bits as
per iteration, and only where no iteration's behaviour could change.
loop_invariant.py: loop-invariant ops run in the first iteration only."""
import numpy as np
import pytest

import rillflow as tf
from rillflow.compiler import loop_batch
from test_compiler import as_np, run_both
from kernel_modes import default_products


RNG = np.random.default_rng(7)
XS = RNG.standard_normal((12, 4, 5)).astype(np.float32)
W = RNG.standard_normal((5, 5)).astype(np.float32)
B = RNG.standard_normal((5,)).astype(np.float32)


def _rnn(xs, w, b):
    h = tf.zeros([4, 5])
    states = tf.TensorArray(tf.float32, size=12)
    for t in tf.range(12):
        h = tf.tanh(tf.matmul(xs[t], w) + b + tf.matmul(h, w))
        states = states.write(t, h)
    return states.stack()


def _strided(xs, w, b):
    acc = tf.zeros([4, 5])
    for t in tf.range(1, 11, 3):
        acc = acc + tf.sin(xs[t] * 2.0 - b) + tf.matmul(xs[t], w)
    return acc


def _break_early(xs, w, b):
    acc = tf.zeros([4, 5])
    for t in tf.range(12):
        acc = acc + tf.matmul(xs[t], w)
        if tf.reduce_sum(acc) > 3.0:
            break
    return acc


def _dynamic_limit(xs, w, n):
    acc = tf.zeros([4, 5])
    for t in tf.range(n):
        acc = acc + tf.matmul(xs[t], w)
    return acc


CASES = [(_rnn, (XS, W, B)), (_strided, (XS, W, B)), (_break_early, (XS, W, B))]


def _source(fn, *args):
    return tf.function(fn).get_concrete_function(*args).generated_source


@pytest.mark.parametrize("fn,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_same_bits_as_per_iteration(fn, args):
    plain, opt, _ = run_both(fn, *[tf.constant(a) for a in args])
    np.testing.assert_array_equal(as_np(plain), as_np(opt))


@default_products
def test_rnn_input_projection_runs_once_before_the_loop():
    src = _source(_rnn, *[tf.constant(a) for a in (XS, W, B)])
    head, loop = src.split("while True:")
    assert "xs[:12]" in head and "@ w" in head and "+ b" in head
    assert "MatMul = " not in loop   # the body reads a row instead
    assert "_stacked[while_0]" in loop
    # The recurrent matmul and tanh still run per iteration.
    assert "@ w" in loop and ("k_Tanh(" in loop or "tanh_jit(" in loop)


def test_start_and_step_index_the_stacked_rows():
    src = _source(_strided, *[tf.constant(a) for a in (XS, W, B)])
    assert "xs[1:11:3]" in src
    assert "[(while_0 - 1) // 3]" in src
    expected = sum(np.sin(XS[t] * 2.0 - B) + XS[t] @ W for t in range(1, 11, 3))
    np.testing.assert_allclose(tf.function(_strided)(XS, W, B).numpy(), expected, rtol=1e-5)


def test_loops_that_may_stop_early_keep_their_work():
    assert "_stacked" not in _source(_break_early, *[tf.constant(a) for a in (XS, W, B)])


def test_dynamic_limit_keeps_the_per_iteration_error():
    f = tf.function(_dynamic_limit)
    assert "_stacked" not in f.get_concrete_function(
        tf.constant(XS), tf.constant(W), tf.constant(3)).generated_source
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(XS), tf.constant(W), tf.constant(13))


def _matmul_sum_over(limit):
    """A function adding up xs[t] @ w for t in range(limit)."""
    @tf.function
    def f(xs, w):
        acc = tf.zeros([4, 5])
        for t in tf.range(limit):
            acc = acc + tf.matmul(xs[t], w)
        return acc
    return f


def test_slices_shorter_than_the_loop_are_left_alone():
    f = _matmul_sum_over(13)
    assert "_stacked" not in f.get_concrete_function(tf.constant(XS), tf.constant(W)) \
        .generated_source
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(XS), tf.constant(W))


def test_loops_that_never_run_compute_nothing_ahead():
    f = _matmul_sum_over(0)
    assert "_stacked" not in f.get_concrete_function(tf.constant(XS), tf.constant(W)) \
        .generated_source
    np.testing.assert_array_equal(f(tf.constant(XS), tf.constant(W)).numpy(), np.zeros((4, 5)))


def test_large_stacked_results_are_not_built(monkeypatch):
    monkeypatch.setattr(loop_batch, "MAX_ELEMENTS", 12 * 20 - 1)
    assert "MatMul_stacked" not in _source(_rnn, *[tf.constant(a) for a in (XS, W, B)])


def test_gradients_through_a_batched_loop_match():
    def loss(xs, w, b):
        with tf.GradientTape() as tape:
            tape.watch([w, b])
            y = tf.reduce_sum(_rnn(xs, w, b) ** 2)
        return tape.gradient(y, [w, b])
    plain, opt, _ = run_both(loss, *[tf.constant(a) for a in (XS, W, B)])
    for a, b in zip(as_np(plain), as_np(opt)):
        np.testing.assert_array_equal(a, b)


# --- loop-invariant ops ---------------------------------------------------------------

def _invariant(x, w, n):
    acc = tf.zeros([3])
    for i in tf.range(n):
        wt = tf.transpose(w) * 2.0
        acc = acc + tf.linalg.matvec(wt, x) + tf.reduce_sum(w) + tf.cast(i, tf.float32)
    return acc


def _nested(x, w, n):
    acc = tf.zeros([3])
    j = 0
    for i in tf.range(n):
        scaled = w * tf.cast(i + 1, tf.float32)   # invariant in the inner loop only
        for j in tf.range(n):
            acc = acc + tf.linalg.matvec(scaled, x) - tf.cast(j, tf.float32)
    return acc


X3 = np.array([1.0, 2.0, 3.0], np.float32)
W3 = np.arange(9.0, dtype=np.float32).reshape(3, 3)


@pytest.mark.parametrize("fn", [_invariant, _nested])
@pytest.mark.parametrize("n", [0, 1, 4])
def test_invariant_ops_run_once_with_the_same_results(fn, n):
    plain, opt, f = run_both(fn, tf.constant(X3), tf.constant(W3), tf.constant(n))
    np.testing.assert_array_equal(as_np(plain), as_np(opt))


def test_invariant_ops_move_under_a_first_iteration_guard():
    src = _source(_invariant, tf.constant(X3), tf.constant(W3), tf.constant(2))
    head, body = src.split("while True:")
    assert "first_iteration = True" in head and "k_Transpose" not in head
    guarded = body.split("if first_iteration:")[1].split("add = ")[0]
    assert "k_Transpose" in guarded and "k_Sum" in guarded
    assert "Cast" not in guarded   # depends on the counter


def test_nested_loop_invariants_are_recomputed_per_outer_iteration():
    src = _source(_nested, tf.constant(X3), tf.constant(W3), tf.constant(2))
    outer_body = src.split("while True:")[1]
    assert "first_iteration = True" in outer_body   # the inner loop's guard
    got = tf.function(_nested)(X3, W3, tf.constant(3)).numpy()
    expected = sum(W3 @ X3 * (i + 1) - j for i in range(3) for j in range(3))
    np.testing.assert_allclose(got, expected)


def test_a_loop_that_never_runs_never_fails_on_its_invariant_ops():
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32), tf.TensorSpec([], tf.int32)])
    def f(w, n):
        acc = tf.zeros([4])
        for _ in tf.range(n):
            acc = acc + tf.reshape(w, [4])
        return acc
    assert "first_iteration" in f.get_concrete_function().generated_source
    np.testing.assert_array_equal(f(tf.constant(W3), tf.constant(0)).numpy(), np.zeros(4))
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(W3), tf.constant(1))


def test_variable_reads_and_random_ops_stay_in_the_loop():
    v = tf.Variable(1.0)

    @tf.function
    def f(n):
        total = tf.constant(0.0)
        draws = tf.TensorArray(tf.float32, size=n)
        for i in tf.range(n):
            v.assign_add(1.0)
            total = total + v.read_value() * 2.0
            draws = draws.write(i, tf.random.uniform([]))
        return total, draws.stack()
    total, draws = f(tf.constant(3))
    assert total.numpy() == (2.0 + 3.0 + 4.0) * 2.0
    assert len(set(draws.numpy().tolist())) == 3


# --- in-place writes to a loop's own tensor list -----------------------------------------

def _writes(n):
    ta = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
        ta = ta.write(i, tf.cast(i, tf.float32) * 2.0)
    return ta.stack()


def _old_list_read_after_write(x):
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, x).write(1, x).write(2, x)
    before = ta
    total = tf.constant(0.0)
    for i in tf.range(3):
        old = ta
        ta = ta.write(i, x * 10.0)
        total = total + old.read(i)     # the list before this write
    return before.stack(), ta.stack(), total


def _two_lists_share(x):
    a = tf.TensorArray(tf.float32, size=2)
    b = a
    for i in tf.range(2):
        a = a.write(i, x + tf.cast(i, tf.float32))
        b = a
        a = a.write(i, x * 0.0)
    return a.stack(), b.stack()


def _grows(n):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for i in tf.range(n):
        ta = ta.write(i * 2, tf.cast(i, tf.float32))
    return ta.stack()


def _appends(n):
    items = []
    for i in tf.range(n):
        items.append(tf.cast(i, tf.float32) + 0.5)
    return tf.stack(items)


LIST_CASES = [(_writes, (tf.constant(5),)), (_grows, (tf.constant(4),)),
              (_appends, (tf.constant(6),)), (_old_list_read_after_write, (tf.constant(1.5),)),
              (_two_lists_share, (tf.constant(1.5),))]


@pytest.mark.parametrize("fn,args", LIST_CASES, ids=[f.__name__ for f, _ in LIST_CASES])
def test_list_writes_give_the_same_results(fn, args):
    plain, opt, _ = run_both(fn, *args)
    for a, b in zip(as_np(plain), as_np(opt)):
        np.testing.assert_array_equal(a, b)


def test_a_loop_writes_its_own_list_in_place():
    src = _source(_writes, tf.constant(5))
    head, loop = src.split("while True:")
    assert "while_1 = TensorList(while_1)" in head   # one copy on entry
    assert "list_set_in_place(while_1, while_0" in loop
    np.testing.assert_array_equal(tf.function(_writes)(tf.constant(2000)).numpy(),
                                  np.arange(2000) * 2.0)


def test_growing_writes_and_appends_are_in_place_too():
    assert "list_set_in_place(while_1" in _source(_grows, tf.constant(4))
    assert "list_append_in_place(while_1" in _source(_appends, tf.constant(4))
    np.testing.assert_array_equal(tf.function(_grows)(tf.constant(3)).numpy(),
                                  [0, 0, 1, 0, 2])
    np.testing.assert_array_equal(tf.function(_appends)(tf.constant(3000)).numpy(),
                                  np.arange(3000) + 0.5)


def test_lists_other_code_can_see_are_copied_on_write():
    before, after, total = tf.function(_old_list_read_after_write)(tf.constant(1.5))
    np.testing.assert_array_equal(before.numpy(), [1.5, 1.5, 1.5])
    np.testing.assert_array_equal(after.numpy(), [15.0, 15.0, 15.0])
    assert float(total) == 4.5
    assert "list_set_in_place" not in _source(_old_list_read_after_write, tf.constant(1.5))
    a, b = tf.function(_two_lists_share)(tf.constant(1.5))
    np.testing.assert_array_equal(a.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(b.numpy(), [0.0, 2.5])


def test_gradients_through_list_writes_match():
    def loss(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            ta = tf.TensorArray(tf.float32, size=4)
            h = x
            for i in tf.range(4):
                h = tf.sin(h) * x
                ta = ta.write(i, h)
            y = tf.reduce_sum(ta.stack() ** 2)
        return tape.gradient(y, x)
    plain, opt, _ = run_both(loss, tf.constant(0.7))
    np.testing.assert_array_equal(as_np(plain), as_np(opt))
