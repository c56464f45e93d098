"""`break` becomes a flag: the rest of the loop body is guarded by it, the
loop's test (or a for loop's extra test) checks it, and an `else:` clause
runs only when the flag is unset (so for/else and while/else work)."""
import ast

from ..pyct import templates
from .base import Transformer, and_test, contains, guard_block, jump_matcher

_IS_BREAK = jump_matcher((ast.Break,))


class _Breaks(Transformer):
    def _loop(self, node):
        node.body = self.visit_block(node.body)
        node.orelse = self.visit_block(node.orelse)
        if not contains(node.body, (ast.Break,), into_loops=False):
            if node.orelse:
                tail = node.orelse
                node.orelse = []
                return [node] + tail
            return node
        flag = self.ctx.fresh("break_")
        node.body = guard_block(
            node.body, _IS_BREAK,
            lambda s: templates.replace("flag = True", loc=s, flag=flag),
            flag, into_loops=False) or [ast.Pass()]
        not_flag = ast.UnaryOp(op=ast.Not(), operand=templates.name(flag))
        templates.set_location(not_flag, node)
        if isinstance(node, ast.While):
            node.test = and_test(not_flag, node.test)
        else:
            node._extra_test = and_test(not_flag, getattr(node, "_extra_test", None))
        out = templates.replace("flag = False", loc=node, flag=flag) + [node]
        if node.orelse:
            guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=templates.name(flag)),
                           body=node.orelse, orelse=[])
            templates.set_location(guard, node)
            node.orelse = []
            out.append(guard)
        return out

    visit_While = _loop
    visit_For = _loop


def transform(node, ctx):
    """Lowers every `break` of the function's loops."""
    node.body = _Breaks(ctx).visit_block(node.body)
    return node
