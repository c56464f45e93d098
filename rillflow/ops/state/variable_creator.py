"""`tf.variable_creator_scope`: functions that intercept `tf.Variable(...)`.

`Variable`'s metaclass (`VariableMetaclass`) sends a direct `tf.Variable(...)`
call through the creators in scope, innermost first, as TensorFlow's does: each
is called `creator(next_creator, **kwargs)` with every constructor argument
by name, and may change them, call `next_creator(**kwargs)`, or return a
variable of its own. The stack is per thread and seen inside `tf.function`.
"""
import contextlib
import inspect

from ...framework import context as _context
from ...framework.api_export import export

__all__ = ["VariableMetaclass", "variable_creator_scope"]

_state = _context.state


def _stack():
    s = getattr(_state, "variable_creator_stack", None)
    if s is None:
        s = _state.variable_creator_stack = []
    return s


class VariableMetaclass(type):
    """Routes `tf.Variable(...)` through the creators of `variable_creator_scope`."""

    def __call__(cls, *args, **kwargs):
        stack = _stack()
        if not stack or cls.__dict__.get("_creator_entry") is not True:
            return super().__call__(*args, **kwargs)
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
        bound.apply_defaults()
        call_kwargs = dict(bound.arguments)
        call_kwargs.pop("self")

        def default(**kw):
            return type.__call__(cls, **kw)

        getter = default
        for creator in stack:  # outermost first: the innermost creator runs first
            getter = (lambda c, nxt: lambda **kw: c(nxt, **kw))(creator, getter)
        return getter(**call_kwargs)


@export("variable_creator_scope")
@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Inside, `tf.Variable(...)` calls `variable_creator(next_creator, **kwargs)`
    (innermost scope first), which returns the variable (usually by calling
    `next_creator(**kwargs)`, with the arguments changed or not)."""
    stack = _stack()
    stack.append(variable_creator)
    try:
        yield
    finally:
        # The last occurrence: the same creator may be in scope twice.
        del stack[len(stack) - 1 - stack[::-1].index(variable_creator)]
