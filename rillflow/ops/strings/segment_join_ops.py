"""`tf.strings.unsorted_segment_join`: the strings of each segment joined
in their order of appearance (empty segments give ""). It is also the
segment operation behind `tf.strings.reduce_join` of a RaggedTensor.

Strings are grouped with one stable sort of the segment ids; only the
final `bytes.join` runs per output string.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from .string_util import _check_string, _no_grads, _obj_array, _string_input


def _kernel(x, ids, num_segments, separator=""):
    sep = separator.encode() if isinstance(separator, str) else separator
    n = int(num_segments)
    k = ids.ndim
    if x.shape[:k] != ids.shape:
        raise errors.InvalidArgumentError(
            None, None, f"segment_ids.shape = {list(ids.shape)} does not match "
            f"inputs.shape[:{k}] = {list(x.shape[:k])}")
    flat_ids = ids.reshape(-1).astype(np.int64)
    if ((flat_ids >= n) | (flat_ids < 0)).any():
        raise errors.InvalidArgumentError(
            None, None, "segment_ids are not allowed to exceed num_segments or to have "
            "negative values.")
    inner = x.shape[k:]
    rows = x.reshape((flat_ids.size, -1))
    order = np.argsort(flat_ids, kind="stable")
    ids_sorted = flat_ids[order]
    rows = rows[order]
    bounds = np.searchsorted(ids_sorted, np.arange(n + 1))
    width = rows.shape[1] if rows.ndim == 2 else int(np.prod(inner, dtype=np.int64))
    out = [sep.join(rows[bounds[s]:bounds[s + 1], j].tolist())
           for s in range(n) for j in range(width)]
    return _obj_array(out, (n,) + tuple(inner))


def _infer(inputs, attrs):
    x, ids, num = inputs
    _check_string(x, "UnsortedSegmentJoin", "inputs")
    if x.shape.rank is None or ids.shape.rank is None:
        return [(TensorShape(None), D.string)]
    # The segment count is a runtime value.
    return [(TensorShape([None]).concatenate(x.shape[ids.shape.rank:]), D.string)]


_UnsortedSegmentJoin = register("UnsortedSegmentJoin", _kernel, _infer, _no_grads)


@export("strings.unsorted_segment_join")
def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of `inputs` joined by segment: output `s` joins (with
    `separator`) the slices whose `segment_ids` entry is `s`, in order;
    shape `[num_segments] + inputs.shape[rank(segment_ids):]`."""
    x = _string_input(inputs, "UnsortedSegmentJoin", "inputs")
    ids = convert_to_tensor(segment_ids, dtype_hint=D.int32)
    num = convert_to_tensor(num_segments, dtype_hint=D.int32)
    return apply(_UnsortedSegmentJoin, [x, ids, num], {"separator": separator},
                 name=name or "UnsortedSegmentJoin")
