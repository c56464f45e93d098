"""`tf.compat.v1.Session` and placeholders: running v1-style graphs.

`Session.run(fetches, feed_dict)` compiles the part of the graph the
fetches need (with the fed tensors as inputs) once per (fetches, feeds)
combination and calls the compiled code. As in TensorFlow 1, only what the
fetches need runs.
"""
import numpy as np

from ...compiler.codegen import compile_graph, needed_ops
from ...compiler import runtime_errors
from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import nest
from ...framework.api_export import export
from ...framework.convert import to_numpy
from ...framework.execute import placeholder as _placeholder
from ...framework.graph import Graph, Operation
from ...framework.tensor import SymbolicTensor
from ...framework.tensor_shape import TensorShape, as_shape
from ...ops.core.shape_ops import identity
from ...ops.random import seeding

_state = _context.state
_default_graph = [None]


@export("compat.v1.get_default_graph")
def get_default_graph():
    """The graph ops are added to: the active one, or the global default graph."""
    if _state.graph is not None:
        return _state.graph
    if _default_graph[0] is None:
        _default_graph[0] = Graph()
    return _default_graph[0]


@export("compat.v1.reset_default_graph")
def reset_default_graph():
    """Replaces the global default graph with a new, empty one."""
    _default_graph[0] = Graph()
    if _context.config.__dict__.get("eager_disabled"):
        _state.graph = _default_graph[0]


@export("compat.v1.disable_eager_execution", "compat.v1.disable_v2_behavior")
def disable_eager_execution():
    """Switches this thread to TF1-style graph building on the default graph."""
    _context.config.eager_disabled = True
    _state.graph = get_default_graph()


@export("compat.v1.enable_eager_execution", "compat.v1.enable_v2_behavior")
def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Switches back to eager execution."""
    _context.config.eager_disabled = False
    if _state.graph is _default_graph[0]:
        _state.graph = None


@export("compat.v1.placeholder")
def placeholder(dtype, shape=None, name=None):
    """A graph input that must be fed when the graph runs.

    Raises:
      RuntimeError: when called eagerly.
    """
    if _state.graph is None:
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    return _placeholder(D.as_dtype(dtype), as_shape(shape), name=name or "Placeholder")


@export("compat.v1.placeholder_with_default")
def placeholder_with_default(input, shape, name=None):  # noqa: A002
    """A tensor that takes `input`'s value unless it is fed."""
    return identity(input, name=name or "PlaceholderWithDefault")


@export("compat.v1.Session", "compat.v1.InteractiveSession")
class Session:
    """Runs a v1 graph: `with tf.compat.v1.Session() as sess: sess.run(t)`.

    Args:
      target: ignored (always in-process).
      graph: the graph to run (default: the current default graph).
      config: ignored.
    """

    def __init__(self, target="", graph=None, config=None):
        self._graph = graph if graph is not None else get_default_graph()
        self._compiled = {}
        self._closed = False
        # Each session replays the random sequences of a seeded graph, as in TF.
        restart = getattr(seeding, "restart_random_streams", None)
        if restart is not None:
            restart(self._graph)

    @property
    def graph(self):
        """The graph this session runs."""
        return self._graph

    @property
    def graph_def(self):
        """The graph's GraphDef view."""
        return self._graph.as_graph_def()

    def __enter__(self):
        self._default_cm = self._graph.as_default() if _state.graph is not self._graph else None
        if self._default_cm is not None:
            self._default_cm.__enter__()
        return self

    def __exit__(self, *exc):
        if self._default_cm is not None:
            self._default_cm.__exit__(*exc)
        self.close()

    def as_default(self):
        """A context manager making this the default session (its graph default)."""
        return self._graph.as_default()

    def close(self):
        """Releases the session (further runs raise)."""
        self._closed = True

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Computes `fetches` (a tensor, op, name, or nested structure of them).

        Returns values of the same structure: NumPy values for tensors, None
        for ops.

        Raises:
          RuntimeError: if the session is closed.
          InvalidArgumentError: for a placeholder that was not fed, or a fed
            value of the wrong shape.
          TypeError/ValueError: for fetches that are not graph elements.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat = nest.flatten(fetches)
        elems = [self._element(f) for f in flat]
        feeds = {}
        for k, v in (feed_dict or {}).items():
            t = self._element(k)
            if not isinstance(t, SymbolicTensor):
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: {k!r}")
            feeds[t] = self._feed_value(t, v)
        feed_tensors = list(feeds)
        out_tensors = [e for e in elems if isinstance(e, SymbolicTensor)]
        target_ops = [e for e in elems if isinstance(e, Operation)]
        key = (tuple(id(t) for t in out_tensors), tuple(id(o) for o in target_ops),
               tuple(id(t) for t in feed_tensors), self._graph.version)
        compiled = self._compiled.get(key)
        if compiled is None:
            fed_ops = {id(t.op) for t in feed_tensors
                       if all(o in feeds for o in t.op.outputs)}
            ops = [op for op in needed_ops(self._graph.get_operations(), out_tensors,
                                           keep_stateful=False, extra_ops=target_ops)
                   if id(op) not in fed_ops]
            compiled = compile_graph(self._graph, feed_tensors, out_tensors, name="session_run",
                                     ops=ops)
            self._compiled[key] = compiled
        try:
            values = compiled.fn(*[feeds[t] for t in feed_tensors])
        except Exception as e:
            raise runtime_errors.translate(e).with_traceback(None) from None
        it = iter(values)
        results = [_fetch_value(next(it)) if isinstance(e, SymbolicTensor) else None
                   for e in elems]
        return nest.pack_sequence_as(fetches, results)

    def _element(self, f):
        if hasattr(f, "_dense_var_to_tensor") and not isinstance(f, SymbolicTensor):
            with self._graph.as_default():
                return f._dense_var_to_tensor()
        if isinstance(f, (SymbolicTensor, Operation)):
            if f.graph is not self._graph:
                raise ValueError(f"Tensor {f.name} is not an element of this graph.")
            return f
        if isinstance(f, str):
            return self._graph.as_graph_element(f)
        raise TypeError(f"Fetch argument {f!r} has invalid type {type(f)}, must be a string or "
                        "Tensor. (Can not convert a %s into a Tensor or Operation.)"
                        % type(f).__name__)

    @staticmethod
    def _feed_value(t, v):
        arr = to_numpy(v.numpy() if hasattr(v, "numpy") else v, t.dtype)
        if not t.shape.is_compatible_with(TensorShape(np.shape(arr))):
            raise ValueError(f"Cannot feed value of shape {np.shape(arr)} for Tensor "
                             f"{t.name}, which has shape {t.shape}")
        return arr


def _fetch_value(v):
    if isinstance(v, np.ndarray) and v.dtype == object and v.ndim == 0:
        return v[()]
    return v
