"""Element structures: the `element_spec` of datasets and how elements move
between their user-facing form and flat component values.

An element is a nest of tuples, dicts and namedtuples whose leaves are
tensors, datasets or composite tensors (tf.data treats a Python list as one
tensor). Its spec has a `TensorSpec`, `DatasetSpec` or composite type spec
(`SparseTensorSpec`, `RaggedTensorSpec`, ...) at each leaf. Internally an
element is a flat tuple of component values, leaf by leaf in `nest.flatten`
order: a NumPy value for a tensor, the runtime dataset for a dataset, and
for a composite the values of its component tensors (`_to_components`),
which its spec rebuilds it from (`_from_components`). Batching composite
leaves is up to their spec: `_batch` / `_unbatch` give the spec of a batch
or of a row, `_batch_numpy` / `_unbatch_numpy` do it on component values.
"""
import numpy as np

from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.component_batching import slice_iter, stack_components
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.none_tensor import NoneTensor
from ..framework.tensor_spec import TensorSpec
from ..framework.type_spec import TypeSpec
from . import registry
from . import runtime as R
from ..framework.type_spec import TypeSpec

_VARIANT_SPEC = TensorSpec([], D.variant)


@export("data.DatasetSpec", "data.experimental.DatasetStructure")
class DatasetSpec(TypeSpec):
    """The type of a dataset value: its element_spec (and the shape of the
    dataset tensor, a scalar). Elements of `window()` have this type, and a
    DatasetSpec passed to `get_concrete_function` stands for a dataset."""

    __slots__ = ("_element_spec", "_dataset_shape")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = as_shape(dataset_shape)

    @property
    def element_spec(self):
        """The spec of the dataset's elements."""
        return self._element_spec

    @property
    def shape(self):
        """The shape of the dataset tensor (a scalar)."""
        return self._dataset_shape

    @property
    def value_type(self):
        """The Python type of values of this spec."""
        # `Dataset` is defined above this module (its `_type_spec` is a DatasetSpec).
        return registry.lookup("Dataset")

    def _serialize(self):
        return (self._element_spec, self._dataset_shape)

    @staticmethod
    def from_value(value):
        """The spec of a dataset."""
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, other):
        """Whether `other` (a DatasetSpec or dataset) has a compatible element spec."""
        other_spec = getattr(other, "element_spec", None)
        return other_spec is not None and is_compatible(self._element_spec, other_spec)

    def most_specific_common_supertype(self, others):
        """The spec compatible with this one and each of `others`, or None."""
        spec = self._element_spec
        for o in others:
            spec = most_specific_compatible(spec, o.element_spec)
            if spec is None:
                return None
        return DatasetSpec(spec, self._dataset_shape)

    # --- composite protocol (tf.function arguments) -------------------------------
    def _component_specs(self):
        return [_VARIANT_SPEC]

    def _to_components(self):
        return [_VARIANT_SPEC]

    def _from_components(self, tensors):
        return registry.lookup("make_dataset")("_VariantDataset", tensors[0], self._element_spec)

    def _trace_key(self):
        return ("Dataset", spec_key(self._element_spec))

    @property
    def _arg_spec(self):
        return self

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and \
            spec_key(self._element_spec) == spec_key(other._element_spec) and \
            self._dataset_shape == other._dataset_shape

    def __hash__(self):
        return hash(spec_key(self._element_spec))

    def __repr__(self):
        return "DatasetSpec(%r, %r)" % (self._element_spec, self._dataset_shape)


class CompositeSpec:
    """The type of a composite value that has no type spec of its own (a
    TensorArray, an AutoGraph tensor list, an Optional) carried in an element
    or in the state of `reduce` or `scan`: the specs of its components, and
    the value it was made from, which rebuilds values of this type from
    component tensors."""

    __slots__ = ("template", "components")

    def __init__(self, template):
        self.template = template
        self.components = tuple(TensorSpec(c.shape, c.dtype) for c in template._to_components())

    @property
    def value_type(self):
        """The Python type of values of this spec."""
        return type(self.template)

    def _component_specs(self):
        return list(self.components)

    def _to_components(self):
        return list(self.components)

    def _from_components(self, tensors):
        return self.template._from_components(list(tensors))

    def _trace_key(self):
        # Component dtypes only: a TensorArray whose element shape became
        # known in a loop body has the same type.
        return ("Composite", type(self.template).__name__,
                tuple(c.dtype for c in self.components))

    def __eq__(self, other):
        return isinstance(other, CompositeSpec) and self._trace_key() == other._trace_key()

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return "CompositeSpec(%s, %r)" % (type(self.template).__name__, list(self.components))


def is_composite(v):
    """Whether `v` is a composite value (other than a tensor or dataset)."""
    # An Optional has a variant tensor too, but a type spec (a dataset has none).
    return hasattr(v, "_to_components") and hasattr(v, "_from_components") and \
        not isinstance(v, Tensor) and (not hasattr(v, "_variant_tensor")
                                       or _type_spec_of(v) is not None)


def is_type_spec(leaf):
    """Whether a leaf spec is the type spec of a composite tensor
    (`SparseTensorSpec`, `RaggedTensorSpec`, ...): it gives its component
    specs (`_component_specs`) and rebuilds values from components
    (`_from_components`). Such leaves appear in `element_spec` as they are."""
    return not isinstance(leaf, (TensorSpec, DatasetSpec, CompositeSpec)) and \
        hasattr(leaf, "_component_specs") and hasattr(leaf, "_from_components")


def _type_spec_of(value):
    spec = getattr(value, "_type_spec", None)
    return spec if spec is not None and is_type_spec(spec) else None


# --- specs -----------------------------------------------------------------------

def spec_key(spec):
    """A hashable key of a spec structure: structure, dtypes and shapes (names ignored)."""
    if isinstance(spec, TensorSpec):
        return ("T", spec.dtype, spec.shape)
    if isinstance(spec, DatasetSpec):
        return ("DS", spec_key(spec.element_spec))
    if isinstance(spec, CompositeSpec):
        return spec._trace_key()
    if isinstance(spec, dict):
        keys = sorted(spec, key=repr)
        return ("D", tuple(keys), tuple(spec_key(spec[k]) for k in keys))
    if isinstance(spec, tuple):
        return ("N" if hasattr(spec, "_fields") else "U", type(spec).__name__,
                tuple(spec_key(s) for s in spec))
    key = getattr(spec, "_trace_key", None)
    return ("O", type(spec).__name__, key() if key is not None else id(spec))


def leaf_specs(spec):
    """The leaf specs of an element spec (a TensorSpec, DatasetSpec or
    composite spec each), in `nest.flatten` order."""
    return nest.flatten(spec)


def component_specs(leaf):
    """The TensorSpecs of the component tensors of a leaf spec: itself for a
    TensorSpec, a variant scalar for a dataset, a composite's component specs."""
    if isinstance(leaf, TensorSpec):
        return [leaf]
    if isinstance(leaf, DatasetSpec):
        return [_VARIANT_SPEC]
    specs = leaf._component_specs
    return list(specs() if callable(specs) else specs)


def flat_component_specs(spec):
    """The TensorSpecs of the components of an element of `spec`, in order:
    the components of each leaf in turn."""
    out = []
    for leaf in leaf_specs(spec):
        out.extend(component_specs(leaf))
    return out


def all_tensors(spec):
    """Whether every leaf of `spec` is a TensorSpec (one component each), the
    case the fast paths of the runtime handle."""
    return all(isinstance(leaf, TensorSpec) for leaf in leaf_specs(spec))


def spec_of(value):
    """The spec of a tensor, dataset or composite leaf."""
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    type_spec = _type_spec_of(value)
    if type_spec is not None:
        return type_spec
    spec = getattr(value, "element_spec", None)
    if spec is not None and hasattr(value, "_variant_tensor"):
        return DatasetSpec(spec)
    if is_composite(value):
        return _type_spec_of(value) or CompositeSpec(value)
    raise TypeError(f"{value!r} is not a tensor or a dataset")


def element_spec_of(element):
    """The spec structure of a normalized element."""
    return nest.map_structure(spec_of, element)


def value_class(leaf):
    """The class of the values of a leaf spec (in TensorFlow's messages about
    mismatched structures)."""
    if isinstance(leaf, TensorSpec):
        return Tensor
    return getattr(leaf, "value_type", type(leaf))


def is_compatible(a, b):
    """Whether specs `a` and `b` have the same structure and dtypes and
    compatible shapes."""
    return most_specific_compatible(a, b) is not None


def most_specific_compatible(a, b):
    """The spec both `a` and `b` conform to (shapes relaxed), or None when
    their structures or dtypes differ."""
    try:
        nest.assert_same_structure(a, b, check_types=False)
    except (ValueError, TypeError):
        return None
    out = []
    for x, y in zip(nest.flatten(a), nest.flatten(b)):
        if isinstance(x, TensorSpec) and isinstance(y, TensorSpec):
            if x.dtype is not y.dtype:
                return None
            out.append(TensorSpec(x.shape.most_specific_compatible_shape(y.shape), x.dtype))
        elif isinstance(x, CompositeSpec) and x == y:
            out.append(y)
        elif isinstance(x, DatasetSpec) and isinstance(y, DatasetSpec):
            inner = most_specific_compatible(x.element_spec, y.element_spec)
            if inner is None:
                return None
            out.append(DatasetSpec(inner))
        elif is_type_spec(x) and type(x) is type(y):
            common = x.most_specific_common_supertype([y])
            if common is None:
                return None
            out.append(common)
        else:
            return None
    return nest.pack_sequence_as(a, out)


def batch_spec(spec, batch_dim):
    """The spec of a batch of elements of `spec` (leading dimension `batch_dim`);
    a composite leaf gives its own (`_batch`: a SparseTensorSpec gains a
    dimension, a RaggedTensorSpec a ragged one)."""
    def one(s):
        if isinstance(s, TensorSpec):
            return TensorSpec(TensorShape([batch_dim]).concatenate(s.shape), s.dtype)
        if isinstance(s, DatasetSpec):
            raise TypeError("Batching datasets of datasets is not supported.")
        batch = getattr(s, "_batch", None) if hasattr(s, "_batch_numpy") else None
        if batch is None:
            raise TypeError(f"Batching elements of type {s!r} is not supported.")
        return batch(batch_dim)
    return nest.map_structure(one, spec)


def unbatch_spec(spec, what="unbatch"):
    """The spec of the slices of elements of `spec` along their first
    dimension (a composite leaf gives its own: `_unbatch`).

    Raises:
      ValueError: for a scalar component, or (`unbatch`) tensor components
        of different static lengths.
    """
    if what == "unbatch":
        # TensorFlow checks the tensor leaves statically (a composite's
        # length is known only when it runs).
        dims = [s.shape for s in leaf_specs(spec) if isinstance(s, TensorSpec)]
        if any(d.rank == 0 for d in dims):
            raise ValueError("Cannot unbatch an input with scalar components.")
        known = None
        for d in dims:
            n = d[0] if d.rank else None
            if n is not None:
                if known is not None and n != known:
                    raise ValueError("`unbatch()` is only supported for datasets of elements "
                                     "whose components have a matching leading dimension. "
                                     f"Encountered both {known} and {n}.")
                known = n

    def one(s):
        if isinstance(s, DatasetSpec):
            raise TypeError(f"Cannot {what} a dataset of datasets.")
        if not isinstance(s, TensorSpec):
            unbatch = getattr(s, "_unbatch", None) if hasattr(s, "_unbatch_numpy") else None
            if unbatch is None:
                raise TypeError(f"Cannot {what} elements of type {s!r}.")
            return unbatch()
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components."
                             if what == "unbatch" else
                             "Unbatching a tensor is only supported for rank >= 1")
        return TensorSpec(s.shape[1:], s.dtype)
    return nest.map_structure(one, spec)


def leaf_plan(spec):
    """(leaf, first component index, end index) for each leaf of `spec`."""
    plan, i = [], 0
    for leaf in leaf_specs(spec):
        n = len(component_specs(leaf))
        plan.append((leaf, i, i + n))
        i += n
    return plan


def batcher(spec):
    """`batch(rows, fused=False)`: the flat element of the batch of `rows`
    (flat elements of `spec`): tensor components stacked, composite leaves
    batched by their spec (`_batch_numpy`). None when every leaf is a tensor
    (`runtime.stacked_batches` then stacks each component)."""
    if all_tensors(spec):
        return None
    plan = [(k, None if isinstance(leaf, TensorSpec) else leaf._batch_numpy, a, b)
            for k, (leaf, a, b) in enumerate(leaf_plan(spec))]

    def batch(rows, fused=False):
        out = []
        for k, fn, a, b in plan:
            if fn is None:
                out.append(stack_components(rows, a, fused, label=k))
            else:
                out.extend(fn([r[a:b] for r in rows]))
        return tuple(out)
    return batch


def unbatcher(spec):
    """`unbatch(element)`: the flat elements of the rows of `element` (a flat
    element of `spec`): tensor components sliced along their first dimension,
    composite leaves split by their spec (`_unbatch_numpy`). None when every
    leaf is a tensor.

    The function raises InvalidArgumentError for a scalar tensor component
    or leaves of different lengths.
    """
    if all_tensors(spec):
        return None
    # Leaves without components (None) have no rows of their own.
    plan = [(None if isinstance(leaf, TensorSpec) else leaf._unbatch_numpy, a, b)
            for leaf, a, b in leaf_plan(spec) if b > a]

    def unbatch(element):
        columns = []
        for fn, a, b in plan:
            if fn is None:
                v = element[a]
                if not np.ndim(v):
                    raise errors.InvalidArgumentError(
                        None, None, "Cannot unbatch an input with scalar components.")
                columns.append([(x,) for x in slice_iter(v)])
            else:
                columns.append([tuple(c) for c in fn(list(element[a:b]))])
        if len({len(c) for c in columns}) > 1:
            raise R.batch_size_error([len(c) for c in columns])
        if len(columns) == 1:
            return columns[0]
        return [sum(parts, ()) for parts in zip(*columns)]
    return unbatch


# --- elements ----------------------------------------------------------------------

def normalize_element(element, dtypes=None):
    """`element` with every leaf a tensor or dataset; lists become tensors.

    `dtypes` (a structure like `element`, or None) gives the dtype Python
    values are converted to.
    """
    if dtypes is not None:
        flat_types = nest.flatten(dtypes)
        flat = _flatten_lists_as_leaves(element)
        if len(flat) != len(flat_types):
            raise ValueError(f"The element {element!r} does not match the structure "
                             f"{dtypes!r}")
        leaves = [_to_leaf(v, t) for v, t in zip(flat, flat_types)]
    else:
        leaves = [_to_leaf(v, None) for v in _flatten_lists_as_leaves(element)]
    return _pack_lists_as_leaves(element, leaves)


def _to_leaf(v, dtype):
    if isinstance(v, Tensor) or hasattr(v, "_variant_tensor"):
        return v
    if v is None:   # a NoneTensorSpec leaf, as in TensorFlow
        return NoneTensor()
    if hasattr(v, "_dense_var_to_tensor"):
        return v._dense_var_to_tensor()
    if is_composite(v):
        return v
    return convert_to_tensor(v, dtype=dtype)


def _flatten_lists_as_leaves(s):
    if isinstance(s, list) or not nest.is_nested(s):
        return [s]
    out = []
    for c in nest._children(s):
        out.extend(_flatten_lists_as_leaves(c))
    return out


def _pack_lists_as_leaves(template, leaves):
    it = iter(leaves)

    def rebuild(s):
        if isinstance(s, list) or not nest.is_nested(s):
            return next(it)
        return nest._rebuild(s, [rebuild(c) for c in nest._children(s)])
    return rebuild(template)


def flat_tensors(element):
    """The component tensors of a normalized element, leaf by leaf (a dataset
    gives its variant tensor, a composite its components)."""
    out = []
    for v in nest.flatten(element):
        if isinstance(v, Tensor):
            out.append(v)
        elif hasattr(v, "_variant_tensor"):
            out.append(v._variant_tensor)
        else:
            out.extend(v._to_components())
    return out


def to_eager(value):
    """An eager tensor holding a component value."""
    if value.__class__ is np.ndarray or isinstance(value, np.generic) or \
            hasattr(value, "dtype"):
        return EagerTensor(value)
    if isinstance(value, (bytes, str)):
        a = np.empty((), dtype=object)
        a[()] = value.encode() if isinstance(value, str) else value
        return EagerTensor(a)
    return EagerTensor(np.asarray(value))


def packer(spec):
    """A function making the user-facing element (eager tensors, datasets,
    composites) of `spec` from a flat tuple of component values."""
    leaves = leaf_specs(spec)
    if len(leaves) == 1 and isinstance(leaves[0], TensorSpec) and not nest.is_nested(spec):
        return lambda values: to_eager(values[0])
    plan = leaf_plan(spec)
    if all(b - a == 1 for _, a, b in plan):
        # One component per leaf (the common case): no slicing.
        wraps = [_wrapper(s) for s in leaves]
        if not nest.is_nested(spec):
            w = wraps[0]
            return lambda values: w(values[0])
        return lambda values: nest.pack_sequence_as(
            spec, [w(v) for w, v in zip(wraps, values)])
    parts = [(_wrapper(leaf), a, b) for leaf, a, b in plan]

    def pack(values):
        out = [w(values[a] if b - a == 1 else values[a:b]) for w, a, b in parts]
        return nest.pack_sequence_as(spec, out) if nest.is_nested(spec) else out[0]
    return pack


def _wrapper(leaf):
    """The function making the user-facing value of `leaf` from its component
    value (its tuple of component values for a composite of several)."""
    if isinstance(leaf, TensorSpec):
        return to_eager
    if isinstance(leaf, DatasetSpec):
        make_dataset = registry.lookup("make_dataset")
        inner = leaf.element_spec
        return lambda node: make_dataset("_VariantDataset", EagerTensor(node), inner)
    if len(component_specs(leaf)) == 1:
        return lambda value: leaf._from_components([to_eager(value)])
    return lambda values: leaf._from_components([to_eager(v) for v in values])


def pack_tensors(spec, tensors):
    """The element of `spec` whose components are `tensors` (any context)."""
    make_dataset = registry.lookup("make_dataset")
    out = []
    for s, a, b in leaf_plan(spec):
        if isinstance(s, DatasetSpec):
            out.append(make_dataset("_VariantDataset", tensors[a], s.element_spec))
        elif isinstance(s, TensorSpec):
            t = tensors[a]
            if hasattr(t, "set_shape") and not isinstance(t, EagerTensor):
                t.set_shape(t.shape.merge_with(s.shape) if t.shape.is_compatible_with(s.shape)
                            else t.shape)
            out.append(t)
        else:
            out.append(s._from_components(list(tensors[a:b])))
    return nest.pack_sequence_as(spec, out)

