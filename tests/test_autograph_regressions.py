"""Minimized programs on which the AutoGraph property test
(tests/autograph_programs.py, tools/autograph_property.py) once found
rillflow's tf.function departing from Python (or from TensorFlow's refusal).
Each must give Python's value, or the exception TensorFlow 2.21 raises."""
import numpy as np
import pytest

import rillflow as tf


def _v(x):
    if isinstance(x, (list, tuple)):
        return [_v(e) for e in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x).tolist()


def _same_as_python(fn, *args):
    assert _v(tf.function(fn)(*args)) == _v(fn(*args))


def test_negative_index_of_a_list_appended_to_in_a_graph_loop():
    def f(y):
        z = [3]
        for _ in tf.constant([3.0]):
            z.append(0)
        if y > -1.0:
            return (1.0, z[-1])
        return (y, 2)

    def g(n):
        z = [0.5]
        for _ in tf.range(n):
            z.append(tf.cast(n, tf.float32))
        return tf.cast(n, tf.float32) == z[-1]
    for y in (0.0, -2.0):
        _same_as_python(f, tf.constant(y))
    for n in (0, 5):
        _same_as_python(g, tf.constant(n))


def test_list_appended_to_in_one_branch_of_a_graph_if():
    def f(y, m):
        z = [m]
        if y < y:
            k = 0
            while k < m:
                k += 1
                z.append(k)
        return z[-1]

    def g(y, m):
        z = [m]
        if y > 0.0:
            z.append(m + 1)
        return z[-1]
    _same_as_python(f, tf.constant(0.5), tf.constant(4))
    for y in (1.0, -1.0):
        _same_as_python(g, tf.constant(y), tf.constant(4))


def test_list_in_a_dataset_loop_indexed_from_the_end():
    def f(x):
        z = [5]
        for j in tf.data.Dataset.from_tensor_slices([0]):
            if z[-1] == 1:
                z.append(j)
    _same_as_python(f, tf.constant(1.5))


def test_tensor_break_in_a_python_loop_appending_to_a_list():
    # The graph `if` makes the break flag (and the list) tensors: a Python
    # while loop cannot test them (TensorFlow's NotImplementedError).
    def h(p):
        z = [3.0]
        k = 0
        while k < 2:
            k += 1
            if k > tf.maximum(k, k):
                break
            else:
                z.append(1.5)

    def f(m):
        return h(tf.cast(m, tf.float32) != 2.0)
    with pytest.raises(NotImplementedError, match="condition of while loop started as "
                       "non-Tensor"):
        tf.function(f)(tf.constant(3))


def test_list_whose_tensor_items_would_make_a_python_loop_condition_a_tensor():
    # Seed 99011: as a tensor list, zs[1] is a tensor, and so is the Python
    # while's break flag. A list nothing reads after the loop lets rillflow
    # stage the loop as TensorFlow does (appended to while the body is
    # traced): None, as in Python and TensorFlow.
    def f(x):
        zs = [3]
        for _ in tf.data.Dataset.range(0):
            k1 = 0
            while k1 < 2:
                k1 += 1
                zs.append(k1)
                if zs[1] >= 5:
                    break
    assert f(1) is None and tf.function(f)(tf.constant(1)) is None

    # Read after the loop, TensorFlow's list would hold what one traced
    # iteration appended (TF 2.21 returns 3, Python 1): the refusal stays.
    def g(x):
        zs = [3]
        for _ in tf.data.Dataset.range(0):
            k1 = 0
            while k1 < 2:
                k1 += 1
                zs.append(k1)
                if zs[1] >= 5:
                    break
        return len(zs)
    assert g(1) == 1
    with pytest.raises(NotImplementedError, match="condition of while loop started as "
                       "non-Tensor"):
        tf.function(g)(tf.constant(1))


def test_augmented_assignment_of_an_undefined_name():
    # Python raises UnboundLocalError; TensorFlow's AutoGraph checks only the
    # target of an augmented assignment, and the undefined operand is a
    # TypeError (rillflow raises TensorFlow's exception).
    def f(m, k):
        a = k
        if k < 1.0:
            d = m
        elif k % 2 == 1:
            a -= d
        return a
    with pytest.raises(UnboundLocalError):
        f(tf.constant(-1), 5)
    with pytest.raises(TypeError, match="unsupported operand type"):
        tf.function(f)(tf.constant(-1), 5)
    assert int(tf.function(f)(tf.constant(-1), 0)) == 0

    def h(x):
        a = 2
        if a == 3:
            b = a
        a += a - b
        return a
    # Traced in a graph branch Python never takes: TensorFlow's TypeError.
    g = tf.function(lambda x: h(x) if tf.maximum(1, 1) == 0 else 1)
    with pytest.raises(TypeError, match="unsupported operand type"):
        g(tf.constant(1.0))


# --- the property test's minimized divergences ---------------------------------------------

def _regression_cases():
    import json
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "autograph_regressions.json")
    with open(path) as f:
        cases = json.load(f)["cases"]
    return [pytest.param(c, id="seed%d_%d" % (c["program"]["seed"], i))
            for i, c in enumerate(cases)]


@pytest.mark.parametrize("case", _regression_cases())
def test_minimized_property_case(case):
    """Each minimized divergence the property test found (added by
    tools/autograph_regressions.py): rillflow's tf.function gives Python's
    value, or raises the exception TensorFlow 2.21 (or Python) raises. A few
    programs rillflow refuses for another reason than TensorFlow, because it
    handles a construct TensorFlow gets wrong: lists appended to in graph
    loops, an undefined argument of a call ("rillflow_refuses_otherwise"
    says which exception and why)."""
    import autograph_programs as ap
    program = ap.Program.from_json(case["program"])
    result = ap.run_program(program, tf)
    tf_outcomes = case["tf"] or [None, None]
    for call, (py, rf, tfo) in enumerate(zip(result.native, result.function, tf_outcomes)):
        if rf.kind == "value":
            assert py.kind == "value" and ap.values_equal(rf.value, py.value), (
                "call %d: rillflow %s, Python %s\n%s" % (call + 1, ap.describe(rf),
                                                         ap.describe(py), program.source))
        else:
            allowed = {py.value if py.kind == "error" else None,
                       tfo[1] if tfo and tfo[0] == "error" else None} - {None}
            if "rillflow_refuses_otherwise" in case:
                # Refused for another reason than TensorFlow's, because
                # rillflow converts a construct TensorFlow does not (the case
                # says which and why).
                allowed = {case["rillflow_refuses_otherwise"]["exception"]}
            assert rf.value in allowed, (
                "call %d: rillflow %s; Python %s; TensorFlow %s\n%s" % (
                    call + 1, ap.describe(rf), ap.describe(py), tfo, program.source))
