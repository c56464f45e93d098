"""Shared pieces of the converters: per-function state (fresh names), a
transformer that stays inside one function, and block visiting with
statement relocation (what the jump converters build their guards with)."""
import ast

from ..pyct import scopes, templates


class FunctionContext:
    """Per-function conversion state shared by the converters."""

    def __init__(self, node):
        self.node = node
        self.params = scopes.param_names(node.args)
        self._used = set(self.params)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                self._used.add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._used.add(sub.name)
        # Names that may hold an Undefined value (set by control_flow): their
        # reads go through `ag__.ld`, which raises UnboundLocalError.
        self.maybe_undefined = set()

    def fresh(self, base):
        """A name not used in the function, derived from `base`."""
        name = base
        i = 1
        while name in self._used:
            name = "%s_%d" % (base, i)
            i += 1
        self._used.add(name)
        return name


class Transformer(ast.NodeTransformer):
    """Visits one function's body; nested user functions (converted before
    their enclosing one) and classes are left alone."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        if getattr(node, "_ag_converted", False):
            return node
        return self.generic_visit(node)

    def visit_ClassDef(self, node):
        return node

    def visit_block(self, stmts, after_visit=None):
        """Visits a list of statements, splicing lists returned by visitors.

        `after_visit(nodes)` gets what one statement became (a list) and
        returns `(nodes, destination)`: when the destination is a list, the
        statements that follow go there instead (how a guard
        `if not flag:` comes to hold the rest of a block, or the rest moves
        into an `else`).
        """
        out = []
        dest = out
        for s in stmts:
            r = self.visit(s)
            if r is None:
                continue
            nodes = r if isinstance(r, list) else [r]
            if not nodes:
                continue
            if after_visit is not None:
                nodes, new_dest = after_visit(nodes)
                dest.extend(nodes)
                if new_dest is not None:
                    dest = new_dest
            else:
                dest.extend(nodes)
        return out


def guard(flag, body, loc):
    """`if not flag: body` (the statements after `body` may be added later)."""
    node = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=templates.name(flag)),
                  body=body, orelse=[])
    templates.set_location(node, loc)
    return node


def fill_empty(stmts, loc):
    """`stmts`, or `[pass]` when empty (a block must hold a statement)."""
    if stmts:
        return stmts
    p = ast.Pass()
    templates.set_location(p, loc)
    return [p]


def not_flag_and(flag, rest, loc):
    """`not flag and rest` (`not flag` when `rest` is None)."""
    not_ = ast.UnaryOp(op=ast.Not(), operand=templates.name(flag))
    templates.set_location(not_, loc)
    if rest is None:
        return not_
    node = ast.BoolOp(op=ast.And(), values=[not_, rest])
    templates.set_location(node, loc)
    return node
