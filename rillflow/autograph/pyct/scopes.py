"""Which names a piece of code binds and reads (activity analysis).

A "symbol" is a plain name (`x`) or a composite: an attribute chain or a
subscript by a constant (`self.n`, `a[0]`, `a.b['k']`), written as its
source text. Control-flow conversion needs, for each statement, the symbols
it modifies; dataflow.py adds which are live and which may be defined.
Names bound inside nested functions, classes, lambdas and comprehensions
belong to those scopes, but the free names such a scope reads count as
reads where it is defined (a closure reads them).
"""
import ast

__all__ = ["bound_names", "reads", "modified_composites", "declared_globals",
           "target_names", "param_names"]

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def target_names(t, out=None):
    """The plain names an assignment target binds (`a, (b, *c)`)."""
    out = set() if out is None else out
    if isinstance(t, ast.Name):
        out.add(t.id)
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            target_names(e, out)
    elif isinstance(t, ast.Starred):
        target_names(t.value, out)
    return out


class _Binder(ast.NodeVisitor):
    """Collects the plain names bound at this scope level."""

    def __init__(self):
        self.names = set()

    def visit_Assign(self, node):
        for t in node.targets:
            target_names(t, self.names)
        self.visit(node.value)

    def visit_AugAssign(self, node):
        target_names(node.target, self.names)
        self.visit(node.value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            target_names(node.target, self.names)
            self.visit(node.value)

    def visit_For(self, node):
        target_names(node.target, self.names)
        self.generic_visit(node)

    def visit_With(self, node):
        for item in node.items:
            if item.optional_vars is not None:
                target_names(item.optional_vars, self.names)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        target_names(node.target, self.names)
        self.visit(node.value)

    def visit_Delete(self, node):
        for t in node.targets:
            target_names(t, self.names)

    def visit_Import(self, node):
        for a in node.names:
            self.names.add((a.asname or a.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_FunctionDef(self, node):
        self.names.add(node.name)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp


def bound_names(nodes):
    """Plain names assigned by `nodes` (not inside nested scopes)."""
    b = _Binder()
    for n in nodes if isinstance(nodes, list) else [nodes]:
        b.visit(n)
    return b.names


def composite_root(t):
    """The root name of `a.b[0].c` (attributes and constant subscripts), or None."""
    while isinstance(t, (ast.Attribute, ast.Subscript)):
        if isinstance(t, ast.Subscript) and not isinstance(t.slice, ast.Constant):
            return None
        t = t.value
    return t.id if isinstance(t, ast.Name) else None


def modified_composites(nodes):
    """{source: root name} of the attributes and constant subscripts that
    `nodes` assign (`self.x = ...`, `a[0] += ...`), outside nested scopes."""
    out = {}

    def add(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                add(e)
        elif isinstance(t, ast.Starred):
            add(t.value)
        elif isinstance(t, (ast.Attribute, ast.Subscript)):
            root = composite_root(t)
            if root is not None:
                out[ast.unparse(t)] = root

    def walk(n):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                add(t)
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, _FUNCS + _COMPS + (ast.ClassDef,)):
                walk(child)
    for n in nodes if isinstance(nodes, list) else [nodes]:
        walk(n)
    return out


def param_names(args):
    """The parameter names of an `ast.arguments`."""
    params = {x.arg for x in list(getattr(args, "posonlyargs", [])) + list(args.args) +
              list(args.kwonlyargs)}
    if args.vararg:
        params.add(args.vararg.arg)
    if args.kwarg:
        params.add(args.kwarg.arg)
    return params


def _scope_locals(node):
    """Names local to a nested function, lambda or comprehension."""
    if isinstance(node, _FUNCS):
        params = param_names(node.args)
        if isinstance(node, ast.Lambda):
            return params
        declared = declared_globals(node)
        return (params | bound_names(node.body)) - declared
    names = set()
    for gen in node.generators:
        target_names(gen.target, names)
    return names


def reads(node):
    """Names `node` reads at this scope level: loads, augmented-assignment
    targets, and the free names of nested functions, lambdas and
    comprehensions defined in it (read where they are defined)."""
    out = set()
    _reads(node, out)
    return out


def _reads(node, out):
    if node is None:
        return
    if isinstance(node, list):
        for n in node:
            _reads(n, out)
        return
    if isinstance(node, ast.Name):
        if isinstance(node.ctx, ast.Load):
            out.add(node.id)
        return
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        out.add(node.target.id)
    if isinstance(node, _FUNCS + _COMPS):
        if isinstance(node, _FUNCS):
            # Defaults and decorators are evaluated here, in this scope.
            _reads(node.args.defaults + [d for d in node.args.kw_defaults if d], out)
            _reads(getattr(node, "decorator_list", []), out)
        inner = set()
        if isinstance(node, ast.Lambda):
            _reads(node.body, inner)
        elif isinstance(node, _FUNCS):
            for s in node.body:
                _reads(s, inner)
        else:
            # The first iterable is evaluated in the enclosing scope.
            _reads(node.generators[0].iter, out)
            for i, gen in enumerate(node.generators):
                if i:
                    _reads(gen.iter, inner)
                _reads(gen.ifs, inner)
            for part in ("elt", "key", "value"):
                _reads(getattr(node, part, None), inner)
        out.update(inner - _scope_locals(node))
        return
    if isinstance(node, ast.ClassDef):
        _reads(node.bases + node.decorator_list + [k.value for k in node.keywords], out)
        inner = set()
        for s in node.body:
            _reads(s, inner)
        out.update(inner)
        return
    for child in ast.iter_child_nodes(node):
        _reads(child, out)


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

        def visit_Lambda(self, node):
            pass
    V().visit(func)
    return out
