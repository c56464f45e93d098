"""`tf.autodiff.ForwardAccumulator`: forward-mode automatic differentiation.

An accumulator sits in the same list of active recorders as the
`GradientTape`s (`context.state.tapes`), so every op, eager or added to a
graph, reaches it through `_should_record`/`_record` as it reaches a tape.
For an op one of whose inputs has a tangent it computes the tangents of the
outputs at once, with the "double backward" trick on the gradient registry:
the op's gradient function `g(u) = J^T u` is linear in the output
cotangent `u`, so differentiating `<g(u), t>` with respect to `u` gives the
Jacobian-vector product `J t` for the input tangents `t`. Every op with a
gradient therefore has a forward derivative, with no second set of rules;
the ops it runs are ordinary ops, so tapes and enclosing accumulators see
them (backward-over-forward and forward-over-forward), and inside a
`tf.function` they join the graph.

Accumulators are kept after the tapes in the list (`tape.py` inserts a new
tape before the first accumulator) so that when an accumulator computes
tangents, every tape has already recorded the op: a tape that watches the
primals then records the tangent computation too.
"""
import itertools

from ..framework import context as _context
from ..framework import nest
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.indexed_slices import IndexedSlices, densify
from ..framework.tensor import Tensor
from ..ops.core.constant_ops import zeros_like
from ..ops.gradients.backprop import is_differentiable
from ..framework import dtypes as D
from .tape import GradientTape, UnconnectedGradients, _as_source, _handle_or_self, _read

_state = _context.state
_order = itertools.count()


class _Computing:
    """The accumulators created at or after `level` ignore the ops run while
    one of them computes tangents (TensorFlow: an accumulator never sees its
    own tangent computation nor an outer one's; outer ones see inner ones')."""
    level = None


def _grad_fn(op):
    fn = op.attrs.get("_grad_fn") if hasattr(op.attrs, "get") else None
    return fn if fn is not None else op.opdef.grad


@export("autodiff.ForwardAccumulator")
class ForwardAccumulator:
    """Computes Jacobian-vector products with forward-mode autodiff.

    `ForwardAccumulator(primals, tangents)` watches each primal (a tensor or
    a variable) with its tangent, a tensor of the same structure; inside the
    `with` block every op computed from a watched value gets the tangent of
    its outputs, which `jvp` returns. Nested with a `GradientTape` (either
    way round) it gives Hessian-vector products.

    Args:
      primals: a tensor or variable, or a nested structure of them.
      tangents: the same structure of tensors (converted to the primals'
        dtypes).

    Raises:
      ValueError: if the structures differ or a tangent cannot take its
        primal's dtype.
    """

    _is_accumulator = True

    def __init__(self, primals, tangents):
        self._order = next(_order)
        self._tangents = {}       # id(tensor) -> (tensor, tangent); the tensor keeps the id alive
        self._recording = False
        nest.assert_same_structure(primals, tangents)
        for p, t in zip(nest.flatten(primals), nest.flatten(tangents)):
            self._watch(p, t)

    # --- context manager --------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        _state.tapes.append(self)
        self._recording = True
        return self

    def __exit__(self, *exc):
        if self._recording:
            try:
                _state.tapes.remove(self)
            except ValueError:
                pass
            self._recording = False

    # --- watching -----------------------------------------------------------
    def _watch(self, primal, tangent):
        primal = _handle_or_self(primal)
        if not isinstance(primal, Tensor) and not hasattr(primal, "_tape_handle"):
            raise AttributeError(f"'{type(primal).__name__}' object has no attribute 'dtype'")
        dtype = primal.dtype
        if hasattr(dtype, "base_dtype"):
            dtype = dtype.base_dtype
        tangent = convert_to_tensor(tangent, dtype=dtype)
        if hasattr(primal, "_tape_handle"):
            # A variable: its handle carries the tangent, as for a tape; the
            # variable itself is remembered so that `jvp(variable)` finds it.
            self._tangents[id(primal)] = (primal, tangent)
        src = _as_source(primal)
        self._tangents[id(src)] = (src, tangent)

    # --- recording (called by the runtime) ---------------------------------
    def _should_record(self, inputs):
        level = _Computing.level
        if level is not None and self._order >= level:
            return False
        tangents = self._tangents
        for t in inputs:
            if id(t) in tangents:
                return True
        return False

    def _variable_accessed(self, variable):
        """Variables are watched only when given as primals."""

    def _record(self, op):
        saved = _Computing.level
        _Computing.level = self._order
        try:
            self._forward(op)
        finally:
            _Computing.level = saved

    def _forward(self, op):
        """Computes and stores the tangents of `op`'s outputs."""
        outputs = list(op.outputs)
        wanted = [is_differentiable(y.dtype) and y.dtype is not D.resource
                  and y.dtype is not D.variant for y in outputs]
        if not any(wanted):
            return
        fn = _grad_fn(op)
        if fn is None:
            return      # no gradient (StopGradient, ...): no tangent, as in TensorFlow
        in_tangents = [self._tangents.get(id(x)) for x in op.inputs]
        cotangents = [zeros_like(y) if w else None for y, w in zip(outputs, wanted)]
        sources = [u for u in cotangents if u is not None]
        with GradientTape(persistent=False, watch_accessed_variables=False) as inner:
            inner.watch(sources)
            in_grads = fn(op, *cotangents)
            if not isinstance(in_grads, (list, tuple)):
                in_grads = [in_grads]
            # Densified while the tape records: the dense gradient must stay
            # a function of the cotangents.
            in_grads = [densify(g) if isinstance(g, IndexedSlices) else g for g in in_grads]
        targets, seeds = [], []
        for g, entry in zip(in_grads, in_tangents):
            if g is None or entry is None:
                continue
            tangent = entry[1]
            if g.dtype != tangent.dtype:
                continue
            targets.append(g)
            seeds.append(tangent)
        if not targets:
            return
        jvps = inner.gradient(targets, sources, output_gradients=seeds)
        k = 0
        for y, w in zip(outputs, wanted):
            if not w:
                continue
            t = jvps[k]
            k += 1
            if t is None:
                continue
            if isinstance(t, IndexedSlices):
                t = densify(t)
            self._tangents[id(y)] = (y, t)

    # --- results --------------------------------------------------------------
    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The tangents of `primals` (a tensor or nested structure): the
        Jacobian-vector product of the computation that produced each.

        Args:
          primals: tensors computed while the accumulator was active (or the
            watched primals themselves).
          unconnected_gradients: `'none'` (a value not computed from the
            watched primals gives None) or `'zero'` (zeros of its shape).
        """
        unconnected = UnconnectedGradients(unconnected_gradients)

        def one(p):
            entry = self._tangents.get(id(p))
            if entry is None:
                src = _handle_or_self(p)
                entry = self._tangents.get(id(src))
            if entry is None:
                if not isinstance(p, Tensor) and not hasattr(p, "_tape_handle"):
                    raise AttributeError(f"'{type(p).__name__}' object has no attribute '_id'")
                if unconnected is UnconnectedGradients.ZERO:
                    return zeros_like(_read(p))
                return None
            # Handed out through a stop-recording identity in TensorFlow: the
            # tangent itself is what the caller gets.
            return entry[1]
        return nest.map_structure(one, primals)
