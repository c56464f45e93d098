"""Building AST from code templates with placeholders.

`replace("x = ag__.ld(name_)", name_="y")` parses the template and swaps
each placeholder name for a name, an expression node, or (in statement
position) a list of statements. New nodes take the source location of
`loc` so errors and tracebacks keep pointing at the user's line.
"""
import ast
import copy

__all__ = ["replace", "name", "set_location", "GENERATED"]

# Marks names the converters create (their reads are not user reads).
GENERATED = "_ag_generated"


def name(id_, ctx=None):
    """A generated Name node."""
    n = ast.Name(id=id_, ctx=ctx or ast.Load())
    setattr(n, GENERATED, True)
    return n


class _Replacer(ast.NodeTransformer):
    def __init__(self, repl):
        self.repl = repl

    def _value(self, key, ctx):
        v = self.repl[key]
        if isinstance(v, str):
            return name(v, ctx)
        if isinstance(v, ast.AST):
            v = copy.deepcopy(v)
            if ctx is not None and hasattr(v, "ctx"):
                _set_ctx(v, ctx)
            return v
        raise TypeError(f"cannot substitute {v!r} for {key}")

    def visit_Name(self, node):
        if node.id in self.repl:
            return self._value(node.id, node.ctx)
        setattr(node, GENERATED, True)
        return node

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.repl:
            v = self.repl[node.value.id]
            if isinstance(v, list):
                return [copy.deepcopy(s) if not getattr(s, "_ag_keep", False) else s
                        for s in v] or [ast.Pass()]
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        if node.name in self.repl:
            node.name = self.repl[node.name]
        for a in node.args.args:
            if a.arg in self.repl and isinstance(self.repl[a.arg], str):
                a.arg = self.repl[a.arg]
        self.generic_visit(node)
        return node

    def visit_Nonlocal(self, node):
        names = []
        for n in node.names:
            v = self.repl.get(n, n)
            names.extend(v if isinstance(v, list) else [v])
        if not names:
            return None
        node.names = names
        return node

    def visit_Tuple(self, node):
        # A placeholder standing for a list of names expands in place.
        elts = []
        for e in node.elts:
            if isinstance(e, ast.Name) and e.id in self.repl and isinstance(
                    self.repl[e.id], list):
                elts.extend(name(x, e.ctx) if isinstance(x, str) else x
                            for x in self.repl[e.id])
            else:
                elts.append(self.visit(e))
        node.elts = elts
        return node


def _set_ctx(node, ctx):
    for sub in ast.walk(node):
        if hasattr(sub, "ctx"):
            sub.ctx = ctx


def set_location(nodes, loc, only_template=False):
    """Gives nodes the source location of `loc` (all of them, or only the
    nodes that came from a template)."""
    if getattr(loc, "lineno", None) is None:
        return nodes
    for n in nodes if isinstance(nodes, list) else [nodes]:
        for sub in ast.walk(n):
            if "lineno" not in sub._attributes:
                continue
            if only_template and not getattr(sub, "_ag_tmpl", False):
                continue
            if not only_template and getattr(sub, "lineno", None) is not None:
                continue
            sub.lineno = loc.lineno
            sub.col_offset = loc.col_offset
            sub.end_lineno = getattr(loc, "end_lineno", loc.lineno)
            sub.end_col_offset = getattr(loc, "end_col_offset", loc.col_offset)
    return nodes


def replace(template, loc=None, **repl):
    """Statements of `template` with placeholders replaced (see module doc)."""
    tree = ast.parse(template)
    for sub in ast.walk(tree):
        sub._ag_tmpl = True
    out = []
    r = _Replacer(repl)
    for stmt in tree.body:
        res = r.visit(stmt)
        if res is None:
            continue
        out.extend(res if isinstance(res, list) else [res])
    if loc is not None:
        set_location(out, loc, only_template=True)
    else:
        for stmt in out:  # template positions are meaningless; let them inherit
            for sub in ast.walk(stmt):
                if getattr(sub, "_ag_tmpl", False):
                    for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                        if hasattr(sub, a):
                            delattr(sub, a)
    return out


def replace_expr(template, loc=None, **repl):
    """The expression of a one-expression template."""
    stmt = replace(template, loc, **repl)[0]
    return stmt.value
