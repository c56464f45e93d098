"""Behaviour of GradientTape, Variable, Module, tf.nest and TensorShape /
TensorSpec checked against TensorFlow 2.21 (the expected values, classes and
messages below were read off TensorFlow)."""
import copy
import logging

import numpy as np
import pytest

import rillflow as tf


# --- GradientTape -------------------------------------------------------------

def test_watched_variables_come_in_creation_order():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c")
    with tf.GradientTape() as tape:
        c * b
        tape.watch(a)
    assert [v.name for v in tape.watched_variables()] == ["a:0", "b:0", "c:0"]


def test_stop_recording_on_a_tape_that_is_not_recording():
    tape = tf.GradientTape()
    with pytest.raises(RuntimeError, match="^Trying to stop recording a tape which is not "
                                           "recording.$"):
        with tape.stop_recording():
            pass


def test_unknown_unconnected_gradients_value():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="^Unknown value for unconnected_gradients: 'bogus'$"):
        tape.gradient(y, x, unconnected_gradients="bogus")


def test_gradient_argument_errors():
    x = tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(TypeError, match="Argument `target` should be a list or nested "
                                        "structure of Tensors, Variables or CompositeTensors "
                                        "to be differentiated, but received None."):
        tape.gradient(None, x)
    with pytest.raises(TypeError, match="Cannot convert the argument `type_value`: None"):
        tape.gradient(y, [x, None])
    with pytest.raises(AttributeError, match="'float' object has no attribute 'dtype'"):
        tape.gradient(y, 3.0)


def test_persistent_gradient_inside_context_logs_a_warning(caplog):
    x = tf.constant(3.0)
    with caplog.at_level("WARNING", logger="tensorflow"):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            g = tape.gradient(y, x)
    assert float(g) == 6.0
    assert len(caplog.records) == 1
    assert caplog.records[0].getMessage().startswith(
        "Calling GradientTape.gradient on a persistent tape inside its context is "
        "significantly less efficient")


def test_auto_watched_integer_variable_logs_nothing(caplog):
    v = tf.Variable(3)
    with caplog.at_level(logging.DEBUG, logger="tensorflow"):
        with tf.GradientTape() as tape:
            y = v * 2
        assert tape.gradient(y, v) is None
    assert caplog.records == []
    assert tape.watched_variables() == (v,)


def test_jacobian_without_pfor_needs_a_persistent_tape_eagerly():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="GradientTape must be created with persistent=True "
                                           "to compute the jacobian with eager execution "
                                           "enabled and with  experimental_use_pfor set to "
                                           "False."):
        tape.jacobian(y, x, experimental_use_pfor=False)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_array_equal(
        tape.jacobian(y, x, parallel_iterations=2, experimental_use_pfor=False).numpy(),
        [[2.0, 0.0], [0.0, 4.0]])


def test_jacobian_of_a_list_target_fails_like_tensorflow():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = [x * 2, x * 3]
    with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
        tape.jacobian(y, x)


def test_batch_jacobian_checks_ranks_and_batch_sizes():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2
        y2 = tf.stack([x, x], axis=1)
    with pytest.raises(ValueError, match=r"^Shape \(2,\) must have rank at least 2$"):
        tape.batch_jacobian(y, x)
    with pytest.raises(ValueError, match=r"^Shape \(2,\) must have rank at least 2$"):
        tape.batch_jacobian(y2, x)
    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.concat([x, x], axis=0)
    with pytest.raises(ValueError, match=r"Need first dimension of target shape \(\(2, 2\)\) "
                                         r"and source shape \(\(1, 2\)\) to match."):
        tape.batch_jacobian(y, x)


def test_custom_gradient_errors():
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def uses_variable(x):
        def grad(dy):
            return dy * 10.0
        return x * v, grad

    @tf.custom_gradient
    def two_inputs(x, y):
        def grad(dz):
            return dz
        return x * y, grad

    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = uses_variable(x)
        z = two_inputs(x, x + 1.0)
    with pytest.raises(TypeError, match=r"@tf.custom_gradient grad_fn must accept keyword "
                                        r"argument 'variables', since function uses "
                                        r"variables: \[<tf.Variable 'Variable:0' shape=\(\) "
                                        r"dtype=float32, numpy=3.0>\]"):
        tape.gradient(y, [x, v])
    with pytest.raises(ValueError, match="^custom_gradient function expected to return 2 "
                                         "gradients, but returned 1 instead.$"):
        tape.gradient(z, x)


def test_recompute_grad_gives_input_and_variable_gradients():
    v = tf.Variable(2.0)
    calls = []

    @tf.recompute_grad
    def f(x):
        calls.append(1)
        return x * x * v

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(y) == 18.0
    gx, gv = tape.gradient(y, [x, v])
    assert (float(gx), float(gv)) == (12.0, 9.0)
    assert len(calls) == 2   # the forward pass and the recomputation


def test_recompute_grad_inside_a_function():
    @tf.recompute_grad
    def f(x):
        return tf.exp(x) * 2.0

    @tf.function
    def g(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)
    np.testing.assert_allclose(g(tf.constant([0.0, 1.0])).numpy(), [2.0, 2.0 * np.e],
                               rtol=1e-6)


# --- Variable -----------------------------------------------------------------

def test_variable_class_and_tensor_likeness():
    v = tf.Variable(1.0)
    assert type(v).__name__ == "ResourceVariable"
    assert isinstance(v, tf.Variable) and not isinstance(v, tf.Tensor)
    assert tf.is_tensor(v)
    with pytest.raises(AttributeError, match="property 'trainable' of 'ResourceVariable' "
                                             "object has no setter"):
        v.trainable = False


def test_variable_synchronization_and_aggregation():
    v = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=tf.VariableAggregation.SUM)
    assert str(v.synchronization) == "VariableSynchronization.ON_READ"
    assert str(v.aggregation) == "VariableAggregationV2.SUM"
    w = tf.Variable(1.0)
    assert str(w.synchronization) == "VariableSynchronization.AUTO"
    assert str(w.aggregation) == "VariableAggregation.NONE"


def test_variable_constructor_errors():
    with pytest.raises(ValueError, match="The `initial_value` arg to `tf.Variable` must be "
                                         "specified except when you are not providing a "
                                         "`variable_def`. You provided neither."):
        tf.Variable(None)
    with pytest.raises(ValueError, match=r"In this `tf.Variable` creation, the initial "
                                         r"value's shape \(\(2,\)\) is not compatible with "
                                         r"the explicitly supplied `shape` argument "
                                         r"\(\(3,\)\)."):
        tf.Variable([1.0, 2.0], shape=(3,))
    with pytest.raises(ValueError, match="^initial_value: Tensor conversion requested dtype "
                                         "int32 for Tensor with dtype float32"):
        tf.Variable(tf.constant(1.5), dtype=tf.int32)
    with pytest.raises(ValueError, match="^foo: Tensor conversion requested dtype int32"):
        tf.convert_to_tensor(tf.constant(1.5), dtype=tf.int32, name="foo")


def test_variable_name_keeps_a_given_suffix():
    assert tf.Variable(1.0, name="x:0").name == "x:0:0"


def test_validate_shape_false_keeps_the_initial_shape():
    u = tf.Variable([1.0], validate_shape=False)
    assert u.shape == tf.TensorShape([1])
    with pytest.raises(ValueError, match="Shape mismatch"):
        u.assign([1.0, 2.0])
    w = tf.Variable([1, 2], shape=tf.TensorShape(None))
    w.assign([1, 2, 3])
    assert w.numpy().tolist() == [1, 2, 3]


def test_variable_messages():
    v = tf.Variable([1, 2])
    with pytest.raises(TypeError, match=r"Variable is unhashable. Instead, use variable.ref\(\) "
                                        r"as the key. \(Variable: <tf.Variable 'Variable:0'"):
        hash(v)
    with pytest.raises(ValueError, match=r"^Incompatible type conversion requested to type "
                                         r"float32 for `tf.Variable of type int32. \(Variable: "
                                         r"<tf.Variable 'Variable:0' shape=\(2,\) dtype=int32"):
        tf.convert_to_tensor(v, dtype=tf.float32)
    with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\)"):
        v == None  # noqa: E711 - TensorFlow converts None here
    with pytest.raises(RuntimeError, match="This property is not supported when eager "
                                           "execution is enabled."):
        v.initial_value
    with pytest.raises(AttributeError, match="^Tensor.op is undefined when eager execution "
                                             "is enabled.$"):
        v.op
    with pytest.raises(AttributeError, match="^Tensor.graph is undefined"):
        v.graph


def test_copy_is_the_same_variable_deepcopy_is_not():
    v = tf.Variable([1.0], name="orig")
    assert copy.copy(v) is v
    w = copy.deepcopy(v)
    w.assign([5.0])
    assert v.numpy().tolist() == [1.0] and w.name == "orig:0"


def test_sparse_reads_and_scatter_updates():
    v = tf.Variable([1.0, 2.0, 3.0])
    assert v.sparse_read([0, 2]).numpy().tolist() == [1.0, 3.0]
    assert v.gather_nd([[1]]).numpy().tolist() == [2.0]
    r = v.scatter_nd_update([[0]], [9.0])
    assert repr(r) == ("<tf.Variable 'UnreadVariable' shape=(3,) dtype=float32, "
                       "numpy=array([9., 2., 3.], dtype=float32)>")
    v.scatter_nd_add([[1]], [10.0])
    v.scatter_nd_sub([[2]], [1.0])
    v.scatter_nd_max([[0]], [4.0])
    v.scatter_nd_min([[0]], [5.0])
    assert v.numpy().tolist() == [5.0, 12.0, 2.0]


def test_variable_creation_on_a_later_trace_is_rejected():
    state = []

    @tf.function
    def f(x):
        if not state:
            state.append(tf.Variable(1.0))
        else:
            tf.Variable(5.0)
        return state[0] + x
    # The retrace that follows variable creation (on the first call) fails,
    # with TensorFlow 2.21's "in user code:" message pointing at the line.
    with pytest.raises(ValueError) as info:
        f(tf.constant(1.0))
    lines = str(info.value).splitlines()
    assert lines[0] == "in user code:"
    assert lines[2].endswith(", in f  *")
    assert lines[3:] == [
        "        tf.Variable(5.0)", "",
        "    ValueError: tf.function only supports singleton tf.Variables created on the first "
        "call. Make sure the tf.Variable is only created once or created outside tf.function. "
        "See https://www.tensorflow.org/guide/function#creating_tfvariables for more "
        "information."]


def test_while_loop_that_only_updates_a_variable():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        while v < 100.0:
            v.assign(v * 3.0)
        return v.read_value()
    assert float(f()) == 243.0


def test_custom_gradient_defined_inside_a_function_keeps_its_decorator():
    @tf.function
    def f(x):
        @tf.custom_gradient
        def clip(y):
            def grad(dy):
                return tf.clip_by_value(dy, -0.1, 0.1)
            return tf.identity(y), grad
        with tf.GradientTape() as tape:
            tape.watch(x)
            z = clip(x) * 5.0
        return tape.gradient(z, x)
    assert abs(float(f(tf.constant(1.0))) - 0.1) < 1e-7

    def times_ten(fn):
        def wrapper(*args):
            return fn(*args) * 10
        return wrapper

    @tf.function
    def g(x):
        @times_ten
        def inner(y):
            return y + 1
        return inner(x)
    assert int(g(tf.constant(1))) == 20


def test_type_spec_from_value():
    assert repr(tf.type_spec_from_value(tf.constant([1, 2]))) == \
        "TensorSpec(shape=(2,), dtype=tf.int32, name=None)"
    assert repr(tf.type_spec_from_value(np.zeros(2))) == \
        "TensorSpec(shape=(2,), dtype=tf.float64, name=None)"
    assert repr(tf.type_spec_from_value(tf.Variable(1.0))) == \
        "VariableSpec(shape=(), dtype=tf.float32, trainable=True, alias_id=None)"
    with pytest.raises(TypeError, match="Could not build a TypeSpec for <object object at "):
        tf.type_spec_from_value(object())


# --- Module -------------------------------------------------------------------

class _Dense(tf.Module):
    def __init__(self, i, o, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(tf.ones([i, o]), name="w")
            self.b = tf.Variable(tf.zeros([o]), name="b")


class _Seq(tf.Module):
    def __init__(self):
        super().__init__()
        self.l2 = _Dense(2, 1, name="dense")
        self.l1 = _Dense(3, 2, name="first")
        self.extra = [_Dense(1, 1, name="in_list"),
                      {"z": _Dense(1, 1, name="in_dict_z"), "a": _Dense(1, 1, name="in_dict_a")}]
        self.frozen = tf.Variable(1.0, trainable=False, name="frozen")
        self.alias = self.l1


def test_module_flatten_order_own_attributes_first_then_submodules():
    s = _Seq()
    assert [v.name for v in s.variables] == [
        "frozen:0", "first/b:0", "first/w:0", "in_list/b:0", "in_list/w:0", "in_dict_a/b:0",
        "in_dict_a/w:0", "in_dict_z/b:0", "in_dict_z/w:0", "dense/b:0", "dense/w:0"]
    assert [v.name for v in s.trainable_variables][0] == "first/b:0"
    assert [m.name for m in s.submodules] == [
        "first", "in_list", "in_dict_a", "in_dict_z", "dense"]
    paths = [p for p, _ in s._flatten(predicate=lambda x: isinstance(x, tf.Variable),
                                      with_path=True)]
    # With paths, a module reachable two ways (alias, l1) is reported under both.
    assert paths == [("frozen",), ("alias", "b"), ("alias", "w"), ("extra", 0, "b"),
                     ("extra", 0, "w"), ("extra", 1, "a", "b"), ("extra", 1, "a", "w"),
                     ("extra", 1, "z", "b"), ("extra", 1, "z", "w"), ("l1", "b"), ("l1", "w"),
                     ("l2", "b"), ("l2", "w")]
    assert type(s._flatten()).__name__ == "generator"
    assert [v.name for v in s._flatten(recursive=False,
                                       predicate=lambda x: isinstance(x, tf.Variable))] == \
        ["frozen:0"]


def test_module_errors():
    with pytest.raises(ValueError, match="'a.b' is not a valid module name. Module names must "
                                         "be valid Python identifiers"):
        tf.Module(name="a.b")

    class Mixed(tf.Module):
        def __init__(self):
            super().__init__()
            self.d = {"b": tf.Variable(1.0), 3: tf.Variable(2.0)}
    with pytest.raises(ValueError, match="^Error processing property 'd' of "):
        Mixed().variables


def test_module_methods_as_functions_trace_per_instance():
    class M(tf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = tf.Variable(k)
            self.traces = 0

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            self.traces += 1
            return x * self.k
    a, b = M(2.0), M(3.0)
    assert a(tf.constant([1.0])).numpy().tolist() == [2.0]
    assert b(tf.constant([1.0, 2.0])).numpy().tolist() == [3.0, 6.0]
    a(tf.constant([5.0, 6.0, 7.0]))
    assert (a.traces, b.traces) == (1, 1)


def test_concrete_function_str_and_repr():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x + 1
    cf = f.get_concrete_function()
    assert str(cf) == (
        "ConcreteFunction Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(None,), dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None")
    assert repr(cf).startswith(
        "<ConcreteFunction (x: TensorSpec(shape=(None,), dtype=tf.float32, name=None)) -> "
        "TensorSpec(shape=(None,), dtype=tf.float32, name=None) at 0x")


# --- tf.nest --------------------------------------------------------------------

def _raised(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value).__name__, str(info.value)


def test_assert_same_structure_messages():
    assert _raised(tf.nest.assert_same_structure, [1, (2, [3])], [1, (2, [3, 4])]) == (
        "ValueError",
        "The two structures don't have the same nested structure.\n\n"
        "First structure: type=list str=[1, (2, [3])]\n\n"
        "Second structure: type=list str=[1, (2, [3, 4])]\n\n"
        "More specifically: The two structures don't have the same number of elements. "
        "First structure: type=list str=[3]. Second structure: type=list str=[3, 4]\n"
        "Entire first structure:\n[., (., [.])]\n"
        "Entire second structure:\n[., (., [., .])]")
    cls, msg = _raised(tf.nest.assert_same_structure, {"a": [1], "b": (2,)},
                       {"a": [1], "b": [2]})
    assert cls == "TypeError" and (
        "More specifically: The two namedtuples don't have the same sequence type. First "
        "structure type=tuple str=(2,) has type tuple, while second structure type=list "
        "str=[2] has type list\nEntire first structure:\n{'a': [.], 'b': (.,)}") in msg
    cls, msg = _raised(tf.nest.assert_same_structure, None, [None])
    assert cls == "ValueError" and ('More specifically: Substructure "type=list str=[None]" is '
                                    'a sequence, while substructure "type=NoneType str=None" '
                                    'is not\nEntire first structure:\n.\n') in msg
    cls, msg = _raised(tf.nest.assert_same_structure, {"b": 1, "a": 2}, {"a": 1, "c": 2})
    assert cls == "ValueError" and (
        "The two dictionaries don't have the same set of keys. First structure has keys "
        "type=list str=['b', 'a'], while second structure has keys type=list str=['a', 'c']"
    ) in msg
    # Without check_types only lengths and nesting count.
    tf.nest.assert_same_structure({"a": 1}, {"b": 1}, check_types=False)
    tf.nest.assert_same_structure({"a": 1}, [1], check_types=False)
    import collections
    P = collections.namedtuple("P", ["b", "a"])
    P2 = collections.namedtuple("P", ["b", "a"])
    tf.nest.assert_same_structure(P(1, 2), P2(1, 2))
    tf.nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=1))


def test_pack_sequence_as_messages():
    assert _raised(tf.nest.pack_sequence_as, [0, 0], (1, 2, 3, 4)) == (
        "ValueError", "Could not pack sequence. Structure had 2 atoms, but flat_sequence had 4 "
        "items.  Structure: [0, 0], flat_sequence: (1, 2, 3, 4).")
    assert _raised(tf.nest.pack_sequence_as, [0, {"a": 0}], [1]) == (
        "ValueError", "Could not pack sequence. Structure had 2 atoms, but flat_sequence had 1 "
        "items.  Structure: [0, {'a': 0}], flat_sequence: [1].")
    assert _raised(tf.nest.pack_sequence_as, 0, []) == (
        "ValueError", "The target structure is of type `<class 'int'>`\n  0\nHowever the input "
        "is a sequence (<class 'list'>) of length 0.\n  []\nnest cannot guarantee that it is "
        "safe to map one to the other.")
    assert _raised(tf.nest.pack_sequence_as, [0], None) == (
        "TypeError", "Attempted to pack value:\n  None\ninto a structure, but found "
        "incompatible type `<class 'NoneType'>` instead.")
    assert _raised(tf.nest.pack_sequence_as, {"b": 1, 2: 3}, [4, 5]) == (
        "TypeError", "nest only supports dicts with sortable keys.")
    assert tf.nest.pack_sequence_as(0, (7,)) == 7


def test_nest_flatten_and_map_structure_details():
    with pytest.raises(TypeError, match="'<' not supported between instances of"):
        tf.nest.flatten({1: "a", "x": "b"})
    with pytest.raises(ValueError, match="^Only valid keyword arguments are `check_types` and "
                                         "`expand_composites`, not: `foo`$"):
        tf.nest.map_structure(lambda x: x, [1], foo=1)
    import collections
    d = collections.defaultdict(list, b=1, a=2)
    out = tf.nest.map_structure(lambda x: x + 1, d)
    assert type(out) is collections.defaultdict and out.default_factory is list
    assert dict(out) == {"b": 2, "a": 3}


# --- TensorShape / TensorSpec -----------------------------------------------------

def test_tensor_shape_dims_are_dimensions():
    s = tf.TensorShape([2, None])
    assert repr(s.dims) == "[Dimension(2), Dimension(None)]"
    assert list(s) == [2, None] and s[0] == 2
    d = tf.compat.v1.Dimension(3)
    u = tf.compat.v1.Dimension(None)
    assert (str(d), str(u), d == 3, d == u, repr(d + u), str(d * 2), str(3 + d)) == \
        ("3", "?", True, None, "Dimension(None)", "6", "6")
    assert str(d.merge_with(u)) == "3" and tf.compat.v1.dimension_value(d) == 3
    with pytest.raises(ValueError, match="^Dimensions 3 and 4 are not compatible$"):
        d.merge_with(4)
    assert str(tf.TensorShape([d, None])) == "(3, None)"


def test_tensor_shape_messages_and_supertypes():
    with pytest.raises(ValueError, match=r"^Shapes \(2, 3\) and \(2,\) are not compatible$"):
        tf.TensorShape([2, 3]).merge_with(tf.TensorShape([2]))
    with pytest.raises(TypeError, match=r"^Dimension value must be integer or None or have an "
                                        r"__index__ method, got value '1.5' with type "
                                        r"'<class 'float'>'$"):
        tf.TensorShape([1.5])
    with pytest.raises(TypeError, match=r"^Failed to convert ''abc'' to a shape: ''a''could "
                                        r"not be converted to a dimension."):
        tf.TensorShape("abc")
    a = tf.TensorShape([None, 3])
    assert str(a.most_specific_common_supertype([tf.TensorShape([2, 3]),
                                                 tf.TensorShape([2, 4])])) == "(None, None)"
    assert str(tf.TensorShape([2, 3]).most_specific_common_supertype(
        [tf.TensorShape(None)])) == "<unknown>"
    with pytest.raises(TypeError, match=r"^Cannot convert the argument `type_value`: 'nope' "
                                        r"to a TensorFlow DType.$"):
        tf.TensorSpec([1], "nope")


def test_tensor_spec_compatibility_only_with_tensors_and_specs():
    s = tf.TensorSpec([None, 3], tf.float32)
    assert s.is_compatible_with(tf.constant([[1.0, 2.0, 3.0]]))
    assert s.is_compatible_with(tf.TensorSpec([2, 3]))
    assert not s.is_compatible_with(tf.constant([[1, 2, 3]]))
    assert not s.is_compatible_with(np.zeros([2, 3], np.float32))
    assert not s.is_compatible_with([[1.0, 2.0, 3.0]])
    assert not s.is_compatible_with(tf.Variable([[1.0, 2.0, 3.0]]))
    assert tf.TensorSpec([2]).most_specific_common_supertype(
        [tf.TensorSpec([2], name="x")]) is None
    assert repr(tf.TensorSpec([2], name="x").most_specific_common_supertype(
        [tf.TensorSpec([3], name="x")])) == "TensorSpec(shape=(None,), dtype=tf.float32, name='x')"
