"""Linear algebra on inf, NaN, zero pivots and extreme magnitudes, against
values TensorFlow 2.21 (CPU) gives for the same inputs (written here as
literals): triangular_solve, lu, logm, det, slogdet, lstsq."""
import numpy as np
import pytest

import rillflow as tf

nan, inf = np.nan, np.inf


def same(actual, expected):
    """Equal elementwise, NaN matching NaN and zeros matching in sign."""
    a = np.asarray(actual)
    e = np.asarray(expected, dtype=a.dtype)
    assert a.shape == e.shape, (a.shape, e.shape)
    if a.dtype.kind == "c":
        same(a.real, e.real)
        same(a.imag, e.imag)
        return
    ok = (np.isnan(a) & np.isnan(e)) | ((a == e) & (np.signbit(a) == np.signbit(e)))
    assert ok.all(), f"\n{a.tolist()}\n!=\n{e.tolist()}"


# --- triangular_solve ------------------------------------------------------------------

def tri(m, b, dtype=np.float32, **kw):
    return tf.linalg.triangular_solve(np.array(m, dtype), np.array(b, dtype), **kw).numpy()


B = [[2, 1], [3, 0], [4, 1]]


def test_triangular_solve_nan_pivot_poisons_only_the_rows_that_depend_on_it():
    # It was solved by an LU of the triangle: a NaN anywhere made every row
    # NaN. TensorFlow substitutes: the rows solved before the NaN stay.
    m = [[2, 0, 0], [1, nan, 0], [1, 1, 4]]
    same(tri(m, B), [[1, 0.5], [nan, nan], [nan, nan]])
    same(tri(m, B, lower=False), [[nan, nan], [nan, nan], [1, 0.25]])
    same(tri(m, B, adjoint=True), [[nan, nan], [nan, nan], [1, 0.25]])
    same(tri(m, B, lower=False, adjoint=True), [[1, 0.5], [nan, nan], [nan, nan]])


def test_triangular_solve_inf_below_the_diagonal_is_not_a_pivot():
    # The LU took the inf as its pivot and raised "Singular matrix".
    m = [[2, 0, 0], [inf, 1, 0], [1, 1, 4]]
    same(tri(m, B), [[1, 0.5], [-inf, -inf], [inf, inf]])
    same(tri(m, B, adjoint=True), [[-inf, inf], [2, -0.25], [1, 0.25]])
    # The unread triangle may hold anything.
    same(tri(m, B, lower=False), [[1, 0.5], [3, 0], [1, 0.25]])
    same(tri([[2, nan, inf], [1, 3, nan], [1, 1, 4]], B),
         [[1, 0.5], [0.6666666865348816, -0.1666666716337204],
          [0.5833333134651184, 0.1666666716337204]])


def test_triangular_solve_zero_pivot_gives_inf_and_nan_without_raising():
    same(tri([[2, 0, 0], [1, 0, 0], [1, 1, 4]], B), [[1, 0.5], [inf, -inf], [-inf, inf]])
    same(tri([[2, 0, 0], [1, 0, 0], [1, 1, 4]], B, lower=False),
         [[nan, nan], [inf, nan], [1, 0.25]])
    same(tri([[0, 0, 0], [1, 1, 0], [1, 1, 4]], [[0], [1], [2]]), [[nan], [nan], [nan]])
    same(tri([[0, 0, 0], [1, 1, 0], [1, 1, 4]], [[1], [1], [2]]), [[inf], [-inf], [nan]])


def test_triangular_solve_multiplies_by_the_reciprocal_and_flushes_subnormals():
    # Eigen multiplies by 1 / pivot: 1.00005 * (1 / 3), not 1.00005 / 3
    # (0.33334997).
    same(tri([[3]], [[1.0000499486923218]]), [[0.3333500027656555]])
    # Float32 throughout, with flush-to-zero: 1e20 * 1e20 is inf, and the
    # next row's 0 * inf is NaN; 1e-20 * 1e-20 is 0, not 1e-40; a subnormal
    # pivot reads as 0.
    same(tri([[1e-20, 0], [0, 1]], [[1e20], [1]]), [[inf], [nan]])
    same(tri([[1e20, 0], [0, 1]], [[1e-20], [1]]), [[0], [1]])
    same(tri([[1e-40, 0], [0, 1]], [[1e-40], [1]]), [[nan], [nan]])
    same(tri([[1e-39, 0], [0, 1]], [[1e-30], [1]]), [[inf], [nan]])
    same(tri([[1, 0], [0, 1]], [[1e-40], [-0.0]]), [[0], [-0.0]])
    same(tri([[1e-300, 0], [1, 1]], [[1e-300], [1]], np.float64),
         [[0.9999999999999999], [1.1102230246251565e-16]])
    same(tri([[1e-310, 0], [1, 1]], [[1], [1]], np.float64), [[inf], [-inf]])


def test_triangular_solve_complex_specials_recover_infinities_as_c_does():
    c = np.complex64
    same(tri([[2, 0], [1j, 0]], [[1], [1]], c), [[0.5], [complex(inf, -inf)]])
    same(tri([[2, 0], [1j, 0]], [[1], [0]], c), [[0.5], [complex(nan, -inf)]])
    same(tri([[0, 0], [1, 1]], [[1j], [1]], c), [[complex(nan, inf)], [complex(nan, -inf)]])
    same(tri([[complex(inf, 0), 0], [1, 1]], [[1], [1]], c), [[0], [1]])
    same(tri([[2, 0], [complex(inf, 0), 1]], [[1], [1]], c), [[0.5], [complex(-inf, nan)]])
    same(tri([[2, 0], [complex(0, inf), 1]], [[1], [1]], c), [[0.5], [complex(nan, -inf)]])
    same(tri([[1 + 1j, 0], [2 - 1j, 3j]], [[1, 2j], [3, 4]], c, adjoint=True),
         [[2, 1 + 0.3333333134651184j], [complex(-0.0, 1), complex(-0.0, 1.3333333730697632)]])
    same(tri([[1 + 1j, 0], [2 - 1j, 3j]], [[1, 2j], [3, 4]], np.complex128, lower=False),
         [[0.5 - 0.5j, 1 + 1j], [complex(0, -1), complex(0, -1.3333333333333333)]])


def test_triangular_solve_batches_broadcast_and_keep_other_matrices_finite():
    m = np.array([[[2, 0], [1, nan]], [[4, 0], [2, 1]]])
    b = np.array([[1, 2], [3, 4]], np.float64)
    same(tf.linalg.triangular_solve(m, b[None]).numpy(),
         [[[0.5, 1], [nan, nan]], [[0.25, 0.5], [2.5, 3]]])
    same(tf.linalg.triangular_solve(m[1], np.stack([b, 2 * b]), lower=False).numpy(),
         [[[0.25, 0.5], [3, 4]], [[0.5, 1], [6, 8]]])


def test_triangular_solve_ordinary_values_are_tensorflows_bits():
    # 20 unknowns: a panel of 16 solved by substitution, then Eigen's
    # blocked update of the other 4, in its order of summation.
    i, j = np.arange(20)[:, None], np.arange(20)[None, :]
    a = (np.sin(i * 1.3 + j * 0.7) + np.where(i == j, 3.0, 0.0)).astype(np.float32)
    b = np.cos(np.arange(20) * 0.37).astype(np.float32)[:, None]
    same(tf.linalg.triangular_solve(a, b).numpy().ravel(), [
        0.3333333432674408, 0.1563301980495453, 0.2635948061943054, 0.3854473829269409,
        0.008443840779364109, -0.41482818126678467, -0.5409482717514038, 0.02253021113574505,
        0.19525501132011414, -0.3987818658351898, -0.561750054359436, -0.25048622488975525,
        0.11738577485084534, 0.13441026210784912, -0.019325830042362213, 0.07245402038097382,
        0.3188421428203583, 0.37631282210350037, 0.6662760376930237, 0.32829734683036804])
    same(tf.linalg.triangular_solve(a, b, adjoint=True).numpy().ravel(), [
        0.27183470129966736, 0.4210292100906372, 0.5362874865531921, 0.17541415989398956,
        -0.05934981629252434, -0.2528543472290039, -0.2580065429210663, -0.26662755012512207,
        -0.3662594258785248, -0.2132098376750946, -0.094124935567379, -0.10899649560451508,
        -0.08720547705888748, -0.04257112368941307, -0.007547345943748951, 0.09321574866771698,
        0.2133927047252655, 0.4365081489086151, 0.5060964822769165, 0.2226257026195526])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_triangular_solve_stays_accurate(dtype, lower, adjoint):
    rng = np.random.default_rng(3)
    n = 70      # past the float64 and complex depth blocks of Eigen's solve
    a = rng.standard_normal((2, n, n)) * 0.2 + 3 * np.eye(n)
    b = rng.standard_normal((2, n, 5))
    if np.dtype(dtype).kind == "c":
        a = a + 0.2j * rng.standard_normal((2, n, n))
        b = b + 1j * rng.standard_normal((2, n, 5))
    a, b = a.astype(dtype), b.astype(dtype)
    x = tf.linalg.triangular_solve(a, b, lower=lower, adjoint=adjoint).numpy()
    m = np.tril(a) if lower else np.triu(a)
    if adjoint:
        m = np.conj(np.swapaxes(m, -1, -2))
    want = np.linalg.solve(m.astype(np.complex128), b.astype(np.complex128))
    tol = 1e-5 if np.dtype(dtype).itemsize * (1 if np.dtype(dtype).kind == "f" else 0.5) == 4 \
        else 1e-13
    np.testing.assert_allclose(x, want, rtol=tol, atol=tol)


def test_triangular_solve_has_no_half_precision_kernel():
    with pytest.raises(tf.errors.NotFoundError, match="MatrixTriangularSolve"):
        tf.linalg.triangular_solve(tf.constant([[3.0, 0], [1, 7]], tf.float16),
                                   tf.constant([[1.0], [2]], tf.float16))
