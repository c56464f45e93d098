"""`break` becomes a flag, as in TensorFlow's AutoGraph: `break` is
`break_ = True; continue` (the continue converter then guards the rest of
the body), the loop also stops on the flag (a while loop's test, a for
loop's extra test), and an `else:` clause moves after the loop, guarded by
`if not break_:` (so for/else and while/else keep Python's meaning).

    while test:              break_ = False
        body1                while not break_ and test:
        if c: break              body1
        body2         ->         if c: break_ = True; continue
    else:                        body2
        orelse               if not break_:
                                 orelse
"""
import ast

from ..pyct import templates
from .base import Transformer, guard, not_flag_and


class _Breaks(Transformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        self.flags = []   # the break flag of each enclosing loop, innermost last
        self.used = []

    def visit_Break(self, node):
        self.used[-1] = True
        return templates.replace("flag = True\ncontinue", loc=node, flag=self.flags[-1])

    def _loop(self, node):
        if isinstance(node, ast.While):
            node.test = self.visit(node.test)
        else:
            node.iter = self.visit(node.iter)
        flag = self.ctx.fresh("break_")
        self.flags.append(flag)
        self.used.append(False)
        node.body = self.visit_block(node.body)
        self.flags.pop()
        used = self.used.pop()
        # A break in the else clause belongs to the enclosing loop.
        orelse = self.visit_block(node.orelse)
        node.orelse = []
        if not used:
            return [node] + orelse
        if isinstance(node, ast.While):
            node.test = not_flag_and(flag, node.test, node)
        else:
            node._extra_test = not_flag_and(flag, getattr(node, "_extra_test", None), node)
        out = templates.replace("flag = False", loc=node, flag=flag) + [node]
        if orelse:
            out.append(guard(flag, orelse, orelse[0]))
        return out

    visit_While = visit_For = _loop


def transform(node, ctx):
    """Lowers every `break` of the function's loops."""
    node.body = _Breaks(ctx).visit_block(node.body)
    return node
