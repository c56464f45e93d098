"""Errors raised while running generated code, reported at the user's line.

When a kernel fails inside a compiled graph, the traceback points into
generated code. This module finds the failing generated line, maps it to
its op and to the user source line that created the op, and re-raises the
error with TensorFlow's exception class and that location in the message.
"""
import re
import weakref

from ..framework import errors

_NUMPY_BROADCAST = re.compile(r"operands could not be broadcast together with shapes "
                              r"\(([\d, ]*)\) \(([\d, ]*)\)")
_NUMPY_INDEX = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size \d+")
# An eager kernel's "no CPU kernel for this dtype" (NotFoundError): in a
# graph TensorFlow finds that out when it places the node, and says so
# with an InvalidArgumentError instead.
_NO_DEVICE = re.compile(r"Could not find device for node: \{\{node (\w+)\}\} = \w+\[([^\]]*)\]")

# filename of generated code -> CompiledGraph; weak so dropped functions go away.
registry = weakref.WeakValueDictionary()


def _dims(numpy_shape):
    """NumPy's `2, 3` (from `(2, 3)`) as TensorFlow writes shapes: `[2,3]`."""
    return "[%s]" % ",".join(d.strip() for d in numpy_shape.split(",") if d.strip())


def register(compiled):
    """Makes `compiled`'s generated lines resolvable to ops."""
    registry[compiled.filename] = compiled


def failing_op(exc):
    """The op whose generated line raised `exc` (innermost), or None."""
    tb = exc.__traceback__
    found = None
    while tb is not None:
        compiled = registry.get(tb.tb_frame.f_code.co_filename)
        if compiled is not None:
            op = compiled.line_ops.get(tb.tb_lineno)
            if op is not None:
                found = op
        tb = tb.tb_next
    return found


def _location_text(op):
    loc = op.location
    if loc is None:
        return ""
    return "\n\nDetected at node '%s' (op %s) defined at:\n%s" % (op.name, op.type, loc)


def translate(exc):
    """The exception to raise for `exc` escaping generated code.

    OpErrors keep their class; other exceptions from kernels become
    InvalidArgumentError. Exceptions that are not kernel failures (raised
    by user Python called at run time, e.g. in `py_function`) pass through.
    """
    if getattr(exc, "_rillflow_located", False):
        return exc
    op = failing_op(exc)
    if op is None:
        return exc
    no_device = isinstance(exc, errors.NotFoundError) and _NO_DEVICE.match(exc.message)
    if no_device:
        new = errors.InvalidArgumentError(
            None, op, "No OpKernel was registered to support Op '%s' used by {{node %s}} with "
            "these attrs: [%s]\nRegistered devices: [CPU]\n\n\t [[%s]]%s" % (
                op.type, op.name, no_device.group(2), op.name, _location_text(op)))
    elif isinstance(exc, errors.OpError):
        msg = exc.message
        if "[Op:" not in msg and "{{node" not in msg:
            msg += " [[{{node %s}}]]" % op.name
        new = type(exc)(None, op, msg + _location_text(op))
    elif isinstance(exc, IndexError) and _NUMPY_INDEX.match(str(exc)):
        # A specialized `x[i]` (StridedSlice) out of range: TensorFlow's words.
        m = _NUMPY_INDEX.match(str(exc))
        new = errors.InvalidArgumentError(
            None, op, "slice index %s of dimension %s out of bounds. [[{{node %s}}]]%s" % (
                m.group(1), m.group(2), op.name, _location_text(op)))
    elif isinstance(exc, ValueError) and _NUMPY_BROADCAST.match(str(exc)):
        # A specialized binary expression on shapes known only at run time.
        m = _NUMPY_BROADCAST.match(str(exc))
        new = errors.InvalidArgumentError(
            None, op, "Incompatible shapes: %s vs. %s [[{{node %s}}]]%s" % (
                _dims(m.group(1)), _dims(m.group(2)), op.name, _location_text(op)))
    elif isinstance(exc, (ValueError, TypeError, IndexError, ZeroDivisionError,
                          OverflowError, KeyError, ArithmeticError)):
        shapes = ", ".join("%s%s" % (t.dtype.name, t.shape) for t in op.inputs)
        new = errors.InvalidArgumentError(
            None, op, "%s: %s (op %s, inputs %s) [[{{node %s}}]]%s" % (
                type(exc).__name__, exc, op.type, shapes, op.name, _location_text(op)))
    else:
        return exc
    new._rillflow_located = True
    return new
