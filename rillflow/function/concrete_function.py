"""ConcreteFunction: one traced graph of a `tf.function`, compiled and callable.

Calling it eagerly runs the compiled Python code of its graph: unwrap the
argument values, append the captured values, call, wrap the outputs. Inside
another function being traced, a call becomes one `StatefulPartitionedCall`
(or `PartitionedCall`) op. Under an active GradientTape the call is
recorded as one op whose gradient runs the function's backward graph.
"""
import inspect
import itertools

import numpy as np

from ..compiler import runtime_errors
from ..compiler.xla_compile import compile_function_graph
from ..framework import blas_threads
from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import core_types, errors, nest
from ..framework.convert import aligned_copy, convert_to_tensor
from ..framework.func_graph import CompositeOutput
from ..framework.execute import apply
from ..framework.op_registry import register, set_lowering
from ..framework.tensor import EagerTensor, SymbolicTensor, Tensor
from ..framework.tensor_spec import TensorSpec
from .function_type import FunctionType as _FunctionType, _Constraint, type_str

__all__ = ["ConcreteFunction"]

_state = _context.state
_ids = itertools.count(1)

# Differentiating calls (function_gradients.py) builds on this module: the
# gradient of a function is itself a ConcreteFunction. So that this module
# need not import it, it installs its entry points here when imported (the
# package's __init__ imports it), with the gradient of the call ops below.
_function_gradient = None   # cf -> its FunctionGradient
_call_with_tape = None      # (cf, flat args) -> outputs recorded on the tapes, or None


def install_gradients(function_gradient, call_with_tape):
    """Installs the differentiation of calls: `function_gradient(cf)` builds
    the FunctionGradient of `cf`, and `call_with_tape(cf, flat_args)` runs an
    eager call recorded on the active tapes (None when no tape records it)."""
    global _function_gradient, _call_with_tape
    _function_gradient = function_gradient
    _call_with_tape = call_with_tape


def _wrap(v):
    if v is None:
        return None
    if v.__class__ is np.ndarray or isinstance(v, np.generic) or hasattr(v, "dtype"):
        return EagerTensor(v)
    if isinstance(v, (bytes, str)):
        a = np.empty((), dtype=object)
        a[()] = v.encode() if isinstance(v, str) else v
        return EagerTensor(a)
    return EagerTensor(np.asarray(v))


def _runtime_value(x):
    """The value a compiled graph receives for an argument or capture."""
    if x.__class__ is EagerTensor:
        return x._v
    storage = getattr(x, "_storage", None)
    if storage is not None:  # a variable passed as an argument
        return storage
    if isinstance(x, EagerTensor):  # a variable handle
        return x._v
    if isinstance(x, (np.ndarray, np.generic)):
        # A writable array is the caller's: the call works on a copy, as
        # TensorFlow converts it (an output must not alias it).
        return aligned_copy(x) if isinstance(x, np.ndarray) and x.flags.writeable else x
    return convert_to_tensor(x)._v


class ConcreteFunction(core_types.ConcreteFunction):
    """A single traced graph of a Function, with a fixed input signature."""

    def __init__(self, func_graph, param_names=None, function_spec=None):
        self.graph = func_graph
        self._func_graph = func_graph
        self._param_names = list(param_names or [])
        self._function_spec = function_spec
        self._name = "__inference_%s_%d" % (func_graph.name, next(_ids))
        func_graph.function_name = self._name
        self._compiled = None
        self._capture_values = None
        self._grad = None  # FunctionGradient, built on first differentiation
        n_args = len(func_graph.inputs) - len(func_graph.captures)
        self._num_args = n_args

    # --- introspection ------------------------------------------------------
    @property
    def name(self):
        """The function's unique name, e.g. `__inference_f_12`."""
        return self._name

    @property
    def function_name(self):
        """Same as `name` (the graph library entry)."""
        return self._name

    @property
    def inputs(self):
        """The graph's input placeholders (arguments, then captures)."""
        return list(self.graph.inputs)

    @property
    def outputs(self):
        """The graph's output tensors (flat)."""
        return list(self.graph.outputs)

    @property
    def structured_outputs(self):
        """The outputs in the structure the Python function returned."""
        return self.graph.structured_outputs

    @property
    def output_shapes(self):
        """The static shapes of the outputs, in their structure."""
        return nest.map_structure(lambda t: t.shape, self.graph.structured_outputs)

    @property
    def output_dtypes(self):
        """The dtypes of the outputs, in their structure."""
        return nest.map_structure(lambda t: t.dtype, self.graph.structured_outputs)

    @property
    def structured_input_signature(self):
        """`(args, kwargs)` with a TensorSpec for each tensor argument."""
        args, kwargs = self.graph.structured_input_signature

        def spec(v):
            if isinstance(v, SymbolicTensor):
                return TensorSpec(v.shape, v.dtype, name=v.op.name)
            return getattr(v, "_arg_spec", v)
        return (tuple(nest.map_structure(spec, list(args))),
                {k: nest.map_structure(spec, v) for k, v in kwargs.items()})

    @property
    def captured_inputs(self):
        """The outside tensors (and variable handles) the function captured."""
        return list(self.graph.external_captures)

    @property
    def variables(self):
        """The variables the function uses."""
        return tuple(self.graph.variables)

    @property
    def trainable_variables(self):
        """The trainable variables the function uses."""
        return tuple(v for v in self.graph.variables if v.trainable)

    @property
    def function_type(self):
        """The FunctionType: the input parameters with their types and the
        output type. `str()` is the one-line `(a: TensorSpec(...)) -> ...`,
        `repr()` the listing of `pretty_printed_signature()`."""
        return self._function_type()

    @property
    def inference_fn(self):
        """The AtomicFunction that runs this function's graph on flat inputs."""
        fn = self.__dict__.get("_inference_fn")
        if fn is None:
            fn = self._inference_fn = AtomicFunction(self)
        return fn

    def _parameters(self):
        """(name, kind) of each input parameter, as TensorFlow's FunctionType
        lists them: positional ones become POSITIONAL_ONLY when the function
        takes `*args`."""
        args, kwargs = self.structured_input_signature
        names = self._param_names or ["args_%d" % i for i in range(len(args))]
        var_pos = getattr(self._function_spec, "has_var_positional", False)
        kind = "POSITIONAL_ONLY" if var_pos else "POSITIONAL_OR_KEYWORD"
        return [(n, kind) for n, _ in zip(names, args)] + [(k, "KEYWORD_ONLY") for k in kwargs]

    def _typed_signature(self):
        """`(args, kwargs)` of the structured input signature as the
        FunctionType constrains them: TensorSpecs without names, except the
        names given in an input_signature (as in TensorFlow)."""
        args, kwargs = nest.map_structure(_unnamed, self.structured_input_signature)
        given = getattr(self._function_spec, "input_signature", None)
        if given:
            n = len(given)
            named = []
            for spec, arg in zip(given, args[:n]):
                try:
                    named.append(nest.map_structure(
                        lambda s, a: a if type(a) is not TensorSpec or
                        not isinstance(s, TensorSpec) else TensorSpec(a.shape, a.dtype,
                                                                      name=s.name),
                        spec, arg))
                except (TypeError, ValueError):
                    named.append(arg)
            args = tuple(named) + tuple(args[n:])
        return args, kwargs

    def pretty_printed_signature(self, verbose=True):
        """A readable description of inputs, outputs and captures; with
        `verbose=False` the one-line `(x: TensorSpec(...), ...) -> ...` form."""
        ftype = self._function_type()
        return ftype.pretty_printed() if verbose else str(ftype)

    def __repr__(self):
        # TensorFlow shows the one-line signature, not the function's name.
        return "<ConcreteFunction %s at 0x%X>" % (self.pretty_printed_signature(verbose=False),
                                                  id(self))

    def __str__(self):
        return "ConcreteFunction %s" % self.pretty_printed_signature()

    # --- compiled code ---------------------------------------------------------
    def _ensure_compiled(self):
        if self._compiled is None:
            g = self.graph
            # XLA for jit_compile=True (xla_compile.py), else rillflow's code.
            self._compiled = compile_function_graph(g, g.inputs, g.outputs, name=g.name)
            caps = g.external_captures
            # Captured tensors of an enclosing function being traced have no
            # value yet; such a function only runs as a call op inside it.
            self._capture_values = None if any(
                isinstance(t, SymbolicTensor) for t in caps) else tuple(
                _runtime_value(t) for t in caps)
        return self._compiled

    @property
    def generated_source(self):
        """The Python source the graph was compiled to."""
        return self._ensure_compiled().source

    def pretty_printed_source(self):
        """The generated Python source (same as `generated_source`)."""
        return self.generated_source

    # --- calling -----------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """Calls the function with arguments matching its signature.

        As in TensorFlow, the call is bound to the structured signature
        first (Python values must equal the traced ones), then to the flat
        signature of its tensor inputs.

        Raises:
          TypeError: for arguments fitting neither signature.
          InvalidArgumentError: for a tensor of the wrong dtype.
        """
        try:
            flat = self._bind(args, kwargs)
        except TypeError as structured_err:
            try:
                flat = self._bind_flat(args, kwargs)
            except (TypeError, ValueError) as flat_err:
                # Raised while handling both (TensorFlow shows the chain).
                raise TypeError(f"{structured_err}\nFallback to flat signature also failed "
                                f"due to: {flat_err}")
        return self._call_flat(flat)

    def _function_type(self):
        """The structured signature as a FunctionType-like inspect.Signature:
        each parameter constrained to its traced type, Python values to
        their traced value."""
        ftype = getattr(self, "_ftype", None)
        if ftype is None:
            # As TensorFlow's FunctionType: specs without the placeholders' names.
            args, kwargs = self._typed_signature()
            params = []
            for (n, k), v in zip(self._parameters(), list(args) + list(kwargs.values())):
                literal = not any(isinstance(x, TensorSpec) or hasattr(x, "_arg_spec") or
                                  type(x).__name__ == "VariableSpec" for x in nest.flatten(v))
                params.append(inspect.Parameter(n, getattr(inspect.Parameter, k),
                                                annotation=_Constraint(v, literal=literal)))
            caps = [(id(ext), type_str(internal)) for ext, internal in self.graph.captures]
            ftype = self._ftype = _FunctionType.from_parameters(
                params, type_str(self.structured_outputs), caps)
        return ftype

    def _bind(self, args, kwargs):
        """Flat tensor arguments for a call bound to the structured signature."""
        bound = self._function_type().bind(args, kwargs)
        sig_args, sig_kwargs = self.graph.structured_input_signature
        names = self._param_names
        flat = []
        values = list(bound.values())
        for pos, expected in enumerate(sig_args):
            self._flatten_arg(expected, values[pos], flat, names[pos] if pos < len(names)
                              else pos)
        for k, expected in sig_kwargs.items():
            self._flatten_arg(expected, bound[k], flat, k)
        return flat

    def _arg_keywords(self):
        return [t.op.name for t in self.graph.inputs[:self._num_args]]

    def _flat_signature_summary(self):
        return f"{self.graph.name}({', '.join(self._arg_keywords())})"

    def _bind_flat(self, args, kwargs):
        """The call bound to the flat signature (one tensor per graph input),
        with TensorFlow's messages."""
        keywords = self._arg_keywords()
        summary = self._flat_signature_summary()
        if len(args) > len(keywords):
            raise TypeError(f"{summary} takes {len(keywords)} positional arguments, got "
                            f"{len(args)}.")
        args, kwargs = list(args), dict(kwargs)
        for keyword in keywords[len(args):]:
            if keyword not in kwargs:
                specified = keywords[:len(args)] + list(kwargs)
                missing = sorted(set(keywords) - set(specified))
                raise TypeError(f"{summary} missing required arguments: {', '.join(missing)}.")
            args.append(kwargs.pop(keyword))
        if kwargs:
            for unused in kwargs:
                if unused in keywords[:len(args)]:
                    raise TypeError(f"{summary} got two values for '{unused}'.")
            raise TypeError(f"{summary} got unexpected keyword arguments: "
                            f"{', '.join(sorted(kwargs))}.")
        flat = []
        for i, (arg, ph) in enumerate(zip(args, self.graph.inputs)):
            if not isinstance(arg, Tensor) and not hasattr(arg, "_storage"):
                raise TypeError(f"{summary}: expected argument #{i}(zero-based) to be a "
                                f"Tensor; got {type(arg).__name__} ({arg}).")
            if ph.dtype is not D.resource:
                self._flatten_arg(ph, arg, flat, ph.op.name)
            else:
                flat.append(arg)
        return flat

    def _flatten_arg(self, expected, given, flat, pname):
        exp_leaves = nest.flatten(expected)
        try:
            nest.assert_same_structure(expected, given, check_types=False)
        except (ValueError, TypeError):
            if not (len(exp_leaves) == 1 and isinstance(exp_leaves[0], Tensor)):
                raise TypeError(f"Argument {pname!r} of {self.graph.name}() has structure "
                                f"{given!r}, expected {expected!r}") from None
            given = [given]
            expected = [expected]
        for e, g in zip(nest.flatten(expected), nest.flatten(given)):
            if isinstance(e, SymbolicTensor):
                if e.dtype is D.resource:
                    flat.append(g)
                    continue
                t = g if isinstance(g, Tensor) else convert_to_tensor(
                    g, dtype_hint=e.dtype) if not hasattr(g, "_dense_var_to_tensor") else \
                    g._dense_var_to_tensor()
                if t.dtype is not e.dtype:
                    raise errors.InvalidArgumentError(
                        None, None, f"cannot compute {self._name} as input #{len(flat)}"
                        f"(zero-based) was expected to be a {_runtime_name(e.dtype)} tensor "
                        f"but is a {_runtime_name(t.dtype)} tensor [Op:{self._name}]")
                if not e.shape.is_compatible_with(t.shape):
                    raise TypeError(f"Argument {pname!r}: shape {t.shape} is incompatible with "
                                    f"the traced shape {e.shape} of {self.graph.name}()")
                flat.append(t)
            elif getattr(e, "_is_composite_tensor", False) or (
                    hasattr(e, "_component_specs") and not isinstance(e, Tensor)):
                # A composite (ExtensionType, RaggedTensor, SparseTensor...): the
                # graph has one placeholder per component, so pass the given
                # value's components.
                attr = "_type_spec" if hasattr(e, "_type_spec") else "_arg_spec"
                want, spec = getattr(e, attr), getattr(g, attr, None)
                if spec is None or not want.is_compatible_with(spec):
                    raise TypeError(f"Argument {pname!r} of {self.graph.name}() expected "
                                    f"{want!r}, got {g!r}")
                flat.extend(g._to_components())
            elif hasattr(e, "_arg_spec"):
                flat.append(g)
            else:
                if not _python_equal(e, g):
                    raise TypeError(f"Argument {pname!r} of {self.graph.name}() was traced with "
                                    f"the Python value {e!r}; got {g!r}")

    def _call_flat(self, flat_args):
        """Runs the function on flat tensor (and variable) arguments."""
        if _state.graph is not None:
            return self._call_in_graph(flat_args)
        compiled = self._compiled or self._ensure_compiled()
        if blas_threads.ENABLED:
            blas_threads.check()     # the load decides OpenBLAS's threads (opt-in)
        if _state.tapes:
            recorded = self._call_recorded(flat_args)
            if recorded is not None:
                return recorded
        vals = [a._v if a.__class__ is EagerTensor else _runtime_value(a) for a in flat_args]
        try:
            outs = compiled.fn(*vals, *self._capture_values)
        except Exception as e:
            raise runtime_errors.translate(e).with_traceback(None) from None
        return self._pack([_wrap(v) for v in outs])

    def _pack(self, flat_outs):
        structured = self.graph.structured_outputs
        if structured is None:
            return None
        if not nest.is_nested(structured):
            if isinstance(structured, CompositeOutput):
                return structured.rebuild(flat_outs)
            return flat_outs[0]
        it = iter(flat_outs)
        leaves = []
        for leaf in nest.flatten(structured):
            if leaf is None:
                leaves.append(None)
            elif isinstance(leaf, CompositeOutput):
                leaves.append(leaf.rebuild([next(it) for _ in leaf.components]))
            else:
                leaves.append(next(it))
        return nest.pack_sequence_as(structured, leaves)

    def _gradient(self):
        """The FunctionGradient of this function (built on first use)."""
        if self._grad is None:
            self._ensure_compiled()
            self._grad = _function_gradient(self)
        return self._grad

    def _call_recorded(self, flat_args):
        return _call_with_tape(self, flat_args)

    def _call_in_graph(self, flat_args):
        g = _state.graph
        ins = []
        for a, ph in zip(flat_args, self.graph.inputs):
            if ph.dtype is D.resource and hasattr(a, "_graph_handle"):
                ins.append(a._graph_handle())
            else:
                ins.append(convert_to_tensor(a))
        for ext in self.graph.external_captures:
            ins.append(convert_to_tensor(ext) if not isinstance(ext, SymbolicTensor)
                       or ext.graph is g else g.capture(ext))
        for v in self.graph.variables:
            if hasattr(g, "capture_variable"):
                g.capture_variable(v)
        for tape in _state.tapes:
            for v in self.graph.variables:
                tape._variable_accessed(v)
        opdef = _StatefulCall if _has_stateful(self.graph) else _Call
        outs = apply(opdef, ins, {"f": self, "Tout": [t.dtype for t in self.graph.outputs]},
                     name=opdef.name, multi=True)
        return self._pack(outs)


# TensorFlow's runtime spelling of dtypes (DataTypeString) in its messages.
_RUNTIME_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _runtime_name(dtype):
    return _RUNTIME_NAMES.get(dtype.name, dtype.name)


def _python_equal(a, b):
    try:
        return bool(a == b) if not isinstance(a, Tensor) else a is b
    except Exception:
        return a is b


def _has_stateful(graph):
    return any(op.opdef.stateful for op in graph.get_operations())


def _unnamed(v):
    return TensorSpec(v.shape, v.dtype) if type(v) is TensorSpec else v


class AtomicFunction(core_types.AtomicFunction):
    """One graph function called with flat tensor inputs
    (`ConcreteFunction.inference_fn`): no binding of structured arguments."""

    def __init__(self, concrete):
        self._concrete = concrete

    @property
    def name(self):
        """The function's name in the graph library, as bytes."""
        return self._concrete.name.encode()

    @property
    def function_type(self):
        """The FunctionType of the concrete function it runs."""
        return self._concrete.function_type

    @property
    def graph(self):
        """The function's graph."""
        return self._concrete.graph

    @property
    def cached_definition(self):
        """The function's graph (rillflow keeps no separate FunctionDef)."""
        return self._concrete.graph

    def __call__(self, *args):
        """Runs the graph on its flat inputs; returns the structured outputs."""
        return self._concrete._call_flat(list(args))

    def call_flat(self, *args):
        """Runs the graph on its flat inputs; returns the flat outputs."""
        return nest.flatten(self._concrete._call_flat(list(args)))

    def call_with_captures(self, args, kwargs, captures):
        """Runs the graph on flat `args` (the traced captures are used)."""
        return self(*args)

    def __str__(self):
        return "<AtomicFunction> %s%s" % (self._concrete.name, self.function_type)

    def __repr__(self):
        return ("AtomicFunction(name=%r,\nfunction_type=%r,\nchildren=[],\n"
                "cached_graph=FuncGraph(name=%s, id=%d))" % (
                    self.name, self.function_type, self.graph.name, id(self.graph)))


# --- the call op -------------------------------------------------------------

def _call_kernel(*vals, f, Tout=None, _with_intermediates=False):
    compiled = f._ensure_compiled()
    if _with_intermediates:
        return list(f._gradient().forward_compiled.fn(*vals))
    return list(compiled.fn(*vals))


def _call_infer(inputs, attrs):
    f = attrs["f"]
    specs = [(t.shape, t.dtype) for t in f.graph.outputs]
    if attrs.get("_with_intermediates"):
        specs += [(t.shape, t.dtype) for t in f._gradient().intermediates]
    return specs


# Their gradient is set by function_gradients.py (see install_gradients).
_Call = register("PartitionedCall", _call_kernel, _call_infer, no_fold=True)
_StatefulCall = register("StatefulPartitionedCall", _call_kernel, _call_infer,
                         stateful=True)


def _lower_call(ctx, op, *ins):
    """A call of a traced function, lowered in place (XLA inlines calls):
    its graph takes the arguments and then the captured values."""
    f = op.attrs["f"]
    outputs = list(f.graph.outputs)
    if op.attrs.get("_with_intermediates"):
        outputs += list(f._gradient().intermediates)
    return ctx.call(f.graph, list(ins), outputs)


set_lowering("PartitionedCall", _lower_call)
set_lowering("StatefulPartitionedCall", _lower_call)
