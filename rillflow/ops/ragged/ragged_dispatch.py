"""The public `tf.*` functions TensorFlow dispatches on RaggedTensor
arguments, registered with `framework/dispatch.py`: every unary and binary
elementwise API (`tf.math.*`, `tf.strings.*` elementwise ops, `tf.cast`,
comparisons...), the reductions (`tf.reduce_sum` ... `tf.math.reduce_std`),
`tf.concat`, `tf.stack`, `tf.gather` (`ragged_gather`), `tf.where`,
`tf.expand_dims`, `tf.boolean_mask`, `tf.tile` (`ragged_tile`),
`tf.nn.embedding_lookup` of ragged ids, `tf.map_fn` (`ragged_map_fn`),
`tf.strings.join` and `tf.strings.reduce_join`, `tf.size`, `tf.rank`,
`tf.reverse`, `tf.one_hot`, and `tf.shape`, which returns a `DynamicRaggedShape` that
`tf.zeros`, `tf.ones`, `tf.fill` and `tf.reshape` accept. The
implementations live in the other ragged modules; this module only wires them.
"""
import inspect
import typing

import numpy as np

from ...framework import dispatch
from ...framework import dtypes as D
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ..strings import segment_join_ops, string_ops
from ..core import broadcast_ops, constant_ops, creation_ops, dim_ops, gather_ops, join_ops
from ..core import reduction_ops, shape_ops
from ..nn import dropout_embedding

from ..core.shape_ops import size as dense_size
from . import ragged_array_ops as A
from . import ragged_math_ops as RM
from . import ragged_gather, ragged_map_fn, ragged_tile
from ..control_flow import functional_ops
from .dynamic_ragged_shape import DynamicRaggedShape
from .ragged_tensor import RaggedTensor

# What may stand beside a RaggedTensor in a call: anything convertible to a
# tensor (TensorFlow's RaggedOrDense, with Python values converted).
_OPERAND = typing.Union[RaggedTensor, Tensor, int, float, bool, complex, str, bytes, list,
                        tuple, np.ndarray, np.generic]


def _register(api, signature, impl):
    """Registers `impl(**arguments)` for `api` (bound by the API's own signature)."""
    sig = inspect.signature(api)

    def target(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return impl(**bound.arguments)
    target.__name__ = f"ragged_{api.__name__}"
    target.__doc__ = f"`tf.{api.__name__}` for RaggedTensor arguments."
    dispatch.register(api, signature, target, check_target_signature=False)


dispatch.register_unary_elementwise(RaggedTensor, RM.unary_elementwise)
dispatch.register_binary_elementwise(_OPERAND, _OPERAND, RM.binary_elementwise)

for _kind in ("sum", "mean", "max", "min", "prod", "any", "all", "variance", "std"):
    def _reduce(input_tensor, axis=None, keepdims=False, name=None, _kind=_kind):
        return RM.reduce(_kind, input_tensor, axis, keepdims)
    _register(getattr(reduction_ops, f"reduce_{_kind}"), {"input_tensor": RaggedTensor},
              _reduce)

_register(join_ops.concat, {"values": typing.List[_OPERAND]},
          lambda values, axis, name=None: A.concat(values, axis))
_register(join_ops.stack, {"values": typing.List[_OPERAND]},
          lambda values, axis=0, name=None: A.stack(values, axis))
_register(gather_ops.gather, {"params": _OPERAND, "indices": _OPERAND},
          lambda params, indices, validate_indices=None, axis=None, batch_dims=0,
          name=None: ragged_gather.gather(params, indices, axis=axis, batch_dims=batch_dims))
_register(broadcast_ops.where, {"condition": _OPERAND, "x": typing.Optional[_OPERAND],
                                "y": typing.Optional[_OPERAND]},
          lambda condition, x=None, y=None, name=None: A.where_ragged(condition, x, y))
_register(dim_ops.expand_dims, {"input": RaggedTensor},
          lambda input, axis, name=None: A.expand_dims(input, axis))  # noqa: A002
_register(gather_ops.boolean_mask, {"tensor": _OPERAND, "mask": _OPERAND},
          lambda tensor, mask, axis=None, name=None: A.boolean_mask(tensor, mask))
_register(string_ops.split, {"input": RaggedTensor},
          lambda input, sep=None, maxsplit=-1, name=None: input.with_flat_values(  # noqa
              string_ops.split(input.flat_values, sep, maxsplit)))
_register(broadcast_ops.tile, {"input": RaggedTensor},
          lambda input, multiples, name=None: ragged_tile.tile(input, multiples))  # noqa: A002
# Ragged ids look up each flat id (TensorFlow's ragged embedding_lookup).
_register(dropout_embedding.embedding_lookup, {"ids": RaggedTensor},
          lambda params, ids, max_norm=None, name=None: ids.with_flat_values(
              dropout_embedding.embedding_lookup(params, ids.flat_values, max_norm)))
_register(shape_ops.size, {"input": RaggedTensor},
          lambda input, out_type=None, name=None: dense_size(  # noqa: A002
              input.flat_values, out_type=out_type or D.int32))
_register(shape_ops.rank, {"input": RaggedTensor},
          lambda input, name=None: convert_to_tensor(np.int32(input.shape.rank)))  # noqa



def _reverse(tensor, axis, name=None):
    """`tf.reverse` of a RaggedTensor: a `::-1` slice at each axis."""
    rank = tensor.shape.rank
    axes = {int(a) % rank for a in np.reshape(np.asarray(
        axis.numpy() if hasattr(axis, "numpy") else axis), [-1])}
    return tensor[tuple(slice(None, None, -1) if i in axes else slice(None)
                        for i in range(max(axes) + 1))]


_register(gather_ops.reverse, {"tensor": RaggedTensor}, _reverse)


# tf.shape of a RaggedTensor is its DynamicRaggedShape (int32 unless out_type
# says otherwise), and the tensor makers accept one to build RaggedTensors.
dispatch.register_dispatchable_type(DynamicRaggedShape)
_register(shape_ops.shape, {"input": RaggedTensor},
          lambda input, out_type=None, name=None: DynamicRaggedShape.from_tensor(  # noqa
              input, dtype=out_type or D.int32))


def _filled(shape, make):
    """A RaggedTensor of `shape` whose flat values `make(inner_shape)` builds."""
    return shape._add_row_partitions(make(shape.inner_shape))


_register(constant_ops.zeros, {"shape": DynamicRaggedShape},
          lambda shape, dtype=D.float32, name=None, layout=None: _filled(
              shape, lambda s: constant_ops.zeros(s, dtype)))
_register(constant_ops.ones, {"shape": DynamicRaggedShape},
          lambda shape, dtype=D.float32, name=None, layout=None: _filled(
              shape, lambda s: constant_ops.ones(s, dtype)))
_register(constant_ops.fill, {"dims": DynamicRaggedShape},
          lambda dims, value, name=None, layout=None: _filled(
              dims, lambda s: constant_ops.fill(s, value)))
_register(shape_ops.reshape, {"shape": DynamicRaggedShape},
          lambda tensor, shape, name=None: _filled(
              shape, lambda s: shape_ops.reshape(tensor, s)))


# tf.map_fn over the rows of a RaggedTensor.
_register(functional_ops.map_fn, {"elems": RaggedTensor},
          lambda fn, elems, **kwargs: ragged_map_fn.map_fn(fn, elems, **kwargs))


def _strings_join(inputs, separator="", name=None):
    """`tf.strings.join` with RaggedTensor inputs: all ragged inputs share one
    partition, dense ones broadcast to it; the flat values are joined."""
    first = next(x for x in inputs if isinstance(x, RaggedTensor))
    flats = []
    for x in inputs:
        if not isinstance(x, RaggedTensor):
            x = RM._broadcast_dense(first, convert_to_tensor(x))
        if isinstance(x, RaggedTensor):
            RM._same_partition(x, first)
            x = x.flat_values
        flats.append(x)
    return first.with_flat_values(string_ops.join(flats, separator))


_register(string_ops.join, {"inputs": typing.List[_OPERAND]}, _strings_join)


def _reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """`tf.strings.reduce_join` of a RaggedTensor: a segment join over the
    reduced ragged axis (the dense join on uniform inner axes)."""
    def seg(data, ids, n):
        return segment_join_ops.unsorted_segment_join(data, ids, n, separator)

    def dense(t, ax):
        return string_ops.reduce_join(t, ax, separator=separator)
    return RM._reduce(seg, dense, inputs, axis, keepdims)


_register(string_ops.reduce_join, {"inputs": RaggedTensor}, _reduce_join)


def _one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """`tf.one_hot` of ragged indices: one-hot rows of the flat values, the
    new axis counted past the ragged dimensions (TensorFlow's ragged_one_hot).

    Raises:
      ValueError: for a non-negative `axis` within the ragged dimensions.
    """
    if isinstance(axis, int) and axis >= 0:
        if axis <= indices.ragged_rank:
            raise ValueError("axis (%d) must be greater than indices.ragged_rank (%d)."
                             % (axis, indices.ragged_rank))
        axis -= indices.ragged_rank
    return indices.with_flat_values(creation_ops.one_hot(
        indices.flat_values, depth, on_value, off_value, axis, dtype, name))


_register(creation_ops.one_hot, {"indices": RaggedTensor}, _one_hot)
