"""`try`/`except`: each handler of the user's first re-raises an error that
AutoGraph raised while staging graph control flow
(`ag__.reraise_staging_error()`), so that such an error, which Python would
not raise, does not run the user's handler instead."""
import ast

from ..pyct import templates
from .base import Transformer


class _Handlers(Transformer):
    def visit_ExceptHandler(self, node):
        self.generic_visit(node)
        node.body = templates.replace("ag__.reraise_staging_error()", loc=node) + node.body
        return node


def transform(node, ctx):
    """Prefixes the function's except handlers with the staging-error check."""
    node.body = _Handlers(ctx).visit_block(node.body)
    return node
