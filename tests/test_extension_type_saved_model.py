"""tf.saved_model with functions taking and returning ExtensionTypes and
RaggedTensors. Values, reprs and messages were recorded from TensorFlow
2.21 (the same code run with `import tensorflow as tf`)."""
import warnings

import numpy as np
import pytest

import rillflow as tf
from rillflow.framework import extension_type


class MT(tf.experimental.ExtensionType):
    __name__ = "rillflow_tests.MT"   # the name SavedModel records
    values: tf.Tensor
    mask: tf.Tensor


class Anon(tf.experimental.ExtensionType):
    values: tf.Tensor


_MT_SPEC = MT.Spec(tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.bool))


class M(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(3.0)

    @tf.function(input_signature=[_MT_SPEC])
    def f(self, x):
        return MT(x.values * self.v, x.mask)

    @tf.function
    def h(self, x):
        return tf.reduce_sum(tf.where(x.mask, x.values, 0.))

    @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
    def r(self, x):
        return x * 2.0


def _saved(tmp_path):
    m = M()
    m.h.get_concrete_function(MT.Spec(tf.TensorSpec([2], tf.float32),
                                      tf.TensorSpec([2], tf.bool)))
    tf.saved_model.save(m, str(tmp_path))
    return m


def test_extension_types_round_trip(tmp_path):
    _saved(tmp_path)
    loaded = tf.saved_model.load(str(tmp_path))
    out = loaded.f(MT([1., 2], [True, False]))
    assert isinstance(out, MT)
    np.testing.assert_array_equal(out.values.numpy(), [3., 6.])
    np.testing.assert_array_equal(out.mask.numpy(), [True, False])
    assert loaded.h(MT([1., 2], [True, False])).numpy() == 1.0
    cf = loaded.f.concrete_functions[0]
    spec = ("MT.Spec(values=TensorSpec(shape=(None,), dtype=tf.float32, name=None), "
            "mask=TensorSpec(shape=(None,), dtype=tf.bool, name=None))")
    assert repr(cf.structured_input_signature) == f"(({spec},), {{}})"
    assert repr(cf.structured_outputs) == spec


def test_ragged_round_trip(tmp_path):
    _saved(tmp_path)
    loaded = tf.saved_model.load(str(tmp_path))
    out = loaded.r(tf.ragged.constant([[1., 2], [3]]))
    assert repr(out) == "<tf.RaggedTensor [[2.0, 4.0], [6.0]]>"
    assert repr(loaded.r.concrete_functions[0].structured_outputs) == \
        "RaggedTensorSpec(TensorShape([None, None]), tf.float32, 1, tf.int64)"


def test_unregistered_type_is_not_saved(tmp_path):
    m = M()
    m.g = tf.function(lambda x: Anon(x.values + 1))
    m.g.get_concrete_function(Anon.Spec(tf.TensorSpec([3], tf.float32)))
    with pytest.raises(Exception, match=r"^No encoder for object Anon.Spec\(values=TensorSpec"
                                        r"\(shape=\(3,\), dtype=tf.float32, name=None\)\) of "
                                        r"type <class '.*Anon.Spec'>.$") as e:
        tf.saved_model.save(m, str(tmp_path))
    assert type(e.value).__name__ == "NotEncodableError"


def test_unregistered_on_load_falls_back_to_anonymous(tmp_path, monkeypatch):
    _saved(tmp_path)
    monkeypatch.delitem(extension_type._REGISTERED, "rillflow_tests.MT")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        loaded = tf.saved_model.load(str(tmp_path))
        sig = loaded.f.concrete_functions[0].structured_input_signature
    assert any("The type 'rillflow_tests.MT.Spec' has not been registered. Falling back to "
               "using AnonymousExtensionTypeSpec instead." in str(x.message) for x in w)
    assert repr(sig) == ("((AnonymousExtensionTypeSpec(values=TensorSpec(shape=(None,), "
                         "dtype=tf.float32, name=None), mask=TensorSpec(shape=(None,), "
                         "dtype=tf.bool, name=None)),), {})")


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match=r"^Name rillflow_tests.MT.Spec has already been "
                                         r"registered for class .*\.MT\.Spec\.$"):
        class Again(tf.experimental.ExtensionType):
            __name__ = "rillflow_tests.MT"
            v: tf.Tensor
