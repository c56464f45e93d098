"""Shared pieces of the converters: a transformer that stays inside one
function, fresh names, and jump-statement guarding."""
import ast

from ..pyct import templates


class FunctionContext:
    """Per-function conversion state shared by the converters."""

    def __init__(self, node):
        self.node = node
        self._used = {a.arg for a in _all_args(node.args)}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                self._used.add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._used.add(sub.name)
        self.undefined_ok = set()   # names initialized to Undefined at the top
        self.params = {a.arg for a in _all_args(node.args)}

    def fresh(self, base):
        """A name not used in the function, derived from `base`."""
        name = base
        i = 1
        while name in self._used:
            name = "%s_%d" % (base, i)
            i += 1
        self._used.add(name)
        return name


def _all_args(args):
    out = list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)
    if args.vararg:
        out.append(args.vararg)
    if args.kwarg:
        out.append(args.kwarg)
    return out


class Transformer(ast.NodeTransformer):
    """Visits one function's body; nested user functions (already converted)
    are left alone."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        if getattr(node, "_ag_converted", False):
            return node
        return self.generic_visit(node)

    def visit_ClassDef(self, node):
        return node

    def visit_block(self, stmts):
        """Visits a list of statements, splicing lists returned by visitors."""
        out = []
        for s in stmts:
            r = self.visit(s)
            if r is None:
                continue
            out.extend(r if isinstance(r, list) else [r])
        return out


def contains(stmts, kinds, into_loops):
    """Whether a jump of `kinds` appears in `stmts` (belonging to this level)."""
    for s in stmts if isinstance(stmts, list) else [stmts]:
        for node in _walk_level(s, into_loops):
            if isinstance(node, kinds):
                return True
    return False


def _walk_level(node, into_loops):
    yield node
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if not into_loops and isinstance(child, (ast.For, ast.While)):
            continue
        yield from _walk_level(child, into_loops)


def guard_block(stmts, is_jump, replace_jump, flag, into_loops, on_loop=None):
    """Rewrites jumps (break/continue/return) into flag assignments.

    Statements after one that may set `flag` are wrapped in `if not flag:`.
    `on_loop(loop_node)` is called for loops entered (when `into_loops`).
    """
    out = []
    for i, s in enumerate(stmts):
        if is_jump(s):
            out.extend(replace_jump(s))
            return out
        may_jump = contains(s, _jump_kinds(is_jump), into_loops)
        rest = stmts[i + 1:]
        if may_jump and isinstance(s, ast.If) and rest:
            # `if c: return x` / rest: the rest runs exactly when the other
            # branch is taken, so it moves there (as TensorFlow does). No
            # guard is needed, and what the rest assigns is not left
            # undefined in the branch that jumped.
            if definitely_jumps(s.body, is_jump):
                s.orelse, rest = s.orelse + rest, []
            elif definitely_jumps(s.orelse, is_jump):
                s.body, rest = s.body + rest, []
        if may_jump:
            s = _guard_inner(s, is_jump, replace_jump, flag, into_loops, on_loop)
        out.append(s)
        if may_jump:
            rest = guard_block(rest, is_jump, replace_jump, flag, into_loops, on_loop)
            if rest:
                guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=templates.name(flag)),
                               body=rest, orelse=[])
                templates.set_location(guard, rest[0] if getattr(rest[0], "lineno", None)
                                       else s)
                out.append(guard)
            return out
    return out


def definitely_jumps(stmts, is_jump):
    """Whether every path through `stmts` ends in a jump of `is_jump`'s kind
    (loops are not followed: their body may not run)."""
    for s in stmts:
        if is_jump(s):
            return True
        if isinstance(s, ast.If) and definitely_jumps(s.body, is_jump) and \
                definitely_jumps(s.orelse, is_jump):
            return True
        if isinstance(s, ast.With) and definitely_jumps(s.body, is_jump):
            return True
    return False


def _jump_kinds(is_jump):
    return is_jump.kinds


def _guard_inner(s, is_jump, replace_jump, flag, into_loops, on_loop):
    def g(block):
        return guard_block(block, is_jump, replace_jump, flag, into_loops, on_loop) or \
            [ast.Pass()]
    if isinstance(s, ast.If):
        s.body = g(s.body)
        s.orelse = guard_block(s.orelse, is_jump, replace_jump, flag, into_loops, on_loop)
    elif isinstance(s, (ast.With,)):
        s.body = g(s.body)
    elif isinstance(s, ast.Try):
        s.body = g(s.body)
        for h in s.handlers:
            h.body = g(h.body)
        s.orelse = guard_block(s.orelse, is_jump, replace_jump, flag, into_loops, on_loop)
        s.finalbody = guard_block(s.finalbody, is_jump, replace_jump, flag, into_loops,
                                  on_loop)
    elif isinstance(s, (ast.For, ast.While)) and into_loops:
        s.body = g(s.body)
        if on_loop is not None:
            on_loop(s)
    return s


def jump_matcher(kinds):
    """A predicate for statements of `kinds`, carrying the kinds."""
    def is_jump(s):
        return isinstance(s, kinds)
    is_jump.kinds = kinds
    return is_jump


def and_test(first, second):
    """`first and second` as an AST expression (second may be None)."""
    if second is None:
        return first
    return ast.copy_location(ast.BoolOp(op=ast.And(), values=[first, second]), second)
