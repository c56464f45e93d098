"""`tf.io.decode_csv`: CSV records to one tensor per column (the DecodeCSV
op), field splitting, quoting and number syntax as TensorFlow's kernel.

A record is split by `field_delim`; with `use_quote_delim` a field may be
quoted (`"a,b"`, `""` for a quote) and an unquoted field may not hold a
quote, CR or LF. An empty field, or one equal to `na_value`, takes the
column's default; a column without a default (an empty tensor) must be
present. Numbers follow TensorFlow's `safe_strto32/64` (decimal digits, a
sign, surrounding whitespace) and `safe_strtof/d` (also hex, inf, nan).
"""
import re
from fractions import Fraction

import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply
from ...framework.op_registry import register
from ..core import op_util as U

__all__ = ["decode_csv"]

_TYPES = (D.float32, D.float64, D.int32, D.int64, D.string)
_SPACE = " \t\n\v\f\r"
_INT = re.compile(rb"[+-]?[0-9]+\Z")
_DEC = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX = re.compile(rb"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                  rb"(?:[pP][+-]?[0-9]+)?)\Z")
_SPECIAL = re.compile(rb"([+-]?)(inf|infinity|nan(?:\([0-9a-zA-Z_]*\))?)\Z", re.I)
_INT_RANGE = {D.int32: (-2 ** 31, 2 ** 31 - 1), D.int64: (-2 ** 63, 2 ** 63 - 1)}


def _error(msg):
    return U.op_error("DecodeCSV", msg)


def _fields(record, delim, quote, cols):
    """The fields of one record (only the columns in `cols`, if given), as
    TensorFlow's kernel extracts them."""
    out, i, n, parsed, sel = [], 0, len(record), 0, 0
    if not record:
        return out
    if (not quote or 34 not in record) and 10 not in record and 13 not in record:
        # Nothing to unquote or skip: a plain split gives the same fields.
        fields = record.split(bytes((delim,)))
        return fields if cols is None else [fields[c] for c in cols if c < len(fields)]
    while i < n:
        c = record[i]
        if c in (10, 13):           # a CR or LF between fields is skipped
            i += 1
            continue
        include = cols is None or cols[sel] == parsed
        field = bytearray()
        if quote and c == 34:
            i += 1
            while i < n - 1 and (record[i] != 34 or record[i + 1] != delim):
                if record[i] != 34:
                    field.append(record[i])
                    i += 1
                else:
                    if record[i + 1] != 34:
                        raise _error("Quote inside a string has to be escaped by another "
                                     "quote")
                    field.append(34)
                    i += 2
            if not (i < n and record[i] == 34 and (i == n - 1 or record[i + 1] == delim)):
                raise _error("Quoted field has to end with quote followed by delim or end")
            i += 2
        else:
            while i < n and record[i] != delim:
                if (quote and record[i] == 34) or record[i] in (10, 13):
                    raise _error("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(record[i])
                i += 1
            i += 1
        parsed += 1
        if include:
            out.append(bytes(field))
            sel += 1
            if cols is not None and sel == len(cols):
                return out
    if (cols is None or cols[sel] == parsed) and record[-1] == delim:
        out.append(b"")             # a delimiter at the end: an empty last field
    return out


def _int(text, dtype):
    s = text.strip(_SPACE.encode())
    if not _INT.match(s):
        return None
    v = int(s)
    lo, hi = _INT_RANGE[dtype]
    return v if lo <= v <= hi else None


def _float(text):
    """The value of a float field as a Python float, or None if invalid."""
    s = text.strip(_SPACE.encode())
    if _DEC.match(s):
        return float(s)
    m = _HEX.match(s)
    if m:
        body = m.group(2).decode()
        v = float.fromhex("0x" + body if "p" in body.lower() else "0x" + body + "p0")
        return -v if m.group(1) == b"-" else v
    m = _SPECIAL.match(s)
    if m:
        v = float("nan") if m.group(2)[:1] in b"nN" else float("inf")
        return -v if m.group(1) == b"-" else v
    return None


def _to_float32(text, v):
    """float32 of decimal `text` whose double is `v`, rounded once from the
    decimal as TensorFlow's parser does (a double halfway between two floats
    may come from a decimal that is not)."""
    with np.errstate(over="ignore"):
        f = np.float32(v)
    if np.isinf(f) and np.isfinite(v):
        # Past the largest float: the double may sit exactly on the boundary.
        mid = np.copysign(2.0 ** 128 - 2.0 ** 103, v)
        if v != mid:
            return f
        f, other = np.float32(np.copysign(np.finfo(np.float32).max, v)), f
    elif not np.isfinite(f) or float(f) == v:
        return f
    else:
        other = np.nextafter(f, np.float32(np.inf if v > float(f) else -np.inf))
        mid = (float(f) + float(other)) / 2
        if v != mid:            # NumPy's rounding of the double is the decimal's
            return f
    stripped = text.strip(_SPACE.encode())
    if not _DEC.match(stripped):
        return f
    exact, half = Fraction(stripped.decode()), Fraction(mid)
    if exact == half:           # a true tie: to the even one
        return f if int(f.view(np.uint32)) % 2 == 0 else other
    return other if (exact > half) == (float(other) > float(f)) else f


def _convert(field, dtype, f, i):
    if dtype is D.string:
        return field
    if dtype in (D.int32, D.int64):
        v = _int(field, dtype)
    else:
        v = _float(field)
        if v is not None and dtype is D.float32:
            v = _to_float32(field, v)
    if v is None:
        raise _error(f"Field {f} in record {i} is not a valid {U.tf_type_name(dtype)}: "
                     f"{field.decode('utf-8', 'replace')}")
    return v


def _kernel(records, *defaults, OUT_TYPE=(), field_delim=",", use_quote_delim=True,
            na_value="", select_cols=()):
    if len(field_delim) != 1:
        raise _error("field_delim should be only 1 char")
    for f, d in enumerate(defaults):
        d = np.asarray(d)
        if d.ndim > 1:
            raise _error("Each record default should be at most rank 1")
        if d.size > 1:
            raise _error(f"There should only be 1 default per field but field {f} has "
                         f"{d.size}")
    records = np.asarray(records, dtype=object)
    delim = field_delim.encode("latin-1")[0]
    na = na_value.encode("utf-8")
    cols = list(select_cols) or None
    outs = [np.empty(records.shape, dtype=object if t is D.string else t.as_numpy_dtype)
            for t in OUT_TYPE]
    flat = [o.reshape(-1) for o in outs]
    for i, rec in enumerate(records.reshape(-1)):
        fields = _fields(bytes(rec), delim, use_quote_delim, cols)
        if len(fields) != len(OUT_TYPE):
            raise _error(f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in record {i}")
        for f, (field, dtype) in enumerate(zip(fields, OUT_TYPE)):
            if not field or field == na:
                d = np.asarray(defaults[f])
                if d.size != 1:
                    raise _error(f"Field {f} is required but missing in record {i}!")
                flat[f][i] = d.reshape(-1)[0]
            else:
                flat[f][i] = _convert(field, dtype, f, i)
    return outs


def _infer(inputs, attrs):
    return [(inputs[0].shape, t) for t in attrs["OUT_TYPE"]]


_DecodeCSV = register("DecodeCSV", _kernel, _infer)


@export("io.decode_csv", "compat.v1.io.decode_csv", "compat.v1.decode_csv")
def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=None, name=None):
    """Converts CSV records to tensors, one per column.

    Args:
      records: string tensor of records, any shape; each output has its shape.
      record_defaults: one tensor (or list) per column with one default value,
        or none (an empty tensor) if the column is required; its dtype
        (float32, float64, int32, int64 or string) is the column's.
      field_delim: the one-character field separator.
      use_quote_delim: whether double quotes delimit fields.
      na_value: a field equal to it is missing.
      select_cols: increasing column indices to keep (one per default).

    Raises:
      ValueError: for a bad `select_cols`.
      InvalidArgumentError: for a record with the wrong number of fields, a
        malformed or missing required field, or a bad default.
    """
    if select_cols is not None and any(select_cols[i] >= select_cols[i + 1]
                                       for i in range(len(select_cols) - 1)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    r = convert_to_tensor(records, dtype=D.string)
    defaults = [convert_to_tensor(d) for d in record_defaults]
    types = tuple(d.dtype for d in defaults)
    if not types:
        raise errors.InvalidArgumentError(
            None, None, "Length for attr 'OUT_TYPE' of 0 must be at least minimum 1\n\t; "
            "NodeDef: {{node DecodeCSV}} [Op:DecodeCSV]")
    for t in types:
        if t not in _TYPES:
            raise U.dtype_error("DecodeCSV", t, _TYPES, attr="OUT_TYPE",
                                param="record_defaults")
    attrs = {"OUT_TYPE": types, "field_delim": field_delim,
             "use_quote_delim": bool(use_quote_delim), "na_value": na_value,
             "select_cols": tuple(int(c) for c in select_cols or ())}
    return apply(_DecodeCSV, [r] + defaults, attrs, name=name or "DecodeCSV", multi=True)
