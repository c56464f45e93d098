"""Saving the composite tensors that functions take and return: ExtensionType
values and specs, and RaggedTensors, in a SavedModel's function signatures
and structured outputs.

A spec is written as data: an ExtensionType's by the name its class body
registers (`__name__ = "pkg.Type"`, as TensorFlow requires) with its field
specs and Python fields, a RaggedTensorSpec by its shape, dtype, ragged rank
and row-splits dtype. A value (a traced argument) is its spec and its
component tensors. Loading finds the class by that name; an unregistered
name gives an anonymous extension type with the saved fields, with
TensorFlow's warning. Nothing is unpickled: the class must be imported.
"""
import typing
import warnings

from ..framework.extension_type import (ExtensionType, ExtensionTypeSpec, lookup_registered,
                                        registered_name)
from ..framework.extension_type_fields import ImmutableDict
from ..ops.ragged.ragged_spec import RaggedTensorSpec
from ..ops.ragged.ragged_tensor import RaggedTensor
from . import values as V
from .values import FormatError

__all__ = ["encode", "decode", "KINDS", "NotEncodableError"]


class NotEncodableError(Exception):
    """A function's signature holds a value that cannot be saved
    (TensorFlow's `nested_structure_coder.NotEncodableError`)."""

KINDS = ("extension_spec", "extension_value", "ragged_spec", "ragged_value", "immutable_dict")


def encode(v, enc):
    """The saved form of a composite value or spec `v` (`enc` writes the
    nested values: tensors, specs, Python data), or None when `v` is none.

    Raises:
      NotEncodableError: for an ExtensionType whose class registers no
        name, with TensorFlow's message.
    """
    if isinstance(v, ExtensionTypeSpec):
        name = registered_name(v.value_type)
        if name is None:
            raise NotEncodableError(f"No encoder for object {v!r} of type {type(v)}.")
        return {"extension_spec": [name, [[n, enc(x)] for n, x in v._tf_fields.items()]]}
    if isinstance(v, ExtensionType):
        return {"extension_value": [enc(v._type_spec), [enc(c) for c in v._to_components()]]}
    if isinstance(v, RaggedTensorSpec):
        return {"ragged_spec": [V.encode_shape(v.shape), v.dtype.name, v.ragged_rank,
                                v.row_splits_dtype.name]}
    if isinstance(v, RaggedTensor):
        return {"ragged_value": [enc(v._type_spec), [enc(c) for c in v._to_components()]]}
    if isinstance(v, ImmutableDict):
        return {"immutable_dict": [[enc(k), enc(x)] for k, x in v.items()]}
    return None


def decode(kind, p, dec):
    """The value of an `encode` result of `kind` (`dec` reads the nested
    values).

    Raises:
      FormatError: for a malformed entry.
    """
    if not isinstance(p, list):
        raise FormatError(f"malformed {kind}")
    if kind == "extension_spec":
        if len(p) != 2 or not isinstance(p[0], str) or not isinstance(p[1], list):
            raise FormatError("malformed extension type spec")
        fields = {}
        for item in p[1]:
            if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], str):
                raise FormatError("malformed extension type field")
            fields[item[0]] = dec(item[1])
        cls = lookup_registered(p[0])
        if cls is None:
            warnings.warn(f"The type '{p[0]}.Spec' has not been registered. Falling back to "
                          "using AnonymousExtensionTypeSpec instead.")
            cls = _anonymous(tuple(fields))
        elif [f.name for f in cls._tf_extension_type_fields] != list(fields):
            raise FormatError(f"the saved fields of {p[0]} are {list(fields)}; the class "
                              f"{cls.__qualname__} has others")
        spec = cls.Spec.__new__(cls.Spec)
        spec._tf_set(fields)
        return spec
    if kind in ("extension_value", "ragged_value"):
        if len(p) != 2 or not isinstance(p[1], list):
            raise FormatError(f"malformed {kind}")
        spec = dec(p[0])
        if not isinstance(spec, (ExtensionTypeSpec, RaggedTensorSpec)):
            raise FormatError(f"malformed {kind}")
        comps = [dec(c) for c in p[1]]
        if len(comps) != len(spec._component_specs):
            raise FormatError(f"malformed {kind}")
        return spec._from_components(comps)
    if kind == "ragged_spec":
        if len(p) != 4 or not isinstance(p[2], int):
            raise FormatError("malformed RaggedTensorSpec")
        return RaggedTensorSpec(V.decode_shape(p[0]), V.decode_dtype(p[1]), p[2],
                                V.decode_dtype(p[3]))
    if kind == "immutable_dict":
        if not all(isinstance(x, list) and len(x) == 2 for x in p):
            raise FormatError("malformed mapping")
        return ImmutableDict((dec(k), dec(x)) for k, x in p)
    raise FormatError(f"unknown value kind {kind!r}")


_ANONYMOUS = {}


def _anonymous(names):
    """An extension type with the fields `names` (any values), standing for
    a saved type whose class is not registered (TensorFlow's
    AnonymousExtensionType)."""
    cls = _ANONYMOUS.get(names)
    if cls is None:
        ns = {"__annotations__": {n: typing.Any for n in names}, "__module__": __name__}
        cls = _ANONYMOUS[names] = type("AnonymousExtensionType", (ExtensionType,), ns)
        cls.Spec.__qualname__ = cls.Spec.__name__ = "AnonymousExtensionTypeSpec"
    return cls
