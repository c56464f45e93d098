"""`Plan`: how the compiler emits one op.

Code generation (codegen.py) plans every op before it emits any; the passes
that rewrite plans (fusion.py joins elementwise chains into one plan,
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
        # "const", "hook", "expr", "stmt", "kernel", "alias", or "fused"
        # (then `template` is the list of fused plans).
        self.kind = kind
        self.template = template
        self.inputs = list(inputs)
        self.outputs = op.outputs
