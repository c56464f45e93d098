"""TensorFlow's seeding rules (`tf.random.set_seed`, `get_seed`) and the
Philox generators the stateful random ops draw from.

Seeding follows `tf.random.set_seed`:

- Neither a global nor an op seed: every result is nondeterministic.
- A global seed but no op seed: each op gets an op seed of its own, drawn
  (eagerly) from Python's `random.Random(global_seed)`, as TensorFlow's
  context does, or (in a graph) from a counter of the graph's seedless
  random ops, so a program's sequence of results repeats after `set_seed`
  with the same value, and each traced function sees the same sequence.
- An op seed (with or without a global seed): eagerly, successive calls
  with the same seeds continue one stream of numbers until `set_seed` is
  called again (TensorFlow reuses the cached kernel); in a graph, each
  random op node owns a stream that advances every time the graph runs.

A stateful random op's kernel draws from a `philox.GuardedPhilox` passed in
the hidden attr `_rng` (hidden attrs are not part of the GraphDef view),
made here from the op's seed and seed2: created with the op node in a graph,
and looked up eagerly from a cache keyed by op type, dtype and seeds. A
stateless op derives its Philox key and counter from its seed input on each
run (`_stateless_rng`).
"""
import random as _pyrandom
import weakref

import numpy as np

from . import philox

from ...framework import context as _context
from ...framework import errors
from ...framework.api_export import export
from ...framework.graph import Graph
from ...framework.tensor import Tensor
from ...framework.tensor_shape import dims_text
from ..core import op_util as U

_state = _context.state

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
_UINT64_MASK = 2 ** 64 - 1


# --- seeds --------------------------------------------------------------------

class _EagerSeeds:
    """The eager global seed, the sequence op seeds are drawn from, and the
    generators of the eager random ops that have an op seed."""

    def __init__(self):
        self.seed = None
        self.op_seeds = None
        self.streams = {}


_eager = _EagerSeeds()
# Graphs holding stateful random ops, whose streams set_seed restarts.
_graphs_with_random_ops = weakref.WeakSet()


def _check_seed_value(seed):
    if seed is None:
        return None
    if isinstance(seed, Tensor):
        seed = U.constant_value(seed)
        if seed is None:
            raise TypeError("The seed must be known while building the graph.")
    if isinstance(seed, (np.ndarray, np.generic)) and np.ndim(seed) == 0:
        seed = seed.item()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"The seed must be an integer or None; got {seed!r} of type "
                        f"{type(seed).__name__}.")
    return int(seed)


@export("random.set_seed", "compat.v1.set_random_seed", "compat.v1.random.set_random_seed")
def set_seed(seed):
    """Sets the global random seed (None makes results nondeterministic again).

    Eagerly this also restarts every random stream: the sequence of results
    of the random ops after `set_seed(s)` is the same each time. While
    building a graph it sets the seed of that graph.

    Raises:
      TypeError: if `seed` is not an integer or None.
    """
    seed = _check_seed_value(seed)
    g = _state.graph
    if g is not None:
        g.seed = seed
        return
    _eager.seed = seed
    _eager.op_seeds = _pyrandom.Random(seed) if seed is not None else None
    _eager.streams.clear()
    # As in TensorFlow, functions traced earlier keep their op seeds but
    # start their random sequences over.
    for graph in list(_graphs_with_random_ops):
        restart_random_streams(graph)


def _graph_seed(g):
    """The global seed in effect in graph `g`; a function graph without one
    of its own inherits it from where it is traced."""
    while g is not None:
        if g.seed is not None or not getattr(g, "is_function_graph", False):
            return g.seed
        g = getattr(g, "outer_graph", None)
    return _eager.seed


def _truncate(seed):
    return seed % _MAXINT32


@export("compat.v1.random.get_seed", "compat.v1.get_seed")
def get_seed(op_seed):
    """The (global seed, op seed) pair a random op uses, per `set_seed`'s rules.

    (None, None) means nondeterministic.
    """
    op_seed = _check_seed_value(op_seed)
    g = _state.graph
    global_seed = _eager.seed if g is None else _graph_seed(g)
    if global_seed is not None:
        if op_seed is None:
            if g is None:
                if _eager.op_seeds is None:
                    _eager.op_seeds = _pyrandom.Random(global_seed)
                op_seed = _eager.op_seeds.randint(0, _MAXINT32)
            else:
                # TensorFlow counts the graph's seedless random ops.
                op_seed = getattr(g, "_random_op_count", 0)
                g._random_op_count = op_seed + 1
        seeds = (_truncate(global_seed), _truncate(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _truncate(op_seed))
    else:
        seeds = (None, None)
    # (0, 0) means "nondeterministic" to TensorFlow's kernels.
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds


def _stateful_attrs(op_type, key_dtype, op_seed, **attrs):
    """The attrs of a stateful random op, with the generator it draws from.

    Eagerly the generator of seeded ops is cached, as TensorFlow caches the
    kernel, so that repeated calls with the same seeds continue its stream.
    """
    seed, seed2 = get_seed(op_seed)
    attrs["seed"] = 0 if seed is None else seed
    attrs["seed2"] = 0 if seed2 is None else seed2
    if _state.graph is not None:
        _graphs_with_random_ops.add(_state.graph)
    if seed is None or _state.graph is not None:
        rng = philox.GuardedPhilox(attrs["seed"], attrs["seed2"])
    else:
        key = (op_type, key_dtype.name, seed, seed2)
        rng = _eager.streams.get(key)
        if rng is None:
            rng = _eager.streams[key] = philox.GuardedPhilox(seed, seed2)
    attrs["_rng"] = rng
    return attrs


def make_stream(seed, seed2):
    """The generator of a stateful op with these seed attrs, as a new
    kernel starts it (used when a saved graph is loaded)."""
    return philox.GuardedPhilox(seed, seed2)


def restart_random_streams(graph):
    """Restarts the stream of every stateful random op of `graph` and of the
    function graphs its ops run (branches, loop bodies, called functions,
    dataset functions).

    TensorFlow gives each v1 Session, and each tf.data iterator, its own
    kernels, so a new Session on a seeded graph, or a new iterator over a
    dataset whose functions draw seeded random numbers, replays the same
    numbers; `Session` and the iterator ops call this when they are
    created. Unseeded ops get fresh OS entropy.
    """
    seen = set()
    todo = [graph]
    while todo:
        g = todo.pop()
        if id(g) in seen:
            continue
        seen.add(id(g))
        for op in g.get_operations():
            for v in op.attrs.values():
                if isinstance(v, philox.GuardedPhilox):
                    v.restart()
                else:
                    todo.extend(_function_graphs(v))


def _function_graphs(value):
    """The graphs an attr value runs: a graph itself (a branch, a loop body),
    or the graph of a function object (a ConcreteFunction, a dataset
    function: callable or listing its operations, unlike tensors and
    operations, whose `.graph` is where they live); lists of them."""
    if isinstance(value, (list, tuple)):
        return [g for v in value for g in _function_graphs(v)]
    if isinstance(value, Graph):
        return [value]
    graph = getattr(value, "graph", None)
    if isinstance(graph, Graph) and (callable(value) or hasattr(value, "get_operations")):
        return [graph]
    return []


def _rng_or_default(rng):
    return rng if rng is not None else philox.GuardedPhilox(0, 0)


def _stateless_rng(seed):
    """The Philox position of a stateless op: a pure function of its [2]
    int seed tensor's value (TensorFlow's seed scrambling)."""
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not {dims_text(seed.shape)}")
    return philox.scramble_seed(int(seed[0]), int(seed[1]))[0]
