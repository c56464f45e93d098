"""AutoGraph's public API.

`tf.function` converts the Python function it traces (`convert_for_function`);
converted code calls other functions through `converted_call` (ag__.py),
which converts user functions recursively and leaves the framework, NumPy
and the standard library alone (user_code.py).
"""
import functools
import inspect
import os

from ..framework.api_export import export, export_value
from . import ag__, conversion
from .ag__ import converted_call, register_self_converting  # noqa: F401
from .features import Feature, with_features
from .operators import data_structures as _ds
from .operators.graph_loop import LoopOptions
from .user_code import (AutoGraphError, UnsupportedFeatureError,  # noqa: F401
                        convert, is_allowlisted)

_verbosity = [int(os.environ.get("AUTOGRAPH_VERBOSITY", "0") or 0)]


def convert_for_function(fn, options=None):
    """What `tf.function(autograph=True)` traces: the converted `fn`, or `fn`
    itself when it cannot (or must not) be converted."""
    return with_features(_convert_for_function(fn), options)


def _convert_for_function(fn):
    if getattr(fn, "__ag_do_not_convert__", False) or is_allowlisted(fn):
        return fn
    if inspect.ismethod(fn):
        conv = convert(fn.__func__, ag__) if inspect.isfunction(fn.__func__) else None
        return functools.partial(conv, fn.__self__) if conv is not None else fn
    if inspect.isfunction(fn):
        return convert(fn, ag__) or fn
    call = getattr(type(fn), "__call__", None)
    if inspect.isfunction(call):
        conv = convert(call, ag__)
        if conv is not None:
            return functools.partial(conv, fn)
    return fn


@export("autograph.to_graph")
def to_graph(entity, recursive=True, experimental_optional_features=None):
    """The converted (graph-capable) version of a Python function or method.

    Raises:
      ConversionError: if it cannot be converted.
    """
    target = entity.__func__ if inspect.ismethod(entity) else entity
    if hasattr(target, "python_function"):
        target = target.python_function
    conv = conversion.convert_function(target, ag__)
    if inspect.ismethod(entity):
        return functools.partial(conv, entity.__self__)
    return conv


@export("autograph.to_code")
def to_code(entity, recursive=True, experimental_optional_features=None):
    """The source code AutoGraph generates for `entity`."""
    target = entity.__func__ if inspect.ismethod(entity) else entity
    if hasattr(target, "python_function"):
        target = target.python_function
    return conversion.converted_source(target)


@export("autograph.experimental.do_not_convert")
def do_not_convert(func=None):
    """Decorator: calls of `func` from converted code run it unconverted."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    wrapper.__ag_do_not_convert__ = True
    return wrapper


@export("autograph.set_verbosity")
def set_verbosity(level, alsologtostdout=False):
    """Sets how much AutoGraph reports about conversion (0 = warnings only)."""
    _verbosity[0] = int(level)


@export("autograph.get_verbosity")
def get_verbosity():
    """The AutoGraph verbosity level."""
    return _verbosity[0]


@export("autograph.experimental.set_loop_options")
def set_loop_options(parallel_iterations=None, swap_memory=None, maximum_iterations=None,
                     shape_invariants=None):
    """Accepted inside loops for compatibility (loop options do not change results)."""
    return None


@export("autograph.experimental.set_loop_shape_widening")
def set_loop_shape_widening(enabled=True):
    """Lets loop variables whose shape changes across iterations take a partial
    shape automatically, instead of TensorFlow's ValueError (off by default)."""
    LoopOptions.widen_shapes = bool(enabled)


@export("autograph.trace")
def trace(*args):
    """Prints the arguments while the function is converted/traced."""
    print(*args)


export_value(_ds.set_element_type, "autograph.set_element_type")
export_value(_ds.stack, "autograph.stack")
export_value(Feature, "autograph.experimental.Feature")
