"""sinh, cosh, asinh, acosh, lgamma, atanh, atan, asin, acos and reciprocal
give TensorFlow's bits
(ops/kernels/libm_kernels.py: the C library's functions, as TensorFlow's kernels
call them; float32 atanh, atan, asin and acos Eigen's packets with the C
library's tail; reciprocal Eigen's estimate and Newton step), against
TensorFlow 2.21's results recorded by tools/tf_hyperbolic_fixtures.py."""
import os

import ml_dtypes
import numpy as np
import pytest

import rillflow as tf
from rillflow.ops.kernels import jit_kernels, libm, libm_kernels

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_hyperbolic.npz"))
NAMES = ("sinh", "cosh", "asinh", "acosh", "lgamma")   # the C library's for every dtype


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    nan = np.isnan(a) & np.isnan(b)
    bad = ~nan & (a.view("u%d" % a.itemsize) != b.view("u%d" % b.itemsize))
    assert not bad.any(), (np.flatnonzero(bad)[:5], a[bad][:5], b[bad][:5])


@pytest.fixture(scope="module", autouse=True)
def _recorded_c_library():
    """The fixture is the recording machine's C library: compare only where
    this machine's gives the same values on a sample of every function."""
    if not libm.available():
        pytest.skip("no C library to load: NumPy's routines run")
    for name in NAMES:
        for dt in (np.float32, np.float64):
            x = DATA["%s_%s_x" % (name, np.dtype(dt).name)][::37]
            want = DATA["%s_%s_y" % (name, np.dtype(dt).name)][::37]
            # (Subnormal inputs go through TensorFlow's denormals-are-zero.)
            normal = ~((np.abs(x) < np.finfo(dt).tiny) & (x != 0))
            x, want = x[normal], want[normal]
            got = libm.call(name, x)
            if not ((got == want) | (np.isnan(got) & np.isnan(want))).all():
                pytest.skip("this machine's C library differs from the recording machine's")


@pytest.fixture(params=["ctypes", "compiled"])
def path(request, monkeypatch):
    """Each kernel path: one C library call per element, or the jit extra's loops."""
    if request.param == "ctypes":
        monkeypatch.setattr(libm_kernels.LOAD, "get", lambda size: None)
    else:
        if not jit_kernels.available() or libm_kernels.LOAD.wait() != "on":
            pytest.skip("the jit extra is not installed or is off")
    return request.param


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eager_results_are_tensorflows(path, name, dtype):
    fn = getattr(tf.math, name)
    x = DATA["%s_%s_x" % (name, dtype)]
    _same_bits(fn(tf.constant(x)).numpy(), DATA["%s_%s_y" % (name, dtype)])
    scalars = np.array([fn(tf.constant(v)).numpy() for v in x[:64]])
    assert scalars.shape == (64,)
    _same_bits(scalars, DATA["%s_%s_scalar_y" % (name, dtype)])


@pytest.mark.parametrize("name", NAMES)
def test_half_precision_rounds_the_float32_result(path, name):
    fn = getattr(tf.math, name)
    _same_bits(fn(tf.constant(DATA[name + "_float16_x"])).numpy(), DATA[name + "_float16_y"])
    if name == "lgamma":
        # TensorFlow has no bfloat16 CPU kernel for it.
        with pytest.raises(tf.errors.NotFoundError, match="Lgamma.T=DT_BFLOAT16"):
            fn(tf.constant([1.5], tf.bfloat16))
        return
    xb = DATA[name + "_bfloat16_x_bits"].view(ml_dtypes.bfloat16)
    got = fn(tf.constant(xb)).numpy()
    assert got.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(got.view(np.uint16), DATA[name + "_bfloat16_y_bits"])


def test_float64_atanh_is_within_an_ulp():
    # Eigen's double packets, not reproduced.
    np.testing.assert_allclose(tf.math.atanh(tf.constant(DATA["atanh_float64_x"])).numpy(),
                               DATA["atanh_float64_y"], rtol=4e-16, atol=0)


@pytest.mark.parametrize("name", NAMES + ("atanh",))
def test_compiled_graphs_give_the_same_bits(name):
    fn = getattr(tf.math, name)
    x = DATA["%s_float32_x" % name]
    # Inside a chain of elementwise ops, as the compiler fuses them.
    graph = tf.function(lambda t: fn(t * 1.0) + 0.0)
    _same_bits(graph(tf.constant(x)).numpy(), DATA["%s_float32_y" % name] + np.float32(0.0))


def test_complex_inputs_keep_numpys_values():
    z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], np.complex64)
    for name, ref in (("sinh", np.sinh), ("cosh", np.cosh), ("asinh", np.arcsinh),
                      ("acosh", np.arccosh), ("atanh", np.arctanh)):
        got = getattr(tf.math, name)(tf.constant(z)).numpy()
        np.testing.assert_allclose(got, ref(z), rtol=1e-6)
        assert got.dtype == np.complex64


def test_gradients_follow():
    x = tf.constant([1.25, 1.5, 3.0])
    h = tf.constant([-0.75, 0.25, 0.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, h])
        ys = [tf.math.sinh(x), tf.math.cosh(x), tf.math.asinh(x), tf.math.acosh(x)]
        yh = tf.math.atanh(h)
    xn = x.numpy().astype(np.float64)
    want = [np.cosh(xn), np.sinh(xn), 1 / np.sqrt(xn ** 2 + 1), 1 / np.sqrt(xn ** 2 - 1)]
    for y, w in zip(ys, want):
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), w, rtol=1e-6)
    hn = h.numpy().astype(np.float64)
    np.testing.assert_allclose(tape.gradient(yh, h).numpy(), 1 / (1 - hn ** 2), rtol=1e-6)


@pytest.mark.parametrize("name", ["atanh", "atan", "asin", "acos", "reciprocal"])
def test_packets_with_the_c_librarys_tail_are_tensorflows(path, name):
    fn = getattr(tf.math, name)
    x = DATA["%s_float32_x" % name]             # with a tail
    _same_bits(fn(tf.constant(x)).numpy(), DATA["%s_float32_y" % name])
    tails = DATA["%s_float32_tails_x" % name]
    got = np.concatenate([fn(tf.constant(tails[i:i + 5])).numpy()
                          for i in range(0, tails.size, 5)])
    _same_bits(got, DATA["%s_float32_tails_y" % name])
    scalars = np.array([fn(tf.constant(v)).numpy() for v in x[-64:]])
    _same_bits(scalars, DATA["%s_float32_scalar_y" % name])
    _same_bits(fn(tf.constant(DATA[name + "_float16_x"])).numpy(), DATA[name + "_float16_y"])
    xb = DATA[name + "_bfloat16_x_bits"].view(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(fn(tf.constant(xb)).numpy().view(np.uint16),
                                  DATA[name + "_bfloat16_y_bits"])
    graph = tf.function(lambda t: fn(t * 1.0) + 0.0)
    _same_bits(graph(tf.constant(x)).numpy(), DATA["%s_float32_y" % name] + np.float32(0.0))


def test_power_of_minus_one_in_graphs_is_tensorflows_reciprocal():
    # TensorFlow's graph optimizer rewrites x ** -1 into Reciprocal; so do
    # rillflow's graphs (compiler/specialize.py: graph_rewrite).
    x = DATA["reciprocal_float32_x"]
    graph = tf.function(lambda t: t ** -1.0)
    _same_bits(graph(tf.constant(x)).numpy(), DATA["reciprocal_float32_y"])
