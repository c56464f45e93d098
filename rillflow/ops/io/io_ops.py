"""Byte-level tensor I/O: `tf.io.serialize_tensor` / `parse_tensor`
(TensorProto bytes, identical to TensorFlow's), `read_file` / `write_file`,
`decode_raw`, and web-safe base64 (`encode_base64` / `decode_base64`)."""
import base64
import binascii
import gzip
import zlib

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ...io import tensor_pb, wire
from ..core import op_util as U

__all__ = ["serialize_tensor", "parse_tensor", "read_file", "write_file", "decode_raw",
           "encode_base64", "decode_base64"]


def _scalar_bytes(a):
    return np.asarray(a, dtype=object).reshape(-1)[0] if np.size(a) == 1 else a[()]


def _obj(value):
    a = np.empty((), dtype=object)
    a[()] = value
    return a


def _scalar_infer(dtype):
    return lambda inputs, attrs: [(TensorShape([]), dtype)]


# --- serialize_tensor / parse_tensor ---------------------------------------------------------

def _serialize_kernel(tensor, T=None):
    return _obj(tensor_pb.encode_tensor(np.asarray(tensor), T))


_SerializeTensor = register("SerializeTensor", _serialize_kernel, _scalar_infer(D.string))


@export("io.serialize_tensor")
def serialize_tensor(tensor, name=None):
    """The tensor as the bytes of a TensorProto (a string scalar)."""
    t = convert_to_tensor(tensor)
    return apply(_SerializeTensor, [t], {"T": t.dtype}, name=name or "SerializeTensor")


def _parse_tensor_kernel(serialized, out_type=None):
    data = _scalar_bytes(serialized)
    try:
        value, dtype = tensor_pb.decode_tensor(data)
    except (wire.DecodeError, ValueError, UnicodeDecodeError):
        b64 = base64.b64encode(bytes(data)).decode("ascii")
        raise U.op_error("ParseTensor", f"Could not parse `serialized` as TensorProto, "
                         f"base64: {b64}") from None
    if dtype is not out_type:
        raise U.op_error("ParseTensor", f"Type mismatch between parsed tensor "
                         f"({U.tf_type_name(dtype)}) and dtype ({U.tf_type_name(out_type)})")
    return value


_ParseTensor = register("ParseTensor", _parse_tensor_kernel,
                        lambda inputs, attrs: [(TensorShape(None), attrs["out_type"])])


@export("io.parse_tensor")
def parse_tensor(serialized, out_type, name=None):
    """The tensor whose TensorProto bytes are `serialized`; its dtype must be
    `out_type` (its shape is known only when run)."""
    s = convert_to_tensor(serialized, dtype=D.string)
    return apply(_ParseTensor, [s], {"out_type": D.as_dtype(out_type)},
                 name=name or "ParseTensor")


# --- files -----------------------------------------------------------------------------------

def _path(a):
    p = _scalar_bytes(a)
    return p.decode("utf-8") if isinstance(p, bytes) else str(p)


def _read_file_kernel(filename):
    path = _path(filename)
    try:
        with open(path, "rb") as f:
            return _obj(f.read())
    except FileNotFoundError:
        raise U.op_error("ReadFile", f"{path}; No such file or directory",
                         errors.NotFoundError) from None


_ReadFile = register("ReadFile", _read_file_kernel, _scalar_infer(D.string), stateful=True)


@export("io.read_file")
def read_file(filename, name=None):
    """The whole contents of a file, as a string scalar."""
    return apply(_ReadFile, [convert_to_tensor(filename, dtype=D.string)], {},
                 name=name or "ReadFile")


def _write_file_kernel(filename, contents):
    path = _path(filename)
    try:
        with open(path, "wb") as f:
            f.write(_scalar_bytes(contents))
    except FileNotFoundError:
        raise U.op_error("WriteFile", f"{path}; No such file or directory",
                         errors.NotFoundError) from None
    return np.zeros(0, np.int32)


_WriteFile = register("WriteFile", _write_file_kernel,
                      lambda inputs, attrs: [(TensorShape([0]), D.int32)], stateful=True)


@export("io.write_file")
def write_file(filename, contents, name=None):
    """Writes string scalar `contents` to a file (replacing it). Returns
    None eagerly, the op in a graph (for control dependencies)."""
    f = convert_to_tensor(filename, dtype=D.string)
    c = convert_to_tensor(contents, dtype=D.string)
    out = apply(_WriteFile, [f, c], {}, name=name or "WriteFile")
    return None if U._state.graph is None else out.op


# --- decode_raw ------------------------------------------------------------------------------

_RAW_TYPES = (D.float16, D.float32, D.float64, D.int32, D.uint16, D.uint8, D.int16, D.int8,
              D.int64, D.complex64, D.complex128, D.bool_, D.bfloat16)


def _decode_raw_kernel(data, out_type=None, little_endian=True, fixed_length=None):
    flat = [b if isinstance(b, bytes) else str(b).encode()
            for b in np.asarray(data, dtype=object).reshape(-1)]
    npd = np.dtype(out_type.as_numpy_dtype)
    npd = npd.newbyteorder("<" if little_endian else ">") if npd.itemsize > 1 else npd
    if fixed_length is not None:
        width = fixed_length
        flat = [b[:width].ljust(width, b"\0") for b in flat]
    else:
        width = len(flat[0]) if flat else 0
        for i, b in enumerate(flat):
            if len(b) != width:
                # (TensorFlow's message names the first size before the other.)
                raise U.op_error("DecodeRaw", f"DecodeRaw requires input strings to all be the "
                                 f"same size, but element {i} has size {width} != {len(b)}")
    if width % npd.itemsize:
        raise U.op_error("DecodeRaw", f"Input to DecodeRaw has length {width} that is not a "
                         f"multiple of {npd.itemsize}, the size of {U.tf_type_name(out_type)}")
    n = width // npd.itemsize
    out = np.frombuffer(b"".join(flat), npd).astype(npd.newbyteorder("="))
    return out.reshape(np.shape(data) + (n,))


def _decode_raw_infer(inputs, attrs):
    s = inputs[0].shape
    fixed = attrs.get("fixed_length")
    size = np.dtype(attrs["out_type"].as_numpy_dtype).itemsize
    last = None if fixed is None else fixed // size
    return [(TensorShape(None) if s.rank is None else TensorShape(s.as_list() + [last]),
             attrs["out_type"])]


_DecodeRaw = register("DecodeRaw", _decode_raw_kernel, _decode_raw_infer)


@export("io.decode_raw")
def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Reinterprets the bytes of each string as a vector of `out_type`
    (an extra innermost dimension). Strings must all have the same length,
    unless `fixed_length` truncates or zero-pads them to it."""
    t = convert_to_tensor(input_bytes, dtype=D.string)
    out_type = D.as_dtype(out_type)
    if out_type not in _RAW_TYPES:
        raise U.dtype_error("DecodeRaw", out_type, _RAW_TYPES, attr="out_type",
                            param="out_type")
    attrs = {"out_type": out_type, "little_endian": bool(little_endian),
             "fixed_length": None if fixed_length is None else int(fixed_length)}
    return apply(_DecodeRaw, [t], attrs, name=name or "DecodeRaw")


# --- base64 ----------------------------------------------------------------------------------

def _map(x, fn):
    flat = np.asarray(x, dtype=object).reshape(-1)
    out = np.empty(flat.shape, dtype=object)
    out[:] = [fn(b) for b in flat]
    return out.reshape(np.shape(x))


def _encode_b64_kernel(input, pad=False):  # noqa: A002 - TensorFlow's input name
    def enc(b):
        s = base64.urlsafe_b64encode(b)
        return s if pad else s.rstrip(b"=")
    return _map(input, enc)


def _decode_b64_kernel(input):  # noqa: A002
    def dec(b):
        b = b.rstrip(b"=")
        if len(b) % 4 == 1:
            raise U.op_error("DecodeBase64", "Base64 string length cannot be 1 modulo 4.")
        try:
            return base64.urlsafe_b64decode(b + b"=" * (-len(b) % 4))
        except (binascii.Error, ValueError):
            raise U.op_error("DecodeBase64", "Invalid character found in base64.") from None
    return _map(input, dec)


def _same_shape(inputs, attrs):
    return [(inputs[0].shape, D.string)]


_EncodeBase64 = register("EncodeBase64", _encode_b64_kernel, _same_shape)
_DecodeBase64 = register("DecodeBase64", _decode_b64_kernel, _same_shape)


@export("io.encode_base64")
def encode_base64(input, pad=False, name=None):  # noqa: A002
    """Web-safe base64 ("-" and "_") of each string, unpadded unless `pad`."""
    return apply(_EncodeBase64, [convert_to_tensor(input, dtype=D.string)],
                 {"pad": bool(pad)}, name=name or "EncodeBase64")


@export("io.decode_base64")
def decode_base64(input, name=None):  # noqa: A002
    """The bytes of each web-safe base64 string (padding optional)."""
    return apply(_DecodeBase64, [convert_to_tensor(input, dtype=D.string)], {},
                 name=name or "DecodeBase64")


# --- DecodeCompressed ---------------------------------------------------------------------------

def _decompress_one(b, kind):
    b = b if isinstance(b, bytes) else str(b).encode()
    if not kind:
        return b
    try:
        if kind == "GZIP":
            return gzip.decompress(b)
        return zlib.decompress(b)
    except (OSError, zlib.error, EOFError) as e:
        code = -3 if "header" in str(e) or "invalid" in str(e).lower() else -5
        raise errors.DataLossError(None, None, f"inflate() failed with error {code}: "
                                   "incorrect header check") from None


def _decode_compressed_kernel(bytes, compression_type=""):  # noqa: A002
    kind = compression_type.upper() if compression_type else ""
    if kind not in ("", "ZLIB", "GZIP"):
        raise errors.InvalidArgumentError(None, None, f"Unsupported compression type: "
                                          f"{compression_type}")
    arr = np.asarray(bytes, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for idx, b in np.ndenumerate(arr):
        out[idx] = _decompress_one(b, kind)
    return out


_DecodeCompressed = register("DecodeCompressed", _decode_compressed_kernel,
                             lambda i, a: [(i[0].shape, D.string)])


@export("io.decode_compressed")
def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002
    """Decompresses each string of `bytes` ("", "ZLIB" or "GZIP").

    Raises:
      DataLossError: for data that is not in that format.
    """
    return apply(_DecodeCompressed, [convert_to_tensor(bytes, D.string)],
                 {"compression_type": compression_type}, name=name or "DecodeCompressed")
