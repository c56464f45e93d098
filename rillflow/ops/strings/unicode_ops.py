"""Unicode ops (`tf.strings.unicode_decode`, unicode_encode, unicode_split):
strings to code points and back, UTF-8 only, with TensorFlow's `errors`
modes (replace, ignore, strict); a vector input gives a RaggedTensor."""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework import errors as _errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..ragged.ragged_tensor import RaggedTensor
from .string_util import _check_string, _no_grads, _obj_array, _string_input
from ..core.creation_ops import range as range_
from ..core.math_ops import cast
from ..core.shape_ops import reshape, size as size_


# --- unicode ------------------------------------------------------------------------------

def _codepoints(b, errors_mode, replacement):
    """The code points of UTF-8 `b`; invalid bytes become `replacement`
    ('replace'), are dropped ('ignore') or raise ('strict')."""
    text = b.decode("utf-8", "surrogateescape")
    out = []
    for ch in text:
        c = ord(ch)
        if 0xDC80 <= c <= 0xDCFF:
            if errors_mode == "strict":
                raise errors.InvalidArgumentError(None, None,
                                                  f"Invalid formatting on input string: {b!r}")
            if errors_mode == "ignore":
                continue
            c = replacement
        out.append(c)
    return out


def _check_utf8(encoding):
    if encoding.upper().replace("_", "-") not in ("UTF-8", "UTF8"):
        raise ValueError(f"Unsupported encoding {encoding!r}: only UTF-8 is supported")


def _unicode_decode_kernel(x, input_encoding="UTF-8", errors="replace",
                           replacement_char=0xFFFD, replace_control_characters=False,
                           Tsplits=None):
    splits = [0]
    chars = []
    for b in x.reshape(-1):
        cps = _codepoints(b, errors, replacement_char)
        chars.extend(cps)
        splits.append(chars.__len__())
    return [np.array(splits, dtype=np.int64), np.array(chars, dtype=np.int32)]


def _unicode_decode_infer(inputs, attrs):
    _check_string(inputs[0], "UnicodeDecode")
    n = inputs[0].shape.num_elements()
    return [(TensorShape([None if n is None else n + 1]), D.int64),
            (TensorShape([None]), D.int32)]


_UnicodeDecode = register("UnicodeDecode", _unicode_decode_kernel, _unicode_decode_infer,
                          _no_grads)


def _unicode_encode_kernel(input_values, input_splits, output_encoding="UTF-8",
                           errors="replace", replacement_char=0xFFFD):
    out = []
    for a, b in zip(input_splits[:-1], input_splits[1:]):
        chars = []
        for c in input_values[int(a):int(b)]:
            c = int(c)
            if not (0 <= c <= 0x10FFFF) or 0xD800 <= c <= 0xDFFF:
                if errors == "strict":
                    raise _errors.InvalidArgumentError(
                        None, None, f"Invalid code point {c}")
                if errors == "ignore":
                    continue
                c = replacement_char
            chars.append(chr(c))
        out.append("".join(chars).encode("utf-8"))
    return _obj_array(out, (out.__len__(),))


def _unicode_encode_infer(inputs, attrs):
    n = inputs[1].shape[0] if inputs[1].shape.rank == 1 else None
    return [(TensorShape([None if n is None else n - 1]), D.string)]


_UnicodeEncode = register("UnicodeEncode", _unicode_encode_kernel, _unicode_encode_infer,
                          _no_grads)


@export("strings.unicode_decode")
def unicode_decode(input, input_encoding, errors="replace",  # noqa: A002
                   replacement_char=65533, replace_control_characters=False, name=None):
    """The Unicode code points (int32) of each string: a 1-D tensor for a
    scalar input, a RaggedTensor for a vector."""
    _check_utf8(input_encoding)
    x = _string_input(input, "UnicodeDecode")
    rank = x.shape.rank
    if rank not in (0, 1):
        raise ValueError("tf.strings.unicode_decode supports scalar and 1-D inputs here")
    attrs = {"input_encoding": "UTF-8", "errors": errors,
             "replacement_char": int(replacement_char),
             "replace_control_characters": bool(replace_control_characters),
             "Tsplits": D.int64}
    splits, chars = apply(_UnicodeDecode, [x], attrs, name=name or "UnicodeDecode", multi=True)
    if rank == 0:
        return chars
    return RaggedTensor(chars, splits)


@export("strings.unicode_encode")
def unicode_encode(input, output_encoding, errors="replace",  # noqa: A002
                   replacement_char=65533, name=None):
    """Encodes code points as UTF-8 strings: a 1-D int tensor gives a scalar,
    a RaggedTensor (or 2-D tensor) one string per row."""
    _check_utf8(output_encoding)
    attrs = {"output_encoding": "UTF-8", "errors": errors,
             "replacement_char": int(replacement_char)}
    if isinstance(input, RaggedTensor):
        return apply(_UnicodeEncode, [convert_to_tensor(input.values, dtype=D.int32),
                                      input.row_splits], attrs, name=name or "UnicodeEncode")
    x = convert_to_tensor(input, dtype=D.int32)
    if x.shape.rank == 1:
        n = x.shape[0]
        if n is None:
            raise ValueError("unicode_encode needs a static length here")
        splits = convert_to_tensor(np.array([0, n], dtype=np.int64))
        out = apply(_UnicodeEncode, [x, splits], attrs, name=name or "UnicodeEncode")
        return reshape(out, [])
    if x.shape.rank == 2 and x.shape.is_fully_defined():
        rows, cols = x.shape.as_list()
        splits = convert_to_tensor(np.arange(0, rows * cols + 1, max(cols, 1),
                                             dtype=np.int64)[:rows + 1])
        return apply(_UnicodeEncode, [reshape(x, [-1]), splits], attrs,
                     name=name or "UnicodeEncode")
    raise ValueError("unicode_encode supports 1-D tensors, fully defined 2-D tensors and "
                     "RaggedTensors here")


@export("strings.unicode_split")
def unicode_split(input, input_encoding, errors="replace",  # noqa: A002
                  replacement_char=65533, name=None):
    """Splits each string into its UTF-8 characters (one string per character)."""
    _check_utf8(input_encoding)
    x = _string_input(input, "UnicodeDecode")
    rank = x.shape.rank
    if rank not in (0, 1):
        raise ValueError("tf.strings.unicode_split supports scalar and 1-D inputs here")
    attrs = {"input_encoding": "UTF-8", "errors": errors,
             "replacement_char": int(replacement_char),
             "replace_control_characters": False, "Tsplits": D.int64}
    splits, chars = apply(_UnicodeDecode, [x], attrs, name=name or "UnicodeDecode",
                          multi=True)
    n = size_(chars)
    one_each = cast(range_(0, n + 1), D.int64)
    pieces = apply(_UnicodeEncode, [chars, one_each],
                   {"output_encoding": "UTF-8", "errors": errors,
                    "replacement_char": int(replacement_char)}, name="UnicodeEncode")
    if rank == 0:
        return pieces
    return RaggedTensor(pieces, splits)
