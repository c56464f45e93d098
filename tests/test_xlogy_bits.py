"""xlogy, xlog1py and xdivy against TensorFlow 2.21's CPU results, bit for
bit (tests/data/tf_xlogy.npz, recorded by tools/tf_xlogy_fixtures.py):
TensorFlow's log and log1p, x itself where x == 0 in Eigen's packets (-0
stays -0), +0 in the scalar tail; broadcasts split by the result's
positions."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_xlogy.npz"))
OPS = {"xlogy": tf.math.xlogy, "xlog1py": tf.math.xlog1py, "xdivy": tf.math.xdivy}
CASES = sorted({k.rsplit("/", 1)[0] for k in DATA.files})


def _assert_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    it = np.int32 if want.dtype == np.float32 else np.int64
    bad = got.view(it)[~nan] != want.view(it)[~nan]
    assert not bad.any(), "%d of %d differ" % (bad.sum(), bad.size)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", list(OPS))
def test_eager_and_in_tf_function(case, name):
    x, y = DATA[case + "/x"], DATA[case + "/y"]
    want = DATA[case + "/" + name]
    _assert_bits(OPS[name](tf.constant(x), tf.constant(y)).numpy(), want)
    _assert_bits(tf.function(OPS[name])(tf.constant(x), tf.constant(y)).numpy(), want)
