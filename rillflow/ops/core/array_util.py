"""Argument helpers shared by the array ops (and imported by other core families):
shape, axis and multiples arguments as int32/int64 tensors (`_index_input`, with a fast
path for lists of Python ints), inputs converted to one dtype as TensorFlow converts them
(`_convert_same_dtype`), and the part of a shape tensor known while building
(`_partial_values`, `_shape_from_tensor`). No ops are registered here.
"""
import numpy as np

from ...framework.context import executing_eagerly
from ...framework import dtypes as D
from ...framework.convert import constant_value_tensor, convert_to_tensor
from ...framework.tensor import SymbolicTensor, Tensor
from ...framework.tensor_shape import TensorShape
from .. import late
from . import op_util as U

_INDEX_TYPES = U.INDEX


# --- helpers shared by the array ops (and imported by other families) --------

def _is_tensor_like(v):
    return isinstance(v, Tensor) or hasattr(v, "_dense_var_to_tensor")


_I32_MIN, _I32_MAX = -2 ** 31, 2 ** 31 - 1


def _int_list_tensor(value):
    """A constant int32 (int64 if needed) tensor for a list of Python ints
    or a list of such lists; None for any other value. A fast path for the
    shape arguments ops are called with most often."""
    if value.__class__ is not list and value.__class__ is not tuple:
        return None
    flat = value
    if value and (value[0].__class__ is list or value[0].__class__ is tuple):
        n = len(value[0])
        flat = []
        for row in value:
            if (row.__class__ is not list and row.__class__ is not tuple) or len(row) != n:
                return None
            flat.extend(row)
    for v in flat:
        if v.__class__ is not int:
            return None
    if not flat:
        return None
    big = min(flat) < _I32_MIN or max(flat) > _I32_MAX
    return constant_value_tensor(np.array(value, dtype=np.int64 if big else np.int32))


def _index_input(value, op_name, param, attr):
    """Converts a shape/axis/multiples argument to an int32 or int64 tensor.

    Raises:
      InvalidArgumentError (eager) / TypeError (graph): for other dtypes.
    """
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, Tensor):
        t = value
    elif value.__class__ is int and _I32_MIN <= value <= _I32_MAX:
        t = constant_value_tensor(np.int32(value))
    elif isinstance(value, (list, tuple)) and not value:
        t = constant_value_tensor(np.zeros(0, np.int32))
    else:
        t = _int_list_tensor(value)
        if t is None:
            t = convert_to_tensor(_cast_float_tensor_elements(value))
    if t.dtype not in _INDEX_TYPES:
        raise U.dtype_error(op_name, t.dtype, _INDEX_TYPES, attr, param)
    return t


def _cast_float_tensor_elements(value):
    """A list of dimensions holding float tensors, as TensorFlow converts it
    for an int32 input: those elements truncated to int32 (`tf.reshape(x,
    (k[0], k[1]))` with float `k` works on TensorFlow, eagerly and in
    graphs; a float tensor or a list of Python floats does not)."""
    if not isinstance(value, (list, tuple)) or not any(
            isinstance(v, Tensor) and v.dtype.is_floating for v in value):
        return value
    return [late.cast(v, D.int32) if isinstance(v, Tensor) and v.dtype.is_floating else v
            for v in value]


def _index_pair(s0, s1, op_name):
    """Two int32/int64 shape vectors of one dtype (Python values take the
    dtype of a tensor operand)."""
    vals = [np.zeros(0, np.int32) if isinstance(v, (list, tuple)) and not v else v
            for v in (s0, s1)]
    a, b = _convert_same_dtype(vals, op_name)
    if a.dtype not in _INDEX_TYPES:
        raise U.dtype_error(op_name, a.dtype, _INDEX_TYPES, "T", "s0")
    return a, b


def _int_vector(v, dtype=D.int32, name=None):
    """A shape-like argument (list, TensorShape, tensor) as an int tensor."""
    if isinstance(v, TensorShape):
        v = v.as_list()
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v, dtype=dtype, name=name)


def _convert_same_dtype(values, op_name, mismatch=None, first_input=0, list_input=False):
    """Converts the inputs of an op whose inputs share one dtype `T`.

    As TensorFlow does, the first tensor among `values` fixes the dtype
    (the first value, converted, when none is a tensor) and Python values
    are converted to it; a Python float asked to become an integer raises
    TypeError. `mismatch(i, dtypes)` builds the graph-mode TypeError;
    `first_input` is the op input index of `values[0]`, or a list of the
    op input index of each value (for messages). `list_input`: the values
    are one list input (Pack, ConcatV2), which a graph converts value by
    value when none is a tensor.
    """
    base = None
    for v in values:
        if _is_tensor_like(v):
            base = v.dtype
            break
    # Without a tensor among them, a graph op converts each value of a list
    # input on its own (a mismatch is the op's TypeError); separate inputs,
    # and eagerly all, take the dtype of the first.
    independent = list_input and base is None and not executing_eagerly()
    out = []
    for v in values:
        if _is_tensor_like(v) or independent:
            t = convert_to_tensor(v)
        else:
            t = convert_to_tensor(v, dtype=base)
        if base is None:
            base = t.dtype
        out.append(t)
    for i, t in enumerate(out):
        if t.dtype is not base:
            if executing_eagerly():
                pos = first_input[i] if isinstance(first_input, list) else i + first_input
                raise U.op_error(op_name, f"cannot compute {op_name} as input "
                                          f"#{pos}(zero-based) was expected to be a "
                                          f"{U.tf_type_name(base)} tensor but is a "
                                          f"{U.tf_type_name(t.dtype)} tensor")
            if mismatch is not None:
                raise mismatch(i, [x.dtype for x in out])
            raise TypeError(f"Tensors in list passed to 'values' of '{op_name}' Op have types "
                            f"[{', '.join(x.dtype.name for x in out)}] that don't all match.")
    return out


def _partial_values(t):
    """The elements of a 1-D int tensor known while building, None for the
    unknown ones; None when even its length is unknown."""
    v = U.constant_value(t)
    if v is not None:
        return [int(x) for x in np.reshape(v, -1)]
    if isinstance(t, SymbolicTensor):
        op = t.op
        if op.type == "Shape":
            s = op.inputs[0].shape
            if s.rank is not None:
                return s.as_list()
        elif op.type == "Pack" and op.get_attr("axis") == 0 and \
                all(i.shape.rank == 0 for i in op.inputs):
            out = []
            for i in op.inputs:
                c = U.constant_value(i)
                out.append(None if c is None else int(c))
            return out
        elif op.type == "ConcatV2":
            out = []
            for i in op.inputs[:-1]:
                p = _partial_values(i)
                if p is None:
                    break
                out.extend(p)
            else:
                return out
        elif op.type in ("Cast", "Identity"):
            return _partial_values(op.inputs[0])
    s = t.shape
    if s.rank == 1 and s[0] is not None:
        return [None] * s[0]
    return None


def _shape_from_tensor(t, op_desc="shape"):
    """A TensorShape from a 1-D shape tensor (None dims where unknown, and
    for -1 entries).

    Raises:
      ValueError: if the tensor is not 1-D or holds a value below -1.
    """
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.shape.rank}")
    vals = _partial_values(t)
    if vals is None:
        return TensorShape(None)
    for v in vals:
        if v is not None and v < -1:
            raise ValueError(f"Invalid value in tensor used for shape: {v}")
    return TensorShape([None if v is None or v < 0 else v for v in vals])


def _num_elements(dims):
    """Elements of a partial shape: 0 when a known dim is 0, None when unknown."""
    if any(d == 0 for d in dims):
        return 0
    if any(d is None for d in dims):
        return None
    n = 1
    for d in dims:
        n *= d
    return n


def _like_shape(g, x):
    """`g` (a gradient of `x`) with the static shape of `x` merged in, for
    gradients computed through shape arithmetic that loses it."""
    if isinstance(g, SymbolicTensor) and x.shape.rank is not None:
        g.set_shape(x.shape)
    return g


def _check_scalar_axis(t):
    if t.shape.rank is not None and t.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank}")
