"""TensorFlow's value protos (decoded dicts, rillflow/io/proto_codec.py) to
rillflow values and back: `TensorShapeProto`, `DataType`, `TensorProto`,
`AttrValue` (op attributes) and `StructuredValue` (the nested signatures
of saved functions).

Decoding checks what the wire format cannot: dtypes from TensorFlow's
table, ranks and dimensions in range, tensor contents that fit their shape,
and a cap on how large a tensor may be made from a short fill value (a
`Const` of shape [10**12] with one `float_val` would otherwise allocate
terabytes). Anything else is an `InvalidArgumentError`.
"""
import collections
import math

import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..ops.state.variables import VariableSpec

__all__ = ["shape_from_proto", "shape_to_proto", "dtype_from_enum", "tensor_from_proto",
           "tensor_to_proto", "attr_from_proto", "attr_to_proto", "structure_from_proto",
           "structure_to_proto", "MAX_FILL_BYTES"]

MAX_RANK = 254
# The largest tensor a TensorProto may describe with fewer values than
# elements (TensorFlow repeats the last value): 256 MiB.
MAX_FILL_BYTES = 1 << 28


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


# --- shapes and dtypes -----------------------------------------------------------------------

def shape_from_proto(p):
    """The TensorShape of a TensorShapeProto dict (-1: unknown dimension)."""
    if p.get("unknown_rank"):
        return TensorShape(None)
    dims = p.get("dim", [])
    if len(dims) > MAX_RANK:
        raise _bad(f"shape of rank {len(dims)} is larger than {MAX_RANK}")
    out = []
    for d in dims:
        size = d.get("size", 0)
        if size < -1:
            raise _bad(f"invalid dimension {size} in a shape")
        out.append(None if size == -1 else size)
    return TensorShape(out)


def shape_to_proto(shape):
    """The TensorShapeProto dict of a TensorShape (or a list of dims)."""
    shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
    if shape.rank is None:
        return {"unknown_rank": True}
    return {"dim": [{"size": -1 if d is None else int(d)} for d in shape.as_list()]}


def dtype_from_enum(value):
    """The DType of a DataType enum value."""
    try:
        dt = D.as_dtype(int(value))
    except (TypeError, KeyError, ValueError):
        raise _bad(f"unknown DataType {value}") from None
    return dt


# --- tensors ---------------------------------------------------------------------------------

_VAL_FIELDS = {"float32": "float_val", "float64": "double_val", "int32": "int_val",
               "int16": "int_val", "int8": "int_val", "uint8": "int_val", "uint16": "int_val",
               "int64": "int64_val", "bool": "bool_val", "uint32": "uint32_val",
               "uint64": "uint64_val", "float16": "half_val", "bfloat16": "half_val",
               "complex64": "scomplex_val", "complex128": "dcomplex_val",
               "string": "string_val"}


def _numpy_dtype(dt):
    if dt is D.string:
        return np.dtype(object)
    try:
        return np.dtype(dt.as_numpy_dtype)
    except (TypeError, AttributeError):
        raise _bad(f"tensors of dtype {dt.name} cannot be read") from None


def tensor_from_proto(p):
    """The NumPy value of a TensorProto dict (strings as an object array of
    bytes).

    Raises:
      InvalidArgumentError: for contents that do not fit the shape, or a
        fill larger than MAX_FILL_BYTES.
    """
    dt = dtype_from_enum(p.get("dtype", 0))
    shape = shape_from_proto(p.get("tensor_shape", {}))
    if not shape.is_fully_defined():
        raise _bad("a tensor's shape must be fully defined")
    dims = shape.as_list()
    count = math.prod(dims)
    npdt = _numpy_dtype(dt)
    content = p.get("tensor_content", b"")
    if content and dt is not D.string:
        if len(content) != count * npdt.itemsize:
            raise _bad(f"tensor_content holds {len(content)} bytes for a {dt.name} tensor "
                       f"of shape {dims}")
        return np.frombuffer(content, dtype=npdt.newbyteorder("<")).astype(npdt).reshape(dims)
    field = _VAL_FIELDS.get(dt.name)
    if field is None:
        raise _bad(f"tensors of dtype {dt.name} cannot be read")
    vals = p.get(field, [])
    per = 2 if dt.name in ("complex64", "complex128") else 1
    n = len(vals) // per
    if n > count:
        raise _bad(f"a tensor of shape {dims} has {n} values")
    if n < count and count * npdt.itemsize > MAX_FILL_BYTES:
        raise _bad(f"a tensor of shape {dims} filled from {n} values is larger than "
                   f"{MAX_FILL_BYTES} bytes")
    if dt is D.string:
        out = np.empty(count, dtype=object)
        if count:
            out[:n] = list(vals)
            out[n:] = vals[-1] if vals else b""
        return out.reshape(dims)
    if dt.name in ("float16", "bfloat16"):
        arr = np.array(vals, dtype=np.uint16).view(npdt)
    elif per == 2:
        arr = np.array(vals, dtype=np.float32 if dt.name == "complex64" else np.float64)
        arr = arr[0::2] + 1j * arr[1::2]
        arr = arr.astype(npdt)
    else:
        arr = np.array(vals, dtype=npdt)
    if n == count:
        return arr.reshape(dims)
    out = np.zeros(count, dtype=npdt)
    if n:
        out[:n] = arr
        out[n:] = arr[-1]
    return out.reshape(dims)


def tensor_to_proto(value, dtype=None):
    """The TensorProto dict of a NumPy value (raw `tensor_content` for
    numbers, `string_val` for strings, as TensorFlow writes them)."""
    arr = np.asarray(value)
    dt = dtype if dtype is not None else (D.string if arr.dtype.kind in "OSU" else
                                          D.as_dtype(arr.dtype))
    p = {"dtype": dt.as_datatype_enum, "tensor_shape": shape_to_proto(list(arr.shape))}
    if dt is D.string:
        p["string_val"] = [x if isinstance(x, bytes) else str(x).encode("utf-8")
                           for x in arr.reshape(-1).tolist()]
    elif arr.size:
        npdt = _numpy_dtype(dt)
        p["tensor_content"] = np.ascontiguousarray(arr, dtype=npdt.newbyteorder("<")).tobytes()
    return p


# --- attributes ------------------------------------------------------------------------------

_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


_KIND_FIELDS = {"string": "s", "int": "i", "float": "f", "bool": "b", "type": "type",
                "shape": "shape", "tensor": "tensor", "func": "func"}


def attr_from_proto(p, kind=None):
    """The rillflow value of an AttrValue dict. `kind` is the OpDef's attr
    type ("string", "int", "list(type)", "func", ...) when known: it decides
    an empty list's type and how strings are read (`string`: str), and a
    value of another type is refused.

    Raises:
      InvalidArgumentError: for a value that is not of type `kind`.
    """
    if kind is not None:
        _check_kind(p, kind)
    if "list" in p:
        lst = p["list"]
        for field in _LIST_FIELDS:
            if lst.get(field):
                return [_scalar_attr(field, v, kind) for v in lst[field]]
        return []
    for field in ("s", "i", "f", "b", "type", "shape", "tensor", "func", "placeholder"):
        if field in p:
            if field == "placeholder":
                raise _bad("function attributes with placeholders (polymorphic functions) "
                           "are not supported")
            return _scalar_attr(field, p[field], kind)
    return None


def _check_kind(p, kind):
    is_list = kind.startswith("list(")
    field = _KIND_FIELDS.get(kind[5:-1] if is_list else kind)
    if field is None:
        return
    if is_list:
        lst = p.get("list")
        ok = isinstance(lst, dict) and all(not lst.get(f) for f in _LIST_FIELDS if f != field)
    else:
        ok = field in p
    if not ok:
        raise _bad(f"an attribute of type {kind} holds {sorted(p) or 'nothing'}")


def _scalar_attr(field, v, kind):
    if field == "s":
        if kind is not None and "string" in kind:
            try:
                return v.decode("utf-8")
            except UnicodeDecodeError:
                raise _bad("a string attribute is not valid UTF-8") from None
        return v
    if field == "type":
        return dtype_from_enum(v)
    if field == "shape":
        return shape_from_proto(v)
    if field == "tensor":
        return tensor_from_proto(v)
    if field == "func":
        return {"name": v.get("name", ""), "attr": v.get("attr", {})}
    return v


def attr_to_proto(value, kind=None):
    """The AttrValue dict of a rillflow attr value (`kind` as for
    `attr_from_proto`, to tell an empty list's type or bytes from ints).

    Raises:
      TypeError: for a value no AttrValue holds.
    """
    if isinstance(value, (list, tuple)):
        field = None
        if value:
            field = _attr_field(value[0])
        elif kind and kind.startswith("list("):
            field = {"list(int)": "i", "list(float)": "f", "list(bool)": "b",
                     "list(type)": "type", "list(shape)": "shape", "list(string)": "s",
                     "list(tensor)": "tensor", "list(func)": "func"}.get(kind)
        if field is None:
            return {"list": {}}
        return {"list": {field: [_attr_scalar_to_proto(field, v) for v in value]}}
    field = _attr_field(value)
    return {field: _attr_scalar_to_proto(field, value)}


def _attr_field(v):
    if isinstance(v, bool):
        return "b"
    if isinstance(v, (int, np.integer)):
        return "i"
    if isinstance(v, (float, np.floating)):
        return "f"
    if isinstance(v, (str, bytes)):
        return "s"
    if isinstance(v, D.DType):
        return "type"
    if isinstance(v, TensorShape):
        return "shape"
    if isinstance(v, np.ndarray):
        return "tensor"
    if isinstance(v, dict) and "name" in v:
        return "func"
    raise TypeError(f"an attribute of type {type(v).__name__} cannot be saved")


def _attr_scalar_to_proto(field, v):
    if field == "s":
        return v.encode("utf-8") if isinstance(v, str) else bytes(v)
    if field == "i":
        return int(v)
    if field == "f":
        return float(v)
    if field == "b":
        return bool(v)
    if field == "type":
        return v.as_datatype_enum
    if field == "shape":
        return shape_to_proto(v)
    if field == "tensor":
        return tensor_to_proto(v)
    return {"name": v["name"], **({"attr": v["attr"]} if v.get("attr") else {})}


# --- StructuredValue -------------------------------------------------------------------------

# TypeSpecProto.TypeSpecClass values rillflow reads and writes.
VARIABLE_SPEC = 9
_NAMEDTUPLES = {}


def _namedtuple(name, fields):
    if not (name.isidentifier() and all(f.isidentifier() for f in fields)) or \
            len(set(fields)) != len(fields):
        raise _bad(f"invalid named tuple {name}{tuple(fields)}")
    key = (name, tuple(fields))
    cls = _NAMEDTUPLES.get(key)
    if cls is None:
        cls = _NAMEDTUPLES[key] = collections.namedtuple(name, fields)
    return cls


def structure_from_proto(p):
    """The Python value of a StructuredValue dict: None, numbers, strings,
    TensorShapes, DTypes, TensorSpecs (bounded ones too), VariableSpecs,
    lists, tuples, dicts, named tuples (rebuilt as new classes with the
    saved name and fields, as TensorFlow does) and tensors (NumPy).

    Raises:
      InvalidArgumentError: for a type spec rillflow cannot rebuild.
    """
    if not p or "none_value" in p:
        return None
    if "float64_value" in p:
        return p["float64_value"]
    if "int64_value" in p:
        return p["int64_value"]
    if "string_value" in p:
        return p["string_value"]
    if "bool_value" in p:
        return p["bool_value"]
    if "tensor_shape_value" in p:
        return shape_from_proto(p["tensor_shape_value"])
    if "tensor_dtype_value" in p:
        return dtype_from_enum(p["tensor_dtype_value"])
    for key in ("tensor_spec_value", "bounded_tensor_spec_value"):
        if key in p:
            s = p[key]
            return TensorSpec(shape_from_proto(s.get("shape", {})),
                              dtype_from_enum(s.get("dtype", 0)), name=s.get("name") or None)
    if "list_value" in p:
        return [structure_from_proto(v) for v in p["list_value"].get("values", [])]
    if "tuple_value" in p:
        return tuple(structure_from_proto(v) for v in p["tuple_value"].get("values", []))
    if "dict_value" in p:
        fields = p["dict_value"].get("fields", {})
        return {k: structure_from_proto(fields[k]) for k in sorted(fields)}
    if "named_tuple_value" in p:
        nt = p["named_tuple_value"]
        pairs = nt.get("values", [])
        cls = _namedtuple(nt.get("name", ""), [q.get("key", "") for q in pairs])
        return cls(*[structure_from_proto(q.get("value", {})) for q in pairs])
    if "tensor_value" in p or "numpy_value" in p:
        return tensor_from_proto(p.get("tensor_value", p.get("numpy_value")))
    if "type_spec_value" in p:
        return _type_spec_from_proto(p["type_spec_value"])
    raise _bad("an empty or unknown StructuredValue")


def _type_spec_from_proto(p):
    state = structure_from_proto(p.get("type_state", {}))
    if p.get("type_spec_class") == VARIABLE_SPEC and isinstance(state, tuple) and \
            len(state) >= 2:
        shape, dtype = state[0], state[1]
        trainable = state[2] if len(state) > 2 and isinstance(state[2], bool) else True
        if isinstance(shape, TensorShape) and isinstance(dtype, D.DType):
            return VariableSpec(shape, dtype, trainable)
    raise _bad(f"type spec {p.get('type_spec_class_name') or p.get('type_spec_class')} "
               "is not supported by rillflow's SavedModel loader")


def structure_to_proto(v):
    """The StructuredValue dict of a Python value (the kinds
    `structure_from_proto` reads).

    Raises:
      TypeError: for a value with no StructuredValue form.
    """
    if v is None:
        return {"none_value": {}}
    if isinstance(v, bool):
        return {"bool_value": v}
    if isinstance(v, (int, np.integer)):
        return {"int64_value": int(v)}
    if isinstance(v, (float, np.floating)):
        return {"float64_value": float(v)}
    if isinstance(v, str):
        return {"string_value": v}
    if isinstance(v, TensorShape):
        return {"tensor_shape_value": shape_to_proto(v)}
    if isinstance(v, D.DType):
        return {"tensor_dtype_value": v.as_datatype_enum}
    if isinstance(v, VariableSpec):
        return {"type_spec_value": {
            "type_spec_class": VARIABLE_SPEC, "type_spec_class_name": "VariableSpec",
            "num_flat_components": 1,
            "type_state": structure_to_proto((v.shape, v.dtype, v.trainable))}}
    if isinstance(v, TensorSpec):
        spec = {"shape": shape_to_proto(v.shape), "dtype": v.dtype.as_datatype_enum}
        if v.name:
            spec["name"] = v.name
        return {"tensor_spec_value": spec}
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return {"named_tuple_value": {"name": type(v).__name__, "values": [
            {"key": k, "value": structure_to_proto(x)} for k, x in zip(v._fields, v)]}}
    if isinstance(v, tuple):
        return {"tuple_value": {"values": [structure_to_proto(x) for x in v]}}
    if isinstance(v, list):
        return {"list_value": {"values": [structure_to_proto(x) for x in v]}}
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise TypeError("dict keys of a saved structure must be strings")
        return {"dict_value": {"fields": {k: structure_to_proto(x) for k, x in v.items()}}}
    if isinstance(v, np.ndarray):
        return {"numpy_value": tensor_to_proto(v)}
    raise TypeError(f"a value of type {type(v).__name__} cannot be saved in a signature")
