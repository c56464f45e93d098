"""AutoGraph features and error cases: undefined variables, loop variable
rules, lists, asserts, conversion of called functions, methods, lambdas,
strict mode, and error locations."""
import traceback

import numpy as np
import pytest

import rillflow as tf


def test_variable_defined_in_one_branch_is_an_error_naming_it():
    @tf.function
    def f(x):
        if x > 0:
            y = x
        return y
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        f(tf.constant(1))


def test_variable_used_only_inside_a_branch_is_fine():
    @tf.function
    def f(x):
        if x > 0:
            t = x * 2
            x = t + 1
        return x
    assert int(f(tf.constant(3))) == 7
    assert int(f(tf.constant(-3))) == -3


def test_reading_before_assignment_is_unbound_local_error():
    @tf.function
    def f(x):
        if x > 0:
            x = y + 1  # noqa: F821 - deliberately read before assignment
            y = 2  # noqa: F841
        return x
    with pytest.raises(UnboundLocalError):
        f(tf.constant(1))


def test_loop_variable_first_assigned_in_loop():
    @tf.function
    def f(n):
        for i in tf.range(n):
            x = i * 10
        return x
    assert int(f(tf.constant(4))) == 30
    with pytest.raises(tf.errors.InvalidArgumentError, match="loop must iterate at least once"):
        f(tf.constant(0))


def test_loop_dtype_change_is_type_error_naming_variable():
    @tf.function
    def f():
        x = tf.constant(0.0)
        for i in tf.range(3):
            x = i
        return x
    with pytest.raises(TypeError, match="'x' has dtype float32 before the loop, but dtype int32"):
        f()


def test_loop_shape_change_is_value_error_unless_widening_enabled():
    def grow():
        x = tf.ones([0, 2])
        for i in tf.range(3):
            x = tf.concat([x, tf.ones([1, 2])], axis=0)
        return x
    with pytest.raises(ValueError, match="'x' has shape \\(0, 2\\) before the loop"):
        tf.function(grow)()
    tf.autograph.experimental.set_loop_shape_widening(True)
    try:
        out = tf.function(grow)()
    finally:
        tf.autograph.experimental.set_loop_shape_widening(False)
    assert out.shape == (3, 2)


def test_set_shape_in_loop_keeps_the_shape():
    @tf.function
    def f():
        x = tf.zeros([3, 2])
        for i in tf.range(3):
            x = tf.concat([x[:i], tf.ones([1, 2]), tf.zeros([2 - i, 2])], axis=0)
            x.set_shape([3, 2])
        return x
    np.testing.assert_array_equal(f().numpy(), np.ones((3, 2)))


def test_for_else_and_while_else_work_in_graph_loops():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            s += i
            if s > 5:
                break
        else:
            s = -1
        return s
    assert int(f(tf.constant(2))) == -1
    assert int(f(tf.constant(10))) == 6

    @tf.function
    def g(n):
        i = 0
        while i < n:
            i += 1
        else:
            i = i * 100
        return i
    assert int(g(tf.constant(3))) == 300


def test_continue_in_graph_loop():
    @tf.function
    def f(n):
        s = 0
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            s += i
        return s
    assert int(f(tf.constant(7))) == 1 + 3 + 5


def test_early_return_from_tensor_branch_and_loop():
    @tf.function
    def f(x):
        if x > 200:
            return x * -1
        return x + 1
    assert int(f(tf.constant(1))) == 2
    assert int(f(tf.constant(201))) == -201

    # A return inside a graph loop is TensorFlow's NotImplementedError.
    @tf.function
    def g(x):
        while x < 100:
            if x % 7 == 0:
                return x * -1
            x += 3
        return x
    with pytest.raises(NotImplementedError, match="a return statement cannot be placed "
                       "inside this TensorFlow loop"):
        g(tf.constant(1))


def test_list_append_and_set_element_type():
    @tf.function
    def f(n):
        z = []
        tf.autograph.set_element_type(z, tf.int32)
        for i in range(n):
            z.append(i)
        return tf.autograph.stack(z)
    np.testing.assert_array_equal(f(tf.constant(3)).numpy(), [0, 1, 2])

    @tf.function
    def g(n):
        out = []
        for i in tf.range(n):
            out.append(tf.cast(i, tf.float32) * 0.5)
        return tf.stack(out), len(out)
    s, n = g(tf.constant(4))
    np.testing.assert_array_equal(s.numpy(), [0, 0.5, 1.0, 1.5])
    assert int(n) == 4


def test_python_list_in_python_loop_stays_python():
    @tf.function
    def f(x):
        parts = []
        for k in range(3):
            parts.append(x * k)
        return tf.stack(parts)
    np.testing.assert_array_equal(f(tf.constant(2)).numpy(), [0, 2, 4])


def test_assert_on_tensor_is_graph_assertion():
    @tf.function
    def g(x):
        assert x != 0, "Do not pass zero!"
        return x * x
    assert int(g(tf.constant(3))) == 9
    with pytest.raises(tf.errors.InvalidArgumentError, match="Do not pass zero"):
        g(tf.constant(0))

    @tf.function
    def h(x, flag):
        assert flag, "flag must be set"
        return x
    with pytest.raises(AssertionError, match="flag must be set"):
        h(tf.constant(1), False)


def test_logical_and_ternary_on_tensors():
    @tf.function
    def f(a, b):
        r = a if a > b else b
        if a > 0 and b > 0 or a == -5:
            r = r + 100
        if not a > 0:
            r = r + 1000
        return r
    assert int(f(tf.constant(3), tf.constant(5))) == 105
    assert int(f(tf.constant(-5), tf.constant(1))) == 1101
    assert int(f(tf.constant(-1), tf.constant(-2))) == 999


def test_and_is_lazy_on_tensors():
    @tf.function
    def f(x, i):
        if i < 3 and x[i] > 0:
            return 1
        return 0
    assert int(f(tf.constant([1, -1, 2]), tf.constant(0))) == 1
    assert int(f(tf.constant([1, -1, 2]), tf.constant(5))) == 0


def helper_square_if_positive(v):
    if v > 0:
        return v * v
    return v


def test_called_functions_are_converted_recursively():
    @tf.function
    def f(x):
        return helper_square_if_positive(x) + 1
    assert int(f(tf.constant(3))) == 10
    assert int(f(tf.constant(-3))) == -2


def test_do_not_convert_leaves_function_alone():
    @tf.autograph.experimental.do_not_convert
    def raw(v):
        if v > 0:   # not converted: using a symbolic tensor as a bool fails
            return v
        return -v

    @tf.function
    def f(x):
        return raw(x)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        f(tf.constant(1))


class Base(tf.Module):
    def scale(self, x):
        return x * 2


class Child(Base):
    def __init__(self):
        super().__init__()
        self.bias = tf.Variable(1)

    @tf.function
    def __call__(self, x):
        y = super().scale(x)
        if y > 10:
            y = y - self.bias
        return y


def test_methods_super_and_variables():
    c = Child()
    assert int(c(tf.constant(3))) == 6
    assert int(c(tf.constant(8))) == 15


def test_lambdas_and_nested_functions_are_converted():
    @tf.function
    def f(x):
        def inner(v):
            while v < 10:
                v = v * 2
            return v
        g = lambda v: v + 1 if v > 5 else v - 1  # noqa: E731
        return g(inner(x))
    assert int(f(tf.constant(3))) == 13


def test_global_and_nonlocal_state():
    counter = [0]

    @tf.function
    def f(x):
        counter[0] += 1
        if x > 0:
            x = x + counter[0]
        return x
    assert int(f(tf.constant(1))) == 2
    assert counter == [1]


def test_unconvertible_function_warns_and_strict_mode_raises(monkeypatch, caplog):
    src = "def made(x):\n    return x + 1\n"
    ns = {}
    exec(compile(src, "<string-defined>", "exec"), ns)
    made = ns["made"]
    with caplog.at_level("WARNING", logger="tensorflow"):
        assert int(tf.function(made)(tf.constant(1))) == 2
    # Logged through TensorFlow's logger (WARNING:tensorflow:...), as TensorFlow does.
    text = " ".join(r.getMessage() for r in caplog.records if r.name == "tensorflow")
    assert text.startswith("AutoGraph could not transform <function made at ")
    assert "and will run it as-is.\nCause:" in text
    assert text.endswith("To silence this warning, decorate the function with "
                         "@tf.autograph.experimental.do_not_convert")
    monkeypatch.setenv("AUTOGRAPH_STRICT_CONVERSION", "1")
    ns2 = {}
    exec(compile(src, "<string-defined-2>", "exec"), ns2)
    with pytest.raises(Exception, match="could not transform"):
        tf.function(ns2["made"])(tf.constant(1))


def test_errors_point_at_user_code():
    def helper(v):
        return v + "oops"   # the bad line

    @tf.function
    def f(x):
        if x > 0:
            x = helper(x)
        return x
    with pytest.raises(TypeError) as info:
        f(tf.constant(1))
    frames = traceback.extract_tb(info.value.__traceback__)
    user = [fr for fr in frames if "rillflow" not in fr.filename]
    assert user[-1].name == "helper" and "the bad line" in user[-1].line
    assert any(fr.line.strip() == "if x > 0:" for fr in user)
    inside = [fr for fr in frames if "rillflow" in fr.filename]
    assert len(inside) <= 1  # only the frame that re-raises


def test_to_code_and_to_graph():
    def f(x):
        while x > 1:
            x = x // 2
        return x
    code = tf.autograph.to_code(f)
    assert "ag__.while_stmt" in code
    assert int(tf.autograph.to_graph(f)(tf.constant(40)).numpy()) == 1
    tf.autograph.set_verbosity(0)
    assert tf.autograph.get_verbosity() == 0


def test_dataset_free_python_iterables_unroll():
    @tf.function
    def f(x):
        total = x
        for k, v in enumerate([1, 2, 3]):
            total = total + k * v
        for a, b in zip([1, 2], [3, 4]):
            total = total + a * b
        return total
    assert int(f(tf.constant(0))) == (0 + 2 + 6) + (3 + 8)


def test_for_over_dataset_iterator_in_graph():
    @tf.function
    def f(ds):
        total = tf.constant(0, tf.int64)
        for x in iter(ds):
            total += x
        return total
    assert int(f(tf.data.Dataset.range(5))) == 10
    assert int(f(tf.data.Dataset.range(0))) == 0


def test_list_append_in_dataset_loop():
    @tf.function
    def g(ds):
        out = []
        for x in ds:
            out.append(x * 2)
        return tf.stack(out)
    np.testing.assert_array_equal(g(tf.data.Dataset.range(4)).numpy(), [0, 2, 4, 6])


def test_break_out_of_dataset_loop():
    @tf.function
    def f(ds):
        t = tf.constant(0, tf.int64)
        for x in ds:
            if x > 2:
                break
            t += x
        return t
    assert int(f(tf.data.Dataset.range(10))) == 3


def test_lambda_defaults_are_kept():
    @tf.function
    def h(x):
        fns = [lambda y, k=k: y + k for k in range(3)]
        return fns[2](x)
    assert int(h(tf.constant(1))) == 3


def test_lambdas_as_keyword_arguments_on_a_continuation_line():
    def two(f=None, g=None):
        return tf.function(g)(tf.constant(1), tf.constant(2)), tf.function(f)(tf.constant(7))
    summed, rem = two(
        f=lambda x: x % 3, g=lambda k, w: k + w)
    assert int(summed) == 3 and int(rem) == 1
    same = tf.data.Dataset.range(3).map(lambda x: x + 1).map(lambda x: x + 1)
    assert [int(v) for v in same] == [2, 3, 4]
