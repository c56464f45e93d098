"""Sliced variable assignment: `v[1:, 0].assign(x)` (TensorFlow's
ResourceStridedSliceAssign).

`v[key]` is an ordinary tensor (the slice of the variable's value) that
also remembers where it came from; only such tensors have an `assign`
attribute, so `hasattr(t, "assign")` stays False for every other tensor, as
in TensorFlow. The assigned value broadcasts to the slice's shape.
"""
import weakref

import numpy as np

from ...framework import context as _context
from ...framework import lowering as XL
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply_op
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import dims_text
from ..core import op_util as U
from ..core import slicing as S
from .variables import Variable, _UnreadVariable, _uninitialized

__all__ = ["slice_variable", "install"]

_state = _context.state
# id(sliced tensor) -> (weak reference to it, variable, key)
_SLICES = {}
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _assign_kernel(ref, begin, end, strides, value, begin_mask=0, end_mask=0,
                   ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, **_):
    current = ref.value
    if current is None:
        raise _uninitialized(ref)
    b, e, s = S._spec_lists(begin, end, strides)
    _, index = S.resolve(current.shape, b, e, s, begin_mask, end_mask, ellipsis_mask,
                         new_axis_mask, shrink_axis_mask)
    target = np.shape(current[index])
    try:
        value = np.broadcast_to(value, target)
    except ValueError:
        raise U.op_error("ResourceStridedSliceAssign", f"Cannot broadcast input shape "
                         f"{dims_text(np.shape(value))} into final shape "
                         f"{dims_text(target)}") from None
    # A new array: tensors read from the variable earlier keep their values.
    updated = current.copy()
    updated[index] = value
    ref.value = updated


_ResourceStridedSliceAssign = register("ResourceStridedSliceAssign", _assign_kernel,
                                       lambda inputs, attrs: [], stateful=True)


def slice_variable(variable, key):
    """`variable[key]`: the slice of its value, which can be `assign`ed to."""
    # TensorFlow's basic indexing even with NumPy behavior on: a variable is
    # never indexed the NumPy way.
    out = S.getitem(variable._read(None), key)
    if isinstance(out, Tensor):
        k = id(out)
        _SLICES[k] = (weakref.ref(out, lambda _, k=k: _SLICES.pop(k, None)), variable, key)
    return out


def _assign_slice(variable, key, value, name=None):
    value = convert_to_tensor(value, dtype=variable.dtype)
    begin, end, strides, masks, dynamic = S.parse_key(key)
    attrs = dict(zip(_MASKS, masks))
    if _state.graph is None:
        spec = [np.asarray(part, dtype=np.int64) for part in (begin, end, strides)]
        try:
            _assign_kernel(variable._storage, *spec, value._v, **attrs)
        except (ValueError, IndexError) as e:
            raise U.op_error("ResourceStridedSliceAssign", str(e)) from None
        return _UnreadVariable(variable)
    dtype = S._index_dtype(begin + end + strides)
    b, e, s = (S._spec_tensor(part, dtype, n, dynamic)
               for part, n in zip((begin, end, strides), ("begin", "end", "strides")))
    attrs["Index"] = dtype
    op = apply_op(_ResourceStridedSliceAssign, [variable._graph_handle(), b, e, s, value],
                  attrs, name=name or "ResourceStridedSliceAssign")
    return _UnreadVariable(variable, op)


def _assign_attribute(tensor):
    entry = _SLICES.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        raise AttributeError(f"'{type(tensor).__name__}' object has no attribute 'assign'")
    _, variable, key = entry

    def assign(value, use_locking=None, name=None, read_value=True):
        """Assigns `value` (broadcast to the slice's shape) to this slice of
        the variable; returns the variable."""
        return _assign_slice(variable, key, value, name)
    return assign


def install():
    """`Variable.__getitem__` slices assignably; sliced tensors get `assign`."""
    Variable.__getitem__ = slice_variable
    Tensor.assign = property(_assign_attribute,
                             doc="`assign` of a variable's slice (`v[0].assign(x)`).")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_assign(ctx, op, ref, begin, end, strides, value):
    current = ctx.read(ref)
    index = S._xla_index(ctx, op, current.shape, begin, end, strides, 1)
    target = XL.jnp.shape(current[index])
    ctx.write(ref, current.at[index].set(XL.jnp.broadcast_to(value, target)))
    return []


XL.set_lowerings({"ResourceStridedSliceAssign": _lower_assign})
