"""Writing `saved_model.pb` in TensorFlow's format: a SavedModel proto with
one MetaGraphDef (tag "serve") holding the function library (every traced
function as a FunctionDef, function_export.py), the SavedObjectGraph (the
saved objects, their functions with TensorFlow's FunctionSpec, the
signature map) and the SignatureDefs with the small graph that calls each
signature (placeholders, variable handles, one StatefulPartitionedCall),
as TensorFlow 2.21 writes them, so that TensorFlow loads it.

The objects are numbered as `saved_objects.ObjectGraphWriter` numbers them
(the variables' checkpoint keys are the same); the "signatures" map is the
root's last child. A function TensorFlow's format cannot express (one
returning a RaggedTensor or a Dataset, a gradient loop, an op attr that is
a Python object) is left out of the file with a warning; rillflow's own
`saved_model.json` beside it keeps it for rillflow.
"""
import collections
import logging

from ..framework import nest
from ..framework.func_graph import CompositeOutput
from ..framework.tensor import SymbolicTensor
from ..framework.tensor_spec import TensorSpec
from ..function.concrete_function import ConcreteFunction
from ..io import proto_codec
from ..ops.state.variables import Variable, VariableSpec
from . import tf_values as TV
from .function_export import FunctionExporter
from .asset import Asset
from .restored import RestoredFunction, SignatureMap
from .saved_objects import saved_traces

__all__ = ["saved_model_bytes", "GRAPH_DEF_VERSION"]

_log = logging.getLogger("rillflow.saved_model")
# The GraphDef version of TensorFlow 2.21, whose op semantics the exported
# functions follow, and the oldest consumer it allows.
GRAPH_DEF_VERSION = {"producer": 2474, "min_consumer": 12}
_USER_VERSION = {"producer": 1, "min_consumer": 1}
_PREDICT = "tensorflow/serving/predict"
_FullArgSpec = collections.namedtuple("FullArgSpec", ["args", "varargs", "varkw", "defaults",
                                                      "kwonlyargs", "kwonlydefaults",
                                                      "annotations"])


class _Unsaveable(Exception):
    """A function TensorFlow's format cannot express."""


def saved_model_bytes(objects, signatures, function_aliases=None):
    """The serialized SavedModel proto.

    Args:
      objects: the `saved_objects.ObjectGraphWriter` of the saved root.
      signatures: {signature key: the ConcreteFunction of its wrapper
        (keyword tensor arguments, a dict of named outputs)}.
      function_aliases: SaveOptions' {alias: tf.function or
        ConcreteFunction}, recorded for each of their saved traces.

    Raises:
      AssertionError: when a function uses a variable nothing tracks.
    """
    return proto_codec.encode(_Writer(objects, signatures, function_aliases).saved_model(),
                              "tensorflow.SavedModel")


class _Writer:
    def __init__(self, objects, signatures, function_aliases=None):
        self.objects = objects
        self.signatures = signatures
        self.function_aliases = function_aliases or {}
        self.exporter = FunctionExporter()
        self.concrete = {}
        self.var_nodes = {id(obj._storage): i for i, obj in enumerate(objects.objects)
                          if isinstance(obj, Variable)}
        # Assets: id(asset_path) -> node, and their asset_file_def entries in
        # node order; a function's captured asset path is a bound input.
        self.asset_nodes = {id(objects.objects[i].asset_path): i
                            for i in sorted(objects.asset_files)}
        self.asset_index = {i: k for k, i in enumerate(sorted(objects.asset_files))}
        self.asset_handles = {}       # asset node -> its string variable in the graph
        self.exporter.not_inlined = set(self.asset_nodes)
        self.nodes = []

    def saved_model(self):
        for i, obj in enumerate(self.objects.objects):
            self.nodes.append(self._node(i, obj))
        sig_node = len(self.nodes)
        self.nodes[0].setdefault("children", []).append(
            {"node_id": sig_node, "local_name": "signatures"})
        sig_map = {"children": [], "user_object": {"identifier": "signature_map",
                                                   "version": _USER_VERSION}}
        self.nodes.append(sig_map)
        graph_nodes, sig_defs = [], {}
        asset_file_def, init_inputs = self._asset_graph(graph_nodes)
        for key in sorted(self.signatures):
            cf = self.signatures[key]
            try:
                name = self._concrete_function(cf)
            except _Unsaveable as e:
                _log.warning("Signature %r is not written to saved_model.pb: %s", key, e)
                continue
            node_id = len(self.nodes)
            kwargs = sorted(cf.structured_input_signature[1])
            self.nodes.append({"bare_concrete_function": {
                "concrete_function_name": name, "argument_keywords": kwargs,
                "allowed_positional_arguments": 1 if len(kwargs) == 1 else 0}})
            sig_map["children"].append({"node_id": node_id, "local_name": key})
            sig_defs[key] = self._signature_def(key, cf, name, graph_nodes)
        init = {"name": "NoOp", "op": "NoOp"}
        if init_inputs:
            init["input"] = init_inputs
        graph_nodes.append(init)
        sig_defs["__saved_model_init_op"] = {"outputs": {"__saved_model_init_op": {
            "name": "NoOp", "tensor_shape": {"unknown_rank": True}}}}
        aliases = {}
        for alias, fn in self.function_aliases.items():
            cfs = [fn] if isinstance(fn, ConcreteFunction) else saved_traces(fn)
            for cf in cfs:
                try:
                    aliases[self._concrete_function(cf)] = alias
                except _Unsaveable as e:
                    _log.warning("Function alias %r is not written: %s", alias, e)
        meta = {
            "meta_info_def": {"tags": ["serve"], "tensorflow_version": "rillflow",
                              "stripped_default_attrs": True},
            "graph_def": {"node": graph_nodes, "library": self.exporter.library(),
                          "versions": dict(GRAPH_DEF_VERSION)},
            "signature_def": sig_defs,
            "object_graph_def": {"nodes": self.nodes, "concrete_functions": self.concrete},
        }
        if aliases:
            meta["meta_info_def"]["function_aliases"] = aliases
        if asset_file_def:
            meta["asset_file_def"] = asset_file_def
        return {"saved_model_schema_version": 1, "meta_graphs": [meta]}

    def _asset_graph(self, graph_nodes):
        """The graph TensorFlow's v1 loader initializes assets with: per
        asset, a placeholder the loader feeds the file's path to
        (`asset_file_def` names it) assigned to a string variable the
        signatures read. Returns (asset_file_def, the init op's inputs)."""
        files, init = [], []
        taken = set()
        for i in sorted(self.objects.asset_files):
            ph = _unique("asset_path_initializer", taken)
            var = _unique("Variable", taken)
            taken.update((ph, var))
            string = {"type": 7}     # DT_STRING
            scalar = {"shape": {}}
            graph_nodes.append({"name": ph, "op": "Placeholder",
                                "attr": {"dtype": string, "shape": scalar}})
            graph_nodes.append({"name": var, "op": "VarHandleOp", "attr": {
                "dtype": string, "shape": scalar, "shared_name": {"s": var.encode("utf-8")}}})
            graph_nodes.append({"name": var + "/Assign", "op": "AssignVariableOp",
                                "input": [var, ph], "attr": {"dtype": string}})
            init.append("^" + var + "/Assign")
            self.asset_handles[i] = var
            files.append({"tensor_info": {"name": ph + ":0"},
                          "filename": self.objects.asset_files[i]})
        return files, init

    # --- objects -------------------------------------------------------------------------
    def _node(self, i, obj):
        children = [{"node_id": k, "local_name": name} for name, k in self.objects.children[i]]
        node = {"children": children} if children else {}
        if isinstance(obj, Asset):
            node["asset"] = {"asset_file_def_index": self.asset_index[i]} \
                if self.asset_index[i] else {}
        elif isinstance(obj, Variable):
            name = obj.name[:-2] if obj.name.endswith(":0") else obj.name
            node["variable"] = {"dtype": obj.dtype.as_datatype_enum,
                                "shape": TV.shape_to_proto(obj.shape),
                                "trainable": bool(obj.trainable), "name": name}
        elif isinstance(obj, ConcreteFunction):
            try:
                name = self._concrete_function(obj)
                node["bare_concrete_function"] = {"concrete_function_name": name}
            except _Unsaveable as e:
                _log.warning("Function %s is not written to saved_model.pb: %s", obj.name, e)
                node["user_object"] = {"identifier": "_generic_user_object",
                                       "version": _USER_VERSION}
        elif callable(getattr(obj, "_list_all_concrete_functions", None)) and \
                not isinstance(obj, (list, tuple, dict)):
            node["function"] = self._function(obj)
        else:
            ident = "trackable_list_wrapper" if isinstance(obj, list) else \
                "trackable_tuple_wrapper" if isinstance(obj, tuple) else \
                "trackable_dict_wrapper" if isinstance(obj, (dict, SignatureMap)) else \
                "_generic_user_object"
            node["user_object"] = {"identifier": ident, "version": _USER_VERSION}
        return node

    def _function(self, fn):
        names = []
        for cf in saved_traces(fn):
            try:
                names.append(self._concrete_function(cf))
            except _Unsaveable as e:
                _log.warning("A trace of %s is not written to saved_model.pb: %s",
                             getattr(fn, "__name__", "a function"), e)
        out = {"concrete_functions": names}
        spec = _function_spec(fn)
        if spec is not None:
            out["function_spec"] = spec
        return out

    def _concrete_function(self, cf):
        try:
            inputs = TV.structure_to_proto(_input_specs(cf))
            outputs = TV.structure_to_proto(_output_specs(cf.graph.structured_outputs))
            name, captured = self.exporter.add(cf, inline_constants=True)
        except (TypeError, ValueError) as e:
            raise _Unsaveable(str(e)) from None
        if name in self.concrete:
            return name
        bound = []
        for ext in captured:
            node = self.var_nodes.get(id(getattr(ext, "_v", None)))
            if node is None:
                node = self.asset_nodes.get(id(ext))
            if node is None:
                raise AssertionError(
                    "Tried to export a function which references an 'untracked' resource. "
                    "TensorFlow objects (e.g. tf.Variable) captured by functions must be "
                    "'tracked' by assigning them to an attribute of a tracked object or "
                    "assigned to an attribute of the main object directly. See the "
                    f"information below:\n\tFunction name = {cf.name}\n"
                    f"\tCaptured Tensor = {ext!r}")
            bound.append(node)
        entry = {"canonicalized_input_signature": inputs, "output_signature": outputs}
        if bound:
            entry["bound_inputs"] = bound
        self.concrete[name] = entry
        return name

    # --- signatures ----------------------------------------------------------------------
    def _signature_def(self, key, cf, fname, graph_nodes):
        taken = {n["name"] for n in graph_nodes}
        ins, inputs = {}, []
        for k in sorted(cf.structured_input_signature[1]):
            spec = cf.structured_input_signature[1][k]
            node = _unique("%s_%s" % (key, k), taken)
            graph_nodes.append({"name": node, "op": "Placeholder", "attr": {
                "dtype": {"type": spec.dtype.as_datatype_enum},
                "shape": {"shape": TV.shape_to_proto(spec.shape)}}})
            ins[k] = {"name": node + ":0", "dtype": spec.dtype.as_datatype_enum,
                      "tensor_shape": TV.shape_to_proto(spec.shape)}
            inputs.append(node)
        for node_id in self.concrete[fname].get("bound_inputs", []):
            var = self.objects.objects[node_id]
            if isinstance(var, Asset):
                node = _unique("%s_ReadVariableOp" % key, taken)
                graph_nodes.append({"name": node, "op": "ReadVariableOp",
                                    "input": [self.asset_handles[node_id]],
                                    "attr": {"dtype": {"type": 7}}})
                inputs.append(node)
                continue
            node = _unique("%s_%s" % (key, var.name.split(":")[0].replace("/", "_")), taken)
            graph_nodes.append({"name": node, "op": "VarHandleOp", "attr": {
                "dtype": {"type": var.dtype.as_datatype_enum},
                "shape": {"shape": TV.shape_to_proto(var.shape)},
                "shared_name": {"s": node.encode("utf-8")}}})
            inputs.append(node)
        call = _unique("StatefulPartitionedCall", taken)
        outs = cf.graph.outputs
        graph_nodes.append({"name": call, "op": "StatefulPartitionedCall", "input": inputs,
                            "attr": {
                                "f": {"func": {"name": fname}},
                                "Tin": TV.attr_to_proto([t.dtype for t in cf.graph.inputs],
                                                        "list(type)"),
                                "Tout": TV.attr_to_proto([t.dtype for t in outs],
                                                         "list(type)")}})
        structured = cf.graph.structured_outputs
        names = sorted(structured) if isinstance(structured, dict) else \
            ["output_%d" % i for i in range(len(outs))]
        return {"inputs": ins, "method_name": _PREDICT, "outputs": {
            n: {"name": "%s:%d" % (call, i), "dtype": t.dtype.as_datatype_enum,
                "tensor_shape": TV.shape_to_proto(t.shape)}
            for i, (n, t) in enumerate(zip(names, outs))}}


def _unique(base, taken):
    out, k = base, 1
    while out in taken:
        out = "%s_%d" % (base, k)
        k += 1
    taken.add(out)
    return out


def _input_specs(cf):
    def spec(v):
        if isinstance(v, SymbolicTensor):
            return TensorSpec(v.shape, v.dtype, name=v.op.name)
        if hasattr(v, "_arg_spec") and isinstance(v._arg_spec, VariableSpec):
            return v._arg_spec
        return v
    args, kwargs = cf.graph.structured_input_signature
    return (tuple(nest.map_structure(spec, list(args))),
            {k: nest.map_structure(spec, v) for k, v in kwargs.items()})


def _output_specs(structured):
    def spec(v):
        if isinstance(v, CompositeOutput):
            raise TypeError("it returns a composite value "
                            f"({type(v.template).__name__})")
        if isinstance(v, SymbolicTensor):
            return TensorSpec(v.shape, v.dtype)
        return v
    if structured is None:
        return None
    return nest.map_structure(spec, structured)


def _function_spec(fn):
    """TensorFlow's FunctionSpec of a tf.function (or restored one): its
    FullArgSpec and input_signature."""
    if isinstance(fn, RestoredFunction):
        sig = fn._signature
    else:
        sig = getattr(getattr(fn, "function_spec", None), "signature", None)
    if sig is None:
        return None
    args, defaults, kwonly, kwdefaults = [], [], [], {}
    varargs = varkw = None
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(p.name)
            if p.default is not p.empty:
                defaults.append(_plain_default(p.default))
        elif p.kind == p.VAR_POSITIONAL:
            varargs = p.name
        elif p.kind == p.KEYWORD_ONLY:
            kwonly.append(p.name)
            if p.default is not p.empty:
                kwdefaults[p.name] = _plain_default(p.default)
        else:
            varkw = p.name
    full = _FullArgSpec(args, varargs, varkw, tuple(defaults) if defaults else None, kwonly,
                        kwdefaults or None, {})
    spec = {"fullargspec": _safe_structure(full)}
    signature = fn.input_signature
    spec["input_signature"] = _safe_structure(tuple(signature) if signature is not None
                                              else None)
    return spec


def _plain_default(v):
    if hasattr(v, "numpy") and not isinstance(v, (int, float, bool, str)):
        return v.numpy()
    return v


def _safe_structure(v):
    try:
        return TV.structure_to_proto(v)
    except TypeError:
        return {"none_value": {}}

