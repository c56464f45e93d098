"""Lists in converted code.

In Python control flow, lists stay Python lists. A list that is a loop
variable of a graph loop becomes a `TensorListLoopVar` (a tensor list), so
`l.append(x)` in a tensor loop works and `tf.stack(l)` /
`tf.autograph.stack(l)` give one tensor afterwards.
"""
from ...framework import dtypes as D
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ...ops.control_flow import list_ops as L
from ...ops.core.broadcast_ops import where
from ...ops.core.constant_ops import zeros
from ...ops.core.join_ops import stack as tf_stack
from ...ops.core.math_ops import less


class TypedList(list):
    """A Python list with a declared element dtype (`set_element_type`)."""

    def __init__(self, items=(), element_dtype=None, element_shape=None):
        super().__init__(items)
        self.element_dtype = element_dtype
        self.element_shape = element_shape

    def copy(self):
        """A copy with the same element type."""
        return TypedList(self, self.element_dtype, self.element_shape)


def set_element_type(entity, dtype, shape=None):
    """Declares the element dtype (and shape) of a list used in graph loops."""
    shape = TensorShape(shape) if shape is not None else None
    return TypedList(entity, D.as_dtype(dtype), shape)


def element_dtype(v):
    """The declared element dtype of a list, or None."""
    return getattr(v, "element_dtype", None)


def is_convertible_list(v):
    """Whether a Python list can become a tensor list (empty, or tensors/numbers)."""
    return all(isinstance(x, (Tensor, int, float, bool)) for x in v)


def trial_copy(v):
    """A copy of a loop variable for a trial trace (lists are mutable)."""
    if isinstance(v, TypedList):
        return v.copy()
    if isinstance(v, list):
        return list(v)
    return v


class TensorListLoopVar:
    """A list of tensors living in a graph (the value of a list loop variable)."""

    def __init__(self, handle, dtype, shape=None):
        self._handle = handle
        self.element_dtype = dtype
        self.element_shape = shape if shape is not None else TensorShape(None)

    @classmethod
    def from_list(cls, items, dtype=None, shape=None):
        """A tensor list holding the (converted) items of a Python list.

        Without a dtype it is taken from the first item; an empty list gets
        its element type from the first element appended in the traced code
        (`with_element_type_of`)."""
        if dtype is None and items:
            first = items[0] if isinstance(items[0], Tensor) else convert_to_tensor(items[0])
            dtype, shape = first.dtype, first.shape
        h = L.reserve(0, dtype or D.float32, shape)
        for x in items:
            h = L.push_back(h, convert_to_tensor(x, dtype=dtype))
        return cls(h, dtype, shape)

    def with_element_type_of(self, other):
        """This list, typed like `other` when this one's element type is not
        known yet (an empty list that only the traced loop body appended to)."""
        if self.element_dtype is None and isinstance(other, TensorListLoopVar) and \
                other.element_dtype is not None:
            return TensorListLoopVar(self._handle, other.element_dtype, other.element_shape)
        return self

    def _dtype(self):
        if self.element_dtype is None:
            raise ValueError("cannot infer the element type of a list used in a graph loop "
                             "(nothing is appended to it there); use "
                             "tf.autograph.set_element_type")
        return self.element_dtype

    def _to_components(self):
        return [self._handle]

    def _from_components(self, tensors):
        return TensorListLoopVar(tensors[0], self.element_dtype, self.element_shape)

    def append(self, x):
        """The list with `x` appended."""
        x = convert_to_tensor(x, dtype=self.element_dtype) if not isinstance(x, Tensor) else x
        if self.element_dtype is None:
            return TensorListLoopVar(L.push_back(self._handle, x), x.dtype, x.shape)
        if x.dtype is not self.element_dtype:
            raise TypeError(f"cannot append a {x.dtype.name} tensor to a list of "
                            f"{self.element_dtype.name}")
        shape = self.element_shape.merge_with(x.shape) if \
            self.element_shape.is_compatible_with(x.shape) else TensorShape(None)
        return TensorListLoopVar(L.push_back(self._handle, x), self.element_dtype, shape)

    def pop_back(self):
        """(the list without its last element, that element)."""
        rest, last = L.pop_back(self._handle, self._dtype(), self.element_shape)
        return TensorListLoopVar(rest, self.element_dtype, self.element_shape), last

    def pop(self, i=None):
        """Not supported in place: a tensor list is a value, so a pop must
        rebind the list (`x = l.pop()` as its own statement)."""
        raise NotImplementedError(
            "a list that became a tensor list (a graph loop variable) can only be popped "
            "in a statement of its own: `x = l.pop()`, `x += l.pop()`, `l.pop()` or "
            "`return l.pop()`")

    def stack(self):
        """The elements stacked into one tensor."""
        return L.stack(self._handle, self._dtype(), self.element_shape)

    def size(self):
        """The number of elements (a tensor)."""
        return L.length(self._handle)

    def __getitem__(self, i):
        """The element at index `i`; a negative index counts from the end, as
        in the Python list this stands for."""
        if isinstance(i, int) and not isinstance(i, bool):
            if i < 0:
                i = L.length(self._handle) + i
        elif isinstance(i, Tensor):
            i = where(less(i, 0), i + L.length(self._handle), i)
        return L.get_item(self._handle, i, self._dtype(), self.element_shape)

    def __tf_tensor__(self, dtype=None, name=None):
        return self.stack()

    def __repr__(self):
        return "<tensor list of %s>" % getattr(self.element_dtype, "name", "unknown type")


def list_append(target, element):
    """`target.append(element)`, returning the (possibly new) list."""
    if isinstance(target, TensorListLoopVar):
        return target.append(element)
    if hasattr(target, "write") and hasattr(target, "size") and hasattr(target, "stack"):
        return target.write(target.size(), element)  # a TensorArray
    target.append(element)
    return target


def list_pop(target, i=None):
    """`target.pop(i)`: returns (list, popped element)."""
    if isinstance(target, TensorListLoopVar):
        if i is not None:
            raise NotImplementedError("only the last element of a tensor list can be popped")
        return target.pop_back()
    return target, (target.pop() if i is None else target.pop(i))


def stack(list_or_tensor, element_dtype=None, strict=True):
    """Stacks a list (Python or tensor list) into one tensor (`tf.autograph.stack`)."""
    if isinstance(list_or_tensor, TensorListLoopVar):
        return list_or_tensor.stack()
    if isinstance(list_or_tensor, Tensor):
        return list_or_tensor
    if isinstance(list_or_tensor, list) and not list_or_tensor:
        dtype = element_dtype or getattr(list_or_tensor, "element_dtype", None) or D.float32
        return zeros([0], dtype)
    return tf_stack(list_or_tensor)
