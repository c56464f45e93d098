"""Assembling `tf.io.RaggedFeature`s from what ParseExampleV2 returns for
each ragged key (its values of all records concatenated, and row splits by
record), as TensorFlow's `parsing_config` does: the value feature, then its
partitions applied innermost first, each read from another parsed int64
feature (or a constant uniform row length). With a batch, every partition
is offset by where its record starts, so all records are cut at once with
whole-vector ops, never a loop over records.
"""
from ...framework import dtypes as D
from ...framework.convert import convert_to_tensor
from ..core.join_ops import concat
from ..core.math_ops import cast, maximum
from ..core.repeat_unique_roll_ops import repeat
from ..core.scan_ops import cumsum
from ..core.shape_ops import reshape, shape as tf_shape
from ..core.slicing import getitem
from ..ragged import ragged_math_ops
from ..ragged.ragged_tensor import RaggedTensor

__all__ = ["ragged_keys", "assemble"]


def ragged_keys(features, ragged_cls):
    """[(key, dtype, row_splits_dtype)] the op must parse for the ragged
    features: each value key with its dtype, each partition key as int64."""
    out = {}

    def add(key, dtype, splits_dtype):
        # One key parses once, so every use must agree (TensorFlow's checks).
        have = out.setdefault(key, (dtype, splits_dtype))
        if have[0] is not dtype:
            raise ValueError(f"Conflicting type {have[0]} vs {dtype} for feature {key}.")
        if have[1] is not splits_dtype:
            raise ValueError(f"Conflicting partition type {have[1]} vs {splits_dtype} for "
                             f"feature {key}.")
    for key in sorted(features):
        f = features[key]
        if not isinstance(f, ragged_cls):
            continue
        add(f.value_key or key, f.dtype, f.row_splits_dtype)
        for p in f.partitions:
            if not isinstance(p, ragged_cls.UniformRowLength):
                add(p.key, D.int64, f.row_splits_dtype)
    return [(k, d, s) for k, (d, s) in sorted(out.items())]


def _batched_partition(rt, p, parsed, ragged_cls, validate):
    """`rt` (records x values) with partition `p` added inside each record."""
    if isinstance(p, ragged_cls.UniformRowLength):
        length = convert_to_tensor(p.length, dtype=rt.row_splits.dtype)
        if rt.ragged_rank > 1:
            return RaggedTensor.from_row_splits(
                RaggedTensor.from_uniform_row_length(rt.values, length, validate=validate),
                rt.row_splits // length, validate=validate)
        values = reshape(rt.values, concat([[-1, p.length], getitem(tf_shape(rt.values),
                                                                    slice(1, None))], 0))
        return RaggedTensor.from_row_splits(values, rt.row_splits // length, validate=validate)
    part = parsed[p.key]
    if part.flat_values.dtype is not rt.row_splits.dtype:
        part = part.with_flat_values(cast(part.flat_values, rt.row_splits.dtype))
    # Offsets within a record become offsets into all records' values.
    if isinstance(p, (ragged_cls.RowSplits, ragged_cls.RowLimits)):
        if isinstance(p, ragged_cls.RowSplits):
            part = part[:, 1:]
        limits = part.values + repeat(rt.row_starts(), part.row_lengths())
        return part.with_values(RaggedTensor.from_row_limits(rt.values, limits,
                                                             validate=validate))
    if isinstance(p, ragged_cls.RowStarts):
        starts = part.values + repeat(rt.row_starts(), part.row_lengths())
        return part.with_values(RaggedTensor.from_row_starts(rt.values, starts,
                                                             validate=validate))
    if isinstance(p, ragged_cls.RowLengths):
        return part.with_values(RaggedTensor.from_row_lengths(rt.values, part.values,
                                                              validate=validate))
    if isinstance(p, ragged_cls.ValueRowIds):
        nrows = maximum(ragged_math_ops.reduce("max", part + 1, axis=1), 0)
        rowids = part.values + repeat(cumsum(nrows, exclusive=True), part.row_lengths())
        return RaggedTensor.from_row_lengths(
            RaggedTensor.from_value_rowids(rt.values, rowids, validate=validate),
            nrows, validate=validate)
    raise ValueError(f"Unhandled partition type {p!r}")


def _single_partition(values, p, parsed, ragged_cls, splits_dtype, validate):
    """`values` of one record with partition `p` added."""
    if isinstance(p, ragged_cls.UniformRowLength):
        if isinstance(values, RaggedTensor):
            length = convert_to_tensor(p.length, dtype=splits_dtype)
            return RaggedTensor.from_uniform_row_length(values, length, validate=validate)
        # Dense values stay dense: a uniform dimension is a reshape.
        return reshape(values, concat([[-1, p.length], getitem(tf_shape(values),
                                                               slice(1, None))], 0))
    part = cast(parsed[p.key], splits_dtype)
    make = {ragged_cls.RowSplits: RaggedTensor.from_row_splits,
            ragged_cls.RowLengths: RaggedTensor.from_row_lengths,
            ragged_cls.RowStarts: RaggedTensor.from_row_starts,
            ragged_cls.RowLimits: RaggedTensor.from_row_limits,
            ragged_cls.ValueRowIds: RaggedTensor.from_value_rowids}.get(type(p))
    if make is None:
        raise ValueError(f"Unhandled partition type {p!r}")
    return make(values, part, validate=validate)


def assemble(features, ragged_cls, keys, values, splits, single):
    """{feature key: RaggedTensor (or values for a single record without
    partitions)} from the op's ragged outputs for `keys`."""
    if single:
        parsed = dict(zip([k for k, _, _ in keys], values))
    else:
        parsed = {k: RaggedTensor.from_row_splits(v, s, validate=False)
                  for (k, _, _), v, s in zip(keys, values, splits)}
    # TensorFlow's order: the parsed keys that are features keep their
    # place, the other features follow in sorted order.
    parsed_keys = [k for k, _, _ in keys]
    order = [k for k in parsed_keys if isinstance(features.get(k), ragged_cls)]
    order += [k for k in sorted(features) if k not in order]
    out = {}
    for key in order:
        f = features[key]
        if not isinstance(f, ragged_cls):
            continue
        rt = parsed[f.value_key or key]
        if single:
            for p in reversed(f.partitions):
                rt = _single_partition(rt, p, parsed, ragged_cls, f.row_splits_dtype,
                                       f.validate)
        else:
            if rt.row_splits.dtype is not f.row_splits_dtype:
                rt = rt.with_row_splits_dtype(f.row_splits_dtype)
            for p in reversed(f.partitions):
                rt = _batched_partition(rt, p, parsed, ragged_cls, f.validate)
        out[key] = rt
    return out
