"""`tf.experimental.numpy`'s dtypes and its dtype-promotion rules.

The dtype names (`tnp.float32`, `tnp.int_`, ...) are NumPy's scalar types, as
in TensorFlow. Promotion is NumPy's (`np.result_type`) with TensorFlow's two
switches: `prefer_float32` (Python floats count as float32, not float64) and
`allow_float64` (float64/complex128 results narrowed to 32 bits). The dtype
conversion mode ("off", "legacy", "safe", "all") set by
`experimental_enable_numpy_behavior` lives here too: "legacy" turns on NumPy
promotion in the Tensor operators (ops/tensor_operators.py reads
`numpy_style_promotion()`), "safe"/"all" TensorFlow's auto dtype conversion
(np_weak.py).
"""
import enum
import numbers

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export, export_value
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape

# The dtype names: NumPy's scalar types, as TensorFlow exports them.
for _name, _value in (
        ("bool_", np.bool_), ("complex128", np.complex128), ("complex64", np.complex64),
        ("float16", np.float16), ("float32", np.float32), ("float64", np.float64),
        ("inexact", np.inexact), ("int_", np.int_), ("int16", np.int16),
        ("int32", np.int32), ("int64", np.int64), ("int8", np.int8),
        ("object_", np.object_), ("string_", np.bytes_), ("uint16", np.uint16),
        ("uint32", np.uint32), ("uint64", np.uint64), ("uint8", np.uint8),
        ("unicode_", np.str_), ("complex_", np.complex128), ("float_", np.float64)):
    export_value(_value, "experimental.numpy." + _name)
    globals()[_name] = _value
del _name, _value

export_value(np.iinfo, "experimental.numpy.iinfo")
export_value(np.issubdtype, "experimental.numpy.issubdtype")


class PromoMode(enum.Enum):
    """TensorFlow's dtype conversion modes (`dtype_conversion_mode`)."""
    OFF = 0
    LEGACY = 1
    SAFE = 2
    ALL = 3


_MODES = {"off": PromoMode.OFF, "legacy": PromoMode.LEGACY, "safe": PromoMode.SAFE,
          "all": PromoMode.ALL}
_mode = PromoMode.OFF
_prefer_float32 = False
_allow_float64 = True
_to_float32 = {np.dtype("float64"): np.dtype("float32"),
               np.dtype("complex128"): np.dtype("complex64")}


def set_dtype_conversion_mode(mode):
    """Sets the mode from its name ('off', 'legacy', 'safe' or 'all')."""
    global _mode
    try:
        _mode = _MODES[mode]
    except (KeyError, TypeError):
        raise ValueError(f"The provided promotion mode {mode} does not exist.") from None


def get_dtype_conversion_mode():
    """The current `PromoMode`."""
    return _mode


def numpy_style_promotion():
    """Whether the Tensor operators promote as NumPy does ("legacy" mode)."""
    return _mode is PromoMode.LEGACY


def auto_dtype_conversion():
    """Whether TensorFlow's auto dtype conversion ("safe"/"all") is on."""
    return _mode is PromoMode.SAFE or _mode is PromoMode.ALL


def is_prefer_float32():
    return _prefer_float32


def set_prefer_float32(b):
    global _prefer_float32
    _prefer_float32 = b


def is_allow_float64():
    return _allow_float64


def set_allow_float64(b):
    global _allow_float64
    _allow_float64 = b


def canonicalize_dtype(dtype):
    """`dtype`, narrowed to 32 bits when float64 is not allowed."""
    if not _allow_float64:
        return _to_float32.get(dtype, dtype)
    return dtype


def default_float_type():
    """float64, or float32 when `prefer_float32` is set or float64 disallowed."""
    if not _prefer_float32 and _allow_float64:
        return np.float64
    return np.float32


def _result_type(*arrays_and_dtypes):
    """NumPy's result type with `prefer_float32`, as a tf.DType."""
    if _prefer_float32:
        # Python floats become float32 scalars, which NumPy 2 weighs as float32.
        arrays_and_dtypes = [np.float32(x) if isinstance(x, float) else
                             np.complex64(x) if isinstance(x, complex) else x
                             for x in arrays_and_dtypes]
    dtype = np.result_type(*arrays_and_dtypes)
    return D.as_dtype(canonicalize_dtype(dtype))


def as_tf_dtype(type_value):
    """`tf.as_dtype` as TensorFlow has it: the Python types int, complex,
    str and bytes name no dtype there (NumPy's and TensorFlow's do)."""
    if any(type_value is t for t in (int, complex, str, bytes)):
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                        "TensorFlow DType.")
    return D.as_dtype(type_value)


def to_numpy_type(dtype):
    """A NumPy dtype from a tf.DType, NumPy or Python type."""
    if isinstance(dtype, D.DType):
        return dtype.as_numpy_dtype
    return np.dtype(dtype)


def _maybe_get_dtype(x):
    """What `np.result_type` should see for `x`: a number stays itself (its
    value does not decide the type, it is "weak"), a tensor gives its dtype."""
    # An np.ndarray is left to NumPy, which looks only at its dtype.
    if isinstance(x, numbers.Real):
        return x
    if isinstance(x, (Tensor, IndexedSlices)) or hasattr(x, "_dense_var_to_tensor"):
        return to_numpy_type(x.dtype)
    if isinstance(x, D.DType):
        return x.as_numpy_dtype
    if isinstance(x, (list, tuple)):
        raise ValueError(
            "Cannot find dtype for type inference from argument `x` of a sequence "
            f"type {type(x)}. For sequences, please call this function on each "
            "element individually.")
    return x


def _flatten(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flatten(v))
        else:
            out.append(v)
    return out


@export("experimental.numpy.result_type")
def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives the arguments (arrays, tensors,
    Python numbers or dtypes), as a tf.DType; with auto dtype conversion on,
    TensorFlow's lattice instead."""
    if auto_dtype_conversion() and _weak_result_type is not None:
        return _weak_result_type(*arrays_and_dtypes)
    values = [_maybe_get_dtype(x) for x in _flatten(arrays_and_dtypes)]
    if not values:
        values = [np.asarray([])]
    return _result_type(*values)


# Filled by np_weak.py: TensorFlow's auto dtype conversion lattice.
_weak_result_type = None


def result_type_unary(a, dtype):
    """The dtype of a one-input function: `dtype` if given, else `a`'s (a
    Python string is a string, not a dtype name)."""
    if dtype:
        return result_type(dtype)
    if isinstance(a, str):
        return np.str_
    if isinstance(a, bytes):
        return np.bytes_
    return result_type(a)


def result_type_binary(t1, t2):
    """`result_type` of two arguments, the fast way."""
    try:
        return _result_type(_maybe_get_dtype(t1), _maybe_get_dtype(t2))
    except ValueError:
        return result_type(t1, t2)


@export("experimental.numpy.promote_types")
def promote_types(type1, type2):
    """NumPy's `promote_types` of two dtypes (narrowed without float64)."""
    return canonicalize_dtype(np.promote_types(to_numpy_type(type1), to_numpy_type(type2)))


@export("experimental.numpy.finfo")
def finfo(dtype):
    """NumPy's `finfo` of the dtype (a tf.DType, NumPy or Python type)."""
    return np.finfo(to_numpy_type(dtype))


def operator_dtype(x):
    """What the Tensor operators' NumPy promotion sees for an operand."""
    if isinstance(x, numbers.Real):
        return x
    if isinstance(x, Tensor):
        return x.dtype.as_numpy_dtype
    if isinstance(x, D.DType):
        return x.as_numpy_dtype
    if isinstance(x, TensorShape):
        return np.int32
    if isinstance(x, (list, tuple)):
        raise ValueError(f"Cannot determine dtype.  Got sequence {x}.")
    return x
