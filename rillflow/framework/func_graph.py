"""FuncGraph: the graph a Python function (or a branch or loop body) is traced into.

Arguments become placeholders; tensors from outside (eager tensors,
variable handles, tensors of an enclosing function graph) are captured as
extra placeholders whose values are supplied at call time
(`captured_inputs`). Stateful ops are chained in program order with
control edges (automatic control dependencies).
"""
import numpy as np

from . import context as _context
from . import dtypes as D
from . import nest
from .errors import InaccessibleTensorError
from .execute import placeholder
from .graph import Graph
from .tensor import EagerTensor, SymbolicTensor, Tensor
from .tensor_shape import TensorShape
from .convert import convert_to_tensor
from .execute import apply1
from .op_registry import get as _get_op
from .tensor_spec import TensorSpec

__all__ = ["FuncGraph", "trace_function"]

_state = _context.state


def _out_of_scope_message(tensor):
    """TensorFlow's message for a tensor of a graph that is not an enclosing
    one (leaked from another function, say), with where it was defined."""
    src = tensor.graph
    where = ("FuncGraph(name=%s, id=%d)" % (src.name, id(src))
             if getattr(src, "is_function_graph", False) else repr(src))
    loc = tensor.op.location
    defined = "" if loc is None else '    File "%s", line %d, in %s\n' % (
        loc.filename, loc.lineno, loc.name)
    return (f"{tensor!r} is out of scope and cannot be used here. Use return values, explicit "
            f"Python locals or TensorFlow collections to access it.\nPlease see "
            f"https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_"
            f"return_values for more information.\n\n{tensor!r} was defined here:\n"
            f"{defined}\nThe tensor {tensor!r} cannot be accessed from here, because it was "
            f"defined in {where}, which is out of scope.")


class FuncGraph(Graph):
    """A graph traced from a Python function, with inputs, captures and outputs."""

    is_function_graph = True

    def __init__(self, name, outer_graph=None):
        super().__init__()
        self.name = name
        self.function_name = name
        self.inputs = []
        self.outputs = []
        self.structured_outputs = None
        self.structured_input_signature = None
        self.outer_graph = outer_graph
        # tf.function(jit_compile=True): ops traced here follow XLA's rules
        # where TensorFlow's CPU kernels refuse (grouped and NCHW convolutions).
        self.jit_compile = False
        # The function's jit_compile argument (None, True or False): whether
        # it runs as one XLA computation (compiler/xla_compile.py).
        self.jit_compile_option = None
        self._captures = {}          # id(external) -> (external, internal)
        self._capture_order = []
        self._last_stateful = None
        self.variables = []          # variables whose handles are captured
        self.seed = None

    @property
    def building_function(self):
        """Always True for a function graph."""
        return True

    # --- captures -----------------------------------------------------------
    @property
    def captures(self):
        """(external, internal) pairs of captured tensors, in capture order."""
        return [self._captures[k] for k in self._capture_order]

    @property
    def external_captures(self):
        """The captured outside values, in order."""
        return [self._captures[k][0] for k in self._capture_order]

    @property
    def internal_captures(self):
        """The placeholders standing for captured values, in order."""
        return [self._captures[k][1] for k in self._capture_order]

    def capture(self, tensor, name=None):
        """Returns the placeholder standing for an outside tensor in this graph.

        Eager tensors and tensors of the enclosing graph are captured
        directly; tensors of graphs further out are first captured by the
        enclosing graph. A gradient graph may also capture tensors of its
        forward graph (`forward_graph`).

        Raises:
          TypeError: for a tensor of a graph that is not an enclosing one
            (TensorFlow's "... is out of scope and cannot be used here").
        """
        key = id(tensor)
        found = self._captures.get(key)
        if found is not None:
            return found[1]
        if isinstance(tensor, SymbolicTensor):
            src = tensor.graph
            if src is self:
                return tensor
            if src is not getattr(self, "forward_graph", None) and src is not self.outer_graph:
                if self.outer_graph is None or not hasattr(self.outer_graph, "capture") or \
                        not self._reachable(src):
                    if self._nests(src):
                        # A tensor of a loop body or branch traced inside this
                        # graph (or one enclosing it), used where it does not
                        # exist: TensorFlow's InaccessibleTensorError.
                        raise InaccessibleTensorError(_out_of_scope_message(tensor))
                    err = TypeError(_out_of_scope_message(tensor))
                    # TensorFlow raises it when the function runs, so its
                    # message does not read "in user code:".
                    err._not_user_code_error = True
                    raise err
                tensor = self.outer_graph.capture(tensor)
                key = id(tensor)
                found = self._captures.get(key)
                if found is not None:
                    return found[1]
        elif not isinstance(tensor, EagerTensor):
            raise TypeError(f"Cannot capture {tensor!r}")
        with _context.graph_mode(self), self.control_dependencies(None), \
                self.name_scope(None):
            if tensor.dtype is D.resource:
                base = "%s_handle" % getattr(tensor._v, "name", "resource") \
                    if isinstance(tensor, EagerTensor) else "resource"
            else:
                base = name or (tensor.op.name if isinstance(tensor, SymbolicTensor)
                                else "Const")
            ph = placeholder(tensor.dtype, tensor.shape, name=_clean(base))
        if isinstance(tensor, SymbolicTensor):
            ph._const = tensor._const
        elif tensor.dtype is not D.resource and getattr(tensor._v, "size", 2000) <= 1000:
            ph._const = tensor._v  # eager values are immutable: known while building
        self._captures[key] = (tensor, ph)
        self._capture_order.append(key)
        self.inputs.append(ph)
        return ph

    def _nests(self, graph):
        """Whether `graph` is nested (at any depth) in this graph or in one
        that encloses it, without being one of them."""
        enclosing = set()
        g = self
        while g is not None:
            enclosing.add(id(g))
            g = getattr(g, "outer_graph", None)
        if id(graph) in enclosing:
            return False
        g = getattr(graph, "outer_graph", None)
        while g is not None:
            if id(g) in enclosing:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def _reachable(self, graph):
        """Whether tensors of `graph` can be captured through enclosing graphs."""
        g = self
        while g is not None:
            if g is graph or getattr(g, "forward_graph", None) is graph:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def _encloses(self, graph):
        g = self.outer_graph
        while g is not None:
            if g is graph:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def capture_variable(self, variable):
        """Records that the function uses `variable` (for `.variables`)."""
        if not any(v is variable for v in self.variables):
            self.variables.append(variable)

    # --- automatic control dependencies ------------------------------------
    def _on_op_created(self, op):
        if op.opdef.stateful:
            last = self._last_stateful
            if last is not None and last not in op.control_inputs and not any(
                    t.op is last for t in op.inputs):
                op.control_inputs.append(last)
            self._last_stateful = op

    def _control_from_outer(self, op):
        # Ops of enclosing graphs have already run when this function runs.
        return None

    def __repr__(self):
        return "<FuncGraph %s>" % self.name


def _clean(name):
    out = "".join(c if c.isalnum() or c in "_.-/" else "_" for c in str(name))
    if not out or not (out[0].isalnum() or out[0] == "."):
        out = "arg" + out
    return out


def in_jit_compile_scope():
    """True while tracing inside a `tf.function(jit_compile=True)` (at any
    depth: XLA compiles the functions and branches it calls as well)."""
    g = _context.state.graph
    while g is not None:
        if getattr(g, "jit_compile", False):
            return True
        g = getattr(g, "outer_graph", None)
    return False


def trace_function(name, python_func, args, kwargs, arg_names=None, outer_graph=None,
                   add_identities=True, jit_compile=False):
    """Traces `python_func(*args, **kwargs)` into a new FuncGraph.

    Tensor-like leaves of `args`/`kwargs` (TensorSpecs, tensors) become
    placeholders named after their parameter; other leaves are passed as
    they are. Returns the FuncGraph with `inputs`, `outputs` and
    `structured_outputs` set.
    """
    fg = FuncGraph(name, outer_graph=outer_graph)
    fg.jit_compile = bool(jit_compile)
    fg.jit_compile_option = jit_compile
    with _context.graph_mode(fg, hide_tapes=True):
        placeholders = []

        def to_placeholder(value, pname):
            if isinstance(value, TensorSpec):
                ph = placeholder(value.dtype, value.shape, name=_clean(value.name or pname))
            elif isinstance(value, Tensor):
                ph = placeholder(value.dtype, value.shape, name=_clean(pname))
            elif isinstance(value, (np.ndarray, np.generic)):
                ph = placeholder(D.from_numpy(value.dtype), TensorShape(value.shape),
                                 name=_clean(pname))
            elif hasattr(value, "_storage") and hasattr(value, "_as_argument"):
                ph = placeholder(D.resource, TensorShape([]), name=_clean(pname))
                placeholders.append(ph)
                return value._as_argument(ph)
            elif hasattr(value, "_component_specs"):
                # A composite (e.g. a Dataset): one placeholder per component.
                specs = value._component_specs  # a method, or a spec's property
                phs = [placeholder(sp.dtype, sp.shape, name=_clean(pname))
                       for sp in (specs() if callable(specs) else specs)]
                placeholders.extend(phs)
                return value._from_components(phs)
            else:
                return value
            placeholders.append(ph)
            return ph

        new_args = []
        for i, a in enumerate(args):
            pname = arg_names[i] if arg_names and i < len(arg_names) else "args_%d" % i
            new_args.append(_map_leaves(a, pname, to_placeholder))
        new_kwargs = {k: _map_leaves(v, k, to_placeholder) for k, v in kwargs.items()}
        fg.inputs = list(placeholders)
        result = python_func(*new_args, **new_kwargs)
        flat = nest.flatten(result)
        outs = []
        def output_tensor(v):
            if not isinstance(v, Tensor):
                try:
                    v = convert_to_tensor(v)
                except (TypeError, ValueError):
                    raise TypeError(
                        "To be compatible with tf.function, Python functions must return zero "
                        "or more Tensors or ExtensionTypes or None values; in compilation of "
                        f"{python_func}, found return value of type {type(v).__name__}, which "
                        "is not a Tensor or ExtensionType.") from None
            if isinstance(v, EagerTensor) or v.graph is not fg:
                v = fg.capture(v)
            if add_identities:
                v = apply1(_get_op("Identity"), v, name="Identity")
            return v

        structured = []
        for v in flat:
            hook = OUTPUT_CONVERSION[0]
            if hook is not None and v is not None and not isinstance(v, Tensor) and \
                    not hasattr(v, "_to_components"):
                try:
                    v = hook(v)
                except (TypeError, ValueError):
                    pass  # output_tensor reports it as TensorFlow does
            if v is None:
                outs.append(None)
                structured.append(None)
            elif hasattr(v, "_to_components") and not isinstance(v, Tensor):
                comps = [output_tensor(c) for c in v._to_components()]
                outs.extend(comps)
                structured.append(CompositeOutput(v, comps))
            else:
                t = output_tensor(v)
                outs.append(t)
                structured.append(t)
        fg.outputs = [t for t in outs if t is not None]
        fg.structured_outputs = nest.pack_sequence_as(result, structured) \
            if nest.is_nested(result) else (structured[0] if structured else None)
        fg.structured_input_signature = (tuple(new_args), new_kwargs)
    return fg


# Filled by ops/numpy/np_weak.py when TensorFlow's auto dtype conversion is
# enabled: converts a Python value returned by a traced function (to a weak
# tensor), as TensorFlow's wrapped convert_to_tensor_or_composite does.
OUTPUT_CONVERSION = [None]


class CompositeOutput:
    """A composite value (TensorArray, Dataset) returned by a traced function:
    its components are graph outputs; `rebuild` makes the value from theirs."""

    def __init__(self, template, components):
        self.template = template
        self.components = components

    @property
    def _arg_spec(self):
        # The type a ConcreteFunction prints for this output (a SparseTensorSpec).
        return getattr(self.template, "_arg_spec", None)

    def rebuild(self, values):
        """The composite holding the given component values."""
        return self.template._from_components(list(values))

    def __repr__(self):
        if hasattr(self.template, "_trace_key") and len(self.components) == 3:
            # A SparseTensor: shown with its output tensors, as TensorFlow does.
            return repr(self.rebuild(self.components))
        return repr(self.template)


def _map_leaves(value, pname, fn):
    """Applies `fn(leaf, name)` to each leaf; names are `pname`, `pname_1`, ..."""
    if not nest.is_nested(value):
        return fn(value, pname)
    flat = nest.flatten(value)
    return nest.pack_sequence_as(value, [fn(v, pname) for v in flat])
