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


# --- batch slicing: `operator[key]` --------------------------------------------------

def _adapt_key(key, param_batch, op_batch_rank):
    """The key for a parameter whose batch shape `param_batch` broadcasts
    against the operator's (of rank op_batch_rank): entries for dimensions the
    parameter lacks are dropped, and size-1 dimensions are kept (index 0 for
    an integer, the whole dimension for a slice)."""
    offset = op_batch_rank - len(param_batch)
    out = []
    for i, k in enumerate(key):
        if i < offset:
            continue
        if param_batch[i - offset] == 1:
            out.append(slice(None) if isinstance(k, slice) else 0)
        else:
            out.append(k)
    return tuple(out)


def _slice_value(value, ndims, key, op_batch_rank):
    if value is None:
        return None
    if getattr(value, "_is_linear_operator", False):
        sub = _adapt_key(key, value.batch_shape.as_list(), op_batch_rank)
        return value[sub] if sub else value
    if isinstance(value, (list, tuple)):
        return type(value)(_slice_value(v, ndims, key, op_batch_rank) for v in value)
    from ...framework.convert import convert_to_tensor
    from ..core.slicing import getitem
    t = convert_to_tensor(value)
    s = t.shape.as_list()
    sub = _adapt_key(key, s[:len(s) - ndims], op_batch_rank)
    return getitem(t, sub + (Ellipsis,)) if sub else t


def slice_operator(op, key):
    """op[key]: the operator of the batch members `key` selects (integers and
    slices over the batch dimensions), of the same class, its parameters
    sliced where they have batch dimensions.

    Raises:
      ValueError: more indices than batch dimensions, or unsupported entries.
    """
    key = key if isinstance(key, tuple) else (key,)
    if key and key[-1] is Ellipsis:
        key = key[:-1]
    if any(k is Ellipsis or k is None or not isinstance(k, (int, np.integer, slice))
           for k in key):
        raise ValueError("LinearOperator batch slicing takes integers and slices "
                         f"(optionally a final Ellipsis); got {key}")
    rank = op.batch_shape.rank
    if rank is None or len(key) > rank:
        raise ValueError(f"Too many indices ({len(key)}) for the batch shape "
                         f"{op.batch_shape} of {op.name}")
    params = dict(op.parameters)
    for name, ndims in op._experimental_parameter_ndims_to_matrix_ndims.items():
        value = getattr(op, "_" + name, params.get(name))
        params[name] = _slice_value(value, ndims, key, rank)
    if params.get("batch_shape") is not None:
        params["batch_shape"] = list(np.empty(op.batch_shape.as_list())[key].shape)
    return type(op)(**params)
