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


def near(actual, expected, rtol=2e-6):
    """Tame inputs (linalg_util.tame: finite, magnitudes well inside the
    range) run through LAPACK, whose order of operations rounds otherwise
    than TensorFlow's Eigen kernels: the same values up to rounding."""
    a = np.asarray(actual)
    np.testing.assert_allclose(a, np.asarray(expected, dtype=a.dtype), rtol=rtol, atol=rtol)


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
    # Eigen multiplies by 1 / pivot: 1.00005 * (1 / 3) is 0.33335 in TF, where
    # a division gives 0.33334997 (tame: LAPACK, the same up to rounding).
    near(tri([[3]], [[1.0000499486923218]]), [[0.3333500027656555]])
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
    near(tri([[1 + 1j, 0], [2 - 1j, 3j]], [[1, 2j], [3, 4]], c, adjoint=True),
         [[2, 1 + 0.3333333134651184j], [complex(-0.0, 1), complex(-0.0, 1.3333333730697632)]])
    near(tri([[1 + 1j, 0], [2 - 1j, 3j]], [[1, 2j], [3, 4]], np.complex128, lower=False),
         [[0.5 - 0.5j, 1 + 1j], [complex(0, -1), complex(0, -1.3333333333333333)]])


def test_triangular_solve_of_a_tame_but_badly_scaled_triangle_substitutes():
    # Tame (finite, 1e30 is well inside float64's range), so LAPACK runs it,
    # but as a triangular solve: an LU of the triangle (the old fast path)
    # pivoted on the 1e30 and lost the first rows (x0 1.0616 for 1.0110).
    # TensorFlow 2.21's values.
    m = np.array([[0.5025683360321447, -0.8517907379983513, -1.8444544530653197],
                  [1.1715328769151445, -2.267196938354881, 1e30],
                  [-0.9863718459276707, -1e30, 1.2047498059965644]])
    b = np.array([[0.5080867153165819, -0.814212744482838],
                  [-0.3167688095058067, -0.2645136463185111],
                  [0.41553230523776674, 1.7802566433348268]])
    got = tf.linalg.triangular_solve(m, b, lower=False, adjoint=True).numpy()
    np.testing.assert_allclose(got, [[1.01098, -1.620104], [-0.240109, 0.725346],
                                     [1.9930214663298046e+29, -6.02072120483948e+29]],
                               rtol=1e-5)


def test_triangular_solve_batches_broadcast_and_keep_other_matrices_finite():
    m = np.array([[[2, 0], [1, nan]], [[4, 0], [2, 1]]])
    b = np.array([[1, 2], [3, 4]], np.float64)
    same(tf.linalg.triangular_solve(m, b[None]).numpy(),
         [[[0.5, 1], [nan, nan]], [[0.25, 0.5], [2.5, 3]]])
    same(tf.linalg.triangular_solve(m[1], np.stack([b, 2 * b]), lower=False).numpy(),
         [[[0.25, 0.5], [3, 4]], [[0.5, 1], [6, 8]]])


def test_triangular_solve_ordinary_values_are_tensorflows():
    # 20 unknowns (TensorFlow: a panel of 16 by substitution, then Eigen's
    # blocked update of the other 4): tame, so LAPACK's, up to rounding; with
    # a NaN far from them (Eigen's arithmetic on the whole system), the
    # rows before it are TensorFlow's bits.
    i, j = np.arange(20)[:, None], np.arange(20)[None, :]
    a = (np.sin(i * 1.3 + j * 0.7) + np.where(i == j, 3.0, 0.0)).astype(np.float32)
    b = np.cos(np.arange(20) * 0.37).astype(np.float32)[:, None]
    b_nan = b.copy()
    b_nan[19] = nan
    same(tf.linalg.triangular_solve(a, b_nan).numpy().ravel()[:19], [
        0.3333333432674408, 0.1563301980495453, 0.2635948061943054, 0.3854473829269409,
        0.008443840779364109, -0.41482818126678467, -0.5409482717514038, 0.02253021113574505,
        0.19525501132011414, -0.3987818658351898, -0.561750054359436, -0.25048622488975525,
        0.11738577485084534, 0.13441026210784912, -0.019325830042362213, 0.07245402038097382,
        0.3188421428203583, 0.37631282210350037, 0.6662760376930237])
    near(tf.linalg.triangular_solve(a, b).numpy().ravel(), [
        0.3333333432674408, 0.1563301980495453, 0.2635948061943054, 0.3854473829269409,
        0.008443840779364109, -0.41482818126678467, -0.5409482717514038, 0.02253021113574505,
        0.19525501132011414, -0.3987818658351898, -0.561750054359436, -0.25048622488975525,
        0.11738577485084534, 0.13441026210784912, -0.019325830042362213, 0.07245402038097382,
        0.3188421428203583, 0.37631282210350037, 0.6662760376930237, 0.32829734683036804])
    near(tf.linalg.triangular_solve(a, b, adjoint=True).numpy().ravel(), [
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


# --- lu -------------------------------------------------------------------------------

def lu(m, dtype=np.float32):
    out, p = tf.linalg.lu(np.array(m, dtype))
    return out.numpy(), p.numpy()


def test_lu_of_a_matrix_holding_nan_returns_nan_factors():
    # It raised "Input is not invertible." for any NaN pivot; TensorFlow
    # rejects only a smallest |pivot| that is not > 0, found as Eigen's
    # minCoeff finds it (a NaN pivot after a finite one is passed over).
    out, p = lu([[1, 2, 3], [4, nan, 6], [7, 8, 10]])
    same(out, [[7, 8, 10], [0.5714285969734192, nan, 0.28571414947509766],
               [0.1428571492433548, nan, nan]])
    same(p, [2, 1, 0])
    out, p = lu([[1, 2, 3], [4, 5, 6], [7, 8, nan]])
    same(out, [[7, 8, nan], [0.1428571492433548, 0.8571428060531616, nan],
               [0.5714285969734192, 0.4999997913837433, nan]])
    same(p, [2, 0, 1])
    out, p = lu([[1, 2, 3], [4, 5, 6], [7, 8, inf]])
    same(out, [[7, 8, inf], [0.1428571492433548, 0.8571428060531616, -inf],
               [0.5714285969734192, 0.4999997913837433, nan]])
    # A NaN below the first row is passed over when choosing a pivot.
    out, p = lu([[1, 2, 0], [nan, 4, 1], [7, 1, 1]])
    same(out, [[7, 1, 1], [nan, nan, nan], [0.1428571492433548, nan, nan]])
    same(p, [2, 1, 0])


def test_lu_batches_and_complex_with_nan_and_inf():
    out, p = lu([[[1, 2], [3, nan]], [[1, 2], [3, 4]]], np.float64)
    same(out, [[[3, nan], [0.3333333333333333, nan]],
               [[3, 4], [0.3333333333333333, 0.6666666666666667]]])
    same(p, [[1, 0], [1, 0]])
    out, p = lu([[[1, 2], [3, nan]], [[1, 2], [3, 4]]], np.complex64)
    same(out, [[[3, complex(nan, 0)], [0.3333333432674408, complex(nan, nan)]],
               [[3, 4], [0.3333333432674408, 0.6666666269302368]]])
    # Eigen divides complex numbers scaled by the divisor's larger part:
    # 0 / (inf + 0i) is NaN (C's division would give 0).
    out, p = lu([[inf, 0], [0, 1]], np.complex64)
    same(out, [[inf, 0], [complex(nan, nan), complex(nan, nan)]])
    same(p, [0, 1])
    out, _ = lu([[1e30 + 1e30j, 0], [1, 1]], np.complex64)
    same(out[1, 0], complex(5.000000015855384e-31, -5.000000015855384e-31))


def test_lu_still_rejects_zero_nan_first_and_subnormal_pivots():
    for m in ([[nan, 2, 3], [4, 5, 6], [7, 8, 10]], [[0, 2], [nan, 4]], [[1, 2], [2, 4]],
              [[1e-40, 0], [0, 1]]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
            tf.linalg.lu(np.array(m, np.float32))
    # A subnormal that is never computed with stays as it is.
    same(lu([[1, 1e-40], [0, 1]])[0], [[1, 9.99994610111476e-41], [0, 1]])


def pivot_of_second_column(tail, dtype):
    """The row Eigen pivots on for the column tail (the second column below
    the diagonal; the first pivot is 100 and changes nothing)."""
    n = len(tail) + 1
    a = np.eye(n) * 0.5
    a[:, 0], a[0, 0], a[0, 1], a[1:, 1] = 0, 100, 0, tail
    return int(tf.linalg.lu(a.astype(dtype))[1].numpy()[1]) - 1


def test_lu_pivots_on_nan_as_tensorflows_vectorized_max_does():
    # Eigen compares AVX packets (4 float64, 8 float32): a NaN in a packet's
    # first lane is taken when the packet's largest number beats the best so
    # far, a NaN elsewhere is passed over (TensorFlow 2.21's choices).
    cases = [([1, 1, 1, 1, nan, 2, 3, 9], 4, 7), ([1, 1, 1, 1, nan, 1, 1, 1], 0, 0),
             ([1, 1, 1, 1, 2, nan, 3, 9], 7, 7), ([1, 1, 1, 1, nan, 9, 1, 1, 20, 1, 1, 1], 4, 8),
             ([1, 1, 1, 1, 5, 1, 1, 1, nan, 1, 1, 9], 8, 11), ([nan, 1, 1, 9], 0, 0),
             ([1, 1, nan, 9, 1], 3, 3), ([1, nan, 1, 9], 3, 3),
             ([0.5, nan, nan, 2, 1.5, 1.5, 1.5, 1.5], 4, 3)]
    for tail, want64, want32 in cases:
        assert pivot_of_second_column(tail, np.float64) == want64, tail
        assert pivot_of_second_column(tail, np.float32) == want32, tail


def test_lu_ordinary_values_are_tensorflows_bits():
    i, j = np.arange(6)[:, None], np.arange(6)[None, :]
    out, p = lu(np.sin(i * 1.7 + j * 0.3) + np.where(i == j, 0.5, 0.0), np.float64)
    same(p, [1, 5, 4, 2, 3, 0])
    same(out.ravel(), [
        0.9916648104524686, 1.4092974268256817, 0.7457052121767203, 0.5155013718214645,
        0.23924932921398243, -0.058374143427580086, 0.8051985955407284, -0.5498471158874397,
        -0.2813424271827439, -0.39030555513660425, -0.4644038502781025, 0.002981667414410749,
        0.49826649683491164, -0.04867416321679333, 0.5134540648482959, 0.7123133749307877,
        1.3475438526788848, 0.9314028438740795, -0.2576889885910493, 0.3031310114208824,
        0.040200560333618796, -0.6936485887410843, -0.8454358950764876, -1.0358417386831695,
        -0.9335963851589222, -0.9874572041101474, -0.25768898859104905, -0.7208260899189016,
        -0.48056775622954584, -0.24666175026978643, 0.5042026244451128, 0.7548484707390543,
        0.781037441751538, -0.3772629320265238, 0.4358809819790303, 0.013946655885633027])


# --- logm -----------------------------------------------------------------------------

NAN2 = [[complex(nan, nan)] * 2] * 2


def test_logm_of_nan_inf_or_singular_matrices_is_nan_everywhere():
    # It raised ("array must not contain infs or NaNs"), or for an infinite
    # triangular matrix never returned; TensorFlow's Schur method gives NaN
    # in every entry, and for a singular matrix too (log 0).
    for dtype in (np.complex64, np.complex128):
        for m in ([[1, 2], [3, nan]], [[nan, 0], [0, 1]], [[1, inf], [0, 1]], [[inf, 0], [0, 1]],
                  [[-inf, 0], [0, 1]], [[0, 0], [0, 0]], [[1, 0], [0, 0]]):
            same(tf.linalg.logm(np.array(m, dtype)).numpy(), NAN2)
        same(tf.linalg.logm(np.array([[1, 2, 3], [0, inf, 1], [0, 0, 1]], dtype)).numpy(),
             [[complex(nan, nan)] * 3] * 3)
    # 1e-300 is 0 in complex64: singular.
    same(tf.linalg.logm(np.array([[1e-300, 0], [0, 1]], np.complex64)).numpy(), NAN2)
    out = tf.linalg.logm(np.array([[1e-300, 0], [0, 1]], np.complex128)).numpy()
    np.testing.assert_allclose(out, [[-690.7755278982137, 0], [0, 0]], atol=1e-12)
    # The batch's other matrices are unaffected.
    out = tf.linalg.logm(np.array([[[1, 2], [3, nan]], [[2, 0], [0, 3]]], np.complex128)).numpy()
    same(out[0], NAN2)
    np.testing.assert_allclose(out[1], [[0.6931471805599453, 0], [0, 1.0986122886681098]],
                               atol=1e-15)


def test_logm_of_one_by_one_specials_as_tensorflow():
    # log(z) times the unit Schur vector, once (complex64: (log|z|, NaN)) or
    # twice (complex128: all NaN) when the log is not finite.
    zs = [inf, -inf, complex(inf, inf), complex(1, inf), 0, nan, complex(1, nan),
          complex(inf, nan), complex(nan, inf), 1e-45, 1e308]
    c64 = [complex(inf, nan)] * 4 + [complex(-inf, nan), complex(nan, nan), complex(nan, nan),
                                     complex(inf, nan), complex(inf, nan), complex(-inf, nan),
                                     complex(inf, nan)]
    for z, want in zip(zs, c64):
        with np.errstate(over="ignore"):        # 1e308 is inf in complex64
            z = np.array([[z]], np.complex64)
        same(tf.linalg.logm(z).numpy(), [[want]])
    for z in zs[:-2] + [complex(0, 1e-320)]:
        same(tf.linalg.logm(np.array([[z]], np.complex128)).numpy(), [[complex(nan, nan)]])
    same(tf.linalg.logm(np.array([[1e38]], np.complex64)).numpy(), [[87.49823]])
    same(tf.linalg.logm(np.array([[1e308]], np.complex128)).numpy(), [[709.196208642166]])


# --- det, slogdet ---------------------------------------------------------------------

def dets(m, dtype=np.float32):
    a = np.array(m, dtype)
    s, l = tf.linalg.slogdet(a)
    return tf.linalg.det(a).numpy(), s.numpy(), l.numpy()


def test_det_and_slogdet_of_matrices_holding_inf_or_nan_as_tensorflow():
    # TensorFlow: sign * exp(sum of log |pivot|) of Eigen's LU, the pivots'
    # signs (NaN for NaN, 0 for 0) times the permutation's, and no special
    # case: an inf pivot gives +-inf, inf - inf or 0 * inf NaN. It was
    # LAPACK's det (NaN for an inf pivot, a wrong sign for -inf) and
    # slogdet (sign 1 for NaN).
    cases = [([[inf, 0], [0, 1]], (inf, 1, inf)), ([[-inf, 0], [0, 1]], (-inf, -1, inf)),
             ([[inf, 0], [0, -1]], (-inf, -1, inf)), ([[1, inf], [0, 1]], (nan, nan, nan)),
             ([[1, 0], [inf, 1]], (nan, -0.0, nan)), ([[1, 2], [inf, 1]], (-inf, -1, inf)),
             ([[2, 1], [1, inf]], (inf, 1, inf)), ([[nan, 0], [0, 1]], (nan, nan, nan)),
             ([[1, nan], [0, 1]], (nan, nan, nan)), ([[inf, inf], [inf, inf]], (nan, nan, nan)),
             ([[inf]], (inf, 1, inf)), ([[-inf]], (-inf, -1, inf)), ([[nan]], (nan, nan, nan)),
             ([[1, 2, 3], [4, inf, 6], [7, 8, 9]], (-inf, -1, inf)),
             ([[1, 2, 3], [4, 5, 6], [7, 8, inf]], (nan, nan, nan)),
             ([[inf, 2, 3], [4, 5, 6], [7, 8, 9]], (-inf, -1, inf))]
    for dtype in (np.float32, np.float64):
        for m, want in cases:
            same(dets(m, dtype), want)
        # Finite matrices (LAPACK): singular ones give 0 (TensorFlow -0.0 for
        # the first) and log|det| -inf.
        for m, want in (([[1, 2], [2, 4]], (0, 0, -inf)), ([[0]], (0, 0, -inf)),
                        ([[0, 1], [1, 0]], (-1, -1, 0))):
            d, sign, logabs = dets(m, dtype)
            assert d == want[0] and sign == want[1] and logabs == want[2]


def test_det_overflows_and_underflows_as_exp_of_the_log():
    same(dets([[1e30, 0], [0, 1e30]]), (inf, 1, 138.1551055908203))
    same(dets([[1e-30, 0], [0, 1e-30]]), (0, 1, -138.1551055908203))
    same(dets([[1e30, 0], [0, 1e30]], np.float64),
         (9.999999999999953e+59, 1, 138.15510557964274))
    # A pivot cancelling to 0 in float32: 1e-20 - 1e-20 * 1.
    same(dets([[1e20, 1], [1, 1e-20]]), (0, 0, -inf))
    # Subnormal pivots read as 0 in arithmetic (sign 0), but the C
    # library's logf of one (under denormals-are-zero) is -103.97208.
    same(dets([[1e-40]]), (0, 0, -103.97207641601562))
    same(dets([[1e-40, 0], [0, 1]]), (0, 0, -103.97207641601562))
    same(dets([[-1e-310]], np.float64), (0, 0, -inf))


def test_det_batches_keep_the_finite_matrices():
    same(dets([[[1, 2], [3, 4]], [[inf, 0], [0, 1]], [[2, 0], [0, 3]]]),
         ([-2, inf, 6], [-1, 1, 1], [0.6931471824645996, inf, 1.7917594909667969]))
    same(dets([[[nan, 0], [0, 1]], [[2, 0], [0, 3]]], np.float64),
         ([nan, 6], [nan, 1], [nan, 1.791759469228055]))


def test_det_complex_as_tensorflow():
    for dtype in (np.complex64, np.complex128):
        for m in ([[inf, 0], [0, 1]], [[1, complex(0, inf)], [0, 1]], [[nan, 0], [0, 1]]):
            same(dets(m, dtype), (complex(nan, nan), complex(nan, nan), complex(nan, 0)))
        same(dets([[0, 0], [0, 0]], dtype), (0, 0, -inf))
    near(dets([[1j, 2], [3, 4]], np.complex64),
         (-6.000000476837158 + 4.000000476837158j, -0.8320503234863281 + 0.5547002553939819j,
          1.9756219387054443))
    near(dets([[1j, 2], [3, 4]], np.complex128),
         (-6.000000000000001 + 3.9999999999999996j, -0.8320502943378437 + 0.554700196225229j,
          1.9756218592907138))


def test_det_ordinary_values_are_tensorflows():
    # TensorFlow's values; tame, so LAPACK's up to rounding (the determinant
    # of this matrix cancels: float32 keeps about four digits of it).
    i, j = np.arange(6)[:, None], np.arange(6)[None, :]
    a = np.sin(i * 1.7 + j * 0.3) + np.where(i == j, 0.5, 0.0)
    near(dets(a, np.float64), (-0.0013015854077556685, -1, -6.644172213127462), 1e-9)
    near(dets(a, np.float32), (-0.001301595359109342, -1, -6.644164562225342), 1e-3)
    c = (a + 1j * np.cos(i + 2.0 * j)).astype(np.complex64)
    near(dets(c, np.complex64), (-2.7526676654815674 + 0.42602068185806274j,
                                 -0.9882345199584961 + 0.15294557809829712j, 1.0244057178497314))


def test_det_has_no_half_precision_kernel():
    for f in (tf.linalg.det, tf.linalg.slogdet):
        with pytest.raises(tf.errors.NotFoundError, match="Determinant"):
            f(tf.constant([[3.0, 1], [1, 7]], tf.float16))


# --- cholesky, lstsq ------------------------------------------------------------------

def test_cholesky_fails_where_eigens_llt_fails():
    # A subnormal pivot reads as 0 and fails; NaN passes through. (On tame
    # matrices LAPACK decides: a singular one such as [[14, 28], [28, 56]]
    # may end on a tiny positive pivot in Eigen's float32 order, where
    # TensorFlow returns a factor and rillflow NaN.)
    chol = lambda m, dt=np.float32: tf.linalg.cholesky(np.array(m, dt)).numpy()  # noqa: E731
    same(chol([[14, 28], [28, 56]], np.float64), [[nan, 0], [nan, nan]])
    same(chol([[1e-40, 0], [0, 1]]), [[nan, 0], [nan, nan]])
    same(chol([[1e-40, 0], [0, 1]], np.float64), [[1e-20, 0], [0, 1]])
    same(chol([[inf, 1e20], [1e20, 3]]), [[inf, 0], [0, 1.7320507764816284]])
    same(chol([[1, nan], [nan, 4]]), [[1, 0], [nan, nan]])
    same(chol([[4, nan], [1, 4]]), [[2, 0], [0.5, 1.9364917278289795]])
    same(chol([[4, 2, 1], [2, -1, 0], [1, 0, 3]]), [[nan, 0, 0], [nan, nan, 0], [nan, nan, nan]])
    with pytest.raises(tf.errors.NotFoundError, match="Cholesky"):
        tf.linalg.cholesky(tf.constant([[4.0, 1], [1, 3]], tf.float16))


def ls(a, b, dtype=np.float32, **kw):
    return tf.linalg.lstsq(np.array(a, dtype), np.array(b, dtype), **kw).numpy().ravel()


def test_lstsq_fast_gives_nan_where_the_normal_equations_overflow():
    # A^T A = [[inf, inf], [inf, 3]] in float32: the Cholesky factor holds
    # inf and NaN, the solution is NaN (it was 0).
    b = [[1], [2], [3]]
    same(ls([[1e20, 1e20], [1, 1], [0, 1]], b), [nan, nan])
    same(ls([[1e20, 1e20], [1, 1], [0, 1]], b, l2_regularizer=1.0), [nan, nan])
    same(ls([[1e20, 0], [0, 1], [0, 0]], [[1e20], [1], [0]]), [nan, nan])
    # An inf on the diagonal alone: 1 / inf is 0.
    same(ls([[1e20, 1], [1, 1], [0, 1]], b), [0, 1.9999998807907104])
    same(ls([[1e20, 1], [1, 1], [0, 1]], b, l2_regularizer=1.0), [0, 1.5])
    same(ls([[1e20, 0], [0, 1], [0, 0]], [[1], [1], [0]], l2_regularizer=1.0),
         [0, 0.4999999701976776])


def test_lstsq_fast_is_tensorflows_composition_of_ops():
    # The inputs keep A^T A and A^T b exact (or overflowing), so the bits do
    # not depend on the BLAS behind matmul; Cholesky and the triangular
    # solves are TensorFlow's.
    b = [[1], [2], [3]]
    # The normal equations square the condition number: float32 rounding
    # moves the answer by ~1e-6.
    near(ls([[1, 2], [3, 4], [5, 6]], b), [4.030009392863576e-08, 0.4999999701976776], 1e-5)
    near(ls([[1, 2], [3, 4], [5, 6]], b, l2_regularizer=0.5),
         [0.1577063351869583, 0.3727596700191498])
    near(ls([[1, 2], [3, 4], [5, 6]], b, np.float64),
         [1.5012955407352218e-16, 0.4999999999999999], 1e-12)
    # Rank deficient: the factorization fails (NaN); TensorFlow's float32
    # one ends on a tiny pivot in Eigen's order ([0, 0.5]).
    same(ls([[1, 2], [2, 4], [3, 6]], b, np.float64), [nan, nan])
    same(ls([[1e-20, 0], [0, 1], [0, 0]], b), [nan, nan])          # 1e-40 is 0
    same(ls([[1e-20, 0], [0, 1], [0, 0]], b, np.float64), [1e20, 2])
    # ([[1e20, 1], [1, 2]] in float64: A^T A's condition number is 1e40, and
    # TensorFlow's [1, 0] and LAPACK's Cholesky both lose the 0.5.)
    same(ls([[1e20, 1]], [[1]], np.float64), [1e-20, 1e-40])      # underdetermined


def test_lstsq_large_batches_use_the_kernel_which_rejects_a_failed_factor():
    # Above TensorFlow's cache guess (256,000 bytes, more matrices than
    # columns) its MatrixSolveLs kernel runs: a failed factorization is an
    # error there, not NaN.
    a = np.tile(np.array([[1, 2], [2, 4], [3, 6]], np.float32), (30000, 1, 1))
    b = np.tile(np.array([[1], [2], [4]], np.float32), (30000, 1, 1))
    same(tf.linalg.lstsq(a, b).numpy()[0].ravel(), [-0.7857142686843872, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank deficient"):
        tf.linalg.lstsq(np.tile(np.array([[1.0, 0], [0, 0], [0, 0]]), (30000, 1, 1)),
                        np.ones((30000, 3, 1)))
