"""JSON encodings of the plain values that op attrs and function signatures
hold: Python scalars and containers, dtypes, shapes, TensorSpecs, NumPy
arrays and byte strings.

Every encoding is data: a JSON scalar, a JSON list (a Python list), or a
one-key object whose key names the kind (`{"tuple": [...]}`,
`{"ndarray": {...}}`). Decoding builds only these kinds; NumPy dtypes come
from a fixed table, so a file can never make the loader import or call
anything. Kinds that refer to graphs (tensors, graphs, functions, variables)
are handled by graph_io through the `other` hooks.
"""
import base64
import collections
import math

import numpy as np

from ..framework import dtypes as D
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec

__all__ = ["encode", "decode", "encode_array", "decode_array", "FormatError"]


class FormatError(ValueError):
    """A saved structure that is not what rillflow writes (corrupt or forged)."""


# The only array dtypes a file may name.
_ARRAY_DTYPES = {name: np.dtype(name) for name in (
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "complex64", "complex128", "bool")}
try:
    import ml_dtypes as _ml_dtypes
    _ARRAY_DTYPES["bfloat16"] = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - depends on the environment
    pass
_ARRAY_NAMES = {dt: name for name, dt in _ARRAY_DTYPES.items()}


def encode_array(a):
    """`{"dtype", "shape", "data"}` of a NumPy array: little-endian bytes in
    base64, or for string arrays (object/bytes/str) a list of base64 items."""
    a = np.asarray(a)
    shape = list(a.shape)
    if a.dtype.kind in "OSU":
        items = [x if isinstance(x, bytes) else str(x).encode("utf-8")
                 for x in a.reshape(-1).tolist()]
        kind = "str" if a.dtype.kind == "U" else "bytes"
        return {"dtype": kind, "shape": shape,
                "items": [base64.b64encode(x).decode("ascii") for x in items]}
    name = _ARRAY_NAMES.get(a.dtype.newbyteorder("="))
    if name is None:
        raise TypeError(f"Cannot save an array of dtype {a.dtype}.")
    data = np.ascontiguousarray(a, dtype=_ARRAY_DTYPES[name].newbyteorder("<")).tobytes()
    return {"dtype": name, "shape": shape, "data": base64.b64encode(data).decode("ascii")}


def decode_array(e):
    """The NumPy array of an `encode_array` entry (a fresh, writable copy)."""
    _expect(isinstance(e, dict), "array entry")
    shape = e.get("shape")
    _expect(isinstance(shape, list) and all(type(d) is int and d >= 0 for d in shape),
            "array shape")
    count = math.prod(shape)
    kind = e.get("dtype")
    if kind in ("bytes", "str"):
        items = e.get("items")
        _expect(isinstance(items, list) and len(items) == count, "string array items")
        raw = [_b64(x) for x in items]
        if kind == "str":
            return np.array([x.decode("utf-8") for x in raw], dtype=str).reshape(shape) \
                if raw else np.zeros(shape, dtype=str)
        out = np.empty(count, dtype=object)
        out[:] = raw
        return out.reshape(shape)
    _expect(kind in _ARRAY_DTYPES, "array dtype %r" % (kind,))
    dt = _ARRAY_DTYPES[kind]
    data = _b64(e.get("data"))
    _expect(len(data) == count * dt.itemsize, "array size")
    return np.frombuffer(data, dtype=dt.newbyteorder("<")).astype(dt, copy=True).reshape(shape)


def _b64(s):
    _expect(isinstance(s, str), "base64 text")
    try:
        return base64.b64decode(s.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise FormatError("bad base64 data") from None


def _expect(ok, what):
    if not ok:
        raise FormatError("malformed " + what)


def encode_shape(shape):
    """A TensorShape as a list of dims (None for unknown) or None for unknown rank."""
    return None if shape.rank is None else list(shape.as_list())


def decode_shape(e):
    """The TensorShape of an `encode_shape` value."""
    if e is None:
        return TensorShape(None)
    _expect(isinstance(e, list) and all(d is None or (type(d) is int and d >= 0) for d in e),
            "shape")
    return TensorShape(e)


def decode_dtype(name):
    """The DType named `name`."""
    _expect(isinstance(name, str), "dtype")
    try:
        return D.as_dtype(name)
    except TypeError:
        raise FormatError(f"unknown dtype {name!r}") from None


def encode(v, other=None):
    """The JSON encoding of `v`. `other(v)` encodes values this module does
    not know (it returns None when it does not know them either).

    Raises:
      TypeError: for a value no encoding exists for.
    """
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int) and not isinstance(v, (np.integer,)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"float": repr(v)}
    if isinstance(v, list):
        return [encode(x, other) for x in v]
    if isinstance(v, tuple):
        if hasattr(v, "_fields"):
            return {"namedtuple": [type(v).__name__, list(v._fields),
                                   [encode(x, other) for x in v]]}
        return {"tuple": [encode(x, other) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[encode(k, other), encode(x, other)] for k, x in v.items()]}
    if isinstance(v, bytes):
        return {"bytes": base64.b64encode(v).decode("ascii")}
    if isinstance(v, D.DType):
        return {"dtype": v.name}
    if isinstance(v, TensorShape):
        return {"shape": encode_shape(v)}
    if isinstance(v, TensorSpec):
        return {"spec": [encode_shape(v.shape), v.dtype.name, v.name]}
    if isinstance(v, np.ndarray):
        return {"ndarray": encode_array(v)}
    if isinstance(v, np.generic):
        return {"scalar": encode_array(np.asarray(v))}
    if other is not None:
        out = other(v)
        if out is not None:
            return out
    raise TypeError(f"cannot save a value of type {type(v).__name__}: {v!r}")


# Namedtuple classes rebuilt on load, one per (name, fields): TensorFlow too
# restores namedtuples as new classes with the saved name and fields.
_NAMEDTUPLES = {}


def _namedtuple(name, fields):
    _expect(isinstance(name, str) and name.isidentifier() and isinstance(fields, list) and
            all(isinstance(f, str) and f.isidentifier() for f in fields), "namedtuple")
    key = (name, tuple(fields))
    cls = _NAMEDTUPLES.get(key)
    if cls is None:
        cls = _NAMEDTUPLES[key] = collections.namedtuple(name, fields)
    return cls


def decode(e, other=None):
    """The value of an `encode` result; `other(kind, payload)` decodes the
    kinds graph_io adds.

    Raises:
      FormatError: for anything `encode` does not produce.
    """
    if e is None or isinstance(e, (bool, str, int, float)):
        return e
    if isinstance(e, list):
        return [decode(x, other) for x in e]
    _expect(isinstance(e, dict) and len(e) == 1, "value")
    (kind, p), = e.items()
    if kind == "tuple":
        _expect(isinstance(p, list), "tuple")
        return tuple(decode(x, other) for x in p)
    if kind == "dict":
        _expect(isinstance(p, list) and all(isinstance(x, list) and len(x) == 2 for x in p),
                "dict")
        out = {}
        for k, x in p:
            k = decode(k, other)
            _expect(isinstance(k, (str, int, float, bool, tuple, bytes)) or k is None, "key")
            out[k] = decode(x, other)
        return out
    if kind == "namedtuple":
        _expect(isinstance(p, list) and len(p) == 3 and isinstance(p[2], list), "namedtuple")
        cls = _namedtuple(p[0], p[1])
        _expect(len(p[2]) == len(p[1]), "namedtuple")
        return cls(*[decode(x, other) for x in p[2]])
    if kind == "float":
        _expect(p in ("nan", "inf", "-inf"), "float")
        return float(p)
    if kind == "bytes":
        return _b64(p)
    if kind == "dtype":
        return decode_dtype(p)
    if kind == "shape":
        return decode_shape(p)
    if kind == "spec":
        _expect(isinstance(p, list) and len(p) == 3 and (p[2] is None or isinstance(p[2], str)),
                "TensorSpec")
        return TensorSpec(decode_shape(p[0]), decode_dtype(p[1]), p[2])
    if kind == "ndarray":
        return decode_array(p)
    if kind == "scalar":
        a = decode_array(p)
        _expect(a.shape == (), "scalar")
        return a[()]
    if other is not None:
        return other(kind, p)
    raise FormatError(f"unknown value kind {kind!r}")
