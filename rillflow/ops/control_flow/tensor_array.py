"""`tf.TensorArray`: a list of tensors usable as a loop variable.

Each TensorArray wraps one tensor-list value (its `flow`); writes return a
new TensorArray, as in TensorFlow 2. In loops the flow is the loop
variable, so a TensorArray can be carried through `tf.while_loop` and
AutoGraph loops; gradients flow through writes, reads, stack and unstack.
"""
from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.tensor_spec import TensorSpec
from ...framework.type_spec import TypeSpec
from . import list_ops as L

_state = _context.state


@export("TensorArray")
class TensorArray:
    """A dynamically sized (optionally) array of tensors of one dtype.

    Args:
      dtype: the element dtype.
      size: the initial number of elements.
      dynamic_size: whether writes past the end grow the array.
      clear_after_read: accepted for compatibility (reads never clear).
      element_shape: the static shape of every element (inferred from the
        first write when `infer_shape`).
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self._dtype = D.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape) if element_shape is not None \
            else TensorShape(None)
        self._clear_after_read = clear_after_read
        if flow is not None:
            self._flow = flow
        else:
            if size is None and not dynamic_size:
                raise ValueError("Size must be provided if dynamic_size is False")
            self._flow = L.reserve(0 if size is None else size, self._dtype,
                                   self._element_shape)

    # --- composite protocol (loop variables) -----------------------------------
    def _to_components(self):
        return [self._flow]

    def _from_components(self, tensors):
        return self._with_flow(tensors[0])

    def _with_flow(self, flow, element_shape=None):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype = self._dtype
        ta._dynamic_size = self._dynamic_size
        ta._infer_shape = self._infer_shape
        ta._element_shape = element_shape if element_shape is not None else self._element_shape
        ta._clear_after_read = self._clear_after_read
        ta._flow = flow
        return ta

    # --- properties ----------------------------------------------------------------
    @property
    def flow(self):
        """The tensor-list value (dtype variant)."""
        return self._flow

    @property
    def dtype(self):
        """The element dtype."""
        return self._dtype

    @property
    def dynamic_size(self):
        """Whether the array grows on writes past its end."""
        return self._dynamic_size

    @property
    def element_shape(self):
        """The static shape of the elements (possibly partial)."""
        return self._element_shape

    @property
    def handle(self):
        """Same as `flow`."""
        return self._flow

    # --- operations -----------------------------------------------------------------
    def _merge_shape(self, shape):
        if not self._element_shape.is_compatible_with(shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{self._element_shape} (and infer_shape=True)")
        return self._element_shape.merge_with(shape) if self._infer_shape else \
            self._element_shape

    def write(self, index, value, name=None):
        """A TensorArray with `value` at `index`.

        Raises:
          ValueError: if the value's shape differs from the element shape.
          InvalidArgumentError: (at run time) for an index out of range.
        """
        value = convert_to_tensor(value, dtype=self._dtype) if not isinstance(value, Tensor) \
            else value
        if value.dtype is not self._dtype:
            raise errors.InvalidArgumentError(
                None, None, f"TensorArray dtype is {self._dtype.name} but Op is trying to write "
                f"dtype {value.dtype.name}")
        shape = self._merge_shape(value.shape)
        # Eagerly the list is written in place, as TensorFlow's eager
        # TensorArray does: O(1) per write, and earlier TensorArray objects
        # of the same array see the write.
        flow = L.set_item(self._flow, index, value, element_shape=shape,
                          dynamic_size=self._dynamic_size, in_place=True)
        return self._with_flow(flow, shape)

    def read(self, index, name=None):
        """The element at `index`.

        Raises:
          InvalidArgumentError: for an unwritten or out-of-range index.
        """
        return L.get_item(self._flow, index, self._dtype, self._element_shape)

    def stack(self, name=None):
        """All elements stacked into one tensor (shape [size] + element_shape)."""
        return L.stack(self._flow, self._dtype, self._element_shape)

    def unstack(self, value, name=None):
        """A TensorArray of the rows of `value`."""
        value = convert_to_tensor(value, dtype=self._dtype)
        shape = self._merge_shape(value.shape[1:]) if value.shape.rank is not None \
            else self._element_shape
        return self._with_flow(L.from_tensor(value), shape)

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        return L.gather(self._flow, indices, self._dtype, self._element_shape)

    def scatter(self, indices, value, name=None):
        """A TensorArray with the rows of `value` written at `indices`."""
        value = convert_to_tensor(value, dtype=self._dtype)
        shape = self._merge_shape(value.shape[1:]) if value.shape.rank is not None \
            else self._element_shape
        return self._with_flow(L.scatter(self._flow, indices, value,
                                         dynamic_size=self._dynamic_size), shape)

    def concat(self, name=None):
        """The elements concatenated along their first dimension."""
        return L.concat(self._flow, self._dtype)

    def split(self, value, lengths, name=None):
        """A TensorArray of consecutive slices of `value` of the given lengths."""
        value = convert_to_tensor(value, dtype=self._dtype)
        return self._with_flow(L.split(self._flow, value, lengths), TensorShape(None))

    def size(self, name=None):
        """The number of elements (a scalar int32 tensor)."""
        return L.length(self._flow)

    def identity(self):
        """This TensorArray (a new flow in graphs)."""
        return self._with_flow(self._flow)

    def close(self, name=None):
        """Does nothing (kept for compatibility)."""
        return None

    def grad(self, source, flow=None, name=None):
        """Not supported: gradients flow through the TensorArray automatically."""
        raise NotImplementedError("TensorArray.grad is not supported; use GradientTape.")

    def __repr__(self):
        return "<TensorArray dtype=%s element_shape=%s>" % (self._dtype.name,
                                                            self._element_shape)


@export("TensorArraySpec")
class TensorArraySpec(TypeSpec):
    """The type of a TensorArray: element shape, dtype, `dynamic_size` and
    `infer_shape` (`tf.TensorArraySpec`)."""

    __slots__ = ["_element_shape", "_dtype", "_dynamic_size", "_infer_shape"]

    def __init__(self, element_shape=None, dtype=D.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = as_shape(element_shape) if element_shape is not None \
            else TensorShape(None)
        self._dtype = D.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @property
    def value_type(self):
        """TensorArray."""
        return TensorArray

    def _serialize(self):
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    @property
    def _component_specs(self):
        return [TensorSpec([], D.variant)]

    def _to_components(self, value):
        return [value.flow]

    def _from_components(self, components):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype, ta._dynamic_size = self._dtype, self._dynamic_size
        ta._infer_shape, ta._element_shape = self._infer_shape, self._element_shape
        ta._clear_after_read, ta._flow = None, components[0]
        return ta

    def is_compatible_with(self, other):
        """Same dtype, dynamic_size and infer_shape; compatible element shapes."""
        if not isinstance(other, TypeSpec):
            other = getattr(other, "_type_spec", None)
        return isinstance(other, TensorArraySpec) and self._dtype == other._dtype and \
            self._dynamic_size == other._dynamic_size and \
            self._element_shape.is_compatible_with(other._element_shape)

    def most_specific_common_supertype(self, others):
        """This spec when every one of `others` has its dtype, dynamic_size and
        infer_shape (TensorFlow keeps this spec's element shape), else None."""
        ok = all(isinstance(o, TensorArraySpec) and o._dtype == self._dtype and
                 o._dynamic_size == self._dynamic_size and o._infer_shape == self._infer_shape
                 for o in others)
        return self if ok else None

    @staticmethod
    def from_value(value):
        """The spec of a TensorArray.

        Raises:
          ValueError: for anything else.
        """
        if not isinstance(value, TensorArray):
            raise ValueError(f"Expected value to be a TensorArray, but saw: {type(value)}")
        return TensorArraySpec(value.element_shape, value.dtype, value.dynamic_size,
                               value._infer_shape)

