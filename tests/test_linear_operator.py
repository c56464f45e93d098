"""tf.linalg.LinearOperator and its subclasses against TensorFlow's values,
types, hints and errors (tools/tf_linalg_operator_fixtures.py, the operators
of tests/linop_cases.py), inside tf.function, and their checks."""
import os

import numpy as np
import pytest

import rillflow as tf
from linop_cases import METHODS, build_cases, run_method
from helpers import assert_gradients_match  # noqa: F401 - keeps helpers importable

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "tf_linalg_operators.npz"))
L = tf.linalg
CASES = build_cases(tf)


def describe(op):
    return repr((type(op).__name__, op.name, op.dtype.name, op.shape.as_list(),
                 op.is_non_singular, op.is_self_adjoint, op.is_positive_definite,
                 op.is_square))


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator_matches_tensorflow(name):
    op = CASES[name]
    assert describe(op) == str(DATA[f"{name}/describe"])
    for method in METHODS:
        err = f"{name}/{method}/error"
        if err in DATA:
            with pytest.raises(Exception) as info:
                run_method(op, method, tf)
            assert type(info.value).__name__ == str(DATA[err]), method
            continue
        got = run_method(op, method, tf)
        want = DATA[f"{name}/{method}"]
        got = np.asarray(got)
        assert got.shape == want.shape, method
        np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-9, err_msg=method)
    for derived in ("adjoint", "inverse", "cholesky"):
        want = str(DATA[f"{name}/{derived}/describe"])
        try:
            got = describe(getattr(op, derived)())
        except Exception as e:  # noqa: BLE001 - the class is compared
            got = type(e).__name__
        assert got == want, derived


@pytest.mark.parametrize("loss", ["lowrank_logdet", "lowrank_solve", "kron_solve",
                                  "kron_logdet"])
def test_gradients_through_operators(loss):
    from linop_cases import DIAG, SPD, U
    diag, mat, u = tf.constant(DIAG[0]), tf.constant(SPD), tf.constant(U)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([diag, mat, u])
        lr = L.LinearOperatorLowRankUpdate(
            L.LinearOperatorDiag(tf.abs(diag) + 1.0, is_positive_definite=True), u)
        kr = L.LinearOperatorKronecker(
            [L.LinearOperatorDiag(diag),
             L.LinearOperatorFullMatrix(mat, is_self_adjoint=True, is_positive_definite=True)])
        value = {"lowrank_logdet": lambda: lr.log_abs_determinant(),
                 "lowrank_solve": lambda: tf.reduce_sum(lr.solve(tf.ones([3, 1], tf.float64))),
                 "kron_solve": lambda: tf.reduce_sum(
                     kr.solve(tf.ones([12, 1], tf.float64)) ** 2),
                 "kron_logdet": lambda: kr.log_abs_determinant()}[loss]()
    np.testing.assert_allclose(value.numpy(), DATA[f"grad/{loss}/value"], rtol=1e-9)
    for v, vname in ((diag, "diag"), (mat, "mat"), (u, "u")):
        key = f"grad/{loss}/{vname}"
        g = tape.gradient(value, v)
        if key in DATA:
            np.testing.assert_allclose(g.numpy(), DATA[key], rtol=1e-7, atol=1e-10)
        else:
            assert g is None


def test_operator_algebra_result_types():
    d = L.LinearOperatorDiag([1., 2.])
    f = L.LinearOperatorFullMatrix([[1., 2], [3, 4]])
    i = L.LinearOperatorIdentity(2)
    s = L.LinearOperatorScaledIdentity(2, 3.)
    z = L.LinearOperatorZeros(2)
    lt = L.LinearOperatorLowerTriangular([[1., 0], [2, 3]])
    assert type(d @ d) is L.LinearOperatorDiag
    assert type(f @ f) is L.LinearOperatorComposition
    assert (f @ f).name == "LinearOperatorFullMatrix_o_LinearOperatorFullMatrix"
    assert f @ i is f and i @ f is f
    assert type(s @ s) is L.LinearOperatorScaledIdentity
    assert type(s @ d) is L.LinearOperatorDiag and type(d @ s) is L.LinearOperatorDiag
    assert type(f @ z) is L.LinearOperatorZeros and type(z @ f) is L.LinearOperatorZeros
    assert type(d @ lt) is L.LinearOperatorLowerTriangular
    assert type(f.inverse()) is L.LinearOperatorInversion and f.inverse().inverse() is f
    assert type(f.adjoint()) is L.LinearOperatorAdjoint and f.adjoint().adjoint() is f
    assert f.H.name == "LinearOperatorFullMatrix_adjoint"
    assert type(f.solve(i)) is L.LinearOperatorInversion
    assert type(d.solve(d)) is L.LinearOperatorDiag
    np.testing.assert_allclose((d @ d).diag.numpy(), [1., 4.])
    np.testing.assert_allclose((s @ d).to_dense().numpy(), [[3., 0], [0, 6]])
    np.testing.assert_allclose(f.solve(f).to_dense().numpy(), np.eye(2), atol=1e-6)
    c = L.LinearOperatorCirculant(tf.constant([6., 2, 2], tf.complex64),
                                  input_output_dtype=tf.float32)
    assert type(c @ c) is L.LinearOperatorCirculant and (c @ c).dtype == tf.complex64
    assert c.inverse().dtype == tf.float32


def test_constructor_and_method_errors():
    with pytest.raises(ValueError, match="A real diagonal operator is always self adjoint"):
        L.LinearOperatorDiag([1., 2.], is_self_adjoint=False)
    with pytest.raises(ValueError, match="An identity operator is always self adjoint"):
        L.LinearOperatorIdentity(3, is_self_adjoint=False)
    with pytest.raises(ValueError, match="must be non-negative"):
        L.LinearOperatorIdentity(-1)
    with pytest.raises(TypeError, match="must have dtype in"):
        L.LinearOperatorFullMatrix(tf.ones([2, 2], tf.int32))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        L.LinearOperatorFullMatrix([1., 2.])
    with pytest.raises(ValueError, match=r"num_rows\(3\) != num_columns\(4\)"):
        L.LinearOperatorZeros(3, 4)
    with pytest.raises(ValueError, match="always singular"):
        L.LinearOperatorZeros(3, is_non_singular=True)
    with pytest.raises(ValueError, match="Argument `is_non_singular` or argument `operator`"):
        L.LinearOperatorInversion(L.LinearOperatorZeros(3))
    with pytest.raises(ValueError, match="Expected a non-empty list of operators"):
        L.LinearOperatorBlockDiag([])
    with pytest.raises(ValueError, match="must contain `1` blocks"):
        L.LinearOperatorBlockLowerTriangular([[L.LinearOperatorDiag([1.]),
                                               L.LinearOperatorDiag([1.])]])
    with pytest.raises(ValueError, match="Householder operator is always self adjoint"):
        L.LinearOperatorHouseholder([1., 2.], is_self_adjoint=False)
    with pytest.raises(TypeError, match="must be integer dtype"):
        L.LinearOperatorPermutation([2., 0, 1])
    with pytest.raises(ValueError, match="must be one of compact, matrix, or sequence"):
        L.LinearOperatorTridiag([[1., 2]], diagonals_format="bad")
    d = L.LinearOperatorDiag([1., 2.])
    with pytest.raises(TypeError, match="Expected argument to have dtype"):
        d.matmul(tf.ones([2, 2], tf.float64))
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        d.matmul(tf.ones([3, 2]))
    rect = L.LinearOperatorFullMatrix(tf.ones([2, 3]))
    assert rect.is_square is False
    with pytest.raises(NotImplementedError, match="not be square"):
        rect.determinant()
    with pytest.raises(NotImplementedError, match="Only self-adjoint"):
        rect.eigvals()
    with pytest.raises(ValueError, match="Cannot take the Cholesky decomposition"):
        d.cholesky()
    with pytest.raises(ValueError, match="Operators are incompatible"):
        L.LinearOperatorDiag([1., 2., 3.]).matmul(d)


def test_assert_methods():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Diagonal contained zero"):
        L.LinearOperatorDiag([1., 0.]).assert_non_singular()
    with pytest.raises(tf.errors.InvalidArgumentError, match="non-positive diagonal"):
        L.LinearOperatorDiag([1., -1.]).assert_positive_definite()
    with pytest.raises(tf.errors.InvalidArgumentError, match="not equal to its adjoint"):
        L.LinearOperatorFullMatrix([[1., 2], [3, 4]]).assert_self_adjoint()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Singular matrix up to precision"):
        L.LinearOperatorFullMatrix([[1., 2], [2, 4]]).assert_non_singular()
    with pytest.raises(NotImplementedError, match="assert_positive_definite is not"):
        L.LinearOperatorFullMatrix([[1., 2], [3, 4]]).assert_positive_definite()
    assert L.LinearOperatorFullMatrix([[2., 1], [1, 2]]).assert_non_singular() is None
    assert L.LinearOperatorDiag([1., 2.]).assert_positive_definite() is None


def test_operators_through_tf_function():
    f = tf.function(lambda op, x: op.matmul(x))
    ones = tf.ones([2, 1])
    assert f(L.LinearOperatorDiag([1., 2.]), ones).numpy().tolist() == [[1.], [2.]]
    assert f(L.LinearOperatorDiag([3., 4.]), ones).numpy().tolist() == [[3.], [4.]]
    assert len(f._list_all_concrete_functions()) == 1 if hasattr(
        f, "_list_all_concrete_functions") else True
    inv = tf.function(lambda op: op.inverse())(L.LinearOperatorDiag([1., 2.]))
    assert type(inv) is L.LinearOperatorDiag and inv.diag.numpy().tolist() == [1., 0.5]
    kr = L.LinearOperatorKronecker([L.LinearOperatorDiag([1., 2.]),
                                    L.LinearOperatorFullMatrix([[1., 2], [3, 4]])])
    np.testing.assert_allclose(tf.function(lambda op: op.to_dense())(kr).numpy(),
                               kr.to_dense().numpy())
    assert len(tf.nest.flatten(kr, expand_composites=True)) == 2

    @tf.function
    def g(x):
        op = L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag(x), tf.ones([2, 1]))
        return op.solve(tf.ones([2, 1])), op.determinant()
    sol, det = g(tf.constant([1., 2.]))
    np.testing.assert_allclose(sol.numpy(), [[0.4], [0.2]], rtol=1e-6)
    np.testing.assert_allclose(det.numpy(), 5.0, rtol=1e-6)


def test_conjugate_gradient():
    a = tf.constant([[4., 1, 0], [1, 3, 1], [0, 1, 2]])
    op = L.LinearOperatorFullMatrix(a, is_self_adjoint=True, is_positive_definite=True)
    state = L.experimental.conjugate_gradient(op, tf.ones([3]))
    assert state.i.numpy() == 3 and state.gamma.shape == ()
    np.testing.assert_allclose(state.x.numpy(), [2 / 9, 1 / 9, 4 / 9], rtol=1e-5)
    two = L.experimental.conjugate_gradient(op, tf.ones([2, 3]), max_iter=2)
    assert two.i.numpy() == 2 and two.x.shape == (2, 3)
    pre = L.experimental.conjugate_gradient(
        op, tf.ones([3]), preconditioner=L.LinearOperatorDiag([.25, 1 / 3., .5]),
        x=tf.ones([3]))
    np.testing.assert_allclose(pre.x.numpy(), [2 / 9, 1 / 9, 4 / 9], rtol=1e-5)
    f = tf.function(lambda b: L.experimental.conjugate_gradient(op, b).x)
    np.testing.assert_allclose(f(tf.ones([3])).numpy(), [2 / 9, 1 / 9, 4 / 9], rtol=1e-5)
    with pytest.raises(ValueError, match="self-adjoint, positive definite"):
        L.experimental.conjugate_gradient(L.LinearOperatorFullMatrix(a), tf.ones([3]))


def test_operators_are_modules_tracking_variables():
    v = tf.Variable([1., 2.])
    d = L.LinearOperatorDiag(v)
    assert isinstance(d, tf.Module)
    assert len(d.trainable_variables) == 1 and d.trainable_variables[0] is v
    k = L.LinearOperatorKronecker([d, L.LinearOperatorFullMatrix(tf.Variable([[1., 2],
                                                                              [3, 4]]))])
    assert len(k.trainable_variables) == 2
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(d.to_dense()) + tf.reduce_sum(d.solve(tf.ones([2, 1])))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [0., 0.75])


def test_batch_slicing():
    d = L.LinearOperatorDiag([[1., 2.], [3., 4.]])
    r = d[1]
    assert type(r) is L.LinearOperatorDiag and r.diag.numpy().tolist() == [3., 4.]
    f = L.LinearOperatorFullMatrix(tf.reshape(tf.range(12.), [3, 2, 2]))
    assert f[1:].shape == (2, 2, 2)
    assert f[::2].to_dense().numpy().tolist() == [[[0., 1.], [2., 3.]],
                                                  [[8., 9.], [10., 11.]]]
    c = L.LinearOperatorComposition([f, L.LinearOperatorDiag([1., 2.])])
    assert c[2].to_dense().numpy().tolist() == [[8., 18.], [10., 22.]]
    lr = L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag([[1., 2.], [3, 4]]),
                                       tf.ones([2, 1]))
    assert lr[0].to_dense().numpy().tolist() == [[2., 1.], [1., 3.]]
    i = L.LinearOperatorIdentity(2, batch_shape=[3, 4])
    assert i[1].shape == (4, 2, 2) and i[:, 1:].shape == (3, 3, 2, 2)
    assert L.LinearOperatorScaledIdentity(2, [1., 2., 3.])[1:].multiplier.numpy().tolist() \
        == [2., 3.]


@pytest.mark.parametrize("name", sorted(CASES))
def test_batched_right_hand_sides_broadcast(name):
    # The dense matrix's products and solves, NumPy broadcasting the batch
    # dimensions of the operator and of a [4, 1, N, 2] right-hand side.
    op = CASES[name]
    n = op.shape[-1]
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 1, n, 2))
    if op.dtype.is_complex:
        x = x + 1j * rng.standard_normal(x.shape)
    xt = tf.constant(x, op.dtype)
    dense = op.to_dense().numpy()
    np.testing.assert_allclose(op.matmul(xt).numpy(), dense @ x, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(op.matmul(xt, adjoint=True).numpy(),
                               np.conj(np.swapaxes(dense, -1, -2)) @ x, rtol=1e-9, atol=1e-9)
    if op.is_non_singular is not False:
        full = np.broadcast_to(dense, np.broadcast_shapes(dense.shape[:-2], x.shape[:-2])
                               + dense.shape[-2:])
        np.testing.assert_allclose(op.solve(xt).numpy(), np.linalg.solve(full, x),
                                   rtol=1e-7, atol=1e-9)
