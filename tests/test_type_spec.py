"""`tf.TypeSpec` (the base class of the specs, with TensorFlow's
`_serialize`/`_deserialize`, which Keras uses) and `DType.is_numeric`; the
expected values are TensorFlow 2.21's."""
import pytest

import rillflow as tf


@pytest.mark.parametrize("spec", [
    tf.TensorSpec([2]), tf.SparseTensorSpec([2]), tf.RaggedTensorSpec([2, None]),
    tf.IndexedSlicesSpec([2]), tf.data.DatasetSpec(tf.TensorSpec([])),
    tf.data.IteratorSpec(tf.TensorSpec([])),
])
def test_specs_are_type_specs(spec):
    assert isinstance(spec, tf.TypeSpec)


def test_extension_type_spec_is_a_type_spec():
    class Pair(tf.experimental.ExtensionType):
        x: tf.Tensor
    assert isinstance(Pair.Spec(x=tf.TensorSpec([])), tf.TypeSpec)
    assert not isinstance(tf.constant(1.0), tf.TypeSpec)


def test_serialize_as_tensorflow():
    assert tf.TensorSpec(None)._serialize() == (tf.TensorShape(None), tf.float32, None)
    assert tf.RaggedTensorSpec([2, None])._serialize() == (
        tf.TensorShape([2, None]), tf.float32, 1, tf.int64)
    assert tf.SparseTensorSpec([2])._serialize() == (tf.TensorShape([2]), tf.float32)
    assert tf.IndexedSlicesSpec([2])._serialize() == (
        tf.TensorShape([2]), tf.float32, tf.int64, None, tf.TensorShape([None]))
    assert tf.data.DatasetSpec(tf.TensorSpec([]))._serialize() == (
        tf.TensorSpec([]), tf.TensorShape([]))


def test_deserialize_rebuilds_the_spec():
    assert tf.TensorSpec._deserialize(((2,), tf.int32, "x")) == tf.TensorSpec([2], tf.int32, "x")
    for spec in (tf.RaggedTensorSpec([2, None], tf.int32), tf.SparseTensorSpec([3, 4]),
                 tf.IndexedSlicesSpec([5, 2], tf.float64)):
        assert type(spec)._deserialize(spec._serialize()) == spec


def test_dtype_is_numeric():
    numeric = [tf.float16, tf.float32, tf.float64, tf.bfloat16, tf.complex64, tf.complex128,
               tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64]
    assert all(d.is_numeric for d in numeric)
    assert not any(d.is_numeric for d in (tf.bool, tf.string, tf.resource, tf.variant))
