"""`tf.make_tensor_proto` and `tf.make_ndarray`, with the `TensorProto` and
`TensorShapeProto` messages they use (tensorflow/core/framework/tensor.proto).

The messages are plain objects with protobuf's field names, wire bytes
(`SerializeToString`, `FromString`) and text format (`str`). Which field
`make_tensor_proto` fills follows TensorFlow: raw `tensor_content` for arrays
of more than one element of the fixed-width types, else the typed `*_val`
fields (one value for a tensor filled with it).
"""
import numbers
import struct

import numpy as np

from ..framework import dtypes as D
from ..framework import nest
from ..framework.api_export import export
from . import wire
from .message import _format_float, _quote

__all__ = ["TensorProto", "TensorShapeProto", "make_tensor_proto", "make_ndarray"]


class _Dim:
    """One dimension of a TensorShapeProto: `size` and `name`."""

    __slots__ = ("size", "name")

    def __init__(self, size=0, name=""):
        self.size = int(size)
        self.name = name

    def __eq__(self, other):
        return isinstance(other, _Dim) and (self.size, self.name) == (other.size, other.name)


class _DimList(list):
    def add(self, size=0, name=""):
        """Appends a new dimension and returns it."""
        d = _Dim(size, name)
        self.append(d)
        return d


class TensorShapeProto:
    """A shape: repeated `dim` (each with `size`, -1 unknown) and `unknown_rank`."""

    def __init__(self, dim=(), unknown_rank=False):
        self.dim = _DimList(d if isinstance(d, _Dim) else _Dim(**d) if isinstance(d, dict)
                            else _Dim(d) for d in dim)
        self.unknown_rank = bool(unknown_rank)

    def SerializeToString(self):  # noqa: N802 - protobuf's API
        """The wire-format bytes."""
        out = []
        for d in self.dim:
            body = b""
            if d.size:
                body += wire.key(1, wire.VARINT) + wire.encode_varint(d.size)
            if d.name:
                body += wire.len_field(2, d.name.encode("utf-8"))
            out.append(wire.len_field(2, body))
        if self.unknown_rank:
            out.append(wire.key(3, wire.VARINT) + b"\x01")
        return b"".join(out)

    def _merge(self, buf):
        for number, wt, value in wire.iter_fields(buf):
            if number == 2 and wt == wire.BYTES:
                d = self.dim.add()
                for n, t, v in wire.iter_fields(value):
                    if n == 1 and t == wire.VARINT:
                        d.size = wire.signed64(v)
                    elif n == 2 and t == wire.BYTES:
                        d.name = bytes(v).decode("utf-8")
            elif number == 3 and wt == wire.VARINT:
                self.unknown_rank = bool(value)

    def _text(self, ind):
        for d in self.dim:
            yield f"{ind}dim {{\n"
            if d.size:
                yield f"{ind}  size: {d.size}\n"
            if d.name:
                yield f"{ind}  name: {_quote(d.name.encode(), True)}\n"
            yield f"{ind}}}\n"
        if self.unknown_rank:
            yield f"{ind}unknown_rank: true\n"

    def __eq__(self, other):
        return isinstance(other, TensorShapeProto) and \
            self.SerializeToString() == other.SerializeToString()

    def __str__(self):
        return "".join(self._text(""))

    __repr__ = __str__


def _format_double(x):
    # upb prints a double with %.15g when that reads back exactly, else %.17g.
    s = "%.15g" % x
    if s not in ("inf", "-inf", "nan") and float(s) != x:
        s = "%.17g" % x
    return s


# Repeated value fields: (name, number, how they are packed on the wire, text format).
_VALUE_FIELDS = (
    ("float_val", 5, "<f", _format_float), ("double_val", 6, "<d", _format_double),
    ("int_val", 7, "varint", str), ("scomplex_val", 9, "<f", _format_float),
    ("int64_val", 10, "varint", str), ("bool_val", 11, "bool", None),
    ("dcomplex_val", 12, "<d", _format_double), ("half_val", 13, "varint", str),
    ("uint32_val", 16, "uvarint", str), ("uint64_val", 17, "uvarint", str),
)
_BY_NUMBER = {f[1]: f for f in _VALUE_FIELDS}


class TensorProto:
    """A tensor as a protocol buffer (`tensorflow.TensorProto`): `dtype` (the
    DataType enum), `tensor_shape`, and its values in `tensor_content` or in
    one of the typed fields (`float_val`, `int_val`, `string_val`, ...)."""

    def __init__(self, dtype=0, tensor_shape=None, version_number=0, tensor_content=b"",
                 string_val=(), **values):
        self.dtype = int(dtype)
        self.tensor_shape = tensor_shape if tensor_shape is not None else TensorShapeProto()
        self.version_number = int(version_number)
        self.tensor_content = bytes(tensor_content)
        self.string_val = list(string_val)
        for name, *_ in _VALUE_FIELDS:
            setattr(self, name, list(values.pop(name, ())))
        if values:
            raise ValueError(f'Protocol message TensorProto has no "{next(iter(values))}" '
                             'field.')
        self._unknown = b""

    def HasField(self, name):  # noqa: N802 - protobuf's API
        """Whether singular field `name` is set (`tensor_shape` always reads set
        once written; scalars when not zero)."""
        if name == "tensor_shape":
            return True
        if name in ("dtype", "version_number", "tensor_content"):
            return bool(getattr(self, name))
        raise ValueError(f'Protocol message TensorProto has no singular "{name}" field.')

    def SerializeToString(self, deterministic=False):  # noqa: N802 - protobuf's API
        """The wire-format bytes, as TensorFlow's proto writes them."""
        out = []
        if self.dtype:
            out.append(wire.key(1, wire.VARINT) + wire.encode_varint(self.dtype))
        out.append(wire.len_field(2, self.tensor_shape.SerializeToString()))
        if self.version_number:
            out.append(wire.key(3, wire.VARINT) + wire.encode_varint(self.version_number))
        if self.tensor_content:
            out.append(wire.len_field(4, self.tensor_content))
        fields = {n: (name, fmt) for name, n, fmt, _ in _VALUE_FIELDS}
        for number in sorted(list(fields) + [8]):
            if number == 8:
                out.extend(wire.len_field(8, bytes(s)) for s in self.string_val)
                continue
            name, fmt = fields[number]
            vals = getattr(self, name)
            if not vals:
                continue
            if fmt in ("varint", "uvarint", "bool"):
                body = b"".join(wire.encode_varint(int(v)) for v in vals)
            else:
                body = struct.pack("<%d%s" % (len(vals), fmt[1]), *vals)
            out.append(wire.len_field(number, body))
        out.append(self._unknown)
        return b"".join(out)

    def ByteSize(self):  # noqa: N802
        """The length of the serialized message."""
        return len(self.SerializeToString())

    @classmethod
    def FromString(cls, data):  # noqa: N802
        """A TensorProto parsed from serialized bytes.

        Raises:
          DecodeError: if `data` is not a serialized message.
        """
        p = cls()
        p.MergeFromString(data)
        return p

    def ParseFromString(self, data):  # noqa: N802
        """Replaces the contents with the message in `data`; returns its length."""
        self.__init__()
        return self.MergeFromString(data)

    def MergeFromString(self, data):  # noqa: N802
        """Merges the message in `data` into this one; returns its length."""
        try:
            self._merge(memoryview(bytes(data)))
        except (wire.DecodeError, struct.error, UnicodeDecodeError):
            raise wire.DecodeError("Error parsing message with type 'tensorflow.TensorProto': "
                                   "Wire format was corrupt") from None
        return len(data)

    def _merge(self, buf):
        for number, wt, value in wire.iter_fields(buf):
            if number == 1 and wt == wire.VARINT:
                self.dtype = value
            elif number == 2 and wt == wire.BYTES:
                self.tensor_shape._merge(value)
            elif number == 3 and wt == wire.VARINT:
                self.version_number = wire.signed64(value)
            elif number == 4 and wt == wire.BYTES:
                self.tensor_content = bytes(value)
            elif number == 8 and wt == wire.BYTES:
                self.string_val.append(bytes(value))
            elif number in _BY_NUMBER:
                name, _, fmt, _ = _BY_NUMBER[number]
                getattr(self, name).extend(_read_values(fmt, wt, value))
            else:
                self._unknown += _reencode(number, wt, value)

    def CopyFrom(self, other):  # noqa: N802
        """Makes this message a copy of `other`."""
        self.ParseFromString(other.SerializeToString())

    def __eq__(self, other):
        return isinstance(other, TensorProto) and \
            self.SerializeToString() == other.SerializeToString()

    __hash__ = None

    def __str__(self):
        out = []
        if self.dtype:
            dt = D._BY_ENUM.get(self.dtype)
            out.append("dtype: %s\n" % ("DT_" + _ENUM_NAMES.get(dt, dt.name).upper()
                                        if dt is not None else self.dtype))
        out.append("tensor_shape {\n%s}\n" % "".join(self.tensor_shape._text("  ")))
        if self.version_number:
            out.append("version_number: %d\n" % self.version_number)
        if self.tensor_content:
            out.append("tensor_content: %s\n" % _quote(self.tensor_content))
        fields = {n: f for n, f in _BY_NUMBER.items()}
        for number in sorted(list(fields) + [8]):
            if number == 8:
                out.extend("string_val: %s\n" % _quote(s) for s in self.string_val)
                continue
            name, _, _, fmt = fields[number]
            for v in getattr(self, name):
                out.append("%s: %s\n" % (name, ("true" if v else "false") if fmt is None
                                         else fmt(v)))
        return "".join(out)

    __repr__ = __str__


# The DataType enum names that differ from the dtype names.
_ENUM_NAMES = {D.float32: "float", D.float64: "double", D.float16: "half"}


def _read_values(fmt, wt, value):
    if fmt in ("varint", "uvarint", "bool"):
        if wt == wire.BYTES:
            vals = wire.packed_varints(value)
        elif wt == wire.VARINT:
            vals = [value]
        else:
            return []
        if fmt == "bool":
            return [bool(v) for v in vals]
        if fmt == "varint":
            # int32 fields are sign-extended to 64 bits on the wire.
            return [wire.signed64(v) for v in vals]
        return vals
    if wt == wire.BYTES:
        return wire.packed_fixed(value, fmt)
    return [struct.unpack(fmt, value)[0]] if len(value) == struct.calcsize(fmt) else []


def _reencode(number, wt, value):
    if wt == wire.VARINT:
        return wire.key(number, wt) + wire.encode_varint(value)
    if wt == wire.BYTES:
        return wire.len_field(number, bytes(value))
    return wire.key(number, wt) + bytes(value)


# --- make_tensor_proto ---------------------------------------------------------------------

# Types whose arrays of more than one element go in tensor_content.
_CONTENT_TYPES = frozenset(d for d in (D.float16, D.float32, D.float64, D.int32, D.uint8,
                                       D.int16, D.int8, D.int64, D.uint32, D.uint64,
                                       D.bfloat16) if d is not None)
_INTEGRAL = (numbers.Integral, np.integer)
_REAL = (numbers.Real, np.integer, np.floating)
_COMPLEX = (numbers.Complex, np.number)


def _isinstance_check(types):
    def check(values):
        for v in nest.flatten(values):
            if not (isinstance(v, types) or (isinstance(v, np.ndarray)
                                             and issubclass(v.dtype.type, types))):
                return v
        return _OK
    return check


_OK = object()
_CHECKS = {D.bool_: _isinstance_check(bool), D.string: _isinstance_check((bytes, str))}


def _check_compatible(values, dtype):
    if dtype is None:
        return
    check = _CHECKS.get(dtype)
    if check is None:
        types = _INTEGRAL if dtype.is_integer else _REAL if dtype.is_floating else \
            _COMPLEX if dtype.is_complex else None
        if types is None:
            return
        check = _isinstance_check(types)
    bad = check(values)
    if bad is not _OK:
        raise TypeError(f"Expected {dtype.name}, but got {bad} of type '{type(bad).__name__}'.")


def _dense_dims(values):
    """The shape of nested lists, from their first elements (TensorFlow's check)."""
    if not isinstance(values, (list, tuple)):
        return []
    if not values:
        return [0]
    return [len(values)] + _dense_dims(values[0])


def _is_array_like(obj):
    return hasattr(obj, "__array__") and not isinstance(obj, (np.ndarray, np.generic)) \
        and hasattr(obj, "shape") and hasattr(obj, "dtype")


@export("make_tensor_proto")
def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False,
                      allow_broadcast=False):
    """A TensorProto holding `values` (a Python value, NumPy array or tensor).

    Args:
      values: the values.
      dtype: the tensor's dtype (default: from the values; Python floats and
        ints become float32 and, when they fit, int32, as for `tf.constant`).
      shape: the tensor's shape; fewer values than it holds repeat the last one.
      verify_shape: require `values` to have exactly `shape`.
      allow_broadcast: let a scalar or 1-element value fill `shape`.

    Raises:
      TypeError: values of a type not convertible to `dtype`, or a shape
        mismatch under `verify_shape`/`allow_broadcast`.
      ValueError: None values, ragged lists, or more values than `shape` holds.
    """
    if allow_broadcast and verify_shape:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if isinstance(values, TensorProto):
        return values
    if dtype:
        dtype = D.as_dtype(dtype)
    if _is_array_like(values):
        values = np.asarray(values)
    np_dt = dtype.as_numpy_dtype if dtype is not None and dtype.is_numpy_compatible else None
    if isinstance(values, (np.ndarray, np.generic)):
        nparray = values.astype(np_dt) if np_dt is not None else values
    else:
        if values is None:
            raise ValueError("None values not supported.")
        if shape is not None and np.prod(shape, dtype=np.int64) == 0:
            nparray = np.empty(shape, dtype=np_dt)
        else:
            _check_compatible(values, dtype)
            nparray = np.array(values, np_dt)
            if list(nparray.shape) != _dense_dims(values):
                raise ValueError(f"Expected values {values} to be a dense tensor with shape "
                                 f"{_dense_dims(values)}, but got shape {list(nparray.shape)}.")
        if nparray.dtype == np.float64 and dtype is None:
            nparray = nparray.astype(np.float32)
        elif nparray.dtype == np.int64 and dtype is None:
            down = nparray.astype(np.int32)
            if np.array_equal(down, nparray):
                nparray = down
    if nparray.dtype.kind in "OSU":
        numpy_dtype = D.string
    else:
        try:
            numpy_dtype = D.as_dtype(nparray.dtype)
        except TypeError:
            raise TypeError(f"Unrecognized data type: {nparray.dtype}.") from None
    if dtype is not None and dtype != numpy_dtype:
        raise TypeError(f"`dtype` {dtype} is not compatible with {values} of dtype "
                        f"{nparray.dtype}.")
    if shape is None:
        shape = nparray.shape
        same_size, size = True, nparray.size
    else:
        shape = [int(d) for d in shape]
        size = int(np.prod(shape, dtype=np.int64))
        same_size = size == nparray.size
        if allow_broadcast:
            if nparray.shape not in ((1,), ()) and nparray.size != size:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got "
                                f"{nparray.shape}.")
        else:
            if verify_shape and nparray.shape != tuple(shape):
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got "
                                f"{nparray.shape}.")
            if nparray.size > size:
                raise ValueError("Too many elements provided. Takes at most "
                                 f"{size:d}, but got {nparray.size:d}.")
    proto = TensorProto(dtype=numpy_dtype.as_datatype_enum,
                        tensor_shape=TensorShapeProto(dim=list(shape)))
    if same_size and numpy_dtype in _CONTENT_TYPES and size > 1:
        if nparray.size * nparray.itemsize >= (1 << 31):
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        proto.tensor_content = np.ascontiguousarray(nparray).astype(
            nparray.dtype.newbyteorder("<")).tobytes()
        return proto
    flat = nparray.ravel()
    if numpy_dtype is D.string:
        try:
            proto.string_val.extend(v if isinstance(v, bytes) else v.encode("utf-8")
                                    for v in flat.tolist())
        except AttributeError:
            raise TypeError(f"Failed to convert elements of {values} to Tensor. Consider "
                            "casting elements to a supported type. See "
                            "https://www.tensorflow.org/api_docs/python/tf/dtypes for "
                            "supported TF dtypes.") from None
        return proto
    field = _APPEND.get(numpy_dtype)
    if field is None:
        raise TypeError(f"Element type not supported in TensorProto: {numpy_dtype.name}.")
    if numpy_dtype in (D.float16, D.bfloat16):
        getattr(proto, field).extend(flat.view(np.uint16).tolist())
    elif numpy_dtype.is_complex:
        getattr(proto, field).extend(np.stack([flat.real, flat.imag], -1).ravel().tolist())
    else:
        getattr(proto, field).extend(flat.tolist())
    return proto


_APPEND = {D.float16: "half_val", D.float32: "float_val", D.float64: "double_val",
           D.int32: "int_val", D.int16: "int_val", D.int8: "int_val", D.uint8: "int_val",
           D.uint16: "int_val", D.int64: "int64_val", D.uint32: "uint32_val",
           D.uint64: "uint64_val", D.complex64: "scomplex_val", D.complex128: "dcomplex_val",
           D.bool_: "bool_val"}
if D.bfloat16 is not None:
    _APPEND[D.bfloat16] = "half_val"
# make_ndarray reads each dtype's values from the field make_tensor_proto writes.
_READ = dict(_APPEND)


@export("make_ndarray")
def make_ndarray(tensor):
    """The NumPy array a TensorProto holds (strings as bytes objects).

    Raises:
      TypeError: for a dtype the proto cannot hold.
    """
    shape = [d.size for d in tensor.tensor_shape.dim]
    n = int(np.prod(shape, dtype=np.int64))
    dtype = D._BY_ENUM.get(tensor.dtype)
    if dtype is None or (dtype is not D.string and dtype.as_numpy_dtype is None):
        raise TypeError(f"Unsupported tensor type: {tensor.dtype}. See "
                        "https://www.tensorflow.org/api_docs/python/tf/dtypes for supported "
                        "TF dtypes.")
    if dtype is D.string:
        values = list(tensor.string_val)
        if n > len(values):
            values.extend([values[-1] if values else ""] * (n - len(values)))
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out.reshape(shape)
    npd = np.dtype(dtype.as_numpy_dtype)
    if tensor.tensor_content:
        return np.frombuffer(tensor.tensor_content, npd.newbyteorder("<")).astype(npd) \
            .reshape(shape)
    raw = getattr(tensor, _READ[dtype])
    if dtype in (D.float16, D.bfloat16):
        values = np.array(raw, dtype=np.uint16).view(npd)
    elif dtype.is_complex:
        values = np.array([complex(a, b) for a, b in zip(raw[::2], raw[1::2])], dtype=npd)
    else:
        values = np.array(raw, dtype=npd)
    if values.size == 0:
        return np.zeros(shape, npd)
    if values.size != n:
        values = np.pad(values, (0, n - values.size), "edge")
    return values.reshape(shape)
