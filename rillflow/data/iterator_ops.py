"""Iterators over datasets and `tf.experimental.Optional`.

Eagerly an iterator is a Python iterator over the runtime dataset:
`next()` raises StopIteration at the end and `get_next()` raises
OutOfRangeError. Inside a function, `iter(dataset)` adds
`AnonymousIteratorV3` + `MakeIterator` ops, and `get_next()` is a stateful
`IteratorGetNext` op that raises OutOfRangeError when the function runs
past the end; `get_next_as_optional()` gives an Optional whose
`has_value()` / `get_value()` are ops, as AutoGraph's iterator loops need.
"""
import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.api_export import export
from ..framework.execute import apply, apply_op
from ..framework.op_registry import register
from ..framework.tensor import EagerTensor
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..framework.type_spec import TypeSpec
from . import dataset_ops as DS
from . import functions as F
from . import registry
from . import runtime as R
from . import structure as S
from ..framework.type_spec import TypeSpec

_state = _context.state
_VARIANT = TensorSpec([], D.variant)


def _scalar_variant(inputs, attrs):
    return [(TensorShape([]), D.variant)]


def _typed(inputs, attrs):
    return list(zip(attrs["output_shapes"], attrs["output_types"]))


def _get_next_kernel(iterator, **_):
    e = iterator.next()
    if e is None:
        raise R.end_of_sequence()
    return list(e)


def _make_iterator_kernel(dataset, iterator):
    F.restart_random_streams(dataset)
    iterator.bind(dataset)


_AnonymousIterator = register("AnonymousIteratorV3", lambda **_: R.IteratorState(),
                              _scalar_variant, stateful=True)
_MakeIterator = register("MakeIterator", _make_iterator_kernel, lambda i, a: [],
                         stateful=True)
_GetNext = register("IteratorGetNext", _get_next_kernel, _typed, stateful=True)
_GetNextAsOptional = register("IteratorGetNextAsOptional",
                              lambda iterator, **_: R.OptionalValue(iterator.next()),
                              _scalar_variant, stateful=True)


@export("data.Iterator")
class Iterator:
    """The interface of dataset iterators (`tf.data.Iterator`)."""

    @property
    def element_spec(self):
        """The spec of the elements."""
        raise NotImplementedError

    def get_next(self):
        """The next element; OutOfRangeError at the end."""
        raise NotImplementedError

    def get_next_as_optional(self):
        """The next element as an Optional (empty at the end)."""
        raise NotImplementedError


@registry.implements("Dataset.__iter__")
class OwnedIterator(Iterator):
    """The iterator `iter(dataset)` returns.

    It is also a composite value: it can be passed to a `tf.function`, whose
    graph then reads from the same iteration.
    """

    def __init__(self, dataset=None, components=None, element_spec=None):
        if dataset is not None:
            element_spec = dataset.element_spec
            if _state.graph is None:
                node = DS.runtime_node(dataset)
                F.restart_random_streams(node)
                st = R.IteratorState(node)
                handle = EagerTensor(st)
            else:
                handle = apply(_AnonymousIterator, [], {}, name="AnonymousIteratorV3")
                apply_op(_MakeIterator, [dataset._variant_tensor, handle], {},
                         name="MakeIterator")
        else:
            handle = components[0]
        self._element_spec = element_spec
        self._handle = handle
        self._eager_state = handle._v if isinstance(handle, EagerTensor) else None
        self._pack = S.packer(element_spec) if self._eager_state is not None else None

    @property
    def element_spec(self):
        """The spec of the elements."""
        return self._element_spec

    def __iter__(self):
        return self

    def __next__(self):
        st = self._eager_state
        if st is not None and _state.graph is None:
            try:
                return self._pack(next(st.it))
            except StopIteration:
                raise StopIteration from None
            except errors.OpError as e:
                raise _op_error(e, "IteratorGetNext") from None
        return self.get_next()

    next = __next__

    def get_next(self, name=None):
        """The next element.

        Raises:
          OutOfRangeError: at the end (eagerly now; in a graph when it runs).
        """
        st = self._eager_state
        if st is not None and _state.graph is None:
            try:
                e = st.next()
            except errors.OpError as exc:
                raise _op_error(exc, "IteratorGetNext") from None
            if e is None:
                raise _op_error(R.end_of_sequence(), "IteratorGetNext")
            return self._pack(e)
        outs = apply(_GetNext, [self._handle], DS.type_attrs(self._element_spec),
                     name=name or "IteratorGetNext", multi=True)
        return S.pack_tensors(self._element_spec, outs)

    def get_next_as_optional(self):
        """The next element as a `tf.experimental.Optional` (empty at the end)."""
        st = self._eager_state
        if st is not None and _state.graph is None:
            try:
                e = st.next()
            except errors.OpError as exc:
                raise _op_error(exc, "IteratorGetNextAsOptional") from None
            return Optional(EagerTensor(R.OptionalValue(e)), self._element_spec)
        v = apply(_GetNextAsOptional, [self._handle], {}, name="IteratorGetNextAsOptional")
        return Optional(v, self._element_spec)

    # --- composite protocol ----------------------------------------------------------
    def _component_specs(self):
        return [_VARIANT]

    def _to_components(self):
        return [self._handle]

    def _from_components(self, tensors):
        return OwnedIterator(components=tensors, element_spec=self._element_spec)

    def _trace_key(self):
        return ("Iterator", S.spec_key(self._element_spec))

    @property
    def _arg_spec(self):
        return IteratorSpec(self._element_spec)


@export("data.IteratorSpec")
class IteratorSpec(TypeSpec):
    """The type of an iterator: the spec of its elements."""

    def __init__(self, element_spec):
        self.element_spec = element_spec

    @property
    def value_type(self):
        """OwnedIterator."""
        return OwnedIterator

    def _serialize(self):
        return (self.element_spec,)

    def __repr__(self):
        return "IteratorSpec(%r)" % (self.element_spec,)

    def __eq__(self, other):
        return isinstance(other, IteratorSpec) and \
            S.spec_key(other.element_spec) == S.spec_key(self.element_spec)

    def __hash__(self):
        return hash(S.spec_key(self.element_spec))


@export("data.NumpyIterator")
@registry.implements("Dataset.as_numpy_iterator")
class NumpyIterator:
    """The iterator `Dataset.as_numpy_iterator()` returns: elements as NumPy
    values (scalars as NumPy scalars, strings as bytes)."""

    def __init__(self, dataset):
        if _state.graph is not None:
            raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in "
                               "eager mode.")
        for leaf in S.leaf_specs(dataset.element_spec):
            if isinstance(leaf, (S.DatasetSpec, S.CompositeSpec)):
                raise TypeError("`tf.data.Dataset.as_numpy_iterator()` is not supported for "
                                "datasets that produce values of type "
                                f"{S.value_class(leaf)}")
        self._iterator = OwnedIterator(dataset)
        # Read through the state each time: its iterator changes once the
        # pipeline's nodes have started (runtime.IteratorState.bind).
        self._state = self._iterator._eager_state
        spec = dataset.element_spec
        if not S.all_tensors(spec):
            # Composite leaves: their values' NumPy form (a SparseTensor's
            # dense array, a RaggedTensor's rows), as TensorFlow gives them.
            pack = S.packer(spec)
            self._pack = lambda vals: nest.map_structure(_composite_np, pack(vals))
        elif nest.is_nested(spec):
            self._pack = lambda vals: nest.pack_sequence_as(spec, [_np(v) for v in vals])
        else:
            self._pack = lambda vals: _np(vals[0])

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return self._pack(next(self._state.it))
        except errors.OpError as e:
            raise _op_error(e, "IteratorGetNext") from None

    next = __next__

    def __repr__(self):
        return "NumpyIterator(iterator=%r)" % (self._iterator,)


def _op_error(exc, op_name):
    """`exc` as an eager op raises it: its message ends with the op's name,
    which TensorFlow's eager iterators report as the failing op."""
    if "[Op:" in exc.message:
        return exc
    return type(exc)(None, None, "%s [Op:%s]" % (exc.message, op_name))


def _composite_np(v):
    if isinstance(v, EagerTensor):
        return _np(v._v)
    numpy = getattr(v, "_numpy", None)
    return numpy() if numpy is not None else v.numpy()


def _np(v):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v[()]
    return v


# --- Optional -----------------------------------------------------------------------------

def _optional_get_kernel(optional, **_):
    if optional.values is None:
        raise errors.InvalidArgumentError(None, None,
                                          "The given optional does not have a value.")
    return list(optional.values)


_OptionalFromValue = register("OptionalFromValue",
                              lambda *components: R.OptionalValue(tuple(components)),
                              _scalar_variant, no_fold=True)
_OptionalNone = register("OptionalNone", lambda: R.OptionalValue(None), _scalar_variant,
                         no_fold=True)
_OptionalHasValue = register("OptionalHasValue",
                             lambda optional: np.bool_(optional.values is not None),
                             lambda i, a: [(TensorShape([]), D.bool_)], no_fold=True)
_OptionalGetValue = register("OptionalGetValue", _optional_get_kernel, _typed, no_fold=True)


@export("experimental.Optional", "data.experimental.Optional")
class Optional:
    """A value that may be absent (`tf.experimental.Optional`): what
    `get_next_as_optional()` returns."""

    def __init__(self, variant, element_spec):
        self._variant_tensor = variant
        self._element_spec = element_spec

    @staticmethod
    def from_value(value):
        """An Optional holding `value` (a nest of tensors)."""
        element = S.normalize_element(value)
        spec = S.element_spec_of(element)
        v = apply(_OptionalFromValue, S.flat_tensors(element), {}, name="OptionalFromValue")
        return Optional(v, spec)

    @staticmethod
    def empty(element_spec):
        """An empty Optional for elements of `element_spec`."""
        return Optional(apply(_OptionalNone, [], {}, name="OptionalNone"), element_spec)

    @property
    def element_spec(self):
        """The spec of the value."""
        return self._element_spec

    def has_value(self, name=None):
        """A bool scalar tensor: whether there is a value."""
        return apply(_OptionalHasValue, [self._variant_tensor], {},
                     name=name or "OptionalHasValue")

    def get_value(self, name=None):
        """The value.

        Raises:
          InvalidArgumentError: if the Optional is empty.
        """
        outs = apply(_OptionalGetValue, [self._variant_tensor],
                     DS.type_attrs(self._element_spec), name=name or "OptionalGetValue",
                     multi=True)
        return S.pack_tensors(self._element_spec, outs)

    # --- composite protocol (loop variables, function arguments) ------------------------
    def _component_specs(self):
        return [_VARIANT]

    def _to_components(self):
        return [self._variant_tensor]

    def _from_components(self, tensors):
        return Optional(tensors[0], self._element_spec)

    def _trace_key(self):
        return ("Optional", S.spec_key(self._element_spec))

    @property
    def _type_spec(self):
        return OptionalSpec(self._element_spec)


@export("OptionalSpec", "data.experimental.OptionalStructure")
class OptionalSpec(TypeSpec):
    """The type of a `tf.experimental.Optional` (`tf.OptionalSpec`): the spec
    of the value it may hold; one variant component."""

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec):
        self._element_spec = element_spec

    @property
    def element_spec(self):
        """The spec of the value."""
        return self._element_spec

    @property
    def value_type(self):
        """`tf.experimental.Optional`."""
        return Optional

    def _serialize(self):
        return (self._element_spec,)

    def _component_specs(self):
        return [_VARIANT]

    def _from_components(self, tensors):
        return Optional(list(tensors)[0], self._element_spec)

    def _trace_key(self):
        return ("OptionalSpec", S.spec_key(self._element_spec))

    @staticmethod
    def from_value(value):
        """The spec of an Optional."""
        return OptionalSpec(value.element_spec)

    def is_compatible_with(self, other):
        """Whether `other` is an OptionalSpec of a compatible value spec."""
        return isinstance(other, OptionalSpec) and (
            (self._element_spec is None and other._element_spec is None)
            or S.is_compatible(self._element_spec, other._element_spec))

    def __eq__(self, other):
        return isinstance(other, OptionalSpec) and self._trace_key() == other._trace_key()

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return f"OptionalSpec({self._element_spec!r},)"


@export("data.experimental.get_next_as_optional")
def get_next_as_optional(iterator):
    """`iterator.get_next_as_optional()`."""
    return iterator.get_next_as_optional()

