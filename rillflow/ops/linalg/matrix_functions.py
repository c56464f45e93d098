"""Matrix functions: `expm` (scaling and squaring with Pade approximants,
composed of ops so that it has gradients, as in TensorFlow), `sqrtm`
(MatrixSquareRoot, with its gradient through a Sylvester equation) and `logm`
(MatrixLogarithm, complex only and without a gradient, as in TensorFlow).

The square root and the logarithm come from SciPy (the `signal` extra): NumPy
has no Schur decomposition, and an eigendecomposition is wrong for defective
matrices, so without SciPy these raise an error that says so.
"""
import warnings

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.op_registry import register

from ..core.broadcast_ops import where
from ..core.creation_ops import eye
from ..core.constant_ops import fill
from ..core.math_ops import cast, less, logical_and, maximum, pow as _pow
from ..core.reduction_ops import reduce_max, reduce_sum
from ..core.shape_ops import reshape, shape
from ..core.unary_ops import abs as _abs, floor, is_finite, log
from ..core.join_ops import concat
from ..control_flow.while_loop import while_loop
from .einsum_ops import einsum
from . import eigen_solvers as E
from .linalg_util import _LINALG_T, _compute_dtype, _linalg_unary, _scope, _square_check
from .linalg_util import _square_infer
from .matmul_ops import matmul
from .solve_ops import solve
from .structure_ops import matrix_transpose

_COMPLEX_T = (D.complex64, D.complex128)


def _scipy_linalg(what):
    """scipy.linalg, or an ImportError naming the function and the extra."""
    try:
        import scipy.linalg as sl
    except ImportError:
        raise ImportError(f"tf.linalg.{what} needs SciPy (install rillflow's `signal` "
                          "extra): NumPy alone has no Schur decomposition.") from None
    return sl


# --- expm -------------------------------------------------------------------------
# Higham's Pade coefficients b_0..b_m for the [m/m] approximants of exp.
_PADE = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880.,
        3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
         129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
         40840800., 960960., 16380., 182., 1.),
}


def _pade(m, a, ident):
    """(U, V) of the [m/m] Pade approximant: exp(A) ~ (V - U)^-1 (V + U)."""
    b = [convert_to_tensor(c, dtype=a.dtype) for c in _PADE[m]]
    a2 = matmul(a, a)
    if m == 13:
        a4 = matmul(a2, a2)
        a6 = matmul(a4, a2)
        tmp_u = matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 \
            + b[3] * a2 + b[1] * ident
        u = matmul(a, tmp_u)
        v = matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 \
            + b[2] * a2 + b[0] * ident
        return u, v
    powers = [ident, a2]
    for _ in range(2, (m + 1) // 2):
        powers.append(matmul(powers[-1], a2))
    tmp_u = sum(b[2 * k + 1] * p for k, p in enumerate(powers))
    v = sum(b[2 * k] * p for k, p in enumerate(powers))
    return matmul(a, tmp_u), v


def _nest_where(norm, bounds, values):
    """values[i] for the first bound that norm is under, else values[-1]."""
    out = values[-1]
    for bound, value in reversed(list(zip(bounds, values[:-1]))):
        out = where(less(norm, convert_to_tensor(bound, dtype=norm.dtype)), value, out)
    return out


@export("linalg.expm", "compat.v1.linalg.expm")
def expm(input, name=None):  # noqa: A002
    """The matrix exponential of each innermost square matrix.

    Scaling and squaring with a Pade approximant chosen by the matrix's 1-norm
    (Higham 2005), built from differentiable ops.
    """
    with _scope(name or "matrix_exponential"):
        a = convert_to_tensor(input, name="input")
        s = a.shape
        if s.rank is not None and s.rank >= 2 and s[-1] is not None and s[-2] is not None \
                and s[-1] != s[-2]:
            raise ValueError(f"tf.linalg.expm requires a square matrix, got shape {s}")
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"tf.linalg.expm requires a matrix of rank >= 2, got shape {s}")
        if a.dtype == D.float16:
            # TensorFlow's MatrixSolve has no half-precision CPU kernel.
            raise errors.NotFoundError(
                None, None, "Could not find device for node: {{node MatrixSolve}} = "
                "MatrixSolve[T=DT_HALF, adjoint=false]")
        if s.is_fully_defined() and s.num_elements() == 0:
            return a
        n = shape(a)[-1]
        ident = eye(n, batch_shape=shape(a)[:-2], dtype=a.dtype)
        norm = reduce_max(reduce_sum(_abs(a), axis=-2), axis=-1)[..., None, None]
        single = a.dtype in (D.float16, D.float32, D.complex64)
        maxnorm = 3.925724783138660 if single else 5.371920351148152
        rdt = norm.dtype
        two = convert_to_tensor(2.0, dtype=rdt)
        squarings = maximum(
            floor(log(norm / convert_to_tensor(maxnorm, dtype=rdt)) / log(two)),
            convert_to_tensor(0.0, dtype=rdt))
        scaled = a / cast(_pow(two, squarings), a.dtype)
        if single:
            orders, bounds, top = (3, 5), (4.258730016922831e-001, 1.880152677804762e+000), 7
        else:
            orders = (3, 5, 7, 9)
            bounds = (1.495585217958292e-002, 2.539398330063230e-001,
                      9.504178996162932e-001, 2.097847961257068e+000)
            top = 13
        pairs = [_pade(m, a, ident) for m in orders] + [_pade(top, scaled, ident)]
        u = _nest_where(norm, bounds, [p[0] for p in pairs])
        v = _nest_where(norm, bounds, [p[1] for p in pairs])
        # As TensorFlow: a batch one of whose norms is inf or NaN gives NaN
        # everywhere, and its squarings never run (an inf count of them would
        # loop forever).
        finite = is_finite(reduce_max(norm))
        result = solve(where(finite, -u + v, ident), where(finite, u + v, ident))
        result = where(finite, result, fill(shape(a), convert_to_tensor(np.nan, a.dtype)))
        max_squarings = reduce_max(squarings)

        def body(i, r):
            return [i + 1.0, where(less(i, squarings), matmul(r, r), r)]

        _, result = while_loop(lambda i, r: logical_and(finite, less(i, max_squarings)), body,
                               [convert_to_tensor(0.0, dtype=rdt), result])
        if s.is_fully_defined():
            result = reshape(result, s)
        return result


# --- sqrtm ------------------------------------------------------------------------

def _sqrtm_kernel(x):
    _square_check(x)
    if x.size == 0:
        return np.array(x, copy=True)
    sl = _scipy_linalg("sqrtm")
    a = _compute_dtype(x)
    flat = a.reshape((-1,) + a.shape[-2:])
    out = np.empty(flat.shape, dtype=x.dtype)
    for i, m in enumerate(flat):
        with np.errstate(all="ignore"):
            r = sl.sqrtm(m.astype(np.complex128 if m.dtype.kind == "c" else np.float64))
        r = np.asarray(r)
        if x.dtype.kind != "c" and np.iscomplexobj(r):
            # A real matrix with no real square root: TensorFlow's real Schur
            # method takes the square root of a negative number and gives NaN.
            if np.any(np.abs(r.imag) > 1e-7 * max(1.0, float(np.max(np.abs(r))))):
                r = np.full(m.shape, np.nan)
            r = r.real
        out[i] = r
    return out.reshape(x.shape)


def _kron_batch(a, b):
    """Kronecker products of the innermost matrices of two (batches of) n x n
    matrices, by einsum and a reshape (so it has gradients)."""
    n = shape(a)[-1]
    k = einsum("...ij,...kl->...ikjl", a, b)
    return reshape(k, concat([shape(k)[:-4], [n * n, n * n]], 0))


def _sqrtm_grad(op, g):
    # dA = S dS + dS S; backprop solves S^T G + G S^T = grad (TensorFlow's
    # gradient transposes without conjugating, also for complex matrices),
    # written as one n^2 x n^2 system in row-major vec form.
    s = op.outputs[0]
    n = shape(s)[-1]
    ident = eye(n, batch_shape=shape(s)[:-2], dtype=s.dtype)
    k = _kron_batch(matrix_transpose(s), ident) + _kron_batch(ident, s)
    flat = reshape(g, concat([shape(g)[:-2], [n * n, 1]], 0))
    return [reshape(solve(k, flat), shape(g))]


_MatrixSquareRoot = register("MatrixSquareRoot", _sqrtm_kernel,
                             _square_infer("MatrixSquareRoot"), _sqrtm_grad, allowed=_LINALG_T)


@export("linalg.sqrtm", "matrix_square_root", "compat.v1.matrix_square_root",
        "compat.v1.linalg.sqrtm")
def sqrtm(input, name=None):  # noqa: A002
    """The principal square root of each innermost square matrix.

    A real matrix without a real square root (a negative real eigenvalue) gives
    NaN, as TensorFlow's real Schur method does. Needs SciPy.
    """
    return _linalg_unary(_MatrixSquareRoot, input, {}, name or "MatrixSquareRoot")


# --- logm -------------------------------------------------------------------------

def _logm_1x1(z, dtype):
    """TensorFlow's logm of 1 x 1 matrices z (k,): log(z) multiplied by its
    unit Schur vector as a complex product, once (complex64) or twice
    (complex128), so a non-finite log (of 0, inf or NaN) comes back as
    (log|z|, NaN) for complex64 and all NaN for complex128; subnormal
    parts read as 0 (denormals-are-zero)."""
    re, im = (E.ftz(np.array(part)) for part in (z.real, z.imag))
    z = np.empty(re.shape, dtype)
    z.real, z.imag = re, im
    with np.errstate(all="ignore"):
        w = np.log(z)
        lost = ~np.isfinite(w)
        # C's log |z|: hypot is inf for an infinite part, even with a NaN.
        w.real[lost] = np.log(np.hypot(re, im))[lost] if dtype == np.complex64 else np.nan
        w.imag[lost] = np.nan
    return w


def _logm_kernel(x):
    _square_check(x)
    if x.size == 0:
        return np.array(x, copy=True)
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    if n == 1:
        return _logm_1x1(flat[:, 0, 0], x.dtype).reshape(x.shape)
    # Eigen's Schur method (TensorFlow's kernel) multiplies the logarithm of
    # the triangular factor by the unitary ones: an inf or NaN anywhere in
    # the matrix, or a log of 0 (a singular matrix), reaches every entry as
    # NaN. SciPy is not asked then (it raises, or loops forever on an
    # infinite triangular matrix).
    out = np.full(flat.shape, complex(np.nan, np.nan), dtype=x.dtype)
    finite = np.isfinite(flat).all(axis=(-2, -1))
    if finite.any():
        sl = _scipy_linalg("logm")
        for i in np.nonzero(finite)[0]:
            m = flat[i]
            m = (E.ftz(np.array(m.real)) + 1j * E.ftz(np.array(m.imag))).astype(np.complex128)
            with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = sl.logm(m)
            r = r[0] if isinstance(r, tuple) else r
            # SciPy stands in a tiny number for an exactly zero eigenvalue;
            # Eigen takes its log, -inf.
            singular = any(type(w.message).__name__ == "LogmExactlySingularWarning"
                           for w in caught)
            if np.isfinite(r).all() and not singular:
                out[i] = r
    return out.reshape(x.shape)


_MatrixLogarithm = register("MatrixLogarithm", _logm_kernel,
                            _square_infer("MatrixLogarithm"), allowed=_COMPLEX_T)


@export("linalg.logm", "compat.v1.linalg.logm")
def logm(input, name=None):  # noqa: A002
    """The principal logarithm of each innermost square complex matrix.

    Only complex64 and complex128, and without a gradient, as in TensorFlow.
    As TensorFlow's Schur method, a matrix holding inf or NaN, or a singular
    one, gives NaN in every entry (a 1 x 1 one: see `_logm_1x1`); the
    others of a batch are unaffected. Needs SciPy.
    """
    return _linalg_unary(_MatrixLogarithm, input, {}, name or "MatrixLogarithm")


__all__ = ["expm", "sqrtm", "logm"]

