"""`continue` becomes a flag, as in TensorFlow's AutoGraph: the flag is
reset at the start of each iteration, `continue` sets it, and the
statements after one that may continue run under `if not continue_:`, in
every block from the continue up to the loop body."""
import ast

from ..pyct import templates
from .base import Transformer, guard


class _Block:
    """A statement list being visited: whether its next statements must be
    guarded."""

    __slots__ = ("is_loop", "guard_current", "guard_next")

    def __init__(self, is_loop):
        self.is_loop = is_loop
        self.guard_current = False
        self.guard_next = False


class _Continues(Transformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        self.blocks = []
        self.loops = []   # [flag, used] of each enclosing loop

    def visit_Continue(self, node):
        self.loops[-1][1] = True
        for block in reversed(self.blocks):
            block.guard_next = True
            if block.is_loop:
                break
        return templates.replace("flag = True", loc=node, flag=self.loops[-1][0])

    def _after(self, nodes):
        if not self.loops or not self.loops[-1][1]:
            return nodes, None
        block = self.blocks[-1]
        wrap = block.guard_current
        block.guard_current, block.guard_next = block.guard_next, False
        if wrap:
            g = guard(self.loops[-1][0], nodes, nodes[0])
            return [g], g.body
        return nodes, None

    def _visit(self, stmts, is_loop):
        self.blocks.append(_Block(is_loop))
        out = self.visit_block(stmts, after_visit=self._after)
        self.blocks.pop()
        return out

    def _loop(self, node):
        if isinstance(node, ast.While):
            node.test = self.visit(node.test)
        else:
            node.iter = self.visit(node.iter)
        flag = self.ctx.fresh("continue_")
        self.loops.append([flag, False])
        body = self._visit(node.body, True)
        _, used = self.loops.pop()
        if used:
            body = templates.replace("flag = False", loc=node, flag=flag) + body
        node.body = body
        node.orelse = self._visit(node.orelse, False)
        return node

    visit_While = visit_For = _loop

    def visit_If(self, node):
        node.test = self.visit(node.test)
        node.body = self._visit(node.body, False)
        node.orelse = self._visit(node.orelse, False)
        return node

    def visit_With(self, node):
        node.body = self._visit(node.body, False)
        return node

    def visit_Try(self, node):
        node.body = self._visit(node.body, False)
        for h in node.handlers:
            h.body = self._visit(h.body, False)
        node.orelse = self._visit(node.orelse, False)
        node.finalbody = self._visit(node.finalbody, False)
        return node


def transform(node, ctx):
    """Lowers every `continue` of the function's loops."""
    node.body = _Continues(ctx).visit_block(node.body)
    return node
