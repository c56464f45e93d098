"""`tf.compat.v1.constant` (TensorFlow 1's: `verify_shape`, and in graphs
padding with the last element) and the `tf.compat.v1` names that are
TensorFlow 2's objects. Values and messages are TensorFlow 2.21's."""
import numpy as np
import pytest

import rillflow as tf

v1 = tf.compat.v1


def test_v1_constant_eager():
    np.testing.assert_array_equal(v1.constant(7, shape=[2, 2]).numpy(), [[7, 7], [7, 7]])
    t = v1.constant([1, 2, 3, 4], shape=[2, 2])
    assert t.dtype == tf.int32
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])
    t = v1.constant([1.5, 2], dtype=tf.float64, name="c")
    assert t.dtype == tf.float64
    np.testing.assert_array_equal(t.numpy(), [1.5, 2.0])
    np.testing.assert_array_equal(v1.constant(tf.constant([1, 2]), shape=[2, 1]).numpy(),
                                  [[1], [2]])
    with pytest.raises(TypeError, match=r"^Eager execution of tf.constant with unsupported "
                       r"shape. Tensor \[1 2\] \(converted from \[1, 2\]\) has 2 elements, but "
                       r"got `shape` \(4,\) with 4 elements\)."):
        v1.constant([1, 2], shape=[4])
    with pytest.raises(TypeError, match=r"^Expected Tensor \[1 2 3 4\] \(converted from "
                       r"\[1, 2, 3, 4\]\) with shape \(2, 2\), but got shape \(4,\).$"):
        v1.constant([1, 2, 3, 4], shape=[2, 2], verify_shape=True)
    with pytest.raises(TypeError, match=r"^Expected Tensor 7 \(converted from 7\) with shape "
                       r"\(2,\), but got shape \(\).$"):
        v1.constant(7, shape=[2], verify_shape=True)
    with pytest.raises(TypeError, match=r"^Expected Tensor \[1 2\] \(converted from \[1 2\]\) "
                       r"with shape \(2, 1\), but got shape \(2,\).$"):
        v1.constant(tf.constant([1, 2]), shape=[2, 1], verify_shape=True)


def test_v1_constant_in_graphs_pads_with_the_last_element():
    @tf.function
    def f():
        return (v1.constant([1, 2], shape=[4], name="foo"), v1.constant(5, shape=[2, 3]),
                v1.constant([[1, 2], [3, 4]], shape=[4]), v1.constant([], shape=[2]),
                v1.constant([[1, 2], [3, 4]], shape=[3, 2]),
                v1.constant([1., 2.], shape=[2, 2], dtype=tf.float64),
                v1.constant([1, 2], shape=[2], verify_shape=True))

    a, b, c, d, e, g, h = f()
    np.testing.assert_array_equal(a.numpy(), [1, 2, 2, 2])
    np.testing.assert_array_equal(b.numpy(), [[5, 5, 5], [5, 5, 5]])
    np.testing.assert_array_equal(c.numpy(), [1, 2, 3, 4])
    assert d.dtype == tf.float32
    np.testing.assert_array_equal(d.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(e.numpy(), [[1, 2], [3, 4], [4, 4]])
    assert g.dtype == tf.float64
    np.testing.assert_array_equal(g.numpy(), [[1.0, 2.0], [2.0, 2.0]])
    np.testing.assert_array_equal(h.numpy(), [1, 2])


@pytest.mark.parametrize("value, shape, verify, error, message", [
    ([1, 2, 3, 4, 5], [2, 2], False, ValueError,
     "Too many elements provided. Takes at most 4, but got 5."),
    ([1, 2, 3, 4], [2, 2], True, TypeError, "Expected Tensor's shape: (2, 2), but got (4,)."),
    ([1, 2, 3], [2, 2], True, TypeError, "Expected Tensor's shape: (2, 2), but got (3,)."),
    (3, [2, 2], True, TypeError, "Expected Tensor's shape: (2, 2), but got ()."),
])
def test_v1_constant_errors_in_graphs(value, shape, verify, error, message):
    f = tf.function(lambda: v1.constant(value, shape=shape, verify_shape=verify))
    with pytest.raises(error) as info:
        f()
    # Raised while tracing: TensorFlow's "in user code:" text ends with the message.
    text = str(info.value)
    assert text.startswith("in user code:\n")
    assert text.endswith("\n    %s: %s\n" % (error.__name__, message))


def test_v1_names_shared_with_v2():
    # In TensorFlow 2.21 these are the same functions under both names.
    assert v1.print is tf.print
    assert v1.function is tf.function
    assert v1.test.main is tf.test.main and v1.test.TestCase is tf.test.TestCase
    assert v1.math.add is tf.math.add
    assert v1.errors.InvalidArgumentError is tf.errors.InvalidArgumentError
    assert v1.autograph.experimental.Feature is tf.autograph.experimental.Feature
    # ... and this one differs (a TensorFlow 1 version).
    assert v1.constant is not tf.constant
    # TensorFlow 1 versions rillflow already had are kept.
    assert v1.placeholder is not None and v1.Session is not None
