"""Which callables AutoGraph converts, and converting one.

User code is converted; the framework, NumPy, the standard library (and the
test runners) are called as they are (`is_allowlisted`). `convert` gives the
converted function, or None when it cannot be converted: a warning, logged
once per function as TensorFlow logs it, or in strict mode
(AUTOGRAPH_STRICT_CONVERSION) an AutoGraphError.

`convert` takes the `ag__` namespace the converted code is to call: that
namespace (ag__.py) calls `convert` itself, from `converted_call`, so this
module cannot import it.
"""
import inspect
import logging
import os
import sys

from . import conversion
from .pyct.parser import ConversionError

__all__ = ["AutoGraphError", "UnsupportedFeatureError", "is_allowlisted", "convert"]

_ALLOWLIST = ("rillflow", "numpy", "scipy", "tensorflow", "pytest", "_pytest", "unittest")
_STDLIB = getattr(sys, "stdlib_module_names", frozenset())
_failed = {}


class AutoGraphError(ConversionError):
    """Raised in strict mode when a function cannot be converted."""


class UnsupportedFeatureError(AutoGraphError, NotImplementedError):
    """Raised in strict mode for a construct AutoGraph does not convert
    (generators, async code): a NotImplementedError, as in TensorFlow."""


def _strict():
    return os.environ.get("AUTOGRAPH_STRICT_CONVERSION", "") not in ("", "0", "false", "False")


# Modules of the package written as user code (examples), converted as such.
_USER_CODE = ("rillflow.demo",)


def is_allowlisted(f):
    """Whether `f` is called as it is (not user code)."""
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


def convert(f, namespace):
    """The converted `f` (calling `namespace` as its `ag__`), or None when it
    cannot be converted (warned)."""
    if "ag__" in f.__code__.co_freevars:
        return f  # defined inside converted code: converted already
    try:
        return conversion.convert_function(f, namespace, strict=_strict())
    except (ConversionError, SyntaxError) as e:
        _conversion_failed(f, e)
        return None
