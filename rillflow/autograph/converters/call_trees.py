"""Calls: `f(a, b=c)` becomes `ag__.converted_call(f, (a,), {'b': c})`, so
functions called from converted code are converted too (or overloaded,
for builtins like `range` and `len`)."""
import ast

from ..pyct import templates
from .base import Transformer


def _is_ag(func):
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == "ag__")


class _Calls(Transformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if _is_ag(func):
            return node
        if isinstance(func, ast.Name) and func.id == "super" and not node.args:
            first = self.ctx.node.args.args[0].arg if self.ctx.node.args.args else None
            if first is None:
                return node
            node.args = [templates.name("__class__"), templates.name(first)]
            return node
        args = ast.Tuple(elts=list(node.args), ctx=ast.Load())
        if node.keywords:
            kwargs = ast.Dict(keys=[ast.Constant(value=k.arg) if k.arg is not None else None
                                    for k in node.keywords],
                              values=[k.value for k in node.keywords])
        else:
            kwargs = ast.Constant(value=None)
        new = ast.Call(func=ast.Attribute(value=templates.name("ag__"), attr="converted_call",
                                          ctx=ast.Load()),
                       args=[func, args, kwargs], keywords=[])
        return templates.set_location(new, node)


def transform(node, ctx):
    """Routes the function's calls through `ag__.converted_call`."""
    node.body = _Calls(ctx).visit_block(node.body)
    return node
