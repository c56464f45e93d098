"""Directives.

- `tf.autograph.set_element_type(l, dtype)` becomes an assignment, so the
  typed list flows through control flow like a variable.
- `tf.autograph.experimental.set_loop_options(...)` as a statement of a
  loop's body is removed and its keyword arguments become the loop's
  options (shape invariants, maximum iterations, ...), evaluated where the
  loop starts, as in TensorFlow's AutoGraph.
"""
import ast

from ..pyct import templates
from .base import Transformer, fill_empty


def _directive(stmt, name):
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    func = stmt.value.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return stmt.value if called == name else None


class _Directives(Transformer):
    def visit_Expr(self, node):
        call = _directive(node, "set_element_type")
        if call is not None and call.args and isinstance(call.args[0], ast.Name):
            target = call.args[0].id
            new = ast.Assign(targets=[templates.name(target, ast.Store())], value=call)
            return ast.copy_location(new, node)
        return node

    def _loop(self, node):
        self.generic_visit(node)
        body = []
        for stmt in node.body:
            call = _directive(stmt, "set_loop_options")
            if call is None:
                body.append(stmt)
                continue
            if call.args:
                raise ValueError('"set_loop_options" takes keyword arguments only')
            node._loop_options = ast.Dict(keys=[ast.Constant(value=k.arg) for k in
                                                call.keywords],
                                          values=[k.value for k in call.keywords])
        node.body = fill_empty(body, node)
        return node

    visit_While = visit_For = _loop


def transform(node, ctx):
    """Rewrites directive calls in the function body."""
    node.body = _Directives(ctx).visit_block(node.body)
    return node
