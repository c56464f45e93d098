"""`tf.math.xlog1py` (the Xlog1py op: x * log1p(y), 0 where x is 0, with
TensorFlow's float32 log1p bits) and the special functions TensorFlow writes
with other ops: `tf.math.lbeta`, `tf.math.polyval`, `tf.math.erfcinv`."""
import numpy as np

from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from .constant_ops import zeros_like
from .creation_ops import name_scope
from .math_ops import _sum_to, cast, not_equal, subtract
from .op_util import binary
from .reduction_ops import reduce_sum
from .special_functions import ndtri
from .special_math_ops import (_XLOGY, _at_shape_of, _binary_infer, lgamma, xdivy,
                               zero_where_x_is_zero)
from .unary_ops import _register
from ..kernels.jit_kernels import log1p_kernel

def _xlog1py_kernel(x, y):
    ly = log1p_kernel(_at_shape_of(x, np.asarray(y)))
    with np.errstate(all="ignore"):
        return zero_where_x_is_zero(x, x * ly)


def _xlog1py_grad(op, g):
    x, y = op.inputs
    nonzero = cast(not_equal(x, 0), x.dtype)
    return [_sum_to(g * xlog1py(nonzero, y), x), _sum_to(g * xdivy(x, y + 1.0), y)]


@export("math.xlog1py", "math.special.xlog1py")
def xlog1py(x, y, name=None):
    """x * log1p(y), but 0 wherever x is 0 (broadcasting)."""
    return binary(_Xlog1py, x, y, name or "Xlog1py")


@export("math.lbeta")
def lbeta(x, name=None):
    """log(|Beta(x)|) over the last dimension: sum(lgamma(x)) - lgamma(sum(x))."""
    with name_scope(name or "lbeta"):
        x = convert_to_tensor(x, name="x")
        return subtract(reduce_sum(lgamma(x), axis=[-1]), lgamma(reduce_sum(x, axis=[-1])))


@export("math.polyval")
def polyval(coeffs, x, name=None):
    """coeffs[0] * x**(n-1) + ... + coeffs[n-1] by Horner's rule (a list of
    coefficients, highest power first).

    Raises:
      ValueError: if `coeffs` is not a list.
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name or "polyval"):
        x = convert_to_tensor(x, name="x")
        if len(coeffs) < 1:
            return zeros_like(x, name=name)
        coeffs = [convert_to_tensor(c, name="coeff_%d" % i) for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            # the Tensor operators, as TensorFlow's (they promote as NumPy
            # does under tnp's experimental_enable_numpy_behavior)
            p = c + p * x
        return p


@export("math.erfcinv")
def erfcinv(x, name=None):
    """The inverse of erfc: -ndtri(x / 2) * sqrt(1/2)."""
    with name_scope(name or "erfcinv"):
        x = convert_to_tensor(x, name="start")
        return -ndtri(0.5 * x) * np.sqrt(0.5)


_Xlog1py = _register("Xlog1py", _xlog1py_kernel, _binary_infer("Xlog1py", "x", "y"),
                     _xlog1py_grad, _XLOGY)
