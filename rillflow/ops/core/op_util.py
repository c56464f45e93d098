"""Shared helpers for defining ops: dtype groups, shape inference for
elementwise ops, operand conversion and the eager fast paths of unary and
binary ops."""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor, to_numpy
from ...framework.execute import _record, apply1, apply2, kernel_error
from ...framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ...framework.tensor_shape import TensorShape, dims_text
from ...framework.op_registry import get

_state = _context.state

FLOATS = tuple(d for d in (D.bfloat16, D.float16, D.float32, D.float64) if d is not None)
COMPLEX = (D.complex64, D.complex128)
SIGNED_INTS = (D.int8, D.int16, D.int32, D.int64)
UNSIGNED_INTS = (D.uint8, D.uint16, D.uint32, D.uint64)
INTS = SIGNED_INTS + UNSIGNED_INTS
REAL = FLOATS + INTS
NUMERIC = REAL + COMPLEX
FLOAT_COMPLEX = FLOATS + COMPLEX
ALL = NUMERIC + (D.bool_, D.string)
INDEX = (D.int32, D.int64)  # shapes, axes, indices and sizes

# TensorFlow's DataTypeString spelling, used in runtime error messages.
_TF_TYPE_NAME = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(dtype):
    """How TensorFlow's runtime spells a dtype in messages ('float', 'double'...)."""
    return _TF_TYPE_NAME.get(dtype.name, dtype.name)


def _allowed_list(dtypes, spell=lambda d: d.name):
    return ", ".join(spell(d) for d in dtypes if d is not None)


def op_error(op_name, msg, cls=errors.InvalidArgumentError):
    """A runtime (kernel) error of op `op_name`, as TensorFlow reports it:
    the message followed by ` [Op:Name]`."""
    return cls(None, None, f"{msg} [Op:{op_name}]")


def graph_dtype_error(param, dtype, allowed):
    """The TypeError TensorFlow's op constructor raises (while building a graph)
    for an argument whose dtype is not in `allowed`."""
    return TypeError(f"Value passed to parameter '{param}' has DataType {dtype.name} not in "
                     f"list of allowed values: {_allowed_list(allowed)}")


def check_graph_dtype(t, allowed, param):
    """Raises `graph_dtype_error` (shape functions run only while building a
    graph) if `t`'s dtype is not in `allowed`."""
    if t.dtype not in allowed:
        raise graph_dtype_error(param, t.dtype, allowed)


def eager_dtype_error(op_name, attr, dtype, allowed):
    """The InvalidArgumentError TensorFlow's runtime raises (eagerly) for a dtype
    not in `allowed`; the runtime spells float32 'float', float64 'double'."""
    return errors.InvalidArgumentError(
        None, None, f"Value for attr '{attr}' of {tf_type_name(dtype)} is not in the list of "
        f"allowed values: {_allowed_list(allowed, tf_type_name)}\n\t; NodeDef: "
        f"{{{{node {op_name}}}}} [Op:{op_name}]")


def dtype_error(op_name, dtype, allowed, attr="T", param="input"):
    """TensorFlow's error for a dtype not in `allowed`: the runtime's
    (InvalidArgumentError) eagerly, the op constructor's (TypeError) in a graph."""
    if _state.graph is None:
        return eager_dtype_error(op_name, attr, dtype, allowed)
    return graph_dtype_error(param, dtype, allowed)


def check_dtype(op_name, t, allowed, attr="T", param="input"):
    """Raises `dtype_error` for `t` if its dtype is not in `allowed`."""
    if t.dtype not in allowed:
        raise dtype_error(op_name, t.dtype, allowed, attr, param)


def check_allowed(opdef, t, arg="x"):
    """Raises TypeError (graph construction) if `t`'s dtype is not allowed for the op."""
    if opdef.allowed is not None:
        check_graph_dtype(t, opdef.allowed, arg)


def _eager_disallowed(opdef, t):
    return eager_dtype_error(opdef.name, "T", t.dtype, opdef.allowed)


def broadcast_shapes(a, b):
    """The broadcast of two static shapes (None dims allowed).

    Raises:
      ValueError: if they cannot broadcast.
    """
    if a.rank is None or b.rank is None:
        return TensorShape(None)
    da, db = a._dims, b._dims
    n = max(len(da), len(db))
    da = (1,) * (n - len(da)) + da
    db = (1,) * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    return TensorShape._from_tuple(tuple(out))


def unary_infer(opdef_name, out_dtype=None):
    """Shape function of an elementwise unary op (output dtype = input's unless given)."""
    def infer(inputs, attrs):
        x = inputs[0]
        check_allowed(get(opdef_name), x)
        return [(x.shape, out_dtype or x.dtype)]
    return infer


def binary_infer(opdef_name, out_dtype=None):
    """Shape function of an elementwise binary op with broadcasting."""
    def infer(inputs, attrs):
        x, y = inputs
        if x.dtype is not y.dtype:
            raise TypeError(f"Input 'y' of '{opdef_name}' Op has type {y.dtype.name} that does "
                            f"not match type {x.dtype.name} of argument 'x'.")
        check_allowed(get(opdef_name), x)
        return [(broadcast_shapes(x.shape, y.shape), out_dtype or x.dtype)]
    return infer


def same_shape_infer(op_name, first="gradients", second="features"):
    """Shape function of an elementwise op of two inputs of one dtype and one
    shape (TensorFlow's gradient kernels: ReluGrad's `gradients` and
    `features`, TanhGrad's `y` and `dy`), naming them in its errors."""
    def infer(inputs, attrs):
        a, b = inputs
        if a.dtype is not b.dtype:
            raise TypeError(f"Input '{second}' of '{op_name}' Op has type {b.dtype.name} that "
                            f"does not match type {a.dtype.name} of argument '{first}'.")
        try:
            shape = a.shape.merge_with(b.shape)
        except ValueError as e:
            raise ValueError(str(e)) from None
        return [(shape, a.dtype)]
    return infer


def _plain_value(v):
    """Whether `v` is a Python or NumPy value (not a tensor, variable or a
    list holding tensors), which TensorFlow converts to its operand's dtype."""
    if isinstance(v, (list, tuple)):
        return all(_plain_value(e) for e in v)
    return v.__class__ in _PLAIN or isinstance(v, (np.ndarray, np.generic))


_PLAIN = (int, float, complex, bool, str, bytes)


def operand_like(value, t, op_name=None, param="y", name=None):
    """`value` converted to tensor `t`'s dtype, as TensorFlow's op wrappers
    convert the Python operand of a binary op: a value that does not fit that
    dtype (2.5 for an int32 tensor) is a TypeError, never a silent promotion.

    Raises:
      TypeError: eagerly TensorFlow's `Cannot convert 2.5 to EagerTensor of
        dtype int32`; while building a graph, the op constructor's message
        naming `param` of op `op_name`.
    """
    if not _plain_value(value) and not isinstance(value, (list, tuple)):
        return convert_to_tensor(value, name=name)
    try:  # a list holding tensors casts them (TensorFlow's autopacking)
        return convert_to_tensor(value, dtype=t.dtype, name=name)
    except TypeError as e:
        if _state.graph is None or op_name is None:
            raise
        raise TypeError(f"Expected {t.dtype.name} passed to parameter '{param}' of op "
                        f"'{op_name}', got {value!r} of type '{type(value).__name__}' "
                        f"instead. Error: {e}") from None


def binary_operands(x, y, strict=True, op_name=None, named=False):
    """Converts the operands of a binary op the way TensorFlow's op wrappers do.

    With `strict` (every op but `add`), a Python value takes the dtype of the
    tensor operand or raises TypeError (`operand_like`). Without it (TF's
    `tf.add`), the first operand converts on its own and the second with the
    first's dtype as a hint, so a mismatch surfaces as the op's dtype error.
    While building a graph, a Python first operand converts on its own either
    way: TensorFlow's op constructor infers the dtype from it.
    """
    nx, ny = ("x", "y") if named else (None, None)
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            if strict:
                y = operand_like(y, x, op_name, "y", name=ny)
            else:
                y = convert_to_tensor(y, dtype_hint=x.dtype, name=ny)
        elif _state.graph is not None:
            x = convert_to_tensor(x)
            y = convert_to_tensor(y)
        return x, y
    if isinstance(y, Tensor):
        if strict and _state.graph is None:
            return operand_like(x, y, op_name, "x"), y
        x = convert_to_tensor(x, name=nx)
        if _state.graph is not None:
            y = convert_to_tensor(y)
        return x, y
    x = convert_to_tensor(x, name=nx)
    if strict:
        return x, operand_like(y, x, op_name, "y", name=ny)
    return x, convert_to_tensor(y, dtype_hint=x.dtype, name=ny)


def _mismatch(opdef, x, y):
    return errors.InvalidArgumentError(
        None, None, f"cannot compute {opdef.name} as input #1(zero-based) was expected to be "
        f"a {tf_type_name(x.dtype)} tensor but is a {tf_type_name(y.dtype)} tensor "
        f"[Op:{opdef.name}]")


def unary(opdef, x, name=None, attrs=None):
    """Runs an elementwise unary op, checking the input dtype."""
    if x.__class__ is not EagerTensor:
        x = convert_to_tensor(x)
    if _state.graph is None:
        if opdef.allowed_np is not None and x._v.dtype not in opdef.allowed_np:
            raise _eager_disallowed(opdef, x)
    return apply1(opdef, x, attrs or {}, name=name)


def _fast_scalar(t, v):
    """`v` (a Python float or int) as an eager tensor of `t`'s dtype, when that
    is exact and cheap; None otherwise."""
    d = t._v.dtype
    k = d.kind
    if k == "f" or k == "c" or (v.__class__ is int and (d is _I32 or d is _I64)
                                and -2147483648 <= v <= 2147483647):
        return EagerTensor(d.type(v))
    return None


_I32 = np.dtype(np.int32)
_I64 = np.dtype(np.int64)


def _binary_error(opdef, x, y, exc):
    try:
        broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return errors.InvalidArgumentError(
            None, None, f"Incompatible shapes: {dims_text(x.shape)} vs. {dims_text(y.shape)} "
            f"[Op:{opdef.name}]")
    return kernel_error(opdef, (x, y), {}, exc)


def binary(opdef, x, y, name=None, strict=True):
    """Runs an elementwise binary op: converts operands (`binary_operands`),
    checks dtypes, applies."""
    g = _state.graph
    if g is not None:
        if isinstance(x, Tensor) and isinstance(y, Tensor):
            return apply2(opdef, *binary_operands(x, y, strict, opdef.name), name=name)
        # As TensorFlow's op wrappers: a Python operand becomes a constant
        # named after its argument inside the op's scope (`add/y`).
        with g.name_scope(name or opdef.name) as scope:
            x, y = binary_operands(x, y, strict, opdef.name, named=True)
        return apply2(opdef, x, y, name=scope)
    if x.__class__ is not EagerTensor or y.__class__ is not EagerTensor:
        if x.__class__ is EagerTensor and (y.__class__ is float or y.__class__ is int):
            y = _fast_scalar(x, y) or y
        elif strict and y.__class__ is EagerTensor and (x.__class__ is float
                                                        or x.__class__ is int):
            x = _fast_scalar(y, x) or x
        if x.__class__ is not EagerTensor or y.__class__ is not EagerTensor:
            x, y = binary_operands(x, y, strict, opdef.name)
    xv = x._v
    yv = y._v
    xd = xv.dtype
    if xd is not yv.dtype and xd != yv.dtype:
        raise _mismatch(opdef, x, y)
    if opdef.allowed_np is not None and xd not in opdef.allowed_np:
        raise _eager_disallowed(opdef, x)
    try:
        out = opdef.kernel(xv, yv)
    except Exception as e:
        raise _binary_error(opdef, x, y, e) from None
    res = EagerTensor(out)
    if _state.tapes:
        _record(opdef, (x, y), [res], _NO_ATTRS)
    return res


_NO_ATTRS = {}


def constant_value(t):
    """The NumPy value of `t` if known now (eager, or constant while building), else None."""
    if isinstance(t, EagerTensor):
        return t._v
    if isinstance(t, SymbolicTensor):
        return t._const
    if isinstance(t, (list, tuple)):
        vals = [constant_value(v) if isinstance(v, Tensor) else v for v in t]
        if any(v is None for v in vals):
            return None
        return np.array(vals)
    if isinstance(t, (int, float, np.ndarray, np.generic)):
        return np.asarray(t)
    return None


def constant_shape(t):
    """A TensorShape from a shape-valued argument (list, TensorShape or 1-D
    tensor), with None where an element is not known while building."""
    if isinstance(t, TensorShape):
        return t
    if isinstance(t, (list, tuple)):
        dims = []
        for d in t:
            if isinstance(d, Tensor):
                v = constant_value(d)
                dims.append(None if v is None else int(v))
            else:
                dims.append(None if d is None or (isinstance(d, int) and d < 0) else d)
        return TensorShape(dims)
    v = constant_value(t)
    if v is not None:
        v = np.asarray(v)
        if v.ndim == 0:
            return TensorShape([int(v)])
        return TensorShape([None if d < 0 else int(d) for d in v.reshape(-1)])
    if isinstance(t, SymbolicTensor):
        # A `tf.shape(x)` result: its producer knows the partial shape.
        if t.op.type == "Shape":
            return t.op.inputs[0].shape
        n = t.shape[0] if t.shape.rank == 1 else None
        return TensorShape(None) if n is None else TensorShape([None] * n)
    return TensorShape(None)


def axis_list(axis, rank):
    """Normalizes an axis argument (int, list or None) to a sorted tuple of
    non-negative axes for an array of `rank` dimensions."""
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, (int, np.integer)):
        axis = [int(axis)]
    out = []
    for a in axis:
        a = int(a)
        if a < -rank or a >= rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        out.append(a % rank if rank else a)
    return tuple(sorted(set(out)))


def np_value(x):
    """The NumPy value of an eager tensor or Python value (for attrs)."""
    if isinstance(x, EagerTensor):
        return x._v
    return to_numpy(x)
