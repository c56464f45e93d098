"""AutoGraph's public API and `converted_call`.

`tf.function` converts the Python function it traces; converted code calls
other functions through `converted_call`, which converts user functions
recursively and leaves the framework, NumPy and the standard library alone.
"""
import builtins
import functools
import inspect
import logging
import os
import sys
import threading

from ..framework.api_export import export, export_value
from . import conversion
from .operators import data_structures as _ds
from .operators.graph_loop import LoopOptions
from .operators import py_builtins
from .operators.variables import Undefined as _Undefined
from .pyct.parser import ConversionError

_verbosity = [int(os.environ.get("AUTOGRAPH_VERBOSITY", "0") or 0)]
_ALLOWLIST = ("rillflow", "numpy", "scipy", "tensorflow", "pytest", "_pytest", "unittest")
_STDLIB = getattr(sys, "stdlib_module_names", frozenset())
_failed = {}
# The optional features (`experimental_autograph_options`) of the function
# being traced, seen by the converted calls it makes.
_features = threading.local()


class AutoGraphError(ConversionError):
    """Raised in strict mode when a function cannot be converted."""


class UnsupportedFeatureError(AutoGraphError, NotImplementedError):
    """Raised in strict mode for a construct AutoGraph does not convert
    (generators, async code): a NotImplementedError, as in TensorFlow."""


def _strict():
    return os.environ.get("AUTOGRAPH_STRICT_CONVERSION", "") not in ("", "0", "false", "False")


# Modules of the package written as user code (examples), converted as such.
_USER_CODE = ("rillflow.demo",)


def _is_allowlisted(f):
    module = getattr(f, "__module__", None)
    if module in _USER_CODE:
        return False
    if module is None:
        return not hasattr(f, "__code__")  # user functions exec'd without a module
    top = module.split(".")[0]
    return top in _ALLOWLIST or top in _STDLIB or top == "builtins"


def _location(f):
    try:
        return "%s:%d" % (inspect.getsourcefile(f), inspect.getsourcelines(f)[1])
    except (OSError, TypeError):
        code = getattr(f, "__code__", None)
        return "%s:%s" % (getattr(code, "co_filename", "<unknown>"),
                          getattr(code, "co_firstlineno", "?"))


def _conversion_failed(f, e):
    msg = (f"AutoGraph could not transform {f!r} (defined at {_location(f)}) and will run it "
           f"as-is.\nCause: {e}\nTo silence this warning, decorate the function with "
           f"@tf.autograph.experimental.do_not_convert")
    if _strict():
        cls = UnsupportedFeatureError if isinstance(e, NotImplementedError) else AutoGraphError
        raise cls(msg) from None
    key = getattr(f, "__code__", f)
    if key not in _failed:
        _failed[key] = True
        # Logged, as TensorFlow does: WARNING:tensorflow:AutoGraph could not ...
        logging.getLogger("tensorflow").warning(msg)


def _convert(f):
    """The converted function, or None when it cannot be converted (warned)."""
    if "ag__" in f.__code__.co_freevars:
        return f  # defined inside converted code: converted already
    try:
        return conversion.convert_function(f, strict=_strict())
    except (ConversionError, SyntaxError) as e:
        _conversion_failed(f, e)
        return None


def converted_call(f, args, kwargs, caller_fn_scope=None, options=None):
    """Calls `f(*args, **kwargs)` from converted code."""
    if kwargs is None:
        kwargs = {}
    for a in args:
        if a.__class__ is _Undefined:
            # Python raises when the call's arguments are evaluated (an
            # augmented assignment's value is not read through ag__.ld).
            a.read()
    try:
        overload = py_builtins.OVERLOADS.get(f)
    except TypeError:  # unhashable callables
        overload = None
    if overload is not None:
        return overload(*args, **kwargs)
    if f is builtins.print and _uses(Feature.BUILTIN_FUNCTIONS):
        return py_builtins.print_(*args, **kwargs)
    if getattr(f, "__ag_do_not_convert__", False) or getattr(f, "__ag_converted__", False):
        return f(*args, **kwargs)
    from ..function.polymorphic_function import Function
    if isinstance(f, Function):
        return f(*args, **kwargs)
    if _is_allowlisted(f):
        if args and isinstance(args[0], _ds.TensorListLoopVar) and \
                getattr(f, "__name__", "") == "stack":
            return args[0].stack()
        return f(*args, **kwargs)
    if inspect.ismethod(f):
        target = f.__func__
        if _is_allowlisted(target) or getattr(target, "__ag_do_not_convert__", False):
            return f(*args, **kwargs)
        conv = _convert(target) if inspect.isfunction(target) else None
        if conv is None:
            return f(*args, **kwargs)
        return conv(f.__self__, *args, **kwargs)
    if inspect.isfunction(f):
        conv = _convert(f)
        return (conv or f)(*args, **kwargs)
    if isinstance(f, functools.partial):
        return converted_call(f.func, tuple(f.args) + tuple(args), {**f.keywords, **kwargs})
    if inspect.isclass(f) or inspect.isbuiltin(f):
        return f(*args, **kwargs)
    call = getattr(type(f), "__call__", None)
    if inspect.isfunction(call) and not _is_allowlisted(call):
        conv = _convert(call)
        if conv is not None:
            return conv(f, *args, **kwargs)
    return f(*args, **kwargs)


def _uses(feature):
    active = getattr(_features, "active", ())
    return feature in active or Feature.ALL in active


def _with_features(fn, options):
    """`fn`, running with the optional AutoGraph features `options` active."""
    if not options:
        return fn
    active = frozenset(options if isinstance(options, (list, tuple, set, frozenset))
                       else [options])

    @functools.wraps(fn)
    def run(*args, **kwargs):
        previous = getattr(_features, "active", ())
        _features.active = active
        try:
            return fn(*args, **kwargs)
        finally:
            _features.active = previous
    return run


def convert_for_function(fn, options=None):
    """What `tf.function(autograph=True)` traces: the converted `fn`, or `fn`
    itself when it cannot (or must not) be converted."""
    return _with_features(_convert_for_function(fn), options)


def _convert_for_function(fn):
    if getattr(fn, "__ag_do_not_convert__", False) or _is_allowlisted(fn):
        return fn
    if inspect.ismethod(fn):
        conv = _convert(fn.__func__) if inspect.isfunction(fn.__func__) else None
        return functools.partial(conv, fn.__self__) if conv is not None else fn
    if inspect.isfunction(fn):
        return _convert(fn) or fn
    call = getattr(type(fn), "__call__", None)
    if inspect.isfunction(call):
        conv = _convert(call)
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
    conv = conversion.convert_function(target)
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


class Feature:
    """AutoGraph optional features. BUILTIN_FUNCTIONS (or ALL) makes `print` of
    graph tensors print their values when the function runs; the others are
    accepted for compatibility."""
    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


export_value(Feature, "autograph.experimental.Feature")
