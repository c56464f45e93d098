"""Norms: `norm` (vector and matrix norms; the matrix 2-norm through `svd`) and
`l2_normalize`. Both are built from the public ops, as in TensorFlow, so their
gradients come for free."""
import numpy as np

from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from .linalg_util import _scope
from .decomposition_ops import svd
from ..core.dim_ops import expand_dims, squeeze, transpose
from ..core.math_ops import cast, conj, maximum, multiply, pow as pow_
from ..core.reduction_ops import reduce_max, reduce_sum
from ..core.special_math_ops import complex as complex_, imag, real
from ..core.unary_ops import abs as abs_, rsqrt, sqrt, square


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _ord_in(ord, options):  # noqa: A002 - TensorFlow's argument name
    """Whether `ord` is one of `options`, never comparing strings with numbers."""
    for o in options:
        if isinstance(ord, str) != isinstance(o, str):
            continue
        try:
            if ord == o:
                return True
        except (TypeError, ValueError):
            pass
    return False


@export("norm", "linalg.norm", "compat.v1.norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """Vector or matrix norm of a tensor (`tf.norm`).

    Vector norms (axis None or an int): 'euclidean', 1, 2, np.inf or any
    p > 0. Matrix norms (axis a pair of ints): 'euclidean'/'fro', 1, 2
    (largest singular value) and np.inf. The Euclidean norm of a complex
    tensor is complex, as in TensorFlow.

    Raises:
      ValueError: for an unsupported `ord` or `axis`.
    """
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if is_matrix:
        axis = tuple(axis)
        if not (_is_int(axis[0]) and _is_int(axis[1])) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if not _ord_in(ord, supported):
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
        axis = (int(axis[0]), int(axis[1]))
    else:
        if not (axis is None or _is_int(axis)):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        ok = _ord_in(ord, ["euclidean", 1, 2, np.inf])
        if not ok and not isinstance(ord, str):
            try:
                ok = bool(np.isreal(ord)) and ord > 0
            except TypeError:
                ok = False
        if not ok:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (int(axis),)
    with _scope(name or "norm"):
        x = convert_to_tensor(tensor)
        if _ord_in(ord, ["fro", "euclidean", 2]) and not (is_matrix and _ord_in(ord, [2])):
            result = sqrt(reduce_sum(x * conj(x), axis, keepdims=True))
        elif is_matrix and _ord_in(ord, [2]):
            result = _spectral_norm(x, axis)
        else:
            result = abs_(x)
            if _ord_in(ord, [1]):
                result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix:
                    result = reduce_max(result, axis[1], keepdims=True)
            elif _ord_in(ord, [np.inf]):
                if is_matrix:
                    result = reduce_sum(result, axis[1], keepdims=True)
                result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                p = convert_to_tensor(ord, dtype=result.dtype)
                inv = convert_to_tensor(1.0 / ord, dtype=result.dtype)
                result = pow_(reduce_sum(pow_(result, p), axis, keepdims=True), inv)
        if not keepdims:
            result = squeeze(result, axis)
        return result


def _spectral_norm(x, axis):
    """The largest singular value over the two axes, keeping them as size 1."""
    r = x.shape.rank
    if r is None:
        raise ValueError("The matrix 2-norm needs a tensor of known rank.")
    a0, a1 = axis[0] % r, axis[1] % r
    perm = [i for i in range(r) if i not in (a0, a1)] + [a0, a1]
    s = svd(transpose(x, perm) if perm != list(range(r)) else x, compute_uv=False)
    top = reduce_max(s, -1, keepdims=True)
    top = expand_dims(top, -1)
    # `top` has the reduced axes last; move them back to their places.
    inv = [perm.index(i) for i in range(r)]
    if inv != list(range(r)):
        top = transpose(top, inv)
    if top.dtype is not x.dtype:
        top = cast(top, x.dtype)
    return top


@export("math.l2_normalize", "nn.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon)): scales to unit L2 norm along `axis`.

    Raises:
      ValueError: if both `axis` and its deprecated alias `dim` are given.
    """
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    with _scope(name or "l2_normalize"):
        x = convert_to_tensor(x)
        if x.dtype.is_complex:
            sq = reduce_sum(square(real(x)) + square(imag(x)), axis, keepdims=True)
            inv = rsqrt(maximum(sq, convert_to_tensor(epsilon, dtype=sq.dtype)))
            return complex_(real(x) * inv, imag(x) * inv)
        sq = reduce_sum(square(x), axis, keepdims=True)
        inv = rsqrt(maximum(sq, convert_to_tensor(epsilon, dtype=sq.dtype)))
        return multiply(x, inv)
