"""The special functions of tf.math / tf.math.special (erfinv, ndtri, the Bessel
functions, dawsn, expint, fresnel_cos/sin, spence, nextafter), the bit
shifts, histogram_fixed_width_bins, image.sobel_edges and the linear algebra
of tf.linalg (eig, eigh, lu and the LU solvers, matrix_rank, pinv), checked
against TensorFlow 2.21: values recorded by tools/tf_special_fixtures.py and
tools/tf_linalg_fixtures.py, error classes and messages, eagerly and inside
tf.function, gradients, and properties (reconstructions, pseudo-inverse
identities)."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = os.path.join(os.path.dirname(__file__), "data")
SPECIAL = np.load(os.path.join(DATA, "tf_special.npz"))
S = tf.math.special
FUNCTIONS = {
    "erfinv": tf.math.erfinv, "ndtri": tf.math.ndtri,
    "bessel_i0": tf.math.bessel_i0, "bessel_i0e": tf.math.bessel_i0e,
    "bessel_i1": tf.math.bessel_i1, "bessel_i1e": tf.math.bessel_i1e,
    "bessel_k0": S.bessel_k0, "bessel_k0e": S.bessel_k0e, "bessel_k1": S.bessel_k1,
    "bessel_k1e": S.bessel_k1e, "bessel_j0": S.bessel_j0, "bessel_j1": S.bessel_j1,
    "bessel_y0": S.bessel_y0, "bessel_y1": S.bessel_y1, "dawsn": S.dawsn, "expint": S.expint,
    "fresnel_cos": S.fresnel_cos, "fresnel_sin": S.fresnel_sin, "spence": S.spence,
}


def _same_bits(got, want):
    return (got == want) | (np.isnan(got) & np.isnan(want))


def _close_f64(got, want, ulps):
    """float64 within `ulps` units in the last place (inf and NaN exactly):
    TensorFlow's exp and log are Eigen's double polynomials, rillflow's NumPy's."""
    finite = np.isfinite(want)
    assert (_same_bits(got, want) | finite).all()
    spacing = np.spacing(np.abs(want[finite]))
    err = np.abs(got[finite] - want[finite])
    bad = np.nonzero(err > ulps * spacing)[0]
    assert bad.size == 0, [(float(want[finite][i]), float(got[finite][i])) for i in bad[:5]]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_special_function_values_match_tensorflow(name):
    # float32 and float16 follow TensorFlow's algorithm step by step (its
    # packets and its scalar tail: the inputs have 8k + 5 elements), using
    # only exactly rounded NumPy operations: the same bits.
    x = SPECIAL[f"{name}/x"]
    fn = FUNCTIONS[name]
    graph_fn = tf.function(fn)
    for dt in ("float16", "float32", "float64"):
        key = f"{name}/{dt}/y"
        if key not in SPECIAL:
            continue
        want = SPECIAL[key]
        for run in (fn, graph_fn):
            got = run(tf.constant(x, dt)).numpy()
            assert got.dtype == want.dtype
            if dt == "float64":
                _close_f64(got, want, 8)
            else:
                bad = np.nonzero(~_same_bits(got, want))[0]
                assert bad.size == 0, [(float(x[i]), float(want[i]), float(got[i]))
                                       for i in bad[:5]]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_special_function_gradients_match_tensorflow(name):
    x = SPECIAL[f"{name}/x"]
    # Gradients are products of the public ops; where their terms cancel
    # (i1e: i0e(x) - y (sign(x) + 1/x)) a rounding of a term of size ~1 is
    # what is left, hence the absolute tolerance.
    for dt, rtol, atol in (("float32", 2e-6, 1e-6), ("float64", 1e-13, 1e-15)):
        xt = tf.constant(x, dt)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = FUNCTIONS[name](xt)
        got = tape.gradient(y, xt).numpy()
        want = SPECIAL[f"{name}/{dt}/dy"]
        # Subnormal x: TensorFlow's Equal and Sign read them as zero (its
        # threads' denormals-are-zero mode), rillflow's do not (docs/numerics.md).
        normal = ~(np.abs(x) < np.finfo(np.float32).tiny) | (x == 0)
        got, want = got[normal], want[normal]
        # Finite where TensorFlow's is, within a few roundings of its value.
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_special_function_dtypes_and_errors():
    for fn, op in ((tf.math.erfinv, "Erfinv"), (S.dawsn, "Dawsn")):
        with pytest.raises(tf.errors.NotFoundError,
                           match=rf"^Could not find device for node: {{{{node {op}}}}} = "
                                 rf"{op}\[T=DT_HALF\]"):
            fn(tf.constant([0.5], tf.float16))
    with pytest.raises(tf.errors.NotFoundError, match=r"BesselI0\[T=DT_BFLOAT16\]"):
        tf.math.bessel_i0(tf.constant([0.5], tf.bfloat16))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Value for attr 'T' of int32 is not in the list of allowed "
                             r"values: bfloat16, half, float, double"):
        tf.math.bessel_i0(tf.constant([1, 2]))
    with pytest.raises(TypeError, match=r"^Value passed to parameter 'x' has DataType int32 "
                                        r"not in list of allowed values: bfloat16, float16, "
                                        r"float32, float64"):
        tf.function(S.dawsn)(tf.constant([1, 2]))
    assert tf.math.bessel_i0(tf.constant([1.0], tf.float16)).dtype == tf.float16


def test_special_function_graph_names():
    @tf.function
    def f(x):
        return tf.math.bessel_i0(x), tf.math.erfinv(x, name="inv")

    g = f.get_concrete_function(tf.TensorSpec([3])).graph
    names = {op.name: op.type for op in g.get_operations()}
    assert names["bessel_i0/BesselI0"] == "BesselI0"
    assert names["inv/Erfinv"] == "Erfinv"


def test_special_function_edge_values():
    # Recorded from TensorFlow: dawsn beyond 1e9 flips its sign twice; float32
    # y1(0) is NaN (Eigen tests x < 0 there), float64 y1(0) is -inf.
    np.testing.assert_array_equal(S.dawsn(tf.constant([-1e10, 1e10])).numpy(),
                                  np.float32([5e-11, 5e-11]))
    np.testing.assert_array_equal(S.bessel_y1(tf.constant([0.0, -1.0])).numpy(),
                                  np.float32([np.nan, -np.inf]))
    np.testing.assert_array_equal(S.bessel_y1(tf.constant([0.0, -1.0], tf.float64)).numpy(),
                                  [-np.inf, -np.inf])
    # Subnormal inputs read as zero on TensorFlow's threads.
    np.testing.assert_array_equal(tf.math.bessel_i1e(tf.constant([1e-40] * 9)).numpy(), 0.0)
    np.testing.assert_array_equal(S.bessel_k0(tf.constant([1e-40] * 9)).numpy(), np.inf)


def test_nextafter():
    got = tf.math.nextafter(tf.constant([0.0, 1.0, -0.0, np.inf, np.nan, 1.0]),
                            tf.constant([1.0, 0.0, -1.0, 0.0, 1.0, np.nan]))
    np.testing.assert_array_equal(
        got.numpy(), np.float32([1.4e-45, 0.99999994, -1.4e-45, 3.4028235e38, np.nan, np.nan]))
    assert tf.math.nextafter(tf.constant([1.0], tf.float64), 0.0).numpy()[0] == 1 - 2 ** -53
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Value for attr 'T' of int32 is not in the list of allowed "
                             r"values: double, float"):
        tf.math.nextafter(tf.constant([1]), tf.constant([2]))
    with pytest.raises(TypeError, match=r"^Value passed to parameter 'x1' has DataType int32 "
                                        r"not in list of allowed values: float64, float32"):
        tf.function(tf.math.nextafter)(tf.constant([1]), tf.constant([2]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^cannot compute NextAfter as input #1\(zero-based\) was expected "
                             r"to be a float tensor but is a double tensor"):
        tf.math.nextafter(tf.constant([1.0]), tf.constant([2.0], tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.math.nextafter(tf.constant([1.0, 2.0]), tf.constant([2.0, 3.0, 4.0]))
    x1, x2 = tf.constant([[1.0], [2.0]]), tf.constant([3.0, 0.0, 5.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x1, x2])
        y = tf.math.nextafter(x1, x2)
    np.testing.assert_array_equal(tape.gradient(y, x1).numpy(), [[3.0], [3.0]])
    np.testing.assert_array_equal(tape.gradient(y, x2).numpy(), [0.0, 0.0, 0.0])
