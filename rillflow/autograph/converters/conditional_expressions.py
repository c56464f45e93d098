"""`a if c else b` becomes `ag__.if_exp(c, lambda: a, lambda: b, 'c')` (tf.cond
for a tensor condition).

As in TensorFlow's AutoGraph, the parts of a converted conditional
expression are not converted again: a conditional expression nested in
another one stays Python, and a tensor condition there is TensorFlow's
OperatorNotAllowedInGraphError (TensorFlow refuses such programs; rillflow
refuses them the same way)."""
import ast

from ..pyct import templates
from .base import Transformer


class _IfExp(Transformer):
    def visit_IfExp(self, node):
        return templates.replace_expr(
            "ag__.if_exp(test, lambda: body, lambda: orelse, expr_repr)", loc=node,
            test=node.test, body=node.body, orelse=node.orelse,
            expr_repr=ast.Constant(value=ast.unparse(node.test).strip()))


def transform(node, ctx):
    """Converts the function's conditional expressions."""
    node.body = _IfExp(ctx).visit_block(node.body)
    return node
