"""Inverses, determinants and linear solvers: `inv` (MatrixInverse), `det`
(MatrixDeterminant), `slogdet` (LogMatrixDeterminant), `solve` (MatrixSolve) and
`triangular_solve` (MatrixTriangularSolve), with their gradients."""
import collections

import numpy as np

from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply2
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from .linalg_util import (
    _state, _LINALG_T, _scope, _invalid, _same_dtype, _adjoint_last2, _square_check, _compute_dtype,
    _square_infer, _linalg_unary, tame, tame_parts)
from . import eigen_decompositions as ED
from . import eigen_solvers as E
from .matmul_ops import matmul
from .structure_ops import band_part
from ..core.dim_ops import expand_dims
from ..core.math_ops import _sum_to, conj


# =============================================================================
# inverse and determinants
# =============================================================================

def _batch_shape(s):
    return TensorShape(None) if s.rank is None else TensorShape(s.as_list()[:-2])


def _inv_kernel(x, adjoint=False):
    _square_check(x)
    a = _compute_dtype(x)
    if adjoint:
        a = _adjoint_last2(a)
    if a.size == 0:
        return np.array(x, copy=True)
    try:
        out = np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise _invalid("Input is not invertible.") from None
    if not np.all(np.isfinite(out)) and np.all(np.isfinite(a)):
        raise _invalid("Input is not invertible.")
    return out.astype(x.dtype, copy=False)


def _inv_grad(op, g):
    y = op.outputs[0]
    if op.get_attr("adjoint"):
        return [-matmul(y, matmul(g, y, adjoint_a=True))]
    return [-matmul(y, matmul(g, y, adjoint_b=True), adjoint_a=True)]


_MatrixInverse = register("MatrixInverse", _inv_kernel, _square_infer("MatrixInverse"),
                          _inv_grad, allowed=_LINALG_T)


@export("linalg.inv", "compat.v1.matrix_inverse", "compat.v1.linalg.inv")
def inv(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each innermost square matrix (of its adjoint if asked).

    Raises:
      InvalidArgumentError: (eager) a matrix is not square or not invertible.
    """
    return _linalg_unary(_MatrixInverse, input, {"adjoint": bool(adjoint)},
                         name or "MatrixInverse")


def _det_checked(op, x):
    """x as a batch (b, n, n) for TensorFlow's determinant kernels, which
    have no half precision; None if there is nothing to compute."""
    _square_check(x)
    if x.dtype not in E.KERNEL_T:
        raise E.no_kernel(op, x.dtype)
    if x.size == 0:
        return None
    return x.reshape((-1,) + x.shape[-2:])


def _untame(flat):
    """Which matrices of a (b, n, n) batch are not `tame`: they hold an inf
    or NaN, or magnitudes where products may over- or underflow."""
    return ~tame_parts(flat, (-2, -1))


def _by_tameness(flat, fast, exact):
    """fast(matrices) for the `tame` matrices of the batch (LAPACK: the
    same values up to rounding, at LAPACK's speed) and exact(matrices) for
    the others (TensorFlow's Eigen arithmetic, where the two differ in
    kind: NaN, inf or 0 against a finite value, or an error); each returns
    a list of per-matrix result arrays."""
    bad = _untame(flat)
    if not bad.any():
        return fast(flat)
    if bad.all():
        return exact(flat)
    parts_fast, parts_exact = fast(flat[~bad]), exact(flat[bad])
    outs = []
    for f, e in zip(parts_fast, parts_exact):
        out = np.empty((flat.shape[0],) + f.shape[1:], f.dtype)
        out[~bad], out[bad] = f, e
        outs.append(out)
    return outs


def _det_kernel(x):
    # Matrices holding an inf or NaN as TensorFlow: sign * exp(sum of log
    # |pivot|) of Eigen's LU (an inf pivot gives +-inf, a NaN or inf times 0
    # NaN: LAPACK's product gave a finite or wrong-signed value); finite ones
    # by LAPACK (Eigen's order costs a Python loop per column: 32 x 32 took
    # 2.4 ms where LAPACK takes 13 us and TensorFlow 14).
    flat = _det_checked("MatrixDeterminant", x)
    if flat is None:        # an empty matrix's determinant is 1
        return np.ones(x.shape[:-2], x.dtype)
    out, = _by_tameness(
        flat, lambda m: [np.asarray(np.linalg.det(_compute_dtype(m))).astype(x.dtype)],
        lambda m: [E.join(ED.det(m), x.dtype)])
    return out.reshape(x.shape[:-2])


def _det_grad(op, g):
    x = op.inputs[0]
    scale = expand_dims(expand_dims(g * conj(op.outputs[0]), -1), -1)
    return [scale * inv(x, adjoint=True)]


_MatrixDeterminant = register(
    "MatrixDeterminant", _det_kernel,
    _square_infer("MatrixDeterminant", lambda s, d: [(_batch_shape(s), d)]), _det_grad,
    allowed=_LINALG_T)


@export("linalg.det", "compat.v1.matrix_determinant", "compat.v1.linalg.det")
def det(input, name=None):  # noqa: A002
    """The determinant of each innermost square matrix.

    As TensorFlow: sign * exp(log|det|) from the LU's pivots, so it
    overflows to inf (and underflows to 0) as exp does, an inf pivot gives
    +-inf and a NaN, or inf - inf, NaN.
    """
    return _linalg_unary(_MatrixDeterminant, input, {}, name or "MatrixDeterminant")


def _slogdet_kernel(x):
    flat = _det_checked("LogMatrixDeterminant", x)
    if flat is None:
        return [np.ones(x.shape[:-2], x.dtype), np.zeros(x.shape[:-2], x.dtype)]

    def fast(m):
        sign, logabs = np.linalg.slogdet(_compute_dtype(m))
        return [np.asarray(sign).astype(x.dtype), np.asarray(logabs).astype(x.dtype)]

    def exact(m):
        sign, logabs = ED.slogdet(m)
        return [E.join(sign, x.dtype), logabs.astype(x.dtype)]
    sign, logabs = _by_tameness(flat, fast, exact)      # as _det_kernel
    return [sign.reshape(x.shape[:-2]), logabs.reshape(x.shape[:-2])]


def _slogdet_grad(op, g_sign, g_logabs):
    x = op.inputs[0]
    scale = expand_dims(expand_dims(g_logabs, -1), -1)
    return [scale * inv(x, adjoint=True)]


_LogMatrixDeterminant = register(
    "LogMatrixDeterminant", _slogdet_kernel,
    _square_infer("LogMatrixDeterminant",
                  lambda s, d: [(_batch_shape(s), d), (_batch_shape(s), d)]),
    _slogdet_grad, allowed=_LINALG_T)

LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])


@export("linalg.slogdet")
def slogdet(input, name=None):  # noqa: A002
    """(sign, log|det|) of each innermost square matrix, as a namedtuple.

    Stable where `det` over- or underflows; a singular matrix gives sign 0
    and log|det| = -inf; as in TensorFlow, an inf pivot gives log|det| =
    inf with its sign, and a NaN (or inf - inf) gives NaN.
    """
    x = convert_to_tensor(input)
    if _state.graph is None and x._v.dtype not in _LogMatrixDeterminant.allowed_np:
        raise U._eager_disallowed(_LogMatrixDeterminant, x)
    sign, logabs = apply(_LogMatrixDeterminant, [x], name=name or "LogMatrixDeterminant",
                         multi=True)
    return LogMatrixDeterminant(sign, logabs)


# =============================================================================
# solvers
# =============================================================================

def _solve_kernel(matrix, rhs, adjoint=False):
    if matrix.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {matrix.ndim}")
    if rhs.ndim != matrix.ndim:
        raise _invalid("All input tensors must have the same rank.")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise _invalid("Input matrix must be square.")
    if matrix.shape[:-2] != rhs.shape[:-2]:
        raise _invalid("All input tensors must have the same outer dimensions.")
    if rhs.shape[-2] != matrix.shape[-1]:
        raise _invalid("Input matrix and rhs are incompatible.")
    a = _compute_dtype(matrix)
    b = _compute_dtype(rhs)
    if adjoint:
        a = _adjoint_last2(a)
    if a.size == 0 or b.size == 0:
        return np.zeros(rhs.shape, dtype=rhs.dtype)
    try:
        out = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise _invalid("Input matrix is not invertible.") from None
    return out.astype(rhs.dtype, copy=False)


def _solve_infer(inputs, attrs):
    m, r = inputs
    _same_dtype("MatrixSolve", inputs, "matrix", "rhs")
    U.check_allowed(_MatrixSolve, m, "matrix")
    sm, sr = m.shape, r.shape
    for s in (sm, sr):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    if sm.rank is not None and sr.rank is not None:
        if sm.rank != sr.rank:
            raise ValueError(f"Shape must be rank {sm.rank} but is rank {sr.rank}")
        if sm[-1] is not None and sm[-2] is not None and sm[-1] != sm[-2]:
            raise ValueError(f"Dimensions must be equal, but are {sm[-2]} and {sm[-1]}")
        n = sm[-1] if sm[-1] is not None else sm[-2]
        if n is not None and sr[-2] is not None and n != sr[-2]:
            raise ValueError(f"Dimensions must be equal, but are {n} and {sr[-2]}")
        batch = TensorShape(sm.as_list()[:-2]).merge_with(TensorShape(sr.as_list()[:-2]))
        return [(TensorShape(batch.as_list() + [n if n is not None else sr[-2], sr[-1]]),
                 m.dtype)]
    if sr.rank is not None:
        return [(sr, m.dtype)]
    return [(TensorShape(None), m.dtype)]


def _solve_grad(op, g):
    a, _ = op.inputs
    c = op.outputs[0]
    adj = op.get_attr("adjoint")
    gb = solve(a, g, adjoint=not adj)
    if adj:
        ga = -matmul(c, gb, adjoint_b=True)
    else:
        ga = -matmul(gb, c, adjoint_b=True)
    return [ga, gb]


_MatrixSolve = register("MatrixSolve", _solve_kernel, _solve_infer, _solve_grad,
                        allowed=_LINALG_T)


def _binary_linalg(opdef, matrix, rhs, attrs, name):
    m = convert_to_tensor(matrix)
    r = convert_to_tensor(rhs, dtype_hint=m.dtype)
    if _state.graph is None:
        if m.dtype is not r.dtype:
            raise U._mismatch(opdef, m, r)
        if m._v.dtype not in opdef.allowed_np:
            raise U._eager_disallowed(opdef, m)
    return apply2(opdef, m, r, attrs, name=name)


@export("linalg.solve", "compat.v1.matrix_solve", "compat.v1.linalg.solve")
def solve(matrix, rhs, adjoint=False, name=None):
    """Solves matrix @ X = rhs (or adjoint(matrix) @ X = rhs) for X.

    Raises:
      InvalidArgumentError: (eager) shapes do not fit or a matrix is singular.
    """
    return _binary_linalg(_MatrixSolve, matrix, rhs, {"adjoint": bool(adjoint)},
                          name or "MatrixSolve")


def _lapack_triangular_solve():
    """scipy.linalg.solve_triangular (LAPACK's trtrs), or None without SciPy
    (the `signal` extra): then every system takes Eigen's substitution."""
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        return None
    return solve_triangular


def _tri_solve_kernel(matrix, rhs, lower=True, adjoint=False):
    for i, t in enumerate((matrix, rhs)):
        if t.ndim < 2:
            raise _invalid(f"Input tensor {i} must have rank >= 2, got {t.ndim}")
    if matrix.shape[-1] != matrix.shape[-2]:
        raise _invalid("Input matrix must be square.")
    if rhs.shape[-2] != matrix.shape[-1]:
        raise _invalid("Input matrix and rhs are incompatible.")
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise _invalid(f"Incompatible shapes: {dims_text(matrix.shape)} vs. "
                       f"{dims_text(rhs.shape)}", "MatrixTriangularSolve") from None
    if matrix.dtype not in E.KERNEL_T:
        raise E.no_kernel("MatrixTriangularSolve", matrix.dtype,
                         f", adjoint={str(adjoint).lower()}, lower={str(lower).lower()}")
    if matrix.size == 0 or rhs.size == 0:
        return np.zeros(batch + rhs.shape[-2:], dtype=rhs.dtype)
    if adjoint:
        matrix = _adjoint_last2(matrix)
        lower = not lower
    trtrs = _lapack_triangular_solve()
    if trtrs is not None:
        tri = np.tril(matrix) if lower else np.triu(matrix)
        if tame(tri) and tame(rhs) and np.all(np.diagonal(tri, axis1=-2, axis2=-1) != 0):
            # Tame systems with no zero pivot by LAPACK's substitution (the
            # same values up to rounding; Eigen's below loops in Python: 32 x 8
            # took 0.3 ms). Never an LU of the triangle: its pivoting mixes a
            # 1e30 below the diagonal into rows that do not depend on it.
            n = tri.shape[-1]
            a = np.broadcast_to(tri, batch + (n, n))
            b = np.broadcast_to(rhs, batch + rhs.shape[-2:])
            out = np.empty(b.shape, rhs.dtype)
            for i in np.ndindex(batch):
                out[i] = trtrs(a[i], b[i], lower=lower, check_finite=False)
            return out
    # Substitution as TensorFlow's kernel (Eigen's triangular solve) does
    # it, not an LU of the triangle: rows that do not depend on a NaN or a
    # zero pivot stay finite, and an inf below the diagonal is no pivot.
    x = E.trsm(matrix, np.broadcast_to(rhs, batch + rhs.shape[-2:]), lower)
    return E.join(x, rhs.dtype)


def _tri_solve_infer(inputs, attrs):
    m, r = inputs
    _same_dtype("MatrixTriangularSolve", inputs, "matrix", "rhs")
    U.check_allowed(_MatrixTriangularSolve, m, "matrix")
    sm, sr = m.shape, r.shape
    for s in (sm, sr):
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    if sm.rank is None or sr.rank is None:
        return [(TensorShape(None), m.dtype)]
    if sm[-1] is not None and sm[-2] is not None and sm[-1] != sm[-2]:
        raise ValueError(f"Dimensions must be equal, but are {sm[-2]} and {sm[-1]}")
    n = sm[-1] if sm[-1] is not None else sm[-2]
    if n is not None and sr[-2] is not None and n != sr[-2]:
        raise ValueError(f"Dimensions must be equal, but are {n} and {sr[-2]}")
    batch = U.broadcast_shapes(TensorShape(sm.as_list()[:-2]), TensorShape(sr.as_list()[:-2]))
    return [(TensorShape(batch.as_list() + [n if n is not None else sr[-2], sr[-1]]), m.dtype)]


def _tri_solve_grad(op, g):
    a, b = op.inputs
    c = op.outputs[0]
    lower, adj = op.get_attr("lower"), op.get_attr("adjoint")
    gb = triangular_solve(a, g, lower=lower, adjoint=not adj)
    if adj:
        ga = -matmul(c, gb, adjoint_b=True)
    else:
        ga = -matmul(gb, c, adjoint_b=True)
    ga = band_part(ga, -1, 0) if lower else band_part(ga, 0, -1)
    return [_sum_to(ga, a), _sum_to(gb, b)]


_MatrixTriangularSolve = register("MatrixTriangularSolve", _tri_solve_kernel, _tri_solve_infer,
                                  _tri_solve_grad, allowed=_LINALG_T)


@export("linalg.triangular_solve", "compat.v1.matrix_triangular_solve",
        "compat.v1.linalg.triangular_solve")
def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves matrix @ X = rhs for a (batch of) triangular matrix.

    Only the lower (or, with lower=False, upper) triangle is read; batch
    dimensions broadcast. By substitution, as TensorFlow: a zero or NaN on
    the diagonal gives inf/NaN in the rows that depend on it, and no error.
    """
    with _scope(name or "triangular_solve"):
        return _binary_linalg(_MatrixTriangularSolve, matrix, rhs,
                              {"lower": bool(lower), "adjoint": bool(adjoint)},
                              "MatrixTriangularSolve")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _xla_adjoint(x):
    return XL.jnp.conj(XL.jnp.swapaxes(x, -1, -2))


def _lower_triangular_solve(ctx, op, matrix, rhs):
    adjoint = op.attrs.get("adjoint", False)
    return XL.lax.linalg.triangular_solve(matrix, rhs, left_side=True,
                                          lower=op.attrs.get("lower", True),
                                          transpose_a=adjoint, conjugate_a=adjoint)


XL.set_lowerings({
    "MatrixInverse": lambda ctx, op, x: XL.jnp.linalg.inv(
        _xla_adjoint(x) if op.attrs.get("adjoint") else x),
    "MatrixDeterminant": "jnp.linalg.det",
    "LogMatrixDeterminant": lambda ctx, op, x: list(XL.jnp.linalg.slogdet(x)),
    "MatrixSolve": lambda ctx, op, m, rhs: XL.jnp.linalg.solve(
        _xla_adjoint(m) if op.attrs.get("adjoint") else m, rhs),
    "MatrixTriangularSolve": _lower_triangular_solve})
