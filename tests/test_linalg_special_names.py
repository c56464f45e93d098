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


def test_vectorized_logf_is_the_c_librarys():
    # The scalar-path logf of ops/kernels/cephes.py is glibc's algorithm;
    # where the platform's libm can be called, it must agree bit for bit.
    from rillflow.ops.kernels import cephes, exp_log
    if exp_log._LIBM is None:
        pytest.skip("no C library to compare with")
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(0, 2, 20000), 10.0 ** rng.uniform(-45, 38.5, 20000),
                        [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40]])
    x = x.astype(np.float32)
    want, got = exp_log.log_scalar(x), cephes.logf(x)
    assert _same_bits(got, want).all()

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
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.math.nextafter(tf.constant([1.0, 2.0]), tf.constant([2.0, 3.0, 4.0]))
    x1, x2 = tf.constant([[1.0], [2.0]]), tf.constant([3.0, 0.0, 5.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x1, x2])
        y = tf.math.nextafter(x1, x2)
    np.testing.assert_array_equal(tape.gradient(y, x1).numpy(), [[3.0], [3.0]])
    np.testing.assert_array_equal(tape.gradient(y, x2).numpy(), [0.0, 0.0, 0.0])


INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


@pytest.mark.parametrize("dt", INT_DTYPES)
def test_bit_shifts_match_tensorflow(dt):
    # Amounts from -70 to 70 (absolute values for unsigned types): TensorFlow
    # clamps them to [0, bits - 1]; left shifts wrap, right shifts of signed
    # values are arithmetic.
    x, y = SPECIAL[f"shift/{dt}/x"], SPECIAL[f"shift/{dt}/y"]
    xt, yt = tf.constant(x[:, None]), tf.constant(y[None, :])
    for run in (lambda f: f(xt, yt), lambda f: tf.function(f)(xt, yt)):
        left, right = run(tf.bitwise.left_shift), run(tf.bitwise.right_shift)
        assert left.dtype == xt.dtype and right.dtype == xt.dtype
        np.testing.assert_array_equal(left.numpy(), SPECIAL[f"shift/{dt}/left"])
        np.testing.assert_array_equal(right.numpy(), SPECIAL[f"shift/{dt}/right"])


def test_bit_shift_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Value for attr 'T' of float is not in the list of allowed "
                             r"values: int8, int16, int32, int64, uint8, uint16, uint32, uint64"):
        tf.bitwise.left_shift(tf.constant([1.0]), tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^cannot compute RightShift as input #1\(zero-based\) was "
                             r"expected to be a int32 tensor but is a int64 tensor"):
        tf.bitwise.right_shift(tf.constant([1]), tf.constant([1], tf.int64))
    with pytest.raises(TypeError, match=r"^Value passed to parameter 'x' has DataType float32"):
        tf.function(tf.bitwise.left_shift)(tf.constant([1.0]), tf.constant([1.0]))
    np.testing.assert_array_equal(tf.bitwise.left_shift(3, tf.constant([1, 2])).numpy(), [6, 12])
    x = tf.constant([1, 2])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.bitwise.left_shift(x, 1)
    assert tape.gradient(y, x) is None


def test_histogram_fixed_width_bins():
    v = SPECIAL["bins/x"]
    for dt in ("float32", "float64"):
        got = tf.histogram_fixed_width_bins(tf.constant(v, dt), tf.constant([0.0, 6.0], dt),
                                            nbins=7)
        assert got.dtype == tf.int32
        np.testing.assert_array_equal(got.numpy(), SPECIAL[f"bins/{dt}"])
    # Recorded from TensorFlow: the shape is kept, `dtype` is ignored, and
    # nbins must be positive.
    got = tf.histogram_fixed_width_bins(tf.constant([[1.0, 2.0], [9.0, -1.0]]), [0.0, 5.0], 5,
                                        dtype=tf.int64)
    assert got.dtype == tf.int32
    np.testing.assert_array_equal(got.numpy(), [[1, 2], [4, 0]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)' to be "
                             r"true. Summarized data: b'nbins tf.Tensor\(0, shape=\(\), "
                             r"dtype=int32\) must > 0'"):
        tf.histogram_fixed_width_bins(tf.constant([1.0]), [0.0, 5.0], 0)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"assertion failed: \[nbins Tensor\(\"histogram_fixed_width_bins/"
                             r"nbins:0\", shape=\(\), dtype=int32\) must > 0\]"):
        tf.function(lambda x: tf.histogram_fixed_width_bins(x, [0.0, 5.0], -1))(
            tf.constant([1.0]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^cannot compute Sub as input #1\(zero-based\) was expected to "
                             r"be a float tensor but is a int32 tensor"):
        tf.histogram_fixed_width_bins(tf.constant([1.0]), [0, 5], 3)


def test_sobel_edges_match_tensorflow():
    image = SPECIAL["sobel/x"]
    for dt, tol in (("float32", 2e-6), ("float64", 1e-14)):
        it = tf.constant(image, dt)
        with tf.GradientTape() as tape:
            tape.watch(it)
            edges = tf.image.sobel_edges(it)
            loss = tf.reduce_sum(edges ** 2)
        assert edges.shape == image.shape + (2,)
        # Sums of six products: the convolution's order of additions is
        # oneDNN's in TensorFlow.
        np.testing.assert_allclose(edges.numpy(), SPECIAL[f"sobel/{dt}"], rtol=0, atol=tol * 8)
        np.testing.assert_allclose(tape.gradient(loss, it).numpy(), SPECIAL[f"sobel/{dt}/d"],
                                   rtol=tol * 10, atol=tol * 100)
    sig = tf.function(tf.image.sobel_edges).get_concrete_function(
        tf.TensorSpec([None, None, None, 3]))
    assert sig.outputs[0].shape.as_list() == [None, None, None, 3, 2]


# =============================================================================
# tf.linalg: lu, lu_solve, lu_matrix_inverse, lu_reconstruct, eig, eigh,
# matrix_rank, pinv
# =============================================================================

LINALG = np.load(os.path.join(DATA, "tf_linalg.npz"))
MATRICES = sorted({k.split("/")[0] for k in LINALG.files})
# Eigen's unblocked LU (real matrices up to 16 x 16) is + - * / in the order
# rillflow follows: the same bits. Complex division and the blocked LU of
# larger matrices round otherwise.
EXACT_LU = {"m3", "tie", "r5", "batch"}


def _dtypes(name):
    return ("complex64", "complex128") if np.iscomplexobj(LINALG[f"{name}/a"]) else \
        ("float32", "float64")


def _close(got, want, dt, scale=1.0):
    """Within a few roundings of the largest entry: LAPACK (NumPy) against
    Eigen (TensorFlow), whose blocking and order of sums differ."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    tol = (2e-5 if dt in ("float32", "complex64") else 1e-12) * scale
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * max(np.abs(want).max(), 1.0))


def _eig_loss(e, v, w):
    # Invariant under the order of the eigenpairs and each eigenvector's
    # phase (tools/tf_linalg_fixtures.py records the same).
    mod2 = tf.math.real(v * tf.math.conj(v))
    per_vector = tf.reduce_sum(mod2 * w[:, None], axis=-2)
    return tf.reduce_sum(tf.math.real(e) * per_vector) + tf.reduce_sum(tf.math.imag(e) ** 2)


@pytest.mark.parametrize("name", MATRICES)
def test_lu_and_its_solvers_match_tensorflow(name):
    a, rhs = LINALG[f"{name}/a"], LINALG[f"{name}/rhs"]
    for dt in _dtypes(name):
        at = tf.constant(a, dt)
        for run in (tf.linalg.lu, tf.function(tf.linalg.lu)):
            lu, p = run(at)
            np.testing.assert_array_equal(p.numpy(), LINALG[f"{name}/{dt}/p"])
            assert p.dtype == tf.int32 and lu.dtype == at.dtype
            if name in EXACT_LU:
                np.testing.assert_array_equal(lu.numpy(), LINALG[f"{name}/{dt}/lu"])
            else:
                _close(lu, LINALG[f"{name}/{dt}/lu"], dt)
        # Property: the rows of A in the order p are L @ U.
        lo = np.tril(lu.numpy(), -1) + np.eye(a.shape[-1])
        up = np.triu(lu.numpy())
        _close(np.take_along_axis(a, p.numpy()[..., None], axis=-2), lo @ up, dt, 10)
        rt = tf.constant(rhs, dt)
        with tf.GradientTape() as tape:
            tape.watch([lu, rt])
            x = tf.linalg.lu_solve(lu, p, rt)
            loss = tf.reduce_sum(tf.math.real(x * tf.math.conj(x)))
        g_lu, g_rhs = tape.gradient(loss, [lu, rt])
        _close(x, LINALG[f"{name}/{dt}/lu_solve"], dt, 10)
        _close(g_lu, LINALG[f"{name}/{dt}/lu_solve/d_lu"], dt, 100)
        _close(g_rhs, LINALG[f"{name}/{dt}/lu_solve/d_rhs"], dt, 100)
        _close(tf.linalg.lu_matrix_inverse(lu, p), LINALG[f"{name}/{dt}/lu_inverse"], dt, 10)
        _close(tf.linalg.lu_reconstruct(lu, p), LINALG[f"{name}/{dt}/lu_reconstruct"], dt)
        _close(tf.function(tf.linalg.lu_reconstruct)(lu, p), a, dt, 10)


@pytest.mark.parametrize("name", MATRICES)
def test_eig_and_eigh_match_tensorflow(name):
    a, w = LINALG[f"{name}/a"], LINALG[f"{name}/w"]
    n = a.shape[-1]
    for dt in _dtypes(name):
        at = tf.constant(a, dt)
        e = tf.linalg.eigvals(at)
        assert e.dtype == (tf.complex64 if dt in ("float32", "complex64") else tf.complex128)
        e = e.numpy()
        _close(np.sort_complex(e.reshape(-1, n)).reshape(e.shape),
               LINALG[f"{name}/{dt}/eigvals"], dt, 10)
        with tf.GradientTape() as tape:
            tape.watch(at)
            e, v = tf.linalg.eig(at)
            loss = _eig_loss(e, v, tf.constant(w, e.dtype.real_dtype))
        _close(tape.gradient(loss, at), LINALG[f"{name}/{dt}/eig/d_a"], dt, 100)
        # Property: A v = v diag(e), unit-norm columns.
        av = a.astype(v.dtype.as_numpy_dtype) @ v.numpy()
        _close(av, v.numpy() * e.numpy()[..., None, :], dt, 10)
        _close(np.linalg.norm(v.numpy(), axis=-2), np.ones(e.shape), dt)

        herm = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
        ht = tf.constant(herm, dt)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(ht)
            e, v = tf.linalg.eigh(ht)
            loss = _eig_loss(e, v, tf.constant(w, e.dtype.real_dtype))
            ev = tf.linalg.eigvalsh(ht)
            loss_ev = tf.reduce_sum(tf.math.real(ev) * tf.constant(w, ev.dtype.real_dtype))
        assert e.dtype == ht.dtype and ev.dtype == ht.dtype
        _close(e, LINALG[f"{name}/{dt}/eigh"], dt, 10)
        _close(ev, LINALG[f"{name}/{dt}/eigh"], dt, 10)
        _close(tape.gradient(loss, ht), LINALG[f"{name}/{dt}/eigh/d_a"], dt, 100)
        _close(tape.gradient(loss_ev, ht), LINALG[f"{name}/{dt}/eigvalsh/d_a"], dt, 100)
        vh = np.conj(np.swapaxes(v.numpy(), -1, -2))
        _close(vh @ v.numpy(), np.broadcast_to(np.eye(n), v.shape), dt, 10)
        _close(tf.function(tf.linalg.eigvalsh)(ht), LINALG[f"{name}/{dt}/eigh"], dt, 10)


@pytest.mark.parametrize("name", [m for m in MATRICES if m[0] != "c"])
def test_matrix_rank_and_pinv_match_tensorflow(name):
    a = LINALG[f"{name}/a"]
    for dt in _dtypes(name):
        at = tf.constant(a, dt)
        np.testing.assert_array_equal(tf.linalg.matrix_rank(at).numpy(),
                                      LINALG[f"{name}/{dt}/rank"])
        low = tf.constant(a[..., :-1] @ np.swapaxes(a[..., :-1], -1, -2), dt)
        np.testing.assert_array_equal(tf.linalg.matrix_rank(low).numpy(),
                                      LINALG[f"{name}/{dt}/rank_low"])
        wide = tf.constant(a[..., :-1, :], dt)
        with tf.GradientTape() as tape:
            tape.watch(wide)
            pi = tf.linalg.pinv(wide)
            loss = tf.reduce_sum(pi ** 2)
        _close(pi, LINALG[f"{name}/{dt}/pinv"], dt, 10)
        _close(tape.gradient(loss, wide), LINALG[f"{name}/{dt}/pinv/d_a"], dt, 100)
        # The Moore-Penrose conditions.
        x, xp = wide.numpy(), pi.numpy()
        _close(x @ xp @ x, x, dt, 10)
        _close(xp @ x @ xp, xp, dt, 10)
        _close(x @ xp, np.swapaxes(x @ xp, -1, -2), dt, 10)


def test_linalg_errors_match_tensorflow():
    inv = tf.errors.InvalidArgumentError
    with pytest.raises(inv, match=r"^Input is not invertible. \[Op:Lu\]"):
        tf.linalg.lu(np.array([[1., 2], [2, 4]]))
    with pytest.raises(inv, match=r"^Input matrix must be square. \[Op:Lu\]"):
        tf.linalg.lu(np.zeros((2, 3)))
    with pytest.raises(inv, match=r"^Input tensor must have rank >= 2, got 1 \[Op:Lu\]"):
        tf.linalg.lu(np.zeros(3))
    with pytest.raises(inv, match=r"^Value for attr 'T' of int32 is not in the list of allowed "
                                  r"values: double, float, half, complex64, complex128"):
        tf.linalg.lu(np.eye(2, dtype=np.int32))
    with pytest.raises(inv, match=r"^Value for attr 'output_idx_type' of float is not in the "
                                  r"list of allowed values: int32, int64"):
        tf.linalg.lu(np.eye(2), output_idx_type=tf.float32)
    with pytest.raises(tf.errors.NotFoundError,
                       match=r"Lu\[T=DT_HALF, output_idx_type=DT_INT32\]"):
        tf.linalg.lu(np.eye(2, dtype=np.float16))
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 2 and 3"):
        tf.function(tf.linalg.lu)(tf.zeros((2, 3)))
    with pytest.raises(TypeError, match=r"^Value passed to parameter 'input' has DataType int32 "
                                        r"not in list of allowed values: float64, float32, "
                                        r"float16, complex64, complex128"):
        tf.function(tf.linalg.lu)(tf.eye(2, dtype=tf.int32))
    x = tf.constant([[2., 1.], [1., 3.]])
    with tf.GradientTape() as tape:   # TensorFlow registers no gradient for Lu
        tape.watch(x)
        lu, _ = tf.linalg.lu(x)
    with pytest.raises(LookupError):
        tape.gradient(lu, x)
    lu, p = tf.linalg.lu(np.eye(3))
    for call, msg in (
            (lambda: tf.linalg.lu_solve(lu, p, np.ones((2, 1))),
             r"^`lower_upper.shape\[-1\]` must equal `rhs.shape\[-1\]`.$"),
            (lambda: tf.linalg.lu_solve(lu, p, np.ones(3)),
             r"^Input `rhs` must have at least 2 dimensions.$"),
            (lambda: tf.linalg.lu_solve(lu, p[None], np.ones((3, 1))),
             r"^`rank\(lower_upper\)` must equal `rank\(perm\) \+ 1`$"),
            (lambda: tf.linalg.lu_reconstruct(np.ones((2, 3)), [0, 1]),
             r"^`lower_upper` must be square.$"),
            (lambda: tf.linalg.lu_reconstruct(np.ones(3), 0),
             r"^Input `lower_upper` must have at least 2 dimensions.$"),
            (lambda: tf.linalg.matrix_rank(np.ones(3)),
             r"^Input `a` must have at least 2 dimensions \(saw: 1\).$")):
        with pytest.raises(ValueError, match=msg):
            call()
    with pytest.raises(TypeError, match=r"^Input `a` must have `float`-like `dtype` "
                                        r"\(saw int32\).$"):
        tf.linalg.pinv(tf.eye(2, dtype=tf.int32))
    with pytest.raises(TypeError, match=r"\(saw complex64\)"):
        tf.linalg.pinv(np.eye(2, dtype=np.complex64))
    with pytest.raises(inv, match=r"^Self-adjoint eigen decomposition was not successful. The "
                                  r"input might not be valid. \[Op:SelfAdjointEigV2\]"):
        tf.linalg.eigh(np.array([[np.nan, 1], [1, 2]]))
    with pytest.raises(inv, match=r"^Input tensor 0 must have rank >= 2, got 1"):
        tf.linalg.eigh(np.ones(3))
    with pytest.raises(inv, match=r"^Input matrix must be square. \[Op:Eig\]"):
        tf.linalg.eig(np.ones((2, 3)))
    with pytest.raises(tf.errors.NotFoundError, match=r"SelfAdjointEigV2\[T=DT_HALF"):
        tf.linalg.eigh(np.eye(2, dtype=np.float16))
    with pytest.raises(UnboundLocalError):   # TensorFlow's wrapper fails the same way
        tf.linalg.eig(np.eye(2, dtype=np.float16))


def test_linalg_values_as_tensorflow_gives_them():
    # Recorded from TensorFlow 2.21.
    lu, p = tf.linalg.lu(np.array([[1., 2], [-1, 3]]))   # a tie keeps the first row
    np.testing.assert_array_equal(lu.numpy(), [[1., 2.], [-1., 5.]])
    np.testing.assert_array_equal(p.numpy(), [0, 1])
    lu, p = tf.linalg.lu(np.zeros((0, 0)))
    assert lu.shape == (0, 0) and p.shape == (0,)
    assert tf.linalg.lu(np.eye(2), output_idx_type=tf.int64).p.dtype == tf.int64
    # matrix_rank converts numpy integers to float32; its result is int32.
    r = tf.linalg.matrix_rank(np.eye(2, dtype=np.int32))
    assert r.dtype == tf.int32 and int(r) == 2
    assert int(tf.linalg.matrix_rank(np.array([[1., 2], [3, 4]]), tol=5.)) == 1
    np.testing.assert_array_equal(tf.linalg.pinv(np.diag([1., 1e-3]), rcond=1e-2).numpy(),
                                  [[1., 0.], [0., 0.]])
    assert tf.linalg.lu_reconstruct(np.ones((2, 2), np.int32), [0, 1]).dtype == tf.float32
    e = tf.linalg.eigvalsh(np.array([[2., 100.], [1., 2.]]))   # only the lower triangle
    np.testing.assert_allclose(e.numpy(), [1., 3.])
    assert tf.eig is tf.linalg.eig and tf.eigvals is tf.linalg.eigvals
    assert tf.compat.v1.self_adjoint_eig is tf.linalg.eigh


def test_linalg_in_tf_function_with_unknown_shapes():
    @tf.function(input_signature=[tf.TensorSpec([None, None, None], tf.float64)])
    def f(a):
        lu, p = tf.linalg.lu(a)
        return (tf.linalg.lu_reconstruct(lu, p), tf.linalg.matrix_rank(a), tf.linalg.pinv(a),
                tf.linalg.lu_matrix_inverse(lu, p))

    a = LINALG["batch/a"].reshape(-1, 4, 4)
    rec, rank, pi, inv = f(tf.constant(a))
    np.testing.assert_allclose(rec.numpy(), a, atol=1e-12)
    np.testing.assert_array_equal(rank.numpy(), [4] * 6)
    np.testing.assert_allclose(pi.numpy(), np.linalg.inv(a), atol=1e-10)
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(a), atol=1e-10)
