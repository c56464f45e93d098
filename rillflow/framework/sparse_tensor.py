"""`tf.sparse.SparseTensor`: a tensor given by its nonzero entries.

Three component tensors: `indices` (int64 `[N, rank]`, the coordinates of
the entries), `values` (`[N]`) and `dense_shape` (int64 `[rank]`). Like
IndexedSlices (indexed_slices.py) it is a composite tensor: `tf.nest`
expands it with `expand_composites=True`, a traced function takes it as its
three component placeholders and returns it through `CompositeOutput`.
Unlike IndexedSlices it never converts to a dense tensor implicitly
(`tf.sparse.to_dense` does that), as in TensorFlow.

The ops on it live in rillflow/ops/sparse_ops.py; this module is
framework-level and imports no op module.
"""
from . import dtypes as _dtypes
from .api_export import export
from .composite_tensor import CompositeTensor
from .convert import convert_to_tensor
from .indexed_slices import _shape_of
from .tensor import EagerTensor
from .tensor_shape import TensorShape, as_shape
from .tensor_spec import TensorSpec

__all__ = ["SparseTensor", "SparseTensorSpec", "is_sparse"]


def _check_dim(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError("Dimensions %d and %d are not compatible" % (a, b))


@export("sparse.SparseTensor", "SparseTensor", "compat.v1.SparseTensor",
        "compat.v1.sparse.SparseTensor")
class SparseTensor(CompositeTensor):
    """A sparse tensor: `values[i]` at coordinates `indices[i]` of a tensor of
    shape `dense_shape`, zero elsewhere (`tf.sparse.SparseTensor`).

    Args:
      indices: int64 `[N, rank]` coordinates (in row-major order for most ops;
        `tf.sparse.reorder` sorts them).
      values: `[N]` values of any dtype.
      dense_shape: int64 `[rank]`, the shape of the dense tensor.

    Raises:
      ValueError: for components of the wrong rank or disagreeing sizes.
    """

    def __init__(self, indices, values, dense_shape):
        indices = convert_to_tensor(indices, dtype=_dtypes.int64, name="indices")
        values = convert_to_tensor(values, name="values")
        dense_shape = convert_to_tensor(dense_shape, dtype=_dtypes.int64, name="dense_shape")
        ishape = indices.shape.with_rank(2)
        vshape = values.shape.with_rank(1)
        dshape = dense_shape.shape.with_rank(1)
        _check_dim(ishape[0], vshape[0])
        _check_dim(ishape[1], dshape[0])
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._static_shape = None   # a spec's shape, for traced arguments

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor holding the components of `sparse_tensor_value`."""
        v = sparse_tensor_value
        return SparseTensor(v.indices, v.values, v.dense_shape)

    @property
    def shape(self):
        """The static TensorShape of the dense tensor (partial in graphs)."""
        ds = self._dense_shape
        if ds.__class__ is EagerTensor:
            return TensorShape([int(d) for d in ds._v])
        shape = _shape_of(ds)
        if shape.rank is None:
            r = self._indices.shape
            if r.rank == 2 and r[1] is not None:
                shape = TensorShape([None] * r[1])
        if self._static_shape is not None:
            shape = shape.merge_with(self._static_shape)
        return shape

    def get_shape(self):
        """The static shape (`.shape`)."""
        return self.shape

    @property
    def graph(self):
        """The graph of the components (graphs only)."""
        return self._indices.graph

    def with_values(self, new_values):
        """A SparseTensor with the same indices and dense_shape, and `new_values`."""
        out = SparseTensor(self._indices, new_values, self._dense_shape)
        out._static_shape = self._static_shape
        return out

    # --- composite protocol (tf.nest, tf.function arguments and results) -------
    @property
    def _type_spec(self):
        return SparseTensorSpec(self.shape, self.dtype)

    _arg_spec = _type_spec

    def _component_specs(self):
        return self._type_spec._component_specs

    def _to_components(self):
        return [self._indices, self._values, self._dense_shape]

    def _from_components(self, components):
        return _from_parts(components, self.shape)

    def _trace_key(self):
        s = self.shape
        return ("SparseTensor", self.dtype, None if s.rank is None else tuple(s.as_list()))

    # --- arithmetic TensorFlow defines: with a dense operand (broadcast to
    # the dense shape) at the entries only -------------------------------------
    def _cwise(self, op_name, other):
        from .execute import apply
        from .op_registry import get
        other = convert_to_tensor(other, dtype=self.dtype)
        values = apply(get(op_name), [self._indices, self._values, self._dense_shape, other],
                       name=op_name)
        return self.with_values(values)

    def __mul__(self, other):
        return self._cwise("SparseDenseCwiseMul", other)

    def __truediv__(self, other):
        # As tf.truediv: integers divide as floats (float64 for 32/64-bit ones).
        if self.dtype.is_integer:
            from .execute import apply1
            from .op_registry import get
            to = _dtypes.float32 if self.dtype.size <= 2 else _dtypes.float64
            values = apply1(get("Cast"), self._values, {"DstT": to, "Truncate": False},
                            name="Cast")
            other = apply1(get("Cast"), convert_to_tensor(other, dtype=self.dtype),
                           {"DstT": to, "Truncate": False}, name="Cast")
            return self.with_values(values)._cwise("SparseDenseCwiseDiv", other)
        return self._cwise("SparseDenseCwiseDiv", other)

    def __div__(self, other):
        return self._cwise("SparseDenseCwiseDiv", other)

    def __str__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices, self._values, self._dense_shape)

    __repr__ = __str__


def _from_parts(components, shape):
    """A SparseTensor of existing component tensors whose static shape is
    known to be compatible with `shape` (a spec's)."""
    out = SparseTensor.__new__(SparseTensor)
    out._indices, out._values, out._dense_shape = components
    out._static_shape = shape
    return out


@export("SparseTensorSpec", "compat.v1.SparseTensorSpec")
class SparseTensorSpec:
    """The type of a SparseTensor: its dense shape and dtype (`tf.SparseTensorSpec`)."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape=None, dtype=_dtypes.float32):
        self._shape = as_shape(shape)
        self._dtype = _dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        """The spec of a SparseTensor."""
        return value._type_spec

    @property
    def shape(self):
        """The (partial) dense shape."""
        return self._shape

    @property
    def dtype(self):
        """The values' dtype."""
        return self._dtype

    @property
    def value_type(self):
        """SparseTensor."""
        return SparseTensor

    @property
    def _component_specs(self):
        rank = self._shape.rank
        return [TensorSpec([None, rank], _dtypes.int64), TensorSpec([None], self._dtype),
                TensorSpec([rank], _dtypes.int64)]

    def _to_components(self, value=None):
        """The components of `value`; without one, this spec's component specs
        (what a traced function's placeholders are made from)."""
        return list(self._component_specs) if value is None else value._to_components()

    def _from_components(self, components):
        return _from_parts(list(components), self._shape)

    def _trace_key(self):
        s = self._shape
        return ("SparseTensor", self._dtype, None if s.rank is None else tuple(s.as_list()))

    @property
    def _arg_spec(self):
        return self

    def _check_value(self, value, specs_ok=False):
        """Raises TensorFlow's TypeError unless `value` (a SparseTensor, or with
        `specs_ok` a spec) fits this spec (an input_signature's)."""
        if isinstance(value, SparseTensorSpec) and specs_ok:
            other = value
        elif isinstance(value, SparseTensor):
            other = value._type_spec
        else:
            raise TypeError("Can not cast %r to %r" % (value, self))
        if other._dtype is not self._dtype or not self._shape.is_compatible_with(other._shape):
            if isinstance(value, SparseTensor):
                raise TypeError("Can not cast %r to %r" % (
                    TensorSpec(value.values.shape, value.dtype),
                    TensorSpec([None], self._dtype)))
            raise TypeError("Can not cast %r to %r" % (value, self))

    def is_compatible_with(self, spec_or_value):
        """Whether a SparseTensor (or spec) has this dtype and a compatible shape."""
        other = spec_or_value
        if isinstance(other, SparseTensor):
            other = other._type_spec
        return (isinstance(other, SparseTensorSpec) and self._dtype is other._dtype
                and self._shape.is_compatible_with(other._shape))

    def is_subtype_of(self, other):
        """Whether every value of this spec is also one of `other`."""
        return (isinstance(other, SparseTensorSpec) and self._dtype is other._dtype
                and self._shape.is_subtype_of(other._shape))

    def most_specific_common_supertype(self, others):
        """The most specific spec matching this one and all `others`, or None."""
        shape = self._shape
        for o in others:
            if not isinstance(o, SparseTensorSpec) or o._dtype is not self._dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return SparseTensorSpec(shape, self._dtype)

    def __eq__(self, other):
        return type(other) is SparseTensorSpec and self._trace_key() == other._trace_key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return "SparseTensorSpec(%r, %r)" % (self._shape, self._dtype)


def is_sparse(x):
    """Whether `x` is a SparseTensor (a cheap class test)."""
    return x.__class__ is SparseTensor


def to_sparse_tensor(x, name="sp_input"):
    """`x` if it is a SparseTensor, else a TypeError as TensorFlow raises."""
    if x.__class__ is not SparseTensor:
        raise TypeError("Input must be a SparseTensor.")
    return x

