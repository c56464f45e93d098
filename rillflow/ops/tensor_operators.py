"""Installs the Python operators (`+`, `==`, `[]`, ...) on `tf.Tensor` and
`tf.Variable`, with the op names TensorFlow gives them in graphs.

The arithmetic and comparison operators have an eager fast path: two eager
tensors of one numeric dtype (or a tensor and a Python number of its kind),
no graph, no tape — one NumPy call. Everything else, errors included, goes
through the op's public function."""
import operator

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework.tensor import EagerTensor, SymbolicTensor, Tensor
from . import math_ops as M
from . import op_util as U

_state = _context.state
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
                ok = xd.kind == "f"
                yv = xd.type(other) if ok else None
            elif oc is int:
                k = xd.kind
                ok = k == "f" or ((xd is _I32 or xd is _I64) and
                                  -2147483648 <= other <= 2147483647)
                yv = xd.type(other) if ok else None
            else:
                ok = False
            if ok and xd in allowed and xd.kind != "O" and (int_ok or xd.kind == "f"):
                try:
                    return EagerTensor(ufunc(yv, xv) if reverse else ufunc(xv, yv))
                except Exception:  # e.g. shapes that do not broadcast
                    pass
        return slow(self, other)
    return method


def _binop(fn, name):
    def forward(self, other):
        return fn(self, other, name=name)

    def reverse(self, other):
        return fn(other, self, name=name)
    return forward, reverse


def _logical_or_bitwise(logical, bitwise, name):
    def pick(x, y, name=name):
        x, y = U.binary_operands(x, y)
        if x.dtype is D.bool_:
            return logical(x, y, name=name)
        return bitwise(x, y, name=name)
    return pick


def _matmul(x, y, name=None):
    from .linalg_ops import matmul
    return matmul(x, y, name=name)


def _v1_graph_tensor(t):
    """Tensors of v1 graphs compare by identity, as in TensorFlow."""
    return t.__class__ is SymbolicTensor and not t._op.graph.building_function


def _eq(self, other):
    if self.__class__ is EagerTensor and (other.__class__ is int or other.__class__ is float):
        y = U._fast_scalar(self, other)
        if y is not None:
            return U.binary(M._Equal, self, y)
    if _v1_graph_tensor(self):
        return self is other
    if other is None:
        return False
    try:
        x, y = U.binary_operands(self, other)
        U.broadcast_shapes(x.shape, y.shape)
    except (ValueError, TypeError):
        return False
    if x.dtype is not y.dtype:
        return False
    return M.equal(x, y, name="Equal")


def _ne(self, other):
    if self.__class__ is EagerTensor and (other.__class__ is int or other.__class__ is float):
        y = U._fast_scalar(self, other)
        if y is not None:
            return U.binary(M._NotEqual, self, y)
    if _v1_graph_tensor(self):
        return self is not other
    if other is None:
        return True
    try:
        x, y = U.binary_operands(self, other)
        U.broadcast_shapes(x.shape, y.shape)
    except (ValueError, TypeError):
        return True
    if x.dtype is not y.dtype:
        return True
    return M.not_equal(x, y, name="NotEqual")


def _invert(self):
    if self.dtype is D.bool_:
        return M.logical_not(self)
    return M.invert(self)


def _abs(self):
    from .unary_ops import abs as abs_
    return abs_(self)


def _getitem(self, key):
    return _slicing_getitem(self, key)


_slicing_getitem = None


def install():
    """Sets the operator methods on Tensor (and, through it, Variable)."""
    table = {
        "add": (M.add, "add"), "sub": (M.subtract, "sub"), "mul": (M.multiply, "mul"),
        "truediv": (M.truediv, "truediv"), "floordiv": (M.floordiv, "floordiv"),
        "mod": (M.floormod, "mod"), "pow": (M.pow, "pow"), "matmul": (_matmul, "matmul"),
        "and": (_logical_or_bitwise(M.logical_and, M.bitwise_and, "and"), "and"),
        "or": (_logical_or_bitwise(M.logical_or, M.bitwise_or, "or"), "or"),
        "xor": (_logical_or_bitwise(M.logical_xor, M.bitwise_xor, "xor"), "xor"),
    }
    # Python's operators, not ufunc calls: NumPy scalars take the fast path.
    fast = {"add": (M._AddV2, operator.add, True), "sub": (M._Sub, operator.sub, True),
            "mul": (M._Mul, operator.mul, True),
            "floordiv": (M._FloorDiv, operator.floordiv, False),
            "mod": (M._FloorMod, operator.mod, False)}
    for key, (fn, name) in table.items():
        fwd, rev = _binop(fn, name)
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
        fwd, _ = _binop(fn, name)
        setattr(Tensor, "__%s__" % key, _fast(opdef, ufunc, fwd, False))
    Tensor.__eq__ = _fast(M._Equal, operator.eq, _eq, False)
    Tensor.__ne__ = _fast(M._NotEqual, operator.ne, _ne, False)
    Tensor.__neg__ = lambda self: M.negative(self, name="Neg")
    Tensor.__abs__ = _abs
    Tensor.__invert__ = _invert
    global _slicing_getitem
    from .slicing import getitem
    _slicing_getitem = getitem
    Tensor.__getitem__ = getitem
    from . import variables
    variables._install_operators()
