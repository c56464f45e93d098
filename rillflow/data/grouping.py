"""Transformations that group elements by a key: `group_by_window` and
`bucket_by_sequence_length` (built on it, as in TensorFlow)."""
import numpy as np

from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.convert import convert_to_tensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from . import dataset_ops as DS
from . import functions as F
from . import registry
from . import runtime as R
from . import structure as S
from .sources import ListNode
from ..ops.control_flow.control_ops import control_dependencies
from ..ops.core import broadcast_ops, join_ops, math_ops, reduction_ops
from ..ops.core.gather_ops import gather
from ..ops.debugging import check_ops

_KEY = TensorSpec([], D.int64)


class GroupByWindowNode(R.Node):
    """Elements gathered per key; a group is handed to the reduce function
    (as a dataset) when it reaches its key's window size, and the groups left
    at the end of the input are handed over by increasing key."""

    __slots__ = ("input", "key_f", "reduce_f", "size_f", "caps")

    def __init__(self, input_node, key_f, reduce_f, size_f, caps):
        self.input, self.key_f, self.reduce_f, self.size_f = input_node, key_f, reduce_f, size_f
        self.caps = caps

    def __iter__(self):
        nk, nr = len(self.key_f.captures), len(self.reduce_f.captures)
        key_of = self.key_f.caller(self.caps[:nk])
        reduce = self.reduce_f.caller(self.caps[nk:nk + nr])
        size_of = self.size_f.caller(self.caps[nk + nr:])
        groups, sizes = {}, {}
        for e in self.input:
            key = int(key_of(e)[0])
            size = sizes.get(key)
            if size is None:
                size = int(size_of((np.int64(key),))[0])
                if size <= 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Window size must be greater than zero, but got {size}.")
                sizes[key] = size
            group = groups.setdefault(key, [])
            group.append(e)
            if len(group) == size:
                del groups[key]
                yield from reduce((np.int64(key), ListNode(group)))[0]
        # TensorFlow keeps the groups in an ordered map and flushes its first.
        for key in sorted(groups):
            yield from reduce((np.int64(key), ListNode(groups[key])))[0]

    def cardinality(self):
        # As TensorFlow reports it: infinite for an infinite input, else unknown.
        return R.INFINITE if self.input.cardinality() == R.INFINITE else R.UNKNOWN


def _kernel(inp, *caps, key_f, reduce_f, size_f, **_):
    return GroupByWindowNode(inp, key_f, reduce_f, size_f, caps)


_GroupByWindow = DS.register_dataset_op("GroupByWindowDataset", _kernel)


def _int64_result(fn):
    def wrapper(*args):
        return convert_to_tensor(fn(*args), dtype=D.int64)
    return wrapper


def _check_key(f, what):
    out = f.output_spec
    if not (isinstance(out, TensorSpec) and out.dtype is D.int64 and
            out.shape.is_compatible_with(TensorShape([]))):
        raise ValueError(f"Invalid `{what}`. `{what}` must return a single `tf.int64` scalar "
                         f"tensor but its return type is {out}.")


@registry.implements("Dataset.group_by_window")
def group_by_window(ds, key_func, reduce_func, window_size=None, window_size_func=None,
                    name=None):
    """See `Dataset.group_by_window`."""
    if (window_size is not None and window_size_func or
            not (window_size is not None or window_size_func)):
        raise ValueError("Either the `window_size` argument or the `window_size_func` "
                         "argument must be specified.")
    if window_size is not None:
        size = window_size

        def window_size_func(unused_key):
            return size
    F._check_arguments(key_func, ds.element_spec if type(ds.element_spec) is tuple
                       else (ds.element_spec,))
    key_f = F.trace(_int64_result(key_func), ds.element_spec, "Dataset_group_by_window")
    _check_key(key_f, "key_func")
    reduce_f = F.trace(reduce_func, (_KEY, S.DatasetSpec(ds.element_spec)),
                       "Dataset_group_by_window")
    if not isinstance(reduce_f.output_spec, S.DatasetSpec):
        raise TypeError("Invalid `reduce_func`. `reduce_func` must return a single "
                        "`tf.data.Dataset` object but its return type is "
                        f"{reduce_f.output_spec}.")
    size_f = F.trace(_int64_result(window_size_func), _KEY, "Dataset_group_by_window")
    _check_key(size_f, "window_size_func")
    ins = [ds._variant_tensor] + key_f.capture_inputs() + reduce_f.capture_inputs() + \
        size_f.capture_inputs()
    return DS.build("_GroupByWindowDataset", _GroupByWindow, ins,
                    {"key_f": key_f, "reduce_f": reduce_f, "size_f": size_f},
                    reduce_f.output_spec.element_spec, name)


@registry.implements("Dataset.bucket_by_sequence_length")
def bucket_by_sequence_length(ds, element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False, name=None):
    """See `Dataset.bucket_by_sequence_length`."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError(
            f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
            f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
            f"`len(bucket_boundaries)={len(bucket_boundaries)}`.")
    batch_sizes = convert_to_tensor(np.asarray(bucket_batch_sizes, np.int64))

    def element_to_bucket_id(*args):
        seq_length = element_length_func(*args)
        boundaries = list(bucket_boundaries)
        buckets_min = [np.iinfo(np.int32).min] + boundaries
        buckets_max = boundaries + [np.iinfo(np.int32).max]
        conditions = math_ops.logical_and(math_ops.less_equal(buckets_min, seq_length),
                                          math_ops.less(seq_length, buckets_max))
        return reduction_ops.reduce_min(broadcast_ops.where(conditions))

    def window_size_fn(bucket_id):
        return gather(batch_sizes, bucket_id)

    def make_padded_shapes(spec, shapes, none_filler=None):
        # Shapes may be lists: flatten them as leaves, up to the element spec.
        nested = nest.is_nested(spec)
        padded = []
        for shape in (nest.flatten_up_to(spec, shapes) if nested else [shapes]):
            dims = [none_filler if d is None else d for d in TensorShape(shape).as_list()]
            if none_filler is not None and dims:
                dims = join_ops.stack([math_ops.cast(d, D.int64) for d in dims])
            padded.append(dims)
        return nest.pack_sequence_as(spec, padded) if nested else padded[0]

    def batching_fn(bucket_id, grouped_dataset):
        batch_size = window_size_fn(bucket_id)
        if no_padding:
            return grouped_dataset.batch(batch_size, drop_remainder=drop_remainder, name=name)
        none_filler = None
        if pad_to_bucket_boundary:
            check = check_ops.assert_less(
                bucket_id, np.int64(len(bucket_batch_sizes) - 1),
                message="When pad_to_bucket_boundary=True, elements must have length < "
                        "max(bucket_boundaries).")
            with control_dependencies([check]):
                boundaries = convert_to_tensor(np.asarray(bucket_boundaries, np.int64))
                none_filler = gather(boundaries, bucket_id) - 1
        spec = grouped_dataset.element_spec
        input_shapes = nest.map_structure(lambda s: s.shape, spec)
        shapes = make_padded_shapes(spec, padded_shapes or input_shapes, none_filler)
        return grouped_dataset.padded_batch(batch_size, shapes, padding_values,
                                            drop_remainder=drop_remainder, name=name)

    return group_by_window(ds, element_to_bucket_id, batching_fn,
                           window_size_func=window_size_fn, name=name)
