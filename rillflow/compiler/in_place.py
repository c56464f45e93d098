"""Elementwise results written into an operand's buffer when that buffer is
provably free.

`mul_1 = lr * MatMul_5` allocates a new array even though `MatMul_5` is never
read again; for a 784x256 gradient that is 800 KB of fresh pages a step.
Written as `np.multiply(lr, MatMul_5, out=MatMul_5)`, the product reuses
them, and so does a variable update `v.value = v.value - mul_1`, which
becomes `np.subtract(v.value, mul_1, out=mul_1); v.value = mul_1`.

A buffer is reused only when all of this holds:
- it was allocated by this code: the result of an arithmetic expression or a
  matmul, or of a fused kernel, or of an earlier in-place op (never an
  input, a constant, a variable's value, a slice or any other view);
- every op reading it is one of those (no op whose result could share the
  buffer, as a branch or loop passing a value through would), and this op
  is the last;
- it is not protected (an output, a value kept for gradients, a loop
  variable) and has the result's dtype and full static shape, so nothing
  broadcasts into it.

Some kernels take part too: those in `FRESH_KERNELS` always return new
arrays (so their results are owned, and reading an operand never makes
them share it), and those in `OUT_KERNELS` accept `out=`, a buffer of one
operand's that they may write their large result into: the sparse softmax
cross entropy writes its [batch, vocabulary] backprop over the logits,
which nothing reads afterwards (in a language model's step, 45 MB of fresh
pages less, twice: the backprop, and its product by the loss's gradient).
"""
import numpy as np

# Big enough to be an ndarray (never a NumPy scalar); out= is never slower.
MIN_ELEMENTS = 1024

_UFUNCS = {"AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply,
           "RealDiv": np.true_divide, "Maximum": np.maximum, "Minimum": np.minimum}
# Expressions whose result is a new array, and which never return an input.
FRESH_EXPR = frozenset(_UFUNCS) | {"MatMul"}
_UPDATES = {"AssignAddVariableOp": np.add, "AssignSubVariableOp": np.subtract}
# Kernels whose outputs (these indices) are always new arrays, never an
# input nor a view of one.
FRESH_KERNELS = {"SparseSoftmaxCrossEntropyWithLogits": (0, 1), "Conv2D": (0,),
                 "Conv2DBackpropInput": (0,), "MaxPool": (0,), "MaxPoolGrad": (0,),
                 "Relu": (0,), "ReluGrad": (0,)}
# Kernels taking `out=`: (the operand whose buffer they may write over, the
# output written there). The kernel checks the buffer's dtype and layout and
# allocates as usual when it does not fit. A convolution's `+ bias` then goes
# into its output's buffer and the relu after it into the same (CNN step:
# four arrays of up to 3 MB a step fewer, each ~0.15 ms of fresh pages), and
# the relu's gradient over the max-pool gradient's.
OUT_KERNELS = {"SparseSoftmaxCrossEntropyWithLogits": (0, 1), "Relu": (0, 0),
               "ReluGrad": (0, 0)}


def _static_size(t):
    s = t.shape
    return s.num_elements() if s.is_fully_defined() and s.rank else None


def note_result(em, plan):
    """Records the outputs of `plan` (just emitted) whose buffers this code
    owns."""
    kind = plan.kind
    outs = plan.op.outputs
    # Only specialize.py's own templates (strings): a rewritten plan, such as
    # a row of loop_batch.py's stacked value, reads a view.
    if kind == "kernel":
        outs = [outs[i] for i in FRESH_KERNELS.get(plan.op.type, ())]
    elif not (kind in ("fused", "joined") or kind == "expr" and plan.op.type in FRESH_EXPR and
              isinstance(plan.template, str)):
        return
    for t in outs:
        n = _static_size(t)
        if n is not None and n >= MIN_ELEMENTS:
            em.owned.add(id(t))


# Reductions: a result with fewer elements than the input is computed, never
# a view of it (one of the same size may be a reshape, over axes of size 1).
REDUCTIONS = frozenset(("Sum", "Mean", "Max", "Min", "Prod"))


def _reduces(p):
    if p.kind != "kernel" or p.op.type not in REDUCTIONS:
        return False
    n_in, n_out = _static_size(p.op.inputs[0]), p.op.outputs[0].shape
    n_out = n_out.num_elements() if n_out.is_fully_defined() else None
    return n_in is not None and n_out is not None and n_out < n_in


def safe_readers(plans):
    """Ids of the tensors all of whose readers among `plans` never return
    (part of) an input as their result."""
    unsafe = set()
    seen = set()
    for p in plans:
        fresh = p.kind in ("fused", "joined") or \
            p.kind == "expr" and p.op.type in FRESH_EXPR and \
            isinstance(p.template, str) or \
            p.kind == "stmt" and p.op.type in _UPDATES or \
            p.kind == "kernel" and p.op.type in FRESH_KERNELS or _reduces(p)
        for t in p.inputs:
            seen.add(id(t))
            if not fresh:
                unsafe.add(id(t))
    return seen - unsafe


def _static_shape(t):
    s = t.shape
    return tuple(s.as_list()) if s.is_fully_defined() else None


def _free(em, t, op, dtype, shape):
    # The whole shape, not the size: (86, 1, 3, 4) cannot hold a
    # (1, 86, 1, 3, 4) result, though both have as many elements.
    return (id(t) in em.owned and id(t) in em.safe_readers and
            em.last_use.get(id(t)) is op and id(t) not in em.protected and
            id(t) not in em.aliased and t.dtype is dtype and shape is not None and
            _static_shape(t) == shape)


def try_emit(em, plan, args):
    """Emits `plan` writing into a free operand's buffer; False if none is."""
    op = plan.op
    if plan.kind == "stmt":
        ufunc = _UPDATES.get(op.type)
        if ufunc is None:
            return False
        handle, update = plan.inputs
        if not _free(em, update, op, update.dtype, _static_shape(update)):
            return False
        h, u = args
        em.emit("%s(%s.value, %s, out=%s)" % (em.global_for(ufunc, "uf_" + ufunc.__name__),
                                               h, u, u), op)
        em.emit("%s.value = %s" % (h, u))
        em.aliased.add(id(update))
        return True
    ufunc = _UFUNCS.get(op.type)
    if ufunc is None or len(op.outputs) != 1 or len(plan.inputs) != 2:
        return False
    out = op.outputs[0]
    size = _static_size(out)
    if size is None or size < MIN_ELEMENTS:
        return False
    shape = _static_shape(out)
    k = next((i for i, t in enumerate(plan.inputs) if _free(em, t, op, out.dtype, shape)),
             None)
    if k is None:
        return False
    target = args[k]
    em.emit("%s(%s, %s, out=%s)" % (em.global_for(ufunc, "uf_" + ufunc.__name__),
                                     args[0], args[1], target), op)
    em.names[id(out)] = target
    em.aliased.add(id(plan.inputs[k]))   # the name lives on as the result
    em.owned.add(id(out))
    return True


def kernel_out(em, plan, args):
    """For a kernel of OUT_KERNELS whose operand's buffer is free: the name
    of that buffer (passed as `out=`), which the written output takes over;
    else None."""
    spec = OUT_KERNELS.get(plan.op.type)
    if spec is None:
        return None
    k, j = spec
    op = plan.op
    src, out = plan.inputs[k], op.outputs[j]
    shape = _static_shape(out)
    n = _static_size(out)
    if n is None or n < MIN_ELEMENTS or not _free(em, src, op, out.dtype, shape):
        return None
    # The operand's name is deleted after the call as usual: the result,
    # under its own name, holds the buffer.
    return args[k]


def joined_out(em, plan):
    """For a joined plan (compiler/kernel_fusion.py) whose operand named in
    kernel_fusion.JOINED_OUT is free: that operand's name (passed as
    `out=`); else None."""
    from .kernel_fusion import JOINED_OUT
    src, out = plan.inputs[JOINED_OUT[plan.template.kind]], plan.op.outputs[0]
    n = _static_size(out)
    if n is None or n < MIN_ELEMENTS or \
            not _free(em, src, plan.op, out.dtype, _static_shape(out)):
        return None
    return em.value(src)
