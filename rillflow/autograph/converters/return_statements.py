"""`return` anywhere becomes `do_return = True; retval_ = value`; the rest of
each block is guarded, loops stop when `do_return` is set, and the function
ends with `return ag__.retval(retval_)`. Functions whose only return is the
last statement are left alone."""
import ast

from ..pyct import templates
from .base import and_test, guard_block, jump_matcher

_IS_RETURN = jump_matcher((ast.Return,))


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
    """Lowers the function's returns when some return is not the last statement."""
    rets = _returns(node)
    if not rets or (len(rets) == 1 and node.body and node.body[-1] is rets[0]):
        return node
    do_return = ctx.fresh("do_return")
    retval = ctx.fresh("retval_")

    def replace_return(s):
        value = s.value if s.value is not None else ast.Constant(value=None)
        return templates.replace("do_return = True\nretval = value", loc=s,
                                 do_return=do_return, retval=retval, value=value)

    def on_loop(loop):
        not_done = ast.UnaryOp(op=ast.Not(), operand=templates.name(do_return))
        templates.set_location(not_done, loop)
        if isinstance(loop, ast.While):
            loop.test = and_test(not_done, loop.test)
        else:
            loop._extra_test = and_test(not_done, getattr(loop, "_extra_test", None))

    body = guard_block(node.body, _IS_RETURN, replace_return, do_return, into_loops=True,
                       on_loop=on_loop)
    head = templates.replace("do_return = False\nretval = ag__.UndefinedReturnValue()",
                             loc=node.body[0], do_return=do_return, retval=retval)
    tail = templates.replace("return ag__.retval(retval)", loc=rets[-1], retval=retval)
    node.body = head + body + tail
    return node
