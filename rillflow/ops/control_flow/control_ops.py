"""Ordering ops: `tf.control_dependencies`, `tf.group`, `tf.no_op`, `tf.tuple`."""
import contextlib

from ...framework import context as _context
from ...framework.api_export import export
from ...framework.execute import apply_op
from ...framework.op_registry import register
from ..core.shape_ops import identity

_state = _context.state


def _no_op_kernel(**_):
    return []


_NoOp = register("NoOp", _no_op_kernel, lambda i, a: [])


@export("no_op")
def no_op(name=None):
    """An op that does nothing (a target for control dependencies in graphs)."""
    if _state.graph is None:
        return None
    return apply_op(_NoOp, [], name=name or "NoOp")


@export("control_dependencies")
def control_dependencies(control_inputs):
    """Context manager: ops created inside run after `control_inputs`.

    Eagerly, ops already run in program order, so this does nothing.
    """
    g = _state.graph
    if g is None:
        return contextlib.nullcontext()
    return g.control_dependencies(control_inputs)


@export("group")
def group(*inputs, name=None):
    """An op that runs after all `inputs` (ops or tensors); None eagerly."""
    g = _state.graph
    if g is None:
        return None
    flat = []
    for i in inputs:
        if isinstance(i, (list, tuple)):
            flat.extend(i)
        elif i is not None:
            flat.append(i)
    with g.control_dependencies(flat):
        return apply_op(_NoOp, [], name=name or "group_deps")


@export("tuple")
def tuple_(tensors, control_inputs=None, name=None):
    """The tensors, each available only after all of them (and
    `control_inputs`) are computed."""
    g = _state.graph
    if g is None:
        return list(tensors)
    deps = [t for t in tensors if t is not None] + list(control_inputs or [])
    gate = group(*deps)
    with g.control_dependencies([gate]):
        return [None if t is None else identity(t) for t in tensors]
