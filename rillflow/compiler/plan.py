"""`Plan`: how the compiler emits one op.

Code generation (codegen.py) plans every op before it emits any; the passes
that rewrite plans (fusion.py joins elementwise chains into one plan, kernel_fusion.py
op pairs of a layer,
loop_batch.py makes a loop body read rows of values computed ahead of the
loop) make plans of their own. They share this record, so none of them
needs the code generator itself.
"""

__all__ = ["Plan"]


class Plan:
    """How one op is emitted: its kind, and the tensors the code reads."""

    __slots__ = ("op", "kind", "template", "inputs", "outputs")

    def __init__(self, op, kind, template=None, inputs=()):
        self.op = op
        # "const", "hook", "expr", "stmt", "kernel", "alias", "fused"
        # (then `template` is the list of fused plans) or "joined" (an op
        # pair in one kernel: `template` is a kernel_fusion.Joined).
        self.kind = kind
        self.template = template
        self.inputs = list(inputs)
        self.outputs = op.outputs
