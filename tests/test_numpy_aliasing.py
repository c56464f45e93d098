"""Tensors never share writable memory with the user's NumPy arrays, as in
TensorFlow 2.21 (values there: writing into the array after the conversion,
or into `t.numpy()`, leaves the tensor as it was; `np.asarray(t)` is a
read-only view)."""
import numpy as np
import pytest

import rillflow as tf


def _writers():
    return {
        "constant": tf.constant,
        "convert_to_tensor": tf.convert_to_tensor,
        "identity": tf.identity,
        "Variable": lambda a: tf.Variable(a).read_value(),
        "function_argument": tf.function(lambda z: z),
        "function_argument_jit": tf.function(lambda z: z, jit_compile=True),
    }


@pytest.mark.parametrize("how", sorted(_writers()))
def test_writing_into_the_source_array_leaves_the_tensor(how):
    if how == "function_argument_jit":
        pytest.importorskip("jax")
    a = np.array([1.0, 2.0, 3.0])
    t = _writers()[how](a)
    a[0] = 100.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0, 3.0])


def test_assign_from_an_array_copies_it():
    v = tf.Variable([0.0, 0.0])
    b = np.array([1.0, 2.0])
    v.assign(b)
    b[1] = 50.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_numpy_is_a_writable_copy_and_asarray_a_read_only_view():
    x = tf.constant([1.0, 2.0]) + 1.0
    n = x.numpy()
    assert n.flags.writeable
    n[0] = 7.0
    np.testing.assert_array_equal(x.numpy(), [2.0, 3.0])
    view = np.asarray(x)
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0] = 1.0
    assert np.array(x, copy=True).flags.writeable


def test_read_only_arrays_are_shared_without_a_copy():
    # Nothing can write into them, so the copy would buy nothing.
    a = np.arange(4.0)
    a.flags.writeable = False
    assert tf.constant(a)._v is a
