"""`tf.strings.bytes_split`: the bytes of each string, through TensorFlow's
StringSplit op with an empty delimiter (a RaggedTensor of one-byte strings
per element; a scalar gives a 1-D tensor)."""
import numpy as np

from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape
from ..core.creation_ops import name_scope
from ..core.join_ops import stack
from ..ragged.ragged_tensor import RaggedTensor
from .string_util import _string_input


def _split_kernel(input, delimiter, skip_empty=True):  # noqa: A002
    # TensorFlow's StringSplit (v1): an empty delimiter splits into bytes;
    # otherwise any delimiter character splits.
    delim = delimiter.item() if isinstance(delimiter, np.ndarray) else delimiter
    indices, values = [], []
    width = 0
    for i, s in enumerate(np.asarray(input, dtype=object).reshape(-1)):
        s = s if isinstance(s, bytes) else str(s).encode()
        if delim == b"":
            parts = [s[k:k + 1] for k in range(len(s))]
        else:
            parts, cur = [], bytearray()
            for ch in s:
                if bytes((ch,)) in delim:
                    parts.append(bytes(cur))
                    cur = bytearray()
                else:
                    cur.append(ch)
            parts.append(bytes(cur))
        if skip_empty:
            parts = [p for p in parts if p]
        for j, p in enumerate(parts):
            indices.append((i, j))
            values.append(p)
        width = max(width, len(parts))
    vals = np.empty(len(values), dtype=object)
    vals[:] = values
    return [np.array(indices, np.int64).reshape(-1, 2), vals,
            np.array([np.asarray(input).size, width], np.int64)]


_StringSplit = register(
    "StringSplit", _split_kernel,
    lambda i, a: [(TensorShape([None, 2]), D.int64), (TensorShape([None]), D.string),
                  (TensorShape([2]), D.int64)])


@export("strings.bytes_split")
def bytes_split(input, name=None):  # noqa: A002
    """The bytes of each string as one-byte strings: a 1-D tensor for a
    scalar, else a RaggedTensor with one more dimension.

    Raises:
      ValueError: for an input of unknown rank.
    """
    with name_scope(name or "StringsByteSplit"):
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(bytes_split(input.flat_values))
        x = _string_input(input, "StringSplit")
        rank = x.shape.rank
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return bytes_split(stack([x]))[0]
        if rank == 1:
            indices, values, shape = apply(
                _StringSplit, [x, convert_to_tensor("", D.string)], {"skip_empty": False},
                name="StringSplit", multi=True)
            return RaggedTensor._from_value_rowids(values, indices, shape)
        return bytes_split(RaggedTensor.from_tensor(x))
