"""`tf.io.decode_json_example`: tf.train.Example records in protobuf's JSON
mapping to serialized Examples (the DecodeJSONExample op).

The JSON follows proto3's mapping: `{"features": {"feature": {key:
{"int64List" | "floatList" | "bytesList": {"value": [...]}}}}}` (the
proto field names `int64_list`, ... are accepted too); int64 values are
numbers or strings, floats numbers or "NaN"/"Infinity"/"-Infinity", bytes
base64. The bytes are written as TensorFlow's JSON converter writes them:
map entries in the order given, repeated values unpacked.
"""
import base64
import binascii
import json
import math
import struct

import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...io import wire
from ..core import op_util as U

__all__ = ["decode_json_example"]

_LISTS = {"bytesList": 1, "bytes_list": 1, "floatList": 2, "float_list": 2,
          "int64List": 3, "int64_list": 3}


class _JsonError(ValueError):
    pass


class _Obj(list):
    """A JSON object as its (key, value) pairs: the order (map entries are
    written in it) and repeated keys kept."""


def _fields(obj, where, allowed):
    if obj is None:
        return []
    if not isinstance(obj, _Obj):
        raise _JsonError(f"{where}: expected an object")
    for k, _ in obj:
        if k not in allowed:
            raise _JsonError(f"{where}: no such field: '{k}'")
    return obj


def _int64(v, where):
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise _JsonError(f"{where}: int64: expected number or string")
    if isinstance(v, str):
        s = v.strip()
        try:
            v = int(s, 0)
        except ValueError:
            try:
                v = float(s)
            except ValueError:
                raise _JsonError(f"{where}: int64: invalid number '{v}'") from None
    if isinstance(v, float):
        if not math.isfinite(v) or v != int(v):
            raise _JsonError(f"{where}: int64: expected integer, but JSON number had "
                             "fractional part")
        v = int(v)
    if not -2 ** 63 <= v < 2 ** 63:
        raise _JsonError(f"{where}: int64: JSON number out of range for int")
    return v


def _float(v, where):
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise _JsonError(f"{where}: float: expected number or string")
    if isinstance(v, str):
        special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
        if v in special:
            return special[v]
        try:
            v = float(v.strip())
        except ValueError:
            raise _JsonError(f"{where}: float: invalid number '{v}'") from None
        if not math.isfinite(v):
            raise _JsonError(f"{where}: float: invalid number")
    v = float(v)
    with np.errstate(over="ignore"):
        finite = math.isnan(v) or math.isinf(v) or np.isfinite(np.float32(v))
    if not finite:
        raise _JsonError(f"{where}: float: float out of range")
    return v


def _bytes(v, where):
    if not isinstance(v, str):
        raise _JsonError(f"{where}: bytes: expected string")
    s = v.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise _JsonError(f"{where}: bytes: corrupt base64") from None


def _list(kind, obj, where):
    out = []
    for _, values in _fields(obj, where, ("value",)):
        if values is None:
            continue
        for j, v in enumerate(values if isinstance(values, list) else [values]):
            w = f"{where}.value[{j}]"
            if kind == 1:
                out.append(wire.len_field(1, _bytes(v, w)))
            elif kind == 2:
                # null in a list is the default value, 0.
                out.append(wire.key(1, wire.FIXED32) +
                           struct.pack("<f", 0.0 if v is None else _float(v, w)))
            else:
                out.append(wire.key(1, wire.VARINT) +
                           wire.encode_varint(0 if v is None else _int64(v, w) & (2 ** 64 - 1)))
    return b"".join(out)


def _feature(obj, where):
    out, kind_set = [], None
    for name, value in _fields(obj, where, _LISTS):
        if kind_set is not None:
            raise _JsonError(f"{where}: '{name}' has already been set (either directly or as "
                             "part of a oneof)")
        kind_set = name
        if value is not None:
            out.append(wire.len_field(_LISTS[name], _list(_LISTS[name], value,
                                                          f"{where}.{name}")))
    return b"".join(out)


def _example(text):
    try:
        obj = json.loads(text, object_pairs_hook=_Obj)
    except (ValueError, RecursionError) as e:   # (ValueError: too many digits, ...)
        raise _JsonError(f"invalid JSON: {e.msg if hasattr(e, 'msg') else e}") from None
    if not isinstance(obj, _Obj):
        raise _JsonError("invalid JSON: expected '{'")
    out = []
    for _, features in _fields(obj, "", ("features",)):
        if features is None:
            continue
        entries, seen = [], set()
        for _, fmap in _fields(features, "features", ("feature",)):
            if fmap is None:
                continue
            if not isinstance(fmap, _Obj):
                raise _JsonError("features.feature: expected an object")
            for i, (key, value) in enumerate(fmap):
                where = f"features.feature[{i}]"
                if key in seen:
                    raise _JsonError(f"{where}: got unexpectedly-repeated repeated map key: "
                                     f"'{key}'")
                seen.add(key)
                entry = wire.len_field(1, key.encode("utf-8"))
                if value is not None:
                    entry += wire.len_field(2, _feature(value, where))
                entries.append(wire.len_field(1, entry))
        out.append(wire.len_field(1, b"".join(entries)))
    return b"".join(out)


def _kernel(json_examples):
    a = np.asarray(json_examples, dtype=object)
    out = np.empty(a.shape, dtype=object)
    flat, src = out.reshape(-1), a.reshape(-1)
    for i, s in enumerate(src):
        try:
            flat[i] = _example(bytes(s).decode("utf-8"))
        except UnicodeDecodeError:
            raise U.op_error("DecodeJSONExample", "Error while parsing JSON: invalid UTF-8") \
                from None
        except _JsonError as e:
            raise U.op_error("DecodeJSONExample", f"Error while parsing JSON: {e}") from None
    return out


_DecodeJSONExample = register("DecodeJSONExample", _kernel,
                              lambda inputs, attrs: [(inputs[0].shape, D.string)])


@export("io.decode_json_example", "compat.v1.io.decode_json_example",
        "compat.v1.decode_json_example")
def decode_json_example(json_examples, name=None):
    """Converts tf.train.Example records in JSON (protobuf's JSON mapping)
    to serialized Examples, elementwise.

    Raises:
      InvalidArgumentError: for text that is not an Example in JSON.
    """
    j = convert_to_tensor(json_examples, dtype=D.string)
    return apply(_DecodeJSONExample, [j], {}, name=name or "DecodeJSONExample")
