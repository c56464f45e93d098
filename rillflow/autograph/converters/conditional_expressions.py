"""`a if c else b` becomes `ag__.if_exp(c, lambda: a, lambda: b)` (tf.cond
for a tensor condition)."""
from ..pyct import templates
from .base import Transformer


class _IfExp(Transformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        return templates.replace_expr("ag__.if_exp(test, lambda: body, lambda: orelse)",
                                      loc=node, test=node.test, body=node.body,
                                      orelse=node.orelse)


def transform(node, ctx):
    """Converts the function's conditional expressions."""
    node.body = _IfExp(ctx).visit_block(node.body)
    return node
