"""The LU decomposition with partial pivoting (`tf.linalg.lu`, the Lu op) and
the functions TensorFlow builds on it from public ops: `lu_solve`,
`lu_matrix_inverse` and `lu_reconstruct`.

The kernel is Eigen's PartialPivLU (TensorFlow's Lu kernel) written on
batches (`eigen_decompositions.partial_piv_lu`): column by column, the pivot is the
first row of largest modulus at or below the diagonal, rows are swapped, the
column below the pivot divided by it and the trailing block updated by the
outer product. That is Eigen's unblocked algorithm, which it uses up to
16 x 16 (bit for bit, NaN and inf included); larger matrices it blocks,
which rounds the updates in another order (same pivots, last bits may
differ). As in TensorFlow, the Lu op has no gradient; the solvers built on
its output differentiate through their own ops.
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from ..core.broadcast_ops import broadcast_dynamic_shape, broadcast_to
from ..core.constant_ops import ones
from ..core.creation_ops import eye, invert_permutation, range as _range
from ..core.gather_ops import gather, gather_nd
from ..core.join_ops import concat, stack
from ..core.reduction_ops import reduce_prod
from ..core.shape_ops import reshape, shape as _shape
from ..core.sort_ops import argsort
from . import eigen_decompositions as ED
from . import eigen_solvers as E
from .linalg_util import _state, _LINALG_T, _invalid, _scope, tame
from .matmul_ops import matmul
from .solve_ops import triangular_solve
from .structure_ops import band_part, set_diag

__all__ = ["lu", "lu_solve", "lu_matrix_inverse", "lu_reconstruct"]

_KERNEL_T = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64),
             np.dtype(np.complex128))


def _partial_piv_lu(a):
    """Eigen's unblocked PartialPivLU of every matrix of the tame batch `a`
    (b, n, n), in place, vectorized over the batch (eigen_decompositions'
    general version, which also follows Eigen on NaN, inf and subnormals,
    takes several times as long): returns the row order p with a[p] = L U."""
    b, n, _ = a.shape
    perm = np.tile(np.arange(n), (b, 1))
    batch = np.arange(b)
    for k in range(n):
        score = np.abs(a[:, k:, k])
        # The first row of largest modulus (np.argmax keeps the first, as
        # Eigen's maxCoeff); an exactly zero column is left unpivoted.
        piv = np.argmax(score, axis=1) + k
        nonzero = score[batch, piv - k] != 0
        swap = nonzero & (piv != k)
        if swap.any():
            rows, other = batch[swap], piv[swap]
            a[rows, k], a[rows, other] = a[rows, other], a[rows, k].copy()
            perm[rows, k], perm[rows, other] = perm[rows, other], perm[rows, k].copy()
        if k + 1 < n:
            if nonzero.any():
                a[nonzero, k + 1:, k] /= a[nonzero, k, k][:, None]
            a[:, k + 1:, k + 1:] -= a[:, k + 1:, k, None] * a[:, k, None, k + 1:]
    return perm


def _lu_kernel(x, output_idx_type=D.int32):
    if x.ndim < 2:
        raise _invalid(f"Input tensor must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise _invalid("Input matrix must be square.")
    idx = np.int64 if D.as_dtype(output_idx_type) is D.int64 else np.int32
    if x.dtype not in _KERNEL_T:
        raise errors.NotFoundError(
            None, None, f"Could not find device for node: {{{{node Lu}}}} = Lu[T=DT_"
            f"{U.tf_type_name(D.as_dtype(x.dtype)).upper()}, output_idx_type=DT_"
            f"{D.as_dtype(output_idx_type).name.upper()}]")
    n = x.shape[-1]
    if x.size == 0:
        return [np.array(x, copy=True), np.zeros(x.shape[:-1], idx)]
    if tame(x):
        a = np.array(x, copy=True).reshape((-1, n, n))
        with np.errstate(all="ignore"):
            perm = _partial_piv_lu(a)
            pivots = np.abs(np.diagonal(a, axis1=-2, axis2=-1))
            if not (np.min(pivots, axis=-1) > 0).all():
                raise _invalid("Input is not invertible.")
        return [a.reshape(x.shape), perm.astype(idx).reshape(x.shape[:-1])]
    lu, perm, _ = ED.partial_piv_lu(x.reshape((-1, n, n)))
    # Eigen cannot promise invertibility; TensorFlow rejects a matrix whose
    # smallest |pivot| (found as Eigen's minCoeff finds it: a NaN is passed
    # over unless it is the first pivot) is not > 0. Other NaN pivots are
    # returned: the rows and columns that depend on them are NaN.
    ar = np.arange(n)
    with np.errstate(all="ignore"):
        smallest = ED.min_magnitude(ED.magnitude(E._at(lu, (Ellipsis, ar, ar))))
        if not (E.ftz(smallest) > 0).all():
            raise _invalid("Input is not invertible.")
    return [E.join(lu, x.dtype).reshape(x.shape), perm.astype(idx).reshape(x.shape[:-1])]


def _lu_infer(inputs, attrs):
    x = inputs[0]
    U.check_allowed(_Lu, x, "input")
    idx = D.as_dtype(attrs.get("output_idx_type", D.int32))
    s = x.shape
    if s.rank is None:
        return [(TensorShape(None), x.dtype), (TensorShape(None), idx)]
    if s.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
    r, c = s[-2], s[-1]
    if r is not None and c is not None and r != c:
        raise ValueError(f"Dimensions must be equal, but are {r} and {c}")
    n = r if r is not None else c
    dims = s.as_list()[:-2]
    return [(TensorShape(dims + [n, n]), x.dtype), (TensorShape(dims + [n]), idx)]


_Lu = register("Lu", _lu_kernel, _lu_infer, None, allowed=_LINALG_T)

Lu = collections.namedtuple("Lu", ["lu", "p"])


@export("linalg.lu", "compat.v1.linalg.lu")
def lu(input, output_idx_type=D.int32, name=None):  # noqa: A002
    """The LU decomposition with partial pivoting of each innermost square
    matrix: (lu, p) with L (unit diagonal, strictly below the diagonal of
    lu) and U (on and above it) such that input[..., p, :] = L @ U.

    Raises:
      InvalidArgumentError: (eager) a matrix is singular (a zero pivot).
    """
    x = convert_to_tensor(input)
    idx = D.as_dtype(output_idx_type)
    if _state.graph is None:
        if x._v.dtype not in _Lu.allowed_np:
            raise U._eager_disallowed(_Lu, x)
        if idx not in (D.int32, D.int64):
            raise errors.InvalidArgumentError(
                None, None, f"Value for attr 'output_idx_type' of {U.tf_type_name(idx)} is not "
                "in the list of allowed values: int32, int64\n\t; NodeDef: {{node Lu}} "
                "[Op:Lu]")
    elif idx not in (D.int32, D.int64):
        raise TypeError(f"Value passed to parameter 'output_idx_type' has DataType {idx.name} "
                        "not in list of allowed values: int32, int64")
    out, p = apply(_Lu, [x], {"output_idx_type": idx}, name=name or "Lu", multi=True)
    return Lu(out, p)


# =============================================================================
# Functions of the factorization (TensorFlow's linalg_impl.py)
# =============================================================================

def _lu_reconstruct_assertions(lower_upper, perm):
    """The static checks of TensorFlow's lu_reconstruct_assertions (its
    validate_args run-time assertions are not reproduced)."""
    s = lower_upper.shape
    if s.rank is not None and s.rank < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if s.rank is not None and perm.shape.rank is not None and s.rank != perm.shape.rank + 1:
        raise ValueError("`rank(lower_upper)` must equal `rank(perm) + 1`")
    if s.rank is not None and TensorShape(s.as_list()[:-2]).is_fully_defined():
        if s[-2] != s[-1]:
            raise ValueError("`lower_upper` must be square.")


def _lu_solve_assertions(lower_upper, perm, rhs):
    _lu_reconstruct_assertions(lower_upper, perm)
    if rhs.shape.rank is not None and rhs.shape.rank < 2:
        raise ValueError("Input `rhs` must have at least 2 dimensions.")
    if lower_upper.shape.rank is not None and rhs.shape.rank is not None:
        n, d = lower_upper.shape[-1], rhs.shape[-2]
        if n is not None and d is not None and n != d:
            raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")


def _factors(lower_upper):
    """L (unit diagonal) from the packed factors."""
    return set_diag(band_part(lower_upper, num_lower=-1, num_upper=0),
                    ones(_shape(lower_upper)[:-1], dtype=lower_upper.dtype))


@export("linalg.lu_solve", "compat.v1.linalg.lu_solve")
def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solves A X = rhs given the LU factorization (lower_upper, perm) of A
    from `tf.linalg.lu`; rhs's and perm's batch dimensions broadcast."""
    del validate_args  # only the static checks, as TensorFlow without it
    with _scope(name or "lu_solve"):
        lower_upper = convert_to_tensor(lower_upper, dtype_hint=D.float32, name="lower_upper")
        perm = convert_to_tensor(perm, dtype_hint=D.int32, name="perm")
        rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype, name="rhs")
        _lu_solve_assertions(lower_upper, perm, rhs)
        if rhs.shape.rank == 2 and perm.shape.rank == 1:
            permuted_rhs = gather(rhs, perm, axis=-2)
        else:
            # Broadcast rhs and perm over their batch dimensions, then gather
            # each batch member's rows.
            rhs_shape = _shape(rhs)
            batch_shape = broadcast_dynamic_shape(rhs_shape[:-2], _shape(perm)[:-1])
            d, m = rhs_shape[-2], rhs_shape[-1]
            rhs_broadcast_shape = concat([batch_shape, stack([d, m])], axis=0)
            broadcast_rhs = reshape(broadcast_to(rhs, rhs_broadcast_shape),
                                    stack([-1, d, m]))
            broadcast_perm = reshape(broadcast_to(perm, rhs_broadcast_shape[:-1]),
                                     stack([-1, d]))
            batch_size = reduce_prod(batch_shape)
            batch_indices = broadcast_to(_range(batch_size)[:, None], stack([batch_size, d]))
            broadcast_perm = stack([batch_indices, broadcast_perm], axis=-1)
            permuted_rhs = reshape(gather_nd(broadcast_rhs, broadcast_perm),
                                   rhs_broadcast_shape)
        lower = _factors(lower_upper)
        return triangular_solve(lower_upper, triangular_solve(lower, permuted_rhs),
                                lower=False)


@export("linalg.lu_matrix_inverse", "compat.v1.linalg.lu_matrix_inverse")
def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of A from its LU factorization (lower_upper, perm)."""
    del validate_args
    with _scope(name or "lu_matrix_inverse"):
        lower_upper = convert_to_tensor(lower_upper, dtype_hint=D.float32, name="lower_upper")
        perm = convert_to_tensor(perm, dtype_hint=D.int32, name="perm")
        _lu_reconstruct_assertions(lower_upper, perm)
        s = _shape(lower_upper)
        return lu_solve(lower_upper, perm,
                        rhs=eye(s[-1], batch_shape=s[:-2], dtype=lower_upper.dtype))


@export("linalg.lu_reconstruct", "compat.v1.linalg.lu_reconstruct")
def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """A from its LU factorization: the rows of L @ U put back in the
    order `perm` took them from."""
    del validate_args
    with _scope(name or "lu_reconstruct"):
        lower_upper = convert_to_tensor(lower_upper, dtype_hint=D.float32, name="lower_upper")
        perm = convert_to_tensor(perm, dtype_hint=D.int32, name="perm")
        _lu_reconstruct_assertions(lower_upper, perm)
        s = _shape(lower_upper)
        upper = band_part(lower_upper, num_lower=0, num_upper=-1)
        x = matmul(_factors(lower_upper), upper)
        if lower_upper.shape.rank != 2:
            # Batched: invert each permutation, gather by (batch, row).
            # TensorFlow maps invert_permutation over the rows; argsort of a
            # permutation is its inverse, without a loop.
            batch_size = reduce_prod(s[:-2])
            d = s[-1]
            x = reshape(x, stack([batch_size, d, d]))
            p = argsort(reshape(perm, stack([batch_size, d])), axis=-1)
            batch_indices = broadcast_to(_range(batch_size)[:, None], stack([batch_size, d]))
            x = reshape(gather_nd(x, stack([batch_indices, p], axis=-1)), s)
        else:
            x = gather(x, invert_permutation(perm))
        x.set_shape(lower_upper.shape)
        return x
