"""Helpers shared by the operators made of a list of operators (block
diagonal, block lower triangular, Kronecker product, composition): checking
the list and its dtypes, combining the hints, batch shapes and per-operator
results."""
import operator as _operator

from .linear_operator import T
from .linear_operator_basic import _batch_broadcast


def _operator_list(operators):
    """`operators` as a list.

    Raises:
      ValueError: the list is empty.
    """
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    return operators


def _same_dtype(operators, dtype_text=str):
    """The operators' common dtype.

    Raises:
      TypeError: the operators' dtypes differ (each listed as its name and
        `dtype_text` of its dtype).
    """
    dtype = operators[0].dtype
    for op in operators:
        if op.dtype != dtype:
            names = [f"{o.name}: {dtype_text(o.dtype)}" for o in operators]
            raise TypeError("Expected all operators to have the same dtype.  Found "
                            + "   ".join(names))
    return dtype


def _all_hint(operators, attr, given, message):
    """True when every operator has the hint (error if given is False)."""
    if all(getattr(op, attr) for op in operators):
        if given is False:
            raise ValueError(message)
        return True
    return given


def _batch_of(operators):
    """The operators' static batch shapes broadcast together."""
    batch = operators[0].batch_shape
    for op in operators[1:]:
        batch = _batch_broadcast(batch, op.batch_shape)
    return batch


def _batch_tensor_of(operators):
    """The operators' dynamic batch shapes broadcast together."""
    batch = operators[0].batch_shape_tensor()
    for op in operators[1:]:
        batch = T.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
    return batch


def _product_of(operators, method):
    """The product of `op.<method>()` over the operators, first to last."""
    return _fold(operators, method, _operator.mul)


def _sum_of(operators, method):
    """The sum of `op.<method>()` over the operators, first to last."""
    return _fold(operators, method, _operator.add)


def _fold(operators, method, combine):
    """`op.<method>()` of each operator, combined left to right by `combine`."""
    out = getattr(operators[0], method)()
    for op in operators[1:]:
        out = combine(out, getattr(op, method)())
    return out
