"""`assert_stmt`: a graph assertion for tensors, a Python assert otherwise."""
from .logical import is_graph_tensor


def assert_stmt(expression1, expression2):
    """`assert expression1, expression2()`.

    In a graph the check is an Assert op that raises InvalidArgumentError
    when the function runs and the condition is false.
    """
    if is_graph_tensor(expression1):
        from ...ops.logging_ops import Assert
        return Assert(expression1, [expression2()])
    if not expression1:
        raise AssertionError(expression2())
    return None
