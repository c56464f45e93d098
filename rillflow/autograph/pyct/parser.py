"""Getting a function's source as an AST whose line numbers are the user's.

The converted AST is compiled with the user's file name and original line
and column numbers, so tracebacks through converted code show the user's
own lines (with carets) — this is AutoGraph's source map.
"""
import ast
import inspect
import textwrap

__all__ = ["parse_function", "ConversionError", "UnsupportedLanguageElementError"]


class ConversionError(Exception):
    """A function could not be converted (no source, unsupported construct)."""


class UnsupportedLanguageElementError(ConversionError, NotImplementedError):
    """The function uses a construct AutoGraph does not convert (generators,
    async code); a NotImplementedError, as in TensorFlow."""


def _lambda_node(tree, fn):
    lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
    if not lambdas:
        raise ConversionError("could not find the lambda in its source line")
    code = fn.__code__
    names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    matching = [n for n in lambdas if [a.arg for a in n.args.posonlyargs + n.args.args +
                                        n.args.kwonlyargs] == names]
    # The same lambda can be found twice (nested in a larger parse and alone).
    distinct = {ast.dump(n): n for n in matching}
    if len(distinct) != 1:
        if not distinct:
            raise ConversionError("could not find the lambda in its source line")
        raise ConversionError("several lambdas on one line with the same arguments; "
                              "AutoGraph cannot tell them apart")
    return next(iter(distinct.values()))


def parse_function(fn):
    """(ast.FunctionDef of `fn` with the user's line numbers, filename).

    Lambdas become a FunctionDef named after the lambda's position.

    Raises:
      ConversionError: when the source is not available.
    """
    try:
        # The code object, not the function: inspect would follow __wrapped__
        # to a different function's source.
        lines, start = inspect.getsourcelines(fn.__code__)
        filename = fn.__code__.co_filename
    except (OSError, TypeError, AttributeError) as e:
        raise ConversionError(f"could not get the source code ({e})") from None
    source = textwrap.dedent("".join(lines))
    indent = _indent_of(lines[0]) if lines else 0
    try:
        tree = ast.parse(source)
    except SyntaxError:
        if fn.__code__.co_name != "<lambda>":
            raise ConversionError("could not parse the source code") from None
        # A lambda inside a larger expression: parse just its line(s).
        tree = _parse_lambda_line(source)
    ast.increment_lineno(tree, start - 1)
    for node in ast.walk(tree):
        if hasattr(node, "col_offset") and getattr(node, "lineno", None) is not None:
            node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    if fn.__code__.co_name == "<lambda>":
        lam = _lambda_node(tree, fn)
        node = ast.FunctionDef(name="lambda__", args=lam.args,
                               body=[ast.copy_location(ast.Return(value=lam.body), lam.body)],
                               decorator_list=[], returns=None)
        ast.copy_location(node, lam)
        return node, filename
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(node, ast.AsyncFunctionDef):
                raise ConversionError("async functions are not supported")
            return node, filename
    raise ConversionError("the source does not define a function")


def _indent_of(line):
    return len(line) - len(line.lstrip())


def _parse_lambda_line(source):
    """The lambdas of a line that does not parse on its own (a lambda in the
    middle of a call spread over lines): each `lambda` parsed from where it
    starts, as far as it parses, collected into one tree."""
    text = source.strip()
    found = []
    start = text.find("lambda")
    while start >= 0:
        for cut in range(len(text), start, -1):
            try:
                found.append(ast.parse("(" + text[start:cut] + ")").body[0].value)
                break
            except (SyntaxError, ValueError):
                continue
        start = text.find("lambda", start + 1)
    if not found:
        raise ConversionError("could not parse the lambda's source")
    return ast.Module(body=[ast.Expr(value=ast.Tuple(elts=found, ctx=ast.Load()))],
                      type_ignores=[])
