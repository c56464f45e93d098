"""Running an op: eagerly (call the kernel now) or by adding it to a graph.

`apply` is what every public op calls after converting its inputs. The
eager path is kept short because eager code pays it per op: unwrap the
inputs, call the kernel, wrap the result, and record on active tapes.
"""

from . import context as _context
from . import dtypes as _dtypes
from . import errors as _errors
from .op_registry import register
from .tensor import EagerTensor, SymbolicTensor
from .tensor_shape import TensorShape

__all__ = ["apply", "apply1", "constant_op", "placeholder", "EagerOp", "kernel_error"]

_state = _context.state
_EMPTY = {}


class EagerOp:
    """What a tape records of one eagerly executed op (the Operation interface
    gradient functions use: `inputs`, `outputs`, `type`, `get_attr`)."""

    __slots__ = ("opdef", "inputs", "outputs", "attrs")

    def __init__(self, opdef, inputs, outputs, attrs):
        self.opdef = opdef
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs

    @property
    def type(self):
        """The op type name."""
        return self.opdef.name

    @property
    def name(self):
        """The op type name (eager ops have no graph name)."""
        return self.opdef.name

    def get_attr(self, name):
        """The value of attr `name`."""
        return self.attrs[name]


def _record(opdef, inputs, outputs, attrs):
    rec = None
    for tape in _state.tapes:
        if tape._should_record(inputs):
            if rec is None:
                rec = EagerOp(opdef, tuple(inputs), outputs, attrs)
            tape._record(rec)


def apply(opdef, inputs, attrs=_EMPTY, name=None, multi=False):
    """Runs `opdef` on `inputs` (already tensors) in the current context.

    Returns the single output tensor, or a list of outputs when `multi`.
    """
    g = _state.graph
    if g is None:
        try:
            out = opdef.kernel(*[t._v for t in inputs], **attrs)
        except Exception as e:
            raise kernel_error(opdef, inputs, attrs, e) from None
        if multi:
            # Values other than arrays (variable handles) name their tensor class.
            res = [getattr(o, "_eager_tensor_class", EagerTensor)(o) for o in out]
            if _state.tapes:
                _record(opdef, inputs, res, attrs)
            return res
        res = EagerTensor(out)
        if _state.tapes:
            _record(opdef, inputs, [res], attrs)
        return res
    op = _graph_apply(g, opdef, inputs, attrs, name, multi)
    return op.outputs if multi else op.outputs[0]


def apply1(opdef, x, attrs=_EMPTY, name=None):
    """`apply` for one input and one output: the shortest eager path."""
    if _state.graph is None:
        try:
            out = opdef.kernel(x._v, **attrs)
        except Exception as e:
            raise kernel_error(opdef, (x,), attrs, e) from None
        res = EagerTensor(out)
        if _state.tapes:
            _record(opdef, (x,), [res], attrs)
        return res
    return _graph_apply(_state.graph, opdef, (x,), attrs, name).outputs[0]


def apply2(opdef, x, y, attrs=_EMPTY, name=None):
    """`apply` for two inputs and one output."""
    if _state.graph is None:
        try:
            out = opdef.kernel(x._v, y._v, **attrs)
        except Exception as e:
            raise kernel_error(opdef, (x, y), attrs, e) from None
        res = EagerTensor(out)
        if _state.tapes:
            _record(opdef, (x, y), [res], attrs)
        return res
    return _graph_apply(_state.graph, opdef, (x, y), attrs, name).outputs[0]


def apply_in_place(opdef, kernel, inputs, attrs=_EMPTY):
    """Eagerly runs `kernel`, a variant of `opdef`'s kernel with the same
    parameters that updates its first input in place (a TensorArray write),
    and records the op as `opdef` on the active tapes (its gradient must not
    read the updated input's old contents)."""
    try:
        out = kernel(*[t._v for t in inputs], **attrs)
    except Exception as e:
        raise kernel_error(opdef, inputs, attrs, e) from None
    res = EagerTensor(out)
    if _state.tapes:
        _record(opdef, inputs, [res], attrs)
    return res


def apply_op(opdef, inputs, attrs=_EMPTY, name=None):
    """Adds the op to the current graph and returns the Operation (graph mode only).

    Used for ops without outputs (prints, assignments) whose Operation is
    needed for control dependencies.
    """
    g = _state.graph
    if g is None:
        raise RuntimeError("apply_op needs a graph")
    return _graph_apply(g, opdef, inputs, attrs, name)


def _graph_apply(g, opdef, inputs, attrs, name, multi=False):
    ins = []
    for t in inputs:
        if t.__class__ is not SymbolicTensor or t._op.graph is not g:
            t = g.capture(t)
        ins.append(t)
    return g.create_op(opdef, ins, attrs, name, multi=multi)


def kernel_error(opdef, inputs, attrs, exc):
    """The TensorFlow-class exception for a kernel failure on eager inputs.

    Shape inference usually explains the failure better than NumPy does, so
    it is consulted first; OpErrors raised by kernels keep their class.
    """
    suffix = " [Op:%s]" % opdef.name
    if isinstance(exc, _errors.OpError):
        msg = exc.message if "[Op:" in exc.message else exc.message + suffix
        return type(exc)(None, None, msg)
    try:
        opdef.infer(inputs, attrs)
    except (ValueError, TypeError) as e:
        return _errors.InvalidArgumentError(None, None, str(e) + suffix)
    except Exception:  # inference itself could not handle these inputs
        pass
    if isinstance(exc, MemoryError):
        return _errors.ResourceExhaustedError(None, None, "Out of memory" + suffix)
    if isinstance(exc, (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError,
                        KeyError)):
        desc = ", ".join("%s%s" % (t.dtype.name, list(t.shape)) for t in inputs)
        return _errors.InvalidArgumentError(
            None, None, "%s (inputs: %s)%s" % (exc, desc, suffix))
    return _errors.UnknownError(None, None, "%s: %s%s" % (type(exc).__name__, exc, suffix))


# --- Const and Placeholder: the ops every graph has ------------------------

def _const_kernel(value, dtype):
    return value


def _const_infer(inputs, attrs):
    v = attrs["value"]
    return [(TensorShape._from_tuple(v.shape), attrs["dtype"])]


_Const = register("Const", _const_kernel, _const_infer)


def _placeholder_kernel(dtype, shape):
    raise _errors.InvalidArgumentError(
        None, None, "You must feed a value for placeholder tensor with dtype %s and shape %s"
        % (dtype.name, shape))


_Placeholder = register("Placeholder", _placeholder_kernel,
                        lambda inputs, attrs: [(attrs["shape"], attrs["dtype"])],
                        no_fold=True)


def constant_op(value, name=None):
    """A `Const` op in the current graph holding the NumPy value `value`."""
    g = _state.graph
    dtype = _dtypes.NP_TO_DTYPE.get(value.dtype) or _dtypes.from_numpy(value.dtype)
    op = g.create_op(_Const, (), {"value": value, "dtype": dtype}, name or "Const")
    return op.outputs[0]


def placeholder(dtype, shape, name=None):
    """A `Placeholder` op in the current graph."""
    g = _state.graph
    op = g.create_op(_Placeholder, (), {"dtype": dtype, "shape": shape}, name or "Placeholder")
    return op.outputs[0]
