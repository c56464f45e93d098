"""The spec of a `tf.linalg.LinearOperator` as a composite tensor: its class,
its non-tensor parameters, and the specs of its tensor parameters and of the
operators it holds (their own specs, recursively). Components are the tensors
in a fixed order (parameters by name); `_from_components` calls the class
with the parameters rebuilt, as TensorFlow's LinearOperator spec does.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework.tensor import Tensor
from ...framework.tensor_spec import TensorSpec
from ...framework.type_spec import TypeSpec


class LinearOperatorSpec(TypeSpec):
    """The spec of a LinearOperator: its class, its non-tensor parameters and
    the specs of its tensor (and operator) parameters."""

    __slots__ = ("_cls", "_params")

    def __init__(self, cls, params):
        self._cls = cls
        self._params = params

    @property
    def value_type(self):
        """The operator class."""
        return self._cls

    def _serialize(self):
        return (self._cls, tuple(sorted(self._params.items(), key=lambda kv: kv[0])))

    def _trace_key(self):
        return ("LinearOperator", self._cls.__name__, _key(self._params))

    def __eq__(self, other):
        return type(other) is type(self) and self._trace_key() == other._trace_key()

    def __hash__(self):
        return hash(self._trace_key())

    def __repr__(self):
        return f"{self._cls.__name__}Spec({self._params!r})"

    @property
    def _component_specs(self):
        out = []
        _flat(self._params, out)
        return out

    def _to_components(self, value=None):
        return list(self._component_specs) if value is None else value._to_components()

    def _from_components(self, components):
        it = iter(components)
        return self._cls(**_fill(self._params, it))

    @property
    def _arg_spec(self):
        return self

    def _check_value(self, value, specs_ok=False):
        other = value if specs_ok and isinstance(value, LinearOperatorSpec) else \
            getattr(value, "_type_spec", None)
        if not isinstance(other, LinearOperatorSpec) or other._cls is not self._cls:
            raise TypeError(f"Can not cast {value!r} to {self!r}")

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value
        if getattr(other, "_is_linear_operator", False):
            other = other._type_spec
        return isinstance(other, LinearOperatorSpec) and other._cls is self._cls and \
            _compatible(self._params, other._params)

    def is_subtype_of(self, other):
        return self.is_compatible_with(other)

    def most_specific_common_supertype(self, others):
        return self if all(self == o for o in others) else None


def _key(v):
    if isinstance(v, dict):
        return tuple((k, _key(x)) for k, x in sorted(v.items(), key=lambda kv: kv[0]))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__,) + tuple(_key(x) for x in v)
    if isinstance(v, TensorSpec):
        return ("T", v.dtype, None if v.shape.rank is None else tuple(v.shape.as_list()))
    if isinstance(v, LinearOperatorSpec):
        return v._trace_key()
    if isinstance(v, D.DType):
        return ("dtype", v.name)
    if isinstance(v, np.ndarray):
        return ("nd", v.dtype.str, v.shape, v.tobytes())
    return v


def _compatible(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and \
            all(_compatible(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and \
            all(_compatible(x, y) for x, y in zip(a, b))
    if isinstance(a, TensorSpec):
        return isinstance(b, TensorSpec) and a.dtype == b.dtype and \
            a.shape.is_compatible_with(b.shape)
    if isinstance(a, LinearOperatorSpec):
        return a.is_compatible_with(b)
    return _key(a) == _key(b)


def _spec_of(v):
    if getattr(v, "_is_linear_operator", False):
        return v._type_spec
    if isinstance(v, Tensor):
        return TensorSpec(v.shape, v.dtype)
    if isinstance(v, dict):
        return {k: _spec_of(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(_spec_of(x) for x in v)
    return v


def _flat(v, out):
    if isinstance(v, dict):
        for k in sorted(v):
            _flat(v[k], out)
    elif isinstance(v, (list, tuple)):
        for x in v:
            _flat(x, out)
    elif isinstance(v, LinearOperatorSpec):
        out.extend(v._component_specs)
    elif getattr(v, "_is_linear_operator", False):
        out.extend(v._to_components())
    elif isinstance(v, (TensorSpec, Tensor)):
        out.append(v)


def _fill(v, it):
    if isinstance(v, dict):
        return {k: _fill(v[k], it) for k in sorted(v)}
    if isinstance(v, (list, tuple)):
        return type(v)(_fill(x, it) for x in v)
    if isinstance(v, LinearOperatorSpec):
        return v._from_components([next(it) for _ in v._component_specs])
    if isinstance(v, TensorSpec):
        return next(it)
    return v
