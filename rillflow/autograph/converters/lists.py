"""List mutations become assignments: `l.append(x)` -> `l = ag__.list_append(l, x)`
and `v = l.pop()` -> `l, v = ag__.list_pop(l, i)` (also in `v += l.pop()` and
`return l.pop()`), so lists modified in a loop are loop variables (and become
tensor lists in graph loops)."""
import ast

from ..pyct import templates
from .base import Transformer
from ..pyct import scopes


def _method_call(call, method):
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == method and isinstance(call.func.value, ast.Name)
            and not call.keywords)


class _Lists(Transformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        # Only the function's own variables can be rebound: rewriting a
        # global or closure list into an assignment would make it local.
        self.locals_ = (set(ctx.params) | scopes.bound_names(ctx.node.body)) - \
            scopes.declared_globals(ctx.node)

    def _local(self, call):
        return call.func.value.id in self.locals_

    def _pop(self, call):
        """(list name, index) of a `local.pop(i)` call, or None."""
        if _method_call(call, "pop") and len(call.args) <= 1 and self._local(call):
            return call.func.value.id, call.args[0] if call.args else ast.Constant(value=None)
        return None

    def visit_Expr(self, node):
        call = node.value
        if _method_call(call, "append") and len(call.args) == 1 and self._local(call):
            target = call.func.value.id
            return templates.replace("l = ag__.list_append(l, x)", loc=node, l=target,
                                     x=call.args[0])
        pop = self._pop(call)
        if pop is not None:
            return templates.replace("l, _ = ag__.list_pop(l, i)", loc=node, l=pop[0],
                                     i=pop[1])
        return self.generic_visit(node)

    def visit_Assign(self, node):
        pop = self._pop(node.value)
        if pop is not None and len(node.targets) == 1:
            return templates.replace("l, v = ag__.list_pop(l, i)", loc=node, l=pop[0],
                                     v=node.targets[0], i=pop[1])
        return self.generic_visit(node)

    def _hoist_pop(self, node):
        """`x += l.pop()` / `return l.pop()`: the pop (which rebinds the list)
        moves to a statement of its own, before `node`."""
        pop = self._pop(node.value)
        if pop is None:
            return self.generic_visit(node)
        tmp = self.ctx.fresh("popped")
        node.value = templates.name(tmp)
        return templates.replace("l, v = ag__.list_pop(l, i)", loc=node, l=pop[0], v=tmp,
                                 i=pop[1]) + [node]

    visit_AugAssign = visit_Return = _hoist_pop


def transform(node, ctx):
    """Rewrites list appends and pops in the function."""
    node.body = _Lists(ctx).visit_block(node.body)
    return node
