"""Element structures: the `element_spec` of datasets and how elements move
between their user-facing form and flat component values.

An element is a nest of tuples, dicts and namedtuples whose leaves are
tensors or datasets (tf.data treats a Python list as one tensor). Its spec
has a `TensorSpec` (or `DatasetSpec`) at each leaf. Internally an element
is a flat tuple of component values, one per leaf in `nest.flatten` order:
a NumPy value for a tensor, the runtime dataset for a dataset.
"""
import numpy as np

from ..framework import dtypes as D
from ..framework import nest
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import EagerTensor, Tensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..framework.tensor_spec import TensorSpec

_VARIANT_SPEC = TensorSpec([], D.variant)


@export("data.DatasetSpec", "data.experimental.DatasetStructure")
class DatasetSpec:
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
        from .dataset_ops import Dataset
        return Dataset

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
        from .dataset_ops import make_dataset
        return make_dataset("_VariantDataset", tensors[0], self._element_spec)

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
    """The type of a one-component composite value (a TensorArray, an
    AutoGraph tensor list, an Optional) carried in the state of `reduce` or
    `scan`: its component's spec, and the value it was made from, which
    rebuilds values of this type from a component tensor."""

    __slots__ = ("template", "component")

    def __init__(self, template):
        comps = template._to_components()
        if len(comps) != 1:
            raise TypeError(f"{template!r} cannot be part of a dataset element or state (it "
                            f"has {len(comps)} components).")
        self.template = template
        self.component = TensorSpec(comps[0].shape, comps[0].dtype)

    def _component_specs(self):
        return [self.component]

    def _to_components(self):
        return [self.component]

    def _from_components(self, tensors):
        return self.template._from_components(list(tensors))

    def _trace_key(self):
        return ("Composite", type(self.template).__name__, self.component.dtype)

    def __eq__(self, other):
        return isinstance(other, CompositeSpec) and self._trace_key() == other._trace_key()

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return "CompositeSpec(%s, %r)" % (type(self.template).__name__, self.component)


def is_composite(v):
    """Whether `v` is a composite value (other than a tensor or dataset)."""
    return hasattr(v, "_to_components") and hasattr(v, "_from_components") and \
        not isinstance(v, Tensor) and not hasattr(v, "_variant_tensor")


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
    """The leaf specs of an element spec, in component order."""
    return nest.flatten(spec)


def component_spec(leaf):
    """The (shape, dtype) of the component tensor of a leaf spec."""
    if isinstance(leaf, TensorSpec):
        return leaf.shape, leaf.dtype
    if isinstance(leaf, CompositeSpec):
        return leaf.component.shape, leaf.component.dtype
    return TensorShape([]), D.variant


def spec_of(value):
    """The spec of a tensor or dataset leaf."""
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    spec = getattr(value, "element_spec", None)
    if spec is not None and hasattr(value, "_variant_tensor"):
        return DatasetSpec(spec)
    if is_composite(value):
        return CompositeSpec(value)
    raise TypeError(f"{value!r} is not a tensor or a dataset")


def element_spec_of(element):
    """The spec structure of a normalized element."""
    return nest.map_structure(spec_of, element)


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
        else:
            return None
    return nest.pack_sequence_as(a, out)


def batch_spec(spec, batch_dim):
    """The spec of a batch of elements of `spec` (leading dimension `batch_dim`)."""
    def one(s):
        if not isinstance(s, TensorSpec):
            raise TypeError("Batching datasets of datasets is not supported.")
        return TensorSpec(TensorShape([batch_dim]).concatenate(s.shape), s.dtype)
    return nest.map_structure(one, spec)


def unbatch_spec(spec, what="unbatch"):
    """The spec of the slices of elements of `spec` along their first dimension.

    Raises:
      ValueError: for a scalar component.
    """
    def one(s):
        if not isinstance(s, TensorSpec):
            raise TypeError(f"Cannot {what} a dataset of datasets.")
        if s.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components."
                             if what == "unbatch" else
                             "Unbatching a tensor is only supported for rank >= 1")
        return TensorSpec(s.shape[1:], s.dtype)
    return nest.map_structure(one, spec)


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
    """The component tensors of a normalized element (datasets give their
    variant tensors)."""
    return [v if isinstance(v, Tensor) else v._variant_tensor if hasattr(v, "_variant_tensor")
            else v._to_components()[0] for v in nest.flatten(element)]


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
    """A function making the user-facing element (eager tensors, datasets)
    of `spec` from a flat tuple of component values."""
    leaves = leaf_specs(spec)
    if len(leaves) == 1 and isinstance(leaves[0], TensorSpec) and not nest.is_nested(spec):
        return lambda values: to_eager(values[0])
    wraps = [_wrapper(s) for s in leaves]
    if not nest.is_nested(spec):
        w = wraps[0]
        return lambda values: w(values[0])
    return lambda values: nest.pack_sequence_as(
        spec, [w(v) for w, v in zip(wraps, values)])


def _wrapper(leaf):
    if isinstance(leaf, TensorSpec):
        return to_eager
    if isinstance(leaf, CompositeSpec):
        return lambda value: leaf._from_components([EagerTensor(value)])
    from .dataset_ops import make_dataset
    inner = leaf.element_spec
    return lambda node: make_dataset("_VariantDataset", EagerTensor(node), inner)


def pack_tensors(spec, tensors):
    """The element of `spec` whose components are `tensors` (any context)."""
    from .dataset_ops import make_dataset
    out = []
    for s, t in zip(leaf_specs(spec), tensors):
        if isinstance(s, DatasetSpec):
            out.append(make_dataset("_VariantDataset", t, s.element_spec))
        elif isinstance(s, CompositeSpec):
            out.append(s._from_components([t]))
        else:
            if isinstance(s, TensorSpec) and hasattr(t, "set_shape") and \
                    not isinstance(t, EagerTensor):
                t.set_shape(t.shape.merge_with(s.shape) if t.shape.is_compatible_with(s.shape)
                            else t.shape)
            out.append(t)
    return nest.pack_sequence_as(spec, out)

