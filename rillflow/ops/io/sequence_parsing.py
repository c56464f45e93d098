"""Parsing serialized tf.train.SequenceExample records:
`tf.io.parse_sequence_example` and `tf.io.parse_single_sequence_example`
(the ParseSequenceExampleV2 op, with TensorFlow's messages).

A SequenceExample has `context` (Features, parsed as an Example's) and
`feature_lists` (a FeatureList per key: one Feature per time step). A
feature list parses into a dense `[batch, steps] + shape` tensor padded
with zeros (`FixedLenSequenceFeature`, with the number of steps of each
record in the lengths dict), a SparseTensor indexed by
`[record, step, value]` (`VarLenFeature`) or a RaggedTensor
`[record, (step), (value)]` (`RaggedFeature`, whose partitions, read from
other feature lists, cut each step's values). A step without values is
empty; one of another type is an error.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor_shape import TensorShape
from ...io import wire
from ..core import op_util as U
from ..core.creation_ops import name_scope
from ..core.math_ops import cast
from ..core.shape_ops import reshape
from ..ragged.ragged_tensor import RaggedTensor
from . import parsing_ops as P
from . import ragged_parsing

__all__ = ["parse_sequence_example", "parse_single_sequence_example"]

_OP = "ParseSequenceExampleV2"


def _error(msg):
    return U.op_error(_OP, msg)


def _record(data, name):
    """({context key: Feature payload}, {list key: [Feature payloads]})."""
    try:
        view = memoryview(bytes(data))
        context = P._features(view)
        lists = {}
        for n, wt, v in wire.iter_fields(view):
            if n != 2 or wt != wire.BYTES:
                continue
            for n2, wt2, entry in wire.iter_fields(v):
                if n2 != 1 or wt2 != wire.BYTES:
                    continue
                key, value = "", b""
                for n3, wt3, x in wire.iter_fields(entry):
                    if n3 == 1 and wt3 == wire.BYTES:
                        key = bytes(x).decode("utf-8")
                    elif n3 == 2 and wt3 == wire.BYTES:
                        value = x
                lists[key] = [x for n4, wt4, x in wire.iter_fields(value)
                              if n4 == 1 and wt4 == wire.BYTES]
        # Every step's values are decoded now, so a bad payload fails here.
        for payload in context.values():
            P._values(payload)
        return context, {k: [P._values(s) for s in steps] for k, steps in lists.items()}
    except (wire.DecodeError, UnicodeDecodeError):
        raise _error(f"Invalid protocol message input, example id: {name}") from None


class _Batch:
    def __init__(self, serialized, names):
        self.names = names
        self.records = [_record(r, self.name(i)) for i, r in enumerate(serialized)]

    def name(self, i):
        if self.names is not None and len(self.names) > i and self.names[i]:
            return self.names[i].decode("utf-8", "replace")
        return "<unknown>"

    def context(self, i, key, dtype):
        """The values of context feature `key` of record i (None: missing)."""
        payload = self.records[i][0].get(key)
        if payload is None:
            return None
        kind, vals = P._values(payload)
        if kind is not None and kind is not dtype:
            raise _error(f"Name: {self.name(i)}, Context feature: {key}.  Data types don't "
                         f"match. Expected type: {U.tf_type_name(dtype)}")
        return vals or []

    def steps(self, i, key, dtype):
        """The per-step value lists of feature list `key` of record i."""
        steps = self.records[i][1].get(key)
        if steps is None:
            return None
        for t, (kind, _) in enumerate(steps):
            if kind is not None and kind is not dtype:
                raise _error(f"Name: {self.name(i)}, Feature list: {key}, Index: {t}.  Data "
                             f"types don't match. Expected type: {U.tf_type_name(dtype)}")
        return [vals or [] for _, vals in steps]


def _context_dense(batch, n, key, dtype, shape, default):
    stride = int(np.prod(shape, dtype=np.int64))
    rows = []
    for i in range(n):
        vals = batch.context(i, key, dtype)
        if vals is None and default.size:
            rows.append(default.reshape(shape))
            continue
        if vals is None or len(vals) != stride:
            raise _error(f"Inconsistent max number of elements for feature {key}: expected "
                         f"{stride}, but found {0 if vals is None else len(vals)}")
        rows.append(P._array(vals, dtype).reshape(shape))
    if not n and not default.size and stride:
        # TensorFlow checks required features against an empty batch too.
        raise _error(f"Inconsistent max number of elements for feature {key}: expected "
                     f"{stride}, but found 0")
    return np.stack(rows) if rows else P._array([], dtype).reshape((0,) + shape)


def _sparse(rows, dtype, n, single, nested):
    """Indices, values and dense shape of VarLen values: `rows[i]` is record
    i's value list (or its list of step value lists when `nested`)."""
    idx, vals, dims = [], [], [0, 0]
    for i, r in enumerate(rows):
        if r is None:
            continue
        steps = r if nested else [r]
        dims[0] = max(dims[0], len(steps))
        for t, s in enumerate(steps):
            idx.extend((i, t, j) for j in range(len(s)))
            vals.extend(s)
            dims[1] = max(dims[1], len(s))
    idx = np.array(idx, np.int64).reshape(-1, 3)
    if not nested:
        idx, dims = idx[:, [0, 2]], [dims[1]]
    else:
        dims = dims
    if single:
        return idx[:, 1:], P._array(vals, dtype), np.array(dims, np.int64)
    return idx, P._array(vals, dtype), np.array([n] + dims, np.int64)


def _fl_dense(batch, n, key, dtype, shape, missing_ok):
    stride = int(np.prod(shape, dtype=np.int64))
    rows = []
    for i in range(n):
        steps = batch.steps(i, key, dtype)
        if steps is None:
            if not missing_ok:
                raise _error(f"Name: {batch.name(i)}, Feature list '{key}' is required but "
                             "could not be found.  Did you mean to include it in "
                             "feature_list_dense_missing_assumed_empty or "
                             "feature_list_dense_defaults?")
            steps = []
        total = sum(len(s) for s in steps)
        if stride and total % stride:
            raise _error(f"Feature list '{key}' has an unexpected number of values.  Total "
                         f"values size: {total} is not consistent with output shape: "
                         f"{P._shape_text((None,) + shape)}")
        for t, s in enumerate(steps):
            if len(s) != stride:
                raise _error(f"Name: {batch.name(i)}, Key: {key}, Index: {t}.  Number of "
                             f"values != expected.  values size: {len(s)} but output shape: "
                             f"{P._shape_text(shape)}")
        rows.append(P._array([v for s in steps for v in s], dtype).reshape((-1,) + shape))
    longest = max((len(r) for r in rows), default=0)
    out = np.zeros((n, longest) + shape, dtype=object if dtype is D.string
                   else dtype.as_numpy_dtype)
    if dtype is D.string:
        out[...] = b""
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out, np.array([len(r) for r in rows], np.int64)


def _kernel(serialized, names, *defaults, c_dense=(), c_sparse=(), c_ragged=(), f_dense=(),
            f_sparse=(), f_ragged=()):
    s = np.asarray(serialized, dtype=object)
    if s.ndim > 1:
        raise _error("Expected serialized to be a scalar or vector, got shape: "
                     f"{P._shape_text(s.shape)}")
    single = s.ndim == 0
    names = np.asarray(names, dtype=object).reshape(-1)
    batch = _Batch(s.reshape(-1), names if names.size else None)
    n = len(batch.records)
    sp = [_sparse([batch.context(i, k, t) for i in range(n)], t, n, single, False)
          for k, t in c_sparse]
    outs = [x[0] for x in sp] + [x[1] for x in sp] + [x[2] for x in sp]
    for (key, dtype, shape), d in zip(c_dense, defaults):
        d = np.asarray(d, dtype=object if dtype is D.string else None)
        out = _context_dense(batch, n, key, dtype, tuple(shape), d)
        outs.append(out[0, ...] if single else out)
    vals, splits = [], []
    for key, dtype, sdtype in c_ragged:
        rows = [batch.context(i, key, dtype) or [] for i in range(n)]
        vals.append(P._array([v for r in rows for v in r], dtype))
        splits.append(np.cumsum([0] + [len(r) for r in rows]).astype(sdtype.as_numpy_dtype))
    outs += vals + splits
    sp = [_sparse([batch.steps(i, k, t) for i in range(n)], t, n, single, True)
          for k, t in f_sparse]
    outs += [x[0] for x in sp] + [x[1] for x in sp] + [x[2] for x in sp]
    dense, lengths = [], []
    for key, dtype, shape, missing_ok in f_dense:
        out, length = _fl_dense(batch, n, key, dtype, tuple(shape), missing_ok)
        dense.append(out[0, ...] if single else out)
        lengths.append(length)
    outs += dense + lengths
    vals, outer, inner = [], [], []
    for key, dtype, sdtype in f_ragged:
        rows = [batch.steps(i, key, dtype) or [] for i in range(n)]
        steps = [s for r in rows for s in r]
        vals.append(P._array([v for s in steps for v in s], dtype))
        outer.append(np.cumsum([0] + [len(r) for r in rows]).astype(sdtype.as_numpy_dtype))
        inner.append(np.cumsum([0] + [len(s) for s in steps]).astype(sdtype.as_numpy_dtype))
    return outs + vals + outer + inner


def _infer(inputs, attrs):
    s = inputs[0].shape
    batch = [] if s.rank == 0 else [s[0] if s.rank == 1 else None]
    extra = len(batch)
    out = []
    for group, extra_dims in (("c_sparse", 1), ("f_sparse", 2)):
        items = attrs.get(group, ())
        out += [(TensorShape([None, extra + extra_dims]), D.int64)] * len(items)
        out += [(TensorShape([None]), t) for _, t in items]
        out += [(TensorShape([extra + extra_dims]), D.int64)] * len(items)
        if group == "c_sparse":
            out += [(TensorShape(batch + list(shape)), t)
                    for _, t, shape in attrs.get("c_dense", ())]
            out += [(TensorShape([None]), t) for _, t, _ in attrs.get("c_ragged", ())]
            out += [(TensorShape([None]), st) for _, _, st in attrs.get("c_ragged", ())]
    f_dense = attrs.get("f_dense", ())
    out += [(TensorShape(batch + [None] + list(shape)), t) for _, t, shape, _ in f_dense]
    out += [(TensorShape(batch), D.int64)] * len(f_dense)
    for _, t, st in attrs.get("f_ragged", ()):
        out.append((TensorShape([None]), t))
    out += [(TensorShape([None]), st) for _, _, st in attrs.get("f_ragged", ())] * 2
    return out


_ParseSequenceExampleV2 = register(_OP, _kernel, _infer)


def _split(context, sequence):
    """The op's attrs and context defaults for the two feature dicts."""
    attrs = {k: () for k in ("c_dense", "c_sparse", "c_ragged", "f_dense", "f_sparse",
                             "f_ragged")}
    defaults = []
    for key in sorted(context):
        f = context[key]
        if isinstance(f, P.VarLenFeature):
            P._dtype_check(D.as_dtype(f.dtype))
            attrs["c_sparse"] += ((key, D.as_dtype(f.dtype)),)
        elif isinstance(f, P.FixedLenFeature):
            k, types, shapes, _, d = P._prepare({key: f})
            attrs["c_dense"] += ((key, types[0], shapes[0]),)
            defaults += d
        elif not isinstance(f, P.RaggedFeature):
            raise ValueError(f"Unsupported {type(f).__name__} {f} for key '{key}'")
    attrs["c_ragged"] = tuple(ragged_parsing.ragged_keys(context, P.RaggedFeature))
    for key in sorted(sequence):
        f = sequence[key]
        if isinstance(f, P.VarLenFeature):
            P._dtype_check(D.as_dtype(f.dtype))
            attrs["f_sparse"] += ((key, D.as_dtype(f.dtype)),)
        elif isinstance(f, P.FixedLenSequenceFeature):
            if f.default_value is not None:
                raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
            dtype = D.as_dtype(f.dtype)
            P._dtype_check(dtype)
            shape = TensorShape(f.shape)
            if shape.rank is None or None in shape.as_list():
                raise ValueError(f"All dimensions of shape for feature {key} need to be known "
                                 f"but received {shape}.")
            attrs["f_dense"] += ((key, dtype, tuple(shape.as_list()), bool(f.allow_missing)),)
        elif not isinstance(f, P.RaggedFeature):
            raise ValueError(f"Unsupported {type(f).__name__} {f} for key '{key}'")
    # Each value key and partition key, parsed as a feature list.
    attrs["f_ragged"] = tuple(ragged_parsing.ragged_keys(sequence, P.RaggedFeature))
    return attrs, defaults


def _parse(serialized, context, sequence, names, single):
    context, sequence = dict(context or {}), dict(sequence or {})
    attrs, defaults = _split(context, sequence)
    s = convert_to_tensor(serialized, dtype=D.string)
    n = convert_to_tensor(np.zeros([0], object) if names is None else names, dtype=D.string)
    outs = list(apply(_ParseSequenceExampleV2, [s, n] + defaults, attrs, name=_OP, multi=True))
    if single and s.shape.rank == 1:
        raise ValueError("Input serialized must be a scalar")

    def take(k):
        taken = outs[:k]
        del outs[:k]
        return taken
    ctx, fl, lengths = {}, {}, {}
    m = len(attrs["c_sparse"])
    idx, vals, shapes = take(m), take(m), take(m)
    ctx.update({k: SparseTensor(a, b, c) for (k, _), a, b, c in
                zip(attrs["c_sparse"], idx, vals, shapes)})
    ctx.update(zip([k for k, _, _ in attrs["c_dense"]], take(len(attrs["c_dense"]))))
    r = len(attrs["c_ragged"])
    if r:
        ctx.update(ragged_parsing.assemble(context, P.RaggedFeature, attrs["c_ragged"],
                                           take(r), take(r), s.shape.rank == 0))
    m = len(attrs["f_sparse"])
    idx, vals, shapes = take(m), take(m), take(m)
    fl.update({k: SparseTensor(a, b, c) for (k, _), a, b, c in
               zip(attrs["f_sparse"], idx, vals, shapes)})
    keys = [k for k, _, _, _ in attrs["f_dense"]]
    fl.update(zip(keys, take(len(keys))))
    lengths.update(zip(keys, take(len(keys))))
    r = len(attrs["f_ragged"])
    vals, outer, inner = take(r), take(r), take(r)
    if r:
        # The steps of all records are the "records" a RaggedFeature's
        # partitions cut (each step's values); the records then group them.
        ragged = {k: f for k, f in sequence.items() if isinstance(f, P.RaggedFeature)}
        steps = ragged_parsing.assemble(ragged, P.RaggedFeature, attrs["f_ragged"], vals,
                                        inner, False)
        outer_of = {k: o for (k, _, _), o in zip(attrs["f_ragged"], outer)}
        for k, rt in steps.items():
            o = outer_of[ragged[k].value_key or k]
            if o.dtype is not rt.row_splits.dtype:
                o = cast(o, rt.row_splits.dtype)
            fl[k] = rt if s.shape.rank == 0 else RaggedTensor.from_row_splits(rt, o,
                                                                             validate=False)
    return ctx, fl, lengths


@export("io.parse_sequence_example", "compat.v1.io.parse_sequence_example")
def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parses a batch (vector) of serialized SequenceExamples.

    Returns:
      (context dict, feature_list dict, lengths dict): the context features
      with a leading batch dimension; the feature lists as `[batch, steps,
      ...]` tensors (FixedLenSequenceFeature, padded with zeros), SparseTensors
      (VarLenFeature) or RaggedTensors (RaggedFeature); and the number of
      steps of each record for each FixedLenSequenceFeature.

    Raises:
      ValueError: for bad feature configurations.
      InvalidArgumentError: for bytes that are not a SequenceExample, a
        required feature that is missing, or values of the wrong type or
        number.
    """
    if not (context_features or sequence_features):
        raise ValueError("Both `context_features` and `sequence_features` argument are None, "
                         "but at least one should have values.")
    with name_scope(name or "ParseSequenceExample"):
        return _parse(serialized, context_features, sequence_features, example_names, False)


@export("io.parse_single_sequence_example", "compat.v1.io.parse_single_sequence_example",
        "compat.v1.parse_single_sequence_example")
def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parses one serialized SequenceExample (a string scalar).

    Returns:
      (context dict, feature_list dict), as `parse_sequence_example`
      without the batch dimension.

    Raises:
      ValueError: if `serialized` is statically not a scalar, or for bad
        feature configurations.
    """
    if not (context_features or sequence_features):
        raise ValueError("Both context_features and sequence_features are None, but at least "
                         "one should have values.")
    s = convert_to_tensor(serialized, dtype=D.string)
    if s.shape.rank not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    with name_scope(name or "ParseSingleSequenceExample"):
        names = None if example_name is None else reshape(
            convert_to_tensor(example_name, dtype=D.string), [1])
        ctx, fl, _ = _parse(s, context_features, sequence_features, names, True)
        return ctx, fl
