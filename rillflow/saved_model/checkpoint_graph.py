"""The object graph of a checkpoint: which Python objects hold state, and
the names under which their values are saved.

As in TensorFlow, the graph starts at a root object (a `tf.train.Checkpoint`
or the object given as its `root`) and follows *tracked* attributes: variables,
`tf.Module`s, nested `tf.train.Checkpoint`s, and lists, tuples and dicts of
them. Every object is one node, however many paths reach it; its name is its
first path in breadth-first order (children in attribute-assignment order), so
a key reads like `model/layer/w/.ATTRIBUTES/VARIABLE_VALUE`.

The graph is stored as TensorFlow stores it: a serialized
TrackableObjectGraph proto (`rillflow/io/checkpoint_pb.py`), node 0 the root,
in the string tensor `_CHECKPOINTABLE_OBJECT_GRAPH`. In memory a node is a
dict: `{"children": [{"node_id": 1, "local_name": "model"}, ...],
"attributes": [{"name": "VARIABLE_VALUE", "full_name": "Variable",
"checkpoint_key": "..."}], "slot_variables": [...]}`.

An object that keeps per-variable state (an optimizer's slots) declares it
with `_checkpoint_slots()`, returning `(variable, slot_name, slot_variable)`
triples; see `checkpoint.slot_created` for restoring slots created later.
"""
import collections
import json

import numpy as np

from ..framework import errors
from ..function.concrete_function import ConcreteFunction
from ..function.polymorphic_function import Function
from ..io import checkpoint_pb, wire
from ..ops.state.module import Module
from ..ops.state.variables import Variable

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"

# Module attributes that are bookkeeping, never state (as in Module._walk).
_SKIPPED = ("_self_unconditional", "_obj_reference_counts")
# tf.functions are Trackables in TensorFlow: an instance attribute holding
# one is a node (without state) of the graph.
_FUNCTIONS = (Function, ConcreteFunction)
# The containers TensorFlow wraps (and so tracks) when they are assigned to
# a tracked attribute: exactly these types, not subclasses such as
# defaultdict or Keras' TrackedList. Classes that stand for TensorFlow's own
# wrappers set `_tf_tracked_container`.
_WRAPPED = (list, dict, collections.OrderedDict)


def escape_local_name(name):
    """TensorFlow's escaping of one path component: `.` -> `..`, `/` -> `.S`."""
    return name.replace(".", "..").replace("/", ".S")


def checkpoint_key(path, attribute=VARIABLE_VALUE):
    """The tensor name of `attribute` (a variable's is VARIABLE_VALUE) of the
    object at `path` (a tuple of local names)."""
    return "/".join(escape_local_name(n) for n in path) + "/.ATTRIBUTES/" + \
        escape_local_name(attribute)


def _protocol(obj, method):
    """`obj.method` when `obj` (an instance, not a class) defines it, else None."""
    if isinstance(obj, type):
        return None
    found = getattr(obj, method, None)
    return found if callable(found) else None


def is_trackable(value):
    """Whether `value` is an object a checkpoint can hold (not a container):
    a variable, module, tf.function, or an object with TensorFlow's
    `_trackable_children` (Keras' layers, variables and optimizers) or
    rillflow's `_checkpoint_children` (`tf.train.Checkpoint`)."""
    return isinstance(value, (Variable, Module) + _FUNCTIONS) or \
        _protocol(value, "_trackable_children") is not None or \
        _protocol(value, "_checkpoint_children") is not None


def is_container(value):
    """Whether `value` is a container TensorFlow tracks as a node of its own
    (its ListWrapper, _DictWrapper, _TupleWrapper): a list, dict or
    OrderedDict, even empty, or a tuple holding something tracked."""
    if type(value) in _WRAPPED or getattr(type(value), "_tf_tracked_container", False):
        return True
    return isinstance(value, tuple) and _should_wrap_tuple(value)


def _should_wrap_tuple(value, depth=0):
    # TensorFlow's rule: a tuple is wrapped when an element is trackable, a
    # mutable container, or such a tuple. Depth-capped: a tuple can contain
    # a list that contains the tuple.
    for v in value:
        if is_trackable(v) or type(v) in _WRAPPED or (
                isinstance(v, tuple) and depth < 100 and _should_wrap_tuple(v, depth + 1)):
            return True
    return False


def is_node(value):
    """Whether `value` is a node of the object graph, as in TensorFlow: a
    trackable object or a tracked container (see `is_container`)."""
    return is_trackable(value) or is_container(value)


def has_state(obj):
    """Whether `obj` saves tensors of its own: a variable, or an object with
    TensorFlow's `_serialize_to_tensors` (a Keras variable)."""
    return isinstance(obj, Variable) or _protocol(obj, "_serialize_to_tensors") is not None


def children(obj):
    """The tracked `(local_name, child)` pairs of `obj`, in tracking order.

    An object with TensorFlow's `_trackable_children(save_type)` (Keras'
    objects, the `tf.__internal__.tracking` stand-ins) names its own; a
    `tf.Module`'s are its attributes holding nodes; a container's are its
    entries that are nodes, named by index or key.

    Raises:
      ValueError: for a dict with a non-string key holding a node
        (TensorFlow cannot name such an entry either).
    """
    if isinstance(obj, Variable) or isinstance(obj, _FUNCTIONS):
        return []
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj) if is_node(v)]
    if isinstance(obj, dict):
        out = []
        for k, v in obj.items():
            if not is_node(v):
                continue
            if not isinstance(k, str):
                raise ValueError(
                    f"Unable to save the object {obj!r} (a dictionary wrapper constructed "
                    "automatically on attribute assignment). The wrapped dictionary contains a "
                    "non-string key which maps to a trackable object or mutable data structure."
                    "\n\nIf you don't need this dictionary checkpointed, wrap it in a "
                    "non-trackable object; it will be subsequently ignored.")
            out.append((k, v))
        return out
    custom = _protocol(obj, "_checkpoint_children")
    if custom is not None:
        return custom()
    protocol = _protocol(obj, "_trackable_children")
    if protocol is not None:
        return [(k, v) for k, v in protocol("checkpoint").items() if is_node(v)]
    return [(k, v) for k, v in vars(obj).items()
            if k not in _SKIPPED and not k.startswith("_Module__") and is_node(v)]


def child(obj, name):
    """The tracked child `name` of `obj`, or None."""
    if isinstance(obj, (list, tuple)):
        # ASCII digits only: int() also reads other scripts' digits, and
        # str.isdigit() accepts characters int() rejects ("²").
        if name.isascii() and name.isdigit() and int(name) < len(obj) and \
                is_node(obj[int(name)]):
            return obj[int(name)]
        return None
    if isinstance(obj, dict):
        v = obj.get(name)
        return v if is_node(v) else None
    for k, v in children(obj):
        if k == name:
            return v
    return None


def breadth_first(root):
    """`[(path, obj), ...]` of every object reachable from `root`, each once,
    with its first path in breadth-first order."""
    seen = {id(root)}
    order = [((), root)]
    queue = collections.deque(order)
    while queue:
        path, obj = queue.popleft()
        for name, c in children(obj):
            if id(c) in seen:
                continue
            seen.add(id(c))
            entry = (path + (name,), c)
            order.append(entry)
            queue.append(entry)
    return order


def variables_of(root):
    """The objects with state of their own (`has_state`: variables, Keras
    variables) reachable from `root`, in breadth-first order."""
    return [obj for _, obj in breadth_first(root) if has_state(obj)]


def _slots(obj):
    """The `(variable, slot_name, slot_variable)` triples an optimizer-like
    object declares through `_checkpoint_slots()` (none for other objects)."""
    method = getattr(obj, "_checkpoint_slots", None)
    if method is None or isinstance(obj, type) or not callable(method):
        return []
    return list(method())


def _value_of(var):
    value = var._storage.value
    if value is None:
        raise errors.FailedPreconditionError(
            None, None, f"Could not find variable {var._storage.name}. This could mean that the "
            "variable has been deleted. In TF1, it can also mean the variable is uninitialized. "
            "[Op:ReadVariableOp]")
    return value


def full_name(obj):
    """TensorFlow's `full_name` of an attribute: a variable's name without
    `:0` (`_shared_name`), "" for other objects."""
    if isinstance(obj, Variable):
        return obj._shared_name
    if hasattr(obj, "_should_act_as_resource_variable"):
        return str(getattr(obj, "_shared_name", ""))
    return ""


def _as_numpy(value):
    if isinstance(value, Variable):
        return _value_of(value)
    v = getattr(value, "_v", None)
    if isinstance(v, np.ndarray):
        return v       # an eager tensor's array (a string scalar stays an array)
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


def state_tensors(obj):
    """{attribute name: NumPy value} that `obj` saves: a variable's
    VARIABLE_VALUE, or what TensorFlow's `_serialize_to_tensors()` returns
    (a Keras variable returns its inner `tf.Variable`'s); {} without state.

    Raises:
      FailedPreconditionError: if a variable has no value yet.
      InvalidArgumentError: for a sliced save spec (a dict of slices).
    """
    if isinstance(obj, Variable):
        return {VARIABLE_VALUE: _value_of(obj)}
    method = _protocol(obj, "_serialize_to_tensors")
    if method is None:
        return {}
    try:
        found = method()
    except NotImplementedError:  # TensorFlow's base class: no tensors
        return {}
    out = {}
    for name, value in found.items():
        if isinstance(value, dict):
            raise errors.InvalidArgumentError(
                None, None, f"{type(obj).__name__} saves sliced tensors ({name}), which "
                "rillflow's checkpoints do not support.")
        out[name] = _as_numpy(value)
    return out


def serialize(root):
    """`(nodes, tensors)`: the object graph of `root` (a list of node dicts,
    see `rillflow/io/checkpoint_pb.py`) and a dict checkpoint key -> NumPy
    value of every variable (and other object with state, see
    `state_tensors`) in it.

    Slot variables (an optimizer's per-variable state, declared by
    `_checkpoint_slots()`) that are not reachable otherwise become nodes
    after the others, keyed under their variable as TensorFlow keys them:
    `model/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE`.

    Raises:
      FailedPreconditionError: if a variable has no value yet.
    """
    order = breadth_first(root)
    ids = {id(obj): i for i, (_, obj) in enumerate(order)}
    paths = {id(obj): path for path, obj in order}
    nodes = []
    tensors = {}
    for path, obj in order:
        node = {"children": [{"node_id": ids[id(c)], "local_name": name}
                             for name, c in children(obj)]}
        attributes = []
        for name, value in state_tensors(obj).items():
            key = checkpoint_key(path, name)
            tensors[key] = value
            attributes.append({"name": escape_local_name(name), "full_name": full_name(obj),
                               "checkpoint_key": key})
        if attributes:
            node["attributes"] = attributes
        nodes.append(node)
    for path, obj in order:
        refs = []
        for var, slot_name, slot in _slots(obj):
            if id(var) not in ids or not isinstance(slot, Variable):
                continue  # TensorFlow also drops slots of variables it does not save
            if id(slot) not in ids:
                key = "/".join(escape_local_name(n) for n in paths[id(var)]) + \
                    "/.OPTIMIZER_SLOT/" + "/".join(escape_local_name(n) for n in path) + \
                    "/" + escape_local_name(slot_name) + "/.ATTRIBUTES/" + VARIABLE_VALUE
                ids[id(slot)] = len(nodes)
                tensors[key] = _value_of(slot)
                nodes.append({"children": [], "attributes": [
                    {"name": VARIABLE_VALUE, "full_name": full_name(slot),
                     "checkpoint_key": key}]})
            refs.append({"original_variable_node_id": ids[id(var)], "slot_name": slot_name,
                         "slot_variable_node_id": ids[id(slot)]})
        if refs:
            nodes[ids[id(obj)]]["slot_variables"] = refs
    return nodes, tensors


def _mark_checkpoint_values(nodes):
    """Sets each node's `has_checkpoint_values`: whether it or anything it
    reaches (children, slot variables) holds a saved value, as TensorFlow
    computes it."""
    parents = collections.defaultdict(list)
    for i, node in enumerate(nodes):
        for c in node.get("children", ()):
            parents[c["node_id"]].append(i)
        for s in node.get("slot_variables", ()):
            parents[s["slot_variable_node_id"]].append(i)
    marked = {i for i, node in enumerate(nodes) if node.get("attributes")}
    queue = collections.deque(marked)
    while queue:
        for p in parents[queue.popleft()]:
            if p not in marked:
                marked.add(p)
                queue.append(p)
    for i, node in enumerate(nodes):
        node["has_checkpoint_values"] = i in marked


def to_bytes(nodes):
    """The stored form of an object graph (a list of node dicts): a
    serialized TrackableObjectGraph, `has_checkpoint_values` filled in."""
    nodes = [dict(n) for n in nodes]
    _mark_checkpoint_values(nodes)
    return checkpoint_pb.encode_object_graph(nodes)


def parse(data, source="the checkpoint"):
    """The node list of a stored TrackableObjectGraph, validated so that
    walking it cannot fail: every node id in range (cycles are allowed, as
    in TensorFlow; the walkers keep visited sets).

    Raises:
      DataLossError: naming `source`, if it is not a valid object graph.
    """
    try:
        nodes = checkpoint_pb.decode_object_graph(bytes(data))
        n = len(nodes)
        if not n:
            raise wire.DecodeError("no nodes")
        for node in nodes:
            ids = [c["node_id"] for c in node["children"]]
            for s in node["slot_variables"]:
                ids += [s["original_variable_node_id"], s["slot_variable_node_id"]]
            if not all(0 <= i < n for i in ids):
                raise wire.DecodeError("node id out of range")
    except (wire.DecodeError, TypeError):
        raise errors.DataLossError(
            None, None, f"The object graph ({OBJECT_GRAPH_KEY}) of {source} is corrupt: it "
            "is not a valid TrackableObjectGraph.") from None
    return nodes


def node_paths(nodes):
    """For each node id, its first breadth-first path as `(root).a.b` (how
    TensorFlow names unresolved checkpoint objects in messages)."""
    names = {0: "(root)"}
    queue = collections.deque([0])
    while queue:
        i = queue.popleft()
        for c in nodes[i]["children"]:
            if c["node_id"] not in names:
                names[c["node_id"]] = names[i] + "." + c["local_name"]
                queue.append(c["node_id"])
    return names


def node_text(node):
    """A node in protobuf text form, as TensorFlow prints it in assertion messages."""
    lines = []
    for c in node["children"]:
        lines += ["children {", f"  node_id: {c['node_id']}",
                  f"  local_name: {json.dumps(c['local_name'])}", "}"]
    for a in node.get("attributes", ()):
        lines += ["attributes {", f"  name: {json.dumps(a['name'])}",
                  f"  full_name: {json.dumps(a['full_name'])}",
                  f"  checkpoint_key: {json.dumps(a['checkpoint_key'])}", "}"]
    for v in node.get("slot_variables", ()):
        lines += ["slot_variables {",
                  f"  original_variable_node_id: {v['original_variable_node_id']}",
                  f"  slot_name: {json.dumps(v['slot_name'])}",
                  f"  slot_variable_node_id: {v['slot_variable_node_id']}", "}"]
    lines += ["has_checkpoint_values {"] + \
        (["  value: true"] if node.get("has_checkpoint_values", True) else []) + ["}"]
    return "\n".join(lines) + "\n"
