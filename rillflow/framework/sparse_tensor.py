"""`tf.sparse.SparseTensor`: a tensor given by its nonzero entries.

Three component tensors: `indices` (int64 `[N, rank]`, the coordinates of
the entries), `values` (`[N]`) and `dense_shape` (int64 `[rank]`). Like
IndexedSlices (indexed_slices.py) it is a composite tensor: `tf.nest`
expands it with `expand_composites=True`, a traced function takes it as its
three component placeholders and returns it through `CompositeOutput`.
Unlike IndexedSlices it never converts to a dense tensor implicitly
(`tf.sparse.to_dense` does that), as in TensorFlow.

The ops on it live in rillflow/ops/sparse/sparse_ops.py; this module is
framework-level and imports no op module.
"""
import collections

import numpy as np

from . import dtypes as _dtypes
from . import errors
from .api_export import export
from .composite_tensor import CompositeTensor
from .convert import convert_to_tensor
from .indexed_slices import _shape_of
from .tensor import EagerTensor
from .tensor_shape import TensorShape, as_shape
from .tensor_spec import TensorSpec
from .type_spec import TypeSpec
from .execute import apply, apply1
from .op_registry import get
from .type_spec import TypeSpec

__all__ = ["SparseTensor", "SparseTensorSpec", "SparseTensorValue", "is_sparse"]


@export("compat.v1.SparseTensorValue")
class SparseTensorValue(collections.namedtuple("SparseTensorValue",
                                               ["indices", "values", "dense_shape"])):
    """The NumPy value of a SparseTensor (`tf.compat.v1.SparseTensorValue`):
    what TF1 sessions return for one, and what `SparseTensor.from_value`
    (and so `Dataset.from_generator` with a `SparseTensorSpec`) accepts."""

    __slots__ = ()


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

    def set_shape(self, shape):
        """Merges `shape` into the static dense shape, as TensorFlow does
        (eagerly, where the shape is known, a compatibility check).

        Raises:
          ValueError: if `shape` is incompatible with the current shape.
        """
        self._static_shape = self.shape.merge_with(as_shape(shape))

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
        other = convert_to_tensor(other, dtype=self.dtype)
        values = apply(get(op_name), [self._indices, self._values, self._dense_shape, other],
                       name=op_name)
        return self.with_values(values)

    def __mul__(self, other):
        return self._cwise("SparseDenseCwiseMul", other)

    def __truediv__(self, other):
        # As tf.truediv: integers divide as floats (float64 for 32/64-bit ones).
        if self.dtype.is_integer:
            to = _dtypes.float32 if self.dtype.size <= 2 else _dtypes.float64
            values = apply1(get("Cast"), self._values, {"DstT": to, "Truncate": False},
                            name="Cast")
            other = apply1(get("Cast"), convert_to_tensor(other, dtype=self.dtype),
                           {"DstT": to, "Truncate": False}, name="Cast")
            return self.with_values(values)._cwise("SparseDenseCwiseDiv", other)
        return self._cwise("SparseDenseCwiseDiv", other)

    def __div__(self, other):
        return self._cwise("SparseDenseCwiseDiv", other)

    def _numpy(self):
        """The dense NumPy array of an eager SparseTensor (what
        `Dataset.as_numpy_iterator()` gives for one, as in TensorFlow).

        Raises:
          ValueError: in a graph.
        """
        comps = self._to_components()
        if not all(isinstance(c, EagerTensor) for c in comps):
            raise ValueError("SparseTensor.numpy() is only supported in eager mode.")
        indices, values, shape = (c._v for c in comps)
        out = np.zeros(tuple(int(d) for d in shape), dtype=values.dtype)
        for i, v in zip(indices, values):
            out[tuple(i)] = v
        return out

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
class SparseTensorSpec(TypeSpec):
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

    def _serialize(self):
        return (self._shape, self._dtype)

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

    # --- batching (tf.data `batch` / `unbatch` / `from_tensor_slices`) ---------
    def _batch(self, batch_size):
        """The spec of a batch of `batch_size` values of this spec: one more
        leading dimension (`batch_size` may be None)."""
        return SparseTensorSpec(TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self):
        """The spec of the rows of a value of this spec.

        Raises:
          ValueError: for a scalar spec.
        """
        if self._shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        return SparseTensorSpec(self._shape[1:], self._dtype)

    def _batch_numpy(self, rows):
        """The components (NumPy) of the batch of the SparseTensors whose
        components are `rows`: entries of row i get the leading index i, and
        the dense shape is the largest of each dimension (as TensorFlow
        batches sparse elements of different shapes).

        Raises:
          InvalidArgumentError: for rows of different ranks.
        """
        rank = len(rows[0][2])
        for k, (_, _, shape) in enumerate(rows):
            if len(shape) != rank:
                raise errors.InvalidArgumentError(
                    None, None, f"Inconsistent shape across SparseTensors: rank prior to "
                    f"SparseTensor[{k}] was: {rank} but rank of SparseTensor[{k}] is: "
                    f"{len(shape)}")
        counts = [len(v) for _, v, _ in rows]
        row_ids = np.repeat(np.arange(len(rows), dtype=np.int64), counts)
        indices = np.concatenate([i for i, _, _ in rows]).astype(np.int64, copy=False)
        indices = np.concatenate([row_ids[:, None], indices], axis=1)
        values = np.concatenate([v for _, v, _ in rows])
        dims = np.max(np.stack([s for _, _, s in rows]), axis=0) if rank else \
            np.zeros(0, np.int64)
        shape = np.concatenate([[len(rows)], dims]).astype(np.int64)
        return [indices, values, shape]

    def _unbatch_numpy(self, components):
        """The components (NumPy) of each row of the SparseTensor whose
        components are `components` (entries keep their order).

        Raises:
          InvalidArgumentError: for a scalar.
        """
        indices, values, shape = components
        if len(shape) == 0:
            raise errors.InvalidArgumentError(
                None, None, "Cannot unbatch an input with scalar components.")
        _check_indices(indices, shape)
        n = int(shape[0])
        # Sorted indices: each row's entries are one run.
        bounds = np.searchsorted(indices[:, 0], np.arange(n + 1))
        inner = indices[:, 1:]
        rest = np.asarray(shape[1:], dtype=np.int64)
        return [[inner[a:b], values[a:b], rest] for a, b in zip(bounds[:-1], bounds[1:])]

    def __eq__(self, other):
        return type(other) is SparseTensorSpec and self._trace_key() == other._trace_key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return "SparseTensorSpec(%r, %r)" % (self._shape, self._dtype)


def _check_indices(indices, shape):
    """Raises TensorFlow's InvalidArgumentError (SparseTensor::IndicesValid,
    which slicing a SparseTensor runs) for the first index out of bounds,
    out of row-major order or repeated."""
    if len(indices) == 0:
        return
    shape = np.asarray(shape, dtype=np.int64)
    oob = np.any((indices < 0) | (indices >= shape), axis=1)
    diff = indices[1:] - indices[:-1]
    moved = diff != 0
    first = np.argmax(moved, axis=1)
    back = np.concatenate([[False], moved.any(axis=1) &
                           (diff[np.arange(len(diff)), first] < 0)])
    same = np.concatenate([[False], ~moved.any(axis=1)])
    bad = oob | back | same
    if not bad.any():
        return
    i = int(np.argmax(bad))
    where = "indices[%d] = [%s]" % (i, ",".join(str(int(d)) for d in indices[i]))
    if oob[i]:
        msg = "%s is out of bounds: need 0 <= index < [%s]" % (
            where, ",".join(str(int(d)) for d in shape))
    elif back[i]:
        msg = (f"{where} is out of order. Many sparse ops require sorted indices.\n"
               "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n")
    else:
        msg = f"{where} is repeated"
    raise errors.InvalidArgumentError(None, None, msg)


def is_sparse(x):
    """Whether `x` is a SparseTensor (a cheap class test)."""
    return x.__class__ is SparseTensor


def to_sparse_tensor(x, name="sp_input"):
    """`x` if it is a SparseTensor, else a TypeError as TensorFlow raises."""
    if x.__class__ is not SparseTensor:
        raise TypeError("Input must be a SparseTensor.")
    return x

