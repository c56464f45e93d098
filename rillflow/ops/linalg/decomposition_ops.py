"""Matrix decompositions: `cholesky` (Cholesky) and `logdet`, which is computed
from it, `qr` (Qr) and `svd` (Svd), with their gradients; `matrix_rank` and
`pinv`, which TensorFlow computes from the SVD."""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from .linalg_util import (
    _state, _LINALG_T, _scope, _invalid, _adjoint_last2, _square_check, _compute_dtype,
    _square_infer, _linalg_unary, tame)
from . import eigen_decompositions as ED
from . import eigen_solvers as E
from .matmul_ops import matmul
from .structure_ops import diag, diag_part, band_part, matrix_transpose, adjoint
from .solve_ops import triangular_solve
from ..core.constant_ops import ones_like
from ..core.dim_ops import expand_dims
from ..core.broadcast_ops import where
from ..core.math_ops import cast, conj, div_no_nan, greater, maximum, truediv
from ..core.reduction_ops import reduce_max, reduce_sum
from ..core.shape_ops import shape as _shape
from ..core.special_math_ops import real
from ..core.unary_ops import log


# =============================================================================
# Cholesky
# =============================================================================

def _cholesky_kernel(x):
    _square_check(x)
    if x.dtype not in E.KERNEL_T:
        raise E.no_kernel("Cholesky", x.dtype)      # TensorFlow has no half kernel
    if x.size == 0:
        return np.array(x, copy=True)
    n = x.shape[-1]
    flat = x.reshape((-1, n, n))
    if tame(np.tril(flat)):
        # Tame matrices (linalg_util.tame) by LAPACK (the same factor up to rounding; Eigen's
        # order below loops in Python: 31 x 31 took 0.95 ms where LAPACK
        # takes 12 us). A matrix LAPACK finds not positive definite gets
        # NaNs, as TensorFlow's (a pivot rounding to just above or below 0
        # may decide otherwise there).
        try:
            out = np.linalg.cholesky(flat)
        except np.linalg.LinAlgError:
            out = np.empty_like(flat)
            for i, m in enumerate(flat):
                try:
                    out[i] = np.linalg.cholesky(m)
                except np.linalg.LinAlgError:
                    out[i] = np.where(np.tri(n, dtype=bool), np.nan, 0)
        return out.astype(x.dtype, copy=False).reshape(x.shape)
    # Eigen's LLT, as TensorFlow's kernel: it fails only where a pivot is
    # <= 0 in its own float32/float64 arithmetic (LAPACK's order rounds
    # otherwise, and fails on NaN too), with flush-to-zero.
    factor, failed = ED.llt(flat)
    out = E.join(factor, x.dtype)
    if failed.any():
        # TensorFlow fills the lower triangle with NaNs (and leaves the
        # upper one unwritten; here it is 0).
        out[failed] = np.where(np.tri(n, dtype=bool), np.nan, 0).astype(x.dtype)
    return out.reshape(x.shape)


def _cholesky_grad(op, g):
    """The gradient of A = L L^H w.r.t. the (symmetric) A: with
    P = Phi(L^H G) (lower triangle, halved diagonal), grad = sym(L^-H P L^-1)."""
    l = op.outputs[0]
    eye = band_part(ones_like(l), 0, 0)
    l_inv = triangular_solve(l, eye, lower=True)
    middle = matmul(l, g, adjoint_a=True)
    middle = band_part(middle, -1, 0) - cast(0.5, middle.dtype) * band_part(middle, 0, 0)
    grad = matmul(matmul(l_inv, middle, adjoint_a=True), l_inv)
    return [cast(0.5, grad.dtype) * (grad + adjoint(grad))]


_Cholesky = register("Cholesky", _cholesky_kernel, _square_infer("Cholesky"), _cholesky_grad,
                     allowed=_LINALG_T)


@export("linalg.cholesky", "compat.v1.cholesky")
def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular Cholesky factor L (A = L L^H) of each innermost
    Hermitian positive definite matrix; only A's lower triangle is read.
    Matrices that are not positive definite (a pivot <= 0 in Eigen's
    arithmetic) give NaN in the lower triangle, as in TensorFlow."""
    return _linalg_unary(_Cholesky, input, {}, name or "Cholesky")


@export("linalg.logdet")
def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, via Cholesky."""
    with _scope(name or "logdet"):
        chol = cholesky(matrix)
        two = convert_to_tensor(2, dtype=chol.dtype)
        d = diag_part(chol)
        if d.dtype.is_complex:
            d = real(d)
            two = convert_to_tensor(2, dtype=d.dtype)
        return two * reduce_sum(log(d), axis=[-1])


# =============================================================================
# QR
# =============================================================================

def _qr_kernel(x, full_matrices=False):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    a = _compute_dtype(x)
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return [q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)]


def _qr_infer(inputs, attrs):
    x = inputs[0]
    U.check_allowed(_Qr, x, "input")
    s = x.shape
    if s.rank is None:
        return [(TensorShape(None), x.dtype)] * 2
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    dims = s.as_list()
    m, n = dims[-2], dims[-1]
    k = None if m is None or n is None else min(m, n)
    if attrs.get("full_matrices"):
        return [(TensorShape(dims[:-2] + [m, m]), x.dtype),
                (TensorShape(dims[:-2] + [m, n]), x.dtype)]
    return [(TensorShape(dims[:-2] + [m, k]), x.dtype),
            (TensorShape(dims[:-2] + [k, n]), x.dtype)]


def _copy_lower_to_upper(m):
    """The Hermitian matrix with m's strictly lower part and the real part of
    its diagonal (R's diagonal is real, so its imaginary part has no effect)."""
    d = band_part(m, 0, 0)
    strict = band_part(m, -1, 0) - d
    if m.dtype.is_complex:
        d = (d + conj(d)) * convert_to_tensor(0.5, dtype=m.dtype)
    return strict + adjoint(strict) + d


def _qr_grad(op, gq, gr):
    """For A = QR with m >= n (reduced): with M = R gR^H - gQ^H Q,
    grad = (gQ + Q copyltu(M)) R^-H."""
    x = op.inputs[0]
    q, r = op.outputs
    s = x.shape
    if s.rank is None or s[-2] is None or s[-1] is None or s[-2] < s[-1] \
            or op.get_attr("full_matrices"):
        raise NotImplementedError("QrGrad is implemented only for full_matrices=False and "
                                  "matrices with at least as many rows as columns (known "
                                  "statically).")
    m = matmul(r, gr, adjoint_b=True) - matmul(gq, q, adjoint_a=True)
    b = gq + matmul(q, _copy_lower_to_upper(m))
    # b @ R^-H: solve R X^H = b^H for the upper-triangular R.
    return [adjoint(triangular_solve(r, adjoint(b), lower=False))]


_Qr = register("Qr", _qr_kernel, _qr_infer, _qr_grad, allowed=_LINALG_T)

Qr = collections.namedtuple("Qr", ["q", "r"])


@export("linalg.qr", "compat.v1.qr")
def qr(input, full_matrices=False, name=None):  # noqa: A002
    """The QR decomposition of each innermost matrix, as a namedtuple (q, r)."""
    x = convert_to_tensor(input)
    if _state.graph is None and x._v.dtype not in _Qr.allowed_np:
        raise U._eager_disallowed(_Qr, x)
    q, r = apply(_Qr, [x], {"full_matrices": bool(full_matrices)}, name=name or "Qr",
                 multi=True)
    return Qr(q, r)


# =============================================================================
# SVD
# =============================================================================

def _svd_kernel(x, compute_uv=True, full_matrices=False):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    a = _compute_dtype(x)
    real = np.dtype(x.dtype.char.lower()) if x.dtype.kind == "c" else x.dtype
    # A matrix holding inf or NaN: TensorFlow's (Eigen's) SVD gives NaN in
    # every output of it, where LAPACK's, asked for U and V, loops forever on
    # an inf (np.linalg.svd never returned) and fails on a NaN. Such matrices
    # are decomposed as zeros, their outputs then set to NaN.
    bad = ~np.isfinite(a).all(axis=(-2, -1)) if a.size else np.zeros(a.shape[:-2], bool)
    if bad.any():
        a = np.where(bad[..., None, None], np.zeros((), a.dtype), a)
    if not compute_uv:
        s = np.linalg.svd(a, compute_uv=False)
        empty = np.zeros((0,), dtype=x.dtype)
        return [_nan_where(s.astype(real, copy=False), bad), empty, empty]
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return [_nan_where(s.astype(real, copy=False), bad),
            _nan_where(u.astype(x.dtype, copy=False), bad),
            _nan_where(_adjoint_last2(vh).astype(x.dtype, copy=False), bad)]


def _nan_where(out, bad):
    """`out` with the values of the matrices marked in `bad` (its leading
    shape) set to NaN."""
    if not bad.any():
        return out
    out = np.array(out)
    out[bad] = np.nan
    return out


def _real_dtype(d):
    return {D.complex64: D.float32, D.complex128: D.float64}.get(d, d)


def _svd_infer(inputs, attrs):
    x = inputs[0]
    U.check_allowed(_Svd, x, "input")
    s = x.shape
    rd = _real_dtype(x.dtype)
    if s.rank is None:
        return [(TensorShape(None), rd), (TensorShape(None), x.dtype),
                (TensorShape(None), x.dtype)]
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    dims = s.as_list()
    m, n = dims[-2], dims[-1]
    k = None if m is None or n is None else min(m, n)
    batch = dims[:-2]
    if not attrs.get("compute_uv", True):
        return [(TensorShape(batch + [k]), rd), (TensorShape([0]), x.dtype),
                (TensorShape([0]), x.dtype)]
    if attrs.get("full_matrices"):
        return [(TensorShape(batch + [k]), rd), (TensorShape(batch + [m, m]), x.dtype),
                (TensorShape(batch + [n, n]), x.dtype)]
    return [(TensorShape(batch + [k]), rd), (TensorShape(batch + [m, k]), x.dtype),
            (TensorShape(batch + [n, k]), x.dtype)]


def _is_zero(t):
    """Whether gradient `t` is known to be zero (None, a constant or zeros_like)."""
    if t is None:
        return True
    v = U.constant_value(t)
    if v is not None:
        return not np.any(v)
    op = getattr(t, "op", None)
    return op is not None and getattr(op, "type", None) == "ZerosLike"


def _svd_grad(op, gs, gu, gv):
    """Gradient of the reduced SVD A = U diag(s) V^H.

    With F_ij = 1 / (s_j^2 - s_i^2) (0 on the diagonal), for real A:
    grad = U [diag(gs) + (F o (U^T gU - gU^T U)) S + S (F o (V^T gV - gV^T V))] V^T
           + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T).
    Complex A is supported for gradients through s only.
    """
    x = op.inputs[0]
    s, u, v = op.outputs
    if op.get_attr("full_matrices"):
        raise NotImplementedError("SVD gradient is implemented only for full_matrices=False.")
    vectors = not (_is_zero(gu) and _is_zero(gv))
    if vectors and x.dtype.is_complex:
        raise NotImplementedError("The gradient through the singular vectors of a complex "
                                  "matrix is not implemented (only through s).")
    sm = diag(cast(s, x.dtype))
    grad = matmul(u, matmul(diag(cast(gs, x.dtype)), v, adjoint_b=True))
    if not vectors:
        return [grad]
    s2 = expand_dims(s * s, -2) - expand_dims(s * s, -1)  # [i, j] = s_j^2 - s_i^2
    f = div_no_nan(ones_like(s2), s2)
    s_inv_m = diag(div_no_nan(ones_like(s), s))
    if not _is_zero(gu):
        utgu = matmul(u, gu, adjoint_a=True)
        j = f * (utgu - matrix_transpose(utgu))
        uut = matmul(u, u, adjoint_b=True)
        grad = grad + matmul(u, matmul(matmul(j, sm), v, adjoint_b=True))
        grad = grad + matmul(matmul(band_part(ones_like(uut), 0, 0) - uut, gu),
                             matmul(s_inv_m, v, adjoint_b=True))
    if not _is_zero(gv):
        vtgv = matmul(v, gv, adjoint_a=True)
        k = f * (vtgv - matrix_transpose(vtgv))
        vvt = matmul(v, v, adjoint_b=True)
        grad = grad + matmul(u, matmul(matmul(sm, k), v, adjoint_b=True))
        grad = grad + matmul(matmul(u, s_inv_m),
                             matmul(gv, band_part(ones_like(vvt), 0, 0) - vvt, adjoint_a=True))
    return [grad]


_Svd = register("Svd", _svd_kernel, _svd_infer, _svd_grad, allowed=_LINALG_T)


@export("linalg.svd", "compat.v1.svd")
def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (and vectors) of each innermost matrix.

    Returns s, or (s, u, v) with tensor = u @ diag(s) @ adjoint(v) when
    `compute_uv`. s is real and in decreasing order.
    """
    x = convert_to_tensor(tensor)
    if _state.graph is None and x._v.dtype not in _Svd.allowed_np:
        raise U._eager_disallowed(_Svd, x)
    # The singular vectors are always computed: the gradient of s needs them.
    s, u, v = apply(_Svd, [x], {"compute_uv": True, "full_matrices": bool(full_matrices)},
                    name=name or "Svd", multi=True)
    if compute_uv:
        return s, u, v
    return s


# =============================================================================
# Rank and pseudo-inverse from the SVD (TensorFlow's linalg_impl.py)
# =============================================================================

def _check_float_matrix(a):
    """TensorFlow's _maybe_validate_matrix, without validate_args."""
    if not a.dtype.is_floating:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a.shape.rank is not None and a.shape.rank < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a.shape.rank}).")


@export("linalg.matrix_rank", "compat.v1.linalg.matrix_rank")
def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values of each innermost matrix above `tol`
    (by default eps * max(rows, cols) * the largest singular value), int32."""
    del validate_args  # only the static checks, as TensorFlow without it
    with _scope(name or "matrix_rank"):
        a = convert_to_tensor(a, dtype_hint=D.float32, name="a")
        _check_float_matrix(a)
        s = svd(a, compute_uv=False)
        if tol is None:
            dims = a.shape[-2:]
            if dims.is_fully_defined():
                m = max(dims.as_list())
            else:
                m = reduce_max(_shape(a)[-2:])
            eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
            tol = (convert_to_tensor(eps, dtype=a.dtype) * cast(m, a.dtype)
                   * reduce_max(s, axis=-1, keepdims=True))
        return reduce_sum(cast(greater(s, tol), D.int32), axis=-1)


@export("linalg.pinv", "compat.v1.linalg.pinv")
def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse of each innermost matrix, from its
    SVD: singular values at most rcond * the largest count as zero (rcond
    defaults to 10 * max(rows, cols) * eps). Differentiable through the SVD."""
    del validate_args
    with _scope(name or "pinv"):
        a = convert_to_tensor(a, name="a")
        _check_float_matrix(a)
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            rows, cols = a.shape[-2], a.shape[-1]
            if rows is not None and cols is not None:
                max_rows_cols = float(max(rows, cols))
            else:
                dyn = _shape(a)
                max_rows_cols = cast(maximum(dyn[-2] if rows is None else rows,
                                             dyn[-1] if cols is None else cols), a.dtype)
            rcond = 10. * max_rows_cols * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=a.dtype, name="rcond")
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        # Small singular values become inf: 1 / s is then 0, and the
        # gradient stays finite.
        cutoff = rcond * reduce_max(s, axis=-1)
        s = where(greater(s, expand_dims(cutoff, -1)), s,
                  convert_to_tensor(np.array(np.inf, dtype)))
        a_pinv = matmul(truediv(v, expand_dims(s, -2)), u, adjoint_b=True)
        if a.shape.rank is not None:
            a_pinv.set_shape(TensorShape(a.shape.as_list()[:-2] + [a.shape[-1], a.shape[-2]]))
        return a_pinv


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_svd(ctx, op, x):
    if not op.attrs.get("compute_uv", True):
        empty = XL.jnp.zeros((0,), x.dtype)
        return [XL.jnp.linalg.svd(x, compute_uv=False), empty, empty]
    u, s, vh = XL.jnp.linalg.svd(x, full_matrices=op.attrs.get("full_matrices", False))
    return [s, u, XL.jnp.conj(XL.jnp.swapaxes(vh, -1, -2))]


XL.set_lowerings({
    "Cholesky": "jnp.linalg.cholesky",
    "Qr": lambda ctx, op, x: list(XL.jnp.linalg.qr(
        x, mode="complete" if op.attrs.get("full_matrices") else "reduced")),
    "Svd": _lower_svd})
