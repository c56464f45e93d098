"""User functions of dataset transformations (`map`, `filter`, `reduce`, ...).

A function is traced once, with AutoGraph, as a `tf.function` over the
input element spec, and compiled. Per element the runtime calls the
compiled code directly on component values, which is the whole cost of a
`map` step. Tensors the function captures from outside (eager tensors,
variables, or tensors of an enclosing graph being built) become extra
inputs of the dataset op, so the op's kernel supplies their values.
"""
import functools
import inspect
import re
import types

import numpy as np

from ..compiler import runtime_errors
from ..compiler.codegen import compile_graph
from ..framework import context as _context
from ..framework import nest
from ..framework.func_graph import CompositeOutput
from ..framework.tensor import SymbolicTensor
from ..framework.tensor_spec import TensorSpec
from ..function.polymorphic_function import Function
from ..ops.random import seeding
from . import runtime as R
from . import structure as S
from ..framework import errors
from ..ops.control_flow import control_flow_util as CF

_state = _context.state

# Ops that act on each element independently with exact arithmetic: a
# function made only of these, on scalars, gives the same results when it
# is run once on a whole batch of elements (see `DatasetFunction.batch_caller`).
_ELEMENTWISE = frozenset({
    "Identity", "AddV2", "Sub", "Mul", "RealDiv", "Neg", "Abs", "Square", "Sign", "Maximum",
    "Minimum", "Cast", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
    "LogicalAnd", "LogicalOr", "LogicalNot", "SelectV2", "FloorDiv", "FloorMod"})


class _ElementFunction(Function):
    """A Function whose results are normalized the tf.data way: a returned
    list is a tuple of components, lists inside are tensors."""

    def _python_callable(self):
        inner = super()._python_callable()

        def call(*args, **kwargs):
            out = inner(*args, **kwargs)
            if isinstance(out, list):
                out = tuple(out)
            if out is None:
                return None
            return S.normalize_element(out)
        return call


class DatasetFunction:
    """A traced and compiled user function of a dataset transformation.

    Args:
      fn: the Python callable.
      input_spec: the spec structure of its input; a plain tuple is passed
        as separate positional arguments (as TensorFlow does).
      transformation: name used for the function ('Dataset_map', ...).

    Attributes:
      output_spec: the spec structure of what the function returns.
      captures: the outside tensors the function reads, in order; pass them
        as extra inputs of the dataset op (`capture_inputs()`).
    """

    def __init__(self, fn, input_spec, transformation):
        if not callable(fn):
            raise TypeError(f"`{transformation}` expects a callable, got {fn!r}")
        base = getattr(fn, "__name__", type(fn).__name__)
        name = "%s_%s" % (transformation, re.sub(r"\W", "", base) or "fn")
        if isinstance(fn, Function):
            fn = fn.python_function
        func = _ElementFunction(fn, name=name, autograph=True)
        args = input_spec if type(input_spec) is tuple else (input_spec,)
        _check_arguments(fn, args)
        cf = func.get_concrete_function(*args)
        fg = cf.graph
        self.concrete = cf
        self.graph = fg
        self.input_spec = input_spec
        self.function_name = cf.name
        self.output_spec = _output_spec(fg.structured_outputs, transformation)
        self.captures = list(fg.external_captures)
        self._compiled = None

    # graph_def shows the function in the graph's library
    def get_operations(self):
        """The operations of the traced function graph."""
        return self.graph.get_operations()

    @property
    def fn(self):
        """The compiled callable: `fn(*components, *captures) -> outputs`."""
        c = self._compiled
        if c is None:
            g = self.graph
            c = self._compiled = compile_graph(g, g.inputs, g.outputs, name=g.name)
        return c.fn

    @property
    def vectorizable(self):
        """Whether running the function on a batch of stacked elements gives
        the batch of its per-element results (see `_elementwise_graph`)."""
        v = getattr(self, "_vectorizable", None)
        if v is None:
            # Composite inputs or outputs do not stack component by component.
            # (A function restored from a SavedModel has no input spec; its
            # inputs are tensors, as composite specs are not saved.)
            inputs = getattr(self, "input_spec", None)
            v = self._vectorizable = (inputs is None or S.all_tensors(inputs)) and \
                S.all_tensors(self.output_spec) and _elementwise_graph(self.graph)
        return v

    def batch_caller(self, captured):
        """For a `vectorizable` function: `call(flat batch) -> flat batch of
        outputs`, outputs that do not depend on the element broadcast."""
        fn = self.fn
        caps = tuple(captured)

        def call(values):
            n = len(values[0])
            try:
                outs = fn(*values, *caps)
            except Exception as e:
                raise runtime_errors.translate(e).with_traceback(None) from None
            return tuple(o if np.ndim(o) else np.full(n, o) for o in outs)
        return call

    def capture_inputs(self):
        """The tensors to pass as op inputs for the captures, in order (capturing
        them into the graph being built)."""
        g = _state.graph
        if g is None:
            return list(self.captures)
        args, maps = CF.collect_inputs(g, [self.graph])
        return [args[k] for k in maps[0]]

    def caller(self, captured):
        """A fast per-element callable `call(flat_element) -> flat outputs`
        with the captured values bound."""
        fn = self.fn
        caps = tuple(captured)

        def call(values):
            try:
                return fn(*values, *caps)
            except Exception as e:
                raise runtime_errors.translate(e).with_traceback(None) from None
        return call

    def caller2(self, captured):
        """Like `caller`, for functions of (state, element): `call(state, element)`."""
        fn = self.fn
        caps = tuple(captured)

        def call(state, values):
            try:
                return fn(*state, *values, *caps)
            except Exception as e:
                raise runtime_errors.translate(e).with_traceback(None) from None
        return call

    def __repr__(self):
        return "<dataset function %s>" % self.function_name


def _check_arguments(fn, args):
    """Raises the TypeError Python raises for `fn(*args)` when the arguments do
    not fit `fn`'s parameters: TensorFlow calls the function directly, so a
    map over pairs with a one-argument lambda reports
    "<lambda>() takes 1 positional argument but 2 were given"."""
    try:
        inspect.signature(fn).bind(*args)
        return
    except TypeError:
        pass
    except ValueError:      # no signature to check (some builtins)
        return
    target = fn
    while isinstance(target, functools.partial):
        target = target.func
    target = getattr(target, "__func__", target)
    if isinstance(target, types.FunctionType) and not hasattr(target, "__wrapped__"):
        # Binding fails before any of the body runs, so this only raises
        # Python's own message.
        fn(*args)


def _numeric(t):
    return t.dtype._np is not None and t.dtype._np.kind in "biuf"


def _elementwise_graph(g):
    """Whether `g`, run once on a batch of elements stacked along a new first
    axis, gives the stack of its per-element results: only exact elementwise
    ops (and one_hot along the last axis), the per-element operands of each
    op of one rank, that of its result, so that their stacked axes line up,
    and the other operands (constants, captures) of no higher rank, so that
    they broadcast over the element's own axes only."""
    n_args = len(g.inputs) - len(g.captures)
    per_element = set()
    for t in g.inputs[:n_args]:
        if not t.shape.is_fully_defined() or not _numeric(t):
            return False
        per_element.add(id(t))
    for op in g.get_operations():
        if op.type == "Placeholder":
            continue
        if op.type == "Const":
            if not _numeric(op.outputs[0]):
                return False
            continue
        if op.control_inputs or not all(_numeric(t) for t in op.outputs):
            return False
        varying = [t for t in op.inputs if id(t) in per_element]
        if not varying:
            # The same for every element, unless the op draws new values
            # (random ops, pulls from Python) on each run.
            if op.opdef.stateful and op.type != "ReadVariableOp":
                return False
            continue
        rank = op.outputs[0].shape.rank
        if op.type == "OneHot":
            if op.get_attr("axis") not in (-1, rank - 1) or varying != [op.inputs[0]]:
                return False
        elif op.type not in _ELEMENTWISE:
            return False
        elif len({t.shape.rank for t in varying}) != 1 or rank != varying[0].shape.rank or any(
                t.shape.rank is None or t.shape.rank > rank
                for t in op.inputs if id(t) not in per_element):
            return False
        per_element.update(id(t) for t in op.outputs)
    return all(id(t) in per_element or t.shape.rank == 0 for t in g.outputs)


def _output_spec(structured, transformation):
    def one(v):
        if v is None:
            raise TypeError(f"The function passed to `{transformation}` returned None; it "
                            "must return a tensor, a dataset or a structure of them.")
        if isinstance(v, CompositeOutput):
            spec = getattr(v.template, "element_spec", None)
            if spec is not None and hasattr(v.template, "_variant_tensor"):
                return S.DatasetSpec(spec)
            return S.spec_of(v.template)
        if isinstance(v, SymbolicTensor):
            return TensorSpec(v.shape, v.dtype)
        raise TypeError(f"Unsupported return value {v!r} from `{transformation}`")
    if structured is None:
        return one(None)
    return nest.map_structure(one, structured)


def trace(fn, input_spec, transformation):
    """Traces `fn` over `input_spec`; returns a DatasetFunction."""
    return DatasetFunction(fn, input_spec, transformation)


def trace_state_function(fn, state_spec, element_spec, transformation, select_state,
                         what):
    """Traces a function of (state, element) until the state it returns fits
    the state spec, relaxing the state's shapes where they change.

    `select_state(output_spec)` picks the new-state part of the output. As
    in TensorFlow the new state is matched to the initial one leaf by leaf
    (its nesting may differ); a composite tensor (SparseTensor,
    RaggedTensor) is one leaf, relaxed to the most specific spec of both
    (a SparseTensor whose rank grows becomes `SparseTensorSpec(None)`).
    Returns (DatasetFunction, final state spec); template composites
    (TensorArrays, ...) in the final spec are the ones the function returns.

    Raises:
      TypeError: if a leaf of the new state changes class or dtype.
      InvalidArgumentError (reduce) / TypeError (scan): if the number of
        leaves differs.
    """
    sep = ", got" if what else " but got"
    for _ in range(16):
        f = DatasetFunction(fn, (state_spec, element_spec), transformation)
        new_spec = select_state(f.output_spec)
        old_leaves = nest.flatten(state_spec)
        new_leaves = nest.flatten(new_spec)
        if len(old_leaves) != len(new_leaves):
            kind = "scan" if what else "reduce"
            msg = (f"The number of components of the initial state and the {kind} "
                   f"function output does not match. (initial_state={len(old_leaves)}, "
                   f"output={len(new_leaves)}).")
            if what:
                raise TypeError(what + msg)
            raise errors.InvalidArgumentError(None, None, msg)
        # TensorFlow compares classes, then dtypes, of the whole state, and
        # names both structures when they differ.
        if any(S.value_class(a) is not S.value_class(b) for a, b in zip(old_leaves, new_leaves)):
            raise TypeError(f"{what}The element classes for the new state must match the "
                            f"initial state. Expected "
                            f"{nest.map_structure(S.value_class, state_spec)}{sep} "
                            f"{nest.map_structure(S.value_class, new_spec)}.")
        if any(_leaf_dtype(a) != _leaf_dtype(b) for a, b in zip(old_leaves, new_leaves)):
            raise TypeError(f"{what}The element types for the new state must match the "
                            f"initial state. Expected {nest.map_structure(_leaf_dtype, state_spec)}"
                            f"{sep} {nest.map_structure(_leaf_dtype, new_spec)}.")
        relaxed, final = [], []
        changed = False
        for old, new in zip(old_leaves, new_leaves):
            if isinstance(old, S.CompositeSpec):
                if old != new:
                    raise TypeError(f"{what}The new state must have the same types as the "
                                    f"initial state. Expected {old!r}, got {new!r}.")
                relaxed.append(old)
                final.append(new)      # e.g. a TensorArray whose element shape became known
                continue
            if isinstance(old, TensorSpec):
                if not new.shape.is_subtype_of(old.shape):
                    changed = True
                    old = TensorSpec(old.shape.most_specific_compatible_shape(new.shape),
                                     old.dtype)
            elif S.is_type_spec(old) and not new.is_subtype_of(old):
                common = old.most_specific_common_supertype([new])
                if common is None:
                    raise TypeError(f"{what}The new state must have the same types as the "
                                    f"initial state. Expected {old!r}, got {new!r}.")
                changed = True
                old = common
            relaxed.append(old)
            final.append(old)
        if not changed:
            return f, nest.pack_sequence_as(state_spec, final)
        state_spec = nest.pack_sequence_as(state_spec, relaxed)
    raise TypeError(f"{what}The state shapes do not converge.")


def _leaf_dtype(leaf):
    # Datasets and template composites have none: they are compared by spec.
    return getattr(leaf, "dtype", None)


def restart_random_streams(node):
    """Restarts the stateful random ops of every function of the runtime
    dataset `node` (and of a DatasetFunction given instead): TensorFlow
    instantiates a dataset's functions, kernels included, anew for each
    iterator and each ReduceDataset run, so with a seed each iterator replays
    the same numbers (Keras' shuffled epochs each make a new iterator over
    one dataset whose map calls tf.random.shuffle). Functions of the
    datasets a function builds (flat_map, interleave) are found through its
    graph. Iterating one dataset again within an iterator (repeat) keeps
    the streams going, as TensorFlow's kernels do."""
    seen = set()
    todo = [node]
    while todo:
        v = todo.pop()
        if isinstance(v, (list, tuple)):
            todo.extend(v)
        elif isinstance(v, R.Node) and id(v) not in seen:
            seen.add(id(v))
            for cls in type(v).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    todo.append(getattr(v, slot, None))
        elif isinstance(v, DatasetFunction):
            seeding.restart_random_streams(v.graph)
