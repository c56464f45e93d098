"""`assert_stmt`: a graph assertion for tensors, a Python assert otherwise.

And AutoGraph's own errors: an error the operators raise while staging graph
control flow (a variable undefined in one branch of a graph `if`, a loop
variable changing dtype, ...) is not the user's program raising, so the
`except` clauses of converted code let it through (`reraise_staging_error`)
instead of running their handler, which would give an answer Python does
not give.
"""
import sys

from .dispatch import is_graph_tensor
from ...ops.debugging.logging_ops import Assert


def staging(error):
    """Marks `error` as raised by AutoGraph while staging control flow."""
    error.ag_staging_error = True
    return error


def reraise_staging_error():
    """Called first in each `except` handler of converted code: re-raises the
    exception being handled when AutoGraph raised it while staging."""
    if getattr(sys.exc_info()[1], "ag_staging_error", False):
        raise  # noqa: PLE0704 - the exception being handled


def assert_stmt(expression1, expression2):
    """`assert expression1, expression2()`.

    In a graph the check is an Assert op that raises InvalidArgumentError
    when the function runs and the condition is false.
    """
    if is_graph_tensor(expression1):
        return Assert(expression1, [expression2()])
    if not expression1:
        raise AssertionError(expression2())
    return None
