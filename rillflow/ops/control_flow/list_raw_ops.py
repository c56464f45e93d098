"""`tf.raw_ops.TensorList*` and `tf.raw_ops.EmptyTensorList`: TensorFlow's
tensor-list raw ops, over rillflow's list ops (list_ops.py).

TensorFlow's ops take the element shape as a tensor input (-1: unknown,
-1 entries: unknown dimensions); rillflow's kernels take it as an attr, so
the generic raw functions (ops/raw_ops.py) cannot call them and these
functions convert it. In eager mode they check the list's value first and
raise TensorFlow's messages (out-of-range indices, popping an empty list,
reading an unwritten element of unknown shape); inside tf.function the
kernels' own checks apply when the graph runs.
"""
import collections

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.context import state
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core import op_util as U
from . import list_ops as L
from ..raw_ops import hand_written as _raw

__all__ = []

# TensorFlow's C++ dtype names in its messages (float, not float32).


def _error(opname, message):
    return errors.InvalidArgumentError(None, None, f"{message} [Op:{opname}]")


def _shape(element_shape):
    """TensorFlow's element-shape tensor as a TensorShape: a scalar -1 is an
    unknown shape, -1 entries unknown dimensions."""
    if isinstance(element_shape, TensorShape):
        return element_shape
    if isinstance(element_shape, Tensor):
        value = U.constant_value(element_shape)
        if value is None:
            return TensorShape(None)     # computed in the graph: not known while tracing
    else:
        value = element_shape
    value = np.asarray(value)
    if value.ndim == 0:
        return TensorShape(None)
    return TensorShape([None if d < 0 else int(d) for d in value.reshape(-1)])


def _handle(h):
    return convert_to_tensor(h, dtype=D.variant)


def _eager_value(t):
    """The list's Python value in eager mode, None while tracing."""
    return t.numpy() if state.graph is None else None


def _int(x):
    return int(np.asarray(convert_to_tensor(x).numpy())) if state.graph is None else None


def _check_dtype(opname, lst, dtype):
    ref = next((v for v in lst if v is not None), None)
    if ref is not None and np.asarray(ref).dtype != dtype._np and dtype is not D.string:
        have = D.as_dtype(np.asarray(ref).dtype)
        raise _error(opname, f"Invalid data types; op elements {U.tf_type_name(dtype)} but list elements "
                     f"{U.tf_type_name(have)}")


@_raw("EmptyTensorList", "empty_tensor_list",
      ["element_shape", "max_num_elements", "element_dtype"],
      ["element_shape", "max_num_elements", "element_dtype"])
def _empty(element_shape, max_num_elements, element_dtype):
    return L.reserve(0, D.as_dtype(element_dtype), _shape(element_shape))


@_raw("TensorListReserve", "tensor_list_reserve",
      ["element_shape", "num_elements", "element_dtype"],
      ["element_shape", "num_elements", "element_dtype"])
def _reserve(element_shape, num_elements, element_dtype):
    n = _int(num_elements)
    if n is not None and n < 0:
        raise _error("TensorListReserve", "The num_elements to reserve must be a non negative "
                     f"number, but got {n}")
    return L.reserve(num_elements, D.as_dtype(element_dtype), _shape(element_shape))


@_raw("TensorListFromTensor", "tensor_list_from_tensor", ["tensor", "element_shape"],
      ["tensor", "element_shape"])
def _from_tensor(tensor, element_shape):
    t = convert_to_tensor(tensor)
    shape = _shape(element_shape)
    if t.shape.rank == 0 and state.graph is None:
        raise _error("TensorListFromTensor",
                     "Tensor must be at least a vector, but saw shape: []")
    rows = TensorShape(t.shape.as_list()[1:]) if t.shape.rank is not None else TensorShape(None)
    if not shape.is_compatible_with(rows):
        raise _error("TensorListFromTensor", f"Specified a list with shape {_dims(shape)} "
                     f"from a tensor with shape {_dims(rows)}")
    return L.from_tensor(t)


def _dims(shape):
    return "<unknown>" if shape.rank is None else \
        "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


@_raw("TensorListLength", "tensor_list_length", ["input_handle"], ["input_handle"])
def _length(input_handle):
    return L.length(_handle(input_handle))


@_raw("TensorListGetItem", "tensor_list_get_item",
      ["input_handle", "index", "element_shape", "element_dtype"],
      ["input_handle", "index", "element_shape", "element_dtype"])
def _get_item(input_handle, index, element_shape, element_dtype):
    h, dtype, shape = _handle(input_handle), D.as_dtype(element_dtype), _shape(element_shape)
    lst = _eager_value(h)
    if lst is not None:
        i = _int(index)
        if not 0 <= i < len(lst):
            raise _error("TensorListGetItem",
                         f"Trying to access element {i} in a list with {len(lst)} elements.")
        _check_dtype("TensorListGetItem", lst, dtype)
        if lst[i] is None:
            # TensorFlow reads an unwritten element as zeros of the element shape.
            ref = next((v for v in lst if v is not None), None)
            if ref is not None:
                return convert_to_tensor(np.zeros_like(ref))
            if not shape.is_fully_defined():
                raise _error("TensorListGetItem", "Trying to read an uninitialized tensor but "
                             f"element_shape is not fully defined: {_dims(shape)} and no list "
                             "element is set.")
            return convert_to_tensor(np.zeros(shape.as_list(), dtype._np))
    return L.get_item(h, index, dtype, shape)


@_raw("TensorListSetItem", "tensor_list_set_item",
      ["input_handle", "index", "item", "resize_if_index_out_of_bounds"],
      ["input_handle", "index", "item"])
def _set_item(input_handle, index, item, resize_if_index_out_of_bounds=False):
    h, item = _handle(input_handle), convert_to_tensor(item)
    lst = _eager_value(h)
    if lst is not None:
        i = _int(index)
        if not resize_if_index_out_of_bounds and not 0 <= i < len(lst):
            raise _error("TensorListSetItem",
                         f"Trying to modify element {i} in a list with {len(lst)} elements.")
        _check_dtype("TensorListSetItem", lst, item.dtype)
    return L.set_item(h, index, item, dynamic_size=bool(resize_if_index_out_of_bounds))


@_raw("TensorListPushBack", "tensor_list_push_back", ["input_handle", "tensor"],
      ["input_handle", "tensor"])
def _push_back(input_handle, tensor):
    h, t = _handle(input_handle), convert_to_tensor(tensor)
    lst = _eager_value(h)
    if lst is not None:
        _check_dtype("TensorListPushBack", lst, t.dtype)
    return L.push_back(h, t)


_PopBack = collections.namedtuple("TensorListPopBack", ["output_handle", "tensor"])


@_raw("TensorListPopBack", "tensor_list_pop_back",
      ["input_handle", "element_shape", "element_dtype"],
      ["input_handle", "element_shape", "element_dtype"])
def _pop_back(input_handle, element_shape, element_dtype):
    h = _handle(input_handle)
    lst = _eager_value(h)
    if lst is not None and not lst:
        # rillflow's kernel raises OutOfRangeError; TensorFlow's this.
        raise _error("TensorListPopBack", "Trying to pop from an empty list.")
    rest, last = L.pop_back(h, D.as_dtype(element_dtype), _shape(element_shape))
    return _PopBack(rest, last)


@_raw("TensorListStack", "tensor_list_stack",
      ["input_handle", "element_shape", "element_dtype", "num_elements"],
      ["input_handle", "element_shape", "element_dtype"])
def _stack(input_handle, element_shape, element_dtype, num_elements=-1):
    h, dtype, shape = _handle(input_handle), D.as_dtype(element_dtype), _shape(element_shape)
    lst = _eager_value(h)
    if lst is not None:
        if num_elements != -1 and num_elements != len(lst):
            raise _error("TensorListStack", f"Operation expected a list with {num_elements} "
                         f"elements but got a list with {len(lst)} elements.")
        _check_dtype("TensorListStack", lst, dtype)
        if lst and all(v is None for v in lst) and not shape.is_fully_defined():
            raise _error("TensorListStack", "Tried to stack list which only contains "
                         "uninitialized tensors and has a non-fully-defined element_shape: "
                         f"{_dims(shape)}")
    return L.stack(h, dtype, shape)


@_raw("TensorListGather", "tensor_list_gather",
      ["input_handle", "indices", "element_shape", "element_dtype"],
      ["input_handle", "indices", "element_shape", "element_dtype"])
def _gather(input_handle, indices, element_shape, element_dtype):
    h, dtype, shape = _handle(input_handle), D.as_dtype(element_dtype), _shape(element_shape)
    lst = _eager_value(h)
    if lst is not None:
        idx = np.asarray(convert_to_tensor(indices, dtype=D.int32).numpy()).reshape(-1)
        for i in idx:
            if not 0 <= i < len(lst):
                # TensorFlow's message, its typo included.
                raise _error("TensorListGather", f"Index {i} out o range; list only has "
                             f"{len(lst)} elements.")
        _check_dtype("TensorListGather", lst, dtype)
        if any(lst[int(i)] is None for i in idx):
            # Unwritten elements read as zeros, as in TensorListGetItem.
            return convert_to_tensor(np.stack(
                [_get_item(input_handle=h, index=int(i), element_shape=element_shape,
                           element_dtype=dtype).numpy() for i in idx]).astype(dtype._np)
                if len(idx) else np.zeros([0] + (shape.as_list() if shape.is_fully_defined()
                                                 else []), dtype._np))
    return L.gather(h, indices, dtype, shape)


@_raw("TensorListScatterIntoExistingList", "tensor_list_scatter_into_existing_list",
      ["input_handle", "tensor", "indices"], ["input_handle", "tensor", "indices"])
def _scatter(input_handle, tensor, indices):
    h, t = _handle(input_handle), convert_to_tensor(tensor)
    lst = _eager_value(h)
    if lst is not None:
        _check_dtype("TensorListScatterIntoExistingList", lst, t.dtype)
    return L.scatter(h, indices, t)


_Concat = collections.namedtuple("TensorListConcat", ["tensor", "lengths"])


@_raw("TensorListConcat", "tensor_list_concat",
      ["input_handle", "element_dtype", "element_shape"], ["input_handle", "element_dtype"])
def _concat(input_handle, element_dtype, element_shape=None):
    h, dtype = _handle(input_handle), D.as_dtype(element_dtype)
    shape = TensorShape(None) if element_shape is None else TensorShape(element_shape)
    lst = _eager_value(h)
    if lst is None:
        first = shape[0] if shape.rank else None
        if first is None:
            raise errors.UnimplementedError(
                None, None, "rillflow's TensorListConcat inside tf.function needs an "
                "element_shape with a known first dimension")
        from ..core.constant_ops import fill
        n = L.length(h)
        return _Concat(L.concat(h, dtype), fill(convert_to_tensor(n)[None], np.int64(first)))
    _check_dtype("TensorListConcat", lst, dtype)
    if not lst and (shape.rank is None or not TensorShape(shape.as_list()[1:])
                    .is_fully_defined()):
        raise _error("TensorListConcat", "All except the first dimension must be fully "
                     "defined when concating an empty tensor list. element_shape: "
                     f"{_dims(shape)}")
    lengths = convert_to_tensor(np.array([np.shape(v)[0] for v in lst if v is not None],
                                         np.int64))
    if not lst:
        return _Concat(convert_to_tensor(np.zeros([0] + shape.as_list()[1:], dtype._np)),
                       lengths)
    return _Concat(L.concat(h, dtype), lengths)


@_raw("TensorListSplit", "tensor_list_split", ["tensor", "element_shape", "lengths"],
      ["tensor", "element_shape", "lengths"])
def _split(tensor, element_shape, lengths):
    t = convert_to_tensor(tensor)
    if state.graph is None:
        n = sum(int(x) for x in np.reshape(convert_to_tensor(lengths).numpy(), -1))
        if t.shape.rank and n < t.shape[0]:
            raise _error("TensorListSplit", f"Unused values in tensor. Length of tensor: "
                         f"{t.shape[0]} Values used: {n}")
    return L.split(L.reserve(0, t.dtype), t, lengths)
