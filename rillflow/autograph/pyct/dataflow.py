"""Liveness and reaching definitions over a function body, for the
control-flow converter.

It runs after the jump converters, when `break`, `continue` and `return`
have become flags (only a final `return` is left), so control flow is
structured and the analyses are computed over the AST directly, with a
fixpoint at each loop head. The rules follow TensorFlow's AutoGraph
(which computes them over a control-flow graph), because which variables
become the state of a graph `cond` or `while` decides which programs are
accepted and what their errors say:

- `_live_in`, `_live_out` on each `if`/`while`/`for`: the names read before
  being written from its start (the loop head, for loops), and after it;
  `_body_live_in` on loops: those read before being written in the body.
  A `for` loop's head assigns its target, so the target is not live there.
- `_defined_in` on the same statements: the names with at least one
  assignment that may reach the statement from before it (through a loop's
  back edge too).
"""
import ast

from .scopes import bound_names, param_names, reads, target_names

__all__ = ["annotate"]

_SCOPE_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def annotate(func):
    """Sets `_live_in`/`_live_out`/`_defined_in` on the compound statements
    of `func`'s body (not inside nested functions)."""
    _live_block(func.body, frozenset())
    _defs_block(func.body, frozenset(param_names(func.args)))


# --- liveness (backwards) ---------------------------------------------------------------

def _live_block(stmts, live_out):
    live = frozenset(live_out)
    for s in reversed(stmts):
        live = _live_stmt(s, live)
    return live


def _kills(s):
    """Names a simple statement surely assigns."""
    if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom,
                      ast.Delete) + _SCOPE_DEFS):
        return bound_names(s)
    return set()


def _live_stmt(s, out):
    if isinstance(s, ast.If):
        live_in = frozenset(reads(s.test)) | _live_block(s.body, out) | \
            _live_block(s.orelse, out)
    elif isinstance(s, ast.While):
        live_in = _live_loop(s, out, frozenset(reads(s.test)), frozenset())
    elif isinstance(s, ast.For):
        extra = getattr(s, "_extra_test", None)
        live_in = _live_loop(s, out, frozenset(reads(s.iter)),
                             frozenset(target_names(s.target)),
                             frozenset(reads(extra)) if extra is not None else frozenset())
    elif isinstance(s, ast.With):
        items = frozenset(reads([i.context_expr for i in s.items]))
        targets = set()
        for i in s.items:
            if i.optional_vars is not None:
                target_names(i.optional_vars, targets)
                items |= reads(i.optional_vars)  # a.b as target reads a
        return items | (_live_block(s.body, out) - targets)
    elif isinstance(s, ast.Try):
        # As TensorFlow's CFG: the body runs whole, then maybe the else
        # block, then maybe one handler, then the finally block.
        after = _live_block(s.finalbody, out)
        handlers = frozenset(after)
        for h in s.handlers:
            hin = _live_block(h.body, after) - ({h.name} if h.name else set())
            handlers |= hin | reads(h.type)
        orelse = _live_block(s.orelse, handlers) | handlers
        return _live_block(s.body, orelse)
    elif isinstance(s, (ast.Return, ast.Raise)):
        return frozenset(reads(s))
    else:
        return frozenset(reads(s)) | (out - _kills(s))
    s._live_in = live_in
    s._live_out = frozenset(out)
    return live_in


def _live_loop(s, out, head_reads, head_kills, extra_reads=frozenset()):
    """Live names at a loop's head, a fixpoint over the back edge.

    The head evaluates the test (or the iterable, and assigns the target),
    then the extra test (the break/return flags), then the body, or leaves.
    """
    head = frozenset(head_reads)
    while True:
        body_in = _live_block(s.body, head)
        new = head_reads | ((extra_reads | body_in | out) - head_kills)
        if new == head:
            s._body_live_in = body_in
            return head
        head = new


# --- reaching definitions (forwards) ----------------------------------------------------

def _defs_block(stmts, defined):
    for s in stmts:
        defined = _defs_stmt(s, defined)
    return defined


def _defs_stmt(s, defined):
    if isinstance(s, ast.If):
        s._defined_in = defined
        return _defs_block(s.body, defined) | _defs_block(s.orelse, defined)
    if isinstance(s, (ast.While, ast.For)):
        s._defined_in = defined
        targets = frozenset(target_names(s.target)) if isinstance(s, ast.For) else frozenset()
        head = defined
        while True:
            after_body = _defs_block(s.body, head | targets)
            new = head | targets | after_body
            if new == head:
                return head
            head = new
    if isinstance(s, ast.With):
        targets = set()
        for i in s.items:
            if i.optional_vars is not None:
                target_names(i.optional_vars, targets)
        return _defs_block(s.body, defined | targets)
    if isinstance(s, ast.Try):
        d = _defs_block(s.body, defined)
        d = d | _defs_block(s.orelse, d)
        handled = d
        for h in s.handlers:
            handled = handled | _defs_block(h.body, d | ({h.name} if h.name else set()))
        return _defs_block(s.finalbody, handled)
    return defined | bound_names(s)
