"""`tf.IndexedSlices`: a sparse set of rows of a dense tensor.

The gradient of a gather along axis 0 (`tf.gather`, `embedding_lookup`,
`Variable.sparse_read`) touches only the gathered rows. Representing it as
(values, indices, dense_shape) instead of a dense tensor keeps a training
step on a large embedding from allocating and adding a full-size gradient:
`Variable.scatter_sub` applies it row by row. Where a dense tensor is
needed, `tf.convert_to_tensor` sums the rows into one (repeated indices
add up), as TensorFlow does.

This module is framework-level: it builds ops through the registry (by
name) rather than importing the op modules above it.
"""
import warnings

import numpy as np

from . import context as _context
from . import dtypes as _dtypes
from .api_export import export
from .composite_tensor import CompositeTensor
from .tensor import EagerTensor, SymbolicTensor
from .tensor_shape import TensorShape, as_shape
from .tensor_spec import TensorSpec
from .type_spec import TypeSpec
from .convert import convert_to_tensor
from .execute import apply
from .op_registry import get
from .type_spec import TypeSpec

__all__ = ["IndexedSlices", "IndexedSlicesSpec", "densify"]

_state = _context.state
# TensorFlow warns when densifying (in a graph) a gradient this large.
_LARGE_SPARSE_NUM_ELEMENTS = 100000000


@export("IndexedSlices", "compat.v1.IndexedSlices")
class IndexedSlices(CompositeTensor):
    """Rows `values[i]` of a dense tensor at rows `indices[i]` (`tf.IndexedSlices`).

    The dense tensor it stands for has shape `dense_shape` and is zero in
    the rows not named; rows named more than once add up. Gradients of
    gathers are IndexedSlices; `tf.convert_to_tensor` densifies one.

    Args:
      values: a tensor of shape `[N] + dense_shape[1:]`.
      indices: a 1-D integer tensor of N row indices.
      dense_shape: optional 1-D integer tensor, the dense tensor's shape.
    """

    def __init__(self, values, indices, dense_shape=None):
        # As in TensorFlow, the components are kept as given (not converted).
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def shape(self):
        """The static shape of the dense tensor (partial in graphs; unknown
        without `dense_shape`)."""
        return _shape_of(self._dense_shape)

    @property
    def name(self):
        """The name of `values` (graphs only)."""
        return self._values.name

    @property
    def graph(self):
        """The graph of `values` (graphs only)."""
        return self._values.graph

    # --- composite protocol (tf.function outputs, tf.nest) -------------------
    @property
    def _type_spec(self):
        ds = self._dense_shape
        return IndexedSlicesSpec(self.shape, self.dtype, self._indices.dtype,
                                 None if ds is None else ds.dtype, self._indices.shape)

    def _to_components(self):
        """values, indices (and dense_shape when there is one)."""
        if self._dense_shape is None:
            return [self._values, self._indices]
        return [self._values, self._indices, self._dense_shape]

    def _from_components(self, components):
        """An IndexedSlices like this one holding `components`."""
        return IndexedSlices(*components)

    def __tf_tensor__(self, dtype=None, name=None):
        return densify(self, dtype=dtype, name=name)

    # --- arithmetic TensorFlow defines on IndexedSlices ---------------------
    def __neg__(self):
        return IndexedSlices(-convert_to_tensor(self._values), self._indices, self._dense_shape)

    def __str__(self):
        ds = "" if self._dense_shape is None else ", dense_shape=%s" % (self._dense_shape,)
        return "IndexedSlices(indices=%s, values=%s%s)" % (self._indices, self._values, ds)


def _shape_of(dense_shape):
    """The static TensorShape a dense_shape tensor describes, as far as known."""
    if dense_shape is None:
        return TensorShape(None)
    if isinstance(dense_shape, EagerTensor):
        return TensorShape([int(d) for d in np.reshape(dense_shape._v, -1)])
    if isinstance(dense_shape, SymbolicTensor):
        v = dense_shape._const
        if v is not None:
            return TensorShape([None if d < 0 else int(d) for d in np.reshape(v, -1)])
        if dense_shape.op.type == "Shape":
            return dense_shape.op.inputs[0].shape
        s = dense_shape.shape
        return TensorShape(None) if s.rank != 1 or s[0] is None else TensorShape([None] * s[0])
    if isinstance(dense_shape, (list, tuple, np.ndarray, TensorShape)):
        return as_shape(dense_shape)
    return TensorShape(None)


def densify(value, dtype=None, name=None, warn=True):
    """The dense tensor an IndexedSlices stands for: its rows summed into a
    zero tensor of shape `dense_shape` (`tf.math.unsorted_segment_sum`).

    Building a graph, TensorFlow 2.21 warns when the dense shape is known
    and huge (densifying may take much memory); an unknown one it lets
    pass. `warn=False` is for gradient functions that densify knowingly,
    as TensorFlow's do.

    Raises:
      ValueError: for a `dtype` other than the values', or no dense_shape.
    """
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
        if dtype is not value.dtype:
            raise ValueError(f"Incompatible tensor conversion requested to `dtype` {dtype.name} "
                             f"for IndexedSlices ({value}) with dtype {value.dtype.name}")
    ds = value._dense_shape
    if ds is None:
        raise ValueError("Tensor conversion requested for IndexedSlices for argument `value` "
                         f"without dense_shape: {value}")
    values = convert_to_tensor(value._values)
    indices = convert_to_tensor(value._indices)
    if _state.graph is None:
        if not isinstance(ds, EagerTensor):
            ds = convert_to_tensor(ds)
        rows = convert_to_tensor(np.reshape(ds._v, -1)[0])
    else:
        ds = convert_to_tensor(ds)
        known = ds._const if isinstance(ds, SymbolicTensor) else ds._v
        if known is not None:
            n = int(np.prod(known))
            if warn and n >= _LARGE_SPARSE_NUM_ELEMENTS:
                warnings.warn("Converting sparse IndexedSlices to a dense Tensor with %d "
                              "elements. This may consume a large amount of memory." % n,
                              stacklevel=3)
            rows = convert_to_tensor(np.reshape(known, -1)[0])
        else:
            rows = ds[0]
    return apply(get("UnsortedSegmentSum"), [values, indices, rows],
                 name=name or "UnsortedSegmentSum")


@export("IndexedSlicesSpec", "compat.v1.IndexedSlicesSpec")
class IndexedSlicesSpec(TypeSpec):
    """The type of an IndexedSlices (`tf.IndexedSlicesSpec`).

    Args:
      shape: the dense shape (partial allowed).
      dtype: the values' dtype.
      indices_dtype: the indices' dtype (int64 by default, as in TensorFlow).
      dense_shape_dtype: the dense_shape's dtype, or None for IndexedSlices
        without one.
      indices_shape: the indices' shape (1-D).
    """

    __slots__ = ("_shape", "_values_dtype", "_indices_dtype", "_dense_shape_dtype",
                 "_indices_shape")

    def __init__(self, shape=None, dtype=_dtypes.float32, indices_dtype=_dtypes.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = as_shape(shape)
        self._values_dtype = _dtypes.as_dtype(dtype)
        self._indices_dtype = _dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = (None if dense_shape_dtype is None
                                   else _dtypes.as_dtype(dense_shape_dtype))
        self._indices_shape = as_shape(indices_shape).with_rank(1) \
            if indices_shape is not None else TensorShape([None])

    @property
    def value_type(self):
        """IndexedSlices."""
        return IndexedSlices

    def _serialize(self):
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    @property
    def _component_specs(self):
        values_shape = self._indices_shape.concatenate(self._shape[1:]) \
            if self._shape.rank is not None else TensorShape(None)
        specs = [TensorSpec(values_shape, self._values_dtype),
                 TensorSpec(self._indices_shape, self._indices_dtype)]
        if self._dense_shape_dtype is not None:
            specs.append(TensorSpec([self._shape.rank], self._dense_shape_dtype))
        return tuple(specs)

    def _fields(self):
        return (self._shape, self._values_dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)

    def is_compatible_with(self, spec_or_value):
        """Whether an IndexedSlices (or spec) has these dtypes and compatible shapes."""
        other = spec_or_value
        if isinstance(other, IndexedSlices):
            other = other._type_spec
        if not isinstance(other, IndexedSlicesSpec):
            return False
        return (self._values_dtype is other._values_dtype
                and self._indices_dtype is other._indices_dtype
                and self._dense_shape_dtype is other._dense_shape_dtype
                and self._shape.is_compatible_with(other._shape)
                and self._indices_shape.is_compatible_with(other._indices_shape))

    def is_subtype_of(self, other):
        """Whether every value of this spec is also one of `other`."""
        return (isinstance(other, IndexedSlicesSpec)
                and self._values_dtype is other._values_dtype
                and self._indices_dtype is other._indices_dtype
                and self._dense_shape_dtype is other._dense_shape_dtype
                and self._shape.is_subtype_of(other._shape)
                and self._indices_shape.is_subtype_of(other._indices_shape))

    def most_specific_common_supertype(self, others):
        """The most specific spec matching this one and all `others`, or None
        (for other dtypes)."""
        shape, ishape = self._shape, self._indices_shape
        for o in others:
            if not isinstance(o, IndexedSlicesSpec) or o._fields()[1:4] != self._fields()[1:4]:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
            ishape = ishape.most_specific_compatible_shape(o._indices_shape)
        return IndexedSlicesSpec(shape, self._values_dtype, self._indices_dtype,
                                 self._dense_shape_dtype, ishape)

    def _to_components(self, value):
        return value._to_components()

    def _from_components(self, components):
        return IndexedSlices(*components)

    def __eq__(self, other):
        return type(other) is type(self) and self._fields() == other._fields()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return "IndexedSlicesSpec(%r, %r, %r, %r, %r)" % self._fields()


def is_indexed_slices(x):
    """Whether `x` is an IndexedSlices (a cheap class test for hot paths)."""
    return x.__class__ is IndexedSlices

