"""`and_`, `or_`, `not_`, `if_exp`: Python semantics for Python values, graph
ops (lazy through tf.cond) for graph tensors."""
from ...framework import context as _context
from ...framework.tensor import SymbolicTensor

_state = _context.state


def is_graph_tensor(x):
    """Whether `x` must be handled by graph control flow (a symbolic tensor,
    or a variable while building a graph)."""
    return isinstance(x, SymbolicTensor) or (
        _state.graph is not None and hasattr(x, "_dense_var_to_tensor"))


def and_(a, b):
    """`a() and b()`, lazily."""
    av = a()
    if is_graph_tensor(av):
        from ...ops.cond import cond
        from ...framework.convert import convert_to_tensor
        return cond(av, lambda: convert_to_tensor(b()), lambda: av)
    return av and b()


def or_(a, b):
    """`a() or b()`, lazily."""
    av = a()
    if is_graph_tensor(av):
        from ...ops.cond import cond
        from ...framework.convert import convert_to_tensor
        return cond(av, lambda: av, lambda: convert_to_tensor(b()))
    return av or b()


def not_(a):
    """`not a`."""
    if is_graph_tensor(a):
        from ...ops.math_ops import logical_not
        return logical_not(a)
    return not a


def if_exp(cond, if_true, if_false, expr_repr=None):
    """`if_true() if cond else if_false()`."""
    if is_graph_tensor(cond):
        from ...ops.cond import cond as tf_cond
        return tf_cond(cond, if_true, if_false)
    return if_true() if cond else if_false()
