"""Directives: `tf.autograph.set_element_type(l, dtype)` becomes an
assignment so the typed list flows through control flow like a variable."""
import ast

from ..pyct import templates
from .base import Transformer

_DIRECTIVES = {"set_element_type"}


class _Directives(Transformer):
    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr in _DIRECTIVES and call.args and \
                isinstance(call.args[0], ast.Name):
            target = call.args[0].id
            new = ast.Assign(targets=[templates.name(target, ast.Store())], value=call)
            return ast.copy_location(new, node)
        return node


def transform(node, ctx):
    """Rewrites directive calls in the function body."""
    node.body = _Directives(ctx).visit_block(node.body)
    return node
