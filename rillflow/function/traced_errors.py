"""Errors raised while a `tf.function` is traced, as TensorFlow words them.

With AutoGraph on, an exception that escapes the Python function while it is
traced is raised again with TensorFlow's message: `in user code:`, then the
user's frames (`File "...", line N, in fn  *` and the source line; `*` marks
converted code), then the original class name and message, indented::

    in user code:

        File "model.py", line 12, in f  *
            return tf.reshape(x, [3])

        ValueError: Cannot reshape a tensor with 2 elements to shape [3] ...

The new exception keeps the original class where TensorFlow does (the
common builtin errors, KeyError, `tf.errors.OpError` subclasses and classes
with Exception's own constructor); any other becomes a StagingError.
"""
import linecache
import re

from ..framework import errors, user_frames

__all__ = ["StagingError", "in_user_code_error", "user_code_frames"]


class StagingError(Exception):
    """An error raised while tracing whose class cannot carry TensorFlow's
    `in user code:` message (TensorFlow's AutoGraph StagingError)."""


class _KeyError(KeyError):
    """A KeyError whose `str()` is its message as is (KeyError quotes it)."""

    def __str__(self):
        return self.args[0] if self.args else ""


_KeyError.__name__ = _KeyError.__qualname__ = "KeyError"

# Builtin classes TensorFlow rebuilds with the new message (exact classes:
# a subclass with its own constructor could not take a message).
_REBUILT = frozenset((AssertionError, AttributeError, NameError, NotImplementedError,
                      RuntimeError, StopIteration, TypeError, UnboundLocalError, ValueError,
                      errors.OperatorNotAllowedInGraphError, errors.InaccessibleTensorError))

# Functions AutoGraph generates inside a converted function (branches, loop
# bodies, loop state). Their frames are shown as frames of the converted
# function they belong to: the body line replaces the frame at the `if` or
# `for` statement, as in TensorFlow's messages.
_HELPER_NAMES = re.compile(
    r"^(if_body|else_body|loop_body|loop_test|get_state|set_state|extra_test)(_\d+)?$")

# Converted functions are compiled inside a factory of this name.
_CONVERTED_PREFIX = "__ag_factory.<locals>."


def _is_converted(code):
    return getattr(code, "co_qualname", "").startswith(_CONVERTED_PREFIX)


def _enclosing_name(code):
    """The name of the converted function a generated helper belongs to."""
    parts = code.co_qualname.split(".<locals>.")[1:]
    names = [p.rsplit(".", 1)[-1] for p in parts]
    return next((n for n in reversed(names) if not _HELPER_NAMES.match(n)), names[0])


def user_code_frames(tb):
    """(filename, lineno, function name, converted) of the user's frames of
    traceback `tb`, outermost first, without rillflow's own frames; a frame
    of a helper AutoGraph generated replaces the frame of its function."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        filename = code.co_filename
        if not user_frames.is_framework_file(filename):
            converted = _is_converted(code)
            fn, ln = user_frames.map_location(filename, tb.tb_lineno)
            name = code.co_name
            if converted and _HELPER_NAMES.match(name):
                name = _enclosing_name(code)
                if out and out[-1][0] == fn and out[-1][2] == name and out[-1][3]:
                    out.pop()
            out.append((fn, ln, name, converted))
        tb = tb.tb_next
    return out


def _message(exc, frames):
    lines = ["in user code:", ""]
    for filename, lineno, name, converted in frames:
        lines.append('    File "%s", line %d, in %s%s' % (filename, lineno, name,
                                                      "  *" if converted else ""))
        source = linecache.getline(filename, lineno).strip()
        if source:
            lines.append("        " + source)
    lines.append("")
    text = "%s: %s" % (type(exc).__name__, exc)
    suffix = getattr(exc, "_location_suffix", "")
    if suffix and text.endswith(suffix):
        text = text[:-len(suffix)]
    lines.extend("    " + line for line in text.split("\n"))
    lines.append("")
    return "\n".join(lines)


def in_user_code_error(exc):
    """The exception to raise for `exc`, which escaped a traced function:
    TensorFlow's `in user code:` message with the user's frames of
    `exc.__traceback__`, in `exc`'s class where TensorFlow keeps it."""
    message = _message(exc, user_code_frames(exc.__traceback__))
    cls = type(exc)
    try:
        if isinstance(exc, errors.OpError):
            return cls(exc.node_def, exc.op, message)
        if cls is KeyError:
            return _KeyError(message)
        if cls in _REBUILT or cls.__init__ is Exception.__init__:
            return cls(message)
    except Exception:  # a constructor that does not take a message after all
        pass
    return StagingError(message)
