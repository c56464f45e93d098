"""Eigen decompositions: `eig` and `eigvals` (the Eig op, complex results for
real input), `eigh` and `eigvalsh` (SelfAdjointEigV2), with TensorFlow's
gradients (linalg_grad.py).

TensorFlow's kernels are Eigen's solvers (EigenSolver, ComplexEigenSolver,
SelfAdjointEigenSolver); these are LAPACK's through NumPy. The eigenvalues
agree to rounding (eigh's ascending, as TensorFlow's), but eigenvectors are
unique only up to a unit factor per column (a sign for eigh of real input, a
phase otherwise) and eig's eigenvalues come in no particular order: the
solvers may choose differently, both results satisfy A v = v diag(e).
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.constant_ops import zeros_like
from ..core.dim_ops import expand_dims
from ..core.math_ops import cast, conj
from ..core.special_math_ops import real
from ..core.unary_ops import reciprocal as _reciprocal
from .linalg_util import _state, _LINALG_T, _compute_dtype, _invalid
from .matmul_ops import matmul
from .solve_ops import solve
from .structure_ops import adjoint, band_part, diag, diag_part, set_diag

__all__ = ["eig", "eigvals", "eigh", "eigvalsh"]

_EIG_T = (D.float32, D.float64, D.complex64, D.complex128)
_F16 = np.dtype(np.float16)


def _rank_and_square(x, what="Input tensor 0"):
    if x.ndim < 2:
        raise _invalid(f"{what} must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise _invalid("Input matrix must be square.")


def _not_found(op, x, attrs=""):
    """TensorFlow has the op for this dtype but no CPU kernel for it."""
    return errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op}}}}} = {op}"
        f"[T=DT_{U.tf_type_name(D.as_dtype(x.dtype)).upper()}{attrs}]")


def _eig_infer(op_name, vectors_dtype):
    """Shapes of (e, v): [..., N] and [..., N, N], v of shape [0] without
    compute_v, as TensorFlow's shape functions."""
    def infer(inputs, attrs):
        x = inputs[0]
        U.check_allowed(_OPS[op_name], x, "input")
        out_dtype = vectors_dtype(x, attrs)
        s = x.shape
        v_shape = TensorShape(None)
        if s.rank is None:
            e_shape = TensorShape(None)
        else:
            if s.rank < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
            r, c = s[-2], s[-1]
            if r is not None and c is not None and r != c:
                raise ValueError(f"Dimensions must be equal, but are {r} and {c}")
            n = r if r is not None else c
            e_shape = TensorShape(s.as_list()[:-2] + [n])
            v_shape = TensorShape(s.as_list()[:-2] + [n, n])
        if not attrs.get("compute_v", True):
            v_shape = TensorShape([0])
        return [(e_shape, out_dtype), (v_shape, out_dtype)]
    return infer


_OPS = {}


# =============================================================================
# Eig
# =============================================================================

def _eig_kernel(x, Tout=None, compute_v=True):
    _rank_and_square(x)
    out = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
    n = x.shape[-1]
    if n == 0:
        v = np.zeros(x.shape if compute_v else (0,), out)
        return [np.zeros(x.shape[:-1], out), v]
    if not np.isfinite(x).all():
        # Eigen's QR iterations do not converge on inf or NaN.
        raise _invalid("Eigen decomposition was not successful. The input might not be valid.")
    if compute_v:
        e, v = np.linalg.eig(x)
        return [e.astype(out, copy=False), v.astype(out, copy=False)]
    return [np.linalg.eigvals(x).astype(out, copy=False), np.zeros((0,), out)]


def _safe_reciprocal(x, epsilon=1e-20):
    # TensorFlow's x / (x^2 + eps): finite for equal eigenvalues.
    return x * _reciprocal(x * x + convert_to_tensor(epsilon, dtype=x.dtype))


def _eig_grad(op, grad_e, grad_v):
    """TensorFlow's _EigGrad (distinct eigenvalues): with F_ij = 1/(e_j - e_i),
    grad = V^-H (diag(gE) + conj(F) o (V^H gV - V^H V diag(Re(diag(V^H gV))))) V^H."""
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        vt = adjoint(v)
        f = set_diag(_safe_reciprocal(expand_dims(e, -2) - expand_dims(e, -1)), zeros_like(e))
        f = conj(f)
        vgv = matmul(vt, grad_v)
        mid = diag(grad_e)
        diag_grad_part = diag(diag_part(cast(real(vgv), vgv.dtype)))
        mid += f * (vgv - matmul(matmul(vt, v), diag_grad_part))
        grad_a = solve(vt, matmul(mid, vt))
    else:
        _, v = eig(op.inputs[0])
        vt = adjoint(v)
        grad_a = solve(vt, matmul(diag(grad_e), vt))
    return [cast(grad_a, op.inputs[0].dtype)]


_Eig = register("Eig", _eig_kernel, _eig_infer("Eig", lambda x, attrs: attrs["Tout"]),
                _eig_grad, allowed=_EIG_T)
_OPS["Eig"] = _Eig


def _apply_eig(tensor, compute_v, name):
    x = convert_to_tensor(tensor)
    # TensorFlow's wrapper picks Tout by an if/elif without else: any other
    # dtype fails there, with Python's own UnboundLocalError.
    if x.dtype == D.float32 or x.dtype == D.complex64:
        out_dtype = D.complex64
    elif x.dtype == D.float64 or x.dtype == D.complex128:
        out_dtype = D.complex128
    attrs = {"Tout": out_dtype, "compute_v": compute_v}
    return apply(_Eig, [x], attrs, name=name or "Eig", multi=True)


@export("linalg.eig", "eig")
def eig(tensor, name=None):
    """The eigenvalues and right eigenvectors of each innermost square matrix:
    (e, v) with tensor @ v[..., i] = e[..., i] v[..., i], complex64 for
    float32/complex64 input, complex128 for float64/complex128. Eigenvalues
    come in no particular order; each eigenvector has unit norm."""
    e, v = _apply_eig(tensor, True, name)
    return e, v


@export("linalg.eigvals", "eigvals")
def eigvals(tensor, name=None):
    """The (complex) eigenvalues of each innermost square matrix."""
    e, _ = _apply_eig(tensor, False, name)
    return e


# =============================================================================
# SelfAdjointEigV2
# =============================================================================

def _eigh_kernel(x, compute_v=True):
    _rank_and_square(x)
    if x.dtype == _F16:
        raise _not_found("SelfAdjointEigV2", x, f", compute_v={str(compute_v).lower()}")
    n = x.shape[-1]
    real_dtype = np.float32 if x.dtype in (np.float32, np.complex64) else np.float64
    if n == 0:
        return [np.zeros(x.shape[:-1], x.dtype), np.zeros(x.shape if compute_v else (0,),
                                                           x.dtype)]
    # Only the lower triangle is read (LAPACK's and Eigen's convention).
    lower = np.tril(_compute_dtype(x))
    if not np.isfinite(lower).all():
        raise _invalid("Self-adjoint eigen decomposition was not successful. The input might "
                       "not be valid.")
    if compute_v:
        e, v = np.linalg.eigh(x, UPLO="L")
        return [e.astype(real_dtype).astype(x.dtype), v.astype(x.dtype, copy=False)]
    e = np.linalg.eigvalsh(x, UPLO="L")
    return [e.astype(real_dtype).astype(x.dtype), np.zeros((0,), x.dtype)]


def _eigh_grad(op, grad_e, grad_v):
    """TensorFlow's _SelfAdjointEigV2Grad: V (diag(gE) + F o (V^H gV)) V^H
    with F_ij = 1/(e_j - e_i), made Hermitian and moved to the lower triangle
    (the only part the op reads), the diagonal halved."""
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        f = set_diag(_safe_reciprocal(expand_dims(e, -2) - expand_dims(e, -1)), zeros_like(e))
        grad_a = matmul(v, matmul(diag(grad_e) + f * matmul(v, grad_v, adjoint_a=True), v,
                                  adjoint_b=True))
    else:
        _, v = eigh(op.inputs[0])
        grad_a = matmul(v, matmul(diag(grad_e), v, adjoint_b=True))
    grad_a = band_part(grad_a + adjoint(grad_a), -1, 0)
    return [set_diag(grad_a, convert_to_tensor(0.5, dtype=grad_a.dtype) * diag_part(grad_a))]


_SelfAdjointEigV2 = register(
    "SelfAdjointEigV2", _eigh_kernel,
    _eig_infer("SelfAdjointEigV2", lambda x, attrs: x.dtype), _eigh_grad, allowed=_LINALG_T)
_OPS["SelfAdjointEigV2"] = _SelfAdjointEigV2

def _apply_eigh(tensor, compute_v, name):
    x = convert_to_tensor(tensor)
    if _state.graph is None and x._v.dtype not in _SelfAdjointEigV2.allowed_np:
        raise U._eager_disallowed(_SelfAdjointEigV2, x)
    return apply(_SelfAdjointEigV2, [x], {"compute_v": compute_v},
                 name=name or "SelfAdjointEigV2", multi=True)


@export("linalg.eigh", "compat.v1.linalg.eigh", "compat.v1.self_adjoint_eig")
def eigh(tensor, name=None):
    """The eigen decomposition (e, v) of each innermost self-adjoint matrix
    (only its lower triangle is read): eigenvalues in non-decreasing order
    (in the input's dtype, so complex with zero imaginary part for complex
    input, as TensorFlow's), orthonormal eigenvectors in the columns of v."""
    e, v = _apply_eigh(tensor, True, name)
    return e, v


@export("linalg.eigvalsh", "compat.v1.linalg.eigvalsh", "compat.v1.self_adjoint_eigvals")
def eigvalsh(tensor, name=None):
    """The eigenvalues of each innermost self-adjoint matrix, non-decreasing."""
    e, _ = _apply_eigh(tensor, False, name)
    return e


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_eigh(ctx, op, x):
    e, v = XL.jnp.linalg.eigh(x, symmetrize_input=False)
    return [e, v if op.attrs.get("compute_v", True) else XL.jnp.zeros((0,), x.dtype)]


XL.set_lowerings({"SelfAdjointEigV2": _lower_eigh})
