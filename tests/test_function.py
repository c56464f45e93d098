"""tf.function: tracing, trace keys, signatures, concrete functions, captures,
variables, side effects, nesting, methods, gradients through calls."""
import collections
import functools
import gc
import warnings

import numpy as np
import pytest

import rillflow as tf


def counting(fn):
    """Wraps `fn` in tf.function and counts Python-level traces in `.traces`."""
    traces = []

    @functools.wraps(fn)
    def inner(*args, **kwargs):
        traces.append(1)
        return fn(*args, **kwargs)
    f = tf.function(inner)
    f.traces = traces
    return f


def test_traced_function_computes_what_python_computes():
    def f(x, y, b):
        return x * y + b
    g = tf.function(f)
    args = (tf.constant([[1.0, 2.0]]), tf.constant([[2.0], [3.0]]), tf.constant(4.0))
    np.testing.assert_array_equal(g(*args).numpy(), f(*args).numpy())


def test_tensors_of_same_dtype_and_shape_share_a_trace():
    f = counting(lambda x: x * x)
    f(tf.constant(2))
    f(tf.constant(3))
    assert len(f.traces) == 1
    f(tf.constant([1, 2]))
    f(tf.constant(2.0))
    assert len(f.traces) == 3
    assert f.experimental_get_tracing_count() == 3


def test_python_values_retrace_per_value_with_python_equality():
    f = counting(lambda x, y=2: x)
    f(1)
    f(True)    # 1 == True: same key, as in TensorFlow
    f(1.0)
    f(x=1)
    f(1, 2)
    assert len(f.traces) == 1
    f(2)
    assert len(f.traces) == 2


def test_numpy_arrays_are_traced_as_tensors():
    f = counting(lambda x: x + 1)
    r = f(np.array([1.0]))
    f(np.array([2.0]))
    assert len(f.traces) == 1
    assert r.dtype == tf.float64


def test_nested_structures_are_keyed_by_structure():
    Point = collections.namedtuple("Point", "x y")
    f = counting(lambda d: d["a"] + d["b"][0])
    assert int(f({"a": tf.constant(1), "b": [tf.constant(2)]})) == 3
    assert int(f({"a": tf.constant(5), "b": [tf.constant(6)]})) == 11
    assert len(f.traces) == 1
    g = counting(lambda p: p.x * p.y)
    assert float(g(Point(tf.constant(2.0), tf.constant(3.0)))) == 6.0
    assert len(g.traces) == 1


def test_other_objects_are_keyed_by_identity_weakly():
    class Obj:
        def __init__(self, k):
            self.k = k
    f = counting(lambda o, x: x * o.k)
    a, b = Obj(2.0), Obj(3.0)
    assert float(f(a, tf.constant(1.0))) == 2.0
    assert float(f(a, tf.constant(5.0))) == 10.0
    assert float(f(b, tf.constant(1.0))) == 3.0
    assert len(f.traces) == 2
    del a
    gc.collect()
    c = Obj(7.0)
    assert float(f(c, tf.constant(1.0))) == 7.0


def test_keyword_and_positional_calls_bind_to_the_same_trace():
    f = counting(lambda x, y=tf.constant(1.0): x + y)
    f(tf.constant(1.0))
    f(tf.constant(2.0), tf.constant(1.0))
    f(x=tf.constant(3.0), y=tf.constant(1.0))
    assert len(f.traces) == 1
    assert float(f(y=tf.constant(2.0), x=tf.constant(3.0))) == 5.0


def test_input_signature_accepts_compatible_shapes_and_rejects_others():
    calls = []

    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def f(x):
        calls.append(str(x))
        return x * 2
    np.testing.assert_array_equal(f(tf.constant([1, 2])).numpy(), [2, 4])
    np.testing.assert_array_equal(f(tf.constant([5, 6, 7])).numpy(), [10, 12, 14])
    assert calls == ['Tensor("x:0", shape=(None,), dtype=int32)']
    with pytest.raises(TypeError):
        f(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError):
        f(tf.constant([1.0]))
    np.testing.assert_array_equal(f([3, 4]).numpy(), [6, 8])


def test_input_signature_must_be_tensor_specs():
    with pytest.raises(TypeError):
        tf.function(lambda x: x, input_signature=[1])


def test_get_concrete_function_with_spec_and_calling_it():
    traced = []

    @tf.function
    def double(a):
        traced.append(str(a))
        return a + a
    cf = double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.string))
    assert traced == ['Tensor("a:0", dtype=string)']
    assert cf(tf.constant("a")).numpy() == b"aa"
    assert cf(a=tf.constant("b")).numpy() == b"bb"
    with pytest.raises(tf.errors.InvalidArgumentError):
        cf(tf.constant(1))
    with pytest.raises(TypeError):
        cf(tf.constant("a"), tf.constant("b"))


def test_concrete_function_introspection():
    @tf.function
    def f(x, y=2):
        return {"s": x * 2.0, "l": [x, None]}
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    args, kwargs = cf.structured_input_signature
    assert args == (tf.TensorSpec([None], tf.float32, name="x"), 2) and kwargs == {}
    assert [t.name for t in cf.inputs] == ["x:0"]
    assert len(cf.outputs) == 2
    assert set(cf.structured_outputs) == {"s", "l"}
    assert cf.structured_outputs["l"][1] is None
    text = cf.pretty_printed_signature()
    assert "x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,), dtype=tf.float32" in text
    assert "y (POSITIONAL_OR_KEYWORD): Literal[2]" in text
    out = cf(tf.constant([1.0, 2.0]))
    np.testing.assert_array_equal(out["s"].numpy(), [2.0, 4.0])
    assert out["l"][1] is None


def test_generated_source_is_readable_python():
    @tf.function
    def f(x, y):
        return x * y + 1.0
    src = f.get_concrete_function(tf.constant(1.0), tf.constant(2.0)).generated_source
    assert src.startswith("def f(x, y):")
    assert "mul = x * y" in src and "add = mul + add_y" in src and "return (add,)" in src


def test_outputs_python_values_become_tensors_and_none_stays():
    f = tf.function(lambda: (1, None, 2.5))
    a, b, c = f()
    assert repr(a) == "<tf.Tensor: shape=(), dtype=int32, numpy=1>"
    assert b is None and c.dtype == tf.float32


def test_returned_symbolic_tensor_does_not_leak_and_list_sees_trace_tensor():
    seen = []

    @tf.function
    def f(x):
        seen.append(x)
        return x
    f(tf.constant(5.0))
    f(tf.constant(6.0))
    assert len(seen) == 1
    assert repr(seen[0]) == "<tf.Tensor 'x:0' shape=() dtype=float32>"
    # TensorFlow 2.21: a graph tensor has no numpy().
    with pytest.raises(AttributeError, match="^'SymbolicTensor' object has no attribute 'numpy'$"):
        seen[0].numpy()


def test_captured_eager_tensor_and_variable():
    c = tf.constant(10.0)
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        return x + c + v
    assert float(f(tf.constant(1.0))) == 12.0
    v.assign(5.0)
    assert float(f(tf.constant(1.0))) == 16.0  # variables are captured by reference
    cf = f.get_concrete_function(tf.constant(1.0))
    assert len(cf.captured_inputs) == 2
    assert cf.variables == (v,)


def test_tensor_of_another_graph_raises_clear_error():
    g = tf.Graph()
    with g.as_default():
        t = tf.constant(1.0)

    @tf.function
    def f(x):
        return x + t
    # TensorFlow 2.21's TypeError (raised when the function runs, so not
    # "in user code:"), naming where the tensor was defined.
    with pytest.raises(TypeError) as info:
        f(tf.constant(1.0))
    msg = str(info.value)
    assert msg.startswith("<tf.Tensor 'Const:0' shape=() dtype=float32> is out of scope and "
                          "cannot be used here. Use return values, explicit Python locals or "
                          "TensorFlow collections to access it.\nPlease see https://www."
                          "tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_"
                          "return_values for more information.\n\n<tf.Tensor 'Const:0' "
                          "shape=() dtype=float32> was defined here:\n    File ")
    assert msg.endswith(", which is out of scope.")
    assert "cannot be accessed from here, because it was defined in <rillflow.Graph " in msg


def test_variables_created_only_on_first_trace():
    state = []

    @tf.function
    def fn(x):
        if not state:
            state.append(tf.Variable(2.0 * x))
            state.append(tf.Variable(state[0] * 3.0))
        return state[0] * x * state[1]
    assert float(fn(tf.constant(1.0))) == 12.0
    assert float(fn(tf.constant(3.0))) == 36.0

    @tf.function
    def creates_each_call(x):
        v = tf.Variable(1.0)
        v.assign_add(x)
        return v
    with pytest.raises(ValueError, match="only supports singleton tf.Variables created on the first call"):
        creates_each_call(1.0)


def test_variable_created_in_nested_trace_is_initialized():
    # Keras' Nadam builds a variable from a constant inside the train step,
    # a tf.function traced inside another: TensorFlow lifts the initializer
    # out and runs it eagerly (numbers from TensorFlow 2.21).
    state = []

    @tf.function
    def inner(x):
        if not state:
            state.append(tf.Variable(tf.constant(1.0), name="u"))
        state[0].assign(state[0] * x)
        return state[0] * 3

    @tf.function
    def outer(x):
        return inner(x) + 1
    assert [float(outer(tf.constant(2.0))), float(outer(tf.constant(2.0)))] == [7.0, 13.0]
    assert float(state[0]) == 4.0


def test_variable_created_in_nested_trace_from_its_inputs():
    # Not liftable (the initial value is the inner function's input): the
    # function initializes it on its first run, as TensorFlow's cond does.
    state = []

    @tf.function
    def inner(x):
        if not state:
            state.append(tf.Variable(x * 2))
        return state[0] * 3

    @tf.function
    def outer(x):
        return inner(x) + 1
    assert [float(outer(tf.constant(2.0))), float(outer(tf.constant(5.0)))] == [13.0, 13.0]
    assert float(state[0]) == 4.0


def test_stateful_ops_run_in_program_order():
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)

    @tf.function
    def f(x, y):
        a.assign(y * b)
        b.assign_add(x * a)
        return a + b
    assert float(f(1.0, 2.0)) == 10.0
    assert float(a) == 4.0 and float(b) == 6.0


def test_assign_add_result_is_returned_after_the_write():
    v = tf.Variable(1.0)
    f = tf.function(lambda x: v.assign_add(x))
    assert repr(f(1.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=2.0>"
    assert float(f(2.0)) == 4.0


def test_side_effect_ops_run_even_when_unused():
    v = tf.Variable(0)

    @tf.function
    def f():
        v.assign_add(1)
        return tf.constant(0)
    f()
    f()
    assert int(v) == 2


def test_python_side_effects_only_while_tracing_py_function_every_call():
    log, runs = [], []

    @tf.function
    def f(x):
        log.append("traced")
        tf.py_function(lambda t: runs.append(int(t.numpy())), inp=[x], Tout=[])
        return x
    f(tf.constant(1))
    f(tf.constant(2))
    assert log == ["traced"] and runs == [1, 2]


def test_numpy_function_gets_arrays():
    @tf.function
    def f(x):
        return tf.numpy_function(lambda a: np.sort(a), [x], tf.int32)
    np.testing.assert_array_equal(f(tf.constant([3, 1, 2])).numpy(), [1, 2, 3])


def test_run_functions_eagerly_switch():
    traces = []

    @tf.function
    def f(x):
        traces.append(tf.executing_eagerly())
        return x + 1
    f(tf.constant(1))
    f(tf.constant(1))
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        f(tf.constant(1))
        f(tf.constant(1))
    finally:
        tf.config.run_functions_eagerly(False)
    assert traces == [False, True, True]
    assert not tf.config.functions_run_eagerly()


def test_nested_function_calls_and_concrete_function_calls():
    @tf.function
    def add(a, b):
        return a + b

    @tf.function
    def dense(x, w, b):
        return add(x * w, b)
    assert float(dense(tf.constant(2.0), tf.constant(3.0), tf.constant(1.0))) == 7.0
    cf = add.get_concrete_function(tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32))

    @tf.function
    def outer(x):
        return cf(x, x)
    assert float(outer(tf.constant(4.0))) == 8.0
    ops = [n.op for n in outer.get_concrete_function(tf.constant(1.0)).graph.as_graph_def().node]
    assert "PartitionedCall" in ops


def test_methods_bind_per_instance():
    class Counter(tf.Module):
        def __init__(self, start):
            super().__init__()
            self.v = tf.Variable(start)

        @tf.function
        def inc(self, d):
            return self.v.assign_add(d)
    a, b = Counter(1.0), Counter(10.0)
    assert float(a.inc(1.0)) == 2.0
    assert float(b.inc(1.0)) == 11.0
    assert float(a.inc(1.0)) == 3.0
    assert a.inc is a.inc


def test_gradient_through_function_call():
    @tf.function
    def add(a, b):
        return a * b + b
    v = tf.Variable(3.0)
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = add(v, x)
    gv, gx = tape.gradient(y, [v, x])
    assert float(gv) == 2.0 and float(gx) == 4.0


def test_gradient_of_variable_read_inside_function():
    w = tf.Variable([[1.0, 2.0]])

    @tf.function
    def f(x):
        return tf.reduce_sum(x * w)
    with tf.GradientTape() as tape:
        y = f(tf.constant([[3.0, 4.0]]))
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [[3.0, 4.0]])


def test_tape_inside_function():
    w = tf.Variable(2.0)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = w * w * x
        g = tape.gradient(loss, w)
        w.assign_sub(0.1 * g)
        return g
    assert float(step(tf.constant(1.0))) == 4.0
    assert abs(float(w) - 1.6) < 1e-6


def test_gradient_through_nested_call_in_graph():
    @tf.function
    def sq(a):
        return a * a

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = sq(x) * 3.0
        return tape.gradient(y, x)
    assert float(f(tf.constant(2.0))) == 12.0


def test_reduce_retracing_relaxes_shapes():
    f = tf.function(lambda x: x * 2, reduce_retracing=True)
    f(tf.constant([1.0]))
    f(tf.constant([1.0, 2.0]))
    f(tf.constant([1.0, 2.0, 3.0]))
    assert f.experimental_get_tracing_count() == 2
    cf = f.get_concrete_function(tf.constant([1.0, 2.0, 3.0, 4.0]))
    assert cf.inputs[0].shape.as_list() == [None]
    g = tf.function(lambda x: x, experimental_relax_shapes=True)
    g(tf.constant([1]))
    g(tf.constant([1, 2]))
    g(tf.constant([1, 2, 3]))
    assert g.experimental_get_tracing_count() == 2


def test_retracing_warning_names_the_changing_argument(caplog):
    f = tf.function(lambda x, n: x * n)
    with caplog.at_level("WARNING", logger="tensorflow"):
        for n in range(6):
            f(tf.constant(1.0), float(n))
    messages = [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]
    # TensorFlow's warning (at the 5th and 6th retrace), with the argument named.
    assert len(messages) == 2
    assert messages[0].startswith("5 out of the last 5 calls to <function ")
    assert "in the last retrace, argument 'n' changed Python value from 3.0 to 4.0" in \
        messages[0]


def test_trace_cache_is_bounded():
    from rillflow.function import polymorphic_function as pf
    f = tf.function(lambda n: n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in range(pf._MAX_CACHE + 10):
            f(n)
    assert len(f._cache) <= pf._MAX_CACHE


def test_runtime_error_points_at_user_line():
    @tf.function
    def f(x):
        return x // tf.constant(0)   # the failing line
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(1))
    msg = str(info.value)
    assert "Integer division by zero" in msg
    assert "the failing line" in msg and "test_function.py" in msg


def test_symbolic_tensor_bool_and_iteration_are_not_allowed():
    @tf.function
    def f(x):
        if x > 0:
            return x
        return -x

    @tf.function
    def g(x):
        return [t for t in x]
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(f.python_function, autograph=False)(tf.constant(1))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(g.python_function, autograph=False)(tf.constant([1, 2]))


# --- binding, signatures and trace reuse as TensorFlow 2.21 ----------------------

def _error(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value).__name__, str(info.value)


def test_binding_errors_name_the_signature_as_tensorflow_does():
    @tf.function
    def f(x, y=3):
        return x
    assert _error(f, 1, 2, 3) == (
        "TypeError", "Binding inputs to tf.function failed due to `too many positional "
        "arguments`. Received args: (1, 2, 3) and kwargs: {} for signature: "
        "(x, y=<captured_default_value>).")
    assert _error(f, 1, z=2)[1] == (
        "Binding inputs to tf.function failed due to `got an unexpected keyword argument "
        "'z'`. Received args: (1,) and kwargs: {'z': 2} for signature: "
        "(x, y=<captured_default_value>).")

    @tf.function
    def g(x, *args, k=1, **kw):
        return x
    assert _error(g)[1].endswith("for signature: (x, *args, k=<captured_default_value>, "
                                 "**kw).")


def test_input_signature_binding_casts_like_tensorflow():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x * 2
    assert _error(f, tf.constant([1]))[1] == (
        "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(1,), "
        "dtype=tf.int32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, "
        "name=None)`. Received args: (<tf.Tensor: shape=(1,), dtype=int32, "
        "numpy=array([1], dtype=int32)>,) and kwargs: {} for signature: "
        "(x: TensorSpec(shape=(None,), dtype=tf.float32, name=None)).")

    # Parameters after the input_signature are fixed to their defaults.
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def h(a, b=2):
        return a * b
    assert float(h(1.0)) == 2.0
    assert float(h(1.0, 2)) == 2.0
    assert _error(h, 1.0, b=3)[1] == (
        "Binding inputs to tf.function failed due to `Can not cast 3 to Literal[2]`. "
        "Received args: (1.0,) and kwargs: {'b': 3} for signature: (a: TensorSpec(shape=(), "
        "dtype=tf.float32, name=None), b: Literal[2] = <captured_default_value>).")


def test_nested_input_signature_takes_python_lists_for_spec_leaves():
    @tf.function(input_signature=[[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.int32)],
                                  {"k": tf.TensorSpec([None], tf.float32)}])
    def g(a, d):
        return a[0] + tf.reduce_sum(d["k"])
    assert float(g([1.0, 2], {"k": [1.0, 2.0]})) == 4.0
    sig = ("for signature: (a: List[TensorSpec(shape=(), dtype=tf.float32, name=None), "
           "TensorSpec(shape=(), dtype=tf.int32, name=None)], d: Dict[['k', TensorSpec("
           "shape=(None,), dtype=tf.float32, name=None)]]).")
    msg = _error(g, (1.0, 2), {"k": [1.0]})[1]
    assert msg.startswith("Binding inputs to tf.function failed due to `Can not cast "
                          "(1.0, 2) to list type.`.") and msg.endswith(sig)
    msg = _error(g, [1.0, 2], {"j": [1.0]})[1]
    assert "`{'j': [1.0]} has different keys with the TraceType Dict[['k', " in msg
    assert "`Cannot convert 2.5 to EagerTensor of dtype int32`" in _error(
        g, [1.0, 2.5], {"k": [1.0]})[1]


def test_varargs_input_signature_is_positional_only():
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def h(*args):
        return args[0]
    assert _error(h, 1.0, 2.0)[1].endswith(
        "for signature: (args_0: TensorSpec(shape=(), dtype=tf.float32, name=None), /).")
    assert h.get_concrete_function().pretty_printed_signature().splitlines()[1] == (
        "  args_0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.float32, name=None)")


def test_concrete_function_call_falls_back_to_flat_signature():
    @tf.function
    def f(x, y, s=2):
        return {"a": x * s, "b": (y, x)}
    cf = f.get_concrete_function(tf.TensorSpec([None], tf.float32),
                                 tf.TensorSpec([], tf.int32))
    x, y = tf.constant([1.0]), tf.constant(1)
    # The structured signature needs `s`; the flat one takes just the tensors.
    assert cf(x, y)["a"].numpy().tolist() == [2.0]
    assert cf(x, y, 2)["a"].numpy().tolist() == [2.0]
    sig = ("for signature: (x: TensorSpec(shape=(None,), dtype=tf.float32, name=None), "
           "y: TensorSpec(shape=(), dtype=tf.int32, name=None), s: Literal[2]) -> "
           "Dict[['a', TensorSpec(shape=(None,), dtype=tf.float32, name=None)], ['b', "
           "Tuple[TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(None,), "
           "dtype=tf.float32, name=None)]]].")
    kind, msg = _error(cf, x, y, 3)
    assert kind == "TypeError"
    assert msg.startswith("Binding inputs to tf.function failed due to `Can not cast 3 to "
                          "Literal[2]`.")
    assert msg.endswith(sig + "\nFallback to flat signature also failed due to: f(x, y) "
                        "takes 2 positional arguments, got 3.")
    assert _error(cf, [1.0], 1)[1].endswith(
        "\nFallback to flat signature also failed due to: f(x, y): expected argument "
        "#0(zero-based) to be a Tensor; got list ([1.0]).")
    assert _error(cf, x, y, z=1)[1].endswith("f(x, y) got unexpected keyword arguments: z.")
    assert _error(cf, x)[1].endswith("f(x, y) missing required arguments: y.")
    kind, msg = _error(cf, x, tf.constant(1.0))
    assert kind == "InvalidArgumentError"
    assert "was expected to be a int32 tensor but is a float tensor" in msg


def test_pretty_printed_signature_forms():
    P = collections.namedtuple("P", "a b")

    @tf.function
    def f(x, p, *args, k=3):
        return x
    cf = f.get_concrete_function(tf.TensorSpec([2], tf.float32),
                                 P(tf.TensorSpec([], tf.bool), None), tf.constant(1),
                                 k=tf.TensorSpec([1], tf.int32))
    assert cf.pretty_printed_signature(verbose=False) == (
        "(x: TensorSpec(shape=(2,), dtype=tf.float32, name=None), p: P[['a', TensorSpec("
        "shape=(), dtype=tf.bool, name=None)], ['b', Literal[None]]], args_0: TensorSpec("
        "shape=(), dtype=tf.int32, name=None), /, *, k: TensorSpec(shape=(1,), "
        "dtype=tf.int32, name=None)) -> TensorSpec(shape=(2,), dtype=tf.float32, name=None)")
    assert cf.pretty_printed_signature().splitlines()[1:5] == [
        "  x (POSITIONAL_ONLY): TensorSpec(shape=(2,), dtype=tf.float32, name=None)",
        "  p (POSITIONAL_ONLY): P[['a', TensorSpec(shape=(), dtype=tf.bool, name=None)], "
        "['b', Literal[None]]]",
        "  args_0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.int32, name=None)",
        "  k (KEYWORD_ONLY): TensorSpec(shape=(1,), dtype=tf.int32, name=None)"]
    assert [t.name for t in cf.inputs] == ["x:0", "p:0", "args_0:0", "k:0"]


def test_trace_made_inside_another_function_serves_eager_calls():
    @tf.function
    def inner(x):
        return x * 2

    @tf.function
    def outer(x):
        return inner(x) + inner(x + 1)
    assert int(outer(tf.constant(1))) == 6
    assert inner.experimental_get_tracing_count() == 1
    assert int(inner(tf.constant(1))) == 2
    assert inner.experimental_get_tracing_count() == 1


def test_nested_function_capturing_an_outer_tensor():
    @tf.function(autograph=False)
    def outer(x):
        y = x * 3

        @tf.function(autograph=False)
        def closure(z):
            return z + y
        return closure(x)
    assert int(outer(tf.constant(1))) == 4
    assert int(outer(tf.constant(2))) == 8


def test_unhashable_python_arguments_are_refused():
    import dataclasses

    @dataclasses.dataclass
    class Mutable:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int
    f = tf.function(lambda v: 1)
    assert _error(f, Mutable(1)) == (
        "TypeError", "Could not generate a generic TraceType for "
        "test_unhashable_python_arguments_are_refused.<locals>.Mutable(a=1).Please verify "
        "that it is immutable/hashable. Otherwise, consider implementing the Tracing "
        "Protocol for it.")
    assert f.experimental_get_tracing_count() == 0
    f(Frozen(1))
    f(Frozen(1))
    f(Frozen(2))
    assert f.experimental_get_tracing_count() == 2


def test_error_of_a_function_autograph_could_not_convert_is_raised_as_is():
    # TensorFlow 2.21: AutoGraph cannot read exec'd source and runs the
    # function as-is; its tracing error is not wrapped in "in user code:".
    ns = {"tf": tf}
    exec("def fn(x):\n    if x > 0:\n        return x\n    return -x\n", ns)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError) as info:
        tf.function(ns["fn"])(tf.constant(1.0))
    assert str(info.value).startswith("Using a symbolic `tf.Tensor` as a Python `bool`")
