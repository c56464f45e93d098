"""`tf.print`, `tf.strings.format`, `tf.debugging.Assert` and the text forms
of tensors they produce.

TensorFlow prints tensors with its C++ runtime, not NumPy, and programs
compare that output byte for byte, so this module reproduces it:

- `summarize_v2` is what `tf.print` and `tf.strings.format` show: at most
  `summarize` entries at each end of every dimension with `...` between,
  one line per row, one blank line between the blocks of a rank-3 tensor,
  strings quoted and escaped.
- `summarize_v1` is the older form used in `Assert` failures: the first
  `summarize` entries in row-major order, strings unquoted.

Floats print as C's `%g` with the fewest digits that read back to the same
value (6 or 9 digits for float32, 15 or 17 for float64).

The printing itself is the stateful `PrintV2` op, so inside a graph it is
an operation that runs every time the graph runs. It looks up `sys.stderr`
and `sys.stdout` when it runs, so redirected streams receive the text.
"""
import logging as _py_logging
import math
import os
import pprint
import random
import re
import struct
import sys
import time

import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework import lowering as XL
from ...framework.api_export import export, export_value
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply_op
from ...framework.op_registry import register
from ...framework.tensor import Tensor
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor_shape import TensorShape

_state = _context.state

__all__ = ["print_v2", "string_format", "Assert", "summarize_v1", "summarize_v2",
           "format_element"]


# --- elements ---------------------------------------------------------------

_TINY32 = float(np.finfo(np.float32).tiny)
_TINY64 = float(np.finfo(np.float64).tiny)


_INF = float("inf")
_F32 = struct.Struct("f")


def _float_text(v, double):
    """C's shortest round-trip `%g` text of one float (as TensorFlow prints it)."""
    f = float(v)
    if f != f:
        return "-nan" if math.copysign(1.0, f) < 0 else "nan"
    if f == _INF or f == -_INF:
        return "inf" if f > 0 else "-inf"
    tiny = _TINY64 if double else _TINY32
    if -tiny < f < tiny and f != 0.0:
        # TensorFlow's CPU kernels flush subnormal numbers to zero.
        f = math.copysign(0.0, f)
    if double:
        s = "%.15g" % f
        return s if float(s) == f else "%.17g" % f
    s = "%.6g" % f
    try:
        if _F32.unpack(_F32.pack(float(s)))[0] == f:
            return s
    except OverflowError:
        pass
    return "%.9g" % f


# Bytes a C-style escape rewrites: quotes, backslash and control characters.
_ESCAPE_UTF8_SAFE = re.compile(rb'[\x00-\x1f\x7f"\'\\]')
_ESCAPE_ALL = re.compile(rb'[\x00-\x1f\x7f-\xff"\'\\]')
_NAMED_ESCAPES = {0x0a: b"\\n", 0x0d: b"\\r", 0x09: b"\\t", 0x22: b'\\"', 0x27: b"\\'",
                  0x5c: b"\\\\"}


def _escape_byte(m):
    b = m.group()[0]
    return _NAMED_ESCAPES.get(b) or b"\\%03o" % b


def c_escape(data, utf8_safe=True):
    """`data` (bytes) with C escapes; with `utf8_safe`, bytes >= 0x80 stay as they are."""
    return (_ESCAPE_UTF8_SAFE if utf8_safe else _ESCAPE_ALL).sub(_escape_byte, data)


def _text(data):
    """Bytes as str, keeping invalid UTF-8 recoverable (`surrogateescape`)."""
    return data.decode("utf-8", "surrogateescape")


def format_element(v, kind, double=False, quote=True):
    """The text of one tensor element of NumPy kind `kind` ('f', 'i', 'b', 'O', ...)."""
    if kind == "f":
        return _float_text(v, double)
    if kind == "i" or kind == "u":
        return str(int(v))
    if kind == "b":
        return "1" if v else "0"
    if kind == "O":
        if isinstance(v, str):
            v = v.encode("utf-8")
        if quote:
            return '"' + _text(c_escape(v)) + '"'
        return _text(c_escape(v, utf8_safe=False))
    return "?"  # complex and other types: TensorFlow prints a question mark


def _element_formatter(arr, quote):
    kind = arr.dtype.kind
    double = arr.dtype == np.float64
    if kind == "f":
        return lambda v: _float_text(v, double)
    if kind in "iu":
        return lambda v: str(int(v))
    if kind == "b":
        return lambda v: "1" if v else "0"
    return lambda v: format_element(v, kind, double, quote)


def _limit(arr, summarize):
    n = arr.size
    if summarize is None:
        summarize = 3
    return n if summarize < 0 else min(int(summarize), n)


# --- whole tensors ------------------------------------------------------------

# Above this many elements only the printed ones are converted to Python values.
_TOLIST_LIMIT = 4096


def summarize_v2(arr, summarize=3):
    """`arr` as `tf.print` shows it (see the module docstring)."""
    arr = np.asarray(arr)
    fmt = _element_formatter(arr, True)
    if arr.ndim == 0:
        return fmt(arr[()])
    shape = arr.shape
    nd = len(shape)
    ends = _limit(arr, summarize)
    flat = arr.reshape(-1)
    items = flat.tolist() if flat.size <= _TOLIST_LIMIT else flat
    if nd == 1:
        n = shape[0]
        text = " ".join([fmt(v) for v in items[:min(ends, n)]])
        if n > 2 * ends:
            text += " ..."
        for v in items[max(ends, n - ends):n]:
            text += " " + fmt(v)
        return "[" + text + "]"
    # Elements per step of each dimension.
    strides = [1] * nd
    for d in range(nd - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    gaps = [" " if d == nd - 1 else "\n" * (nd - d - 1) + " " * (d + 1) for d in range(nd)]
    out = []

    def dim(d, base):
        if d == nd:
            out.append(fmt(items[base]))
            return
        out.append("[")
        n = shape[d]
        gap = gaps[d]
        step = strides[d]
        for i in range(min(ends, n)):
            if i:
                out.append(gap)
            dim(d + 1, base + i * step)
        if n > 2 * ends:
            out.append(gap)
            out.append("...")
        for i in range(max(ends, n - ends), n):
            out.append(gap)
            dim(d + 1, base + i * step)
        out.append("]")

    dim(0, 0)
    return "".join(out)


def summarize_v1(arr, summarize=3):
    """`arr` as an `Assert` failure shows it: the first `summarize` entries in
    row-major order, nested in brackets, `...` where entries were left out."""
    arr = np.asarray(arr)
    fmt = _element_formatter(arr, False)
    if arr.ndim == 0:
        return fmt(arr[()])
    shape = arr.shape
    nd = len(shape)
    limit = _limit(arr, summarize)
    flat = arr.reshape(-1)
    out = []
    pos = [0]

    def dim(d):
        if pos[0] >= limit:
            return
        n = shape[d]
        if d == nd - 1:
            for i in range(n):
                if pos[0] >= limit:
                    if d:
                        out.append("...")
                    return
                if i:
                    out.append(" ")
                out.append(fmt(flat[pos[0]]))
                pos[0] += 1
            return
        for _ in range(n):
            opened = pos[0] < limit
            if opened:
                out.append("[")
            dim(d + 1)
            if opened:
                out.append("]")

    dim(0)
    if flat.size > limit:
        out.append("...")
    return "".join(out)


def _scalar_string(data):
    out = np.empty((), dtype=object)
    out[()] = data
    return out


# --- StringFormat -------------------------------------------------------------

def _string_format_kernel(*inputs, template, placeholder, summarize, T=None):
    parts = template.split(placeholder)
    if len(parts) != len(inputs) + 1:
        raise errors.InvalidArgumentError(
            None, None, f"num placeholders in template and num inputs must match: "
            f"{len(parts) - 1} vs. {len(inputs)}")
    pieces = [parts[0]]
    for arr, text in zip(inputs, parts[1:]):
        pieces.append(summarize_v2(arr, summarize))
        pieces.append(text)
    return _scalar_string("".join(pieces).encode("utf-8", "surrogateescape"))


def _string_format_infer(inputs, attrs):
    n = attrs["template"].count(attrs["placeholder"])
    if n != len(inputs):
        raise ValueError(f"The template expects {n} tensors, but the inputs only has "
                         f"{len(inputs)}. Please ensure the number of placeholders in template "
                         "matches inputs length.")
    return [(TensorShape([]), D.string)]


def _no_grads(op, *grads):
    return [None] * len(op.inputs)


_StringFormat = register("StringFormat", _string_format_kernel, _string_format_infer,
                         _no_grads)


@export("strings.format")
def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """Formats tensors into `template`, one per `placeholder` (`tf.strings.format`).

    Tensors appear as `tf.print` shows them: `summarize` entries at each end
    of every dimension (all of them if negative), strings quoted.

    Args:
      template: the text, with one `placeholder` per input.
      inputs: a tensor or a list of tensors (or Python values).
      placeholder: the marker replaced by each tensor in turn.
      summarize: entries shown at each end of each dimension.

    Returns:
      A scalar string tensor.

    Raises:
      ValueError: if the number of placeholders differs from the number of inputs.
    """
    if isinstance(inputs, Tensor) or hasattr(inputs, "_dense_var_to_tensor"):
        inputs = [inputs]
    elif not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    tensors = [convert_to_tensor(t) for t in inputs]
    n = template.count(placeholder)
    if n != len(tensors):
        raise ValueError(f"The template expects {n} tensors, but the inputs only has "
                         f"{len(tensors)}. Please ensure the number of placeholders in template "
                         "matches inputs length.")
    attrs = {"T": [t.dtype for t in tensors], "template": template,
             "placeholder": placeholder, "summarize": int(summarize)}
    return apply(_StringFormat, tensors, attrs, name=name or "StringFormat")


# --- PrintV2 ------------------------------------------------------------------

_LOG_LEVELS = {"log(info)": _py_logging.INFO, "log(warning)": _py_logging.WARNING,
               "log(error)": _py_logging.ERROR}


def _write(stream, data):
    try:
        stream.write(data.decode("utf-8"))
    except UnicodeDecodeError:
        # Not UTF-8: the bytes go out as they are, as TensorFlow's C++ writer does.
        buf = getattr(stream, "buffer", None)
        if buf is not None:
            stream.flush()
            buf.write(data)
        else:
            stream.write(data.decode("utf-8", "backslashreplace"))
    stream.flush()


def _print_kernel(text, output_stream="stderr", end="\n"):
    data = text[()] if isinstance(text, np.ndarray) else text
    data = data + end.encode("utf-8")
    if output_stream == "stderr":
        _write(sys.stderr, data)
    elif output_stream == "stdout":
        _write(sys.stdout, data)
    elif output_stream.startswith("file://"):
        with open(output_stream[len("file://"):], "ab") as fh:
            fh.write(data)
    else:
        level = _LOG_LEVELS.get(output_stream)
        if level is None:
            raise errors.InvalidArgumentError(
                None, None, f"{output_stream} is not a valid output stream.")
        msg = data.decode("utf-8", "replace")
        if msg.endswith("\n"):
            msg = msg[:-1]
        _py_logging.getLogger("tensorflow").log(level, msg)
    return []


def _print_infer(inputs, attrs):
    s = inputs[0]
    if s.dtype is not D.string:
        raise TypeError(f"Input 'input' of 'PrintV2' Op has type {s.dtype.name} that does not "
                        "match expected type of string.")
    if s.shape.rank is not None and s.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {s.shape.rank} for PrintV2")
    return []


_PrintV2 = register("PrintV2", _print_kernel, _print_infer, _no_grads, stateful=True)


def _stream_name(output_stream):
    """The `output_stream` attr naming where `tf.print` writes."""
    if output_stream is None or output_stream is sys.stderr or output_stream is sys.__stderr__:
        return "stderr"
    if output_stream is sys.stdout or output_stream is sys.__stdout__:
        return "stdout"
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    for level, fn in _LOGGING_STREAMS.items():
        if output_stream is fn:
            return level
    raise ValueError(
        f"Unsupported output stream, logging level, or file.{output_stream}. Supported "
        "streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, "
        "tf.logging.error. File needs to be in the form of 'file://<filepath>'.")


class _Slot:
    """Stands for a tensor while a structure is laid out by `pprint`; its repr
    is as wide as TensorFlow's quoted placeholder, so lines wrap the same way."""

    __slots__ = ("text",)

    def __init__(self, index, width):
        # Private-use characters: `repr` escapes them in user strings, so a
        # slot cannot be confused with anything else in the laid-out text.
        digits = []
        for _ in range(width - 1):
            digits.append(chr(0xE000 + index % 0x1000))
            index //= 0x1000
        self.text = "\uF8FF" + "".join(digits)

    def __repr__(self):
        return self.text


_SLOT = re.compile("\uF8FF[\uE000-\uEFFF]+")


def _is_tensor_like(x):
    return isinstance(x, Tensor) or hasattr(x, "_dense_var_to_tensor")


def _map_leaves(x, fn):
    """`x` with every tensor replaced by `fn(tensor)`, through lists, tuples,
    namedtuples and dicts."""
    if _is_tensor_like(x):
        return fn(x)
    if isinstance(x, dict):
        return type(x)((k, _map_leaves(v, fn)) for k, v in x.items()) \
            if type(x) is not dict else {k: _map_leaves(v, fn) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[_map_leaves(v, fn) for v in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_map_leaves(v, fn) for v in x)
    if type(x).__name__ == "RaggedTensor" and hasattr(x, "to_list"):
        return x.to_list()
    if x.__class__ is SparseTensor:
        return _SparseShown([fn(c) for c in (x.indices, x.values, x.dense_shape)])
    return x


class _SparseShown:
    """A SparseTensor in a printed structure: TensorFlow shows it as the
    quoted text 'SparseTensor(indices=..., values=..., shape=...)'."""

    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = parts

    def __repr__(self):
        return "'SparseTensor(indices=%r, values=%r, shape=%r)'" % tuple(self.parts)


def _placeholder_for(text):
    """A placeholder that does not occur in `text`, grown as TensorFlow grows it."""
    placeholder = "{}"
    if placeholder not in text:
        return placeholder
    rng = random.Random(5)
    while placeholder in text:
        placeholder += str(rng.randint(0, 9))
    return placeholder


def _build_format(inputs, sep):
    """The StringFormat template, placeholder and tensors for `tf.print(*inputs)`."""
    if all(isinstance(x, str) or _is_tensor_like(x) for x in inputs):
        # The common case needs no layout: strings as they are, tensors as slots.
        tensors = [x for x in inputs if not isinstance(x, str)]
        text = sep.join(x if isinstance(x, str) else "" for x in inputs)
        placeholder = _placeholder_for(text)
        template = sep.join(x if isinstance(x, str) else placeholder for x in inputs)
        return template, placeholder, tensors
    tensor_free = " ".join(pprint.pformat(_map_leaves(x, lambda t: "")) for x in inputs)
    placeholder = _placeholder_for(tensor_free)
    width = len(placeholder) + 2
    slots = {}

    def slot(t):
        s = _Slot(len(slots), width)
        slots[s.text] = t
        return s

    parts = []
    for x in inputs:
        if isinstance(x, str):
            parts.append(x)
        else:
            parts.append(pprint.pformat(_map_leaves(x, slot)))
    text = sep.join(parts)
    while placeholder in text:
        placeholder += "0"
    tensors = []

    def take(m):
        tensors.append(slots[m.group()])
        return placeholder

    template = _SLOT.sub(take, text)
    return template, placeholder, tensors


@export("print")
def print_v2(*inputs, **kwargs):
    """Prints tensors and Python values (`tf.print`).

    Eagerly it prints now; inside a `tf.function` or graph it adds a
    stateful `PrintV2` op that prints every time the graph runs, and
    returns that Operation.

    Args:
      *inputs: tensors, Python values and nested lists/tuples/dicts of them.
        Strings print as they are; structures as Python shows them, with
        each tensor in its `tf.print` form.
      output_stream: `sys.stderr` (default), `sys.stdout`, a
        `'file://<path>'` (appended to), or `tf.compat.v1.logging.info`,
        `.warning` or `.error`.
      summarize: entries shown at each end of each dimension; -1 for all.
      sep: text between inputs. end: text after the last input.
      name: name of the op in a graph.

    Raises:
      ValueError: for an unsupported `output_stream` or unknown keyword.
    """
    output_stream = kwargs.pop("output_stream", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    stream = _stream_name(output_stream)
    if (len(inputs) == 1 and _is_tensor_like(inputs[0])
            and inputs[0].dtype is D.string and inputs[0].shape.rank == 0):
        # A lone string scalar prints as its bare text.
        text = convert_to_tensor(inputs[0])
    else:
        template, placeholder, tensors = _build_format(inputs, sep)
        tensors = [convert_to_tensor(t) for t in tensors]
        attrs = {"T": [t.dtype for t in tensors], "template": template,
                 "placeholder": placeholder,
                 "summarize": -1 if summarize is None else int(summarize)}
        fname = name + "_format" if name else "StringFormat"
        if _state.graph is None:
            # Eagerly, skip building a tensor for the text: format and write.
            out = _string_format_kernel(*[t._v for t in tensors], **attrs)
            _print_kernel(out, stream, end)
            return None
        text = apply(_StringFormat, tensors, attrs, name=fname)
    attrs = {"output_stream": stream, "end": end}
    if _state.graph is None:
        _print_kernel(text._v, stream, end)
        return None
    return apply_op(_PrintV2, [text], attrs, name=name or "PrintV2")


# --- Assert ---------------------------------------------------------------------

def _assert_kernel(condition, *data, T=None, summarize=3):
    if condition.size != 1:
        raise errors.InvalidArgumentError(
            None, None, f"In[0] expected to be a scalar, but got shape {list(condition.shape)}")
    if not condition.reshape(-1)[0]:
        shown = " ".join("[" + summarize_v1(d, summarize) + "]" for d in data)
        raise errors.InvalidArgumentError(None, None, "assertion failed: " + shown)
    return []


def _assert_infer(inputs, attrs):
    c = inputs[0]
    if c.dtype is not D.bool_:
        raise TypeError(f"Input 'condition' of 'Assert' Op has type {c.dtype.name} that does "
                        "not match expected type of bool.")
    return []


_Assert = register("Assert", _assert_kernel, _assert_infer, _no_grads, stateful=True)


def summarize_eager(t, summarize=None):
    """How an eager `Assert` failure lists one data tensor: 'v1, v2, v3, ...'."""
    if summarize is None:
        summarize = 3
    v = t.numpy() if hasattr(t, "numpy") else np.asarray(t)
    if np.ndim(v):
        flat = np.asarray(v).reshape(-1)
        n = flat.size if summarize < 0 else summarize
        items = [str(x) for x in flat[:n]]
        if len(items) < flat.size:
            items.append("...")
        return ", ".join(items)
    return str(v) if summarize != 0 else ""


@export("debugging.Assert", "Assert")
def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """Checks that `condition` is true; otherwise fails showing `data` (`tf.debugging.Assert`).

    Eagerly it raises at once and returns None. In a graph it adds a
    stateful `Assert` op that fails when it runs, and returns the Operation
    (use it in `tf.control_dependencies`).

    Args:
      condition: a scalar boolean.
      data: tensors (or Python values) shown when the condition is false.
      summarize: entries of each tensor to show (3 if None; all if negative).

    Raises:
      InvalidArgumentError: eagerly, when `condition` is false.
    """
    if _state.graph is None:
        if not condition:
            shown = "\n".join(summarize_eager(convert_to_tensor(d), summarize) for d in data)
            raise errors.InvalidArgumentError(
                None, None, f"Expected '{condition!s}' to be true. Summarized data: {shown}")
        return None
    g = _state.graph
    with g.name_scope(name or "Assert"):
        condition = convert_to_tensor(condition, dtype=D.bool_, name="Condition")
        tensors = [convert_to_tensor(d) for d in data]
        attrs = {"T": [t.dtype for t in tensors],
                 "summarize": 3 if summarize is None else int(summarize)}
        return apply_op(_Assert, [condition] + tensors, attrs, name="Assert")


# --- tf.compat.v1.logging -------------------------------------------------------

_logger = _py_logging.getLogger("tensorflow")


class _StandardErrorHandler(_py_logging.StreamHandler):
    """Writes to the current `sys.stderr` (or `sys.stdout`), looked up at each
    record, so a replaced stream (a test's capture) is honoured."""

    def __init__(self, to_stdout=False):
        super().__init__()
        self._to_stdout = to_stdout

    @property
    def stream(self):
        return sys.stdout if self._to_stdout else sys.stderr

    @stream.setter
    def stream(self, value):
        pass


def _configure_logger():
    """As TensorFlow's logger: unless the root logger already has handlers,
    records go to stderr as `WARNING:tensorflow:message` (in an interactive
    session to stdout, from INFO up)."""
    if _py_logging.getLogger().handlers or _logger.handlers:
        return
    interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
    if interactive:
        _logger.setLevel(_py_logging.INFO)
    handler = _StandardErrorHandler(to_stdout=interactive)
    handler.setFormatter(_py_logging.Formatter(_py_logging.BASIC_FORMAT, None))
    _logger.addHandler(handler)


_configure_logger()

DEBUG = _py_logging.DEBUG
INFO = _py_logging.INFO
WARN = _py_logging.WARN
ERROR = _py_logging.ERROR
FATAL = _py_logging.FATAL
for _level, _n in ((DEBUG, "DEBUG"), (INFO, "INFO"), (WARN, "WARN"), (ERROR, "ERROR"),
                   (FATAL, "FATAL")):
    export_value(_level, f"compat.v1.logging.{_n}")


@export("compat.v1.logging.debug")
def debug(msg, *args, **kwargs):
    """Logs `msg % args` at DEBUG level on the 'tensorflow' logger."""
    _logger.debug(msg, *args, **kwargs)


@export("compat.v1.logging.info")
def info(msg, *args, **kwargs):
    """Logs `msg % args` at INFO level on the 'tensorflow' logger."""
    _logger.info(msg, *args, **kwargs)


@export("compat.v1.logging.warning", "compat.v1.logging.warn")
def warning(msg, *args, **kwargs):
    """Logs `msg % args` at WARNING level on the 'tensorflow' logger."""
    _logger.warning(msg, *args, **kwargs)


@export("compat.v1.logging.error")
def error(msg, *args, **kwargs):
    """Logs `msg % args` at ERROR level on the 'tensorflow' logger."""
    _logger.error(msg, *args, **kwargs)


@export("compat.v1.logging.fatal")
def fatal(msg, *args, **kwargs):
    """Logs `msg % args` at FATAL (CRITICAL) level on the 'tensorflow' logger."""
    _logger.critical(msg, *args, **kwargs)


@export("compat.v1.logging.log")
def log(level, msg, *args, **kwargs):
    """Logs `msg % args` at `level` on the 'tensorflow' logger."""
    _logger.log(level, msg, *args, **kwargs)


@export("compat.v1.logging.set_verbosity")
def set_verbosity(v):
    """Sets the threshold of the 'tensorflow' logger."""
    _logger.setLevel(v)


@export("compat.v1.logging.get_verbosity")
def get_verbosity():
    """The effective threshold of the 'tensorflow' logger."""
    return _logger.getEffectiveLevel()


@export("get_logger")
def get_logger():
    """The Python logger TensorFlow logs to ('tensorflow')."""
    return _logger


_LOGGING_STREAMS = {"log(info)": info, "log(warning)": warning, "log(error)": error}


def _timestamp_kernel():
    return np.float64(time.time())


_Timestamp = register("Timestamp", _timestamp_kernel,
                      lambda i, a: [(TensorShape([]), D.float64)], stateful=True)


@export("timestamp")
def timestamp(name=None):
    """The time the op runs, in seconds since the Unix epoch (float64)."""
    return apply(_Timestamp, [], name=name or "Timestamp")


# --- XLA lowerings (framework/lowering.py) -----------------------------------------
# XLA has no strings: a formatted string is computed on the host when the
# print consuming it runs (a host callback, in program order).

def _lower_string_format(ctx, op, *inputs):
    attrs = op.attrs
    return XL.HostValue(lambda *values: _string_format_kernel(*values, **attrs), inputs)


def _lower_print(ctx, op, text):
    attrs = {k: v for k, v in op.attrs.items() if k in ("output_stream", "end")}
    if isinstance(text, XL.HostValue):
        XL.host_callback(ctx, lambda *v: _print_kernel(text.fn(*v), **attrs), *text.args)
    else:
        XL.host_callback(ctx, lambda t: _print_kernel(t, **attrs), text)
    return []


def _lower_assert(ctx, op, condition, *data):
    summarize = op.attrs.get("summarize", 3)
    XL.host_callback(ctx, lambda c, *d: _assert_kernel(c, *d, summarize=summarize),
                     condition, *data)
    return []


XL.set_lowerings({"StringFormat": _lower_string_format, "PrintV2": _lower_print,
                  "Assert": _lower_assert})
