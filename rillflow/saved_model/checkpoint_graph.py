"""The object graph of a checkpoint: which Python objects hold state, and
the names under which their values are saved.

As in TensorFlow, the graph starts at a root object (a `tf.train.Checkpoint`
or the object given as its `root`) and follows *tracked* attributes: variables,
`tf.Module`s, nested `tf.train.Checkpoint`s, and lists, tuples and dicts of
them. Every object is one node, however many paths reach it; its name is its
first path in breadth-first order (children in attribute-assignment order), so
a key reads like `model/layer/w/.ATTRIBUTES/VARIABLE_VALUE`.

The serialized graph is JSON: `{"nodes": [{"children": [{"node_id": 1,
"local_name": "model"}, ...], "attributes": [{"name": "VARIABLE_VALUE",
"full_name": "Variable", "checkpoint_key": "..."}]}, ...]}`, node 0 the root.
"""
import collections
import json

from ..framework import errors
from ..ops.state.module import Module
from ..ops.state.variables import Variable

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"

# Module attributes that are bookkeeping, never state (as in Module._walk).
_SKIPPED = ("_self_unconditional", "_obj_reference_counts")


def escape_local_name(name):
    """TensorFlow's escaping of one path component: `.` -> `..`, `/` -> `.S`."""
    return name.replace(".", "..").replace("/", ".S")


def checkpoint_key(path):
    """The tensor name of the variable at `path` (a tuple of local names)."""
    return "/".join(escape_local_name(n) for n in path) + "/.ATTRIBUTES/" + VARIABLE_VALUE


def is_trackable(value):
    """Whether `value` is an object a checkpoint can hold (not a container)."""
    return isinstance(value, (Variable, Module)) or (
        hasattr(value, "_checkpoint_children") and not isinstance(value, type))


def _container_has_state(value, depth=0):
    if depth > 100:  # a list that contains itself
        return False
    items = value.values() if isinstance(value, dict) else value
    for v in items:
        if is_trackable(v):
            return True
        if isinstance(v, (list, tuple, dict)) and _container_has_state(v, depth + 1):
            return True
    return False


def is_node(value):
    """Whether `value` is a node of the object graph: a trackable object, or
    a list/tuple/dict that (transitively) holds one."""
    return is_trackable(value) or (isinstance(value, (list, tuple, dict)) and
                                   _container_has_state(value))


def children(obj):
    """The tracked `(local_name, child)` pairs of `obj`, in tracking order.

    Raises:
      ValueError: for a dict with a non-string key holding state (TensorFlow
        cannot name such an entry either).
    """
    if isinstance(obj, Variable):
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
    custom = getattr(obj, "_checkpoint_children", None)
    if custom is not None:
        return custom()
    return [(k, v) for k, v in vars(obj).items()
            if k not in _SKIPPED and not k.startswith("_Module__") and is_node(v)]


def child(obj, name):
    """The tracked child `name` of `obj`, or None."""
    if isinstance(obj, (list, tuple)):
        if name.isdigit() and int(name) < len(obj) and is_node(obj[int(name)]):
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
    """The variables reachable from `root`, in breadth-first order."""
    return [obj for _, obj in breadth_first(root) if isinstance(obj, Variable)]


def serialize(root):
    """`(graph, tensors)`: the JSON-ready object graph of `root` and a dict
    checkpoint key -> NumPy value of every variable in it.

    Raises:
      FailedPreconditionError: if a variable has no value yet.
    """
    order = breadth_first(root)
    ids = {id(obj): i for i, (_, obj) in enumerate(order)}
    nodes = []
    tensors = {}
    for path, obj in order:
        node = {"children": [{"node_id": ids[id(c)], "local_name": name}
                             for name, c in children(obj)]}
        if isinstance(obj, Variable):
            key = checkpoint_key(path)
            value = obj._storage.value
            if value is None:
                raise errors.FailedPreconditionError(
                    None, None, f"Could not find variable {obj._storage.name}. This could mean "
                    "that the variable has been deleted. In TF1, it can also mean the variable "
                    "is uninitialized. [Op:ReadVariableOp]")
            tensors[key] = value
            node["attributes"] = [{"name": VARIABLE_VALUE, "full_name": obj.name[:-2],
                                   "checkpoint_key": key}]
        nodes.append(node)
    return {"nodes": nodes}, tensors


def to_bytes(graph):
    """The stored form of a serialized graph: compact JSON in UTF-8."""
    return json.dumps(graph, separators=(",", ":")).encode("utf-8")


def parse(data):
    """The node list of a stored graph (bytes or str of JSON), validated
    enough that walking it cannot fail or loop forever.

    Raises:
      DataLossError: if it is not a valid object graph.
    """
    try:
        graph = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
        nodes = graph["nodes"]
        for node in nodes:
            for c in node["children"]:
                if not (isinstance(c["local_name"], str) and type(c["node_id"]) is int and
                        0 <= c["node_id"] < len(nodes)):
                    raise ValueError
            for a in node.get("attributes", ()):
                if not all(isinstance(a[k], str) for k in ("name", "full_name",
                                                          "checkpoint_key")):
                    raise ValueError
        if not nodes:
            raise ValueError
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        raise errors.DataLossError(None, None, "The checkpoint's object graph is corrupt.") \
            from None
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
    lines += ["has_checkpoint_values {", "  value: true", "}"]
    return "\n".join(lines) + "\n"
