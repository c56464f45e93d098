"""The conversion pipeline: source -> AST -> converters -> compiled function.

Converted code is compiled with the user's file name and line numbers (the
source map), as the body of a factory whose parameters are `ag__` and the
function's closure variables; the factory is built with the function's own
globals, so the converted function sees the same module namespace.
"""
import ast
import sys
import types

from .converters import (asserts, break_statements, call_trees, conditional_expressions,
                         continue_statements, control_flow, directives, exceptions,
                         functions, lists, logical_expressions, return_statements, variables)
from .converters.base import FunctionContext
from .pyct import parser, templates
from .pyct.parser import ConversionError, UnsupportedLanguageElementError

# One converter per construct, in this order (as TensorFlow's AutoGraph).
PIPELINE = (functions, directives, exceptions, break_statements, continue_statements,
            return_statements, asserts, lists, call_trees, control_flow,
            conditional_expressions, logical_expressions, variables)

_cache = {}   # code object -> (factory code, function name, converted AST)


def _nested_functions(stmts):
    out = []
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    not getattr(node, "_ag_converted", False):
                out.append(node)
    return out


def _unsupported(node):
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Yield, ast.YieldFrom)):
            raise UnsupportedLanguageElementError("generators are not supported")
        if isinstance(sub, (ast.AsyncFor, ast.AsyncWith, ast.Await)):
            raise UnsupportedLanguageElementError("async code is not supported")


def transform_function(node, nested=False):
    """Applies the converters to a FunctionDef (nested functions first).

    A nested function keeps its decorators (`@tf.custom_gradient` defined
    inside a converted function must still apply); only the function being
    converted itself loses them.
    """
    _unsupported(node)
    for inner in _direct_nested(node):
        transform_function(inner, nested=True)
    decorators = node.decorator_list if nested else []
    ctx = FunctionContext(node)
    for conv in PIPELINE:
        node = conv.transform(node, ctx)
    node.decorator_list = decorators
    node._ag_converted = True
    return node


def _direct_nested(node):
    """Function definitions nested directly in `node` (not inside other ones)."""
    found = []

    def walk(n):
        for child in ast.iter_child_nodes(n):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append(child)
            elif not isinstance(child, (ast.Lambda, ast.ClassDef)):
                walk(child)
    walk(node)
    return found


def _compile(fn):
    code = fn.__code__
    entry = _cache.get(code)
    if entry is not None:
        return entry
    node, filename = parser.parse_function(fn)
    beyond = _beyond_tensorflow(node)
    # Defaults are evaluated where the function was defined; the converted
    # function gets the original values (`__defaults__`) instead.
    node.args.defaults = []
    node.args.kw_defaults = [None] * len(node.args.kwonlyargs)
    node = transform_function(node)
    freevars = list(code.co_freevars)
    uses_class = any(isinstance(n, ast.Name) and n.id == "__class__" for n in ast.walk(node))
    params = ["ag__"] + freevars + (["__class__"] if uses_class and
                                    "__class__" not in freevars else [])
    factory = ast.FunctionDef(
        name="__ag_factory", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[], returns=None)
    if sys.version_info >= (3, 12):
        factory.type_params = []
        for sub in ast.walk(node):
            if isinstance(sub, ast.FunctionDef) and not hasattr(sub, "type_params"):
                sub.type_params = []
    templates.set_location(factory, node)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    compiled = compile(module, filename, "exec")
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    # The converted function itself: it is built with the original closure
    # cells, so `nonlocal` writes reach the enclosing function (and later
    # calls of the original see them), as they would in Python.
    fn_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType)
                   and c.co_name == node.name)
    entry = (fn_code, node, beyond)
    _cache[code] = entry
    return entry


def _beyond_tensorflow(node):
    """What the function uses that rillflow converts and TensorFlow's
    AutoGraph does not (for/else, while/else), or None."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.For, ast.While)) and sub.orelse:
            kind = "for" if isinstance(sub, ast.For) else "while"
            return f"{kind}/else statement not yet supported"
    return None


def convert_function(fn, namespace, strict=False):
    """The converted version of a plain Python function, whose code calls
    `namespace` (the `ag__` module) as `ag__`.

    With `strict` (AUTOGRAPH_STRICT_CONVERSION), the constructs that only
    rillflow converts (for/else, while/else) are refused as TensorFlow
    refuses them, so that code checked in strict mode converts on
    TensorFlow too.

    Raises:
      ConversionError: when the function cannot be converted.
    """
    fn_code, _, beyond = _compile(fn)
    if beyond and strict:
        raise UnsupportedLanguageElementError(beyond)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in fn_code.co_freevars:
        if name == "ag__":
            closure.append(types.CellType(namespace))
        elif name in cells:
            closure.append(cells[name])
        elif name == fn_code.co_name:
            # The function's own name (a recursive call): a global in the
            # original, a free variable here only because the factory binds
            # the converted function to it. Its current global value.
            closure.append(types.CellType(fn.__globals__[name]) if name in fn.__globals__
                           else types.CellType())
        else:  # `__class__` for a rewritten `super()` outside a class
            closure.append(types.CellType(None))
    converted = types.FunctionType(fn_code, fn.__globals__, fn_code.co_name, fn.__defaults__,
                                   tuple(closure))
    converted.__kwdefaults__ = fn.__kwdefaults__
    converted.__doc__ = fn.__doc__
    converted.__wrapped__ = fn
    converted.__ag_converted__ = True
    return converted


def converted_source(fn):
    """The converted function's source code (for `to_code`)."""
    _, node, _ = _compile(fn)
    return ast.unparse(node)
