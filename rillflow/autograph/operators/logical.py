"""`and_`, `or_`, `not_`, `if_exp`: Python semantics for Python values, graph
ops (lazy through tf.cond) for graph tensors."""
import operator

from .dispatch import is_graph_tensor
from .loop_vars import verify_single_cond_var
from ...framework.convert import convert_to_tensor
from ...ops.control_flow.cond import cond, cond as tf_cond
from ...ops.core.math_ops import logical_not


def and_(a, b):
    """`a() and b()`, lazily."""
    av = a()
    if is_graph_tensor(av):
        return cond(av, lambda: convert_to_tensor(b()), lambda: av)
    return av and b()


def or_(a, b):
    """`a() or b()`, lazily."""
    av = a()
    if is_graph_tensor(av):
        return cond(av, lambda: av, lambda: convert_to_tensor(b()))
    return av or b()


_COMPARE = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt,
            "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge,
            "Is": operator.is_, "IsNot": operator.is_not,
            "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b}


def compare_chain(left, ops, comparators):
    """`left op0 c0() op1 c1() ...`: Python's chained comparison, an `and_` of
    the pairwise comparisons; each operand is evaluated at most once, and
    only when the comparisons before it held."""
    right = comparators[0]()
    result = _COMPARE[ops[0]](left, right)
    if len(ops) == 1:
        return result
    return and_(lambda: result, lambda: compare_chain(right, ops[1:], comparators[1:]))


def not_(a):
    """`not a`."""
    if is_graph_tensor(a):
        return logical_not(a)
    return not a


def if_exp(cond, if_true, if_false, expr_repr=None):
    """`if_true() if cond else if_false()`; a tf.cond for a graph tensor,
    whose branch values are checked as an `if`'s ('c' is None at the end
    of the main branch, dtypes that differ), named by the condition's text."""
    if is_graph_tensor(cond):
        values = {}

        def branch(key, fn):
            def run():
                values[key] = fn()
                if len(values) == 2:
                    verify_single_cond_var(expr_repr, values[True], values[False])
                return values[key]
            return run
        return tf_cond(cond, branch(True, if_true), branch(False, if_false))
    return if_true() if cond else if_false()
