"""Loading a SavedModel in TensorFlow's format (`saved_model.pb` and the
`variables/` bundle), as TensorFlow 2's `tf.saved_model.load` does: the
SavedObjectGraph gives the objects (user objects, variables, functions,
signatures, lists and dicts), the function library their functions
(function_import.py), the variables' checkpoint their values.

Reading is safe on hostile files: the proto is parsed by the bounded codec
(rillflow/io/proto_codec.py), node ids and references are checked before
use, and every op type the functions use must be one rillflow has (all of
the missing ones are named in one NotFoundError). A file that is not a
SavedModel raises DataLossError; one that is, but that rillflow cannot
represent, InvalidArgumentError.
"""
import inspect
import os

import numpy as np

from ..framework import errors
from ..framework.tensor import EagerTensor
from ..framework.tensor_spec import TensorSpec
from ..io import proto_codec, tensor_bundle
from ..ops.state.variables import Variable
from . import checkpoint_graph
from .asset import Asset
from . import tf_values as TV
from .function_import import FunctionLibrary
from .restored import (CallableUserObject, RestoredFunction, SignatureFunction, SignatureMap,
                       UserObject, python_signature)

__all__ = ["read_saved_model", "load_objects", "PB_FILENAME"]

PB_FILENAME = "saved_model.pb"
# A saved_model.pb larger than this is refused before it is read (TensorFlow's
# own limit for a serialized proto is 2 GiB).
MAX_PB_BYTES = 1 << 31
_LISTS = ("trackable_list_wrapper", "list")
_DICTS = ("trackable_dict_wrapper", "dict")
_TUPLES = ("trackable_tuple_wrapper",)


def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def read_saved_model(export_dir):
    """The decoded SavedModel proto of `export_dir/saved_model.pb`.

    Raises:
      OSError: if there is no such file.
      DataLossError: if it is not a SavedModel proto.
    """
    path = os.path.join(export_dir, PB_FILENAME)
    try:
        size = os.path.getsize(path)
    except OSError:
        raise OSError(f"SavedModel file does not exist at: "
                      f"{export_dir}/{{saved_model.pbtxt|saved_model.pb}}") from None
    if size > MAX_PB_BYTES:
        raise errors.DataLossError(None, None, f"{path} is larger than 2 GiB")
    with open(path, "rb") as f:
        data = f.read()
    try:
        proto = proto_codec.decode(data, "tensorflow.SavedModel")
    except proto_codec.DecodeError as e:
        raise errors.DataLossError(None, None, f"Cannot parse file {path}: {e}") from None
    if not proto.get("meta_graphs"):
        raise errors.DataLossError(None, None, f"{path} holds no MetaGraphDef")
    return proto


def meta_graph(proto, tags=None):
    """The MetaGraphDef of `proto` for `tags` (a string or list; the only
    one when None).

    Raises:
      RuntimeError: when no MetaGraphDef has the tags, or several match.
    """
    graphs = proto["meta_graphs"]
    if tags is None:
        if len(graphs) == 1:
            return graphs[0]
        tags = ["serve"]
    tags = {tags} if isinstance(tags, str) else set(tags)
    found = [g for g in graphs if set(g.get("meta_info_def", {}).get("tags", [])) == tags]
    if len(found) != 1:
        available = [g.get("meta_info_def", {}).get("tags", []) for g in graphs]
        raise RuntimeError(f"MetaGraphDef associated with tags {sorted(tags)} could not be "
                           f"found in SavedModel, with available tags '{available}'.")
    return found[0]


def load_objects(export_dir, proto, tags=None, load_aliases=False):
    """The root object of a decoded SavedModel proto read from `export_dir`
    (see the module docstring). With `load_aliases` (LoadOptions'
    experimental_load_function_aliases) the root gets `function_aliases`:
    alias -> the restored function whose traces all carry it, or the list of
    those ConcreteFunctions.

    Raises:
      ValueError: with `load_aliases`, if the root already has an attribute
        `function_aliases`.
    """
    mg = meta_graph(proto, tags)
    graph = mg.get("object_graph_def", {})
    nodes = graph.get("nodes", [])
    if not nodes:
        raise _bad("the SavedModel has no object graph (a TensorFlow 1 SavedModel, which "
                   "rillflow does not load)")
    library = FunctionLibrary(mg.get("graph_def", {}).get("library", {}))
    concrete = graph.get("concrete_functions", {})
    names = set()
    for node in nodes:
        names.update(node.get("function", {}).get("concrete_functions", []))
        bare = node.get("bare_concrete_function")
        if bare is not None:
            names.add(bare.get("concrete_function_name", ""))
    for n in names:
        if n not in library:
            raise _bad(f"the object graph names function {n!r}, which is not in the library")
    library.check_ops(sorted(names))
    loader = _Loader(export_dir, mg, nodes, concrete, library)
    root = loader.load()
    if load_aliases:
        if hasattr(root, "function_aliases"):
            raise ValueError("Could not load with experimental_load_function_aliases option "
                             "because the top-level object already has an attributed with "
                             "name 'function_aliases'")
        root.function_aliases = loader.function_aliases()
    return root


class _Loader:
    def __init__(self, export_dir, mg, nodes, concrete, library):
        self.export_dir = export_dir
        self.mg = mg
        self.nodes = nodes
        self.concrete = concrete
        self.library = library
        self.objects = [None] * len(nodes)
        self._functions = {}

    def load(self):
        self._check_children()
        values = self._variable_values()
        for i, node in enumerate(self.nodes):
            if "variable" in node:
                self.objects[i] = self._variable(i, node["variable"], values)
        for i, node in enumerate(self.nodes):
            if "constant" in node:
                self.objects[i] = self._constant(node["constant"])
            elif "asset" in node:
                self.objects[i] = Asset(self._asset(node["asset"]))
        for i, node in enumerate(self.nodes):
            if self.objects[i] is None:
                self.objects[i] = self._object(i, node)
        self._attach()
        root = self.objects[0]
        sigs = self._signatures()
        if isinstance(root, UserObject):
            root.signatures = sigs
        return root

    def function_aliases(self):
        """{alias: RestoredFunction or [ConcreteFunction]} of the MetaGraph's
        function_aliases, as TensorFlow's loader builds it."""
        names = self.mg.get("meta_info_def", {}).get("function_aliases", {})
        by_alias = {}
        for name, alias in names.items():
            if name in self.concrete:
                by_alias.setdefault(alias, []).append(self._concrete(name))
        for i, node in enumerate(self.nodes):
            saved = node.get("function", {}).get("concrete_functions", [])
            if saved and all(n in names for n in saved):
                alias = names[saved[0]]
                if len(by_alias.get(alias, [])) == len(saved):
                    by_alias[alias] = self.objects[i]
        return by_alias

    def _check_children(self):
        n = len(self.nodes)
        for node in self.nodes:
            for ref in node.get("children", []) + node.get("dependencies", []):
                if not 0 <= ref.get("node_id", 0) < n:
                    raise errors.DataLossError(None, None, "the SavedModel's object graph "
                                               "refers to a node that does not exist")

    # --- variables ---------------------------------------------------------------------
    def _variable_values(self):
        """{node id: NumPy value} from the variables' checkpoint, matched
        through its object graph by child names from the root (as
        TensorFlow restores it)."""
        if not any("variable" in n for n in self.nodes):
            return {}
        prefix = os.path.join(self.export_dir, "variables", "variables")
        reader = tensor_bundle.BundleReader(prefix)
        key = checkpoint_graph.OBJECT_GRAPH_KEY
        if key not in reader:
            raise errors.DataLossError(None, None, f"{prefix} has no object graph")
        ckpt_nodes = checkpoint_graph.parse(reader.get(key).item(),
                                            tensor_bundle.index_filename(prefix))
        matched = {0: 0}
        queue = [0]
        while queue:
            i = queue.pop()
            names = {c["local_name"]: c["node_id"] for c in ckpt_nodes[matched[i]]["children"]}
            for ref in self.nodes[i].get("children", []):
                j, k = ref.get("node_id", 0), names.get(ref.get("local_name", ""))
                if k is not None and j not in matched:
                    matched[j] = k
                    queue.append(j)
        out = {}
        for i, node in enumerate(self.nodes):
            if "variable" not in node or i not in matched:
                continue
            for attr in ckpt_nodes[matched[i]]["attributes"]:
                if attr["name"] == checkpoint_graph.VARIABLE_VALUE and \
                        attr["checkpoint_key"] in reader:
                    out[i] = reader.get(attr["checkpoint_key"])
        return out

    def _variable(self, i, v, values):
        dtype = TV.dtype_from_enum(v.get("dtype", 0))
        shape = TV.shape_from_proto(v.get("shape", {}))
        value = values.get(i)
        if value is None:
            raise errors.NotFoundError(None, None, f"no saved value for variable "
                                       f"{v.get('name', '')!r} (node {i})")
        if dtype._np is not None and dtype._np.kind != "O" and value.dtype != dtype._np:
            raise _bad(f"variable {v.get('name')!r} is saved as {value.dtype}, declared "
                       f"{dtype.name}")
        if not shape.is_compatible_with(value.shape):
            raise _bad(f"variable {v.get('name')!r} is saved with shape {value.shape}, "
                       f"declared {shape}")
        return Variable(value, trainable=bool(v.get("trainable", False)),
                        name=v.get("name") or "Variable", dtype=dtype, shape=shape,
                        validate_shape=shape.is_fully_defined())

    def _constant(self, c):
        op = c.get("operation", "")
        for node in self.mg.get("graph_def", {}).get("node", []):
            if node.get("name") == op and node.get("op") == "Const":
                value = node.get("attr", {}).get("value")
                if value is not None:
                    return EagerTensor(TV.attr_from_proto(value, "tensor"))
        raise _bad(f"saved constant {op!r} is not a Const node of the graph")

    def _asset(self, a):
        files = self.mg.get("asset_file_def", [])
        k = a.get("asset_file_def_index", 0)
        if not 0 <= k < len(files):
            raise _bad("an asset refers to an asset file that does not exist")
        name = files[k].get("filename", "")
        if os.path.basename(name) != name or name in ("", ".", ".."):
            raise _bad(f"invalid asset file name {name!r}")
        return os.path.join(self.export_dir, "assets", name)

    # --- objects and functions ---------------------------------------------------------
    def _object(self, i, node):
        if "user_object" in node:
            ident = node["user_object"].get("identifier", "")
            if ident in _LISTS or ident in _TUPLES:
                return []
            if ident in _DICTS:
                return {}
            if ident == "signature_map":
                return {}
            calls = any(c.get("local_name") == "__call__" for c in node.get("children", []))
            return CallableUserObject() if calls else UserObject()
        if "function" in node:
            return self._function(node["function"])
        if "bare_concrete_function" in node:
            bare = node["bare_concrete_function"]
            return self._concrete(bare.get("concrete_function_name", ""),
                                  cls=SignatureFunction if self._is_signature(i) else None)
        if "resource" in node or "captured_tensor" in node:
            return UserObject()
        return UserObject()

    def _is_signature(self, i):
        for node in self.nodes:
            if node.get("user_object", {}).get("identifier") == "signature_map" and any(
                    c.get("node_id") == i for c in node.get("children", [])):
                return True
        return False

    def _function(self, f):
        spec = f.get("function_spec", {})
        signature, params = _python_signature(spec)
        input_signature = None
        if "input_signature" in spec:
            sig = TV.structure_from_proto(spec["input_signature"])
            input_signature = tuple(sig) if isinstance(sig, (list, tuple)) else None
        cfs = [self._concrete(n, params=params) for n in f.get("concrete_functions", [])]
        name = cfs[0].graph.name if cfs else "function"
        return RestoredFunction(name, cfs, signature, input_signature)

    def _concrete(self, name, cls=None, params=None):
        key = (name, cls)
        if key in self._functions:
            return self._functions[key]
        saved = self.concrete.get(name)
        if saved is None:
            raise _bad(f"function {name!r} has no entry among the saved concrete functions")
        bound = []
        for node_id in saved.get("bound_inputs", []):
            if not 0 <= node_id < len(self.nodes):
                raise errors.DataLossError(None, None, "a function is bound to a node that "
                                           "does not exist")
            bound.append(self._bound(node_id))
        inputs = TV.structure_from_proto(saved["canonicalized_input_signature"]) \
            if "canonicalized_input_signature" in saved else None
        if inputs is not None and not (isinstance(inputs, tuple) and len(inputs) == 2 and
                                       isinstance(inputs[1], dict)):
            raise _bad(f"malformed input signature of {name}")
        outputs = TV.structure_from_proto(saved["output_signature"]) \
            if "output_signature" in saved else None
        if params is None and inputs is not None:
            params = [getattr(s, "name", None) or "args_%d" % k
                      for k, s in enumerate(inputs[0])]
        kwargs = {} if cls is None else {"cls": cls}
        cf = self.library.concrete(name, bound, inputs, outputs, params, **kwargs)
        self._functions[key] = cf
        return cf

    def _bound(self, node_id):
        """A callable giving the tensor a function's captured input is bound
        to, in the graph being built."""
        node = self.nodes[node_id]
        if "variable" in node:
            var = self.objects[node_id]
            return var._graph_handle
        if "constant" in node:
            value = self.objects[node_id]
            return lambda: value
        if "asset" in node:
            path = self.objects[node_id].asset_path
            return lambda: path
        raise _bad(f"functions bound to {next(iter(node), 'an object')} objects are not "
                   "supported")

    def _attach(self):
        for i, node in enumerate(self.nodes):
            obj = self.objects[i]
            for ref in node.get("children", []):
                name, child = ref.get("local_name", ""), self.objects[ref.get("node_id", 0)]
                if isinstance(obj, list):
                    obj.append(child)
                elif isinstance(obj, dict):
                    obj[name] = child
                elif isinstance(obj, UserObject):
                    # Python's own attributes (`__class__`, `__dict__`) are not for a
                    # file to set; `__call__` is a saved function.
                    if name.startswith("__") and name.endswith("__") and name != "__call__":
                        continue
                    setattr(obj, name, child)
        for i, node in enumerate(self.nodes):
            if node.get("user_object", {}).get("identifier") in _TUPLES:
                self.objects[i] = tuple(self.objects[i])

    def _signatures(self):
        root = self.nodes[0]
        for ref in root.get("children", []):
            if ref.get("local_name") == "signatures":
                found = self.objects[ref.get("node_id", 0)]
                if isinstance(found, dict):
                    return SignatureMap(found)
        return SignatureMap({})


def _python_signature(spec):
    """(inspect.Signature, positional parameter names) of a FunctionSpec's
    FullArgSpec; (None, None) without one."""
    full = TV.structure_from_proto(spec["fullargspec"]) if "fullargspec" in spec else None
    if full is None or not hasattr(full, "_fields"):
        return None, None
    d = full._asdict()
    args = list(d.get("args") or [])
    if spec.get("is_method") and args and args[0] == "self":
        args = args[1:]
    defaults = list(d.get("defaults") or [])
    params = []
    first_default = len(args) - len(defaults)
    for k, a in enumerate(args):
        default = defaults[k - first_default] if k >= first_default else inspect.Parameter.empty
        params.append((a, "POSITIONAL_OR_KEYWORD", _default(default)))
    if d.get("varargs"):
        params.append((d["varargs"], "VAR_POSITIONAL", inspect.Parameter.empty))
    kw_defaults = d.get("kwonlydefaults") or {}
    for a in d.get("kwonlyargs") or []:
        params.append((a, "KEYWORD_ONLY", _default(kw_defaults.get(a, inspect.Parameter.empty))))
    if d.get("varkw"):
        params.append((d["varkw"], "VAR_KEYWORD", inspect.Parameter.empty))
    for p in params:
        if not isinstance(p[0], str) or not p[0].isidentifier():
            raise _bad(f"invalid parameter name {p[0]!r}")
    try:
        return python_signature(params), args
    except ValueError:
        raise _bad("malformed function parameters") from None


def _default(v):
    if isinstance(v, np.ndarray):
        return EagerTensor(v)
    if isinstance(v, TensorSpec):
        return inspect.Parameter.empty
    return v
