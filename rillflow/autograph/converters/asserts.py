"""`assert test, msg` becomes `ag__.assert_stmt(test, lambda: msg)`: a graph
assertion for tensors, a Python assert otherwise."""
import ast

from ..pyct import templates
from .base import Transformer


class _Asserts(Transformer):
    def visit_Assert(self, node):
        msg = node.msg if node.msg is not None else ast.Constant(value="Assertion error")
        return templates.replace("ag__.assert_stmt(test, lambda: msg)", loc=node,
                                 test=node.test, msg=msg)


def transform(node, ctx):
    """Converts the function's assert statements."""
    node.body = _Asserts(ctx).visit_block(node.body)
    return node
