"""Tensor lists: the `variant` values behind TensorArray and AutoGraph lists.

A tensor list's value is a Python list of NumPy arrays, with None for an
element not written yet (and, in gradient lists, for a zero gradient).
Writes copy the list (kernels never mutate their inputs), which for the
list lengths of loops is a cheap pointer copy.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply_in_place
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core.constant_ops import zeros_like

_state = _context.state


class TensorListValue(list):
    """The value of a tensor list: a Python list that eager tensors can hold."""

    __slots__ = ()
    dtype = D.VARIANT_NP
    shape = ()
    ndim = 0
    size = 1


def _idx(i):
    return int(i)


def _check_index(lst, i, what):
    if not 0 <= i < len(lst):
        raise errors.InvalidArgumentError(
            None, None, f"Tried to {what} index {i} but array size is: {len(lst)}")


def _check_shape(value, element_shape, index):
    if element_shape is not None and element_shape.rank is not None:
        vs = np.shape(value)
        if len(vs) != element_shape.rank or any(
                d is not None and d != e for d, e in zip(element_shape, vs)):
            raise errors.InvalidArgumentError(
                None, None, f"Could not write to TensorArray index {index} because the value "
                f"shape is {list(vs)} which is incompatible with the TensorArray's inferred "
                f"element shape: {list(element_shape)}")


def _reserve_kernel(num_elements, element_dtype=None, element_shape=None):
    return TensorListValue([None] * int(num_elements))


def _set_item_kernel(lst, index, item, element_dtype=None, element_shape=None,
                     dynamic_size=False):
    return set_item_in_place_checked(TensorListValue(lst), index, item,
                                     element_shape=element_shape, dynamic_size=dynamic_size)


def set_item_static(lst, index, item):
    """TensorListSetItem when graph construction proved the item's shape
    right (the compiler's fast path): bounds check and copy only."""
    return set_item_in_place(TensorListValue(lst), index, item)


def set_item_in_place(lst, index, item):
    """TensorListSetItem on a list nothing else holds (the compiler proved
    it: a loop's own list, see compiler/loop_lists.py): writes in place, so a
    loop writing n elements costs O(n), not O(n**2)."""
    i = int(index)
    if not 0 <= i < len(lst):
        _check_index(lst, i, "write to")
    lst[i] = item
    return lst


def set_item_in_place_checked(lst, index, item, element_dtype=None, element_shape=None,
                              dynamic_size=False):
    """TensorListSetItem's full kernel (shape check, growth), writing in place
    on a list nothing else holds (compiler/loop_lists.py)."""
    i = _idx(index)
    if i >= len(lst) and dynamic_size:
        lst.extend([None] * (i + 1 - len(lst)))
    _check_index(lst, i, "write to")
    _check_shape(item, element_shape, i)
    lst[i] = item
    return lst


def push_back_in_place(lst, item, element_dtype=None):
    """TensorListPushBack appending in place to a list nothing else holds."""
    lst.append(item)
    return lst


def _get_item_kernel(lst, index, element_dtype=None, element_shape=None):
    i = _idx(index)
    _check_index(lst, i, "read from")
    v = lst[i]
    if v is None:
        raise errors.InvalidArgumentError(
            None, None, f"Could not read from TensorArray index {i} because it has not yet been "
            "written to.")
    return v


def _zeros_for(lst, element_shape, dtype):
    ref = next((v for v in lst if v is not None), None)
    if ref is not None:
        return np.zeros_like(ref)
    if element_shape is not None and element_shape.is_fully_defined():
        return np.zeros(element_shape.as_list(), dtype=dtype._np)
    return None


def _stack_kernel(lst, element_dtype=None, element_shape=None):
    if not lst:
        shape = [0] + (element_shape.as_list() if element_shape is not None and
                       element_shape.is_fully_defined() else [])
        return np.zeros(shape, dtype=element_dtype._np)
    vals = lst
    if any(v is None for v in lst):
        zeros = None
        vals = []
        for i, v in enumerate(lst):
            if v is None:
                if zeros is None:
                    zeros = _zeros_for(lst, element_shape, element_dtype)
                if zeros is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Could not read from TensorArray index {i} because it "
                        "has not yet been written to.")
                v = zeros
            vals.append(v)
    try:
        out = _stacked(vals)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, "TensorArray has inconsistent shapes: " +
            ", ".join(str(list(np.shape(v))) for v in vals)) from None
    return out.astype(element_dtype._np, copy=False) if element_dtype._np is not None and \
        element_dtype is not D.string else out


def _stacked(vals):
    """np.stack(vals): one concatenation where every element is an array of
    the same shape (what loops write; np.stack's per-element reshapes cost
    as much as the copy for a hundred small arrays)."""
    first = vals[0]
    if first.__class__ is np.ndarray and first.ndim:
        shape = first.shape
        try:
            same = len({v.shape for v in vals}) == 1
        except AttributeError:     # (an element that is not an array)
            same = False
        if same:
            return np.concatenate(vals).reshape((len(vals),) + shape)
    return np.stack(vals)


def _from_tensor_kernel(tensor, element_dtype=None):
    return TensorListValue(tensor[i] if isinstance(tensor[i], np.ndarray) else
                           np.asarray(tensor[i]) for i in range(np.shape(tensor)[0]))


def _length_kernel(lst):
    return np.int32(len(lst))


def _gather_kernel(lst, indices, element_dtype=None, element_shape=None):
    return _stack_kernel([_get_item_kernel(lst, i) for i in np.reshape(indices, -1)],
                         element_dtype, element_shape)


def _scatter_kernel(lst, indices, tensor, element_dtype=None, dynamic_size=False):
    out = TensorListValue(lst)
    for k, i in enumerate(np.reshape(indices, -1)):
        i = int(i)
        if i >= len(out) and dynamic_size:
            out.extend([None] * (i + 1 - len(out)))
        _check_index(out, i, "write to")
        out[i] = np.asarray(tensor[k])
    return out


def _concat_kernel(lst, element_dtype=None):
    vals = [v for v in lst if v is not None]
    if len(vals) != len(lst):
        raise errors.InvalidArgumentError(None, None, "Could not concat a TensorArray with "
                                          "unwritten elements")
    if not vals:
        return np.zeros([0], dtype=element_dtype._np)
    return np.concatenate(vals, axis=0)


def _split_kernel(lst, tensor, lengths, element_dtype=None):
    lengths = [int(x) for x in np.reshape(lengths, -1)]
    if sum(lengths) != np.shape(tensor)[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Expected sum of lengths to be equal to values.shape[0], but sum of "
            f"lengths is {sum(lengths)} and value's shape is: {list(np.shape(tensor))}")
    out, start = TensorListValue(), 0
    for n in lengths:
        out.append(tensor[start:start + n])
        start += n
    return out


def _push_back_kernel(lst, item, element_dtype=None):
    out = TensorListValue(lst)
    out.append(item)
    return out


def _pop_back_kernel(lst, element_dtype=None, element_shape=None):
    if not lst:
        raise errors.OutOfRangeError(None, None, "Trying to pop from an empty list.")
    return [TensorListValue(lst[:-1]), lst[-1]]


def _zeros_like_kernel(lst):
    return TensorListValue([None] * len(lst))


def _add_n_kernel(*lists, N=None):
    out = TensorListValue()
    for items in zip(*lists):
        vals = [v for v in items if v is not None]
        if not vals:
            out.append(None)
        else:
            acc = vals[0]
            for v in vals[1:]:
                acc = acc + v
            out.append(acc)
    return out


def _get_or_zeros_kernel(lst, index, like):
    i = _idx(index)
    v = lst[i] if 0 <= i < len(lst) else None
    return np.zeros_like(like) if v is None else v


def _stack_or_zeros_kernel(lst, like):
    return np.stack([np.zeros_like(like[i]) if v is None else v for i, v in enumerate(lst)]) \
        if lst else np.zeros_like(like)


def _variant(inputs, attrs):
    return [(TensorShape([]), D.variant)]


def _elem_infer(inputs, attrs):
    shape = attrs.get("element_shape") or TensorShape(None)
    return [(shape, attrs["element_dtype"])]


def _stacked_infer(inputs, attrs):
    shape = attrs.get("element_shape") or TensorShape(None)
    n = None
    return [(TensorShape([n]).concatenate(shape), attrs["element_dtype"])]


# --- gradients ---------------------------------------------------------------------------

def _set_item_grad(op, dlist):
    lst, index, item = op.inputs
    d_item = apply(_GetOrZeros, [dlist, index, item], name="TensorListGetItemGrad")
    d_list = apply(_SetItem, [dlist, index, _zeros_like_tensor(item)],
                   {"element_dtype": item.dtype, "element_shape": None, "dynamic_size": True},
                   name="TensorListSetItemGrad")
    return [d_list, None, d_item]


def _zeros_like_tensor(t):
    return zeros_like(t)


def _get_item_grad(op, d):
    lst, index = op.inputs
    zeros = apply(_ZerosLikeList, [lst], name="TensorListZerosLike")
    return [apply(_SetItem, [zeros, index, d],
                  {"element_dtype": d.dtype, "element_shape": None, "dynamic_size": False},
                  name="TensorListGetItemGrad"), None]


def _stack_grad(op, d):
    return [apply(_FromTensor, [d], {"element_dtype": d.dtype}, name="TensorListStackGrad")]


def _from_tensor_grad(op, dlist):
    t = op.inputs[0]
    return [apply(_StackOrZeros, [dlist, t], name="TensorListFromTensorGrad")]


def _push_back_grad(op, dlist):
    lst, item = op.inputs
    rest, last = apply(_PopBack, [dlist], {"element_dtype": item.dtype}, multi=True,
                       name="TensorListPushBackGrad")
    return [rest, apply(_GetOrZerosScalarLike, [last, item], name="TensorListPushBackGrad")]


def _maybe_zero_kernel(v, like):
    return np.zeros_like(like) if v is None else v


def _gather_grad(op, d):
    lst, indices = op.inputs
    zeros = apply(_ZerosLikeList, [lst], name="TensorListZerosLike")
    return [apply(_Scatter, [zeros, indices, d], {"element_dtype": d.dtype,
                                                   "dynamic_size": False}), None]


def _scatter_grad(op, dlist):
    lst, indices, tensor = op.inputs
    return [None, None, apply(_GatherOrZeros, [dlist, indices, tensor])]


def _gather_or_zeros_kernel(lst, indices, like):
    return np.stack([np.zeros_like(like[k]) if lst[int(i)] is None else lst[int(i)]
                     for k, i in enumerate(np.reshape(indices, -1))])


def _fill_zeros_kernel(lst, like):
    return TensorListValue([np.zeros_like(ref) if v is None else v for v, ref in zip(lst, like)])


_Reserve = register("TensorListReserve", _reserve_kernel, _variant, no_fold=True)
_SetItem = register("TensorListSetItem", _set_item_kernel, _variant, _set_item_grad,
                    no_fold=True)
_GetItem = register("TensorListGetItem", _get_item_kernel, _elem_infer, _get_item_grad,
                    no_fold=True)
_Stack = register("TensorListStack", _stack_kernel, _stacked_infer, _stack_grad, no_fold=True)
_FromTensor = register("TensorListFromTensor", _from_tensor_kernel, _variant,
                       _from_tensor_grad, no_fold=True)
_Length = register("TensorListLength", _length_kernel,
                   lambda i, a: [(TensorShape([]), D.int32)], no_fold=True)
_Gather = register("TensorListGather", _gather_kernel, _stacked_infer, _gather_grad,
                   no_fold=True)
_Scatter = register("TensorListScatterIntoExistingList", _scatter_kernel, _variant,
                    _scatter_grad, no_fold=True)
_Concat = register("TensorListConcat", _concat_kernel,
                   lambda i, a: [(TensorShape(None), a["element_dtype"])], no_fold=True)
_Split = register("TensorListSplit", _split_kernel, _variant, no_fold=True)
_PushBack = register("TensorListPushBack", _push_back_kernel, _variant, _push_back_grad,
                     no_fold=True)
_PopBack = register("TensorListPopBack", _pop_back_kernel,
                    lambda i, a: [(TensorShape([]), D.variant)] + _elem_infer(i, a),
                    no_fold=True)
_ZerosLikeList = register("TensorListZerosLike", _zeros_like_kernel, _variant,
                         lambda op, g: [None], no_fold=True)
_AddNList = register("TensorListAddN", _add_n_kernel, _variant,
                     lambda op, g: [g] * len(op.inputs), no_fold=True)
_GetOrZeros = register("TensorListGetItemOrZeros", _get_or_zeros_kernel,
                       lambda i, a: [(i[2].shape, i[2].dtype)], no_fold=True)
_GetOrZerosScalarLike = register("TensorListMaybeZero", _maybe_zero_kernel,
                                 lambda i, a: [(i[1].shape, i[1].dtype)], no_fold=True)
_StackOrZeros = register("TensorListStackOrZeros", _stack_or_zeros_kernel,
                         lambda i, a: [(i[1].shape, i[1].dtype)], no_fold=True)
_FillZeros = register("TensorListFillZeros", _fill_zeros_kernel, _variant,
                      lambda op, g: [g, None], no_fold=True)
_GatherOrZeros = register("TensorListGatherOrZeros", _gather_or_zeros_kernel,
                          lambda i, a: [(i[2].shape, i[2].dtype)], no_fold=True)


def zeros_like_list(t):
    """The zero gradient of a tensor list (all elements None)."""
    return apply(_ZerosLikeList, [t], name="TensorListZerosLike")


def fill_zeros(gradients, like):
    """A gradient list with its unset (zero) elements made explicit: zeros
    shaped like the elements of the list `like` (a loop's recorded values)."""
    return apply(_FillZeros, [gradients, like], name="TensorListFillZeros")


def add_n_lists(ts):
    """The elementwise sum of gradient lists."""
    return apply(_AddNList, list(ts), {"N": len(ts)}, name="TensorListAddN")


# --- public helpers used by TensorArray and AutoGraph ---------------------------------------

def empty_list(element_dtype, element_shape=None, max_num_elements=None):
    """A new, empty tensor list (`tf.raw_ops.EmptyTensorList` equivalent)."""
    return reserve(0, element_dtype, element_shape)


def reserve(num_elements, element_dtype, element_shape=None):
    """A tensor list of `num_elements` unwritten elements."""
    n = convert_to_tensor(num_elements, dtype=D.int32)
    return apply(_Reserve, [n], {"element_dtype": D.as_dtype(element_dtype),
                                 "element_shape": element_shape}, name="TensorListReserve")


def set_item(lst, index, item, element_shape=None, dynamic_size=False, in_place=False):
    """The list with element `index` set to `item`; with `in_place` (eager
    only) the list itself is changed, as TensorFlow's eager TensorArray is."""
    inputs = [lst, convert_to_tensor(index, dtype=D.int32), item]
    attrs = {"element_dtype": item.dtype, "element_shape": element_shape,
             "dynamic_size": dynamic_size}
    if in_place and _state.graph is None:
        return apply_in_place(_SetItem, set_item_in_place_checked, inputs, attrs)
    return apply(_SetItem, inputs, attrs, name="TensorListSetItem")


def get_item(lst, index, element_dtype, element_shape=None):
    """Element `index` of the list."""
    return apply(_GetItem, [lst, convert_to_tensor(index, dtype=D.int32)],
                 {"element_dtype": element_dtype, "element_shape": element_shape},
                 name="TensorListGetItem")


def stack(lst, element_dtype, element_shape=None):
    """The elements stacked into one tensor."""
    return apply(_Stack, [lst], {"element_dtype": element_dtype,
                                 "element_shape": element_shape}, name="TensorListStack")


def from_tensor(tensor):
    """A list of the rows of `tensor`."""
    return apply(_FromTensor, [tensor], {"element_dtype": tensor.dtype},
                 name="TensorListFromTensor")


def length(lst):
    """The number of elements."""
    return apply(_Length, [lst], name="TensorListLength")


def gather(lst, indices, element_dtype, element_shape=None):
    """The elements at `indices`, stacked."""
    return apply(_Gather, [lst, convert_to_tensor(indices, dtype=D.int32)],
                 {"element_dtype": element_dtype, "element_shape": element_shape},
                 name="TensorListGather")


def scatter(lst, indices, tensor, dynamic_size=False):
    """The list with the rows of `tensor` written at `indices`."""
    return apply(_Scatter, [lst, convert_to_tensor(indices, dtype=D.int32), tensor],
                 {"element_dtype": tensor.dtype, "dynamic_size": dynamic_size},
                 name="TensorListScatter")


def concat(lst, element_dtype):
    """The elements concatenated along their first axis."""
    return apply(_Concat, [lst], {"element_dtype": element_dtype}, name="TensorListConcat")


def split(lst, tensor, lengths):
    """A list of consecutive slices of `tensor` with the given lengths."""
    return apply(_Split, [lst, tensor, convert_to_tensor(lengths, dtype=D.int32)],
                 {"element_dtype": tensor.dtype}, name="TensorListSplit")


def push_back(lst, item):
    """The list with `item` appended."""
    return apply(_PushBack, [lst, item], {"element_dtype": item.dtype},
                 name="TensorListPushBack")


def pop_back(lst, element_dtype, element_shape=None):
    """(the list without its last element, the last element), the element
    of `element_shape` (as far as known)."""
    return apply(_PopBack, [lst], {"element_dtype": element_dtype,
                                   "element_shape": element_shape}, multi=True,
                 name="TensorListPopBack")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------
# A list is a TList: a preallocated buffer of `capacity` rows written with
# dynamic updates, and a length. Unwritten rows are zeros, which is what the
# gradient lists' missing elements (None here) stand for.

def _xla_buffer(lst, item_shape, dtype):
    """The list's buffer, made of zeros once an element's shape is known."""
    if lst.buffer is not None:
        return lst.buffer
    return XL.jnp.zeros((lst.capacity,) + tuple(item_shape), dtype)


def _xla_grow(ctx, op, lst, buffer, needed):
    """A buffer with room for `needed` rows (`needed` static), grown outside loops."""
    if not ctx.is_static(needed) or int(needed) <= buffer.shape[0]:
        return buffer
    extra = int(needed) - buffer.shape[0]
    return XL.jnp.concatenate([buffer, XL.jnp.zeros((extra,) + buffer.shape[1:],
                                                    buffer.dtype)])


def _lower_reserve(ctx, op, num_elements):
    n = XL.ints(ctx.static(op, 0, num_elements))[0]
    shape = op.attrs.get("element_shape")
    dtype = op.attrs["element_dtype"]._np
    known = shape is not None and shape.rank is not None and shape.is_fully_defined()
    buffer = XL.jnp.zeros((n,) + tuple(shape.as_list()), dtype) if known else None
    return XL.TList(buffer, n, dtype, tuple(shape.as_list()) if known else None, n)


def _set_row(buffer, index, item):
    """`buffer` with row `index` replaced by `item`: a dynamic-update-slice
    (cheaper than a one-row scatter on XLA's CPU) for a run-time index,
    which clamps an index out of range instead of dropping the write."""
    if isinstance(index, (np.ndarray, np.generic, int)):
        return buffer.at[index].set(item)
    item = XL.jnp.asarray(item, buffer.dtype)
    return XL.lax.dynamic_update_index_in_dim(buffer, item, XL.jnp.reshape(index, ()), 0)


def _lower_set_item(ctx, op, lst, index, item):
    buffer = _xla_buffer(lst, XL.jnp.shape(item), item.dtype)
    length = lst.length
    if op.attrs.get("dynamic_size"):
        buffer = _xla_grow(ctx, op, lst, buffer, index + 1 if ctx.is_static(index) else 0)
        length = np.maximum(length, index + 1) if ctx.is_static(index) and \
            ctx.is_static(length) else XL.jnp.maximum(length, index + 1)
    out = XL.TList(_set_row(buffer, index, item), length, lst.dtype, XL.jnp.shape(item),
                   buffer.shape[0])
    return out


def _lower_push_back(ctx, op, lst, item):
    buffer = _xla_buffer(lst, XL.jnp.shape(item), item.dtype)
    buffer = _xla_grow(ctx, op, lst, buffer, lst.length + 1 if ctx.is_static(lst.length) else 0)
    return XL.TList(_set_row(buffer, lst.length, item), lst.length + 1, lst.dtype,
                    XL.jnp.shape(item), buffer.shape[0])


def _lower_pop_back(ctx, op, lst):
    return [lst.replace(length=lst.length - 1), lst.buffer[lst.length - 1]]


def _lower_stack(ctx, op, lst):
    if lst.buffer is None:
        shape = lst.element_shape or tuple(op.outputs[0].shape.as_list()[1:])
        return XL.jnp.zeros((lst.capacity,) + tuple(shape), lst.dtype)
    if ctx.is_static(lst.length) and int(lst.length) < lst.buffer.shape[0]:
        return lst.buffer[:int(lst.length)]
    return lst.buffer


def _lower_from_tensor(ctx, op, t):
    n = XL.jnp.shape(t)[0]
    return XL.TList(XL.jnp.asarray(t), n, t.dtype, XL.jnp.shape(t)[1:], n)


def _lower_scatter(ctx, op, lst, indices, tensor):
    buffer = _xla_buffer(lst, XL.jnp.shape(tensor)[1:], tensor.dtype)
    length = lst.length
    if op.attrs.get("dynamic_size") and ctx.is_static(indices) and np.size(indices):
        buffer = _xla_grow(ctx, op, lst, buffer, int(np.max(indices)) + 1)
        length = max(int(length), int(np.max(indices)) + 1) if ctx.is_static(length) else length
    return XL.TList(buffer.at[XL.jnp.reshape(indices, -1)].set(tensor), length, lst.dtype,
                    XL.jnp.shape(tensor)[1:], buffer.shape[0])


def _lower_concat(ctx, op, lst):
    b = _lower_stack(ctx, op, lst)
    return XL.jnp.reshape(b, (-1,) + tuple(b.shape[2:]))


def _lower_split(ctx, op, lst, tensor, lengths):
    sizes = XL.ints(ctx.static(op, 2, lengths))
    if len(set(sizes)) > 1:
        raise errors.InvalidArgumentError(None, op, "XLA splits a tensor list into equal "
                                          "pieces only")
    n = len(sizes)
    rows = XL.jnp.reshape(tensor, (n, sizes[0] if sizes else 0) + tuple(tensor.shape[1:]))
    return XL.TList(rows, n, tensor.dtype, rows.shape[1:], n)


def _lower_zeros_like(ctx, op, lst):
    return lst.replace() if lst.buffer is None else XL.TList(
        XL.jnp.zeros_like(lst.buffer), lst.length, lst.dtype, lst.element_shape, lst.capacity)


def _lower_add_n(ctx, op, *lists):
    bufs = [t.buffer for t in lists if t.buffer is not None]
    if not bufs:
        return lists[0]
    total = bufs[0]
    for b in bufs[1:]:
        total = total + b
    first = lists[0]
    return XL.TList(total, first.length, first.dtype, total.shape[1:], total.shape[0])


def _or_zeros(value, like):
    return XL.jnp.zeros_like(like) if value is None else value


def _lower_fill_zeros(ctx, op, lst, like):
    if lst.buffer is not None:
        return lst
    return XL.TList(XL.jnp.zeros_like(like.buffer), like.length, like.dtype,
                    like.element_shape, like.capacity)


XL.set_lowerings({
    "TensorListReserve": _lower_reserve, "TensorListSetItem": _lower_set_item,
    "TensorListGetItem": lambda ctx, op, lst, i: lst.buffer[i],
    "TensorListStack": _lower_stack, "TensorListFromTensor": _lower_from_tensor,
    "TensorListLength": lambda ctx, op, lst: lst.length,
    "TensorListGather": lambda ctx, op, lst, i: lst.buffer[i],
    "TensorListScatterIntoExistingList": _lower_scatter, "TensorListConcat": _lower_concat,
    "TensorListSplit": _lower_split, "TensorListPushBack": _lower_push_back,
    "TensorListPopBack": _lower_pop_back, "TensorListZerosLike": _lower_zeros_like,
    "TensorListAddN": _lower_add_n,
    "TensorListGetItemOrZeros": lambda ctx, op, lst, i, like: _or_zeros(
        None if lst.buffer is None else lst.buffer[i], like),
    "TensorListMaybeZero": lambda ctx, op, v, like: _or_zeros(v, like),
    "TensorListStackOrZeros": lambda ctx, op, lst, like: _or_zeros(lst.buffer, like),
    "TensorListFillZeros": _lower_fill_zeros,
    "TensorListGatherOrZeros": lambda ctx, op, lst, i, like: _or_zeros(
        None if lst.buffer is None else lst.buffer[i], like)})
