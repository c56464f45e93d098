"""Which names a piece of code binds and reads, and which are live.

Control-flow conversion needs, for each `if`/`while`/`for`, the variables
it modifies that are still needed afterwards (its outputs or loop
variables). Liveness is computed backwards with kills by plain
assignments (a branch or loop body may not run, so it kills nothing), and
for loops as a fixpoint over the back edge.
"""
import ast

__all__ = ["bound_names", "used_names", "annotate_liveness", "declared_globals",
           "modified_composites"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _targets(t, out):
    if isinstance(t, ast.Name):
        out.add(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _targets(e, out)
    elif isinstance(t, ast.Starred):
        _targets(t.value, out)


class _Binder(ast.NodeVisitor):
    def __init__(self):
        self.names = set()

    def visit_Assign(self, node):
        for t in node.targets:
            _targets(t, self.names)
        self.visit(node.value)

    def visit_AugAssign(self, node):
        _targets(node.target, self.names)
        self.visit(node.value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            _targets(node.target, self.names)
            self.visit(node.value)

    def visit_For(self, node):
        _targets(node.target, self.names)
        self.generic_visit(node)

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                _targets(item.optional_vars, self.names)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        _targets(node.target, self.names)
        self.visit(node.value)

    def visit_Import(self, node):
        for a in node.names:
            self.names.add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_FunctionDef(self, node):
        self.names.add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp


def bound_names(nodes):
    """Names assigned by `nodes` (not inside nested functions or classes)."""
    b = _Binder()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        b.visit(n)
    return b.names


def _composite_root(t):
    """The root name of `a.b[0].c` (attributes and constant subscripts), or None."""
    while isinstance(t, (ast.Attribute, ast.Subscript)):
        if isinstance(t, ast.Subscript) and not isinstance(t.slice, ast.Constant):
            return None
        t = t.value
    return t.id if isinstance(t, ast.Name) else None


def modified_composites(nodes):
    """{source: root name} of the attributes and constant subscripts that
    `nodes` assign (`self.x = ...`, `a[0] += ...`), outside nested functions."""
    out = {}

    def add(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                add(e)
        elif isinstance(t, ast.Starred):
            add(t.value)
        elif isinstance(t, (ast.Attribute, ast.Subscript)):
            root = _composite_root(t)
            if root is not None:
                out[ast.unparse(t)] = root

    def walk(n):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                add(t)
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, _SCOPES):
                walk(child)
    for n in nodes if isinstance(nodes, list) else [nodes]:
        walk(n)
    return out


def used_names(nodes):
    """Names read anywhere in `nodes`, nested functions included."""
    out = set()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        if n is None:
            continue
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                out.add(sub.id)
            elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
                out.add(sub.target.id)
    return out


def declared_globals(func, kinds=(ast.Global, ast.Nonlocal)):
    """Names declared `global` or `nonlocal` (or only the statements of
    `kinds`) in the function, not in its nested ones."""
    out = set()

    class V(ast.NodeVisitor):
        def visit_Global(self, node):
            if isinstance(node, kinds):
                out.update(node.names)

        visit_Nonlocal = visit_Global

        def visit_FunctionDef(self, node):
            if node is func:
                self.generic_visit(node)

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_ClassDef(self, node):
            pass
    V().visit(func)
    return out


def _definite_defs(stmt):
    """Names surely assigned by a simple statement."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef,
                         ast.Import, ast.ImportFrom)):
        return bound_names(stmt)
    return set()


def _live_in(stmts, live_out):
    live = set(live_out)
    for stmt in reversed(stmts):
        live = _stmt_live_in(stmt, live)
    return live


def _stmt_live_in(stmt, live_out):
    stmt._live_out = frozenset(live_out)
    live_in = _stmt_live_in_of(stmt, live_out)
    stmt._live_in = frozenset(live_in)
    return live_in


def _stmt_live_in_of(stmt, live_out):
    if isinstance(stmt, ast.If):
        return (used_names(stmt.test) | _live_in(stmt.body, live_out) |
                _live_in(stmt.orelse, live_out))
    if isinstance(stmt, (ast.While, ast.For)):
        return _loop_live_in(stmt, live_out)
    if isinstance(stmt, ast.With):
        targets = set()
        for item in stmt.items:
            if item.optional_vars is not None:
                _targets(item.optional_vars, targets)
        return (_live_in(stmt.body, live_out) - targets) | used_names(
            [i.context_expr for i in stmt.items])
    if isinstance(stmt, ast.Try):
        inner = list(getattr(stmt, "body", []))
        for h in getattr(stmt, "handlers", []):
            inner.extend(h.body)
        inner += list(getattr(stmt, "orelse", [])) + list(getattr(stmt, "finalbody", []))
        extra = used_names([i.context_expr for i in getattr(stmt, "items", [])])
        return _live_in(inner, live_out) | extra | set(live_out)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return (set(live_out) - {stmt.name}) | used_names(stmt.body) | used_names(
            stmt.args.defaults + stmt.args.kw_defaults)
    defs = _definite_defs(stmt)
    return (set(live_out) - defs) | used_names(stmt)


def _loop_live_in(stmt, live_out):
    """Liveness of a loop: what is live at its head (before each test) is the
    exit path, the test and the next iteration's body, a fixpoint since the
    body feeds back into the head. A name the body assigns before reading it
    (a nested loop's target, a flag reset) is not live at the head."""
    targets = set()
    if isinstance(stmt, ast.For):
        _targets(stmt.target, targets)
        entry = used_names(stmt.iter)   # evaluated once, before the loop
        at_head = set()
    else:
        entry = set()
        at_head = used_names(stmt.test)
    extra = getattr(stmt, "_extra_test", None)
    if extra is not None:
        # The break/return converters' extra test (`not break_`) runs
        # before every iteration.
        at_head |= used_names(extra)
    at_head |= _live_in(stmt.orelse, live_out)
    while True:
        # The loop target is assigned at the start of every iteration.
        body_in = _live_in(stmt.body, at_head) - targets
        if body_in <= at_head:
            break
        at_head |= body_in
    stmt._body_live_in = frozenset(body_in)
    return at_head | entry


def annotate_liveness(func):
    """Sets `_live_out` and `_live_in` on every statement of the function body
    (recursively) and `_body_live_in` on loops."""
    # A nonlocal variable outlives the function: it is live at its end.
    _live_in(func.body, declared_globals(func, ast.Nonlocal))
