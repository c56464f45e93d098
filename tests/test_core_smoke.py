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


def test_python_operand_takes_tensor_dtype():
    assert (tf.constant(1.0) + 2).dtype == tf.float32
    assert (3 - tf.constant(1, tf.int64)).dtype == tf.int64
    assert float(2 - tf.constant(1.0)) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(1) + 2.5


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
