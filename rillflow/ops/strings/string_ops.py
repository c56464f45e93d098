"""String ops (`tf.strings.*`): join, length, case, strip, as_string,
to_number, substr, the regular expression ops, reduce_join and split.

String tensors hold NumPy object arrays of Python `bytes` (string_util.py).
`tf.strings.split` of a vector has rows of different lengths, which
TensorFlow returns as a RaggedTensor (ragged_tensor.py).
"""
import itertools
import re

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply1
from ...framework.op_registry import register
from ...framework.tensor import EagerTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ..core import op_util as U
from ..ragged.ragged_tensor import RaggedTensor
from .string_util import (_check_string, _check_unit, _decode, _encode, _map_strings, _no_grads,
                          _obj_array, _same_shape_infer, _string_input)
from ..core.creation_ops import range as range_
from ..core.math_ops import subtract
from ..core.shape_ops import rank, reshape

_state = _context.state


# --- join ----------------------------------------------------------------------

def _join_kernel(*inputs, separator="", N=None):
    shapes = [x.shape for x in inputs if x.ndim]
    for s in shapes[1:]:
        if s != shapes[0]:
            raise errors.InvalidArgumentError(
                None, None, f"Input shapes do not match: {list(shapes[0])} vs. {list(s)} "
                "[Op:StringJoin]")
    shape = shapes[0] if shapes else ()
    sep = separator.encode("utf-8") if isinstance(separator, str) else separator
    if not inputs:
        return _obj_array([b""], ())
    cols = [np.broadcast_to(x, shape).reshape(-1) for x in inputs]
    n = int(np.prod(shape)) if shape else 1
    return _obj_array((sep.join(c[i] for c in cols) for i in range(n)), shape)


def _join_infer(inputs, attrs):
    out = TensorShape([])
    for t in inputs:
        _check_string(t, "StringJoin", "inputs")
        s = t.shape
        if s.rank == 0:
            continue
        if out.rank == 0:
            out = s
            continue
        if not out.is_compatible_with(s):
            raise ValueError(f"Input shapes do not match: {out} vs. {s}")
        out = out.merge_with(s)
    if any(t.shape.rank is None for t in inputs) and out.rank == 0:
        out = TensorShape(None)
    return [(out, D.string)]


_StringJoin = register("StringJoin", _join_kernel, _join_infer, _no_grads)


@export("strings.join")
def join(inputs, separator="", name=None):
    """Joins string tensors elementwise with `separator` (`tf.strings.join`).

    Scalars broadcast; the other inputs must all have the same shape.
    """
    ts = [_string_input(x, "StringJoin", "inputs") for x in inputs]
    return apply(_StringJoin, ts, {"separator": separator, "N": len(ts)},
                 name=name or "StringJoin")


# --- length, case, strip -----------------------------------------------------------

def _utf8_len(b):
    return sum(1 for c in b if c & 0xC0 != 0x80)


def _length_kernel(x, unit="BYTE"):
    _check_unit(unit, "StringLength")
    f = len if unit == "BYTE" else _utf8_len
    flat = x.reshape(-1)
    return np.array([f(v) for v in flat], dtype=np.int32).reshape(x.shape)


_StringLength = register("StringLength", _length_kernel,
                         _same_shape_infer("StringLength", D.int32), _no_grads)


@export("strings.length")
def length(input, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's argument name
    """The length of each string (int32), in bytes or in UTF-8 characters."""
    x = _string_input(input, "StringLength")
    if unit not in ("BYTE", "UTF8_CHAR"):
        if _state.graph is None:
            _check_unit(unit, "StringLength")
        raise ValueError(f"Attr 'unit' of 'StringLength' Op passed string '{unit}' not in: "
                         "'BYTE', 'UTF8_CHAR'.")
    return apply1(_StringLength, x, {"unit": unit}, name=name or "StringLength")


def _case_kernel(upper):
    def kernel(x, encoding=""):
        if encoding:
            if upper:
                return _map_strings(x, lambda b: _encode(_decode(b).upper()))
            return _map_strings(x, lambda b: _encode(_decode(b).lower()))
        # Without an encoding only ASCII letters change, as bytes methods do.
        return _map_strings(x, bytes.upper if upper else bytes.lower)
    return kernel


_StringUpper = register("StringUpper", _case_kernel(True), _same_shape_infer("StringUpper"),
                        _no_grads)
_StringLower = register("StringLower", _case_kernel(False), _same_shape_infer("StringLower"),
                        _no_grads)


def _check_encoding(encoding):
    if encoding not in ("", "utf-8", "UTF-8", "utf8"):
        raise ValueError(f"Encoding must be '' or 'utf-8', got {encoding!r}")


@export("strings.upper")
def upper(input, encoding="", name=None):  # noqa: A002
    """Upper-cases each string: ASCII letters only, or all of Unicode with `encoding='utf-8'`."""
    _check_encoding(encoding)
    x = _string_input(input, "StringUpper")
    return apply1(_StringUpper, x, {"encoding": encoding}, name=name or "StringUpper")


@export("strings.lower")
def lower(input, encoding="", name=None):  # noqa: A002
    """Lower-cases each string: ASCII letters only, or all of Unicode with `encoding='utf-8'`."""
    _check_encoding(encoding)
    x = _string_input(input, "StringLower")
    return apply1(_StringLower, x, {"encoding": encoding}, name=name or "StringLower")


def _strip_kernel(x):
    return _map_strings(x, bytes.strip)


_StringStrip = register("StringStrip", _strip_kernel, _same_shape_infer("StringStrip"),
                        _no_grads)


@export("strings.strip")
def strip(input, name=None):  # noqa: A002
    """Removes leading and trailing ASCII whitespace from each string."""
    x = _string_input(input, "StringStrip")
    return apply1(_StringStrip, x, name=name or "StringStrip")


# --- as_string -------------------------------------------------------------------

_TINY = {np.dtype(np.float32): float(np.finfo(np.float32).tiny),
         np.dtype(np.float64): float(np.finfo(np.float64).tiny)}
_AS_STRING_TYPES = U.NUMERIC + (D.bool_, D.string)


def _as_string_kernel(x, precision=-1, scientific=False, shortest=False, width=-1, fill=""):
    bf16 = x.dtype.name == "bfloat16"
    kind = "f" if bf16 else x.dtype.kind      # (ml_dtypes' kind is "V")
    tname = U.tf_type_name(D.NP_TO_DTYPE[x.dtype])
    if len(fill) > 1:
        raise errors.InvalidArgumentError(None, None,
                                          "Fill string must be one or fewer characters")
    if scientific and shortest:
        raise errors.InvalidArgumentError(None, None,
                                          "Cannot select both scientific and shortest notation")
    if fill not in ("", " ", "0"):
        raise errors.InvalidArgumentError(None, None, f'Fill argument not supported: "{fill}"')
    if kind not in "fc":
        if scientific or shortest:
            raise errors.InvalidArgumentError(
                None, None, f"scientific and shortest format not supported for datatype {tname}")
        if precision > -1:
            raise errors.InvalidArgumentError(
                None, None, f"precision not supported for datatype {tname}")
    spec = "%"
    if fill == "0":
        spec += "0"
    if width > -1:
        spec += str(width)
    if kind in "fc":
        if precision > -1:
            spec += "." + str(precision)
        spec += "g" if shortest else "e" if scientific else "f"
    flat = x.reshape(-1)
    if kind == "f":
        # bfloat16 has float32's exponents, and its subnormals flush too.
        tiny = _TINY[np.dtype(np.float32)] if bf16 else _TINY.get(x.dtype, 0.0)

        def fmt(v):
            v = float(v)
            if v != 0.0 and abs(v) < tiny:
                v = -0.0 if v < 0 else 0.0  # subnormals are flushed to zero
            return (spec % v).encode("ascii")
    elif kind == "c":
        def fmt(v):
            return ("(" + spec % v.real + "," + spec % v.imag + ")").encode("ascii")
    elif kind in "iu":
        spec += "d"

        def fmt(v):
            return (spec % int(v)).encode("ascii")
    elif kind == "b":
        def fmt(v):
            return b"true" if v else b"false"  # width does not apply to bools
    else:
        def fmt(v):
            return v.rjust(width) if width > -1 else v
    return _obj_array((fmt(v) for v in flat), x.shape)


def _as_string_infer(inputs, attrs):
    x = inputs[0]
    U.check_graph_dtype(x, _AS_STRING_TYPES, "input")
    return [(x.shape, D.string)]


_AsString = register("AsString", _as_string_kernel, _as_string_infer, _no_grads,
                     allowed=_AS_STRING_TYPES)


@export("strings.as_string", "as_string")
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """Each element as text (`tf.strings.as_string`), as C's printf would write it.

    Floats use `%f` (`%e` with `scientific`, `%g` with `shortest`) with
    `precision` digits (6 when -1); `width` pads on the left with `fill`
    (' ' or '0'); bools are 'true'/'false'.
    """
    x = convert_to_tensor(input)
    return apply1(_AsString, x, {"precision": int(precision), "scientific": bool(scientific),
                                 "shortest": bool(shortest), "width": int(width),
                                 "fill": fill}, name=name or "AsString")


# --- to_number ---------------------------------------------------------------------

_TO_NUMBER_TYPES = (D.float32, D.float64, D.int32, D.int64, D.uint32, D.uint64)
_INT_TEXT = re.compile(r"^\s*[+-]?[0-9]+\s*$")
_HEX_FLOAT = re.compile(r"^[+-]?0[xX]")


def _parse_float(text):
    s = text.strip()
    if "_" in s or not s:
        raise ValueError(text)
    if _HEX_FLOAT.match(s):
        return float.fromhex(s)
    return float(s)


def _to_number_kernel(x, out_type=D.float32):
    np_type = out_type._np
    flat = x.reshape(-1)
    out = np.empty(flat.shape, dtype=np_type)
    info = np.iinfo(np_type) if out_type.is_integer else None
    for i, b in enumerate(flat):
        try:
            text = b.decode("ascii")
            if info is not None:
                if not _INT_TEXT.match(text):
                    raise ValueError(text)
                v = int(text)
                if not info.min <= v <= info.max:
                    raise ValueError(text)
                out[i] = v
            else:
                with np.errstate(over="ignore"):
                    out[i] = np_type.type(_parse_float(text))
        except (ValueError, UnicodeDecodeError, OverflowError):
            raise errors.InvalidArgumentError(
                None, None, "StringToNumberOp could not correctly convert string: "
                + _decode(b)) from None
    return out.reshape(x.shape)


def _to_number_infer(inputs, attrs):
    _check_string(inputs[0], "StringToNumber", "string_tensor")
    return [(inputs[0].shape, attrs["out_type"])]


_StringToNumber = register("StringToNumber", _to_number_kernel, _to_number_infer, _no_grads)


@export("strings.to_number")
def to_number(input, out_type=D.float32, name=None):  # noqa: A002
    """Parses each string as a number of `out_type` (`tf.strings.to_number`).

    Raises:
      InvalidArgumentError: for text that is not a number of that type.
    """
    out_type = D.as_dtype(out_type)
    x = _string_input(input, "StringToNumber", "string_tensor")
    if out_type not in _TO_NUMBER_TYPES:
        msg = (f"Value for attr 'out_type' of {out_type.name} is not in the list of allowed "
               "values: float, double, int32, int64, uint32, uint64")
        if _state.graph is None:
            raise U.op_error("StringToNumber", msg)
        raise TypeError(msg)
    return apply1(_StringToNumber, x, {"out_type": out_type}, name=name or "StringToNumber")


# --- substr ------------------------------------------------------------------------

def _utf8_offsets(b):
    """Byte offsets of the characters of UTF-8 `b`, plus len(b)."""
    offs = [i for i, c in enumerate(b) if c & 0xC0 != 0x80]
    offs.append(len(b))
    return offs


def _substr_kernel(x, pos, len, unit="BYTE"):  # noqa: A002 - TensorFlow's input name
    _check_unit(unit, "Substr")
    if pos.shape != len.shape:
        raise errors.InvalidArgumentError(
            None, None, f"pos and len should have the same shape, got: {dims_text(pos.shape)} vs. "
            f"{dims_text(len.shape)} [Op:Substr]")
    try:
        xs, ps, ls = np.broadcast_arrays(x, pos, len)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: {dims_text(x.shape)} vs. {dims_text(pos.shape)} "
            "[Op:Substr]") from None
    out = []
    for i, (s, p, n) in enumerate(zip(xs.reshape(-1), ps.reshape(-1), ls.reshape(-1))):
        p, n = int(p), int(n)
        if unit == "BYTE":
            size = s.__len__()
            offs = None
        else:
            offs = _utf8_offsets(s)
            size = offs.__len__() - 1
        if p > size or p < -size:
            where = f" {s!r}" if unit == "BYTE" else ""
            raise errors.InvalidArgumentError(
                None, None, f"pos {p} out of range for string{where} at index {i}")
        if p < 0:
            p += size
        end = size if n < 0 else min(size, p + n)
        out.append(s[p:end] if offs is None else s[offs[p]:offs[end]])
    return _obj_array(out, xs.shape)


def _substr_infer(inputs, attrs):
    x, pos, n = inputs
    _check_string(x, "Substr")
    if not pos.shape.is_compatible_with(n.shape):
        raise ValueError(f"Shapes must be equal rank, but are {pos.shape.rank} and "
                         f"{n.shape.rank}")
    return [(U.broadcast_shapes(x.shape, pos.shape), D.string)]


_Substr = register("Substr", _substr_kernel, _substr_infer, _no_grads)


@export("strings.substr")
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    """The substrings of `len` bytes (or UTF-8 characters) starting at `pos`.

    A negative `pos` counts from the end; `pos` and `len` broadcast against
    the input (they must have the same shape as each other).

    Raises:
      InvalidArgumentError: when `pos` is outside a string.
    """
    x = _string_input(input, "Substr")
    p = convert_to_tensor(pos, dtype_hint=D.int32)
    n = convert_to_tensor(len, dtype=p.dtype)
    if unit not in ("BYTE", "UTF8_CHAR"):
        if _state.graph is None:
            _check_unit(unit, "Substr")
        raise ValueError(f"Attr 'unit' of 'Substr' Op passed string '{unit}' not in: "
                         "'BYTE', 'UTF8_CHAR'.")
    return apply(_Substr, [x, p, n], {"unit": unit}, name=name or "Substr")


# --- regular expressions ---------------------------------------------------------------

def _compile(pattern, op_name):
    if isinstance(pattern, bytes):
        pattern = _decode(pattern)
    try:
        return re.compile(pattern)
    except re.error as e:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid pattern: {pattern}, error: {e}") from None


def _full_match_kernel(x, pattern):
    rx = _compile(pattern, "StaticRegexFullMatch")
    flat = x.reshape(-1)
    return np.array([rx.fullmatch(_decode(v)) is not None for v in flat],
                    dtype=bool).reshape(x.shape)


def _dynamic_full_match_kernel(x, pattern):
    return _full_match_kernel(x, pattern[()] if isinstance(pattern, np.ndarray) else pattern)


_StaticRegexFullMatch = register("StaticRegexFullMatch", _full_match_kernel,
                                 _same_shape_infer("StaticRegexFullMatch", D.bool_), _no_grads)
_RegexFullMatch = register("RegexFullMatch", _dynamic_full_match_kernel,
                           _same_shape_infer("RegexFullMatch", D.bool_), _no_grads)


@export("strings.regex_full_match")
def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches the regular expression `pattern` (bool)."""
    x = _string_input(input, "RegexFullMatch")
    if isinstance(pattern, (str, bytes)):
        pattern = pattern if isinstance(pattern, str) else _decode(pattern)
        return apply1(_StaticRegexFullMatch, x, {"pattern": pattern},
                      name=name or "StaticRegexFullMatch")
    p = _string_input(pattern, "RegexFullMatch", "pattern")
    return apply(_RegexFullMatch, [x, p], name=name or "RegexFullMatch")


_REWRITE_TOKEN = re.compile(r"\\(\d)|\\\\")


def _rewriter(rewrite, groups):
    """A re.sub callback for an RE2 rewrite: \\0-\\9 insert groups, \\\\ a backslash."""
    pieces = []
    pos = 0
    for m in _REWRITE_TOKEN.finditer(rewrite):
        pieces.append(rewrite[pos:m.start()])
        if m.group(1) is not None:
            g = int(m.group(1))
            if g > groups:
                return None  # RE2 rejects the rewrite and leaves the input alone
            pieces.append(g)
        else:
            pieces.append("\\")
        pos = m.end()
    pieces.append(rewrite[pos:])

    def expand(m):
        return "".join(p if isinstance(p, str) else (m.group(p) or "") for p in pieces)
    return expand


def _replace_kernel(x, pattern, rewrite, replace_global=True):
    rx = _compile(pattern, "StaticRegexReplace")
    if isinstance(rewrite, bytes):
        rewrite = _decode(rewrite)
    expand = _rewriter(rewrite, rx.groups)
    if expand is None:
        return x.copy()
    count = 0 if replace_global else 1
    return _map_strings(x, lambda b: _encode(rx.sub(expand, _decode(b), count=count)))


def _dynamic_replace_kernel(x, pattern, rewrite, replace_global=True):
    return _replace_kernel(x, pattern[()], rewrite[()], replace_global)


_StaticRegexReplace = register("StaticRegexReplace", _replace_kernel,
                               _same_shape_infer("StaticRegexReplace"), _no_grads)
_RegexReplace = register("RegexReplace", _dynamic_replace_kernel,
                         _same_shape_infer("RegexReplace"), _no_grads)


@export("strings.regex_replace")
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Replaces matches of `pattern` by `rewrite` (`\\1` inserts group 1).

    Only the first match of each string is replaced unless `replace_global`.
    """
    x = _string_input(input, "RegexReplace")
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        attrs = {"pattern": pattern if isinstance(pattern, str) else _decode(pattern),
                 "rewrite": rewrite if isinstance(rewrite, str) else _decode(rewrite),
                 "replace_global": bool(replace_global)}
        return apply1(_StaticRegexReplace, x, attrs, name=name or "StaticRegexReplace")
    p = _string_input(pattern, "RegexReplace", "pattern")
    r = _string_input(rewrite, "RegexReplace", "rewrite")
    return apply(_RegexReplace, [x, p, r], {"replace_global": bool(replace_global)},
                 name=name or "RegexReplace")


# --- reduce_join -------------------------------------------------------------------------

def _reduce_join_kernel(x, reduction_indices, keep_dims=False, separator=""):
    r = x.ndim
    axes = []
    for a in np.reshape(reduction_indices, -1):
        a = int(a)
        if not -r <= a < r:
            raise errors.OutOfRangeError(
                None, None, f"Invalid reduction dimension {a} for input with {r} dimension(s)")
        a %= r
        if a in axes:
            raise errors.InvalidArgumentError(None, None,
                                              f"Duplicate reduction dimension {a}")
        axes.append(a)
    kept = [d for d in range(r) if d not in axes]
    # The first listed axis varies fastest in the joined text.
    order = kept + axes[::-1]
    t = np.transpose(x, order) if r else x
    kept_shape = tuple(x.shape[d] for d in kept)
    n = int(np.prod(kept_shape)) if kept_shape else 1
    rows = t.reshape(n, -1) if t.size else np.empty((n, 0), dtype=object)
    sep = separator.encode("utf-8")
    out = _obj_array((sep.join(row) for row in rows), kept_shape)
    if keep_dims:
        out = out.reshape(tuple(1 if d in axes else x.shape[d] for d in range(r)))
    return out


def _reduce_join_infer(inputs, attrs):
    x, axes = inputs
    _check_string(x, "ReduceJoin", "inputs")
    a = U.constant_value(axes)
    s = x.shape
    keep = attrs.get("keep_dims", False)
    if s.rank is None:
        return [(TensorShape(None), D.string)]
    if a is None:
        if keep:
            return [(TensorShape([None] * s.rank), D.string)]
        return [(TensorShape(None), D.string)]
    r = s.rank
    red = set()
    for v in np.reshape(a, -1):
        v = int(v)
        if not -r <= v < r:
            raise ValueError(f"Invalid reduction dimension {v} for input with {r} dimensions.")
        red.add(v % r)
    if keep:
        return [(TensorShape([1 if i in red else d for i, d in enumerate(s)]), D.string)]
    return [(TensorShape([d for i, d in enumerate(s) if i not in red]), D.string)]


_ReduceJoin = register("ReduceJoin", _reduce_join_kernel, _reduce_join_infer, _no_grads)


@export("strings.reduce_join")
def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along `axis` (all axes if None) with `separator`."""
    if not isinstance(inputs, Tensor):
        # A Python value converts on its own dtype first ([] is float32, as in TensorFlow).
        try:
            inputs = convert_to_tensor(inputs)
        except (TypeError, ValueError):
            pass
    x = _string_input(inputs, "ReduceJoin", "inputs")
    if axis is None:
        r = x.shape.rank
        if r is None:
            axes = range_(subtract(rank(x), 1), -1, -1)
        else:
            axes = convert_to_tensor(np.arange(r - 1, -1, -1, dtype=np.int32))
    else:
        axes = convert_to_tensor(axis, dtype_hint=D.int32)
    return apply(_ReduceJoin, [x, axes], {"keep_dims": bool(keepdims),
                                          "separator": separator}, name=name or "ReduceJoin")


# --- split -------------------------------------------------------------------------------

def _split_one(b, sep, maxsplit):
    if sep:
        return b.split(sep, maxsplit) if maxsplit >= 0 else b.split(sep)
    return b.split(None, maxsplit) if maxsplit >= 0 else b.split()


def _split_kernel(x, sep, maxsplit=-1):
    sep = sep[()] if isinstance(sep, np.ndarray) else sep
    flat = x.reshape(-1)
    # Splitting is per string (bytes.split); the indices are whole-array NumPy.
    parts = [_split_one(b, sep, maxsplit) for b in flat.tolist()]
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    values = list(itertools.chain.from_iterable(parts))
    total = len(values)
    starts = np.cumsum(lengths) - lengths
    rows = np.repeat(np.arange(flat.size, dtype=np.int64), lengths)
    cols = np.arange(total, dtype=np.int64) - np.repeat(starts, lengths)
    idx = np.stack([rows, cols], axis=1) if total else np.zeros((0, 2), np.int64)
    width = int(lengths.max()) if lengths.size else 0
    out = np.empty(total, dtype=object)
    out[:] = values
    return [idx, out, np.array([flat.size, width], dtype=np.int64)]


def _split_infer(inputs, attrs):
    x, sep = inputs
    _check_string(x, "StringSplitV2")
    if x.shape.rank is not None and x.shape.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {x.shape.rank} for StringSplitV2")
    return [(TensorShape([None, 2]), D.int64), (TensorShape([None]), D.string),
            (TensorShape([2]), D.int64)]


_StringSplitV2 = register("StringSplitV2", _split_kernel, _split_infer, _no_grads)


@export("strings.split")
def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """Splits each string at `sep` (runs of whitespace if None or '').

    A scalar gives a 1-D string tensor of the pieces; a tensor of rank N
    gives a RaggedTensor of rank N + 1 (one row of pieces per string).
    """
    x = _string_input(input, "StringSplitV2")
    rank = x.shape.rank
    if rank is None:
        raise ValueError("Rank of input must be known for tf.strings.split")
    s = convert_to_tensor(sep if sep is not None else "", dtype=D.string)
    if rank == 0:
        _, values, _ = apply(_StringSplitV2, [reshape(x, [1]), s], {"maxsplit": int(maxsplit)},
                             name=name or "StringSplit", multi=True)
        return values
    flat = x
    if rank > 1:
        flat = reshape(x, [-1])
    indices, values, shape = apply(_StringSplitV2, [flat, s], {"maxsplit": int(maxsplit)},
                                   name=name or "StringSplit", multi=True)
    out = RaggedTensor._from_value_rowids(values, indices, shape)
    if rank > 1:
        out = _nest_uniform(out, x)
    return out


def _nest_uniform(ragged, x):
    """Regroups the rows of `ragged` (one per element of `x`) by `x`'s leading
    dims (uniform row lengths; eagerly and in graphs)."""
    out = ragged
    for d in reversed(list(x.shape)[1:]):
        out = RaggedTensor.from_uniform_row_length(out, d, validate=False)
    return out
