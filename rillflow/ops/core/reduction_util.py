"""What the reduction families share: the dtype lists their ops allow (in the order
TensorFlow's messages list them) and the argument helpers (an axis, index or size argument
as an int tensor, cached eagerly for small Python ints; InvalidArgumentError with
TensorFlow's ` [Op:Name]` suffix; a name scope for composites). No ops are registered here.
"""
import contextlib

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.tensor import EagerTensor, Tensor
from . import op_util as U

_state = _context.state
_BOOL = (D.bool_,)


def _present(*dtypes):
    return tuple(d for d in dtypes if d is not None)


# Allowed dtypes in the order TensorFlow lists them in its messages.
NUMERIC = _present(D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.complex64,
                   D.int64, D.bfloat16, D.uint16, D.complex128, D.float16, D.uint32, D.uint64)
REAL = _present(D.float32, D.float64, D.int32, D.uint8, D.int16, D.int8, D.int64, D.bfloat16,
                D.uint16, D.float16, D.uint32, D.uint64)
FLOATS = _present(D.bfloat16, D.float16, D.float32, D.float64)
_IDX = U.INDEX


# --- small helpers -----------------------------------------------------------

def _invalid(msg, op_name=None):
    """An InvalidArgumentError; `op_name` appends the ` [Op:Name]` suffix,
    needed when the message itself ends with `]` (a shape)."""
    if op_name is not None:
        msg = f"{msg} [Op:{op_name}]"
    return errors.InvalidArgumentError(None, None, msg)


def _input_name(op_name, arg):
    """The name TensorFlow gives a constant input made for an op while
    building a graph: `<op name>/<arg>` (e.g. `Sum/reduction_indices`)."""
    g = _state.graph
    if g is None or op_name is None:
        return None
    full = g.unique_name(op_name, mark_as_used=False)
    stack = g.get_name_scope()
    if stack and full.startswith(stack + "/"):
        full = full[len(stack) + 1:]
    return f"{full}/{arg}"


_EAGER_AXES = {}


def _cached_axes(key, make):
    t = _EAGER_AXES.get(key)
    if t is None:
        t = _EAGER_AXES[key] = EagerTensor(make())
    return t


def _index_tensor(v, op_name=None, arg=None, strict=True):
    """An axis/index/size argument as an int tensor (Python values become
    int32). With `strict`, a Python float is rejected while converting;
    otherwise it becomes a float tensor for the op's dtype check to reject.
    In graphs a new constant is named after the op (`op_name`/`arg`)."""
    if isinstance(v, Tensor):
        return v
    if v.__class__ is int and -64 <= v < 64 and _state.graph is None:
        return _cached_axes(v, lambda: np.int32(v))
    if hasattr(v, "_dense_var_to_tensor"):
        return convert_to_tensor(v)
    name = _input_name(op_name, arg) if arg is not None else None
    if not strict:
        return convert_to_tensor(v, name=name)
    if isinstance(v, np.ndarray) and v.dtype.kind in "iu":
        return convert_to_tensor(v if v.dtype in (np.int32, np.int64) else v.astype(np.int32),
                                 name=name)
    return convert_to_tensor(v, dtype=D.int32, name=name)


def _scope(name):
    """A name scope for a composite op while building a graph (nothing eagerly)."""
    g = _state.graph
    if g is None:
        return contextlib.nullcontext()
    return g.name_scope(name)


def _fast_eager():
    """Whether composites may compute their value directly: eager, no tape."""
    return _state.graph is None and not _state.tapes
