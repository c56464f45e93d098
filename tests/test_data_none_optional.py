"""None components of tf.data elements (`tf.NoneTensorSpec`) and Optionals
as elements (`tf.OptionalSpec`), as TensorFlow 2.21 gives them (the reprs
and values below were printed by TensorFlow)."""
import rillflow as tf


def test_none_components_ride_along():
    ds = tf.data.Dataset.from_tensors((1, None))
    assert repr(ds.element_spec) == \
        "(TensorSpec(shape=(), dtype=tf.int32, name=None), NoneTensorSpec())"
    (a, b), = list(ds)
    assert int(a) == 1 and b is None

    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2], "b": None},))
    assert repr(ds.element_spec) == \
        "({'a': TensorSpec(shape=(), dtype=tf.int32, name=None), 'b': NoneTensorSpec()},)"
    (batch,), = list(ds.batch(2))
    assert batch["b"] is None and batch["a"].numpy().tolist() == [1, 2]
    # a map function sees None, in a traced function
    doubled = ds.map(lambda d: d["a"] * 2 if d["b"] is None else d["a"])
    assert [int(v) for v in doubled] == [2, 4]
    assert ds.element_spec[0]["b"] == tf.NoneTensorSpec()
    assert isinstance(tf.NoneTensorSpec(), tf.TypeSpec)


def test_optional_elements_from_a_generator():
    assert repr(tf.OptionalSpec(None)) == "OptionalSpec(None,)"
    assert tf.experimental.Optional.empty(None).element_spec is None

    def gen():
        yield 1, tf.experimental.Optional.empty(None)
        yield 2, tf.experimental.Optional.empty(None)

    ds = tf.data.Dataset.from_generator(
        gen, output_signature=(tf.TensorSpec([], tf.int32), tf.OptionalSpec(None)))
    assert repr(ds.element_spec) == \
        "(TensorSpec(shape=(), dtype=tf.int32, name=None), OptionalSpec(None,))"
    got = [(int(a), bool(o.has_value())) for a, o in ds]
    assert got == [(1, False), (2, False)]
    spec = tf.experimental.Optional.from_value(tf.constant(5))._type_spec
    assert repr(spec) == "OptionalSpec(TensorSpec(shape=(), dtype=tf.int32, name=None),)"
