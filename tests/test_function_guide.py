"""The cells of tensorflow.org's tf.function guides ("Better performance with
tf.function", "Introduction to graphs and tf.function") that print what
TensorFlow prints: every expected text here was printed by TensorFlow 2.21
for the same code. Also: concurrent first calls of one function trace once."""
import re
import threading
import time
import traceback

import numpy as np
import pytest

import rillflow as tf

_SPEC = "TensorSpec(shape=(), dtype=tf.%s, name=None)"


def _double():
    @tf.function
    def double(a):
        return a + a
    return double


# --- signatures ------------------------------------------------------------------

def test_pretty_printed_concrete_signatures():
    double = _double()
    assert double.pretty_printed_concrete_signatures() == ""
    for x in (tf.constant(1), tf.constant(1.1), tf.constant("a"), tf.constant("b")):
        double(x)
    blocks = ["Input Parameters:\n  a (POSITIONAL_OR_KEYWORD): %s\nOutput Type:\n  %s\n"
              "Captures:\n  None" % (_SPEC % d, _SPEC % d) for d in ("int32", "float32", "string")]
    assert double.pretty_printed_concrete_signatures() == "\n\n".join(blocks)
    assert double.pretty_printed_concrete_signatures(verbose=False) == "\n".join(
        "(a: %s) -> %s" % (_SPEC % d, _SPEC % d) for d in ("int32", "float32", "string"))


def test_concrete_function_type_prints_as_tensorflow():
    cf = _double().get_concrete_function(tf.constant("a"))
    ft = cf.function_type
    assert isinstance(ft, tf.types.experimental.FunctionType)
    assert str(ft) == "(a: %s) -> %s" % (_SPEC % "string", _SPEC % "string")
    assert repr(ft) == ("Input Parameters:\n  a (POSITIONAL_OR_KEYWORD): %s\nOutput Type:\n  %s\n"
                        "Captures:\n  None" % (_SPEC % "string", _SPEC % "string"))
    assert repr(list(ft.parameters.values())) == (
        "[Parameter(name=a, kind=POSITIONAL_OR_KEYWORD, optional=False, type_constraint=%s)]"
        % (_SPEC % "string"))
    assert str(cf) == "ConcreteFunction " + repr(ft)
    # The placeholders keep their names; the FunctionType's specs have none.
    assert repr(cf.structured_input_signature) == (
        "((TensorSpec(shape=(), dtype=tf.string, name='a'),), {})")


def test_concrete_function_wrong_dtype_messages():
    cf = _double().get_concrete_function(tf.constant("a"))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        cf(tf.constant(1))
    assert re.fullmatch(r"cannot compute (__inference_double_\d+) as input #0\(zero-based\) was "
                        r"expected to be a string tensor but is a int32 tensor \[Op:\1\]",
                        str(info.value))
    assert str(info.value.__context__) == (
        "Binding inputs to tf.function failed due to `Can not cast %s to %s`. Received args: "
        "(<tf.Tensor: shape=(), dtype=int32, numpy=1>,) and kwargs: {} for signature: "
        "(a: %s) -> %s." % (_SPEC % "int32", _SPEC % "string", _SPEC % "string",
                            _SPEC % "string"))


def _chain(e):
    out = []
    while e is not None:
        out.append((type(e).__name__, str(e), e.__cause__ is not None, e.__suppress_context__))
        e = e.__cause__ or e.__context__
    return out


def test_concrete_function_binding_error_chain():
    # The guide's `square(tf.constant(10.0), b=3)`: TensorFlow 2.21's chain of
    # exceptions (the structured binding, its cause, the flat signature's).
    @tf.function
    def pow(a, b=2):
        return a ** b
    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32))
    binding = ("Binding inputs to tf.function failed due to `Can not cast 3 to Literal[2]`. "
               "Received args: (<tf.Tensor: shape=(), dtype=float32, numpy=10.0>,) and kwargs: "
               "{'b': 3} for signature: (a: TensorSpec(shape=<unknown>, dtype=tf.float32, "
               "name=None), b: Literal[2]) -> TensorSpec(shape=<unknown>, dtype=tf.float32, "
               "name=None).")
    with pytest.raises(TypeError) as info:
        square(tf.constant(10.0), b=3)
    assert _chain(info.value) == [
        ("TypeError", binding + "\nFallback to flat signature also failed due to: pow(a) got "
                                "unexpected keyword arguments: b.", False, False),
        ("TypeError", "pow(a) got unexpected keyword arguments: b.", False, False),
        ("TypeError", binding, True, True),
        ("ValueError", "Can not cast 3 to Literal[2]", False, False)]
    # A Function call shows no chain (TensorFlow raises it `from None`).
    with pytest.raises(TypeError) as info:
        pow(tf.constant(1.0), b=tf.constant(2.0), c=1)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_named_input_signature_keeps_its_names():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32, name="x")])
    def g(x):
        return x
    with pytest.raises(TypeError) as info:
        g(tf.constant([1.0]))
    assert str(info.value) == (
        "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(1,), "
        "dtype=tf.float32, name='x') to TensorSpec(shape=(None,), dtype=tf.int32, name='x')`. "
        "Received args: (<tf.Tensor: shape=(1,), dtype=float32, numpy=array([1.], "
        "dtype=float32)>,) and kwargs: {} for signature: (x: TensorSpec(shape=(None,), "
        "dtype=tf.int32, name='x')).")
    assert str(g.get_concrete_function().function_type) == (
        "(x: TensorSpec(shape=(None,), dtype=tf.int32, name='x')) -> "
        "TensorSpec(shape=(None,), dtype=tf.int32, name=None)")


def test_inference_fn_is_an_atomic_function():
    cf = _double().get_concrete_function(tf.constant("a"))
    atomic = cf.inference_fn
    assert isinstance(atomic, tf.types.experimental.AtomicFunction)
    assert repr(atomic(tf.constant("a"))) == "<tf.Tensor: shape=(), dtype=string, numpy=b'aa'>"
    assert atomic.name == cf.name.encode()
    assert re.fullmatch(r"<AtomicFunction> __inference_double_\d+\(a: %s\) -> %s" % (
        re.escape(_SPEC % "string"), re.escape(_SPEC % "string")), str(atomic))


# --- tf.types.experimental -----------------------------------------------------------

def test_types_experimental_names_and_isinstance():
    te = tf.types.experimental
    assert [n for n in dir(te) if not n.startswith("_")] == [
        "AtomicFunction", "Callable", "ConcreteFunction", "FunctionType", "GenericFunction",
        "PolymorphicFunction", "SupportsTracingProtocol", "TensorLike", "TraceType",
        "distributed"]
    double = _double()
    cf = double.get_concrete_function(tf.constant(1))
    assert te.GenericFunction is te.PolymorphicFunction
    assert isinstance(double, te.PolymorphicFunction) and isinstance(double, te.Callable)
    assert isinstance(cf, te.ConcreteFunction) and isinstance(cf, te.Callable)
    assert not isinstance(cf, te.AtomicFunction)
    assert isinstance(tf.TensorSpec([]), te.TraceType)
    assert str(double.function_type) == "(a)"

    class WithType:
        def __tf_tracing_type__(self, context):
            return None
    assert isinstance(WithType(), te.SupportsTracingProtocol)
    assert not isinstance(1, te.SupportsTracingProtocol)

    class Incomplete(te.TraceType):
        pass
    with pytest.raises(TypeError, match="^Can't instantiate abstract class Incomplete with "
                                        "abstract methods __eq__, __hash__, is_subtype_of, "
                                        "most_specific_common_supertype, placeholder_value$"):
        Incomplete()


def test_custom_trace_type_reuses_the_trace():
    # The guide's Fruit example: TensorFlow 2.21 traces 3 times.
    @tf.function
    def get_mixed_flavor(fruit_a, fruit_b):
        return fruit_a.flavor + fruit_b.flavor

    class Fruit:
        flavor = tf.constant([0, 0])

    class Apple(Fruit):
        flavor = tf.constant([1, 2])

    class Mango(Fruit):
        flavor = tf.constant([3, 4])

    get_mixed_flavor(Apple(), Mango())
    get_mixed_flavor(Apple(), Mango())

    class FruitTraceType(tf.types.experimental.TraceType):
        def __init__(self, fruit):
            self.fruit_type = type(fruit)
            self.fruit_value = fruit

        def is_subtype_of(self, other):
            return type(other) is FruitTraceType and self.fruit_type is other.fruit_type

        def most_specific_common_supertype(self, others):
            return self if all(self == other for other in others) else None

        def placeholder_value(self, placeholder_context=None):
            return self.fruit_value

        def __eq__(self, other):
            return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

        def __hash__(self):
            return hash(self.fruit_type)

    class FruitWithTraceType:
        def __tf_tracing_type__(self, context):
            return FruitTraceType(self)

    class AppleWithTraceType(FruitWithTraceType):
        flavor = tf.constant([1, 2])

    class MangoWithTraceType(FruitWithTraceType):
        flavor = tf.constant([3, 4])

    get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType())
    result = get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType())
    assert repr(result) == "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([4, 6], " \
                           "dtype=int32)>"
    assert get_mixed_flavor.experimental_get_tracing_count() == 3
    assert isinstance(FruitTraceType(Apple()), tf.types.experimental.TraceType)


# --- py_function as a decorator ---------------------------------------------------------

def test_py_function_decorator(capsys):
    @tf.py_function(Tout=tf.float32)
    def py_plus(x, y):
        print("Executing eagerly.")
        return x + y

    @tf.function
    def tf_wrapper(x, y):
        print("Tracing.")
        return py_plus(x, y)

    assert py_plus.__name__ == "py_plus"
    assert repr(tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy()) == "np.float32(3.0)"
    assert repr(tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy()) == "np.float32(3.0)"
    assert capsys.readouterr().out == "Tracing.\nExecuting eagerly.\nExecuting eagerly.\n"
    assert repr(py_plus(1.0, 2.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=3.0>"
    with pytest.raises(TypeError, match=r"py_plus\(\) got an unexpected keyword argument 'y'$"):
        py_plus(1.0, y=2.0)


@pytest.mark.parametrize("api", ["py_function", "numpy_function"])
def test_py_function_argument_errors(api):
    fn = getattr(tf, api)
    with pytest.raises(TypeError) as info:
        fn(lambda x: x, Tout=tf.float32)
    assert str(info.value) == (
        "Missing argument `inp`:\n  You must set the `inp` argument (the list of arguments to "
        "the\n  function), unless you use `tf.%s` as a decorator(`func=None`)." % api)
    with pytest.raises(TypeError) as info:
        fn(Tout=tf.float32, inp=[1.0])
    assert str(info.value) == ("Don't set the `inp` argument when using tf.%s as a decorator "
                               "(`func=None`)." % api)


# --- graph tensors outside their function ---------------------------------------------------

def test_leaked_tensor_numpy_and_capture():
    leaked = []

    @tf.function
    def leaky_function(a):
        leaked.append(a + 1)
        return a + 2

    assert leaky_function(tf.constant(1)).numpy() == 3
    with pytest.raises(AttributeError) as info:
        leaked[0].numpy()
    assert str(info.value) == "'SymbolicTensor' object has no attribute 'numpy'"

    @tf.function
    def captures_leaked_tensor(b):
        b += leaked[0]
        return b
    with pytest.raises(TypeError) as info:
        captures_leaked_tensor(tf.constant(2))
    msg = str(info.value)
    assert msg.startswith(
        "<tf.Tensor 'add:0' shape=() dtype=int32> is out of scope and cannot be used here. Use "
        "return values, explicit Python locals or TensorFlow collections to access it.\nPlease "
        "see https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_"
        "return_values for more information.\n\n<tf.Tensor 'add:0' shape=() dtype=int32> was "
        "defined here:\n")
    assert re.search(r"\n\nThe tensor <tf.Tensor 'add:0' shape=\(\) dtype=int32> cannot be "
                     r"accessed from here, because it was defined in FuncGraph\("
                     r"name=leaky_function, id=\d+\), which is out of scope.$", msg)


# --- errors raised while tracing: "in user code:" ---------------------------------------------

def _raises(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 (the test looks at any exception)
        return e
    raise AssertionError("no exception")


def _frames(message):
    """The frame lines of an "in user code:" message, file names shortened."""
    return [re.sub(r'File "[^"]*"', 'File "X"', line) for line in message.split("\n")]


def test_variable_created_on_retrace_in_user_code():
    # The guide's cell: a variable created on every call.
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v

    e = _raises(f, 1.0)
    assert type(e) is ValueError
    assert _frames(str(e)) == [
        "in user code:", "",
        '    File "X", line %d, in f  *' % (f.python_function.__code__.co_firstlineno + 2),
        "        v = tf.Variable(1.0)", "",
        "    ValueError: tf.function only supports singleton tf.Variables created on the first "
        "call. Make sure the tf.Variable is only created once or created outside tf.function. "
        "See https://www.tensorflow.org/guide/function#creating_tfvariables for more "
        "information.", ""]
    assert e.__cause__ is None and e.__suppress_context__


def _helper(x):
    return x.foo


def test_user_code_frames_of_called_functions_and_branches():
    @tf.function
    def h(x):
        for i in range(2):
            if i > 0:
                y = _helper(x)
        return y

    e = _raises(h, tf.constant(1))
    assert type(e) is AttributeError
    first = h.python_function.__code__.co_firstlineno
    assert _frames(str(e)) == [
        "in user code:", "",
        '    File "X", line %d, in h  *' % (first + 4), "        y = _helper(x)",
        '    File "X", line %d, in _helper  *' % (_helper.__code__.co_firstlineno + 1),
        "        return x.foo", "",
        "    AttributeError: 'SymbolicTensor' object has no attribute 'foo'", ""]
    # The traceback shows the user's frames only (and the one re-raising it,
    # as TensorFlow's shows its error handler's).
    frames = traceback.extract_tb(e.__traceback__)
    framework = [fr for fr in frames if "/rillflow/" in fr.filename]
    assert [fr.name for fr in framework] == ["__call__"]
    user = [fr.name for fr in frames if fr not in framework]
    assert "h" in user and user[-1] == "_helper"


def test_nested_functions_and_op_errors_in_user_code():
    @tf.function
    def inner(x):
        return tf.reshape(x, [3])

    @tf.function
    def outer(x):
        return inner(x)

    for call in (lambda: outer(tf.constant([1, 2])),
                 lambda: outer.get_concrete_function(tf.constant([1, 2]))):
        e = _raises(call)
        assert type(e) is ValueError
        lines = _frames(str(e))
        assert lines[:6] == [
            "in user code:", "",
            '    File "X", line %d, in outer  *' % (outer.python_function.__code__
                                                    .co_firstlineno + 2),
            "        return inner(x)",
            '    File "X", line %d, in inner  *' % (inner.python_function.__code__
                                                    .co_firstlineno + 2),
            "        return tf.reshape(x, [3])"]
        # (TensorFlow's node text also lists attrs and partial shapes.)
        assert lines[6] == ""
        assert lines[7].startswith("    ValueError: Cannot reshape a tensor with 2 elements to "
                                   "shape [3] (3 elements) for '{{node Reshape}} = Reshape")
        assert lines[8:] == [""]


class _PlainError(Exception):
    pass


class _ErrorWithArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


@pytest.mark.parametrize("exc,cls,text", [
    (ValueError("a\nb\n  c"), ValueError, "ValueError: a\n    b\n      c"),
    (KeyError("k"), KeyError, "KeyError: 'k'"),
    (RuntimeError("r"), RuntimeError, "RuntimeError: r"),
    (_PlainError("p"), _PlainError, "_PlainError: p"),
    (tf.errors.InvalidArgumentError(None, None, "ia"), tf.errors.InvalidArgumentError,
     "InvalidArgumentError: ia"),
    (ZeroDivisionError("z"), "StagingError", "ZeroDivisionError: z"),
    (_ErrorWithArgs(1, 2), "StagingError", "_ErrorWithArgs: (1, 2)"),
    (RecursionError("rec"), "StagingError", "RecursionError: rec"),
])
def test_in_user_code_exception_classes(exc, cls, text):
    @tf.function
    def f(x):
        raise exc

    e = _raises(f, tf.constant(1))
    if cls == "StagingError":
        assert type(e).__name__ == "StagingError"
    else:
        assert type(e).__name__ == cls.__name__ and isinstance(e, cls)
    lines = _frames(str(e))
    assert lines[:4] == ["in user code:", "", '    File "X", line %d, in f  *' % (
        f.python_function.__code__.co_firstlineno + 2), "        raise exc"]
    assert "\n".join(lines[5:]) == "    " + text + "\n"


def test_without_autograph_the_message_is_unchanged():
    @tf.function(autograph=False)
    def g(x):
        raise ValueError("noag")
    e = _raises(g, tf.constant(1))
    assert type(e) is ValueError and str(e) == "noag"


def _recursive_by_alias():
    # Recursion through a local alias (the guide's cell; the module-level
    # function calling itself by its own name is tested below).
    @tf.function
    def recursive_fn(n):
        if n > 0:
            print("tracing")
            return alias(n - 1)
        else:
            return 1
    alias = recursive_fn
    return recursive_fn


def test_recursive_function_retraces_for_python_values(capsys):
    recursive_fn = _recursive_by_alias()
    assert repr(recursive_fn(5)) == "<tf.Tensor: shape=(), dtype=int32, numpy=1>"
    assert capsys.readouterr().out == "tracing\n" * 5


def test_recursive_function_with_tensor_is_a_staging_error():
    recursive_fn = _recursive_by_alias()
    e = _raises(recursive_fn, tf.constant(5))
    assert type(e).__name__ == "StagingError"
    msg = str(e)
    assert msg.startswith("in user code:\n\n    File ")
    assert msg.endswith("\n\n    RecursionError: maximum recursion depth exceeded while calling "
                        "a Python object\n") or msg.endswith(
        "\n\n    RecursionError: maximum recursion depth exceeded\n")


@tf.function
def _recursive_global(n):
    if n > 0:
        return _recursive_global(n - 1)
    else:
        return 1


def test_recursive_function_by_its_own_name():
    # TensorFlow 2.21: tf.Tensor(1), traced for n = 5, 4, ..., 0.
    assert int(_recursive_global(5)) == 1


# --- logging --------------------------------------------------------------------------------

def test_logger_prints_tensorflow_prefix(capsys):
    tf.get_logger().warning("hello %s", 1)
    assert capsys.readouterr().err == "WARNING:tensorflow:hello 1\n"


_RETRACING = (
    "{} out of the last {} calls to {!r} triggered tf.function retracing. Tracing is expensive "
    "and the excessive number of tracings could be due to (1) creating @tf.function repeatedly "
    "in a loop, (2) passing tensors with different shapes, (3) passing Python objects instead "
    "of tensors. For (1), please define your @tf.function outside of the loop. For (2), "
    "@tf.function has reduce_retracing=True option that can avoid unnecessary retracing. For "
    "(3), please refer to https://www.tensorflow.org/guide/function#controlling_retracing and "
    "https://www.tensorflow.org/api_docs/python/tf/function for  more details.")


def _retracing_messages(caplog):
    return [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]


def test_retracing_warning(caplog):
    def f(x):
        return x + 1
    fn = tf.function(f)
    with caplog.at_level("WARNING", logger="tensorflow"):
        for v in [1, 2, 2, 3, 4, 5, 6, 7]:
            fn(v)
    messages = _retracing_messages(caplog)
    # At most two warnings per Python function, as TensorFlow 2.21.
    assert len(messages) == 2
    assert messages[0].startswith(_RETRACING.format(5, 6, f))
    assert messages[1].startswith(_RETRACING.format(6, 7, f))
    assert messages[0].endswith(" (rillflow: in the last retrace, argument 'x' changed Python "
                                "value from 4 to 5.)")
    assert caplog.records[0].levelname == "WARNING" and caplog.records[0].name == "tensorflow"


def test_retracing_warning_counts_new_functions_of_one_python_function(caplog):
    def py(x):
        return x * 2
    with caplog.at_level("WARNING", logger="tensorflow"):
        for i in range(7):
            tf.function(py)(i)
    messages = _retracing_messages(caplog)
    assert [m[:len(_RETRACING.format(5, 5, py))] for m in messages] == [
        _RETRACING.format(5, 5, py), _RETRACING.format(6, 6, py)]


def test_no_retracing_warning_for_concrete_functions_or_nested_calls(caplog):
    def f(x):
        return x + 1
    fn = tf.function(f)
    inner = tf.function(lambda x: x - 1)

    @tf.function
    def outer():
        for i in range(7):
            inner(i)
        return 0
    with caplog.at_level("WARNING", logger="tensorflow"):
        for v in range(7):
            fn.get_concrete_function(v)
        outer()
    assert _retracing_messages(caplog) == []


# --- threads ------------------------------------------------------------------------------------

def test_concurrent_first_calls_trace_once():
    traces = []

    @tf.function
    def f(x):
        traces.append(threading.get_ident())
        time.sleep(0.02)  # a slow trace: the other threads arrive meanwhile
        return x * 2

    n = 8
    barrier = threading.Barrier(n)
    results = [None] * n

    def worker(i):
        barrier.wait()
        results[i] = f(tf.constant(1.0)).numpy()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert results == [np.float32(2.0)] * n
    assert len(traces) == 1
    assert f.experimental_get_tracing_count() == 1


def test_other_signatures_do_not_wait_for_a_trace():
    started, release = threading.Event(), threading.Event()

    @tf.function
    def g(x, slow):
        if slow:
            started.set()
            release.wait(10)
        return x + 1

    g(tf.constant(0), False)   # the first trace (the one that may create variables)
    slow = threading.Thread(target=lambda: g(tf.constant(1), True))
    slow.start()
    try:
        assert started.wait(10)
        # Traced and run while the other trace is still in progress.
        assert g(tf.constant(1.0), False).numpy() == 2.0
        assert g(tf.constant(5), False).numpy() == 6
        assert not release.is_set() and slow.is_alive()
    finally:
        release.set()
        slow.join(10)
    assert g.experimental_get_tracing_count() == 3


def test_a_failed_trace_lets_waiting_threads_trace():
    calls = []
    gate = threading.Event()

    @tf.function
    def f(x):
        calls.append(1)
        if len(calls) == 1:
            gate.wait(10)
            raise ValueError("first trace fails")
        return x

    errors = []

    def first():
        try:
            f(tf.constant(1))
        except ValueError as e:
            errors.append(e)

    t = threading.Thread(target=first)
    t.start()
    while not calls:
        time.sleep(0.001)
    waiter_result = []
    w = threading.Thread(target=lambda: waiter_result.append(int(f(tf.constant(2)))))
    w.start()
    gate.set()
    t.join(10)
    w.join(10)
    assert len(errors) == 1 and waiter_result == [2]
    assert f.experimental_get_tracing_count() == 2


def test_deepcopy_gives_a_new_function():
    import copy
    f = tf.function(lambda x: x + 1)
    f(tf.constant(1))
    g = copy.deepcopy(f)
    assert g is not f and int(g(tf.constant(2))) == 3
    assert g.experimental_get_tracing_count() == 1 and f.experimental_get_tracing_count() == 1
