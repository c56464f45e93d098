"""`a and b`, `a or b`, `not a` become `ag__.and_(lambda: a, lambda: b)`,
`ag__.or_(...)`, `ag__.not_(a)`: lazy like Python, tensor ops for tensors.
A chained comparison `a < b < c` (an implicit `and`) becomes
`ag__.compare_chain(a, ('Lt', 'Lt'), (lambda: b, lambda: c))`."""
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

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) < 2:
            return node
        ops = ast.Tuple(elts=[ast.Constant(value=type(op).__name__) for op in node.ops],
                        ctx=ast.Load())
        thunks = ast.Tuple(elts=[ast.Lambda(args=_no_args(), body=c)
                                 for c in node.comparators], ctx=ast.Load())
        return templates.replace_expr("ag__.compare_chain(left, ops, thunks)", loc=node,
                                      left=node.left, ops=ops, thunks=thunks)


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def transform(node, ctx):
    """Converts the function's logical expressions."""
    node.body = _Logical(ctx).visit_block(node.body)
    return node
