"""Differential tests of AutoGraph: each function of a corpus runs as plain
Python (eagerly) and through tf.function with tensor inputs (graph control
flow) and with Python inputs (unrolled); results and printed output must
agree."""
import json
import os

import numpy as np
import pytest

import rillflow as tf
from autograph_corpus_flow import CORPUS as FLOW
from autograph_corpus_jumps import CORPUS as JUMPS
from autograph_corpus_mixed import CORPUS as MIXED
from autograph_corpus_objects import CORPUS as OBJECTS


def value(x):
    if isinstance(x, (list, tuple)):
        return [value(v) for v in x]
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy()).tolist()
    return x


# --- the corpus -----------------------------------------------------------------------

def collatz(a):
    counter = 0
    while a != 1:
        if a % 2 == 0:
            a = a // 2
        else:
            a = 3 * a + 1
        counter = counter + 1
    return counter


def sum_to(n):
    total = 0
    for i in range(n):
        total += i
    return total


def early_return(x):
    if x > 10:
        return x * 2
    if x < 0:
        return -x
    return x + 100


def return_in_loop(n):
    i = n * 0   # a tensor when n is: the loop is a graph loop
    while i < 100:
        if i * i > n:
            return i
        i += 1
    return -1


def break_and_continue(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 10:
            break
        total += i
    return total


def break_at_end_of_body(n):
    # The break is the body's last statement: only the loop's extra test
    # reads the break flag after the `if`.
    s = 0
    for i in range(n):
        s += i
        if s > 5:
            break
    return s


def break_at_end_of_while(n):
    s = 0
    i = 0
    while i < n:
        s += i
        i += 1
        if s > 5:
            break
    return s


def while_else(n):
    i = 0
    found = 0
    while i < n:
        if i == 7:
            found = 1
            break
        i += 1
    else:
        found = -1
    return found * 100 + i


def for_else(n):
    s = 0
    for i in range(n):
        s += i
        if s > 20:
            break
    else:
        s = -s
    return s


def nested_loops(n):
    total = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            if (i + j) % 2 == 0:
                total += i * j
            j += 1
        i += 1
    return total


def helper(x, k):
    if x > k:
        return x - k
    return k - x


def uses_helper(n):
    acc = 0
    for i in range(n):
        acc += helper(i, 3)
    return acc


def logical(a, b):
    r = 0
    if a > 0 and b > 0:
        r += 1
    if a > 0 or b > 0:
        r += 10
    if not a > 0:
        r += 100
    return r


def ternary(a):
    return a * 2 if a > 5 else a - 5


def list_append(n):
    z = []
    for i in range(n):
        z.append(i * i)
    return tf.stack(z)


def prints(n):
    i = 0
    while i < n:
        tf.print("step", i)
        i += 1
    return i


class Accumulator:
    def __init__(self, k):
        self.k = k

    def run(self, n):
        s = 0
        for i in range(n):
            if i % 2 == 1:
                s += self.k * i
        return s


def method_call(n):
    return Accumulator(3).run(n)


CORPUS = [
    (collatz, [(27,), (97,), (1,)]),
    (sum_to, [(0,), (5,), (10,)]),
    (early_return, [(20,), (-4,), (3,)]),
    (return_in_loop, [(10,), (50,), (0,)]),
    (break_and_continue, [(5,), (20,), (0,)]),
    (break_at_end_of_body, [(0,), (3,), (10,)]),
    (break_at_end_of_while, [(0,), (3,), (10,)]),
    (while_else, [(3,), (10,)]),
    (for_else, [(3,), (10,)]),
    (nested_loops, [(0,), (5,), (8,)]),
    (uses_helper, [(0,), (6,)]),
    (logical, [(1, 1), (1, -1), (-1, -1), (-1, 1)]),
    (ternary, [(7,), (2,)]),
    (method_call, [(0,), (7,)]),
    (prints, [(0,), (3,)]),
] + JUMPS + FLOW + MIXED + OBJECTS


def _cases():
    for fn, arg_sets in CORPUS:
        for args in arg_sets:
            yield pytest.param(fn, args, id="%s%s" % (fn.__name__, args))


# TensorFlow's outcome for each case (tools/autograph_corpus_tf.py records it).
with open(os.path.join(os.path.dirname(__file__), "data", "autograph_corpus_tf.json")) as f:
    TF_OUTCOMES = json.load(f)["cases"]


def _check(fn, args, call_args, kind, expected, capsys=None):
    """rillflow's tf.function gives Python's value, or raises the exception
    TensorFlow raises for the program (where TensorFlow refuses it)."""
    tf_outcome = TF_OUTCOMES["%s%s" % (fn.__name__, args)][kind]
    try:
        got = tf.function(fn)(*call_args)
    except Exception as e:  # noqa: BLE001 - compared with TensorFlow's class
        if "error" in tf_outcome and type(e).__name__ == tf_outcome["error"]:
            return False
        raise
    assert value(got) == value(expected)
    return True


@pytest.mark.parametrize("fn,args", list(_cases()))
def test_graph_and_python_agree(fn, args, capsys):
    expected = fn(*args)
    py_out = capsys.readouterr()
    ran = _check(fn, args, [tf.constant(a) for a in args], "tensor", expected)
    graph_out = capsys.readouterr()
    if ran:
        assert graph_out.err == py_out.err
    _check(fn, args, list(args), "python", expected)


def test_list_append_in_tensor_loop_becomes_tensor_list():
    f = tf.function(list_append)
    np.testing.assert_array_equal(f(tf.constant(4)).numpy(), [0, 1, 4, 9])
    src = f.get_concrete_function(tf.constant(1)).generated_source
    assert "TensorListPushBack" in src and "while True:" in src


def test_tensor_condition_builds_graph_control_flow():
    nodes = [n.op for n in tf.function(collatz).get_concrete_function(
        tf.constant(5)).graph.as_graph_def().node]
    assert "StatelessWhile" in nodes or "While" in nodes
    nodes_py = [n.op for n in tf.function(sum_to).get_concrete_function(4).graph.as_graph_def().node]
    assert "While" not in nodes_py and "StatelessWhile" not in nodes_py


def test_to_graph_runs_eagerly_and_returns_tensors():
    g = tf.autograph.to_graph(collatz)
    r = g(tf.constant(27))
    assert int(r.numpy()) == 111


def test_tensor_dependent_return_in_python_loop_is_refused_as_in_tensorflow():
    def f(n):
        i = 0
        while i < 100:
            if i * i > n:
                return i
            i += 1
        return -1
    # The `if` on a tensor returns in one branch only.
    with pytest.raises(ValueError, match="the else branch must also have a return statement"):
        tf.function(f)(tf.constant(10))

    def g(n):
        i = 0
        while i < 100:
            i += 1
            if i * i > n:
                break
        return i
    # The break flag becomes a tensor inside a Python loop.
    with pytest.raises(NotImplementedError, match="not supported in Python for loops|"
                       "started as non-Tensor"):
        tf.function(g)(tf.constant(10))


def test_to_code_is_readable_python():
    code = tf.autograph.to_code(collatz)
    assert code.startswith("def collatz(a):")
    assert "ag__.while_stmt" in code and "ag__.if_stmt" in code
    compile(code, "<to_code>", "exec")


def test_pop_of_a_tensor_list_inside_an_expression_is_not_implemented():
    def f(n):
        z = []
        for i in range(n):
            z.append(i)
        return z.pop() + z.pop()
    with pytest.raises(NotImplementedError, match="statement of its own"):
        tf.function(f)(tf.constant(3))


def test_nonlocal_write_in_a_called_closure_reaches_the_enclosing_function():
    # The called closure is converted on its own; it must keep the
    # original cells, not copies of their values.
    def counter(n):
        count = 0

        def bump():
            nonlocal count
            count += 1
        for _ in range(n):
            bump()
        return count
    assert tf.function(counter)(3) == 3

    def make():
        hits = 0

        def hit(k):
            nonlocal hits
            hits += k
            return hits
        return hit, lambda: hits
    hit, read = make()
    f = tf.function(lambda k: hit(k))
    assert f(2) == 2 and f(5) == 7
    assert read() == 7 and hit(1) == 8


def test_chained_comparison_evaluates_each_operand_once_and_short_circuits():
    calls = []

    def mid(v):
        calls.append(v)
        return v

    def f(x):
        a = 0 < mid(x) < 10
        b = 5 < mid(x) < mid(100)
        return a, b
    a, b = tf.function(f)(tf.constant(3))
    assert bool(a) and not bool(b)
    # Traced once each; mid(100) in the graph branch taken when 5 < x.
    assert len(calls) == 3 and calls[2] == 100
    calls.clear()
    assert tf.function(f)(3) == (True, False) and calls == [3, 3]


def test_attribute_created_in_one_branch_of_a_tensor_if_is_an_error():
    # As in TensorFlow: the else branch leaves `b.v` undefined.
    class Box:
        pass

    def f(x):
        b = Box()
        if x > 0:
            b.v = x
        return getattr(b, "v", -1)
    with pytest.raises(ValueError, match="'b.v' must also be initialized in the else branch"):
        tf.function(f)(tf.constant(1))
    assert tf.function(f)(-1) == -1


def test_enumerate_of_a_graph_tensor_is_not_allowed_as_in_tensorflow():
    def f(n):
        s = 0
        for i, v in enumerate(tf.range(n)):
            s += i * v
        return s
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Iterating over"):
        tf.function(f)(tf.constant(3))
