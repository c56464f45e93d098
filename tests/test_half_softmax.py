"""float16 and bfloat16 log_softmax and cumulative_logsumexp with
TensorFlow's bits, and softmax close to them (tests/data/tf_half_softmax.npz,
recorded by tools/tf_half_softmax_fixtures.py): TensorFlow evaluates its
Eigen expressions in the half type, each operation rounded."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_half_softmax.npz"))
KEYS = sorted({k.rsplit("/", 1)[0] for k in DATA.files if not k.startswith("cumlse/")})
SCANS = sorted({k.rsplit("/", 1)[0] for k in DATA.files if k.startswith("cumlse/")})
TYPES = {"f16": tf.float16, "bf16": tf.bfloat16}


def _case(key, tag=None):
    dtype = TYPES[tag or key.split("/")[0]]
    if dtype is None:
        pytest.skip("bfloat16 needs ml_dtypes")
    x = DATA[key + "/x"].view(dtype.as_numpy_dtype)
    return dtype, x


def _same(got, want_bits, dtype):
    got = np.asarray(got, dtype.as_numpy_dtype)
    want = want_bits.view(dtype.as_numpy_dtype)
    gf, wf = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(gf), np.isnan(wf))
    ok = ~np.isnan(wf)
    np.testing.assert_array_equal(got.view(np.uint16)[ok], want.view(np.uint16)[ok])


@pytest.mark.parametrize("key", KEYS)
def test_log_softmax_bits(key):
    dtype, x = _case(key)
    want = DATA[key + "/log_softmax"]
    _same(tf.nn.log_softmax(tf.constant(x)).numpy(), want, dtype)
    _same(tf.function(tf.nn.log_softmax)(tf.constant(x)).numpy(), want, dtype)


@pytest.mark.parametrize("key", KEYS)
def test_softmax_within_an_ulp(key):
    # (float64 then one rounding: equal but for a value in ten thousand,
    # one ulp off.) Rows holding +inf are left out: TensorFlow's float32 and
    # half softmax give NaN at the inf and 0 elsewhere there, its float64
    # softmax and rillflow's NaN everywhere.
    dtype, x = _case(key)
    finite = ~np.isposinf(x.astype(np.float32)).any(axis=1)
    got = np.asarray(tf.nn.softmax(tf.constant(x)).numpy(), dtype.as_numpy_dtype)[finite]
    want = DATA[key + "/softmax"][finite]
    # Non-negative values: adjacent bit patterns are adjacent values.
    steps = np.abs(got.view(np.uint16).astype(np.int32) - want.astype(np.int32))
    assert steps.max(initial=0) <= 1


@pytest.mark.parametrize("key", SCANS)
def test_cumulative_logsumexp_bits(key):
    _, tag, _, axis, exclusive, reverse = key.split("/")
    dtype, x = _case(key, tag)
    got = tf.math.cumulative_logsumexp(tf.constant(x), axis=int(axis), exclusive=exclusive == "1",
                                       reverse=reverse == "1").numpy()
    _same(got, DATA[key + "/y"], dtype)
