"""Trace keys: what about a call's arguments selects (or forces) a trace.

As in TensorFlow: tensors (and NumPy arrays) by dtype and shape, variables
by dtype and shape, Python scalars and strings by value (with Python
equality, so 1, 1.0 and True are one key), lists/tuples/dicts/namedtuples
by structure, any other object by identity (held weakly).
"""
import weakref

import numpy as np

from ..framework import dtypes as D
from ..framework.core_types import PlaceholderContext, TracingContext
from ..framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ..framework.tensor_spec import TensorSpec
from ..framework.tensor_shape import TensorShape

__all__ = ["make_key", "is_subtype", "describe_difference", "is_tensor_leaf",
           "placeholder_values"]

_PY_SCALARS = (bool, int, float, complex, str, bytes, type(None))
TRACING_CONTEXT = TracingContext()


class _ObjectKey:
    """Identity key of an arbitrary object; dead once the object is collected."""

    __slots__ = ("_ref", "_id", "__weakref__")

    def __init__(self, obj):
        self._id = id(obj)
        try:
            self._ref = weakref.ref(obj)
        except TypeError:  # not weakly referenceable: keep it alive
            self._ref = lambda o=obj: o

    def alive(self):
        """Whether the object still exists."""
        return self._ref() is not None

    def __eq__(self, other):
        return isinstance(other, _ObjectKey) and self._id == other._id and self.alive() \
            and other.alive()

    def __hash__(self):
        return self._id

    def __repr__(self):
        obj = self._ref()
        return "<object %s>" % (type(obj).__name__ if obj is not None else "(collected)")


def is_tensor_leaf(v):
    """Whether an argument leaf is passed to the graph as a value (not baked in)."""
    return (isinstance(v, (Tensor, TensorSpec, np.ndarray, np.generic))
            or hasattr(v, "_storage") or hasattr(v, "_component_specs"))


def leaf_key(v):
    """The key of one argument leaf."""
    cls = v.__class__
    if cls is EagerTensor:
        return ("T", v.dtype, v._v.shape)
    if isinstance(v, (SymbolicTensor, TensorSpec)):
        s = v.shape
        return ("T", v.dtype, None if s.rank is None else tuple(s.as_list()))
    if isinstance(v, (np.ndarray, np.generic)):
        return ("T", D.from_numpy(v.dtype), v.shape)
    if hasattr(v, "_storage") and hasattr(v, "assign"):
        s = v.shape
        return ("V", v.dtype, None if s.rank is None else tuple(s.as_list()))
    if isinstance(v, _PY_SCALARS):
        return ("P", v)
    custom = getattr(v, "_trace_key", None)
    if custom is not None:
        return ("C", custom())
    tracing_type = getattr(type(v), "__tf_tracing_type__", None)
    if tracing_type is not None:
        # The object's own TraceType (tf.types.experimental.SupportsTracingProtocol).
        return ("TT", tracing_type(v, TRACING_CONTEXT))
    try:
        hash(v)
        hashable = True
    except TypeError:
        hashable = False
    if isinstance(v, (TensorShape,)) or (hashable and type(v).__hash__ is not object.__hash__
                                         and type(v).__eq__ is not object.__eq__):
        return ("H", v)
    if not hashable:
        # An unhashable object (a mutable dataclass, a set) could change
        # between calls unnoticed, so TensorFlow refuses it as an argument.
        raise TypeError(f"Could not generate a generic TraceType for {v!r}.Please verify that "
                        f"it is immutable/hashable. Otherwise, consider implementing the "
                        f"Tracing Protocol for it.")
    return ("O", _ObjectKey(v))


def placeholder_values(value):
    """`value` with each object that gives its own TraceType replaced by that
    type's `placeholder_value`: what the Python function receives while
    tracing, as in TensorFlow. Containers without such objects are returned
    as they are."""
    if isinstance(value, (list, tuple, dict)):
        items = list(value.values()) if isinstance(value, dict) else list(value)
        new = [placeholder_values(x) for x in items]
        if all(a is b for a, b in zip(items, new)):
            return value
        if isinstance(value, dict):
            return type(value)(zip(value.keys(), new))
        return type(value)(*new) if hasattr(value, "_fields") else type(value)(new)
    tracing_type = getattr(type(value), "__tf_tracing_type__", None)
    if tracing_type is None or is_tensor_leaf(value) or hasattr(value, "_trace_key"):
        return value
    return tracing_type(value, TRACING_CONTEXT).placeholder_value(PlaceholderContext())


def make_key(value):
    """The key of an argument (any nesting)."""
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return ("L" if isinstance(value, list) else "U",
                tuple(make_key(x) for x in value))
    if isinstance(value, tuple):  # namedtuple
        return ("N", type(value), tuple(make_key(x) for x in value))
    if isinstance(value, dict):
        keys = sorted(value, key=repr)
        return ("D", tuple(keys), tuple(make_key(value[k]) for k in keys))
    return leaf_key(value)


def _shape_subtype(specific, general):
    if general is None:
        return True
    if specific is None or len(specific) != len(general):
        return False
    return all(g is None or g == s for s, g in zip(specific, general))


def is_subtype(key, general):
    """Whether every call with `key` can use a trace made for `general`."""
    if key == general:
        return True
    if not isinstance(key, tuple) or not isinstance(general, tuple) or not key or not general:
        return False
    if key[0] != general[0] or len(key) != len(general):
        return False
    tag = key[0]
    if tag in ("T", "V"):
        return key[1] is general[1] and _shape_subtype(key[2], general[2])
    if tag in ("L", "U"):
        return len(key[1]) == len(general[1]) and all(
            is_subtype(a, b) for a, b in zip(key[1], general[1]))
    if tag == "N":
        return key[1] is general[1] and all(is_subtype(a, b) for a, b in zip(key[2], general[2]))
    if tag == "D":
        return key[1] == general[1] and all(is_subtype(a, b) for a, b in zip(key[2], general[2]))
    if tag == "A":  # a whole argument list
        return len(key[1]) == len(general[1]) and all(
            is_subtype(a, b) for a, b in zip(key[1], general[1]))
    if tag == "C" and _is_shaped(key[1]) and _is_shaped(general[1]):
        # A composite keyed by (kind, dtype, dense shape): a SparseTensor.
        return key[1][:2] == general[1][:2] and _shape_subtype(key[1][2], general[1][2])
    if tag == "TT":
        return bool(key[1].is_subtype_of(general[1]))
    return key == general


def _is_shaped(custom):
    """Whether a custom key is (kind, dtype, shape), as a SparseTensor's is."""
    return isinstance(custom, tuple) and len(custom) == 3 and custom[0] == "SparseTensor"


def _relax_shape(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def relax(key, other):
    """The most specific key that both `key` and `other` are subtypes of, or None."""
    if key == other:
        return key
    if not isinstance(key, tuple) or not isinstance(other, tuple) or not key or not other \
            or key[0] != other[0] or len(key) != len(other):
        return None
    tag = key[0]
    if tag in ("T", "V"):
        if key[1] is not other[1]:
            return None
        return (tag, key[1], _relax_shape(key[2], other[2]))
    if tag == "C" and _is_shaped(key[1]) and _is_shaped(other[1]):
        if key[1][:2] != other[1][:2]:
            return None
        return ("C", key[1][:2] + (_relax_shape(key[1][2], other[1][2]),))
    if tag == "TT":
        common = key[1].most_specific_common_supertype([other[1]])
        return None if common is None else ("TT", common)
    if tag in ("L", "U", "A"):
        if len(key[1]) != len(other[1]):
            return None
        parts = [relax(a, b) for a, b in zip(key[1], other[1])]
        return None if any(p is None for p in parts) else (tag, tuple(parts))
    if tag == "D":
        if key[1] != other[1]:
            return None
        parts = [relax(a, b) for a, b in zip(key[2], other[2])]
        return None if any(p is None for p in parts) else ("D", key[1], tuple(parts))
    if tag == "N":
        if key[1] is not other[1]:
            return None
        parts = [relax(a, b) for a, b in zip(key[2], other[2])]
        return None if any(p is None for p in parts) else ("N", key[1], tuple(parts))
    return None


def describe(key):
    """A short description of a leaf key, for messages."""
    tag = key[0]
    if tag in ("T", "V"):
        shape = "<unknown>" if key[2] is None else str(TensorShape(list(key[2])))
        return "%s %s %s" % ("tensor" if tag == "T" else "variable", key[1].name, shape)
    if tag == "P":
        return "Python value %r" % (key[1],)
    if tag == "O":
        return "object %r" % (key[1],)
    if tag == "TT":
        return "trace type %r" % (key[1],)
    return "structure %s" % tag


def describe_difference(names, new_key, old_key):
    """Why `new_key` needed a new trace compared with `old_key`: names the
    first argument that differs and how."""
    new_args, old_args = new_key[1], old_key[1]
    for i, (a, b) in enumerate(zip(new_args, old_args)):
        if a != b:
            name = names[i] if i < len(names) else "#%d" % i
            if a[0] in ("T", "V") and b[0] == a[0]:
                if a[1] is not b[1]:
                    return "argument %r changed dtype from %s to %s" % (name, b[1].name,
                                                                       a[1].name)
                return "argument %r changed shape from %s to %s" % (
                    name, describe(b).split()[-1], describe(a).split()[-1])
            if a[0] == "P" and b[0] == "P":
                return "argument %r changed Python value from %r to %r" % (name, b[1], a[1])
            return "argument %r changed from %s to %s" % (name, describe(b), describe(a))
    return "the arguments' structure changed"
