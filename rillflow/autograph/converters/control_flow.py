"""`if`, `while` and `for` become calls of `ag__.if_stmt`, `ag__.while_stmt`
and `ag__.for_stmt` with their bodies as nested functions.

The bodies update the enclosing function's variables through `nonlocal`;
`get_state`/`set_state` functions expose the statement's outputs (the
modified variables still needed afterwards, and loop variables) so the
operators can thread them through graph control flow:

    def if_body():
        nonlocal x
        x = x * 2
    ...
    ag__.if_stmt(cond, if_body, else_body, get_state, set_state, ('x',), 1)

Attributes and constant items the statement assigns (`self.n += 1`,
`a[0] = v`) are state too, read with `ag__.ldu` (Undefined while missing)
and written back in `set_state`, as TensorFlow's AutoGraph does.
"""
import ast

from ..pyct import scopes, templates
from .base import Transformer


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
    def __init__(self, ctx, globals_):
        super().__init__(ctx)
        self.globals = globals_
        self.locals_ = set(ctx.params) | scopes.bound_names(ctx.node.body)

    # --- helpers ----------------------------------------------------------------
    def _state_functions(self, state, loc, composites=()):
        get_name = self.ctx.fresh("get_state")
        set_name = self.ctx.fresh("set_state")
        if composites:
            return self._composite_state_functions(state, composites, loc, get_name,
                                                   set_name), get_name, set_name
        if state:
            stmts = templates.replace(
                "def get_state():\n    return (get_vars,)\n"
                "def set_state(vars_):\n    nonlocal names\n    (set_targets,) = vars_",
                loc=loc, get_state=get_name, set_state=set_name, get_vars=list(state),
                names=list(state), set_targets=list(state))
        else:
            stmts = templates.replace(
                "def get_state():\n    return ()\n"
                "def set_state(vars_):\n    pass",
                loc=loc, get_state=get_name, set_state=set_name)
        return stmts, get_name, set_name

    def _composite_state_functions(self, state, composites, loc, get_name, set_name):
        """State functions that also carry attributes and items (`self.x`,
        `a[0]`): one not set yet reads as Undefined (`ag__.ldu`), and is
        written back by `ag__.store`."""
        temps = [self.ctx.fresh("composite") for _ in composites]
        reads = list(state) + ["ag__.ldu(lambda: %s, %r)" % (c, c) for c in composites]
        lines = ["def %s():" % get_name, "    return (%s,)" % ", ".join(reads),
                 "def %s(vars_):" % set_name]
        if state:
            lines.append("    nonlocal %s" % ", ".join(state))
        lines.append("    (%s,) = vars_" % ", ".join(list(state) + temps))
        for c, t in zip(composites, temps):
            target = ast.parse(c, mode="eval").body
            if isinstance(target, ast.Attribute):
                kind, key = "attr", repr(target.attr)
            else:
                kind, key = "item", ast.unparse(target.slice)
            lines.append("    ag__.store(lambda: %s, %r, %s, %s)" % (
                ast.unparse(target.value), kind, key, t))
        return templates.replace("\n".join(lines), loc=loc)

    def _composites(self, node, body):
        """The attributes and items `body` assigns whose object exists before
        `node` (its root name is live into it): an object created inside the
        block is not state."""
        live_in = getattr(node, "_live_in", frozenset())
        return sorted(c for c, root in scopes.modified_composites(body).items()
                      if root in live_in)

    def _body_def(self, base, body, loc, arg=None):
        """A nested function running `body`, with `nonlocal` for what it assigns."""
        name = self.ctx.fresh(base)
        bound = scopes.bound_names(body)
        nonlocals = sorted(n for n in bound if n in self.locals_ and n not in self.globals)
        globals_ = sorted(n for n in bound if n in self.globals)
        self.ctx.undefined_ok.update(n for n in nonlocals if n not in self.ctx.params)
        fn = ast.FunctionDef(name=name, args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=arg)] if arg else [], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=[], decorator_list=[], returns=None)
        head = []
        if nonlocals:
            head.append(ast.Nonlocal(names=nonlocals))
        if globals_:
            head.append(ast.Global(names=globals_))
        fn.body = head + (self.visit_block(body) or [ast.Pass()])
        for n in [fn, fn.args] + head + [a for a in fn.args.args]:
            ast.copy_location(n, loc) if "lineno" in n._attributes else None
        if fn.body and isinstance(fn.body[-1], ast.Pass):
            ast.copy_location(fn.body[-1], loc)
        return fn, name

    def _names_tuple(self, state):
        return ast.Tuple(elts=[ast.Constant(value=s) for s in state], ctx=ast.Load())

    # --- statements --------------------------------------------------------------
    def visit_If(self, node):
        modified = scopes.bound_names(node.body + node.orelse) - self.globals
        live = getattr(node, "_live_out", frozenset())
        state = sorted(n for n in modified if n in live and n in self.locals_)
        self.ctx.undefined_ok.update(n for n in state if n not in self.ctx.params)
        composites = self._composites(node, node.body + node.orelse)
        test = self.visit(node.test)
        state_defs, get_s, set_s = self._state_functions(state, node, composites)
        body_fn, body_name = self._body_def("if_body", node.body, node)
        else_fn, else_name = self._body_def("else_body", node.orelse, node)
        names = state + composites
        call = templates.replace(
            "ag__.if_stmt(test, body, orelse, get_state, set_state, names, nouts)",
            loc=_header(node),
            test=test, body=body_name, orelse=else_name, get_state=get_s, set_state=set_s,
            names=self._names_tuple(names), nouts=ast.Constant(value=len(names)))
        return state_defs + [body_fn, else_fn] + call

    def _loop_state(self, node, extra_bound=()):
        bound = (scopes.bound_names(node.body) | set(extra_bound)) - self.globals
        live = set(getattr(node, "_live_out", frozenset())) | set(
            getattr(node, "_body_live_in", frozenset()))
        if isinstance(node, ast.While):
            live |= scopes.used_names(node.test)
        extra = getattr(node, "_extra_test", None)
        if extra is not None:
            live |= scopes.used_names(extra)
        state = sorted(n for n in bound if n in live and n in self.locals_)
        self.ctx.undefined_ok.update(n for n in state if n not in self.ctx.params)
        return state, self._composites(node, node.body)

    def _opts(self, node):
        opts = getattr(node, "_loop_options", None)
        return opts if opts is not None else ast.Dict(keys=[], values=[])

    def visit_While(self, node):
        state, composites = self._loop_state(node)
        state_defs, get_s, set_s = self._state_functions(state, node, composites)
        body_fn, body_name = self._body_def("loop_body", node.body, node)
        test_name = self.ctx.fresh("loop_test")
        test_fn = templates.replace("def loop_test():\n    return test", loc=node.test,
                                    loop_test=test_name, test=self.visit(node.test))
        call = templates.replace(
            "ag__.while_stmt(loop_test, body, get_state, set_state, names, opts)",
            loc=_header(node),
            loop_test=test_name, body=body_name, get_state=get_s, set_state=set_s,
            names=self._names_tuple(state + composites), opts=self._opts(node))
        return state_defs + [body_fn] + test_fn + call + self.visit_block(node.orelse)

    def visit_For(self, node):
        target_names = scopes.bound_names(ast.Assign(targets=[node.target],
                                                     value=ast.Constant(value=None)))
        state, composites = self._loop_state(node, target_names)
        state_defs, get_s, set_s = self._state_functions(state, node, composites)
        itr = self.ctx.fresh("itr")
        assign_target = ast.Assign(targets=[node.target], value=templates.name(itr))
        ast.copy_location(assign_target, node.target)
        body_fn, body_name = self._body_def("loop_body", [assign_target] + node.body, node,
                                            arg=itr)
        extra = getattr(node, "_extra_test", None)
        pre = []
        if extra is not None:
            extra_name = self.ctx.fresh("extra_test")
            pre = templates.replace("def extra_test():\n    return test", loc=node,
                                    extra_test=extra_name, test=self.visit(extra))
            extra_ref = templates.name(extra_name)
        else:
            extra_ref = ast.Constant(value=None)
        call = templates.replace(
            "ag__.for_stmt(iter_, extra_test, body, get_state, set_state, names, opts)",
            loc=_header(node), iter_=self.visit(node.iter), extra_test=extra_ref, body=body_name,
            get_state=get_s, set_state=set_s, names=self._names_tuple(state + composites),
            opts=self._opts(node))
        return state_defs + [body_fn] + pre + call + self.visit_block(node.orelse)


def transform(node, ctx):
    """Converts the function's if/while/for statements."""
    scopes.annotate_liveness(node)
    # A `nonlocal` variable is handled like a local one (the bodies' own
    # `nonlocal` reaches the same cell), but is defined by the enclosing
    # function: it gets no Undefined placeholder here.
    globals_ = scopes.declared_globals(node, ast.Global)
    node.body = _ControlFlow(ctx, globals_).visit_block(node.body)
    ctx.undefined_ok -= scopes.declared_globals(node, ast.Nonlocal)
    return node
