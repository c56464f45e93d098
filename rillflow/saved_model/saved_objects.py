"""The object graph of a SavedModel: which objects are saved, under which
attribute names, and how they come back.

Tracked like TensorFlow tracks them: `tf.Module`s and other objects with
tracked attributes, Variables, tf.functions (attributes and decorated
methods) and ConcreteFunctions, and the lists, tuples and dicts holding
them. Objects are numbered breadth-first from the root, so a variable's
checkpoint key is its shortest attribute path
(`sub/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE`, as in TensorFlow).
"""
import inspect
import os

import numpy as np

from ..function.concrete_function import ConcreteFunction
from ..function.polymorphic_function import Function
from ..ops.state.module import Module
from ..ops.state.variables import Variable
from . import composites
from .asset import Asset
from . import values as V
from .graph_io import FormatError
from .restored import CallableUserObject, RestoredFunction, UserObject, python_signature

__all__ = ["ObjectGraphWriter", "restore_objects", "saved_traces"]

_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
# Functions as saved: tf.functions, and those of a loaded SavedModel (which
# can be saved again).
_FUNCTIONS = (Function, RestoredFunction)


def _is_object(obj):
    # `_checkpoint_children` is tf.train.Checkpoint's list of its tracked
    # objects; `_trackable_children` TensorFlow's protocol (Keras' objects).
    return isinstance(obj, (Module, UserObject)) or not isinstance(obj, type) and (
        hasattr(obj, "_checkpoint_children") or hasattr(obj, "_trackable_children"))


def _tracked(value):
    """Whether `value` is saved as an attribute (directly or in a container)."""
    if isinstance(value, (Variable, ConcreteFunction, Asset) + _FUNCTIONS) or _is_object(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_tracked(v) for v in value)
    if isinstance(value, dict):
        return any(isinstance(k, str) and _tracked(v) for k, v in value.items())
    return False


def _saved_form(v):
    """The object saved for `v`: a variable wrapping a `tf.Variable` (Keras'
    on its TensorFlow backend, `_should_act_as_resource_variable`) is saved
    as that variable, as TensorFlow's `_export_to_saved_model_graph` maps it
    (the functions capture the inner variable's handle)."""
    if hasattr(v, "_should_act_as_resource_variable") and not isinstance(v, (Variable, type)):
        inner = getattr(v, "value", None)
        if isinstance(inner, Variable):
            return inner
    return v


def _children(obj):
    """(name, child) pairs of the tracked attributes of `obj`."""
    return [(k, _saved_form(v)) for k, v in _raw_children(obj)]


def _raw_children(obj):
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if _tracked(v)]
    if isinstance(obj, dict):
        return [(k, v) for k, v in obj.items() if isinstance(k, str) and _tracked(v)]
    if isinstance(obj, (Variable, ConcreteFunction, Asset) + _FUNCTIONS):
        return []
    protocol = getattr(obj, "_trackable_children", None)
    if callable(protocol) and not isinstance(obj, (Module, type)):
        # TensorFlow's Trackable protocol (Keras' objects): its SavedModel
        # children, functions included.
        out = [(k, v) for k, v in protocol("savedmodel").items() if _tracked(v)]
        names = {k for k, _ in out}
        for k in sorted(dir(type(obj))):
            if k not in names and isinstance(inspect.getattr_static(type(obj), k, None),
                                             Function):
                out.append((k, getattr(obj, k)))
        return out
    custom = getattr(obj, "_checkpoint_children", None)
    if custom is not None and not isinstance(obj, Module):
        out = [(k, v) for k, v in custom() if _tracked(v)]
        names = {k for k, _ in out}
        # A checkpoint tracks only state; a SavedModel also keeps its functions.
        out += [(k, v) for k, v in vars(obj).items()
                if k not in names and isinstance(v, (ConcreteFunction,) + _FUNCTIONS)]
    else:
        out = [(k, v) for k, v in vars(obj).items() if _tracked(v)]
    names = {k for k, _ in out}
    # tf.function-decorated methods live on the class; bound, they keep the
    # instance's traces.
    for k in sorted(dir(type(obj))):
        if k not in names and isinstance(inspect.getattr_static(type(obj), k, None), Function):
            out.append((k, getattr(obj, k)))
    return out


def children(obj):
    """The tracked `(name, child)` pairs a SavedModel saves of `obj`: its
    checkpointed state and its functions."""
    return _children(obj)


def _escape(name):
    """TensorFlow's escaping of a checkpoint key component (`.` -> `..`,
    `/` -> `.S`), so that keys split unambiguously."""
    return name.replace(".", "..").replace("/", ".S")


class ObjectGraphWriter:
    """Numbers the objects reachable from `root` and encodes them."""

    def __init__(self, root):
        self.root = root
        self.objects = [root]
        self.children = []
        self.paths = [""]
        index = {id(root): 0}
        i = 0
        while i < len(self.objects):
            obj = self.objects[i]
            kids = []
            for name, child in _children(obj):
                k = index.get(id(child))
                if k is None:
                    k = index[id(child)] = len(self.objects)
                    self.objects.append(child)
                    local = _escape(name)
                    self.paths.append(self.paths[i] + "/" + local if self.paths[i] else local)
                kids.append((name, k))
            self.children.append(kids)
            i += 1
        self._keys = {}
        for obj, path in zip(self.objects, self.paths):
            if isinstance(obj, Variable):
                self._keys[id(obj._storage)] = path + _VALUE_SUFFIX
        # Assets: node index -> file name in assets/ (the source's base
        # name, made unique when two sources share one).
        self.asset_files = {}
        taken = {}
        for i, obj in enumerate(self.objects):
            if isinstance(obj, Asset):
                source = obj._path
                base = os.path.basename(os.path.normpath(source))
                name, k = base, 1
                while name in taken and taken[name] != source:
                    stem, ext = os.path.splitext(base)
                    name, k = "%s_%d%s" % (stem, k, ext), k + 1
                taken[name] = source
                self.asset_files[i] = name

    @staticmethod
    def is_trackable(obj):
        """Whether `obj` can be the root of a SavedModel."""
        return isinstance(obj, (Variable, ConcreteFunction) + _FUNCTIONS) or _is_object(obj)

    def root_functions(self):
        """The functions that are attributes of the root object."""
        return [self.objects[k] for _, k in self.children[0]
                if isinstance(self.objects[k], (ConcreteFunction,) + _FUNCTIONS)]

    def root_function(self, name):
        """The function attribute `name` of the root object, or None."""
        for child_name, k in self.children[0]:
            if child_name == name and isinstance(self.objects[k],
                                                 (ConcreteFunction,) + _FUNCTIONS):
                return self.objects[k]
        return None

    def asset_captures(self):
        """{id(asset.asset_path): file name} of the saved assets."""
        return {id(self.objects[i].asset_path): name for i, name in self.asset_files.items()}

    def variable_key(self, storage):
        """The checkpoint key of the tracked variable owning `storage`.

        Raises:
          AssertionError: for a variable no saved object tracks (TensorFlow's
            error for an 'untracked' resource).
        """
        key = self._keys.get(id(storage))
        if key is None:
            raise AssertionError(
                "Tried to export a function which references an 'untracked' resource. "
                "TensorFlow objects (e.g. tf.Variable) captured by functions must be "
                "'tracked' by assigning them to an attribute of a tracked object or assigned "
                "to an attribute of the main object directly. See the information below:\n"
                f"\tCaptured Tensor = {storage!r}")
        return key

    def variable_values(self):
        """The values to write: checkpoint key -> NumPy array."""
        return {self._keys[id(v._storage)]: np.asarray(v.numpy())
                for v in self.objects if isinstance(v, Variable)}

    def checkpoint_graph(self):
        """The object graph as tf.train.Checkpoint stores it (functions left
        out), so that a Checkpoint can restore from the SavedModel's
        variables as in TensorFlow: `{"nodes": [{"children": [{"node_id",
        "local_name"}], "attributes": [...]}]}`."""
        keep = [i for i, o in enumerate(self.objects)
                if not isinstance(o, (ConcreteFunction,) + _FUNCTIONS)]
        ids = {i: n for n, i in enumerate(keep)}
        nodes = []
        for i in keep:
            obj = self.objects[i]
            node = {"children": [{"node_id": ids[k], "local_name": name}
                                 for name, k in self.children[i] if k in ids]}
            if isinstance(obj, Variable):
                node["attributes"] = [{"name": "VARIABLE_VALUE", "full_name": obj.name[:-2],
                                       "checkpoint_key": self._keys[id(obj._storage)]}]
            nodes.append(node)
        return {"nodes": nodes}

    def encode(self, writer):
        """The JSON-safe nodes; functions are added to `writer`."""
        return [self._node(obj, kids, writer) for obj, kids in zip(self.objects, self.children)]

    def _node(self, obj, kids, writer):
        children = [[name, k] for name, k in kids]
        if isinstance(obj, Variable):
            name = obj.name[:-2] if obj.name.endswith(":0") else obj.name
            return {"kind": "variable", "key": self._keys[id(obj._storage)], "name": name,
                    "dtype": obj.dtype.name, "shape": V.encode_shape(obj.shape),
                    "trainable": bool(obj.trainable)}
        if isinstance(obj, ConcreteFunction):
            return {"kind": "concrete_function", "function": writer.add_function(obj)}
        if isinstance(obj, Asset):
            return {"kind": "asset", "filename": self.asset_captures()[id(obj.asset_path)]}
        if isinstance(obj, _FUNCTIONS):
            return _function_node(obj, writer)
        kind = "list" if isinstance(obj, (list, tuple)) else \
            "dict" if isinstance(obj, dict) else "object"
        return {"kind": kind, "children": children}


def saved_traces(fn):
    """The traces of `fn` to save: usable eagerly (not captured from another
    function's graph), each once; a function with an input_signature is
    traced if it has not been yet."""
    if isinstance(fn, RestoredFunction):
        return fn.concrete_functions
    if fn.input_signature is not None:
        fn.get_concrete_function()
    out, seen = [], set()
    for cf in fn._list_all_concrete_functions():
        if id(cf) in seen or any(hasattr(t, "op") for t in cf.graph.external_captures):
            continue
        seen.add(id(cf))
        out.append(cf)
    return out


def _encode_spec(v):
    """Writes an input signature's composite specs (ExtensionType, ragged)."""
    return composites.encode(v, lambda x: V.encode(x, _encode_spec))


def _decode_spec(kind, p):
    return composites.decode(kind, p, lambda x: V.decode(x, _decode_spec))


def _function_node(fn, writer):
    params = []
    sig = fn._signature if isinstance(fn, RestoredFunction) else fn.function_spec.signature
    for p in (sig.parameters.values() if sig is not None else ()):
        default = None
        if p.default is not p.empty:
            try:
                default = [V.encode(p.default)]
            except TypeError:
                default = None  # not saveable as data: the parameter becomes required
        params.append([p.name, p.kind.name, default])
    spec = fn.input_signature
    return {"kind": "function", "name": fn.__name__ if hasattr(fn, "__name__") else fn._name,
            "concrete": [writer.add_function(cf) for cf in saved_traces(fn)],
            "input_signature": None if spec is None else V.encode(tuple(spec), _encode_spec),
            "params": params if sig is not None else None}


# --- restoring -------------------------------------------------------------------------

def restore_objects(nodes, values, variables, reader, export_dir=""):
    """Recreates the saved objects; returns the root.

    `values` are the variable values by key; `variables` (key -> Variable,
    and "asset:<file name>" -> Asset, pointing into `export_dir`/assets)
    is filled first, since functions resolve their captures through it.
    """
    objs = [None] * len(nodes)
    for i, n in enumerate(nodes):
        if isinstance(n, dict) and n.get("kind") == "variable":
            objs[i] = variables[n.get("key")] = _restore_variable(n, values)
        elif isinstance(n, dict) and n.get("kind") == "asset":
            name = n.get("filename")
            if not isinstance(name, str) or os.path.basename(name) != name or \
                    name in ("", ".", ".."):
                raise FormatError(f"invalid asset file name {name!r}")
            objs[i] = variables["asset:" + name] = Asset(
                os.path.join(export_dir, "assets", name))
    for i, n in enumerate(nodes):
        if not isinstance(n, dict):
            raise FormatError("malformed object")
        kind = n.get("kind")
        if kind == "function":
            objs[i] = _restore_function(n, reader)
        elif kind == "concrete_function":
            objs[i] = reader.function(n.get("function"))
        elif kind == "list":
            objs[i] = []
        elif kind == "dict":
            objs[i] = {}
        elif kind == "object":
            calls = any(isinstance(c, list) and c[:1] == ["__call__"]
                        for c in _list(n.get("children")))
            objs[i] = CallableUserObject() if calls else UserObject()
        elif kind not in ("variable", "asset"):
            raise FormatError(f"unknown object kind {kind!r}")
    for n, obj in zip(nodes, objs):
        if n["kind"] not in ("list", "dict", "object"):
            continue
        for pair in _list(n.get("children")):
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)
                    and type(pair[1]) is int and 0 <= pair[1] < len(objs)):
                raise FormatError("malformed child")
            name, child = pair[0], objs[pair[1]]
            if isinstance(obj, list):
                obj.append(child)
            elif isinstance(obj, dict):
                obj[name] = child
            else:
                # Python's own attributes (`__class__`, `__dict__`) are not
                # for a file to set; `__call__` is a saved function.
                if name.startswith("__") and name.endswith("__") and name != "__call__":
                    raise FormatError(f"invalid attribute name {name!r}")
                setattr(obj, name, child)
    return objs[0]


def _list(v):
    if not isinstance(v, list):
        raise FormatError("malformed object graph")
    return v


def _restore_variable(n, values):
    key = n.get("key")
    if not isinstance(key, str) or key not in values:
        raise FormatError(f"no saved value for variable {key!r}")
    name = n.get("name")
    if not isinstance(name, str):
        raise FormatError("malformed variable name")
    dtype = V.decode_dtype(n.get("dtype"))
    shape = V.decode_shape(n.get("shape"))
    value = values[key]
    if dtype._np is not None and value.dtype != dtype._np and dtype._np.kind != "O":
        raise FormatError(f"variable {key!r} has dtype {value.dtype}, expected {dtype.name}")
    return Variable(value, trainable=bool(n.get("trainable", True)), name=name, dtype=dtype,
                    shape=shape, validate_shape=shape.is_fully_defined())


def _restore_function(n, reader):
    name = n.get("name")
    cfs = [reader.function(c) for c in _list(n.get("concrete"))]
    spec = n.get("input_signature")
    if spec is not None:
        spec = V.decode(spec, _decode_spec)
        if not isinstance(spec, tuple):
            raise FormatError("malformed input signature")
    params = n.get("params")
    signature = None
    if params is not None:
        out = []
        for p in _list(params):
            if not (isinstance(p, list) and len(p) == 3 and isinstance(p[0], str) and
                    p[0].isidentifier() and p[1] in _KINDS):
                raise FormatError("malformed parameter")
            default = inspect.Parameter.empty
            if isinstance(p[2], list) and len(p[2]) == 1:
                default = V.decode(p[2][0])
            out.append((p[0], p[1], default))
        try:
            signature = python_signature(out)
        except ValueError:
            raise FormatError("malformed parameters") from None
    return RestoredFunction(name if isinstance(name, str) else "function", cfs, signature,
                            spec)


_KINDS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY",
          "VAR_KEYWORD")
