"""`is_graph_tensor`: the test every AutoGraph operator dispatches on.

An operator takes its graph path (graph ops, tf.cond, a While op) for a value
that lives in a graph being built, and plain Python semantics otherwise. The
test is shared by operators that also use each other (logical.py's `if_exp`
checks its branches with loop_vars.py, whose errors are exceptions.py's
staging errors, and exceptions.py's `assert_stmt` dispatches on it too), so
it sits below all of them.
"""
from ...framework import context as _context
from ...framework.tensor import SymbolicTensor

__all__ = ["is_graph_tensor"]

_state = _context.state


def is_graph_tensor(x):
    """Whether `x` must be handled by graph control flow (a symbolic tensor,
    or a variable while building a graph)."""
    return isinstance(x, SymbolicTensor) or (
        _state.graph is not None and hasattr(x, "_dense_var_to_tensor"))
