"""`tf.experimental.ExtensionType`: user-defined composite tensors declared
by annotated fields, and their generated `Spec` classes.

A subclass's annotations are its fields (base classes' first, in order);
values are converted to the annotations (extension_type_fields.py). After
the constructor (the generated one, or the class's own, which may assign
the fields) the fields are checked, `__validate__` runs, and the value is
frozen. A value is a composite tensor: its components are the tensors of
its fields, depth first (nested extension values, tuples, mappings by
sorted key), so tf.nest (expand_composites), tf.function arguments and
results, and dispatch (framework/dispatch.py) treat it as TensorFlow does.
"""
import inspect

import numpy as np

from .api_export import export
from .component_batching import slice_iter, stack_components
from .tensor_shape import TensorShape
from .extension_type_fields import ImmutableDict, convert_field
from .tensor import EagerTensor, Tensor
from .tensor_spec import TensorSpec
from .type_spec import TypeSpec
from .convert import convert_to_tensor
from .type_spec import TypeSpec

__all__ = ["ExtensionType", "BatchableExtensionType", "ExtensionTypeSpec",
           "BatchableExtensionTypeSpec", "registered_name", "lookup_registered"]

_RESERVED = ("_tf_extension_type_fields", "_tf_frozen")

# Classes by the name SavedModel records for them: a class body's own
# `__name__ = "pkg.Type"` (TensorFlow registers `Type.Spec` under that name).
_REGISTERED = {}


def registered_name(cls):
    """The name under which `cls` (an ExtensionType) is saved, or None when
    its class body sets no `__name__` (TensorFlow cannot save it then)."""
    name = cls.__dict__.get("__name__")
    return name if isinstance(name, str) and _REGISTERED.get(name) is cls else None


def lookup_registered(name):
    """The ExtensionType class registered under `name`, or None."""
    return _REGISTERED.get(name)


def _walk(value, leaf):
    """`value` with each tensor / extension value replaced by `leaf(x)`
    (tuples and mappings rebuilt)."""
    if isinstance(value, (Tensor, ExtensionType)) or isinstance(value, TensorSpec) or \
            isinstance(value, ExtensionTypeSpec):
        return leaf(value)
    if isinstance(value, tuple):
        return tuple(_walk(v, leaf) for v in value)
    if isinstance(value, ImmutableDict):
        return ImmutableDict((k, _walk(value[k], leaf)) for k in value)
    return value


def _flat(value, out):
    """Appends the component tensors (or component specs) of a field value."""
    if isinstance(value, (Tensor, TensorSpec)):
        out.append(value)
    elif isinstance(value, ExtensionType):
        out.extend(value._to_components())
    elif isinstance(value, ExtensionTypeSpec):
        out.extend(value._component_specs)
    elif isinstance(value, tuple):
        for v in value:
            _flat(v, out)
    elif isinstance(value, ImmutableDict):
        for k in sorted(value, key=repr):
            _flat(value[k], out)
    return out


def _fill(template, it):
    """`template` (field values or field specs) with its tensors / specs
    replaced by the next items of `it`."""
    if isinstance(template, (Tensor, TensorSpec)):
        return next(it)
    if isinstance(template, ExtensionType):
        n = len(template._to_components())
        return template._from_components([next(it) for _ in range(n)])
    if isinstance(template, ExtensionTypeSpec):
        n = len(template._component_specs)
        return template._from_components([next(it) for _ in range(n)])
    if isinstance(template, tuple):
        return tuple(_fill(v, it) for v in template)
    if isinstance(template, ImmutableDict):
        items = {k: _fill(template[k], it) for k in sorted(template, key=repr)}
        return ImmutableDict((k, items[k]) for k in template)
    return template


def _spec_of(v):
    if isinstance(v, Tensor):
        return TensorSpec(v.shape, v.dtype)
    return v._type_spec


def _key_of(v):
    """A hashable form of a field spec (for Spec equality and trace keys)."""
    if isinstance(v, TensorSpec):
        s = v.shape
        return ("T", v.dtype, None if s.rank is None else tuple(s.as_list()))
    if isinstance(v, ExtensionTypeSpec):
        return v._trace_key()
    if isinstance(v, tuple):
        return tuple(_key_of(x) for x in v)
    if isinstance(v, ImmutableDict):
        return ("M", tuple((k, _key_of(v[k])) for k in sorted(v, key=repr)))
    return ("P", type(v), v)


class _Field:
    __slots__ = ("name", "annotation", "default")

    def __init__(self, name, annotation, default):
        self.name, self.annotation, self.default = name, annotation, default


_NO_DEFAULT = inspect.Parameter.empty


def _collect_fields(cls):
    fields = {}
    for klass in reversed(cls.__mro__):
        ann = klass.__dict__.get("__annotations__", {})
        for name, annotation in ann.items():
            if name.startswith("__") or name in _RESERVED:
                continue
            default = klass.__dict__.get(name, _NO_DEFAULT)
            fields[name] = _Field(name, annotation, default)
    return list(fields.values())


class ExtensionType:
    """Base class of user-defined composite tensors
    (`tf.experimental.ExtensionType`): declare fields with type annotations.

        class MaskedTensor(tf.experimental.ExtensionType):
          values: tf.Tensor
          mask: tf.Tensor

    The generated constructor takes the fields (those with defaults last);
    values are converted to the annotation (tensors with convert_to_tensor,
    lists to tuples, dicts to immutable mappings). Define `__validate__` to
    check a new value. Values are immutable, have a default `__repr__` and
    `__eq__`, a `MyType.Spec` type spec, and work with tf.nest
    (`expand_composites=True`), tf.function and dispatch.
    """

    _is_composite_tensor = True
    _tf_extension_type_fields = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__module__ == __name__:
            return  # BatchableExtensionType: a base, not a user's type
        fields = _collect_fields(cls)
        cls._tf_extension_type_fields = tuple(fields)
        own_init = cls.__dict__.get("__init__")
        if own_init is None:
            params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            params += [inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                         default=f.default) for f in fields]
            sig = inspect.Signature(params)

            def __init__(self, *args, **kwargs):
                bound = sig.bind(self, *args, **kwargs)
                bound.apply_defaults()
                for f in fields:
                    object.__setattr__(self, f.name, bound.arguments[f.name])
                self._tf_finish()
            __init__.__signature__ = sig
            __init__.__qualname__ = cls.__qualname__ + ".__init__"
            cls.__init__ = __init__
        else:
            def __init__(self, *args, **kwargs):
                object.__setattr__(self, "_tf_frozen", False)
                own_init(self, *args, **kwargs)
                self._tf_finish()
            __init__.__wrapped__ = own_init
            cls.__init__ = __init__
        _add_spec_class(cls)
        name = cls.__dict__.get("__name__")
        if isinstance(name, str):
            old = _REGISTERED.get(name)
            if old is not None:
                # As TensorFlow's type spec registry: one class per name.
                raise ValueError(f"Name {name}.Spec has already been registered for class "
                                 f"{old.__module__}.{old.__qualname__}.Spec.")
            _REGISTERED[name] = cls

    def _tf_finish(self):
        """Converts the fields, runs `__validate__`, freezes the value."""
        for f in type(self)._tf_extension_type_fields:
            try:
                value = self.__dict__[f.name]
            except KeyError:
                raise ValueError(f"Field {f.name} was not set by the constructor of "
                                 f"{type(self).__name__}.") from None
            object.__setattr__(self, f.name, convert_field(value, f.annotation, f.name))
        object.__setattr__(self, "_tf_frozen", True)
        validate = getattr(self, "__validate__", None)
        if validate is not None:
            validate()

    def __setattr__(self, name, value):
        if self.__dict__.get("_tf_frozen", True):
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom "
                                 "constructor of ExtensionType.")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if self.__dict__.get("_tf_frozen", True):
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom "
                                 "constructor of ExtensionType.")
        object.__delattr__(self, name)

    def _fields(self):
        return [(f.name, self.__dict__[f.name]) for f in type(self)._tf_extension_type_fields]

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join(f"{n}={v!r}" for n, v in self._fields()))

    def __eq__(self, other):
        """Whether both have the same type and equal fields: a bool (a scalar
        bool tensor when the values have tensors, as TensorFlow's). Only
        eager values are compared."""
        if type(other) is not type(self):
            return False
        if self._type_spec != other._type_spec:
            return False
        a, b = self._to_components(), other._to_components()
        if not all(isinstance(x, EagerTensor) for x in a + b):
            raise NotImplementedError("ExtensionType.__eq__ of symbolic values")
        eq = all(np.array_equal(x._numpy(), y._numpy()) for x, y in zip(a, b))
        return convert_to_tensor(eq) if a else eq

    def __ne__(self, other):
        eq = self == other
        return (not eq) if isinstance(eq, bool) else convert_to_tensor(not bool(eq._numpy()))

    __hash__ = None  # values hold tensors: not hashable, as in TensorFlow

    # -- composite protocol ----------------------------------------------------
    @property
    def _type_spec(self):
        spec = type(self).Spec.__new__(type(self).Spec)
        spec._tf_set({n: _walk(v, _spec_of) for n, v in self._fields()})
        return spec

    _arg_spec = _type_spec

    def _component_specs(self):
        return self._type_spec._component_specs

    def _to_components(self):
        out = []
        for _, v in self._fields():
            _flat(v, out)
        return out

    def _from_components(self, components):
        it = iter(components)
        return _from_fields(type(self), {n: _fill(v, it) for n, v in self._fields()})

    def _trace_key(self):
        return self._type_spec._trace_key()


def _add_spec_class(cls):
    """Builds `cls.Spec` (TensorFlow's `_add_type_spec`): a subclass of the
    (batchable) spec base holding what the class's own nested `class Spec`
    defines (methods, properties, a constructor assigning the fields)."""
    spec_dict = {"value_type": cls, "__module__": cls.__module__}
    user_spec = cls.__dict__.get("Spec")
    names = {f.name for f in cls._tf_extension_type_fields}
    if user_spec is not None:
        for name, value in user_spec.__dict__.items():
            if name in _RESERVED:
                raise ValueError(f"TypeSpec {cls.__qualname__}.Spec uses reserved name "
                                 f"'{name}'.")
            if name in names:
                raise ValueError(f"TypeSpec {cls.__qualname__}.Spec defines a variable "
                                 f"'{name}' which shadows a field in {cls.__qualname__}")
            if name not in ("__module__", "__dict__", "__weakref__", "__qualname__"):
                spec_dict[name] = value
    if "__init__" in spec_dict:
        spec_dict["__init__"] = _wrap_spec_constructor(spec_dict["__init__"])
    base = BatchableExtensionTypeSpec if issubclass(cls, BatchableExtensionType) \
        else ExtensionTypeSpec
    spec = type(cls.__name__ + ".Spec", (base,), spec_dict)
    spec.__qualname__ = cls.__qualname__ + ".Spec"
    cls.Spec = spec


def _wrap_spec_constructor(user_init):
    """A user's `Spec.__init__` (which assigns the fields as attributes)
    followed by the check that every field was set."""
    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "_tf_fields", {})
        object.__setattr__(self, "_tf_building", True)
        user_init(self, *args, **kwargs)
        object.__setattr__(self, "_tf_building", False)
        fields = {}
        for f in self.value_type._tf_extension_type_fields:
            if f.name not in self._tf_fields:
                raise ValueError(f"Field {f.name} was not set by the constructor of "
                                 f"{type(self).__qualname__}.")
            fields[f.name] = self._tf_fields[f.name]
        self._tf_set(fields)
    __init__.__wrapped__ = user_init
    return __init__


def _from_fields(cls, values):
    """A value of `cls` holding `values` as they are (no conversion, no
    `__validate__`): rebuilt from components."""
    obj = cls.__new__(cls)
    for name, v in values.items():
        object.__setattr__(obj, name, v)
    object.__setattr__(obj, "_tf_frozen", True)
    return obj


class ExtensionTypeSpec(TypeSpec):
    """The type spec of an ExtensionType (`MyType.Spec`): the fields with
    each tensor replaced by its TensorSpec and each extension value by its
    spec (`MyType.Spec(values=tf.TensorSpec(...), mask=...)`)."""

    value_type = None

    def __init__(self, *args, **kwargs):
        """Takes one spec per field, positionally or by name (TensorFlow's
        generated spec constructor).

        Raises:
          TypeError: for missing or repeated fields (Python's binding
            message) and for a tensor field whose spec is not a TensorSpec.
        """
        fields = self.value_type._tf_extension_type_fields
        sig = inspect.Signature([inspect.Parameter(f.name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                 for f in fields])
        bound = sig.bind(*args, **kwargs).arguments
        for f in fields:
            ann = f.annotation
            if isinstance(ann, type) and issubclass(ann, Tensor) and \
                    not isinstance(bound[f.name], TensorSpec):
                raise TypeError(f"{f.name}: expected a TensorSpec, got "
                                f"{type(bound[f.name]).__name__!r}")
        self._tf_set({f.name: bound[f.name] for f in fields})

    def _tf_set(self, fields):
        object.__setattr__(self, "_tf_fields", dict(fields))

    def __getattr__(self, name):
        fields = self.__dict__.get("_tf_fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if self.__dict__.get("_tf_building"):  # inside a user's Spec.__init__
            names = [f.name for f in self.value_type._tf_extension_type_fields]
            if name in names:
                self._tf_fields[name] = value
            else:
                object.__setattr__(self, name, value)
            return
        raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom "
                             "constructor of ExtensionTypeSpec.")

    def __repr__(self):
        return "%s(%s)" % (type(self).__qualname__,
                           ", ".join(f"{n}={v!r}" for n, v in self._tf_fields.items()))

    def _trace_key(self):
        return (self.value_type, tuple((n, _key_of(v)) for n, v in self._tf_fields.items()))

    def __eq__(self, other):
        return type(other) is type(self) and self._trace_key() == other._trace_key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._trace_key())

    @property
    def _component_specs(self):
        out = []
        for v in self._tf_fields.values():
            _flat(v, out)
        return out

    def _to_components(self, value=None):
        """The components of `value`; without one, the component specs."""
        return list(self._component_specs) if value is None else value._to_components()

    def _from_components(self, components):
        it = iter(components)
        return _from_fields(self.value_type,
                            {n: _fill(v, it) for n, v in self._tf_fields.items()})

    @property
    def _arg_spec(self):
        return self

    def _check_value(self, value, specs_ok=False):
        """Raises TypeError unless `value` (or with `specs_ok`, a spec) fits."""
        other = value if (specs_ok and isinstance(value, ExtensionTypeSpec)) else \
            getattr(value, "_type_spec", None)
        if not isinstance(other, ExtensionTypeSpec) or not self.is_compatible_with(other):
            raise TypeError("Can not cast %r to %r" % (value, self))

    def is_compatible_with(self, spec_or_value):
        """Whether a value (or spec) of the same type has compatible fields."""
        other = spec_or_value
        if isinstance(other, ExtensionType):
            other = other._type_spec
        if type(other) is not type(self):
            return False
        return _compatible(self._tf_fields, other._tf_fields)

    def is_subtype_of(self, other):
        """Whether every value of this spec also matches `other`."""
        return type(other) is type(self) and _compatible(other._tf_fields, self._tf_fields,
                                                         subtype=True)

    def most_specific_common_supertype(self, others):
        """The most specific spec that values of this spec and of every one
        of `others` match, field by field (shapes relaxed, as TensorFlow:
        TensorSpecs and TensorShape fields lose the dimensions that differ,
        nested specs recurse, other fields must be equal), or None."""
        if any(type(o) is not type(self) for o in others):
            return None
        fields = {}
        for n, v in self._tf_fields.items():
            common = _common_supertype(v, [o._tf_fields[n] for o in others])
            if common is _NO_COMMON:
                return None
            fields[n] = common
        spec = type(self).__new__(type(self))
        spec._tf_set(fields)
        return spec


_NO_COMMON = object()


def _common_supertype(value, others):
    """The common supertype of field specs `value` and `others`, or
    _NO_COMMON."""
    if isinstance(value, (TensorSpec, ExtensionTypeSpec)):
        common = value.most_specific_common_supertype(others)
        return _NO_COMMON if common is None else common
    if isinstance(value, TensorShape):
        if not all(isinstance(o, TensorShape) for o in others):
            return _NO_COMMON
        return value.most_specific_common_supertype(others)
    if isinstance(value, tuple):
        if not all(isinstance(o, tuple) and len(o) == len(value) for o in others):
            return _NO_COMMON
        parts = [_common_supertype(v, [o[i] for o in others]) for i, v in enumerate(value)]
        return _NO_COMMON if any(p is _NO_COMMON for p in parts) else tuple(parts)
    if isinstance(value, ImmutableDict):
        if not all(isinstance(o, ImmutableDict) and set(o) == set(value) for o in others):
            return _NO_COMMON
        parts = {k: _common_supertype(value[k], [o[k] for o in others]) for k in value}
        return _NO_COMMON if any(p is _NO_COMMON for p in parts.values()) else \
            ImmutableDict(parts)
    return value if all(_key_of(o) == _key_of(value) for o in others) else _NO_COMMON


def _compatible(a, b, subtype=False):
    """Whether field specs `a` and `b` are compatible (with `subtype`: every
    value of `b` matches `a`)."""
    if isinstance(a, TensorSpec):
        if not isinstance(b, TensorSpec) or a.dtype is not b.dtype:
            return False
        return b.shape.is_subtype_of(a.shape) if subtype else \
            a.shape.is_compatible_with(b.shape)
    if isinstance(a, ExtensionTypeSpec):
        return b.is_subtype_of(a) if subtype else a.is_compatible_with(b)
    if isinstance(a, TensorShape):  # a TensorShape field relaxes as a shape
        if not isinstance(b, TensorShape):
            return False
        return b.is_subtype_of(a) if subtype else a.is_compatible_with(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_compatible(a[k], b[k], subtype) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(
            _compatible(x, y, subtype) for x, y in zip(a, b))
    if isinstance(a, ImmutableDict):
        return isinstance(b, ImmutableDict) and set(a) == set(b) and all(
            _compatible(a[k], b[k], subtype) for k in a)
    return a == b


class BatchableExtensionType(ExtensionType):
    """An ExtensionType whose values can be batched and unbatched (tf.data
    `batch`, `unbatch`, `from_tensor_slices`): every tensor field gains or
    loses the leading dimension (`tf.experimental.BatchableExtensionType`)."""


class BatchableExtensionTypeSpec(ExtensionTypeSpec):
    """The spec of a BatchableExtensionType (`tf.experimental.BatchableExtensionTypeSpec`):
    batching adds a leading dimension to every tensor field (tf.data)."""

    def _map_specs(self, fn, shape_fn):
        """This spec with `fn` applied to each nested spec and `shape_fn` to
        each TensorShape field (TensorFlow's default batch encoder batches
        both)."""
        def one(v):
            if isinstance(v, TensorShape):
                return shape_fn(v)
            if isinstance(v, tuple):
                return tuple(one(x) for x in v)
            if isinstance(v, ImmutableDict):
                return ImmutableDict((k, one(v[k])) for k in v)
            return _walk(v, fn)
        spec = type(self).__new__(type(self))
        spec._tf_set({n: one(v) for n, v in self._tf_fields.items()})
        return spec

    def _batch(self, batch_size):
        """The spec of a batch of `batch_size` values (None: unknown)."""
        def add(sp):
            if isinstance(sp, TensorSpec):
                return TensorSpec(TensorShape([batch_size]).concatenate(sp.shape), sp.dtype)
            return sp._batch(batch_size)
        return self._map_specs(add, lambda s: TensorShape([batch_size]).concatenate(s))

    def _unbatch(self):
        """The spec of the rows of a value of this spec.

        Raises:
          ValueError: for a field of rank 0.
        """
        def drop(sp):
            if isinstance(sp, TensorSpec):
                if sp.shape.rank == 0:
                    raise ValueError("Unbatching a tensor is only supported for rank >= 1")
                return TensorSpec(sp.shape[1:], sp.dtype)
            return sp._unbatch()

        def drop_shape(s):
            if s.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            return s[1:]
        return self._map_specs(drop, drop_shape)

    def _batch_numpy(self, rows):
        """The components (NumPy) of the batch of values with components `rows`."""
        return [stack_components(rows, i) for i in range(len(rows[0]))]

    def _unbatch_numpy(self, components):
        """The components (NumPy) of each row of a value with `components`."""
        cols = [list(slice_iter(c)) for c in components]
        return [list(r) for r in zip(*cols)]


export("experimental.ExtensionType")(ExtensionType)
export("experimental.BatchableExtensionType")(BatchableExtensionType)
export("experimental.ExtensionTypeSpec")(ExtensionTypeSpec)
export("experimental.BatchableExtensionTypeSpec")(BatchableExtensionTypeSpec)

