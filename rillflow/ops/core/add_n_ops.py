"""Sums of a list of tensors: add_n (AddN) and accumulate_n.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import lowering as XL
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, as_shape, dims_text, shape_text
from . import op_util as U
from .reduction_util import NUMERIC, _invalid

_state = _context.state


# --- add_n -----------------------------------------------------------------------

def _add_n_kernel(*xs, N=None):
    first = xs[0]
    shape, dtype = first.shape, first.dtype
    for i, x in enumerate(xs[1:], 1):
        if x.dtype != dtype:
            raise _invalid(f"cannot compute AddN as input #{i}(zero-based) was expected to be a "
                           f"{U.tf_type_name(D.from_numpy(dtype))} tensor but is a "
                           f"{U.tf_type_name(D.from_numpy(x.dtype))} tensor")
        if x.shape != shape:
            raise _invalid("Inputs to operation AddN of type AddN must have the same size and "
                           f"shape.  Input 0: {dims_text(shape)} != input {i}: "
                           f"{dims_text(x.shape)}", "AddN")
    out = first + xs[1]
    if len(xs) > 2:
        if isinstance(out, np.ndarray):
            # `out` is a fresh array: accumulate into it without temporaries.
            for x in xs[2:]:
                np.add(out, x, out=out)
        else:
            for x in xs[2:]:
                out = out + x
    return out


def _add_n_infer(inputs, attrs):
    dtype = inputs[0].dtype
    if dtype not in NUMERIC:
        raise U.graph_dtype_error("inputs", dtype, NUMERIC)
    for t in inputs[1:]:
        if t.dtype is not dtype:
            raise TypeError(f"Tensors in list passed to 'inputs' of 'AddN' Op have types "
                            f"[{', '.join(x.dtype.name for x in inputs)}] that don't all match.")
    s = inputs[0].shape
    for i, t in enumerate(inputs[1:], 1):
        o = t.shape
        if s.rank is None or o.rank is None:
            s = s if o.rank is None else o
            continue
        if s.rank != o.rank:
            raise ValueError(f"Shapes must be equal rank, but are {s.rank} and {o.rank}\n\t"
                             f"From merging shape {i - 1} with other shapes.")
        dims = []
        for k, (a, b) in enumerate(zip(s, o)):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimension {k} in both shapes must be equal, but are {a} and "
                                 f"{b}. Shapes are {shape_text(s)} and {shape_text(o)}.\n\t"
                                 f"From merging shape {i - 1} with other shapes.")
            dims.append(a if a is not None else b)
        s = TensorShape(dims)
    return [(s, dtype)]


_AddN = register("AddN", _add_n_kernel, _add_n_infer,
                 lambda op, g: [g] * len(op.inputs), allowed=NUMERIC)


@export("math.add_n", "add_n")
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of the same shape and dtype.

    A single tensor is returned as is; iterating a tensor argument sums its
    rows, as in TensorFlow.

    Raises:
      ValueError: for an empty list, or (graph) tensors of different shapes.
      InvalidArgumentError: (eager) tensors of different shapes or dtypes.
    """
    if isinstance(inputs, Tensor):
        inputs = list(inputs)
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with "
                         "the same dtype and shape.")
    ts = []
    hint = None
    for x in inputs:
        if x.__class__ is not EagerTensor:
            x = convert_to_tensor(x, dtype_hint=hint)
        if hint is None:
            hint = x.dtype
        ts.append(x)
    if len(ts) == 1:
        return ts[0]
    first = ts[0]
    if first.__class__ is EagerTensor and _state.graph is None and \
            first._v.dtype not in _AddN.allowed_np:
        raise U.eager_dtype_error("AddN", "T", first.dtype, NUMERIC)
    return apply(_AddN, ts, {"N": len(ts)}, name=name or "AddN")


@export("math.accumulate_n")
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The elementwise sum of a list of tensors (as `add_n`; `shape` and
    `tensor_dtype`, when given, must match the inputs)."""
    ts = [convert_to_tensor(x) for x in inputs] if not isinstance(inputs, Tensor) else inputs
    if tensor_dtype is not None:
        for t in ts:
            if t.dtype is not D.as_dtype(tensor_dtype):
                raise TypeError(f"tensor_dtype is {D.as_dtype(tensor_dtype).name}, but input "
                                f"is of type {t.dtype.name}")
    if shape is not None:
        shape = as_shape(shape)
        for t in ts:
            if not t.shape.is_compatible_with(shape):
                raise ValueError(f"Incompatible shape for input: {t.shape} vs. {shape}")
    return add_n(ts, name=name or "AccumulateN")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_add_n(ctx, op, *xs):
    out = xs[0]
    for x in xs[1:]:
        out = XL.jnp.add(out, x)
    return out


XL.set_lowerings({"AddN": _lower_add_n})
