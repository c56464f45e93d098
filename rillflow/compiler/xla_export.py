"""`tf.experimental.to_jax`: a traced function as a pure JAX function.

The function's graph is lowered as for `jit_compile=True` (xla_lower.py),
but nothing is compiled or called here: the result is an ordinary Python
function of JAX arrays that JAX users can `jax.jit`, `jax.grad` and
`jax.vmap`. Variables become explicit arguments and results: `fn(variables,
*args)` returns `(outputs, new_variables)`, where `variables` holds one
array per variable the function uses (`fn.variables` lists them, and
`fn.variable_values()` gives their current values).
"""
import numpy as np

from ..framework import dtypes as D
from ..framework import lowering as L
from ..framework import nest
from ..framework.api_export import export
from ..framework.func_graph import CompositeOutput
from ..framework.lowering_values import TList, VarRef
from ..framework.tensor import EagerTensor
from .xla_compile import unsupported_error
from .xla_lower import LoweringContext, attr_handles, unsupported_ops

__all__ = ["to_jax"]


class JaxFunction:
    """A traced function as a pure JAX function (see `to_jax`).

    Attributes:
      variables: the `tf.Variable`s (or their handles, for variables the
        function only captured) whose values `__call__` takes and returns,
        in order.
      concrete_function: the ConcreteFunction it was made from.
    """

    def __init__(self, concrete_function):
        cf = concrete_function
        graph = cf.graph
        bad = unsupported_ops(graph, graph.outputs)
        if bad:
            raise unsupported_error(getattr(graph, "function_name", graph.name), bad)
        L.load()
        self.concrete_function = cf
        self._graph = graph
        n_args = len(graph.inputs) - len(graph.captures)
        self._arg_inputs = graph.inputs[:n_args]
        if any(t.dtype is D.resource for t in self._arg_inputs):
            raise TypeError("to_jax: variables passed as arguments are not supported; let "
                            "the function capture them (they become `variables`)")
        by_storage = {id(getattr(v, "_storage", None)): v for v in graph.variables}
        self._slots = {}       # id(placeholder) -> slot
        self._constants = {}   # id(placeholder) -> captured value
        handles = []
        for ext, internal in graph.captures:
            if internal.dtype is D.resource:
                storage = ext._v if isinstance(ext, EagerTensor) else None
                self._slots[id(internal)] = len(handles)
                handles.append(storage)
            else:
                self._constants[id(internal)] = np.asarray(ext._v) \
                    if isinstance(ext, EagerTensor) else np.asarray(ext)
        # Storages ops hold in attrs (a tf.random.Generator's state) are
        # variables of the function too, after the captured ones.
        self._attr_slots = {}
        for h in attr_handles(graph):
            slot = next((i for i, x in enumerate(handles) if x is h), None)
            if slot is None:
                slot = len(handles)
                handles.append(h)
            self._attr_slots[id(h)] = slot
        self._handles = handles
        self.variables = tuple(by_storage.get(id(h), h) for h in handles)

    def variable_values(self):
        """The variables' current values, in `variables` order (JAX arrays)."""
        return tuple(None if h.value is None else L.jnp.asarray(h.value)
                     for h in self._handles)

    def __call__(self, variables, *args, rng=None):
        """Runs the function: `(outputs, new_variables)`.

        Args:
          variables: one array per entry of `variables` (their values).
          *args: the function's tensor arguments, flat, in order.
          rng: a raw JAX PRNG key (uint32[2]) for the stateful random ops
            (default: a fixed key).
        """
        if len(variables) != len(self._handles):
            raise ValueError("expected %d variable values, got %d" % (len(self._handles),
                                                                        len(variables)))
        if len(args) != len(self._arg_inputs):
            raise TypeError("expected %d arguments, got %d" % (len(self._arg_inputs),
                                                              len(args)))
        key = L.jnp.zeros((2,), np.uint32) if rng is None else rng
        ctx = LoweringContext({s: v for s, v in enumerate(variables) if v is not None}, key)
        ctx.handle_slots = dict(self._attr_slots)
        env = {id(t): v for t, v in zip(self._arg_inputs, args)}
        for ph in self._graph.inputs[len(self._arg_inputs):]:
            slot = self._slots.get(id(ph))
            env[id(ph)] = VarRef(slot, "variable") if slot is not None else \
                self._constants[id(ph)]
        flat = ctx.run(self._graph, env, self._graph.outputs)
        new_vars = tuple(ctx.variables.get(s) for s in range(len(self._handles)))
        return self._pack(flat), new_vars

    def _pack(self, flat):
        structured = self._graph.structured_outputs
        if structured is None:
            return None
        it = iter([_plain(v) for v in flat])
        leaves = []
        for leaf in nest.flatten(structured):
            if leaf is None:
                leaves.append(None)
            elif isinstance(leaf, CompositeOutput):
                leaves.append([next(it) for _ in leaf.components])
            else:
                leaves.append(next(it))
        return nest.pack_sequence_as(structured, leaves) if nest.is_nested(structured) \
            else leaves[0]


def _plain(v):
    if isinstance(v, TList):
        return v.buffer
    return v


@export("experimental.to_jax")
def to_jax(concrete_function):
    """A pure JAX function computing what `concrete_function` computes.

    `fn = tf.experimental.to_jax(f.get_concrete_function(...))` is called as
    `outputs, new_variables = fn(variables, *args)`: `variables` holds the
    values of the variables the function uses (`fn.variables`, current values
    from `fn.variable_values()`), `new_variables` their values after the
    call (the function's assignments). Nothing else changes: the function
    is pure, so `jax.jit`, `jax.grad` and `jax.vmap` apply to it. Stateful
    random ops draw from the `rng` keyword (a raw JAX key).

    Args:
      concrete_function: a ConcreteFunction (or a `tf.function` with an
        input signature).

    Raises:
      InvalidArgumentError: when an op has no XLA lowering (TensorFlow's
        "Detected unsupported operations" error).
      ImportError: without JAX.
    """
    cf = concrete_function
    if not hasattr(cf, "graph") and hasattr(cf, "get_concrete_function"):
        cf = cf.get_concrete_function()
    return JaxFunction(cf)
