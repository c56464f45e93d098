"""Parsing serialized tf.train.Example records into tensors:
`tf.io.parse_example`, `tf.io.parse_single_example` and the feature
configurations (`FixedLenFeature`, `FixedLenSequenceFeature`, ...).

One op, `ParseExampleV2`, does the work for both (a scalar `serialized` is
the single-example case, with TensorFlow's single-example error messages).
The record is walked with the wire-format reader; only requested features
are decoded.
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ...io import wire
from ..core import op_util as U
from ..core.creation_ops import name_scope
from ...framework.sparse_tensor import SparseTensor
from ..core.shape_ops import reshape
from . import ragged_parsing

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "SparseFeature",
           "RaggedFeature", "parse_example", "parse_single_example"]

_TYPES = (D.float32, D.int64, D.string)
# Feature's oneof field number -> the dtype of its values.
_KIND_DTYPE = {1: D.string, 2: D.float32, 3: D.int64}
_LIST_NAME = {D.string: "bytes", D.float32: "float", D.int64: "int64"}


# --- feature configurations ------------------------------------------------------------------

@export("io.FixedLenFeature")
class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A feature with a fixed number of values, parsed into a tensor of
    `shape`; `default_value` (None: the feature is required) fills it when
    the feature is missing."""
    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


@export("io.FixedLenSequenceFeature")
class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature with any number of values of `shape`, parsed into
    `[n] + shape` (padded with `default_value` across a batch)."""
    __slots__ = ()

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


_NO_SPARSE = ("parsing tf.io.{} (into a tf.SparseTensor) is not implemented in rillflow; "
              "VarLenFeature gives the values as a SparseTensor, and "
              "FixedLenSequenceFeature(shape, dtype, allow_missing=True) as a dense, padded "
              "tensor.")


@export("io.VarLenFeature")
class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed into a SparseTensor (entry j of
    record i at [i, j])."""
    __slots__ = ()


@export("io.SparseFeature")
class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A sparse feature from index and value features (needs SparseTensor:
    parsing with it raises NotImplementedError)."""
    __slots__ = ()

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A feature parsed into a RaggedTensor: the values of `value_key` (the
    feature's own key by default) cut by `partitions`, outermost first, each
    read from another int64 feature (`RowSplits`, `RowLengths`, `RowStarts`,
    `RowLimits`, `ValueRowIds`) or a constant `UniformRowLength`. A batch of
    records adds the outer (batch) dimension."""
    __slots__ = ()

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])
    _PARTITION_TYPES = (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds,
                        UniformRowLength)

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=D.int32,
                validate=False):
        if value_key is not None:
            if not isinstance(value_key, str):
                raise ValueError(f"Argument `value_key` must be a string; got {value_key}")
            if not value_key:
                raise ValueError("Argument `value_key` must not be empty")
        dtype = D.as_dtype(dtype)
        if dtype not in (D.int64, D.float32, D.string):
            raise ValueError("Argument `dtype` must be int64, float32, or bytes; got "
                             f"{dtype!r}")
        row_splits_dtype = D.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (D.int32, D.int64):
            raise ValueError("Argument `row_splits_dtype` must be int32 or int64; got"
                             f"{row_splits_dtype!r}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError("Argument `partitions` must be a list or tuple. Received"
                            f"partitions={partitions} of type {type(partitions).__name__}.")
        for p in partitions:
            if not isinstance(p, cls._PARTITION_TYPES):
                raise TypeError("Argument `partitions` cannot be cast to any of the partition "
                                f"types in {cls._PARTITION_TYPES}; got: {p!r} with type "
                                f"{type(p)}")
        if not isinstance(validate, bool):
            raise TypeError(f"Argument `validate` must be a bool; got {validate!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype,
                               validate)


# --- reading one record ----------------------------------------------------------------------

def _features(record):
    """{key: Feature payload} of a serialized Example (later keys win)."""
    out = {}
    for n, wt, v in wire.iter_fields(record):
        if n == 1 and wt == wire.BYTES:
            for n2, wt2, entry in wire.iter_fields(v):
                if n2 == 1 and wt2 == wire.BYTES:
                    key, value = "", b""
                    for n3, wt3, x in wire.iter_fields(entry):
                        if n3 == 1 and wt3 == wire.BYTES:
                            key = bytes(x).decode("utf-8")
                        elif n3 == 2 and wt3 == wire.BYTES:
                            value = x
                    out[key] = value
    return out


def _values(payload):
    """(dtype, list of values) of a Feature payload; (None, None) if unset."""
    kind = lst = None
    for n, wt, v in wire.iter_fields(payload):
        if n in _KIND_DTYPE and wt == wire.BYTES:
            kind, lst = _KIND_DTYPE[n], v
    if kind is None:
        return None, None
    vals = []
    for n, wt, v in wire.iter_fields(lst):
        if n != 1:
            continue
        if kind is D.string:
            vals.append(bytes(v))
        elif kind is D.float32:
            # Packed (the payload) or one fixed32 (its 4 bytes): both raw floats.
            vals.extend(np.frombuffer(v, "<f4").tolist())
        elif wt == wire.BYTES:
            vals.extend(wire.signed64(x) for x in wire.packed_varints(v))
        else:
            vals.append(wire.signed64(v))
    return kind, vals


# --- the op ----------------------------------------------------------------------------------

def _error(msg):
    return U.op_error("ParseExampleV2", msg)


def _shape_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class _Parser:
    """Parses the records for one call; error messages depend on whether the
    input was a single record (scalar) or a batch."""

    def __init__(self, single, names):
        self.single, self.names = single, names

    def name(self, i):
        return self.names[i].decode("utf-8", "replace") if self.names is not None and \
            len(self.names) > i and self.names[i] else "<unknown>"

    def record(self, i, data):
        try:
            return _features(memoryview(data))
        except (wire.DecodeError, UnicodeDecodeError):
            text = bytes(data).decode("utf-8", "backslashreplace")
            raise _error(f"Could not parse example input, value: '{text}'") from None

    def missing(self, i, key, dtype):
        where = "" if self.single else f"Name: {self.name(i)}, "
        return _error(f"{where}Feature: {key} (data type: {U.tf_type_name(dtype)}) is "
                      "required but could not be found.")

    def key_error(self, i, key, msg):
        if self.single:
            return _error(f"Key: {key}.  {msg}")
        return _error(f"Name: {self.name(i)}, Key: {key}, Index: {i}.  {msg}")

    def dense(self, i, key, payload, dtype, shape, is_seq):
        """The values of one feature of record i as a flat list, checked."""
        kind, vals = _values(payload)
        if kind is None:
            return None
        if kind is not dtype:
            raise self.key_error(i, key, f"Data types don't match. Data type: "
                                 f"{U.tf_type_name(kind)} but expected type: "
                                 f"{U.tf_type_name(dtype)}")
        stride = int(np.prod(shape[1:] if is_seq else shape, dtype=np.int64))
        lname = _LIST_NAME[dtype]
        if is_seq:
            if stride and len(vals) % stride:
                if self.single:
                    raise _error(f"Error while parsing feature with key {key}: number of "
                                 f"elements should be divisible by {stride}, found "
                                 f"{len(vals)} instead")
                raise self.key_error(i, key, f"Number of {lname} values is not a multiple of "
                                     f"stride length. Saw {len(vals)} values but output shape "
                                     f"is: {_shape_text(shape)}")
        elif len(vals) != stride:
            if not self.single:
                raise self.key_error(i, key, f"Number of {lname} values != expected.  Values "
                                     f"size: {len(vals)} but output shape: "
                                     f"{_shape_text(shape)}")
            # TensorFlow's single-record parser fails filling a bytes slice
            # that is too small, and reports a slice left unfilled otherwise.
            why = "Parsing bytes_list failed." if dtype is D.string and len(vals) > stride \
                else f"Some {lname}_list slice was not parsed."
            raise self.key_error(i, key, f"Can't parse serialized Example: {why}")
        return vals


def _array(vals, dtype):
    if dtype is D.string:
        a = np.empty(len(vals), dtype=object)
        a[:] = vals
        return a
    return np.asarray(vals, dtype=dtype.as_numpy_dtype)


def _parse_kernel(serialized, names, *defaults, dense_keys=(), Tdense=(), dense_shapes=(),
                  dense_seq=(), sparse_keys=(), sparse_types=(), ragged_keys=(),
                  ragged_value_types=(), ragged_split_types=()):
    serialized, names = np.asarray(serialized, dtype=object), np.asarray(names, dtype=object)
    if serialized.ndim > 1:
        raise _error("Expected serialized to be a scalar or vector, got shape: "
                     f"{_shape_text(serialized.shape)}")
    single = serialized.ndim == 0
    records = serialized.reshape(-1)
    parser = _Parser(single, names.reshape(-1) if names.size else None)
    feats = [parser.record(i, r) for i, r in enumerate(records)]
    outs = _sparse_outputs(parser, feats, sparse_keys, sparse_types) if sparse_keys else []
    ragged = _ragged_outputs(parser, feats, ragged_keys, ragged_value_types,
                             ragged_split_types)
    for key, dtype, shape, is_seq, default in zip(dense_keys, Tdense, dense_shapes, dense_seq,
                                                  defaults):
        shape = tuple(shape)
        # (A string scalar arrives as bytes, not a 0-d array.)
        default = np.asarray(default, dtype=object if dtype is D.string else None)
        rows = []
        for i, f in enumerate(feats):
            payload = f.get(key)
            vals = None if payload is None else parser.dense(i, key, payload, dtype, shape,
                                                              is_seq)
            if vals is None and not is_seq:
                if default.size == 0 and int(np.prod(shape, dtype=np.int64)) != 0:
                    raise parser.missing(i, key, dtype)
                rows.append(default.reshape(shape))
                continue
            a = _array(vals or [], dtype)
            rows.append(a.reshape((-1,) + shape[1:]) if is_seq else a.reshape(shape))
        if is_seq:
            n = max((len(r) for r in rows), default=0)
            pad = default.reshape(()) if default.size else \
                (b"" if dtype is D.string else 0)
            out = np.empty((len(rows), n) + shape[1:], dtype=object if dtype is D.string
                           else dtype.as_numpy_dtype)
            out[...] = pad
            for i, r in enumerate(rows):
                out[i, :len(r)] = r
        else:
            out = np.stack(rows) if rows else _array([], dtype).reshape((0,) + shape)
        outs.append(out[0, ...] if single else out)  # (a 0-d array, not a bare item)
    return outs + ragged


def _ragged_outputs(parser, feats, keys, types, split_types):
    """Each ragged key's values of all records, concatenated, then each
    key's row splits cutting them into records (TensorFlow's op outputs)."""
    values, splits = [], []
    for key, dtype, sdtype in zip(keys, types, split_types):
        vals, lengths = [], []
        for i, f in enumerate(feats):
            payload = f.get(key)
            kind, got = (None, None) if payload is None else _values(payload)
            if kind is None:          # a missing feature is an empty row
                lengths.append(0)
                continue
            if kind is not dtype:
                raise parser.key_error(i, key, f"Data types don't match. Expected type: "
                                       f"{U.tf_type_name(dtype)}, Actual type: "
                                       f"{U.tf_type_name(kind)}")
            vals.extend(got)
            lengths.append(len(got))
        values.append(_array(vals, dtype))
        splits.append(np.concatenate([[0], np.cumsum(lengths)]).astype(sdtype.as_numpy_dtype))
    return values + splits


def _sparse_outputs(parser, feats, keys, types):
    """The indices, values and dense shapes of the VarLenFeatures: entry j
    of record i at [i, j] (at [j] for a single record), as in TensorFlow."""
    indices, values, shapes = [], [], []
    for key, dtype in zip(keys, types):
        idx, vals, longest = [], [], 0
        for i, f in enumerate(feats):
            payload = f.get(key)
            kind, got = (None, None) if payload is None else _values(payload)
            if kind is None:
                continue
            if kind is not dtype:
                raise parser.key_error(i, key, f"Data types don't match. Expected type: "
                                       f"{U.tf_type_name(dtype)}, Actual type: "
                                       f"{U.tf_type_name(kind)}")
            idx.extend((i, j) for j in range(len(got)))
            vals.extend(got)
            longest = max(longest, len(got))
        rows = np.array(idx, dtype=np.int64).reshape(-1, 2)
        if parser.single:
            indices.append(rows[:, 1:])
            shapes.append(np.array([longest], dtype=np.int64))
        else:
            indices.append(rows)
            shapes.append(np.array([len(feats), longest], dtype=np.int64))
        values.append(_array(vals, dtype))
    return indices + values + shapes


def _parse_infer(inputs, attrs):
    s = inputs[0].shape
    out = []
    rank = None if s.rank is None else s.rank + 1
    types = attrs.get("sparse_types", ())
    out += [(TensorShape([None, rank]), D.int64)] * len(types)
    out += [(TensorShape([None]), t) for t in types]
    out += [(TensorShape([rank]), D.int64)] * len(types)
    for dtype, shape, is_seq in zip(attrs["Tdense"], attrs["dense_shapes"], attrs["dense_seq"]):
        inner = list(shape)
        if is_seq:
            inner[0] = None
        if s.rank is None:
            out.append((TensorShape(None), dtype))
        else:
            out.append((TensorShape(list(s.as_list()) + inner), dtype))
    out += [(TensorShape([None]), t) for t in attrs.get("ragged_value_types", ())]
    out += [(TensorShape([None]), t) for t in attrs.get("ragged_split_types", ())]
    return out


_ParseExampleV2 = register("ParseExampleV2", _parse_kernel, _parse_infer)


# --- public functions ------------------------------------------------------------------------

# TensorFlow's runtime error for a dense dtype it cannot parse quotes the op's signature.
_OP_SIGNATURE = (
    "Op<name=ParseExampleV2; signature=serialized:string, names:string, sparse_keys:string, "
    "dense_keys:string, ragged_keys:string, dense_defaults: -> sparse_indices:num_sparse*int64"
    ", sparse_values:, sparse_shapes:num_sparse*int64, dense_values:, ragged_values:, "
    "ragged_row_splits:; attr=Tdense:list(type),min=0,allowed=[DT_FLOAT, DT_INT64, DT_STRING];"
    " attr=num_sparse:int,min=0; attr=sparse_types:list(type),min=0,allowed=[DT_FLOAT, "
    "DT_INT64, DT_STRING]; attr=ragged_value_types:list(type),min=0,allowed=[DT_FLOAT, "
    "DT_INT64, DT_STRING]; attr=ragged_split_types:list(type),min=0,allowed=[DT_INT32, "
    "DT_INT64]; attr=dense_shapes:list(shape),min=0>")


def _dtype_check(dtype):
    if dtype in _TYPES:
        return
    if U._state.graph is not None:
        raise U.graph_dtype_error("Tdense", dtype, _TYPES)
    raise errors.InvalidArgumentError(
        None, None, f"Value for attr 'Tdense' of {U.tf_type_name(dtype)} is not in the list of "
        "allowed values: float, int64, string\n\t; NodeDef: {{node ParseExampleV2}}; "
        f"{_OP_SIGNATURE} [Op:ParseExampleV2]")


def _prepare(features):
    """(keys, dtypes, shapes, is_sequence, defaults) for the dense features."""
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    keys, types, shapes, seqs, defaults = [], [], [], [], []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, VarLenFeature):
            _dtype_check(D.as_dtype(f.dtype))
            continue
        if isinstance(f, RaggedFeature):
            continue
        if isinstance(f, SparseFeature):
            raise NotImplementedError(_NO_SPARSE.format(type(f).__name__))
        if not isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)):
            raise ValueError(f"Unsupported {type(f).__name__} {f} for key '{key}'")
        dtype = D.as_dtype(f.dtype)
        shape = TensorShape(f.shape)
        dims = shape.as_list() if shape.rank is not None else None
        seq = isinstance(f, FixedLenSequenceFeature)
        if seq and not f.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to "
                             "be True.")
        if dims is None or None in dims:
            if not seq and dims and dims[0] is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. "
                                 "Consider using FixedLenSequenceFeature. Received "
                                 f"feature={f}.")
            if not seq:
                raise ValueError(f"All dimensions of shape for feature {key} need to be known "
                                 f"but received {dims}.")
            raise errors.InvalidArgumentError(
                None, None, "dense_shapes[0] has unknown rank or unknown inner dimensions: "
                f"{_shape_text([None] + (dims or []))} [Op:ParseExampleV2]")
        _dtype_check(dtype)
        if f.default_value is None:
            d = convert_to_tensor(np.zeros([0], dtype=object if dtype is D.string
                                           else dtype.as_numpy_dtype), dtype=dtype)
        else:
            d = reshape(convert_to_tensor(f.default_value, dtype=dtype), [] if seq else dims)
        keys.append(key)
        types.append(dtype)
        shapes.append(tuple([None] + dims if seq else dims))
        seqs.append(seq)
        defaults.append(d)
    return keys, types, shapes, seqs, defaults


def _parse(serialized, features, names):
    keys, types, shapes, seqs, defaults = _prepare(features)
    sparse = [(k, D.as_dtype(features[k].dtype)) for k in sorted(features)
              if isinstance(features[k], VarLenFeature)]
    s = convert_to_tensor(serialized, dtype=D.string)
    n = convert_to_tensor(np.zeros([0], object) if names is None else names, dtype=D.string)
    attrs = {"dense_keys": tuple(keys), "Tdense": tuple(types), "dense_shapes": tuple(shapes),
             "dense_seq": tuple(seqs)}
    if sparse:
        attrs["sparse_keys"] = tuple(k for k, _ in sparse)
        attrs["sparse_types"] = tuple(t for _, t in sparse)
    ragged = ragged_parsing.ragged_keys(features, RaggedFeature)
    if ragged:
        attrs["ragged_keys"] = tuple(k for k, _, _ in ragged)
        attrs["ragged_value_types"] = tuple(t for _, t, _ in ragged)
        attrs["ragged_split_types"] = tuple(t for _, _, t in ragged)
    outs = apply(_ParseExampleV2, [s, n] + defaults, attrs, name="ParseExampleV2", multi=True)
    m = len(sparse)
    # As TensorFlow's op: each sparse feature's indices, values, shapes, then
    # the dense, then each ragged key's values and row splits.
    result = {k: SparseTensor(outs[i], outs[m + i], outs[2 * m + i])
              for i, (k, _) in enumerate(sparse)}
    dense_end = 3 * m + len(keys)
    result.update(zip(keys, outs[3 * m:dense_end]))
    if ragged:
        r = len(ragged)
        result.update(ragged_parsing.assemble(
            features, RaggedFeature, ragged, outs[dense_end:dense_end + r],
            outs[dense_end + r:dense_end + 2 * r], s.shape.rank == 0))
    return result


@export("io.parse_example", "compat.v1.parse_example", "compat.v1.io.parse_example")
def parse_example(serialized, features, example_names=None, name=None):
    """Parses a batch (vector) of serialized Examples into a dict of tensors
    with a leading batch dimension, one per entry of `features`.

    Raises:
      InvalidArgumentError: for a missing required feature, a wrong type or
        number of values, or bytes that are not an Example.
      NotImplementedError: for SparseFeature.
    """
    with name_scope(name or "ParseExample"):
        return _parse(serialized, features, example_names)


@export("io.parse_single_example", "compat.v1.parse_single_example",
        "compat.v1.io.parse_single_example")
def parse_single_example(serialized, features, example_names=None, name=None):
    """Parses one serialized Example (a string scalar) into a dict of tensors.

    Raises:
      ValueError: if `serialized` is statically not a scalar.
    """
    s = convert_to_tensor(serialized, dtype=D.string)
    if s.shape.rank not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    with name_scope(name or "ParseSingleExample"):
        with name_scope("ParseExample"):
            return _parse(s, features, None if example_names is None else example_names)
