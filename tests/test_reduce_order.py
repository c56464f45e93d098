"""reduce_sum, reduce_mean, reduce_euclidean_norm and reduce_prod of float32
and float64 tensors combine their values in TensorFlow's order (ops/core/float_sums.py: Eigen's reductions) for all
axes, trailing, leading and middle runs; recorded from TensorFlow 2.21 by
tools/tf_reduce_order_fixtures.py."""
import os
import sys

import numpy as np
import pytest

import rillflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "tools"))
from tf_reduce_order_fixtures import BIAS_GRADS, CASES, HALF_CASES, IMAGES, L2_SIZES  # noqa: E402,E501

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_reduce_order.npz"))


def _bits(a):
    a = np.atleast_1d(np.asarray(a))
    return a.view(np.int32 if a.dtype == np.float32 else np.int64)


@pytest.mark.parametrize("i", range(len(CASES)))
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_sums_and_means_in_tensorflows_order(i, dt):
    shape, axes = CASES[i]
    x = DATA["x_%d_%s" % (i, dt)]
    ax = None if axes is None else list(axes)
    for name, op in (("sum", tf.reduce_sum), ("mean", tf.reduce_mean),
                     ("norm", tf.math.reduce_euclidean_norm)):
        want = DATA["%s_%d_%s" % (name, i, dt)]
        eager = op(tf.constant(x), axis=ax).numpy()
        fn = tf.function(lambda t: op(t, axis=ax))(tf.constant(x)).numpy()
        assert eager.shape == want.shape
        np.testing.assert_array_equal(_bits(eager), _bits(want), err_msg=name)
        np.testing.assert_array_equal(_bits(fn), _bits(want), err_msg=name + " in tf.function")
    p = DATA["p_%d_%s" % (i, dt)]
    if axes is None and p.size >= 65536:
        return      # TensorFlow splits a large full product over its threads (per machine)
    np.testing.assert_array_equal(_bits(tf.reduce_prod(tf.constant(p), axis=ax).numpy()),
                                  _bits(DATA["prod_%d_%s" % (i, dt)]), err_msg="prod")


def test_all_negative_zeros_sum_to_positive_zero():
    z = np.full((40, 8), -0.0, np.float32)
    assert _bits(tf.reduce_sum(z, axis=0)).tolist() == _bits(DATA["negzero_sum"]).tolist()
    assert _bits(tf.reduce_sum(z)).tolist() == _bits(DATA["negzero_all"]).tolist()


@pytest.mark.parametrize("i", range(len(IMAGES)))
def test_adjust_contrast_folds_each_image_in_halves(i):
    # AdjustContrastv2's means: pixels folded in halves, times 1/pixels.
    got = tf.image.adjust_contrast(tf.constant(DATA["image_%d" % i]), 1.7).numpy()
    np.testing.assert_array_equal(_bits(got), _bits(DATA["contrast_%d" % i]))


@pytest.mark.parametrize("i", range(len(L2_SIZES)))
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_l2_loss_sums_halved_squares(i, dt):
    got = tf.nn.l2_loss(tf.constant(DATA["l2x_%d_%s" % (i, dt)])).numpy()
    assert _bits(got).tolist() == _bits(DATA["l2_%d_%s" % (i, dt)]).tolist()


@pytest.mark.parametrize("i", range(len(BIAS_GRADS)))
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_bias_add_grad_adds_rows_as_tensorflow(i, dt):
    # ReduceOuterDimensions: rows one after another where Eigen's cost model
    # keeps one thread (or the channels are split over threads), else one
    # block of rows per thread. Large inputs depend on the thread count:
    # checked with the recording machine's.
    from rillflow.ops.nn.layer_ops import outer_dimension_sums
    x = DATA["bg_x_%d_%s" % (i, dt)]
    want = DATA["bg_%d_%s" % (i, dt)]
    x2 = x.reshape(-1, x.shape[-1])
    got = outer_dimension_sums(x2, threads=int(DATA["threads"]))
    np.testing.assert_array_equal(_bits(got), _bits(want))
    if x.size < 100000:
        # Small inputs: the same on any machine, through the op itself.
        np.testing.assert_array_equal(
            _bits(tf.raw_ops.BiasAddGrad(out_backprop=tf.constant(x)).numpy()), _bits(want))


@pytest.mark.parametrize("i", range(len(HALF_CASES)))
@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_precision_sums_and_means(i, dt):
    # float16: Eigen's half packets (each addition rounded to half), their
    # horizontal sums in float32, leaves of 200 packets; bfloat16: summed in
    # float32 and rounded once (the mean divided in float32 first).
    shape, axes = HALF_CASES[i]
    x = tf.cast(tf.constant(DATA["hx_%d_%s" % (i, dt)]), getattr(tf, dt))
    ax = None if axes is None else list(axes)
    for name, op in (("hsum", tf.reduce_sum), ("hmean", tf.reduce_mean)):
        want = DATA["%s_%d_%s" % (name, i, dt)]
        for got in (op(x, axis=ax), tf.function(lambda t: op(t, axis=ax))(x)):
            np.testing.assert_array_equal(_bits(tf.cast(got, tf.float32).numpy()), _bits(want),
                                          err_msg=name)
