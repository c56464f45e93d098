"""What the string op modules share: object arrays of Python `bytes` (a 0-d
result is a 0-d object array, since NumPy would otherwise hand back a bare
`bytes`), UTF-8 with `surrogateescape` (invalid bytes survive a round trip
unchanged), and the argument checks with TensorFlow's errors."""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ..core import op_util as U

_state = _context.state


def _obj_array(values, shape):
    """An object array of `shape` holding `values` (an iterable of bytes)."""
    out = np.empty(shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(values):
        flat[i] = v
    return out


def _map_strings(x, fn):
    """`fn` applied to every bytes element of object array `x`, same shape."""
    return _obj_array((fn(v) for v in x.reshape(-1)), x.shape)


def _decode(b):
    return b.decode("utf-8", "surrogateescape")


def _encode(s):
    return s.encode("utf-8", "surrogateescape")


def _no_grads(op, *grads):
    return [None] * len(op.inputs)


def _string_input(x, op_name, arg="input", name=None):
    """`x` as a string tensor, or TensorFlow's error for another dtype."""
    if isinstance(x, Tensor) or hasattr(x, "_dense_var_to_tensor"):
        t = convert_to_tensor(x)
    else:
        t = convert_to_tensor(x, dtype=D.string, name=name)
    if t.dtype is not D.string:
        if _state.graph is None:
            raise errors.InvalidArgumentError(
                None, None, f"cannot compute {op_name} as input #0(zero-based) was expected to "
                f"be a string tensor but is a {U.tf_type_name(t.dtype)} tensor [Op:{op_name}]")
        raise TypeError(f"Input '{arg}' of '{op_name}' Op has type {t.dtype.name} that does not "
                        "match expected type of string.")
    return t


def _check_string(t, op_name, arg="input"):
    if t.dtype is not D.string:
        raise TypeError(f"Input '{arg}' of '{op_name}' Op has type {t.dtype.name} that does not "
                        "match expected type of string.")


def _same_shape_infer(op_name, out_dtype=D.string):
    def infer(inputs, attrs):
        _check_string(inputs[0], op_name)
        return [(inputs[0].shape, out_dtype)]
    return infer


def _check_unit(unit, op_name):
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise U.op_error(op_name, f"Value for attr 'unit' of \"{unit}\" is not in the list of "
                         "allowed values: \"BYTE\", \"UTF8_CHAR\"")
