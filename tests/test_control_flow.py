"""cond, switch_case, case, while_loop and TensorArray: eager and in functions,
structure/dtype/shape errors, generated code, and gradients."""
import numpy as np
import pytest

import rillflow as tf


def graph_nodes(fn, *args):
    return [(n.name, n.op) for n in fn.get_concrete_function(*args).graph.as_graph_def().node]


# --- cond ----------------------------------------------------------------------------

def test_cond_eager_calls_one_branch():
    calls = []
    r = tf.cond(tf.constant(True), lambda: calls.append("t") or 1, lambda: calls.append("f") or 2)
    assert r == 1 and calls == ["t"]
    assert tf.cond(False, lambda: 1, lambda: 2) == 2


def test_cond_in_function_traces_both_branches_and_selects_at_run_time():
    traced = []

    @tf.function
    def f(x):
        def t():
            traced.append("then")
            return x * 2.0

        def e():
            traced.append("else")
            return -x
        return tf.cond(x > 0, t, e)
    assert float(f(tf.constant(3.0))) == 6.0
    assert float(f(tf.constant(-3.0))) == 3.0
    assert traced == ["then", "else"]
    nodes = graph_nodes(f, tf.constant(1.0))
    assert ("cond", "StatelessIf") in nodes
    src = f.get_concrete_function(tf.constant(1.0)).generated_source
    assert "if Greater:" in src and "else:" in src


def test_cond_with_side_effects_is_stateful_if_and_names_are_unique():
    v = tf.Variable(0)

    @tf.function
    def f(x):
        a = tf.cond(x > 0, lambda: v.assign_add(1), lambda: v.assign_add(10))
        b = tf.cond(x > 0, lambda: x, lambda: -x)
        return a, b
    f(tf.constant(1))
    f(tf.constant(-1))
    assert int(v) == 11
    names = graph_nodes(f, tf.constant(1))
    assert ("cond", "If") in names and ("cond_1", "StatelessIf") in names


def test_cond_nested_structures_and_python_values():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: {"a": x, "b": (x + 1, 0)},
                       lambda: {"a": -x, "b": (x - 1, 1)})
    out = f(tf.constant(2))
    assert int(out["a"]) == 2 and int(out["b"][0]) == 3 and int(out["b"][1]) == 0
    out = f(tf.constant(-2))
    assert int(out["a"]) == 2 and int(out["b"][1]) == 1


def test_cond_structure_mismatch_raises_value_error():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: (x, x), lambda: x)
    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        f(tf.constant(1))


def test_cond_dtype_mismatch_raises_type_error_naming_output():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: {"k": tf.constant(1.0)}, lambda: {"k": tf.constant(1)})
    with pytest.raises(TypeError, match=r"\['k'\] has dtype float32"):
        f(tf.constant(1))


def test_cond_shapes_merge_to_most_specific_compatible():
    @tf.function
    def f(x):
        out = tf.cond(x > 0, lambda: tf.zeros([2, 3]), lambda: tf.zeros([4, 3]))
        assert out.shape.as_list() == [None, 3]
        return out
    assert f(tf.constant(1)).shape == (2, 3)
    assert f(tf.constant(-1)).shape == (4, 3)


def test_cond_pred_must_be_bool_scalar():
    @tf.function
    def f(x):
        return tf.cond(x, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="bool"):
        f(tf.constant(1))


def test_cond_gradient_in_function_and_through_call():
    @tf.function
    def g(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.cond(x > 0, lambda: x * x * 3.0, lambda: -x)
        return t.gradient(y, x)
    assert float(g(tf.constant(2.0))) == 12.0
    assert float(g(tf.constant(-2.0))) == -1.0
    f = tf.function(lambda x: tf.cond(x > 0, lambda: x * x, lambda: x * 5.0))
    for v, expected in ((3.0, 6.0), (-1.0, 5.0)):
        x = tf.constant(v)
        with tf.GradientTape() as t:
            t.watch(x)
            y = f(x)
        assert float(t.gradient(y, x)) == expected


def test_cond_gradient_of_variable_used_in_one_branch():
    w = tf.Variable(3.0)

    @tf.function
    def g(x):
        with tf.GradientTape() as t:
            y = tf.cond(x > 0, lambda: w * x, lambda: x)
        return t.gradient(y, w)
    assert float(g(tf.constant(2.0))) == 2.0
    assert float(g(tf.constant(-2.0))) == 0.0


def test_switch_case_and_case():
    @tf.function
    def f(i):
        return tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20)],
                              default=lambda: tf.constant(-1))
    assert [int(f(tf.constant(k))) for k in (0, 1, 5)] == [10, 20, -1]
    assert ("switch_case", "StatelessCase") in graph_nodes(f, tf.constant(0))
    assert int(tf.switch_case(1, [lambda: 1, lambda: 2])) == 2

    @tf.function
    def g(x):
        return tf.case([(x < 0, lambda: tf.constant(-1)), (x > 10, lambda: tf.constant(1))],
                       default=lambda: tf.constant(0))
    assert [int(g(tf.constant(v))) for v in (-5, 50, 5)] == [-1, 1, 0]


def test_switch_case_gradient():
    @tf.function
    def g(i, x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.switch_case(i, [lambda: x * 2.0, lambda: x * x])
        return t.gradient(y, x)
    assert float(g(tf.constant(0), tf.constant(3.0))) == 2.0
    assert float(g(tf.constant(1), tf.constant(3.0))) == 6.0


# --- while_loop ---------------------------------------------------------------------------

def _collatz_body(a, n):
    return tf.cond(a % 2 == 0, lambda: a // 2, lambda: 3 * a + 1), n + 1


def test_while_loop_eager_and_in_function_agree():
    eager = tf.while_loop(lambda a, n: a != 1, _collatz_body, [tf.constant(27), 0])
    assert int(eager[1]) == 111
    f = tf.function(lambda a: tf.while_loop(lambda a, n: a != 1, _collatz_body, [a, 0])[1])
    assert int(f(tf.constant(27))) == 111
    assert int(f(tf.constant(97))) == 118
    nodes = graph_nodes(f, tf.constant(1))
    assert ("while", "StatelessWhile") in nodes
    src = f.get_concrete_function(tf.constant(1)).generated_source
    assert "while True:" in src and "break" in src


def test_while_loop_single_var_and_maximum_iterations():
    assert int(tf.while_loop(lambda i: i < 10, lambda i: i + 1, tf.constant(0))) == 10
    f = tf.function(lambda x: tf.while_loop(lambda i, s: i < 100, lambda i, s: (i + 1, s * 2),
                                            (0, x), maximum_iterations=3))
    i, s = f(tf.constant(1.0))
    assert int(i) == 3 and float(s) == 8.0


def test_while_loop_with_print_is_stateful_and_runs_every_iteration(capsys):
    def body(i):
        r = tf.py_function(lambda v: print(int(v)) or v + 1, [i], tf.int32)
        r.set_shape([])
        return r

    @tf.function
    def f(n):
        return tf.while_loop(lambda i: i < n, body, [0])
    f(tf.constant(3))
    assert capsys.readouterr().out.split() == ["0", "1", "2"]
    assert ("while", "While") in graph_nodes(f, tf.constant(1))


def test_while_loop_dtype_change_is_type_error():
    @tf.function
    def f():
        return tf.while_loop(lambda x: x < 3.0, lambda x: tf.cast(x, tf.int32), [0.0])
    with pytest.raises(TypeError, match="dtype|type"):
        f()


def test_while_loop_shape_change_needs_invariant():
    def body(x):
        return tf.concat([x, tf.ones([1, 2])], axis=0)

    @tf.function
    def bad():
        return tf.while_loop(lambda x: tf.shape(x)[0] < 3, body, [tf.zeros([0, 2])])
    with pytest.raises(ValueError, match="shape_invariants"):
        bad()

    @tf.function
    def good():
        return tf.while_loop(lambda x: tf.shape(x)[0] < 3, body, [tf.zeros([0, 2])],
                             shape_invariants=[tf.TensorShape([None, 2])])
    out = good()[0]
    assert out.shape == (3, 2)


def test_while_loop_structure_change_is_value_error():
    @tf.function
    def f():
        return tf.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1,), (0, 1))
    with pytest.raises(ValueError, match="structure"):
        f()


def test_nested_loops_and_conds():
    @tf.function
    def f(n):
        def outer(i, total):
            inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j), (0, 0))[1]
            total = tf.cond(i % 2 == 0, lambda: total + inner, lambda: total)
            return i + 1, total
        return tf.while_loop(lambda i, t: i < n, outer, (0, 0))[1]
    expected = sum(sum(range(i)) for i in range(6) if i % 2 == 0)
    assert int(f(tf.constant(6))) == expected


def test_while_loop_gradient_data_dependent_trip_count():
    @tf.function
    def g(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.while_loop(lambda y: y < 100.0, lambda y: y * x, [x])[0]
        return y, t.gradient(y, x)
    y, dy = g(tf.constant(3.0))   # 3^5 = 243, d/dx x^5 = 5 x^4
    assert float(y) == 243.0 and float(dy) == 405.0
    y, dy = g(tf.constant(11.0))  # x^2 = 121
    assert float(y) == 121.0 and float(dy) == 22.0


def test_while_loop_gradient_matches_finite_differences():
    def loop(x):
        return tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, tf.sin(y) * x + y),
                             (0, x))[1]
    f = tf.function(loop)
    x0 = 0.7
    x = tf.constant(x0, dtype=tf.float64)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    analytic = float(t.gradient(y, x))
    eps = 1e-6
    numeric = (float(loop(tf.constant(x0 + eps, tf.float64))) -
               float(loop(tf.constant(x0 - eps, tf.float64)))) / (2 * eps)
    assert abs(analytic - numeric) < 1e-6


def test_while_loop_gradient_of_captured_variable():
    w = tf.Variable(2.0)

    @tf.function
    def h(x):
        with tf.GradientTape() as t:
            y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * w + x),
                              (0, tf.constant(1.0)))[1]
        return t.gradient(y, w)
    assert float(h(tf.constant(1.0))) == 17.0   # d/dw (w^3 + w^2 + w + 1)


def test_eager_while_loop_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.while_loop(lambda y: y < 100.0, lambda y: y * x, [x])[0]
    assert float(t.gradient(y, x)) == 405.0


# --- TensorArray -----------------------------------------------------------------------------

def test_tensor_array_basic_operations():
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, [1.0, 2.0]).write(1, [3.0, 4.0]).write(2, [5.0, 6.0])
    np.testing.assert_array_equal(ta.stack().numpy(), [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(ta.read(1).numpy(), [3, 4])
    assert int(ta.size()) == 3
    np.testing.assert_array_equal(ta.gather([2, 0]).numpy(), [[5, 6], [1, 2]])
    np.testing.assert_array_equal(ta.concat().numpy(), [1, 2, 3, 4, 5, 6])
    u = tf.TensorArray(tf.int32, size=0, dynamic_size=True).unstack([[1], [2]])
    np.testing.assert_array_equal(u.read(1).numpy(), [2])
    s = tf.TensorArray(tf.int32, size=2).scatter([1, 0], [[7], [8]])
    np.testing.assert_array_equal(s.stack().numpy(), [[8], [7]])
    sp = tf.TensorArray(tf.int32, size=2).split([1, 2, 3], [1, 2])
    np.testing.assert_array_equal(sp.read(1).numpy(), [2, 3])


def test_tensor_array_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="not yet been written"):
        tf.TensorArray(tf.float32, size=2).read(0)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.TensorArray(tf.float32, size=1).write(3, 1.0)
    ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        ta.write(1, [1.0])
    with pytest.raises(ValueError):
        tf.TensorArray(tf.float32)
    grow = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    assert int(grow.write(4, 1.0).size()) == 5


def _rnn(x, h0):
    steps = x.shape[0]
    ta = tf.TensorArray(tf.float32, size=steps)

    def body(i, h, ta):
        h = tf.tanh(x[i] + h)
        return i + 1, h, ta.write(i, h)
    _, _, ta = tf.while_loop(lambda i, h, ta: i < steps, body, (0, h0, ta))
    return ta.stack()


def test_tensor_array_in_while_loop_matches_python_and_differentiates():
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(3, 2, 4) / 24)
    h0 = tf.zeros([2, 4])
    f = tf.function(_rnn)
    expected = []
    h = np.zeros((2, 4), np.float32)
    for t in range(3):
        h = np.tanh(x.numpy()[t] + h)
        expected.append(h)
    np.testing.assert_allclose(f(x, h0).numpy(), np.stack(expected), rtol=1e-6)

    @tf.function
    def grad_graph(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(_rnn(x, h0))
        return t.gradient(y, x)
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(_rnn(x, h0))
    eager = t.gradient(y, x)
    np.testing.assert_allclose(grad_graph(x).numpy(), eager.numpy(), rtol=1e-5)


def test_tensor_array_rnn_seed_model_with_while_loop():
    # The seed's dynamic_rnn (s003_tensor_array_rnn) written with tf.while_loop.
    def rnn_step(inp, state):
        return inp + state

    @tf.function
    def dynamic_rnn(input_data, initial_state):
        input_data = tf.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = tf.TensorArray(tf.float32, size=max_seq_len)

        def body(i, state, states):
            state = rnn_step(input_data[i], state)
            return i + 1, state, states.write(i, state)
        _, _, states = tf.while_loop(lambda i, s, ss: i < max_seq_len, body,
                                     (0, initial_state, states))
        return tf.transpose(states.stack(), [1, 0, 2])
    data = tf.reshape(tf.range(24, dtype=tf.float32), [2, 3, 4])
    out = dynamic_rnn(data, tf.zeros([2, 4]))
    np.testing.assert_array_equal(out.numpy()[1, 2], [48, 51, 54, 57])
    np.testing.assert_array_equal(out.numpy()[0, 1], [4, 6, 8, 10])


def test_pop_back_knows_the_element_shape():
    from rillflow.ops.control_flow import list_ops

    @tf.function
    def f():
        lst = list_ops.reserve(0, tf.float32, tf.TensorShape([2]))
        lst = list_ops.push_back(lst, tf.constant([1.0, 2.0]))
        rest, last = list_ops.pop_back(lst, tf.float32, tf.TensorShape([2]))
        assert last.shape == [2]
        unknown = list_ops.pop_back(lst, tf.float32)[1]
        assert unknown.shape.rank is None
        return last
    np.testing.assert_array_equal(f().numpy(), [1.0, 2.0])


def test_eager_tensor_array_writes_are_shared_as_in_tensorflow():
    ta = tf.TensorArray(tf.float32, size=2)
    written = ta.write(0, 1.0)
    assert written is not ta and float(ta.read(0)) == 1.0   # one array, as TF eager
    big = tf.TensorArray(tf.float32, size=3000)
    for i in range(3000):
        big = big.write(i, float(i))
    np.testing.assert_array_equal(big.stack().numpy(), np.arange(3000))
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        acc = tf.TensorArray(tf.float32, size=3)
        h = tf.constant(1.0)
        for i in range(3):
            h = h * x[i]
            acc = acc.write(i, h)
        y = tf.reduce_sum(acc.stack())
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [9.0, 4.0, 2.0])
