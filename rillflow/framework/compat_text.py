"""`tf.compat`'s text and number helpers: `as_bytes`, `as_text` (`as_str`),
`as_str_any`, `path_to_str`, and the type tuples `bytes_or_text_types`,
`integral_types`, `real_types`, `complex_types`, as TensorFlow defines them."""
import numbers
import os

import numpy as np

from .api_export import export, export_value


@export("compat.as_bytes", "compat.v1.compat.as_bytes")
def as_bytes(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as bytes (text encoded with `encoding`).

    Raises:
      TypeError: when it is neither bytes, bytearray nor text.
    """
    encoding = encoding or "utf-8"
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


@export("compat.as_text", "compat.as_str", "compat.v1.compat.as_text",
        "compat.v1.compat.as_str")
def as_text(bytes_or_text, encoding="utf-8"):
    """`bytes_or_text` as text (bytes decoded with `encoding`).

    Raises:
      TypeError: when it is neither bytes nor text.
    """
    encoding = encoding or "utf-8"
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


@export("compat.as_str_any", "compat.v1.compat.as_str_any")
def as_str_any(value, encoding="utf-8"):
    """`value` as text: bytes decoded, anything else through `str`."""
    if isinstance(value, bytes):
        return as_text(value, encoding=encoding)
    return str(value)


@export("compat.path_to_str", "compat.v1.compat.path_to_str")
def path_to_str(path):
    """A path-like object as its string; other values unchanged."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    return path


export_value((bytes, str), "compat.bytes_or_text_types", "compat.v1.compat.bytes_or_text_types")
export_value((numbers.Integral, np.integer), "compat.integral_types",
             "compat.v1.compat.integral_types")
export_value((numbers.Real, np.integer, np.floating), "compat.real_types",
             "compat.v1.compat.real_types")
export_value((numbers.Complex, np.number), "compat.complex_types",
             "compat.v1.compat.complex_types")
