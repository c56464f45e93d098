"""The LinearOperators that tools/tf_linalg_operator_fixtures.py records from
TensorFlow and tests/test_linear_operator.py checks in rillflow: one
definition of the inputs, built with whichever `tf` module is passed in."""
import numpy as np

RNG = np.random.default_rng(20261127)


def _r(*shape):
    return RNG.standard_normal(shape)


A3 = np.array([[4., 1, 0], [1, 3, 1], [0, 1, 2]])
SPD = (lambda m: m @ m.T + 4 * np.eye(4))(_r(4, 4))
TRIL = np.tril(_r(2, 3, 3)) + 3 * np.eye(3)
FULL = _r(2, 3, 3) + 3 * np.eye(3)
CFULL = (_r(3, 3) + 1j * _r(3, 3) + 3 * np.eye(3)).astype(np.complex128)
DIAG = np.array([[1., 2, -3], [0.5, 4, 2]])
U = _r(3, 2)
V = _r(3, 2)
SPEC = np.fft.fft(np.array([5., 1, 0.5, 1]))
SPEC2 = np.fft.fft2(np.array([[6., 1], [0.5, 1]]))
TRI = np.array([[1., 2, 0.5, 0], [5., 4, 6, 3], [0, 1, 2, 0.5]])


def build_cases(tf):
    """name -> LinearOperator, built with `tf` (TensorFlow or rillflow)."""
    L = tf.linalg
    c = lambda a, dt=tf.float64: tf.constant(a, dt)  # noqa: E731
    full = L.LinearOperatorFullMatrix(c(FULL))
    spd = L.LinearOperatorFullMatrix(c(SPD), is_self_adjoint=True, is_positive_definite=True)
    diag = L.LinearOperatorDiag(c(DIAG))
    return {
        "full": full,
        "full_c": L.LinearOperatorFullMatrix(c(CFULL, tf.complex128)),
        "spd": spd,
        "diag": diag,
        "diag_pd": L.LinearOperatorDiag(c([1., 2, 3]), is_positive_definite=True),
        "tril": L.LinearOperatorLowerTriangular(c(TRIL)),
        "identity": L.LinearOperatorIdentity(3, dtype=tf.float64),
        "identity_b": L.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64),
        "scaled": L.LinearOperatorScaledIdentity(3, c([2., -0.5])),
        "zeros": L.LinearOperatorZeros(3, dtype=tf.float64),
        "adjoint": L.LinearOperatorAdjoint(full),
        "inversion": L.LinearOperatorInversion(full),
        "composition": L.LinearOperatorComposition([full, diag]),
        "block_diag": L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(c(A3)), spd]),
        "block_lower": L.LinearOperatorBlockLowerTriangular(
            [[L.LinearOperatorFullMatrix(c(A3))],
             [L.LinearOperatorFullMatrix(c(_r(4, 3))), spd]]),
        "kronecker": L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(c(A3)),
                                                L.LinearOperatorFullMatrix(c(SPD))]),
        "low_rank": L.LinearOperatorLowRankUpdate(
            L.LinearOperatorDiag(c([1., 2, 3]), is_positive_definite=True), c(U),
            diag_update=c([2., 0.5]), is_diag_update_positive=True),
        "low_rank_v": L.LinearOperatorLowRankUpdate(L.LinearOperatorFullMatrix(c(A3)), c(U),
                                                    v=c(V)),
        "circulant": L.LinearOperatorCirculant(c(SPEC, tf.complex128),
                                               input_output_dtype=tf.float64),
        "circulant_c": L.LinearOperatorCirculant(c(SPEC * (1 + 0.5j), tf.complex128),
                                                 input_output_dtype=tf.complex128),
        "circulant2d": L.LinearOperatorCirculant2D(c(SPEC2, tf.complex128),
                                                   input_output_dtype=tf.float64),
        "toeplitz": L.LinearOperatorToeplitz(c([4., 1, 0.5, 0.2]), c([4., 2, -1, 0.3])),
        "tridiag": L.LinearOperatorTridiag(c(TRI)),
        "householder": L.LinearOperatorHouseholder(c([1., 2, -2])),
        "permutation": L.LinearOperatorPermutation([2, 0, 3, 1], dtype=tf.float64),
    }


def rhs_for(op, rng_seed=0):
    """A right-hand side [batch..., N, 2] for an operator of static shape."""
    rng = np.random.default_rng(rng_seed)
    n = op.shape[-1]
    x = rng.standard_normal((n, 2))
    if op.dtype.is_complex:
        x = x + 1j * rng.standard_normal((n, 2))
    return x


METHODS = ("to_dense", "matmul", "matmul_adj", "matmul_adj_arg", "matvec", "solve",
           "solve_adj", "solvevec", "determinant", "log_abs_determinant", "trace",
           "diag_part", "eigvals", "add_to_tensor", "adjoint_dense", "inverse_dense",
           "cholesky_dense", "shape_tensor")


def run_method(op, method, tf):
    """The value of one of METHODS on op, as a NumPy array."""
    x = tf.constant(rhs_for(op), op.dtype)
    if method == "to_dense":
        return op.to_dense()
    if method == "matmul":
        return op.matmul(x)
    if method == "matmul_adj":
        return op.matmul(x, adjoint=True)
    if method == "matmul_adj_arg":
        return op.matmul(tf.linalg.adjoint(x), adjoint_arg=True)
    if method == "matvec":
        return op.matvec(x[:, 0])
    if method == "solve":
        return op.solve(x)
    if method == "solve_adj":
        return op.solve(x, adjoint=True)
    if method == "solvevec":
        return op.solvevec(x[:, 0])
    if method == "add_to_tensor":
        return op.add_to_tensor(tf.ones(op.shape, op.dtype))
    if method == "adjoint_dense":
        return op.adjoint().to_dense()
    if method == "inverse_dense":
        return op.inverse().to_dense()
    if method == "cholesky_dense":
        return op.cholesky().to_dense()
    if method == "shape_tensor":
        return op.shape_tensor()
    return getattr(op, method)()
