"""Data types: `tf.dtypes.DType` and the dtype constants.

A DType wraps a NumPy dtype, except for the types NumPy has no equivalent
for: `string` (NumPy object arrays of `bytes`), `resource` (variable handles)
and `variant`. Each DType is a singleton, so identity comparison is valid.

The quantized types (`qint8`, `quint8`, `qint16`, `quint16`, `qint32`) wrap
TensorFlow's one-field structured NumPy dtypes (`[("qint8", "i1")]`), so an
array's dtype alone says the values are quantized; `Tensor.numpy()` views
them as the plain integers TensorFlow returns.
"""
import numpy as np

try:  # bfloat16 is only available when ml_dtypes is installed
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None

__all__ = ["DType", "as_dtype"]

# TensorFlow's DataType enum values, used in GraphDef attrs and event files.
_ENUM = {
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
    "string": 7, "complex64": 8, "int64": 9, "bool": 10, "bfloat16": 14,
    "uint16": 17, "complex128": 18, "float16": 19, "resource": 20,
    "variant": 21, "uint32": 22, "uint64": 23, "float8_e5m2": 24, "float8_e4m3fn": 25,
    "int4": 29, "uint4": 30, "qint8": 11, "quint8": 12, "qint32": 13, "qint16": 15,
    "quint16": 16, "float8_e4m3fnuz": 26, "float8_e4m3b11fnuz": 27, "float8_e5m2fnuz": 28,
    "int2": 31, "uint2": 32, "float4_e2m1fn": 33,
}

# ml_dtypes' narrow types, which TensorFlow 2.21 has under tf.dtypes.experimental
# (and by name, tf.as_dtype) though not as tf.* attributes; its kernels only
# cast to and from them.
_FLOAT8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
           "float8_e5m2fnuz", "float4_e2m1fn")
_INT4 = {"int4": False, "uint4": True, "int2": False, "uint2": True}   # name: unsigned
# The quantized types and their storage.
_QUANTIZED = {"qint8": "i1", "quint8": "u1", "qint16": "<i2", "quint16": "<u2",
              "qint32": "<i4"}


# The types whose `is_numeric` is true, as TensorFlow's _NUMERIC_TYPES (its
# quantized types, which rillflow lacks, are numeric too).
_NUMERIC = frozenset({
    "float16", "float32", "float64", "bfloat16", "complex64", "complex128",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "qint8", "quint8", "qint16", "quint16", "qint32"})


class DType:
    """A tensor element type, e.g. `tf.float32`.

    Compares equal to other spellings of the same type (`np.float32`,
    `"float32"`), is hashable, and knows its range and kind.
    """

    __slots__ = ("_name", "_np", "_enum")

    def __init__(self, name, np_dtype):
        self._name = name
        self._np = np_dtype
        self._enum = _ENUM.get(name, 0)

    @property
    def name(self):
        """The TensorFlow name of the type, e.g. `'float32'`."""
        return self._name

    @property
    def as_numpy_dtype(self):
        """The NumPy scalar type (`np.float32`, `object` for strings)."""
        if self._np is None or self._np.kind == "O":
            return object
        if self._name in _QUANTIZED:   # TensorFlow's structured dtype itself
            return self._np
        return self._np.type

    @property
    def as_datatype_enum(self):
        """TensorFlow's `DataType` enum number for this type."""
        return self._enum

    @property
    def base_dtype(self):
        """This type (rillflow has no reference dtypes)."""
        return self

    @property
    def real_dtype(self):
        """The type of the real part of a complex type; itself otherwise."""
        if self is complex64:
            return float32
        if self is complex128:
            return float64
        return self

    @property
    def is_numpy_compatible(self):
        """Whether values of this type are NumPy arrays."""
        return self._name not in ("resource", "variant")

    @property
    def is_floating(self):
        """Whether this is a (non-complex) floating point type (the 8- and
        4-bit ones included)."""
        return self._name in ("float16", "float32", "float64", "bfloat16") or \
            self._name in _FLOAT8

    @property
    def is_integer(self):
        """Whether this is a signed or unsigned integer type (the quantized
        types are not)."""
        return self._np is not None and (self._np.kind in "iu" or self._name in _INT4)

    @property
    def is_unsigned(self):
        """Whether this is an unsigned integer type."""
        return self._np is not None and (self._np.kind == "u" or _INT4.get(self._name, False))

    @property
    def is_complex(self):
        """Whether this is a complex type."""
        return self._name in ("complex64", "complex128")

    @property
    def is_bool(self):
        """Whether this is `tf.bool`."""
        return self is bool_

    @property
    def is_numeric(self):
        """Whether this is a numeric type: the floating point, complex and
        integer types (TensorFlow's list: not bool, string, resource,
        variant, nor the 8-bit floats and 4-bit integers; the quantized
        types are)."""
        return self._name in _NUMERIC

    @property
    def is_quantized(self):
        """Whether this is one of the quantized types (qint8, quint8, ...)."""
        return self._name in _QUANTIZED

    @property
    def size(self):
        """Bytes per element (1 for types without a fixed size)."""
        if self._np is None or self._np.kind == "O":
            return 1
        return self._np.itemsize

    @property
    def min(self):
        """The smallest value of the type.

        Raises:
          TypeError: for a quantized or non-numeric type.
        """
        if self._name in _QUANTIZED:
            raise TypeError(f"Cannot find minimum value of {self} with quantized type {self}.")
        if self.is_floating:
            if self._name in _FLOAT8:   # an ml_dtypes scalar, as TensorFlow's
                return _ml_dtypes.finfo(self._np).min
            return self._np.type(np.finfo(self._np).min) if self is not bfloat16 else float(
                _ml_dtypes.finfo(self._np).min)
        if self.is_integer:
            return int(_ml_dtypes.iinfo(self._np).min) if self._name in _INT4 else \
                np.iinfo(self._np).min
        raise TypeError(f"Cannot find minimum value of {self} with type {self}.")

    @property
    def max(self):
        """The largest value of the type.

        Raises:
          TypeError: for a quantized or non-numeric type.
        """
        if self._name in _QUANTIZED:
            raise TypeError(f"Cannot find maximum value of {self} with quantized type {self}.")
        if self.is_floating:
            if self._name in _FLOAT8:   # an ml_dtypes scalar, as TensorFlow's
                return _ml_dtypes.finfo(self._np).max
            return self._np.type(np.finfo(self._np).max) if self is not bfloat16 else float(
                _ml_dtypes.finfo(self._np).max)
        if self.is_integer:
            return int(_ml_dtypes.iinfo(self._np).max) if self._name in _INT4 else \
                np.iinfo(self._np).max
        raise TypeError(f"Cannot find maximum value of {self} with type {self}.")

    @property
    def limits(self):
        """`(min, max)` of the type."""
        return self.min, self.max

    def is_compatible_with(self, other):
        """Whether a value of `other`'s type can be used where this is expected."""
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __eq__(self, other):
        if other is self:
            return True
        if other is None:
            return False
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self._name)

    def __reduce__(self):
        return as_dtype, (self._name,)

    def __repr__(self):
        return "tf." + self._name

    def __str__(self):
        return "<dtype: '%s'>" % self._name


def _np_or_none(name):
    try:
        return np.dtype(name)
    except TypeError:
        return None


float16 = DType("float16", np.dtype(np.float16))
float32 = DType("float32", np.dtype(np.float32))
float64 = DType("float64", np.dtype(np.float64))
int8 = DType("int8", np.dtype(np.int8))
int16 = DType("int16", np.dtype(np.int16))
int32 = DType("int32", np.dtype(np.int32))
int64 = DType("int64", np.dtype(np.int64))
uint8 = DType("uint8", np.dtype(np.uint8))
uint16 = DType("uint16", np.dtype(np.uint16))
uint32 = DType("uint32", np.dtype(np.uint32))
uint64 = DType("uint64", np.dtype(np.uint64))
complex64 = DType("complex64", np.dtype(np.complex64))
complex128 = DType("complex128", np.dtype(np.complex128))
bool_ = DType("bool", np.dtype(np.bool_))
string = DType("string", np.dtype(object))
resource = DType("resource", None)
variant = DType("variant", None)
bfloat16 = DType("bfloat16", np.dtype(_ml_dtypes.bfloat16)) if _ml_dtypes else None

half = float16
double = float64

_ALL = [float16, float32, float64, int8, int16, int32, int64, uint8, uint16,
        uint32, uint64, complex64, complex128, bool_, string, resource, variant]
if bfloat16 is not None:
    _ALL.append(bfloat16)
# Not tf.* attributes in TensorFlow 2.21: reachable through tf.as_dtype.
_NARROW = [DType(n, np.dtype(getattr(_ml_dtypes, n))) for n in (*_FLOAT8, *_INT4)] \
    if _ml_dtypes else []
_ALL.extend(_NARROW)
QUANTIZED = [DType(n, np.dtype([(n, c)])) for n, c in _QUANTIZED.items()]
qint8, quint8, qint16, quint16, qint32 = QUANTIZED
_ALL.extend(QUANTIZED)

_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update({"half": float16, "float": float32, "double": float64,
                 "bool_": bool_, "str": string, "bytes": string,
                 "object": string, "complex": complex128})
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}

# NumPy dtype -> DType; the hot path of `Tensor.dtype` is one lookup here.
NP_TO_DTYPE = {d._np: d for d in _ALL if d._np is not None}
NP_TO_DTYPE[np.dtype(object)] = string
# Variant values (tensor lists) carry this marker dtype so that eager tensors
# holding them report `tf.variant`.
VARIANT_NP = np.dtype([("variant", "O")])
NP_TO_DTYPE[VARIANT_NP] = variant

_PY_TYPES = {float: float32, int: int32, bool: bool_, complex: complex128,
             str: string, bytes: string, object: string}


def as_dtype(type_value):
    """Converts a DType, NumPy dtype or type, enum number or name to a DType.

    Raises:
      TypeError: if `type_value` names no type rillflow knows.
    """
    if type_value.__class__ is DType:
        return type_value
    if type_value is None:
        # np.dtype(None) is float64; TensorFlow refuses None.
        raise TypeError("Cannot convert the argument `type_value`: None to a TensorFlow DType.")
    if isinstance(type_value, str):
        try:
            return _BY_NAME[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                    "TensorFlow DType.") from None
    if isinstance(type_value, int) and not isinstance(type_value, bool):
        try:
            return _BY_ENUM[type_value]
        except KeyError:
            raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                    "TensorFlow DType.") from None
    try:
        found = _PY_TYPES.get(type_value)
    except TypeError:  # unhashable values are not type names
        found = None
    if found is not None:
        return found
    try:
        npd = np.dtype(type_value)
    except TypeError:
        npd = None
    if npd is not None:
        if npd.kind in "SUO":
            return string
        found = NP_TO_DTYPE.get(npd)
        if found is not None:
            return found
    dtype_attr = getattr(type_value, "dtype", None)
    if isinstance(dtype_attr, DType):
        return dtype_attr
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a "
                    "TensorFlow DType.")


def from_numpy(np_dtype):
    """The DType of a NumPy dtype (`<U`/`S` strings map to `string`)."""
    d = NP_TO_DTYPE.get(np_dtype)
    if d is None:
        return as_dtype(np_dtype)
    return d


# TensorFlow's set also holds the reference types (qint8_ref, ...), which
# rillflow does not have.
QUANTIZED_DTYPES = frozenset(QUANTIZED)


def plain(a):
    """`a` itself, or for an array of a quantized type the same memory viewed
    as its plain integers (what TensorFlow's numpy() returns)."""
    names = a.dtype.names
    if names is not None and len(names) == 1 and names[0] in _QUANTIZED:
        return a.view(a.dtype[0])
    return a


def narrow(name):
    """The ml_dtypes narrow type `name` (tf.dtypes.experimental), or None
    without ml_dtypes."""
    return _BY_NAME.get(name)


# tensorflow.DataType enum values -> names (types.proto).
DATATYPE_NAMES = {
    0: "DT_INVALID", 1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8",
    5: "DT_INT16", 6: "DT_INT8", 7: "DT_STRING", 8: "DT_COMPLEX64", 9: "DT_INT64",
    10: "DT_BOOL", 11: "DT_QINT8", 12: "DT_QUINT8", 13: "DT_QINT32", 14: "DT_BFLOAT16",
    15: "DT_QINT16", 16: "DT_QUINT16", 17: "DT_UINT16", 18: "DT_COMPLEX128", 19: "DT_HALF",
    20: "DT_RESOURCE", 21: "DT_VARIANT", 22: "DT_UINT32", 23: "DT_UINT64",
    24: "DT_FLOAT8_E5M2", 25: "DT_FLOAT8_E4M3FN", 29: "DT_INT4", 30: "DT_UINT4"}


def datatype_name(dtype):
    """TensorFlow's DataType enum name of `dtype` ("DT_FLOAT", "DT_HALF", ...), as
    GraphDef text and TensorFlow's messages print it."""
    return DATATYPE_NAMES.get(dtype.as_datatype_enum, "DT_" + dtype.name.upper())
