"""AutoGraph's semantics, as TensorFlow 2.21 has them: what graph control flow
does with the variables of a converted function, and the programs it refuses
(with TensorFlow's exception classes and messages).

Each expectation was checked against TensorFlow 2.21: the module runs on it
unchanged with `sys.modules["rillflow"] = tensorflow` before importing it,
and passes there except where a test says TensorFlow gives a wrong answer.
"""
import io
import sys

import numpy as np
import pytest

import rillflow as tf


def _v(x):
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x).tolist()


# --- each branch of a graph `if` starts from the values before it -------------------------

def assigned_then_returned(x):
    t = x
    if x > 0.0:
        t = t + 1.0
        return x
    return t


def python_value_restored(x):
    p = 1
    if x > 0.0:
        p = 5
        return x
    return x + p


def loop_after_early_return(x):
    if x > 5.0:
        return x
    for _ in range(2):
        return x + 1.0


def successive_if_elses(n1, n2):
    s = 0
    i = 0
    if i < n1:
        s = s * 10 + i
        i += 1
    else:
        s = s * 11 + i
        i += 2
    i = 0
    if i < n2:
        s = s * 10 + i
        i += 1
    else:
        s = s * 11 + i
        i += 2
    return s


@pytest.mark.parametrize("fn,args,expected", [
    (assigned_then_returned, (1.0,), 1.0),
    (assigned_then_returned, (-1.0,), -1.0),
    (python_value_restored, (-1.0,), 0.0),
    (python_value_restored, (2.0,), 2.0),
    (loop_after_early_return, (1.0,), 2.0),
    (loop_after_early_return, (7.0,), 7.0),
])
def test_a_branch_does_not_see_the_other_branchs_assignments(fn, args, expected):
    got = tf.function(fn)(*[tf.constant(a) for a in args])
    assert _v(got) == expected == fn(*args)


@pytest.mark.parametrize("n1,n2", [(False, 0), (True, 0), (False, 1), (True, 1)])
def test_successive_ifs_on_python_and_tensor_conditions(n1, n2):
    got = tf.function(successive_if_elses)(n1, tf.constant(n2))
    assert _v(got) == successive_if_elses(n1, n2)


def test_dataset_loop_processes_the_element_it_breaks_on():
    def f(ds):
        s = tf.constant(0, dtype=tf.int64)
        for e in ds:
            s = s * 10 + e
            if s > 100:
                break
        return s
    assert _v(tf.function(f)(tf.data.Dataset.range(5))) == 123


# --- refusals -------------------------------------------------------------------------------

def test_return_inside_a_graph_loop_is_not_implemented():
    def f(n):
        i = tf.constant(0)
        while i < n:
            if i > 3:
                return i
            i += 1
        return -1
    with pytest.raises(NotImplementedError, match="a return statement cannot be placed "
                       "inside this TensorFlow loop"):
        tf.function(f)(tf.constant(10))


def test_graph_if_returning_on_one_path_only():
    def f(x):
        if x > 0:
            return x
        x = x + 1

    with pytest.raises(ValueError, match="the else branch must also have a return "
                       "statement"):
        tf.function(f)(tf.constant(1))


@pytest.mark.parametrize("items", [[1], [1, 2], [1, 2, 3]])
def test_tensor_break_in_python_loop_even_in_the_last_iteration(items):
    def f(l):
        s = 0
        for c in l:
            if tf.greater(c % 2, 0):
                break
            s += c
        return s
    with pytest.raises(NotImplementedError, match="not supported in Python for loops"):
        tf.function(f)(items)


def test_tensor_return_in_python_while_loop():
    def f(x):
        s = 0
        while x > 0:
            x -= 1
            if tf.greater(x % 2, 0):
                return s
            else:
                return s
        return s
    with pytest.raises(NotImplementedError, match="condition of while loop started as "
                       "non-Tensor, then changed to Tensor"):
        tf.function(f)(3)


def test_variable_deleted_in_both_branches():
    def f(c):
        i = 1
        if c:
            del i
        else:
            del i
        return i
    with pytest.raises(UnboundLocalError, match="'i'"):
        tf.function(f)(True)
    with pytest.raises(ValueError, match="'i' must also be initialized in the main branch"):
        tf.function(f)(tf.constant(True))


def test_variable_created_in_one_branch():
    def f(c):
        if c:
            i = 1
        return i
    with pytest.raises(UnboundLocalError, match="'i' is used before assignment"):
        tf.function(f)(False)
    with pytest.raises(ValueError, match="'i' must also be initialized in the else branch"):
        tf.function(f)(tf.constant(True))


def test_none_in_a_graph_if():
    def f(c):
        i = None
        if c:
            i = 1
        return i
    with pytest.raises(ValueError, match="'i' is None at the end of the else branch"):
        tf.function(f)(tf.constant(True))


def test_flags_set_in_both_branches_become_tensors():
    # do_return is set in both branches of a graph `if`: it is a tensor, so
    # the Python loop cannot test it.
    def f(l):
        s = 0
        for c in l:
            if tf.greater(c % 2, 0):
                return s
            else:
                return s
        return s
    with pytest.raises(NotImplementedError, match="not supported in Python for loops"):
        tf.function(f)([1, 2])


# --- loop variables ---------------------------------------------------------------------------

def test_loop_variable_changing_dtype_structure_or_shape():
    def dtype(n):
        x = tf.constant(0)
        for i in tf.range(n):
            x = tf.cast(x, tf.float32)
        return x

    def structure(n):
        s = [tf.constant(0)]
        for _ in tf.range(n):
            s = s + [tf.constant(0)]
        return s

    def shape(n):
        t = tf.constant([1])
        for i in tf.range(n):
            t = tf.concat([t, [i]], 0)
        return t
    with pytest.raises(TypeError, match="'x' has dtype int32 before the loop, but dtype "
                       "float32 after one iteration"):
        tf.function(dtype)(tf.constant(2))
    with pytest.raises(TypeError, match="'s' does not have the same nested structure after "
                       "one iteration"):
        tf.function(structure)(tf.constant(2))
    with pytest.raises(ValueError, match=r"'t' has shape \(1,\) before the loop, but shape "
                       r"\(2,\) after one iteration. Use "
                       "tf.autograph.experimental.set_loop_options"):
        tf.function(shape)(tf.constant(2))


def test_shape_invariants_from_set_loop_options():
    def grow(n):
        v = tf.constant([0, 0])
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(v, tf.TensorShape([None]))])
            v = tf.concat((v, [i]), 0)
        return v

    def violate(n):
        t = tf.constant([1])
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=((t, tf.TensorShape([1])),))
            t = tf.range(2)
        return t
    assert _v(tf.function(grow)(tf.constant(3))) == [0, 0, 0, 1, 2]
    with pytest.raises(ValueError, match=r"'t' has shape \(2,\) after one iteration, which "
                       "does not conform with the shape invariant"):
        tf.function(violate)(tf.constant(2))


def test_sparse_tensor_loop_variable_with_a_dense_shape_invariant():
    def f(n):
        v = tf.SparseTensor(indices=[[0, 0], [1, 1]], values=[1, 2], dense_shape=[3, 3])
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(v, tf.TensorShape(None))])
            v = tf.sparse.expand_dims(v)
        return v
    got = tf.function(f)(tf.constant(2))
    assert _v(got.dense_shape) == [3, 3, 1, 1]
    assert _v(got.indices) == [[0, 0, 0, 0], [1, 1, 0, 0]]


def test_variable_first_assigned_in_a_graph_loop():
    def f(n):
        i = 0
        while i < n:
            i += 1
            r = i * 2
        return r
    assert _v(tf.function(f)(tf.constant(3))) == 6
    with pytest.raises(tf.errors.InvalidArgumentError, match="loop must iterate at least "
                       "once to initialize r"):
        tf.function(f)(tf.constant(0))


def test_unconditional_return_in_a_loop_over_an_empty_tensor():
    def f(l):
        s = 0
        for c in l:
            s += c
            return s
        return s
    assert _v(tf.function(f)(tf.constant([4, 5]))) == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="must iterate at least once to "
                       "initialize"):
        tf.function(f)(tf.constant([], dtype=tf.int32))


def test_loop_variable_undefined_before_a_dataset_loop():
    def f(ds):
        for e in ds:
            x = e
        return x
    with pytest.raises(ValueError, match="'x' must be defined before the loop"):
        tf.function(f)(tf.data.Dataset.range(3))


# --- other constructs -------------------------------------------------------------------------

def test_generators_are_not_implemented_in_strict_mode(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_STRICT_CONVERSION", "1")

    def gen(n):
        for i in range(n):
            yield i
    with pytest.raises(NotImplementedError, match="generators"):
        tf.function(gen)(2)


def test_for_else_is_converted_but_refused_in_strict_mode(monkeypatch):
    def f(l, stop):
        s = 0
        for c in l:
            if c == stop:
                break
            s = s * 10 + c
        else:
            s = -1000
        return s
    # rillflow converts for/else (TensorFlow runs it unconverted, which fails
    # on tensors); strict mode refuses it as TensorFlow's does.
    assert int(tf.function(f)(tf.constant([1, 2]), tf.constant(3))) == -1000
    assert int(tf.function(f)(tf.constant([1, 2]), tf.constant(2))) == 1
    monkeypatch.setenv("AUTOGRAPH_STRICT_CONVERSION", "1")
    with pytest.raises(NotImplementedError, match="for/else statement not yet supported"):
        tf.function(f)([1, 2], 3)


def test_print_prints_values_when_builtin_functions_are_converted(monkeypatch):
    def f(x):
        print("x is", x, {"foo": "bar"})
        return x + 1
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    g = tf.function(f, experimental_autograph_options=(
        tf.autograph.experimental.Feature.BUILTIN_FUNCTIONS,))
    g(tf.constant(1))
    g(tf.constant(np.array([1, 2, 3])))
    plain = tf.function(f)
    plain(tf.constant(1))
    plain(tf.constant(2))
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["x is 1 {'foo': 'bar'}", "x is [1 2 3] {'foo': 'bar'}"]
    # Without the feature, print runs once, while tracing.
    assert len(lines) == 3 and lines[2].startswith("x is Tensor(")


def test_users_except_clause_does_not_catch_autograph_errors():
    # The graph `if` returns on one path only: the ValueError is AutoGraph's,
    # not the program's, and the handler must not turn it into a value
    # (TensorFlow 2.21 runs the handler and returns -1 where Python gives 6).
    def f(x):
        try:
            if x > 0:
                return x * 2
            y = x + 1
        except ValueError:
            return -1
        return y
    assert tf.function(f)(3) == 6
    with pytest.raises(ValueError, match="'y' must also be initialized in the main branch"):
        tf.function(f)(tf.constant(3))


def test_return_inside_try():
    def f(x):
        try:
            return 1 // x
        except ZeroDivisionError:
            return -1
        finally:
            x = x + 1
    assert tf.function(f)(0) == -1 and tf.function(f)(2) == 0


def _fact(n):
    if n > 1:
        return n * _fact(n - 1)
    return 1


def test_recursive_helper_called_by_its_own_name():
    # The converted helper finds itself through the module's globals.
    assert int(tf.function(lambda n: _fact(n) + 0)(4)) == 24
    assert _v(tf.function(lambda x: _fact(3) * x)(tf.constant(2))) == 12


def test_nested_conditional_expression_stays_python():
    # TensorFlow converts the outer conditional expression only: the inner
    # one, traced with the outer branches, tests a tensor in Python.
    def f(x, n):
        return 1.0 if n > 5 else (x if x > 0.0 else -x)
    for n in (9, 1):
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
            tf.function(f)(tf.constant(-2.0), tf.constant(n))
    assert float(tf.function(f)(-2.0, 9)) == 1.0


def test_conditional_expression_branches_of_different_dtypes():
    def f(x):
        return 1 if x > 0.0 else x
    with pytest.raises(TypeError, match="'x > 0.0' has dtype int32 in the main branch, but "
                       "dtype float32 in the else branch"):
        tf.function(f)(tf.constant(1.0))


def test_tensor_of_a_branch_used_after_the_if():
    def f(x):
        box = []

        def store(v):
            box.append(v)   # not the function's own variable: not state
        if x > 0:
            store(x * 2)
        else:
            store(x)
        return box[0]
    with pytest.raises(Exception) as info:
        tf.function(f)(tf.constant(3))
    assert type(info.value).__name__ == "InaccessibleTensorError"
    assert "is out of scope and cannot be used here" in str(info.value)
