"""float64 pow with TensorFlow's CPU bits (ops/kernels/pow_f64.py): Eigen's
packet pow on whole packets of 4, the C library's on the rest; recorded from
TensorFlow 2.21 by tools/tf_pow_f64_fixtures.py."""
import os

import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.kernels import libm
from rillflow.ops.kernels.pow_f64 import pow_f64

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_pow_f64.npz"))


def _same_bits(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    same = (got.view(np.int64) == want.view(np.int64)) | (np.isnan(got) & np.isnan(want))
    bad = np.nonzero(~same.reshape(-1))[0]
    return bad


def test_packets_give_tensorflows_bits():
    # Special values crossed, random bit patterns, integer, huge and tiny
    # exponents, negative bases, results at the underflow and overflow
    # thresholds, subnormal operands (read as zero).
    got = tf.pow(tf.constant(DATA["x"]), tf.constant(DATA["y"])).numpy()
    bad = _same_bits(got, DATA["out"])
    assert bad.size == 0, (DATA["x"][bad[:5]], DATA["y"][bad[:5]], got[bad[:5]])


@pytest.mark.skipif(not libm.available(), reason="no C library to call")
def test_the_last_elements_and_0d_tensors_take_the_c_librarys_pow():
    got = tf.pow(tf.constant(DATA["odd_x"]), tf.constant(DATA["odd_y"])).numpy()
    assert _same_bits(got, DATA["odd_out"]).size == 0
    got = [tf.pow(tf.constant(a), tf.constant(b)).numpy()
           for a, b in zip(DATA["scalar_x"], DATA["scalar_y"])]
    assert _same_bits(got, DATA["scalar_out"]).size == 0


def test_function_and_broadcasting_agree_with_eager():
    x = DATA["x"][:1000].reshape(10, 100)
    y = DATA["y"][:100]
    want = pow_f64(*np.broadcast_arrays(x, y))
    eager = tf.pow(tf.constant(x), tf.constant(y)).numpy()
    fn = tf.function(lambda a, b: a ** b)(tf.constant(x), tf.constant(y)).numpy()
    assert _same_bits(eager, want).size == 0 and _same_bits(fn, want).size == 0


def test_not_numpys_power():
    # Eigen's packet pow is not correctly rounded: x**2 differs from x*x for
    # some x (TensorFlow's eager answer; its graph optimizer turns a constant
    # exponent 2 into Square, which rillflow's tf.function does too).
    x = np.random.default_rng(3).standard_normal(4000) * 1.5
    got = tf.pow(tf.constant(x), tf.constant(2.0, tf.float64)).numpy()
    assert 0 < np.count_nonzero(got != x * x) < 1000
    np.testing.assert_allclose(got, x * x, rtol=3e-16)
    fn = tf.function(lambda a: tf.pow(a, tf.constant(2.0, tf.float64)))(tf.constant(x)).numpy()
    assert np.array_equal(fn, x * x)


def test_the_compiled_packets_give_the_same_bits():
    pytest.importorskip("numba")
    from rillflow.ops.kernels import jit_kernels
    if jit_kernels.POW_F64.wait(300) != "on":
        pytest.skip("the jit extra is off here: " + jit_kernels.POW_F64.status())
    from rillflow.ops.kernels.jit_pow_f64 import pow_f64_packets
    x, y = DATA["x"], DATA["y"]
    out = np.empty_like(x)
    pow_f64_packets(x, y, out)
    assert _same_bits(out, DATA["out"]).size == 0
