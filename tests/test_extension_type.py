"""tf.experimental.ExtensionType: fields, conversion, immutability, Spec,
tf.nest and tf.function. Reprs, values and messages were recorded from
TensorFlow 2.21 (the same code run with `import tensorflow as tf`)."""
import typing
from typing import Mapping, Optional, Tuple, Union

import numpy as np
import pytest

import rillflow as tf


class MaskedTensor(tf.experimental.ExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    def __validate__(self):
        self.values.shape.assert_is_compatible_with(self.mask.shape)
        assert self.mask.dtype.is_bool, 'mask.dtype must be bool'


class Pet(tf.experimental.ExtensionType):
    name: str
    age: int = 3
    nick: Optional[str] = None
    shape: tf.TensorShape = None
    dt: tf.DType = tf.float32
    tags: Tuple[str, ...] = ()
    attrs: Mapping[str, tf.Tensor] = {}
    u: Union[int, float] = 1


class Net(tf.experimental.ExtensionType):
    mt: MaskedTensor
    scale: float = 1.0


def _mt():
    return MaskedTensor(values=[[1, 2, 3], [4, 5, 6]],
                        mask=[[True, True, False], [True, False, True]])


MT_REPR = ("MaskedTensor(values=<tf.Tensor: shape=(2, 3), dtype=int32, numpy=\n"
           "array([[1, 2, 3],\n       [4, 5, 6]], dtype=int32)>, mask=<tf.Tensor: shape=(2, 3),"
           " dtype=bool, numpy=\narray([[ True,  True, False],\n       [ True, False,  True]])>)")
MT_SPEC = ("MaskedTensor.Spec(values=TensorSpec(shape=(2, 3), dtype=tf.int32, name=None), "
           "mask=TensorSpec(shape=(2, 3), dtype=tf.bool, name=None))")


def test_fields_repr_and_conversion():
    mt = _mt()
    assert repr(mt) == MT_REPR
    assert mt.values.dtype == tf.int32 and mt.mask.dtype == tf.bool
    assert repr(Pet("rex")) == ("Pet(name='rex', age=3, nick=None, shape=TensorShape(None), "
                                "dt=tf.float32, tags=(), attrs=ImmutableDict({}), u=1)")
    assert repr(Pet("rex", 4, "r", [2, None], tf.int32, ("a",), {"k": 3}, 2.5)) == (
        "Pet(name='rex', age=4, nick='r', shape=TensorShape([2, None]), dt=tf.int32, "
        "tags=('a',), attrs=ImmutableDict({'k': <tf.Tensor: shape=(), dtype=int32, "
        "numpy=3>}), u=2.5)")
    assert Pet("a", tags=["a"]).tags == ("a",)
    assert Pet("a", dt="int32").dt == tf.int32
    assert repr(Pet("a", shape=3).shape) == "TensorShape([3])"
    assert type(Pet("a", attrs={"k": 3}).attrs).__name__ == "ImmutableDict"


@pytest.mark.parametrize("make, cls, message", [
    (lambda: Pet(3), TypeError, "name: expected 'str', got 'int'"),
    (lambda: Pet("a", age="x"), TypeError, "age: expected 'int', got 'str'"),
    (lambda: Pet("a", tags=("a", 1)), TypeError, "tags[1]: expected 'str', got 'int'"),
    (lambda: Pet("a", u="s"), TypeError,
     "u: expected typing.Union[int, float], got 'str'"),
    (lambda: Net(3), TypeError, "mt: expected 'MaskedTensor', got 'int'"),
    (lambda: MaskedTensor([1, 2]), TypeError, "missing a required argument: 'mask'"),
    (lambda: MaskedTensor([1, 2], [True, False, True]), ValueError,
     "Shapes (2,) and (3,) are incompatible"),
    (lambda: MaskedTensor([1, 2], [1, 0]), AssertionError, "mask.dtype must be bool"),
])
def test_bad_fields(make, cls, message):
    with pytest.raises(cls) as e:
        make()
    # (pytest rewrites the assert in __validate__ and appends its explanation)
    assert str(e.value).splitlines()[0] == message


def test_immutable():
    mt = _mt()
    for action in (lambda: setattr(mt, "mask", [False, True]), lambda: delattr(mt, "mask")):
        with pytest.raises(AttributeError) as e:
            action()
        assert str(e.value) == ("Cannot mutate attribute `mask` outside the custom "
                                "constructor of ExtensionType.")
    with pytest.raises(AttributeError, match="'ImmutableDict' object has no attribute "
                                             "'__setitem__'"):
        Pet("a", attrs={"k": 3}).attrs.__setitem__("j", 1)


def test_custom_constructor():
    class Scaled(tf.experimental.ExtensionType):
        x: tf.Tensor
        k: float

        def __init__(self, x, k=2.0):
            self.x = tf.constant(x) * k
            self.k = k
    s = Scaled([1., 2.])
    assert s.x.numpy().tolist() == [2., 4.] and s.k == 2.0
    with pytest.raises(AttributeError):
        s.k = 3.0


def test_eq():
    assert bool(_mt() == _mt())
    other = MaskedTensor([[1, 2, 3], [4, 5, 7]], [[True, True, False], [True, False, True]])
    assert not bool(_mt() == other)
    assert (Pet("a") == Pet("b")) is False


def test_spec():
    mt = _mt()
    assert MaskedTensor.__name__ == "MaskedTensor"
    assert MaskedTensor.Spec.__name__ == "MaskedTensor.Spec"
    assert MaskedTensor.Spec.__qualname__ == "MaskedTensor.Spec"
    assert repr(tf.type_spec_from_value(mt)) == MT_SPEC
    assert repr(Net(mt)._type_spec) == (
        "Net.Spec(mt=" + MT_SPEC + ", scale=1.0)")
    spec = tf.type_spec_from_value(mt)
    assert repr(spec.values) == "TensorSpec(shape=(2, 3), dtype=tf.int32, name=None)"
    s = MaskedTensor.Spec(values=tf.TensorSpec([None], tf.float32),
                          mask=tf.TensorSpec([None], tf.bool))
    assert repr(s) == ("MaskedTensor.Spec(values=TensorSpec(shape=(None,), dtype=tf.float32, "
                       "name=None), mask=TensorSpec(shape=(None,), dtype=tf.bool, name=None))")
    assert spec == tf.type_spec_from_value(_mt()) and hash(spec) == hash(mt._type_spec)


def test_nest():
    mt = _mt()
    flat = tf.nest.flatten(mt, expand_composites=True)
    assert [t.numpy().tolist() for t in flat] == [[[1, 2, 3], [4, 5, 6]],
                                                  [[True, True, False], [True, False, True]]]
    doubled = tf.nest.map_structure(lambda x: x * 2 if x.dtype == tf.int32 else x, mt,
                                    expand_composites=True)
    assert type(doubled) is MaskedTensor
    assert doubled.values.numpy().tolist() == [[2, 4, 6], [8, 10, 12]]
    assert tf.nest.flatten(mt) == [mt]
    n = Net(mt)
    assert len(tf.nest.flatten(n, expand_composites=True)) == 2


def test_tf_function_arguments_and_results():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        return MaskedTensor(x.values + 1, x.mask)
    out = f(_mt())
    assert type(out) is MaskedTensor
    assert out.values.numpy().tolist() == [[2, 3, 4], [5, 6, 7]]
    f(MaskedTensor([[7, 8, 9], [1, 1, 1]], [[True] * 3] * 2))
    assert len(traces) == 1            # same spec: no retrace (TF 2.21: 1)
    f(MaskedTensor([7, 8], [True, True]))
    assert len(traces) == 2            # new shapes: a new trace (TF 2.21: 2)
    g = tf.function(lambda x: x.values * 2, input_signature=[
        MaskedTensor.Spec(values=tf.TensorSpec([None], tf.int32),
                          mask=tf.TensorSpec([None], tf.bool))])
    assert g(MaskedTensor([1, 2], [True, False])).numpy().tolist() == [2, 4]
    n = tf.function(lambda net: net.mt.values * 3)(Net(_mt(), 2.0))
    assert n.numpy().tolist() == [[3, 6, 9], [12, 15, 18]]


class Row(tf.experimental.BatchableExtensionType):
    x: tf.Tensor


def test_dataset_of_batchable_extension_type():
    ds = tf.data.Dataset.from_tensor_slices(Row(tf.constant([1, 2, 3, 4, 5])))
    assert repr(ds.element_spec) == "Row.Spec(x=TensorSpec(shape=(), dtype=tf.int32, name=None))"
    b = ds.batch(2)
    assert repr(b.element_spec) == ("Row.Spec(x=TensorSpec(shape=(None,), dtype=tf.int32, "
                                    "name=None))")
    assert [r.x.numpy().tolist() for r in b] == [[1, 2], [3, 4], [5]]
    assert [int(r.x) for r in b.unbatch()] == [1, 2, 3, 4, 5]


def test_cond_returns_extension_value():
    out = tf.cond(tf.constant(True), lambda: Row(tf.constant(1)), lambda: Row(tf.constant(2)))
    assert type(out) is Row and int(out.x) == 1


# -- specs, user Spec classes, batching, map_fn, dispatch (texts from TF 2.21) --

class _P(tf.experimental.ExtensionType):
    a: tf.Tensor
    b: tf.Tensor


def test_spec_constructor_takes_positional_fields():
    s = _P.Spec(tf.TensorSpec([2]), tf.TensorSpec(2))
    assert repr(s) == ("_P.Spec(a=TensorSpec(shape=(2,), dtype=tf.float32, name=None), "
                       "b=TensorSpec(shape=(2,), dtype=tf.float32, name=None))")
    with pytest.raises(TypeError, match="^missing a required argument: 'b'$"):
        _P.Spec(tf.TensorSpec([2]))
    with pytest.raises(TypeError, match="^multiple values for argument 'a'$"):
        _P.Spec(tf.TensorSpec([2]), a=tf.TensorSpec([2]))
    with pytest.raises(TypeError, match="^b: expected a TensorSpec, got 'int'$"):
        _P.Spec(a=tf.TensorSpec([2]), b=3)
    with pytest.raises(TypeError, match="^b: expected a Tensor, got 'NoneType'$"):
        _P([1], None)


class _Q(tf.experimental.BatchableExtensionType):
    values: tf.Tensor
    mask: tf.Tensor

    class Spec:
        def __init__(self, shape, dtype=tf.float32):
            self.values = tf.TensorSpec(shape, dtype)
            self.mask = tf.TensorSpec(shape, tf.bool)

        shape = property(lambda self: self.values.shape)


def test_user_spec_class_is_a_mixin():
    s = _Q.Spec([None, 2])
    assert repr(s) == ("_Q.Spec(values=TensorSpec(shape=(None, 2), dtype=tf.float32, "
                       "name=None), mask=TensorSpec(shape=(None, 2), dtype=tf.bool, name=None))")
    assert s.shape.as_list() == [None, 2]
    assert isinstance(s, tf.experimental.ExtensionTypeSpec)


class _Net(tf.experimental.BatchableExtensionType):
    shape: tf.TensorShape
    work: tf.Tensor

    def __init__(self, work):
        self.work = tf.convert_to_tensor(work)
        self.shape = self.work.shape[:-1]


def test_tensorshape_fields_are_batched():
    b = _Net([[1., 2], [3, 4], [5, 6]])
    ds = tf.data.Dataset.from_tensor_slices(b)
    assert repr(ds.element_spec) == ("_Net.Spec(shape=TensorShape([]), work=TensorSpec("
                                     "shape=(2,), dtype=tf.float32, name=None))")
    assert [x.shape.as_list() for x in ds] == [[], [], []]
    assert repr(ds.batch(2).element_spec) == (
        "_Net.Spec(shape=TensorShape([None]), work=TensorSpec(shape=(None, 2), "
        "dtype=tf.float32, name=None))")


@pytest.mark.parametrize("wrap", [lambda f: f, tf.function])
def test_map_fn_over_batchable_extension_types(wrap):
    b = _Net([[1., 2], [3, 4], [5, 6]])
    out = wrap(lambda x: tf.map_fn(lambda n: _Net(n.work * 2), x))(b)
    assert isinstance(out, _Net) and out.shape.as_list() == [3]
    np.testing.assert_array_equal(out.work.numpy(), [[2, 4], [6, 8], [10, 12]])
    s = tf.map_fn(lambda n: tf.reduce_sum(n.work), b, fn_output_signature=tf.float32)
    np.testing.assert_array_equal(s.numpy(), [3, 7, 11])


def test_concrete_function_takes_extension_values():
    f = tf.function(lambda x: (x.a + x.b) / 2)
    cf = f.get_concrete_function(_P.Spec(tf.TensorSpec([2]), tf.TensorSpec(2)))
    np.testing.assert_allclose(cf(_P([1.2, 0.4], [0.8, 0.2])).numpy(), [1., 0.3])


def test_dispatch_target_without_name_parameter():
    @tf.experimental.dispatch_for_api(tf.stack)
    def qstack(values: typing.List[_Q], axis=0):
        return _Q(tf.stack([v.values for v in values], axis),
                  tf.stack([v.mask for v in values], axis))
    try:
        out = tf.stack([_Q([1.], [True]), _Q([2.], [False])], name="x")
        np.testing.assert_array_equal(out.values.numpy(), [[1.], [2.]])
    finally:
        tf.experimental.unregister_dispatch_for(qstack)
    with pytest.raises(ValueError, match=r"^Dispatch function's signature \(x, y, nm=None, "
                                         r"name=None\) does not match API's signature "
                                         r"\(x, y, name=None\).$"):
        tf.experimental.dispatch_for_api(tf.math.add, {"x": _Q})(lambda x, y, nm=None: 1)


class _Relaxed(tf.experimental.BatchableExtensionType):
    shape: tf.TensorShape
    w: tf.Tensor
    tag: str = "a"


def test_most_specific_common_supertype():
    a = _Relaxed.Spec(tf.TensorShape([2]), tf.TensorSpec([2, 3]), "a")
    b = _Relaxed.Spec(tf.TensorShape([4]), tf.TensorSpec([4, 3]), "a")
    c = _Relaxed.Spec(tf.TensorShape([4]), tf.TensorSpec([4, 3], tf.int32), "a")
    d = _Relaxed.Spec(tf.TensorShape([4]), tf.TensorSpec([4, 3]), "b")
    e = _Relaxed.Spec(tf.TensorShape([4, 1]), tf.TensorSpec([4]), "a")
    assert repr(a.most_specific_common_supertype([b])) == (
        "_Relaxed.Spec(shape=TensorShape([None]), w=TensorSpec(shape=(None, 3), "
        "dtype=tf.float32, name=None), tag='a')")
    assert a.most_specific_common_supertype([c]) is None
    assert a.most_specific_common_supertype([d]) is None
    assert repr(a.most_specific_common_supertype([b, e])) == (
        "_Relaxed.Spec(shape=TensorShape(None), w=TensorSpec(shape=<unknown>, "
        "dtype=tf.float32, name=None), tag='a')")
    assert a.most_specific_common_supertype([]) == a
    relaxed = a.most_specific_common_supertype([b])
    assert (a.is_subtype_of(relaxed), relaxed.is_subtype_of(a)) == (True, False)
    ds = tf.data.Dataset.from_tensors(_Relaxed(tf.TensorShape([2]), tf.ones([2, 3]))) \
        .concatenate(tf.data.Dataset.from_tensors(_Relaxed(tf.TensorShape([4]), tf.ones([4, 3]))))
    assert repr(ds.element_spec) == repr(relaxed)
