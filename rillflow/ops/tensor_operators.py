"""Installs the Python operators (`+`, `==`, `[]`, ...) on `tf.Tensor` and
`tf.Variable`, with the op names TensorFlow gives them in graphs.

The arithmetic and comparison operators have an eager fast path: two eager
tensors of one numeric dtype (or a tensor and a Python number of its kind),
no graph, no tape — one NumPy call. Everything else, errors included, goes
through the op's public function.

After `tf.experimental.numpy.experimental_enable_numpy_behavior()` (the
"legacy" dtype conversion mode of ops/numpy/np_dtypes.py) the slow paths
first promote both operands to their NumPy result type, as TensorFlow's
operators do then, and `@` is `tnp.matmul`; the fast path is left as it is,
since the operands it takes already share the type NumPy would give."""
import operator

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework.convert import constant_value_tensor
from ..framework.execute import apply2
from ..framework.tensor import EagerTensor, SymbolicTensor, Tensor
from .core import math_ops as M
from .core import op_util as U
from .core.slicing import getitem
from .core.unary_ops import abs as abs_
from .linalg.matmul_ops import matmul
from .numpy import np_behavior, np_dtypes, np_weak
from .state import variable_slicing, variables

_state = _context.state
_LEGACY = np_dtypes.PromoMode.LEGACY
_AUTO = (np_dtypes.PromoMode.SAFE, np_dtypes.PromoMode.ALL)
_I32 = np.dtype(np.int32)
_I64 = np.dtype(np.int64)


def _fast(opdef, ufunc, slow, reverse, int_ok=True):
    """An operator method: NumPy directly when safe, else `slow(self, other)`."""
    allowed = opdef.allowed_np

    def method(self, other):
        if self.__class__ is EagerTensor and _state.graph is None and not _state.tapes:
            xv = self._v
            xd = xv.dtype
            oc = other.__class__
            if oc is EagerTensor:
                yv = other._v
                ok = yv.dtype is xd
            elif oc is float:
                # With prefer_float32 a Python float counts as float32 in
                # NumPy-style promotion: a float16 tensor then widens.
                ok = xd.kind == "f" and (xd.itemsize > 2 or not np_dtypes._prefer_float32
                                         or np_dtypes._mode is not _LEGACY)
                yv = xd.type(other) if ok else None
            elif oc is int:
                k = xd.kind
                ok = k == "f" or ((xd is _I32 or xd is _I64) and
                                  -2147483648 <= other <= 2147483647)
                yv = xd.type(other) if ok else None
            else:
                ok = False
            # (complex arithmetic takes the kernels: TensorFlow's bits)
            if ok and xd in allowed and xd.kind not in "Oc" and (int_ok or xd.kind == "f"):
                try:
                    return EagerTensor(ufunc(yv, xv) if reverse else ufunc(xv, yv))
                except Exception:  # e.g. shapes that do not broadcast
                    pass
        return slow(self, other)
    return method


def _binop(fn, name, weak_promote=True):
    """The forward and reflected methods of a binary operator; with
    `weak_promote`, auto dtype conversion ("safe"/"all") promotes its
    operands by TensorFlow's lattice (np_weak.py)."""
    def forward(self, other):
        if getattr(other.__class__, "_is_composite_tensor", False) and \
                not getattr(other.__class__, "_is_weak_tensor", False):
            # A RaggedTensor (or other composite) on the right: its reflected
            # operator knows how to combine with a tensor.
            return NotImplemented
        mode = np_dtypes._mode
        if mode is _LEGACY:
            self, other = np_behavior.promote_operands(self, other)
        elif weak_promote and mode in _AUTO and not _bool_mul(fn, self, other):
            return np_weak.binary_operator(fn, self, other, name)
        return fn(self, other, name=name)

    def reverse(self, other):
        mode = np_dtypes._mode
        if mode is _LEGACY:
            self, other = np_behavior.promote_operands(self, other)
        elif mode in _AUTO:
            # Auto dtype conversion leaves the left operand unconverted.
            if weak_promote and not _bool_mul(fn, self, other):
                return np_weak.binary_operator(fn, other, self, name)
            return fn(other, self, name=name)
        # TensorFlow converts the left operand of a reflected operator (the
        # `2.5` of `2.5 * int_tensor`) to the tensor's dtype, or raises.
        if not isinstance(other, Tensor):
            g = _state.graph
            if g is not None:
                # Named as TensorFlow names it: `sub/x` for the `5` of `5 - t`.
                with g.name_scope(name) as scope:
                    other = U.operand_like(other, self, name="x")
                return fn(other, self, name=scope)
            other = U.operand_like(other, self)
        return fn(other, self, name=name)
    return forward, reverse


def _logical_or_bitwise(logical, bitwise, name):
    def pick(x, y, name=name):
        x, y = U.binary_operands(x, y)
        if x.dtype is D.bool_:
            return logical(x, y, name=name)
        return bitwise(x, y, name=name)
    return pick


def _mul(x, y, name=None):
    """`*`: bool operands multiply as int32 and the product is cast back to
    bool, as TensorFlow's operator does (its Mul op has no bool kernel)."""
    if ((isinstance(x, Tensor) and x.dtype is D.bool_)
            or (isinstance(y, Tensor) and y.dtype is D.bool_)):
        return M.cast(M.multiply(M.cast(x, D.int32), M.cast(y, D.int32), name=name), D.bool_)
    return M.multiply(x, y, name=name)


def _bool_mul(fn, x, y):
    """Whether `*` meets a bool tensor: TensorFlow's operator casts bools to
    int32 before any dtype promotion (even the auto conversion's)."""
    return fn is _mul and any(isinstance(v, Tensor) and v.dtype is D.bool_ for v in (x, y))


def _matmul(x, y, name=None):
    if np_dtypes._mode is _LEGACY:
        return x._matmul(y)  # tnp.matmul: NumPy's rules for 1-D operands
    return matmul(x, y, name=name)


def _v1_graph_tensor(t):
    """Tensors of v1 graphs compare by identity, as in TensorFlow."""
    return t.__class__ is SymbolicTensor and not t._op.graph.building_function


def _equality(opdef, x, y):
    """TensorFlow's `==` / `!=` on tensors: the Equal / NotEqual op with
    `incompatible_shape_error=False`, so shapes that cannot broadcast give a
    scalar False / True, while a value or tensor of another dtype is still an
    error (TypeError / InvalidArgumentError, as for the other operators)."""
    if x.__class__ is EagerTensor and (y.__class__ is int or y.__class__ is float):
        v = U._fast_scalar(x, y)
        if v is not None:
            return U.binary(opdef, x, v)
    x, y = U.binary_operands(x, y, True, opdef.name)
    if _state.graph is None:
        if x.dtype is not y.dtype:
            raise U._mismatch(opdef, x, y)
        return apply2(opdef, x, y, _LENIENT, name=opdef.name)
    try:
        U.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        # Known now: the op's value is the scalar it would compute at run time.
        if x.dtype is not y.dtype:
            raise TypeError(f"Input 'y' of '{opdef.name}' Op has type {y.dtype.name} that does "
                            f"not match type {x.dtype.name} of argument 'x'.") from None
        return constant_value_tensor(np.array(opdef is M._NotEqual), name=opdef.name)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        return apply2(opdef, x, y, name=opdef.name)
    return apply2(opdef, x, y, _LENIENT, name=opdef.name)


_LENIENT = {"incompatible_shape_error": False}


def _eq(self, other):
    if other is None:
        return False
    if _v1_graph_tensor(self):
        return self is other
    if np_dtypes._mode is _LEGACY:
        self, other = np_behavior.promote_operands(self, other)
    elif np_dtypes._mode in _AUTO:
        return np_weak.comparison_operator(lambda x, y: _equality(M._Equal, x, y), self, other)
    return _equality(M._Equal, self, other)


def _ne(self, other):
    if other is None:
        return True
    if _v1_graph_tensor(self):
        return self is not other
    if np_dtypes._mode is _LEGACY:
        self, other = np_behavior.promote_operands(self, other)
    elif np_dtypes._mode in _AUTO:
        return np_weak.comparison_operator(lambda x, y: _equality(M._NotEqual, x, y), self,
                                           other)
    return _equality(M._NotEqual, self, other)


def _invert(self):
    if self.dtype is D.bool_:
        return M.logical_not(self)
    return M.invert(self)


def _abs(self):
    return abs_(self)


def _getitem(self, key):
    return _slicing_getitem(self, key)


_slicing_getitem = None


def install():
    """Sets the operator methods on Tensor (and, through it, Variable)."""
    table = {
        "add": (M.add, "add"), "sub": (M.subtract, "sub"), "mul": (_mul, "mul"),
        "truediv": (M.truediv, "truediv"), "floordiv": (M.floordiv, "floordiv"),
        "mod": (M.floormod, "mod"), "pow": (M.pow, "pow"), "matmul": (_matmul, "matmul"),
        "and": (_logical_or_bitwise(M.logical_and, M.bitwise_and, "and"), "and"),
        "or": (_logical_or_bitwise(M.logical_or, M.bitwise_or, "or"), "or"),
        "xor": (_logical_or_bitwise(M.logical_xor, M.bitwise_xor, "xor"), "xor"),
    }
    # Python's operators, not ufunc calls: NumPy scalars take the fast path
    # (floats' `//` is TensorFlow's floor(x / y), not NumPy's floor_divide).
    fast = {"add": (M._AddV2, operator.add, True), "sub": (M._Sub, operator.sub, True),
            "mul": (M._Mul, operator.mul, True),
            "floordiv": (M._FloorDiv, M.float_floordiv, False),
            "mod": (M._FloorMod, operator.mod, False)}
    for key, (fn, name) in table.items():
        # TensorFlow's auto dtype conversion leaves &, |, ^ alone.
        fwd, rev = _binop(fn, name, weak_promote=key not in ("and", "or", "xor"))
        if key in fast:
            opdef, ufunc, int_ok = fast[key]
            fwd = _fast(opdef, ufunc, fwd, False, int_ok)
            rev = _fast(opdef, ufunc, rev, True, int_ok)
        fwd.__name__, rev.__name__ = "__%s__" % key, "__r%s__" % key
        fwd.__doc__ = rev.__doc__ = f"The `{name}` op (`tf.Tensor` operator)."
        setattr(Tensor, "__%s__" % key, fwd)
        setattr(Tensor, "__r%s__" % key, rev)
    Tensor.__div__, Tensor.__rdiv__ = Tensor.__truediv__, Tensor.__rtruediv__
    for key, fn, name, opdef, ufunc in (
            ("lt", M.less, "Less", M._Less, operator.lt),
            ("le", M.less_equal, "LessEqual", M._LessEqual, operator.le),
            ("gt", M.greater, "Greater", M._Greater, operator.gt),
            ("ge", M.greater_equal, "GreaterEqual", M._GreaterEqual, operator.ge)):
        fwd, _ = _binop(fn, name, weak_promote=False)
        setattr(Tensor, "__%s__" % key, _fast(opdef, ufunc, fwd, False))
    Tensor.__eq__ = _fast(M._Equal, operator.eq, _eq, False)
    Tensor.__ne__ = _fast(M._NotEqual, operator.ne, _ne, False)
    Tensor.__neg__ = lambda self: M.negative(self, name="Neg")
    Tensor.__abs__ = _abs
    Tensor.__invert__ = _invert
    global _slicing_getitem
    _slicing_getitem = getitem
    Tensor.__getitem__ = getitem
    variables._install_operators()
    variable_slicing.install()
    np_weak.install_operators(Tensor)
