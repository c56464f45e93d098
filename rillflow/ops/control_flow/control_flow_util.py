"""Shared machinery of the control-flow ops (cond, case, while_loop).

Branches and loop bodies are traced into FuncGraphs whose captured outside
tensors become inputs of the control-flow op; each body graph maps its
placeholders to op inputs through an index list.
"""
from ...framework import context as _context
from ...framework import nest
from ...framework.func_graph import CompositeOutput, trace_function
from ...framework.op_registry import register
from ...framework.tensor import SymbolicTensor
from ...framework import errors

_state = _context.state


def trace_body(fn, name, args=(), arg_names=None):
    """Traces `fn(*args)` into a FuncGraph nested in the current graph."""
    return trace_function(name, fn, args, {}, arg_names=arg_names,
                          outer_graph=_state.graph, add_identities=False)


def in_graph(g, t):
    """`t` as a tensor of graph `g` (capturing it when it comes from elsewhere)."""
    if isinstance(t, SymbolicTensor) and t.graph is g:
        return t
    return g.capture(t)


def collect_inputs(g, graphs, skip=0):
    """The op inputs feeding the captures of each body graph.

    Returns (args, maps): `args` are tensors of `g`, deduplicated; `maps[i]`
    gives, for each input placeholder of graphs[i] after the first `skip`
    ones, the index of its value in `args`.
    """
    args, index, maps = [], {}, []
    for b in graphs:
        for v in getattr(b, "variables", ()):
            # Variables read in a body are used by the enclosing graph too.
            if hasattr(g, "capture_variable"):
                g.capture_variable(v)
            for tape in _state.tapes:
                tape._variable_accessed(v)
        m = []
        for ext, internal in b.captures:
            t = in_graph(g, ext)
            k = index.get(id(t))
            if k is None:
                k = index[id(t)] = len(args)
                args.append(t)
            m.append(k)
        maps.append(m)
    return args, maps


def is_stateful(graphs):
    """Whether any op of the graphs has side effects."""
    return any(op.opdef.stateful for b in graphs for op in b.get_operations())


def flat_outputs(b):
    """A body graph's flat outputs, None entries kept, composite values
    (a SparseTensor) as their component tensors."""
    if b.structured_outputs is None:
        return []
    out = []
    for x in nest.flatten(b.structured_outputs):
        if x.__class__ is CompositeOutput:
            out.extend(x.components)
        else:
            out.append(x)
    return out


def pack_outputs(structure, flat):
    """`structure` (a body graph's structured outputs) with its leaves taken
    from `flat` in order, composite values rebuilt from their components."""
    if structure is None:   # branches that return nothing (flat_outputs gives [])
        return None
    it = iter(flat)
    leaves = []
    for x in nest.flatten(structure):
        if x.__class__ is CompositeOutput:
            leaves.append(x.rebuild([next(it) for _ in x.components]))
        else:
            leaves.append(next(it))
    return nest.pack_sequence_as(structure, leaves) if nest.is_nested(structure) \
        else leaves[0]


def path_names(structure):
    """Readable paths ('[0]', "['a']") of the leaves of a structure."""
    return [_path(p) for p, _ in nest.flatten_with_tuple_paths(structure)]


def _path(p):
    return "".join("[%r]" % k for k in p) or "output"


def compiled_only_kernel(*args, **attrs):
    """Kernel of control-flow ops: they exist only as compiled code (their
    OpDef's `codegen` emits Python `if`/`while`)."""
    raise errors.UnimplementedError(None, None, "control-flow ops run only as compiled code")


def explicit_specs_infer(inputs, attrs):
    """Shape function of ops always created with explicit output specs."""
    raise ValueError("control-flow ops are built with explicit output specs")


def register_pair(name, grad, codegen):
    """Registers control-flow op `name` and its `Stateless<name>` twin (bodies
    without side effects, never constant-folded); returns them keyed by
    whether the bodies are stateful."""
    return {True: register(name, compiled_only_kernel, explicit_specs_infer, grad,
                           stateful=True, codegen=codegen),
            False: register("Stateless" + name, compiled_only_kernel, explicit_specs_infer,
                            grad, codegen=codegen, no_fold=True)}
