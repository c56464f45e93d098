"""Pairs of layer ops joined into one compiled pass ("joined" plans).

A convolution layer's `relu(conv + bias)` is two passes over the layer's
activations after the convolution (the add, then the relu), and its
gradient through a max-pool, `ReluGrad(MaxPoolGrad(relu, pool, g), relu)`,
two more: each pass streams megabytes through memory for one cheap
operation per element. TensorFlow's graph optimizer fuses the first into
the convolution (`_FusedConv2D`). Here each pair becomes one plan that
calls a kernel doing both in one pass, with the bits of the two kernels:

- `Relu(AddV2(x, bias))` (either operand order) and `Relu(BiasAdd(x, bias))`,
  bias 1-D along x's last axis: fused_kernels.bias_relu; with x itself
  `Mul(x, scale)` read only there (batch normalization's `x * inv + shift`
  before a relu), the three ops: fused_kernels.scale_bias_relu; and
  `Relu(AddV2(x * scale + bias, r))`, a residual block's normalization,
  skip connection and relu: fused_kernels.scale_bias_add_relu;
- `ReluGrad(MaxPoolGrad(r, y, g), r)`, the gradient of `max_pool(relu(...))`
  (the relu's output is the pool's input and the gradient's features):
  pool_kernels.max_pool_grad_relu, for windows that do not overlap.

A pair is joined only when nothing else reads the first op's result (it is
never materialized), all float32 with static shapes. The joined plan sits
where the second op was (the first op's inputs are all computed before it,
and nothing in between reads its result), and may write over a dead operand
as OUT_KERNELS do (compiler/in_place.py): the relu over the convolution's
output, the max-pool gradient over the relu's. Without the jit extra, or for
shapes its loops do not take, the joined kernel runs the two ops' own
kernels one after the other.

CNN training step (model_bench, two-core Sapphire Rapids VM): the two bias
relus and two relu gradients ran 1.3 ms of a 10 ms step.
"""
from ..framework import dtypes as D
from .plan import Plan

__all__ = ["join", "emit_joined", "JOINED_OUT"]

# The operand of a joined plan whose buffer its kernel may write its result
# into, by the pair's kind (as in_place.OUT_KERNELS).
JOINED_OUT = {"bias_relu": 0, "scale_bias_relu": 0, "scale_bias_add_relu": 0,
              "max_pool_grad_relu": 0}


class Joined:
    """A joined plan's template: which pair (`kind`), the kernel's attrs,
    the first op (its line in error messages) and any other op it takes in
    (`also`: a scale's multiply before the bias)."""

    __slots__ = ("kind", "attrs", "first", "also")

    def __init__(self, kind, attrs, first, also=()):
        self.kind, self.attrs, self.first, self.also = kind, attrs, first, tuple(also)


def _static(t):
    s = t.shape
    return tuple(s.as_list()) if s.rank is not None and s.is_fully_defined() else None


def _f32(*ts):
    return all(t.dtype is D.float32 for t in ts)


def _bias_operands(q):
    """(x, bias) of an add plan whose bias is 1-D along x's last axis and
    whose result has x's shape; None otherwise."""
    op = q.op
    if op.type == "AddV2":
        if not (q.kind == "kernel" or q.kind == "expr" and q.template == "{0} + {1}"):
            return None
        pairs = [(q.inputs[0], q.inputs[1]), (q.inputs[1], q.inputs[0])]
    elif op.type == "BiasAdd" and q.kind == "kernel":
        if op.attrs.get("data_format", "NHWC") not in ("NHWC", b"NHWC"):
            return None
        pairs = [(q.inputs[0], q.inputs[1])]
    else:
        return None
    out = _static(op.outputs[0])
    if out is None or len(out) < 2 or not out[-1]:
        return None
    for x, b in pairs:
        if _static(x) == out and _static(b) == (out[-1],) and _f32(x, b, op.outputs[0]):
            return x, b
    return None


def _pool_operands(q, features):
    """The inputs of a MaxPoolGrad plan whose input is `features`, NHWC
    float32 of static shapes; None otherwise."""
    op = q.op
    if op.type != "MaxPoolGrad" or q.kind != "kernel":
        return None
    x, y, g = q.inputs
    if x is not features or op.attrs.get("data_format", "NHWC") not in ("NHWC", b"NHWC"):
        return None
    if _static(x) is None or len(_static(x)) != 4 or _static(g) is None or \
            not _f32(x, y, g, op.outputs[0]):
        return None
    return x, y, g


def join(plans, protected):
    """`plans` with each joinable pair replaced by one "joined" plan.
    `protected` are ids of tensors that must be materialized."""
    readers = {}
    for p in plans:
        for t in p.inputs:
            readers[id(t)] = readers.get(id(t), 0) + 1
    made = {id(t): p for p in plans for t in p.op.outputs}
    dropped = {}
    out = []
    for p in plans:
        joined = None
        if p.kind == "kernel" and p.op.type in ("Relu", "ReluGrad") and p.inputs:
            first = p.inputs[0]
            q = made.get(id(first))
            if q is not None and id(q.op) not in dropped and readers.get(id(first)) == 1 \
                    and id(first) not in protected and len(q.op.outputs) == 1 and \
                    not q.op.control_inputs and not p.op.control_inputs and \
                    _f32(p.op.outputs[0]):
                joined = _joined(p, q, made, readers, protected)
        if joined is not None:
            for op in (joined.template.first,) + joined.template.also:
                dropped[id(op)] = True
            out.append(joined)
        else:
            out.append(p)
    if not dropped:
        return plans
    return [p for p in out if id(p.op) not in dropped or p.kind == "joined"]


def _scale_operands(m, readers, protected):
    """(x, scale) of a multiply plan whose one reader is the bias add, the
    scale 1-D along x's last axis (batch normalization's x * inv); None
    otherwise."""
    if m is None or m.op.type != "Mul" or len(m.op.outputs) != 1 or m.op.control_inputs:
        return None
    if not (m.kind == "kernel" or m.kind == "expr" and m.template == "{0} * {1}"):
        return None
    t = m.op.outputs[0]
    if readers.get(id(t)) != 1 or id(t) in protected:
        return None
    out = _static(t)
    for x, c in ((m.inputs[0], m.inputs[1]), (m.inputs[1], m.inputs[0])):
        if out and _static(x) == out and _static(c) == (out[-1],) and _f32(x, c, t):
            return x, c
    return None


def _single(t, made, readers, protected):
    """The plan making `t` when `t` is read once and not protected."""
    if readers.get(id(t)) != 1 or id(t) in protected:
        return None
    m = made.get(id(t))
    if m is None or len(m.op.outputs) != 1 or m.op.control_inputs:
        return None
    return m


def _residual(p, q, made, readers, protected):
    """Relu(AddV2(x * scale + bias, r)) (either order of each add): a
    residual block's batch normalization, skip connection and relu, as a
    joined plan; None otherwise."""
    if q.op.type != "AddV2" or not (q.kind == "kernel" or q.kind == "expr" and
                                     q.template == "{0} + {1}"):
        return None
    out = _static(q.op.outputs[0])
    for y, r in ((q.inputs[0], q.inputs[1]), (q.inputs[1], q.inputs[0])):
        a = _single(y, made, readers, protected)
        if a is None or _static(r) != out or not _f32(r) or a.op.type != "AddV2":
            continue
        operands = _bias_operands(a)
        if operands is None:
            continue
        m = made.get(id(operands[0]))
        scaled = _scale_operands(m, readers, protected)
        if scaled is None:
            continue
        return Plan(p.op, "joined", Joined("scale_bias_add_relu", {}, q.op, (a.op, m.op)),
                    [scaled[0], scaled[1], operands[1], r])
    return None


def _joined(p, q, made, readers, protected):
    if p.op.type == "Relu":
        if _static(p.op.outputs[0]) is None:
            return None
        res = _residual(p, q, made, readers, protected)
        if res is not None:
            return res
        operands = _bias_operands(q)
        if operands is None or _static(p.op.outputs[0]) != _static(operands[0]):
            return None
        x, b = operands
        m = made.get(id(x))
        scaled = _scale_operands(m, readers, protected) if q.op.type == "AddV2" else None
        if scaled is not None:
            return Plan(p.op, "joined", Joined("scale_bias_relu", {}, q.op, (m.op,)),
                        [scaled[0], scaled[1], b])
        return Plan(p.op, "joined", Joined("bias_relu", {}, q.op), operands)
    operands = _pool_operands(q, p.inputs[1])
    if operands is None or _static(p.op.outputs[0]) != _static(operands[0]):
        return None
    attrs = {k: q.op.attrs[k] for k in ("ksize", "strides", "padding")}
    return Plan(p.op, "joined", Joined("max_pool_grad_relu", attrs, q.op), operands)


def _kernels():
    from ..ops.nn import fused_kernels
    return {"bias_relu": fused_kernels.bias_relu,
            "scale_bias_relu": fused_kernels.scale_bias_relu,
            "scale_bias_add_relu": fused_kernels.scale_bias_add_relu,
            "max_pool_grad_relu": fused_kernels.max_pool_grad_relu}


def emit_joined(em, plan, buffer):
    """Emits a joined plan's call; `buffer` is the name of a dead operand's
    buffer the kernel may write into (or None)."""
    t = plan.template
    fn = _kernels()[t.kind]
    args = [em.value(x) for x in plan.inputs]
    args += ["%s=%s" % (k, em.attr_expr(t.first, k, v)) for k, v in t.attrs.items()]
    if buffer is not None:
        args.append("out=%s" % buffer)
    name = em.new_name(plan.op.name)
    em.names[id(plan.op.outputs[0])] = name
    em.emit("%s = %s(%s)" % (name, em.global_for(fn, "k_" + _CAMEL[t.kind]),
                             ", ".join(args)), t.first)


_CAMEL = {"bias_relu": "BiasRelu", "scale_bias_relu": "ScaleBiasRelu",
          "scale_bias_add_relu": "ScaleBiasAddRelu",
          "max_pool_grad_relu": "MaxPoolGradRelu"}
