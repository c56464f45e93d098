"""List mutations become assignments: `l.append(x)` -> `l = ag__.list_append(l, x)`
and `l.pop()` -> `l, v = ag__.list_pop(l, i)`, so lists modified in a loop
are loop variables (and become tensor lists in graph loops)."""
import ast

from ..pyct import templates
from .base import Transformer


def _method_call(call, method):
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == method and isinstance(call.func.value, ast.Name)
            and not call.keywords)


class _Lists(Transformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        from ..pyct import scopes
        # Only the function's own variables can be rebound: rewriting a
        # global or closure list into an assignment would make it local.
        self.locals_ = (set(ctx.params) | scopes.bound_names(ctx.node.body)) - \
            scopes.declared_globals(ctx.node)

    def _local(self, call):
        return call.func.value.id in self.locals_

    def visit_Expr(self, node):
        call = node.value
        if _method_call(call, "append") and len(call.args) == 1 and self._local(call):
            target = call.func.value.id
            return templates.replace("l = ag__.list_append(l, x)", loc=node, l=target,
                                     x=call.args[0])
        if _method_call(call, "pop") and len(call.args) <= 1 and self._local(call):
            target = call.func.value.id
            idx = call.args[0] if call.args else ast.Constant(value=None)
            return templates.replace("l, _ = ag__.list_pop(l, i)", loc=node, l=target, i=idx)
        return self.generic_visit(node)

    def visit_Assign(self, node):
        call = node.value
        if _method_call(call, "pop") and len(call.args) <= 1 and len(node.targets) == 1 \
                and self._local(call):
            target = call.func.value.id
            idx = call.args[0] if call.args else ast.Constant(value=None)
            return templates.replace("l, v = ag__.list_pop(l, i)", loc=node, l=target,
                                     v=node.targets[0], i=idx)
        return self.generic_visit(node)


def transform(node, ctx):
    """Rewrites list appends and pops in the function."""
    node.body = _Lists(ctx).visit_block(node.body)
    return node
