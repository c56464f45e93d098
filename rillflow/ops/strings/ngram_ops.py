"""`tf.strings.ngrams`: the n-grams of each row of strings (TensorFlow's
`StringNGrams` kernel: padding with `pad_values` up to `ngram_width - 1`
or `padding_width` on each side, several widths per row in order, and a
single whole-row gram for short rows with `preserve_short_sequences`)."""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.tensor_shape import TensorShape
from ..core import join_ops, shape_ops
from ..ragged.ragged_tensor import RaggedTensor
from .string_util import _no_grads, _obj_array


def _pad_width(pad_width, width):
    # Never wider than width - 1; a negative pad_width means exactly that.
    return min(width - 1 if pad_width < 0 else pad_width, width - 1)


def _num_ngrams(length, width, pad_width):
    return max(0, length + 2 * _pad_width(pad_width, width) - width + 1)


def _make_ngrams(tokens, num, width, pad_width, sep, left, right):
    """TensorFlow's CreateNgrams for one row (`tokens`: its bytes)."""
    out = []
    pw = _pad_width(pad_width, width)
    for i in range(num):
        lp = max(0, pw - i)
        rp = max(0, pw - (num - (i + 1)))
        nt = width - (lp + rp)
        start = 0 if lp > 0 else i - pw
        parts = [left] * lp + tokens[start:start + nt] + [right] * rp
        out.append(sep.join(parts))
    return out


def _ngrams_kernel(data, data_splits, separator, ngram_widths, left_pad, right_pad, pad_width,
                   preserve_short_sequences, **_):
    if any(w <= 0 for w in ngram_widths):
        raise errors.InvalidArgumentError(None, None,
                                          "ngram_widths must contain positive values")
    flat = data.reshape(-1).tolist()
    splits = data_splits.astype(np.int64).tolist()
    n = len(flat)
    if splits:
        if splits[0] != 0:
            raise errors.InvalidArgumentError(
                None, None, f"First split value must be 0, got {splits[0]}")
        prev = splits[0]
        for s in splits[1:]:
            if not prev <= s <= n:
                raise errors.InvalidArgumentError(
                    None, None, f"Invalid split value {s}, must be in [{prev}, {n}]")
            prev = s
        if prev != n:
            raise errors.InvalidArgumentError(
                None, None, f"Last split value must be data size. Expected {n}, got {prev}")
    out_splits = np.zeros(len(splits), dtype=data_splits.dtype)
    if n == 0 or not splits:
        return _obj_array([], data.shape), out_splits
    enc = [x.encode() if isinstance(x, str) else x for x in (separator, left_pad, right_pad)]
    sep, left, right = enc
    out = []
    for i in range(len(splits) - 1):
        tokens = flat[splits[i]:splits[i + 1]]
        length = len(tokens)
        row = []
        for w in ngram_widths:
            row += _make_ngrams(tokens, _num_ngrams(length, w, pad_width), w, pad_width, sep,
                                left, right)
        if preserve_short_sequences and not row and length:
            if pad_width < 0:
                raise errors.InvalidArgumentError(
                    None, None, "Pad width should be >= 0 when preserve_short_sequences is "
                    f"True and ngram_widths are not provided, got {pad_width}")
            row = _make_ngrams(tokens, 1, length + 2 * pad_width, pad_width, sep, left, right)
        out += row
        out_splits[i + 1] = out_splits[i] + len(row)
    return _obj_array(out, (len(out),)), out_splits


def _ngrams_infer(inputs, attrs):
    return [(TensorShape([None]), D.string), (inputs[1].shape, inputs[1].dtype)]


_StringNGrams = register("StringNGrams", _ngrams_kernel, _ngrams_infer, _no_grads)


def _string_ngrams(flat_values, splits, separator, widths, left, right, pad_width, preserve):
    return apply(_StringNGrams, [flat_values, splits],
                 {"separator": separator, "ngram_widths": list(widths), "left_pad": left,
                  "right_pad": right, "pad_width": int(pad_width),
                  "preserve_short_sequences": bool(preserve)},
                 name="StringNGrams", multi=True)


@export("strings.ngrams", "compat.v1.strings.ngrams")
def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of the last axis of `data` (dense or ragged strings): each
    `ngram_width` (an int or a list of them) consecutive strings joined by
    `separator`, with `pad_values` (left, right) added at the row ends.

    Raises:
      TypeError: for `pad_values` that are not strings.
      ValueError: for widths or a padding width below 1, `padding_width`
        without `pad_values`, or data of rank 0.
    """
    if pad_values is None:
        left_pad = right_pad = ""
    elif isinstance(pad_values, (list, tuple)):
        if not (isinstance(pad_values[0], (bytes, str)) and
                isinstance(pad_values[1], (bytes, str))):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad, right_pad = pad_values[0], pad_values[1]
    else:
        if not isinstance(pad_values, (bytes, str)):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad = right_pad = pad_values
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    if not isinstance(data, RaggedTensor):
        data = convert_to_tensor(data, dtype=D.string, name="data")
    to_tensor = isinstance(data, Tensor)
    if to_tensor:
        dense_shape = join_ops.concat([shape_ops.shape(data)[:-1], [-1]], axis=0)
        rank = data.shape.rank
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        if rank == 1:
            rt = RaggedTensor.from_row_starts(data, [0], validate=False)
            return ngrams(rt, ngram_width, separator, pad_values, padding_width,
                          preserve_short_sequences, name)[0]
        data = RaggedTensor.from_tensor(data, ragged_rank=rank - 1)
    if data.ragged_rank > 1:
        output = data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                         padding_width, preserve_short_sequences, name))
        return shape_ops.reshape(output.flat_values, dense_shape) if to_tensor else output
    if pad_values is None:
        padding_width = 0
    if pad_values is not None and padding_width is None:
        padding_width = -1
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for w in widths:
        if w < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    values, splits = _string_ngrams(data.flat_values, data.row_splits, separator, widths,
                                    left_pad, right_pad, padding_width,
                                    preserve_short_sequences)
    output = RaggedTensor.from_row_splits(values, splits, validate=False)
    return shape_ops.reshape(output.flat_values, dense_shape) if to_tensor else output
