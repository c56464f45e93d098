"""The rest of `tf.linalg`'s functions: `cholesky_solve`, `tensor_diag` (Diag)
and `tensor_diag_part` (DiagPart), `normalize`, `lstsq` (MatrixSolveLs),
`tridiagonal_matmul`, `tridiagonal_solve` (TridiagonalSolve),
`banded_triangular_solve` and `eigh_tridiagonal`.

Where TensorFlow's function is a composition of ops (cholesky_solve,
normalize) or a product any composition computes the same (the tridiagonal
and banded products, eigh_tridiagonal from the dense matrix), it is composed
here too, so gradients come from the parts.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.constant_ops import zeros_like
from ..core.dim_ops import expand_dims, squeeze
from ..core.gather_ops import boolean_mask
from ..core.join_ops import stack
from ..control_flow.cond import cond
from ..core.creation_ops import eye
from ..core.math_ops import cast, conj, greater, greater_equal, less_equal, logical_and
from ..core.shape_ops import shape
from ..core.reduction_ops import reduce_sum
from ..core.split_pad_ops import pad
from ..core.special_math_ops import real
from . import eigen_decompositions as ED
from . import eigen_solvers as E
from .decomposition_ops import cholesky
from .eig_ops import eigh, eigvalsh
from .linalg_util import _LINALG_T, _invalid, _scope, _state
from .matmul_ops import matmul
from .norm_ops import norm
from .solve_ops import triangular_solve
from .structure_ops import diag as matrix_diag, diag_part as matrix_diag_part
from .structure_ops import matrix_transpose


@export("linalg.cholesky_solve", "compat.v1.cholesky_solve", "compat.v1.linalg.cholesky_solve")
def cholesky_solve(chol, rhs, name=None):
    """Solves A X = rhs given the lower Cholesky factor `chol` of A (two
    triangular solves)."""
    with _scope(name or "cholesky_solve"):
        y = triangular_solve(chol, rhs, adjoint=False, lower=True)
        return triangular_solve(chol, y, adjoint=True, lower=True)


# --- tensor_diag / tensor_diag_part -----------------------------------------------

def _diag_kernel(x):
    if x.ndim < 1:
        raise _invalid(f"Input must be at least rank 1, got {x.ndim}")
    n = x.size
    out = np.zeros((n, n), dtype=x.dtype)
    out[np.arange(n), np.arange(n)] = x.reshape(-1)
    return out.reshape(x.shape + x.shape)


def _diag_infer(inputs, attrs):
    s = inputs[0].shape
    if s.rank is not None and s.rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {s.rank}")
    out = TensorShape(None) if s.rank is None else TensorShape(s.as_list() * 2)
    return [(out, inputs[0].dtype)]


def _diag_part_kernel(x):
    if x.ndim == 0:
        return np.array(x, copy=True)
    k = x.ndim // 2
    if x.ndim % 2:
        raise _invalid(f"The rank of the tensor should be even and positive, got shape "
                       f"[{','.join(map(str, x.shape))}]")
    for i in range(k):
        if x.shape[i] != x.shape[i + k]:
            raise _invalid(f"Invalid shape [{','.join(map(str, x.shape))}]: dimensions {i} and "
                           f"{i + k} do not match.")
    n = int(np.prod(x.shape[:k], dtype=np.int64))
    return x.reshape(n, n)[np.arange(n), np.arange(n)].reshape(x.shape[:k])


def _diag_part_infer(inputs, attrs):
    s = inputs[0].shape
    if s.rank is None:
        return [(TensorShape(None), inputs[0].dtype)]
    if s.rank % 2:
        raise ValueError(f"Input must have even rank, input rank is {s.rank}")
    k = s.rank // 2
    dims = [a if a is not None else b for a, b in zip(s.as_list()[:k], s.as_list()[k:])]
    return [(TensorShape(dims), inputs[0].dtype)]


_DIAG_T = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64, D.int32, D.int64,
                            D.complex64, D.complex128) if d is not None)
_Diag = register("Diag", _diag_kernel, _diag_infer,
                 lambda op, g: [apply(_DiagPart, [g], {}, name="DiagPart")], allowed=_DIAG_T)
_DiagPart = register("DiagPart", _diag_part_kernel, _diag_part_infer,
                     lambda op, g: [apply(_Diag, [g], {}, name="Diag")], allowed=_DIAG_T)


def _checked(opdef, x):
    """x, after TensorFlow's eager check of the op's dtype list."""
    if _state.graph is None and x._v.dtype not in opdef.allowed_np:
        raise U._eager_disallowed(opdef, x)
    return x


@export("linalg.tensor_diag", "compat.v1.diag", "compat.v1.linalg.tensor_diag")
def tensor_diag(diagonal, name=None):
    """A tensor of shape `s + s` with `diagonal` (shape `s`) on its diagonal
    (`out[i1..ik, i1..ik] = diagonal[i1..ik]`) and zeros elsewhere."""
    return apply(_Diag, [_checked(_Diag, convert_to_tensor(diagonal))], {},
                 name=name or "Diag")


@export("linalg.tensor_diag_part", "compat.v1.diag_part", "compat.v1.linalg.tensor_diag_part")
def tensor_diag_part(input, name=None):  # noqa: A002
    """The diagonal of a tensor of shape `s + s`: `out[i1..ik] = input[i1..ik,
    i1..ik]`, the inverse of `tensor_diag`."""
    return apply(_DiagPart, [_checked(_DiagPart, convert_to_tensor(input))], {},
                 name=name or "DiagPart")


@export("linalg.normalize", "compat.v1.linalg.normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """(tensor / norm, norm): the tensor scaled to unit norm along `axis`, and
    the norm (kept dimensions, cast to the tensor's dtype)."""
    with _scope(name or "normalize"):
        tensor = convert_to_tensor(tensor)
        n = cast(norm(tensor, ord, axis, keepdims=True), tensor.dtype)
        return tensor / n, n


# --- lstsq (MatrixSolveLs) --------------------------------------------------------

_RANK_DEFICIENT = ("Input matrix was rank deficient or ill-conditioned. Try setting fast=False "
                   "or provide a larger l2_regularizer > 0.")


def _regularized(gram, l2):
    """gram + l2 I in gram's dtype; TensorFlow's kernel adds only a positive
    regularizer, rounded to the matrix's type."""
    if l2 > 0:
        gram = gram + gram.dtype.type(l2) * np.eye(gram.shape[-1], dtype=gram.dtype)
    return gram


def _chol_solve_np(gram, rhs):
    """Solves gram x = rhs (one matrix) as TensorFlow's MatrixSolveLs kernel:
    Eigen's LLT, whose failure (a pivot <= 0) is an error, then its two
    triangular solves."""
    factor, failed = ED.llt(gram[None])
    if failed.any():
        raise _invalid(_RANK_DEFICIENT)
    lower = E.join(factor, gram.dtype)
    y = E.join(E.trsm(lower, rhs[None], True), gram.dtype)
    return E.join(E.trsm(np.conj(np.swapaxes(lower, -1, -2)), y, False), gram.dtype)[0]


def _lstsq_kernel(matrix, rhs, l2, fast=True):
    if matrix.ndim < 2 or rhs.ndim < 2:
        raise _invalid("Input matrix and right-hand side must have rank >= 2")
    m, n = matrix.shape[-2:]
    if rhs.shape[-2] != m:
        raise _invalid(f"Matrix size-incompatible: In[0]: [{m},{n}], In[1]: "
                       f"[{rhs.shape[-2]},{rhs.shape[-1]}]")
    if matrix.shape[:-2] != rhs.shape[:-2]:
        raise _invalid("Input matrix and right-hand side must have the same batch shape")
    dt = matrix.dtype
    a = matrix.astype(np.float32) if dt == np.float16 else matrix
    b = rhs.astype(a.dtype)
    out = np.empty(a.shape[:-2] + (n, b.shape[-1]), dtype=a.dtype)
    if out.size == 0:
        return out.astype(dt)
    flat_a, flat_b = a.reshape((-1, m, n)), b.reshape((-1, m, b.shape[-1]))
    flat_o = out.reshape((-1, n, b.shape[-1]))
    for i, (ai, bi) in enumerate(zip(flat_a, flat_b)):
        ah = np.conj(ai.T)
        if not fast and not np.isfinite(ai).all():
            # LAPACK's least squares loops forever on an inf (np.linalg.lstsq
            # never returned); TensorFlow's complete orthogonal decomposition
            # finds such a matrix of rank 0: zeros.
            flat_o[i] = 0
        elif not fast:
            flat_o[i] = np.linalg.lstsq(ai, bi, rcond=None)[0]
        elif m >= n:
            flat_o[i] = _chol_solve_np(_regularized(ah @ ai, l2), ah @ bi)
        else:
            flat_o[i] = ah @ _chol_solve_np(_regularized(ai @ ah, l2), bi)
    return flat_o.reshape(out.shape).astype(dt)


def _lstsq_infer(inputs, attrs):
    a, b, _ = inputs
    if a.dtype is not b.dtype:
        raise TypeError(f"Input 'rhs' of 'MatrixSolveLs' Op has type {b.dtype.name} that "
                        f"does not match type {a.dtype.name} of argument 'matrix'.")
    U.check_allowed(_MatrixSolveLs, a, "matrix")
    sa, sb = a.shape, b.shape
    if sa.rank is None or sb.rank is None:
        return [(TensorShape(None), a.dtype)]
    if sa.rank < 2 or sb.rank < 2:
        raise ValueError("Shape must be at least rank 2")
    if sa[-2] is not None and sb[-2] is not None and sa[-2] != sb[-2]:
        raise ValueError(f"Dimensions must be equal, but are {sa[-2]} and {sb[-2]}")
    return [(TensorShape(sa.as_list()[:-2] + [sa[-1], sb[-1]]), a.dtype)]


def _lstsq_grad(op, g):
    if not op.get_attr("fast"):
        raise ValueError("Gradient not defined for fast=False")
    a, b, l2 = op.inputs
    x = op.outputs[0]
    l2 = cast(l2, a.dtype)
    sa = a.shape
    if sa[-2] is not None and sa[-1] is not None and sa[-2] < sa[-1]:
        # Underdetermined: x = A^H (A A^H + l2 I)^-1 b.
        gram = matmul(a, a, adjoint_b=True)
        chol = cholesky(gram + l2 * _eye_like(gram))
        w = cholesky_solve(chol, matmul(a, g))
        y = cholesky_solve(chol, b)
        ga = -matmul(w, matmul(y, a, adjoint_a=True)) + \
            matmul(y, g - matmul(a, w, adjoint_a=True), adjoint_b=True)
        return [ga, w, None]
    # Overdetermined: x = (A^H A + l2 I)^-1 A^H b.
    gram = matmul(a, a, adjoint_a=True)
    chol = cholesky(gram + l2 * _eye_like(gram))
    z = cholesky_solve(chol, g)
    xz = matmul(x, z, adjoint_b=True)
    ga = -matmul(a, xz + matrix_transpose(xz, conjugate=True)) + matmul(b, z, adjoint_b=True)
    return [ga, matmul(a, z), None]


def _eye_like(m):
    from ..core.creation_ops import eye
    from ..core.shape_ops import shape
    return eye(shape(m)[-1], batch_shape=shape(m)[:-2], dtype=m.dtype)


_MatrixSolveLs = register("MatrixSolveLs", _lstsq_kernel, _lstsq_infer, _lstsq_grad,
                          allowed=_LINALG_T)


def _nonzero(v):
    """Whether a regularizer is non-zero, as far as is known now."""
    from ..core.op_util import constant_value
    value = constant_value(v) if hasattr(v, "dtype") else v
    return value is not None and bool(np.any(np.asarray(value) != 0))


def _use_composite(fast, m):
    """TensorFlow's choice: its composition of ops for fast=True unless the
    tensor is larger than a guess of the L2 cache (256,000 bytes) and has
    more matrices than the smaller of their dimensions (then its kernel)."""
    if not fast:
        return False
    s = m.shape
    if not s.is_fully_defined():
        return True
    size = s.num_elements() * m.dtype.size
    batch = int(np.prod(s.as_list()[:-2], dtype=np.int64))
    return not (size > 256000 and batch > min(s.as_list()[-2:]))


def _gramian_cholesky(matrix, l2_regularizer, first_kind):
    """TensorFlow's _RegularizedGramianCholesky: the Cholesky factor of
    A^H A (first kind) or A A^H, plus l2 I when l2 is a tensor or nonzero."""
    gramian = matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if hasattr(l2_regularizer, "dtype") or l2_regularizer != 0:
        dims = shape(matrix)
        small = dims[-1] if first_kind else dims[-2]
        gramian = gramian + l2_regularizer * eye(small, batch_shape=dims[:-2],
                                                 dtype=matrix.dtype)
    return cholesky(gramian)


def _lstsq_composite(matrix, rhs, l2_regularizer, name):
    """TensorFlow's fast least squares: normal equations solved by Cholesky
    (composed of MatMul, Cholesky and MatrixTriangularSolve, so it differs
    from a kernel exactly as TensorFlow's does: an A^H A that overflows to
    inf gives NaN, a factor that fails gives NaN)."""
    def over():
        chol = _gramian_cholesky(matrix, l2_regularizer, True)
        return cholesky_solve(chol, matmul(matrix, rhs, adjoint_a=True))

    def under():
        chol = _gramian_cholesky(matrix, l2_regularizer, False)
        return matmul(matrix, cholesky_solve(chol, rhs), adjoint_a=True)

    with _scope(name or "matrix_solve_ls"):
        s = matrix.shape
        if s.rank is not None and s[-2] is not None and s[-1] is not None:
            return over() if s[-2] >= s[-1] else under()
        dims = shape(matrix)
        return cond(greater_equal(dims[-2], dims[-1]), over, under)


@export("linalg.lstsq", "compat.v1.matrix_solve_ls", "compat.v1.linalg.lstsq")
def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of matrix @ X = rhs for each innermost matrix.

    fast=True solves the (Tikhonov-regularized) normal equations by Cholesky,
    composed of ops as in TensorFlow (NaN where they are not positive
    definite, or where A^H A overflows), except for batches larger than
    TensorFlow's cache guess, which its MatrixSolveLs kernel solves (and
    rejects a failed factorization); fast=False takes the minimum-norm
    solution and ignores `l2_regularizer` (it has no gradient, as in
    TensorFlow).
    """
    m = convert_to_tensor(matrix, name="matrix")
    if m.dtype == D.complex128 and _nonzero(l2_regularizer):
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and "
                                  "l2_regularizer != 0 due to poor accuracy.")
    r = convert_to_tensor(rhs, dtype_hint=m.dtype, name="rhs")
    if _use_composite(fast, m):
        return _lstsq_composite(m, r, l2_regularizer, name)
    if _state.graph is None:
        if m.dtype is not r.dtype:
            raise U._mismatch(_MatrixSolveLs, m, r)
        if m._v.dtype not in _MatrixSolveLs.allowed_np:
            raise U._eager_disallowed(_MatrixSolveLs, m)
    l2 = convert_to_tensor(l2_regularizer, dtype=D.float64)
    return apply(_MatrixSolveLs, [m, r, l2], {"fast": bool(fast)},
                 name=name or "MatrixSolveLs")


# --- tridiagonal products and solves ----------------------------------------------

def _shift(x, up):
    """x[..., i+1] (up) or x[..., i-1] along the last axis, zero at the edge."""
    rank = x.shape.rank
    pads = [[0, 0]] * (rank - 1)
    if up:
        return pad(x[..., 1:], pads + [[0, 1]])
    return pad(x[..., :-1], pads + [[1, 0]])


def _to_compact(diagonals, fmt, name):
    """(superdiag, maindiag, subdiag), each [..., M], from any of the formats."""
    if fmt == "compact":
        d = convert_to_tensor(diagonals, name="diagonals")
        if d.shape.rank is not None and d.shape.rank < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {d.shape.rank}")
        if d.shape.rank is not None and d.shape[-2] is not None and d.shape[-2] != 3:
            raise ValueError(f"Expected 3 diagonals got {d.shape[-2]}")
        return d[..., 0, :], d[..., 1, :], d[..., 2, :], d.shape.rank - 1
    if fmt == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        sup, main, sub = (convert_to_tensor(t) for t in diagonals)
        return sup, main, sub, main.shape.rank
    if fmt == "matrix":
        d = convert_to_tensor(diagonals, name="diagonals")
        s = d.shape
        if s.rank is not None and s.rank < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {s.rank}")
        if s.rank is not None and s[-1] is not None and s[-2] is not None and s[-1] != s[-2]:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got "
                             f"{s[-2]} and {s[-1]}")
        c = matrix_diag_part(d, k=(-1, 1), padding_value=0, align="LEFT_RIGHT")
        return c[..., 0, :], c[..., 1, :], c[..., 2, :], s.rank - 1
    raise ValueError(f"Unrecognized diagonals_format: {fmt}")


@export("linalg.tridiagonal_matmul", "compat.v1.linalg.tridiagonal_matmul")
def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """The product of tridiagonal matrices with `rhs` [..., M, N].

    `diagonals` as in `tridiagonal_solve`: 'compact' [..., 3, M] (superdiagonal
    padded at the end, main, subdiagonal padded at the start), 'sequence' (the
    three as a tuple) or 'matrix' [..., M, M].
    """
    with _scope(name or "tridiagonal_matmul"):
        sup, main, sub, _ = _to_compact(diagonals, diagonals_format, name)
        r = convert_to_tensor(rhs, dtype_hint=main.dtype, name="rhs")
        sup, main, sub = (expand_dims(t, -1) for t in (sup, main, sub))
        rows_up = pad(r[..., 1:, :], [[0, 0]] * (r.shape.rank - 2) + [[0, 1], [0, 0]])
        rows_down = pad(r[..., :-1, :], [[0, 0]] * (r.shape.rank - 2) + [[1, 0], [0, 0]])
        # The padding of the compact form is multiplied by the zero rows.
        return main * r + sup * rows_up + sub * rows_down


def _tridiag_solve_np(sup, main, sub, b, pivot):
    """Gaussian elimination on a batch of tridiagonal systems, with partial
    pivoting (LAPACK gtsv's row interchanges) or without (Thomas)."""
    n = main.shape[-1]
    d, du, dl = main.copy(), sup.copy(), sub.copy()
    du2 = np.zeros_like(d)
    b = b.copy()
    zero_pivot = np.zeros(main.shape[:-1], dtype=bool)
    with np.errstate(all="ignore"):
        for i in range(n - 1):
            below = dl[..., i + 1]
            swap = (np.abs(d[..., i]) < np.abs(below)) if pivot else np.zeros_like(zero_pivot)
            # No interchange: eliminate row i+1 with row i.
            f_keep = below / d[..., i]
            # Interchange: row i+1 becomes the pivot row.
            f_swap = d[..., i] / np.where(swap, below, 1)
            nxt_du = du[..., i + 1] if i + 1 < n - 1 else np.zeros_like(d[..., i])
            d_i = np.where(swap, below, d[..., i])
            d_next = np.where(swap, du[..., i] - f_swap * d[..., i + 1],
                              d[..., i + 1] - f_keep * du[..., i])
            du_i = np.where(swap, d[..., i + 1], du[..., i])
            du2_i = np.where(swap, nxt_du, 0)
            du_next = np.where(swap, -f_swap * nxt_du, nxt_du)
            bi, bn = b[..., i, :], b[..., i + 1, :]
            new_bi = np.where(swap[..., None], bn, bi)
            new_bn = np.where(swap[..., None], bi - f_swap[..., None] * bn,
                              bn - f_keep[..., None] * bi)
            zero_pivot |= d_i == 0
            d[..., i], d[..., i + 1], du[..., i], du2[..., i] = d_i, d_next, du_i, du2_i
            if i + 1 < n - 1:
                du[..., i + 1] = du_next
            b[..., i, :], b[..., i + 1, :] = new_bi, new_bn
        zero_pivot |= d[..., n - 1] == 0
        x = np.empty_like(b)
        x[..., n - 1, :] = b[..., n - 1, :] / d[..., n - 1, None]
        if n > 1:
            x[..., n - 2, :] = (b[..., n - 2, :] - du[..., n - 2, None] * x[..., n - 1, :]) \
                / d[..., n - 2, None]
        for i in range(n - 3, -1, -1):
            x[..., i, :] = (b[..., i, :] - du[..., i, None] * x[..., i + 1, :]
                            - du2[..., i, None] * x[..., i + 2, :]) / d[..., i, None]
    return x, zero_pivot


def _tridiag_solve_kernel(diagonals, rhs, partial_pivoting=True, perturb_singular=False):
    if diagonals.ndim < 2 or diagonals.shape[-2] != 3:
        raise _invalid("Expected diagonals to have shape [..., 3, M]")
    if rhs.ndim != diagonals.ndim or rhs.shape[:-2] != diagonals.shape[:-2] \
            or rhs.shape[-2] != diagonals.shape[-1]:
        raise _invalid(f"Incompatible shapes of diagonals {list(diagonals.shape)} and "
                       f"right-hand side {list(rhs.shape)}")
    if rhs.size == 0 or diagonals.shape[-1] == 0:
        return np.zeros(rhs.shape, rhs.dtype)
    wide = np.complex128 if diagonals.dtype.kind == "c" else np.float64
    dg = diagonals.astype(wide)
    x, zero_pivot = _tridiag_solve_np(dg[..., 0, :], dg[..., 1, :], dg[..., 2, :],
                                      rhs.astype(wide), partial_pivoting)
    if perturb_singular and zero_pivot.any():
        raise NotImplementedError("tridiagonal_solve with perturb_singular=True on a "
                                  "singular matrix is not supported")
    # TensorFlow's kernel gives NaN for the whole of a singular system.
    x[zero_pivot] = np.nan
    return x.astype(rhs.dtype)


def _tridiag_solve_infer(inputs, attrs):
    d, r = inputs
    if d.dtype is not r.dtype:
        raise TypeError(f"Input 'rhs' of 'TridiagonalSolve' Op has type {r.dtype.name} that "
                        f"does not match type {d.dtype.name} of argument 'diagonals'.")
    return [(r.shape, r.dtype)]


def _tridiag_adjoint(diagonals):
    """The compact diagonals of each matrix's conjugate transpose."""
    sup, main, sub = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    return conj(stack([_shift(sub, True), main, _shift(sup, False)], axis=-2))


def _tridiag_transpose(diagonals):
    """The compact diagonals of each matrix's transpose (not conjugated)."""
    sup, main, sub = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
    return stack([_shift(sub, True), main, _shift(sup, False)], axis=-2)


def _tridiag_solve_grad(op, g):
    # TensorFlow's gradient solves with the transpose and pairs with x
    # unconjugated, for complex matrices too.
    diagonals = op.inputs[0]
    x = op.outputs[0]
    attrs = {"partial_pivoting": op.get_attr("partial_pivoting"),
             "perturb_singular": op.get_attr("perturb_singular")}
    g_rhs = apply(_TridiagonalSolve, [_tridiag_transpose(diagonals), g], attrs,
                  name="TridiagonalSolve")
    main = -reduce_sum(g_rhs * x, axis=-1)
    sup = -reduce_sum(g_rhs[..., :-1, :] * x[..., 1:, :], axis=-1)
    sub = -reduce_sum(g_rhs[..., 1:, :] * x[..., :-1, :], axis=-1)
    pads = [[0, 0]] * (main.shape.rank - 1)
    g_diag = stack([pad(sup, pads + [[0, 1]]), main, pad(sub, pads + [[1, 0]])], axis=-2)
    return [g_diag, g_rhs]


_TridiagonalSolve = register("TridiagonalSolve", _tridiag_solve_kernel, _tridiag_solve_infer,
                             _tridiag_solve_grad,
                             allowed=(D.float64, D.float32, D.complex64, D.complex128))


@export("linalg.tridiagonal_solve", "compat.v1.linalg.tridiagonal_solve")
def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """Solves tridiagonal systems A X = rhs.

    `diagonals`: 'compact' [..., 3, M] (superdiagonal, main, subdiagonal; the
    superdiagonal's last and the subdiagonal's first element are ignored),
    'sequence' (a tuple of the three [..., M]) or 'matrix' [..., M, M]. `rhs`
    is [..., M, K] or [..., M] (or [..., K, M] with `transpose_rhs`). A
    singular system gives NaN, as in TensorFlow.
    """
    with _scope(name or "tridiagonal_solve"):
        sup, main, sub, rank = _to_compact(diagonals, diagonals_format, name)
        compact = stack([sup, main, sub], axis=-2)
        r = convert_to_tensor(rhs, dtype_hint=main.dtype, name="rhs")
        vector = r.shape.rank == rank
        if vector:
            r = expand_dims(r, -1)
        elif transpose_rhs:
            r = matrix_transpose(r)
        if conjugate_rhs:
            r = conj(r)
        if isinstance(compact, EagerTensor):
            _checked(_TridiagonalSolve, compact)
        x = apply(_TridiagonalSolve, [compact, r],
                  {"partial_pivoting": bool(partial_pivoting),
                   "perturb_singular": bool(perturb_singular)}, name="TridiagonalSolve")
        return squeeze(x, -1) if vector else x


@export("linalg.banded_triangular_solve")
def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """Solves triangular systems given by their bands [..., K, M].

    lower=True: the rows are the diagonal then the subdiagonals 1..K-1 (padded
    at the start); lower=False: the superdiagonals K-1..1 (padded at the end)
    then the diagonal, TensorFlow's LEFT_RIGHT layout.
    """
    with _scope(name or "banded_triangular_solve"):
        b = convert_to_tensor(bands, name="bands")
        k = b.shape[-2]
        m = b.shape[-1]
        if k is None or m is None:
            raise ValueError("banded_triangular_solve needs static band and matrix sizes")
        band = (-(k - 1), 0) if lower else (0, k - 1)
        dense = matrix_diag(b, k=band, num_rows=m, num_cols=m, align="LEFT_RIGHT")
        return triangular_solve(dense, convert_to_tensor(rhs, dtype_hint=b.dtype),
                                lower=lower, adjoint=adjoint)


@export("linalg.eigh_tridiagonal", "compat.v1.linalg.eigh_tridiagonal")
def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None,
                     tol=None, name=None):
    """Eigenvalues (ascending), and with eigvals_only=False eigenvectors (as
    columns), of the Hermitian tridiagonal matrix with diagonal `alpha` [n]
    and off-diagonal `beta` [n-1].

    select 'a' gives all, 'i' those with indices in select_range [lo, hi]
    (inclusive), 'v' those in the half-open interval (lo, hi]. Eigenvectors are
    unique only up to a unit factor each, which may differ from TensorFlow's.
    """
    with _scope(name or "eigh_tridiagonal"):
        if select not in ("a", "i", "v"):
            raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
        alpha = convert_to_tensor(alpha, name="alpha")
        if alpha.dtype.is_complex:
            raise ValueError("alpha must be real, got complex alpha")
        beta = convert_to_tensor(beta, name="beta")
        n = alpha.shape[0] if alpha.shape.rank else None
        if n is not None and n <= 1:
            return real(alpha) if eigvals_only else (real(alpha), _ones_vec(alpha, beta))
        a = cast(alpha, beta.dtype) if beta.dtype.is_complex else alpha
        # TensorFlow's matrix carries beta below the diagonal, conj(beta) above.
        dense = matrix_diag(stack([_pad_end(conj(beta)), a, _pad_start(beta)]), k=(-1, 1),
                            align="LEFT_RIGHT")
        if eigvals_only:
            e = eigvalsh(dense)
            v = None
        else:
            e, v = eigh(dense)
        e = cast(e, alpha.dtype) if e.dtype is not alpha.dtype else e
        if select == "i":
            lo, hi = select_range
            e = e[lo:hi + 1]
            v = None if v is None else v[:, lo:hi + 1]
        elif select == "v":
            lo, hi = (convert_to_tensor(t, dtype=alpha.dtype) for t in select_range)
            keep = logical_and(greater(e, lo), less_equal(e, hi))
            e = boolean_mask(e, keep)
            v = None if v is None else boolean_mask(v, keep, axis=1)
        return e if eigvals_only else (e, v)


def _pad_end(x):
    return pad(x, [[0, 1]])


def _pad_start(x):
    return pad(x, [[1, 0]])


def _ones_vec(alpha, beta):
    dt = beta.dtype if beta.dtype.is_complex else alpha.dtype
    return cast(expand_dims(zeros_like(real(alpha)), -1) + 1, dt)


__all__ = ["cholesky_solve", "tensor_diag", "tensor_diag_part", "normalize", "lstsq",
           "tridiagonal_matmul", "tridiagonal_solve", "banded_triangular_solve",
           "eigh_tridiagonal"]


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_diag(ctx, op, x):
    n = int(np.prod(x.shape, dtype=np.int64))
    flat = XL.jnp.diag(XL.jnp.reshape(x, (n,)))
    return XL.jnp.reshape(flat, tuple(x.shape) * 2)


def _lower_diag_part(ctx, op, x):
    k = x.ndim // 2
    n = int(np.prod(x.shape[:k], dtype=np.int64))
    return XL.jnp.reshape(XL.jnp.diagonal(XL.jnp.reshape(x, (n, n))), x.shape[:k])


XL.set_lowerings({"Diag": _lower_diag, "DiagPart": _lower_diag_part})
