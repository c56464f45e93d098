"""`tf.sparse.cross` and `tf.sparse.cross_hashed`: feature crosses of 2-D
sparse and dense columns, as TensorFlow's `SparseCross`, `SparseCrossV2` and
`SparseCrossHashed` kernels compute them (sparse_cross_op.cc).

Row `b` of the result holds one entry per combination of one feature from
each column (sparse columns first, then dense ones, in the order given; the
last column varies fastest). A string cross joins the features' text (integers
in decimal) with the separator; a hashed cross chains `FingerprintCat64` from
the hash key over each feature's hash (Fingerprint64 for strings, the value
itself for integers), then takes it modulo `num_buckets` (or INT64_MAX).

The combinations of all rows are enumerated at once: each output entry's row
comes from repeating row numbers by their cross counts, and its feature in
each column from its offset in the row read as a mixed-radix number.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core.math_ops import cast
from ..strings.hash_ops import fingerprint64, siphash24

_U = np.uint64
_KMUL = _U(0xc6a4a7935bd1e995)
_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_INT64_MAX = _U(2**63 - 1)


def _shift_mix(v):
    return v ^ (v >> _U(47))


def fingerprint_cat64(fp1, fp2):
    """TensorFlow's `FingerprintCat64` of uint64 arrays (or scalars)."""
    with np.errstate(over="ignore"):
        result = fp1 ^ _KMUL
        result = result ^ (_shift_mix(fp2 * _KMUL) * _KMUL)
        result = result * _KMUL
        result = _shift_mix(result) * _KMUL
        return _shift_mix(result)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _validate(indices, values, shapes, dense, internal_type):
    """TensorFlow's ValidateInput; returns the batch size."""
    for i, ind in enumerate(indices):
        if internal_type is not None and ind.dtype != np.int64:
            raise errors.InvalidArgumentError(
                None, None, f"Input indices should be of type int64 but received "
                f"{ind.dtype}")
        if ind.ndim != 2:
            raise errors.InvalidArgumentError(
                None, None, f"Input indices should be a matrix but received shape "
                f"{_shape_str(ind.shape)} at position {i}")
        if ind.shape[1] != 2:
            raise errors.InvalidArgumentError(
                None, None, f"Expected D2 of index to be 2 got {ind.shape[1]} at position {i}")
    for i, v in enumerate(values):
        if internal_type == "string" and v.dtype != object:
            raise errors.InvalidArgumentError(
                None, None, "Input values should be of internal type string but received int64")
        if v.ndim != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Input values should be a vector but received shape "
                f"{_shape_str(v.shape)} at position {i}")
        if indices[i].shape[0] != v.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, f"Expected size of values to be {indices[i].shape[0]} got "
                f"{v.shape[0]} at position {i}")
    for i, s in enumerate(shapes):
        if s.ndim != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Input shapes should be a vector but received shape "
                f"{_shape_str(s.shape)} at position {i}")
        if s.shape[0] != 2:
            raise errors.InvalidArgumentError(
                None, None, f"shape should imply a 2D tensor, but got {_shape_str(s.shape)} at "
                f"position {i}")
    for i, d in enumerate(dense):
        if internal_type == "string" and d.dtype != object:
            raise errors.InvalidArgumentError(
                None, None, "Dense inputs should be of internal type string but received int64")
        if d.ndim != 2:
            raise errors.InvalidArgumentError(
                None, None, f"Dense inputs should be a matrix but received shape "
                f"{_shape_str(d.shape)} at position {i}")
    batch = int(shapes[0][0]) if shapes else (dense[0].shape[0] if dense else 0)
    for i, s in enumerate(shapes):
        if int(s[0]) != batch:
            raise errors.InvalidArgumentError(
                None, None, f"Expected batch size {batch} got {int(s[0])} at position {i}")
    for i, d in enumerate(dense):
        if d.shape[0] != batch:
            raise errors.InvalidArgumentError(
                None, None, f"Expected batch size {batch} got {d.shape[0]} at dense tensor {i}")
    return batch


def _sparse_rows(ind, batch):
    """(count, start) of each row's features, read as TensorFlow does: the
    entries of row b are the run of consecutive entries with row index b."""
    rows = ind[:, 0]
    n = len(rows)
    if n == 0 or (np.all(rows[1:] >= rows[:-1]) and rows[0] >= 0):
        counts = np.bincount(rows[rows < batch], minlength=batch)[:batch].astype(np.int64)
        starts = np.zeros(batch, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        return counts, starts
    counts = np.zeros(batch, dtype=np.int64)
    starts = np.zeros(batch, dtype=np.int64)
    cur = 0
    for b in range(batch):
        starts[b] = cur
        while cur < n and rows[cur] == b:
            cur += 1
        counts[b] = cur - starts[b]
    return counts, starts


def _columns(indices, values, shapes, dense, batch):
    """Per column: (flat feature array, counts per row, starts per row)."""
    cols = []
    for ind, v in zip(indices, values):
        counts, starts = _sparse_rows(ind, batch)
        cols.append((v, counts, starts))
    for d in dense:
        width = d.shape[1]
        cols.append((d.reshape(-1), np.full(batch, width, dtype=np.int64),
                     np.arange(batch, dtype=np.int64) * width))
    return cols


def _enumerate(cols, batch):
    """(output indices, per column the flat position of each output entry's
    feature, dense shape) of the cross of `cols`."""
    if not cols:
        counts = np.zeros(batch, dtype=np.int64)
    else:
        counts = np.ones(batch, dtype=np.int64)
        for _, c, _ in cols:
            counts = counts * c
    total = int(counts.sum())
    row = np.repeat(np.arange(batch, dtype=np.int64), counts)
    first = np.zeros(batch, dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    local = np.arange(total, dtype=np.int64) - first[row]
    positions = [None] * len(cols)
    rem = local.copy()
    for i in range(len(cols) - 1, -1, -1):   # the last column varies fastest
        _, c, s = cols[i]
        ci = c[row]
        positions[i] = s[row] + rem % np.maximum(ci, 1)
        rem = rem // np.maximum(ci, 1)
    out_indices = np.stack([row, local], axis=1) if total else np.zeros((0, 2), np.int64)
    shape = np.array([batch, int(counts.max()) if batch else 0], dtype=np.int64)
    return out_indices, positions, shape


def _split_inputs(flat, num_sparse):
    """(indices, values, shapes, dense inputs) of the flat input list: `N`
    sparse columns' three components, then the dense columns."""
    n = num_sparse
    return flat[:n], flat[n:2 * n], flat[2 * n:3 * n], flat[3 * n:]


def _text(v):
    return v if isinstance(v, bytes) else str(int(v)).encode()


def _string_cross(cols, batch, sep):
    out_indices, positions, shape = _enumerate(cols, batch)
    parts = [[_text(x) for x in col[0][pos].tolist()] for col, pos in zip(cols, positions)]
    out = np.empty(len(out_indices), dtype=object)
    out[:] = [sep.join(p) for p in zip(*parts)] if parts else []
    return out_indices, out, shape


def _feature_hash(values):
    if values.dtype == object:
        return fingerprint64(values.tolist())
    return values.astype(np.int64).view(_U)


def _finish_hash(h, num_buckets):
    nb = _U(num_buckets) if num_buckets > 0 else _INT64_MAX
    return (h % nb).astype(np.int64)


def _sparse_cross_kernel(*flat, N, hashed_output, num_buckets, hash_key, out_type,
                         internal_type, **_):
    indices, values, shapes, dense = _split_inputs(flat, N)
    batch = _validate(indices, values, shapes, dense, internal_type.name)
    cols = _columns(indices, values, shapes, dense, batch)
    if not hashed_output:
        return _string_cross(cols, batch, b"_X_")
    out_indices, positions, shape = _enumerate(cols, batch)
    h = np.full(len(out_indices), _U(hash_key & (2**64 - 1)), dtype=_U)
    for col, pos in zip(cols, positions):
        h = fingerprint_cat64(h, _feature_hash(col[0])[pos])
    return out_indices, _finish_hash(h, num_buckets), shape


def _sparse_cross_v2_kernel(*flat, N, **_):
    indices, values, shapes, dense = _split_inputs(flat[:-1], N)
    sep = flat[-1]
    if sep.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"Input separator should be a scalar. Received: {sep!r}")
    batch = _validate(indices, values, shapes, dense, None)
    return _string_cross(_columns(indices, values, shapes, dense, batch), batch, sep.item())


def _keyed_hash(values, dense, strong, key):
    """A SparseCrossHashed column's feature hashes: TensorFlow hashes integers
    by the first 4 bytes of their storage (sizeof a DataType), except dense
    integers without a strong hash, which are used as they are."""
    if values.dtype == object:
        data = values.tolist()
    else:
        if dense and not strong:
            return values.astype(np.int64).view(_U)
        data = [b[:4] for b in (int(v).to_bytes(8, "little", signed=True)
                                for v in values.tolist())]
    if strong:
        return siphash24(data, int(key[0]) & (2**64 - 1), int(key[1]) & (2**64 - 1))
    return fingerprint64(data)


def _sparse_cross_hashed_kernel(*flat, N, **_):
    indices, values, shapes, dense = _split_inputs(flat[:-3], N)
    num_buckets, strong_hash, salt = flat[-3:]
    batch = _validate(indices, values, shapes, dense, None)
    salt = salt.reshape(-1)
    if salt.size != 2:
        raise errors.InvalidArgumentError(
            None, None, f'Input "salt" must have length 2 but has length {salt.size}')
    strong = bool(strong_hash)
    cols = _columns(indices, values, shapes, dense, batch)
    out_indices, positions, shape = _enumerate(cols, batch)
    h = None
    for i, (col, pos) in enumerate(zip(cols, positions)):
        f = _keyed_hash(col[0], i >= N, strong, salt)[pos]
        h = f if h is None else fingerprint_cat64(h, f)
    if h is None:
        h = np.zeros(0, dtype=_U)
    return out_indices, _finish_hash(h, int(num_buckets)), shape


def _cross_infer(out_type):
    def infer(inputs, attrs):
        dtype = attrs.get("out_type", out_type)
        return [(TensorShape([None, 2]), D.int64), (TensorShape([None]), dtype),
                (TensorShape([2]), D.int64)]
    return infer


_SparseCross = register("SparseCross", _sparse_cross_kernel, _cross_infer(None))
_SparseCrossV2 = register("SparseCrossV2", _sparse_cross_v2_kernel, _cross_infer(D.string))
_SparseCrossHashed = register("SparseCrossHashed", _sparse_cross_hashed_kernel,
                              _cross_infer(D.int64))


def _prepare(inputs, message):
    """The inputs' components, with non-string values cast to int64 as
    TensorFlow's wrappers do; and whether any was an integer column."""
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, Tensor)) for i in inputs):
        raise TypeError(message)
    sparse = [i for i in inputs if isinstance(i, SparseTensor)]
    dense = [i for i in inputs if not isinstance(i, SparseTensor)]
    any_int = False
    values = []
    for sp in sparse:
        v = sp.values
        if v.dtype != D.string:
            v = cast(v, D.int64)
            any_int = True
        values.append(v)
    dense_out = []
    for d in dense:
        if d.dtype != D.string:
            d = cast(d, D.int64)
            any_int = True
        dense_out.append(d)
    return ([sp.indices for sp in sparse], values, [sp.dense_shape for sp in sparse],
            dense_out, any_int)


def _result(outs):
    return SparseTensor(outs[0], outs[1], outs[2])


@export("sparse.cross")
def sparse_cross(inputs, name=None, separator=None):
    """The string cross of a list of 2-D `SparseTensor`s and dense tensors:
    each row's feature combinations joined by `separator` (`"_X_"`).

    Raises:
      TypeError: when `inputs` is not a list of Tensors and SparseTensors.
    """
    if separator is None:
        separator = "_X_"
    separator = convert_to_tensor(separator, D.string)
    indices, values, shapes, dense, _ = _prepare(
        inputs, "All inputs must be Tensor or SparseTensor.")
    return _result(apply(_SparseCrossV2, indices + values + shapes + dense + [separator],
                         {"N": len(indices)}, name=name or "SparseCrossV2", multi=True))


@export("sparse.cross_hashed")
def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed cross of a list of 2-D `SparseTensor`s and dense tensors:
    `FingerprintCat64` chained over each combination's feature hashes, modulo
    `num_buckets` when it is > 0 (an int64 `SparseTensor`).

    Raises:
      TypeError: when `inputs` is not a list of Tensors and SparseTensors.
    """
    indices, values, shapes, dense, any_int = _prepare(inputs, "All inputs must be SparseTensors")
    attrs = {"N": len(indices), "hashed_output": True,
             "num_buckets": int(num_buckets), "hash_key": int(hash_key or _DEFAULT_HASH_KEY),
             "out_type": D.int64, "internal_type": D.int64 if any_int else D.string}
    return _result(apply(_SparseCross, indices + values + shapes + dense, attrs,
                         name=name or "SparseCross", multi=True))
