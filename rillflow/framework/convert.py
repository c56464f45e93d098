"""Turning Python and NumPy values into tensors (`tf.convert_to_tensor`).

TensorFlow's rules: Python ints become int32 (int64 when they do not fit),
floats float32, complex complex128, str/bytes string; NumPy values keep
their dtype. A requested dtype casts NumPy values and Python ints, but a
Python float is never silently truncated to an integer type.
"""
import numpy as np

from . import context as _context
from . import dtypes as _dtypes
from . import errors as _errors
from .tensor import EagerTensor, SymbolicTensor, Tensor
from .tensor_shape import TensorShape
from .execute import apply, apply1, constant_op
from .op_registry import get

__all__ = ["convert_to_tensor", "to_numpy", "register_tensor_conversion_function",
           "aligned_copy"]

_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1
_OBJ = np.dtype(object)
_state = _context.state

# (type, priority, fn(value, dtype, name, as_ref) -> Tensor) registered by users
# and by higher layers (variables, datasets are not here).
_conversion_functions = []


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers `conversion_func(value, dtype=None, name=None, as_ref=False)`.

    Used for values of `base_type` (a type or tuple of types) by
    `convert_to_tensor`; lower priorities are tried first.
    """
    _conversion_functions.append((base_type, priority, conversion_func))
    _conversion_functions.sort(key=lambda e: e[1])


def _encode(x):
    return x.encode("utf-8") if isinstance(x, str) else x


def _string_array(value):
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        v = arr[()]
        if not isinstance(v, (bytes, str)):
            raise TypeError(f"Failed to convert {value!r} to a string tensor.")
        out = np.empty((), dtype=object)
        out[()] = _encode(v)
        return out
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            flat[i] = bytes(v)
        elif not isinstance(v, bytes):
            raise TypeError(f"Failed to convert elements of {value!r} to a string tensor.")
    return flat.reshape(arr.shape)


# TensorFlow's runtime spelling of dtypes (DataTypeString) in its messages.
_RUNTIME_NAME = {"float32": "float", "float64": "double", "float16": "half"}


def _cannot_convert(value, dtype):
    """TensorFlow's TypeError for a Python value that cannot become `dtype`:
    the eager converter's message, or (building a graph) that of
    `make_tensor_proto`, which names the first element that does not fit."""
    if _state.graph is not None and not isinstance(value, (np.ndarray, np.generic)):
        v = _first_misfit(value, dtype)
        return TypeError(f"Expected {dtype.name}, but got {v!r} of type '{type(v).__name__}'.")
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype "
                     f"{_RUNTIME_NAME.get(dtype.name, dtype.name)}")


def _first_misfit(value, dtype):
    """The element of `value` a graph-mode conversion error names: TensorFlow
    reports the first element that cannot become `dtype`."""
    for v in _flatten(value):
        if v.__class__ is float and (dtype.is_integer or dtype.is_bool):
            return v
        if v.__class__ is complex and not dtype.is_complex:
            return v
        if isinstance(v, (str, bytes)) is not (dtype is _dtypes.string):
            return v
    return value


def _python_array(value):
    """Infers the dtype of a Python value as TensorFlow does."""
    t = value.__class__
    if t is float:
        return _float32(np.float32(value), value)
    if t is int:
        if _INT32_MIN <= value <= _INT32_MAX:
            return np.int32(value)
        if not -2 ** 63 <= value < 2 ** 63:
            raise ValueError("Can't convert Python sequence with out-of-range integer to "
                             "Tensor.")
        return np.int64(value)
    if t is bool:
        return np.bool_(value)
    if t is str or t is bytes:
        return _string_array(value)
    if t is complex:
        return np.complex128(value)
    flat = list(_flatten(value))
    if flat and all(isinstance(x, (str, bytes)) for x in flat):
        if _is_ragged(value):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        return _string_array(np.array(value, dtype=object) if not isinstance(value, list)
                             else _object_array(value))
    try:
        arr = np.array(value)
    except (ValueError, OverflowError) as e:
        if isinstance(e, OverflowError) or "too large" in str(e):
            raise ValueError("Can't convert Python sequence with out-of-range integer to "
                             "Tensor.") from None
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
    kind = arr.dtype.kind
    if kind == "O":
        if _is_ragged(value):
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
        flat = list(_flatten(value))
        if flat and all(isinstance(x, (str, bytes)) for x in flat):
            return _string_array(value)
        if any(x is None for x in flat) or value is None:
            raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                             f"({type(value)}) to a Tensor.")
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if kind in "SU":
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if kind == "i":
        if arr.size and (arr.min() < _INT32_MIN or arr.max() > _INT32_MAX):
            return arr.astype(np.int64)
        if _mixes_bool(value):
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        return arr.astype(np.int32)
    if kind == "f":
        if _mixes_bool(value):
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        # As TensorFlow: the first element decides; a NumPy float (scalar or
        # array) keeps its precision, a Python number gives float32.
        first = getattr(next(_flatten(value), None), "dtype", None)
        if first is not None and first.kind == "f" and first != np.float32:
            return arr.astype(first)
        return _float32(arr.astype(np.float32), arr)
    if kind == "c":
        return arr.astype(np.complex128)
    if kind == "b":
        return arr
    raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                     f"({type(value)}) to a Tensor.")


def _float32(out, value):
    """`out`, the float32 inferred for Python floats `value`; TensorFlow refuses
    a finite value that float32 cannot hold (an explicit dtype casts it)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.any(np.isinf(out) & np.isfinite(value)):
            raise ValueError("Can't convert Python sequence with a value out of range for a "
                             "double-precision float.")
    return out


def _object_array(value):
    """A nested list as an object array without NumPy reinterpreting bytes."""
    shape = []
    v = value
    while isinstance(v, (list, tuple)):
        shape.append(len(v))
        v = v[0] if v else None
    arr = np.empty(shape, dtype=object)
    flat = arr.reshape(-1)
    for i, x in enumerate(_flatten(value)):
        flat[i] = x
    return arr


def _flatten(value):
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v)
    else:
        yield value


def _is_ragged(value):
    if not isinstance(value, (list, tuple)):
        return False
    lens = set()
    for v in value:
        lens.add(len(v) if isinstance(v, (list, tuple)) else -1)
    return len(lens) > 1 or any(_is_ragged(v) for v in value)


def _mixes_bool(value):
    """Whether a sequence of numbers starts with a bool: TensorFlow takes the
    dtype from the first element and cannot convert numbers after a bool (bools
    after a number convert to it)."""
    if not isinstance(value, (list, tuple)):
        return False
    first = next(_flatten(value), None)
    return first.__class__ is bool or getattr(first, "dtype", None) == np.bool_


def _has_python_float(value):
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_python_float(v) for v in value)
    return False


# Copies of at least this many bytes start on a 64-byte boundary.
ALIGNED_BYTES = 64 * 1024
_ALIGNMENT = 64


def aligned_copy(arr):
    """A C-ordered copy of NumPy array `arr` that the copy alone refers to;
    a large one starts on a 64-byte boundary. JAX (XLA on the CPU) takes
    such an array as a device buffer without copying it again, where
    NumPy's own allocations (16-byte aligned) are copied on every transfer."""
    if arr.nbytes < ALIGNED_BYTES or arr.__class__ is not np.ndarray or arr.dtype.hasobject:
        return arr.copy()
    buf = np.empty(arr.nbytes + _ALIGNMENT, np.uint8)
    start = -buf.ctypes.data % _ALIGNMENT
    out = buf[start:start + arr.nbytes].view(arr.dtype).reshape(arr.shape)
    np.copyto(out, arr)
    return out


def to_numpy(value, dtype=None):
    """The NumPy value of a Python/NumPy `value`, as `dtype` (a DType) if given.

    Raises:
      TypeError: for a Python float requested as an integer type, or a
        value that cannot become that dtype.
      ValueError: for ragged or unsupported values.
    """
    if dtype is not None and dtype.is_quantized:
        # As the integer type it stores, then relabelled (framework/dtypes.py).
        if isinstance(value, (np.ndarray, np.generic)):
            if value.dtype == dtype._np:
                return value
            value = _dtypes.plain(np.asarray(value))
        base = _dtypes.as_dtype(dtype._np[0])
        return np.asarray(to_numpy(value, base)).view(dtype._np)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = value
        if arr.dtype.kind in "SU":
            arr = _string_array(arr)
        elif arr.dtype.kind == "O" and (dtype is None or dtype is _dtypes.string):
            arr = _string_array(arr)
        if dtype is not None and dtype._np is not None and arr.dtype != dtype._np:
            if dtype is _dtypes.string or arr.dtype == _OBJ:
                raise _cannot_convert(value, dtype)
            with np.errstate(all="ignore"):
                arr = arr.astype(dtype._np)
        if arr is value and isinstance(arr, np.ndarray) and arr.flags.writeable:
            # As TensorFlow: a tensor holds its own copy, so that writing into
            # the caller's array later does not change it (read-only arrays
            # are shared).
            arr = aligned_copy(arr)
        return arr
    if value is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type "
                         "(<class 'NoneType'>) to a Tensor.")
    if dtype is None:
        return _python_array(value)
    np_dtype = dtype._np
    if dtype is _dtypes.string:
        if any(not isinstance(x, (str, bytes)) for x in _flatten(value)):
            raise _cannot_convert(value, dtype)
        return _string_array(value)
    if np_dtype is None:
        raise _cannot_convert(value, dtype)
    if (dtype.is_integer or dtype.is_bool) and _has_python_float(value):
        raise _cannot_convert(value, dtype)
    if dtype.is_bool and any(x.__class__ is not bool for x in _flatten(value)):
        raise _cannot_convert(value, dtype)
    t = value.__class__
    if t is float or t is int or t is bool:
        if t is int and not -2 ** 63 <= value < 2 ** 64:
            raise ValueError("Can't convert Python sequence with out-of-range integer to "
                             "Tensor.")
        if dtype.is_integer and t is int:
            if np_dtype.kind == "u" and value >= 0:
                return np_dtype.type(value % (1 << (8 * np_dtype.itemsize)))
            return np.array(value).astype(np_dtype)[()]
        return np_dtype.type(value)
    if np_dtype.kind == "u" and isinstance(value, (list, tuple)) and all(
            isinstance(x, int) and not isinstance(x, bool) for x in _flatten(value)):
        return np.array(value, dtype=np_dtype) if all(
            0 <= x < (1 << 64) for x in _flatten(value)) else np.array(
            [x % (1 << 64) for x in _flatten(value)], dtype=np_dtype).reshape(np.shape(value))
    if np_dtype.kind in "fc" and not any(isinstance(x, (str, bytes))
                                         for x in _flatten(value)):
        # Convert straight to the requested precision (not through float32).
        try:
            arr = np.array(value, dtype=np_dtype)
        except (ValueError, TypeError):
            arr = None
        if arr is not None and arr.dtype == np_dtype:
            return arr
    arr = _python_array(value)
    if arr.dtype != np_dtype:
        if arr.dtype == _OBJ or (arr.dtype.kind == "c" and dtype.is_floating):
            raise _cannot_convert(value, dtype)
        with np.errstate(all="ignore"):
            arr = arr.astype(np_dtype)
    return arr


def convert_to_tensor(value, dtype=None, name=None, dtype_hint=None, preferred_dtype=None):
    """Converts `value` to a Tensor in the current context (`tf.convert_to_tensor`).

    Eagerly this gives an EagerTensor; while building a graph, a Python value
    becomes a `Const` op and a tensor from outside is captured by the graph.

    Args:
      value: a Tensor, Variable, NumPy value, Python scalar or nested list.
      dtype: required dtype; NumPy values and Python ints are cast to it.
      name: name of a created constant op.
      dtype_hint: dtype to try for Python values; ignored if they do not fit.

    Raises:
      ValueError: a tensor of another dtype was passed with `dtype`.
      TypeError: a Python value cannot become `dtype`.
    """
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    hint = dtype_hint if dtype_hint is not None else preferred_dtype
    cls = value.__class__
    g = _state.graph
    if cls is EagerTensor or cls is SymbolicTensor or isinstance(value, Tensor):
        if dtype is not None and value.dtype is not dtype:
            # TensorFlow names the argument being converted, when given one.
            raise ValueError(f"{name + ': ' if name else ''}Tensor conversion requested dtype "
                             f"{dtype.name} for Tensor with dtype {value.dtype.name}: {value!r}")
        if g is None:
            if cls is SymbolicTensor:
                raise _symbolic_outside_graph(value)
            return value
        if cls is SymbolicTensor and value._op.graph is g:
            return value
        return g.capture(value, name=name)
    if cls is TensorShape:
        return _shape_tensor(value, dtype, name)
    conv = getattr(value, "_dense_var_to_tensor", None)
    if conv is not None:
        return conv(dtype=dtype, name=name)
    for base_type, _, fn in _conversion_functions:
        if isinstance(value, base_type):
            out = fn(value, dtype=dtype, name=name, as_ref=False)
            if out is not NotImplemented:
                return out
    tf_tensor = getattr(value, "__tf_tensor__", None)
    if tf_tensor is not None:
        return tf_tensor(dtype, name)
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        if dtype is None and hint is not None:
            try:
                return _pack(value, _dtypes.as_dtype(hint), name)
            except (TypeError, ValueError):
                pass
        return _pack(value, dtype, name)
    if dtype is None and hint is not None:
        try:
            arr = to_numpy(value, _dtypes.as_dtype(hint))
        except (TypeError, ValueError):
            arr = to_numpy(value)
    else:
        try:
            arr = to_numpy(value, dtype)
        except ValueError:
            if dtype is None and not isinstance(value, (list, tuple, np.ndarray)) and not _is_scalar(value):
                raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported "
                                 f"type ({type(value)}) to a Tensor.") from None
            raise
    return constant_value_tensor(arr, name)


def _shape_tensor(shape, dtype, name):
    """A fully defined TensorShape as a vector: int32 unless a dimension
    needs int64 (TensorFlow's registered conversion of TensorShape)."""
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    int64_value = any(d >= 2**31 for d in dims)
    if dtype is None:
        dtype = _dtypes.int64 if int64_value else _dtypes.int32
    elif dtype is _dtypes.int32 and int64_value:
        raise ValueError(f"Cannot convert TensorShape {shape} to dtype int32; a dimension is "
                         "too large. Consider using tf.int64.")
    return constant_value_tensor(to_numpy(dims, dtype), name)


def _is_scalar(v):
    return isinstance(v, (int, float, complex, bool, str, bytes, np.generic))


def _symbolic_outside_graph(t):
    return TypeError(
        f"A symbolic tensor ({t.name}) was used outside the graph that created it (a "
        "tf.function's tensors cannot leak out of it: return them from the function "
        "instead).")


def _contains_tensor(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            if _contains_tensor(v):
                return True
        elif _is_tensor_item(v):
            return True
    return False


def _is_tensor_item(v):
    # Variables, and values that convert themselves (`__tf_tensor__`: weak tensors).
    return (isinstance(v, Tensor) or hasattr(v, "_dense_var_to_tensor")
            or hasattr(type(v), "__tf_tensor__"))


def _first_dtype(value):
    """The dtype of the first tensor (or variable) of nested lists, depth first."""
    for v in value:
        if _is_tensor_item(v):
            return v.dtype
        if isinstance(v, (list, tuple)):
            d = _first_dtype(v)
            if d is not None:
                return d
    return None


def _cast_tensors(value, dtype):
    """`value` (nested lists) with each tensor of another dtype cast to `dtype`."""
    out = []
    for v in value:
        if isinstance(v, (list, tuple)):
            v = _cast_tensors(v, dtype)
        elif _is_tensor_item(v) and v.dtype is not dtype:
            v = apply1(get("Cast"), convert_to_tensor(v), {"DstT": dtype, "Truncate": False},
                       name="Cast")
        out.append(v)
    return out


def _pack(value, dtype, name):
    """Converts a list or tuple holding tensors as TensorFlow's autopacking
    does: the dtype is `dtype`, else that of the first tensor (depth first);
    with a `dtype`, tensors of another dtype are cast to it first; Python
    values become constants of the dtype and each level is stacked (Pack).

    Raises:
      TypeError: a tensor of another dtype (without `dtype`, in graphs or
        mixed with Python values).
      InvalidArgumentError: eagerly, a list of tensors only, of mixed dtypes
        (TensorFlow's Pack kernel's error).
    """
    inferred = _first_dtype(value)
    if dtype is None:
        dtype = inferred
    elif dtype is not inferred:
        value = _cast_tensors(value, dtype)
    return _autopack(value, dtype, name or "packed")


def _autopack(value, dtype, name):
    pack = get("Pack")
    if _state.graph is None and all(isinstance(v, Tensor) for v in value):
        _check_pack_dtypes(value, name)
        return apply(pack, list(value), {"axis": 0, "N": len(value)}, name=name)
    items, must_pack = [], False
    for i, v in enumerate(value):
        if _is_tensor_item(v):
            if dtype is not None and v.dtype is not dtype:
                raise TypeError(f"Cannot convert a list containing a tensor of dtype {v.dtype} "
                                f"to {dtype} (Tensor is: {v!r})")
            v = convert_to_tensor(v)
            must_pack = True
        elif isinstance(v, (list, tuple)):
            v = _autopack(v, dtype, str(i))
            must_pack = must_pack or isinstance(v, Tensor)
        items.append(v)
    if not must_pack:
        return items
    tensors = [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dtype, name=str(i))
               for i, v in enumerate(items)]
    if _state.graph is None:
        _check_pack_dtypes(tensors, "")
    return apply(pack, tensors, {"axis": 0, "N": len(tensors)}, name=name)


def _check_pack_dtypes(tensors, name):
    """TensorFlow's Pack kernel error for inputs of mixed dtypes (eager)."""
    for i, v in enumerate(tensors):
        if v.dtype is not tensors[0].dtype:
            raise _errors.InvalidArgumentError(
                None, None, f"cannot compute Pack as input #{i}(zero-based) was expected "
                f"to be a {tensors[0].dtype.name} tensor but is a {v.dtype.name} tensor "
                f"[Op:Pack] name: {name}")


def constant_value_tensor(arr, name=None):
    """A tensor holding the NumPy value `arr`: eager, or a Const op in a graph."""
    g = _state.graph
    if g is None:
        return EagerTensor(arr)
    return constant_op(arr, name=name)
