"""The `ag__` namespace converted code calls (passed to it, not imported).

The operators, and `converted_call`, through which converted code makes
every call: it converts the user functions it calls as they are called
(user_code.py), passing them this namespace in turn.
"""
import builtins
import functools
import inspect
import sys

from .features import Feature, uses
from .operators import data_structures as _ds
from .operators import py_builtins
from .operators.control_flow import for_stmt, if_stmt, while_stmt  # noqa: F401
from .operators.data_structures import list_append, list_pop, set_element_type, stack  # noqa: F401
from .operators.exceptions import assert_stmt, reraise_staging_error  # noqa: F401
from .operators.logical import and_, compare_chain, if_exp, not_, or_  # noqa: F401
from .operators.variables import (Undefined, UndefinedReturnValue, is_undefined, ld,  # noqa: F401
                                  ldu, retval, store)
from .user_code import convert, is_allowlisted

# This module itself: the namespace the functions converted here call.
_NAMESPACE = sys.modules[__name__]

# Types whose instances converted code calls as they are because they convert
# their own code when they trace: tf.function's Function, registered by
# polymorphic_function.py (which builds on AutoGraph, so it is not imported here).
_self_converting = ()


def register_self_converting(cls):
    """Makes converted code call instances of `cls` unconverted (they convert
    their own code when they trace, as tf.function's Function does)."""
    global _self_converting
    _self_converting = _self_converting + (cls,)
    return cls


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """Calls `f(*args, **kwargs)` from converted code, converting `f` first
    when it is user code."""
    if kwargs is None:
        kwargs = {}
    for a in args:
        if a.__class__ is Undefined:
            # Python raises when the call's arguments are evaluated (an
            # augmented assignment's value is not read through ag__.ld).
            a.read()
    try:
        overload = py_builtins.OVERLOADS.get(f)
    except TypeError:  # unhashable callables
        overload = None
    if overload is not None:
        return overload(*args, **kwargs)
    if f is builtins.print and uses(Feature.BUILTIN_FUNCTIONS):
        return py_builtins.print_(*args, **kwargs)
    if getattr(f, "__ag_do_not_convert__", False) or getattr(f, "__ag_converted__", False):
        return f(*args, **kwargs)
    if isinstance(f, _self_converting):
        return f(*args, **kwargs)
    if is_allowlisted(f):
        if args and isinstance(args[0], _ds.TensorListLoopVar) and \
                getattr(f, "__name__", "") == "stack":
            return args[0].stack()
        return f(*args, **kwargs)
    if inspect.ismethod(f):
        target = f.__func__
        if is_allowlisted(target) or getattr(target, "__ag_do_not_convert__", False):
            return f(*args, **kwargs)
        conv = convert(target, _NAMESPACE) if inspect.isfunction(target) else None
        if conv is None:
            return f(*args, **kwargs)
        return conv(f.__self__, *args, **kwargs)
    if inspect.isfunction(f):
        conv = convert(f, _NAMESPACE)
        return (conv or f)(*args, **kwargs)
    if isinstance(f, functools.partial):
        return converted_call(f.func, tuple(f.args) + tuple(args), {**f.keywords, **kwargs})
    if inspect.isclass(f) or inspect.isbuiltin(f):
        return f(*args, **kwargs)
    call = getattr(type(f), "__call__", None)
    if inspect.isfunction(call) and not is_allowlisted(call):
        conv = convert(call, _NAMESPACE)
        if conv is not None:
            return conv(f, *args, **kwargs)
    return f(*args, **kwargs)
