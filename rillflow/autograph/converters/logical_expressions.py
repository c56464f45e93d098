"""`a and b`, `a or b`, `not a` become `ag__.and_(lambda: a, lambda: b)`,
`ag__.or_(...)`, `ag__.not_(a)`: lazy like Python, tensor ops for tensors."""
import ast

from ..pyct import templates
from .base import Transformer


class _Logical(Transformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        values = node.values
        expr = values[-1]
        for v in reversed(values[:-1]):
            expr = templates.replace_expr("ag__.%s(lambda: a, lambda: b)" % fn, loc=node,
                                          a=v, b=expr)
        return expr

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return templates.replace_expr("ag__.not_(a)", loc=node, a=node.operand)
        return node


def transform(node, ctx):
    """Converts the function's logical expressions."""
    node.body = _Logical(ctx).visit_block(node.body)
    return node
