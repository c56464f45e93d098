"""Arithmetic on broadcast values done once per distinct value.

The gradient of a mean over a large tensor (batch norm's moments, global
average pooling, a mean loss) is `BroadcastTo(g, shape) / n`: the kernel of
BroadcastTo returns a view (stride 0 along the broadcast axes), and the
division then computes and writes a full tensor of copies of C distinct
values, a megabytes-long pass. Where every non-scalar operand of an IEEE
arithmetic op (+, -, *, /, negation, square) is constant along the same
axes (a BroadcastTo's result, or such an op's), the op here runs on one
slice of each operand (`x[:1, :1, :1]`) and its result is broadcast back:
each element is the same operation on the same values, so the bits are
the same, NaN and signed zeros included. Ops whose kernels depend on an
element's position (TensorFlow's packet and scalar-tail rules: relu, exp,
min/max) are left alone.

A sunk result is a read-only view, like BroadcastTo's: the in-place pass
never writes into it (it is not an owned buffer), and a fused chain that
reads it copies it as it copies a BroadcastTo. Results a function returns
stay full tensors.
"""
from ..framework import dtypes as D
from .plan import Plan

__all__ = ["sink", "is_sunk"]

# specialize.py's templates of the ops computed here: one IEEE operation per
# element, independent of the element's position.
_TEMPLATES = frozenset(("{0} + {1}", "{0} - {1}", "{0} * {1}", "{0} / {1}", "-{0}",
                        "{0} * {0}"))
_OPS = frozenset(("AddV2", "Sub", "Mul", "RealDiv", "Neg", "Square", "Pow"))
_FLOATS = (D.float16, D.float32, D.float64)


def _static(t):
    s = t.shape
    return tuple(s.as_list()) if s.rank is not None and s.is_fully_defined() else None


class _Sunk:
    """The template of a sunk plan: the original template on slices of its
    operands, broadcast to the full shape."""

    sunk = True
    __slots__ = ("template", "slices", "shape", "small")

    def __init__(self, template, slices, shape, small):
        self.template, self.slices, self.shape, self.small = template, slices, shape, small

    def __call__(self, em, args):
        parts = [a if s is None else "%s[%s]" % (a, s) for a, s in zip(args, self.slices)]
        return "np.broadcast_to(%s, %r)" % (self.template.format(*parts), self.shape)


def is_sunk(plan):
    """Whether `plan` was rewritten here (fusion leaves it alone)."""
    return getattr(plan.template, "sunk", False)


def _broadcast_small(p):
    """The small shape (padded to the output's rank) of a BroadcastTo plan's
    result, or None."""
    if p.kind != "kernel" or p.op.type != "BroadcastTo":
        return None
    x, out = _static(p.op.inputs[0]), _static(p.op.outputs[0])
    if x is None or out is None or len(x) > len(out) or 0 in out:
        return None
    small = (1,) * (len(out) - len(x)) + x
    if any(s not in (1, o) for s, o in zip(small, out)):
        return None
    return small


def sink(plans, protected):
    """`plans` with the arithmetic ops on broadcast values rewritten (see the
    module docstring). `protected` are ids of tensors that must be
    materialized."""
    small = {}       # id(tensor) -> its distinct values' shape, padded to its rank
    out = []
    changed = False
    for p in plans:
        s = _broadcast_small(p)
        if s is not None:
            small[id(p.op.outputs[0])] = s
            out.append(p)
            continue
        q = _sunk(p, small, protected)
        if q is None:
            out.append(p)
            continue
        small[id(p.op.outputs[0])] = q.template.small
        out.append(q)
        changed = True
    return out if changed else plans


def _sunk(p, small, protected):
    op = p.op
    if p.kind != "expr" or not isinstance(p.template, str) or p.template not in _TEMPLATES or \
            op.type not in _OPS or len(op.outputs) != 1:
        return None
    t = op.outputs[0]
    shape = _static(t)
    if shape is None or not shape or t.dtype not in _FLOATS or id(t) in protected or \
            op.control_inputs:
        return None
    result = [1] * len(shape)
    slices = []
    found = False
    for x in p.inputs:
        if x.dtype is not t.dtype:
            return None
        xs = _static(x)
        if xs == ():
            slices.append(None)
            continue
        s = small.get(id(x))
        if s is None or xs != shape:
            return None
        found = True
        result = [max(r, d) for r, d in zip(result, s)]
        slices.append(", ".join(":1" if d == 1 and n != 1 else ":"
                                for d, n in zip(s, shape)))
    if not found:
        return None
    return Plan(op, "expr", _Sunk(p.template, slices, shape, tuple(result)), p.inputs)
