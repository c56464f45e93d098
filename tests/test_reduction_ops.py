"""Reductions, arg-reductions, scans, segment reductions, bincount and add_n.

Expected values, dtypes and messages were taken from TensorFlow 2.21.
"""
import warnings

import numpy as np
import pytest

import rillflow as tf
from helpers import assert_gradients_match
from rillflow.framework.execute import placeholder

InvalidArgumentError = tf.errors.InvalidArgumentError

X = [[1., 5., 5.], [7., 2., 7.]]
D = [[1., 2.], [3., 4.], [5., 6.]]


def check(t, value, dtype, shape=None):
    """`t` has exactly `value` (NaN-aware), `dtype` and the value's shape."""
    value = np.asarray(value)
    assert t.dtype == dtype, (t.dtype, dtype)
    assert tuple(t.shape.as_list()) == (value.shape if shape is None else shape)
    np.testing.assert_array_equal(t.numpy(), value)


def grads(f, *xs, dtype=np.float32):
    xs = [tf.constant(np.asarray(x, dtype)) for x in xs]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]


def P(dtype, shape):
    return placeholder(dtype, tf.TensorShape(shape))


# --- public names ------------------------------------------------------------

@pytest.mark.parametrize("name", [
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
    "reduce_any", "reduce_logsumexp", "argmax", "argmin", "cumsum", "add_n"])
def test_names_in_tf_and_tf_math(name):
    assert getattr(tf, name) is getattr(tf.math, name)


@pytest.mark.parametrize("name", [
    "reduce_std", "reduce_variance", "reduce_euclidean_norm", "cumprod",
    "cumulative_logsumexp", "count_nonzero", "segment_sum", "segment_mean", "segment_max",
    "segment_min", "segment_prod", "unsorted_segment_sum", "unsorted_segment_mean",
    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
    "unsorted_segment_sqrt_n", "bincount", "accumulate_n"])
def test_names_in_tf_math(name):
    fn = getattr(tf.math, name)
    assert callable(fn) and fn.__doc__


# --- basic reductions ----------------------------------------------------------

def test_reduce_sum_axes_forms_and_keepdims():
    x = tf.constant(X)
    check(tf.reduce_sum(x), 27., tf.float32)
    check(tf.reduce_sum(x, 0), [8., 7., 12.], tf.float32)
    check(tf.reduce_sum(x, -1, keepdims=True), [[11.], [16.]], tf.float32)
    check(tf.reduce_sum(x, [0, 1], keepdims=True), [[27.]], tf.float32)
    check(tf.reduce_sum(x, (1,)), [11., 16.], tf.float32)
    check(tf.reduce_sum(x, tf.constant([1], tf.int64)), [11., 16.], tf.float32)
    check(tf.reduce_sum(x, np.int64(1)), [11., 16.], tf.float32)
    check(tf.reduce_sum(x, []), X, tf.float32)
    check(tf.reduce_sum(x, 1, keepdims=None), [11., 16.], tf.float32)
    check(tf.reduce_sum([[1, 2], [3, 4]], 0), [4, 6], tf.int32)
    check(tf.reduce_sum(tf.constant(3.), keepdims=True), 3., tf.float32)
    # Integer sums wrap in the input dtype, as in TensorFlow.
    check(tf.reduce_sum(tf.constant([100, 100], tf.int8)), -56, tf.int8)


def test_reduce_sum_repr():
    assert repr(tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), 1)) == \
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([3, 7], dtype=int32)>"


def test_reduce_mean_integer_truncates_and_accumulates_wide():
    check(tf.reduce_mean([1, 2]), 1, tf.int32)
    check(tf.reduce_mean([-1, -2]), -1, tf.int32)
    check(tf.reduce_mean(tf.constant([100, 100], tf.int8)), 100, tf.int8)
    check(tf.reduce_mean(tf.constant([200, 250], tf.uint8)), 225, tf.uint8)
    check(tf.reduce_mean(tf.constant([2 ** 30] * 3)), 2 ** 30, tf.int32)
    # The 64-bit sum itself wraps, as in TensorFlow.
    check(tf.reduce_mean(tf.constant([2 ** 62, 2 ** 62], tf.int64)), -2 ** 62, tf.int64)
    check(tf.reduce_mean(tf.constant([[1, 2], [3, 5]], tf.int16), 1, keepdims=True),
          [[1], [4]], tf.int16)


def test_reduce_mean_floats_complex_and_empty():
    check(tf.reduce_mean(tf.constant(X), 1), np.float32([11 / 3, 16 / 3]), tf.float32)
    check(tf.reduce_mean(tf.constant([1j, 2])), 1 + 0.5j, tf.complex128)
    check(tf.reduce_mean(tf.constant([1, 2, 4], tf.float16)), np.float16(7 / 3), tf.float16)
    check(tf.reduce_mean(tf.zeros([0])), np.nan, tf.float32)
    check(tf.reduce_mean(tf.zeros([0], tf.int32)), 0, tf.int32)
    check(tf.reduce_mean(tf.zeros([0, 2]), 0), [np.nan, np.nan], tf.float32)


def test_reduce_max_min_values_nan_and_empty():
    x = tf.constant(X)
    check(tf.reduce_max(x, -1), [5., 7.], tf.float32)
    check(tf.reduce_min(x, 0, keepdims=True), [[1., 2., 5.]], tf.float32)
    check(tf.reduce_min(tf.constant([3, 2], tf.uint8)), 2, tf.uint8)
    check(tf.reduce_max(tf.constant([1., np.nan, 2.])), np.nan, tf.float32)
    check(tf.reduce_min(tf.constant([[1., np.nan]]), 1), [np.nan], tf.float32)
    check(tf.reduce_max(tf.zeros([0])), -np.inf, tf.float32)
    check(tf.reduce_min(tf.zeros([0])), np.inf, tf.float32)
    check(tf.reduce_max(tf.zeros([0], tf.int32)), -2 ** 31, tf.int32)
    check(tf.reduce_max(tf.zeros([0], tf.uint8)), 0, tf.uint8)
    check(tf.reduce_min(tf.zeros([0], tf.int64)), 2 ** 63 - 1, tf.int64)
    check(tf.reduce_max(tf.zeros([0, 3]), 0), [-np.inf] * 3, tf.float32)
    check(tf.reduce_max(tf.zeros([3, 0]), 0), np.zeros([0]), tf.float32)


def test_reduce_prod_all_any():
    check(tf.reduce_prod(tf.constant(X), [0, 1], keepdims=True), [[2450.]], tf.float32)
    check(tf.reduce_prod(tf.constant([1j, 2j])), -2 + 0j, tf.complex128)
    check(tf.reduce_prod(tf.constant([[2, 3], [4, 5]], tf.int8), 0), [8, 15], tf.int8)
    check(tf.reduce_prod(tf.zeros([0])), 1., tf.float32)
    b = tf.constant([[True, False], [True, True]])
    check(tf.reduce_all(b, 1, keepdims=True), [[False], [True]], tf.bool)
    check(tf.reduce_any(b, 0), [True, True], tf.bool)
    check(tf.reduce_all(b), False, tf.bool)
    check(tf.reduce_all(tf.zeros([0], tf.bool)), True, tf.bool)
    check(tf.reduce_any(tf.zeros([0], tf.bool)), False, tf.bool)


def test_reduce_euclidean_norm():
    check(tf.math.reduce_euclidean_norm(tf.constant([[3., 4.], [5., 12.]]), 1), [5., 13.],
          tf.float32)
    check(tf.math.reduce_euclidean_norm(tf.constant([3, 4])), 5, tf.int32)
    check(tf.math.reduce_euclidean_norm(tf.constant([3, 5])), 5, tf.int32)  # truncated
    check(tf.math.reduce_euclidean_norm(tf.constant([3 + 4j])), 5 + 0j, tf.complex128)
    check(tf.math.reduce_euclidean_norm(tf.zeros([0, 3]), 0), [0., 0., 0.], tf.float32)


def test_reduce_logsumexp_is_stable():
    check(tf.reduce_logsumexp(tf.constant([1000., 1000.])), np.float32(1000.6931762695312),
          tf.float32)
    check(tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf])), -np.inf, tf.float32)
    check(tf.reduce_logsumexp(tf.constant([np.inf, 1.])), np.inf, tf.float32)
    check(tf.reduce_logsumexp(tf.zeros([0])), -np.inf, tf.float32)
    r = tf.reduce_logsumexp(tf.constant([[1., 2.]], tf.float64), 1, keepdims=True)
    assert r.dtype == tf.float64 and r.shape == (1, 1)
    np.testing.assert_allclose(r.numpy(), [[np.log(np.exp(1) + np.exp(2))]], rtol=1e-15)
    r = tf.reduce_logsumexp(tf.constant([[1., 2.], [3., 5.]]), 0)
    np.testing.assert_allclose(r.numpy(), [3.126928, 5.0485873], rtol=1e-6)


def test_variance_and_std():
    x = tf.constant(X)
    r = tf.math.reduce_variance(x, 1, keepdims=True)
    assert r.shape == (2, 1) and r.dtype == tf.float32
    np.testing.assert_allclose(r.numpy(), [[3.5555556], [5.5555553]], rtol=1e-6)
    r = tf.math.reduce_std(tf.constant([1., 2., 4.]))
    assert r.dtype == tf.float32 and np.isclose(float(r), 1.247219204902649)
    check(tf.math.reduce_variance(tf.constant([1j, 2])), 1.25, tf.float64)
    np.testing.assert_allclose(tf.math.reduce_std(tf.constant([1j, 2])).numpy(),
                               1.118033988749895, rtol=1e-15)
    check(tf.math.reduce_variance(tf.constant([1, 2], tf.float16)), np.float16(0.25),
          tf.float16)
    check(tf.math.reduce_variance(tf.zeros([0])), np.nan, tf.float32)


def test_count_nonzero():
    check(tf.math.count_nonzero(tf.constant(X)), 6, tf.int64)
    check(tf.math.count_nonzero(tf.constant([[0, 1], [2, 0]]), 1, keepdims=True), [[1], [1]],
          tf.int64)
    check(tf.math.count_nonzero(tf.constant(X), dtype=tf.int32), 6, tf.int32)
    check(tf.math.count_nonzero(tf.constant(X), dtype=tf.float32), 6., tf.float32)
    check(tf.math.count_nonzero(tf.constant([True, False, True])), 2, tf.int64)
    check(tf.math.count_nonzero(tf.constant(["", "a", "b"])), 2, tf.int64)
    check(tf.math.count_nonzero(tf.constant([np.nan, 0.])), 1, tf.int64)
    check(tf.math.count_nonzero(tf.constant([1j, 0])), 1, tf.int64)
    check(tf.math.count_nonzero(tf.zeros([0])), 0, tf.int64)
    check(tf.math.count_nonzero(input=tf.constant([1, 0])), 1, tf.int64)


# --- reduction errors ------------------------------------------------------------

@pytest.mark.parametrize("fn, axis, msg", [
    (tf.reduce_sum, 2, r"Invalid reduction dimension \(2 for input with 2 dimension\(s\) "
                       r"\[Op:Sum\]"),
    (tf.reduce_mean, -3, r"Invalid reduction dimension \(-3 for input with 2 dimension\(s\) "
                         r"\[Op:Mean\]"),
    (tf.reduce_max, [0, 5], r"\(5 for input with 2 dimension\(s\) \[Op:Max\]"),
    (tf.reduce_sum, [0, 0], r"Axes contains duplicate dimension: 0 \[Op:Sum\]"),
    (tf.reduce_sum, [1, -1], r"Axes contains duplicate dimension: 1 \[Op:Sum\]"),
    (tf.reduce_logsumexp, 3, r"\(3 for input with 2 dimension\(s\) \[Op:Max\]"),
    (tf.math.reduce_std, 5, r"\(5 for input with 2 dimension\(s\) \[Op:Mean\]"),
    (tf.math.reduce_variance, 5, r"\[Op:Mean\]"),
])
def test_invalid_axis_is_invalid_argument_eagerly(fn, axis, msg):
    with pytest.raises(InvalidArgumentError, match=msg):
        fn(tf.constant(X), axis)


def test_scalar_input_has_no_axis_0():
    with pytest.raises(InvalidArgumentError, match=r"\(0 for input with 0 dimension"):
        tf.reduce_sum(tf.constant(3.), 0)
    check(tf.reduce_sum(tf.constant(3.), []), 3., tf.float32)


def test_reduction_dtype_errors():
    with pytest.raises(InvalidArgumentError, match="Value for attr 'T' of bool is not in the "
                       "list of allowed values: float, double, int32"):
        tf.reduce_mean(tf.constant([True]))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of string"):
        tf.reduce_sum(tf.constant(["a"]))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of complex128"):
        tf.reduce_max(tf.constant([1j]))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of bool"):
        tf.math.reduce_euclidean_norm(tf.constant([True]))
    with pytest.raises(InvalidArgumentError, match=r"cannot compute All as input #0\(zero-based\) "
                       r"was expected to be a bool tensor but is a int32 tensor \[Op:All\]"):
        tf.reduce_all(tf.constant([1]))
    with pytest.raises(InvalidArgumentError, match="but is a float tensor"):
        tf.reduce_any(tf.constant([1.]))
    with pytest.raises(InvalidArgumentError, match="of int32 is not in the list of allowed "
                       "values: .*half, float, double"):
        tf.reduce_logsumexp(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Input must be either real or complex. Received integer "
                       "type <dtype: 'int32'>."):
        tf.math.reduce_std(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Received integer type"):
        tf.math.reduce_variance(tf.constant([1, 2], tf.int64))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of bool"):
        tf.math.reduce_variance(tf.constant([True]))
    with pytest.raises(TypeError, match="Cannot convert 0.5"):
        tf.reduce_sum(tf.constant(X), 0.5)


# --- argmax / argmin ---------------------------------------------------------------

def test_argmax_argmin_defaults_and_output_types():
    x = tf.constant(X)
    check(tf.argmax(x), [1, 0, 1], tf.int64)  # axis 0 by default in TF 2
    check(tf.argmax(x, 1), [1, 0], tf.int64)  # first index on ties
    check(tf.argmin(x, 1), [0, 1], tf.int64)
    check(tf.math.argmax(x, -1, output_type=tf.int32), [1, 0], tf.int32)
    check(tf.math.argmax(x, -1, output_type=tf.int16), [1, 0], tf.int16)
    check(tf.argmax(x, output_type=tf.uint16), [1, 0, 1], tf.uint16)
    check(tf.argmax(x, tf.constant(1, tf.int64)), [1, 0], tf.int64)
    check(tf.argmin(tf.constant([[3, 1, 1], [0, 0, 0]], tf.int64), axis=-1,
                    output_type=tf.int32), [1, 0], tf.int32)
    check(tf.argmax(tf.constant([False, True])), 1, tf.int64)
    check(tf.argmax(tf.constant([1, 3], tf.uint8)), 1, tf.int64)
    check(tf.argmax(tf.zeros([2, 0]), 0), np.zeros([0], np.int64), tf.int64)
    check(tf.argmax(tf.zeros([2, 3, 4]), 2), np.zeros([2, 3], np.int64), tf.int64)


def test_argmax_never_selects_nan():
    check(tf.argmax(tf.constant([1., np.nan, 3.])), 2, tf.int64)
    check(tf.argmin(tf.constant([1., np.nan, 3.])), 0, tf.int64)
    check(tf.argmax(tf.constant([np.nan, 1., 3.])), 2, tf.int64)
    check(tf.argmin(tf.constant([np.nan, 1., 3.])), 1, tf.int64)
    check(tf.argmax(tf.constant([[np.nan, 1., 3.], [1., np.nan, 0.]]), 1), [2, 0], tf.int64)


def test_argmax_errors():
    x = tf.constant(X)
    with pytest.raises(InvalidArgumentError, match=r"Expected dimension in the range \[-2, 2\), "
                       r"but got 2 \[Op:ArgMax\]"):
        tf.argmax(x, 2)
    with pytest.raises(InvalidArgumentError, match=r"range \[0, 0\), but got 0"):
        tf.argmax(tf.constant(3.))
    with pytest.raises(InvalidArgumentError, match=r"Reduction axis 0 is empty in shape \[0,2\] "
                       r"\[Op:ArgMax\]"):
        tf.argmax(tf.zeros([0, 2]))
    with pytest.raises(TypeError, match="axis must be int or Tensor with integer datatype"):
        tf.argmax(x, [1])
    with pytest.raises(InvalidArgumentError, match="attr 'output_type' of float is not in the "
                       "list of allowed values: int16, uint16, int32, int64"):
        tf.argmax(x, output_type=tf.float32)
    with pytest.raises(InvalidArgumentError, match="attr 'T' of complex128"):
        tf.argmin(tf.constant([1j, 2]))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of string"):
        tf.argmax(tf.constant(["a"]))


# --- scans ---------------------------------------------------------------------------

def test_cumsum_flags():
    x = tf.constant(X)
    check(tf.cumsum(x), [[1., 5., 5.], [8., 7., 12.]], tf.float32)
    check(tf.cumsum(x, 1), [[1., 6., 11.], [7., 9., 16.]], tf.float32)
    check(tf.cumsum(x, 1, exclusive=True), [[0., 1., 6.], [0., 7., 9.]], tf.float32)
    check(tf.cumsum(x, 1, reverse=True), [[11., 10., 5.], [16., 9., 7.]], tf.float32)
    check(tf.cumsum(x, -1, exclusive=True, reverse=True), [[10., 5., 0.], [9., 7., 0.]],
          tf.float32)
    check(tf.cumsum(tf.constant([100, 100], tf.int8)), [100, -56], tf.int8)
    check(tf.cumsum(tf.constant([1j, 1])), [1j, 1 + 1j], tf.complex128)
    check(tf.cumsum(tf.zeros([2, 0]), 1, exclusive=True), np.zeros([2, 0]), tf.float32)
    check(tf.cumsum(tf.constant([5.]), exclusive=True), [0.], tf.float32)


def test_cumprod_and_cumulative_logsumexp():
    x = tf.constant(X)
    check(tf.math.cumprod(x, 1, exclusive=True), [[1., 1., 5.], [1., 7., 14.]], tf.float32)
    check(tf.math.cumprod(x, 1, reverse=True), [[25., 25., 5.], [98., 14., 7.]], tf.float32)
    check(tf.math.cumprod(x, 1, exclusive=True, reverse=True), [[25., 5., 1.], [14., 7., 1.]],
          tf.float32)
    check(tf.math.cumprod(tf.constant([1j, 1j])), [1j, -1 + 0j], tf.complex128)
    r = tf.math.cumulative_logsumexp(x, 1)
    np.testing.assert_allclose(r.numpy(), [[1., 5.01815, 5.7022634], [7., 7.0067153, 7.6965103]],
                               rtol=1e-6)
    r = tf.math.cumulative_logsumexp(x, 1, exclusive=True, reverse=True)
    np.testing.assert_allclose(r.numpy(), [[5.693147, 5., -np.inf], [7.0067153, 7., -np.inf]],
                               rtol=1e-6)
    np.testing.assert_allclose(tf.math.cumulative_logsumexp(tf.constant([1000., 1000.])),
                               [1000., 1000.6931472], rtol=1e-7)
    check(tf.math.cumulative_logsumexp(tf.constant([-np.inf, 1.])), [-np.inf, 1.], tf.float32)


def test_scan_errors():
    x = tf.constant(X)
    with pytest.raises(InvalidArgumentError, match=r"ScanOp: Expected scan axis in the range "
                       r"\[-2, 2\), but got 2 \[Op:Cumsum\]"):
        tf.cumsum(x, 2)
    with pytest.raises(InvalidArgumentError, match=r"range \[0, 0\), but got 0 \[Op:Cumsum\]"):
        tf.cumsum(tf.constant(3.))
    with pytest.raises(InvalidArgumentError, match=r"ScanOp: axis must be a scalar, not \[1\] "
                       r"\[Op:Cumsum\]"):
        tf.cumsum(x, [1])
    with pytest.raises(TypeError, match="Cannot convert 1.0"):
        tf.cumsum(x, 1.0)
    with pytest.raises(InvalidArgumentError, match="attr 'T' of bool"):
        tf.cumsum(tf.constant([True, True]))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of string"):
        tf.math.cumprod(tf.constant(["a"]))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of int32 is not in the list of "
                       "allowed values: .*half, float, double"):
        tf.math.cumulative_logsumexp(tf.constant([1, 2]))


# --- segment reductions ---------------------------------------------------------------------

def test_sorted_segment_reductions():
    d = tf.constant(D)
    ids = [0, 0, 2]
    check(tf.math.segment_sum(d, ids), [[4., 6.], [0., 0.], [5., 6.]], tf.float32)
    check(tf.math.segment_mean(d, ids), [[2., 3.], [0., 0.], [5., 6.]], tf.float32)
    check(tf.math.segment_max(d, ids), [[3., 4.], [0., 0.], [5., 6.]], tf.float32)
    check(tf.math.segment_min(d, ids), [[1., 2.], [0., 0.], [5., 6.]], tf.float32)
    check(tf.math.segment_prod(d, ids), [[3., 8.], [1., 1.], [5., 6.]], tf.float32)
    check(tf.math.segment_sum(d, tf.constant([0, 0, 1], tf.int64)), [[4., 6.], [5., 6.]],
          tf.float32)
    check(tf.math.segment_mean(tf.constant([1, 2, -3, -4]), [0, 0, 1, 1]), [1, -3], tf.int32)
    check(tf.math.segment_mean(tf.constant([100, 100], tf.int8), [0, 0]), [-28], tf.int8)
    check(tf.math.segment_max(tf.constant([1, 2]), [0, 2]), [1, 0, 2], tf.int32)
    check(tf.math.segment_sum(tf.constant([1j]), [0]), [1j], tf.complex128)
    check(tf.math.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32)), np.zeros([0, 2]),
          tf.float32)


def test_sorted_segment_errors():
    d = tf.constant(D)
    with pytest.raises(InvalidArgumentError, match=r"segment ids are not increasing "
                       r"\[Op:SegmentSum\]"):
        tf.math.segment_sum(d, [1, 0, 2])
    with pytest.raises(InvalidArgumentError, match=r"Segment id -1 out of range \[0, 3\), "
                       "possibly because 'segment_ids' input is not sorted."):
        tf.math.segment_sum(d, [-1, 0, 2])
    with pytest.raises(InvalidArgumentError, match="segment_ids should be the same size as "
                       "dimension 0 of input."):
        tf.math.segment_max(d, [0, 0])
    with pytest.raises(InvalidArgumentError, match="segment_ids should be a vector."):
        tf.math.segment_sum(d, [[0, 0, 1]])
    with pytest.raises(InvalidArgumentError, match="input must be at least rank 1"):
        tf.math.segment_sum(tf.constant(1.), [0])
    with pytest.raises(InvalidArgumentError, match="attr 'Tindices' of float is not in the list "
                       "of allowed values: int32, int64"):
        tf.math.segment_sum(d, tf.constant([0., 0, 1]))
    with pytest.raises(InvalidArgumentError, match="attr 'T' of complex128"):
        tf.math.segment_max(tf.constant([1j]), [0])


def test_unsorted_segment_reductions():
    d = tf.constant(D)
    ids = [2, 0, 2]
    check(tf.math.unsorted_segment_sum(d, ids, 4), [[3., 4.], [0., 0.], [6., 8.], [0., 0.]],
          tf.float32)
    lo, hi = np.finfo(np.float32).min, np.finfo(np.float32).max
    check(tf.math.unsorted_segment_max(d, ids, 4), [[3., 4.], [lo, lo], [5., 6.], [lo, lo]],
          tf.float32)
    check(tf.math.unsorted_segment_min(d, ids, 4), [[3., 4.], [hi, hi], [1., 2.], [hi, hi]],
          tf.float32)
    check(tf.math.unsorted_segment_prod(d, ids, 4), [[3., 4.], [1., 1.], [5., 12.], [1., 1.]],
          tf.float32)
    check(tf.math.unsorted_segment_mean(d, ids, 4), [[3., 4.], [0., 0.], [3., 4.], [0., 0.]],
          tf.float32)
    np.testing.assert_allclose(tf.math.unsorted_segment_sqrt_n(d, ids, 4).numpy(),
                               [[3., 4.], [0., 0.], [6 / 2 ** .5, 8 / 2 ** .5], [0., 0.]],
                               rtol=1e-6)
    check(tf.math.unsorted_segment_max(tf.constant([1, 2]), [0, 0], 2), [2, -2 ** 31], tf.int32)
    check(tf.math.unsorted_segment_min(tf.constant([1, 2], tf.uint8), [0, 0], 2), [1, 255],
          tf.uint8)
    check(tf.math.unsorted_segment_max(tf.constant([1.], tf.float16), [0], 2),
          np.float16([1., -65504.]), tf.float16)
    check(tf.math.unsorted_segment_mean(tf.constant([1, 2]), [0, 0], 2), [1.5, 0.], tf.float64)
    # Negative ids drop their rows; ids may have several dimensions.
    check(tf.math.unsorted_segment_sum(d, [-1, 0, 2], 4), [[3., 4.], [0., 0.], [5., 6.],
                                                          [0., 0.]], tf.float32)
    check(tf.math.unsorted_segment_sum(d, [[0, 1], [1, 0], [2, 2]], 3), [5., 5., 11.],
          tf.float32)
    check(tf.math.unsorted_segment_sum(tf.ones([3, 2, 4]), [[0, 1], [1, 0], [2, 2]], 3),
          np.full([3, 4], 2.), tf.float32)
    check(tf.math.unsorted_segment_sum(d, 1, 3)[1], D, tf.float32)
    check(tf.math.unsorted_segment_sum(d, [0, 1, 1], tf.constant(3, tf.int64)),
          [[1., 2.], [8., 10.], [0., 0.]], tf.float32)


def test_unsorted_segment_errors():
    d = tf.constant(D)
    with pytest.raises(InvalidArgumentError, match=r"segment_ids\[0\] = 5 is out of range "
                       r"\[0, 4\)"):
        tf.math.unsorted_segment_sum(d, [5, 0, 2], 4)
    with pytest.raises(InvalidArgumentError, match=r"data.shape = \[3,2\] does not start with "
                       r"segment_ids.shape = \[2\] \[Op:UnsortedSegmentSum\]"):
        tf.math.unsorted_segment_sum(d, [0, 1], 3)
    with pytest.raises(InvalidArgumentError, match="Input num_segments == -1 must not be "
                       "negative."):
        tf.math.unsorted_segment_sum(d, [0, 1, 1], -1)
    with pytest.raises(InvalidArgumentError, match=r"num_segments should be a scalar, not shape "
                       r"\[1\]"):
        tf.math.unsorted_segment_max(d, [0, 1, 1], [3])
    with pytest.raises(InvalidArgumentError, match="attr 'Tnumsegments' of float"):
        tf.math.unsorted_segment_sum(d, [0, 1, 1], 3.0)
    with pytest.raises(InvalidArgumentError, match="attr 'Tindices' of float is not in the list "
                       "of allowed values: int16, int32, int64"):
        tf.math.unsorted_segment_sum(d, [0., 1., 1.], 2)
    with pytest.raises(InvalidArgumentError, match="attr 'T' of bool"):
        tf.math.unsorted_segment_max(tf.constant([True]), [0], 1)


# --- bincount ---------------------------------------------------------------------------------

def test_bincount():
    a = tf.constant([1, 1, 2, 3, 2, 4, 4, 5])
    check(tf.math.bincount(a), [0, 2, 2, 1, 2, 1], tf.int32)
    check(tf.math.bincount(a, minlength=8), [0, 2, 2, 1, 2, 1, 0, 0], tf.int32)
    check(tf.math.bincount(a, maxlength=3), [0, 2, 2], tf.int32)
    check(tf.math.bincount(a, minlength=10, maxlength=3), [0, 2, 2], tf.int32)
    check(tf.math.bincount(a, weights=tf.ones([8]) * 0.5), [0., 1., 1., .5, 1., .5], tf.float32)
    check(tf.math.bincount(a, weights=tf.ones([8], tf.float64)), [0., 2., 2., 1., 2., 1.],
          tf.float64)
    check(tf.math.bincount(a, weights=tf.ones([8]), dtype=tf.float64), [0, 2, 2, 1, 2, 1],
          tf.float32)
    check(tf.math.bincount(a, dtype=tf.int64), [0, 2, 2, 1, 2, 1], tf.int64)
    check(tf.math.bincount(a, binary_output=True), [0, 1, 1, 1, 1, 1], tf.int32)
    check(tf.math.bincount(tf.constant([], tf.int32)), np.zeros([0]), tf.int32)
    check(tf.math.bincount(tf.constant([], tf.int32), minlength=3), [0, 0, 0], tf.int32)
    check(tf.math.bincount(tf.constant([1., 2.])), [0, 1, 1], tf.int32)
    check(tf.math.bincount(tf.constant(3)), [0, 0, 0, 1], tf.int32)
    check(tf.math.bincount([[1, 2], [0, 0]]), [2, 1, 1], tf.int32)
    check(tf.math.bincount([[1, 2], [0, 0]], axis=-1, minlength=5),
          [[0, 1, 1, 0, 0], [2, 0, 0, 0, 0]], tf.int32)
    check(tf.math.bincount([[1, 2], [2, 2]], weights=[[1., 2.], [3., 4.]], axis=-1),
          [[0., 1., 2.], [0., 0., 7.]], tf.float32)
    check(tf.math.bincount([[1, 2], [2, 5]], axis=-1, maxlength=3, binary_output=True),
          [[0, 1, 1], [0, 0, 1]], tf.int32)


def test_bincount_errors():
    a = tf.constant([1, 1, 2])
    with pytest.raises(InvalidArgumentError, match=r"Input arr must be non-negative! "
                       r"\[Op:DenseBincount\]"):
        tf.math.bincount(tf.constant([-1, 2]))
    with pytest.raises(InvalidArgumentError, match=r"must be the same shape as `arr`.*Received "
                       r"\[2\] \[Op:DenseBincount\]"):
        tf.math.bincount(a, weights=tf.ones([2]))
    with pytest.raises(ValueError, match="mutually exclusive"):
        tf.math.bincount(a, weights=tf.ones([3]), binary_output=True)
    with pytest.raises(ValueError, match="Unsupported value for argument axis=1"):
        tf.math.bincount([[1, 2]], axis=1)
    with pytest.raises(InvalidArgumentError, match="attr 'T' of int16 is not in the list of "
                       "allowed values: int32, int64, float, double"):
        tf.math.bincount([1, 2], dtype=tf.int16)
    with pytest.raises(InvalidArgumentError, match="at most rank 2 but is rank 3"):
        tf.math.bincount([[[1, 2]]], axis=-1)


def test_bincount_has_no_gradient():
    with pytest.raises(LookupError, match="DenseBincount"):
        grads(lambda w: tf.math.bincount(tf.constant([1, 1, 3]), weights=w), [1., 2., 3.])


# --- add_n --------------------------------------------------------------------------------------

def test_add_n():
    x = tf.constant(X)
    check(tf.add_n([x, x, x, x]), np.array(X) * 4, tf.float32)
    check(tf.add_n([x, x]), np.array(X) * 2, tf.float32)
    check(tf.add_n([1, 2, 3]), 6, tf.int32)
    check(tf.add_n([tf.constant(1), tf.constant(2), tf.constant(3)]), 6, tf.int32)
    assert tf.add_n([x]) is x
    check(tf.add_n([[1., 2.]]), [1., 2.], tf.float32)
    check(tf.add_n(tf.constant([1., 2.])), 3., tf.float32)  # iterates the rows
    check(tf.math.accumulate_n([x, x]), np.array(X) * 2, tf.float32)
    # The kernel accumulates into a fresh array: inputs are never modified.
    a = tf.constant([1., 2.])
    tf.add_n([a, a, a])
    check(a, [1., 2.], tf.float32)


def test_add_n_errors():
    with pytest.raises(InvalidArgumentError, match=r"Inputs to operation AddN of type AddN must "
                       r"have the same size and shape.  Input 0: \[2\] != input 1: \[1\] "
                       r"\[Op:AddN\]"):
        tf.add_n([tf.ones([2]), tf.ones([1])])
    with pytest.raises(InvalidArgumentError, match=r"cannot compute AddN as input #1\(zero-based\) "
                       r"was expected to be a float tensor but is a double tensor \[Op:AddN\]"):
        tf.add_n([tf.ones([2]), tf.ones([2], tf.float64)])
    with pytest.raises(ValueError, match="at least one Tensor"):
        tf.add_n([])
    with pytest.raises(InvalidArgumentError, match="attr 'T' of string"):
        tf.add_n([tf.constant("a"), tf.constant("b")])
    with pytest.raises(InvalidArgumentError, match="attr 'T' of bool"):
        tf.add_n([tf.constant(True), tf.constant(True)])


# --- graph construction: op types, names, static shapes --------------------------------------

def _op_types(g, start):
    return [op.type for op in g.get_operations()[start:]]


@pytest.mark.parametrize("fn, op_type", [
    (tf.reduce_sum, "Sum"), (tf.reduce_mean, "Mean"), (tf.reduce_max, "Max"),
    (tf.reduce_min, "Min"), (tf.reduce_prod, "Prod"),
    (tf.math.reduce_euclidean_norm, "EuclideanNorm")])
def test_reduction_op_types_and_names(fn, op_type):
    with tf.Graph().as_default() as g:
        x = P(tf.float32, [2, None, 3])
        y = fn(x, 1)
        assert y.op.type == op_type and y.name == f"{op_type}:0"
        assert y.op.inputs[1].op.name == f"{op_type}/reduction_indices"
        assert y.shape.as_list() == [2, 3] and y.dtype == tf.float32
        assert fn(x, 1).name == f"{op_type}_1:0"


def test_other_op_types():
    with tf.Graph().as_default() as g:
        x = P(tf.float32, [2, None, 3])
        b = P(tf.bool, [4])
        assert tf.reduce_all(b).op.type == "All"
        assert tf.reduce_any(b).op.type == "Any"
        assert tf.argmax(x).op.type == "ArgMax"
        assert tf.argmin(x).op.type == "ArgMin"
        assert tf.argmax(x, 1).op.inputs[1].op.name == "ArgMax_1/dimension"
        assert tf.cumsum(x, 1).op.type == "Cumsum"
        assert tf.math.cumprod(x, 1).op.type == "Cumprod"
        assert tf.math.cumulative_logsumexp(x, 1).op.type == "CumulativeLogsumexp"
        assert tf.math.segment_sum(x, [0, 0]).op.type == "SegmentSum"
        assert tf.math.unsorted_segment_max(x, [0, 0], 2).op.type == "UnsortedSegmentMax"
        assert tf.add_n([x, x]).op.type == "AddN"
        n = len(g.get_operations())
        assert tf.math.bincount(P(tf.int32, [5])).name == "bincount/DenseBincount:0"
        assert "DenseBincount" in _op_types(g, n)


def test_composites_are_built_like_tensorflow():
    with tf.Graph().as_default() as g:
        x = P(tf.float32, [2, None, 3])
        n = len(g.get_operations())
        y = tf.reduce_logsumexp(x, 1)
        assert _op_types(g, n) == ["Const", "Max", "IsFinite", "Const", "SelectV2",
                                   "StopGradient", "Sub", "Exp", "Const", "Sum", "Log",
                                   "Const", "Reshape", "AddV2"]
        assert y.shape.as_list() == [2, 3] and y.name.startswith("ReduceLogSumExp/")
        n = len(g.get_operations())
        y = tf.math.reduce_std(x, 1)
        assert [op.name for op in g.get_operations()[n:] if op.type != "Const"] == [
            "reduce_std/reduce_variance/Mean", "reduce_std/reduce_variance/sub",
            "reduce_std/reduce_variance/Square", "reduce_std/reduce_variance/Mean_1",
            "reduce_std/Sqrt"]
        assert y.name == "reduce_std/Sqrt:0"
        n = len(g.get_operations())
        y = tf.math.count_nonzero(x, 1)
        assert _op_types(g, n) == ["Const", "NotEqual", "Cast", "Const", "Sum"]
        assert y.name == "count_nonzero/Sum:0" and y.dtype == tf.int64


@pytest.mark.parametrize("build, shape", [
    (lambda x, u, a: tf.reduce_sum(x, [0, -1], keepdims=True), [1, None, 1]),
    (lambda x, u, a: tf.reduce_sum(x), []),
    (lambda x, u, a: tf.reduce_sum(x, [0, 0]), [None, 3]),  # duplicates pass while building
    (lambda x, u, a: tf.reduce_sum(x, a), None),
    (lambda x, u, a: tf.reduce_sum(x, a, keepdims=True), [None, None, None]),
    (lambda x, u, a: tf.reduce_max(u, 1), None),
    (lambda x, u, a: tf.reduce_max(u), []),
    (lambda x, u, a: tf.reduce_sum(u, keepdims=True), None),
    (lambda x, u, a: tf.reduce_mean(x, []), [2, None, 3]),
    (lambda x, u, a: tf.argmax(x, 1), [2, 3]),
    (lambda x, u, a: tf.argmax(x, a[0]), [None, None]),
    (lambda x, u, a: tf.argmax(u, 1), None),
    (lambda x, u, a: tf.argmax(tf.constant(1.)), []),
    (lambda x, u, a: tf.cumsum(x, a[0]), [2, None, 3]),
    (lambda x, u, a: tf.reduce_logsumexp(x, [0, 2], keepdims=True), [1, None, 1]),
    (lambda x, u, a: tf.reduce_logsumexp(u), []),
    (lambda x, u, a: tf.math.reduce_variance(x, 1), [2, 3]),
    (lambda x, u, a: tf.math.count_nonzero(x, 1, keepdims=True), [2, 1, 3]),
    (lambda x, u, a: tf.math.segment_sum(x, P(tf.int32, [2])), [None, None, 3]),
    (lambda x, u, a: tf.math.segment_mean(x, [0, 1]), [None, None, 3]),
    (lambda x, u, a: tf.math.segment_sum(u, [0, 1]), None),
    (lambda x, u, a: tf.math.unsorted_segment_sum(x, [0, 1], 3), [3, None, 3]),
    (lambda x, u, a: tf.math.unsorted_segment_sum(x, [0, 1], a[0]), [None, None, 3]),
    (lambda x, u, a: tf.math.unsorted_segment_sum(x, P(tf.int32, [2, None]), 3), [3, 3]),
    (lambda x, u, a: tf.math.unsorted_segment_sum(x, P(tf.int32, None), 3), None),
    (lambda x, u, a: tf.math.unsorted_segment_mean(x, [0, 1], 3), [3, None, 3]),
    (lambda x, u, a: tf.math.bincount(P(tf.int32, [5]), minlength=3), [None]),
    (lambda x, u, a: tf.math.bincount(P(tf.int32, [4, 5]), axis=-1), [None, None]),
    (lambda x, u, a: tf.math.bincount([1, 2, 2]), [3]),
    (lambda x, u, a: tf.add_n([x, P(tf.float32, [None, 4, 3])]), [2, 4, 3]),
    (lambda x, u, a: tf.add_n([x, u]), [2, None, 3]),
])
def test_static_shape_inference(build, shape):
    with tf.Graph().as_default():
        x = P(tf.float32, [2, None, 3])
        u = P(tf.float32, None)
        a = P(tf.int32, [2])
        y = build(x, u, a)
        if shape is None:
            assert y.shape.rank is None
        else:
            assert y.shape.as_list() == shape


def test_output_dtypes_in_graphs():
    with tf.Graph().as_default():
        x = P(tf.float32, [2, None, 3])
        assert tf.argmax(x, 1).dtype == tf.int64
        assert tf.argmin(x, 1, output_type=tf.int32).dtype == tf.int32
        assert tf.math.count_nonzero(x, dtype=tf.int32).dtype == tf.int32
        assert tf.math.reduce_variance(P(tf.complex64, [3])).dtype == tf.float32
        assert tf.math.unsorted_segment_mean(P(tf.int32, [2]), [0, 1], 2).dtype == tf.float64
        assert tf.math.bincount(P(tf.int32, [5]), weights=P(tf.float64, [5])).dtype == \
            tf.float64


@pytest.mark.parametrize("build, exc, msg", [
    (lambda x: tf.reduce_sum(x, 3), ValueError,
     r"Invalid reduction dimension 3 for input with 3 dimensions\.? for '\{\{node Sum\}\}"),
    (lambda x: tf.reduce_mean(x, -4), ValueError, "Invalid reduction dimension -4"),
    (lambda x: tf.reduce_sum(tf.constant(1.), 0), ValueError,
     "Invalid reduction dimension 0 for input with 0 dimensions"),
    (lambda x: tf.reduce_sum(x, [[0, 1]]), ValueError, "Shape must be at most rank 1 but is "
                                                       "rank 2"),
    (lambda x: tf.reduce_sum(x, P(tf.float32, [])), TypeError,
     "'reduction_indices' has DataType float32 not in list of allowed values: int32, int64"),
    (lambda x: tf.reduce_mean(P(tf.bool, [2])), TypeError,
     "Value passed to parameter 'input' has DataType bool not in list of allowed values: "
     "float32, float64, int32"),
    (lambda x: tf.reduce_max(P(tf.complex64, [2])), TypeError, "DataType complex64"),
    (lambda x: tf.reduce_all(x), TypeError, "Input 'input' of 'All' Op has type float32 that "
                                            "does not match expected type of bool"),
    (lambda x: tf.argmax(x, 3), ValueError, r"Dimension \(3\) must be in the range \[-3, 3\), "
                                            "where 3 is the number of dimensions in the input"),
    (lambda x: tf.argmax(x, output_type=tf.float32), TypeError, "'output_type' has DataType "
                                                                "float32"),
    (lambda x: tf.cumsum(P(tf.bool, [2])), TypeError, "parameter 'x' has DataType bool"),
    (lambda x: tf.math.cumulative_logsumexp(P(tf.int32, [2])), TypeError, "DataType int32"),
    (lambda x: tf.math.segment_sum(x, P(tf.int32, [2, 1])), ValueError,
     "Shape must be rank 1 but is rank 2"),
    (lambda x: tf.math.segment_sum(x, P(tf.float32, [2])), TypeError, "'segment_ids'"),
    (lambda x: tf.math.unsorted_segment_sum(x, P(tf.int32, [3]), 3), ValueError,
     "Dimensions must be equal, but are 2 and 3"),
    (lambda x: tf.add_n([x, P(tf.float32, [3, 4, 3])]), ValueError,
     r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are \[2,\?,3\] and "
     r"\[3,4,3\]"),
    (lambda x: tf.add_n([x, P(tf.float64, [2, 4, 3])]), TypeError,
     r"Tensors in list passed to 'inputs' of 'AddN' Op have types \[float32, float64\] that "
     "don't all match"),
    (lambda x: tf.add_n([P(tf.string, []), P(tf.string, [])]), TypeError, "DataType string"),
    (lambda x: tf.math.reduce_std(P(tf.int32, [2])), TypeError, "Received integer type"),
])
def test_graph_construction_errors(build, exc, msg):
    with tf.Graph().as_default():
        x = P(tf.float32, [2, None, 3])
        with pytest.raises(exc, match=msg):
            build(x)


# --- gradients ----------------------------------------------------------------------------------

_R = np.random.RandomState(0)
_A = _R.randn(3, 4)
_ZEROS = np.array([[1., 0., 3., 2.], [0., 0., 2., 1.], [2., 3., 4., .5]])


@pytest.mark.parametrize("f, x", [
    (lambda v: tf.reduce_sum(v, 1), _A),
    (lambda v: tf.reduce_sum(v, [0, -1], keepdims=True), _A),
    (lambda v: tf.reduce_mean(v, 0), _A),
    (lambda v: tf.reduce_mean(v, keepdims=True), _A),
    (lambda v: tf.reduce_max(v, 1), _A),
    (lambda v: tf.reduce_min(v, 0, keepdims=True), _A),
    (lambda v: tf.reduce_prod(v, 1), _A),
    (lambda v: tf.reduce_prod(v, 1), _ZEROS),
    (lambda v: tf.reduce_prod(v, [0, 1]), _ZEROS[2:]),
    (lambda v: tf.reduce_logsumexp(v, 1), _A),
    (lambda v: tf.reduce_logsumexp(v * 100., keepdims=True), _A),
    (lambda v: tf.math.reduce_std(v, 0), _A),
    (lambda v: tf.math.reduce_variance(v), _A),
    (lambda v: tf.math.reduce_euclidean_norm(v, 1), _A),
    (lambda v: tf.cumsum(v, 1), _A),
    (lambda v: tf.cumsum(v, 0, exclusive=True, reverse=True), _A),
    (lambda v: tf.math.cumprod(v, 1), _A),
    (lambda v: tf.math.cumprod(v, 0, exclusive=True, reverse=True), _A),
    (lambda v: tf.math.cumulative_logsumexp(v, 1), _A),
    (lambda v: tf.math.cumulative_logsumexp(v, 0, reverse=True), _A),
    (lambda v: tf.exp(tf.math.cumulative_logsumexp(v, 1, exclusive=True)), _A),
    (lambda v: tf.exp(tf.math.cumulative_logsumexp(v, 1, exclusive=True, reverse=True)), _A),
    (lambda v: tf.math.segment_sum(v, [0, 0, 2]), _A),
    (lambda v: tf.math.segment_mean(v, [0, 0, 2]), _A),
    (lambda v: tf.math.segment_max(v, [0, 0, 2]), _A),
    (lambda v: tf.math.segment_min(v, [0, 1, 1]), _A),
    (lambda v: tf.math.segment_prod(v, [0, 0, 2]), _ZEROS),
    (lambda v: tf.math.unsorted_segment_sum(v, [2, -1, 2], 4), _A),
    (lambda v: tf.math.unsorted_segment_sum(v, [[0, 1, 1, 2], [2, -1, 0, 0], [1, 1, 1, 1]], 3),
     _A),
    (lambda v: tf.math.unsorted_segment_mean(v, [2, 0, 2], 4), _A),
    (lambda v: tf.math.unsorted_segment_max(v, [2, 0, 2], 3), _A),
    (lambda v: tf.math.unsorted_segment_min(v, [1, -1, 1], 3), _A),
    (lambda v: tf.math.unsorted_segment_prod(v, [1, -1, 1], 3), _ZEROS),
    (lambda v: tf.math.unsorted_segment_sqrt_n(v, [1, 0, 1], 3), _A),
    (lambda v: tf.add_n([v, v * 2., v]), _A),
])
def test_gradients_match_finite_differences(f, x):
    assert_gradients_match(f, [x], rtol=1e-5, atol=1e-6)


def test_max_min_gradient_ties_are_shared():
    g, = grads(lambda v: tf.reduce_max(v, 1), [[1., 3., 3.], [2., 2., 2.]])
    np.testing.assert_allclose(g, [[0, .5, .5], [1 / 3] * 3], rtol=1e-6)
    g, = grads(lambda v: tf.reduce_min(v), [[1., 3., 1.], [2., 2., 2.]])
    np.testing.assert_array_equal(g, [[.5, 0, .5], [0, 0, 0]])
    g, = grads(lambda v: tf.reduce_max(v), [1., np.nan, 3.])
    assert np.isnan(g).all()  # as in TensorFlow
    g, = grads(lambda v: tf.math.segment_max(v, [0, 0, 0, 1]), [3., 3., 1., 4.])
    np.testing.assert_array_equal(g, [.5, .5, 0, 1])
    g, = grads(lambda v: tf.math.unsorted_segment_max(v, [0, 0, 2, 0], 3), [3., 3., 1., 1.])
    np.testing.assert_array_equal(g, [.5, .5, 1, 0])
    g, = grads(lambda v: tf.math.unsorted_segment_max(v, [0, -1, 2, 0], 3), [3., 3., 1., 1.])
    np.testing.assert_array_equal(g, [1, 0, 1, 0])


def test_product_gradients_with_zeros():
    g, = grads(lambda v: tf.reduce_prod(v, 1), [[1., 0., 3.], [0., 0., 2.], [2., 3., 4.]])
    np.testing.assert_array_equal(g, [[0, 3, 0], [0, 0, 0], [12, 8, 6]])
    g, = grads(lambda v: tf.math.segment_prod(v, [0, 0, 1, 1]), [3., 0., 1., 2.])
    np.testing.assert_array_equal(g, [0, 3, 2, 1])
    g, = grads(lambda v: tf.math.unsorted_segment_prod(v, [0, 0, 2, 0], 3), [3., 0., 1., 2.])
    np.testing.assert_array_equal(g, [0, 6, 1, 0])
    g, = grads(lambda v: tf.reduce_prod(v), [1 + 1j, 2j], dtype=np.complex128)
    np.testing.assert_allclose(g, [-2j, 1 - 1j])
    # Like TensorFlow, cumprod gives 0 where an input is 0.
    g, = grads(lambda v: tf.math.cumprod(v), [2., 0., 3.])
    np.testing.assert_array_equal(g, [1, 0, 0])


def _others_products(x, axis):
    """TensorFlow's product gradient in float32 NumPy: the reduced axes (in
    the order given) first, flattened, and the exclusive running products
    from both ends, one multiplication at a time."""
    r = x.ndim
    reduced = [a % r for a in axis]
    perm = reduced + [i for i in range(r) if i not in reduced]
    flat = x.transpose(perm).reshape(int(np.prod([x.shape[i] for i in reduced])), -1)
    left, right = np.ones_like(flat), np.ones_like(flat)
    for i in range(1, len(flat)):
        left[i] = left[i - 1] * flat[i - 1]
        right[-1 - i] = right[-i] * flat[-i]
    return (left * right).reshape([x.shape[i] for i in perm]).transpose(np.argsort(perm))


def test_product_gradient_multiplies_the_others_products_as_tensorflow():
    # Dividing the product by each element (an earlier rule) gave inf for
    # every element once the product overflowed, NaN for every element next
    # to a NaN, and other last bits than TensorFlow's running products.
    g, = grads(lambda v: tf.reduce_prod(v), [1e30, 1e30, 1e-30])
    np.testing.assert_array_equal(g, [1, 1, np.inf])
    g, = grads(lambda v: tf.reduce_prod(v), [2., np.nan, 3.])
    np.testing.assert_array_equal(g, [np.nan, 6, np.nan])
    x = np.random.default_rng(3).uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
    for axis in ([1], [2, 0], [-1, 1, 0]):
        want = _others_products(x, axis)
        g, = grads(lambda v: tf.reduce_prod(v, axis), x)
        np.testing.assert_array_equal(g, want)

        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32),
                                      tf.TensorSpec(None, tf.int32)])
        def dynamic(v, a):
            with tf.GradientTape() as tape:
                tape.watch(v)
                y = tf.reduce_prod(v, a, keepdims=True)
            return tape.gradient(y, v)
        np.testing.assert_array_equal(dynamic(tf.constant(x), tf.constant(axis)).numpy(), want)


def test_gradients_at_special_points_match_tensorflow():
    g, = grads(lambda v: tf.math.reduce_euclidean_norm(v), [0., 0.])
    assert np.isnan(g).all()
    g, = grads(lambda v: tf.reduce_logsumexp(v), [np.inf, 1.])
    assert np.isnan(g[0]) and g[1] == 0
    g, = grads(lambda v: tf.math.cumulative_logsumexp(v), [2., 1.5, 3.])
    np.testing.assert_allclose(g, [1.8536832, 0.5177851, 0.6285317], rtol=1e-6)
    g, = grads(lambda v: tf.math.cumprod(v, exclusive=True, reverse=True), [2., 1.5, 3.])
    np.testing.assert_allclose(g, [0, 3, 2.5], rtol=1e-6)
    assert grads(lambda v: tf.argmax(v), [1., 2.]) == [None]
    assert grads(lambda v: tf.math.count_nonzero(v), [1., 2.]) == [None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # watching an int tensor warns, as in TensorFlow
        assert grads(lambda v: tf.reduce_max(v), [1, 2], dtype=np.int32) == [None]
    ga, gb = grads(lambda a, b: tf.add_n([a, b, a]), [1., 2.], [3., 4.])
    np.testing.assert_array_equal(ga, [2, 2])
    np.testing.assert_array_equal(gb, [1, 1])


@pytest.mark.parametrize("name, fn", [
    ("sum", lambda v, a: tf.reduce_sum(v * v, a)),
    ("mean", lambda v, a: tf.reduce_mean(v * v, a, keepdims=True)),
    ("max", lambda v, a: tf.reduce_max(v, a)),
    ("prod", lambda v, a: tf.reduce_prod(v, a)),
    ("norm", lambda v, a: tf.math.reduce_euclidean_norm(v, a)),
    ("logsumexp", lambda v, a: tf.reduce_logsumexp(v, a)),
])
def test_gradients_with_shapes_and_axes_known_only_at_run_time(name, fn):
    # Exercises the dynamic path of the keepdims shape (no static shape,
    # axes fed as a tensor) against the static, eager one.
    x = _R.randn(2, 3, 4)

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float64),
                                  tf.TensorSpec(None, tf.int32)])
    def f(v, a):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = fn(v, a)
        return y, tape.gradient(y, v)

    for axis in (1, [0, -1]):
        y, g = f(tf.constant(x), tf.constant(axis))
        xe = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xe)
            ye = fn(xe, axis)
        np.testing.assert_allclose(y.numpy(), ye.numpy(), rtol=1e-12)
        np.testing.assert_allclose(g.numpy(), tape.gradient(ye, xe).numpy(), rtol=1e-12)


def test_eager_fast_paths_equal_the_composites():
    # Without a tape, reduce_logsumexp/variance/std compute their values
    # directly; with one they run the composite ops. The values must agree.
    x = tf.constant(_R.randn(4, 5).astype(np.float32))
    for fn in (lambda v: tf.reduce_logsumexp(v, 1), lambda v: tf.math.reduce_variance(v, 0),
               lambda v: tf.math.reduce_std(v, [0, 1], keepdims=True)):
        fast = fn(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            slow = fn(x)
        assert fast.dtype == slow.dtype and fast.shape == slow.shape
        np.testing.assert_array_equal(fast.numpy(), slow.numpy())


def test_reduce_logsumexp_over_a_middle_axis_uses_tensorflows_exp_and_log():
    # TensorFlow 2.21's bits for this input (shape (1, 3, 2, 5), axis 1): the
    # third value was 1 ulp off when the middle-axis path used NumPy's exp.
    rng = np.random.default_rng(0)
    for _ in range(8):
        shape = [int(s) for s in rng.integers(1, 6, rng.integers(1, 5))]
        xv = (rng.standard_normal(shape) * 3).astype(np.float32)
    got = tf.reduce_logsumexp(tf.constant(xv), axis=1).numpy()
    want = np.frombuffer(bytes.fromhex(
        "c53e0dc0431a0340a4f8e53e0e22773f465bd4bf2edd9040fc746d4015e4fa3f4c8622402c2f1240"),
        np.float32)
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint32), want.view(np.uint32))


def test_atan2_gradient_divides_the_upstream_gradient_first():
    # TensorFlow's g / (x^2 + y^2), then times x and -y: with g * x first, a
    # large upstream gradient overflowed to NaN (1e20 at x = y = 1e19).
    y = tf.constant([0.0, 1e19, 3e38], tf.float32)
    x = tf.constant([1.8e19, 1e19, 1.0], tf.float32)
    g = tf.constant([1e20, 1e20, 2.0], tf.float32)
    with tf.GradientTape() as tape:
        tape.watch([y, x])
        z = tf.math.atan2(y, x)
    dy, dx = tape.gradient(z, [y, x], output_gradients=g)
    np.testing.assert_allclose(dy.numpy(), [5.555556, 5.0, 0.0], rtol=1e-6)
    np.testing.assert_allclose(dx.numpy(), [0.0, -5.0, 0.0], rtol=1e-6)
