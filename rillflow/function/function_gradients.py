"""Gradients through calls of traced functions.

For a function graph F, the backward graph B is built once by running the
backprop engine over F's ops while B is the current graph: gradient
functions that read forward values capture them from F. Those captured
forward tensors are F's *intermediates*; a forward variant of F returns
them as extra outputs, and B takes them (with the output gradients) as
inputs. So a differentiated call runs F's forward code once and B once,
with no recomputation.

This module builds on concrete_function.py (a gradient function is itself a
ConcreteFunction, higher_order.py) and installs itself there when imported:
the gradient of the call ops, and the entry points ConcreteFunction uses
when it is differentiated (`install_gradients`).
"""
import numpy as np

from ..compiler import runtime_errors
from ..compiler.xla_compile import compile_function_graph
from ..framework import context as _context
from ..framework import errors
from ..framework.execute import EagerOp, placeholder
from ..framework.indexed_slices import IndexedSlices
from ..framework.op_registry import register, set_gradient, set_lowering
from ..framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ..ops.core.constant_ops import zeros_like
from ..ops.gradients.backprop import backprop, is_differentiable
from ..framework.func_graph import FuncGraph
from .concrete_function import _Call, _runtime_value, _wrap, install_gradients
from .higher_order import GradientFunction, saved_stateful_outputs

_state = _context.state


class FunctionGradient:
    """The forward-with-intermediates and backward code of one ConcreteFunction."""

    def __init__(self, cf):
        self._cf = cf
        self._gradient_function = None
        fg = cf.graph
        bg = FuncGraph(fg.name + "_backward")
        bg.forward_graph = fg
        # The gradient of an XLA-compiled function is compiled with XLA too.
        bg.jit_compile_option = getattr(fg, "jit_compile_option", None)
        self.diff_outputs = [i for i, t in enumerate(fg.outputs) if is_differentiable(t.dtype)]
        with _context.graph_mode(bg, hide_tapes=True):
            dys = [placeholder(fg.outputs[i].dtype, fg.outputs[i].shape, name="dy")
                   for i in self.diff_outputs]
            seeds = [None] * len(fg.outputs)
            for i, d in zip(self.diff_outputs, dys):
                seeds[i] = d
            grads = backprop(fg.get_operations(), fg.outputs, seeds, fg.inputs)
            grads = [None if g is None else _in_graph(bg, g) for g in grads]
        # An IndexedSlices gradient (of a gather) leaves the backward code as
        # its components and is rebuilt by the caller (`regroup`).
        flat = [c for g in grads for c in _components(g)]
        caps = bg.captures
        bg.inputs = list(dys) + [internal for _, internal in caps]
        # The forward also returns the outputs of its stateful ops (random
        # numbers), which a gradient of this gradient reuses (higher_order.py).
        self.saved = saved_stateful_outputs(fg)
        self.intermediates = [ext for ext, _ in caps if isinstance(ext, SymbolicTensor)] + \
            self.saved
        self._eager_captures = [(i, ext._v) for i, (ext, _) in enumerate(caps)
                                if isinstance(ext, EagerTensor)]
        self._capture_kinds = [isinstance(ext, SymbolicTensor) for ext, _ in caps]
        self.backward_graph = bg
        self.backward_outputs = grads
        self.backward_flat = flat
        self.backward = compile_function_graph(bg, bg.inputs, flat, name=bg.name)
        self.forward_compiled = compile_function_graph(fg, fg.inputs,
                                              list(fg.outputs) + self.intermediates,
                                              name=fg.name + "_forward")
        self.num_outputs = len(fg.outputs)

    def gradient_function(self):
        """The differentiable form of the backward code (higher_order.py)."""
        if self._gradient_function is None:
            self._gradient_function = GradientFunction(self._cf, self.diff_outputs, self.saved)
        return self._gradient_function

    def backward_values(self, dy_values, intermediate_values):
        """Runs the backward code: the values (or None) of `backward_flat`,
        which `regroup` turns into one gradient per function input."""
        it = iter(intermediate_values)
        eager = dict(self._eager_captures)
        caps = [next(it) if sym else eager[i] for i, sym in enumerate(self._capture_kinds)]
        return self.backward.fn(*dy_values, *caps)


def _components(g):
    """The tensors standing for one input gradient among the backward
    outputs: None, the tensor, or an IndexedSlices' components."""
    if g.__class__ is IndexedSlices:
        return g._to_components()
    return [g]


def regroup(structure, flat, wrap):
    """One gradient per input from the flat backward outputs `flat` (laid
    out as `_components` of `structure`), each value passed to `wrap`;
    IndexedSlices are rebuilt from their components."""
    out = []
    k = 0
    for g in structure:
        if g.__class__ is IndexedSlices:
            n = len(g._to_components())
            out.append(IndexedSlices(*[wrap(v) for v in flat[k:k + n]]))
            k += n
        else:
            v = flat[k]
            k += 1
            out.append(None if v is None else wrap(v))
    return out


def _in_graph(bg, g):
    if g.__class__ is IndexedSlices:
        return IndexedSlices(*[_in_graph(bg, c) for c in g._to_components()])
    if isinstance(g, SymbolicTensor) and g.graph is bg:
        return g
    return bg.capture(g) if isinstance(g, (SymbolicTensor, EagerTensor)) else g


def _tape_inputs(cf, flat_args):
    ins = []
    for a in flat_args:
        handle = getattr(a, "_handle", None)
        ins.append(handle if handle is not None and not isinstance(a, Tensor) else a)
    ins.extend(cf.graph.external_captures)
    return ins


def call_with_tape(cf, flat_args):
    """Eager call of `cf` recorded on the active tapes; None if no tape cares."""
    fg = cf.graph
    for tape in _state.tapes:
        for v in fg.variables:
            tape._variable_accessed(v)
    for a in flat_args:
        if hasattr(a, "_notify_tapes"):
            a._notify_tapes()
    inputs = _tape_inputs(cf, flat_args)
    tapes = [t for t in _state.tapes if t._should_record(inputs)]
    if not tapes:
        return None
    grad = cf._gradient()
    vals = [_runtime_value(a) for a in flat_args] + list(cf._capture_values)
    try:
        outs = grad.forward_compiled.fn(*vals)
    except Exception as e:
        raise runtime_errors.translate(e).with_traceback(None) from None
    n = grad.num_outputs
    out_tensors = [_wrap(v) for v in outs[:n]]
    inter = outs[n:]

    def grad_fn(op, *dys):
        if _state.tapes and _gradient_is_watched(op, dys):
            dy_ts = [dys[i] if dys[i] is not None else _wrap(_zeros(op.outputs[i]))
                     for i in grad.diff_outputs]
            saved = [_wrap(v) for v in inter[len(inter) - len(grad.saved):]]
            return grad.gradient_function()(op.inputs, dy_ts, saved)
        dy_vals = [dys[i]._v if isinstance(dys[i], EagerTensor) else _zeros(op.outputs[i])
                   for i in grad.diff_outputs]
        gs = grad.backward_values(dy_vals, inter)
        return regroup(grad.backward_outputs, gs, _wrap)

    rec = EagerOp(_Call, tuple(inputs), out_tensors, {"f": cf, "_grad_fn": grad_fn})
    for t in tapes:
        t._record(rec)
    return cf._pack(out_tensors)


def _gradient_is_watched(op, dys):
    """Whether an active tape records the computation of this gradient (a
    gradient of a gradient is being taken)."""
    involved = list(op.inputs) + [d for d in dys if d is not None]
    # Observers (the check-numerics checker, the debug dumper) see every op
    # but take no gradients.
    return any(t._should_record(involved) for t in _state.tapes
               if not getattr(t, "_observer", False))


def _zeros(t):
    return np.zeros(t._v.shape, t._v.dtype)


def _backward_kernel(*vals, f):
    grad = f._gradient()
    k = len(grad.diff_outputs)
    # The call's own inputs come last: only the gradient of this op reads them.
    gs = grad.backward_values(vals[:k], vals[k:k + len(grad._capture_kinds)])
    return [g for g, t in zip(gs, grad.backward_flat) if t is not None]


def _backward_grad(op, *ddys):
    """Gradient of the backward code of a call: that of the call's gradient
    function, a function of the call's inputs and output gradients."""
    cf = op.get_attr("f")
    grad = cf._gradient()
    k = len(grad.diff_outputs)
    ncaps = len(grad._capture_kinds)
    nsaved = len(grad.saved)
    dys = list(op.inputs[:k])
    primal = list(op.inputs[k + ncaps:len(op.inputs) - nsaved])
    saved = list(op.inputs[len(op.inputs) - nsaved:])
    gf = grad.gradient_function()
    seeds = {}
    it = iter(ddys)
    for i, t in enumerate(grad.backward_outputs):
        if t.__class__ is IndexedSlices:
            if any(next(it) is not None for _ in t._to_components()):
                raise errors.UnimplementedError(
                    None, None, f"A gradient of the sparse (IndexedSlices) gradient of "
                    f"{cf.name}() is not supported; densify it first (tf.convert_to_tensor).")
        elif t is not None:
            seeds[i] = next(it)
    outs = gf.function._call_flat(primal + dys + saved)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    if not outs:
        return [None] * len(op.inputs)
    call = outs[0].op
    call_dys = [seeds.get(i) for i in gf.positions]
    gs = graph_call_gradient(call, call_dys)
    n = len(primal)
    return list(gs[n:n + k]) + [None] * ncaps + list(gs[:n]) + [None] * nsaved


_SymbolicGradient = register("SymbolicGradient", _backward_kernel, None, _backward_grad,
                             no_fold=True)


def graph_call_gradient(op, dys):
    """Gradient of a call op while building a graph: adds the intermediates as
    extra outputs of the call and a backward call op consuming them."""
    cf = op.get_attr("f")
    grad = cf._gradient()
    n = grad.num_outputs
    if not op.attrs.get("_with_intermediates"):
        op.attrs = dict(op.attrs, _with_intermediates=True)
        for t in grad.intermediates:
            op.outputs.append(SymbolicTensor(op, len(op.outputs), t.shape, t.dtype))
    inter = op.outputs[n:]
    dy_ts = [dys[i] if dys[i] is not None else zeros_like(op.outputs[i])
             for i in grad.diff_outputs]
    out_specs = [(t.shape, t.dtype) for t in grad.backward_flat if t is not None]
    it = iter(inter)
    eager = dict(grad._eager_captures)
    caps = []
    for i, sym in enumerate(grad._capture_kinds):
        caps.append(next(it) if sym else EagerTensor(eager[i]))
    g = _state.graph
    saved = inter[len(inter) - len(grad.saved):]
    ins = dy_ts + caps + list(op.inputs) + list(saved)
    res = g.create_op(_SymbolicGradient, [g.capture(t) if not (isinstance(t, SymbolicTensor)
                                                               and t.graph is g)
                                          else t for t in ins],
                      {"f": cf}, name="SymbolicGradient",
                      output_specs=out_specs, multi=True).outputs
    it = iter(res)
    flat = [None if t is None else next(it) for t in grad.backward_flat]
    return regroup(grad.backward_outputs, flat, lambda t: t)


def _call_grad(op, *dys):
    return graph_call_gradient(op, dys)


set_gradient("PartitionedCall", _call_grad)
set_gradient("StatefulPartitionedCall", _call_grad)
install_gradients(FunctionGradient, call_with_tape)


# --- XLA lowerings (framework/lowering.py) -----------------------------------------

def _lower_backward(ctx, op, *ins):
    """The backward code of a call, lowered in place: its graph takes the
    output gradients and the captured (forward) values."""
    grad = op.get_attr("f")._gradient()
    n_in = len(grad.diff_outputs) + len(grad._capture_kinds)
    return ctx.call(grad.backward_graph, list(ins[:n_in]),
                    [t for t in grad.backward_flat if t is not None])


set_lowering("SymbolicGradient", _lower_backward)
