"""Function graphs to JSON-safe data and back (rillflow's import_graph_def).

`GraphWriter` turns ConcreteFunctions into a table of graphs and a table of
functions. A graph is its ops in creation order (type, name, input and
control edges, attrs, output shapes and dtypes), its inputs, outputs,
captures and structured signature. Attrs keep everything the op builders
put there, Python-side attrs of control-flow ops included (the While op's
`_body_outs`, `_input_maps`, `_cond_out`, ...): values that are tensors,
ops, graphs, functions or variables are written as references
(`{"tensor": [graph, op, index]}`, `{"graph": id}`, ...), plain values by
values.py.

`GraphReader` rebuilds equivalent FuncGraphs by creating each op through
the op registry with its saved attrs and output specs, and ConcreteFunctions
over them; variables are resolved by a callback. Nothing else is executed:
a file can name only registered ops, and names that become identifiers in
compiled code are checked.
"""
import keyword
import re

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import op_registry
from ..framework.func_graph import CompositeOutput, FuncGraph
from ..framework.graph import Operation
from ..framework.tensor import EagerTensor, SymbolicTensor
from ..function.concrete_function import ConcreteFunction
from ..ops.random.philox import GuardedPhilox
from ..ops.state.variables import ResourceHandle
from . import composites
from . import values as V
from .custom_gradients import SavedGradient, trace_gradient
from .stand_ins import (VariableArgument, composite_kind, composite_template, dataset_function,
                        is_dataset_function, lost_callable, lost_gradient)
from .values import FormatError
from ..ops.state.variables import VariableSpec

__all__ = ["GraphWriter", "GraphReader", "FormatError"]

_NAME = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.\\/>-]*$")


def _check_name(name, what):
    if not isinstance(name, str) or not _NAME.match(name):
        raise FormatError(f"invalid {what} name {name!r}")
    return name


# --- writing ---------------------------------------------------------------------------

class GraphWriter:
    """Collects the graphs of ConcreteFunctions (and everything they refer
    to) as JSON-safe data.

    Args:
      resource_key: `resource_key(storage)` gives the saved key of the
        variable owning a ResourceHandle; it raises for untracked variables.
    """

    def __init__(self, resource_key):
        self._resource_key = resource_key
        self.graphs = []
        self.functions = {}
        self.constants = []
        self._graph_ids = {}
        self._constant_ids = {}
        self._keep = []  # encoded objects stay alive so that ids stay unique
        # id(asset.asset_path) -> the asset's file name: a captured asset
        # path is saved as a reference to the asset (re-pointed on load).
        self.asset_names = {}

    def add_function(self, cf):
        """Adds `cf` (and the functions it calls); returns its saved name."""
        name = cf.name
        if name not in self.functions:
            self.functions[name] = None  # reserved: a call cycle cannot recurse
            gid = self._graph(cf.graph)
            self.functions[name] = {"graph": gid, "params": list(cf._param_names)}
        return name

    def to_json(self):
        """`{"graphs": [...], "functions": {...}, "constants": [...]}`."""
        graphs = [g for g in self._keep if isinstance(g, FuncGraph)]
        for g, entry in zip(graphs, self.graphs):
            outer = getattr(g, "outer_graph", None)
            entry["outer"] = self._graph_ids.get(id(outer)) if outer is not None else None
        return {"graphs": self.graphs, "functions": self.functions,
                "constants": self.constants}

    # --- graphs ---------------------------------------------------------------
    def _graph(self, g):
        gid = self._graph_ids.get(id(g))
        if gid is not None:
            return gid
        if not isinstance(g, FuncGraph):
            raise TypeError(f"cannot save graph {g!r}: only function graphs are saved")
        gid = self._graph_ids[id(g)] = len(self.graphs)
        entry = {"name": g.name}
        self.graphs.append(entry)
        self._keep.append(g)
        entry["ops"] = [self._op(op) for op in g.get_operations()]
        entry["inputs"] = [self._local(t) for t in g.inputs]
        entry["outputs"] = [self._local(t) for t in g.outputs]
        entry["captures"] = [[self._external(ext), self._local(internal)]
                             for ext, internal in g.captures]
        entry["variables"] = [self._resource_key(v._storage) for v in g.variables]
        sig = g.structured_input_signature
        try:
            entry["structured_outputs"] = self._value(g.structured_outputs)
            entry["structured_input_signature"] = None if sig is None else self._value(
                (tuple(sig[0]), dict(sig[1])))
        except TypeError as e:
            raise ValueError(f"Cannot save function '{g.name}': its arguments or results "
                             f"hold a value that is not saved: {e}") from None
        entry["seed"] = g.seed
        return gid

    def _op(self, op):
        attrs = {}
        for k, v in op.attrs.items():
            try:
                attrs[k] = self._attr(op, k, v)
            except TypeError as e:
                raise ValueError(f"Cannot save op '{op.name}' ({op.type}) of function "
                                 f"'{op.graph.name}': attr '{k}': {e}") from None
        return {"type": op.type, "name": op.name,
                "inputs": [self._local(t) for t in op.inputs],
                "control": [c.name for c in op.control_inputs if c.graph is op.graph],
                "attrs": attrs, "multi": bool(op.multi), "device": op.device or "",
                "outputs": [[V.encode_shape(t.shape), t.dtype.name] for t in op.outputs]}

    def _attr(self, op, key, v):
        if isinstance(v, GuardedPhilox):
            # A stateful random op's stream: restarted from its seed attrs on
            # load, as a fresh TensorFlow kernel would start.
            return {"rng": None}
        if key == "_grad_fn" and callable(v):
            # tf.custom_gradient's Python function is saved as the graph it
            # builds; one that cannot be traced is lost.
            traced = trace_gradient(op)
            if traced is None:
                return {"lost_gradient": None}
            return {"custom_gradient": [self._graph(traced[0]), traced[1]]}
        try:
            return self._value(v)
        except TypeError:
            if not callable(v):
                raise
            # Python code (tf.py_function's function) is not saved; as in
            # TensorFlow, the op fails when it runs after loading.
            return {"lost_callable": None}

    def _local(self, t):
        return [t.op.name, t.value_index]

    def _external(self, ext):
        if isinstance(ext, EagerTensor):
            if ext.dtype is D.resource:
                return {"resource": self._resource_key(ext._v)}
            asset = self.asset_names.get(id(ext))
            if asset is not None:
                return {"asset": asset}
            # Written once however many functions capture it (a signature
            # wrapper captures what the function it calls captures).
            k = self._constant_ids.get(id(ext._v))
            if k is None:
                k = self._constant_ids[id(ext._v)] = len(self.constants)
                self.constants.append(V.encode_array(ext._v))
                self._keep.append(ext)
            return {"constant": k}
        return self._value(ext)

    def _value(self, v):
        return V.encode(v, self._other)

    def _other(self, v):
        if isinstance(v, SymbolicTensor):
            return {"tensor": [self._graph(v.graph), v.op.name, v.value_index]}
        if isinstance(v, Operation):
            return {"op": [self._graph(v.graph), v.name]}
        if isinstance(v, FuncGraph):
            return {"graph": self._graph(v)}
        if isinstance(v, ConcreteFunction):
            return {"function": self.add_function(v)}
        if is_dataset_function(v):
            return {"dataset_function": [self.add_function(v.concrete),
                                         self._value(v.output_spec)]}
        if isinstance(v, CompositeOutput):
            # An ExtensionType or RaggedTensor result is rebuilt from its spec.
            spec = getattr(v.template, "_type_spec", None)
            kind = composites.encode(spec, self._value) if spec is not None else None
            return {"composite": [kind or composite_kind(v.template),
                                  [self._value(c) for c in v.components]]}
        spec = getattr(v, "_arg_spec", None)
        if spec is not None and hasattr(v, "_storage"):
            # A variable passed as an argument: the trace is keyed by its spec.
            return {"variable_arg": [V.encode_shape(spec.shape), spec.dtype.name,
                                     bool(spec.trainable)]}
        if isinstance(v, ResourceHandle):
            return {"resource": self._resource_key(v)}
        if isinstance(v, EagerTensor):
            return {"eager": V.encode_array(v._v)}
        return composites.encode(v, self._value)


# --- reading ---------------------------------------------------------------------------

class GraphReader:
    """Rebuilds the graphs and ConcreteFunctions written by a GraphWriter.

    Args:
      data: the `to_json()` structure.
      resolve_resource: `resolve_resource(key)` gives the restored Variable.
    """

    def __init__(self, data, resolve_resource):
        if not isinstance(data, dict) or not isinstance(data.get("graphs"), list) or \
                not isinstance(data.get("functions"), dict):
            raise FormatError("malformed function library")
        self._graphs = data["graphs"]
        self._functions = data["functions"]
        self._resolve = resolve_resource
        self._raw_constants = data.get("constants", [])
        if not isinstance(self._raw_constants, list):
            raise FormatError("malformed constants")
        self._constants = {}
        self._built = {}        # graph id -> FuncGraph (possibly still being built)
        self._done = set()
        self._cfs = {}

    def function(self, name, cls=ConcreteFunction):
        """The restored ConcreteFunction saved as `name` (built as a `cls`,
        a ConcreteFunction subclass, when first asked for)."""
        cf = self._cfs.get(name)
        if cf is not None:
            return cf
        entry = self._functions.get(name) if isinstance(name, str) else None
        if not isinstance(entry, dict):
            raise FormatError(f"no saved function {name!r}")
        gid = entry.get("graph")
        params = entry.get("params")
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise FormatError("malformed function parameters")
        g = self._graph(gid)
        if gid not in self._done:
            raise FormatError(f"function {name!r} calls itself")
        cf = self._cfs[name] = cls(g, params)
        return cf

    def finish(self):
        """Links each graph to its enclosing graph (done last: an enclosing
        graph may be built after the graphs nested in it)."""
        for gid, g in self._built.items():
            outer = self._graphs[gid].get("outer")
            if outer is not None:
                g.outer_graph = self._graph(outer)

    def _late_graph(self, gid):
        """A graph built after loading (a custom gradient's), linked to its
        enclosing graphs."""
        g = self._graph(gid)
        self.finish()
        return g

    # --- graphs ---------------------------------------------------------------
    def _graph(self, gid):
        g = self._built.get(gid) if type(gid) is int else None
        if g is not None:
            return g
        if type(gid) is not int or not 0 <= gid < len(self._graphs) or \
                not isinstance(self._graphs[gid], dict):
            raise FormatError(f"no saved graph {gid!r}")
        e = self._graphs[gid]
        name = e.get("name")
        # A graph's name only labels compiled code (sanitized there).
        if not isinstance(name, str) or not name.isprintable():
            raise FormatError(f"invalid graph name {name!r}")
        g = self._built[gid] = FuncGraph(name)
        ops = e.get("ops")
        if not isinstance(ops, list):
            raise FormatError("malformed graph")
        # Ops are created as saved (no automatic control edges, no tape).
        with _context.graph_mode(g, hide_tapes=True):
            for o in ops:
                self._op(g, o)
        g.inputs = [self._local(g, t) for t in _list(e.get("inputs"))]
        g.outputs = [self._local(g, t) for t in _list(e.get("outputs"))]
        for pair in _list(e.get("captures")):
            if not isinstance(pair, list) or len(pair) != 2:
                raise FormatError("malformed capture")
            ext = self._external(pair[0])
            internal = self._local(g, pair[1])
            if isinstance(ext, SymbolicTensor):
                internal._const = ext._const
            elif ext.dtype is not D.resource and ext._v.size <= 1000:
                internal._const = ext._v
            g._captures[id(ext)] = (ext, internal)
            g._capture_order.append(id(ext))
        g.variables = [self._resolve(k) for k in _list(e.get("variables"))]
        g.structured_outputs = self._value(e.get("structured_outputs"))
        sig = e.get("structured_input_signature")
        if sig is not None:
            sig = self._value(sig)
            if not (isinstance(sig, tuple) and len(sig) == 2 and isinstance(sig[1], dict)):
                raise FormatError("malformed input signature")
        g.structured_input_signature = sig
        seed = e.get("seed")
        g.seed = seed if type(seed) is int else None
        stateful = [op for op in g.get_operations() if op.opdef.stateful]
        g._last_stateful = stateful[-1] if stateful else None
        self._done.add(gid)
        return g

    def _op(self, g, o):
        if not isinstance(o, dict):
            raise FormatError("malformed op")
        try:
            opdef = op_registry.get(o.get("type"))
        except (KeyError, TypeError):
            raise FormatError(f"unknown op type {o.get('type')!r}") from None
        name = _check_name(o.get("name"), "op")
        inputs = [self._local(g, t) for t in _list(o.get("inputs"))]
        raw = o.get("attrs")
        if not isinstance(raw, dict):
            raise FormatError("malformed attrs")
        attrs = {}
        for k, v in raw.items():
            # Attr names become keyword arguments in compiled code.
            if not k.isidentifier() or keyword.iskeyword(k):
                raise FormatError(f"invalid attr name {k!r}")
            attrs[k] = self._attr(name, k, v, raw)
        specs = []
        for s in _list(o.get("outputs")):
            if not isinstance(s, list) or len(s) != 2:
                raise FormatError("malformed output spec")
            specs.append((V.decode_shape(s[0]), V.decode_dtype(s[1])))
        if name in g._by_name:
            raise FormatError(f"duplicate op name {name!r}")
        op = g.create_op(opdef, inputs, attrs, name=name + "/", output_specs=specs,
                         multi=bool(o.get("multi")))
        op.control_inputs = [g.get_operation_by_name(_check_name(c, "op"))
                             for c in _list(o.get("control"))]
        device = o.get("device")
        op.device = device if isinstance(device, str) else ""
        op.location = None

    def _attr(self, op_name, key, v, raw):
        if isinstance(v, dict) and len(v) == 1:
            if "rng" in v:
                seed, seed2 = raw.get("seed", 0), raw.get("seed2", 0)
                if type(seed) is not int or type(seed2) is not int:
                    seed = seed2 = 0
                return GuardedPhilox(seed, seed2)
            if "lost_gradient" in v:
                return lost_gradient(op_name)
            if "lost_callable" in v:
                return lost_callable(op_name)
            if "custom_gradient" in v:
                p = v["custom_gradient"]
                if not (isinstance(p, list) and len(p) == 2 and isinstance(p[1], list)):
                    raise FormatError("malformed custom gradient")
                # Built when first differentiated: its captures may be
                # forward values made after this op.
                return SavedGradient(lambda: self._late_graph(p[0]), [bool(x) for x in p[1]])
        return self._value(v)

    def _local(self, g, ref):
        if not isinstance(ref, list) or len(ref) != 2 or type(ref[1]) is not int:
            raise FormatError("malformed tensor reference")
        try:
            op = g.get_operation_by_name(ref[0])
            return op.outputs[ref[1]]
        except (KeyError, IndexError, TypeError):
            raise FormatError(f"no tensor {ref!r} in graph {g.name}") from None

    def _external(self, e):
        if isinstance(e, dict) and len(e) == 1:
            if "resource" in e:
                return self._resolve(e["resource"])._handle
            if "constant" in e:
                return self._constant(e["constant"])
            if "asset" in e and isinstance(e["asset"], str):
                return self._resolve("asset:" + e["asset"]).asset_path
        t = self._value(e)
        if not isinstance(t, SymbolicTensor):
            raise FormatError("malformed capture")
        return t

    def _value(self, e):
        return V.decode(e, self._other)

    def _constant(self, k):
        t = self._constants.get(k) if type(k) is int else None
        if t is None:
            if type(k) is not int or not 0 <= k < len(self._raw_constants):
                raise FormatError(f"no saved constant {k!r}")
            t = self._constants[k] = EagerTensor(V.decode_array(self._raw_constants[k]))
        return t

    def _other(self, kind, p):
        if kind == "tensor":
            if not isinstance(p, list) or len(p) != 3:
                raise FormatError("malformed tensor reference")
            return self._local(self._graph(p[0]), p[1:])
        if kind == "op":
            if not isinstance(p, list) or len(p) != 2:
                raise FormatError("malformed op reference")
            try:
                return self._graph(p[0]).get_operation_by_name(p[1])
            except (KeyError, TypeError):
                raise FormatError(f"no op {p!r}") from None
        if kind == "graph":
            g = self._graph(p)
            if p not in self._done:
                raise FormatError("a graph refers to itself")
            return g
        if kind == "function":
            return self.function(p)
        if kind == "resource":
            return self._resolve(p)._storage
        if kind == "eager":
            return EagerTensor(V.decode_array(p))
        if kind == "dataset_function":
            if not isinstance(p, list) or len(p) != 2:
                raise FormatError("malformed dataset function")
            return dataset_function(self.function(p[0]), self._value(p[1]))
        if kind == "variable_arg":
            if not isinstance(p, list) or len(p) != 3:
                raise FormatError("malformed variable argument")
            return VariableArgument(VariableSpec(V.decode_shape(p[0]), V.decode_dtype(p[1]),
                                                  bool(p[2])))
        if kind == "composite":
            if not isinstance(p, list) or len(p) != 2 or not isinstance(p[1], list):
                raise FormatError("malformed composite")
            template = p[0]
            if isinstance(template, dict) and len(template) == 1 and \
                    next(iter(template)) in composites.KINDS:
                template = self._value(template)  # an ExtensionType / ragged spec
            else:
                template = composite_template(template)
            return CompositeOutput(template, [self._value(c) for c in p[1]])
        if kind in composites.KINDS:
            return composites.decode(kind, p, self._value)
        raise FormatError(f"unknown value kind {kind!r}")


def _list(v):
    if not isinstance(v, list):
        raise FormatError("malformed graph entry")
    return v
