"""Unicode ops: `tf.strings.unicode_decode`, `unicode_decode_with_offsets`,
`unicode_split`, `unicode_split_with_offsets`, `unicode_transcode` (any
input encoding Python knows, with ICU's treatment of invalid input and
TensorFlow's `errors` modes: unicode_codec.py) and `unicode_encode` (UTF-8).
A string tensor of rank k > 0 (or a RaggedTensor) gives a RaggedTensor with
one more ragged dimension, a scalar a 1-D tensor."""
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
from .string_util import _check_string, _no_grads, _obj_array, _same_shape_infer, _string_input
from .unicode_codec import OUTPUT_ENCODINGS, check_decode_attrs, decode, encode
from ..core.creation_ops import range as range_
from ..core.math_ops import cast
from ..core.shape_ops import reshape, size as size_


# --- decoding (unicode_codec.py: ICU's treatment of invalid input) -----------------------

def _decode_flat(x, input_encoding, errors, replacement_char, replace_control_characters,
                 op_name):
    check_decode_attrs(op_name, errors, replacement_char)
    rows = decode(x.reshape(-1), input_encoding, errors, int(replacement_char),
                  bool(replace_control_characters), op_name)
    splits = np.zeros(len(rows) + 1, dtype=np.int64)
    splits[1:] = np.cumsum([len(c) for c, _ in rows])
    chars = np.array([c for cps, _ in rows for c in cps], dtype=np.int32)
    offsets = np.array([o for _, offs in rows for o in offs], dtype=np.int64)
    return splits, chars, offsets


def _unicode_decode_kernel(x, input_encoding="UTF-8", errors="replace",
                           replacement_char=0xFFFD, replace_control_characters=False,
                           Tsplits=None):
    splits, chars, _ = _decode_flat(x, input_encoding, errors, replacement_char,
                                    replace_control_characters, "UnicodeDecode")
    return [splits.astype(np.dtype(Tsplits.as_numpy_dtype) if Tsplits else np.int64), chars]


def _unicode_decode_offsets_kernel(x, input_encoding="UTF-8", errors="replace",
                                   replacement_char=0xFFFD, replace_control_characters=False,
                                   Tsplits=None):
    splits, chars, offsets = _decode_flat(x, input_encoding, errors, replacement_char,
                                          replace_control_characters,
                                          "UnicodeDecodeWithOffsets")
    return [splits.astype(np.dtype(Tsplits.as_numpy_dtype) if Tsplits else np.int64), chars,
            offsets]


def _decode_infer(op_name, with_offsets):
    def infer(inputs, attrs):
        _check_string(inputs[0], op_name)
        n = inputs[0].shape.num_elements()
        out = [(TensorShape([None if n is None else n + 1]), attrs.get("Tsplits", D.int64)),
               (TensorShape([None]), D.int32)]
        if with_offsets:
            out.append((TensorShape([None]), D.int64))
        return out
    return infer


_UnicodeDecode = register("UnicodeDecode", _unicode_decode_kernel,
                          _decode_infer("UnicodeDecode", False), _no_grads)
_UnicodeDecodeWithOffsets = register(
    "UnicodeDecodeWithOffsets", _unicode_decode_offsets_kernel,
    _decode_infer("UnicodeDecodeWithOffsets", True), _no_grads)


def _transcode_kernel(x, input_encoding="UTF-8", output_encoding="UTF-8", errors="replace",
                      replacement_char=0xFFFD, replace_control_characters=False):
    check_decode_attrs("UnicodeTranscode", errors, replacement_char)
    rows = decode(x.reshape(-1), input_encoding, errors, int(replacement_char),
                  bool(replace_control_characters), "UnicodeTranscode")
    return _obj_array([encode(cps, output_encoding) for cps, _ in rows], x.shape)


_UnicodeTranscode = register("UnicodeTranscode", _transcode_kernel,
                             _same_shape_infer("UnicodeTranscode"), _no_grads)


def _check_output_encoding(encoding, op_name):
    if encoding not in OUTPUT_ENCODINGS:
        raise errors.InvalidArgumentError(
            None, None, f"Value for attr 'output_encoding' of \"{encoding}\" is not in the "
                        f"list of allowed values: \"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\" "
                        f"[Op:{op_name}]")


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
        out.append(encode([ord(ch) for ch in chars], output_encoding))
    return _obj_array(out, (out.__len__(),))


def _unicode_encode_infer(inputs, attrs):
    n = inputs[1].shape[0] if inputs[1].shape.rank == 1 else None
    return [(TensorShape([None if n is None else n - 1]), D.string)]


_UnicodeEncode = register("UnicodeEncode", _unicode_encode_kernel, _unicode_encode_infer,
                          _no_grads)


@export("strings.unicode_encode")
def unicode_encode(input, output_encoding, errors="replace",  # noqa: A002
                   replacement_char=65533, name=None):
    """Encodes code points as UTF-8 strings: a 1-D int tensor gives a scalar,
    a RaggedTensor (or 2-D tensor) one string per row."""
    _check_output_encoding(output_encoding, "UnicodeEncode")
    attrs = {"output_encoding": output_encoding, "errors": errors,
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




def _decode_public(input, input_encoding, errors, replacement_char,  # noqa: A002
                   replace_control_characters, with_offsets, name):
    """Runs UnicodeDecode(WithOffsets) on the flat strings of `input` and
    shapes the results as TensorFlow does."""
    op_name = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
    opdef = _UnicodeDecodeWithOffsets if with_offsets else _UnicodeDecode
    ragged = input if isinstance(input, RaggedTensor) else None
    if ragged is None:
        x = _string_input(input, op_name)
        rank = x.shape.rank
        if rank is None:
            raise ValueError("Rank of `input` must be statically known.")
        if rank > 1:
            ragged = RaggedTensor.from_tensor(x, ragged_rank=rank - 1)
    if ragged is not None:
        x = _string_input(ragged.flat_values, op_name)
    attrs = {"input_encoding": input_encoding, "errors": errors,
             "replacement_char": int(replacement_char),
             "replace_control_characters": bool(replace_control_characters),
             "Tsplits": D.int64}
    outs = apply(opdef, [x], attrs, name=name or op_name, multi=True)
    splits, results = outs[0], list(outs[1:])
    if ragged is None and x.shape.rank == 0:
        return tuple(results) if with_offsets else results[0]
    results = [RaggedTensor.from_row_splits(r, splits, validate=False) for r in results]
    if ragged is not None:
        results = [ragged.with_flat_values(r) for r in results]
    return tuple(results) if with_offsets else results[0]


@export("strings.unicode_decode")
def unicode_decode(input, input_encoding, errors="replace",  # noqa: A002
                   replacement_char=65533, replace_control_characters=False, name=None):
    """The Unicode code points (int32) of each string in `input_encoding`: a
    1-D tensor for a scalar input, a RaggedTensor for any other rank;
    invalid sequences (and with `replace_control_characters` the C0
    controls) become `replacement_char`, are dropped or raise, per `errors`."""
    return _decode_public(input, input_encoding, errors, replacement_char,
                          replace_control_characters, False, name)


@export("strings.unicode_decode_with_offsets")
def unicode_decode_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                                replacement_char=65533, replace_control_characters=False,
                                name=None):
    """`unicode_decode`, and the byte offset (int64) in its string where each
    character starts (for a replaced invalid sequence, where it starts)."""
    return _decode_public(input, input_encoding, errors, replacement_char,
                          replace_control_characters, True, name)


def _split_public(input, input_encoding, errors, replacement_char, with_offsets,  # noqa: A002
                  name):
    if input_encoding not in OUTPUT_ENCODINGS:
        _check_output_encoding(input_encoding, "UnicodeEncode")
    chars, offsets = _decode_public(input, input_encoding, errors, replacement_char, False,
                                    True, name)
    flat = chars.flat_values if isinstance(chars, RaggedTensor) else chars
    n = size_(flat)
    one_each = cast(range_(0, n + 1), D.int64)
    pieces = apply(_UnicodeEncode, [flat, one_each],
                   {"output_encoding": input_encoding, "errors": errors,
                    "replacement_char": int(replacement_char)}, name="UnicodeEncode")
    if isinstance(chars, RaggedTensor):
        pieces = chars.with_flat_values(pieces)
    return (pieces, offsets) if with_offsets else pieces


@export("strings.unicode_split")
def unicode_split(input, input_encoding, errors="replace",  # noqa: A002
                  replacement_char=65533, name=None):
    """Splits each string into its characters, each re-encoded in
    `input_encoding` (UTF-8, UTF-16-BE or UTF-32-BE)."""
    return _split_public(input, input_encoding, errors, replacement_char, False, name)


@export("strings.unicode_split_with_offsets")
def unicode_split_with_offsets(input, input_encoding, errors="replace",  # noqa: A002
                               replacement_char=65533, name=None):
    """`unicode_split`, and the byte offset (int64) where each character starts."""
    return _split_public(input, input_encoding, errors, replacement_char, True, name)


@export("strings.unicode_transcode")
def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Re-encodes each string from `input_encoding` into `output_encoding`
    (UTF-8, UTF-16-BE or UTF-32-BE), same shape; invalid input as in
    `unicode_decode`."""
    _check_output_encoding(output_encoding, "UnicodeTranscode")
    x = _string_input(input, "UnicodeTranscode")
    return apply(_UnicodeTranscode, [x],
                 {"input_encoding": input_encoding, "output_encoding": output_encoding,
                  "errors": errors, "replacement_char": int(replacement_char),
                  "replace_control_characters": bool(replace_control_characters)},
                 name=name or "UnicodeTranscode")


# --- scripts ----------------------------------------------------------------------------

_SCRIPT_STARTS = None


def _script_kernel(x):
    global _SCRIPT_STARTS
    from . import unicode_script_table as table
    if _SCRIPT_STARTS is None:
        _SCRIPT_STARTS = (np.array(table.STARTS, np.int64), np.array(table.CODES, np.int32))
    starts, codes = _SCRIPT_STARTS
    v = x.astype(np.int64)
    out = codes[np.clip(np.searchsorted(starts, v, side="right") - 1, 0, None)]
    # Outside the code space ICU reports USCRIPT_INVALID_CODE, -1.
    return np.where((v < 0) | (v > 0x10FFFF), np.int32(-1), out).astype(np.int32)


def _script_infer(inputs, attrs):
    return [(inputs[0].shape, D.int32)]


_UnicodeScript = register("UnicodeScript", _script_kernel, _script_infer, _no_grads,
                          allowed=(D.int32,))


@export("strings.unicode_script")
def unicode_script(input, name=None):  # noqa: A002
    """The ICU script code (int32, UScriptCode: 0 Common, 1 Inherited, 25
    Latin, 17 Han, ...) of each int32 code point; -1 outside the code space.
    The table (unicode_script_table.py) holds the Unicode data of the ICU
    that TensorFlow 2.21 is built with."""
    x = convert_to_tensor(input, dtype_hint=D.int32)
    if x.dtype != D.int32:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute UnicodeScript as input #0(zero-based) was expected to "
                        f"be a int32 tensor but is a {x.dtype.name} tensor [Op:UnicodeScript]")
    return apply(_UnicodeScript, [x], {}, name=name or "UnicodeScript")
