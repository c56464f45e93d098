"""`if`, `while` and `for` become calls of `ag__.if_stmt`, `ag__.while_stmt`
and `ag__.for_stmt` with their bodies as nested functions.

The bodies update the enclosing function's variables through `nonlocal`;
`get_state`/`set_state` functions expose the statement's state so the
operators can thread it through graph control flow:

    def get_state():
        return (x,)
    def set_state(vars_):
        nonlocal x
        (x,) = vars_
    def if_body():
        nonlocal x
        x = x * 2
    def else_body():
        nonlocal x
        pass
    ag__.if_stmt(cond, if_body, else_body, get_state, set_state, ('x',), 1)

Which variables are state follows TensorFlow's AutoGraph: those the
statement modifies that are live into it or out of it (and `nonlocal`
ones), outputs first, then the inputs only the statement reads, whose
values a graph `if` restores before tracing each branch. A variable the
statement modifies that no assignment reaches from before it is set to
`ag__.Undefined(name)` just before the statement. Attributes and constant
items the statement assigns (`self.n += 1`, `a[0] = v`) are state too when
their object is live into it, read with `ag__.ldu` (Undefined while
missing) and written back with `ag__.store`.
"""
import ast

from ..pyct import dataflow, scopes, templates
from .base import Transformer, fill_empty


def _header(node):
    """A location covering just the header line of a compound statement
    (`if test:`), for the operator call that replaces it."""
    end = node.test if isinstance(node, (ast.If, ast.While)) else node.iter
    loc = ast.Pass()
    loc.lineno, loc.col_offset = node.lineno, node.col_offset
    loc.end_lineno = getattr(end, "end_lineno", node.lineno)
    loc.end_col_offset = getattr(end, "end_col_offset", node.col_offset)
    return loc


class _ControlFlow(Transformer):
    def __init__(self, ctx, globals_, nonlocals):
        super().__init__(ctx)
        self.globals = globals_
        self.nonlocals = nonlocals

    # --- which variables are state ----------------------------------------------------------
    def _block_vars(self, node, modified, composites):
        live_in = node._live_in
        live_out = node._live_out
        basic = {s for s in modified
                 if s in live_in or s in live_out or s in self.nonlocals}
        # An attribute or item of an object created inside the statement is
        # not state: its object must be live into the statement.
        comp = {c for c, root in composites.items() if root in live_in}
        undefined = sorted(modified - node._defined_in - self.globals - self.nonlocals)
        input_only = (basic & live_in) - live_out
        scope_vars = sorted(basic | comp, key=lambda v: (v in input_only, v))
        return scope_vars, undefined, len(scope_vars) - len(input_only)

    def _declarations(self, scope_vars):
        simple = [v for v in scope_vars if v.isidentifier()]
        out = []
        globals_ = sorted(v for v in simple if v in self.globals)
        if globals_:
            out.append(ast.Global(names=globals_))
        nonlocals = sorted(v for v in simple if v not in self.globals)
        if nonlocals:
            out.append(ast.Nonlocal(names=nonlocals))
        return out

    # --- generated pieces ---------------------------------------------------------------------
    def _state_functions(self, scope_vars, loc):
        get_name = self.ctx.fresh("get_state")
        set_name = self.ctx.fresh("set_state")
        simple = [v for v in scope_vars if v.isidentifier()]
        composites = [v for v in scope_vars if not v.isidentifier()]
        if not scope_vars:
            stmts = templates.replace(
                "def get_state():\n    return ()\n"
                "def set_state(vars_):\n    pass",
                loc=loc, get_state=get_name, set_state=set_name)
            return stmts, get_name, set_name
        temps = {c: self.ctx.fresh("composite") for c in composites}
        reads = [v if v.isidentifier() else "ag__.ldu(lambda: %s, %r)" % (v, v)
                 for v in scope_vars]
        lines = ["def %s():" % get_name, "    return (%s,)" % ", ".join(reads),
                 "def %s(vars_):" % set_name]
        for d in self._declarations(simple):
            lines.append("    " + ast.unparse(d))
        lines.append("    (%s,) = vars_" % ", ".join(temps.get(v, v) for v in scope_vars))
        for c in composites:
            target = ast.parse(c, mode="eval").body
            if isinstance(target, ast.Attribute):
                kind, key = "attr", repr(target.attr)
            else:
                kind, key = "item", ast.unparse(target.slice)
            lines.append("    ag__.store(lambda: %s, %r, %s, %s)" % (
                ast.unparse(target.value), kind, key, temps[c]))
        if not simple and not composites:
            lines.append("    pass")
        stmts = templates.replace("\n".join(lines), loc=loc)
        return stmts, get_name, set_name

    def _body_def(self, base, body, loc, scope_vars, arg=None, prefix=()):
        """A nested function running `body`, declaring the state nonlocal."""
        name = self.ctx.fresh(base)
        fn = ast.FunctionDef(name=name, args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=arg)] if arg else [], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=[], decorator_list=[], returns=None)
        head = self._declarations(scope_vars)
        fn.body = head + list(prefix) + fill_empty(self.visit_block(body), loc)
        templates.set_location([fn] + head + fn.args.args, loc)
        return fn, name

    def _undefined_assigns(self, undefined, loc):
        self.ctx.maybe_undefined.update(undefined)
        out = []
        for n in undefined:
            out += templates.replace("name = ag__.Undefined(label)", loc=loc, name=n,
                                     label=ast.Constant(value=n))
        return out

    @staticmethod
    def _names_tuple(scope_vars):
        return ast.Tuple(elts=[ast.Constant(value=s) for s in scope_vars], ctx=ast.Load())

    # --- statements ---------------------------------------------------------------------------
    def visit_If(self, node):
        block = node.body + node.orelse
        scope_vars, undefined, nouts = self._block_vars(
            node, scopes.bound_names(block), scopes.modified_composites(block))
        state_defs, get_s, set_s = self._state_functions(scope_vars, node)
        test = self.visit(node.test)
        body_fn, body_name = self._body_def("if_body", node.body, node, scope_vars)
        else_fn, else_name = self._body_def("else_body", node.orelse, node, scope_vars)
        call = templates.replace(
            "ag__.if_stmt(test, body, orelse, get_state, set_state, names, nouts)",
            loc=_header(node), test=test, body=body_name, orelse=else_name,
            get_state=get_s, set_state=set_s, names=self._names_tuple(scope_vars),
            nouts=ast.Constant(value=nouts))
        return state_defs + [body_fn, else_fn] + \
            self._undefined_assigns(undefined, node) + call

    @staticmethod
    def _list_vars(node, scope_vars):
        """Loop options naming the state variables the loop body appends to
        or pops from (`l = ag__.list_append(l, x)`) and whose value from the
        previous iteration it reads: in a graph loop they become tensor lists.
        A list the body makes anew each iteration stays a list of tensors."""
        body = node.body
        out = set()
        for stmt in body:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call) and \
                        isinstance(sub.value.func, ast.Attribute) and \
                        isinstance(sub.value.func.value, ast.Name) and \
                        sub.value.func.value.id == "ag__" and \
                        sub.value.func.attr in ("list_append", "list_pop") and \
                        sub.value.args and isinstance(sub.value.args[0], ast.Name):
                    out.add(sub.value.args[0].id)
        names = sorted(out & set(scope_vars) & node._body_live_in)
        if not names:
            return []
        opts = [("list_vars", ast.Tuple(elts=[ast.Constant(n) for n in names],
                                        ctx=ast.Load()))]
        # Those read after the loop: were the loop staged as TensorFlow stages
        # it (graph_loop.with_list_fallback), they would hold what one traced
        # iteration appended, not Python's items.
        read_after = [n for n in names if n in node._live_out]
        if read_after:
            opts.append(("list_live_out", ast.Tuple(
                elts=[ast.Constant(n) for n in read_after], ctx=ast.Load())))
        return opts

    def _opts(self, node, extra=()):
        opts = getattr(node, "_loop_options", None)
        opts = opts if opts is not None else ast.Dict(keys=[], values=[])
        for k, v in extra:
            opts.keys.append(ast.Constant(value=k))
            opts.values.append(v)
        return opts

    def visit_While(self, node):
        scope_vars, undefined, _ = self._block_vars(
            node, scopes.bound_names(node.body), scopes.modified_composites(node.body))
        state_defs, get_s, set_s = self._state_functions(scope_vars, node)
        body_fn, body_name = self._body_def("loop_body", node.body, node, scope_vars)
        test_name = self.ctx.fresh("loop_test")
        test_fn = templates.replace("def loop_test():\n    return test", loc=node.test,
                                    loop_test=test_name, test=self.visit(node.test))
        call = templates.replace(
            "ag__.while_stmt(loop_test, body, get_state, set_state, names, opts)",
            loc=_header(node), loop_test=test_name, body=body_name, get_state=get_s,
            set_state=set_s, names=self._names_tuple(scope_vars),
            opts=self._opts(node, self._list_vars(node, scope_vars)))
        return state_defs + [body_fn] + test_fn + \
            self._undefined_assigns(undefined, node) + call

    def visit_For(self, node):
        target = ast.Assign(targets=[node.target], value=ast.Constant(value=None))
        modified = scopes.bound_names(node.body) | scopes.bound_names(target)
        composites = scopes.modified_composites(node.body)
        composites.update(scopes.modified_composites(target))
        scope_vars, undefined, _ = self._block_vars(node, modified, composites)
        state_defs, get_s, set_s = self._state_functions(scope_vars, node)
        itr = self.ctx.fresh("itr")
        assign_target = ast.Assign(targets=[node.target], value=templates.name(itr))
        ast.copy_location(assign_target, node.target)
        body_fn, body_name = self._body_def("loop_body", node.body, node, scope_vars,
                                            arg=itr, prefix=[assign_target])
        extra = getattr(node, "_extra_test", None)
        pre = []
        if extra is not None:
            extra_name = self.ctx.fresh("extra_test")
            fn = ast.FunctionDef(name=extra_name, args=ast.arguments(
                posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                kwarg=None, defaults=[]), body=[], decorator_list=[], returns=None)
            fn.body = [ast.Return(value=self.visit(extra))]
            templates.set_location(fn, node)
            pre = [fn]
            extra_ref = templates.name(extra_name)
        else:
            extra_ref = ast.Constant(value=None)
        opts = self._opts(node, [("iterate_names", ast.Constant(ast.unparse(node.target)))] +
                          self._list_vars(node, scope_vars))
        call = templates.replace(
            "ag__.for_stmt(iter_, extra_test, body, get_state, set_state, names, opts)",
            loc=_header(node), iter_=self.visit(node.iter), extra_test=extra_ref,
            body=body_name, get_state=get_s, set_state=set_s,
            names=self._names_tuple(scope_vars), opts=opts)
        return state_defs + [body_fn] + pre + \
            self._undefined_assigns(undefined, node) + call


def transform(node, ctx):
    """Converts the function's if/while/for statements."""
    dataflow.annotate(node)
    globals_ = scopes.declared_globals(node, ast.Global)
    nonlocals = scopes.declared_globals(node, ast.Nonlocal)
    node.body = _ControlFlow(ctx, globals_, nonlocals).visit_block(node.body)
    return node
