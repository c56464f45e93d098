"""What the `tf.nn` op modules share: the graph name scope of a composite op,
the eager dtype check TensorFlow's kernels make, the compute dtype of the
transcendental kernels, the zero-gradient test and the shape function of the
elementwise gradient kernels."""
import contextlib

import numpy as np

from ...framework import context as _context
from ...framework.tensor import EagerTensor, SymbolicTensor
from ..core import op_util as U

_state = _context.state
_NULL_SCOPE = contextlib.nullcontext()


def _scope(name):
    """A graph name scope for the ops of a composite function (nothing eagerly)."""
    g = _state.graph
    return _NULL_SCOPE if g is None else g.name_scope(name)


def _check_eager_dtype(opdef, t):
    """Eagerly, the InvalidArgumentError TensorFlow raises for a disallowed dtype.

    (While building a graph the op's shape function raises TypeError.)
    """
    if _state.graph is None and opdef.allowed_np is not None and \
            t._v.dtype not in opdef.allowed_np:
        raise U._eager_disallowed(opdef, t)


def _compute_dtype(x):
    """Transcendental kernels compute in float64 and round once, which gives
    the correctly rounded float32 results TensorFlow prints most often."""
    return np.float64


def _is_zero(t):
    """Whether `t` is known now to be all zeros (a gradient that can be skipped)."""
    if t is None:
        return True
    if isinstance(t, EagerTensor):
        return not np.any(t._v)
    if isinstance(t, SymbolicTensor):
        if t.op.type == "ZerosLike":
            return True
        v = t._const
        return v is not None and not np.any(v)
    return False


# Shape function of an elementwise op of two same-shape inputs (gradient kernels).
_same_shape_infer = U.same_shape_infer


def _zero(x):
    return np.zeros((), x.dtype)
