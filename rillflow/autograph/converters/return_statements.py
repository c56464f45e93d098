"""`return` anywhere becomes flags, as in TensorFlow's AutoGraph:

    do_return = False
    retval_ = ag__.UndefinedReturnValue()
    ...
    do_return = True          # was: return value
    retval_ = value
    if not do_return:         # the statements after it
        ...
    return ag__.retval(retval_)

Two passes. The first moves the statements after `if c: ... return` into
the `else` branch (and after an `else` that always returns, into the main
branch), so that both branches of a tensor `if` return instead of one
returning and the other falling through. The second replaces the returns,
guards what follows them in every block up to the function, and stops
loops that may return (a while loop's test, a for loop's extra test).
Functions whose only return is their last statement are left alone.
"""
import ast

from ..pyct import templates
from .base import Transformer, guard, not_flag_and


class _MoveAfterReturns(Transformer):
    """First pass: relocates the rest of a block into the branch of an `if`
    that does not always return."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.returns = []   # per block: whether it always returns

    def visit_Return(self, node):
        self.returns[-1] = True
        return node

    def _after(self, nodes):
        node = nodes[-1]
        if getattr(node, "_always_returns", False):
            self.returns[-1] = True
        if isinstance(node, ast.If):
            if getattr(node, "_body_returns", False):
                return nodes, node.orelse
            if getattr(node, "_orelse_returns", False):
                return nodes, node.body
        return nodes, None

    def block(self, stmts):
        self.returns.append(False)
        out = self.visit_block(stmts, after_visit=self._after)
        return out, self.returns.pop()

    def visit_If(self, node):
        node.test = self.visit(node.test)
        node.body, body_returns = self.block(node.body)
        node.orelse, orelse_returns = self.block(node.orelse)
        node._body_returns = body_returns
        node._orelse_returns = orelse_returns
        if body_returns and orelse_returns:
            self.returns[-1] = True
        return node

    def _loop(self, node):
        node.body, _ = self.block(node.body)
        node.orelse, _ = self.block(node.orelse)
        return node

    visit_While = visit_For = _loop

    def visit_With(self, node):
        node.body, always = self.block(node.body)
        node._always_returns = always
        return node

    def visit_Try(self, node):
        node.body, _ = self.block(node.body)
        for h in node.handlers:
            h.body, _ = self.block(h.body)
        node.orelse, _ = self.block(node.orelse)
        node.finalbody, _ = self.block(node.finalbody)
        return node


class _Block:
    __slots__ = ("return_used", "guard_now", "guard_next")

    def __init__(self):
        self.return_used = False
        self.guard_now = False
        self.guard_next = False


class _Returns(Transformer):
    """Second pass: returns become flag assignments; guards and loop tests."""

    def __init__(self, ctx, do_return, retval):
        super().__init__(ctx)
        self.do_return = do_return
        self.retval = retval
        self.blocks = []
        self.in_try = 0

    def visit_Return(self, node):
        for block in self.blocks:
            block.return_used = True
            block.guard_next = True
        value = node.value if node.value is not None else ast.Constant(value=None)
        if self.in_try:
            # The value may raise into a handler of the user's: the function
            # has not returned then.
            return templates.replace(
                "try:\n    do_return = True\n    retval = value\n"
                "except:\n    do_return = False\n    raise",
                loc=node, do_return=self.do_return, retval=self.retval, value=value)
        return templates.replace("do_return = True\nretval = value", loc=node,
                                 do_return=self.do_return, retval=self.retval, value=value)

    def _after(self, nodes):
        block = self.blocks[-1]
        if not block.return_used:
            return nodes, None
        dest = None
        if block.guard_now:
            g = guard(self.do_return, nodes, nodes[0])
            nodes, dest = [g], g.body
        block.guard_now, block.guard_next = block.guard_next, False
        return nodes, dest

    def block(self, stmts):
        self.blocks.append(_Block())
        out = self.visit_block(stmts, after_visit=self._after)
        self.blocks.pop()
        return out

    def visit_If(self, node):
        node.test = self.visit(node.test)
        node.body = self.block(node.body)
        node.orelse = self.block(node.orelse)
        return node

    def visit_While(self, node):
        node.test = self.visit(node.test)
        node.body = self.block(node.body)
        if self.blocks[-1].return_used:
            node.test = not_flag_and(self.do_return, node.test, node)
        node.orelse = self.block(node.orelse)
        return node

    def visit_For(self, node):
        node.iter = self.visit(node.iter)
        node.body = self.block(node.body)
        if self.blocks[-1].return_used:
            node._extra_test = not_flag_and(self.do_return,
                                            getattr(node, "_extra_test", None), node)
        node.orelse = self.block(node.orelse)
        return node

    def visit_With(self, node):
        node.body = self.block(node.body)
        return node

    def visit_Try(self, node):
        self.in_try += 1
        node.body = self.block(node.body)
        for h in node.handlers:
            h.body = self.block(h.body)
        node.orelse = self.block(node.orelse)
        self.in_try -= 1
        node.finalbody = self.block(node.finalbody)
        return node


def _returns(node):
    out = []

    def walk(n):
        for child in ast.iter_child_nodes(n):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda)):
                continue
            if isinstance(child, ast.Return):
                out.append(child)
            walk(child)
    walk(node)
    return out


def transform(node, ctx):
    """Lowers the function's returns unless its only return is the last statement."""
    rets = _returns(node)
    if not rets or (len(rets) == 1 and node.body and node.body[-1] is rets[0]):
        return node
    first = _MoveAfterReturns(ctx)
    node.body, _ = first.block(node.body)
    do_return = ctx.fresh("do_return")
    retval = ctx.fresh("retval_")
    second = _Returns(ctx, do_return, retval)
    body = second.block(node.body)
    head = templates.replace("do_return = False\nretval = ag__.UndefinedReturnValue()",
                             loc=node.body[0], do_return=do_return, retval=retval)
    tail = templates.replace("return ag__.retval(retval)", loc=rets[-1], retval=retval)
    node.body = head + body + tail
    return node
