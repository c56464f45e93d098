"""`tf.RaggedTensor`: rows of different lengths, and `tf.ragged.constant`.

A RaggedTensor is `values` cut into rows at `row_splits` (int64 or int32);
`values` may itself be a RaggedTensor (more ragged dimensions). It is a
composite tensor: a traced function takes it as its components (the flat
values, then the row splits outermost first, as TensorFlow orders them) and
keys its traces by RaggedTensorSpec. AutoGraph (which iterates its rows
with a tensor loop) and tf.data (which batches it through its spec) know
about RaggedTensor, not the other way round. Only part of TensorFlow's
ragged op library is here: construction, row access, `to_list` / `numpy` /
`to_tensor`, and what `tf.strings.split` results need.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.component_batching import slice_iter, stack_components
from ...framework.convert import convert_to_tensor
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...framework.tensor_spec import TensorSpec
from ..core import op_util as U
from ..core.constant_ops import constant as dense, zeros
from ..core.join_ops import concat
from ..core.math_ops import cast, subtract
from ..core.scan_ops import cumsum
from ..core.segment_ops import bincount
from ..core.shape_ops import shape
from ..core.slicing import getitem

_state = _context.state
_OBJ = np.dtype(object)


def _row_splits_kernel(rowids, nrows):
    counts = np.bincount(rowids, minlength=int(nrows)) if rowids.size else \
        np.zeros(int(nrows), dtype=np.int64)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)




@export("RaggedTensor")
class RaggedTensor:
    """Rows of different lengths: `values` cut into rows at `row_splits`.

    Row i holds `values[row_splits[i]:row_splits[i + 1]]`. `values` may
    itself be a RaggedTensor (more ragged dimensions).
    """

    _is_tensor_like = True   # tf.is_tensor(ragged) is True
    _is_composite_tensor = True

    def __init__(self, values, row_splits):
        self._values = values
        self._row_splits = row_splits

    # --- construction -------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """A RaggedTensor whose row i is `values[row_splits[i]:row_splits[i+1]]`."""
        if not isinstance(values, RaggedTensor):
            values = convert_to_tensor(values)
        splits = convert_to_tensor(row_splits, dtype_hint=D.int64)
        if validate and isinstance(splits, EagerTensor):
            s = splits._v
            if s.ndim != 1 or s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0):
                raise errors.InvalidArgumentError(
                    None, None, "row_splits must be a non-empty, non-decreasing vector "
                    "starting at 0")
            nvals = values.nrows_value() if isinstance(values, RaggedTensor) \
                else values.shape[0]
            if nvals is not None and s[-1] != nvals:
                raise errors.InvalidArgumentError(
                    None, None, "Last row_splits value must equal the number of values")
        return cls(values, splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """A RaggedTensor whose row i has `row_lengths[i]` values."""
        lengths = np.asarray(U.np_value(row_lengths)).astype(np.int64)
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        return cls.from_row_splits(values, EagerTensor(splits), validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """A RaggedTensor where value j is in row `value_rowids[j]` (sorted)."""
        rowids = np.asarray(U.np_value(value_rowids)).astype(np.int64)
        n = int(nrows) if nrows is not None else (int(rowids.max()) + 1 if rowids.size else 0)
        return cls.from_row_splits(values, EagerTensor(_row_splits_kernel(rowids, n)),
                                   validate=validate)

    @classmethod
    def _from_value_rowids(cls, values, sparse_indices, dense_shape):
        """From the (indices, values, shape) of a sparse result, in either mode."""
        if _state.graph is None:
            rowids = sparse_indices._v[:, 0]
            return cls(values, EagerTensor(_row_splits_kernel(rowids, dense_shape._v[0])))
        rowids = cast(getitem(sparse_indices, (slice(None), 0)), D.int32)
        nrows = cast(getitem(dense_shape, 0), D.int32)
        counts = cast(bincount(rowids, minlength=nrows, maxlength=nrows), D.int64)
        splits = concat([zeros([1], D.int64), cumsum(counts)], 0)
        return cls(values, splits)

    # --- structure ------------------------------------------------------------
    @property
    def values(self):
        """The concatenated rows (a Tensor, or a RaggedTensor for more ragged dims)."""
        return self._values

    @property
    def row_splits(self):
        """int64 vector: row i is `values[row_splits[i]:row_splits[i+1]]`."""
        return self._row_splits

    @property
    def flat_values(self):
        """The innermost values, a Tensor."""
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        """The row splits of each ragged dimension, outermost first."""
        out = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        """The number of ragged dimensions."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def dtype(self):
        """The dtype of the values."""
        return self.flat_values.dtype

    @property
    def shape(self):
        """[nrows, None, ...]: the ragged dimensions are None."""
        n = self._row_splits.shape[0]
        inner = self._values.shape
        dims = [None if n is None else n - 1, None]
        if inner.rank is None:
            return TensorShape(None)
        return TensorShape(dims + inner.as_list()[1:])

    @property
    def ndim(self):
        """The rank."""
        return self.shape.rank

    def get_shape(self):
        """Same as `shape`."""
        return self.shape

    def nrows_value(self):
        """The number of rows as a Python int (None in a graph if unknown)."""
        n = self._row_splits.shape[0]
        return None if n is None else n - 1

    def nrows(self, out_type=D.int64, name=None):
        """The number of rows, a scalar tensor."""
        n = self.nrows_value()
        if n is not None:
            return convert_to_tensor(np.array(n, dtype=D.as_dtype(out_type)._np))
        return cast(subtract(getitem(shape(self._row_splits, out_type=D.int64), 0),
                             np.int64(1)), out_type)

    def row_lengths(self, axis=1, name=None):
        """The length of each row (int64)."""
        if axis != 1:
            raise NotImplementedError("row_lengths supports axis=1 only here")
        s = self._row_splits
        if isinstance(s, EagerTensor):
            return EagerTensor(np.diff(s._v).astype(np.int64))
        return subtract(getitem(s, slice(1, None)), getitem(s, slice(None, -1)))

    def value_rowids(self, name=None):
        """The row of each value (int64)."""
        lengths = self.row_lengths()._v
        return EagerTensor(np.repeat(np.arange(lengths.size, dtype=np.int64), lengths))

    # --- values -------------------------------------------------------------
    def _eager_check(self, what):
        if not isinstance(self._row_splits, EagerTensor):
            raise ValueError(f"RaggedTensor.{what}() is only available eagerly")

    def to_list(self):
        """The rows as nested Python lists."""
        self._eager_check("to_list")
        splits = self._row_splits._v
        if isinstance(self._values, RaggedTensor):
            inner = self._values.to_list()
        else:
            inner = self._values._v.tolist()
        return [inner[int(a):int(b)] for a, b in zip(splits[:-1], splits[1:])]

    def numpy(self):
        """The rows as NumPy values, as TensorFlow gives them: one array when
        the rows have one length, else a 1-D object array of the rows."""
        self._eager_check("numpy")
        values = self._values.numpy() if isinstance(self._values, RaggedTensor) \
            else self._values._v
        splits = self._row_splits._v
        rows = [values[int(splits[i]):int(splits[i + 1])] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        if any(len(r) != len(rows[0]) for r in rows):
            out = np.empty(len(rows), dtype=object)
            for i, r in enumerate(rows):
                out[i] = r
            return out
        return np.array(rows)

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor: rows padded with `default_value` (zero or b'') to the longest."""
        self._eager_check("to_tensor")
        rows = self.to_list()
        dtype = self.dtype
        if default_value is None:
            default_value = b"" if dtype is D.string else 0
        elif isinstance(default_value, str):
            default_value = default_value.encode("utf-8")

        def depth(x):
            return 1 + depth(x[0]) if isinstance(x, list) and x else 1

        rank = self.ragged_rank + self.flat_values.shape.rank
        dims = [0] * rank

        def measure(x, d):
            if d < rank and isinstance(x, list):
                dims[d] = max(dims[d], x.__len__())
                for v in x:
                    measure(v, d + 1)

        measure(rows, 0)
        if shape is not None:
            dims = [d if s is None else s for d, s in zip(dims, as_shape(shape).as_list())]
        np_dtype = _OBJ if dtype is D.string else dtype._np
        if np_dtype is not _OBJ:
            out = np.full(dims, default_value, dtype=np_dtype)
        else:
            out = np.empty(dims, dtype=object)
            out.reshape(-1)[:] = [default_value] * out.size

        def fill(x, idx):
            if len(idx) == rank:
                out[idx] = x
                return
            for i, v in enumerate(x):
                if i < dims[len(idx)]:
                    fill(v, idx + (i,))

        fill(rows, ())
        return EagerTensor(out)

    def __getitem__(self, key):
        if isinstance(key, Tensor) and key.shape.rank == 0 and key.dtype.is_integer \
                and isinstance(key, EagerTensor):
            key = int(key._v)
        if not isinstance(self._row_splits, EagerTensor) or isinstance(key, Tensor):
            return self._graph_row(key)
        splits = self._row_splits._v
        if isinstance(key, (int, np.integer)):
            n = splits.size - 1
            if not -n <= key < n:
                raise IndexError(f"row index {key} out of range for {n} rows")
            key %= n
            a, b = int(splits[key]), int(splits[key + 1])
            if isinstance(self._values, RaggedTensor):
                return self._values[a:b]
            return EagerTensor(self._values._v[a:b])
        if isinstance(key, slice):
            rows = range(splits.size - 1)[key]
            if key.step not in (None, 1):
                raise ValueError("RaggedTensor slices with a step are not supported here")
            if not rows:
                start = 0
                new = np.zeros(1, dtype=splits.dtype)
            else:
                start = int(splits[rows[0]])
                new = splits[rows[0]:rows[-1] + 2] - start
            end = int(new[-1]) + start
            if isinstance(self._values, RaggedTensor):
                vals = self._values[start:end]
            else:
                vals = EagerTensor(self._values._v[start:end])
            return RaggedTensor(vals, EagerTensor(new.astype(splits.dtype)))
        raise TypeError("RaggedTensor indices must be ints or slices here")

    def _graph_row(self, key):
        """Row `key` (an int or a scalar integer tensor; negative counts from
        the end) in a graph: `values[row_splits[:-1][key]:row_splits[1:][key]]`."""
        if isinstance(self._values, RaggedTensor) or not (
                isinstance(key, (int, np.integer)) or isinstance(key, Tensor)
                and key.shape.rank == 0 and key.dtype.is_integer):
            raise NotImplementedError("in a graph, only the rows of a RaggedTensor with one "
                                      "ragged dimension can be indexed here, by an integer")
        starts = getitem(self._row_splits, slice(None, -1))
        limits = getitem(self._row_splits, slice(1, None))
        return getitem(self._values, slice(getitem(starts, key), getitem(limits, key)))

    def __iter__(self):
        self._eager_check("__iter__")
        for i in range(self._row_splits._v.size - 1):
            yield self[i]

    # --- composite protocol (tf.nest, tf.function arguments and results) -------
    @property
    def _type_spec(self):
        return RaggedTensorSpec(self.shape, self.dtype, self.ragged_rank,
                                self._row_splits.dtype)

    _arg_spec = _type_spec

    def _component_specs(self):
        return self._type_spec._component_specs

    def _to_components(self):
        return [self.flat_values] + list(self.nested_row_splits)

    def _from_components(self, components):
        return _from_components(components)

    def _trace_key(self):
        return self._type_spec._trace_key()

    def __len__(self):
        n = self.nrows_value()
        if n is None:
            raise TypeError("len of a RaggedTensor with an unknown number of rows")
        return n

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__

    def __repr__(self):
        if isinstance(self._row_splits, EagerTensor):
            # TensorFlow's: the numpy() value, elements joined by ", ".
            with np.printoptions(formatter={"all": _formatter}):
                return "<tf.RaggedTensor %s>" % _formatter(self.numpy())
        return "tf.RaggedTensor(values=%s, row_splits=%s)" % (self._values, self._row_splits)

    __str__ = __repr__


def _formatter(x):
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def _from_components(components):
    """The RaggedTensor of [flat_values, outer row_splits, ..., inner row_splits]."""
    values = components[0]
    for splits in reversed(components[1:]):
        values = RaggedTensor(values, splits)
    return values


@export("RaggedTensorSpec")
class RaggedTensorSpec:
    """The type of a RaggedTensor: shape (ragged dimensions None), dtype,
    ragged rank and row splits dtype (`tf.RaggedTensorSpec`)."""

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype")

    def __init__(self, shape=None, dtype=D.float32, ragged_rank=None,
                 row_splits_dtype=D.int64, flat_values_spec=None):
        self._shape = as_shape(shape)
        self._dtype = D.as_dtype(dtype)
        self._row_splits_dtype = D.as_dtype(row_splits_dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        # As in TensorFlow a ragged_rank below 0 is allowed: unbatching the
        # dense rows of a ragged_rank 0 spec gives one, and batching it again
        # gives the rows back.
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank "
                             f"({rank}).")
        self._ragged_rank = ragged_rank

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor."""
        return value._type_spec

    shape = property(lambda self: self._shape, doc="The (partial) shape.")
    dtype = property(lambda self: self._dtype, doc="The values' dtype.")
    ragged_rank = property(lambda self: self._ragged_rank, doc="The ragged dimensions.")
    row_splits_dtype = property(lambda self: self._row_splits_dtype,
                                doc="int64 or int32.")
    value_type = property(lambda self: RaggedTensor, doc="RaggedTensor.")

    @property
    def _component_specs(self):
        if self._ragged_rank <= 0:
            # The value is a plain tensor of this shape.
            return [TensorSpec(self._shape, self._dtype)]
        dims = self._shape.as_list() if self._shape.rank is not None else None
        inner = TensorShape(None) if dims is None else \
            TensorShape([None] + dims[self._ragged_rank + 1:])
        nrows = None if dims is None else dims[0]
        outer = TensorSpec([None if nrows is None else nrows + 1], self._row_splits_dtype)
        return [TensorSpec(inner, self._dtype), outer] + [
            TensorSpec([None], self._row_splits_dtype) for _ in range(self._ragged_rank - 1)]

    def _to_components(self, value=None):
        return list(self._component_specs) if value is None else value._to_components()

    def _from_components(self, components):
        return _from_components(list(components))

    def _trace_key(self):
        s = self._shape
        return ("RaggedTensor", self._dtype, None if s.rank is None else tuple(s.as_list()),
                self._ragged_rank, self._row_splits_dtype)

    @property
    def _arg_spec(self):
        return self

    def is_compatible_with(self, spec_or_value):
        """Whether a RaggedTensor (or spec) has this type and a compatible shape
        (for ragged_rank 0, also a plain tensor or TensorSpec of a compatible
        shape, as in TensorFlow)."""
        other = spec_or_value
        if isinstance(other, RaggedTensor):
            other = other._type_spec
        if self._ragged_rank == 0 and isinstance(other, (Tensor, TensorSpec)):
            return other.dtype is self._dtype and self._shape.is_compatible_with(other.shape)
        return (isinstance(other, RaggedTensorSpec) and self._dtype is other._dtype
                and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype is other._row_splits_dtype
                and self._shape.is_compatible_with(other._shape))

    def is_subtype_of(self, other):
        """Whether every value of this spec is also one of `other`."""
        return (isinstance(other, RaggedTensorSpec) and self._dtype is other._dtype
                and self._ragged_rank == other._ragged_rank
                and self._row_splits_dtype is other._row_splits_dtype
                and self._shape.is_subtype_of(other._shape))

    def most_specific_common_supertype(self, others):
        """The most specific spec matching this one and all `others`, or None
        (for another dtype, ragged rank or row splits dtype)."""
        shape = self._shape
        for o in others:
            if not isinstance(o, RaggedTensorSpec) or o._dtype is not self._dtype or \
                    o._ragged_rank != self._ragged_rank or \
                    o._row_splits_dtype is not self._row_splits_dtype:
                return None
            shape = shape.most_specific_compatible_shape(o._shape)
        return RaggedTensorSpec(shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    # --- batching (tf.data `batch` / `unbatch` / `from_tensor_slices`) ---------
    def _batch(self, batch_size):
        """The spec of a batch of `batch_size` values of this spec: one more
        leading dimension, ragged (`batch_size` may be None)."""
        return RaggedTensorSpec(TensorShape([batch_size]).concatenate(self._shape),
                                self._dtype, self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self):
        """The spec of the rows of a value of this spec (one ragged dimension
        fewer; below 0 the rows are plain tensors, as in TensorFlow)."""
        return RaggedTensorSpec(self._shape[1:], self._dtype, self._ragged_rank - 1,
                                self._row_splits_dtype)

    def _batch_numpy(self, rows):
        """The components (NumPy) of the batch (a value of `_batch()`) of the
        values of this spec whose components are `rows`: their rows
        concatenated, with new outer row splits.

        Raises:
          InvalidArgumentError: for rows whose uniform inner dimensions differ.
        """
        k = self._ragged_rank
        if k < 0:
            return [stack_components(rows, 0)]
        splits_np = self._row_splits_dtype._np
        flat = [np.asarray(r[0]) for r in rows]
        inner = flat[0].shape[1:]
        for f in flat:
            if f.ndim == 0 or f.shape[1:] != inner:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot batch RaggedTensors whose inner dimensions differ: "
                    f"{list(flat[0].shape)} and {list(f.shape)}.")
        # Level j of the batch splits the rows of level j-1; each element's
        # splits move by the number of items before it at that level.
        nrows = [len(f) if k == 0 else len(r[1]) - 1 for f, r in zip(flat, rows)]
        levels = [np.concatenate([[0], np.cumsum(nrows)]).astype(splits_np)]
        for j in range(1, k + 1):
            parts, offset = [np.zeros(1, splits_np)], 0
            for r in rows:
                sp = np.asarray(r[j])
                parts.append((sp[1:] + offset).astype(splits_np, copy=False))
                offset += int(sp[-1])
            levels.append(np.concatenate(parts))
        return [np.concatenate(flat)] + levels

    def _unbatch_numpy(self, components):
        """The components (NumPy) of each row (a value of `_unbatch()`) of the
        value of this spec whose components are `components`.

        Raises:
          InvalidArgumentError: for a scalar.
        """
        k = self._ragged_rank
        flat = components[0]
        if k <= 0:
            if np.ndim(flat) == 0:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot unbatch an input with scalar components.")
            return [[v] for v in slice_iter(flat)]
        out = []
        outer = components[1]
        for i in range(len(outer) - 1):
            a, b = int(outer[i]), int(outer[i + 1])
            row = []
            for sp in components[2:]:
                # This row's part of the next level, shifted to start at 0.
                row.append(sp[a:b + 1] - sp[a])
                a, b = int(sp[a]), int(sp[b])
            out.append([flat[a:b]] + row)
        return out

    def __eq__(self, other):
        return type(other) is RaggedTensorSpec and self._trace_key() == other._trace_key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return "RaggedTensorSpec(%r, %r, %d, %r)" % (
            self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)


# --- tf.ragged.constant --------------------------------------------------------------------

def _is_nested(x):
    """Whether `x` is a list level (a list, tuple or array of rank > 0)."""
    return isinstance(x, (list, tuple)) or np.ndim(x) != 0


def _depths(pylist):
    """(depth of the scalars or None when there are none, depth of the deepest
    list counting empty ones); a scalar has depths (0, 0).

    Raises:
      ValueError: scalars at different depths.
    """
    if not _is_nested(pylist):
        return 0, 0
    scalar, deepest = None, 1
    for item in pylist:
        s, d = _depths(item)
        if s is not None:
            if scalar is not None and scalar != s + 1:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar = s + 1
        deepest = max(deepest, d + 1)
    return scalar, deepest


def _uniform_inner_shape(pylist, ragged_rank):
    """The shape of the values below `ragged_rank` ragged levels, from the
    first of them; every other must have it.

    Raises:
      ValueError: fewer list levels than `ragged_rank`, or values of
        different shapes.
    """
    flat = list(pylist)
    for level in range(ragged_rank):
        if not all(_is_nested(v) for v in flat):
            raise ValueError(f"pylist has scalar values depth {level + 1}, but ragged_rank="
                             f"{ragged_rank} requires scalar value depth greater than "
                             f"{ragged_rank}")
        flat = [x for v in flat for x in v]
    shape, probe = [], flat
    while _is_nested(probe):
        shape.append(len(probe))
        if not len(probe):
            break
        probe = probe[0]
    shape = tuple(shape[1:])

    def check(item, dims):
        if _is_nested(item) != bool(dims) or dims and dims[0] != len(item):
            raise ValueError("inner values have inconsistent shape")
        for child in (item if dims else ()):
            check(child, dims[1:])

    check(flat, (len(flat),) + shape)
    return shape


@export("ragged.constant")
def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=D.int64):
    """A RaggedTensor of the nested Python list `pylist` (`tf.ragged.constant`).

    Unless given, `ragged_rank` is the nesting depth of the scalars less one
    (less `inner_shape`'s rank), and at least 1; a list whose rows all have
    the same length is still ragged. A scalar, a flat list, or
    `ragged_rank=0` gives a plain Tensor. Empty lists give float32 values
    unless `dtype` says otherwise.

    Raises:
      ValueError: scalars at different depths, deeper empty lists than
        scalars, or a `ragged_rank` / `inner_shape` that does not fit.
      TypeError: `pylist` is already a RaggedTensor.
    """
    if isinstance(pylist, RaggedTensor):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    splits_dtype = D.as_dtype(row_splits_dtype)
    if not _is_nested(pylist):
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"ragged_rank={ragged_rank}")
        if inner_shape:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"dim(inner_shape)={len(inner_shape)}")
        return dense(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _depths(pylist)
    if scalar_depth is not None:
        if max_depth > scalar_depth:
            raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater than "
                             "scalar value nesting")
        if ragged_rank is not None and max_depth < ragged_rank:
            raise ValueError(f"Invalid pylist={pylist}, max depth smaller than "
                             f"ragged_rank={ragged_rank}")
    if inner_shape is not None and ragged_rank is not None:
        depth = ragged_rank + len(inner_shape) + 1
        if depth != scalar_depth if scalar_depth is not None else depth < max_depth:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                             f"{ragged_rank} and dim(inner_shape)={len(inner_shape)}")
    if ragged_rank == 0 or ragged_rank is None and (
            max_depth < 2 or inner_shape is not None and max_depth - len(inner_shape) < 2):
        return dense(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _uniform_inner_shape(pylist, ragged_rank)
    inner_shape = tuple(inner_shape)
    if ragged_rank is None:
        depth = max_depth if scalar_depth is None else scalar_depth - len(inner_shape)
        ragged_rank = max(1, depth - 1)
    levels, rows = [], list(pylist)
    for _ in range(ragged_rank):
        lengths = [len(r) for r in rows]
        levels.append(np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]))
        rows = [x for r in rows for x in r]
    out = dense(rows, dtype, (len(rows),) + inner_shape, name="values")
    for splits in reversed(levels):
        out = RaggedTensor(out, convert_to_tensor(splits.astype(splits_dtype._np)))
    return out
