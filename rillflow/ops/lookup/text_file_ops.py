"""`InitializeTableFromTextFileV2`: fills a static table from a text file, one
entry per line, as TensorFlow's `TextFileLineIterator` reads it: a key and a
value taken from the whole line (-2), the line number (-1) or a column split
on a one-character delimiter, with TensorFlow's checks and messages (empty
lines, missing columns, numbers that do not parse, a `vocab_size` the file
does not have)."""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.op_registry import register
from .table_ops import _no_outputs, _run_no_output

WHOLE_LINE = -2
LINE_NUMBER = -1

_INT_RANGE = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def _read_lines(filename):
    """The file's lines without their `\\n` (or `\\r\\n`), each with the byte
    offset just past it (TensorFlow reports an empty line by that offset)."""
    path = filename.decode("utf-8", "surrogateescape") if isinstance(filename, bytes) \
        else str(filename)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    out = []
    pos = 0
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        nxt = n if end < 0 else end + 1
        line = data[pos:n if end < 0 else end]
        if line.endswith(b"\r"):
            line = line[:-1]
        out.append((line, nxt))
        pos = nxt
    return path, out


def _convert(token, dtype, line_no):
    """A column's text as the key or value dtype (TensorFlow's safe_strto*)."""
    if dtype == D.string:
        return token
    text = token.decode("utf-8", "replace")
    try:
        if dtype.is_integer:
            v = int(text.strip())
            lo, hi = _INT_RANGE.get(dtype.name, (-2**63, 2**63 - 1))
            if not lo <= v <= hi:
                raise ValueError
            return v
        if dtype.is_floating:
            return float(text)
        if dtype == D.bool:
            return {"true": True, "false": False, "1": True, "0": False}[text.strip().lower()]
    except (ValueError, KeyError):
        pass
    raise errors.InvalidArgumentError(
        None, None, f"Field {text} in line {line_no} is not a valid {dtype.name}.")


def _text_file_kernel(table, filename, key_index, value_index, vocab_size=-1,
                      delimiter="\t", offset=0, **_):
    if not hasattr(table, "initialize"):
        raise errors.InvalidArgumentError(
            None, None, "Table is not initializable (only HashTable tables are)")
    if isinstance(delimiter, bytes):
        delimiter = delimiter.decode()
    if len(delimiter) != 1:
        raise errors.InvalidArgumentError(None, None, "delimiter should be only 1 char")
    if table.initialized:
        return []
    fname = filename.item() if isinstance(filename, np.ndarray) else filename
    path, lines = _read_lines(fname)
    keys, values = [], []
    split = max(key_index, value_index) >= 0
    sep = delimiter.encode()
    for line_no, (line, end) in enumerate(lines):
        if vocab_size != -1 and line_no >= vocab_size:
            break
        if not line:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid content in {path}: empty line found at position {end}.")
        tokens = line.split(sep) if split else None
        if split and max(key_index, value_index) >= len(tokens):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {path} line {line_no} "
                f"({line.decode('utf-8', 'replace')}) : expected at least "
                f"{max(key_index, value_index) + 1} got {len(tokens)}")
        for index, dtype, out in ((key_index, table.key_dtype, keys),
                                  (value_index, table.value_dtype, values)):
            if index == LINE_NUMBER:
                out.append(line_no + offset)
            elif index == WHOLE_LINE:
                out.append(_convert(line, dtype, line_no))
            else:
                out.append(_convert(tokens[index], dtype, line_no))
    count = len(keys)
    if vocab_size != -1 and count != vocab_size:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid vocab_size in {path}: expected {vocab_size} but got {count}")
    table.initialize(_array(keys, table.key_dtype), _array(values, table.value_dtype))
    return []


def _array(items, dtype):
    if dtype == D.string:
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out
    return np.asarray(items, dtype=dtype._np).reshape(len(items))


_InitializeTableFromTextFileV2 = register("InitializeTableFromTextFileV2", _text_file_kernel,
                                          _no_outputs, stateful=True)


def initialize_table_from_text_file(handle, filename, key_index, value_index, vocab_size=-1,
                                    delimiter="\t", offset=0, name=None):
    """`InitializeTableFromTextFileV2` on table `handle` from file `filename`
    (a string tensor)."""
    return _run_no_output(_InitializeTableFromTextFileV2, [handle, filename],
                          {"key_index": int(key_index), "value_index": int(value_index),
                           "vocab_size": int(vocab_size), "delimiter": delimiter,
                           "offset": int(offset)}, name or "InitializeTableFromTextFileV2")

