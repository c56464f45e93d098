"""float64 exp, log, expm1, log1p, sigmoid, softplus, log_sigmoid and tanh
against TensorFlow 2.21's CPU results, bit for bit
(tests/data/tf_numerics_f64.npz, recorded by tools/tf_numerics_fixtures_f64.py):
Eigen's 4-lane packets for whole packets, the C library for the last
size % 4 elements, subnormals read and written as zero where TensorFlow's
arithmetic meets them."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_numerics_f64.npz"))
OPS = {"exp": tf.math.exp, "log": tf.math.log, "expm1": tf.math.expm1,
       "log1p": tf.math.log1p, "sigmoid": tf.math.sigmoid, "softplus": tf.math.softplus,
       "log_sigmoid": tf.math.log_sigmoid, "tanh": tf.math.tanh, "erf": tf.math.erf,
       "erfc": tf.math.erfc, "atanh": tf.math.atanh}


def assert_bits(got, want, x):
    """Same bits, NaNs only by being NaN."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bad = got.view(np.int64)[~nan] != want.view(np.int64)[~nan]
    where = np.nonzero(~nan)[0][bad][:3]
    assert not bad.any(), "%d of %d differ, e.g. x=%r: got %r, want %r" % (
        bad.sum(), bad.size, x[where].tolist(), got[where].tolist(), want[where].tolist())


@pytest.mark.parametrize("name", list(OPS))
def test_packets(name):
    x = DATA["x"]
    assert_bits(OPS[name](tf.constant(x)).numpy(), DATA[name + "/packet"], x)


@pytest.mark.parametrize("name", list(OPS))
def test_c_library_tail(name):
    x = DATA["x"]
    xs = x[: x.size // 3 * 3]
    got = np.concatenate([OPS[name](tf.constant(xs[i:i + 3])).numpy()
                          for i in range(0, xs.size, 3)])
    assert_bits(got, DATA[name + "/scalar"], xs)


@pytest.mark.parametrize("name", list(OPS))
def test_in_tf_function_and_mixed_sizes(name):
    """A 4k + 3 tensor: packets then three C-library elements, eagerly and in
    a graph; a 0-d tensor takes the C library."""
    x = DATA["x"]
    n = (x.size // 3 * 3 // 4) * 4 - 1       # size % 4 == 3, and a multiple of 3 below
    n -= n % 12 - 3 if n % 12 != 3 else 0
    fn = tf.function(OPS[name])
    got = fn(tf.constant(x[:n])).numpy()
    want = np.concatenate([DATA[name + "/packet"][: n - 3], DATA[name + "/scalar"][n - 3:n]])
    assert_bits(got, want, x[:n])
    assert_bits(OPS[name](tf.constant(x[n - 3])).numpy()[None], DATA[name + "/scalar"][n - 3:n - 2],
                x[n - 3:n - 2])


@pytest.mark.parametrize("name", ["tan", "asin", "acos"])
def test_tan_asin_acos_call_the_c_library(name):
    """TensorFlow's float64 tan, asin and acos are the C library's on every
    element (its recorded values matched glibc's on 128,000 inputs, packets
    and tail alike); Python's math module calls the same functions."""
    import math

    from rillflow.ops.kernels import libm
    if not libm.available():
        pytest.skip("no C library to call")
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.uniform(-1.2, 1.2, 3000), rng.uniform(-50, 50, 3000),
                        [0.0, -0.0, 1e-310, -1e-310, 5e-324, 1.0, -1.0, np.inf, np.nan, 1e300]])
    fn = getattr(math, name)

    def ref(v):
        try:
            return fn(v)
        except ValueError:
            return math.nan
    want = np.array([ref(v) for v in x.tolist()])
    for n in (x.size, 7, 1):
        assert_bits(getattr(tf.math, name)(tf.constant(x[:n])).numpy(), want[:n], x[:n])
    assert_bits(tf.function(getattr(tf.math, name))(tf.constant(x)).numpy(), want, x)


@pytest.mark.parametrize("name", ["exp", "log", "expm1", "log1p", "sigmoid", "softplus"])
def test_compiled_and_numpy_packets_give_the_recorded_bits(name):
    """Both implementations of the packets, whichever a call takes (the jit
    extra's loops once loaded, the NumPy code before or without them)."""
    from rillflow.ops.kernels import exp_log_f64
    x = DATA["x"]
    want = DATA[name + "/packet"]
    assert_bits(exp_log_f64.split(x, _numpy_packets(name), name), want, x)
    pytest.importorskip("numba")
    from rillflow.ops.kernels import jit_exp_log_f64
    out = np.empty_like(x)
    jit_exp_log_f64.KERNELS[name](x, out)
    assert_bits(out, want, x)
    assert_bits(exp_log_f64.run_compiled(name, jit_exp_log_f64.KERNELS[name], x[:-1]),
                np.concatenate([want[:-4], [exp_log_f64.TAILS[name](v) for v in x[-4:-1].tolist()]]),
                x[:-1])


def _numpy_packets(name):
    from rillflow.ops.kernels import exp_log_f64 as F
    return {"exp": lambda v: F.exp_packets(F._daz(v)), "log": lambda v: F.plog_double(F._daz(v)),
            "expm1": F._expm1_packets, "log1p": F._log1p_packets,
            "sigmoid": lambda v: F._logistic(F.exp_packets(F._daz(v))),
            "softplus": F._softplus_packets}[name]


SOFTMAX_COLS = sorted({int(k.split("/")[1]) for k in DATA.files if k.startswith("smax/")})


@pytest.mark.parametrize("cols", SOFTMAX_COLS)
def test_softmax_family(cols):
    """Eigen's steps in float64: exps by the tensor's packets of 4 (or
    inside each row's sum), 4-lane row sums, 1/sum, TensorFlow's log."""
    key = "smax/%d/" % cols
    x, labels, soft = DATA[key + "x"], DATA[key + "labels"], DATA[key + "soft"]
    xt = tf.constant(x)
    got = {"softmax": tf.nn.softmax(xt), "log_softmax": tf.nn.log_softmax(xt),
           "xent": tf.nn.softmax_cross_entropy_with_logits(tf.constant(soft), xt),
           "sparse": tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant(labels), xt),
           "lse1": tf.math.reduce_logsumexp(xt, axis=1),
           "lse0": tf.math.reduce_logsumexp(xt, axis=0)}
    for name, value in got.items():
        assert_bits(value.numpy(), DATA[key + name], x.reshape(-1))
    assert_bits(tf.function(tf.nn.softmax)(xt).numpy(), DATA[key + "softmax"], x.reshape(-1))


def test_atan2_packets_and_c_library_tail():
    """float64 atan2: Eigen's patan2 on whole packets of 4 (NumPy's arctan2
    differed in about 30%), the C library's atan2 on 3-element tensors."""
    x = DATA["x"]
    y = x[::-1].copy()
    assert_bits(tf.math.atan2(tf.constant(x), tf.constant(y)).numpy(), DATA["atan2/packet"], x)
    assert_bits(tf.function(tf.math.atan2)(tf.constant(x), tf.constant(y)).numpy(),
                DATA["atan2/packet"], x)
    xs = x[: x.size // 3 * 3]
    got = np.concatenate([tf.math.atan2(tf.constant(xs[i:i + 3]), tf.constant(y[i:i + 3])).numpy()
                          for i in range(0, xs.size, 3)])
    # The C library's atan2 under TensorFlow's denormals-are-zero takes
    # branches of its own for subnormal operands (atan2(3e-309, -43) is -pi
    # there): those are left out.
    tiny = np.finfo(np.float64).tiny
    normal = ~(((np.abs(xs) < tiny) & (xs != 0)) | ((np.abs(y[:xs.size]) < tiny) &
                                                     (y[:xs.size] != 0)))
    assert_bits(got[normal], DATA["atan2/scalar"][normal], xs[normal])
