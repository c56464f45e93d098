"""What the linear algebra modules share: the dtype sets, error and name-scope
helpers, and the checks and dispatch of the square-matrix (LAPACK) ops that both
`solve_ops` and `decomposition_ops` register. No op is registered here."""
import contextlib

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply1
from ..core import op_util as U
from ..core.op_util import COMPLEX
from ...framework.op_registry import get


_state = _context.state

_INTS_BIG = U.INDEX

_LINALG_T = tuple(d for d in (D.float64, D.float32, D.float16) if d is not None) + COMPLEX

_F16 = np.dtype(np.float16)


def _scope(name):
    """A graph name scope for the ops of a composite function (nothing eagerly)."""
    g = _state.graph
    if g is None:
        return contextlib.nullcontext()
    return g.name_scope(name)


def _invalid(msg, op=None):
    # `kernel_error` appends " [Op:X]" only to messages not ending in "]";
    # messages ending with a shape need it added here.
    if op is not None and msg.endswith("]"):
        msg += f" [Op:{op}]"
    return errors.InvalidArgumentError(None, None, msg)


def _same_dtype(opname, inputs, arg_a, arg_b):
    a, b = inputs
    if a.dtype is not b.dtype:
        raise TypeError(f"Input '{arg_b}' of '{opname}' Op has type {b.dtype.name} that does not "
                        f"match type {a.dtype.name} of argument '{arg_a}'.")


def _adjoint_last2(x):
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if x.dtype.kind == "c" else x


def _square_check(x, what="Input matrix must be square."):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise _invalid(what)


def _compute_dtype(x):
    """LAPACK has no half precision: compute float16 in float32."""
    return x.astype(np.float32) if x.dtype == _F16 else x


def _square_infer(opname, out_shape_fn=None):
    def infer(inputs, attrs):
        x = inputs[0]
        U.check_allowed(get(opname), x, "input")
        s = x.shape
        if s.rank is not None:
            if s.rank < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {s.rank}")
            r, c = s[-2], s[-1]
            if r is not None and c is not None and r != c:
                raise ValueError(f"Dimensions must be equal, but are {r} and {c}")
        if out_shape_fn is None:
            return [(s, x.dtype)]
        return out_shape_fn(s, x.dtype)
    return infer


def _linalg_unary(opdef, x, attrs, name):
    x = convert_to_tensor(x)
    if _state.graph is None and x._v.dtype not in opdef.allowed_np:
        raise U._eager_disallowed(opdef, x)
    return apply1(opdef, x, attrs, name=name)


def tame(x):
    """Whether every value of `x` is finite and every nonzero magnitude
    within 2**+-(a quarter of the exponent range) (4e9 and 5e-10 in float32):
    where LAPACK's results differ from TensorFlow's Eigen kernels only by
    rounding. Inf, NaN, values whose products overflow, flush to zero or are
    subnormal take Eigen's arithmetic (ops/linalg/eigen_*.py), which loops in
    Python."""
    x = np.asarray(x)
    if x.size == 0:
        return True
    if x.dtype.kind == "c":
        # Each part: a tiny imaginary part next to a large real one still
        # flushes in Eigen's complex arithmetic.
        return tame(x.real) and tame(x.imag)
    if x.dtype.kind != "f":
        return True
    return bool(tame_parts(x.reshape(-1), 0))


def tame_parts(x, axes):
    """`tame` over `axes` of x (a boolean array of the other axes)."""
    a = np.abs(x)                        # complex: its modulus, checked as a whole
    hi = _TAME[a.dtype]
    big = np.max(a, axis=axes)           # NaN propagates: NaN <= hi is False
    small = np.min(a, axis=axes, where=a != 0, initial=np.inf)
    return (big <= hi) & (small >= 1 / hi)


_TAME = {np.dtype(t): 2.0 ** (np.finfo(t).maxexp // 4) for t in (np.float16, np.float32,
                                                                np.float64)}
