"""`tf.TypeSpec`: the base class of the specs of values (`tf.TensorSpec`,
`tf.SparseTensorSpec`, `tf.RaggedTensorSpec`, IndexedSlicesSpec, DatasetSpec,
IteratorSpec, VariableSpec, extension types' specs, `tf.OptionalSpec`,
`tf.NoneTensorSpec`), so that `isinstance(spec, tf.TypeSpec)` holds as in
TensorFlow.

rillflow's composites follow the protocol docs/architecture.md describes
("Composite tensors"). A user's subclass defines `value_type`, `_serialize`
(its parameters as a tuple) and, for a composite value, `_component_specs`,
`_to_components` and `_from_components`; this base gives it TensorFlow's
generic equality, hashing, `repr`, compatibility and supertype rules, all
worked out on `_serialize()` (Keras serializes specs with `_serialize` /
`_deserialize`). Unlike TensorFlow's it is not an ABCMeta class: subclasses
are not checked for the abstract methods at instantiation (an isinstance
check on an ABC is slower, and specs are checked on hot paths), so a missing
one fails when called.
"""
from . import dtypes as _dtypes
from .api_export import export
from .tensor_shape import TensorShape

__all__ = ["TypeSpec"]


def _nested_to_tuple(v):
    if isinstance(v, (list, tuple)):
        return tuple(_nested_to_tuple(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _nested_to_tuple(x)) for k, x in sorted(v.items()))
    return v


def _compatible(a, b):
    """Whether two `_serialize()` parts are compatible (TensorFlow's rules:
    shapes by compatibility, specs recursively, the rest by equality)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and \
            all(_compatible(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_compatible(a[k], b[k]) for k in a)
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        return a.is_compatible_with(b)
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_compatible_with(b)
    return type(a) is type(b) and a == b


def _subtype(a, b):
    """Whether part `a` is a subtype of part `b` (shapes: `b` as or less specific)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and \
            all(_subtype(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_subtype(a[k], b[k]) for k in a)
    if isinstance(a, TensorShape) and isinstance(b, TensorShape):
        return b.rank is None or (a.rank == b.rank and all(
            y is None or x == y for x, y in zip(a.as_list(), b.as_list())))
    if isinstance(a, TypeSpec) and isinstance(b, TypeSpec):
        return a.is_subtype_of(b)
    return type(a) is type(b) and a == b


def _supertype(a, others):
    """The most specific part every one of `a`, `others` is a subtype of, or
    None where there is none."""
    if isinstance(a, (list, tuple)):
        if not all(type(o) is type(a) and len(o) == len(a) for o in others):
            return None
        parts = [_supertype(x, [o[i] for o in others]) for i, x in enumerate(a)]
        fails = any(p is None and x is not None for p, x in zip(parts, a))
        return None if fails else type(a)(parts)
    if isinstance(a, dict):
        if not all(isinstance(o, dict) and o.keys() == a.keys() for o in others):
            return None
        out = {k: _supertype(a[k], [o[k] for o in others]) for k in a}
        return None if any(out[k] is None and a[k] is not None for k in a) else out
    if isinstance(a, TensorShape):
        if not all(isinstance(o, TensorShape) for o in others):
            return None
        return a.most_specific_common_supertype(others)
    if isinstance(a, TypeSpec):
        return a.most_specific_common_supertype(others)
    return a if all(type(o) is type(a) and o == a for o in others) else None


@export("TypeSpec", "compat.v1.TypeSpec")
class TypeSpec:
    """The type of a value: describes the values it admits and how a
    composite value splits into component tensors.

    Subclasses define `value_type`, `_serialize()` and, for composite
    values, `_component_specs`, `_to_components(value)` and
    `_from_components(components)` (not defined here).
    """

    __slots__ = ()

    @property
    def value_type(self):
        """The Python type of the values this spec describes."""
        raise NotImplementedError(f"{type(self).__name__} does not define value_type")

    def _serialize(self):
        """The spec's parameters as a nested tuple (its constructor's arguments)."""
        raise NotImplementedError(f"{type(self).__name__} does not define _serialize")

    @classmethod
    def _deserialize(cls, serialization):
        """A spec of this class from `_serialize()`'s value."""
        return cls(*serialization)

    # `_component_specs`, `_to_components` and `_from_components` are not
    # defined here: rillflow tells composite specs by `hasattr` on them (a
    # DatasetSpec has none).

    def __init_subclass__(cls, **kwargs):
        # TensorFlow's TypeSpec is an ABC: a user's subclass missing one of
        # the abstract methods cannot be instantiated. rillflow's own specs
        # skip the check (and the ABC's slower isinstance).
        super().__init_subclass__(**kwargs)
        if any(b.__module__.split(".")[0] == "rillflow" and b is not TypeSpec
               for b in cls.__mro__):
            return   # rillflow's specs, and user classes built on them (ExtensionType's)
        missing = sorted(n for n in _ABSTRACT if getattr(cls, n, None) is None
                         or getattr(cls, n) is getattr(TypeSpec, n, None))
        if missing:
            def __new__(klass, *args, **kw):
                raise TypeError(f"Can't instantiate abstract class {klass.__name__} with "
                                f"abstract methods {', '.join(missing)}")
            cls.__new__ = staticmethod(__new__)
        elif "__new__" not in vars(cls) and any(
                "__new__" in vars(b) and b.__module__.split(".")[0] != "rillflow"
                for b in cls.__mro__[1:] if b is not object):
            cls.__new__ = staticmethod(lambda klass, *args, **kw: object.__new__(klass))

    # --- comparisons, on _serialize() --------------------------------------------------------
    def is_compatible_with(self, spec_or_value):
        """Whether `spec_or_value` (a spec, or a value whose spec is taken)
        is compatible with this spec: same class, compatible parameters."""
        other = spec_or_value
        if not isinstance(other, TypeSpec):
            other = getattr(other, "_type_spec", None)
            if other is None:
                return False
        return type(self) is type(other) and _compatible(self._serialize(), other._serialize())

    def is_subtype_of(self, other):
        """Whether every value of this spec is a value of `other`."""
        return type(self) is type(other) and _subtype(self._serialize(), other._serialize())

    def most_specific_common_supertype(self, others):
        """The most specific spec of which this one and each of `others` are
        subtypes, or None."""
        if any(type(o) is not type(self) for o in others):
            return None
        parts = _supertype(self._serialize(), [o._serialize() for o in others])
        return None if parts is None else self._deserialize(parts)

    def most_specific_compatible_type(self, other):
        """The most specific spec compatible with both (deprecated in TensorFlow).

        Raises:
          ValueError: if there is none.
        """
        out = self.most_specific_common_supertype([other])
        if out is None:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return out

    # --- Python protocol ---------------------------------------------------------------------
    def __eq__(self, other):
        if not _serializes(self):   # a spec without parameters: identity
            return self is other
        return type(other) is type(self) and \
            _nested_to_tuple(self._serialize()) == _nested_to_tuple(other._serialize())

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        if not _serializes(self):
            return object.__hash__(self)
        return hash((type(self).__name__, _hashable(self._serialize())))

    def __reduce__(self):
        return type(self)._deserialize, (self._serialize(),)

    def __repr__(self):
        if not _serializes(self):
            return object.__repr__(self)
        return "%s%r" % (type(self).__name__, self._serialize())

    def _trace_key(self):
        """rillflow's trace key: the class and parameters (shapes and dtypes)."""
        return (type(self).__qualname__, _hashable(self._serialize()))


def _hashable(v):
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _hashable(x)) for k, x in sorted(v.items()))
    if isinstance(v, TensorShape):
        return ("shape", None if v.rank is None else tuple(v.as_list()))
    if isinstance(v, _dtypes.DType):
        return ("dtype", v.name)
    return v


_ABSTRACT = ("_component_specs", "_from_components", "_serialize", "_to_components",
             "value_type")


def _serializes(spec):
    """Whether the spec's class defines `_serialize` (rillflow's own specs
    that compare by their own `__eq__` may not)."""
    return type(spec)._serialize is not TypeSpec._serialize
