"""The framework core: conversion rules, printing, dtype errors, tape basics."""
import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match


def test_python_scalars_take_default_dtypes():
    assert tf.constant(1).dtype == tf.int32
    assert tf.constant(1.5).dtype == tf.float32
    assert tf.constant(2 ** 40).dtype == tf.int64
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant("x").dtype == tf.string
    assert tf.constant(np.float64(2.0)).dtype == tf.float64


def test_python_floats_beyond_float32_need_an_explicit_dtype():
    msg = "Can't convert Python sequence with a value out of range for a double-precision float."
    for value in (1e40, [1.0, 1e39], 1e300):
        with pytest.raises(ValueError, match=msg):
            tf.constant(value)
    with pytest.raises(ValueError, match=msg):
        tf.convert_to_tensor(1e40)
    assert str(tf.constant(1e40, tf.float64)) == "tf.Tensor(1e+40, shape=(), dtype=float64)"
    assert str(tf.constant(1e40, tf.float16)) == "tf.Tensor(inf, shape=(), dtype=float16)"
    assert str(tf.constant(1.0) * 1e40) == "tf.Tensor(inf, shape=(), dtype=float32)"
    assert str(tf.constant(float("inf"))) == "tf.Tensor(inf, shape=(), dtype=float32)"
    assert str(tf.constant(1e-50)) == "tf.Tensor(0.0, shape=(), dtype=float32)"


def test_repr_and_str_match_tensorflow():
    assert repr(tf.constant(6)) == "<tf.Tensor: shape=(), dtype=int32, numpy=6>"
    assert str(tf.constant(6)) == "tf.Tensor(6, shape=(), dtype=int32)"
    assert repr(tf.constant(2.2)) == \
        "<tf.Tensor: shape=(), dtype=float32, numpy=2.200000047683716>"
    assert repr(tf.constant([1.5, 2])) == \
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2. ], dtype=float32)>"
    assert str(tf.constant([[1, 2], [3, 4]])) == \
        "tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert str(tf.constant("helloworld")) == \
        "tf.Tensor(b'helloworld', shape=(), dtype=string)"


def test_binary_op_dtype_mismatch_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a int32 tensor"):
        tf.constant(1) + tf.constant(2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.constant([1, 2]) + tf.constant([1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[2,3\] vs. \[3,2\] \[Op:AddV2\]"):
        tf.ones([2, 3]) + tf.ones([3, 2])


def test_python_operand_takes_tensor_dtype():
    assert (tf.constant(1.0) + 2).dtype == tf.float32
    assert (3 - tf.constant(1, tf.int64)).dtype == tf.int64
    assert float(2 - tf.constant(1.0)) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1) + 2.5
    with pytest.raises(TypeError):
        tf.constant(1) * 2.5


_I3 = [1, 2, 3]


# Expected classes and messages verified against TensorFlow 2.21: only `add`
# takes a Python operand's dtype as a hint (so the op reports the mismatch);
# the other ops, and every reflected operator, convert it to the tensor's
# dtype or raise TypeError.
@pytest.mark.parametrize("fn, exc, msg", [
    (lambda x: x * 2.5, TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: 2.5 * x, TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: 0.5 + x, TypeError, "Cannot convert 0.5 to EagerTensor of dtype int32"),
    (lambda x: x - 0.5, TypeError, "Cannot convert 0.5 to EagerTensor of dtype int32"),
    (lambda x: x > 2.5, TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: x == 2.5, TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: x ** 0.5, TypeError, "Cannot convert 0.5 to EagerTensor of dtype int32"),
    (lambda x: tf.multiply(2.5, x), TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: tf.maximum(x, 2.5), TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: x * [1.5, 2, 3], TypeError,
     r"Cannot convert \[1.5, 2, 3\] to EagerTensor of dtype int32"),
    (lambda x: x * "a", TypeError, "Cannot convert 'a' to EagerTensor of dtype int32"),
    (lambda x: tf.cast(x, tf.float32) * 1j, TypeError,
     "Cannot convert 1j to EagerTensor of dtype float$"),
    (lambda x: x + 0.5, tf.errors.InvalidArgumentError,
     r"cannot compute AddV2 as input #1\(zero-based\) was expected to be a int32 tensor but "
     r"is a float tensor"),
    (lambda x: tf.add(1.5, x), tf.errors.InvalidArgumentError,
     "expected to be a float tensor but is a int32 tensor"),
    (lambda x: tf.add(1, tf.cast(x, tf.float32)), tf.errors.InvalidArgumentError,
     "expected to be a int32 tensor but is a float tensor"),
    (lambda x: x / 2.5, TypeError, "`x` and `y` must have the same dtype, got tf.int32 != "
     "tf.float32."),
    (lambda x: x / tf.constant(2.0), TypeError, "`x` and `y` must have the same dtype"),
    (lambda x: 2.5 / x, TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: tf.divide(2.5, x), TypeError, "Cannot convert 2.5 to EagerTensor of dtype int32"),
    (lambda x: x == tf.constant([1., 2., 3.]), tf.errors.InvalidArgumentError,
     "cannot compute Equal as input #1"),
    (lambda x: x != tf.constant([1., 2., 3.]), tf.errors.InvalidArgumentError,
     "cannot compute NotEqual as input #1"),
    (lambda x: x == "x", TypeError, "Cannot convert 'x' to EagerTensor of dtype int32"),
    (lambda x: x == object(), ValueError, "Attempt to convert a value"),
    (lambda x: x * 2 ** 70, ValueError,
     "Can't convert Python sequence with out-of-range integer to Tensor."),
    (lambda x: tf.constant(True) & 1, TypeError, "Cannot convert 1 to EagerTensor of dtype bool"),
    (lambda x: tf.constant(True) / tf.constant(True), TypeError,
     r"Invalid dtype tf.bool in __truediv__. Expected one of \{tf.uint8, tf.int8,"),
])
def test_python_operand_that_does_not_fit_the_tensor_dtype(fn, exc, msg):
    with pytest.raises(exc, match=msg):
        fn(tf.constant(_I3))


def test_python_operands_that_fit_wrap_or_cast_like_tensorflow():
    x = tf.constant(_I3)
    assert str(x * 2 ** 40) == "tf.Tensor([0 0 0], shape=(3,), dtype=int32)"
    assert str(tf.constant([1, 2], tf.uint8) * 300) == \
        "tf.Tensor([44 88], shape=(2,), dtype=uint8)"
    assert str(x * np.float32(2.5)) == "tf.Tensor([2 4 6], shape=(3,), dtype=int32)"
    assert str(tf.multiply(2.5, 3)) == "tf.Tensor(7.5, shape=(), dtype=float32)"
    assert str(tf.divide(1, tf.constant([1., 2.]))) == \
        "tf.Tensor([1.  0.5], shape=(2,), dtype=float32)"


def test_equality_operators_of_unbroadcastable_shapes_give_a_scalar():
    x = tf.constant(_I3)
    assert (x == None) is False  # noqa: E711 - the operator under test
    assert str(x == [1, 2]) == "tf.Tensor(False, shape=(), dtype=bool)"
    assert str(x != tf.ones([2], tf.int32)) == "tf.Tensor(True, shape=(), dtype=bool)"
    assert str(tf.Variable([1, 2]) == [1, 2, 3]) == "tf.Tensor(False, shape=(), dtype=bool)"
    with pytest.raises(TypeError, match="Cannot convert 2.5 to EagerTensor of dtype int32"):
        tf.Variable([1, 2]) == 2.5
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        tf.equal(x, [1, 2])

    traced = []

    @tf.function(autograph=False)
    def f(x):
        traced.append(x == [1, 2])
        return traced[-1], x != [1, 2]
    eq, ne = f(x)
    assert (eq.numpy(), ne.numpy()) == (False, True)
    assert str(traced[0]) == 'Tensor("Equal:0", shape=(), dtype=bool)'


def test_python_operand_errors_while_building_a_graph():
    @tf.function(autograph=False)
    def f(x, op):
        return op(x)
    x = tf.constant(_I3)
    with pytest.raises(TypeError, match=r"Expected int32 passed to parameter 'y' of op 'Mul', "
                       r"got 2.5 of type 'float' instead. Error: Expected int32, but got 2.5 "
                       r"of type 'float'."):
        f(x, lambda x: x * 2.5)
    with pytest.raises(TypeError, match=r"^Expected int32, but got 2.5 of type 'float'.$"):
        f(x, lambda x: 2.5 * x)
    with pytest.raises(TypeError, match=r"Expected int32, but got 1.5 of type 'float'."):
        f(x, lambda x: x * [1.5])
    with pytest.raises(TypeError, match=r"^Expected int32, but got 2.5 of type 'float'.$"):
        f(x, lambda x: tf.constant(2.5, tf.int32))
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does "
                       "not match type int32 of argument 'x'."):
        f(x, lambda x: x + 0.5)
    with pytest.raises(TypeError, match="Input 'y' of 'Mul' Op has type float32 that does "
                       "not match type int32 of argument 'x'."):
        f(tf.constant([1., 2.]), lambda x: tf.multiply(1, x))
    with pytest.raises(TypeError, match="Input 'y' of 'Equal' Op has type float32"):
        f(x, lambda x: x == tf.constant([1., 2., 3.]))


def test_divide_no_nan_divides_integers_as_floats():
    assert str(tf.math.divide_no_nan(tf.constant([1, 2]), tf.constant([0, 2]))) == \
        "tf.Tensor([0. 1.], shape=(2,), dtype=float64)"
    assert str(tf.math.divide_no_nan(tf.constant([1, 2], tf.int8), 2)) == \
        "tf.Tensor([0.5 1. ], shape=(2,), dtype=float32)"
    assert str(tf.math.divide_no_nan(1, tf.constant([1., 2.]))) == \
        "tf.Tensor([1.  0.5], shape=(2,), dtype=float32)"
    with pytest.raises(TypeError, match="Invalid dtype tf.bool in tf.math.divide_no_nan"):
        tf.math.divide_no_nan(tf.constant([True]), True)


def test_floor_division_and_mod_follow_python_sign_rules():
    assert int(tf.constant(7) // -2) == -4
    assert int(tf.constant(7) % -2) == -1
    assert float(tf.constant(-7.5) % 2.0) == 0.5
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        tf.constant(5) // 0


def test_truediv_of_int32_is_float64():
    r = tf.constant(1) / tf.constant(2)
    assert r.dtype == tf.float64 and float(r) == 0.5


def test_tensor_is_unhashable_but_ref_is():
    t = tf.constant(1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    assert {t.ref(): 1}[t.ref()] == 1


def test_tape_gradient_of_polynomial():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x + 2 * x
    assert float(tape.gradient(y, x)) == 8.0


def test_broadcast_gradient_reduces_to_input_shape():
    a = tf.constant([[1., 2.], [3., 4.]])
    b = tf.constant([10., 20.])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        z = tf.reduce_sum(a * b)
    ga, gb = tape.gradient(z, [a, b])
    np.testing.assert_array_equal(ga.numpy(), [[10, 20], [10, 20]])
    np.testing.assert_array_equal(gb.numpy(), [4, 6])


def test_gradient_checker_on_division():
    x = tf.constant(np.array([1.5, -2.0, 3.0]))
    y = tf.constant(np.array([0.5, 4.0, -1.0]))
    assert_gradients_match(lambda a, b: a / b, [x, y])


def test_variable_gradient_and_assign():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = v * v * 3.0
    assert float(tape.gradient(y, v)) == 12.0
    r = v.assign_add(1.0)
    assert repr(r) == "<tf.Variable 'UnreadVariable' shape=() dtype=float32, numpy=3.0>"
    assert float(v) == 3.0


def test_format_of_a_tensor_formats_its_numpy_value():
    # f-strings (and str.format) use NumPy's formatting; str() and %s do not.
    assert f"{tf.constant(2.5)}" == "2.5"
    assert f"{tf.constant([1, 2])}" == "[1 2]"
    assert f"{tf.constant([[1.5, 2.]])}" == "[[1.5 2. ]]"
    assert f"{tf.constant('a')}" == "b'a'"
    assert f"{tf.constant(3):>8}" == "       3"
    assert "{:.2f}".format(tf.constant(2.5)) == "2.50"
    assert "%s" % tf.constant([1, 2]) == "tf.Tensor([1 2], shape=(2,), dtype=int32)"
    with pytest.raises(TypeError, match="unsupported format string passed to numpy.ndarray"):
        f"{tf.constant([1, 2]):>8}"


def test_cast_between_strings_and_numbers_is_unimplemented():
    with pytest.raises(tf.errors.UnimplementedError,
                       match=r"Cast string to int32 is not supported \[Op:Cast\]"):
        tf.cast(tf.constant(["1"]), tf.int32)
    with pytest.raises(tf.errors.UnimplementedError, match="Cast float to string"):
        tf.cast(tf.constant([1.0]), tf.string)


def test_saturate_cast_limits_round_toward_zero_in_the_input_dtype():
    assert str(tf.saturate_cast(tf.constant([1e10, -1e10]), tf.int32)) == \
        "tf.Tensor([ 2147483520 -2147483648], shape=(2,), dtype=int32)"
    assert str(tf.saturate_cast(tf.constant([1e10], tf.float64), tf.int32)) == \
        "tf.Tensor([2147483647], shape=(1,), dtype=int32)"
    assert str(tf.saturate_cast(tf.constant([300, -1]), tf.uint8)) == \
        "tf.Tensor([255   0], shape=(2,), dtype=uint8)"
    assert str(tf.saturate_cast(tf.constant([2 ** 40]), tf.int32)) == \
        "tf.Tensor([2147483647], shape=(1,), dtype=int32)"
