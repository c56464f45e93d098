"""Reads of variables that may be undefined go through `ag__.ld(x)`, which
raises UnboundLocalError for an undefined value, as Python would; `del x`
becomes `x = ag__.Undefined('x')` (as in TensorFlow's AutoGraph), so a
variable deleted in a branch is state like one assigned there."""
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
        t = node.target
        if isinstance(t, ast.Name):
            # As TensorFlow's AutoGraph: only the target's read is checked; an
            # undefined name in the value is an operand of type Undefined
            # (TensorFlow's TypeError there, not UnboundLocalError).
            if t.id in self.ctx.maybe_undefined and not getattr(t, templates.GENERATED, False):
                return templates.replace("x = ag__.ld(x)", loc=node, x=t.id) + [node]
            return node
        return self.generic_visit(node)


    def visit_Delete(self, node):
        names = [t for t in node.targets if isinstance(t, ast.Name)]
        if not names:
            return self.generic_visit(node)
        out = []
        for t in names:
            out += templates.replace("x = ag__.Undefined(label)", loc=node, x=t.id,
                                     label=ast.Constant(value=t.id))
        rest = [self.visit(t) for t in node.targets if not isinstance(t, ast.Name)]
        if rest:
            out.append(ast.copy_location(ast.Delete(targets=rest), node))
        return out


def transform(node, ctx):
    """Wraps reads of possibly undefined variables in `ag__.ld`."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Delete):
            ctx.maybe_undefined.update(t.id for t in sub.targets if isinstance(t, ast.Name))
    node.body = _Loads(ctx).visit_block(node.body)
    return node
