"""`tf.compat.v1.wrap_function`: a TF1-style function (one that builds ops
with placeholders as its inputs, e.g. one calling `tf.import_graph_def`)
traced once into a function graph and callable like a ConcreteFunction;
`prune(feeds, fetches)` cuts a new function out of its graph, taking
`feeds` as inputs and returning `fetches` (how frozen GraphDefs are run in
TensorFlow 2).

Pruning re-imports the graph (as a GraphDef, graph_def_io.py) into a new
function graph with the feeds mapped to new inputs, so only the ops the
fetches need run. Variables created inside the wrapped function are not
supported (TensorFlow lifts them out).
"""
from ..framework import context as _context
from ..framework import nest
from ..framework.api_export import export
from ..framework.execute import placeholder
from ..framework.func_graph import FuncGraph
from ..framework.graph import Operation
from ..framework.tensor_shape import TensorShape
from ..framework.tensor_spec import TensorSpec
from ..function.concrete_function import ConcreteFunction
from . import graph_def_io

__all__ = ["wrap_function", "WrappedFunction"]


class WrappedFunction(ConcreteFunction):
    """The function `wrap_function` returns: a ConcreteFunction over the
    traced graph, with `prune`."""

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """A function of this graph taking `feeds` (tensors of the graph, or
        their names) as its inputs and returning `fetches` (a structure of
        tensors or names).

        Raises:
          ValueError: if a feed or fetch is not a tensor of this graph.
        """
        g = self.graph
        feeds = [g.as_graph_element(f) if isinstance(f, str) else f
                 for f in nest.flatten(feeds)]
        fetch_list = [g.as_graph_element(f) if isinstance(f, str) else f
                      for f in nest.flatten(fetches)]
        for t in feeds + fetch_list:
            if isinstance(t, Operation) or getattr(t, "graph", None) is not g:
                raise ValueError(f"Can only prune with tensors of the wrapped function's graph; "
                                 f"got {t!r}")
        gd = graph_def_io.graph_def_dict(g)
        new = FuncGraph(name or g.name + "_pruned")
        with _context.graph_mode(new, hide_tapes=True):
            phs = [placeholder(t.dtype, t.shape, name=t.op.name) for t in feeds]
            outs = graph_def_io.import_graph_def(
                gd, input_map={t.name: p for t, p in zip(feeds, phs)},
                return_elements=[t.name for t in fetch_list], name="")
        new.inputs = phs
        new.outputs = list(outs)
        new.structured_input_signature = (tuple(phs), {})
        new.structured_outputs = nest.pack_sequence_as(fetches, outs) \
            if nest.is_nested(fetches) else outs[0]
        return WrappedFunction(new)


@export("compat.v1.wrap_function")
def wrap_function(fn, signature, name=None):
    """Traces TF1-style `fn` once, its arguments placeholders of the
    TensorSpecs in `signature` (a list), into a callable function.

    Raises:
      TypeError: for a signature that is not TensorSpecs.
    """
    specs = nest.flatten(signature or [])
    for s in specs:
        if not isinstance(s, TensorSpec):
            raise TypeError(f"wrap_function's signature must hold tf.TensorSpecs; got {s!r}")
    g = FuncGraph(name or getattr(fn, "__name__", "wrapped_function"))
    with _context.graph_mode(g, hide_tapes=True):
        phs = [placeholder(s.dtype, s.shape if s.shape is not None else TensorShape(None),
                           name=s.name or "arg%d" % i) for i, s in enumerate(specs)]
        out = fn(*nest.pack_sequence_as(signature, phs)) if specs else fn()
    flat = [t for t in nest.flatten(out) if t is not None and not isinstance(t, Operation)]
    g.inputs = phs
    g.outputs = flat
    g.structured_input_signature = (tuple(phs), {})
    g.structured_outputs = out if out is None else (
        nest.pack_sequence_as(out, flat) if nest.is_nested(out) else flat[0])
    return WrappedFunction(g)
