"""Installs the Python operators (`+`, `==`, `[]`, ...) on `tf.Tensor` and
`tf.Variable`, with the op names TensorFlow gives them in graphs."""
from ..framework import dtypes as D
from ..framework.tensor import SymbolicTensor, Tensor
from . import math_ops as M
from . import op_util as U


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
    for key, (fn, name) in table.items():
        fwd, rev = _binop(fn, name)
        fwd.__name__, rev.__name__ = "__%s__" % key, "__r%s__" % key
        fwd.__doc__ = rev.__doc__ = f"The `{name}` op (`tf.Tensor` operator)."
        setattr(Tensor, "__%s__" % key, fwd)
        setattr(Tensor, "__r%s__" % key, rev)
    Tensor.__div__, Tensor.__rdiv__ = Tensor.__truediv__, Tensor.__rtruediv__
    for key, fn, name in (("lt", M.less, "Less"), ("le", M.less_equal, "LessEqual"),
                          ("gt", M.greater, "Greater"), ("ge", M.greater_equal, "GreaterEqual")):
        fwd, _ = _binop(fn, name)
        setattr(Tensor, "__%s__" % key, fwd)
    Tensor.__eq__ = _eq
    Tensor.__ne__ = _ne
    Tensor.__neg__ = lambda self: M.negative(self, name="Neg")
    Tensor.__abs__ = _abs
    Tensor.__invert__ = _invert
    global _slicing_getitem
    from .slicing import getitem
    _slicing_getitem = getitem
    Tensor.__getitem__ = getitem
    from . import variables
    variables._install_operators()
