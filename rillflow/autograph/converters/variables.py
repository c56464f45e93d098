"""Reads of variables that may be undefined go through `ag__.ld(x)`, which
raises UnboundLocalError for an undefined value, as Python would."""
import ast

from ..pyct import templates
from .base import Transformer


class _Loads(Transformer):
    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.ctx.maybe_undefined and \
                not getattr(node, templates.GENERATED, False):
            return templates.replace_expr("ag__.ld(x)", loc=node, x=node)
        return node

    def visit_AugAssign(self, node):
        node.value = self.visit(node.value)
        t = node.target
        if isinstance(t, ast.Name) and t.id in self.ctx.maybe_undefined and \
                not getattr(t, templates.GENERATED, False):
            load = templates.replace("x = ag__.ld(x)", loc=node, x=t.id)
            return load + [node]
        return self.generic_visit(node)


def transform(node, ctx):
    """Wraps reads of possibly undefined variables in `ag__.ld`."""
    node.body = _Loads(ctx).visit_block(node.body)
    return node
