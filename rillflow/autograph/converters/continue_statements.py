"""`continue` becomes a flag reset at the start of each iteration; the rest
of the loop body is guarded by it."""
import ast

from ..pyct import templates
from .base import Transformer, contains, guard_block, jump_matcher

_IS_CONTINUE = jump_matcher((ast.Continue,))


class _Continues(Transformer):
    def _loop(self, node):
        node.body = self.visit_block(node.body)
        node.orelse = self.visit_block(node.orelse)
        if not contains(node.body, (ast.Continue,), into_loops=False):
            return node
        flag = self.ctx.fresh("continue_")
        body = guard_block(node.body, _IS_CONTINUE,
                           lambda s: templates.replace("flag = True", loc=s, flag=flag),
                           flag, into_loops=False)
        node.body = templates.replace("flag = False", loc=node, flag=flag) + body
        return node

    visit_While = _loop
    visit_For = _loop


def transform(node, ctx):
    """Lowers every `continue` of the function's loops."""
    node.body = _Continues(ctx).visit_block(node.body)
    return node
