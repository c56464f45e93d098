"""Lists and tuples holding tensors converted as TensorFlow's autopacking
does: the first tensor (depth first) gives the dtype, a requested dtype casts
the tensors to it, and mixed dtypes fail with TensorFlow's errors. Expected
values and messages are TensorFlow 2.21's, eagerly and in tf.function."""
import numpy as np
import pytest

import rillflow as tf


def i64():
    return tf.constant(1, tf.int64)


def both(fn):
    return [fn(), tf.function(fn)()]


@pytest.mark.parametrize("fn, dtype, value", [
    (lambda: tf.convert_to_tensor([i64()], dtype=tf.int32), tf.int32, [1]),
    (lambda: tf.convert_to_tensor([1.5, tf.constant(2)], dtype=tf.float32), tf.float32, [1.5, 2]),
    (lambda: tf.convert_to_tensor([tf.constant(1.5)], dtype=tf.int32), tf.int32, [1]),
    (lambda: tf.convert_to_tensor([[tf.constant(1)], [i64()]], dtype=tf.float64), tf.float64,
     [[1.0], [1.0]]),
    (lambda: tf.convert_to_tensor([i64(), 3], dtype=tf.int32), tf.int32, [1, 3]),
    (lambda: tf.convert_to_tensor([i64(), 3]), tf.int64, [1, 3]),
    (lambda: tf.convert_to_tensor((i64(), tf.constant(True)), dtype=tf.int32), tf.int32, [1, 1]),
    (lambda: tf.convert_to_tensor(([tf.constant(1)], [i64()]), dtype=tf.int64), tf.int64,
     [[1], [1]]),
    (lambda: tf.concat((tf.constant([0, 0]), [i64()]), 0), tf.int32, [0, 0, 1]),
    (lambda: tf.concat(([i64()], tf.constant([0, 0])), 0), tf.int32, [1, 0, 0]),
    (lambda: tf.add(tf.constant([0, 0]), [i64()]), tf.int32, [1, 1]),
    (lambda: tf.constant([0, 0]) + [i64()], tf.int32, [1, 1]),
    (lambda: tf.multiply(tf.constant([0, 0]), [i64()]), tf.int32, [0, 0]),
    (lambda: tf.constant([0, 0]) * [i64(), 2], tf.int32, [0, 0]),
    (lambda: tf.maximum(tf.constant([0, 0]), [i64()]), tf.int32, [1, 1]),
    (lambda: tf.constant([0, 0]) == [i64(), 0], tf.bool, [False, True]),
    (lambda: tf.add(tf.constant([0, 0]), [tf.constant(1.5), 2]), tf.int32, [1, 2]),
    (lambda: tf.concat([[i64()], tf.constant([1])], 0), tf.int32, [1, 1]),
    (lambda: tf.stack([[1], [i64()]]), tf.int64, [[1], [1]]),
    (lambda: tf.stack([[i64()], tf.constant([1])]), tf.int32, [[1], [1]]),
])
def test_lists_holding_tensors(fn, dtype, value):
    for t in both(fn):
        assert t.dtype == dtype
        np.testing.assert_array_equal(t.numpy(), value)


def test_variable_in_a_list_is_cast_to_the_requested_dtype():
    v = tf.Variable(2.5)
    for t in both(lambda: tf.convert_to_tensor([v, 1], dtype=tf.float64)):
        assert t.dtype == tf.float64
        np.testing.assert_array_equal(t.numpy(), [2.5, 1.0])


def test_eager_concat_of_lists_takes_the_first_dtype():
    # Eagerly the first converted value fixes the dtype; a graph op converts
    # each value on its own.
    for fn, dtype in [(lambda: tf.concat([[tf.constant(1)], [i64()]], 0), tf.int32),
                      (lambda: tf.concat([[i64()], [tf.constant(1)]], 0), tf.int64),
                      (lambda: tf.concat([[1], [i64()]], 0), tf.int32)]:
        t = fn()
        assert t.dtype == dtype
        np.testing.assert_array_equal(t.numpy(), [1, 1])


@pytest.mark.parametrize("fn, message", [
    (lambda: tf.convert_to_tensor([tf.constant(1), i64()]),
     "cannot compute Pack as input #1(zero-based) was expected to be a int32 tensor but is a "
     "int64 tensor [Op:Pack] name: packed"),
    (lambda: tf.convert_to_tensor([[tf.constant(1)], [i64()]]),
     "cannot compute Pack as input #1(zero-based) was expected to be a int32 tensor but is a "
     "int64 tensor [Op:Pack] name: "),
    (lambda: tf.stack([[tf.constant(1)], [i64()]]),
     "cannot compute Pack as input #1(zero-based) was expected to be a int32 tensor but is a "
     "int64 tensor [Op:Pack] name: "),
])
def test_mixed_dtypes_eagerly(fn, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize("fn, message", [
    (lambda: tf.convert_to_tensor([tf.constant(1), i64(), 3]),
     "Cannot convert a list containing a tensor of dtype <dtype: 'int64'> to <dtype: 'int32'> "
     "(Tensor is: <tf.Tensor: shape=(), dtype=int64, numpy=1>)"),
    (lambda: tf.add(tf.constant([0, 0]), [i64(), 2.5]),
     "Cannot convert 2.5 to EagerTensor of dtype int64"),
    (lambda: tf.subtract(tf.constant([0, 0]), [i64(), 2.5]),
     "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda: tf.convert_to_tensor([tf.constant(1), 2.5]),
     "Cannot convert 2.5 to EagerTensor of dtype int32"),
])
def test_type_errors_eagerly(fn, message):
    with pytest.raises(TypeError) as info:
        fn()
    assert str(info.value) == message


@pytest.mark.parametrize("fn, message", [
    (lambda: tf.convert_to_tensor([tf.constant(1), i64()]),
     "Cannot convert a list containing a tensor of dtype <dtype: 'int64'> to <dtype: 'int32'> "
     "(Tensor is: <tf.Tensor 'Const_1:0' shape=() dtype=int64>)"),
    (lambda: tf.convert_to_tensor([[tf.constant(1)], [i64()]]),
     "Cannot convert a list containing a tensor of dtype <dtype: 'int64'> to <dtype: 'int32'> "
     "(Tensor is: <tf.Tensor 'Const_1:0' shape=() dtype=int64>)"),
    (lambda: tf.subtract(tf.constant([0, 0]), [i64(), 2.5]),
     "Expected int32 passed to parameter 'y' of op 'Sub', got [<tf.Tensor 'Const_1:0' "
     "shape=() dtype=int64>, 2.5] of type 'list' instead. Error: Expected int32, but got 2.5 "
     "of type 'float'."),
    (lambda: tf.add(tf.constant([0, 0]), [i64(), 2.5]),
     "Expected int64, but got 2.5 of type 'float'."),
    (lambda: tf.concat([[1, 2], [3.5]], 0),
     "Tensors in list passed to 'values' of 'ConcatV2' Op have types [int32, float32] that "
     "don't all match."),
    (lambda: tf.concat([[tf.constant(1)], [i64()]], 0),
     "Tensors in list passed to 'values' of 'ConcatV2' Op have types [int32, int64] that "
     "don't all match."),
    (lambda: tf.stack([[tf.constant(1)], [i64()]]),
     "Tensors in list passed to 'values' of 'Pack' Op have types [int32, int64] that don't "
     "all match."),
])
def test_type_errors_in_graphs(fn, message):
    with pytest.raises(TypeError) as info:
        tf.function(fn)()
    # Raised while tracing: TensorFlow's "in user code:" text ends with the message.
    text = str(info.value)
    assert text.startswith("in user code:\n")
    assert text.endswith("\n    TypeError: %s\n" % message)
