"""The fields of `tf.experimental.ExtensionType`: reading the class's type
annotations and checking or converting each value to its annotation, with
TensorFlow's messages. `extension_type.py` builds the classes on this."""
import collections.abc
import typing

from . import dtypes as _dtypes
from .convert import convert_to_tensor
from .tensor import Tensor
from .tensor_shape import TensorShape, as_shape

__all__ = ["ImmutableDict", "convert_field", "type_name"]


class ImmutableDict(collections.abc.Mapping):
    """The value of a `Mapping[...]` field: a read-only dict (TensorFlow's
    `ImmutableDict`, so an extension value stays immutable)."""

    def __init__(self, *args, **kwargs):
        self._dict = dict(*args, **kwargs)

    def __getitem__(self, key):
        return self._dict[key]

    def __iter__(self):
        return iter(self._dict)

    def __len__(self):
        return len(self._dict)

    def __hash__(self):
        return hash(tuple(sorted(self._dict.items(), key=repr)))

    def __repr__(self):
        return f"ImmutableDict({self._dict!r})"


def type_name(annotation):
    """How TensorFlow's messages name an annotation: a class by its name,
    anything else (Union[...]) by its repr."""
    if isinstance(annotation, type):
        return annotation.__name__
    return repr(annotation)


def _mismatch(path, annotation, value):
    return TypeError(f"{path}: expected {_quoted(annotation)}, got {type(value).__name__!r}")


def _quoted(annotation):
    return repr(annotation.__name__) if isinstance(annotation, type) else repr(annotation)


def convert_field(value, annotation, path):
    """`value` checked against (and converted to) `annotation`.

    Tensor annotations convert values with `convert_to_tensor`, TensorShape
    and DType ones with `as_shape` / `as_dtype`; tuples and mappings are
    converted element by element (lists become tuples, dicts ImmutableDicts);
    other classes (Python scalars, extension types) are checked with
    isinstance.

    Raises:
      TypeError: `"<path>: expected '<type>', got '<type>'"`, as TensorFlow.
    """
    if annotation is typing.Any:
        return value
    if annotation is None or annotation is type(None):
        if value is not None:
            raise _mismatch(path, type(None), value)
        return None
    origin = typing.get_origin(annotation)
    if origin is typing.Union:
        for option in typing.get_args(annotation):
            try:
                return convert_field(value, option, path)
            except (TypeError, ValueError):
                continue
        raise _mismatch(path, annotation, value)
    if origin is tuple:
        args = typing.get_args(annotation)
        if not isinstance(value, (tuple, list)):
            raise _mismatch(path, tuple, value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(convert_field(v, args[0], f"{path}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise TypeError(f"{path}: expected a tuple of length {len(args)}, "
                            f"got {len(value)}")
        return tuple(convert_field(v, a, f"{path}[{i}]")
                     for i, (v, a) in enumerate(zip(value, args)))
    if origin in (collections.abc.Mapping, dict, typing.Mapping):
        args = typing.get_args(annotation) or (typing.Any, typing.Any)
        if not isinstance(value, collections.abc.Mapping):
            raise _mismatch(path, collections.abc.Mapping, value)
        return ImmutableDict((convert_field(k, args[0], f"{path}[{k!r}]"),
                              convert_field(v, args[1], f"{path}[{k!r}]"))
                             for k, v in value.items())
    if not isinstance(annotation, type):
        raise TypeError(f"{path}: Unsupported type annotation {annotation!r}")
    if issubclass(annotation, Tensor):
        if isinstance(value, Tensor):
            return value
        try:
            return convert_to_tensor(value)
        except (TypeError, ValueError):
            raise TypeError(f"{path}: expected a Tensor, got {type(value).__name__!r}") from None
    if annotation is TensorShape:
        return as_shape(value)
    if annotation is _dtypes.DType:
        return _dtypes.as_dtype(value)
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return value  # Python's numeric tower: an int is a float value
    if not isinstance(value, annotation):
        raise _mismatch(path, annotation, value)
    return value
