"""`tf.xla.experimental`: `compile` (a computation run as one XLA
computation) and `jit_scope` (graph ops marked as compilation hints).

TensorFlow 2 deprecates both in favour of `tf.function(jit_compile=True)`;
here `compile` is exactly that (XLA through JAX with the `xla` extra,
rillflow's own compiled code without it), and `jit_scope` records its attrs
on the ops it encloses (`_XlaCompile`, `_XlaScope`,
`_XlaSeparateCompiledGradients`), which change nothing else, as the hints
they are in TensorFlow's graph runtime.
"""
import collections.abc
import contextlib

from ..framework import context as _context
from ..framework import nest
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.graph import Operation
from ..framework.tensor import Tensor
from ..ops.control_flow.control_ops import control_dependencies, group
from ..ops.core.shape_ops import identity
from .polymorphic_function import function

__all__ = ["compile", "jit_scope"]


def _outputs(result):
    """TensorFlow's treatment of a compiled computation's result: a flat
    result (a tensor, a value, a list or tuple of them) becomes a list of
    tensors; nested lists keep their nesting, dicts their keys. Operations
    among the results are run before the tensors are returned (a result of
    operations only is one operation, a no-op grouping them)."""
    if result is None:
        result = []
    flat = not isinstance(result, dict) and (
        not isinstance(result, (list, tuple)) or
        all(not nest.is_nested(r) for r in result))
    if flat:
        items = list(result) if isinstance(result, (list, tuple)) else [result]
        ops = [r for r in items if isinstance(r, Operation)]
        tensors = [r for r in items if not isinstance(r, Operation)]
        if not tensors:
            return group(*ops)
        tensors = [r if isinstance(r, Tensor) else convert_to_tensor(r) for r in tensors]
        if ops:
            with control_dependencies(ops):
                tensors = [identity(t) for t in tensors]
        return tensors
    leaves = [r if r is None or isinstance(r, (Tensor, Operation)) else convert_to_tensor(r)
              for r in nest.flatten(result)]
    return nest.pack_sequence_as(result, leaves)


def _inputs(inputs):
    """The computation's arguments: each leaf of `inputs` a tensor."""
    if inputs is None:
        return []
    if not isinstance(inputs, collections.abc.Sequence) or isinstance(inputs, (str, bytes)):
        raise TypeError("inputs must be a list")
    leaves = [x if isinstance(x, Tensor) else convert_to_tensor(x)
              for x in nest.flatten(list(inputs))]
    return nest.pack_sequence_as(list(inputs), leaves)


@export("xla.experimental.compile")
def compile(computation, inputs=None):  # noqa: A001 - TensorFlow's name
    """Runs `computation(*inputs)` compiled with XLA (deprecated in
    TensorFlow: use `tf.function(jit_compile=True)`, which this is).

    Eagerly, each call traces a new `tf.function(jit_compile=True)` and runs
    it; in a graph (a `tf.function` being traced), the computation's ops are
    added in place as a call of such a function.

    Args:
      computation: a Python function of `len(inputs)` arguments; it may
        return tensors (or values convertible to tensors) and operations,
        the tensors first.
      inputs: a list (or tuple) of inputs, each a nested structure of values
        convertible to tensors (a Python list of numbers gives a list of
        scalar tensors), or None for no inputs.

    Returns:
      A list of the result's tensors for a flat result (one tensor, or a
      list or tuple of them), else the result's structure with tensors; the
      operations returned run first. A result of no tensors is an operation
      (which a `tf.function` cannot return: TensorFlow's TypeError).

    Raises:
      TypeError: if `inputs` is not a list.
      InvalidArgumentError: for ops without an XLA lowering (TensorFlow's
        "Detected unsupported operations").
    """
    def xla_compile_wrapper():
        args = _inputs(inputs)
        return _outputs(computation(*args))
    return function(xla_compile_wrapper, jit_compile=True)()


class _ScopeCounter:
    """The jit scopes of one graph: how many began (names `jit_scope_N`)
    and how deeply the current one nests."""

    __slots__ = ("count", "depth")

    def __init__(self):
        self.count = 0
        self.depth = 0


_COUNTER_KEY = "__xla_scope"


@export("xla.experimental.jit_scope")
@contextlib.contextmanager
def jit_scope(compile_ops=True, separate_compiled_gradients=False):
    """Marks the ops created inside for (or, with `compile_ops=False`,
    against) XLA compilation: a hint, recorded as the ops' attrs
    `_XlaCompile`, `_XlaScope` (`jit_scope_N`, shared by nested scopes) and
    `_XlaSeparateCompiledGradients`. Results do not change; to compile, use
    `tf.function(jit_compile=True)`.

    Args:
      compile_ops: a bool, or a callable of an op's NodeDef giving one.
      separate_compiled_gradients: whether gradients get scopes of their own.

    Raises:
      RuntimeError: when executing eagerly (TensorFlow's message).
    """
    if _context.executing_eagerly():
        raise RuntimeError("xla.experimental.jit_scope is not supported when eager "
                           "execution is enabled. Try use it inside tf.function.")
    if callable(compile_ops):
        def xla_compile(node_def):
            return bool(compile_ops(node_def))
    else:
        xla_compile = bool(compile_ops)
    attrs = {"_XlaCompile": xla_compile,
             "_XlaSeparateCompiledGradients": bool(separate_compiled_gradients)}
    graph = _context.get_default_graph()
    counters = graph.get_collection_ref(_COUNTER_KEY)
    if not counters:
        counters.append(_ScopeCounter())
    counter = counters[0]
    if counter.depth == 0:
        # An outermost scope starts a new cluster; nested ones join it.
        attrs["_XlaScope"] = ("jit_scope_%d" % counter.count).encode()
        counter.count += 1
    counter.depth += 1
    try:
        with graph._attr_scope(attrs):
            yield
    finally:
        counter.depth -= 1
