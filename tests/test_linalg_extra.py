"""tf.linalg's matrix functions, least squares, tridiagonal and banded solvers
and tf.math's incomplete gamma/beta functions and Sobol points, against
TensorFlow's values and gradients (tools/tf_linalg_extra_fixtures.py)."""
import os

import numpy as np
import pytest

import rillflow as tf

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_linalg_extra.npz"))


def grad_of(fn, *args):
    """As the fixture script: fn(*args) and d sum(real(fn * w)) / d args."""
    args = [tf.constant(a) for a in args]
    with tf.GradientTape() as tape:
        tape.watch(args)
        y = fn(*args)
        w = tf.constant(np.linspace(0.5, 1.5, int(np.prod(y.shape))).reshape(y.shape),
                        y.dtype)
        loss = tf.reduce_sum(tf.math.real(y * w))
    return y.numpy(), [None if g is None else g.numpy() for g in tape.gradient(loss, args)]


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["small", "mid", "big"])
@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_expm_values_and_gradients(name, dt):
    a = DATA[f"expm/{name}/a"].astype(dt)
    y, (g,) = grad_of(tf.linalg.expm, a)
    tol = 1e-4 if dt == "float32" else 1e-10
    assert y.dtype == np.dtype(dt)
    close(y, DATA[f"expm/{name}/{dt}"], tol, tol)
    close(g, DATA[f"expm/{name}/{dt}/grad"], tol * 10, tol * 10)


def test_expm_in_tf_function_matches_eager():
    a = tf.constant(DATA["expm/big/a"])
    f = tf.function(tf.linalg.expm)
    close(f(a).numpy(), DATA["expm/big/float64"], 1e-10, 1e-10)
    with pytest.raises(ValueError, match="square"):
        tf.linalg.expm(tf.ones([2, 3]))


def test_sqrtm_logm():
    pytest.importorskip("scipy")
    y, (g,) = grad_of(tf.linalg.sqrtm, DATA["spd"])
    close(y, DATA["sqrtm"], 1e-10, 1e-10)
    close(g, DATA["sqrtm/grad"], 1e-8, 1e-8)
    assert tf.matrix_square_root is tf.linalg.sqrtm
    neg = tf.linalg.sqrtm(tf.constant([[-1., 0], [0, 1]])).numpy()
    assert np.isnan(neg).all()
    close(tf.linalg.logm(DATA["logm/a"]).numpy(), DATA["logm"], 1e-9, 1e-9)
    with pytest.raises(tf.errors.InvalidArgumentError, match="complex64, complex128"):
        tf.linalg.logm(tf.eye(2))


@pytest.mark.parametrize("l2", [0.0, 0.5])
def test_lstsq_over_and_underdetermined_with_gradients(l2):
    a, b = DATA["lstsq/a"], DATA["lstsq/b"]
    y, g = grad_of(lambda m, r: tf.linalg.lstsq(m, r, l2_regularizer=l2), a, b)
    close(y, DATA[f"lstsq/{l2}"], 1e-9, 1e-9)
    close(g[0], DATA[f"lstsq/{l2}/da"], 1e-8, 1e-8)
    close(g[1], DATA[f"lstsq/{l2}/db"], 1e-8, 1e-8)
    at, bt = np.swapaxes(a, -1, -2)[..., :2, :], b[..., :2, :]
    y, g = grad_of(lambda m, r: tf.linalg.lstsq(m, r, l2_regularizer=l2), at, bt)
    close(y, DATA[f"lstsq_under/{l2}"], 1e-9, 1e-9)
    close(g[0], DATA[f"lstsq_under/{l2}/da"], 1e-8, 1e-8)
    close(g[1], DATA[f"lstsq_under/{l2}/db"], 1e-8, 1e-8)


def test_lstsq_slow_and_errors():
    close(tf.linalg.lstsq(DATA["lstsq/a"], DATA["lstsq/b"], fast=False).numpy(),
          DATA["lstsq/slow"], 1e-9, 1e-9)
    # Rank-deficient normal equations: NaN, not an error, as TensorFlow's kernel.
    assert np.isnan(tf.linalg.lstsq(tf.ones([4, 3]), tf.ones([4, 1])).numpy()).all()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix size-incompatible"):
        tf.linalg.lstsq(tf.ones([4, 3]), tf.ones([3, 1]))


def test_cholesky_solve_and_tensor_diag():
    chol = np.linalg.cholesky(DATA["spd"])
    y, g = grad_of(tf.linalg.cholesky_solve, chol, DATA["lstsq/b"][:, :4])
    close(y, DATA["cholesky_solve"], 1e-10, 1e-10)
    close(g[0], DATA["cholesky_solve/dchol"], 1e-9, 1e-9)
    close(g[1], DATA["cholesky_solve/drhs"], 1e-9, 1e-9)
    d = DATA["tensor_diag/d"]
    np.testing.assert_array_equal(tf.linalg.tensor_diag(d).numpy(), DATA["tensor_diag"])
    np.testing.assert_array_equal(tf.linalg.tensor_diag_part(DATA["tensor_diag"] + 1).numpy(),
                                  DATA["tensor_diag_part"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="dimensions 0 and 1 do not match"):
        tf.linalg.tensor_diag_part(tf.ones([2, 3]))
    x = tf.constant(d)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.linalg.tensor_diag(x) * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.full(d.shape, 2.0))


@pytest.mark.parametrize("ordn,axis", [("euclidean", None), (1, 0), (np.inf, -1),
                                       ("fro", (0, 1))])
def test_normalize(ordn, axis):
    n, nn = tf.linalg.normalize(DATA["normalize/x"], ord=ordn, axis=axis)
    close(n.numpy(), DATA[f"normalize/{ordn}/{axis}"], 1e-12, 1e-12)
    close(nn.numpy(), DATA[f"normalize/{ordn}/{axis}/norm"], 1e-12, 1e-12)


def test_tridiagonal_matmul_and_solve_with_gradients():
    d, r = DATA["tri/diags"], DATA["tri/rhs"]
    for fn, key in ((tf.linalg.tridiagonal_matmul, "matmul"), (tf.linalg.tridiagonal_solve,
                                                               "solve")):
        y, g = grad_of(fn, d, r)
        close(y, DATA[f"tri/{key}"], 1e-10, 1e-10)
        close(g[0], DATA[f"tri/{key}/dd"], 1e-9, 1e-9)
        close(g[1], DATA[f"tri/{key}/drhs"], 1e-9, 1e-9)
    close(tf.linalg.tridiagonal_solve(DATA["tri/piv"], r).numpy(), DATA["tri/solve_piv"],
          1e-9, 1e-9)
    close(tf.linalg.tridiagonal_solve(DATA["tri/piv"], r, partial_pivoting=False).numpy(),
          DATA["tri/solve_nopiv"], 1e-6, 1e-6)


def test_tridiagonal_formats_agree():
    d, r = DATA["tri/diags"][0], DATA["tri/rhs"][0]
    dense = np.diag(d[1]) + np.diag(d[0, :-1], 1) + np.diag(d[2, 1:], -1)
    want = np.linalg.solve(dense, r)
    close(tf.linalg.tridiagonal_solve(dense, r, diagonals_format="matrix").numpy(), want)
    close(tf.linalg.tridiagonal_solve((d[0], d[1], d[2]), r[:, 0],
                                      diagonals_format="sequence").numpy(), want[:, 0])
    close(tf.linalg.tridiagonal_solve(d, r.T, transpose_rhs=True).numpy(), want)
    close(tf.linalg.tridiagonal_matmul(dense, r, diagonals_format="matrix").numpy(), dense @ r)
    singular = np.array([[1., 2, 3], [4., 5, 6], [7, 8, 9]])
    assert np.isnan(tf.linalg.tridiagonal_solve(singular, tf.ones([3, 2])).numpy()).all()
    with pytest.raises(ValueError, match="Unrecognized diagonals_format: bad"):
        tf.linalg.tridiagonal_solve(d, r, diagonals_format="bad")


def test_banded_triangular_solve():
    r = DATA["tri/rhs"]
    close(tf.linalg.banded_triangular_solve(DATA["banded/bands"], r).numpy(),
          DATA["banded/lower"], 1e-10, 1e-10)
    close(tf.linalg.banded_triangular_solve(DATA["banded/ub"], r, lower=False,
                                            adjoint=True).numpy(),
          DATA["banded/upper_adj"], 1e-10, 1e-10)


def test_eigh_tridiagonal():
    a, b = DATA["eht/alpha"], DATA["eht/beta"]
    close(tf.linalg.eigh_tridiagonal(a, b).numpy(), DATA["eht/all"], 1e-9, 1e-9)
    close(tf.linalg.eigh_tridiagonal(a, b, select="i", select_range=[1, 3]).numpy(),
          DATA["eht/i"], 1e-9, 1e-9)
    close(tf.linalg.eigh_tridiagonal(a, b, select="v", select_range=[-0.5, 1.0]).numpy(),
          DATA["eht/v"], 1e-9, 1e-9)
    e, v = tf.linalg.eigh_tridiagonal(a, b, eigvals_only=False)
    dense = np.diag(a) + np.diag(b, 1) + np.diag(b, -1)
    close(dense @ v.numpy(), v.numpy() * e.numpy(), 1e-9, 1e-9)
    with pytest.raises(ValueError, match="select must have a value"):
        tf.linalg.eigh_tridiagonal(a, b, select="x")


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_igamma_igammac_values(dt):
    a, x = DATA["ig/a"].astype(dt), DATA["ig/x"].astype(dt)
    for fn in ("igamma", "igammac"):
        y = getattr(tf.math, fn)(a, x)
        assert y.dtype == tf.as_dtype(dt)
        close(y.numpy(), DATA[f"ig/{dt}/{fn}"], 1e-5 if dt == "float32" else 1e-12, 1e-6)


def test_igamma_gradients_and_errors():
    for fn in ("igamma", "igammac"):
        _, g = grad_of(getattr(tf.math, fn), DATA["igg/a"], DATA["igg/x"])
        close(g[0], DATA[f"igg/{fn}/da"], 1e-7, 1e-12)
        close(g[1], DATA[f"igg/{fn}/dx"], 1e-10, 1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32"):
        tf.math.igamma([1, 2], [1, 2])


def test_betainc():
    close(tf.math.betainc(DATA["bi/a"], DATA["bi/b"], DATA["bi/x"]).numpy(), DATA["bi/value"],
          1e-12, 1e-12)
    _, g = grad_of(tf.math.betainc, DATA["bi/a"][:4], DATA["bi/b"][:4], DATA["bi/x"][:4])
    assert g[0] is None and g[1] is None
    close(g[2], DATA["bi/dx"], 1e-10, 1e-12)
    close(tf.math.betainc(0.5, [0.5, 1.], 0.3).numpy(), [0.36901015, 0.5477226], 1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Shapes of a and b are inconsistent: \[2\] vs. \[3\]"):
        tf.math.betainc([1., 2.], [1., 2., 3.], 0.5)


def test_sobol_sample():
    pytest.importorskip("scipy")
    np.testing.assert_array_equal(tf.math.sobol_sample(5, 40).numpy(), DATA["sobol/5x4"])
    np.testing.assert_array_equal(
        tf.math.sobol_sample(30, 7, skip=1000, dtype=tf.float64).numpy(), DATA["sobol/skip"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="dim must be at least one"):
        tf.math.sobol_sample(0, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="skip must be non-negative"):
        tf.math.sobol_sample(2, 3, skip=-1)
    f = tf.function(lambda: tf.math.sobol_sample(2, 3))
    assert f.get_concrete_function().output_shapes == tf.TensorShape([3, 2])


def test_complex_gradients_follow_tensorflow():
    pytest.importorskip("scipy")
    a, w = DATA["complex/a"], DATA["complex/w"]
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.math.real(tf.linalg.sqrtm(x) * w))
    close(tape.gradient(loss, x).numpy(), DATA["complex/sqrtm_grad"], 1e-8, 1e-9)
    d, r = tf.constant(DATA["complex/diags"]), tf.constant(DATA["complex/rhs"])
    with tf.GradientTape() as tape:
        tape.watch([d, r])
        loss = tf.reduce_sum(tf.math.real(tf.linalg.tridiagonal_solve(d, r) * DATA["complex/w2"]))
    gd, gr = tape.gradient(loss, [d, r])
    close(gd.numpy(), DATA["complex/tri_dd"], 1e-9, 1e-10)
    close(gr.numpy(), DATA["complex/tri_drhs"], 1e-9, 1e-10)
    with pytest.raises(NotImplementedError, match="complex128 and l2_regularizer != 0"):
        tf.linalg.lstsq(tf.ones([3, 2], tf.complex128), tf.ones([3, 1], tf.complex128),
                        l2_regularizer=0.5)


def test_xla_lowerings_agree_with_the_kernels():
    pytest.importorskip("jax")
    pytest.importorskip("scipy")
    a = tf.constant([[0.5, 2., 0.], [1., -1., 3.]])
    x = tf.constant([[0.3, 3., 0.], [0., 1., 2.]])
    for fn in (tf.math.igamma, tf.math.igammac):
        np.testing.assert_allclose(tf.function(fn, jit_compile=True)(a, x).numpy(),
                                   fn(a, x).numpy(), rtol=1e-5, atol=1e-6)
    b, xx = tf.constant([1., 2., 0.5]), tf.constant([0.2, 0.5, 1.5])
    np.testing.assert_allclose(tf.function(tf.math.betainc, jit_compile=True)(b, b + 1, xx),
                               tf.math.betainc(b, b + 1, xx).numpy(), rtol=1e-5, atol=1e-6)
    d = tf.constant([[1., 2.], [3., 4.]])
    t = tf.function(tf.linalg.tensor_diag, jit_compile=True)(d)
    np.testing.assert_array_equal(t.numpy(), tf.linalg.tensor_diag(d).numpy())
    np.testing.assert_array_equal(
        tf.function(tf.linalg.tensor_diag_part, jit_compile=True)(t).numpy(), d.numpy())
    np.testing.assert_array_equal(
        tf.function(lambda: tf.math.sobol_sample(3, 4), jit_compile=True)().numpy(),
        tf.math.sobol_sample(3, 4).numpy())
    m = tf.constant(DATA["expm/big/a"])
    close(tf.function(tf.linalg.expm, jit_compile=True)(m).numpy(), DATA["expm/big/float64"],
          1e-9, 1e-9)


def test_dtype_errors_as_tensorflow():
    pytest.importorskip("scipy")
    with pytest.raises(tf.errors.NotFoundError, match="Igamma"):
        tf.math.igamma(tf.constant([1.], tf.float16), tf.constant([1.], tf.float16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="half is not in the list"):
        tf.math.betainc(tf.constant([1., 2.], tf.float16), 1., 0.5)
    with pytest.raises(TypeError):
        tf.math.betainc(1, 1, 0.5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="bool is not in the list"):
        tf.linalg.tensor_diag(tf.constant([True, False]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least rank 1"):
        tf.linalg.tensor_diag(tf.constant(3.))
    assert tf.linalg.tensor_diag_part(tf.constant(3.)).numpy() == 3.
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32 is not in the list"):
        tf.linalg.tridiagonal_solve(tf.ones([3, 3], tf.int32), tf.ones([3, 1], tf.int32))
